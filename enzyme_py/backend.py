"""The backend: LLVM text in, verified / optimized LLVM text or callable native code out.

Invariants:

- This is the only module of enzyme_py that imports llvmlite; everything above it exchanges
  LLVM *text*. Text-to-text work (`normalize`, `optimize`, `run_llvm_passes`, the optimized
  `JITModule.ir`) parses into a fresh LLVM context disposed right after, so a named struct type
  is never renamed because of another module. `parse_llvm`, whose module outlives the call,
  uses llvmlite's global context, which is never disposed: no garbage-collection order can
  free a context before its module.
- Native code comes from OrcJIT (one process-wide LLJIT per codegen level, one JIT library
  per `compile_ir`), which reports an unresolved symbol as an error where MCJIT would crash.
  The library is unloaded when its `JITModule` and all its `NativeFunction`s are collected.
- LLVM is initialized lazily and once (native target, asm printer; libm and libgcc_s loaded
  so that `sin`, `exp`, ... and builtins such as `__powidf2` resolve in JIT code, and glibc's
  libmvec where present). Pipelines use one host target machine per opt level, created once,
  with the host CPU name and features: the vectorizers see the real vector width. A module
  without `target triple` / `target datalayout` gets the host's before it is optimized or
  compiled. Pipelines run one at a time (see `_run_pipeline`).
- Only `compile_ir` maps libm calls to libmvec's vector functions (`vector_math`); the text
  that `optimize` and `run_llvm_passes` return keeps scalar calls, so it can be
  differentiated.
- Failures of LLVM (parse, verify, unresolved external symbols, unsupported signatures) raise
  `BackendError`; LLVM is never allowed to abort the process.
- `NativeFunction.__call__` checks every argument in Python before native code runs: argument
  count; scalars by kind and range; pointers must be numpy arrays (aligned, C-contiguous, no
  object dtype, dtype / ndim as the `Signature` asks, writable unless the parameter is only
  read: `ArgSpec.writable=False` or LLVM's `readonly`), a plain int address, or a ctypes
  pointer / `c_void_p` / ctypes array. A mismatch raises
  `CallError` (a `TypeError`) or `ValueError` that names the argument; never a crash.
  Only an explicit raw address (int or ctypes object) is trusted as given.
- Functions returning a literal struct of scalars are called through a generated wrapper that
  stores the fields into a caller buffer, so the result never depends on how the platform ABI
  returns aggregates.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import difflib
import itertools
import operator
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import llvmlite.binding as llvm
import numpy as np

from enzyme_py import vector_math
from enzyme_py.errors import BackendError, CallError
from enzyme_py.heap import keep_freed_memory

__all__ = [
    "LLVM_PASSES",
    "PASS_ALIASES",
    "ArgSpec",
    "JITModule",
    "NativeFunction",
    "Signature",
    "compile_ir",
    "normalize",
    "optimize",
    "parse_llvm",
    "run_llvm_passes",
]

# --------------------------------------------------------------------------- initialization


@dataclass(frozen=True)
class _Host:
    triple: str
    cpu: str
    features: str
    data_layout: str


_init_lock = threading.Lock()
_host_info: _Host | None = None
_machines: dict[int, llvm.TargetMachine] = {}


def _host() -> _Host:
    """Initialize LLVM once and describe the host."""
    global _host_info
    if _host_info is not None:
        return _host_info
    with _init_lock:
        if _host_info is None:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            keep_freed_memory()  # tapes are malloc'd per call: reuse their pages
            # libm for sin, exp, ...; libgcc_s for builtins the code generator calls
            # (__powidf2 for llvm.powi). Either may already be in the process, or absent.
            # libmvec (glibc's vector libm) for the vectorized calls of `vector_math`.
            paths = [ctypes.util.find_library(library) for library in ("m", "gcc_s")]
            for path in [*paths, "libmvec.so.1"]:
                if path:
                    try:
                        llvm.load_library_permanently(path)
                    except RuntimeError:
                        pass
            triple = llvm.get_process_triple()
            cpu = llvm.get_host_cpu_name()
            try:
                features = llvm.get_host_cpu_features().flatten()
            except RuntimeError:  # not every platform reports features
                features = ""
            machine = _new_machine(triple, cpu, features, 2)
            _machines[2] = machine
            _host_info = _Host(triple, cpu, features, str(machine.target_data))
    return _host_info


def _new_machine(triple: str, cpu: str, features: str, level: int,
                 jit: bool = False) -> llvm.TargetMachine:
    target = llvm.Target.from_triple(triple)
    return target.create_target_machine(cpu=cpu, features=features, opt=level, jit=jit)


def _machine(level: int) -> llvm.TargetMachine:
    """The shared host target machine for opt `level` (created once per level)."""
    host = _host()
    with _init_lock:
        if level not in _machines:
            _machines[level] = _new_machine(host.triple, host.cpu, host.features, level)
        return _machines[level]


# --------------------------------------------------------------------------- text <-> module

_LOCATION = re.compile(r"<string>:(\d+):(\d+): ")


def _parse_error(message: str, text: str, name: str) -> BackendError:
    message = message.removeprefix("LLVM IR parsing error\n").rstrip()
    match = _LOCATION.search(message)
    if match is not None:
        lineno = int(match.group(1))
        lines = text.splitlines()
        if 1 <= lineno <= len(lines) and lines[lineno - 1].strip() not in message:
            message += f"\n  {lines[lineno - 1]}"
    message = message.replace("<string>:", f"{name}:")
    return BackendError(f"LLVM rejected module '{name}':\n{message}")


def _parse_into(text: str, name: str, context: llvm.ContextRef) -> llvm.ModuleRef:
    _host()
    try:
        module = llvm.parse_assembly(text, context)
    except RuntimeError as err:
        raise _parse_error(str(err), text, name) from None
    try:
        module.verify()
    except RuntimeError as err:
        module.close()
        raise BackendError(f"LLVM verifier rejected module '{name}':\n{str(err).rstrip()}") \
            from None
    module.name = name
    return module


def parse_llvm(text: str, name: str = "module") -> llvm.ModuleRef:
    """Parse and verify LLVM text with llvmlite.

    The module lives in llvmlite's global context, which is never disposed (as in Numba), so
    the module is safe to keep in any object graph; a named struct type whose name another
    module already used is printed with a suffix. Raises `BackendError` carrying LLVM's
    diagnostic and the offending source line.

    Example::

        >>> m = parse_llvm("define i32 @one() {\\n  ret i32 1\\n}\\n")
        >>> [f.name for f in m.functions]
        ['one']
    """
    return _parse_into(text, name, llvm.get_global_context())


@contextmanager
def _scratch(text: str, name: str = "module") -> Iterator[llvm.ModuleRef]:
    """A parsed module in a fresh context; both are disposed, module first, on exit.

    Text-to-text work happens here so that no struct type is renamed because of another
    module, and so that disposal never depends on the garbage collector's order.
    """
    context = llvm.create_context()
    try:
        module = _parse_into(text, name, context)
        try:
            yield module
        finally:
            module.close()
    finally:
        context.close()


def normalize(text: str) -> str:
    """LLVM's canonical printing of `text` (parse, verify, print); idempotent.

    Example::

        >>> normalize("define i32 @f(i32 %a) {\\n  ret i32 %a\\n}")  # doctest: +ELLIPSIS
        '; ModuleID = ...define i32 @f(i32 %a) {\\n  ret i32 %a\\n}\\n'
    """
    with _scratch(text) as module:
        return str(module)


def _target_host(module: llvm.ModuleRef) -> None:
    """Give a module without a target the host's (the vectorizers need it)."""
    host = _host()
    if not module.triple:
        module.triple = host.triple
    if not module.data_layout:
        module.data_layout = host.data_layout


