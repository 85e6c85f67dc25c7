"""IR for `custom_vjp` functions that return an array (`custom_ir` has the float case).

The subset returns an array as a fresh buffer the caller owns (`{ptr, extents}`). Enzyme's
ABI differentiates an opaque call only through its pointer arguments, so the returned array
travels through memory: a call `y = f(a, b)` compiles to

- `@f.into(args..., ptr writeonly %slot)`, kept a call: runs `f` and writes the result's
  pointer and extents into `%slot` (one 8-byte word each);
- `@f.result(args...)`, inlined into the caller: `%slot = alloca`, the call, then the words
  read back as `f`'s result;
- registered in the tape form `{f.into, f.vjp_fwd, f.vjp_bwd}` (`ad.registrations`):
  `@f.vjp_fwd(args and shadows, %slot, %slot.shadow)` replaces the call in the forward
  sweep: it runs the user's `fwd` (so `f` itself does not run there), writes `out` into
  `%slot`, a zeroed shadow buffer of `out`'s size into `%slot.shadow` (the caller's adjoint
  code accumulates the output's cotangent there), and returns a tape holding the residuals
  and that shadow; `@f.vjp_bwd(args and shadows, %slot, %slot.shadow, %tape)` calls the
  user's `bwd(residuals..., g, a_bar, ...)` with `g` the shadow buffer and one cotangent
  array per array argument (added into), zeroes `g` (Enzyme's rule: a rule owns the adjoints
  of what its function wrote), frees the residual arrays and the tape, and returns the float
  arguments' cotangents.

Invariants: the reverse sweep reads no primal memory, neither the array arguments nor
`%slot` (the call may run again, in a loop, and overwrite them): what `bwd` needs of the
primal is on the tape, and `vjp_bwd`'s pointer parameters other than the shadows and the
tape are `readnone`, so `ad.reverse_ops` allows later writes to that memory; after
a failure was recorded (a `raise` in `fwd`, an error later in the caller), `vjp_bwd` frees
what it owns and returns zeros without calling `bwd`, so the error raised is the first one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enzyme_py.ad.registrations import DERIVATIVE_PREFIX, REGISTER_PREFIX
from enzyme_py.custom import custom_vjp
from enzyme_py.frontend import custom_abi as C
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.frontend.ftypes import Array, FType, Scalar, Tuple
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import ConstantInt, Value, zero

if TYPE_CHECKING:
    from enzyme_py.frontend.session import Compiled, CompileSession

WORD = 8  # every field of the slot and the tape takes one 8-byte word


def compile_array_vjp(session: CompileSession, rule: custom_vjp, arg_types: tuple[FType, ...],
                      body: Compiled) -> Compiled:
    """`body` (`rule.fun` compiled for `arg_types`, returning an array) as a call of
    `@f.into` with `rule`'s fwd/bwd registered in the tape form; the `Compiled` to call."""
    from enzyme_py.frontend.session import Compiled

    ret = body.return_type
    assert isinstance(ret, Array)
    into = _into(session, body, arg_types)
    session.kept_calls.add(into)
    compiled = Compiled(_result(session, body, into), arg_types, ret, body.param_names)
    session.compiled[(rule, arg_types)] = compiled  # the rules may call the function itself
    fwd = session.compile(rule.fwd, arg_types)  # type: ignore[arg-type]
    residuals = _residuals(rule, fwd.return_type, ret)
    arrays = [t for t in arg_types if isinstance(t, Array)]
    bwd = session.compile(rule.bwd, (*residuals, ret, *arrays))
    want, _ = C.float_cotangents(arg_types)
    C.check_result(rule.bwd.__name__, bwd.return_type, want,  # type: ignore[union-attr]
                   f"one cotangent per float argument of {rule.__name__}")
    aug = _vjp_fwd(session, into, fwd.function, arg_types, ret)
    rev = _vjp_bwd(session, into, bwd.function, arg_types, ret, fwd.function, residuals)
    C.register(session, REGISTER_PREFIX, into, [into, aug, rev])
    if rule.jvp is not None:
        jvp = session.compile(rule.jvp, (*arg_types, *C.tangent_types(arg_types)))
        got = jvp.return_type
        if not (isinstance(got, Tuple) and len(got.items) == 2 and
                all(_same_array(t, ret) for t in got.items)):
            raise FrontendError(f"{rule.jvp.__name__} must return (out, tangent_out) of "
                                f"{rule.__name__} ({ret}, {ret}); it returns {got}")
        C.register(session, DERIVATIVE_PREFIX, into,
                   [into, _jvp_rule(session, into, jvp.function, arg_types, ret)])
    sites = session.failure_sites
    for fn in (into, compiled.function):  # a failure of the body or of fwd leaves by these
        sites[fn] = sites.get(body.function, set()) | sites.get(fwd.function, set())
    return compiled


