"""Tests of the llvmlite backend: parse/verify/normalize, optimization, named passes, JIT calls
and the argument checks that run before native code."""

from __future__ import annotations

import ctypes
import functools
import math
import operator
import re

import numpy as np
import pytest

from enzyme_py.backend import (
    LLVM_PASSES,
    ArgSpec,
    JITModule,
    Signature,
    compile_ir,
    normalize,
    optimize,
    parse_llvm,
    run_llvm_passes,
)
from enzyme_py.errors import BackendError, CallError

KERNELS = r"""
define double @poly(double %x, double %y) {
entry:
  %xx = fmul double %x, %x
  %t = fmul double %xx, %y
  %r = fadd double %t, 1.5
  ret double %r
}

define float @fscale(float %x, float %s) {
entry:
  %r = fmul float %x, %s
  ret float %r
}

define i32 @imix(i32 %a, i32 %b) {
entry:
  %m = mul i32 %a, 3
  %r = sub i32 %m, %b
  ret i32 %r
}

define i64 @iadd(i64 %a, i64 %b) {
entry:
  %r = add i64 %a, %b
  ret i64 %r
}

define i1 @is_neg(double %x) {
entry:
  %c = fcmp olt double %x, 0.0
  ret i1 %c
}

define double @sum(ptr %x, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %acc.next = fadd double %acc, %v
  %i.next = add nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  %res = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  ret double %res
}

define void @axpy(double %a, ptr %x, ptr %y, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %vx = load double, ptr %px
  %vy = load double, ptr %py
  %ax = fmul double %a, %vx
  %s = fadd double %ax, %vy
  store double %s, ptr %py
  %i.next = add nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

declare double @sin(double)
declare double @llvm.exp.f64(double)

define double @sin_exp(double %x) {
entry:
  %s = call double @sin(double %x)
  %e = call double @llvm.exp.f64(double %x)
  %r = fadd double %s, %e
  ret double %r
}

define { double, double } @polar(double %r, double %theta) {
entry:
  %c = call double @llvm.cos.f64(double %theta)
  %s = call double @llvm.sin.f64(double %theta)
  %x = fmul double %r, %c
  %y = fmul double %r, %s
  %p0 = insertvalue { double, double } poison, double %x, 0
  %p1 = insertvalue { double, double } %p0, double %y, 1
  ret { double, double } %p1
}

define { float, i32, double } @mixed(float %a, i32 %b) {
entry:
  %d = fpext float %a to double
  %p0 = insertvalue { float, i32, double } poison, float %a, 0
  %p1 = insertvalue { float, i32, double } %p0, i32 %b, 1
  %p2 = insertvalue { float, i32, double } %p1, double %d, 2
  ret { float, i32, double } %p2
}

define void @fill(ptr %out, i64 %n, double %v) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds double, ptr %out, i64 %i
  store double %v, ptr %p
  %i.next = add nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

declare double @llvm.cos.f64(double)
declare double @llvm.sin.f64(double)

define i32 @takes_vector(<2 x double> %v) {
entry:
  ret i32 0
}

define i16 @narrow(i1 %c, i8 %a, i16 %b) {
entry:
  %a16 = sext i8 %a to i16
  %s = add i16 %a16, %b
  %r = select i1 %c, i16 %s, i16 0
  ret i16 %r
}

define ptr @identity_ptr(ptr %p) {
entry:
  ret ptr %p
}
"""

O0_STYLE = """
define double @square_plus(double %x, double %y) {
entry:
  %x.addr = alloca double, align 8
  %y.addr = alloca double, align 8
  %t = alloca double, align 8
  store double %x, ptr %x.addr, align 8
  store double %y, ptr %y.addr, align 8
  %0 = load double, ptr %x.addr, align 8
  %1 = load double, ptr %x.addr, align 8
  %mul = fmul double %0, %1
  store double %mul, ptr %t, align 8
  %2 = load double, ptr %t, align 8
  %3 = load double, ptr %y.addr, align 8
  %add = fadd double %2, %3
  br label %end

end:
  ret double %add
}
"""


@pytest.fixture(scope="module")
def jm() -> JITModule:
    return compile_ir(KERNELS, opt_level=2)


RNG = np.random.default_rng(0)


