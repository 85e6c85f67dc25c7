"""IR for `custom_vjp` / `custom_jvp` functions (see `enzyme_py.custom` for the user's view).

A call to a decorated function compiles the function itself (kept a call: `noinline`), the
rule functions for the same argument types, and small wrappers in Enzyme's ABI, registered in
globals that `ad.registrations` reads:

- `custom_vjp`: `@f.vjp_rule(args with a shadow after every array pointer, seed)` runs
  `fwd` (for the residuals) and then `bwd`, and returns the float arguments' cotangents;
  registered as `__enzyme_register_gradient.enzyme_py.f = {f, null, f.vjp_rule}`. A
  `custom_vjp` function returning an array goes through memory instead (`custom_array_ir`).
- `custom_jvp`: `@f.jvp_rule(args, each float and array pointer followed by its tangent)`
  returns `{out, tangent}`; `@f.tangent` returns the tangent alone and never gets null
  pointers (reverse mode differentiates it); registered as
  `__enzyme_register_derivative.enzyme_py.f = {f, f.jvp_rule, f.tangent}`.

Invariants: wrappers take the shadow/tangent positions whatever the activity of a call (a null
pointer for a missing shadow, which the wrapper replaces by zeroed scratch memory, freed before
returning); the rule functions are type-checked against `f` here, with errors that name them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from enzyme_py.ad.registrations import DERIVATIVE_PREFIX, REGISTER_PREFIX
from enzyme_py.custom import CustomRule, custom_jvp, custom_vjp
from enzyme_py.frontend import custom_abi as A
from enzyme_py.frontend.custom_array_ir import compile_array_vjp
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.frontend.ftypes import Array, FType, Scalar, Tuple
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import Value, zero

if TYPE_CHECKING:
    from enzyme_py.frontend.session import Compiled, CompileSession

_OR_ARRAY = {"custom_vjp": " or an array", "custom_jvp": ""}
CompileFunction = Callable[["CompileSession", object, tuple[FType, ...]], "Compiled"]


def compile_custom(session: CompileSession, rule: CustomRule, arg_types: tuple[FType, ...],
                   compile_function: CompileFunction) -> Compiled:
    """Compile `rule.fun` for `arg_types` as a call that stays a call, with its rule;
    `compile_function` compiles a plain Python function (`compiler.compile_function`)."""
    name = rule.__name__
    if not rule.rules_defined():
        how = "defvjp(fwd, bwd)" if isinstance(rule, custom_vjp) else "defjvp(rule)"
        raise FrontendError(f"{name} is a {rule.kind} function without a rule: call "
                            f"{name}.{how} before differentiating it")
    compiled = compile_function(session, rule.fun, arg_types)
    ret = compiled.return_type
    if isinstance(ret, Array) and isinstance(rule, custom_vjp):
        return compile_array_vjp(session, rule, arg_types, compiled)
    if not (isinstance(ret, Scalar) and ret.is_float):
        raise FrontendError(f"{name}: a {rule.kind} function must return a float"
                            f"{_OR_ARRAY[rule.kind]}; it returns {ret}")
    session.kept_calls.add(compiled.function)
    session.compiled[(rule, arg_types)] = compiled  # the rules may call the function itself
    if isinstance(rule, custom_vjp):
        _register_vjp(session, rule, compiled)
        if rule.jvp is not None:  # (forward mode's rule beside it: no tangent function)
            jvp = _checked_jvp(session, rule.jvp, rule.__name__, compiled.arg_types, ret)
            _register_derivative(session, compiled, jvp, with_tangent=False)
    else:
        assert isinstance(rule, custom_jvp)
        _register_jvp(session, rule, compiled)
    return compiled


# --- custom_vjp ---------------------------------------------------------------------------------


def _register_vjp(session: CompileSession, rule: custom_vjp, compiled: Compiled) -> None:
    assert rule.fwd is not None and rule.bwd is not None
    arg_types, ret = compiled.arg_types, compiled.return_type
    assert isinstance(ret, Scalar)
    fwd = session.compile(rule.fwd, arg_types)
    fwd_ret = fwd.return_type
    residuals: tuple[Scalar, ...] = ()
    if isinstance(fwd_ret, Tuple) and fwd_ret.items and fwd_ret.items[0] == ret:
        residuals = fwd_ret.items[1:]
    elif fwd_ret != ret:
        raise FrontendError(f"{rule.fwd.__name__} (fwd of {rule.__name__}) must return "
                            f"(out, r1, ..., rk) with out a {ret}; it returns {fwd_ret}")
    arrays = [t for t in arg_types if isinstance(t, Array)]
    bwd_types = (*residuals, ret, *(a for t in arrays for a in (t, t)))
    bwd = session.compile(rule.bwd, bwd_types)
    want, ret_ir = A.float_cotangents(arg_types)
    A.check_result(rule.bwd.__name__, bwd.return_type, want,
                   f"one cotangent per float argument of {rule.__name__}")
    ftype = T.FunctionType(ret_ir, (*A.wrapper_params(arg_types, False), ret.ir))
    fn = A.new_function(session, f"{compiled.function.name}.vjp_rule", ftype)
    primal, extra = A.split_params(fn, arg_types, float_tangents=False)
    seed = fn.args[-1]
    b = Builder(fn.append_block("entry"))
    primal_args = [v for group in primal for v in group]
    res = b.call(fwd.function, primal_args)
    res_vals = [b.extractvalue(res, [k]) for k in range(1, len(residuals) + 1)]
    to_free: list[Value] = []
    array_args: list[Value] = []
    for t, group, shadow in zip(arg_types, primal, extra, strict=True):
        if isinstance(t, Array):
            assert shadow is not None
            eff = A.nonnull(b, fn, shadow, t, group[1:], to_free)
            array_args.extend([*group, eff, *group[1:]])
    cot = b.call(bwd.function, [*res_vals, seed, *array_args])
    A.free_all(b, fn, to_free)
    b.ret(None if ret_ir.is_void else cot)
    A.register(session, REGISTER_PREFIX, compiled.function,
              [compiled.function, zero(T.PTR), fn])


# --- custom_jvp ---------------------------------------------------------------------------------


def _register_jvp(session: CompileSession, rule: custom_jvp, compiled: Compiled) -> None:
    assert rule.jvp is not None
    jvp = _checked_jvp(session, rule.jvp, rule.__name__, compiled.arg_types,
                       compiled.return_type)
    _register_derivative(session, compiled, jvp, with_tangent=True)


def _checked_jvp(session: CompileSession, rule: Callable, name: str,
                 arg_types: tuple[FType, ...], ret: FType) -> Compiled:
    """The forward rule compiled for `f`'s arguments and their tangents (one per float and
    array argument), checked to return `(out, tangent_out)`."""
    jvp = session.compile(rule, (*arg_types, *A.tangent_types(arg_types)))
    A.check_result(rule.__name__, jvp.return_type, Tuple((ret, ret)),
                   f"(out, tangent_out) of {name}")
    return jvp


def _register_derivative(session: CompileSession, compiled: Compiled, jvp: Compiled,
                         with_tangent: bool) -> None:
    arg_types, ret = compiled.arg_types, compiled.return_type
    assert isinstance(ret, Scalar)
    ptypes = tuple(A.wrapper_params(arg_types, True))
    pair = T.StructType((ret.ir, ret.ir))
    fns: list[Value] = [compiled.function, _jvp_wrapper(
        session, compiled, jvp.function, arg_types, T.FunctionType(pair, ptypes), "jvp_rule",
        scratch=True)]
    if with_tangent:
        fns.append(_jvp_wrapper(session, compiled, jvp.function, arg_types,
                                T.FunctionType(ret.ir, ptypes), "tangent", scratch=False))
    A.register(session, DERIVATIVE_PREFIX, compiled.function, fns)


def _jvp_wrapper(session: CompileSession, compiled: Compiled, jvp: Function,
                 arg_types: tuple[FType, ...], ftype: T.FunctionType, suffix: str,
                 scratch: bool) -> Function:
    """`{out, tangent}` (or the tangent alone) of the rule; with `scratch`, a null tangent
    array stands for zeros."""
    fn = A.new_function(session, f"{compiled.function.name}.{suffix}", ftype)
    primal, extras = A.split_params(fn, arg_types, float_tangents=True)
    b = Builder(fn.append_block("entry"))
    to_free: list[Value] = []
    tangents = A.tangent_args(b, fn, arg_types, primal, extras, to_free if scratch else None)
    out = b.call(jvp, [*(v for g in primal for v in g), *tangents])
    A.free_all(b, fn, to_free)
    b.ret(out if scratch else b.extractvalue(out, [1]))
    return fn
