"""Native code: `compile_ir` (OrcJIT), `JITModule` and the checked `NativeFunction`.

Invariants:

- Native code comes from OrcJIT (one JIT library per `compile_ir`), which reports an unresolved
  symbol as an error where MCJIT would crash. The library is unloaded when its `JITModule` and
  all its `NativeFunction`s are collected, by reference counting: nothing here makes a cycle.
- An unloaded library leaves its (empty) JITDylib, ~9 KiB, in its LLJIT: llvmlite 0.50 cannot
  remove one. So once `_UNLOADED_PER_JIT` libraries of an LLJIT are unloaded, a fresh LLJIT
  takes the new ones; each library's tracker holds its LLJIT (a C++ `shared_ptr`), which is
  freed, with every JITDylib in it, when its last library is unloaded. Code that is kept
  never makes a new LLJIT (each costs ~0.85 MiB once it has code); nothing else is pinned.
- Only `compile_ir` maps libm calls to libmvec's vector functions (`vector_math`).
- A `NativeFunction` makes no ctypes type of its own (ctypes caches those forever): struct
  results share one structure class per layout (`_result_struct`).
- `NativeFunction.__call__` checks the argument count, then every argument with its converter
  (see `arguments`), before native code runs; unsupported signatures raise `BackendError` when
  the function is looked up, never at call time.
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import operator
import os
import threading
import weakref
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import llvmlite.binding as llvm

from enzyme_py import vector_math
from enzyme_py.backend import shared_code, system_llvm
from enzyme_py.backend.arguments import (
    _apply,
    _ArgInfo,
    _float_converter,
    _int_converter,
    _pointer_converter,
)
from enzyme_py.backend.jit_check import _has_inline_asm, check_jit
from enzyme_py.backend.pipelines import _check_level, _in_system_llvm, _run_pipeline
from enzyme_py.backend.signatures import (
    ArgSpec,
    Signature,
    _arg_ctype,
    _describe_function,
    _FunctionInfo,
    _result_ctype,
    _returns_struct,
    _sret_name,
    _sret_wrapper,
)
from enzyme_py.backend.target import _host, _machine, _target_host, same_platform
from enzyme_py.backend.text import _scratch
from enzyme_py.errors import BackendError, CallError
from enzyme_py.stage_times import stage


@functools.cache
def _result_struct(fields: tuple[Any, ...]) -> Any:
    """The ctypes structure `{f0, f1, ...}` of these field types, one class per layout: ctypes
    caches every pointer and function type made from a class forever, so a class per
    `NativeFunction` would never be freed."""
    return type("Result", (ctypes.Structure,), {"_fields_": [
        (f"f{i}", field) for i, field in enumerate(fields)]})


class NativeFunction:
    """A JIT-compiled function callable from Python with checked arguments.

    Example::

        >>> jm = compile_ir("define double @sq(double %x) {\\n"
        ...                 "  %y = fmul double %x, %x\\n  ret double %y\\n}")
        >>> jm.function("sq")(3.0)
        9.0
    """

    __slots__ = ("name", "address", "arg_names", "llvm_type", "_module", "_nargs",
                 "_converters", "_cfunc", "_post", "_out_type", "_fields", "__weakref__")

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
            self._out_type = _result_struct(tuple(_result_ctype(f) for f in ret.fields))
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
        self.object: bytes | None = None  #: its object file, when asked for (`keep_object`)
        #: what linking `object` again needs without parsing `ir` (`link_object`)
        self.manifest: LinkManifest | None = None
        self._tracker = tracker  # OrcJIT unloads the code when this is collected
        self._addresses = addresses
        self._functions = functions
        # weak: a function holds its module, so a strong cache would make a cycle, and the
        # code would wait for the cyclic garbage collector to be unloaded
        self._cache: weakref.WeakValueDictionary[tuple[str, Signature | None],
                                                 NativeFunction] = weakref.WeakValueDictionary()

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
        fn = self._cache.get(key)
        if fn is None:
            if name not in self._functions:
                raise self._missing(name)
            fn = self._cache[key] = NativeFunction(self, self._functions[name], signature)
        return fn

    def __repr__(self) -> str:
        return f"<JITModule functions={self.functions}>"


@dataclass(frozen=True)
class LinkManifest:
    """What `compile_ir` read off a module to link it: its exported functions (described),
    global variables and `sret` wrappers, and the symbols it expects from the process. With
    the object file, `link_object` links the code again (another process, the persistent
    cache) without parsing or generating anything."""

    functions: dict[str, _FunctionInfo]
    globals: tuple[str, ...]
    wrappers: tuple[str, ...]
    externals: tuple[str, ...]


# `appending`: `@llvm.compiler.used` (see vector_math) is not a symbol to export.
_HIDDEN = {llvm.Linkage.internal, llvm.Linkage.private, llvm.Linkage.available_externally,
           llvm.Linkage.appending}
#: Unloaded libraries after which new ones go to a fresh LLJIT: what they leave behind (~0.6
#: MiB) then weighs about what a fresh LLJIT costs (~0.85 MiB, ~1 ms), so compiling and dropping
#: code forever keeps at most about two LLJITs' worth.
_UNLOADED_PER_JIT = 64


class _Generation:
    """An LLJIT that libraries of one codegen level are linked into, and how many of them
    have been unloaded."""

    def __init__(self, machine: llvm.TargetMachine) -> None:
        self.jit = llvm.create_lljit_compiler(machine)
        self.unloaded = 0

    def count_unloaded(self) -> None:
        # From any thread, even one in `_link` (so no lock): a lost count only delays a switch.
        self.unloaded += 1


_jits: dict[int, _Generation] = {}  # codegen level -> the current generation; under _link_lock
_link_lock = threading.Lock()
_library_ids = itertools.count()


# Loop strength reduction (a code generation pass) grows much faster than the code: on a
# 14,600-instruction gradient it took 75% of a 6.5 s code generation (0.8 s without it, and
# the code ran as fast); on GMM's 4,300-instruction gradient 40% (210 of 526 ms). Without it
# the benchmarks' gradients ran 0.88-1.03x as long (interleaved, one process; primals, all
# under 3,500 instructions: 0.95-1.05x). Above this many instructions a module is generated
# without it. From 2,000 down to 1,000: code generation of stencil2d_numpy's gradient (1,540
# instructions) 67 -> 45 ms, of its first call 0.20 -> 0.16 s; the modules that crossed the line
# ran as fast (ba, stencil1d, stencil2d and stencil2d_numpy gradients, GMM and LSTM primals:
# 0.93-1.03x, interleaved in one run), while stencil1d_numpy's (765 instructions) ran 1.05x
# and its primal 1.2x as long without it.
LSR_LIMIT = 1_000
_lsr_off = False  # LLVM's process-wide -disable-lsr, as last set (under `_link_lock`)


def _instruction_count(text: str) -> int:
    """About the number of instructions of a module's text (its indented lines)."""
    return text.count("\n  ")


