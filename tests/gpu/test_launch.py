"""enzyme_py.gpu: PTX entry signatures, argument packing and launch dimensions (no GPU needed),
the errors without cuda-bindings or a driver, the launch path against a stand-in driver module,
and real launches, which are strict xfails where no GPU is present."""

from __future__ import annotations

import ctypes
import enum
import re
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from enzyme_py.backend.ptx import emit_ptx
from enzyme_py.errors import ArgumentValueError, CallError, EnzymePyError
from enzyme_py.gpu import (
    DeviceBuffer,
    GpuError,
    GpuUnavailable,
    available,
    check_arguments,
    device_info,
    driver,
    infer_signature,
    kernel_names,
    launch_dims,
    load,
    normalize_dims,
    pack_arguments,
    parse_signature,
    signature_of,
)

RNG = np.random.default_rng(11)
ROOT = Path(__file__).parents[2]
SOURCE = (Path(__file__).parent / "kernels" / "corpus.cu").read_text()
KERNELS = re.findall(r'extern "C" __global__ void (\w+)\(', SOURCE)


@pytest.fixture(scope="module")
def ptx(corpus: str) -> str:
    return emit_ptx(corpus, sm=80)


# --- PTX entry signatures ----------------------------------------------------------------

@pytest.mark.parametrize("name, kinds", [
    ("saxpy", ("u32", "f32", "ptr", "ptr")),
    ("gather_scatter", ("u32", "ptr", "ptr", "ptr")),
    ("block_sum", ("ptr", "ptr")),
    ("warp_modes", ("ptr",) * 4),
    ("stencil2d", ("u32", "u32", "ptr", "ptr")),
    ("horner", ("u32", "u32", "ptr", "ptr", "ptr")),
    ("racy_count", ("u32", "ptr")),
])
def test_signature_of_the_corpus(ptx: str, name: str, kinds: tuple[str, ...]) -> None:
    assert signature_of(ptx, name) == kinds


def test_kernel_names_are_the_entries(ptx: str) -> None:
    assert len(KERNELS) > 10 and sorted(kernel_names(ptx)) == sorted(KERNELS)


HANDWRITTEN = """
// .entry commented_out(.param .f64 x)
/* .visible .entry also_commented(.param .u8 c) */
.visible .entry mixed(
\t.param .f64 mixed_param_0,   // a double
\t.param .s64 mixed_param_1,
\t.param .b32 mixed_param_2,
\t.param .u64 mixed_param_3,
\t.param .u64 .ptr .global .align 8 mixed_param_4,
\t.param .u16 mixed_param_5
)
.maxntid 128, 1, 1
{
\tret;
}
.entry no_params()
{
\tret;
}
.entry no_list
{
\tret;
}
.visible .entry by_value(
\t.param .align 8 .b8 by_value_param_0[16]
)
{
\tret;
}
"""


def test_signature_of_handwritten_ptx() -> None:
    assert kernel_names(HANDWRITTEN) == ("mixed", "no_params", "no_list", "by_value")
    assert signature_of(HANDWRITTEN, "mixed") == ("f64", "s64", "b32", "u64", "ptr", "u16")
    assert signature_of(HANDWRITTEN, "no_params") == ()
    assert signature_of(HANDWRITTEN, "no_list") == ()


def test_signature_of_refuses_aggregates_and_unknown_kernels() -> None:
    with pytest.raises(ArgumentValueError, match=r"parameter 0 of kernel 'by_value'.*aggregates"):
        signature_of(HANDWRITTEN, "by_value")
    with pytest.raises(ArgumentValueError, match=r"no kernel .* named 'commented_out'.*mixed"):
        signature_of(HANDWRITTEN, "commented_out")
    with pytest.raises(CallError, match="PTX is text"):
        signature_of(b".entry k()", "k")  # type: ignore[arg-type]


