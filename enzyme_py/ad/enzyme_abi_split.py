"""Enzyme's split mode: lower `__enzyme_augmentfwd`, `__enzyme_reverse` and
`__enzyme_augmentsize` calls to the augmented/reverse pair of `split.py`.

The C ABI, as Enzyme's clang plugin reads it:

- `__enzyme_augmentfwd(f, args...)` runs f's forward sweep. It returns the tape (`void *`)
  when f returns void, else a struct `{tape, f's result}` (in registers or through sret, as
  the C compiler lowered the declared struct).
- `__enzyme_reverse(f, args..., enzyme_tape, tape)` takes the same arguments and the tape
  (an unmarked last argument is the tape too, as in Enzyme's early tests), accumulates the
  adjoints into the shadows and returns the adjoints of the `enzyme_out` arguments like
  `__enzyme_autodiff`. When f returns a float, a float after f's arguments is the seed of
  its result (else 1.0).
- `enzyme_allocated, size, enzyme_tape, data` (on both calls): the tape lives in the caller's
  `data` (at least `__enzyme_augmentsize(f, markers...)` bytes); the augmented call then
  returns only f's result.

Markers `enzyme_tape`, `enzyme_allocated`, `enzyme_nofree` may stand anywhere after f.

The tape a caller holds is a header of `HEADER_SIZE` bytes: the list of frees f's forward
sweep deferred (`frees.py`), then the pair's own tape. The reverse call frees what was
deferred and (unless the caller allocated it) the header.

Invariants: both calls of one (f, activities) use one pair from the derived-function cache,
so the tape one writes is the tape the other reads; every lowered call is removed.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzyme_py.ad.derived import DerivedFunctions, SplitKey, SplitPair
from enzyme_py.ad.enzyme_abi import plan_arguments, unpack_adjoints
from enzyme_py.ad.enzyme_abi_calls import (
    CallPlan,
    call_site,
    convert_value,
    define_markers,
    deliver_result,
    is_marker_function,
    marker_global,
    replace_marker_call,
    scalar_leaves,
    split_call,
    sret_type,
)
from enzyme_py.ad.frees import FREES_TYPE
from enzyme_py.ad.libc import LibC
from enzyme_py.ad.reverse import ReverseTransform
from enzyme_py.ad.reverse_state import ReverseOptions
from enzyme_py.ad.runtime import free_deferred_function
from enzyme_py.analysis.activity import carries_float
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.values import ConstantInt, Value, const_float, zero

AUGMENT = "__enzyme_augmentfwd"
REVERSE = "__enzyme_reverse"
SIZE = "__enzyme_augmentsize"
TAPE_OFFSET = 24  # the pair's tape, after the frees list {ptr, i64, i64}
HEADER_SIZE = 32


@dataclass(frozen=True)
class SplitCallPlan:
    """One augmented or reverse call, read."""

    call: I.Call
    function: Function
    activities: tuple[str, ...]
    args: tuple[Value, ...]
    result_ptr: Value | None
    tape: Value | None  # the header (reverse), or the caller's memory for it (allocated)
    allocated: bool
    seed: Value | None  # (reverse) the seed of f's float result


def split_calls(module: Module, marker: str) -> list[I.Call]:
    return [inst for fn in module.functions for inst in fn.instructions()
            if isinstance(inst, I.Call) and is_marker_function(inst.callee_name, marker)]


def split_targets(module: Module) -> list[str]:
    """Names of the functions split-mode calls differentiate (for `driver.prepare`)."""
    return [_plan(c, reverse=m == REVERSE).function.name or ""
            for m in (AUGMENT, REVERSE) for c in split_calls(module, m)]


def lower_split_calls(module: Module) -> list[str]:
    """Replace every split-mode call; returns the names of the functions made."""
    made: dict[str, None] = {}
    sizes = split_calls(module, SIZE)
    for call in sizes:
        ty = call.type if isinstance(call.type, T.IntType) else T.I64
        replace_marker_call(call, ConstantInt(ty, HEADER_SIZE))
    augments, reverses = split_calls(module, AUGMENT), split_calls(module, REVERSE)
    for call in augments:
        pair = _lower_augmented(module, _plan(call, reverse=False))
        made[pair.augmented.name or ""] = None
    for call in reverses:
        pair = _lower_reverse(module, _plan(call, reverse=True))
        made[pair.reverse.name or ""] = None
    if sizes or augments or reverses:
        define_markers(module)
    return list(made)


def _pair(module: Module, fn: Function, acts: tuple[str, ...]) -> SplitPair:
    ret_active = carries_float(fn.return_type)
    ret_shadow = fn.return_type.is_pointer  # (the augmented call returns its shadow too)
    key = SplitKey(fn.name, acts, ret_active, ret_shadow, ())
    cache = DerivedFunctions(module)
    got = cache.get(key)
    if got is None:
        ReverseTransform(module, fn, list(acts), ret_active,
                         ReverseOptions(split=True, return_shadow=ret_shadow)).run()
        got = cache.get(key)
    assert got is not None
    return got


def _plan(call: I.Call, *, reverse: bool) -> SplitCallPlan:
    """Take the split markers out, then read the parameters as `__enzyme_autodiff` does."""
    where = call_site(call)
    result_ptr, target, args = split_call(call)
    rest: list[Value] = []
    tape: Value | None = None
    allocated = False
    k = 0
    while k < len(args):
        name = marker_global(args[k])
        if name in ("enzyme_tape", "enzyme_allocated"):
            if k + 1 >= len(args):
                raise DifferentiationError(f"{where}: {name} must be followed by a value")
            value = args[k + 1]
            if name == "enzyme_tape":
                tape = value
            else:
                allocated = True
                _check_size(where, value)
            k += 2
            continue
        if name == "enzyme_nofree":
            raise DifferentiationError(f"{where}: enzyme_nofree is not supported yet (the "
                                       "reverse call always frees the tape it reads)")
        rest.append(args[k])
        k += 1
    if allocated and tape is None:
        raise DifferentiationError(f"{where}: enzyme_allocated needs enzyme_tape and the "
                                   "memory of the tape")
    if reverse and tape is None:
        if not rest:
            raise DifferentiationError(f"{where}: the reverse call has no tape (pass "
                                       "enzyme_tape and the tape the augmented call returned)")
        tape = rest.pop()
    seed: Value | None = None
    plan: CallPlan | None = None
    if reverse and carries_float(target.return_type) and rest and rest[-1].type.is_float:
        try:  # a float left over after f's arguments seeds f's float result
            plan, seed = plan_arguments(call, target, rest[:-1], result_ptr), rest[-1]
        except DifferentiationError:
            pass  # (then the float is f's last argument)
    if plan is None:
        plan = plan_arguments(call, target, rest, result_ptr)
    return SplitCallPlan(call, target, plan.activities, plan.args, result_ptr, tape,
                         allocated, seed)


def _check_size(where: str, size: Value) -> None:
    if isinstance(size, ConstantInt) and size.value < HEADER_SIZE:
        raise DifferentiationError(f"{where}: enzyme_allocated gives {size.value} bytes; the "
                                   f"tape needs {HEADER_SIZE} (ask __enzyme_augmentsize)")


def _arguments(b: Builder, plan: SplitCallPlan, params: tuple[T.Type, ...]) -> list[Value]:
    where = call_site(plan.call)
    return [convert_value(b, v, p, where) for v, p in zip(plan.args, params, strict=False)]


def _tape_pointer(b: Builder, where: str, tape: Value) -> Value:
    if not tape.type.is_pointer:
        raise DifferentiationError(f"{where}: the tape must be a pointer, not {tape.type}")
    return tape


def _lower_augmented(module: Module, plan: SplitCallPlan) -> SplitPair:
    pair = _pair(module, plan.function, plan.activities)
    call, where = plan.call, call_site(plan.call)
    shadow_out = _entry_slot(call) if pair.shadow_return else None  # (before `b` is placed)
    b = Builder().position_before(call)
    if plan.allocated:
        assert plan.tape is not None
        header = _tape_pointer(b, where, plan.tape)
    else:
        header = LibC(module).call_malloc(b, ConstantInt(T.I64, HEADER_SIZE), name="tape")
    b.store(zero(FREES_TYPE), header, 8)
    tape_out = b.getelementptr(T.I8, header, [ConstantInt(T.I64, TAPE_OFFSET)])
    extra = [header, tape_out] + ([shadow_out] if shadow_out is not None else [])
    params = pair.augmented.function_type.params
    args = _arguments(b, plan, params[:-len(extra)])
    if len(args) != len(params) - len(extra):
        raise DifferentiationError(f"{where}: internal error: {len(args)} arguments for "
                                   f"@{pair.augmented.name}")
    result = b.call(pair.augmented, [*args, *extra])
    values = [] if plan.allocated else [header]
    if not plan.function.return_type.is_void:
        values.append(result)
    if shadow_out is not None:
        values.append(b.load(T.PTR, shadow_out, 8))
    values = _declared_order(call, plan.result_ptr, values)
    replace_marker_call(call, deliver_result(b, call, plan.result_ptr, values,
                                             "value(s) (the tape, f's result, its shadow)"))
    return pair


def _declared_order(call: I.Call, result_ptr: Value | None, values: list[Value]) -> list[Value]:
    """(tape, result) swapped when the declared struct puts the result first
    (`struct { double x; void *tape; }`): unambiguous when the result is not a pointer."""
    if len(values) != 2 or values[1].type.is_pointer or not values[0].type.is_pointer:
        return values
    declared = sret_type(call) if result_ptr is not None else call.type
    leaves = [t for _, t in scalar_leaves(declared)] if not declared.is_void else []
    if len(leaves) == 2 and not leaves[0].is_pointer and leaves[1].is_pointer:
        return [values[1], values[0]]
    return values


def _entry_slot(call: I.Call) -> Value:
    """A `ptr` stack slot at the start of the caller (not in a loop the call may be in)."""
    fn = call.function
    assert fn is not None
    at = Builder(fn.blocks[0])
    at.index = 0
    return at.alloca(T.PTR, name="shadow.out")


def _lower_reverse(module: Module, plan: SplitCallPlan) -> SplitPair:
    pair = _pair(module, plan.function, plan.activities)
    call, where = plan.call, call_site(plan.call)
    assert plan.tape is not None
    b = Builder().position_before(call)
    header = _tape_pointer(b, where, plan.tape)
    inner = b.load(T.PTR, b.getelementptr(T.I8, header, [ConstantInt(T.I64, TAPE_OFFSET)]), 8)
    params = pair.reverse.function_type.params
    ret_active = carries_float(plan.function.return_type)
    args = _arguments(b, plan, params)
    if ret_active:
        seed_type = params[-2]
        seed = plan.seed if plan.seed is not None else const_float(seed_type, 1.0)
        args.append(convert_value(b, seed, seed_type, where))
    args.append(inner)
    if len(args) != len(params):
        raise DifferentiationError(f"{where}: internal error: {len(args)} arguments for "
                                   f"@{pair.reverse.name} taking {len(params)}")
    result = b.call(pair.reverse, args)
    count = b.getelementptr(FREES_TYPE, header, [ConstantInt(T.I32, 0), ConstantInt(T.I32, 2)])
    b.call(free_deferred_function(module), [header, count])
    if not plan.allocated:
        LibC(module).call_free(b, header)
    replace_marker_call(call, deliver_result(b, call, plan.result_ptr,
                                             unpack_adjoints(b, result)))
    return pair