def _without_lsr(text: str) -> bool:
    """Whether `text` is compiled without loop strength reduction (`LSR_LIMIT`)."""
    return _instruction_count(text) > LSR_LIMIT


def _set_lsr(off: bool) -> None:
    """Set -disable-lsr for the code generation about to run (the caller holds `_link_lock`:
    the option is process-wide, so every code generation sets its own value under it)."""
    global _lsr_off
    if off != _lsr_off:
        llvm.set_option("", f"-disable-lsr={str(off).lower()}")
        _lsr_off = off


def _link(builder: llvm.JITLibraryBuilder, level: int, size: int = 0) -> Any:
    """Link `builder` (code of about `size` instructions) into the current LLJIT of codegen
    `level`; its resource tracker.

    Linking and switching to a fresh LLJIT happen under one lock, so no library is linked into
    an LLJIT that is being let go (llvmlite serializes its calls anyway). The Python handle of
    the LLJIT let go is closed: the C++ LLJIT lives on in its libraries' trackers."""
    machine = _machine(level)
    with _link_lock:
        _set_lsr(size > LSR_LIMIT)
        generation = _jits.get(level)
        if generation is None or generation.unloaded >= _UNLOADED_PER_JIT:
            if generation is not None:
                generation.jit.close()
            generation = _jits[level] = _Generation(machine)
        try:
            tracker = builder.link(generation.jit, f"enzyme_py.{next(_library_ids)}")
        except RuntimeError:
            generation.count_unloaded()  # a failed link leaves its JITDylib too
            raise
    weakref.finalize(tracker, generation.count_unloaded)
    return tracker