# --------------------------------------------------------------------------- optimization


def _check_level(level: int) -> None:
    if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 3:
        raise BackendError(f"optimization level must be 0, 1, 2 or 3, not {level!r}")


_pipeline_lock = threading.Lock()
_ordered_reductions = False  # the value of LLVM's -force-ordered-reductions; under the lock


def _run_pipeline(module: llvm.ModuleRef, level: int, loop_vectorize: bool,
                  slp_vectorize: bool, unroll: bool = True,
                  ordered_reductions: bool = False) -> None:
    """LLVM's -O<level> pipeline on `module`. `ordered_reductions` lets the loop vectorizer
    vectorize a loop around a floating-point sum that it keeps in source order (the
    transcendental calls beside the sum become vector calls; the result is unchanged).

    That switch is a process-wide LLVM option, so every pipeline runs under one lock and sets
    it to its own value: no run ever sees another's."""
    global _ordered_reductions
    _check_level(level)
    options = llvm.create_pipeline_tuning_options(speed_level=level)
    # Clang's choice: vectorize (and interleave) only from -O2 on.
    options.loop_vectorization = loop_vectorize and level >= 2
    options.loop_interleaving = loop_vectorize and level >= 2
    options.slp_vectorization = slp_vectorize and level >= 2
    options.loop_unrolling = unroll
    machine = _machine(level)
    with _pipeline_lock:
        if ordered_reductions != _ordered_reductions:
            llvm.set_option("", f"-force-ordered-reductions={str(ordered_reductions).lower()}")
            _ordered_reductions = ordered_reductions
        # A fresh builder per run: llvmlite registers each run's instrumentation callbacks on
        # the builder, so a reused builder would call into a finished run's destroyed state.
        builder = llvm.create_pass_builder(machine, options)
        builder.getModulePassManager().run(module, builder)


