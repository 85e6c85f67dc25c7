"""Calling compiled Python-subset functions: argument flattening, specialization keys, errors.

Invariants: the specialization key of a call is a tuple computed from the argument types alone
(a dict hit on the fast path): dtype, rank and whether an array is C-contiguous (a
non-contiguous array is passed with its strides, never copied); arrays must be of a supported
dtype, checked before native code runs; after every call the module's error record is read and
turned into the exception Python (or NumPy) raises for the same failure (`IndexError`,
`ValueError`, `ZeroDivisionError` ..., see `_FAILURES`) naming the source line, so bad indices
never go unnoticed. An array result is a heap block the compiled code hands over: it becomes the
returned ndarray's memory, freed when that array is collected.
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from enzyme_py.ad.runtime import BYTES_CAP
from enzyme_py.analysis.activities import Activity
from enzyme_py.errors import ArgumentValueError, CallError, EnzymePyError
from enzyme_py.frontend import RETRY, CompileSession, ErrorSite, FType, Scalar, type_of_value
from enzyme_py.frontend.ftypes import Array, Tuple, abi_extents, element_strides
from enzyme_py.frontend.session import TAPE, TAPE_CHECKPOINTED
from enzyme_py.ir import Module

_NDARRAY = np.ndarray


def arg_key(v: Any) -> Any:
    """What selects a specialization: the Python type, plus dtype, rank and layout for
    arrays (of any ndarray subclass: a subclass shares the key of its dtype and layout)."""
    if isinstance(v, _NDARRAY):
        flags = v.flags
        return (v.dtype, v.ndim, flags.c_contiguous, flags.writeable)
    return type(v)


def reject_read_only_writes(fname: str, params: Sequence[str], args: Sequence[Any],
                            written: set[int]) -> None:
    """A read-only array (`setflags(write=False)`, `np.frombuffer` of bytes) that the
    compiled code may write is refused before it runs, as NumPy refuses the assignment."""
    for i in sorted(written):
        if i >= len(args):  # an output slot (see `array_results`)
            continue
        v = args[i]
        if isinstance(v, _NDARRAY) and not v.flags.writeable:
            name = params[i] if i < len(params) else f"#{i}"
            raise ArgumentValueError(f"{fname}(): argument {i} ('{name}') is read-only and "
                                     f"{fname}() writes into it: assignment destination is "
                                     "read-only")


_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


_INT_RANGE = {"i64": (_I64_MIN, _I64_MAX), "i32": (-(1 << 31), (1 << 31) - 1)}


def int_overflow(k: int, value: int, bits: int = 64) -> OverflowError:
    """The error for a Python int that does not fit the compiled code's integer type."""
    return OverflowError(f"argument {k} is {value}, which does not fit in a {bits}-bit "
                         "integer (compiled ints are fixed-width, as NumPy's)")


def checked_int(t: Scalar, k: int, value: Any) -> int:
    """`value` as the int argument `k` of type `t`, or `OverflowError` when it does not fit
    (ctypes would silently keep the low bits)."""
    v = int(value)
    bounds = _INT_RANGE.get(t.name)
    if bounds is not None and not bounds[0] <= v <= bounds[1]:
        raise int_overflow(k, v, int(t.name[1:]))
    return v


def _int_lines(t: Scalar, k: int, a: str, lines: list[str]) -> str:
    """Stub lines converting int argument `a` with a range check; the expression to pass."""
    bounds = _INT_RANGE.get(t.name)
    if bounds is None:  # bool
        return f"int({a})"
    lines.append(f"    i{k} = int({a})")
    lines.append(f"    if not {bounds[0]} <= i{k} <= {bounds[1]}: "
                 f"raise overflow({k}, i{k}, {t.name[1:]})")
    return f"i{k}"


def arg_types(fname: str, params: Sequence[str], args: Sequence[Any]) -> tuple[FType, ...]:
    out = []
    for i, v in enumerate(args):
        t = type_of_value(v)
        name = params[i] if i < len(params) else f"#{i}"
        if t is None:
            what = (f"an array of dtype {v.dtype} with {v.ndim} dimension(s)"
                    if isinstance(v, np.ndarray) else f"a {type(v).__name__}")
            raise CallError(f"{fname}(): argument {i} ('{name}') is {what}; supported: float, "
                            "int, bool, and numpy arrays of float64, float32, int64, int32 with "
                            "at least one dimension")
        if isinstance(v, np.ndarray) and not v.flags.c_contiguous and \
                element_strides(v) is None:
            raise ArgumentValueError(f"{fname}(): argument {i} ('{name}') has strides "
                                     f"{v.strides} that are not whole multiples of its item "
                                     f"size {v.itemsize}; pass np.ascontiguousarray(...)")
        out.append(t)
    return tuple(out)