def _residuals(rule: custom_vjp, got: FType, ret: Array) -> tuple[FType, ...]:
    fwd = rule.fwd
    assert fwd is not None
    if isinstance(got, Tuple) and got.items and _same_array(got.items[0], ret):
        rest = got.items[1:]
        if all(isinstance(t, Scalar | Array) for t in rest):
            return rest
    elif _same_array(got, ret):
        return ()
    raise FrontendError(f"{fwd.__name__} (fwd of {rule.__name__}) must return (out, r1, ..., "
                        f"rk) with out a {ret} and numbers or arrays after it; it returns {got}")


def _same_array(t: FType, ret: Array) -> bool:
    return isinstance(t, Array) and (t.elem, t.ndim) == (ret.elem, ret.ndim)


# --- the words of a slot or a tape ----------------------------------------------------------


def _word(b: Builder, base: Value, k: int) -> Value:
    return b.getelementptr(T.I8, base, [ConstantInt(T.I64, WORD * k)])


def _store_words(b: Builder, values: list[Value], base: Value, first: int = 0) -> None:
    for k, v in enumerate(values):
        b.store(v, _word(b, base, first + k), align=WORD)


def _load_words(b: Builder, types: list[T.Type], base: Value, first: int = 0) -> list[Value]:
    return [b.load(t, _word(b, base, first + k), align=WORD) for k, t in enumerate(types)]


def _field_types(fwd: Function) -> list[T.Type]:
    """The flat fields of `fwd`'s result `(out, r1, ..., rk)` (the IR struct's elements)."""
    ret = fwd.return_type
    assert isinstance(ret, T.StructType)
    return list(ret.elements)


def _fields(b: Builder, agg: Value, count: int) -> list[Value]:
    return [b.extractvalue(agg, [k]) for k in range(count)]


def _calloc(b: Builder, fn: Function, count: Value, size: int) -> Value:
    module = fn.parent
    assert module is not None
    calloc = module.declare_function("calloc", T.FunctionType(T.PTR, (T.I64, T.I64)))
    return b.call(calloc, [count, ConstantInt(T.I64, size)])


def _product(b: Builder, dims: list[Value]) -> Value:
    out: Value = ConstantInt(T.I64, 1)
    for d in dims:
        out = b.mul(out, d)
    return out


# --- the call ---------------------------------------------------------------------------------


def _into(session: CompileSession, body: Compiled, arg_types: tuple[FType, ...]) -> Function:
    params = [a.type for a in body.function.args]
    fn = C.new_function(session, f"{body.function.name}.into",
                         T.FunctionType(T.VOID, (*params, T.PTR)))
    fn.args[-1].attrs = ["writeonly"]
    b = Builder(fn.append_block("entry"))
    out = b.call(body.function, list(fn.args[:-1]))
    ret = body.return_type
    assert isinstance(ret, Array)
    _store_words(b, _fields(b, out, 1 + ret.ndim), fn.args[-1])
    b.ret(None)
    return fn


