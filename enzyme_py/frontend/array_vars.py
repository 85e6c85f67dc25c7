"""Array variables of the statement compiler (a mixin of the function compiler): their allocas,
binding a value to them and reading them back as views.

An array variable is a set of entry-block allocas: its data pointer, one extent and one stride
(in elements) per dimension, and an owner slot for the buffer it owns (see `arrays.heap`).

Invariants: a parameter never rebound and a variable another array variable may view (the
typer's `shared`) have no owner slot: their buffers are kept until the function's exit (inside
a loop, only where no view of it is taken in that loop: there each binding statement keeps
one buffer, freeing its previous iteration's, `_loop_slot`); binding a lazy computes it into a
fresh buffer the variable then owns, and rebinding a variable releases the buffer it owned
unless the new view reads it; a variable is bound to a view of another variable's memory only
where the alias analysis knows of it (else an internal error, never a dangling view); reading
a variable gives a view whose root tells `arrays.writes` what memory it may overlap.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.ftypes import Array
from enzyme_py.frontend.values import AVal, c_strides
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.values import Argument, ConstantInt, Value

if TYPE_CHECKING:
    from enzyme_py.frontend.arrays.heap import Heap
    from enzyme_py.frontend.errors import SourceInfo
    from enzyme_py.frontend.typing import Typer


@dataclass
class ArrayVar:
    """The allocas of an array variable: its view, and the buffer it owns (None: shared)."""

    type: Array
    ptr: Value
    dims: list[Value]
    strides: list[Value]
    owner: Value | None


class ArrayVariables:
    """Making, binding and reading array variables; the function compiler provides the rest."""

    b: Builder
    alloca_at: Builder
    typer: Typer
    src: SourceInfo
    fdef: ast.FunctionDef
    heap: Heap
    loops: list
    loop_slots: dict[int, Value]  # (`_loop_slot`)
    once_bound: frozenset[str]  # names bound at one site compiled once (`binding_sites`)
    known_layouts: dict[str, tuple[list[Value | None], list[Value | None]]]  # by name

    def _make_array_var(self, name: str, t: Array) -> ArrayVar:
        a = self.alloca_at
        ptr = a.alloca(T.PTR, name=name)
        dims = [a.alloca(T.I64, name=f"{name}.shape{k}") for k in range(t.ndim)]
        strides = [a.alloca(T.I64, name=f"{name}.stride{k}") for k in range(t.ndim)]
        # a parameter never rebound owns nothing; a shared variable keeps slots per binding
        owner = None if name in self.typer.shared or name in self.typer.fixed_params \
            else self.heap.new_slot(f"{name}.owner")
        return ArrayVar(t.value, ptr, dims, strides, owner)

    def _bind_array(self, name: str, var: ArrayVar, val: object, node: ast.AST | None,
                    initial: bool = False) -> None:
        """`name = val` for an array variable: views bind as they are, lazies are computed
        into a buffer the variable then owns (see `arrays.heap`)."""
        if not L.is_array(val):
            raise self.src.error(node, f"'{name}' is {var.type}, cannot assign a number")
        assert isinstance(val, AVal | L.Lazy)
        if not var.type.same_values(val.type):
            raise self.src.error(node, f"'{name}' is {var.type}, cannot assign {val.type}")
        view = L.materialize(self, val, node or self.fdef)
        root = view.root
        if not initial and view.base is None and isinstance(root, tuple) and \
                root[0] == "temp" and self.heap.claim(root[1]):
            view.base = root[1]  # a view of this statement's temporary: the variable keeps it
        elif not initial and view.base is None and isinstance(root, tuple) and \
                root[0] in ("var", "own") and root[1] != name and \
                root[1] not in self.typer.shared:
            raise self.src.error(node, f"internal error: '{name}' is bound to a view of "
                                 f"'{root[1]}', which the alias analysis missed")
        if initial:
            own = False
        else:
            own = view.base is not None and self.heap.claim(view.base)
        if initial:
            pass
        elif var.owner is not None:
            if own:
                self.heap.rebind(var.owner, view.base)
            elif view.root not in (("var", name), ("own", name)):  # other memory: old one goes
                self.heap.rebind(var.owner, None)
        elif own:  # a shared variable keeps every buffer bound to it until the exit
            if self.loops:
                # inside a loop no view of it is taken: this statement's buffer from the
                # iteration before is no longer read when the next one is bound
                slot = self._loop_slot(name, node)
                self.heap.rebind(slot, view.base)
            else:
                slot = self.heap.new_slot(f"{name}.buffer")
                self.b.store(view.base, slot)  # type: ignore[arg-type]
        self.heap.forget(("array variable", name))  # (its view changes: see `_load_array`)
        if name in self.once_bound:  # every value it holds gets these extents and strides
            self.known_layouts[name] = ([_lasting(d) for d in view.dims],
                                        [_lasting(s) for s in view.strides])
        self.b.store(view.ptr, var.ptr)
        for d, slot in zip(view.dims, var.dims, strict=True):
            self.b.store(d, slot)
        for s_, slot in zip(view.strides, var.strides, strict=True):
            self.b.store(s_, slot)

    def _loop_slot(self, name: str, node: ast.AST | None) -> Value:
        """The slot of the buffers binding statement `node` gives the shared variable `name`
        inside a loop: each binding frees the one of the iteration before, the exit the last.
        Only where no view of `name` is taken anywhere in the outermost loop around `node`
        (a view taken after the loop reads the last buffer, which stays until the exit);
        else a compile-time error."""
        outer = _outermost_loop(self.fdef, node)
        sites = self.typer.view_sites.get(name, {}).values()
        inside = {id(n) for n in ast.walk(outer)} if outer is not None else set()
        if outer is None or any(id(s) in inside for s in sites):
            raise self.src.error(node, f"'{name}' is also reached through another array "
                                 "variable (an alias or a view) inside this loop, so an "
                                 "array made inside the loop cannot be bound to it",
                                 f"update it in place ({name}[...] = ...), bind the new array "
                                 "to a name that no other array aliases, or take the view "
                                 "after the loop")
        key = id(node)
        if key not in self.loop_slots:
            self.loop_slots[key] = self.heap.new_slot(f"{name}.loop.buffer")
        return self.loop_slots[key]

    def _load_array(self, name: str, var: ArrayVar) -> AVal:
        """The variable's view. Within a statement, reads in one block share the values
        loaded first (until the variable is bound again), so `x * x` or `2.0 * xc + xc`
        has operands of one extent, known equal at compile time: no broadcast check and no
        stride select (which kept LLVM from vectorizing the loops reading them)."""
        b = self.b
        # what the view reads, for `writes`: only temporaries and the parameters of a
        # noalias build are told apart; a variable's views may overlap any other memory
        root = ("param", name) if name in self.typer.fixed_params else \
            ("own", name) if name in self.typer.owning_vars else ("var", name)
        key = ("array variable", name)
        got = self.heap.remembered(key)
        if isinstance(got, tuple) and got[0] is b.block:
            _, ptr, dims, strides = got
        else:
            ptr = b.load(T.PTR, var.ptr, name=name)
            # (an extent or stride known at its one binding is used as it is: see
            # `binding_sites`; a contiguous variable's strides are products of its extents:
            # computed here, they are known to be, so its axes join into one loop)
            known_dims, known_strides = self.known_layouts.get(
                name, ([None] * len(var.dims), [None] * len(var.strides)))
            dims = [k if k is not None else b.load(T.I64, d)
                    for k, d in zip(known_dims, var.dims, strict=True)]
            strides = c_strides(b, dims) if name in self.typer.contiguous_vars else \
                [k if k is not None else b.load(T.I64, s)
                 for k, s in zip(known_strides, var.strides, strict=True)]
            self.heap.remember(key, (b.block, ptr, dims, strides))
        return AVal(var.type, ptr, list(dims), list(strides),
                    name in self.typer.contiguous_vars, root)


def _lasting(v: Value) -> Value | None:
    """`v` where it is the same value wherever the function reads it (a constant or one of
    the function's arguments), else None."""
    return v if isinstance(v, ConstantInt | Argument) else None


def _outermost_loop(fdef: ast.AST, node: ast.AST | None) -> ast.AST | None:
    """The outermost `for` or `while` statement of `fdef` whose subtree holds `node`."""
    if node is None:
        return None
    for stmt in ast.walk(fdef):
        if isinstance(stmt, ast.For | ast.While) and any(n is node for n in ast.walk(stmt)):
            return stmt  # (ast.walk goes breadth first: an outer loop comes before inner)
    return None