def flatten(types: Sequence[FType], args: Sequence[Any]) -> list[Any]:
    """Arguments in the compiled ABI: arrays become (array, extent, extent, ...)."""
    flat: list[Any] = []
    for k, (t, v) in enumerate(zip(types, args, strict=True)):
        if isinstance(t, Array):
            flat.append(_data_address(v) if t.strided else v)
            flat.extend(abi_extents(t, v))
        elif isinstance(t, Scalar) and t.is_int:
            flat.append(checked_int(t, k, v))
        else:
            flat.append(v)
    return flat


def _data_address(v: np.ndarray) -> int:
    return v.__array_interface__["data"][0]


def convert_result(t: FType, r: Any) -> Any:
    """A native result as Python values: `r` is a number, or the tuple of a struct's fields
    (arrays take a pointer and their extents)."""
    if isinstance(t, Scalar):
        if t.name == "bool":
            return bool(r)
        return float(r) if t.is_float else int(r)
    if isinstance(t, Array):
        return adopt_array(t, r[0], r[1:])
    if isinstance(t, Tuple):
        out = []
        k = 0
        for item in t.items:
            if isinstance(item, Array):
                out.append(adopt_array(item, r[k], r[k + 1:k + 1 + item.ndim]))
                k += 1 + item.ndim
            else:
                out.append(convert_result(item, r[k]))
                k += 1
        return tuple(out)
    return None


def result_is_struct(t: FType) -> bool:
    return isinstance(t, Array | Tuple)


_LIBC: Any = None


def _free_function() -> Any:
    global _LIBC
    if _LIBC is None:
        libc = ctypes.CDLL(None)  # published only once `free` is typed (threads race here)
        libc.free.argtypes = [ctypes.c_void_p]
        libc.free.restype = None
        _LIBC = libc
    return _LIBC.free


def adopt_array(t: Array, address: int | None, dims: Sequence[int]) -> np.ndarray:
    """The ndarray over a heap block `address` that compiled code returned (C order, extents
    `dims`): no copy; the block is freed when the array and its views are collected."""
    shape = tuple(int(d) for d in dims)
    dtype = t.elem.dtype
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    free = _free_function()
    if not address or nbytes == 0:
        if address:
            free(address)
        return np.zeros(shape, dtype)
    block = (ctypes.c_char * nbytes).from_address(address)
    weakref.finalize(block, free, address)
    return np.frombuffer(block, dtype).reshape(shape)


class _ThreadRecord(threading.local):
    """A zeroed record per thread (made on the thread's first use)."""

    def __init__(self) -> None:
        self.words = (ctypes.c_int64 * 3)()
        self.address = ctypes.addressof(self.words)


@dataclass
class ErrorRecord:
    """Reads (and clears) the error record compiled code writes on a failed check:
    `[site, index, extent]`.

    Per call (`address` None, the module rewritten by `record_as_parameter`): the native
    function takes the record as its last argument, and each thread passes its own
    (`thread_record()`), so threads calling one function never read each other's failures.
    Otherwise the module's global at `address` (one thread at a time)."""

    address: int | None
    sites: list[ErrorSite]

    def __post_init__(self) -> None:
        self.local = _ThreadRecord()  # (this thread's: `.words`, `.address`)
        self._words = None if self.address is None else \
            (ctypes.c_int64 * 3).from_address(self.address)

    @property
    def per_call(self) -> bool:
        """The native function takes the record as its last argument."""
        return self.address is None

    def thread_record(self) -> tuple[Any, int | None]:
        """This thread's record and its address to pass (None for the global record)."""
        if self._words is not None:
            return self._words, None
        local = self.local
        return local.words, local.address

    def call(self, fn: Any, *args: Any) -> Any:
        """`fn(*args)` (a native function of this record's code), this thread's record passed
        when it is per call, and the record checked after."""
        words, address = self.thread_record()
        r = fn(*args, address) if self.per_call else fn(*args)
        self.check(words)
        return r

    def check(self, words: Any = None) -> None:
        w = words if words is not None else self.thread_record()[0]
        if w[0] == 0:
            return
        site_id, index, extent = w[0], w[1], w[2]
        w[0] = 0
        site = self.sites[site_id - 1]
        if site.what == RETRY:
            raise ChecksNeeded
        where = f"{site.filename}:{site.line}: {site.source}"
        kind, text = failure_of(site.what)
        if site.what == "array size" and index >= 0:
            kind, text = MemoryError, "array of {i} elements is too large"
        if site.what in (TAPE, TAPE_CHECKPOINTED) and not 0 <= index < BYTES_CAP:
            # (a saturated byte count)
            text = text.replace("{i} bytes", "2**48 bytes or more")
        raise kind(text.format(i=index, e=extent, axis=site.axis, axis1=site.axis + 1,
                               what=site.what) +
                   f"\n  at {where}")