# --------------------------------------------------------------------------- scalar calls


def test_double_function(jm: JITModule) -> None:
    poly = jm.function("poly")
    for x, y in [(0.0, 0.0), (2.0, 3.0), (-1.25, 4.5), (1e10, -2.0)]:
        assert poly(x, y) == x * x * y + 1.5
    assert poly(2, 3) == 13.5  # ints are accepted for doubles
    assert poly(np.float32(0.5), np.int64(4)) == 2.5


def test_float_function(jm: JITModule) -> None:
    assert jm.function("fscale")(1.5, 3.0) == 4.5
    x = np.float32(0.1)
    assert jm.function("fscale")(x, 3.0) == pytest.approx(float(np.float32(x) * np.float32(3.0)))


def test_integer_functions(jm: JITModule) -> None:
    imix, iadd = jm.function("imix"), jm.function("iadd")
    assert imix(7, 5) == 16
    assert imix(-4, 10) == -22
    assert imix(np.int32(2), np.int8(1)) == 5
    assert iadd(2**40, 3) == 2**40 + 3
    assert iadd(-(2**62), -5) == -(2**62) - 5
    assert iadd(2**63 - 1, 1) == -(2**63)  # wraps like LLVM's add


def test_narrow_integers(jm: JITModule) -> None:
    narrow = jm.function("narrow")
    assert narrow(True, -3, 1000) == 997
    assert narrow(1, 127, -200) == -73
    assert narrow(False, 5, 5) == 0
    assert narrow(np.bool_(True), np.int8(-128), np.int16(-1)) == -129
    with pytest.raises(ValueError, match=r"argument 0 \('c'\): expected a bool in \[0, 1\]"):
        narrow(2, 0, 0)
    with pytest.raises(ValueError, match=r"argument 1 \('a'\).*\[-128, 255\]"):
        narrow(1, 300, 0)


def test_bool_return(jm: JITModule) -> None:
    is_neg = jm.function("is_neg")
    assert is_neg(-1.0) is True
    assert is_neg(2.0) is False


def test_libm_and_intrinsics(jm: JITModule) -> None:
    f = jm.function("sin_exp")
    for x in [0.0, 0.5, -2.0, 3.0]:
        assert f(x) == pytest.approx(math.sin(x) + math.exp(x), rel=1e-14)


def test_struct_return(jm: JITModule) -> None:
    polar = jm.function("polar")
    x, y = polar(2.0, 0.5)
    assert (x, y) == pytest.approx((2.0 * math.cos(0.5), 2.0 * math.sin(0.5)), rel=1e-15)
    a, b, c = jm.function("mixed")(1.5, -7)
    assert (a, b, c) == (1.5, -7, 1.5)


def test_pointer_return(jm: JITModule) -> None:
    buf = np.zeros(4)
    assert jm.function("identity_ptr")(buf) == buf.ctypes.data
    assert jm.function("identity_ptr")(0) == 0


# --------------------------------------------------------------------------- arrays


def test_sum_array(jm: JITModule) -> None:
    total = jm.function("sum")
    x = RNG.standard_normal(1001)
    assert total(x, x.size) == pytest.approx(np.sum(x), rel=1e-12)
    assert total(x, 0) == 0.0
    assert total(np.arange(10.0), 10) == 45.0


def test_write_output_array(jm: JITModule) -> None:
    axpy = jm.function("axpy")
    x, y = RNG.standard_normal(37), RNG.standard_normal(37)
    expected = 2.5 * x + y
    axpy(2.5, x, y, 37)
    np.testing.assert_allclose(y, expected, rtol=1e-15)
    out = np.zeros(5)
    jm.function("fill")(out, 5, 4.25)
    np.testing.assert_array_equal(out, np.full(5, 4.25))


def test_pointer_accepts_addresses(jm: JITModule) -> None:
    fill = jm.function("fill")
    out = np.zeros(3)
    fill(out.ctypes.data, 3, 1.0)
    fill(ctypes.c_void_p(out.ctypes.data), 2, 2.0)
    fill(out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), 1, 3.0)
    np.testing.assert_array_equal(out, [3.0, 2.0, 1.0])
    raw = (ctypes.c_double * 4)()
    fill(raw, 4, 7.0)
    assert list(raw) == [7.0] * 4