def _result(session: CompileSession, body: Compiled, into: Function) -> Function:
    ftype = body.function.function_type
    fn = C.new_function(session, f"{body.function.name}.result", ftype)
    ret = body.return_type
    assert isinstance(ret, Array)
    b = Builder(fn.append_block("entry"))
    slot = b.alloca(T.ArrayType(1 + ret.ndim, T.I64), align=WORD, name="result.slot")
    b.call(into, [*fn.args, slot])
    words = _load_words(b, [T.PTR, *([T.I64] * ret.ndim)], slot)
    agg: Value = zero(fn.return_type)
    for k, w in enumerate(words):
        agg = b.insertvalue(agg, w, [k])
    b.ret(agg)
    return fn


# --- the rule ---------------------------------------------------------------------------------


def _vjp_fwd(session: CompileSession, into: Function, fwd: Function,
             arg_types: tuple[FType, ...], ret: Array) -> Function:
    params = C.wrapper_params(arg_types, False)
    fn = C.new_function(session, f"{into.name}.vjp_fwd",
                         T.FunctionType(T.PTR, (*params, T.PTR, T.PTR)))
    primal, _ = C.split_params(fn, arg_types, float_tangents=False)
    slot, slot_shadow = fn.args[-2], fn.args[-1]
    b = Builder(fn.append_block("entry"))
    res = b.call(fwd, [v for group in primal for v in group])
    fields = _fields(b, res, len(_field_types(fwd)))
    out = fields[:1 + ret.ndim]
    _store_words(b, out, slot)
    # the output's shadow: zeroed, of `out`'s size, where the caller accumulates its adjoint
    here = b.block
    assert here is not None
    make, join = fn.append_block("shadow"), fn.append_block("tape")
    b.condbr(b.icmp("ne", slot_shadow, zero(T.PTR)), make, join)
    b.position_at_end(make)
    fresh = _calloc(b, fn, _product(b, out[1:]), ret.elem.dtype.itemsize)
    _store_words(b, [fresh, *out[1:]], slot_shadow)
    b.br(join)
    b.position_at_end(join)
    shadow = b.phi(T.PTR, [(zero(T.PTR), here), (fresh, make)], name="out.shadow")
    words = [shadow, *fields]
    tape = _malloc(b, fn, WORD * len(words))
    _store_words(b, words, tape)
    b.ret(tape)
    return fn


def _malloc(b: Builder, fn: Function, size: int) -> Value:
    module = fn.parent
    assert module is not None
    malloc = module.declare_function("malloc", T.FunctionType(T.PTR, (T.I64,)))
    return b.call(malloc, [ConstantInt(T.I64, size)], name="tape")


def _vjp_bwd(session: CompileSession, into: Function, bwd: Function,
             arg_types: tuple[FType, ...], ret: Array, fwd: Function,
             residuals: tuple[FType, ...]) -> Function:
    _, ret_ir = C.float_cotangents(arg_types)
    params = C.wrapper_params(arg_types, False)
    fn = C.new_function(session, f"{into.name}.vjp_bwd",
                         T.FunctionType(ret_ir, (*params, T.PTR, T.PTR, T.PTR)))
    primal, extra = C.split_params(fn, arg_types, float_tangents=False)
    for group in primal:  # the reverse sweep reads no primal memory: `ad.reverse_ops`
        if group[0].type.is_pointer:
            group[0].attrs = ["readnone"]  # type: ignore[attr-defined]
    tape = fn.args[-1]
    fn.args[-3].attrs = ["readnone"]
    fn.args[-2].attrs = ["readnone"]
    b = Builder(fn.append_block("entry"))
    words = _load_words(b, [T.PTR, *_field_types(fwd)], tape)
    shadow, out, rest = words[0], words[1:2 + ret.ndim], words[2 + ret.ndim:]
    res_args, owned = _residual_values(residuals, rest)

    run, skip = fn.append_block("rule"), fn.append_block("after.failure")
    error = session.error_global()
    word = b.load(T.I64, b.getelementptr(T.ArrayType(3, T.I64), error, [
        ConstantInt(T.I64, 0), ConstantInt(T.I64, 0)]))
    b.condbr(b.icmp("eq", word, ConstantInt(T.I64, 0)), run, skip)

    b.position_at_end(skip)
    C.free_all(b, fn, [*owned, tape])
    b.ret(None if ret_ir.is_void else zero(ret_ir))

    b.position_at_end(run)
    to_free: list[Value] = []
    g = C.nonnull(b, fn, shadow, ret, out[1:], to_free)
    array_args: list[Value] = []
    for t, group, sh in zip(arg_types, primal, extra, strict=True):
        if isinstance(t, Array):
            assert sh is not None
            array_args.extend([C.nonnull(b, fn, sh, t, group[1:], to_free), *group[1:]])
    cot = b.call(bwd, [*res_args, g, *out[1:], *array_args])
    _zero(b, fn, g, _product(b, out[1:]), ret.elem.dtype.itemsize)
    C.free_all(b, fn, [*to_free, *owned, tape])
    b.ret(None if ret_ir.is_void else cot)
    return fn