def _declared(module: llvm.ModuleRef) -> list[str]:
    """The symbols `module` declares and expects from elsewhere (not intrinsics)."""
    declared = [fn.name for fn in module.functions
                if fn.is_declaration and not fn.name.startswith("llvm.")]
    return declared + [gv.name for gv in module.global_variables if gv.is_declaration]


def _unresolved(module: llvm.ModuleRef) -> list[str]:
    """Declared symbols that neither the module nor the process defines."""
    return [name for name in _declared(module) if not llvm.address_of_symbol(name)]


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


def compile_ir(text: str, opt_level: int = 2, preoptimized: bool = False,
               keep_object: bool = False, object_code: bytes | None = None,
               share: bool = True) -> JITModule:
    """Parse, verify, optimize (unless `opt_level` is 0) and JIT-compile LLVM text (OrcJIT).

    From -O2 on, where the host has glibc's libmvec, loops calling sin, cos, exp, log or pow
    are vectorized with it (see `vector_math`), and a floating-point sum does not stop the
    vectorizer: it is kept in source order. ENZYME_PY_NO_LIBMVEC=1 switches both off.
    `preoptimized`: `text` is the optimized text of an earlier compile (`JITModule.ir`);
    only code generation runs (at `opt_level`). `keep_object`: generate the machine code as
    an object file first (kept as `JITModule.object`, for the persistent cache); with
    `object_code` (such a file, made from the same preoptimized `text`), no code is generated
    at all: the object is linked as it is. With `share`, a function of `shared_code.SHARED`
    (the matrix kernel) that `text` defines is declared instead and linked to the process's
    one compiled copy.

    Example::

        >>> jm = compile_ir("define float @half(float %x) {\\n"
        ...                 "  %y = fmul float %x, 0.5\\n  ret float %y\\n}")
        >>> jm.function("half")(3)
        1.5
    """
    _check_level(opt_level)
    if object_code is not None and not preoptimized:
        raise BackendError("object code is linked only with the preoptimized text it was "
                           "made from")
    if not preoptimized:  # (preoptimized text is this backend's own output)
        with stage("LLVM: check the target"):
            check_jit(text, opt_level)  # what LLVM would end the process on (`jit_check`)
    shared: dict[str, int] = {}
    if share:
        text, names = shared_code.split_off(text)
        shared = _shared_symbols(names, keep_object or object_code is not None)
    library = _vector_library()
    vectorize = opt_level >= 2 and bool(library) and not preoptimized
    if vectorize:
        text = vector_math.annotate(text, library)
    with ExitStack() as scope:
        with stage("LLVM: parse and verify"):
            module = scope.enter_context(_scratch(text))
        _target_host(module)
        # (inline asm stays in llvmlite, whose diagnostics become `BackendError`s: the
        # release library's default handler ends the process on an asm error)
        in_system = same_platform(module.triple, _host().triple) and not _has_inline_asm(text)
        if opt_level and not preoptimized:
            with stage(f"LLVM: -O{opt_level}"):
                module = _optimized(scope, module, opt_level, vectorize, in_system)
        optimized = str(module)
        missing = _unresolved(module)
        functions = {fn.name: _describe_function(fn) for fn in module.functions
                     if not fn.is_declaration and fn.linkage not in _HIDDEN}
        globals_ = [gv.name for gv in module.global_variables
                    if not gv.is_declaration and gv.linkage not in _HIDDEN]
        externals = tuple(_declared(module))
    _check_resolved(missing)
    wrappers = [info for info in functions.values() if _returns_struct(info)]
    link_text = "\n\n".join([optimized, *map(_sret_wrapper, wrappers)]) + "\n"
    manifest = LinkManifest(functions, tuple(globals_),
                            tuple(_sret_name(info.name) for info in wrappers), externals)
    if object_code is not None:
        return link_object(optimized, object_code, manifest, opt_level)
    if keep_object:
        with stage("LLVM: code generation (object file)"):
            obj = _emit_object(link_text, opt_level, in_system and not preoptimized)
        return link_object(optimized, obj, manifest, opt_level)
    if in_system and not preoptimized:  # (a shared function's background compile stays
        with stage("LLVM: code generation and linking"):  # out of the library's lock)
            obj = system_llvm.emit_object(link_text, opt_level, _without_lsr(link_text))
            if obj is not None:
                jm = link_object(optimized, obj, manifest, opt_level)
                jm.object = None  # (kept only when asked for)
                return jm
    builder = llvm.JITLibraryBuilder().add_current_process()
    for name, at in shared.items():
        builder.import_symbol(name, at)
    builder.add_ir(link_text)
    exports = [*functions, *globals_, *(_sret_name(info.name) for info in wrappers)]
    with stage("LLVM: code generation and linking"):
        tracker = _linked(builder, exports, opt_level, _instruction_count(link_text),
                          "compile and link the module", " (a symbol the code generator "
                          "calls may be missing from the process; LLVM names it on stderr)")
    return JITModule(optimized, tracker, {name: tracker[name] for name in exports}, functions)