def test_multidimensional_arrays(jm: JITModule) -> None:
    m = RNG.standard_normal((6, 7))
    assert jm.function("sum")(m, m.size) == pytest.approx(m.sum(), rel=1e-12)
    # A C-contiguous slice of rows is fine; a slice of columns is not (checked below).
    assert jm.function("sum")(m[2:4], 14) == pytest.approx(m[2:4].sum(), rel=1e-12)


# --------------------------------------------------------------------------- optimization


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_levels_agree(level: int) -> None:
    jl = compile_ir(KERNELS, opt_level=level)
    x = RNG.standard_normal(103)
    assert jl.function("sum")(x, x.size) == pytest.approx(np.sum(x), rel=1e-12)
    y = np.ones(103)
    jl.function("axpy")(-1.5, x, y, 103)
    np.testing.assert_allclose(y, 1.0 - 1.5 * x, rtol=1e-15)
    assert jl.function("sin_exp")(0.3) == pytest.approx(math.sin(0.3) + math.exp(0.3))
    assert jl.function("polar")(1.0, 0.0) == (1.0, 0.0)


def test_optimize_text_levels_agree() -> None:
    for level in range(4):
        text = optimize(KERNELS, level)
        assert "define double @poly" in text
        assert compile_ir(text, opt_level=0).function("poly")(3.0, 2.0) == 19.5


def test_o3_vectorizes_loop() -> None:
    text = optimize(KERNELS, 3)
    axpy = text[text.index("define void @axpy"):]
    axpy = axpy[:axpy.index("\n}\n")]
    assert re.search(r"<\d+ x double>", axpy), axpy
    plain = optimize(KERNELS, 3, loop_vectorize=False, slp_vectorize=False)
    axpy = plain[plain.index("define void @axpy"):]
    assert not re.search(r"<\d+ x double>", axpy[:axpy.index("\n}\n")])


def test_o2_simplifies_constants() -> None:
    src = "define i32 @f() {\nentry:\n  %a = add i32 40, 2\n  ret i32 %a\n}\n"
    assert "ret i32 42" in optimize(src, 2)


def test_run_llvm_passes_removes_allocas() -> None:
    assert "alloca" in O0_STYLE
    out = run_llvm_passes(O0_STYLE, ["sroa", "instcombine", "simplifycfg"])
    assert "alloca" not in out and "load" not in out and "store" not in out
    f = compile_ir(out, opt_level=0).function("square_plus")
    assert f(3.0, 0.5) == 9.5


def test_run_llvm_passes_levels_and_aliases() -> None:
    out = run_llvm_passes(O0_STYLE, ["O2"])
    assert "alloca" not in out
    out = run_llvm_passes(O0_STYLE, ["lowerswitch", "sroa", "O1", "verify"])
    assert "alloca" not in out


@pytest.mark.parametrize("name", sorted(LLVM_PASSES))
def test_every_named_pass_runs(name: str) -> None:
    if name in ("internalize", "strip", "loop-extract"):
        out = run_llvm_passes(KERNELS, [name])  # may legitimately remove or rename symbols
        assert "define" in out or "declare" in out
        return
    out = run_llvm_passes(KERNELS, [name])
    f = compile_ir(out, opt_level=0)
    assert f.function("poly")(2.0, 3.0) == 13.5


def test_unknown_pass() -> None:
    with pytest.raises(BackendError, match=r"unknown LLVM pass 'gvn'.*newgvn.*sroa"):
        run_llvm_passes(KERNELS, ["gvn"])
    with pytest.raises(BackendError, match=r"'instcombin'.*Did you mean 'instcombine'"):
        run_llvm_passes(KERNELS, ["instcombin"])


def test_bad_level() -> None:
    with pytest.raises(BackendError, match="optimization level"):
        optimize(KERNELS, 4)
    with pytest.raises(BackendError, match="optimization level"):
        compile_ir(KERNELS, opt_level=-1)


# --------------------------------------------------------------------------- text


def test_normalize_idempotent() -> None:
    once = normalize(KERNELS)
    assert normalize(once) == once
    assert "define double @poly(double %x, double %y)" in once
    assert normalize(O0_STYLE) == normalize(normalize(O0_STYLE))


