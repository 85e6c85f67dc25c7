"""The per-instruction dispatch both modes share: which of a mode's handlers an instruction
goes to. The handlers are the mode's (`reverse_ops`, `forward_ops`); the order is one.

Invariant: stores go to the mode's store handler whether or not they are active (a store
into shadowed memory always has a derivative); a call goes to the mode's call handler first,
and by the rule table only when that handler declines it; an inactive instruction gets no
code (an atomic update of shadowed memory is an error, except an `atomicrmw fadd`/`fsub`
whose old value is unused: the mode's `atomic_add`); active loads read the shadow, every
other active instruction goes by its rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from enzyme_py.ad.context import DerivationContext
from enzyme_py.ad.shadow import check_atomic_update, check_old_value_unused
from enzyme_py.analysis.memory_effects import ADDITIVE_ATOMICS
from enzyme_py.ir import instructions as I
from enzyme_py.ir.values import Value


class _State(Protocol):
    ctx: DerivationContext

    def is_active(self, v: Value) -> bool: ...


S = TypeVar("S", bound=_State)


@dataclass(frozen=True)
class InstructionHandlers(Generic[S]):
    """A mode's handlers; `call` returns False when the call goes by its rule."""

    store: Callable[[S, I.Store], None]
    call: Callable[[S, I.Call], bool]
    load: Callable[[S, I.Load], None]
    by_rule: Callable[[S, I.Instruction], None]
    atomic_add: Callable[[S, I.AtomicRMW], None]  # `atomicrmw fadd/fsub` of shadowed memory


def dispatch(handlers: InstructionHandlers[S], st: S, inst: I.Instruction) -> None:
    if isinstance(inst, I.Store):
        handlers.store(st, inst)
        return
    if isinstance(inst, I.Call) and handlers.call(st, inst):
        return
    if isinstance(inst, I.AtomicRMW) and inst.operation in ADDITIVE_ATOMICS and \
            st.ctx.activity.touches_shadow(inst.operands[0]):
        check_old_value_unused(st.ctx, inst)
        handlers.atomic_add(st, inst)
        return
    if not st.is_active(inst):
        check_atomic_update(st.ctx, inst)
        return
    if isinstance(inst, I.Load):
        handlers.load(st, inst)
    else:
        handlers.by_rule(st, inst)