def optimize(text: str, level: int = 2, *, loop_vectorize: bool = True,
             slp_vectorize: bool = True, unroll: bool = True) -> str:
    """Run LLVM's default `-O<level>` pipeline (0-3) for the host and return the new text.

    As in clang, the loop and SLP vectorizers run from level 2 on (each can be switched off,
    and so can loop unrolling); the host CPU's features decide the vector width. Calls of
    libm functions stay scalar calls (unlike `compile_ir`'s), so the text can be
    differentiated.

    Example::

        >>> src = "define i32 @f() {\\n  %a = add i32 1, 2\\n  ret i32 %a\\n}"
        >>> "ret i32 3" in optimize(src, 2)
        True
    """
    with _scratch(text) as module:
        _target_host(module)
        _run_pipeline(module, level, loop_vectorize, slp_vectorize, unroll)
        return str(module)


#: LLVM's textual pass name -> the llvmlite 0.50 `ModulePassManager` method that adds it.
#: Printer and viewer passes (they write files or start programs) and Numba's `refprune`
#: are left out. Not offered by llvmlite 0.50: gvn (use newgvn), mem2reg (use sroa), licm.
LLVM_PASSES: dict[str, str] = {
    # function passes
    "aa-eval": "add_aa_eval_pass",
    "adce": "add_aggressive_dce_pass",
    "aggressive-instcombine": "add_aggressive_instcombine_pass",
    "break-crit-edges": "add_break_critical_edges_pass",
    "dce": "add_dead_code_elimination_pass",
    "dse": "add_dead_store_elimination_pass",
    "instcombine": "add_instruction_combine_pass",
    "instnamer": "add_instruction_namer_pass",
    "jump-threading": "add_jump_threading_pass",
    "lcssa": "add_lcssa_pass",
    "loop-deletion": "add_loop_deletion_pass",
    "loop-reduce": "add_loop_strength_reduce_pass",
    "loop-rotate": "add_loop_rotate_pass",
    "loop-simplify": "add_loop_simplify_pass",
    "loop-unroll": "add_loop_unroll_pass",
    "loop-unroll-and-jam": "add_loop_unroll_and_jam_pass",
    "lower-atomic": "add_lower_atomic_pass",
    "lower-invoke": "add_lower_invoke_pass",
    "lower-switch": "add_lower_switch_pass",
    "memcpyopt": "add_mem_copy_opt_pass",
    "mergereturn": "add_unify_function_exit_nodes_pass",
    "newgvn": "add_new_gvn_pass",
    "reassociate": "add_reassociate_pass",
    "reg2mem": "add_register_to_memory_pass",
    "sccp": "add_sccp_pass",
    "simplifycfg": "add_simplify_cfg_pass",
    "sink": "add_sinking_pass",
    "sroa": "add_sroa_pass",
    "tailcallelim": "add_tail_call_elimination_pass",
    # module and CGSCC passes
    "always-inline": "add_always_inliner_pass",
    "argpromotion": "add_argument_promotion_pass",
    "constmerge": "add_constant_merge_pass",
    "deadargelim": "add_dead_arg_elimination_pass",
    "function-attrs": "add_post_order_function_attributes_pass",
    "globaldce": "add_global_dead_code_eliminate_pass",
    "globalopt": "add_global_opt_pass",
    "internalize": "add_internalize_pass",
    "ipsccp": "add_ipsccp_pass",
    "loop-extract": "add_loop_extract_pass",
    "mergefunc": "add_merge_functions_pass",
    "partial-inliner": "add_partial_inliner_pass",
    "rpo-function-attrs": "add_rpo_function_attrs_pass",
    "strip": "add_strip_symbols_pass",
    "strip-dead-debug-info": "add_strip_dead_debug_info_pass",
    "strip-dead-prototypes": "add_strip_dead_prototype_pass",
    "strip-debug-declare": "add_strip_debug_declare_pass",
    "strip-nondebug": "add_strip_non_debug_symbols_pass",
    "verify": "add_verifier",
}

