"""CUDA device math (`rules/nvvm.py`): every nvvm math intrinsic and libdevice call clang-22
emits finds a rule; the partials, built into an NVPTX module, call only what NVPTX lowers
(nvvm intrinsics, `mathcalls.NVPTX_INTRINSICS`, libdevice) and become PTX; `emit_math` calls
libdevice on NVPTX; `testing.nvvm_math.map_math` leaves no device math behind. (The numbers
of these rules are checked with every other rule's in `test_rules.py`.)"""

from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

import pytest

from enzyme_py.backend import compile_ir
from enzyme_py.backend.ptx import emit_ptx
from enzyme_py.ir import Builder, Module, parse, verify
from enzyme_py.ir import types as T
from enzyme_py.ir.instructions import Call
from enzyme_py.ir.module import Function
from enzyme_py.rules import nvvm, registry
from enzyme_py.rules.mathcalls import LIBDEVICE_PREFIX, NVPTX_INTRINSICS, emit_math
from enzyme_py.rules.registry import intrinsic_base, lookup
from enzyme_py.testing.nvvm_math import map_math
from tests.rules import harness as H

NVPTX = "nvptx64-nvidia-cuda"
CUDA = ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc",
        "-nocudalib", "-emit-llvm", "-S", "-Wno-unknown-cuda-version"]
# Intrinsics clang-22 emits for a builtin that the NVPTX backend of LLVM 22 cannot select
# (`__nvvm_ex2_approx_d`: PTX has no double ex2): their rules are checked on the host only.
UNSELECTABLE = frozenset({"llvm.nvvm.ex2.approx.f64", "llvm.nvvm.ex2.approx.d"})