def test_parse_signature_spellings() -> None:
    assert parse_signature(["i32", "int64", "uint8", "float32", "F64", "bool", "pointer",
                            "f32*", "float64*", "b16"]) == (
        "s32", "s64", "u8", "f32", "f64", "u8", "ptr", "f32*", "f64*", "b16")
    with pytest.raises(ArgumentValueError, match=r"unknown kind 'int'.*u8\.\.u64"):
        parse_signature(["int"])
    with pytest.raises(ArgumentValueError, match="unknown kind 'c64'"):
        parse_signature(["c64*"])
    with pytest.raises(CallError, match="sequence of kinds"):
        parse_signature("u32")
    with pytest.raises(CallError, match="signature entry 1"):
        parse_signature(["u32", 32])  # type: ignore[list-item]


# --- argument checking and packing -------------------------------------------------------

def test_pack_scalars_as_their_c_types() -> None:
    sig = ("u32", "s32", "f32", "f64", "s8", "u64", "b16", "f16")
    values = pack_arguments(sig, (7, -7, 2.5, np.float64(0.1), -128, 2**64 - 1, 3, 1.5))
    assert [type(v) for v in values] == [ctypes.c_uint32, ctypes.c_int32, ctypes.c_float,
                                         ctypes.c_double, ctypes.c_int8, ctypes.c_uint64,
                                         ctypes.c_uint16, ctypes.c_uint16]
    assert [v.value for v in values[:6]] == [7, -7, 2.5, 0.1, -128, 2**64 - 1]
    assert values[7].value == int(np.float16(1.5).view(np.uint16))


def test_unsigned_slots_take_twos_complement() -> None:
    # clang writes `.u32` for `int n`: -1 is passed as its bit pattern
    assert pack_arguments(("u32", "b64"), (-1, -2))[0].value == 2**32 - 1
    assert pack_arguments(("b64",), (-2,))[0].value == 2**64 - 2
    assert pack_arguments(("u32",), (np.int64(5),))[0].value == 5
    assert pack_arguments(("u8",), (True,))[0].value == 1


@pytest.mark.parametrize("sig, arg, match", [
    (("u32",), 2**32, r"out of range \[-2147483648, 4294967296\)"),
    (("u32",), -(2**31) - 1, "out of range"),
    (("s8",), 128, r"out of range \[-128, 128\)"),
    (("s64",), np.uint64(2**63), "out of range"),
    (("f32",), 1e39, "overflows float32"),
    (("f16",), 70000.0, "overflows float16"),
    (("f64",), 10**400, "too large"),
])
def test_values_out_of_range(sig: tuple[str, ...], arg: object, match: str) -> None:
    with pytest.raises(ArgumentValueError, match=match):
        pack_arguments(sig, (arg,))


@pytest.mark.parametrize("sig, arg, match", [
    (("u32",), 2.0, r"argument 0 of kernel \(u32\) takes an integer, not float"),
    (("s32",), np.float32(1), "takes an integer, not float32"),
    (("f32",), np.float64(1.0), r"takes a float32 scalar, not float64: cast it with "
                                r"np\.float32"),
    (("f32",), np.int32(1), "takes a float, not int32"),
    (("f64",), True, "takes a float, not bool"),
    (("f64",), "1.0", "takes a float, not str"),
    (("u32",), np.zeros(3, np.uint32), r"\(u32\) takes a scalar, not an array"),
    (("ptr",), 5, r"\(ptr\) takes a NumPy array or a DeviceBuffer, not int"),
    (("f32*",), np.zeros(3), r"\(f32\*\) takes a float32 array, not float64"),
    (("ptr",), np.array([object()]), "Python objects"),
])
def test_wrong_kinds_are_type_errors(sig: tuple[str, ...], arg: object, match: str) -> None:
    with pytest.raises(CallError, match=match):
        check_arguments(sig, (arg,))
    assert issubclass(CallError, TypeError)


def test_argument_count_is_checked() -> None:
    with pytest.raises(CallError, match=r"saxpy takes 4 arguments \(u32, f32, ptr, ptr\), "
                                        r"got 3"):
        check_arguments(("u32", "f32", "ptr", "ptr"), (1, 2.0, np.zeros(1)), "saxpy")


def test_zero_d_arrays_are_scalars() -> None:
    assert pack_arguments(("f32",), (np.array(2.5, np.float32),))[0].value == 2.5
    assert infer_signature([np.array(3, np.int16)]) == ("s16",)


