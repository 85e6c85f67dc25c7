"""What one reverse-mode derivation holds while it is built, and what its helpers (`reverse_ops`,
`calls`, `split`) read and write: adjoint slots, shadows, the tape, the frees, the split calls.

The shared part (module, primal, working copy, analyses, alloca block, errors) is the
`DerivationContext` in `ctx`; the control flow and its instrumentation are `cf`. The helpers
reach the derivatives of callees through `callees` (the transform answers, through the cache
of derived functions), never through the transform itself.

Invariants: an adjoint lives in an entry-block slot (`%x.d`, initialized to the empty
adjoint), created on first use; reading it for a use consumes it (`take_adjoint` resets it);
only active values get adjoints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from enzyme_py.ad import names
from enzyme_py.ad.accumulation import Accumulation
from enzyme_py.ad.adjoint_values import add_values, adjoint_zero
from enzyme_py.ad.context import DerivationContext
from enzyme_py.ad.derived import Derived, SplitPair
from enzyme_py.ad.frees import DeferredFrees
from enzyme_py.ad.load_windows import LoadWindows
from enzyme_py.ad.overwritten_loads import OverwrittenLoads
from enzyme_py.ad.reverse_cfg import ControlFlow
from enzyme_py.ad.shadow import ShadowMap, reverse_policy
from enzyme_py.ad.tape import Tape
from enzyme_py.analysis.activities import Activity
from enzyme_py.analysis.activity import alias_classes
from enzyme_py.analysis.float_kinds import MemoryKinds
from enzyme_py.analysis.memory_effects import MemoryEffects
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.values import Argument, Value


@dataclass(frozen=True)
class ReverseOptions:
    name: str | None = None  # name of the gradient function (default `diffe_<f>`)
    # Also return f's result: `{ result, adjoints... }` (what value_and_grad needs).
    return_primal: bool = False
    # Build `f`'s augmented forward and reverse functions instead (`split.py`), for calls.
    split: bool = False
    # (split) f returns a pointer whose memory the caller differentiates through: the
    # augmented function also hands back that memory's shadow.
    return_shadow: bool = False
    # (split) names of the globals the outermost function shares with its callees
    dup_globals: tuple[str, ...] = ()
    # (split) per argument, the float type the caller knows its memory holds (or None): a
    # callee that only copies memory (memcpy) learns its element type from its caller
    arg_float_types: tuple[str | None, ...] = ()
    # (split) the pointer arguments whose memory the caller leaves as it is until the reverse
    # function runs (a checkpointed loop's block: memory the loop only reads, which
    # `checkpoint-loops` would otherwise have made part of its state): loads from it may be
    # read again instead of taped
    stable_args: tuple[int, ...] = ()
    # (GPU) accumulate shadows atomically where other threads can reach them; False only to
    # show what the atomics prevent (`device.device_policy`)
    atomics: bool = True


class ReverseCallees(Protocol):
    """The derivatives of callees, as the helpers ask for them."""

    def gradient(self, g: Function, acts: list[str], ret_active: bool) -> Derived: ...

    def split_pair(self, g: Function, acts: list[str], ret_active: bool, ret_shadow: bool,
                   shared_globals: tuple[str, ...],
                   float_types: tuple[str | None, ...]) -> SplitPair: ...


@dataclass
class ReverseArguments:
    """The gradient's parameters: each argument followed by its shadow when dup, the seed."""

    params: list[Argument]
    shadows: dict[Argument, Argument]
    seed: Argument | None
    # (kernel) each active scalar argument's pointer, where its adjoint is added
    out_pointers: dict[Argument, Argument] = field(default_factory=dict)
    # (split) the augmented function's own parameters (`split.py`)
    frees: Argument | None = None
    tape_out: Argument | None = None
    shadow_out: Argument | None = None

    def aug_params(self) -> list[Argument]:
        """(split) The arguments and their shadows, as both split functions take them."""
        return [a for a in self.params if a is not self.seed]


@dataclass
class SplitCall:
    """A call rewritten to its callee's augmented function (`calls.py`)."""

    pair: SplitPair
    acts: list[str]
    args: list[Value]  # the call's arguments before the rewrite
    tape: Value  # the callee's tape, read right after the call
    ret_active: bool
    new_args: list[Value]  # the augmented call's arguments


@dataclass
class IndirectCall:
    """A call through a function pointer, rewritten to go through the pointer's shadow pair
    (`indirect_calls.py`)."""

    pair: Value  # the function pointer's shadow (forward sweep)
    acts: list[Activity]
    args: list[Value]  # the call's arguments before the rewrite
    tape: Value  # the callee's tape, read right after the call
    new_args: list[Value]  # the adapter's arguments
    adapter: Function
    reverse_type: T.FunctionType