KERNEL = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
extern "C" {
__device__ double __nv_sin(double);
__device__ float __nv_expf(float);
__device__ double __nv_pow(double, double);
__device__ double __nv_erf(double);
__device__ float __nv_tanhf(float);
__device__ float __nv_fast_sinf(float);
__device__ double __nv_powi(double, int);
__device__ double __nv_rsqrt(double);
__device__ double __nv_log1p(double);
__device__ float __nv_fmaxf(float, float);
}
__global__ void device_math(double *d, float *f) {
  double x = d[0], y = d[1], z = d[2];
  float a = f[0], b = f[1], c = f[2];
  d[3] = __nvvm_sqrt_rn_d(x) + __nvvm_rsqrt_approx_d(x) + __nvvm_fma_rn_d(x, y, z);
  d[4] = __nvvm_lg2_approx_d(x) + __nvvm_rcp_rn_d(x) + __nvvm_rcp_approx_ftz_d(y);
  d[5] = __nvvm_div_rn_d(x, y) + __nvvm_fmin_d(x, y) + __nvvm_fmax_d(y, z);
  d[6] = __nvvm_fabs_d(x) + __nvvm_add_rn_d(x, y) * __nvvm_mul_rz_d(y, z);
  d[7] = __nv_sin(x) + __nv_pow(x, y) + __nv_erf(z) + __nv_powi(x, 3) + __nv_rsqrt(x)
       + __nv_log1p(y);
  f[3] = __nvvm_sqrt_rn_f(a) + __nvvm_sqrt_approx_f(a) + __nvvm_sqrt_approx_ftz_f(b);
  f[4] = __nvvm_rsqrt_approx_f(a) + __nvvm_rsqrt_approx_ftz_f(b) + __nvvm_fma_rn_f(a, b, c);
  f[5] = __nvvm_ex2_approx_f(a) + __nvvm_ex2_approx_ftz_f(b) + __nvvm_lg2_approx_f(a);
  f[6] = __nvvm_sin_approx_f(a) + __nvvm_cos_approx_f(a) + __nvvm_sin_approx_ftz_f(b)
       + __nvvm_cos_approx_ftz_f(b);
  f[7] = __nvvm_rcp_rn_f(a) + __nvvm_div_approx_f(a, b) + __nvvm_div_rn_ftz_f(a, b);
  f[8] = __nvvm_fmin_f(a, b) + __nvvm_fmax_ftz_f(a, b) + __nvvm_fabs_f(a)
       + __nvvm_fabs_ftz_f(b) + __nvvm_fma_rn_ftz_f(a, b, c);
  f[9] = __nv_expf(a) + __nv_tanhf(b) + __nv_fast_sinf(c) + __nv_fmaxf(a, b)
       + __nvvm_floor_f(a) + __nvvm_lg2_approx_ftz_f(c);
}
"""


def _cuda(clang: str, tmp_path: Path, opt: str) -> Module:
    src = tmp_path / "device_math.cu"
    src.write_text(KERNEL)
    out = tmp_path / "device_math.ll"
    done = subprocess.run([clang, *CUDA, opt, str(src), "-o", str(out)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    return parse(out.read_text())


def _callees(module: Module) -> set[str]:
    return {i.callee_name for f in module.functions for i in f.instructions()
            if isinstance(i, Call) and i.callee_name}


def _device_math(name: str) -> bool:
    return name.startswith(("llvm.nvvm.", LIBDEVICE_PREFIX))


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_every_device_math_call_of_clang_has_a_rule(clang: str, tmp_path: Path, opt: str) -> None:
    module = _cuda(clang, tmp_path, opt)
    device = sorted(n for n in _callees(module) if _device_math(n))
    assert len(device) >= (30 if opt == "-O0" else 20), device  # the kernel is not vacuous
    missing = [n for n in device if lookup(n) is None]
    assert not missing, f"no rule for {missing}: add them to enzyme_py/rules/nvvm.py"
    # what -O2 folds device math into (`fmin.d` -> `llvm.minnum.f64`) has rules as well
    floats = [i.callee_name for f in module.functions for i in f.instructions()
              if isinstance(i, Call) and i.callee_name and i.type.is_fp_or_fp_vector]
    assert all(lookup(n) is not None for n in floats if n)


def test_clang_names_are_the_registered_ones(clang: str, tmp_path: Path) -> None:
    """The concrete names in `nvvm.CALLEES` are the spellings clang-22 writes."""
    module = _cuda(clang, tmp_path, "-O0")
    written = {n for ns in nvvm.CALLEES.values() for n in ns}
    device = {n for n in _callees(module) if _device_math(n)}
    assert device <= written, sorted(device - written)


# --- partials on the device -------------------------------------------------------------------


def _device_rules() -> dict[str, list[str]]:
    """Rule name -> its nvvm and libdevice names."""
    out: dict[str, list[str]] = {}
    for key in sorted(nvvm.CALLEES):
        rule = lookup(key)
        assert rule is not None, key
        out.setdefault(rule.name, []).append(key)
    return out


DEVICE_RULES = _device_rules()


def _allowed_on_nvptx(callee: str) -> bool:
    if _device_math(callee):
        return True
    if callee.startswith("llvm.vector.reduce."):
        return True
    return callee.startswith("llvm.") and intrinsic_base(callee)[len("llvm."):] in (
        NVPTX_INTRINSICS | {"minnum", "maxnum"})


@pytest.mark.parametrize("name", sorted(DEVICE_RULES))
def test_partials_are_nvptx_code(name: str) -> None:
    rule = registry.all_rules()[name]
    assert rule.spec is not None
    names = [n for n in DEVICE_RULES[name]
             if not any(c in UNSELECTABLE for c in nvvm.CALLEES[n])]
    cases = H.call_cases(names, rule.spec)
    module = Module(f"device_{name}")
    module.triple = NVPTX
    for k, case in enumerate(cases):
        H.build_case(module, k, case, rule, rule.spec)
    verify(module)
    bad = sorted(n for n in _callees(module) if not _allowed_on_nvptx(n))
    assert not bad, f"{name}: the derivative calls {bad}, which NVPTX cannot lower"
    ptx = emit_ptx(str(module), sm=80, opt_level=0)
    assert ".visible .func" in ptx
    called = set(re.findall(r"call\.uni[^,]*,\s*([\w$.]+),", ptx))
    assert all(c.startswith(LIBDEVICE_PREFIX) for c in called), called


def test_sin_approx_derivative_is_cos_approx_with_the_same_ftz() -> None:
    rule = lookup("llvm.nvvm.sin.approx.ftz.f")
    assert rule is not None
    m = Module()
    m.triple = NVPTX
    fn = m.add_function(Function("f", T.FunctionType(T.FLOAT, (T.FLOAT,))))
    b = Builder(fn.append_block("entry"))
    call = H.call_make("llvm.nvvm.sin.approx.ftz.f", T.FLOAT, (T.FLOAT,))(b, m, list(fn.args))
    (partial,) = H.partials_of(rule, b, call)
    b.ret(partial(fn.args[0]))
    verify(m)
    assert _callees(m) == {"llvm.nvvm.sin.approx.ftz.f", "llvm.nvvm.cos.approx.ftz.f"}
    assert "cos.approx.ftz.f32" in emit_ptx(str(m), opt_level=0)


# --- emit_math on NVPTX -----------------------------------------------------------------------


def _math(ty: T.Type, name: str, nargs: int = 1, triple: str | None = NVPTX,
          int_last: bool = False) -> Module:
    m = Module()
    m.triple = triple
    params = (ty,) * nargs + ((T.I32,) if int_last else ())
    fn = m.add_function(Function("f", T.FunctionType(ty, params)))
    b = Builder(fn.append_block("entry"))
    b.ret(emit_math(b, m, name, list(fn.args)))
    verify(m)
    return m


@pytest.mark.parametrize(("ty", "name", "nargs", "callee"), [
    (T.DOUBLE, "cos", 1, "__nv_cos"), (T.FLOAT, "cos", 1, "__nv_cosf"),
    (T.DOUBLE, "exp", 1, "__nv_exp"), (T.FLOAT, "exp2", 1, "__nv_exp2f"),
    (T.DOUBLE, "pow", 2, "__nv_pow"), (T.FLOAT, "erf", 1, "__nv_erff"),
    (T.HALF, "log", 1, "__nv_logf"), (T.DOUBLE, "sqrt", 1, "llvm.sqrt.f64"),
    (T.FLOAT, "fabs", 1, "llvm.fabs.f32"), (T.DOUBLE, "fmax", 2, "llvm.maxnum.f64"),
    (T.DOUBLE, "fma", 3, "llvm.fma.f64"), (T.FLOAT, "rint", 1, "llvm.rint.f32"),
    (T.DOUBLE, "copysign", 2, "llvm.copysign.f64"),
])
def test_emit_math_on_nvptx(ty: T.Type, name: str, nargs: int, callee: str) -> None:
    m = _math(ty, name, nargs)
    assert [f.name for f in m.functions if f.is_declaration] == [callee]
    emit_ptx(str(m), opt_level=0)


@pytest.mark.parametrize(("name", "callee"), [("powi", "__nv_powi"), ("ldexp", "llvm.ldexp")])
def test_emit_math_integer_exponent_on_nvptx(name: str, callee: str) -> None:
    m = _math(T.DOUBLE, name, int_last=True)
    (decl,) = [f.name for f in m.functions if f.is_declaration]
    assert decl is not None and decl.startswith(callee)
    emit_ptx(str(m), opt_level=0)


def test_emit_math_scalarizes_libdevice_vectors() -> None:
    m = _math(T.VectorType(4, T.DOUBLE), "cos")
    assert [f.name for f in m.functions if f.is_declaration] == ["__nv_cos"]
    assert str(m).count("call double @__nv_cos(") == 4


def test_emit_math_on_nvptx_refuses_host_only_types() -> None:
    with pytest.raises(TypeError, match="libdevice"):
        _math(T.FloatType("x86_fp80"), "cos")


def test_emit_math_on_the_host_is_unchanged() -> None:
    for triple in (None, "x86_64-unknown-linux-gnu"):
        assert [f.name for f in _math(T.DOUBLE, "cos", triple=triple).functions][-1] == \
            "llvm.cos.f64"
        assert _math(T.FLOAT, "erf", triple=triple).functions[-1].name == "erff"


# --- the host lowering ------------------------------------------------------------------------


@pytest.mark.parametrize("callee", sorted({c for cs in nvvm.CALLEES.values() for c in cs}))
def test_map_math_lowers_every_registered_name(callee: str) -> None:
    rule = lookup(callee)
    assert rule is not None and rule.spec is not None
    ft = nvvm.callee_type(callee)
    spec = rule.spec
    types = tuple(T.PTR if i in spec.ptr_args else T.I32 if i in spec.int_args else ft
                  for i in range(len(spec.domain)))
    m = Module()
    fn = m.add_function(Function("f", T.FunctionType(ft, types)))
    b = Builder(fn.append_block("entry"))
    b.ret(H.call_make(callee, ft, types)(b, m, list(fn.args)))
    map_math(m)
    verify(m)
    left = [n for n in _callees(m) if _device_math(n)]
    assert not left and not [f for f in m.functions if _device_math(f.name or "")]


def test_map_math_runs_device_math_on_the_host() -> None:
    text = """