#: Older (legacy pass manager) spellings accepted by `run_llvm_passes`.
PASS_ALIASES: dict[str, str] = {
    "loweratomic": "lower-atomic",
    "lowerinvoke": "lower-invoke",
    "lowerswitch": "lower-switch",
    "unify-function-exit-nodes": "mergereturn",
    "loop-strength-reduce": "loop-reduce",
}

_MISSING_HINTS = {"gvn": "newgvn", "mem2reg": "sroa", "licm": None}
_LEVELS = {"O0": 0, "O1": 1, "O2": 2, "O3": 3}


def _unknown_pass(name: str) -> BackendError:
    known = sorted(LLVM_PASSES) + sorted(_LEVELS)
    hint = ""
    if name in _MISSING_HINTS:
        alt = _MISSING_HINTS[name]
        hint = f" llvmlite 0.50 does not offer '{name}'" + (f"; use '{alt}'." if alt else ".")
    else:
        close = difflib.get_close_matches(name, known, n=1)
        if close:
            hint = f" Did you mean '{close[0]}'?"
    return BackendError(f"unknown LLVM pass '{name}'.{hint} Known passes: {', '.join(known)}")


def run_llvm_passes(text: str, names: Sequence[str]) -> str:
    """Run the named LLVM passes in order (`LLVM_PASSES` names, or "O0".."O3").

    Example::

        >>> src = '''define double @f(double %x) {
        ...   %p = alloca double
        ...   store double %x, ptr %p
        ...   %v = load double, ptr %p
        ...   ret double %v
        ... }'''
        >>> "alloca" in run_llvm_passes(src, ["sroa", "instcombine"])
        False
    """
    if isinstance(names, str):
        raise TypeError("names must be a list of pass names, not a string")
    resolved = [PASS_ALIASES.get(name, name) for name in names]
    for name in resolved:
        if name not in LLVM_PASSES and name not in _LEVELS:
            raise _unknown_pass(name)
    with _scratch(text) as module:
        _target_host(module)
        batch: list[str] = []  # consecutive named passes share one pass manager

        def flush() -> None:
            if batch:
                manager = llvm.create_new_module_pass_manager()
                for pass_name in batch:
                    getattr(manager, LLVM_PASSES[pass_name])()
                options = llvm.create_pipeline_tuning_options(speed_level=2)
                manager.run(module, llvm.create_pass_builder(_machine(2), options))
                batch.clear()

        for name in resolved:
            if name in _LEVELS:
                flush()
                _run_pipeline(module, _LEVELS[name], True, True)
            else:
                batch.append(name)
        flush()
        return str(module)


# --------------------------------------------------------------------------- signatures


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


# --------------------------------------------------------------------------- argument converters

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


# --------------------------------------------------------------------------- native functions