def test_pointer_slots() -> None:
    x = np.zeros(4, np.float32)
    sig = ("u32", "f32", "ptr", "f32*")
    assert check_arguments(sig, (4, 2.0, x, x)) == sig
    buf = DeviceBuffer.wrap(0x7F0000001000, 4, np.float32)  # someone else's memory
    values = pack_arguments(sig, (4, 2.0, buf, buf))
    assert type(values[2]) is ctypes.c_uint64 and values[3].value == 0x7F0000001000
    # a 64-bit integer slot is also a pointer the PTX did not mark `.ptr`
    assert pack_arguments(("u64",), (buf,))[0].value == 0x7F0000001000
    assert check_arguments(("u64",), (x,)) == ("u64",)
    with pytest.raises(CallError, match="pack_arguments takes DeviceBuffers in pointer slots"):
        pack_arguments(sig, (4, 2.0, x, x))
    with pytest.raises(CallError, match=r"\(f32\*\) takes a float32 array, not float64"):
        pack_arguments(("f32*",), (DeviceBuffer.wrap(16, 2, np.float64),))
    buf.free()  # never frees wrapped memory, but the buffer is finished
    with pytest.raises(ArgumentValueError, match="was freed"):
        pack_arguments(("ptr",), (buf,))


def test_infer_signature() -> None:
    args = (np.int32(3), np.float32(2.0), np.zeros(3, np.float32), np.uint64(1),
            DeviceBuffer.wrap(256, 3, np.float64), np.bool_(True), np.zeros((2, 2), np.int8))
    assert infer_signature(args) == ("s32", "f32", "f32*", "u64", "f64*", "u8", "s8*")
    assert [v.value for v in pack_arguments(None, args[:2])] == [3, 2.0]


@pytest.mark.parametrize("arg", [2.5, 3, True])
def test_python_numbers_need_a_signature(arg: object) -> None:
    with pytest.raises(ArgumentValueError, match=r"argument 1 of saxpy is a Python \w+, whose C "
                                                  r"type is unknown: pass signature="):
        infer_signature((np.int32(1), arg), "saxpy")


def test_unpassable_values() -> None:
    with pytest.raises(CallError, match="complex128 value cannot be passed"):
        infer_signature((np.complex128(1),))
    with pytest.raises(CallError, match="argument 0 of kernel is a list"):
        infer_signature(([1.0],))


# --- launch dimensions -------------------------------------------------------------------

def test_dims_are_normalized() -> None:
    assert normalize_dims(4) == (4, 1, 1)
    assert normalize_dims((4, np.int64(2))) == (4, 2, 1)
    assert normalize_dims([2, 3, 4], "block") == (2, 3, 4)
    assert normalize_dims((1024,), "block") == (1024, 1, 1)
    assert normalize_dims((2**31 - 1, 65535, 65535)) == (2**31 - 1, 65535, 65535)
    assert launch_dims(8, (32, 8)) == ((8, 1, 1), (32, 8, 1))