class ChecksNeeded(EnzymePyError):
    """An optimistic gradient met a loop whose bounds test failed (`compile_python`'s
    `optimistic`): its results are void, and the caller reruns the version compiled with the
    checked loop copies (`api.gradients.retrying`). Never reaches a user."""

    def __str__(self) -> str:
        return "internal error: an optimistic gradient asked for its checked version"


# What a failed check of each kind (`FunctionCompiler.check`'s `what`) raises: the exception
# and its message, from the recorded index `i`, extent `e` and the site's axis.
_FAILURES: dict[str, tuple[type[Exception], str]] = {
    "index": (IndexError, "index {i} is out of bounds for axis {axis} with size {e}"),
    "recursion": (RecursionError, "maximum recursion depth exceeded in compiled code ({e} "
                                  "nested calls of this function)"),
    "integer division by zero": (ZeroDivisionError, "integer division or modulo by zero"),
    "integer modulo by zero": (ZeroDivisionError, "integer modulo by zero"),
    # Python's own messages (3.11) for the checks of `errors="python"` (`domain_checks`)
    "division by zero": (ZeroDivisionError, "division by zero"),
    "float division by zero": (ZeroDivisionError, "float division by zero"),
    "float floor division by zero": (ZeroDivisionError, "float floor division by zero"),
    "float modulo by zero": (ZeroDivisionError, "float modulo"),
    "zero to a negative power": (ZeroDivisionError, "0.0 cannot be raised to a negative "
                                                    "power"),
    "math domain error": (ValueError, "math domain error"),
    "math range error": (OverflowError, "math range error"),
    "float power overflow": (OverflowError, "(34, 'Numerical result out of range')"),
    "matching inner dimensions": (ValueError, "matrix dimensions do not match: inner sizes "
                                              "{i} and {e}"),
    "array size": (ValueError, "negative array size {i}"),
    "allocation": (MemoryError, "cannot allocate {i} bytes"),
    TAPE: (MemoryError, "the gradient's tape needs {i} bytes, which could not be allocated "
                        "(checkpoint=True or memory_budget= keep it smaller)"),
    TAPE_CHECKPOINTED: (MemoryError, "the gradient's tape needs {i} bytes, which could not be "
                                     "allocated, with its time loops checkpointed already (a "
                                     "smaller memory_budget= keeps fewer states)"),
    "broadcast": (ValueError, "operands could not be broadcast together: extents {i} and {e} "
                              "on axis -{axis1}"),
    "slice step": (ValueError, "slice step cannot be zero"),
    "reshape size": (ValueError, "cannot reshape an array of size {i} into a shape of size "
                                 "{e}"),
    "reshape layout": (ValueError, "cannot reshape a non-contiguous view without copying "
                                   "(use np.reshape(x.copy(), ...))"),
    "empty stack": (ValueError, "need at least one array to stack"),
    "empty reduction": (ValueError, "zero-size array to reduction operation which has no "
                                    "identity"),
    "shape mismatch": (ValueError, "shapes do not match: extents {i} and {e} on axis {axis}"),
    "range step": (ValueError, "range() arg 3 must not be zero"),
    "np.pad of an empty axis with mode 'edge' or 'wrap'": (
        ValueError, "can't extend empty axis {axis} using modes other than 'constant' or "
                    "'empty'"),
    "float nan to integer": (ValueError, "cannot convert float NaN to integer"),
    "float to integer overflow": (OverflowError, "cannot convert float infinity or a float "
                                                 "outside the int64 range to integer"),
}