class NativeFunction:
    """A JIT-compiled function callable from Python with checked arguments.

    Example::

        >>> jm = compile_ir("define double @sq(double %x) {\\n"
        ...                 "  %y = fmul double %x, %x\\n  ret double %y\\n}")
        >>> jm.function("sq")(3.0)
        9.0
    """

    __slots__ = ("name", "address", "arg_names", "llvm_type", "_module", "_nargs",
                 "_converters", "_cfunc", "_post", "_out_type", "_fields")

    def __init__(self, module: JITModule, info: _FunctionInfo,
                 signature: Signature | None) -> None:
        self._module = module  # keeps the native code alive
        self.name: str = info.name
        self.llvm_type: str = info.type_text
        if info.vararg:
            raise BackendError(f"@{self.name}: variadic functions cannot be called")
        params = info.params
        specs = signature.args if signature is not None else ()
        if signature is not None and len(specs) != len(params):
            raise BackendError(f"@{self.name} takes {len(params)} arguments but the signature "
                               f"describes {len(specs)}")
        self.arg_names: tuple[str, ...] = tuple(
            (specs[i].name if specs and specs[i].name else None) or param.name
            for i, param in enumerate(params))
        argtypes: list[Any] = []
        converters: list[Callable[[Any], Any]] = []
        for i, param in enumerate(params):
            spec = specs[i] if specs else ArgSpec()
            where = _ArgInfo(self.name, i, self.arg_names[i])
            ctype = _arg_ctype(param.type)
            if ctype is None:
                raise BackendError(f"@{self.name}: argument {i} ('{where.name}') has LLVM type "
                                   f"{param.type.text}, which cannot be passed from Python "
                                   "(supported: double, float, i1, i8, i16, i32, i64, ptr)")
            if param.type.kind != "ptr" and (spec.dtype is not None or spec.ndim is not None):
                raise BackendError(f"@{self.name}: argument {i} ('{where.name}') is "
                                   f"{param.type.text}; dtype and ndim apply to pointer "
                                   "arguments only")
            if param.type.kind == "ptr":
                writable = spec.writable and not param.readonly
                converters.append(_pointer_converter(where, spec, writable))
            elif param.type.kind == "int":
                converters.append(_int_converter(where, param.type.width))
            else:
                converters.append(_float_converter(where))
            argtypes.append(ctype)
        self._nargs = len(params)
        self._converters = tuple(converters)
        self._post: Callable[[Any], Any] | None = None
        self._out_type: Any = None
        self._fields: Callable[[Any], Any] | None = None
        ret, symbol = info.ret, self.name
        if ret.kind == "void":
            restype = None
        elif _returns_struct(info):
            names = [f"f{i}" for i in range(len(ret.fields))]
            self._out_type = type("Result", (ctypes.Structure,), {"_fields_": [
                (n, _result_ctype(f)) for n, f in zip(names, ret.fields, strict=True)]})
            getter = operator.attrgetter(*names)
            self._fields = getter if len(names) > 1 else (lambda r: (getter(r),))
            argtypes.insert(0, ctypes.POINTER(self._out_type))
            restype, symbol = None, _sret_name(self.name)
        elif (restype := _result_ctype(ret)) is None:
            raise BackendError(f"@{self.name}: return type {ret.text} cannot be returned to "
                               "Python (supported: void, double, float, i1-i64, ptr, and "
                               "literal structs of those)")
        if ret.kind == "int" and ret.width == 1:
            self._post = lambda r: bool(r & 1)
        elif restype is ctypes.c_void_p:
            self._post = lambda r: r or 0
        self.address: int = module.address(symbol)
        self._cfunc = ctypes.CFUNCTYPE(restype, *argtypes)(self.address)

    def __call__(self, *args: Any) -> Any:
        if len(args) != self._nargs:
            raise CallError(f"@{self.name} takes {self._nargs} arguments "
                            f"({', '.join(self.arg_names)}) but {len(args)} were given")
        if self._out_type is None:
            result = self._cfunc(*map(_apply, self._converters, args))
            return result if self._post is None else self._post(result)
        out = self._out_type()
        self._cfunc(out, *map(_apply, self._converters, args))
        return self._fields(out)

    def __repr__(self) -> str:
        return f"<NativeFunction @{self.name}: {self.llvm_type} at {self.address:#x}>"


class JITModule:
    """Native code of one LLVM module, kept alive by this object (and its functions).

    Example::

        >>> jm = compile_ir("define i64 @inc(i64 %x) {\\n  %y = add i64 %x, 1\\n"
        ...                 "  ret i64 %y\\n}", opt_level=2)
        >>> "inc" in jm, jm.function("inc")(41)
        (True, 42)
    """

    def __init__(self, ir: str, tracker: Any, addresses: dict[str, int],
                 functions: dict[str, _FunctionInfo]) -> None:
        self.ir: str = ir  #: the optimized LLVM text that was compiled
        self._tracker = tracker  # OrcJIT unloads the code when this is collected
        self._addresses = addresses
        self._functions = functions
        self._cache: dict[tuple[str, Signature | None], NativeFunction] = {}

    @property
    def functions(self) -> list[str]:
        """Names of the callable (defined, not internal) functions of the module."""
        return sorted(self._functions)

    def __contains__(self, name: object) -> bool:
        """A defined, non-internal function or global variable of that name exists."""
        return name in self._addresses

    def _missing(self, name: str, what: str = "function") -> BackendError:
        return BackendError(f"no {what} @{name} is defined (with external linkage) in the "
                            f"compiled module; defined functions: "
                            f"{', '.join(self.functions) or '(none)'}")

    def address(self, name: str) -> int:
        """Address of a defined, non-internal function or global variable of the module."""
        if name not in self._addresses:
            raise self._missing(name, "function or global")
        return self._addresses[name]

    def function(self, name: str, signature: Signature | None = None) -> NativeFunction:
        """A checked Python callable for the defined function `name`."""
        key = (name, signature)
        if key not in self._cache:
            if name not in self._functions:
                raise self._missing(name)
            self._cache[key] = NativeFunction(self, self._functions[name], signature)
        return self._cache[key]

    def __repr__(self) -> str:
        return f"<JITModule functions={self.functions}>"


