"""Argument converters: each checks one Python argument before native code runs.

Invariants:

- Scalars are checked by kind and range; pointers must be numpy arrays (aligned,
  C-contiguous, no object dtype, dtype / ndim as the `ArgSpec` asks, writable unless the
  parameter is only read: `ArgSpec.writable=False` or LLVM's `readonly`), a plain int address,
  or a ctypes pointer / `c_void_p` / ctypes array. A mismatch raises `CallError` (a
  `TypeError`) or `ValueError` that names the argument; never a crash. Only an explicit raw
  address (int or ctypes object) is trusted as given.
- A converter's fast path accepts exactly what its slow path accepts.
- `_DATA_OFFSET` is calibrated once, at import, against numpy's `.ctypes.data`; None means
  `.ctypes.data` is read instead.
"""

from __future__ import annotations

import ctypes
import operator
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from enzyme_py.backend.signatures import ArgSpec
from enzyme_py.errors import CallError

_U64 = (1 << 64) - 1
_apply = operator.call


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        layout = "C-contiguous" if value.flags.c_contiguous else "non-contiguous"
        access = "" if value.flags.writeable else ", read-only"
        return (f"{type(value).__name__} of {value.dtype} with ndim {value.ndim} "
                f"({layout}{access})")
    return f"{type(value).__name__} {value!r}"[:120]


class _ArgInfo:
    """Name and position of an argument, for messages."""

    __slots__ = ("fn", "index", "name")

    def __init__(self, fn: str, index: int, name: str) -> None:
        self.fn, self.index, self.name = fn, index, name

    def error(self, expected: str, value: object, cls: type[Exception] = CallError) -> Exception:
        return cls(f"@{self.fn}: argument {self.index} ('{self.name}'): expected {expected}, "
                   f"got {_describe(value)}")


def _float_converter(info: _ArgInfo) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        if type(value) is float:
            return value
        if isinstance(value, (int, float, np.integer, np.floating)):
            try:
                return float(value)
            except OverflowError:
                raise info.error("a real number in the range of a double", value,
                                 ValueError) from None
        raise info.error("a real number (int, float or numpy scalar)", value)
    return convert


def _int_converter(info: _ArgInfo, width: int) -> Callable[[Any], Any]:
    low, high, mask = -(1 << (width - 1)), (1 << width) - 1, (1 << width) - 1
    if width == 1:
        low = 0
    expected = "a bool" if width == 1 else f"an integer for i{width}"

    def convert(value: Any) -> Any:
        if type(value) is int and low <= value <= high:
            return value & mask
        if isinstance(value, (int, np.integer, np.bool_)):
            number = int(value)
            if low <= number <= high:
                return number & mask
            raise info.error(f"{expected} in [{low}, {high}]", value, ValueError)
        raise info.error(expected, value)
    return convert


def _calibrate_data_offset() -> int | None:
    """Offset of the data pointer inside a CPython ndarray object, checked against numpy's own
    `.ctypes.data` (ten times faster to read this way); None means use `.ctypes.data`."""
    if sys.implementation.name != "cpython":
        return None
    base = np.arange(24.0)
    probes = [np.zeros(3), base[3:], base.reshape(4, 6)[1:, ::2], np.empty(0, np.int8)]
    for offset in range(8, 64, 8):
        if all(ctypes.c_size_t.from_address(id(p) + offset).value == p.ctypes.data
               for p in probes):
            return offset
    return None


_DATA_OFFSET = _calibrate_data_offset()
_READ_WORD = ctypes.c_size_t.from_address
_ALIGNED_C = 0x100 | 0x1  # NPY_ARRAY_ALIGNED | NPY_ARRAY_C_CONTIGUOUS
_WRITEABLE = 0x400  # NPY_ARRAY_WRITEABLE


def _data_pointer(array: np.ndarray) -> int:
    if _DATA_OFFSET is None:  # pragma: no cover - non-CPython
        return array.ctypes.data
    return _READ_WORD(id(array) + _DATA_OFFSET).value


def _pointer_converter(info: _ArgInfo, spec: ArgSpec, writable: bool) -> Callable[[Any], Any]:
    dtype, ndim = spec.dtype, spec.ndim
    parts = ["an aligned C-contiguous"]
    if writable:
        parts.append("writable")
    parts.append("numpy array")
    if dtype is not None:
        parts.append(f"of {dtype}")
    if ndim is not None:
        parts.append(f"with ndim {ndim}")
    expected = " ".join(parts)

    def check(array: np.ndarray) -> int:
        if dtype is not None and array.dtype != dtype:
            raise info.error(expected, array)
        if array.dtype.hasobject:
            raise info.error(expected + " (object dtypes cannot be passed)", array)
        if ndim is not None and array.ndim != ndim:
            raise info.error(expected, array, ValueError)
        flags = array.flags
        if not flags.c_contiguous:
            raise info.error(expected + " (use np.ascontiguousarray)", array, ValueError)
        if not flags.aligned:
            raise info.error(expected + " (this one is misaligned)", array, ValueError)
        if writable and not flags.writeable:
            raise info.error(expected + " (the function may write to it)", array, ValueError)
        return _data_pointer(array)

    def slow(value: Any) -> Any:
        if isinstance(value, np.ndarray):
            return check(value)
        if isinstance(value, int) and not isinstance(value, bool):
            if 0 <= value <= _U64:
                return value
            raise info.error("an address in [0, 2**64)", value, ValueError)
        if isinstance(value, ctypes.c_void_p):
            return value
        if isinstance(value, ctypes._Pointer):
            return ctypes.cast(value, ctypes.c_void_p).value
        if isinstance(value, ctypes.Array):
            return ctypes.addressof(value)
        hint = " (convert it with np.asarray first)" if isinstance(value, (list, tuple)) else ""
        raise info.error(expected + " or an address" + hint, value)

    # The fast path accepts exactly what `check` accepts, with fewer attribute reads; anything
    # else takes the slow path, which also explains a mismatch.
    nd, offset, read = np.ndarray, _DATA_OFFSET, _READ_WORD
    required = _ALIGNED_C | (_WRITEABLE if writable else 0)
    if offset is None:  # pragma: no cover - non-CPython
        return lambda value: check(value) if type(value) is nd else slow(value)

    def convert(value: Any) -> Any:
        if type(value) is nd and value.flags.num & required == required:
            kind = value.dtype
            if ((kind is dtype or (dtype is None and not kind.hasobject))
                    and (ndim is None or value.ndim == ndim)):
                return read(id(value) + offset).value
        return slow(value)
    return convert

