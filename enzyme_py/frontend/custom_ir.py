"""IR for `custom_vjp` / `custom_jvp` functions (see `enzyme_py.custom` for the user's view).

A call to a decorated function compiles the function itself (kept a call: `noinline`), the
rule functions for the same argument types, and small wrappers in Enzyme's ABI, registered in
globals that `ad.registrations` reads:

- `custom_vjp`: `@f.vjp_rule(args with a shadow after every array pointer, seed)` runs
  `fwd` (for the residuals) and then `bwd`, and returns the float arguments' cotangents;
  registered as `__enzyme_register_gradient.enzyme_py.f = {f, null, f.vjp_rule}`.
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

from enzyme_py.ad.registrations import DERIVATIVE_PREFIX, PYTHON_MARK, REGISTER_PREFIX
from enzyme_py.custom import CustomRule, custom_jvp, custom_vjp
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.frontend.ftypes import Array, FType, NoneType, Scalar, Tuple
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, GlobalVariable
from enzyme_py.ir.values import ConstantAggregate, ConstantInt, Value, zero

if TYPE_CHECKING:
    from enzyme_py.frontend.session import Compiled, CompileSession

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
    if not (isinstance(ret, Scalar) and ret.is_float):
        raise FrontendError(f"{name}: a {rule.kind} function must return a float; it returns "
                            f"{ret}")
    session.kept_calls.add(compiled.function)
    session.compiled[(rule, arg_types)] = compiled  # the rules may call the function itself
    if isinstance(rule, custom_vjp):
        _register_vjp(session, rule, compiled)
    else:
        assert isinstance(rule, custom_jvp)
        _register_jvp(session, rule, compiled)
    return compiled


# --- signatures ---------------------------------------------------------------------------------


def _split_params(fn: Function, arg_types: tuple[FType, ...], float_tangents: bool
                  ) -> tuple[list[list[Value]], list[Value | None]]:
    """The wrapper's parameters by argument of `f`: the primal IR values (an array's pointer
    and extents), and the shadow or tangent that follows (None for integers, and for floats
    unless `float_tangents`)."""
    primal: list[list[Value]] = []
    extra: list[Value | None] = []
    args = iter(fn.args)
    for t in arg_types:
        if isinstance(t, Array):
            ptr, shadow = next(args), next(args)
            primal.append([ptr, *(next(args) for _ in range(t.ndim))])
            extra.append(shadow)
        else:
            assert isinstance(t, Scalar)
            primal.append([next(args)])
            extra.append(next(args) if t.is_float and float_tangents else None)
    return primal, extra


def _wrapper_params(arg_types: tuple[FType, ...], with_float_tangents: bool) -> list[T.Type]:
    out: list[T.Type] = []
    for t in arg_types:
        if isinstance(t, Array):
            out.extend([T.PTR, T.PTR, *([T.I64] * t.ndim)])
        else:
            assert isinstance(t, Scalar)
            out.append(t.ir)
            if t.is_float and with_float_tangents:
                out.append(t.ir)
    return out


def _new_function(session: CompileSession, name: str, ftype: T.FunctionType) -> Function:
    module = session.module
    fn = Function(module.unique_name(name), ftype)
    module.add_function(fn)
    return fn


def _register(session: CompileSession, prefix: str, f: Function,
              fns: list[Value]) -> None:
    t = T.ArrayType(len(fns), T.PTR)
    name = session.module.unique_name(f"{prefix}{PYTHON_MARK}{f.name}")
    session.module.add_global(GlobalVariable(name, t, ConstantAggregate(t, tuple(fns))))


def _check_result(rule_name: str, got: FType, want: FType, what: str) -> None:
    if got != want:
        raise FrontendError(f"{rule_name} must return {what} ({want}); it returns {got}")


# --- scratch shadows for missing ones -----------------------------------------------------------


def _nonnull(b: Builder, fn: Function, ptr: Value, t: Array, dims: list[Value],
             to_free: list[Value]) -> Value:
    """`ptr`, or zeroed scratch memory of the array's size when `ptr` is null (recorded in
    `to_free`; `free(null)` is a no-op, so the wrapper frees a select of the two)."""
    module = fn.parent
    assert module is not None
    calloc = module.declare_function("calloc", T.FunctionType(T.PTR, (T.I64, T.I64)))
    count: Value = ConstantInt(T.I64, 1)
    for d in dims:
        count = b.mul(count, d)
    is_null = b.icmp("eq", ptr, zero(T.PTR))
    here = b.block
    assert here is not None
    alloc = fn.append_block("scratch")
    join = fn.append_block("have_shadow")
    b.condbr(is_null, alloc, join)
    b.position_at_end(alloc)
    size = ConstantInt(T.I64, t.elem.dtype.itemsize)
    fresh = b.call(calloc, [count, size], name="scratch")
    b.br(join)
    b.position_at_end(join)
    eff = b.phi(T.PTR, [(ptr, here), (fresh, alloc)])
    to_free.append(b.select(is_null, eff, zero(T.PTR)))
    return eff


def _free_all(b: Builder, fn: Function, to_free: list[Value]) -> None:
    if not to_free:
        return
    module = fn.parent
    assert module is not None
    free = module.declare_function("free", T.FunctionType(T.VOID, (T.PTR,)))
    for p in to_free:
        b.call(free, [p])


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
    floats = [t for t in arg_types if isinstance(t, Scalar) and t.is_float]
    want: FType = (NoneType() if not floats else floats[0] if len(floats) == 1
                   else Tuple(tuple(floats)))
    _check_result(rule.bwd.__name__, bwd.return_type, want,
                  f"one cotangent per float argument of {rule.__name__}")

    ret_ir = T.VOID if not floats else floats[0].ir if len(floats) == 1 else \
        T.StructType(tuple(t.ir for t in floats))
    ftype = T.FunctionType(ret_ir, (*_wrapper_params(arg_types, False), ret.ir))
    fn = _new_function(session, f"{compiled.function.name}.vjp_rule", ftype)
    primal, extra = _split_params(fn, arg_types, float_tangents=False)
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
            eff = _nonnull(b, fn, shadow, t, group[1:], to_free)
            array_args.extend([*group, eff, *group[1:]])
    cot = b.call(bwd.function, [*res_vals, seed, *array_args])
    _free_all(b, fn, to_free)
    b.ret(None if ret_ir.is_void else cot)
    _register(session, REGISTER_PREFIX, compiled.function,
              [compiled.function, zero(T.PTR), fn])


# --- custom_jvp ---------------------------------------------------------------------------------


def _register_jvp(session: CompileSession, rule: custom_jvp, compiled: Compiled) -> None:
    assert rule.jvp is not None
    arg_types, ret = compiled.arg_types, compiled.return_type
    assert isinstance(ret, Scalar)
    tangent_types = tuple(t for t in arg_types if isinstance(t, Array) or
                          isinstance(t, Scalar) and t.is_float)
    jvp = session.compile(rule.jvp, (*arg_types, *tangent_types))
    _check_result(rule.jvp.__name__, jvp.return_type, Tuple((ret, ret)),
                  f"(out, tangent_out) of {rule.__name__}")
    ptypes = tuple(_wrapper_params(arg_types, True))
    pair = T.StructType((ret.ir, ret.ir))
    derivative = _jvp_wrapper(session, compiled, jvp.function, arg_types,
                              T.FunctionType(pair, ptypes), "jvp_rule", scratch=True)
    tangent = _jvp_wrapper(session, compiled, jvp.function, arg_types,
                           T.FunctionType(ret.ir, ptypes), "tangent", scratch=False)
    _register(session, DERIVATIVE_PREFIX, compiled.function,
              [compiled.function, derivative, tangent])


def _jvp_wrapper(session: CompileSession, compiled: Compiled, jvp: Function,
                 arg_types: tuple[FType, ...], ftype: T.FunctionType, suffix: str,
                 scratch: bool) -> Function:
    """`{out, tangent}` (or the tangent alone) of the rule; with `scratch`, a null tangent
    array stands for zeros."""
    fn = _new_function(session, f"{compiled.function.name}.{suffix}", ftype)
    primal, extras = _split_params(fn, arg_types, float_tangents=True)
    b = Builder(fn.append_block("entry"))
    to_free: list[Value] = []
    tangents: list[Value] = []
    for t, group, extra in zip(arg_types, primal, extras, strict=True):
        if isinstance(t, Array):
            assert extra is not None
            eff = _nonnull(b, fn, extra, t, group[1:], to_free) if scratch else extra
            tangents.extend([eff, *group[1:]])
        elif extra is not None:
            tangents.append(extra)
    out = b.call(jvp, [*(v for g in primal for v in g), *tangents])
    _free_all(b, fn, to_free)
    b.ret(out if scratch else b.extractvalue(out, [1]))
    return fn
