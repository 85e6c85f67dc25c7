"""Signatures of native functions: what Python passes (`ArgSpec`, `Signature`), what LLVM
declares (`_FunctionInfo`), the ctypes types between the two, and the sret wrapper.

Invariants:

- No llvmlite object survives `_describe_function`: a `_FunctionInfo` is frozen plain data,
  safe to keep after its scratch module is disposed.
- ctypes types exist for double, float, i1-i64 and ptr; anything else maps to None, which the
  caller reports as a `BackendError`.
- Functions returning a literal struct of scalars are called through a generated wrapper
  (`_sret_wrapper`) that stores the fields into a caller buffer, so the result never depends on
  how the platform ABI returns aggregates.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import llvmlite.binding as llvm
import numpy as np


@dataclass(frozen=True)
class ArgSpec:
    """What one argument must be: `name` for messages; for pointers the numpy `dtype` and
    `ndim` (None: any) and whether the callee may write through it (`writable`)."""

    name: str | None = None
    dtype: Any = None
    ndim: int | None = None
    writable: bool = True

    def __post_init__(self) -> None:
        if self.dtype is not None:
            object.__setattr__(self, "dtype", np.dtype(self.dtype))


@dataclass(frozen=True)
class Signature:
    """Per-argument expectations of a native function, in parameter order (a plain string
    stands for `ArgSpec(name)`).

    Example::

        >>> sig = Signature((ArgSpec("x", np.float64, 1, writable=False),
        ...                  ArgSpec("out", np.float64, 1), "n"))
    """

    args: tuple[ArgSpec, ...] = ()

    def __post_init__(self) -> None:
        specs = tuple(ArgSpec(a) if isinstance(a, str) else a for a in self.args)
        for spec in specs:
            if not isinstance(spec, ArgSpec):
                raise TypeError(f"Signature entries must be ArgSpec or str, not {spec!r}")
        object.__setattr__(self, "args", specs)


@dataclass(frozen=True)
class _Type:
    """An LLVM type reduced to what the calling layer needs (no llvmlite object survives)."""

    text: str
    kind: str  # "double", "float", "int", "ptr", "void", "struct" or "other"
    width: int = 0
    fields: tuple[_Type, ...] = ()


@dataclass(frozen=True)
class _Param:
    name: str
    type: _Type
    readonly: bool  # LLVM proved that the callee never writes through this pointer


@dataclass(frozen=True)
class _FunctionInfo:
    name: str
    type_text: str
    vararg: bool
    params: tuple[_Param, ...]
    ret: _Type


_KINDS = {llvm.TypeKind.double: "double", llvm.TypeKind.float: "float",
          llvm.TypeKind.integer: "int", llvm.TypeKind.pointer: "ptr",
          llvm.TypeKind.void: "void"}


def _describe_type(ty: llvm.TypeRef) -> _Type:
    kind = ty.type_kind
    if kind == llvm.TypeKind.struct and ty.is_literal_struct and not ty.is_packed_struct:
        return _Type(str(ty), "struct", 0, tuple(_describe_type(f) for f in ty.elements))
    name = _KINDS.get(kind, "other")
    return _Type(str(ty), name, ty.type_width if name == "int" else 0)


def _describe_function(fn: llvm.ValueRef) -> _FunctionInfo:
    fty = fn.global_value_type
    params = tuple(
        _Param(arg.name or f"arg{i}", _describe_type(arg.type),
               any(attr in (b"readonly", b"readnone") for attr in arg.attributes))
        for i, arg in enumerate(fn.arguments))
    return _FunctionInfo(fn.name, str(fty), fty.is_function_vararg, params,
                         _describe_type(fty.get_function_return()))


_INT_ARGS = {1: ctypes.c_uint8, 8: ctypes.c_uint8, 16: ctypes.c_uint16,
             32: ctypes.c_uint32, 64: ctypes.c_uint64}
_INT_RESULTS = {1: ctypes.c_uint8, 8: ctypes.c_int8, 16: ctypes.c_int16,
                32: ctypes.c_int32, 64: ctypes.c_int64}
_FIXED = {"double": ctypes.c_double, "float": ctypes.c_float, "ptr": ctypes.c_void_p}


def _arg_ctype(ty: _Type) -> Any | None:
    """ctypes type passing an LLVM scalar, or None when unsupported."""
    return _INT_ARGS.get(ty.width) if ty.kind == "int" else _FIXED.get(ty.kind)


def _result_ctype(ty: _Type) -> Any | None:
    return _INT_RESULTS.get(ty.width) if ty.kind == "int" else _FIXED.get(ty.kind)


def _returns_struct(info: _FunctionInfo) -> bool:
    """A literal struct of scalars, returned through a generated `sret` wrapper."""
    fields = info.ret.fields
    return (info.ret.kind == "struct" and bool(fields)
            and all(_result_ctype(f) is not None for f in fields))


def _sret_name(name: str) -> str:
    return f"enzyme_py.sret.{name}"


def _quote(name: str) -> str:
    escaped = "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):02X}"
                      for c in name)
    return f'@"{escaped}"'


def _sret_wrapper(info: _FunctionInfo) -> str:
    """LLVM text of `void @"enzyme_py.sret.f"(ptr %out, args...)` storing f's struct result."""
    ret = info.ret.text
    params = [p.type.text for p in info.params]
    formals = ", ".join(["ptr %out"] + [f"{p} %a{i}" for i, p in enumerate(params)])
    actuals = ", ".join(f"{p} %a{i}" for i, p in enumerate(params))
    lines = [f"define void {_quote(_sret_name(info.name))}({formals}) {{",
             f"  %r = call {ret} {_quote(info.name)}({actuals})"]
    for i, field in enumerate(info.ret.fields):
        lines += [f"  %v{i} = extractvalue {ret} %r, {i}",
                  f"  %p{i} = getelementptr inbounds {ret}, ptr %out, i32 0, i32 {i}",
                  f"  store {field.text} %v{i}, ptr %p{i}"]
    lines += ["  ret void", "}"]
    return "\n".join(lines)