def failure_of(what: str) -> tuple[type[Exception], str]:
    """The exception class and message template of a failed check of kind `what`."""
    from enzyme_py.frontend.raises import failure

    raised = failure(what)  # (a `raise` or `assert` of the source)
    if raised is not None:
        return raised
    return _FAILURES.get(what, (RuntimeError, "{what} failed ({i}, {e})"))


def error_record(jm: Any, session: CompileSession) -> ErrorRecord | None:
    """The record of code compiled from `session`'s module as it is (a global)."""
    if session.error_name in jm:
        return ErrorRecord(jm.address(session.error_name), session.sites)
    return None


def compile_checked(module: Module, session: CompileSession, entry: str, opt_level: int = 2,
                    **backend_options: Any) -> tuple[Any, ErrorRecord | None]:
    """`backend.compile_ir` of `module` with the error record made per call where the module
    can be rewritten so that `entry` (the function callers call) takes it as its last
    argument (`pass_record`; else the global record), and the record. The caller hands
    `module` over: it is rewritten in place and printed once."""
    from enzyme_py import backend
    from enzyme_py.frontend.record_parameter import pass_record

    per_call = pass_record(module, session.error_name, entry)
    jm = backend.compile_ir(str(module), opt_level=opt_level, **backend_options)
    if per_call:
        return jm, ErrorRecord(None, list(session.sites))
    return jm, error_record(jm, session)


def overlapping_arrays(args: Sequence[Any]) -> bool:
    """Do any two array arguments share memory? (then `noalias` must not be promised)"""
    from enzyme_py.backend import _data_pointer

    spans = []
    for v in args:
        if isinstance(v, _NDARRAY) and v.size:
            start = _data_pointer(v)
            if v.flags.c_contiguous:
                spans.append((start, start + v.nbytes))
            else:  # a strided view spans from its lowest to its highest element
                lo = sum(min(0, (n - 1) * st) for n, st in zip(v.shape, v.strides,
                                                                 strict=True))
                hi = sum(max(0, (n - 1) * st) for n, st in zip(v.shape, v.strides,
                                                                 strict=True))
                spans.append((start + lo, start + hi + v.itemsize))
    if len(spans) < 2:
        return False
    spans.sort()
    return any(spans[k + 1][0] < spans[k][1] for k in range(len(spans) - 1))


class _Overlap(Exception):
    """Raised by a stub compiled with `noalias` when two array arguments share memory."""


def make_stub(native: Any, types: Sequence[FType], ret: FType, errors: ErrorRecord | None,
              noalias: bool) -> Any:
    """A Python function calling `native` with as little work per call as possible.

    The caller has already matched dtype, rank and contiguity (the specialization key); the
    stub checks what the key cannot: for a `noalias` build, that arrays do not overlap —
    raising `_Overlap` so the caller can switch to a build without `noalias`.
    """
    from enzyme_py.backend import _DATA_OFFSET

    strided = any(isinstance(t, Array) and t.strided for t in types)
    if native._out_type is not None or _DATA_OFFSET is None or strided:
        return _generic_stub(native, types, ret, errors, noalias)
    names = [f"a{k}" for k in range(len(types))]
    lines = [f"def stub({', '.join(names)}):"]
    call: list[str] = []
    arrays = []
    for k, t in enumerate(types):
        a = names[k]
        if isinstance(t, Array):
            arrays.append(k)
            lines.append(f"    p{k} = read(id({a}) + OFF).value")
            call.append(f"p{k}")
            if t.ndim == 1:
                call.append(f"len({a})")
            else:
                lines.append(f"    s{k} = {a}.shape")
                call.extend(f"s{k}[{d}]" for d in range(t.ndim))
        else:  # numpy scalars (np.float32 ...) become Python numbers ctypes accepts
            call.append(f"float({a})" if t.is_float else _int_lines(t, k, a, lines))
    if noalias and len(arrays) > 1:
        for k in arrays:
            lines.append(f"    e{k} = p{k} + a{k}.nbytes")
        for i, k in enumerate(arrays):
            for m in arrays[i + 1:]:
                lines.append(f"    if p{k} < e{m} and p{m} < e{k}: raise Overlap")
    _record_lines(errors, call, lines)
    if isinstance(ret, Scalar):
        lines.append("    return bool(r & 1)" if ret.name == "bool" else "    return r")
    else:
        lines.append("    return None")


    # `keep` holds the NativeFunction (and through it the JIT library): without it the native
    # code could be unloaded while the stub still calls it.
    env = {"keep": native, "read": ctypes.c_size_t.from_address, "OFF": _DATA_OFFSET,
           "cfunc": native._cfunc, "overflow": int_overflow,
           "Overlap": _Overlap, "errors": errors,
           **_record_env(errors)}
    exec("\n".join(lines), env)  # noqa: S102 - generated from types only, no user text
    return env.pop("stub")  # not left in its own globals: no cycle delays unloading the code


