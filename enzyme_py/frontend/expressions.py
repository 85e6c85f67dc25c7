"""Expression code generation for the Python subset (a mixin of the function compiler).

Invariants: each expression is evaluated exactly once, left to right; arithmetic follows
Python: `/` is true division, `//` and `%` round toward minus infinity (for ints and floats),
`**` with a small constant integer exponent becomes multiplications, comparisons chain;
`and`/`or`/`if-else` short-circuit. Types come from `Typer.expr_type`. Integer `//` and `%`
by zero raise `ZeroDivisionError` in every mode, and never reach a hardware division by -1
(which traps for the minimum); float `/ // % **` on numbers raise as Python only with
`errors="python"` (`domain_checks`), else give IEEE results.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from enzyme_py.frontend import domain_checks, static_conditions, tree_values
from enzyme_py.frontend.arrays import elementwise, views
from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.ftypes import (
    BOOL,
    F64,
    I64,
    Array,
    Scalar,
    Tree,
    Tuple,
    arithmetic_result,
)
from enzyme_py.frontend.values import AVal, SVal, c_strides, const, convert
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.layout import alloc_size
from enzyme_py.ir.values import ConstantInt, Value, const_float
from enzyme_py.rules.mathcalls import emit_math

if TYPE_CHECKING:
    from enzyme_py.frontend.errors import SourceInfo
    from enzyme_py.frontend.session import CompileSession
    from enzyme_py.frontend.typing import Typer
    from enzyme_py.ir.module import Block, Function

_CMP = {ast.Lt: ("slt", "olt"), ast.LtE: ("sle", "ole"), ast.Gt: ("sgt", "ogt"),
        ast.GtE: ("sge", "oge"), ast.Eq: ("eq", "oeq"), ast.NotEq: ("ne", "une")}


class ExpressionCompiler:
    b: Builder
    typer: Typer
    src: SourceInfo
    session: CompileSession
    fn: Function
    alloca_at: Builder
    loops: list
    vars: dict[str, object]
    unchecked: set[int]  # ids of subscripts proven in bounds (no check, no wrap-around)

    # hooks provided by the statement compiler
    def load_var(self, name: str) -> SVal | AVal: ...
    def new_block(self, name: str) -> Block: ...
    def check(self, ok: Value, node: ast.AST, what: str, index: Value, extent: Value,
              axis: int) -> None: ...

    # --- entry points -------------------------------------------------------------------------

    def expr(self, e: ast.expr, want_result: bool = True) -> Any:
        method = getattr(self, f"expr_{type(e).__name__}", None)
        if method is None:
            self.typer.expr_type(e)  # raises the precise error
            raise self.src.error(e, f"{type(e).__name__} expressions are not supported")
        return method(e)

    def scalar(self, e: ast.expr) -> SVal:
        v = self.expr(e)
        if isinstance(v, tree_values.TVal):
            raise self.src.error(e, f"a number is needed here, this is {v.type}")
        if not isinstance(v, SVal) or isinstance(v.type, Tuple):
            raise self.src.error(e, "a number is needed here")
        return v

    def conditional_scalar(self, e: ast.expr) -> SVal:
        """A number computed on one path only (a branch of `a if c else b`, the right side
        of `and`): the temporaries it makes are freed on that path."""
        self.heap.begin_statement()
        try:
            return self.scalar(e)
        finally:
            self.heap.end_statement()

    def int_value(self, e: ast.expr) -> Value:
        v = self.scalar(e)
        if v.type.is_float:
            raise self.src.error(e, f"an integer is needed here, found {v.type}")
        return convert(self.b, v, I64).v

    def condition(self, e: ast.expr) -> Value:
        return convert(self.b, self.scalar(e), BOOL).v

    def unpack_tuple(self, val: Any, node: ast.AST, n: int) -> list[SVal]:
        if isinstance(val, tree_values.TVal):
            return tree_values.items_of(self, val, val.type, node, n)
        if isinstance(val, SVal) and isinstance(val.type, Tuple):
            if len(val.type.items) != n:
                raise self.src.error(node, f"cannot unpack {len(val.type.items)} values into {n}")
            return [SVal(t, self.b.extractvalue(val.v, [k]))
                    for k, t in enumerate(val.type.items)]
        if isinstance(val, list):
            if len(val) != n:
                raise self.src.error(node, f"cannot unpack {len(val)} values into {n}")
            return val
        raise self.src.error(node, "this value cannot be unpacked")

    # --- leaves -------------------------------------------------------------------------------

    def expr_Constant(self, e: ast.Constant) -> SVal | str | None:
        t = self.typer.expr_type(e)
        if e.value is None or isinstance(e.value, str):
            return e.value  # (compile-time values: see `static_conditions`, `ftypes.Text`)
        assert isinstance(t, Scalar)
        return const(t, e.value)

    def expr_Name(self, e: ast.Name) -> Any:
        var = self.vars.get(e.id)
        if isinstance(var, tree_values.StaticVar):
            self.typer.expr_type(e)  # a dict's key is no value
            return tree_values.load_static(self, e.id, var, e)
        if e.id in self.typer.env:
            return self.load_var(e.id)
        return self._global_constant(e)

    def _global_constant(self, e: ast.expr) -> SVal:
        g = self.typer.resolve_global(e)
        t = self.typer.expr_type(e)
        assert isinstance(t, Scalar)
        return const(t, g)  # type: ignore[arg-type]

    def expr_Attribute(self, e: ast.Attribute) -> Any:
        if isinstance(e.value, ast.Name) and e.value.id not in self.typer.env:
            return self._global_constant(e)
        self.typer.expr_type(e)
        if self.typer.container_of(e.value) is not None:
            return tree_values.attribute(self, e)
        arr = self.expr(e.value)
        assert L.is_array(arr)
        if e.attr == "ndim":
            return const(I64, arr.type.ndim)
        if e.attr == "T":
            return views.transpose(self, self.view(arr, e))
        return SVal(I64, L.count_of(self, arr.dims))

    def expr_Tuple(self, e: ast.Tuple) -> Any:
        if isinstance(self.typer.expr_type(e), Tree):
            return tree_values.literal(self, e)
        return [self.expr(x) for x in e.elts]

    def expr_List(self, e: ast.List) -> Any:
        return tree_values.literal(self, e)

    def expr_Dict(self, e: ast.Dict) -> Any:
        return tree_values.literal(self, e)

    def expr_ListComp(self, e: ast.ListComp) -> Any:
        return self.expr_GeneratorExp(e)  # type: ignore[arg-type]

    def expr_GeneratorExp(self, e: ast.GeneratorExp) -> Any:
        from enzyme_py.frontend import comprehensions, tree_comprehensions, tree_loops

        loop = tree_comprehensions.loop_of(self.typer, e)
        if isinstance(loop, tree_loops.Unrolled):  # over a container: a list of elements
            return tree_comprehensions.compile_comprehension(self, e, loop)
        return comprehensions.lazy(self, e)

    def expr_DictComp(self, e: ast.DictComp) -> Any:
        from enzyme_py.frontend import tree_comprehensions, tree_loops

        loop = tree_comprehensions.loop_of(self.typer, e)
        if not isinstance(loop, tree_loops.Unrolled):
            self.typer.expr_type(e)  # raises the precise error
            raise self.src.error(e, "a dict comprehension runs over a container")
        return tree_comprehensions.compile_comprehension(self, e, loop)

    def view(self, v: Any, node: ast.AST) -> AVal:
        """An array value as a view (a lazy one is computed into a temporary)."""
        return L.materialize(self, v, node)

    # --- operators ----------------------------------------------------------------------------

    def expr_BinOp(self, e: ast.BinOp) -> Any:
        a = self.expr(e.left)
        c = self.expr(e.right)
        return self.binop(e.op, a, c, e)

    def binop(self, op: ast.operator, a: Any, c: Any, e: ast.AST) -> Any:
        if isinstance(op, ast.MatMult):
            from enzyme_py.frontend.arrays.linalg import matmul

            return matmul(self, a, c, e)
        if L.is_array(a) or L.is_array(c):
            return elementwise.binop(self, op, a, c, e)
        t = self.typer._binop_type(op, a.type, c.type, e)
        b = self.b
        assert isinstance(t, Scalar)
        if isinstance(op, ast.Pow):
            return self._power(a, c, t, e)
        if isinstance(op, ast.Div):
            x, y = convert(b, a, t).v, convert(b, c, t).v
            if t.is_int:
                raise self.src.error(e, "internal: integer true division")
            domain_checks.check_division(self, op, (a.type, c.type), y, e)  # errors="python"
            return SVal(t, b.fdiv(x, y))
        x, y = convert(b, a, t).v, convert(b, c, t).v
        if t.is_float and isinstance(op, (ast.FloorDiv, ast.Mod)):
            domain_checks.check_division(self, op, (a.type, c.type), y, e)
        if t.is_float:
            if isinstance(op, ast.Add):
                return SVal(t, b.fadd(x, y))
            if isinstance(op, ast.Sub):
                return SVal(t, b.fsub(x, y))
            if isinstance(op, ast.Mult):
                return SVal(t, b.fmul(x, y))
            if isinstance(op, ast.FloorDiv):
                return SVal(t, self._float_floordiv(x, y))
            if isinstance(op, ast.Mod):
                return SVal(t, self._float_mod(x, y))
        else:
            simple = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.BitAnd: "and",
                      ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "shl", ast.RShift: "ashr"}
            name = simple.get(type(op))
            if name is not None:
                return SVal(t, b.binop(name, x, y))
            if isinstance(op, (ast.FloorDiv, ast.Mod)):  # checked in every mode
                mod = isinstance(op, ast.Mod)
                self.check(b.icmp("ne", y, ConstantInt(t.ir, 0)), e,
                           "integer modulo by zero" if mod else "integer division by zero",
                           x, y, 0)
                return SVal(t, self._int_floor_divmod(x, y, mod))
        raise self.src.error(e, f"operator {type(op).__name__} is not supported here")

    def _float_floordiv(self, x: Value, y: Value) -> Value:
        """Python's (and NumPy's) float `//`: from the remainder, as CPython's float_divmod
        computes it, not floor(x / y) (1.0 // 0.1 is 9.0; 1.0 / 0.1 rounds to 10.0):
        div = (x - fmod(x, y)) / y, less one when the remainder's sign differs from y's,
        rounded to the nearest integer; a zero quotient takes the sign of x / y; y == 0
        gives x / y (inf or nan, NumPy's result: Python raises, `domain_checks`)."""
        b = self.b
        module = self.fn.parent
        zero, one, half = (const_float(x.type, v) for v in (0.0, 1.0, 0.5))
        r = b.frem(x, y)
        div = b.fdiv(b.fsub(x, r), y)
        adjust = b.binop("and", b.fcmp("one", r, zero),
                         b.binop("xor", b.fcmp("olt", r, zero), b.fcmp("olt", y, zero)))
        div = b.select(adjust, b.fsub(div, one), div)
        floor = emit_math(b, module, "floor", [div])
        floor = b.select(b.fcmp("ogt", b.fsub(div, floor), half), b.fadd(floor, one), floor)
        quotient = b.fdiv(x, y)
        signed_zero = emit_math(b, module, "copysign", [zero, quotient])
        out = b.select(b.fcmp("oeq", div, zero), signed_zero, floor)
        return b.select(b.fcmp("oeq", y, zero), quotient, out)

    def _float_mod(self, x: Value, y: Value) -> Value:
        """Python's float %: the result has the sign of the divisor."""
        b = self.b
        r = b.frem(x, y)
        zero = const_float(x.type, 0.0)
        fix = b.binop("and", b.fcmp("one", r, zero),
                      b.binop("xor", b.fcmp("olt", r, zero), b.fcmp("olt", y, zero)))
        return b.select(fix, b.fadd(r, y), r)

    def _int_floor_divmod(self, x: Value, y: Value, mod: bool) -> Value:
        """Python's int `//` or `%` for a divisor `y` checked non-zero. `x // -1` is `-x`,
        wrapping at the minimum as NumPy's int64 does: the hardware division traps there
        (`sdiv` of the minimum by -1 is undefined), so it never divides by -1."""
        b = self.b
        zero = ConstantInt(x.type, 0)
        minus_one = None if isinstance(y, ConstantInt) and y.value != -1 else \
            b.icmp("eq", y, ConstantInt(x.type, -1))
        safe = y if minus_one is None else b.select(minus_one, ConstantInt(x.type, 1), y)
        q = b.binop("sdiv", x, safe)
        r = b.binop("srem", x, safe)  # x % 1 == x % -1 == 0
        if minus_one is not None:
            q = b.select(minus_one, b.sub(zero, x), q)
        fix = b.binop("and", b.icmp("ne", r, zero),
                      b.binop("xor", b.icmp("slt", r, zero), b.icmp("slt", y, zero)))
        if mod:
            return b.select(fix, b.add(r, y), r)
        return b.select(fix, b.sub(q, ConstantInt(x.type, 1)), q)

    def _power(self, a: SVal, c: SVal, t: Scalar, e: ast.AST) -> SVal:
        b = self.b
        cv = c.v
        if isinstance(cv, ConstantInt) and 0 <= cv.value <= 8:
            base = convert(b, a, t).v
            if cv.value == 0:
                return const(t, 1)
            result = base
            for _ in range(cv.value - 1):
                result = b.fmul(result, base) if t.is_float else b.mul(result, base)
            if t.is_float and cv.value > 1:
                domain_checks.check_power(self, base, None, result, e)  # errors="python"
            return SVal(t, result)
        if t.is_int:
            raise self.src.error(e, "integer ** needs a small constant exponent (0..8)",
                                 "int ** 0..8; use float(x) ** y otherwise")
        base = convert(b, a, t).v
        if c.type.is_int and not c.type == BOOL:
            exp = convert(b, c, Scalar("i32")).v
            result = emit_math(b, self.fn.parent, "powi", [base, exp])
        else:
            result = emit_math(b, self.fn.parent, "pow", [base, convert(b, c, t).v])
        if self.session.python_errors:
            domain_checks.check_power(self, base, convert(b, c, t).v, result, e)
        return SVal(t, result)

    def expr_UnaryOp(self, e: ast.UnaryOp) -> Any:
        v = self.expr(e.operand)
        if L.is_array(v):
            return elementwise.unary(self, e.op, v, e)
        if not isinstance(v, SVal) or isinstance(v.type, Tuple):
            raise self.src.error(e.operand, "a number is needed here")
        return self.unary(e.op, v, e)

    def unary(self, op: ast.unaryop, v: SVal, e: ast.AST) -> SVal:
        b = self.b
        if isinstance(op, ast.Not):
            return SVal(BOOL, b.binop("xor", convert(b, v, BOOL).v, ConstantInt(T.I1, 1)))
        if isinstance(op, ast.Invert) and v.type == BOOL:  # ~mask: logical not, as NumPy
            return SVal(BOOL, b.binop("xor", v.v, ConstantInt(T.I1, 1)))
        t = I64 if v.type == BOOL else v.type
        x = convert(b, v, t).v
        if isinstance(op, ast.UAdd):
            return SVal(t, x)
        if isinstance(op, ast.USub):
            if isinstance(x, ConstantInt):  # -1 stays a constant (reshape(-1), x[-1])
                return SVal(t, ConstantInt(t.ir, -x.value))
            return SVal(t, b.fneg(x) if t.is_float else b.sub(ConstantInt(t.ir, 0), x))
        if isinstance(op, ast.Invert) and t.is_int:
            return SVal(t, b.binop("xor", x, ConstantInt(t.ir, -1)))
        raise self.src.error(e, f"unary {type(op).__name__} is not supported for {t}")

    def compare(self, op: ast.cmpop, a: SVal, c: SVal, e: ast.AST) -> Value:
        if type(op) not in _CMP:
            raise self.src.error(e, f"comparison {type(op).__name__} is not supported",
                                 "<, <=, >, >=, ==, !=")
        t = arithmetic_result(a.type, c.type) if a.type != BOOL or c.type != BOOL else I64
        x, y = convert(self.b, a, t).v, convert(self.b, c, t).v
        ipred, fpred = _CMP[type(op)]
        return self.b.fcmp(fpred, x, y) if t.is_float else self.b.icmp(ipred, x, y)

    def expr_Compare(self, e: ast.Compare) -> Any:
        t = self.typer.expr_type(e)
        if static_conditions.is_none_test(e):
            decided = static_conditions.truth(e, self.typer.static_type)
            assert isinstance(decided, bool)
            return const(BOOL, decided)
        if isinstance(t, Array):
            return elementwise.compare(self, e.ops[0], self.expr(e.left),
                                       self.expr(e.comparators[0]), e)
        left = self.scalar(e.left)
        if len(e.ops) == 1:
            return SVal(BOOL, self.compare(e.ops[0], left, self.scalar(e.comparators[0]), e))
        # a < b < c: evaluate b once, stop at the first false comparison
        result = self.alloca_at.alloca(T.I1, name="chain")
        done = self.new_block("cmp.end")
        for k, (op, right_e) in enumerate(zip(e.ops, e.comparators, strict=True)):
            right = self.scalar(right_e) if k == 0 else self.conditional_scalar(right_e)
            c = self.compare(op, left, right, e)
            self.b.store(c, result)
            if k < len(e.ops) - 1:
                nxt = self.new_block("cmp.next")
                self.b.condbr(c, nxt, done)
                self.b.position_at_end(nxt)
            left = right
        self.b.br(done)
        self.b.position_at_end(done)
        return SVal(BOOL, self.b.load(T.I1, result))

    def expr_BoolOp(self, e: ast.BoolOp) -> SVal:
        self.typer.expr_type(e)
        is_and = isinstance(e.op, ast.And)
        result = self.alloca_at.alloca(T.I1, name="and" if is_and else "or")
        done = self.new_block("bool.end")
        for k, v in enumerate(e.values):
            c = self.condition(v) if k == 0 else \
                convert(self.b, self.conditional_scalar(v), BOOL).v
            self.b.store(c, result)
            if k < len(e.values) - 1:
                nxt = self.new_block("bool.next")
                if is_and:
                    self.b.condbr(c, nxt, done)
                else:
                    self.b.condbr(c, done, nxt)
                self.b.position_at_end(nxt)
        self.b.br(done)
        self.b.position_at_end(done)
        return SVal(BOOL, self.b.load(T.I1, result))

    def expr_IfExp(self, e: ast.IfExp) -> Any:
        decided = static_conditions.truth(e.test, self.typer.static_type)
        if isinstance(decided, bool):  # known from the types: only that side exists
            return self.expr(e.body if decided else e.orelse)
        t = self.typer.expr_type(e)
        if not isinstance(t, Scalar):
            raise self.src.error(e, "conditional expressions must give numbers")
        slot = self.alloca_at.alloca(t.ir, name="ifexp")
        then, other, done = (self.new_block("ifexp.then"), self.new_block("ifexp.else"),
                             self.new_block("ifexp.end"))
        self.b.condbr(self.condition(e.test), then, other)
        for blk, sub in ((then, e.body), (other, e.orelse)):
            self.b.position_at_end(blk)
            self.b.store(convert(self.b, self.conditional_scalar(sub), t).v, slot)
            self.b.br(done)
        self.b.position_at_end(done)
        return SVal(t, self.b.load(t.ir, slot))

    # --- arrays -------------------------------------------------------------------------------

    def expr_Subscript(self, e: ast.Subscript) -> Any:
        if self.typer.container_of(e.value) is not None:
            return tree_values.subscript(self, e)
        if isinstance(e.value, ast.Attribute) and e.value.attr == "shape":
            arr = self.expr(e.value.value)
            if not L.is_array(arr):
                raise self.src.error(e, ".shape needs an array")
            k = e.slice
            if not (isinstance(k, ast.Constant) and isinstance(k.value, int)):
                if isinstance(k, ast.UnaryOp) and isinstance(k.op, ast.USub) and \
                        isinstance(k.operand, ast.Constant):
                    idx = arr.type.ndim - k.operand.value
                else:
                    raise self.src.error(k, "a.shape[k] needs a constant k")
            else:
                idx = k.value
            if not 0 <= idx < arr.type.ndim:
                raise self.src.error(k, f"shape index {idx} out of range for a "
                                     f"{arr.type.ndim}-D array")
            return SVal(I64, arr.dims[idx])
        index = self.array_index(e)
        if index is not None:  # x[mask] / x[idx]
            from enzyme_py.frontend.arrays import masks

            base = self.view(self.expr(e.value), e)
            ix = self.expr(index)
            if ix.type.elem == BOOL:
                return masks.masked(self, base, ix, e)
            return masks.gather(self, base, ix, e)
        place = self.place(e)
        if isinstance(place, AVal):
            return place
        ptr, elem = place
        return SVal(elem, self.b.load(elem.ir, ptr))

    def array_index(self, e: ast.Subscript) -> ast.expr | None:
        """The index of `x[mask]` / `x[idx]` (one index, an array), else None."""
        if isinstance(e.slice, ast.Tuple | ast.Slice) or views.is_newaxis(self, e.slice) or \
                self.typer.container_of(e.value) is not None:
            return None
        t = self.typer.expr_type(e.slice)
        return e.slice if isinstance(t, Array) else None

    def place(self, e: ast.Subscript) -> AVal | tuple[Value, Scalar]:
        """What `e` denotes: a view, or (every axis indexed) an element's address."""
        self.typer.expr_type(e)
        arr = self.view(self.expr(e.value), e)
        got = views.subscript(self, arr, e, proven=id(e) in self.unchecked)
        if isinstance(got, AVal):
            return got
        return got, arr.type.elem

    def element_pointer(self, e: ast.Subscript) -> tuple[Value, Scalar]:
        place = self.place(e)
        if isinstance(place, AVal):
            raise self.src.error(e, "an element is needed here, this is a view")
        return place

    def new_array(self, t: Array, dims: list[Value], fill: float | None, e: ast.AST) -> AVal:
        """A new C-contiguous array: on the stack when small and made once (outside loops),
        else on the heap (see `arrays.heap`)."""
        b = self.b
        count = L.count_of(self, dims)
        size = alloc_size(t.elem.ir)
        small = isinstance(count, ConstantInt) and 0 <= count.value * size <= 1024
        if small and not self.loops:
            ptr = self.alloca_at.alloca(t.elem.ir, count, align=16, name="array")
            out = AVal(t.value, ptr, list(dims), c_strides(b, dims), True, ("temp", ptr))
        else:
            out = L.fresh(self, t, dims, e)
        if fill is not None and fill == 0.0:
            memset = self.fn.parent.declare_function(
                "llvm.memset.p0.i64", T.FunctionType(T.VOID, (T.PTR, T.I8, T.I64, T.I1)))
            nbytes = L.count_of(self, [count, ConstantInt(T.I64, size)])
            b.call(memset, [out.ptr, ConstantInt(T.I8, 0), nbytes, ConstantInt(T.I1, 0)])
        elif fill is not None:
            self._fill(out.ptr, count, const(t.elem, fill).v, t.elem.ir)
        return out

    def _fill(self, ptr: Value, count: Value, value: Value, ty: T.Type) -> None:
        self.counted_loop(count, lambda i: self.b.store(
            value, self.b.getelementptr(ty, ptr, [i])))

    def counted_loop(self, count: Value, body: Any) -> None:
        """`for i in range(count): body(i)` emitted directly (i64 counter)."""
        b = self.b
        slot = self.alloca_at.alloca(T.I64, name="k")
        b.store(ConstantInt(T.I64, 0), slot)
        head, loop, done = self.new_block("loop.cond"), self.new_block("loop.body"), \
            self.new_block("loop.end")
        b.br(head)
        b.position_at_end(head)
        i = b.load(T.I64, slot)
        b.condbr(b.icmp("slt", i, count), loop, done)
        b.position_at_end(loop)
        self.loop_depth += 1
        try:
            body(i)
        finally:
            self.loop_depth -= 1
        b.store(b.add(i, ConstantInt(T.I64, 1), flags=("nsw",)), slot)
        b.br(head)
        b.position_at_end(done)

    # --- calls --------------------------------------------------------------------------------

    def expr_Call(self, e: ast.Call) -> Any:
        from enzyme_py.frontend.calls import compile_call

        return compile_call(self, e)


__all__ = ["ExpressionCompiler", "F64"]