@pytest.mark.parametrize("dims, what, error, match", [
    (0, "grid", ArgumentValueError, r"grid dimension x is 0; it must be between 1 and"),
    ((4, -1), "grid", ArgumentValueError, "grid dimension y is -1"),
    ((1, 1, 1, 1), "grid", ArgumentValueError, "1 to 3 dimensions, not 4"),
    ((), "block", ArgumentValueError, "1 to 3 dimensions, not 0"),
    ((1, 65536), "grid", ArgumentValueError, "between 1 and 65535"),
    ((1, 1, 65), "block", ArgumentValueError, "block dimension z is 65; it must be between 1 "
                                              "and 64"),
    ((1025,), "block", ArgumentValueError, "between 1 and 1024"),
    ((64, 32), "block", ArgumentValueError, r"at most 1024 threads, not 64\*32\*1 = 2048"),
    (4.0, "grid", CallError, "grid dimensions are ints, not 4.0"),
    ((True,), "block", CallError, "block dimensions are ints, not True"),
    ("8", "grid", CallError, "grid dimensions are ints"),
])
def test_bad_dims(dims: object, what: str, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        normalize_dims(dims, what)  # type: ignore[arg-type]


# --- without cuda-bindings, without a driver ---------------------------------------------

@pytest.fixture
def fresh_driver(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A driver layer that has not looked for CUDA yet (the real state returns afterwards)."""
    monkeypatch.setattr(driver, "_state", driver._State())
    yield


def _install(monkeypatch: pytest.MonkeyPatch, module: object) -> None:
    package = types.ModuleType("cuda.bindings")
    package.driver = module  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cuda", types.ModuleType("cuda"))
    monkeypatch.setitem(sys.modules, "cuda.bindings", package)
    monkeypatch.setitem(sys.modules, "cuda.bindings.driver", module)


def test_importing_the_package_never_imports_cuda() -> None:
    code = "import sys, enzyme_py.gpu; print(any(m.startswith('cuda') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.strip() == "False"


def test_without_cuda_bindings(monkeypatch: pytest.MonkeyPatch, fresh_driver: None) -> None:
    for name in ("cuda", "cuda.bindings", "cuda.bindings.driver"):
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    assert available() is False
    for attempt in (lambda: load(".entry k()\n{\n}\n"), device_info,
                    lambda: DeviceBuffer.zeros(4)):
        with pytest.raises(GpuUnavailable, match=r"needs the CUDA Python bindings.*"
                                                 r"pip install 'enzyme_py\[gpu\]'.*"
                                                 r"pip install cuda-bindings") as info:
            attempt()
        assert isinstance(info.value, EnzymePyError)


class CUresult(enum.Enum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_OUT_OF_MEMORY = 2
    CUDA_ERROR_NO_DEVICE = 100
    CUDA_ERROR_INVALID_PTX = 218
    CUDA_ERROR_NOT_FOUND = 500
    CUDA_ERROR_ILLEGAL_ADDRESS = 700


OK = CUresult.CUDA_SUCCESS


class FakeDriver(types.ModuleType):
    """A stand-in for `cuda.bindings.driver` over host memory: it returns `(status, value)`
    tuples as cuda-bindings does, and runs kernels written in Python, reading their parameters
    through the `void**` array that `cuLaunchKernel` receives."""

    CUresult = CUresult
    CUdevice_attribute = types.SimpleNamespace(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR=75,
                                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR=76)
    CUfunction_attribute = types.SimpleNamespace(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES=8)

    def __init__(self, kernels: dict, init: object = OK) -> None:
        super().__init__("cuda.bindings.driver")
        self.kernels, self.init, self.memory, self.log = kernels, init, {}, []
        self.fail: dict[str, CUresult] = {}

    def _do(self, name: str, value: object = None) -> tuple:
        self.log.append(name)
        status = self.fail.get(name, OK)
        return (status,) if value is None else (status, value)

    def cuInit(self, flags: int) -> tuple:
        if isinstance(self.init, Exception):
            raise self.init
        return (self.init,)

    def cuDeviceGetCount(self) -> tuple:
        return OK, 1

    def cuDeviceGet(self, ordinal: int) -> tuple:
        return OK, ordinal

    def cuDeviceGetAttribute(self, attr: int, device: int) -> tuple:
        return OK, {75: 8, 76: 0}[attr]

    def cuDeviceGetName(self, length: int, device: int) -> tuple:
        return OK, b"Stand-in GPU\0\0\0"

    def cuDeviceTotalMem(self, device: int) -> tuple:
        return OK, 2**30

    def cuDriverGetVersion(self) -> tuple:
        return OK, 12040

    def cuDevicePrimaryCtxRetain(self, device: int) -> tuple:
        return OK, "ctx"

    def cuCtxSetCurrent(self, ctx: object) -> tuple:
        return (OK,)

    def cuModuleLoadData(self, image: int) -> tuple:
        self.loaded = ctypes.string_at(image).decode()  # reads up to the NUL, as CUDA does
        return self._do("cuModuleLoadData", "module")

    def cuModuleGetFunction(self, module: object, name: bytes) -> tuple:
        if name.decode() not in self.kernels:
            return (CUresult.CUDA_ERROR_NOT_FOUND, None)
        return OK, name.decode()

    def cuModuleUnload(self, module: object) -> tuple:
        return self._do("cuModuleUnload")

    def cuMemAlloc(self, nbytes: int) -> tuple:
        if "cuMemAlloc" in self.fail:
            return self._do("cuMemAlloc", 0)
        block = ctypes.create_string_buffer(nbytes)
        self.memory[ctypes.addressof(block)] = block
        return self._do("cuMemAlloc", ctypes.addressof(block))

    def cuMemFree(self, address: int) -> tuple:
        del self.memory[address]
        return self._do("cuMemFree")

    def cuMemcpyHtoD(self, dst: int, src: int, nbytes: int) -> tuple:
        ctypes.memmove(dst, src, nbytes)
        return self._do("cuMemcpyHtoD")

    def cuMemcpyDtoH(self, dst: int, src: int, nbytes: int) -> tuple:
        ctypes.memmove(dst, src, nbytes)
        return self._do("cuMemcpyDtoH")

    def cuMemsetD8(self, dst: int, value: int, nbytes: int) -> tuple:
        ctypes.memset(dst, value, nbytes)
        return self._do("cuMemsetD8")

    def cuLaunchKernel(self, f: str, gx: int, gy: int, gz: int, bx: int, by: int, bz: int,
                       shared: int, stream: int, params: int, extra: int) -> tuple:
        self.launched = ((gx, gy, gz), (bx, by, bz), shared)
        self.kernels[f](params, gx * bx)
        return self._do("cuLaunchKernel")

    def cuFuncSetAttribute(self, f: str, attr: int, value: int) -> tuple:
        return self._do("cuFuncSetAttribute")

    def cuCtxSynchronize(self) -> tuple:
        return self._do("cuCtxSynchronize")

    def cuEventCreate(self, flags: int) -> tuple:
        return self._do("cuEventCreate", object())

    def cuEventRecord(self, event: object, stream: int) -> tuple:
        return self._do("cuEventRecord")

    def cuEventSynchronize(self, event: object) -> tuple:
        return (OK,)

    def cuEventElapsedTime(self, start: object, end: object) -> tuple:
        return OK, 0.25

    def cuEventDestroy(self, event: object) -> tuple:
        return self._do("cuEventDestroy")


def _param(params: int, i: int, ctype: type) -> object:
    return ctype.from_address(ctypes.c_void_p.from_address(params + 8 * i).value).value


def _array(address: int, n: int, ctype: type) -> np.ndarray:
    return np.ctypeslib.as_array((ctype * n).from_address(address))


def fake_saxpy(params: int, threads: int) -> None:
    n, a = _param(params, 0, ctypes.c_uint32), _param(params, 1, ctypes.c_float)
    x = _array(_param(params, 2, ctypes.c_uint64), n, ctypes.c_float)
    y = _array(_param(params, 3, ctypes.c_uint64), n, ctypes.c_float)
    m = min(n, threads)
    y[:m] = np.float32(a) * x[:m] + y[:m]
    x[0] = -1.0  # scribbles on its input: a read-only array must not see it


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, fresh_driver: None) -> FakeDriver:
    module = FakeDriver({"saxpy": fake_saxpy})
    _install(monkeypatch, module)
    return module


def test_no_libcuda_or_no_device(monkeypatch: pytest.MonkeyPatch, fresh_driver: None) -> None:
    _install(monkeypatch, FakeDriver({}, init=RuntimeError("Failed to dlopen libcuda.so.1")))
    assert available() is False
    with pytest.raises(GpuUnavailable, match=r"NVIDIA driver \(libcuda\.so\.1\) could not be "
                                             r"loaded: Failed to dlopen"):
        device_info()
    monkeypatch.setattr(driver, "_state", driver._State())
    _install(monkeypatch, FakeDriver({}, init=CUresult.CUDA_ERROR_NO_DEVICE))
    with pytest.raises(GpuUnavailable, match=r"finds no usable GPU \(CUDA_ERROR_NO_DEVICE"):
        load(".entry k()\n{\n}\n")


def test_cuda_errors_name_the_call(fake: FakeDriver) -> None:
    assert available() and device_info().sm == 80 and device_info().name == "Stand-in GPU"
    fake.fail["cuMemAlloc"] = CUresult.CUDA_ERROR_OUT_OF_MEMORY
    with pytest.raises(GpuError, match=r"cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY \(2\)") as e:
        DeviceBuffer.empty(1024, np.float32)
    assert (e.value.call, e.value.error_name, e.value.code) == (
        "cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY", 2)
    fake.fail = {"cuModuleLoadData": CUresult.CUDA_ERROR_INVALID_PTX}
    with pytest.raises(GpuError, match=r"cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX.*ptxas"):
        load(".entry k()\n{\n}\n")


def test_load_checks_the_target_and_the_kernel(fake: FakeDriver, ptx: str) -> None:
    with pytest.raises(ArgumentValueError, match=r"targets sm_90, but Stand-in GPU is sm_80: "
                                                 r"emit it with emit_ptx\(\.\.\., sm=80\)"):
        load(ptx.replace(".target sm_80", ".target sm_90"))
    module = load(ptx)
    assert fake.loaded == ptx
    with pytest.raises(ArgumentValueError, match=r"has no kernel named 'block_sum'; its kernels: "
                                                 r"saxpy"):
        module.kernel("block_sum")  # in the PTX but not in the stand-in driver
    with pytest.raises(ArgumentValueError, match=r"has no kernel named 'nope'"):
        module.kernel("nope", signature=("u32",))
    with pytest.raises(ArgumentValueError, match=r"'saxpy' has 3 entries, its PTX entry 4"):
        module.kernel("saxpy", signature=("u32", "f32", "ptr"))
    with pytest.raises(ArgumentValueError, match=r"entry 1 of 'saxpy' is 'f64', its PTX "
                                                 r"parameter is 'f32'"):
        module.kernel("saxpy", signature=("u32", "f64", "ptr", "ptr"))
    with pytest.raises(ArgumentValueError, match=r"entry 1 of 'saxpy' is 's32'"):
        module.kernel("saxpy", signature=("s32", "s32", "ptr", "ptr"))
    assert module.kernel("saxpy", signature=("s32", "f32", "f32*", "f32*")).signature == (
        "s32", "f32", "f32*", "f32*")
    module.unload()
    with pytest.raises(ArgumentValueError, match="unloaded"):
        module.kernel("saxpy")


def test_launch_writes_back_and_frees(fake: FakeDriver, ptx: str) -> None:
    saxpy = load(ptx).kernel("saxpy")
    assert saxpy.signature == ("u32", "f32", "ptr", "ptr")
    n = 100
    x, y = RNG.random(n, dtype=np.float32), RNG.random(n, dtype=np.float32)
    x.flags.writeable = False
    want = np.float32(2.5) * x + y
    saxpy(n, 2.5, x, y, grid=4, block=(32,))
    np.testing.assert_array_equal(y, want)
    assert x[0] != -1.0  # read-only: an input, never written back
    assert fake.launched == ((4, 1, 1), (32, 1, 1), 0)
    assert fake.memory == {}  # every staged buffer was freed
    assert fake.log.index("cuCtxSynchronize") < fake.log.index("cuMemcpyDtoH")

    z = RNG.random(n, dtype=np.float32)
    zero = z.copy()
    saxpy(n, 1.0, z, z, grid=1, block=128)  # one array twice is one buffer: y = x + y
    np.testing.assert_array_equal(z[1:], 2 * zero[1:])
    assert z[0] == -1.0  # writeable: the kernel's write comes back


def test_a_kernel_fault_keeps_its_cause(fake: FakeDriver, ptx: str) -> None:
    saxpy = load(ptx).kernel("saxpy")
    bad = CUresult.CUDA_ERROR_ILLEGAL_ADDRESS  # sticky: every later call fails as well
    fake.fail = {"cuCtxSynchronize": bad, "cuMemFree": bad, "cuMemcpyDtoH": bad}
    x, y = np.ones(4, np.float32), np.zeros(4, np.float32)
    with pytest.raises(GpuError, match=r"cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS "
                                       r"\(700\); a kernel failed"):
        saxpy(4, 1.0, x, y, grid=1, block=4)
    assert y.tolist() == [0.0] * 4 and fake.memory == {}  # nothing copied back, frees tried


def test_launch_checks_before_the_device(fake: FakeDriver, ptx: str) -> None:
    saxpy = load(ptx).kernel("saxpy")
    fake.log.clear()
    x = np.zeros(4, np.float32)
    with pytest.raises(CallError, match="saxpy takes 4 arguments"):
        saxpy(4, 1.0, x, grid=1, block=4)
    with pytest.raises(CallError, match=r"argument 0 of saxpy \(u32\) takes an integer"):
        saxpy(4.0, 1.0, x, x, grid=1, block=4)
    with pytest.raises(ArgumentValueError, match="at most 1024 threads"):
        saxpy(4, 1.0, x, x, grid=1, block=(32, 64))
    with pytest.raises(ArgumentValueError, match="shared_bytes must be >= 0"):
        saxpy(4, 1.0, x, x, grid=1, block=4, shared_bytes=-1)
    assert fake.log == []  # nothing reached the driver


def test_inferred_signature_when_the_ptx_does_not_say(fake: FakeDriver) -> None:
    module = load(".version 7.0\n.target sm_80\n.address_size 64\n")  # names no entries
    saxpy = module.kernel("saxpy")
    assert saxpy.signature is None
    x, y = np.ones(8, np.float32), np.ones(8, np.float32)
    with pytest.raises(ArgumentValueError, match="Python int, whose C type is unknown"):
        saxpy(8, np.float32(2), x, y, grid=1, block=8)
    saxpy(np.uint32(8), np.float32(2), x, y, grid=1, block=8)
    np.testing.assert_array_equal(y, np.full(8, 3, np.float32))


def test_device_buffers_stay_on_the_device(fake: FakeDriver, ptx: str) -> None:
    saxpy = load(ptx).kernel("saxpy")
    x = np.arange(6, dtype=np.float32)
    with DeviceBuffer.from_array(x) as dx, DeviceBuffer.zeros(6, np.float32) as dy:
        assert dy.to_array().tolist() == [0.0] * 6
        saxpy(6, 2.0, dx, dy, grid=1, block=8)
        saxpy(6, 2.0, dx, dy, grid=1, block=8)  # dx[0] is -1 by now: the first scribbled
        np.testing.assert_array_equal(dy.to_array(), [-2, 4, 8, 12, 16, 20])
        strided = np.zeros(12, np.float32)[::2]
        dy.to_array(out=strided)
        np.testing.assert_array_equal(strided, [-2, 4, 8, 12, 16, 20])
        with pytest.raises(ArgumentValueError, match=r"holds float32\[6\], the array is "
                                                     r"float64\[6\]"):
            dy.copy_from(np.zeros(6))
        with pytest.raises(CallError, match=r"\(ptr\) takes a NumPy array or a DeviceBuffer"):
            saxpy(6, 2.0, [1.0], dy, grid=1, block=8)
    assert fake.memory == {} and repr(dy) == "DeviceBuffer(float32[6] at freed)"
    empty = DeviceBuffer.empty((0, 3), np.float64)
    assert empty.address == 0 and empty.to_array().shape == (0, 3)


def test_time_uses_events(fake: FakeDriver, ptx: str) -> None:
    saxpy = load(ptx).kernel("saxpy")
    x, y = np.ones(16, np.float32), np.zeros(16, np.float32)
    times = saxpy.time(16, 1.0, x, y, grid=1, block=16, repeats=5)
    assert times == [0.25] * 5
    assert fake.log.count("cuLaunchKernel") == 6  # one warm-up
    assert fake.log.count("cuEventRecord") == 10 and fake.log.count("cuEventDestroy") == 2
    np.testing.assert_array_equal(y[1:], np.full(15, 6, np.float32))  # after the last launch
    with pytest.raises(ArgumentValueError, match="repeats is an int >= 1"):
        saxpy.time(16, 1.0, x, y, grid=1, block=16, repeats=0)


def test_large_dynamic_shared_memory_is_opted_in(fake: FakeDriver, ptx: str) -> None:
    saxpy = load(ptx).kernel("saxpy")
    x = np.ones(4, np.float32)
    saxpy(4, 1.0, x, x.copy(), grid=1, block=4, shared_bytes=64 * 1024)
    assert "cuFuncSetAttribute" in fake.log and fake.launched[2] == 64 * 1024


# --- on a real GPU -----------------------------------------------------------------------

on_gpu = pytest.mark.xfail(not available(), raises=GpuUnavailable, strict=True,
                           reason="no CUDA GPU/driver/cuda-bindings here")


@pytest.fixture(scope="module")
def device_ptx(corpus: str) -> str:
    sm = device_info().sm if available() else 80
    return emit_ptx(corpus, sm=min(sm, 90))


@on_gpu
def test_saxpy_on_the_gpu(device_ptx: str) -> None:
    saxpy = load(device_ptx).kernel("saxpy")
    n = 10_000
    x, y = RNG.random(n, dtype=np.float32), RNG.random(n, dtype=np.float32)
    want = np.float32(2.5) * x + y
    saxpy(n, 2.5, x, y, grid=(n + 255) // 256, block=256)
    np.testing.assert_allclose(y, want, rtol=3e-7)  # CUDA contracts a * x + y to an fma


@on_gpu
def test_block_sum_with_barriers_on_the_gpu(device_ptx: str) -> None:
    x, out = RNG.random(8 * 64), np.zeros(8)
    load(device_ptx).kernel("block_sum")(x, out, grid=8, block=64)
    np.testing.assert_allclose(out, (x * x).reshape(8, 64).sum(axis=1), rtol=1e-13)


@on_gpu
def test_stencil2d_on_a_2d_grid(device_ptx: str) -> None:
    nx, ny = 40, 24
    u, v = RNG.random((ny, nx)), np.zeros((ny, nx))
    load(device_ptx).kernel("stencil2d")(nx, ny, u, v, grid=(3, 2), block=(16, 16))
    c = u[1:-1, 1:-1]
    lap = 4 * c - u[1:-1, :-2] - u[1:-1, 2:] - u[:-2, 1:-1] - u[2:, 1:-1]
    np.testing.assert_allclose(v[1:-1, 1:-1], c - 0.2 * lap, rtol=1e-12)


@on_gpu
def test_device_buffers_and_timing_on_the_gpu(device_ptx: str) -> None:
    saxpy = load(device_ptx).kernel("saxpy")
    n = 1 << 20
    x = RNG.random(n, dtype=np.float32)
    with DeviceBuffer.from_array(x) as dx, DeviceBuffer.zeros(n, np.float32) as dy:
        times = saxpy.time(n, 1.0, dx, dy, grid=n // 256, block=256, repeats=20)
        assert len(times) == 20 and all(t > 0 for t in times)
        np.testing.assert_allclose(dy.to_array(), 21 * x, rtol=1e-5)  # warm-up + 20


@on_gpu
def test_a_kernel_fault_is_a_gpu_error_on_the_gpu() -> None:
    # after a fault the context is unusable, so this runs in a process of its own
    device_info()
    code = ("import numpy as np\n"
            "from enzyme_py.gpu import DeviceBuffer, GpuError, load\n"
            "ptx = '''.version 7.0\n.target sm_80\n.address_size 64\n"
            ".visible .entry poke(.param .u64 .ptr .align 1 p)\n{\n.reg .b64 %rd<2>;\n"
            ".reg .b32 %r<2>;\nld.param.u64 %rd1, [p];\nmov.u32 %r1, 1;\n"
            "st.global.u32 [%rd1], %r1;\nret;\n}\n'''\n"
            "k = load(ptx).kernel('poke')\n"
            "try:\n    k(DeviceBuffer.wrap(8, 1, np.uint32), grid=1, block=1)\n"
            "except GpuError as e:\n    print(e.error_name)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    if "GpuUnavailable" in done.stderr:
        raise GpuUnavailable(done.stderr)
    assert done.stdout.strip() in ("CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED"), (
        done.stdout + done.stderr)