def test_parse_error_has_llvm_message_and_line() -> None:
    bad = "define double @f(double %x) {\nentry:\n  %y = fadd double %z, 1.0\n  ret double %y\n}"
    with pytest.raises(BackendError) as info:
        parse_llvm(bad, name="bad.ll")
    message = str(info.value)
    assert "use of undefined value '%z'" in message
    assert "bad.ll:3:" in message
    assert "%y = fadd double %z, 1.0" in message


def test_verify_error() -> None:
    bad = ("define double @f(double %x) {\nentry:\n  ret double %y\nb:\n"
           "  %y = fadd double %x, 1.0\n  br label %b\n}\n")
    with pytest.raises(BackendError, match="does not dominate all uses"):
        compile_ir(bad)


def test_unresolved_external_is_an_error_not_an_abort() -> None:
    src = ("declare double @no_such_function_anywhere(double)\n"
           "define double @f(double %x) {\n"
           "  %y = call double @no_such_function_anywhere(double %x)\n  ret double %y\n}\n")
    with pytest.raises(BackendError, match="@no_such_function_anywhere"):
        compile_ir(src)


# --------------------------------------------------------------------------- module API


def test_module_api(jm: JITModule) -> None:
    assert "poly" in jm and "sin" not in jm and "nope" not in jm
    assert jm.address("poly") == jm.function("poly").address != 0
    assert "define double @poly" in jm.ir and "enzyme_py.sret" not in jm.ir
    assert jm.function("poly") is jm.function("poly")
    with pytest.raises(BackendError, match=r"@nope.*axpy.*poly"):
        jm.function("nope")


def test_unsupported_argument_type(jm: JITModule) -> None:
    with pytest.raises(BackendError, match=r"argument 0 \('v'\).*<2 x double>"):
        jm.function("takes_vector")


def test_signature_mismatch(jm: JITModule) -> None:
    with pytest.raises(BackendError, match="takes 2 arguments but the signature describes 1"):
        jm.function("sum", Signature((ArgSpec("x"),)))
    with pytest.raises(BackendError, match="dtype and ndim apply to pointer arguments only"):
        jm.function("sum", Signature((ArgSpec("x"), ArgSpec("n", np.int64))))


# --------------------------------------------------------------------------- call checks

SUM_SIG = Signature((ArgSpec("values", np.float64, 1, writable=False), "count"))


def test_wrong_argument_count(jm: JITModule) -> None:
    with pytest.raises(CallError, match=r"@poly takes 2 arguments \(x, y\) but 1 were given"):
        jm.function("poly")(1.0)
    with pytest.raises(CallError, match="takes 2 arguments"):
        jm.function("poly")(1.0, 2.0, 3.0)


def test_string_for_float(jm: JITModule) -> None:
    with pytest.raises(CallError, match=r"argument 1 \('y'\): expected a real number.*'2.0'"):
        jm.function("poly")(1.0, "2.0")
    with pytest.raises(CallError, match=r"argument 0 \('x'\)"):
        jm.function("poly")(None, 1.0)
    with pytest.raises(ValueError, match=r"argument 0 \('x'\).*range of a double"):
        jm.function("poly")(10**400, 1.0)


def test_integer_checks(jm: JITModule) -> None:
    imix = jm.function("imix")
    with pytest.raises(CallError, match=r"argument 0 \('a'\): expected an integer for i32"):
        imix(1.5, 2)
    with pytest.raises(ValueError, match=r"argument 1 \('b'\).*in \[-2147483648, 4294967295\]"):
        imix(1, 2**32)


def test_wrong_dtype(jm: JITModule) -> None:
    f = jm.function("sum", SUM_SIG)
    expected = r"argument 0 \('values'\).*float64.*got ndarray of float32"
    with pytest.raises(CallError, match=expected):
        f(np.zeros(3, np.float32), 3)
    with pytest.raises(CallError, match="object dtypes"):
        jm.function("sum")(np.array([1.0, None]), 2)


def test_wrong_ndim(jm: JITModule) -> None:
    f = jm.function("sum", SUM_SIG)
    with pytest.raises(ValueError, match=r"argument 0 \('values'\).*ndim 1.*got .*ndim 2"):
        f(np.zeros((2, 2)), 4)


