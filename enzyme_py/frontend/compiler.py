"""Python functions -> IR: the statement compiler (one specialization of one function).

ABI of a compiled function: each scalar argument as its IR type; each array argument as a data
pointer followed by one i64 extent per dimension (C order) and, for a `strided` array type,
one i64 stride per dimension (in elements); each container (`Tree`) argument as its leaves'
ABIs, one after the other (see `tree_values`). Results: a scalar; an array as a struct
`{ptr, i64 extents...}` of a fresh C-contiguous heap block the caller frees; a flat struct
of the items' fields for a tuple, of its leaves' fields for a tree; or void. Which functions
are compiled for which signatures is the `session`'s business; expressions are the
`expressions` mixin's, array variables the `array_vars` mixin's.

Invariants: locals live in entry-block allocas (SROA makes them SSA); every function has one
`ret`, in its `exit` block; with bounds checks on, an out-of-range index records
(site, index, extent) in the module's error global and leaves the function at once — the
caller raises `IndexError` from that record, so bad indices never touch memory.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from enzyme_py.checkpointing import LOOP_PROPERTY
from enzyme_py.custom import CustomRule
from enzyme_py.frontend import (
    iteration,
    numpy_prelude,
    raises,
    recursion_guard,
    static_conditions,
    tree_loops,
    tree_values,
    versioning,
)
from enzyme_py.frontend.array_vars import ArrayVar, ArrayVariables
from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays import views, writes
from enzyme_py.frontend.arrays.heap import Heap
from enzyme_py.frontend.binding_sites import once_bound
from enzyme_py.frontend.custom_ir import compile_custom
from enzyme_py.frontend.deferred_bindings import Deferral, deferred_bindings
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.frontend.expressions import ExpressionCompiler
from enzyme_py.frontend.ftypes import (
    BOOL,
    I64,
    NONE,
    Array,
    FType,
    NoneType,
    Scalar,
    Text,
    Tree,
    Tuple,
    tree_leaves,
)
from enzyme_py.frontend.session import (
    RETRY,
    Compiled,
    CompileSession,
    ErrorSite,
    _param_names,
    _typer_for,
)
from enzyme_py.frontend.tree_values import StaticVar
from enzyme_py.frontend.values import AVal, SVal, c_strides, convert
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.loop_marks import mark_loop
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.values import ConstantInt, ConstantKeyword, Value, zero


def specialize(session: CompileSession, pyfunc: object, arg_types: tuple[FType, ...]) -> Compiled:
    """Compile one specialization (the session's `specialize`, which caches the result): a
    `custom_vjp` / `custom_jvp` function with its rule, else a plain Python function."""
    if isinstance(pyfunc, CustomRule):
        if any(isinstance(t, Tree) for t in arg_types):
            raise FrontendError(f"{getattr(pyfunc, '__name__', 'f')}() has a custom rule, so "
                                "it takes numbers and arrays, not containers")
        return compile_custom(session, pyfunc, arg_types, compile_function)
    return compile_function(session, pyfunc, arg_types)


def compile_function(session: CompileSession, pyfunc: object,
                     arg_types: tuple[FType, ...]) -> Compiled:
    """Compile the Python function `pyfunc` for `arg_types` (uncached)."""
    return FunctionCompiler(session, pyfunc, arg_types).compile()


def ir_params(arg_types: tuple[FType, ...], names: list[str]) -> list[tuple[T.Type, str]]:
    out: list[tuple[T.Type, str]] = []
    for t, n in zip(arg_types, names, strict=True):
        if isinstance(t, Array):
            out.append((T.PTR, n))
            out.extend((T.I64, f"{n}.shape{k}") for k in range(t.ndim))
            if t.strided:
                out.extend((T.I64, f"{n}.stride{k}") for k in range(t.ndim))
        elif isinstance(t, Scalar):
            out.append((t.ir, n))
        elif isinstance(t, Tree):  # its leaves, named after their paths (`params.W`)
            out.extend(tree_values.ir_params(t, n))
        elif not isinstance(t, NoneType):  # (None is known at compile time: no parameter)
            raise FrontendError(f"argument {n} of type {t} is not supported")
    return out


def ir_return(t: FType) -> T.Type:
    if isinstance(t, Scalar):
        return t.ir
    if isinstance(t, Array | Tuple | Tree):
        return T.StructType(tuple(result_fields(t)))
    return T.VOID


def result_fields(t: FType) -> list[T.Type]:
    """The flat fields of a result: a scalar's type; an array's pointer and extents; a
    tuple's or a tree's leaves' fields, one after the other."""
    if isinstance(t, Scalar):
        return [t.ir]
    if isinstance(t, Array):
        return [T.PTR, *([T.I64] * t.ndim)]
    if isinstance(t, Tree):
        return [f for leaf in tree_leaves(t) for f in result_fields(leaf)]
    assert isinstance(t, Tuple)
    return [f for item in t.items for f in result_fields(item)]


class FunctionCompiler(ExpressionCompiler, ArrayVariables):
    def __init__(self, session: CompileSession, pyfunc: object,
                 arg_types: tuple[FType, ...]) -> None:
        self.session = session
        self.pyfunc = pyfunc
        self.arg_types = arg_types
        self.typer = _typer_for(pyfunc, arg_types, session)
        self.src = self.typer.src
        self.fdef = self.typer.fdef
        self.b = Builder()
        self.vars: dict[str, object] = {}
        self.loops: list[tuple[Block, Block]] = []  # (continue target, break target)
        # binding statement (id) -> its slot, for shared variables bound in loops
        self.loop_slots: dict[int, Value] = {}
        self.once_bound = once_bound(self.fdef, self.typer.unrolled)
        self.known_layouts: dict[str, tuple[list[Value | None], list[Value | None]]] = {}
        self.loop_depth = 0  # loops of generated code (`counted_loop`) around the builder
        self.unchecked: set[int] = set()  # subscripts proven in bounds (see `versioning`)
        # views whose loads a store redirects, by pointer (see `carried`)
        self.carried: dict[Value, Callable[[list[Value]], Value]] = {}
        self.heap = Heap(self)
        # array variables computed where they are read (`deferred_bindings`): the plans by
        # binding statement, the lazy values bound, and the buffers each reading statement
        # frees when it ends
        self.deferrable: dict[int, Deferral] = {}
        self.deferred: dict[str, L.Lazy] = {}
        self.deferred_buffers: dict[int, list[Value]] = {}

    def compile(self) -> Compiled:
        key = (self.pyfunc, self.arg_types)
        self.typer.infer()
        self.deferrable = deferred_bindings(
            self.fdef, {n for n, t in self.typer.env.items() if isinstance(t, Array)},
            self.typer.shared, self.once_bound, self.typer.resolve_global)
        ret_t = self.typer.return_type
        assert ret_t is not None
        self.session.return_types[key] = ret_t
        self.ret_type = ret_t
        names = _param_names(self.fdef, self.src, len(self.arg_types))
        params = ir_params(self.arg_types, names)
        module = self.session.module
        fname = module.unique_name(getattr(self.pyfunc, "__name__", "f"))
        ftype = T.FunctionType(ir_return(ret_t), tuple(t for t, _ in params))
        fn = Function(fname, ftype, [n for _, n in params])
        module.add_function(fn)
        self.fn = fn
        self.session.in_progress[key] = fn
        try:
            self._body(names)
        finally:
            self.session.in_progress.pop(key, None)
        return Compiled(fn, self.arg_types, ret_t, names)

    # --- structure ----------------------------------------------------------------------------

    def _body(self, names: list[str]) -> None:
        fn = self.fn
        self.entry = fn.append_block("entry")
        self.alloca_at = Builder(self.entry)
        self.exit = Block("exit", fn)
        ret_ir = fn.return_type
        self.ret_slot = self.alloca_at.alloca(ret_ir, name="retval") if not ret_ir.is_void \
            else None
        # variables
        for vname, t in self.typer.env.items():
            self.vars[vname] = self._make_var(vname, t)
        body = fn.append_block("body")
        self.b.position_at_end(body)
        args = iter(fn.args)
        for n, t in zip(names, self.arg_types, strict=True):
            if isinstance(t, Array):
                ptr = next(args)
                dims = [next(args) for _ in range(t.ndim)]
                strides = [next(args) for _ in range(t.ndim)] if t.strided else \
                    c_strides(self.b, dims)
                self.store_var(n, AVal(t.value, ptr, dims, strides, not t.strided,
                                       ("param", n)), initial=True)
            elif isinstance(t, Tree):
                self.store_var(n, tree_values.param_value(self, t, n, args), initial=True)
            elif isinstance(t, NoneType):  # (a Text parameter holds its string)
                self.store_var(n, t.value if isinstance(t, Text) else None, initial=True)
            else:
                assert isinstance(t, Scalar)
                self.store_var(n, SVal(t, next(args)))
        self.block(self.fdef.body)
        if not self.terminated():
            if isinstance(self.ret_type, NoneType):
                self.b.br(self.exit)
            else:
                raise self.src.error(self.fdef, f"{self.fdef.name}() can reach its end without "
                                     "returning a value")
        if (self.pyfunc, self.arg_types) in self.session.recursive:
            recursion_guard.guard(self, body)
        else:
            self.alloca_at.br(body)
        fn.blocks.append(self.exit)
        eb = Builder(self.exit)
        self.heap.exit_frees(eb)
        if self.ret_slot is None:
            eb.ret()
        else:
            eb.ret(eb.load(ret_ir, self.ret_slot))
        _drop_unreachable_blocks(fn)

    def _make_var(self, name: str, t: FType) -> object:
        if name in self.typer.static_names:
            return StaticVar()
        if isinstance(t, Array):
            return self._make_array_var(name, t)
        if isinstance(t, Scalar):
            return (t, self.alloca_at.alloca(t.ir, name=name))
        raise self.src.error(self.fdef, f"variable '{name}' would hold {t}",
                             "numbers and arrays in variables")

    def store_var(self, name: str, val: object, node: ast.AST | None = None,
                  initial: bool = False) -> None:
        var = self.vars[name]
        if isinstance(var, ArrayVar):
            self._bind_array(name, var, val, node, initial)
            return
        if isinstance(var, StaticVar):
            tree_values.bind_static(self, name, var, val, node)
            return
        t = var[0]  # type: ignore[index]
        if not isinstance(t, Scalar):
            raise self.src.error(node, f"'{name}' is {t}, cannot assign a number")
        self.b.store(convert(self.b, val, t).v, var[1])  # type: ignore[index]


    def load_var(self, name: str) -> SVal | AVal | L.Lazy:
        deferred = self.deferred.get(name)
        if deferred is not None:
            return deferred
        var = self.vars[name]
        if isinstance(var, ArrayVar):
            return self._load_array(name, var)
        if isinstance(var, StaticVar):
            return tree_values.load_static(self, name, var, None)
        t = var[0]  # type: ignore[index]
        return SVal(t, self.b.load(t.ir, var[1], name=name))  # type: ignore[index]

    def terminated(self) -> bool:
        blk = self.b.block
        return blk is not None and blk.terminator is not None

    def new_block(self, name: str) -> Block:
        return self.fn.append_block(name)

    # --- statements ---------------------------------------------------------------------------

    def block(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            if self.terminated():
                return  # the rest is unreachable (after return/break/continue)
            self.stmt(s)

    def stmt(self, s: ast.stmt) -> None:
        method = getattr(self, f"stmt_{type(s).__name__}", None)
        if method is None:
            raise self.src.error(s, f"'{type(s).__name__}' statements are not supported",
                                 "assignments, if/elif/else, for ... in range, while, break, "
                                 "continue, return, pass, expression calls")
        self.heap.begin_statement()
        try:
            method(s)
        finally:
            self.heap.end_statement()
        buffers = self.deferred_buffers.pop(id(s), None)
        if buffers is not None and not self.terminated():
            for slot in buffers:  # (a statement that returns leaves them to the exit)
                self.heap.rebind(slot, None)

    def stmt_Pass(self, s: ast.Pass) -> None:
        pass

    def stmt_FunctionDef(self, s: ast.FunctionDef) -> None:
        pass  # a local function: compiled where it is called

    def stmt_Expr(self, s: ast.Expr) -> None:
        if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return  # docstring
        if not isinstance(s.value, ast.Call):
            raise self.src.error(s, "an expression statement must be a call")
        self.expr(s.value, want_result=False)

    def stmt_Assign(self, s: ast.Assign) -> None:
        if isinstance(s.value, ast.Lambda) and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name) and \
                s.targets[0].id in self.typer.local_functions:
            return  # a named lambda: a local function
        if len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple):
            self._unpack(s.targets[0], s.value)
            return
        val = self.expr(s.value)
        plan = self.deferrable.get(id(s))
        if plan is not None and self._defer(plan, val):
            return
        for target in s.targets:
            self.assign(target, val, s.value)

    def _defer(self, plan: Deferral, val: object) -> bool:
        """Bind `plan.name` to the lazy `val` itself (`deferred_bindings`): the buffers this
        statement made, which `val` may read, are kept until `plan.use` ends. False (bind as
        usual) where `val` is not a plain lazy value of the variable's type."""
        var = self.vars.get(plan.name)
        if not (isinstance(val, L.Lazy) and val.mask is None and isinstance(var, ArrayVar)
                and var.type.same_values(val.type)):
            return False
        kept = self.deferred_buffers.setdefault(id(plan.use), [])
        # (a value deferred to this statement is part of `val` now: its buffers wait too)
        kept.extend(self.deferred_buffers.pop(id(plan.binding), []))
        for buffer in list(self.heap.levels[-1]):
            if self.heap.claim(buffer):
                slot = self.heap.new_slot(f"{plan.name}.deferred")
                self.b.store(buffer, slot)
                kept.append(slot)
        self.deferred[plan.name] = val
        return True

    def stmt_AnnAssign(self, s: ast.AnnAssign) -> None:
        if s.value is None:
            return
        self.assign(s.target, self.expr(s.value), s.value)

    def _unpack(self, target: ast.Tuple, value: ast.expr) -> None:
        if isinstance(value, ast.Tuple):
            if len(value.elts) != len(target.elts):
                raise self.src.error(value, "tuple sizes differ")
            vals = [self.expr(e) for e in value.elts]  # all right-hand sides first
            for t, v, e in zip(target.elts, vals, value.elts, strict=True):
                self._assign_item(t, v, e)
            return
        if isinstance(value, ast.Attribute) and value.attr == "shape":
            arr = self.expr(value.value)
            if not isinstance(arr, AVal) or len(arr.dims) != len(target.elts):
                raise self.src.error(value, "shape unpacking needs one name per dimension")
            for t, d in zip(target.elts, arr.dims, strict=True):
                self.assign(t, SVal(I64, d), value)
            return
        val = self.expr(value)
        if not isinstance(val, SVal) or not isinstance(val.type, Tuple):
            pass
        items = self.unpack_tuple(val, value, len(target.elts))
        for t, v in zip(target.elts, items, strict=True):
            self._assign_item(t, v, value)

    def _assign_item(self, target: ast.expr, val: object, node: ast.AST) -> None:
        """One item of an unpacked tuple: dropped when bound to a discarded `_` (typer)."""
        if not (isinstance(target, ast.Name) and target.id in self.typer.discarded):
            self.assign(target, val, node)

    def assign(self, target: ast.expr, val: object, node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.store_var(target.id, val, node)  # type: ignore[arg-type]
        elif isinstance(target, ast.Subscript) and self.array_index(target) is not None:
            self._masked_update(target, val, None, node)
        elif isinstance(target, ast.Subscript):
            place = self.place(target)
            if isinstance(place, AVal):
                writes.store(self, place, val, node)
                return
            if not isinstance(val, SVal):
                raise self.src.error(node, "an array cannot be stored into one element")
            ptr, elem = place
            self.b.store(convert(self.b, val, elem).v, ptr)
        elif isinstance(target, ast.Tuple):
            items = self.unpack_tuple(val, node, len(target.elts))
            for t, v in zip(target.elts, items, strict=True):
                self._assign_item(t, v, node)
        else:
            raise self.src.error(target, "cannot assign to this",
                                 "names, array elements a[i] / a[i, j], tuples of names")

    def _masked_update(self, target: ast.Subscript, val: object, op: ast.operator | None,
                       node: ast.AST) -> None:
        from enzyme_py.frontend.arrays import masks

        index = self.array_index(target)
        assert index is not None
        mask = self.expr(index)
        if mask.type.elem != BOOL:
            raise self.src.error(target, "storing through an integer index array (a scatter) "
                                 "is not supported", "a loop over the indices")
        dest = self.view(self.expr(target.value), target)
        masks.masked_store(self, dest, mask, val, op, node)

    def stmt_AugAssign(self, s: ast.AugAssign) -> None:
        if isinstance(s.target, ast.Subscript) and self.array_index(s.target) is not None:
            self._masked_update(s.target, self.expr(s.value), s.op, s)
            return
        if isinstance(s.target, ast.Subscript):
            place = self.place(s.target)
            if isinstance(place, AVal):  # u[1:-1] += ...: in place, as NumPy does
                new = self.binop(s.op, place, self.expr(s.value), s)
                writes.store(self, place, new, s)
                return
            ptr, elem = place
            cur = SVal(elem, self.b.load(elem.ir, ptr))
            rhs = self.expr(s.value)
            new = self.binop(s.op, cur, rhs, s)
            self.b.store(convert(self.b, new, elem).v, ptr)  # type: ignore[arg-type]
            return
        if not isinstance(s.target, ast.Name):
            raise self.src.error(s.target, "cannot update this", "x += ..., a[i] += ...")
        var = self.vars.get(s.target.id)
        if isinstance(var, ArrayVar) or isinstance(var, StaticVar) and L.is_array(var.value):
            view = self.view(self.load_var(s.target.id), s)  # a += b writes a's memory
            assert isinstance(view, AVal)
            writes.store(self, view, self.binop(s.op, view, self.expr(s.value), s), s)
            return
        cur = self.load_var(s.target.id)
        new = self.binop(s.op, cur, self.expr(s.value), s)
        self.store_var(s.target.id, new, s)  # type: ignore[arg-type]

    def stmt_Return(self, s: ast.Return) -> None:
        if s.value is not None:
            val = self.expr(s.value)
            if isinstance(self.ret_type, Tree | Tuple | Array):
                if isinstance(self.ret_type, Tuple):
                    val = self.unpack_tuple(val, s.value, len(self.ret_type.items))
                fields = tree_values.result_fields(val, self.ret_type, s.value,
                                                   self._result_fields)
                agg: Value = zero(self.fn.return_type)
                for k, f in enumerate(fields):
                    agg = self.b.insertvalue(agg, f, [k])
                self.b.store(agg, self.ret_slot)
            elif isinstance(self.ret_type, Scalar):
                assert isinstance(val, SVal)
                self.b.store(convert(self.b, val, self.ret_type).v, self.ret_slot)
        self.b.br(self.exit)

    def _result_fields(self, val: object, t: FType, node: ast.AST) -> list[Value]:
        """A returned item's fields; an array is copied into a fresh block the caller owns,
        unless it is the whole buffer a variable owns (`_handed_over`)."""
        if isinstance(t, Array):
            if not L.is_array(val):
                raise self.src.error(node, f"this returns a number where {t} is returned "
                                     "elsewhere")
            owner = self._owner_of(val, t)
            if owner is not None:
                assert isinstance(val, AVal)
                return [self._handed_over(val, owner, t, node), *val.dims]
            ptr, dims = self._returned_copy(val, t, node)  # type: ignore[arg-type]
            return [ptr, *dims]
        assert isinstance(val, SVal) and isinstance(t, Scalar)
        return [convert(self.b, val, t).v]

    def _returned_copy(self, val: L.ArrayValue, t: Array, node: ast.AST
                       ) -> tuple[Value, list[Value]]:
        """A fresh block holding `val` as `t`'s elements, which the caller owns; its
        pointer and extents."""
        lz = L.converted(self, L.as_lazy(self, val), t.elem)
        out = L.fresh(self, t, lz.dims, node)
        L.store_elements(self, out, lz)
        assert out.base is not None
        self.heap.claim(out.base)
        return out.ptr, out.dims

    def _owner_of(self, val: object, t: Array) -> Value | None:
        """The owner slot of the variable whose view `val` is, when that variable owns its
        buffer, `val` is C-contiguous (not `v.T` or `v[:, ::2]`, which read the same block
        in another order) and its elements are already `t`'s."""
        root = getattr(val, "root", None)
        if not (isinstance(val, AVal) and val.contiguous and isinstance(root, tuple) and
                root[0] == "own"):
            return None
        var = self.vars.get(root[1])
        if not isinstance(var, ArrayVar) or var.owner is None or \
                root[1] not in self.typer.contiguous_vars or val.type.elem != t.elem:
            return None
        return var.owner

    def _handed_over(self, val: AVal, owner: Value, t: Array, node: ast.AST) -> Value:
        """The returned block of `return u`, where `u` owns its buffer: the buffer itself
        when `u` views all of it (the variable lets it go: the exit frees nothing), else a
        copy (`u` was rebound to a view of part of it)."""
        b = self.b
        whole = b.icmp("eq", b.load(T.PTR, owner), val.ptr)
        take, copy, done = (self.new_block("return.take"), self.new_block("return.copy"),
                            self.new_block("return.ready"))
        b.condbr(whole, take, copy)
        b.position_at_end(take)
        b.store(ConstantKeyword(T.PTR, "null"), owner)
        b.br(done)
        b.position_at_end(copy)
        copied, _ = self._returned_copy(val, t, node)
        copy_end = b.block
        b.br(done)
        b.position_at_end(done)
        return b.phi(T.PTR, [(val.ptr, take), (copied, copy_end)], name="returned")

    def stmt_Raise(self, s: ast.Raise) -> None:
        raises.compile_raise(self, s)

    def stmt_Assert(self, s: ast.Assert) -> None:
        raises.compile_assert(self, s)

    def stmt_If(self, s: ast.If) -> None:
        decided = static_conditions.truth(s.test, self.typer.static_type)
        if isinstance(decided, bool):  # known from the types: only that branch exists
            self.block(s.body if decided else s.orelse)
            return
        cond = self.condition(s.test)
        then, done = self.new_block("if.then"), self.new_block("if.end")
        other = self.new_block("if.else") if s.orelse else done
        self.b.condbr(cond, then, other)
        self.b.position_at_end(then)
        self.block(s.body)
        if not self.terminated():
            self.b.br(done)
        if s.orelse:
            self.b.position_at_end(other)
            self.block(s.orelse)
            if not self.terminated():
                self.b.br(done)
        self.b.position_at_end(done)
        if not any(done in blk.successors() for blk in self.fn.blocks):
            self.b.unreachable()  # every branch returned (or broke out): nothing follows

    def stmt_While(self, s: ast.While) -> None:
        if s.orelse:
            raise self.src.error(s, "while ... else is not supported",
                                 "a flag variable set before break")
        head, body, done = (self.new_block("while.cond"), self.new_block("while.body"),
                            self.new_block("while.end"))
        self.b.br(head)
        self.b.position_at_end(head)
        self.b.condbr(self.condition(s.test), body, done)
        self.b.position_at_end(body)
        self.loops.append((head, done))
        self.block(s.body)
        self.loops.pop()
        if not self.terminated():
            self.b.br(head)
        self.b.position_at_end(done)

    def stmt_For(self, s: ast.For) -> None:
        if s.orelse:
            raise self.src.error(s, "for ... else is not supported",
                                 "a flag variable set before break")
        marked = iteration.checkpoint_mark(s, self.typer.resolve_global, self.src.error)
        mark = None
        if marked is not None:
            s, mark = marked
        loop_range = iteration.range_call(s.iter)
        if loop_range is not None and loop_range[1]:
            self._for_reversed_range(s, loop_range[0], mark)
            return
        if not (isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Name) and
                s.iter.func.id == "range"):
            loop = tree_loops.parse(self.typer, s)
            if isinstance(loop, tree_loops.Unrolled):
                tree_loops.compile_loop(self, s, loop)
            else:
                self._for_over_sequences(s)
            return
        assert isinstance(s.target, ast.Name)
        start, stop, step = self._range_values(s.iter)
        step_const = step.value if isinstance(step, ConstantInt) else None
        accesses = versioning.plan(s, self.typer.env) if step_const == 1 and \
            self.session.bounds_check and not self.unchecked else []
        if not accesses:
            self._emit_for(s, start, stop, step, step_const, mark)
            return
        # two versions: without the checks proven here, and the checked original
        fast, checked = self.new_block("for.unchecked"), self.new_block("for.checked")
        self.b.condbr(versioning.all_in_bounds(self, accesses, start, stop), fast, checked)
        join = self.new_block("for.join")
        self.b.position_at_end(fast)
        self.unchecked = {id(a.node) for a in accesses}
        try:
            self._emit_for(s, start, stop, step, step_const, mark)
        finally:
            self.unchecked = set()
        self.b.br(join)
        self.b.position_at_end(checked)
        if self.session.optimistic:  # the caller reruns the version with the checked copy
            self.leave_for_retry(self.b)
        else:
            self._emit_for(s, start, stop, step, step_const, mark)
            self.b.br(join)
        self.b.position_at_end(join)

    def _range_values(self, call: ast.Call) -> tuple[Value, Value, Value]:
        """(start, stop, step) of `range(...)` (1 to 3 integers; a zero step is refused)."""
        args = call.args
        if not 1 <= len(args) <= 3 or call.keywords:
            raise self.src.error(call, "range() takes 1 to 3 integers")
        vals = [self.int_value(a) for a in args]
        one = ConstantInt(T.I64, 1)
        start, stop, step = (ConstantInt(T.I64, 0), vals[0], one) if len(vals) == 1 else \
            (vals[0], vals[1], vals[2] if len(vals) == 3 else one)
        if isinstance(step, ConstantInt) and step.value == 0:
            raise self.src.error(args[2], "range() step must not be zero")
        return start, stop, step

    def _for_reversed_range(self, s: ast.For, inner: ast.Call, mark: int | None = None) -> None:
        """`for i in reversed(range(a, b, k))` (k a constant): the same values backwards,
        `range(a + (n - 1) k, a - k, -k)` with n = len(range(a, b, k))."""
        start, stop, step = self._range_values(inner)
        if not isinstance(step, ConstantInt):
            raise self.src.error(inner, "reversed(range(...)) needs a constant step",
                                 "reversed(range(a, b)) or a literal step")
        k = step.value
        b = self.b
        # n = max(0, ceil((b - a) / k)) = max(0, (b - a + k - sign(k)) // k)
        span = b.add(b.sub(stop, start), ConstantInt(T.I64, k - (1 if k > 0 else -1)))
        n = self._int_floor_divmod(span, ConstantInt(T.I64, k), False)
        n = b.select(b.icmp("slt", n, ConstantInt(T.I64, 0)), ConstantInt(T.I64, 0), n)
        last = b.add(start, b.mul(b.sub(n, ConstantInt(T.I64, 1)), ConstantInt(T.I64, k)))
        self._emit_for(s, last, b.sub(start, ConstantInt(T.I64, k)), ConstantInt(T.I64, -k),
                       -k, mark)

    def _emit_for(self, s: ast.For, start: Value, stop: Value, step: Value,
                  step_const: int | None, mark: int | None = None) -> None:
        """The counted loop; `mark`: checkpoint it in reverse mode, keeping that many states
        (0: the gradient's default), as loop metadata (`enzyme_py.checkpointing`)."""
        assert isinstance(s.target, ast.Name)
        counter = self.alloca_at.alloca(T.I64, name=f"{s.target.id}.next")
        self.b.store(start, counter)
        head, body, latch, done = (self.new_block("for.cond"), self.new_block("for.body"),
                                   self.new_block("for.inc"), self.new_block("for.end"))
        self.b.br(head)
        self.b.position_at_end(head)
        i = self.b.load(T.I64, counter, name=s.target.id)
        if step_const is not None:
            cond = self.b.icmp("slt" if step_const > 0 else "sgt", i, stop)
        else:
            self.check(self.b.icmp("ne", step, ConstantInt(T.I64, 0)), s.iter, "range step",
                       step, ConstantInt(T.I64, 0), 2)
            up = self.b.icmp("sgt", step, ConstantInt(T.I64, 0))
            cond = self.b.select(up, self.b.icmp("slt", i, stop), self.b.icmp("sgt", i, stop))
        self.b.condbr(cond, body, done)
        self.b.position_at_end(body)
        self.store_var(s.target.id, SVal(I64, i), s.target)
        self.loops.append((latch, done))
        self.block(s.body)
        self.loops.pop()
        if not self.terminated():
            self.b.br(latch)
        self.b.position_at_end(latch)
        cur = self.b.load(T.I64, counter)
        self.b.store(self.b.add(cur, step, flags=("nsw",)), counter)
        back = self.b.br(head)
        if mark is not None:
            mark_loop(self.session.module, back, LOOP_PROPERTY, mark)
        self.b.position_at_end(done)

    def _for_over_sequences(self, s: ast.For) -> None:
        """`for row in X` / enumerate / zip: a counted loop binding each array's k-th item."""
        seqs = iteration.parse(s, self.typer.resolve_global, self.src.error)
        arrays = [(t, self.view(self.expr(seq), seq)) for t, seq in seqs.items]
        b = self.b
        n = arrays[0][1].dims[0]
        for _, a in arrays[1:]:  # zip stops at the shortest
            d = a.dims[0]
            if not L.same_extent(n, d):
                n = b.select(b.icmp("slt", d, n), d, n)
        counter = self.alloca_at.alloca(T.I64, name="item.next")
        b.store(ConstantInt(T.I64, 0), counter)
        head, body, latch, done = (self.new_block("for.cond"), self.new_block("for.body"),
                                   self.new_block("for.inc"), self.new_block("for.end"))
        b.br(head)
        b.position_at_end(head)
        k = b.load(T.I64, counter, name="item")
        b.condbr(b.icmp("slt", k, n), body, done)
        b.position_at_end(body)
        if seqs.index is not None:
            assert isinstance(seqs.index, ast.Name)
            self.store_var(seqs.index.id, SVal(I64, k), seqs.index)
        for target, arr in arrays:
            assert isinstance(target, ast.Name)
            self.store_var(target.id, views.item(self, arr, k), target)
        self.loops.append((latch, done))
        self.block(s.body)
        self.loops.pop()
        if not self.terminated():
            b.br(latch)
        b.position_at_end(latch)
        b.store(b.add(b.load(T.I64, counter), ConstantInt(T.I64, 1), flags=("nsw",)), counter)
        b.br(head)
        b.position_at_end(done)

    def stmt_Break(self, s: ast.Break) -> None:
        if not self.loops:
            raise self.src.error(s, "'break' outside a loop")
        self.b.br(self.loops[-1][1])

    def stmt_Continue(self, s: ast.Continue) -> None:
        if not self.loops:
            raise self.src.error(s, "'continue' outside a loop")
        self.b.br(self.loops[-1][0])

    # --- runtime checks -----------------------------------------------------------------------

    def _site_here(self, node: ast.AST, what: str, axis: int) -> int:
        """A new error site of kind `what` at `node`'s source line."""
        line = getattr(node, "lineno", 1)
        text = self.src.lines[line - 1].strip() if line <= len(self.src.lines) else ""
        return self.session.add_site(ErrorSite(self.src.filename,
                                               self.src.first_line + line - 1, text, what,
                                               axis))

    def check(self, ok: Value, node: ast.AST, what: str, index: Value, extent: Value,
              axis: int) -> None:
        """Continue when `ok`; otherwise record the error and leave the function."""
        site = self._site_here(node, what, axis)
        good, bad = self.new_block("check.ok"), self.new_block("check.fail")
        self.b.condbr(ok, good, bad)
        self._leave_with_error(Builder(bad), site, index, extent)
        self._may_record({site})
        self.b.position_at_end(good)

    def _may_record(self, sites: set[int]) -> None:
        """This function may leave with one of `sites` recorded."""
        self.session.failure_sites.setdefault(self.fn, set()).update(sites)

    def leave_for_retry(self, eb: Builder) -> None:
        """At `eb`: leave the function with the request for the checked copies."""
        none = ConstantInt(T.I64, 0)
        self._leave_with_error(eb, self.session.retry_site_id(), none, none)
        self.session.retrying.add(self.fn)
        self._may_record({self.session.retry_site})

    def pass_on_retry(self, callee: Function, stand_in_call: ast.AST | None = None) -> None:
        """After a call of `callee`: if it may leave with the request for the checked copies
        (an optimistic compile), leave too when it did, rather than go on with its zero
        result. Outside every loop, a call of a function that may record an error leaves too
        when it did, keeping the record, so the error raised is the callee's (at its line),
        not a later one that its empty result causes here. Inside a loop only the request
        for the checked copies is passed on: leaving there too would make each loop around
        such a call a loop with two exits (LSTM's gradient: +25% compile time, 2x slower).
        `stand_in_call`: the call of a NumPy stand-in (`numpy_prelude`); a failure it
        recorded is reported at this call's line, with its own kind and message."""
        sites = self.session.failure_sites.get(callee, set())
        if sites:
            self._may_record(sites)
        if sites and not self.loops and not self.loop_depth:
            self._pass_on_any_error(sites, stand_in_call)
            return
        if callee not in self.session.retrying:
            return
        b = self.b
        g = self.session.error_global()
        word = b.load(T.I64, b.getelementptr(T.ArrayType(3, T.I64), g, [ConstantInt(T.I64, 0),
                                                                        ConstantInt(T.I64, 0)]))
        leave, go_on = self.new_block("retry.pass"), self.new_block("retry.none")
        b.condbr(b.icmp("eq", word, ConstantInt(T.I64, self.session.retry_site_id())),
                 leave, go_on)
        self.leave_for_retry(Builder(leave))
        b.position_at_end(go_on)

    def _pass_on_any_error(self, sites: set[int], stand_in_call: ast.AST | None = None
                           ) -> None:
        """Leave with the record as it is when it holds a failure (of the call just made,
        one of `sites`); after a stand-in's call in the user's code, with the site moved to
        that call's line (a stand-in calling a stand-in passes the site on as it is, so the
        user's call moves every site of the chain; moving at each level would make a new
        site per site and level: np.linalg.matrix_power's gradient took 34 s to compile)."""
        b = self.b
        g = self.session.error_global()
        slot = b.getelementptr(T.ArrayType(3, T.I64), g, [ConstantInt(T.I64, 0),
                                                          ConstantInt(T.I64, 0)])
        word = b.load(T.I64, slot)
        leave, go_on = self.new_block("error.pass"), self.new_block("error.none")
        b.condbr(b.icmp("ne", word, ConstantInt(T.I64, 0)), leave, go_on)
        eb = Builder(leave)
        if stand_in_call is not None and self.src.filename not in numpy_prelude.FILES:
            moved: Value = word
            for k in sorted(sites):
                site = self.session.sites[k - 1]
                if site.filename in numpy_prelude.FILES and site.what != RETRY:
                    here = self._site_here(stand_in_call, site.what, site.axis)
                    moved = eb.select(eb.icmp("eq", word, ConstantInt(T.I64, k)),
                                      ConstantInt(T.I64, here), moved)
            eb.store(moved, slot)
        self.heap.free_live_temporaries(eb)
        if self.ret_slot is not None:
            eb.store(zero(self.fn.return_type), self.ret_slot)
        eb.br(self.exit)
        if self.session.retry_site in sites:
            self.session.retrying.add(self.fn)  # (the record may be the request)
        b.position_at_end(go_on)

    def _leave_with_error(self, eb: Builder, site: int, index: Value, extent: Value) -> None:
        """At `eb`: free the live temporaries, record `[site, index, extent]`, return zero."""
        self.heap.free_live_temporaries(eb)
        g = self.session.error_global()
        at = [eb.getelementptr(T.ArrayType(3, T.I64), g, [ConstantInt(T.I64, 0),
                                                          ConstantInt(T.I64, k)])
              for k in range(3)]
        eb.store(ConstantInt(T.I64, site), at[0])
        eb.store(index, at[1])
        eb.store(extent, at[2])
        if self.ret_slot is not None:
            eb.store(zero(self.fn.return_type), self.ret_slot)
        eb.br(self.exit)


def _drop_unreachable_blocks(fn: Function) -> None:
    from enzyme_py.ir.dominance import reverse_post_order

    live = set(reverse_post_order([fn.entry], lambda b: b.successors()))
    dead = [b for b in fn.blocks if b not in live]
    for b in dead:
        fn.blocks.remove(b)
    for b in fn.blocks:
        for phi in b.phis():
            for d in dead:
                if d in phi.incoming_blocks:
                    phi.remove_incoming(d)


__all__ = ["BOOL", "CompileSession", "Compiled", "ErrorSite", "FunctionCompiler", "NONE"]
