"""Device memory that holds one C-contiguous array, copied from and to NumPy.

    buf = DeviceBuffer.from_array(x)     # a copy of x on the device
    kernel(n, buf, grid=4, block=256)    # stays on the device between launches
    y = buf.to_array()                   # a new NumPy array; or buf.to_array(out=y)

Invariants: a buffer knows its shape and dtype, and every copy checks them against the host
array before any memory moves (a mismatch is an `ArgumentValueError`, never a short copy); a
buffer of zero bytes holds no allocation (its address is 0); a buffer frees its memory once,
when `free()` is called, at the end of a `with` block, or when it is collected; a freed buffer
refuses every use; `wrap` adopts memory that something else owns and never frees it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from enzyme_py.errors import ArgumentValueError, CallError
from enzyme_py.gpu import driver

__all__ = ["DeviceBuffer"]


def _shape(shape: int | Sequence[int]) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    if any(not isinstance(d, int | np.integer) or d < 0 for d in dims):
        raise ArgumentValueError(f"a shape is a tuple of non-negative ints, not {shape!r}")
    return tuple(int(d) for d in dims)


def _dtype(dtype: object) -> np.dtype:
    kind = np.dtype(dtype)  # type: ignore[call-overload]
    if kind.hasobject:
        raise CallError(f"an array of Python objects ({kind}) cannot live on the device")
    return kind


class DeviceBuffer:
    """Device memory for an array of `shape` and `dtype` (C order). Make one with `empty`,
    `zeros`, `from_array` or `wrap`; pass it to a `Kernel` to keep data on the device.

    >>> buf = DeviceBuffer.zeros(1024, np.float32)    # doctest: +SKIP
    >>> buf.to_array().sum()                          # doctest: +SKIP
    0.0
    """

    def __init__(self, address: int, shape: int | Sequence[int], dtype: object, *,
                 owned: bool) -> None:
        self._address, self.shape, self.dtype = int(address), _shape(shape), _dtype(dtype)
        self._owned, self._freed = owned, False

    @classmethod
    def empty(cls, shape: int | Sequence[int], dtype: object = np.float64) -> DeviceBuffer:
        """Uninitialized device memory for an array of `shape` and `dtype`."""
        dims, kind = _shape(shape), _dtype(dtype)
        nbytes = int(np.prod(dims, dtype=np.int64)) * kind.itemsize
        address = int(driver.call("cuMemAlloc", nbytes)) if nbytes else 0
        return cls(address, dims, kind, owned=True)

    @classmethod
    def zeros(cls, shape: int | Sequence[int], dtype: object = np.float64) -> DeviceBuffer:
        """Device memory for an array of `shape` and `dtype`, every byte zero."""
        buf = cls.empty(shape, dtype)
        buf.fill_zero()
        return buf

    @classmethod
    def from_array(cls, array: np.ndarray) -> DeviceBuffer:
        """A device copy of `array` (any strides; the copy is C-contiguous)."""
        if not isinstance(array, np.ndarray):
            raise CallError(f"DeviceBuffer.from_array takes a NumPy array, not "
                            f"{type(array).__name__}")
        buf = cls.empty(array.shape, array.dtype)
        try:
            buf.copy_from(array)
        except BaseException:
            buf.free()
            raise
        return buf

    @classmethod
    def wrap(cls, address: int, shape: int | Sequence[int], dtype: object) -> DeviceBuffer:
        """A view of device memory that something else owns (never freed by this buffer)."""
        if not isinstance(address, int) or address < 0:
            raise ArgumentValueError(f"a device address is a non-negative int, not {address!r}")
        return cls(address, shape, dtype, owned=False)

    @property
    def address(self) -> int:
        """The device address (a `CUdeviceptr` as an int); a freed buffer refuses."""
        if self._freed:
            raise ArgumentValueError("this DeviceBuffer was freed; it cannot be used again")
        return self._address

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def _check_host(self, array: np.ndarray, what: str) -> None:
        if not isinstance(array, np.ndarray):
            raise CallError(f"{what} takes a NumPy array, not {type(array).__name__}")
        if array.shape != self.shape or array.dtype != self.dtype:
            raise ArgumentValueError(f"{what}: the buffer holds {self.dtype}{list(self.shape)}, "
                                     f"the array is {array.dtype}{list(array.shape)}")

    def copy_from(self, array: np.ndarray) -> None:
        """Copy `array` (same shape and dtype) to the device."""
        self._check_host(array, "DeviceBuffer.copy_from")
        address = self.address
        if self.nbytes:
            host = np.ascontiguousarray(array)
            driver.call("cuMemcpyHtoD", address, host.ctypes.data, self.nbytes)

    def to_array(self, out: np.ndarray | None = None) -> np.ndarray:
        """The buffer's contents as a new array, or written into `out` (same shape, dtype)."""
        if out is None:
            out = np.empty(self.shape, self.dtype)
        self._check_host(out, "DeviceBuffer.to_array")
        if not out.flags.writeable:
            raise ArgumentValueError("DeviceBuffer.to_array: `out` is read-only")
        address = self.address
        if self.nbytes:
            host = out if out.flags.c_contiguous else np.empty(self.shape, self.dtype)
            driver.call("cuMemcpyDtoH", host.ctypes.data, address, self.nbytes)
            if host is not out:
                out[...] = host
        return out

    def fill_zero(self) -> None:
        """Set every byte to zero."""
        address = self.address
        if self.nbytes:
            driver.call("cuMemsetD8", address, 0, self.nbytes)

    def free(self) -> None:
        """Release the memory now (once; a no-op for `wrap`ped or already freed buffers)."""
        if self._freed:
            return
        self._freed = True
        if self._owned and self._address:
            driver.call("cuMemFree", self._address)

    def __enter__(self) -> DeviceBuffer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.free()

    def __del__(self) -> None:
        try:
            self.free()
        except Exception:  # the driver may already be gone at interpreter exit
            pass

    def __repr__(self) -> str:
        state = "freed" if self._freed else f"0x{self._address:x}"
        return f"DeviceBuffer({self.dtype}{list(self.shape)} at {state})"