def test_non_contiguous(jm: JITModule) -> None:
    m = np.zeros((4, 4))
    with pytest.raises(ValueError, match=r"argument 0 \('x'\).*ascontiguousarray.*non-contiguous"):
        jm.function("sum")(m[:, 1], 4)
    with pytest.raises(ValueError, match=r"argument 0 \('values'\).*non-contiguous"):
        jm.function("sum", SUM_SIG)(np.arange(10.0)[::2], 5)


def test_list_instead_of_array(jm: JITModule) -> None:
    with pytest.raises(CallError, match=r"argument 1 \('x'\).*np.asarray.*got list"):
        jm.function("axpy")(1.0, [1.0, 2.0], np.zeros(2), 2)
    with pytest.raises(CallError, match=r"argument 0 \('values'\)"):
        jm.function("sum", SUM_SIG)((1.0, 2.0), 2)


def test_read_only_array(jm: JITModule) -> None:
    frozen = np.arange(4.0)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match=r"argument 0 \('out'\).*writable.*read-only"):
        jm.function("fill")(frozen, 4, 1.0)
    np.testing.assert_array_equal(frozen, np.arange(4.0))
    # `values` is declared read-only in the signature, so a frozen array is fine there.
    assert jm.function("sum", SUM_SIG)(frozen, 4) == 6.0


def test_readonly_parameter_inferred_by_llvm(jm: JITModule) -> None:
    # After -O2 LLVM marks %x of @axpy `readonly`: a frozen x is safe, a frozen y is not.
    x = np.arange(3.0)
    x.flags.writeable = False
    y = np.zeros(3)
    jm.function("axpy")(2.0, x, y, 3)
    np.testing.assert_array_equal(y, [0.0, 2.0, 4.0])
    y.flags.writeable = False
    with pytest.raises(ValueError, match=r"argument 2 \('y'\)"):
        jm.function("axpy")(2.0, x, y, 3)


def test_signature_names_in_messages(jm: JITModule) -> None:
    sig = Signature((ArgSpec("alpha"), ArgSpec("xs", np.float64, 1), ArgSpec("ys", np.float64, 1),
                     ArgSpec("n")))
    f = jm.function("axpy", sig)
    y = np.zeros(2)
    f(1.0, np.ones(2), y, 2)
    np.testing.assert_array_equal(y, [1.0, 1.0])
    with pytest.raises(CallError, match=r"@axpy: argument 2 \('ys'\)"):
        f(1.0, np.ones(2), np.zeros(2, np.int64), 2)
    assert f.arg_names == ("alpha", "xs", "ys", "n")


def test_bad_addresses(jm: JITModule) -> None:
    with pytest.raises(ValueError, match=r"argument 0 \('out'\).*address"):
        jm.function("fill")(-1, 0, 0.0)
    with pytest.raises(CallError, match=r"argument 0 \('out'\)"):
        jm.function("fill")(None, 0, 0.0)


# --------------------------------------------------------------------------- lifetimes


def test_modules_in_reference_cycles_are_collected_safely() -> None:
    import gc

    src = "define i64 @k(i64 %x) {\n  %y = mul i64 %x, 7\n  ret i64 %y\n}\n"
    for round_ in range(20):
        holder: dict[str, object] = {}
        holder["self"] = holder  # a cycle that owns the native code
        holder["f"] = compile_ir(src, opt_level=round_ % 4).function("k")
        assert holder["f"](round_) == 7 * round_  # type: ignore[operator]
        del holder
        gc.collect()
    # A function outlives its module object: the code stays alive.
    f = compile_ir(src).function("k")
    gc.collect()
    assert f(6) == 42


def test_named_struct_types_keep_their_names() -> None:
    src = ("%struct.pair = type { double, double }\n"
           "define double @first(ptr %p) {\n"
           "  %a = getelementptr inbounds %struct.pair, ptr %p, i64 0, i32 0\n"
           "  %v = load double, ptr %a\n  ret double %v\n}\n")
    first = normalize(src)
    assert "%struct.pair = type { double, double }" in first
    compile_ir(src)  # the same name now exists in the global context too
    assert normalize(src) == first
    unoptimized = run_llvm_passes(src, ["verify"])
    assert "%struct.pair = type" in unoptimized and "%struct.pair.0" not in unoptimized
    assert compile_ir(src, opt_level=0).function("first")(np.array([2.5, 1.0])) == 2.5


