"""PTX on the device: load a module, look up a kernel, check and pack its arguments, launch.

    module = load(emit_ptx(nvptx_ir, sm=device_info().sm))
    saxpy = module.kernel("saxpy")           # the signature is read from the PTX entry
    saxpy(n, 2.5, x, y, grid=4, block=256)   # x, y: NumPy arrays; y is written back
    ms = saxpy.time(n, 2.5, x, y, grid=4, block=256)   # CUDA events; quote the median

Invariants: every argument is checked against the kernel's signature (count, kind, dtype,
range) and the launch dimensions against CUDA's limits before anything reaches the device: a
mistake is a `CallError` or `ArgumentValueError`, never a crash. A kernel's signature is the
one its caller gives (checked against the PTX entry's parameter widths), else the PTX entry's
own (`signature_of`), else the kinds of NumPy scalars and arrays in the call (`infer_signature`;
Python numbers then are refused: their C type is unknown). NumPy arrays are copied to the
device for one call and back afterwards, unless read-only (inputs); one array object passed
twice is one device buffer (distinct views of one memory are distinct copies); `DeviceBuffer`s
stay on the device; a module stays loaded until `unload()`. Signature kinds are PTX's: `u8..u64`,
`s8..s64` (alias `i8..i64`), `b8..b64`, `f16/f32/f64`, `ptr`, or `<kind>*` (a pointer whose
array dtype is checked); NumPy names (`int32`, `float32`) are accepted. PTX parameters are bit
patterns (clang writes `.u32` for `int`), so an unsigned or untyped slot also takes a negative
value as its two's complement, and a 64-bit integer slot also takes an array (a pointer that
the PTX does not mark `.ptr`). Everything but `load`, `GpuModule` and `Kernel` runs without
CUDA.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from enzyme_py.errors import ArgumentValueError, CallError
from enzyme_py.gpu import driver
from enzyme_py.gpu.buffers import DeviceBuffer

__all__ = ["GpuModule", "Kernel", "check_arguments", "infer_signature", "kernel_names",
           "launch_dims", "load", "normalize_dims", "pack_arguments", "parse_signature",
           "signature_of"]

Dims = tuple[int, int, int]


@dataclass(frozen=True)
class _Scalar:
    name: str
    family: str  # "s" signed, "u" unsigned, "b" untyped bits, "f" floating point
    bits: int
    ctype: type

    @property
    def dtype(self) -> np.dtype:
        if self.family == "f":
            return np.dtype(f"f{self.bits // 8}")
        return np.dtype(f"{'i' if self.family == 's' else 'u'}{self.bits // 8}")


_INTS = {8: (ctypes.c_int8, ctypes.c_uint8), 16: (ctypes.c_int16, ctypes.c_uint16),
         32: (ctypes.c_int32, ctypes.c_uint32), 64: (ctypes.c_int64, ctypes.c_uint64)}
_SCALARS: dict[str, _Scalar] = {}
for _bits, (_signed, _unsigned) in _INTS.items():
    _SCALARS[f"s{_bits}"] = _Scalar(f"s{_bits}", "s", _bits, _signed)
    _SCALARS[f"u{_bits}"] = _Scalar(f"u{_bits}", "u", _bits, _unsigned)
    _SCALARS[f"b{_bits}"] = _Scalar(f"b{_bits}", "b", _bits, _unsigned)
_SCALARS["f16"] = _Scalar("f16", "f", 16, ctypes.c_uint16)  # passed as its bit pattern
_SCALARS["f32"] = _Scalar("f32", "f", 32, ctypes.c_float)
_SCALARS["f64"] = _Scalar("f64", "f", 64, ctypes.c_double)
_ALIASES = {**{f"i{b}": f"s{b}" for b in _INTS}, **{f"int{b}": f"s{b}" for b in _INTS},
            **{f"uint{b}": f"u{b}" for b in _INTS}, "float16": "f16", "float32": "f32",
            "float64": "f64", "bool": "u8", "pointer": "ptr"}
_KINDS_HELP = "u8..u64, s8..s64 (i8..i64), b8..b64, f16, f32, f64, ptr or <kind>*"


def _canonical(kind: object, where: str) -> str:
    if not isinstance(kind, str):
        raise CallError(f"{where}: a signature entry is a string such as 'u32' or 'f32*', "
                        f"not {kind!r}")
    text = _ALIASES.get(kind.strip().lower(), kind.strip().lower())
    if text == "ptr":
        return text
    if text.endswith("*"):
        return f"{_canonical(text[:-1], where)}*"
    if text not in _SCALARS:
        raise ArgumentValueError(f"{where}: unknown kind {kind!r}; kinds are {_KINDS_HELP}")
    return text


def parse_signature(signature: Sequence[str]) -> tuple[str, ...]:
    """The canonical spelling of a signature: `("int", ...)` is refused, `("i32", "float32*")`
    is `("s32", "f32*")`.

    >>> parse_signature(["i32", "f32", "float32*", "ptr"])
    ('s32', 'f32', 'f32*', 'ptr')
    """
    if isinstance(signature, str) or not isinstance(signature, Sequence):
        raise CallError(f"a signature is a sequence of kinds such as ('u32', 'f32', 'ptr'), "
                        f"not {signature!r}")
    return tuple(_canonical(kind, f"signature entry {i}") for i, kind in enumerate(signature))


def _is_pointer(kind: str) -> bool:
    return kind == "ptr" or kind.endswith("*")


def _bits(kind: str) -> int:
    return 64 if _is_pointer(kind) else _SCALARS[kind].bits


# --- PTX entries -------------------------------------------------------------------------

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$%][\w$%]*)\s*(\((.*?)\))?", re.S)
_PARAM_TYPE = re.compile(r"^\.([usbf])(8|16|32|64)$")


def _entries(ptx: str) -> dict[str, str | None]:
    if not isinstance(ptx, str):
        raise CallError(f"PTX is text (str), not {type(ptx).__name__}")
    return {m.group(1): m.group(3) for m in _ENTRY.finditer(_COMMENT.sub("", ptx))}


def kernel_names(ptx: str) -> tuple[str, ...]:
    """The names of the kernels (`.entry`) in PTX text, in order."""
    return tuple(_entries(ptx))


def _param_kind(kernel: str, i: int, text: str) -> str:
    tokens = text.split()
    if not tokens or tokens[0] != ".param" or "[" in text:
        raise ArgumentValueError(f"parameter {i} of kernel {kernel!r} ({text.strip()}) is not a "
                                 f"scalar or pointer (aggregates passed by value are not "
                                 f"supported)")
    kinds = [m.groups() for m in map(_PARAM_TYPE.match, tokens) if m]
    if len(kinds) != 1:
        raise ArgumentValueError(f"parameter {i} of kernel {kernel!r} has no single type: "
                                 f"{text.strip()}")
    family, bits = kinds[0]
    if ".ptr" in tokens:
        return "ptr"
    return f"{family}{bits}"


def signature_of(ptx: str, kernel: str) -> tuple[str, ...]:
    """The parameter kinds of `kernel` as its PTX `.entry` declares them: `.u64 .ptr` is
    `"ptr"`, other types their PTX names (`"u32"`, `"f32"`, `"u64"`, ...).

    >>> signature_of(".visible .entry k(.param .u32 k_0, .param .u64 .ptr .align 1 k_1)\\n{}",
    ...              "k")
    ('u32', 'ptr')
    """
    entries = _entries(ptx)
    if kernel not in entries:
        known = ", ".join(entries) or "none"
        raise ArgumentValueError(f"the PTX has no kernel (.entry) named {kernel!r}; its "
                                 f"kernels: {known}")
    params = entries[kernel]
    if params is None or not params.strip():
        return ()
    return tuple(_param_kind(kernel, i, text) for i, text in enumerate(params.split(",")))


def _agree(kernel: str, given: tuple[str, ...], ptx: tuple[str, ...]) -> None:
    if len(given) != len(ptx):
        raise ArgumentValueError(f"the signature of {kernel!r} has {len(given)} entries, its "
                                 f"PTX entry {len(ptx)} parameters ({', '.join(ptx)})")
    for i, (mine, theirs) in enumerate(zip(given, ptx, strict=True)):
        floats = [not _is_pointer(k) and _SCALARS[k].family == "f" for k in (mine, theirs)]
        typed = theirs == "ptr" or _SCALARS[theirs].family != "b"
        if _bits(mine) != _bits(theirs) or (typed and floats[0] != floats[1]):
            raise ArgumentValueError(f"signature entry {i} of {kernel!r} is {mine!r}, its PTX "
                                     f"parameter is {theirs!r}")


# --- arguments ---------------------------------------------------------------------------

def _kind_of_dtype(dtype: np.dtype, where: str) -> str:
    if dtype == np.bool_:
        return "u8"
    if dtype.kind in "iuf" and dtype.itemsize in (1, 2, 4, 8):
        family = {"i": "s", "u": "u", "f": "f"}[dtype.kind]
        name = f"{family}{8 * dtype.itemsize}"
        if name in _SCALARS:
            return name
    raise CallError(f"{where}: a {dtype} value cannot be passed to a kernel")


def infer_signature(args: Sequence[Any], kernel: str = "kernel") -> tuple[str, ...]:
    """Kinds from the arguments themselves: arrays and `DeviceBuffer`s are typed pointers,
    NumPy scalars their dtype's kind; a Python number is an `ArgumentValueError` (its C type is
    unknown: give a signature or a NumPy scalar).

    >>> infer_signature([np.int32(3), np.float32(2.0), np.zeros(3, np.float32)])
    ('s32', 'f32', 'f32*')
    """
    kinds = []
    for i, arg in enumerate(args):
        where = f"argument {i} of {kernel}"
        if isinstance(arg, DeviceBuffer) or (isinstance(arg, np.ndarray) and arg.ndim):
            kinds.append(f"{_kind_of_dtype(arg.dtype, where)}*")
        elif isinstance(arg, np.generic | np.ndarray):
            kinds.append(_kind_of_dtype(arg.dtype, where))
        elif isinstance(arg, bool | int | float):
            raise ArgumentValueError(
                f"{where} is a Python {type(arg).__name__}, whose C type is unknown: pass "
                f"signature=('s32', 'f32', 'ptr', ...) to GpuModule.kernel, or a NumPy scalar "
                f"such as np.int32({arg!r}) or np.float32({arg!r})")
        else:
            raise CallError(f"{where} is a {type(arg).__name__}: kernels take NumPy arrays, "
                            f"DeviceBuffers and numbers")
    return tuple(kinds)


def _as_pointer(kind: str, arg: object) -> bool:
    """Whether `arg` fills slot `kind` as a pointer (an array or a buffer)."""
    is_array = isinstance(arg, DeviceBuffer) or (isinstance(arg, np.ndarray) and arg.ndim > 0)
    return _is_pointer(kind) or (is_array and kind in ("u64", "b64"))


def _check_pointer(where: str, kind: str, arg: object) -> None:
    if not isinstance(arg, np.ndarray | DeviceBuffer):
        raise CallError(f"{where} ({kind}) takes a NumPy array or a DeviceBuffer, not "
                        f"{type(arg).__name__}")
    if arg.dtype.hasobject:
        raise CallError(f"{where}: an array of Python objects cannot be copied to the device")
    if kind.endswith("*") and arg.dtype != _SCALARS[kind[:-1]].dtype:
        raise CallError(f"{where} ({kind}) takes a {_SCALARS[kind[:-1]].dtype} array, not "
                        f"{arg.dtype}")


def _float_value(where: str, scalar: _Scalar, arg: object) -> ctypes._SimpleCData:
    if isinstance(arg, np.floating):
        if arg.dtype != scalar.dtype:
            raise CallError(f"{where} ({scalar.name}) takes a {scalar.dtype} scalar, not "
                            f"{arg.dtype}: cast it with np.{scalar.dtype}(...)")
    elif isinstance(arg, bool | np.bool_ | np.integer) or not isinstance(arg, int | float):
        raise CallError(f"{where} ({scalar.name}) takes a float, not {type(arg).__name__}")
    try:
        value = float(arg)
    except OverflowError as err:
        raise ArgumentValueError(f"{where} ({scalar.name}): {arg} is too large") from err
    if math.isfinite(value) and abs(value) > float(np.finfo(scalar.dtype).max):
        raise ArgumentValueError(f"{where} ({scalar.name}): {value!r} overflows {scalar.dtype}")
    if scalar.name == "f16":
        return ctypes.c_uint16(int(np.float16(value).view(np.uint16)))
    return scalar.ctype(value)


def _int_value(where: str, scalar: _Scalar, arg: object) -> ctypes._SimpleCData:
    if isinstance(arg, float | np.floating) or not isinstance(arg, int | np.integer | np.bool_):
        raise CallError(f"{where} ({scalar.name}) takes an integer, not {type(arg).__name__}")
    value, bits = int(arg), scalar.bits
    low, high = -(1 << (bits - 1)), (1 << (bits - 1) if scalar.family == "s" else 1 << bits)
    if not low <= value < high:
        raise ArgumentValueError(f"{where} ({scalar.name}): {value} is out of range "
                                 f"[{low}, {high})")
    return scalar.ctype(value & ((1 << bits) - 1) if scalar.family != "s" else value)


def _scalar_value(where: str, kind: str, arg: object) -> ctypes._SimpleCData:
    if isinstance(arg, DeviceBuffer) or (isinstance(arg, np.ndarray) and arg.ndim):
        raise CallError(f"{where} ({kind}) takes a scalar, not an array")
    if isinstance(arg, np.ndarray):
        arg = arg[()]
    scalar = _SCALARS[kind]
    if scalar.family == "f":
        return _float_value(where, scalar, arg)
    return _int_value(where, scalar, arg)


def _resolve(signature: Sequence[str] | None, args: Sequence[Any],
             kernel: str) -> tuple[str, ...]:
    kinds = infer_signature(args, kernel) if signature is None else parse_signature(signature)
    if len(args) != len(kinds):
        raise CallError(f"{kernel} takes {len(kinds)} arguments ({', '.join(kinds)}), "
                        f"got {len(args)}")
    return kinds


def check_arguments(signature: Sequence[str] | None, args: Sequence[Any],
                    kernel: str = "kernel") -> tuple[str, ...]:
    """Check `args` against `signature` (inferred when None) as a launch would, and return
    the canonical signature; NumPy arrays are accepted in pointer slots."""
    kinds = _resolve(signature, args, kernel)
    for i, (kind, arg) in enumerate(zip(kinds, args, strict=True)):
        where = f"argument {i} of {kernel}"
        if _as_pointer(kind, arg):
            _check_pointer(where, kind, arg)
        else:
            _scalar_value(where, kind, arg)
    return kinds


def pack_arguments(signature: Sequence[str] | None, args: Sequence[Any],
                   kernel: str = "kernel") -> list[ctypes._SimpleCData]:
    """One ctypes value per argument, as `cuLaunchKernel` copies them: scalars converted to
    their slot's C type, `DeviceBuffer`s as their 64-bit address. Pointer slots take
    `DeviceBuffer`s only (a `Kernel` copies NumPy arrays to the device first).

    >>> [v.value for v in pack_arguments(("u32", "f32", "s8"), (-1, 2.5, -3))]
    [4294967295, 2.5, -3]
    """
    kinds = _resolve(signature, args, kernel)
    values: list[ctypes._SimpleCData] = []
    for i, (kind, arg) in enumerate(zip(kinds, args, strict=True)):
        where = f"argument {i} of {kernel}"
        if not _as_pointer(kind, arg):
            values.append(_scalar_value(where, kind, arg))
            continue
        _check_pointer(where, kind, arg)
        if not isinstance(arg, DeviceBuffer):
            raise CallError(f"{where}: pack_arguments takes DeviceBuffers in pointer slots, not "
                            f"NumPy arrays (a Kernel copies arrays to the device itself)")
        values.append(ctypes.c_uint64(arg.address))
    return values


# --- launch dimensions -------------------------------------------------------------------

_LIMITS = {"grid": (2**31 - 1, 65535, 65535), "block": (1024, 1024, 64)}


def normalize_dims(dims: int | Sequence[int], what: str = "grid") -> Dims:
    """`dims` (an int or a 1-3 tuple, each at least 1 and within CUDA's limits) as (x, y, z);
    a block has at most 1024 threads.

    >>> normalize_dims(4), normalize_dims((16, 8), "block")
    ((4, 1, 1), (16, 8, 1))
    """
    if what not in _LIMITS:
        raise ValueError(f"what is 'grid' or 'block', not {what!r}")
    items = dims if isinstance(dims, tuple | list) else (dims,)
    if not 1 <= len(items) <= 3:
        raise ArgumentValueError(f"{what} has 1 to 3 dimensions, not {len(items)}: {dims!r}")
    out = []
    for axis, (item, limit) in enumerate(zip(items, _LIMITS[what], strict=False)):
        if isinstance(item, bool | np.bool_):
            raise CallError(f"{what} dimensions are ints, not {item!r}")
        try:
            value = operator.index(item)
        except TypeError as err:
            raise CallError(f"{what} dimensions are ints, not {item!r}") from err
        if not 1 <= value <= limit:
            raise ArgumentValueError(f"{what} dimension {'xyz'[axis]} is {value}; it must be "
                                     f"between 1 and {limit}")
        out.append(value)
    x, y, z = (*out, 1, 1)[:3]
    if what == "block" and x * y * z > 1024:
        raise ArgumentValueError(f"a block has at most 1024 threads, not {x}*{y}*{z} = "
                                 f"{x * y * z}")
    return x, y, z


def launch_dims(grid: int | Sequence[int], block: int | Sequence[int]) -> tuple[Dims, Dims]:
    """Grid and block dimensions, normalized and checked (`normalize_dims`)."""
    return normalize_dims(grid, "grid"), normalize_dims(block, "block")


def _check_shared(shared_bytes: object) -> int:
    if isinstance(shared_bytes, bool) or not isinstance(shared_bytes, int | np.integer):
        raise CallError(f"shared_bytes is an int, not {shared_bytes!r}")
    if not 0 <= shared_bytes < 2**32:
        raise ArgumentValueError(f"shared_bytes must be >= 0, not {shared_bytes}")
    return int(shared_bytes)


# --- the device --------------------------------------------------------------------------

_TARGET = re.compile(r"^\s*\.target\s+sm_(\d+)([af]?)", re.M)
_DEFAULT_SHARED = 48 * 1024


def load(ptx: str) -> GpuModule:
    """Load PTX text onto the device (the driver compiles it for the device's SM).

    >>> module = load(emit_ptx(nvptx_ir, sm=device_info().sm))   # doctest: +SKIP
    """
    if not isinstance(ptx, str):
        raise CallError(f"load takes PTX text (str), not {type(ptx).__name__}")
    info = driver.device_info()
    target = _TARGET.search(_COMMENT.sub("", ptx))
    if target is not None:
        sm, suffix = int(target.group(1)), target.group(2)
        if sm > info.sm or (suffix == "a" and sm != info.sm):
            raise ArgumentValueError(f"the PTX targets sm_{sm}{suffix}, but {info.name} is "
                                     f"sm_{info.sm}: emit it with emit_ptx(..., sm={info.sm})")
    image = ctypes.create_string_buffer(ptx.encode())  # NUL-terminated, as the driver reads it
    handle = driver.call("cuModuleLoadData", ctypes.addressof(image),
                         hint="the driver rejected the PTX (check it with ptxas; "
                              "UNSUPPORTED_PTX_VERSION means the driver is older than its "
                              ".version)")
    return GpuModule(handle, ptx)


class GpuModule:
    """PTX loaded on the device; `kernel(name)` looks up one of its kernels."""

    def __init__(self, handle: Any, ptx: str) -> None:
        self._handle, self.ptx, self._loaded = handle, ptx, True

    def kernel_names(self) -> tuple[str, ...]:
        return kernel_names(self.ptx)

    def kernel(self, name: str, signature: Sequence[str] | None = None) -> Kernel:
        """The kernel `name`. `signature` (kinds such as `("u32", "f32", "ptr", "ptr")`)
        defaults to the PTX entry's parameters; a given one must agree with them."""
        if not self._loaded:
            raise ArgumentValueError("this GpuModule was unloaded")
        known = _entries(self.ptx)
        ptx_kinds = signature_of(self.ptx, name) if name in known else None
        kinds = ptx_kinds if signature is None else parse_signature(signature)
        if signature is not None and ptx_kinds is not None:
            _agree(name, kinds, ptx_kinds)
        try:
            function = driver.call("cuModuleGetFunction", self._handle, name.encode())
        except driver.GpuError as err:
            if err.error_name == "CUDA_ERROR_NOT_FOUND":
                raise ArgumentValueError(f"the module has no kernel named {name!r}; its "
                                         f"kernels: {', '.join(known) or 'none'}") from err
            raise
        return Kernel(self, name, function, kinds)

    def unload(self) -> None:
        """Unload the module now (its kernels can no longer be launched)."""
        if self._loaded:
            self._loaded = False
            driver.call("cuModuleUnload", self._handle)

    def __enter__(self) -> GpuModule:
        return self

    def __exit__(self, *exc: object) -> None:
        self.unload()


class Kernel:
    """A kernel of a `GpuModule`; call it with its arguments and `grid=`, `block=`.

    >>> saxpy(n, 2.5, x, y, grid=(n + 255) // 256, block=256)   # doctest: +SKIP
    """

    def __init__(self, module: GpuModule, name: str, function: Any,
                 signature: tuple[str, ...] | None) -> None:
        self.module, self.name, self._function, self.signature = module, name, function, signature

    def _prepare(self, args: Sequence[Any], grid: Any, block: Any,
                 shared_bytes: Any) -> tuple[tuple[str, ...], Dims, Dims, int]:
        kinds = check_arguments(self.signature, args, self.name)
        gdims, bdims = launch_dims(grid, block)
        shared = _check_shared(shared_bytes)
        if not self.module._loaded:
            raise ArgumentValueError(f"the module of kernel {self.name!r} was unloaded")
        return kinds, gdims, bdims, shared

    def _stage(self, kinds: tuple[str, ...], args: Sequence[Any],
               staged: dict[int, tuple[np.ndarray, DeviceBuffer]]) -> list[Any]:
        out = []
        for kind, arg in zip(kinds, args, strict=True):
            if isinstance(arg, np.ndarray) and _as_pointer(kind, arg):
                if id(arg) not in staged:
                    staged[id(arg)] = (arg, DeviceBuffer.from_array(arg))
                arg = staged[id(arg)][1]
            out.append(arg)
        return out

    def _launch(self, values: list[ctypes._SimpleCData], gdims: Dims, bdims: Dims,
                shared: int) -> None:
        params = (ctypes.c_void_p * max(len(values), 1))(*map(ctypes.addressof, values))
        driver.call("cuLaunchKernel", self._function, *gdims, *bdims, shared, 0,
                    ctypes.addressof(params) if values else 0, 0,
                    hint=f"launching {self.name} on grid {gdims}, block {bdims}")

    def _run(self, args: Sequence[Any], grid: Any, block: Any, shared_bytes: Any,
             repeats: int) -> list[float]:
        kinds, gdims, bdims, shared = self._prepare(args, grid, block, shared_bytes)
        if shared > _DEFAULT_SHARED:
            attr = driver.bindings().CUfunction_attribute
            driver.call("cuFuncSetAttribute", self._function,
                        attr.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
        staged: dict[int, tuple[np.ndarray, DeviceBuffer]] = {}
        try:
            values = pack_arguments(kinds, self._stage(kinds, args, staged), self.name)
            times = []
            if repeats:
                times = self._timed(values, gdims, bdims, shared, repeats)
            else:
                self._launch(values, gdims, bdims, shared)
            driver.synchronize()
            for array, buffer in staged.values():
                if array.flags.writeable:
                    buffer.to_array(out=array)
        except BaseException:
            for _, buffer in staged.values():  # after a fault freeing fails too: keep the cause
                with contextlib.suppress(driver.GpuError):
                    buffer.free()
            raise
        for _, buffer in staged.values():
            buffer.free()
        return times

    def _timed(self, values: list[ctypes._SimpleCData], gdims: Dims, bdims: Dims, shared: int,
               repeats: int) -> list[float]:
        self._launch(values, gdims, bdims, shared)  # warm-up: module load, caches, clocks
        start, end = driver.call("cuEventCreate", 0), driver.call("cuEventCreate", 0)
        elapsed = "cuEventElapsedTime"
        if not hasattr(driver.bindings(), elapsed):
            elapsed = "cuEventElapsedTime_v2"
        try:
            times = []
            for _ in range(repeats):
                driver.call("cuEventRecord", start, 0)
                self._launch(values, gdims, bdims, shared)
                driver.call("cuEventRecord", end, 0)
                driver.call("cuEventSynchronize", end)
                times.append(float(driver.call(elapsed, start, end)))
            return times
        finally:
            with contextlib.suppress(driver.GpuError):
                driver.call("cuEventDestroy", start)
                driver.call("cuEventDestroy", end)

    def __call__(self, *args: Any, grid: int | Sequence[int], block: int | Sequence[int],
                 shared_bytes: int = 0) -> None:
        """Launch once and wait; NumPy arrays that are not read-only are written back."""
        self._run(args, grid, block, shared_bytes, 0)

    def time(self, *args: Any, grid: int | Sequence[int], block: int | Sequence[int],
             shared_bytes: int = 0, repeats: int = 20) -> list[float]:
        """Milliseconds of `repeats` launches (after one warm-up), each timed by CUDA events
        around the launch alone (copies excluded); arrays are written back after the last."""
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
            raise ArgumentValueError(f"repeats is an int >= 1, not {repeats!r}")
        return self._run(args, grid, block, shared_bytes, repeats)

    def __repr__(self) -> str:
        kinds = "?" if self.signature is None else ", ".join(self.signature)
        return f"Kernel({self.name}({kinds}))"
