"""The Python front end: functions of a typed numeric subset of Python -> IR.

`compile_python(f, arg_types)` gives a module holding `f` specialized on `arg_types` (and every
Python function it calls). See `compiler` for the calling convention.
"""

from __future__ import annotations

from collections.abc import Callable

from enzyme_py.custom import CustomRule
from enzyme_py.frontend.compiler import Compiled, CompileSession, ErrorSite, specialize
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.frontend.ftypes import Array, FType, Scalar, Tree, Tuple, type_of_value
from enzyme_py.frontend.session import RETRY
from enzyme_py.ir import GlobalVariable, Module, verify
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import ConstantAggregate

__all__ = ["RETRY", "Array", "Compiled", "CompileSession", "ErrorSite", "FType",
           "FrontendError", "Scalar", "Tree", "Tuple", "compile_python", "type_of_value"]


def compile_python(pyfunc: object, arg_types: tuple[FType, ...], *,
                   bounds_check: bool = True, noalias: bool = True,
                   python_errors: bool = False, optimistic: bool = False,
                   on_declare: Callable[[str], None] | None = None,
                   reverse_mode: bool = False, fresh_temporaries: bool = False
                   ) -> tuple[Module, Compiled, CompileSession]:
    """Compile `pyfunc` for `arg_types` into a fresh module (verified). With `noalias`, the
    caller promises that no two array arguments overlap; with `python_errors`, math.* domain
    errors and float division by zero raise as in Python (see `domain_checks`).

    `optimistic`: where the test before a versioned loop fails, the function records the
    `RETRY` site and returns instead of running the loop's checked copy, and a caller of such
    a function leaves the same way after the call; the caller of the compiled code then runs
    a version compiled without `optimistic`, which gives the same results. `reverse_mode`:
    the module is for a reverse-mode gradient (`CompileSession.reverse_mode`);
    `fresh_temporaries`: see `CompileSession.fresh_temporaries`. `on_declare` is
    called with each runtime function the module comes to declare (`CompileSession`). A
    session with a recursive function, a custom rule or an inactive function (calls that do
    not pass the request on) is compiled with its checked copies: `session.retry_site` stays
    0."""
    name = getattr(pyfunc, "__name__", "f")
    session = CompileSession(Module(f"enzyme_py:{name}"), specialize,
                             bounds_check=bounds_check, noalias=noalias,
                             python_errors=python_errors, optimistic=optimistic,
                             on_declare=on_declare, reverse_mode=reverse_mode,
                             fresh_temporaries=fresh_temporaries)
    compiled = session.compile(pyfunc, arg_types)
    if session.retry_site and (session.recursive or session.kept_calls or isinstance(
            pyfunc, CustomRule) or any(getattr(f, "_enzyme_inactive", False)
                                       for f, _ in session.compiled)):
        return compile_python(pyfunc, arg_types, bounds_check=bounds_check, noalias=noalias,
                              python_errors=python_errors, on_declare=on_declare)
    if isinstance(pyfunc, CustomRule):  # the rule applies to calls: call it from an entry
        compiled = _entry_calling(session, name, compiled)
    inactive = [c.function for (f, _), c in session.compiled.items()
                if getattr(f, "_enzyme_inactive", False) and c is not compiled]
    for fn in session.module.functions:
        if fn is not compiled.function and not fn.is_declaration:
            fn.prefix = ["internal"]
            # inline into one function for AD, except functions marked inactive and those
            # with a custom rule: their calls must stay calls, listed in Enzyme's globals
            keep = fn in inactive or fn in session.kept_calls
            fn.suffix = ["noinline"] if keep else ["alwaysinline"]
    if inactive:
        t = T.ArrayType(len(inactive), T.PTR)
        # external, so the optimizer keeps it until AD reads it; unique per session
        table = GlobalVariable(f"__enzyme_inactivefn.{session.error_name.rsplit('.', 1)[1]}",
                               t, ConstantAggregate(t, tuple(inactive)))
        session.module.add_global(table)
    verify(session.module)
    return session.module, compiled, session


def _entry_calling(session: CompileSession, name: str, target: Compiled) -> Compiled:
    """An external function with `target`'s signature that calls it."""
    module = session.module
    fn = Function(module.unique_name(f"{name}.entry"), target.function.function_type,
                  [a.name for a in target.function.args])
    module.add_function(fn)
    b = Builder(fn.append_block("entry"))
    result = b.call(target.function, list(fn.args))
    b.ret(None if fn.return_type.is_void else result)
    return Compiled(fn, target.arg_types, target.return_type, target.param_names)
