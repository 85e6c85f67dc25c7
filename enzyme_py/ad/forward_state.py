"""What one forward-mode derivation holds while it is built, and what the per-instruction rules
(`forward_ops`) read and write: the tangents, one shadow map per direction (lane), and the
calls whose derivative is patched in when the sweep is done.

The shared part (module, primal, working copy, analyses, alloca block, errors) is the
`DerivationContext` in `ctx`; the derivatives of callees come through `callees` (the transform
answers, through the cache of derived functions), never through the transform itself.

Invariants: a tangent is a tuple of `width` SSA values (lane j is direction j), built right
after its primal value; a value that carries no derivative has no tangent (None), and one
whose contributions are all absent a zero tangent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from enzyme_py.ad import names
from enzyme_py.ad.context import DerivationContext
from enzyme_py.ad.derived import Derived
from enzyme_py.ad.shadow import ShadowMap, forward_policy
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import Argument, Constant, Value, zero

Lanes = tuple[Value, ...]  # one tangent per direction


@dataclass(frozen=True)
class ForwardOptions:
    name: str | None = None  # name of the generated function (default `fwddiffe_<f>`)
    # Return `{ primal, tangent }` (True) or the tangent alone, as Enzyme's `__enzyme_fwddiff`.
    return_primal: bool = True
    width: int = 1  # directions propagated in one sweep (Enzyme's `enzyme_width`)
    # f returns a pointer whose memory the caller differentiates through: a last parameter
    # `ptr %shadow.out` receives that memory's shadow, one pointer per direction.
    return_shadow: bool = False
    # Derivative of a callee: shadows of pointer arguments were made by the caller's
    # derivative alongside the memory, so freeing that memory frees them too. (Not part of
    # the cache key: a recursive function's inner calls reuse its own derivative.)
    callee: bool = False
    # names of the globals the outermost function shares with its callees (`globals.py`)
    dup_globals: tuple[str, ...] = ()


def tangent_type(t: T.Type, width: int) -> T.Type:
    """The type a tangent of a `t` value has at the function boundary."""
    return t if width == 1 else T.ArrayType(width, t)


class ForwardCallees(Protocol):
    """The forward derivatives of callees (`{primal, tangent}`), as the rules ask for them."""

    def derivative(self, g: Function, acts: list[str],
                   return_shadow: bool = False) -> Derived: ...


class ForwardState:
    def __init__(self, ctx: DerivationContext, options: ForwardOptions,
                 callees: ForwardCallees, shadow_args: dict[Argument, tuple[Argument, ...]],
                 arg_tangents: dict[Value, Lanes]) -> None:
        self.ctx = ctx
        self.options = options
        self.width = options.width
        self.callees = callees
        self.b = Builder()
        # per direction: the shadows of that direction's pointers
        self.lanes = [ShadowMap(ctx, {a: s[j] for a, s in shadow_args.items()},
                                forward_policy(j, callee=options.callee))
                      for j in range(self.width)]
        self.tangents: dict[Value, Lanes] = dict(arg_tangents)
        # calls pointed at their callee's derivative once the sweep is done
        # (call, derivative, its type, arguments); see `forward_ops._defined_call`
        self.pending_calls: list[tuple[I.Call, Function, T.FunctionType, list[Value]]] = []
        self.returned_shadow_slots: dict[I.Call, Value] = {}

    def is_active(self, v: Value) -> bool:
        return self.ctx.activity.is_active(v)

    def tangent(self, v: Value) -> Lanes | None:
        """The tangent lanes of `v`, or None when `v` carries no derivative."""
        got = self.tangents.get(v)
        if got is not None:
            return got
        if isinstance(v, Constant) or v not in self.ctx.activity.active:
            return None
        raise DifferentiationError(
            f"internal error in @{self.ctx.primal.name}: the tangent of {v.ref()} is used "
            "before it is built (a bug in enzyme_py)")

    def tangent_or_zero(self, v: Value) -> Lanes:
        got = self.tangent(v)
        return got if got is not None else (zero(v.type),) * self.width

    def set_tangent(self, v: Value, lanes: Lanes) -> None:
        for j, t in enumerate(lanes):
            if isinstance(t, I.Instruction) and not t.name:
                t.name = names.tangent(v) if self.width == 1 else f"{names.tangent(v)}{j}"
        self.tangents[v] = lanes

    def shadows(self, p: Value) -> Lanes:
        """The shadow pointers of `p`, one per direction (built next to `p` on first use).
        Call this before positioning the builder: it may insert before the insertion point."""
        out: dict[int, Value] = {}
        # Each lane's shadow instruction goes right after `p`: building the last lane first
        # keeps the lanes in order in the block (globals are made in lane order).
        order = range(self.width)
        for j in reversed(order) if isinstance(p, I.Instruction) else order:
            lane = self.lanes[j]
            out[j] = lane.get(p)
            if self.width > 1:
                for v, s in lane.known.items():
                    if isinstance(s, I.Instruction) and s.name == names.shadow(v):
                        s.name = f"{names.shadow(v)}{j}"
        return tuple(out[j] for j in order)
