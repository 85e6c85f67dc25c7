"""How the reverse sweep adds an adjoint into shadow memory (`*shadow += value`), by the device
policy (`device.py`): a load, add and store on the host and into a thread's own stack; an
`atomicrmw fadd` into memory other GPU threads can reach; and into memory each thread touches
only at its own element (`analysis.gpu.thread_owned`: `y[blockIdx.x * blockDim.x +
threadIdx.x]` and nothing else) a plain add when the launch is 1-D, which the gradient checks
when it starts (`%grid.1d`), and the atomic otherwise.

Invariants: an accumulation is plain only where no two threads can reach the element (proved
from the IR, and for the thread index from the launch at run time); the block holding a
checked accumulation is split around it, and the new blocks reverse the same forward block
(`reverse_of`), so the tape treats them as the block they came from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from enzyme_py.ad.adjoint_values import add_values
from enzyme_py.ad.context import DerivationContext
from enzyme_py.ad.device import atomic_add, special_register
from enzyme_py.analysis.gpu import indexed_by_thread, thread_owned, thread_private
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Block
from enzyme_py.ir.values import ConstantInt, Value


class Accumulation:
    """The accumulations of one reverse-mode derivation (`ctx`), whose primal instructions
    are `original`; `reverse_of` maps each reverse block to the forward block it reverses."""

    def __init__(self, ctx: DerivationContext, original: Iterable[I.Instruction],
                 reverse_of: dict[Block, Block]) -> None:
        self.ctx = ctx
        self.device = ctx.device
        self.reverse_of = reverse_of
        self._original = original
        self._owned: frozenset[Value] | None = None
        self._one_d: Value | None = None

    def is_plain(self, primal: Value, shadow: Value) -> bool:
        """No other thread can add where `shadow` (of `primal`) points: no check needed."""
        return not self.device.atomics or thread_private(primal) or thread_private(shadow)

    def add(self, b: Builder, primal: Value, shadow: Value, value: Value,
            align: int | None = None) -> None:
        """`*shadow += value`, where `shadow` is the shadow of the primal pointer `primal`."""
        if self.is_plain(primal, shadow):
            _plain(b, shadow, value, align)
        elif indexed_by_thread(primal) in self.owned():
            self._checked(b, shadow, value, align)
        else:
            atomic_add(b, shadow, value, align)

    def owned(self) -> frozenset[Value]:
        if self._owned is None:
            self._owned = thread_owned([i for i in self._original
                                        if i.function is self.ctx.work])
        return self._owned

    def _checked(self, b: Builder, shadow: Value, value: Value, align: int | None) -> None:
        flag = self._launch_is_1d()
        self._branch(b, flag, lambda at: _plain(at, shadow, value, align),
                     lambda at: atomic_add(at, shadow, value, align))

    def _launch_is_1d(self) -> Value:
        """`%grid.1d`: the y and z extents of the block and of the grid are all 1, so
        `ctaid.x * ntid.x + tid.x` names each thread once (read where the gradient starts)."""
        if self._one_d is None:
            at = self.ctx.at_start()
            module = self.ctx.module
            ones = [at.icmp("eq", special_register(at, module, r), ConstantInt(T.I32, 1))
                    for r in ("ntid.y", "ntid.z", "nctaid.y", "nctaid.z")]
            flag = ones[0]
            for more in ones[1:]:
                flag = at.binop("and", flag, more)
            flag.name = "grid.1d"
            self._one_d = flag
        return self._one_d

    def _branch(self, b: Builder, flag: Value, then: Callable[[Builder], None],
                otherwise: Callable[[Builder], None]) -> None:
        """`br flag, acc.plain, acc.atomic` at the builder, the rest of its block moved to
        `acc.done`, where the builder continues."""
        here = b.block
        assert here is not None
        done, (plain, atomic) = b.split_block("acc.done", "acc.plain", "acc.atomic")
        forward = self.reverse_of.get(here)
        if forward is not None:
            for blk in (plain, atomic, done):
                self.reverse_of[blk] = forward
        b.condbr(flag, plain, atomic)
        for blk, emit in ((plain, then), (atomic, otherwise)):
            at = Builder().position_at_end(blk)
            emit(at)
            at.br(done)
        if done.instructions:
            b.position_before(done.instructions[0])
        else:
            b.position_at_end(done)


def _plain(b: Builder, shadow: Value, value: Value, align: int | None) -> None:
    old = b.load(value.type, shadow, align)
    b.store(add_values(b, old, value), shadow, align)