def _jvp_rule(session: CompileSession, into: Function, jvp: Function,
              arg_types: tuple[FType, ...], ret: Array) -> Function:
    """`@f.into.jvp_rule(args, each float and array pointer followed by its tangent, %slot,
    %slot.tangent)`: forward mode's call in place of `f.into`; writes `out` into `%slot` and
    `tangent_out` (a fresh buffer, which the caller's tangent code owns) into
    `%slot.tangent` (freed when that is null: nothing asked for it)."""
    fn = C.new_function(session, f"{into.name}.jvp_rule", T.FunctionType(
        T.VOID, (*C.wrapper_params(arg_types, True), T.PTR, T.PTR)))
    primal, extras = C.split_params(fn, arg_types, float_tangents=True)
    slot, slot_tangent = fn.args[-2], fn.args[-1]
    b = Builder(fn.append_block("entry"))
    to_free: list[Value] = []
    tangents = C.tangent_args(b, fn, arg_types, primal, extras, to_free)
    res = b.call(jvp, [*(v for g in primal for v in g), *tangents])
    width = 1 + ret.ndim
    fields = _fields(b, res, 2 * width)
    _store_words(b, fields[:width], slot)
    here = b.block
    assert here is not None
    keep, drop, done = (fn.append_block("tangent.keep"), fn.append_block("tangent.drop"),
                        fn.append_block("done"))
    b.condbr(b.icmp("ne", slot_tangent, zero(T.PTR)), keep, drop)
    b.position_at_end(keep)
    _store_words(b, fields[width:], slot_tangent)
    b.br(done)
    b.position_at_end(drop)
    C.free_all(b, fn, [fields[width]])
    b.br(done)
    b.position_at_end(done)
    C.free_all(b, fn, to_free)
    b.ret(None)
    return fn


def _residual_values(residuals: tuple[FType, ...], words: list[Value]
                     ) -> tuple[list[Value], list[Value]]:
    """The residuals' IR values for `bwd`, and the buffers of the residual arrays (the rule
    owns them: `fwd` returned fresh ones)."""
    values: list[Value] = []
    owned: list[Value] = []
    it = iter(words)
    for t in residuals:
        if isinstance(t, Array):
            ptr = next(it)
            owned.append(ptr)
            values.extend([ptr, *(next(it) for _ in range(t.ndim))])
        else:
            values.append(next(it))
    return values, owned


def _zero(b: Builder, fn: Function, ptr: Value, count: Value, size: int) -> None:
    module = fn.parent
    assert module is not None
    memset = module.declare_function("llvm.memset.p0.i64",
                                     T.FunctionType(T.VOID, (T.PTR, T.I8, T.I64, T.I1)))
    b.call(memset, [ptr, ConstantInt(T.I8, 0), b.mul(count, ConstantInt(T.I64, size)),
                    ConstantInt(T.I1, 0)])

