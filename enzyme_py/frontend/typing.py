"""Type inference for the Python subset: one type per local variable, fixed per signature.

Invariants: a variable's type is the unification of every value assigned to it anywhere in the
function (Python's int -> float promotion), except for a name bound at compile time (a
container, or the variable of an unrolled loop: `static_names`, see `static_bindings`),
whose type is that of its latest binding in source order; an array variable never holds a
scalar; the return type unifies every `return`. Expression typing here is the single source
of truth: code generation asks `Typer.expr_type` rather than re-deriving types. Calls are
typed by the `call_types.CallTyper` mixin, containers by the `tree_typing.TreeTyper` one.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from enzyme_py.frontend import (
    comprehensions,
    iteration,
    local_functions,
    static_bindings,
    static_conditions,
    tree_comprehensions,
    tree_loops,
    trees,
)
from enzyme_py.frontend.arrays import types as AT
from enzyme_py.frontend.call_types import (
    _MISSING,
    STRING,
    CallTyper,
    ReturnTypeOf,
    _constant_type,
    _is_shape,
    is_user_function,
)
from enzyme_py.frontend.errors import SourceInfo
from enzyme_py.frontend.ftypes import (
    BOOL,
    F32,
    F64,
    I32,
    I64,
    NONE,
    Array,
    FType,
    NoneType,
    Scalar,
    Text,
    Tree,
    Tuple,
    arithmetic_result,
    unify,
)
from enzyme_py.frontend.tree_typing import TreeTyper

# Python's bools count (True + True == 2, -True == -1); NumPy's (np.bool_, the elements of
# boolean arrays, comparisons of NumPy values) do logic (True + True is True; - is a
# TypeError). A scalar bool here may be either, so the ambiguous operators are refused.
_AMBIGUOUS_BOOL = ("'{op}' on bools is ambiguous: Python counts (True + True == 2), NumPy's "
                   "bools do logic (True + True is True)")
_BOOL_HINT = "int(a) + int(b) to count; a | b, a & b, a != b for logic"

class Typer(CallTyper, TreeTyper):
    def __init__(self, fdef: ast.FunctionDef, arg_types: dict[str, FType],
                 globals_: dict[str, object], src: SourceInfo,
                 return_type_of: ReturnTypeOf, owner: object = None,
                 inherited: dict | None = None) -> None:
        self.fdef = fdef
        self.globals = globals_
        self.owner = owner
        # called with (owner, dotted name, object) for each global looked up (see
        # `resolve_global`); set by the session
        self.on_global: Callable[[object, tuple[str, ...], object], None] | None = None
        #: module-level tuple constants written into `fdef` as literals (`global_tuples`)
        self.inlined_globals: list[tuple[str, object]] = []
        self.src = src
        self.return_type_of = return_type_of
        # nested defs and named lambdas (see `local_functions`), and those of enclosing ones
        self.local_functions = dict(inherited or {})
        self.local_functions.update(local_functions.collect(owner, fdef, src, globals_))
        for name in self.local_functions:
            if name in arg_types:
                raise src.error(fdef, f"'{name}' is both a parameter and a local function")
        self.env: dict[str, FType] = dict(arg_types)
        self.return_type: FType | None = None
        self._returns_seen = False
        assigned = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and
                    isinstance(n.ctx, ast.Store)}
        self.fdef_assigned = assigned
        # parameters the body never rebinds (their views read the caller's memory)
        self.fixed_params = {p for p in arg_types if p not in assigned}
        # names that are the function's own (its parameters and what it assigns): never
        # looked up as globals, as Python does not (`resolve_global`)
        declared = {n for node in ast.walk(fdef) if isinstance(node, ast.Global | ast.Nonlocal)
                    for n in node.names}
        self._own_names = (frozenset(arg_types) | assigned) - declared
        # array variables whose memory another array variable may view (see `arrays.heap`),
        # and where each view of it is taken (the expression, `array_vars`)
        self.shared: set[str] = set()
        self.view_sites: dict[str, dict[int, ast.AST]] = {}
        # array variables whose every value is C-contiguous (known at compile time)
        self.contiguous_vars: set[str] = {p for p, t in arg_types.items()
                                          if isinstance(t, Array) and not t.strided}
        self._not_contiguous: set[str] = {p for p, t in arg_types.items()
                                          if isinstance(t, Array) and t.strided}
        # array variables that may hold a view of memory they did not make
        self._may_view: set[str] = set(arg_types)
        # names bound at compile time: containers, and the variables of unrolled loops over
        # children of different types (see `static_bindings`, `tree_loops`)
        self.static_names: set[str] = {p for p, t in arg_types.items()
                                       if trees.is_container(t) or isinstance(t, NoneType)}
        self.static_keys: dict[str, object] = {}  # the keys of unrolled loops, while typed
        self.key_names: set[str] = set()  # names bound to a dict's str keys (no values)
        self.unrolled: set[int] = set()  # ids of the `for` loops over containers
        self.scoped_names: set[str] = set()  # unbound after their unrolled loops
        # `_` where the function never reads it: an item of an unpacked tuple bound to it is
        # dropped, so `u, _, _ = np.linalg.svd(a)` binds nothing of other types to one name
        self.discarded: frozenset[str] = frozenset() if any(
            isinstance(n, ast.Name) and n.id == "_" and isinstance(n.ctx, ast.Load)
            for n in ast.walk(fdef)) else frozenset({"_"})

    # --- the fixpoint -------------------------------------------------------------------------

    def infer(self) -> None:
        for _ in range(20):
            before = (dict(self.env), self.return_type, set(self.shared),
                      set(self._not_contiguous))
            self._block(self.fdef.body)
            if (dict(self.env), self.return_type, self.shared, self._not_contiguous) == before:
                break
        if self.return_type is None:
            # a body that only ever raises (a test the types decide picked a `raise`) never
            # returns: its calls may have any type, so they take a float's (a gradient of a
            # caller still compiles, and raises); else the function returns nothing
            self.return_type = F64 if self._always_leaves(self.fdef.body) else NONE
        self.scoped_names = static_bindings.check(self)
        self.contiguous_vars = {n for n, t in self.env.items()
                                if isinstance(t, Array) and n not in self._not_contiguous}
        # variables whose every value is a buffer they own (it overlaps no other memory)
        self.owning_vars = {n for n, t in self.env.items()
                            if isinstance(t, Array) and n not in self._may_view and
                            n not in self._not_contiguous}

    def _note_binding(self, name: str, value: ast.expr) -> None:
        """Record what binding `value` to `name` says about aliasing and contiguity."""
        if name in self.static_names:
            self.note_sources(value)  # the compiler holds the value itself
            return
        if not isinstance(self.env.get(name), Array):
            return
        root = self.view_root(value)
        if root is not None and root != name and root not in self.fixed_params:
            self.shared.add(root)  # its buffers must outlive this view (see `arrays.heap`)
            self.view_sites.setdefault(root, {})[id(value)] = value
        if not self._contiguous_value(value):
            self._not_contiguous.add(name)
        if root is not None:
            self._may_view.add(name)

    def _contiguous_value(self, e: ast.expr) -> bool:
        """Is every value of array expression `e` C-contiguous? (fresh arrays are; a view
        only when it is a contiguous variable itself)"""
        if trees.is_container(self.expr_type(e, lenient=True)) and not isinstance(e, ast.Call):
            return False  # unpacked: its children may be any views
        if isinstance(e, ast.Name):
            return e.id not in self._not_contiguous
        if isinstance(e, ast.Subscript | ast.Attribute) and \
                self.container_of(e.value) is not None:
            return self.contiguous_param_leaf(e)
        if isinstance(e, ast.BinOp | ast.UnaryOp | ast.Compare):
            return True  # computed into a fresh buffer
        if isinstance(e, ast.Call):
            entry, _ = self._array_entry(e)
            return entry is None or not entry.view  # type: ignore[attr-defined]
        return False

    def view_root(self, e: ast.expr) -> str | None:
        """The variable whose memory `e` is a view of (for a container, the memory its
        arrays view), or None when `e` makes a new array (or is not an array)."""
        t = self.expr_type(e, lenient=True)
        if not (isinstance(t, Array) or trees.is_container(t)):
            return None
        if isinstance(e, ast.Name):
            return e.id if e.id in self.env else None
        if isinstance(e, ast.Subscript | ast.Attribute) and \
                self.container_of(e.value) is not None:
            child = self.literal_child(e.value, e.attr if isinstance(e, ast.Attribute) else
                                       e.slice)
            return self.view_root(child if isinstance(child, ast.expr) else e.value)
        if isinstance(e, ast.Subscript):
            return self.view_root(e.value)
        if isinstance(e, ast.Attribute) and e.attr == "T":
            return self.view_root(e.value)
        if isinstance(e, ast.Call):

            entry, receiver = self._array_entry(e)
            if entry is not None and entry.view:  # type: ignore[attr-defined]
                base = receiver if receiver is not None else (e.args[0] if e.args else None)
                if base is None or isinstance(base, ast.List | ast.Tuple):
                    return None
                return self.view_root(base)
        return None

    def _block(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            self._stmt(s)
            if isinstance(s, ast.If) and self._taken_branch_leaves(s):
                return  # (the rest is never reached: the compiler does not compile it)

    def _taken_branch_leaves(self, s: ast.If) -> bool:
        """Is `s` an `if` decided at compile time whose branch always returns (or breaks
        out, or continues)?"""
        decided = static_conditions.truth(s.test, self.static_type)
        return isinstance(decided, bool) and self._always_leaves(
            s.body if decided else s.orelse)

    def _always_leaves(self, stmts: list[ast.stmt]) -> bool:
        for s in stmts:
            if isinstance(s, ast.Return | ast.Break | ast.Continue | ast.Raise):
                return True
            if not isinstance(s, ast.If):
                continue
            decided = static_conditions.truth(s.test, self.static_type)
            if isinstance(decided, bool):
                if self._always_leaves(s.body if decided else s.orelse):
                    return True
            elif decided is None and s.orelse and self._always_leaves(s.body) and \
                    self._always_leaves(s.orelse):
                return True
        return False

    def _assign_name(self, name: str, t: FType | None, node: ast.AST) -> None:
        if t is None:
            return
        old = self.env.get(name)
        if name in self.static_names or trees.is_container(t) or trees.is_container(old) \
                or isinstance(t, NoneType):
            self.static_names.add(name)
            self.env[name] = t  # bound at compile time: the latest binding's type
            return
        if old is None:
            self.env[name] = _widen(t)
            return
        new = unify(old, t)
        if new is None:
            raise self.src.error(node, f"variable '{name}' holds {old} on one path and {t} on "
                                 "another; a variable keeps one type",
                                 "int and float mix (int becomes float); arrays keep their "
                                 "dtype and rank")
        self.env[name] = new

    def _stmt(self, s: ast.stmt) -> None:
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Lambda) and \
                len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                s.targets[0].id in self.local_functions:
            return  # a named lambda: a local function
        if isinstance(s, ast.Assign):
            if _is_shape(s.value) and all(isinstance(t, ast.Tuple) for t in s.targets):
                for target in s.targets:  # n, m = a.shape
                    self._target(target, None, s.value)
                return
            t = self.expr_type(s.value, lenient=True)
            for target in s.targets:
                self.check_not_into_container(target)
                self._target(target, t, s.value)
                if isinstance(target, ast.Name):
                    self._note_binding(target.id, s.value)
        elif isinstance(s, ast.AnnAssign) and s.value is not None:
            self._target(s.target, self.expr_type(s.value, lenient=True), s.value)
        elif isinstance(s, ast.AugAssign):
            self.check_not_into_container(s.target)
            if isinstance(s.target, ast.Name):
                cur = self.env.get(s.target.id)
                rhs = self.expr_type(s.value, lenient=True)
                if cur is not None and rhs is not None:
                    self._assign_name(s.target.id, self._binop_type(s.op, cur, rhs, s), s)
        elif isinstance(s, ast.For):
            marked = iteration.checkpoint_mark(s, self.resolve_global, self.src.error)
            if marked is not None:
                s = marked[0]
            loop = None if _is_range(s.iter) else tree_loops.parse(self, s)
            if loop is tree_loops.PENDING:
                return  # over a container not typed yet: the fixpoint comes back
            if isinstance(loop, tree_loops.Unrolled):
                tree_loops.type_loop(self, s, loop)
                return
            if _is_range(s.iter):
                self._assign_name(_for_target(s, self.src), I64, s.target)
            else:
                self._for_over_array(s)
            self._block(s.body)
            self._block(s.orelse)
        elif isinstance(s, ast.If):
            decided = static_conditions.truth(s.test, self.static_type)
            if decided is static_conditions.PENDING:
                return  # (an operand is not typed yet: the fixpoint comes back)
            if decided is None:
                self._block(s.body)
                self._block(s.orelse)
            else:
                self._block(s.body if decided else s.orelse)
        elif isinstance(s, ast.While):
            self._block(s.body)
            self._block(s.orelse)
        elif isinstance(s, ast.FunctionDef) and s.name in self.local_functions:
            pass  # compiled where it is called (see `local_functions`)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            raise self.src.error(s, f"nested {'class' if isinstance(s, ast.ClassDef) else 'def'}"
                                 f" '{s.name}' is not supported",
                                 "define helper functions at module level")
        elif isinstance(s, ast.Return):
            t = NONE if s.value is None else self.expr_type(s.value, lenient=True)
            if t is None:
                return
            if _holds_text(t):
                raise self.src.error(s, "returning a string is not supported (it is known "
                                     "only while compiling)", "return numbers and arrays")
            if isinstance(t, Array):
                t = t.value
            t = trees.flat_tuple(trees.tree_value(t)) if trees.is_container(t) else _widen(t)
            if self.return_type is None:
                self.return_type = t
            else:
                new = trees.unify_values(self.return_type, t)
                if new is None:
                    raise self.src.error(s, f"this returns {t}, another return gives "
                                         f"{self.return_type}",
                                         "every return gives the same kind of value "
                                         "(numbers mix; arrays keep dtype and rank)")
                self.return_type = new

    def _for_over_array(self, s: ast.For) -> None:
        """`for row in X`, `enumerate`, `zip`: items of arrays' first axes (see `iteration`)."""
        seqs = iteration.parse(s, self.resolve_global, self.src.error)
        if seqs.index is not None:
            if not isinstance(seqs.index, ast.Name):
                raise self.src.error(seqs.index, "the counter must be a plain name")
            self._assign_name(seqs.index.id, I64, seqs.index)
        for target, seq in seqs.items:
            if not isinstance(target, ast.Name):
                raise self.src.error(target, "the loop variable must be a plain name",
                                     "for row in X, for a, b in zip(x, y)")
            t = self.expr_type(seq, lenient=True)
            if t is None:
                continue
            if not isinstance(t, Array):
                raise self.src.error(seq, "only 'for ... in range(...)' and 'for row in "
                                     "array' loops are supported",
                                     "for i in range(n), for row in X, enumerate, zip")
            item = t.elem if t.ndim == 1 else Array(t.elem, t.ndim - 1)
            self._assign_name(target.id, item, target)
            if isinstance(item, Array):
                root = self.view_root(seq)
                if root is not None and root not in self.fixed_params:
                    self.shared.add(root)
                    self.view_sites.setdefault(root, {})[id(seq)] = seq
                self._not_contiguous.add(target.id)
                self._may_view.add(target.id)

    def _target(self, target: ast.expr, t: FType | None, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self._assign_name(target.id, t, target)
        elif isinstance(target, ast.Tuple):
            items: list[FType | None]
            if isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts):
                items = [self.expr_type(e, lenient=True) for e in value.elts]
            elif isinstance(t, Tuple) and len(t.items) == len(target.elts):
                items = list(t.items)
            elif trees.is_container(t):
                items = trees.unpacked(self.src, t, len(target.elts), target)  # type: ignore
            elif _is_shape(value):
                items = [I64] * len(target.elts)
            elif t is None:
                return
            else:
                raise self.src.error(target, f"cannot unpack {t} into {len(target.elts)} names")
            for k, (e, it) in enumerate(zip(target.elts, items, strict=True)):
                if isinstance(e, ast.Name) and e.id in self.discarded:
                    continue
                self._target(e, it, value)
                if isinstance(e, ast.Name):
                    if isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts):
                        self._note_binding(e.id, value.elts[k])
                    else:  # an item of a returned tuple: a fresh array
                        self._note_binding(e.id, value)

    # --- expressions --------------------------------------------------------------------------

    def static_type(self, e: ast.expr) -> FType | None:
        """The type of an operand of a test decided at compile time (`static_conditions`):
        None when it is not typed yet."""
        return self.expr_type(e, lenient=True)

    def expr_type(self, e: ast.expr, lenient: bool = False) -> FType | None:
        """The type of `e`; with `lenient`, None when a variable is not typed yet."""
        if isinstance(e, ast.Constant):
            v = e.value
            if isinstance(v, bool):
                return BOOL
            if isinstance(v, int):
                return I64
            if isinstance(v, float):
                return F64
            if v is None:
                return NONE
            if isinstance(v, str):
                return Text(v)  # (a compile-time value: see `ftypes.Text`)
            raise self.src.error(e, f"constant {v!r} of type {type(v).__name__} is not supported",
                                 "int, float, bool and string constants")
        if isinstance(e, ast.Name):
            t = self.env.get(e.id)
            if e.id in self.key_names and not isinstance(self.static_keys.get(e.id), int):
                raise self.src.error(e, f"'{e.id}' is a dict's key (a string known at compile "
                                     "time); it can only index a container, inside its "
                                     "loop",
                                     f"d[{e.id}], other[{e.id}]")
            if t is not None:
                return t
            g = self.resolve_global(e)
            if g is not _MISSING:
                return _constant_type(g, e, self.src)
            if lenient:
                return None
            raise self.src.error(e, f"name '{e.id}' is not defined here")
        if isinstance(e, ast.BinOp):
            a = self.expr_type(e.left, lenient)
            b = self.expr_type(e.right, lenient)
            if a is None or b is None:
                return None
            return self._binop_type(e.op, a, b, e)
        if isinstance(e, ast.UnaryOp):
            t = self.expr_type(e.operand, lenient)
            if t is None:
                return None
            if isinstance(t, Array):
                if isinstance(e.op, ast.Not):
                    raise self.src.error(e, "the truth value of an array is ambiguous",
                                         "~mask for element-wise not")
                if isinstance(e.op, ast.Invert) and t.elem.is_float:
                    raise self.src.error(e, "~ needs an integer or boolean array")
                if isinstance(e.op, ast.USub) and t.elem == BOOL:  # (NumPy's TypeError)
                    raise self.src.error(e, "the - operator is not supported on a boolean "
                                         "array (as in NumPy)", "~mask or np.logical_not(mask)"
                                         " to negate; mask.astype(int) to count")
                elem = t.elem if t.elem != BOOL or isinstance(e.op, ast.Invert) else I64
                return Array(elem, t.ndim)
            if isinstance(e.op, ast.Not):
                return BOOL
            if not isinstance(t, Scalar):
                raise self.src.error(e, f"unary operators need a number, not {t}")
            if isinstance(e.op, ast.Invert) and t == BOOL:
                return I64
            if isinstance(e.op, ast.USub) and t == BOOL:
                raise self.src.error(e, _AMBIGUOUS_BOOL.format(op="-"), _BOOL_HINT)
            return I64 if t == BOOL else t
        if isinstance(e, ast.Compare):
            if any(isinstance(op, ast.Is | ast.IsNot) for op in e.ops):
                if not static_conditions.is_none_test(e):
                    raise self.src.error(e, "'is' and 'is not' compare with None only",
                                         "==, != for numbers; v is None, v is not None")
                decided = static_conditions.truth(e, self.static_type)
                return None if decided is static_conditions.PENDING else BOOL
            subs = [e.left, *e.comparators]
            types = [self.expr_type(sub, lenient) for sub in subs]
            if any(isinstance(t, Array) for t in types):
                if len(e.ops) > 1:
                    raise self.src.error(e, "chained comparisons of arrays are ambiguous",
                                         "(a < b) & (b < c)")
                if any(trees.is_container(t) for t in types):
                    raise self.src.error(e, "cannot compare a container with an array")
                if any(t is None for t in types):
                    return None
                return Array(BOOL, AT.result_rank(types))  # type: ignore[arg-type]
            for sub, t in zip(subs, types, strict=True):
                if trees.is_container(t):
                    raise self.src.error(sub, f"cannot compare or test {t}",
                                         "comparisons of numbers")
            return BOOL
        if isinstance(e, ast.BoolOp):
            for sub in e.values:
                t = self.expr_type(sub, lenient)
                if isinstance(t, Array):
                    raise self.src.error(sub, "the truth value of an array is ambiguous",
                                         "& and | combine boolean arrays element-wise; "
                                         "np.any / np.all test them")
                if trees.is_container(t):
                    raise self.src.error(sub, f"cannot compare or test {t}",
                                         "comparisons of numbers")
            return BOOL
        if isinstance(e, ast.IfExp):
            decided = static_conditions.truth(e.test, self.static_type)
            if decided is static_conditions.PENDING:
                return None
            if decided is not None:
                return self.expr_type(e.body if decided else e.orelse, lenient)
            a = self.expr_type(e.body, lenient)
            b = self.expr_type(e.orelse, lenient)
            if a is None or b is None:
                return a or b
            t = unify(a, b)
            if t is None:
                raise self.src.error(e, f"the two branches have types {a} and {b}")
            if isinstance(t, Array):
                raise self.src.error(e, "conditional expressions choosing between arrays are "
                                     "not supported", "np.where(cond, a, b), or an if "
                                     "statement")
            return t
        if isinstance(e, ast.ListComp | ast.GeneratorExp | ast.DictComp):
            loop = tree_comprehensions.loop_of(self, e)
            if isinstance(loop, tree_loops.Unrolled):
                return tree_comprehensions.comprehension_type(self, e, loop, lenient)
            if loop is tree_loops.PENDING:
                return None
            if isinstance(e, ast.DictComp):
                raise self.src.error(e, "a dict comprehension runs over a container",
                                     "{k: v * 2 for k, v in d.items()}")
            return comprehensions.comprehension_type(self, e, lenient)
        if isinstance(e, ast.Subscript):
            return self._subscript_type(e, lenient)
        if isinstance(e, ast.Attribute):
            return self._attribute_type(e, lenient)
        if isinstance(e, ast.Call):
            return self._call_type(e, lenient)
        if isinstance(e, ast.Tuple):
            return self.tuple_literal_type(e, lenient)
        if isinstance(e, ast.List):
            return self.list_literal_type(e, lenient)
        if isinstance(e, ast.Dict):
            return self.dict_literal_type(e, lenient)
        raise self.src.error(e, f"{type(e).__name__} expressions are not supported",
                             "numbers, variables, arithmetic, comparisons, calls, indexing")

    def _binop_type(self, op: ast.operator, a: FType, b: FType, e: ast.AST) -> FType:
        for t in (a, b):
            if trees.is_container(t) or isinstance(t, NoneType):
                raise self.src.error(e, f"arithmetic on {t} is not supported",
                                     "arithmetic on numbers and arrays: on a container's "
                                     "children (t['W'] * 2), or in a loop over them")
        if isinstance(op, ast.MatMult):
            if isinstance(a, Array) and isinstance(b, Array):
                return _dot_type(a, b, e, self.src)
            raise self.src.error(e, "@ needs two arrays")
        if isinstance(a, Array) and isinstance(b, Array | Scalar) or \
                isinstance(b, Array) and isinstance(a, Scalar):
            try:
                elem = AT.binop_elem(op, [a, b])
            except TypeError as err:
                raise self.src.error(e, str(err)) from None
            return Array(elem, AT.result_rank([a, b]))
        if not (isinstance(a, Scalar) and isinstance(b, Scalar)):
            raise self.src.error(e, f"arithmetic on {a} and {b} is not supported",
                                 "arithmetic on numbers; loop over array elements")
        if isinstance(op, ast.Div):
            t = arithmetic_result(a, b)
            return t if t.is_float else F64
        if isinstance(op, ast.Pow):
            t = arithmetic_result(a, b)
            return t
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)):
            if a.is_float or b.is_float:
                raise self.src.error(e, "bitwise operators need integers")
            return arithmetic_result(a, b)
        if isinstance(op, (ast.Add, ast.Sub)) and a == BOOL and b == BOOL:
            raise self.src.error(e, _AMBIGUOUS_BOOL.format(op="+" if isinstance(op, ast.Add)
                                                           else "-"), _BOOL_HINT)
        if isinstance(op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
            return arithmetic_result(a, b)
        raise self.src.error(e, f"operator {type(op).__name__} is not supported")

    def _subscript_type(self, e: ast.Subscript, lenient: bool) -> FType | None:
        if _is_shape(e.value) and self.container_of(e.value) is None:
            return I64
        base = self.expr_type(e.value, lenient)
        if base is None:
            return None
        if trees.is_container(base):
            return self.container_subscript_type(e, base)  # type: ignore[arg-type]
        if not isinstance(base, Array):
            raise self.src.error(e, f"cannot index {base}", "indexing arrays: a[i], a[i, j]")
        idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        if len(idx) == 1 and not isinstance(idx[0], ast.Slice) and \
                not _is_newaxis(self, idx[0]):
            it = self.expr_type(idx[0], lenient)
            if isinstance(it, Array):  # x[mask], x[idx] (see `arrays.masks`)
                if it.elem == BOOL:
                    return Array(base.elem, 1)
                if it.elem.is_float:
                    raise self.src.error(idx[0], f"array index has type {it}",
                                         "integer or boolean index arrays")
                return Array(base.elem, it.ndim + base.ndim - 1)
        ndim = base.ndim
        axes = 0  # axes of `base` consumed
        dots = 0
        for i in idx:
            if isinstance(i, ast.Slice):
                for part in (i.lower, i.upper, i.step):
                    t = self.expr_type(part, lenient) if part is not None else I64
                    if t is not None and not (isinstance(t, Scalar) and not t.is_float):
                        raise self.src.error(part, f"slice bound has type {t}",
                                             "integer slice bounds")
                axes += 1
            elif _is_newaxis(self, i):
                ndim += 1
            elif isinstance(i, ast.Constant) and i.value is Ellipsis:
                dots += 1
            else:
                t = self.expr_type(i, lenient)
                if isinstance(t, Array):
                    raise self.src.error(i, "an index array beside other indices is not "
                                         "supported", "x[mask] or x[idx] alone; slices and "
                                         "integers otherwise")
                if t is not None and not (isinstance(t, Scalar) and not t.is_float):
                    raise self.src.error(i, f"array index has type {t}", "integer indices")
                axes += 1
                ndim -= 1
        if dots > 1:
            raise self.src.error(e, "an index can only have a single ellipsis ('...')")
        if axes > base.ndim:
            raise self.src.error(e, f"too many indices for a {base.ndim}-D array: {axes}",
                                 "one index or slice per dimension")
        if ndim == 0:
            return base.elem
        return Array(base.elem, ndim)

    def _attribute_type(self, e: ast.Attribute, lenient: bool) -> FType | None:
        if isinstance(e.value, ast.Name) and e.value.id not in self.env:
            g = self.resolve_global(e)
            if g is not _MISSING:
                return _constant_type(g, e, self.src)
        base = self.expr_type(e.value, lenient)
        if base is None:
            return None
        if trees.is_container(base):
            return self.container_attribute_type(e, base)  # type: ignore[arg-type]
        if isinstance(base, Array) and e.attr in ("size", "ndim"):
            return I64
        if isinstance(base, Array) and e.attr == "T":
            return base.value
        if isinstance(base, Array) and e.attr == "shape":
            raise self.src.error(e, "a.shape must be indexed or unpacked",
                                 "a.shape[k], n, m = a.shape, or np.zeros(a.shape)")
        if isinstance(base, Array) and e.attr == "dtype":
            raise self.src.error(e, "a.dtype is read only as a dtype argument of a variable "
                                 "array", "x.astype(a.dtype), np.zeros(n, dtype=a.dtype)")
        raise self.src.error(e, f"attribute '{e.attr}' of {base} is not supported",
                             "a.shape[k], a.size, a.ndim, a.T")

    def resolve_global(self, e: ast.expr) -> object:
        """The object a global name or dotted name (`math.pi`, `np.sin`) refers to, or a
        local function's. Each lookup of a global is reported to `on_global` (the persistent
        cache checks the same names resolve to the same things before it reuses code). A
        name the function binds itself is no global (missing, and not reported: a parameter
        sharing a module-level array's name made the function uncacheable)."""
        root = e
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self._own_names and \
                root.id not in self.local_functions:
            return _MISSING
        got = self._resolve(e)
        if self.on_global is not None:
            names = _dotted(e)
            if names and names[0] not in self.local_functions:
                self.on_global(self.owner, names, got)
        return got

    def _resolve(self, e: ast.expr) -> object:
        if isinstance(e, ast.Name):
            if e.id in self.local_functions:
                return self.local_functions[e.id]
            if e.id in self.globals:
                return self.globals[e.id]
            import builtins

            return getattr(builtins, e.id, _MISSING)
        if isinstance(e, ast.Attribute):
            base = self._resolve(e.value)
            if base is _MISSING:
                return _MISSING
            return getattr(base, e.attr, _MISSING)
        return _MISSING


def _dotted(e: ast.expr) -> tuple[str, ...]:
    """`math.pi` as ("math", "pi"); () for anything but a dotted name."""
    if isinstance(e, ast.Name):
        return (e.id,)
    if isinstance(e, ast.Attribute):
        base = _dotted(e.value)
        return (*base, e.attr) if base else ()
    return ()


def _dot_type(a: Array, b: Array, e: ast.AST, src: SourceInfo) -> FType:
    from enzyme_py.frontend.arrays.linalg import matmul_type

    try:
        return matmul_type(a, b)
    except ValueError as err:
        raise src.error(e, str(err)) from None


def _widen(t: FType) -> FType:
    """Locals of Python ints stay i64; i32 values widen like Python does."""
    return t


def _is_newaxis(typer: Typer, e: ast.expr) -> bool:
    if isinstance(e, ast.Constant) and e.value is None:
        return True
    return isinstance(e, ast.Attribute) and e.attr == "newaxis" and \
        typer.resolve_global(e) is None


def _is_range(it: ast.expr) -> bool:
    """`range(...)` or `reversed(range(...))`."""
    return iteration.range_call(it) is not None


def _for_target(s: ast.For, src: SourceInfo) -> str:
    if not isinstance(s.target, ast.Name):
        raise src.error(s.target, "the loop variable must be a plain name")
    it = s.iter
    if not _is_range(it):
        raise src.error(it, "only 'for ... in range(...)' loops are supported",
                        "for i in range(stop), range(start, stop), range(start, stop, step)")
    return s.target.id



def _holds_text(t: FType) -> bool:
    """Is `t` a string (`Text`), or a container with one among its children?"""
    if isinstance(t, Text):
        return True
    return isinstance(t, Tree | Tuple) and any(_holds_text(i) for i in t.items)

__all__ = ["F32", "I32", "STRING", "NoneType", "ReturnTypeOf", "Typer",
           "is_user_function"]
