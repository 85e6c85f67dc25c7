"""Activity analysis: varied x useful = active; memory objects that get shadows; the printer."""

from __future__ import annotations

import pytest

from enzyme_py.analysis.activity import analyze_activity, carries_float
from enzyme_py.analysis.errors import AnalysisError
from enzyme_py.ir import parse
from enzyme_py.ir import types as T


def _analyze(text: str, acts: list[str], ret: bool, name: str = "f"):
    fn = parse(text).get_function(name)
    return fn, analyze_activity(fn, acts, ret)


def _value(fn, name: str):
    for a in fn.args:
        if a.name == name:
            return a
    for inst in fn.instructions():
        if inst.name == name:
            return inst
    raise KeyError(name)


def _active_names(fn, act) -> set[str]:
    return {v.name for v in [*fn.args, *fn.instructions()] if act.is_active(v)}


SCALARS = """
define double @f(double %x, double %y, i64 %n) {
entry:
  %xy = fmul double %x, %y
  %yy = fmul double %y, %y
  %s = fadd double %xy, %yy
  %k = mul i64 %n, 3
  %c = fptosi double %x to i64
  %ck = add i64 %c, %k
  %cf = sitofp i64 %ck to double
  %big = fcmp ogt double %x, 1.0
  %sel = select i1 %big, double %s, double %cf
  %r = fadd double %sel, %cf
  ret double %r
}
"""


def test_const_and_active_scalars() -> None:
    fn, act = _analyze(SCALARS, ["out", "const", "const"], True)
    assert _active_names(fn, act) == {"x", "xy", "s", "sel", "r"}
    # depends only on the const argument: useful but not varied
    yy = _value(fn, "yy")
    assert yy in act.useful and yy not in act.varied and not act.is_active(yy)
    # integer and boolean values never carry derivatives, even when they depend on x
    for name in ("k", "c", "ck", "big"):
        assert not act.is_active(_value(fn, name)), name
    # a float rebuilt from an integer is not varied: the chain x -> fptosi is cut
    assert _value(fn, "cf") not in act.varied
    assert act.shadowed == frozenset()


def test_both_arguments_active() -> None:
    fn, act = _analyze(SCALARS, ["out", "out", "const"], True)
    assert {"x", "y", "xy", "yy", "s", "sel", "r"} <= _active_names(fn, act)
    assert not act.is_active(_value(fn, "cf"))


def test_inactive_return_makes_nothing_active() -> None:
    fn, act = _analyze(SCALARS, ["out", "out", "const"], False)
    assert act.active == frozenset()
    assert _value(fn, "s") in act.varied and _value(fn, "s") not in act.useful


LOCAL_ARRAY = """
define double @f(double %x, double %y, ptr %p) {
entry:
  %a = alloca [4 x double], align 8
  %q = getelementptr [4 x double], ptr %a, i64 0, i64 1
  %m = fmul double %x, %x
  store double %m, ptr %q, align 8
  %l = load double, ptr %q, align 8
  %u = fadd double %x, 1.0
  store double %u, ptr %p, align 8
  %r = fadd double %l, %y
  ret double %r
}
"""


def test_value_through_local_array_is_active_with_shadow() -> None:
    fn, act = _analyze(LOCAL_ARRAY, ["out", "const", "const"], True)
    a, q = _value(fn, "a"), _value(fn, "q")
    assert act.is_active(_value(fn, "m")) and act.is_active(_value(fn, "l"))
    assert a in act.shadowed and a in act.varied and a in act.useful
    assert act.has_shadow(q) and act.touches_shadow(q)
    assert not act.is_active(a) and not act.is_active(q)  # pointers carry no derivative
    assert not act.has_shadow(fn.args[2])


def test_varied_but_not_useful_is_not_active() -> None:
    # %u depends on x but only goes to const memory that is never read: not active, no error
    fn, act = _analyze(LOCAL_ARRAY, ["out", "const", "const"], True)
    u = _value(fn, "u")
    assert u in act.varied and u not in act.useful and not act.is_active(u)


def test_dup_pointer_makes_stores_into_it_active() -> None:
    fn, act = _analyze(LOCAL_ARRAY, ["out", "const", "dup"], True)
    p = fn.args[2]
    assert p in act.shadowed and act.has_shadow(p)
    assert act.is_active(_value(fn, "u"))  # stored into dup memory: it reaches an output


DUP_READ = """
define double @f(ptr %x, ptr %w, i64 %n) {
entry:
  %px = getelementptr double, ptr %x, i64 %n
  %v = load double, ptr %px
  %pw = getelementptr double, ptr %w, i64 %n
  %c = load double, ptr %pw
  %r = fmul double %v, %c
  %i = load i64, ptr %x
  ret double %r
}
"""


