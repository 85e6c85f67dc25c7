"""The CUDA driver API, found on first use and wrapped so that every failure is a Python error.

    from enzyme_py.gpu import driver
    driver.available()               # False without a GPU; never raises
    driver.device_info().sm          # 90 on an H100/H200

Invariants: importing this module never imports `cuda-bindings`; the first call that needs the
driver imports `cuda.bindings.driver`, initializes CUDA, retains the primary context of device 0
(CUDA_VISIBLE_DEVICES chooses which GPU that is) once per process and makes it current on the
calling thread before every use. Anything that keeps a GPU from being used (cuda-bindings
missing, libcuda missing, no device, a driver too old) is a `GpuUnavailable` with the reason and
the install line; it is remembered, so later calls fail at once with the same message. Every
other CUDA status than `CUDA_SUCCESS` is a `GpuError` naming the call and the CUDA error name.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from enzyme_py.errors import EnzymePyError

__all__ = ["INSTALL", "DeviceInfo", "GpuError", "GpuUnavailable", "available", "bindings",
           "call", "context", "device_info", "synchronize"]

INSTALL = "pip install 'enzyme_py[gpu]' (or: pip install cuda-bindings)"

# Statuses that mean "no usable GPU here" rather than "this call was wrong".
_UNAVAILABLE = {"CUDA_ERROR_NO_DEVICE", "CUDA_ERROR_INSUFFICIENT_DRIVER",
                "CUDA_ERROR_NOT_FOUND", "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
                "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "CUDA_ERROR_DEVICE_UNAVAILABLE",
                "CUDA_ERROR_STUB_LIBRARY", "CUDA_ERROR_OPERATING_SYSTEM"}


class GpuUnavailable(EnzymePyError, RuntimeError):
    """No GPU can be used here: `cuda-bindings` is not installed, the NVIDIA driver
    (`libcuda.so.1`) cannot be loaded, or it finds no device. The message says which."""


class GpuError(EnzymePyError, RuntimeError):
    """A CUDA driver call failed. `call` is the driver function (`"cuLaunchKernel"`),
    `error_name` the CUDA status (`"CUDA_ERROR_ILLEGAL_ADDRESS"`), `code` its number."""

    def __init__(self, call: str, error_name: str, code: int, hint: str = "") -> None:
        self.call, self.error_name, self.code = call, error_name, code
        text = f"{call} failed: {error_name} ({code})"
        super().__init__(f"{text}; {hint}" if hint else text)


@dataclass(frozen=True)
class DeviceInfo:
    """The device kernels run on: `sm` is the compute capability as `emit_ptx` takes it."""

    ordinal: int
    name: str
    sm: int
    total_memory: int
    driver_version: int  # as CUDA encodes it: 12040 is 12.4


@dataclass
class _State:
    lock: threading.Lock = field(default_factory=threading.Lock)
    module: ModuleType | None = None
    context: Any = None
    info: DeviceInfo | None = None
    failure: GpuUnavailable | None = None


_state = _State()


def bindings() -> ModuleType:
    """The `cuda.bindings.driver` module, or `GpuUnavailable` with the install line."""
    if _state.module is None:
        try:
            from cuda.bindings import driver as module  # type: ignore[import-not-found]
        except ImportError as err:
            raise GpuUnavailable(f"enzyme_py.gpu needs the CUDA Python bindings, which are not "
                                 f"installed ({err}): {INSTALL}") from err
        _state.module = module
    return _state.module


def _status_name(err: Any) -> tuple[str, int]:
    code = int(getattr(err, "value", err))
    name = getattr(err, "name", None)
    if not name:
        try:
            status, text = bindings().cuGetErrorName(err)
            name = text.decode() if int(status) == 0 and text else None
        except Exception:  # naming an error must not raise another
            name = None
    return name or f"CUDA error {code}", code


def check(name: str, result: Any, hint: str = "") -> Any:
    """The values of a driver call's result tuple `(status, *values)`: `None`, one value or a
    tuple; a status other than success is a `GpuError` naming `name`."""
    status, values = (result[0], result[1:]) if isinstance(result, tuple) else (result, ())
    if int(getattr(status, "value", status)) != 0:
        error_name, code = _status_name(status)
        raise GpuError(name, error_name, code, hint)
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def _raw(name: str, *args: Any, hint: str = "") -> Any:
    function = getattr(bindings(), name, None)
    if function is None:
        raise GpuError(name, "missing from this cuda-bindings", -1, f"upgrade: {INSTALL}")
    return check(name, function(*args), hint)


def _initialize() -> None:
    bindings()  # its own GpuUnavailable, before RuntimeError below means "no libcuda"
    try:
        _raw("cuInit", 0)
    except GpuError as err:
        if err.error_name in _UNAVAILABLE:
            raise GpuUnavailable(f"the NVIDIA driver finds no usable GPU ({err.error_name} "
                                 f"from cuInit)") from err
        raise
    except (RuntimeError, OSError) as err:  # cuda-bindings could not dlopen libcuda.so.1
        raise GpuUnavailable(f"the NVIDIA driver (libcuda.so.1) could not be loaded: {err}; "
                             f"a GPU and its driver are needed to launch kernels") from err
    if _raw("cuDeviceGetCount") < 1:
        raise GpuUnavailable("the NVIDIA driver finds no CUDA device")
    ordinal = 0
    device = _raw("cuDeviceGet", ordinal)
    attr = bindings().CUdevice_attribute
    major = _raw("cuDeviceGetAttribute",
                 attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
    minor = _raw("cuDeviceGetAttribute",
                 attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
    name = _raw("cuDeviceGetName", 256, device)
    _state.info = DeviceInfo(ordinal, bytes(name).split(b"\0", 1)[0].decode(errors="replace"),
                             10 * int(major) + int(minor), int(_raw("cuDeviceTotalMem", device)),
                             int(_raw("cuDriverGetVersion")))
    _state.context = _raw("cuDevicePrimaryCtxRetain", device)


def context() -> Any:
    """The process's CUDA context, made current on this thread (initialized on first use)."""
    with _state.lock:
        if _state.failure is not None:  # a fresh error each time, the first as its cause
            raise GpuUnavailable(str(_state.failure)) from _state.failure
        if _state.context is None:
            try:
                _initialize()
            except GpuUnavailable as err:
                _state.failure = err
                raise
    _raw("cuCtxSetCurrent", _state.context)
    return _state.context


def call(name: str, *args: Any, hint: str = "") -> Any:
    """Run the driver function `name` in the current context; its values without the status
    (`call("cuMemAlloc", 256)` is the device address)."""
    context()
    return _raw(name, *args, hint=hint)


def synchronize() -> None:
    """Wait for all work on the device; a kernel's own failure surfaces here as a `GpuError`."""
    call("cuCtxSynchronize", hint="a kernel failed (after an illegal address or a trap the "
                                  "context cannot be used again in this process)")


def device_info() -> DeviceInfo:
    """Name, compute capability and memory of the device kernels run on."""
    context()
    assert _state.info is not None
    return _state.info


def available() -> bool:
    """Whether kernels can be launched here (cuda-bindings, the driver and a device); never
    raises."""
    try:
        context()
    except Exception:  # the one place where every failure means "no"
        return False
    return True