@dataclass
class ReverseSweep:
    """What the reverse sweep made: a reverse block per forward block, and where it ends."""

    rev: dict[Block, Block]
    rev_return: Block
    forward_block_count: int  # the blocks before these are the forward sweep's
    ret_value: Value | None  # f's result (the exit block dominates the reverse sweep)


class ReverseState:
    def __init__(self, ctx: DerivationContext, options: ReverseOptions, cf: ControlFlow,
                 args: ReverseArguments, frees: DeferredFrees, effects: MemoryEffects,
                 guards: dict, callees: ReverseCallees) -> None:
        self.ctx = ctx
        self.options = options
        self.split = options.split
        self.cf = cf
        self.args = args
        self.frees = frees
        self.effects = effects  # of the working copy once its frees moved
        self.guards = guards  # see `analysis.speculation`
        self.callees = callees
        self._same_memory: Callable | None = None
        self._memory_kinds: MemoryKinds | None = None  # (built at the first question)
        self.b = Builder()
        self.shadows = ShadowMap(ctx, dict(args.shadows), reverse_policy(callee=options.split))
        self.tape = Tape(ctx, cf, effects, self.b, options.split, options.stable_args)
        self.tape.result_needed = options.split or options.return_primal
        self.accumulation = Accumulation(ctx, cf.original, self.tape.reverse_of)
        self.tape.accumulation = self.accumulation
        self.adjoint_slots: dict[Value, I.Instruction] = {}
        self.split_calls: dict[I.Call, SplitCall] = {}
        self.indirect_calls: dict[I.Call, IndirectCall] = {}
        self.pair: SplitPair | None = None
        self.ret_shadow: Value | None = None  # (split) the shadow of the returned pointer
        self.sweep: ReverseSweep | None = None
        self.windows = LoadWindows([])  # the stencil loads whose adds wait (`load_windows`)
        # loads of what the next trip overwrites, whose adjoints store (`overwritten_loads`)
        self.overwrites = OverwrittenLoads([])

    def is_active(self, v: Value) -> bool:
        return self.ctx.activity.is_active(v)

    def memory_float_kind(self, pointers: list[Value]) -> str | None:
        """The float type of the memory behind `pointers` (`float_kinds.memory_float_kind` of
        the original instructions, with what the caller said of the arguments; indexed once,
        `MemoryKinds`). Calls of defined functions that replaced an original call (a custom
        rule's `vjp_fwd`) count too: they take its pointers, and their bodies may be the
        memory's only typed users (read as the function is now, where nothing else tells)."""
        if self._memory_kinds is None:
            self._memory_kinds = MemoryKinds(
                [i for i in self.ctx.work.instructions() if i in self.cf.original],
                self.same_memory(), self.options.arg_float_types, self.ctx.work)
        return self._memory_kinds.kind(pointers, calls=lambda: [
            i for i in self.ctx.work.instructions() if i in self.cf.original or (
                isinstance(i, I.Call) and isinstance(i.callee, Function)
                and not i.callee.is_declaration)])

    def same_memory(self) -> Callable:
        """`objs(p)`: what `p` may point into, with pointers loaded from the same place
        leading to the same memory (computed once, of the original instructions)."""
        if self._same_memory is None:
            self._same_memory = alias_classes(
                [i for i in self.ctx.work.instructions() if i in self.cf.original])
        return self._same_memory

    # --- adjoints and shadows ---------------------------------------------------------------

    def adjoint_slot(self, v: Value) -> I.Instruction:
        slot = self.adjoint_slots.get(v)
        if slot is None:
            slot = self.ctx.entry_alloca(v.type, names.adjoint(v), adjoint_zero(v.type))
            self.adjoint_slots[v] = slot
        return slot

    def add_adjoint(self, v: Value, contribution: Value) -> None:
        if not self.is_active(v):
            return
        slot = self.adjoint_slot(v)
        cur = self.b.load(v.type, slot)
        self.b.store(add_values(self.b, cur, contribution), slot)

    def take_adjoint(self, v: Value) -> Value:
        """The adjoint of `v` so far, and reset it to zero (each use consumes it)."""
        slot = self.adjoint_slot(v)
        d = self.b.load(v.type, slot, name=names.adjoint(v))
        self.b.store(adjoint_zero(v.type), slot)
        return d

    def forward_shadow(self, p: Value) -> Value:
        """The shadow of pointer `p` in the forward sweep (built next to `p` on first use)."""
        return self.shadows.get(p)

    def reverse_shadow(self, p: Value) -> Value:
        return self.tape.reverse_shadow(p, self.shadows.get(p))