def link_object(text: str, object_code: bytes, manifest: LinkManifest,
                opt_level: int = 2) -> JITModule:
    """The object file of an earlier `compile_ir(..., keep_object=True)` of the optimized
    `text`, linked from its `manifest` (no parsing, no code generation): the persistent
    cache's fast path. Its external symbols must still be found in the process."""
    _check_level(opt_level)
    _host()  # (the libraries the code may call are loaded with the host)
    shared = _shared_symbols([n for n in manifest.externals if n in shared_code.SHARED], True)
    _check_resolved([n for n in manifest.externals if not llvm.address_of_symbol(n)])
    builder = llvm.JITLibraryBuilder().add_current_process()
    for name, at in shared.items():
        builder.import_symbol(name, at)
    builder.add_object_img(object_code)
    exports = [*manifest.functions, *manifest.globals, *manifest.wrappers]
    with stage("LLVM: linking"):
        tracker = _linked(builder, exports, opt_level, 0, "link the object file")
    jm = JITModule(text, tracker, {name: tracker[name] for name in exports},
                   dict(manifest.functions))
    jm.object, jm.manifest = object_code, manifest
    return jm


def _shared_symbols(names: list[str], persistent: bool) -> dict[str, int]:
    """The addresses of the process's copies of the shared functions `names` (compiled on
    first use; `persistent`: kept in the persistent cache), also made known to LLVM's symbol
    lookup (`_unresolved`)."""
    out = {name: shared_code.address(name, compile_ir, link_object, persistent)
           for name in names}
    for name, at in out.items():
        llvm.add_symbol(name, at)
    return out


def prefetch_shared(names: list[str], persistent: bool = False) -> None:
    """Start compiling the shared functions among `names` in the background (see
    `shared_code.prefetch`), for a module about to be optimized and compiled."""
    shared_code.prefetch(names, compile_ir, link_object, persistent)


def _linked(builder: llvm.JITLibraryBuilder, exports: list[str], level: int, size: int,
            what: str, hint: str = "") -> Any:
    """`builder` with `exports` exported, linked (`_link`); a failure is a `BackendError`."""
    for name in exports:
        builder.export_symbol(name)
    try:
        return _link(builder, level, size)
    except RuntimeError as err:
        raise BackendError(f"LLVM could not {what}: {err}{hint}") from None


def _check_resolved(missing: list[str]) -> None:
    if missing:
        raise BackendError("external symbols are neither defined in the module nor found in "
                           f"the process: {', '.join('@' + n for n in missing)}")


def _optimized(scope: ExitStack, module: llvm.ModuleRef, level: int,
               ordered_reductions: bool, in_system: bool) -> llvm.ModuleRef:
    """`module` after `-O<level>`: with `in_system` (see `compile_ir`), the system's release
    LLVM's result, parsed in `scope`, where that library is there
    (`pipelines._in_system_llvm`); else `module` itself, optimized in place by llvmlite."""
    out = _in_system_llvm(module, level, True, True, True, ordered_reductions) \
        if in_system else None
    if out is not None:
        return scope.enter_context(_scratch(out))
    _run_pipeline(module, level, True, True, ordered_reductions=ordered_reductions)
    return module


def _emit_object(text: str, level: int, in_system: bool = False) -> bytes:
    """Machine code of `text` for the host, as an object file (the machine the JIT uses; with
    `in_system`, the system's release LLVM where it is there: `system_llvm`)."""
    if in_system:
        obj = system_llvm.emit_object(text, level, _without_lsr(text))
        if obj is not None:
            return obj
    machine = _machine(level)
    with _scratch(text) as module, _link_lock:  # (one code generation at a time: `_set_lsr`)
        _target_host(module)
        _set_lsr(_without_lsr(text))
        return machine.emit_object(module)