declare float @llvm.nvvm.sin.approx.f(float)
declare double @llvm.nvvm.rsqrt.approx.d(double)
declare double @__nv_powi(double, i32)
declare float @__nv_fast_expf(float)
define double @f(double %x, float %a) {
  %s = call float @llvm.nvvm.sin.approx.f(float %a)
  %r = call double @llvm.nvvm.rsqrt.approx.d(double %x)
  %p = call double @__nv_powi(double %x, i32 3)
  %e = call float @__nv_fast_expf(float %a)
  %se = fadd float %s, %e
  %sd = fpext float %se to double
  %t = fadd double %r, %p
  %u = fadd double %t, %sd
  ret double %u
}
"""
    m = parse(text)
    map_math(m)
    f = compile_ir(str(m), opt_level=0).function("f")
    x, a = 2.0, 0.5
    want = 1 / math.sqrt(x) + x**3 + math.sin(a) + math.exp(a)
    assert f(x, a) == pytest.approx(want, rel=1e-6)


# --- end to end: derivatives of CUDA device functions ---------------------------------------

DEVICE_FUNCTIONS = r"""
#define __device__ __attribute__((device))
extern "C" {
__device__ double __nv_sin(double);
__device__ double __nv_pow(double, double);
__device__ double __nv_erf(double);
__device__ double f(double x, double y) {
  double a = __nvvm_sqrt_rn_d(x) * __nvvm_rsqrt_approx_d(y) + __nvvm_fma_rn_d(x, y, x);
  double b = __nvvm_div_rn_d(__nv_sin(x), y) + __nvvm_fmax_d(x, y) * __nvvm_lg2_approx_d(y);
  return a * b + __nv_pow(x, y) + __nv_erf(x * y) + __nvvm_rcp_rn_d(x + y);
}
__device__ float g(float x, float y) {
  return __nvvm_sin_approx_f(x) * __nvvm_ex2_approx_f(y) + __nvvm_div_approx_f(x, y)
       + __nvvm_fmin_f(x, y) * __nvvm_cos_approx_ftz_f(x * y);
}
}
"""


def _on_host(module: Module) -> Module:
    host = parse(str(module))
    map_math(host)
    host.triple = host.datalayout = None
    return host


@pytest.mark.filterwarnings("ignore::enzyme_py.backend.target_check.TargetWarning")
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
@pytest.mark.parametrize(("fname", "h", "rel"), [("f", 1e-6, 1e-7), ("g", 1e-2, 2e-3)])
def test_device_function_gradients(clang: str, tmp_path: Path, opt: str, fname: str,
                                   h: float, rel: float) -> None:
    """Reverse and forward derivatives of device code become PTX calling only libdevice, and,
    lowered to the host, agree with finite differences of the lowered primal."""
    from enzyme_py.ad.driver import forward_module, gradient_module

    src = tmp_path / "device.cu"
    src.write_text(DEVICE_FUNCTIONS)
    out = tmp_path / "device.ll"
    subprocess.run([clang, *CUDA, opt, str(src), "-o", str(out)], check=True,
                   capture_output=True, text=True)
    text = out.read_text()
    reverse, rname = gradient_module(parse(text), fname, ["out", "out"], True)
    forward, fwname = forward_module(parse(text), fname, ["dup", "dup"])
    for derived in (reverse, forward):
        ptx = emit_ptx(str(derived))
        called = set(re.findall(r"call\.uni[^,]*,\s*([\w$.]+),", ptx))
        assert all(c.startswith(LIBDEVICE_PREFIX) for c in called), called
    primal = compile_ir(str(_on_host(parse(text)))).function(fname)
    grad = compile_ir(str(_on_host(reverse))).function(rname)
    tangent = compile_ir(str(_on_host(forward))).function(fwname)
    x, y = 0.7, 1.3
    fd = ((primal(x + h, y) - primal(x - h, y)) / (2 * h),
          (primal(x, y + h) - primal(x, y - h)) / (2 * h))
    assert grad(x, y, 1.0) == pytest.approx(fd, rel=rel)
    jvp = (tangent(x, 1.0, y, 0.0)[1], tangent(x, 0.0, y, 1.0)[1])  # (primal, tangent)
    assert jvp == pytest.approx(fd, rel=rel)
