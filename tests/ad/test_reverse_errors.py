"""Reverse mode refuses what it cannot differentiate with one clear message: the function, the
block and the instruction, and what to do about it."""

from __future__ import annotations

import ctypes

import pytest

from enzyme_py.ad.driver import gradient_module
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.backend import compile_ir
from enzyme_py.errors import EnzymePyError
from enzyme_py.ir import parse

IDENTITY = "define double @f(double %x) {\nentry:\n  ret double %x\n}\n"


def _error(ir: str, fname: str, acts: list[str], ret: bool) -> str:
    with pytest.raises(EnzymePyError) as err:
        gradient_module(parse(ir), fname, acts, ret, opt_level=0)
    assert isinstance(err.value, DifferentiationError), type(err.value)
    msg = str(err.value)
    assert "Traceback" not in msg and msg.strip() == msg
    return msg


EXTERNAL = """
declare double @mystery(double)

define double @f(double %x) {
entry:
  %m = call double @mystery(double %x)
  %r = fmul double %m, %x
  ret double %r
}
"""


def test_external_call_without_rule_on_active_path() -> None:
    msg = _error(EXTERNAL, "f", ["out"], True)
    assert msg.startswith("in @f, block %entry, instruction "
                          "`%m = call double @mystery(double %x)`:")
    assert "@mystery has no derivative rule and no body" in msg
    assert "enzyme_py/rules/libm.py" in msg and "enzyme_py/rules/intrinsics.py" in msg
    assert "__enzyme_inactivefn" in msg  # how to mark it inactive


def test_external_call_off_the_active_path_is_fine() -> None:
    ir = """
declare double @mystery(double)
declare void @log_value(double)

define double @f(double %x, double %c) {
entry:
  call void @log_value(double %x)
  %m = call double @mystery(double %c)
  %r = fmul double %x, %m
  ret double %r
}
"""
    out, name = gradient_module(parse(ir), "f", ["out", "const"], True, opt_level=0)
    assert f"@{name}(" in str(out)


def test_external_call_writing_active_memory() -> None:
    ir = """
declare void @fill(ptr)

define double @f(ptr %x) {
entry:
  call void @fill(ptr %x)
  %v = load double, ptr %x
  ret double %v
}
"""
    msg = _error(ir, "f", ["dup"], True)
    assert "in @f, block %entry, instruction `call void @fill(ptr %x)`" in msg
    assert "@fill has no derivative rule" in msg


NOINLINE_CALLEE = """
define void @helper(ptr %p) noinline {
entry:
  %v = load double, ptr %p
  %w = fmul double %v, %v
  store double %w, ptr %p
  ret void
}

define void @f(ptr %x) {
body:
  call void @helper(ptr %x)
  ret void
}
"""


@pytest.mark.parametrize("attr", ["noinline", "alwaysinline"])
def test_non_recursive_callee_is_inlined_first(attr) -> None:
    ir = NOINLINE_CALLEE.replace("noinline", attr)
    out, name = gradient_module(parse(ir), "f", ["dup"], False, opt_level=0)
    grad = out.get_function(name)
    assert not any(getattr(i, "callee_name", None) == "helper" for i in grad.instructions())


def test_atomic_update_of_active_memory() -> None:
    ir = """
define void @f(ptr %x, double %v) {
entry:
  %old = atomicrmw fadd ptr %x, double %v seq_cst
  ret void
}
"""
    msg = _error(ir.replace("fadd", "fmax"), "f", ["dup", "out"], False)
    assert "in @f, block %entry, instruction `%old = atomicrmw fmax ptr %x, double %v" in msg
    assert "atomic" in msg
    used = ir.replace("  ret void", "  store double %old, ptr %x\n  ret void")
    msg = _error(used, "f", ["dup", "out"], False)
    assert "the old value this atomic update returns is used" in msg


def test_atomic_add_of_active_memory() -> None:
    """`*x += v` atomically: dv is the adjoint of *x, which keeps it (read, not consumed)."""
    ir = """
define void @f(ptr %x, double %v) {
entry:
  %old = atomicrmw fadd ptr %x, double %v seq_cst
  ret void
}
"""
    out, name = gradient_module(parse(ir), "f", ["dup", "out"], False)
    jm = compile_ir(str(out))
    fn = ctypes.CFUNCTYPE(ctypes.c_double, *[ctypes.c_void_p] * 2, ctypes.c_double)(
        jm.address(name))
    x, dx = (ctypes.c_double(1.0), ctypes.c_double(0.25))
    assert fn(ctypes.addressof(x), ctypes.addressof(dx), 2.0) == 0.25
    assert x.value == 3.0 and dx.value == 0.25


def test_unknown_activity_string() -> None:
    msg = _error(IDENTITY, "f", ["active"], True)
    assert "unknown activity 'active'" in msg
    assert "const, dup, dupnoneed, out" in msg


def test_wrong_number_of_activities() -> None:
    msg = _error(IDENTITY, "f", ["out", "out"], True)
    assert "takes 1 arguments, but 2 activities were given" in msg


def test_dup_on_a_non_pointer() -> None:
    msg = _error(IDENTITY, "f", ["dup"], True)
    assert "argument 0" in msg and "is double, not a pointer" in msg
    assert "cannot be 'dup'" in msg and "use 'out' or 'const'" in msg


def test_out_on_a_pointer() -> None:
    ir = "define double @f(ptr %x) {\nentry:\n  %v = load double, ptr %x\n  ret double %v\n}\n"
    msg = _error(ir, "f", ["out"], True)
    assert "argument 0" in msg and "is ptr" in msg and "use 'dup' for pointers" in msg


INT_RET = """
define i64 @f(double %x) {
entry:
  %i = fptosi double %x to i64
  ret i64 %i
}
"""


def test_active_return_on_integer_function() -> None:
    msg = _error(INT_RET, "f", ["out"], True)
    assert "returns i64: an active return needs a floating point result" in msg
    out, _ = gradient_module(parse(INT_RET), "f", ["out"], False, opt_level=0)  # fine inactive
    assert "@diffe_f(" in str(out)


@pytest.mark.parametrize(("ir", "acts", "ret"), [
    (IDENTITY, ["dup"], True),
    (INT_RET, ["out"], True),
    (IDENTITY, ["out", "out"], True),
], ids=["dup-non-pointer", "int-return", "count"])
def test_activity_errors_name_the_user_function(ir, acts, ret) -> None:
    """Regression: these messages named the gradient's working copy (@diffe_f)."""
    msg = _error(ir, "f", acts, ret)
    assert "@diffe_f" not in msg and "@f " in msg


def test_function_that_does_not_exist() -> None:
    msg = _error(IDENTITY, "nope", ["out"], True)
    assert "no function @nope" in msg and "defined: f" in msg


def test_declaration_has_no_body() -> None:
    msg = _error("declare double @f(double)\n", "f", ["out"], True)
    assert msg == "@f has no body to differentiate"


def test_active_value_into_const_memory_read_again() -> None:
    ir = """
define double @f(double %x, ptr %p, i64 %i, i64 %j) {
entry:
  %m = fmul double %x, 3.0
  %pi = getelementptr double, ptr %p, i64 %i
  store double %m, ptr %pi
  %pj = getelementptr double, ptr %p, i64 %j
  %l = load double, ptr %pj
  ret double %l
}
"""
    msg = _error(ir, "f", ["out", "const", "const", "const"], True)
    assert "store double %m, ptr %pi" in msg and "dup" in msg
