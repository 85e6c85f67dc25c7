"""The compile session: which Python function is compiled for which argument signature, into
one module.

A session compiles one entry function for one argument signature, plus every Python function
it calls, each specialized on its own argument types (see `compiler.FunctionCompiler` for the
code of one specialization and its calling convention). The session is given the function
that compiles one specialization (`compiler.specialize`) and caches what it returns; this
module imports neither the compiler nor `custom_ir`.

Invariants: a (function, argument types) pair is compiled at most once per session (`compiled`);
a call of a specialization still being compiled (recursion) gets its `Function` from
`in_progress`; return types are inferred on their own (`return_type_of`, cached), and a
recursive inference of a signature already being inferred gives None, so the other returns
type it; error sites are numbered from 1 in the order their checks are emitted, and the error
record's global has a name unique in the process.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from enzyme_py.custom import CustomRule
from enzyme_py.frontend.errors import FrontendError, SourceInfo
from enzyme_py.frontend.ftypes import FType
from enzyme_py.frontend.global_tuples import inline_tuple_constants
from enzyme_py.frontend.local_functions import LocalFunction
from enzyme_py.frontend.typing import Typer
from enzyme_py.ir import types as T
from enzyme_py.ir.module import Function, GlobalVariable, Module
from enzyme_py.ir.values import zero

ERROR_GLOBAL = "enzyme_py.error"
_SESSIONS = itertools.count(1)


#: The `what` of the site that asks the caller to rerun a version with checked loop copies.
RETRY = "retry with checked copies"
#: The `what` of the site of a gradient whose tape could not be allocated (`ad/tape_checks.py`).
TAPE = "gradient tape"
#: The same, for a gradient whose time loops are already checkpointed (another hint).
TAPE_CHECKPOINTED = "gradient tape, checkpointed"


@dataclass(frozen=True)
class ErrorSite:
    filename: str
    line: int
    source: str
    what: str  # "index" / "range step" ...
    axis: int


@dataclass
class Compiled:
    """One compiled specialization and how to call it."""

    function: Function
    arg_types: tuple[FType, ...]
    return_type: FType
    param_names: list[str]


Specialize = Callable[["CompileSession", object, tuple[FType, ...]], Compiled]


@dataclass
class CompileSession:
    module: Module
    specialize: Specialize  # compiles one specialization, uncached (`compiler.specialize`)
    bounds_check: bool = True
    noalias: bool = True  # array arguments are promised not to overlap (see `arrays.writes`)
    # math.* domain errors and float division by zero raise as in Python (`domain_checks`),
    # instead of giving IEEE results (nan, inf) as NumPy does
    python_errors: bool = False
    compiled: dict[tuple[object, tuple[FType, ...]], Compiled] = field(default_factory=dict)
    in_progress: dict[tuple[object, tuple[FType, ...]], Function] = field(default_factory=dict)
    return_types: dict[tuple[object, tuple[FType, ...]], FType] = field(default_factory=dict)
    sites: list[ErrorSite] = field(default_factory=list)
    # (owner function, dotted name, object) of every global looked up, in order
    global_reads: list[tuple[object, tuple[str, ...], object]] = field(default_factory=list)
    _inferring: set = field(default_factory=set)
    kept_calls: set[Function] = field(default_factory=set)  # functions with a custom rule
    # specializations some call cycle returns to (see `recursion_guard`)
    recursive: set[tuple[object, tuple[FType, ...]]] = field(default_factory=set)
    # versioned loops, when the test before them fails, leave the function with a request
    # for the checked copy instead of running it (a gradient's optimistic compile; see
    # `compile_python`); `retry_site` is that request's site (0: none yet), `retrying` the
    # functions that may leave with it (by a loop of theirs or after a call)
    optimistic: bool = False
    retry_site: int = 0
    retrying: set[Function] = field(default_factory=set)
    # function -> the sites of the failures it may leave with recorded (its checks', its
    # callees'); a function absent records none
    failure_sites: dict[Function, set[int]] = field(default_factory=dict)
    # called with the name of each runtime function the module comes to declare (the matrix
    # kernel): the caller may start compiling it while this module is still being built
    on_declare: Callable[[str], None] | None = None
    # the module is for a reverse-mode gradient: where two forms give the same values, the
    # one whose reverse is cheaper (np.max/np.min of floats: `reductions._extreme`)
    reverse_mode: bool = False
    # a loop's temporaries are made and freed in each iteration (`arrays.heap`), never kept
    # for the next one: a gradient that checkpoints its loops re-runs iterations from saved
    # states, and a buffer carried from one iteration to the next would be saved state
    fresh_temporaries: bool = False
    _serial: int = 0

    def declared(self, fn: Function) -> Function:
        """`fn`, a runtime function just declared in the module, reported to `on_declare`."""
        if self.on_declare is not None:
            self.on_declare(fn.name or "")
        return fn

    @property
    def error_name(self) -> str:
        """A name unique in the process: every JIT-compiled session has its own record."""
        if self._serial == 0:
            self._serial = next(_SESSIONS)
        return f"{ERROR_GLOBAL}.{self._serial}"

    def error_global(self) -> GlobalVariable:
        """`[site, index, extent]` of the first failed check; external so the optimizer keeps
        the stores (the Python caller reads it)."""
        g = self.module.symbols.get(self.error_name)
        if isinstance(g, GlobalVariable):
            return g
        t = T.ArrayType(3, T.I64)
        gv = GlobalVariable(self.error_name, t, zero(t))  # type: ignore[arg-type]
        gv.suffix = ["align 8"]
        return self.module.add_global(gv)

    def note_global(self, owner: object, names: tuple[str, ...], value: object) -> None:
        """A global the front end looked up while compiling `owner` (see
        `Typer.resolve_global`): kept in `global_reads`, in order, for the persistent cache."""
        self.global_reads.append((owner, names, value))

    def add_site(self, site: ErrorSite) -> int:
        self.sites.append(site)
        return len(self.sites)

    def retry_site_id(self) -> int:
        """The site of the request for the checked copies (one per session)."""
        if not self.retry_site:
            self.retry_site = self.add_site(ErrorSite("", 0, "", RETRY, 0))
        return self.retry_site

    def return_type_of(self, pyfunc: object, arg_types: tuple[FType, ...]) -> FType | None:
        key = (pyfunc, arg_types)
        got = self.return_types.get(key)
        if got is not None:
            return got
        if key in self._inferring:
            return None  # recursive call: typed by the other returns
        self._inferring.add(key)
        try:
            typer = _typer_for(pyfunc, arg_types, self)
            typer.infer()
        finally:
            self._inferring.discard(key)
        assert typer.return_type is not None
        self.return_types[key] = typer.return_type
        return typer.return_type

    def function_for(self, pyfunc: object, arg_types: tuple[FType, ...]) -> Function:
        key = (pyfunc, arg_types)
        got = self.compiled.get(key)
        if got is not None:
            return got.function
        fn = self.in_progress.get(key)
        if fn is not None:
            self.recursive.add(key)  # a call cycle returns to it: it gets a depth guard
            return fn
        return self.compile(pyfunc, arg_types).function

    def compile(self, pyfunc: object, arg_types: tuple[FType, ...]) -> Compiled:
        key = (pyfunc, arg_types)
        got = self.compiled.get(key)
        if got is not None:
            return got
        result = self.specialize(self, pyfunc, arg_types)
        self.compiled[key] = result
        return result


_parse_lock = threading.Lock()  # CPython 3.11's ast.parse is not thread-safe
# id(code object) -> (a weak reference to it, its definition, its source); under _parse_lock
_PARSED: dict[int, tuple[weakref.ref, ast.FunctionDef, SourceInfo]] = {}


def _parse_function(pyfunc: object) -> tuple[ast.FunctionDef, SourceInfo]:
    """The `def` of `pyfunc` and where its source lives, parsed once per code object.

    Parsing is serialized: concurrent `ast.parse` calls can fail in CPython 3.11 ("AST
    constructor recursion depth mismatch"). Every compile of the same code object shares one
    definition, so the front end never mutates one (a changed definition is built from new
    nodes, as `LocalFunction.with_captures` does); its decorators are dropped when it is
    parsed. An entry goes when its code object is collected."""
    code = getattr(pyfunc, "__code__", None)
    with _parse_lock:
        got = _PARSED.get(id(code)) if code is not None else None
        if got is not None and got[0]() is code:
            return got[1], got[2]
        fdef, src = _parse_source(pyfunc)
        if code is not None:
            key = id(code)
            # The callback runs as the code object is freed, before its id can be reused.
            _PARSED[key] = (weakref.ref(code, lambda _, key=key: _PARSED.pop(key, None)),
                            fdef, src)
    return fdef, src


def _parse_source(pyfunc: object) -> tuple[ast.FunctionDef, SourceInfo]:
    name = getattr(pyfunc, "__name__", "?")
    try:
        lines, first = inspect.getsourcelines(pyfunc)  # type: ignore[arg-type]
        filename = inspect.getsourcefile(pyfunc) or "<unknown>"  # type: ignore[arg-type]
    except (OSError, TypeError):
        raise FrontendError(f"cannot read the source of {name}() (functions typed at the "
                            "interactive prompt or made by exec have none)") from None
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    tree = ast.parse(text)
    fdef = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if fdef is None:
        raise FrontendError(f"{name} is not a plain 'def' function (lambdas and other "
                            "callables are not supported)", filename=filename, line=first,
                            col=1)
    src = SourceInfo(filename, text.splitlines(), first, indent)
    # Decorators were applied already; the body is what we compile.
    fdef.decorator_list = []
    return fdef, src


def _typer_for(pyfunc: object, arg_types: tuple[FType, ...], session: CompileSession) -> Typer:
    typer = _new_typer(pyfunc, arg_types, session)
    typer.on_global = session.note_global
    for name, value in typer.inlined_globals:  # (read before the typer existed)
        session.note_global(typer.owner, (name,), value)
    return typer


def _new_typer(pyfunc: object, arg_types: tuple[FType, ...], session: CompileSession) -> Typer:
    if isinstance(pyfunc, LocalFunction):
        fdef = pyfunc.with_captures()
        params = _param_names(fdef, pyfunc.src, len(arg_types))
        return Typer(fdef, dict(zip(params, arg_types, strict=True)), pyfunc.globals,
                     pyfunc.src, session.return_type_of, pyfunc, pyfunc.siblings)
    if isinstance(pyfunc, CustomRule):
        pyfunc = pyfunc.fun
    fdef, src = _parse_function(pyfunc)
    params = _param_names(fdef, src, len(arg_types))
    scope = function_scope(pyfunc)
    fdef, inlined = inline_tuple_constants(fdef, scope)
    typer = Typer(fdef, dict(zip(params, arg_types, strict=True)), scope, src,
                  session.return_type_of, pyfunc)
    typer.inlined_globals = inlined
    return typer


def function_scope(pyfunc: object) -> dict[str, object]:
    """The names a function's body can read besides its locals: its globals, and its closure
    cells' contents (a cell not yet assigned is left out)."""
    scope = dict(getattr(pyfunc, "__globals__", {}))
    closure = getattr(pyfunc, "__closure__", None)
    if closure:
        for name, cell in zip(pyfunc.__code__.co_freevars, closure, strict=True):  # type: ignore
            try:
                scope[name] = cell.cell_contents
            except ValueError:
                pass
    return scope


def _param_names(fdef: ast.FunctionDef, src: SourceInfo, count: int) -> list[str]:
    a = fdef.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        raise src.error(fdef, "*args, **kwargs, keyword-only and positional-only parameters "
                        "are not supported", "plain positional parameters")
    names = [p.arg for p in a.args]  # defaults are bound by the caller (`arguments`)
    if len(names) != count:
        raise src.error(fdef, f"{fdef.name}() takes {len(names)} arguments, {count} given")
    return names