def test_loads_from_dup_and_const_pointers() -> None:
    fn, act = _analyze(DUP_READ, ["dup", "const", "const"], True)
    assert _active_names(fn, act) == {"v", "r"}
    assert not act.is_active(_value(fn, "c"))
    assert not act.is_active(_value(fn, "i"))  # an integer read of active memory
    assert act.shadowed == frozenset({fn.args[0]})
    assert act.has_shadow(_value(fn, "px")) and not act.touches_shadow(_value(fn, "pw"))


MEMCPY = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define double @f(ptr %x) {
entry:
  %buf = alloca [2 x double]
  %other = alloca [2 x double]
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %x, i64 16, i1 false)
  %p = getelementptr double, ptr %buf, i64 1
  %v = load double, ptr %p
  %o = load double, ptr %other
  %r = fadd double %v, %o
  ret double %r
}
"""


def test_memcpy_carries_activity_into_a_local() -> None:
    fn, act = _analyze(MEMCPY, ["dup"], True)
    buf, other = _value(fn, "buf"), _value(fn, "other")
    assert buf in act.shadowed and other not in act.shadowed
    assert act.is_active(_value(fn, "v")) and not act.is_active(_value(fn, "o"))
    assert act.is_active(_value(fn, "r"))


def test_memcpy_from_const_memory_is_not_active() -> None:
    fn, act = _analyze(MEMCPY, ["const"], True)
    assert act.active == frozenset() and act.shadowed == frozenset()


PHI = """
define double @f(double %x, i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  %ax = fmul double %x, 2.0
  br label %join
b:
  br label %join
join:
  %p = phi double [ %ax, %a ], [ 1.0, %b ]
  ret double %p
}
"""


def test_phi_is_active_through_either_edge() -> None:
    fn, act = _analyze(PHI, ["out", "const"], True)
    assert _active_names(fn, act) == {"x", "ax", "p"}


STORE_CONST_READ = """
define double @f(double %x, ptr %p) {
entry:
  %m = fmul double %x, 3.0
  store double %m, ptr %p
  %l = load double, ptr %p
  ret double %l
}
"""


def test_active_value_stored_into_const_memory_read_again_raises() -> None:
    fn = parse(STORE_CONST_READ).get_function("f")
    with pytest.raises(AnalysisError) as err:
        analyze_activity(fn, ["out", "const"], True)
    msg = str(err.value)
    assert "@f" in msg and "store double %m, ptr %p" in msg
    assert "const argument" in msg and "dup" in msg


def test_same_store_is_fine_when_the_pointer_is_dup() -> None:
    fn, act = _analyze(STORE_CONST_READ, ["out", "dup"], True)
    assert _active_names(fn, act) == {"x", "m", "l"}


def test_active_value_stored_into_unknown_memory_raises() -> None:
    text = """
define double @f(double %x, ptr %pp) {
entry:
  %p = load ptr, ptr %pp
  store double %x, ptr %p
  %l = load double, ptr %p
  ret double %l
}
"""
    fn = parse(text).get_function("f")
    with pytest.raises(AnalysisError, match="reached through a pointer loaded from memory "
                       "that has none"):
        analyze_activity(fn, ["out", "const"], True)


@pytest.mark.parametrize(("acts", "ret", "match"), [
    (["out", "const"], True, r"@f takes 3 arguments, but 2 activities were given"),
    (["out", "const", "active"], True, r"unknown activity 'active'"),
    (["dup", "const", "const"], True, r"argument 0 of @f is double.*cannot be 'dup'"),
    (["out", "const", "dupnoneed"], True, r"argument 2 .*i64.*cannot be 'dupnoneed'"),
    (["out", "const", "out"], True, r"only floating point arguments can be 'out'"),
])
def test_bad_activity_lists(acts, ret, match) -> None:
    fn = parse(SCALARS).get_function("f")
    with pytest.raises(AnalysisError, match=match):
        analyze_activity(fn, acts, ret)


def test_out_on_a_pointer_and_active_integer_return() -> None:
    fn = parse(DUP_READ).get_function("f")
    with pytest.raises(AnalysisError, match=r"use 'dup' for pointers"):
        analyze_activity(fn, ["out", "const", "const"], True)
    ints = parse("define i64 @g(double %x) {\n  %i = fptosi double %x to i64\n"
                 "  ret i64 %i\n}\n").get_function("g")
    with pytest.raises(AnalysisError, match=r"@g returns i64: an active return needs"):
        analyze_activity(ints, ["out"], True)


def test_carries_float() -> None:
    assert carries_float(T.DOUBLE) and carries_float(T.FLOAT)
    assert carries_float(T.VectorType(4, T.DOUBLE))
    assert carries_float(T.ArrayType(3, T.FLOAT))
    assert carries_float(T.StructType((T.I64, T.DOUBLE)))
    assert not carries_float(T.I64) and not carries_float(T.PTR)
    assert not carries_float(T.StructType((T.I64, T.PTR)))



def test_analysis_does_not_change_the_function() -> None:
    module = parse(LOCAL_ARRAY)
    before = str(module)
    analyze_activity(module.get_function("f"), ["out", "const", "dup"], True)
    assert str(module) == before

