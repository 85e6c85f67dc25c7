"""Frees in a gradient: the reverse sweep may still read freed memory or its shadow, so frees
move out of the forward sweep.

- A free of memory allocated in the function moves to the reverse of the allocation
  (`at_allocation`, done by `reverse_ops`).
- A free of memory not known to be allocated here (a pointer loaded from a list node, say)
  appends the pointer to a list `{ptr list, i64 capacity, i64 count}`, freed when the
  outermost gradient's reverse sweep ends. A split callee's gradient fills its caller's list.
- `free(NULL)` does nothing and is dropped.

Invariant: every free of the primal is done exactly once, after the last read of its memory.
"""

from __future__ import annotations

from enzyme_py.ad.context import DerivationContext
from enzyme_py.ad.runtime import defer_free_function, free_deferred_function
from enzyme_py.analysis.memory import ALLOCATION_FUNCTIONS, DEALLOCATION_FUNCTIONS, underlying
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.values import Argument, ConstantInt, Value, zero

FREES_TYPE = T.StructType((T.PTR, T.I64, T.I64))


class DeferredFrees:
    """The frees the reverse sweep does. `caller_list`: (split) the caller's list, else the
    list lives in this frame."""

    def __init__(self, ctx: DerivationContext, caller_list: Argument | None) -> None:
        self.ctx = ctx
        self.caller_list = caller_list
        self.at_allocation: dict[I.Call, I.Call] = {}  # allocation -> its moved free
        self._fields: tuple[Value, Value, Value] | None = None
        self._base: Value | None = None

    def defer(self) -> None:
        """Move the working copy's frees (before the memory effects are computed: memory
        freed later in f stays readable for the reverse sweep)."""
        for inst in list(self.ctx.work.instructions()):
            if not (isinstance(inst, I.Call) and inst.callee_name in DEALLOCATION_FUNCTIONS):
                continue
            objs = underlying(inst.args[0])  # nulls point nowhere: free(NULL) does nothing
            if not objs:
                assert inst.parent is not None
                inst.parent.remove(inst)
                continue
            if all(isinstance(o, I.Call) and o.callee_name in ALLOCATION_FUNCTIONS
                   for o in objs):
                assert inst.parent is not None
                inst.parent.remove(inst)
                for o in objs:
                    self.at_allocation[o] = inst  # type: ignore[index]
            elif inst.callee_name == "free":
                self._defer_to_end(inst)

    def _defer_to_end(self, free: I.Call) -> None:
        Builder().position_before(free).call(defer_free_function(self.ctx.module),
                                             [*self.fields(), free.args[0]])
        assert free.parent is not None
        free.parent.remove(free)

    def fields(self) -> tuple[Value, Value, Value]:
        """Pointers to the list's three fields, made on first use."""
        if self._fields is None:
            ctx = self.ctx
            if self.caller_list is not None:
                base: Value = self.caller_list
            else:
                base = ctx.entry_alloca(FREES_TYPE, "frees", zero(FREES_TYPE))
            self._base = base
            at = ctx.at_start()
            self._fields = tuple(  # type: ignore[assignment]
                at.getelementptr(FREES_TYPE, base, [ConstantInt(T.I32, 0),
                                                    ConstantInt(T.I32, k)])
                for k in range(3))
        assert self._fields is not None
        return self._fields

    def pointer(self) -> Value:
        """The list itself (what a split callee's augmented function is passed)."""
        self.fields()
        assert self._base is not None
        return self._base

    def release(self, b: Builder) -> None:
        """At the end of the outermost reverse sweep: free everything listed."""
        if self._fields is not None and self.caller_list is None:
            lst, _, count = self._fields
            b.call(free_deferred_function(self.ctx.module), [lst, count])