def test_pass_names_must_be_a_list() -> None:
    with pytest.raises(TypeError, match="list of pass names"):
        run_llvm_passes(O0_STYLE, "sroa")  # type: ignore[arg-type]


def test_codegen_builtins_resolve() -> None:
    # llvm.powi becomes a call to the compiler-rt / libgcc builtin __powidf2.
    src = ("declare double @llvm.powi.f64.i32(double, i32)\n"
           "define double @p(double %x, i32 %n) {\n"
           "  %r = call double @llvm.powi.f64.i32(double %x, i32 %n)\n  ret double %r\n}\n")
    for level in (0, 2):
        p = compile_ir(src, opt_level=level).function("p")
        assert p(2.0, 10) == 1024.0
        assert p(1.5, -2) == pytest.approx(1.5**-2, rel=1e-15)


def test_globals_and_internal_functions() -> None:
    src = ("@counter = global i64 5\n"
           "define internal i64 @helper(i64 %x) noinline {\n  %y = add i64 %x, 1\n  ret i64 %y\n}\n"
           "define i64 @bump() {\n  %v = load i64, ptr @counter\n"
           "  %w = call i64 @helper(i64 %v)\n  store i64 %w, ptr @counter\n  ret i64 %w\n}\n")
    jm = compile_ir(src, opt_level=0)
    assert jm.functions == ["bump"] and "helper" not in jm
    counter = ctypes.c_int64.from_address(jm.address("counter"))
    assert jm.function("bump")() == 6 and jm.function("bump")() == 7
    assert counter.value == 7
    with pytest.raises(BackendError, match=r"@helper.*defined functions: bump"):
        jm.function("helper")


# --------------------------------------------------------------------------- vector libm calls

MATH_LOOP = r"""
define double @math(ptr noalias %x, ptr noalias %out, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %p
  %a = call double @llvm.sin.f64(double %v)
  %b = call double @exp(double %v)
  %c = call double @llvm.cos.f64(double %b)
  %av = call double @llvm.fabs.f64(double %v)
  %l = call double @log(double %av)
  %w = call double @llvm.pow.f64(double %av, double %a)
  %ab = fmul double %a, %b
  %abc = fadd double %ab, %c
  %abcl = fadd double %abc, %l
  %r = fadd double %abcl, %w
  %q = getelementptr double, ptr %out, i64 %i
  store double %r, ptr %q
  %s1 = fadd double %s, %r
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %exit

exit:
  ret double %s1
}

define void @mathf(ptr noalias %x, ptr noalias %out, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr float, ptr %x, i64 %i
  %v = load float, ptr %p
  %a = call float @llvm.sin.f32(float %v)
  %b = call float @expf(float %v)
  %r = fadd float %a, %b
  %q = getelementptr float, ptr %out, i64 %i
  store float %r, ptr %q
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %exit

exit:
  ret void
}

declare double @llvm.sin.f64(double)
declare double @llvm.cos.f64(double)
declare double @llvm.fabs.f64(double)
declare double @llvm.pow.f64(double, double)
declare double @exp(double) nounwind willreturn memory(none)
declare double @log(double) nounwind willreturn memory(none)
declare float @llvm.sin.f32(float)
declare float @expf(float) nounwind willreturn memory(none)
"""


def _has_libmvec() -> bool:
    try:
        ctypes.CDLL("libmvec.so.1")
    except OSError:
        return False
    return True


needs_libmvec = pytest.mark.xfail(not _has_libmvec(), strict=True,
                                  reason="glibc's libmvec.so.1 is not installed (the vector "
                                         "libm calls are then not used)")
_VECTOR_CALL = re.compile(r"call <\d+ x (double|float)> @_ZGV")


