"""Forward mode: golden structure of `@fwddiffe_f` (FileCheck), signatures for every activity
and width, and the errors (messages that name function, block and instruction)."""

from __future__ import annotations

import pytest

from enzyme_py.ad.driver import forward_module, prepare
from enzyme_py.ad.forward import ForwardOptions, forward_diff
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.errors import ArgumentValueError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import parse

SQUARE = """
define double @f(double %x) {
entry:
  %y = fmul double %x, %x
  ret double %y
}
"""

BRANCH = """
define void @g(ptr %x, double %s, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %pos, label %neg
pos:
  %v = load double, ptr %x
  %m = fmul double %v, %s
  br label %join
neg:
  %w = load double, ptr %x
  %m2 = fadd double %w, %s
  br label %join
join:
  %r = phi double [ %m, %pos ], [ %m2, %neg ]
  store double %r, ptr %x
  ret void
}
"""

PRODUCT_LOOP = """
define double @prod(ptr %x, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %p = phi double [ 1.0, %entry ], [ %p.next, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %px = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %px
  %p.next = fmul double %p, %v
  %i.next = add nsw i64 %i, 1
  br label %head
exit:
  ret double %p
}
"""


def _fwd_text(ir: str, fname: str, acts: list[str], opt: int = 0, **kw) -> str:
    out, name = forward_module(parse(ir), fname, acts, opt_level=opt, **kw)
    text = str(out)
    start = text.rindex("define", 0, text.index(f"@{name}("))
    return text[start:text.index("\n}\n", start) + 3]



def test_tangent_only_and_const_arguments() -> None:
    text = _fwd_text(SQUARE, "f", ["dup"], return_primal=False)
    assert text.startswith("define double @fwddiffe_f(double %x, double %x.t)")
    text = _fwd_text(SQUARE, "f", ["dup"], return_primal=False, width=2)
    assert text.startswith("define [2 x double] @fwddiffe_f(double %x, double %x.t0, "
                           "double %x.t1)")
    # every input const: the tangent is the constant zero, no arithmetic is built
    text = _fwd_text(SQUARE, "f", ["const"])
    assert "fadd" not in text and "double %y, 0" in text and "double 0.000000e+00, 1" in text


INACTIVE = """
declare double @llvm.exp.f64(double)

define double @f(double %x, double %c) {
entry:
  %k = fmul double %c, 2.0
  %e = call double @llvm.exp.f64(double %k)
  %y = fmul double %x, %e
  ret double %y
}
"""


def test_no_code_for_inactive_values() -> None:
    text = _fwd_text(INACTIVE, "f", ["dup", "const"])
    assert "%k.t" not in text and "%e.t" not in text


def test_optimized_square_is_arithmetic_only() -> None:
    text = _fwd_text(SQUARE, "f", ["dup"], opt=2)
    fn = parse(text).get_function("fwddiffe_f")
    ops = {i.opcode for i in fn.instructions()}
    assert ops <= {"fmul", "fadd", "insertvalue", "ret"}, ops


def test_name_determinism_and_caller_unchanged() -> None:
    module = parse(BRANCH)
    before = str(module)
    a = _fwd_text(BRANCH, "g", ["dup", "dup", "const"], name="g_tangent")
    b = _fwd_text(BRANCH, "g", ["dup", "dup", "const"], name="g_tangent")
    assert a == b and a.startswith("define void @g_tangent(")
    forward_module(module, "g", ["dup", "dup", "const"])
    assert str(module) == before


def test_same_request_is_reused() -> None:
    work = prepare(parse(SQUARE))
    f = work.get_function("f")
    one = forward_diff(work, f, ["dup"])
    assert forward_diff(work, f, ["dup"]) is one
    two = forward_diff(work, f, ["dup"], ForwardOptions(width=2))
    assert two is not one and two.name == "fwddiffe_f.1"


# --- errors -----------------------------------------------------------------------------------


def _error(ir: str, fname: str, acts: list[str], **kw) -> str:
    with pytest.raises(DifferentiationError) as exc:
        forward_module(parse(ir), fname, acts, **kw)
    return str(exc.value)


def test_out_is_not_a_forward_activity() -> None:
    msg = _error(SQUARE, "f", ["out"])
    assert "argument 0 of @f" in msg and "'out'" in msg and "'dup'" in msg


def test_dup_integer_and_activity_count() -> None:
    msg = _error(PRODUCT_LOOP, "prod", ["dup", "dup"])
    assert "argument 1 of @prod (i64)" in msg and "'const'" in msg
    msg = _error(PRODUCT_LOOP, "prod", ["dup"])
    assert "takes 2 arguments" in msg


def test_bad_width() -> None:
    # (checked where the options are built: the config never carries a bad width)
    with pytest.raises(ArgumentValueError, match="width must be a positive integer, not 0"):
        forward_module(parse(SQUARE), "f", ["dup"], width=0)