# `appending`: `@llvm.compiler.used` (see vector_math) is not a symbol to export.
_HIDDEN = {llvm.Linkage.internal, llvm.Linkage.private, llvm.Linkage.available_externally,
           llvm.Linkage.appending}
_jits: dict[int, Any] = {}
_library_ids = itertools.count()


def _orc(level: int) -> Any:
    """The process-wide OrcJIT instance for codegen opt `level` (never disposed, so no
    collection order can free it before the libraries that it holds)."""
    machine = _machine(level)
    with _init_lock:
        if level not in _jits:
            _jits[level] = llvm.create_lljit_compiler(machine)
        return _jits[level]


def _unresolved(module: llvm.ModuleRef) -> list[str]:
    """Declared symbols that neither the module nor the process defines."""
    declared = [fn.name for fn in module.functions
                if fn.is_declaration and not fn.name.startswith("llvm.")]
    declared += [gv.name for gv in module.global_variables if gv.is_declaration]
    return [name for name in declared if not llvm.address_of_symbol(name)]


_libmvec: vector_math.VectorLibrary | None = None


def _vector_library() -> vector_math.VectorLibrary:
    """libmvec's variants this host can run (empty where libmvec is not loaded, on other
    platforms than x86-64 Linux, and when the environment sets ENZYME_PY_NO_LIBMVEC=1)."""
    global _libmvec
    if os.environ.get("ENZYME_PY_NO_LIBMVEC", "0") not in ("", "0"):
        return vector_math.VectorLibrary({})
    if _libmvec is None:
        host = _host()
        if host.triple.startswith("x86_64") and "linux" in host.triple:
            _libmvec = vector_math.vector_library(
                host.features, lambda symbol: bool(llvm.address_of_symbol(symbol)))
        else:
            _libmvec = vector_math.VectorLibrary({})
    return _libmvec


def compile_ir(text: str, opt_level: int = 2) -> JITModule:
    """Parse, verify, optimize (unless `opt_level` is 0) and JIT-compile LLVM text (OrcJIT).

    From -O2 on, where the host has glibc's libmvec, loops calling sin, cos, exp, log or pow
    are vectorized with it (see `vector_math`), and a floating-point sum does not stop the
    vectorizer: it is kept in source order. ENZYME_PY_NO_LIBMVEC=1 switches both off.

    Example::

        >>> jm = compile_ir("define float @half(float %x) {\\n"
        ...                 "  %y = fmul float %x, 0.5\\n  ret float %y\\n}")
        >>> jm.function("half")(3)
        1.5
    """
    _check_level(opt_level)
    library = _vector_library()
    vectorize = opt_level >= 2 and bool(library)
    if vectorize:
        text = vector_math.annotate(text, library)
    with _scratch(text) as module:
        _target_host(module)
        if opt_level:
            _run_pipeline(module, opt_level, True, True, ordered_reductions=vectorize)
        optimized = str(module)
        missing = _unresolved(module)
        functions = {fn.name: _describe_function(fn) for fn in module.functions
                     if not fn.is_declaration and fn.linkage not in _HIDDEN}
        globals_ = [gv.name for gv in module.global_variables
                    if not gv.is_declaration and gv.linkage not in _HIDDEN]
    if missing:
        raise BackendError("external symbols are neither defined in the module nor found in "
                           f"the process: {', '.join('@' + n for n in missing)}")
    wrappers = [info for info in functions.values() if _returns_struct(info)]
    builder = llvm.JITLibraryBuilder().add_current_process()
    builder.add_ir("\n\n".join([optimized, *map(_sret_wrapper, wrappers)]) + "\n")
    exports = [*functions, *globals_, *(_sret_name(info.name) for info in wrappers)]
    for name in exports:
        builder.export_symbol(name)
    try:
        tracker = builder.link(_orc(opt_level), f"enzyme_py.{next(_library_ids)}")
    except RuntimeError as err:
        raise BackendError(f"LLVM could not compile and link the module: {err} (a symbol "
                           "the code generator calls may be missing from the process; LLVM "
                           "names it on stderr)") from None
    return JITModule(optimized, tracker, {name: tracker[name] for name in exports}, functions)