@pytest.mark.parametrize("enabled", [True, False], ids=["libmvec", "no-libmvec"])
def test_vector_math_matches_numpy(enabled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENZYME_PY_NO_LIBMVEC", "0" if enabled else "1")
    jl = compile_ir(MATH_LOOP, opt_level=2)
    assert bool(_VECTOR_CALL.search(jl.ir)) == (enabled and _has_libmvec())
    x = np.random.default_rng(1).uniform(-3.0, 3.0, 1003)
    out = np.empty_like(x)
    total = jl.function("math")(x, out, x.size)
    a, b, ax = np.sin(x), np.exp(x), np.abs(x)
    expected = a * b + np.cos(b) + np.log(ax) + ax**a
    # libmvec is accurate to a few ulp; the sum is kept in source order, exactly
    np.testing.assert_allclose(out, expected, rtol=1e-14, atol=1e-14)
    assert total == functools.reduce(operator.add, out.tolist())
    xf = x.astype(np.float32)
    outf = np.empty_like(xf)
    jl.function("mathf")(xf, outf, xf.size)
    np.testing.assert_allclose(outf, np.sin(xf) + np.exp(xf), rtol=1e-6, atol=1e-6)


@needs_libmvec
def test_vector_math_only_in_the_final_compilation() -> None:
    assert "_ZGV" not in optimize(MATH_LOOP, 3)  # the text to differentiate keeps scalar calls
    jl = compile_ir(MATH_LOOP, opt_level=2)
    for name in ("sin", "exp", "cos", "log", "pow", "sinf", "expf"):
        assert re.search(rf"call <\d+ x \w+> @_ZGV\w+_{name}\(", jl.ir), name
    assert "llvm.compiler.used" not in jl  # not exported
    assert not _VECTOR_CALL.search(compile_ir(MATH_LOOP, opt_level=1).ir)


def test_vector_math_annotation() -> None:
    from enzyme_py.vector_math import annotate, vector_library

    lib = vector_library("+sse2,+avx2,-avx512f", lambda symbol: "pow" not in symbol)
    assert [v.symbol for v in lib.variants["sin"]] == ["_ZGVbN2v_sin", "_ZGVdN4v_sin"]
    assert [v.symbol for v in lib.variants["sinf"]] == ["_ZGVbN4v_sinf", "_ZGVdN8v_sinf"]
    assert "pow" not in lib.variants
    text = annotate(MATH_LOOP, lib)
    assert ('call double @llvm.sin.f64(double %v) "vector-function-abi-variant"='
            '"_ZGV_LLVM_N2v_llvm.sin.f64(_ZGVbN2v_sin),_ZGV_LLVM_N4v_llvm.sin.f64(_ZGVdN4v_sin)"'
            in text)
    assert "call double @llvm.pow.f64(double %av, double %a)\n" in text
    assert "declare <8 x float> @_ZGVdN8v_sinf(<8 x float>)" in text
    assert "@llvm.compiler.used = appending global [12 x ptr]" in text
    assert normalize(text)  # LLVM accepts it
    assert annotate(text, lib) is text  # already annotated
    plain = "declare double @tan(double)\ndefine double @f(double %x) {\n" \
            "  %y = call double @tan(double %x)\n  ret double %y\n}\n"
    assert annotate(plain, lib) is plain
    assert annotate(MATH_LOOP, vector_library("", lambda symbol: False)) is MATH_LOOP


def test_loop_strength_reduction_is_left_out_of_huge_modules(monkeypatch) -> None:
    """LSR's cost grows much faster than the code (`native.LSR_LIMIT`): code generation of a
    module above the limit runs without it, of one below with it, and both compute the same.
    (Here in llvmlite's code generator; `test_system_llvm.py` checks the system library's.)"""
    from enzyme_py.backend import native

    monkeypatch.setenv("ENZYME_PY_NO_SYSTEM_LLVM", "1")

    def chain(n: int) -> str:
        body = "\n".join(f"  %v{k + 1} = add i64 %v{k}, {k}" for k in range(n))
        return (f"define i64 @f(i64 %v0) {{\nentry:\n{body}\n  ret i64 %v{n}\n}}\n")

    small, big = 10, native.LSR_LIMIT + 10
    assert native._instruction_count(chain(big)) > native.LSR_LIMIT
    assert compile_ir(chain(big), opt_level=0).function("f")(1) == 1 + big * (big - 1) // 2
    assert native._lsr_off
    assert compile_ir(chain(small), opt_level=0).function("f")(1) == 1 + 45
    assert not native._lsr_off