UNKNOWN_CALL = """
declare double @mystery(double)

define double @f(double %x) {
entry:
  %y = fmul double %x, %x
  %z = call double @mystery(double %y)
  ret double %z
}
"""


def test_call_without_rule_names_the_place() -> None:
    msg = _error(UNKNOWN_CALL, "f", ["dup"])
    assert msg.startswith("in @f, block %entry, instruction `%z = call double @mystery")
    assert "no derivative rule and no body" in msg and "enzyme_py/rules/libm.py" in msg


WRITES_UNKNOWN = """
declare void @sink(ptr)

define double @f(ptr %x) {
entry:
  %v = load double, ptr %x
  call void @sink(ptr %x)
  ret double %v
}
"""


def test_unknown_call_touching_active_memory() -> None:
    msg = _error(WRITES_UNKNOWN, "f", ["dup"])
    assert "@sink" in msg and "block %entry" in msg


ATOMIC = """
define void @f(ptr %x) {
entry:
  %v = load double, ptr %x
  %w = fmul double %v, %v
  store double %w, ptr %x
  %old = atomicrmw fmax ptr %x, double 1.0 seq_cst
  ret void
}
"""


def test_atomic_update_of_active_memory() -> None:
    """An atomic add is differentiated (the shadow gets the tangent's add); other atomic
    updates are errors."""
    assert "atomic updates of active memory" in _error(ATOMIC, "f", ["dup"])
    add = """
define void @f(ptr %x, double %v) {
entry:
  %old = atomicrmw fadd ptr %x, double %v seq_cst
  ret void
}
"""
    out, name = forward_module(parse(add), "f", ["dup", "dup"], opt_level=0)
    assert "atomicrmw fadd ptr %x.shadow, double %v.t seq_cst" in str(out)


def test_ir_is_valid_for_llvm() -> None:
    from enzyme_py.backend import compile_ir

    for ir, f, acts in [(BRANCH, "g", ["dup", "dup", "const"]), (PRODUCT_LOOP, "prod",
                                                                  ["dup", "const"])]:
        for width in (1, 3):
            out, name = forward_module(parse(ir), f, acts, width=width, opt_level=0)
            assert name in compile_ir(str(out), opt_level=0).functions
            assert not any(isinstance(i, I.Call) and i.callee_name == "malloc"
                           for i in out.get_function(name).instructions())


RECURSIVE = """
define double @pw(double %x, i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %more
more:
  %m = sub i32 %n, 1
  %r = call double @pw(double %x, i32 %m)
  %p = fmul double %r, %x
  br label %done
done:
  %v = phi double [ 1.0, %entry ], [ %p, %more ]
  ret double %v
}
"""


def test_recursive_call_uses_its_own_derivative() -> None:
    """(its structure: tests/filecheck/forward/recursive_call.ll)"""
    from enzyme_py.backend import compile_ir

    out, name = forward_module(parse(RECURSIVE), "pw", ["dup", "const"])
    value, tangent = compile_ir(str(out)).function(name)(1.5, 1.0, 5)
    assert value == 1.5**5 and abs(tangent - 5 * 1.5**4) < 1e-12


RECURSIVE_WRITES = """
define double @acc(double %x, ptr %buf, i32 %n) {
entry:
  store double %x, ptr %buf
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %more
more:
  %m = sub i32 %n, 1
  %r = call double @acc(double %x, ptr %buf, i32 %m)
  %p = fmul double %r, %x
  br label %done
done:
  %v = phi double [ 1.0, %entry ], [ %p, %more ]
  ret double %v
}
"""


def test_recursive_call_writing_memory_without_shadow() -> None:
    msg = _error(RECURSIVE_WRITES, "acc", ["dup", "const", "const"])
    # Caught by the activity analysis (the active value stored into memory that has no
    # shadow) or, in forward mode, at the recursive call that may write through it.
    assert "@acc" in msg and ("may write memory through argument 1" in msg
                              or "derivative would be lost" in msg)


GLOBAL = """
@g = global [4 x double] zeroinitializer

define double @f(double %x) {
entry:
  %s = alloca double
  store double %x, ptr @g
  %v = load double, ptr @g
  %y = fmul double %v, %v
  ret double %y
}
"""


def _direct(ir: str, fname: str, acts: list[str], **kw) -> str:
    """Forward mode on IR that is canonical already (no pipeline folds the memory away)."""
    m = parse(ir)
    fwd = forward_diff(m, m.get_function(fname), acts, ForwardOptions(**kw))
    text = str(m)
    return text[text.rindex("define", 0, text.index(f"@{fwd.name}(")):]



POINTER_STORE = """
define double @f(ptr %x, ptr %tab, i64 %n) {
entry:
  %p = getelementptr double, ptr %x, i64 %n
  store ptr %p, ptr %tab
  %q = load ptr, ptr %tab
  %v = load double, ptr %q
  %y = fmul double %v, %v
  ret double %y
}
"""


