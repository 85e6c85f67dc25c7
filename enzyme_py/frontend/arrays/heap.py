"""Heap buffers of the function being compiled, and who frees each one.

Arrays the front end creates live on the heap (`malloc`), so that any size works and loops may
create them. Ownership is decided at compile time:

- A buffer made while evaluating a statement is a *temporary* of that statement, freed when
  the statement ends, unless a variable claims it. Inside a loop, the statement keeps its
  block for the next iteration instead (made anew only when it must grow), so a loop of
  `u[1:-1] = f(u)` steps allocates once; unless the session asks for fresh temporaries
  (a gradient that checkpoints its loops: no buffer may pass from one iteration to the
  next), when each iteration makes and frees its own.
- A variable that is never an alias of another array variable (`Typer.shared` says which
  are) *owns* the buffer bound to it: rebinding it frees the old buffer after the new value
  is computed, and the function's exit frees the last one.
- A shared variable (`b = a`, `row = X[i]`, `for row in X`) keeps each buffer bound to it
  until the function exits, in a slot per binding statement. Inside a loop where no view of
  it is taken, a binding statement's slot keeps only its latest buffer (the one of the
  iteration before is freed: nothing views it); in a loop that takes a view of it, binding
  is refused at compile time (its buffers would pile up).

Invariants: every buffer is freed exactly once on every path out of the function, error exits
included (a failed check frees the live temporaries; the exit block frees every slot, and
`free(NULL)` is a no-op); a size whose byte count overflows, and a failed `malloc`, are
recorded errors (`MemoryError`), never a crash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enzyme_py.frontend.ftypes import Scalar
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.layout import alloc_size
from enzyme_py.ir.values import ConstantInt, ConstantKeyword, Value

if TYPE_CHECKING:
    import ast

    from enzyme_py.frontend.context import Compiling

_MAX_BYTES = 1 << 62
NULL = ConstantKeyword(T.PTR, "null")


class Heap:
    def __init__(self, c: Compiling) -> None:
        self.c = c
        self.levels: list[list[Value]] = []  # temporaries of the statements being compiled
        self.slots: list[Value] = []  # allocas holding a buffer the exit must free
        # values computed in the statements being compiled, to reuse while they dominate
        # (the same slice of the same extent gives the same extent value: see `views`)
        self.memos: list[dict] = []
        # temporaries kept by their allocation site between loop iterations (see `_reused`)
        self.reused: dict[Value, tuple[Value, Value]] = {}

    # --- allocation ---------------------------------------------------------------------------

    def allocate(self, elem: Scalar, count: Value, node: ast.AST) -> Value:
        """A fresh uninitialized buffer of `count` elements, a temporary of this statement."""
        c = self.c
        b = c.b
        size = alloc_size(elem.ir)
        if not (isinstance(count, ConstantInt) and 0 <= count.value * size < _MAX_BYTES):
            limit = ConstantInt(T.I64, _MAX_BYTES // size)
            c.check(b.icmp("ult", count, limit), node, "array size", count, limit, 0)
        nbytes = count.value * size if isinstance(count, ConstantInt) else None
        total: Value = ConstantInt(T.I64, nbytes) if nbytes is not None else \
            b.mul(count, ConstantInt(T.I64, size), flags=("nuw", "nsw"))
        if c.loops and self.levels and not c.session.fresh_temporaries:
            return self._reused(total, nbytes, node)
        ptr = self._malloc(total, nbytes, node)
        if self.levels:
            self.levels[-1].append(ptr)
        return ptr

    def _malloc(self, total: Value, nbytes: int | None, node: ast.AST) -> Value:
        c = self.c
        b = c.b
        malloc = c.fn.parent.declare_function("malloc", T.FunctionType(T.PTR, (T.I64,)))
        ptr = b.call(malloc, [total], name="buf")
        if nbytes != 0:
            ok = b.icmp("ne", ptr, NULL)
            if nbytes is None:
                ok = b.binop("or", ok, b.icmp("eq", total, ConstantInt(T.I64, 0)))
            c.check(ok, node, "allocation", total, ConstantInt(T.I64, 0), 0)
        return ptr

    def _reused(self, total: Value, nbytes: int | None, node: ast.AST) -> Value:
        """A temporary made inside a loop: the statement's block of the previous iteration
        when it is large enough (it was dead at that statement's end), else a new one; the
        exit frees the last one, and a variable that claims it takes it from the site."""
        c = self.c
        b = c.b
        slot = self.new_slot("buf.site")
        cap = c.alloca_at.alloca(T.I64, name="buf.bytes")
        c.alloca_at.store(ConstantInt(T.I64, 0), cap)
        grow, done = c.new_block("buf.grow"), c.new_block("buf.ready")
        b.condbr(b.icmp("ugt", total, b.load(T.I64, cap)), grow, done)
        b.position_at_end(grow)
        self._free(b, b.load(T.PTR, slot))
        b.store(NULL, slot)
        b.store(ConstantInt(T.I64, 0), cap)
        fresh = self._malloc(total, nbytes, node)
        b.store(fresh, slot)
        b.store(total, cap)
        b.br(done)
        b.position_at_end(done)
        ptr = b.load(T.PTR, slot, name="buf")
        self.reused[ptr] = (slot, cap)
        self.levels[-1].append(ptr)
        return ptr

    # --- statements ---------------------------------------------------------------------------

    def begin_statement(self) -> None:
        self.levels.append([])
        self.memos.append({})

    def end_statement(self) -> None:
        self.memos.pop()
        temps = self.levels.pop()
        if temps and not self.c.terminated():
            for p in temps:
                if p not in self.reused:  # a reused block waits for the next iteration
                    self._free(self.c.b, p)

    def remembered(self, key: object) -> object:
        for memo in reversed(self.memos):
            if key in memo:
                return memo[key]
        return None

    def remember(self, key: object, value: object) -> None:
        if self.memos:
            self.memos[-1][key] = value

    def forget(self, key: object) -> None:
        """Drop `key` from every statement's memo (what it stood for has changed)."""
        for memo in self.memos:
            memo.pop(key, None)

    def claim(self, base: Value) -> bool:
        """Take `base` off the temporaries (a variable now owns it); False if it was not one."""
        for level in self.levels:
            if base in level:
                level.remove(base)
                site = self.reused.pop(base, None)
                if site is not None:  # the site makes a new block next time
                    self.c.b.store(NULL, site[0])
                    self.c.b.store(ConstantInt(T.I64, 0), site[1])
                return True
        return False

    def free_block(self, p: Value) -> None:
        """free(p) here, for a block that no statement or variable owns (one claimed off the
        temporaries to be freed on the path that made it; NULL on the others)."""
        self._free(self.c.b, p)

    def release(self, base: Value) -> None:
        """Free the temporary `base` here, before its statement ends (code on one branch of
        a statement made it: the statement's end would not be dominated by it)."""
        if not self.claim(base):
            raise AssertionError("release() of a buffer that is not a temporary")
        self._free(self.c.b, base)

    def free_live_temporaries(self, b: Builder) -> None:
        """On an error path: free what the statements being compiled allocated so far."""
        for level in self.levels:
            for p in level:
                if p not in self.reused:  # the exit frees those
                    self._free(b, p)

    # --- slots freed at exit ------------------------------------------------------------------

    def new_slot(self, name: str) -> Value:
        slot = self.c.alloca_at.alloca(T.PTR, name=name)
        self.c.alloca_at.store(NULL, slot)
        self.slots.append(slot)
        return slot

    def rebind(self, slot: Value, new: Value | None) -> None:
        """Free the buffer `slot` holds and keep `new` (or nothing) there."""
        b = self.c.b
        old = b.load(T.PTR, slot)
        b.store(new if new is not None else NULL, slot)
        self._free(b, old)

    def exit_frees(self, b: Builder) -> None:
        for slot in self.slots:
            self._free(b, b.load(T.PTR, slot))

    def _free(self, b: Builder, p: Value) -> None:
        free = self.c.fn.parent.declare_function("free", T.FunctionType(T.VOID, (T.PTR,)))
        b.call(free, [p])