def _record_env(errors: ErrorRecord | None) -> dict[str, Any]:
    """What `_record_lines`' code reads: this thread's record, or the global one."""
    if errors is None:
        return {}
    return {"rec": errors.local} if errors.per_call else {"err": errors.thread_record()[0]}


def _record_lines(errors: ErrorRecord | None, call: list[str], lines: list[str]) -> None:
    """The call of a generated stub and the check of the error record after it (this
    thread's record passed as the last argument when it is per call)."""
    if errors is None:
        lines.append(f"    r = cfunc({', '.join(call)})")
        return
    if errors.per_call:
        lines.append("    w = rec.words")  # (ctypes passes the array as its address)
        lines.append(f"    r = cfunc({', '.join([*call, 'w'])})")
    else:
        lines.append("    w = err")
        lines.append(f"    r = cfunc({', '.join(call)})")
    lines.append("    if w[0]: errors.check(w)")


def _generic_stub(native: Any, types: Sequence[FType], ret: FType,
                  errors: ErrorRecord | None, noalias: bool = False) -> Any:
    check_overlap = noalias and sum(isinstance(t, Array) for t in types) > 1

    def stub(*args: Any) -> Any:
        if check_overlap and overlapping_arrays(args):
            raise _Overlap
        flat = flatten(types, args)
        r = native(*flat) if errors is None else errors.call(native, *flat)
        return convert_result(ret, r)

    return stub


def make_grad_stub(g: Any, nums: tuple[int, ...], single: bool, noalias: bool) -> Any | None:
    """A generated caller for `grad(f)` (the common case: gradients only, at most one `out`
    scalar, no struct result); None when the gradient needs the general path."""
    from enzyme_py.backend import _DATA_OFFSET

    native = g.native
    outs = [i for i, act in enumerate(g.activities) if act == Activity.OUT]
    if native._out_type is not None or _DATA_OFFSET is None or len(outs) > 1 or \
            g.return_primal or any(isinstance(t, Array) and t.strided for t in g.types):
        return None
    names = [f"a{k}" for k in range(len(g.types))]
    lines = [f"def stub({', '.join(names)}):"]
    call: list[str] = []
    arrays: list[int] = []
    for k, (t, act) in enumerate(zip(g.types, g.activities, strict=True)):
        a = names[k]
        if isinstance(t, Array):
            arrays.append(k)
            lines.append(f"    p{k} = read(id({a}) + OFF).value")
            call.append(f"p{k}")
            if act == Activity.DUP:
                lines.append(f"    s{k} = zeros_like({a})")
                call.append(f"read(id(s{k}) + OFF).value")
            call.extend([f"len({a})"] if t.ndim == 1 else
                        [f"{a}.shape[{d}]" for d in range(t.ndim)])
        else:
            call.append(f"float({a})" if t.is_float else _int_lines(t, k, a, lines))
    if noalias and len(arrays) > 1:
        for k in arrays:
            lines.append(f"    e{k} = p{k} + a{k}.nbytes")
        for i, k in enumerate(arrays):
            for m in arrays[i + 1:]:
                lines.append(f"    if p{k} < e{m} and p{m} < e{k}: raise Overlap")
    if g.seeded:
        call.append("1.0")
    _record_lines(g.errors, call, lines)
    results = ["r" if i in outs else f"s{i}" for i in nums]
    lines.append(f"    return {results[0]}" if single else f"    return ({', '.join(results)},)")


    env = {"keep": native, "read": ctypes.c_size_t.from_address, "OFF": _DATA_OFFSET,
           "cfunc": native._cfunc, "overflow": int_overflow, "Overlap": _Overlap,
           "errors": g.errors,
           **_record_env(g.errors),
           "zeros_like": np.zeros_like}
    exec("\n".join(lines), env)  # noqa: S102 - generated from types only, no user text
    return env.pop("stub")  # not left in its own globals: no cycle delays unloading the code
