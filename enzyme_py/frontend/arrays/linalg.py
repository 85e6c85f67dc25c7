"""Matrix products: `@` / `np.matmul`, `np.dot`, as loop nests LLVM vectorizes; and
`np.linalg.norm` built on the reductions.

Shapes follow NumPy: 1-D·1-D is a scalar; 2-D·1-D and 1-D·2-D are vectors; 2-D·2-D a matrix;
N-D operands (N > 2) are stacks of matrices broadcast over the leading axes (`np.matmul`).
The inner extents must agree (a recorded `ValueError` otherwise).

A product of matrices (or stacks of them) in float64 or float32 whose operands have the
result's type is a call of the matrix kernel (`rules/matrix_kernel.py`, differentiated by
its rule in `ad/matrix_calls.py`): the views go in with their strides, a stack is one call
per index of its leading axes but the last (the kernel's batch axis). Otherwise (integers,
mixed types) it is a loop nest `i, k, j` (`C[i, :] += A[i, k] * B[k, :]`), so the inner
loop is contiguous in `B` and `C` and carries no reduction: it vectorizes without
reassociation, in the primal and in the adjoint; a 2-D `B` whose rows are not contiguous at
run time (`W.T` in `x @ W.T`) is first copied into a C-contiguous block, freed after the
product. Both sum each element over k in order, with the same bits.

A matrix-vector product sums rows of A four at a time in one loop over k (independent sums,
so no add waits on the previous row's), or, when A is read by columns (`A.T @ x`), updates
the result column by column; a vector-matrix product updates the result row by row, or sums
columns when they are contiguous. Every element is summed over k in order, whichever loop
runs.

Invariant: operands are read as views (a lazy operand is computed once into a temporary:
each of its elements is read many times); the result is a fresh buffer.

np.linalg.norm follows NumPy: ord=None is the 2-norm of the flattened array (any rank) or
of the vectors along `axis`; vector orders 2, 1, inf, -inf, 0 and any other number p;
matrix orders (two axes, or a 2-D array with an ord) 'fro', 1, -1, inf, -inf. Singular-value
norms (matrix ord=2, -2, 'nuc') are a `FrontendError`. Norms are reductions of x*x, |x| or
|x|**p read once in row-major order (no scaling against overflow, as NumPy's ord=None).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from enzyme_py.frontend import numpy_prelude_linalg as stand_ins
from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays import loops, views
from enzyme_py.frontend.arrays.elementwise import lift
from enzyme_py.frontend.arrays.heap import NULL
from enzyme_py.frontend.arrays.reductions import error, normalize_axes, reduce
from enzyme_py.frontend.arrays.registry import EmitCall, TypeCall, array_function
from enzyme_py.frontend.arrays.types import promote
from enzyme_py.frontend.ftypes import F32, F64, NONE, Array, FType, Scalar
from enzyme_py.frontend.values import AVal, SVal, const, convert
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value, const_float
from enzyme_py.rules.mathcalls import emit_math
from enzyme_py.rules.matrix_kernel import matrix_kernel

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling


def matmul_type(a: Array, b: Array) -> Scalar | Array:
    """The result type of `a @ b` (raises ValueError for shapes NumPy rejects)."""
    elem = promote([a, b])
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must not be scalars")
    if a.ndim == 1 and b.ndim == 1:
        return elem
    if a.ndim == 1 or b.ndim == 1:
        return Array(elem, max(a.ndim, b.ndim) - 1)
    return Array(elem, max(a.ndim, b.ndim))


def _load(c: Compiling, v: AVal, idx: list[Value], elem: Scalar) -> Value:
    x = c.b.load(v.type.elem.ir, L.element_address(c, v, idx))
    return convert(c.b, SVal(v.type.elem, x), elem).v


def _check_inner(c: Compiling, n: Value, m: Value, node: ast.AST) -> None:
    if L.same_extent(n, m):
        return
    if isinstance(n, ConstantInt) and isinstance(m, ConstantInt):
        raise c.src.error(node, f"matmul: inner extents {n.value} and {m.value} differ")
    c.check(c.b.icmp("eq", n, m), node, "matching inner dimensions", n, m, 0)


def _dot_into(c: Compiling, elem: Scalar, n: Value, a_at: Any, b_at: Any) -> Value:
    """sum over k < n of a_at(k) * b_at(k), accumulated in order."""
    b = c.b
    acc = c.alloca_at.alloca(elem.ir, name="dot")
    b.store(const(elem, 0).v, acc)

    def body(k: Value) -> None:
        prod = c.binop(ast.Mult(), SVal(elem, a_at(k)), SVal(elem, b_at(k)), c.fdef)
        cur = SVal(elem, c.b.load(elem.ir, acc))
        c.b.store(c.binop(ast.Add(), cur, prod, c.fdef).v, acc)

    c.counted_loop(n, body)
    return b.load(elem.ir, acc)


def matmul(c: Compiling, a: Any, b: Any, node: ast.AST) -> Any:
    if not (L.is_array(a) and L.is_array(b)):
        raise c.src.error(node, "@ / np.matmul / np.dot need two arrays here")
    av, bv = c.view(a, node), c.view(b, node)
    try:
        rt = matmul_type(av.type, bv.type)
    except ValueError as err:
        raise c.src.error(node, str(err)) from None
    elem = rt if isinstance(rt, Scalar) else rt.elem
    if av.type.ndim == 1 and bv.type.ndim == 1:
        _check_inner(c, av.dims[0], bv.dims[0], node)
        return SVal(elem, _dot_into(c, elem, av.dims[0], lambda k: _load(c, av, [k], elem),
                                    lambda k: _load(c, bv, [k], elem)))
    if bv.type.ndim == 1:  # (..., n, k) @ (k,) -> (..., n): row dots
        _check_inner(c, av.dims[-1], bv.dims[0], node)
        out = L.fresh(c, Array(elem, av.type.ndim - 1), av.dims[:-1], node)
        if av.type.ndim == 2 and not av.contiguous:  # (A.T @ x: columns of A contiguous)
            _by_layout(c, av.strides[1], lambda: _row_dots(c, av, bv, out, elem),
                       av.strides[0], lambda: _column_updates(c, av, bv, out, elem))
        else:
            _row_dots(c, av, bv, out, elem)
        return out
    if av.type.ndim == 1:  # (k,) @ (..., k, m) -> (..., m)
        _check_inner(c, av.dims[0], bv.dims[-2], node)
        dims = [*bv.dims[:-2], bv.dims[-1]]
        out = L.fresh(c, Array(elem, len(dims)), dims, node)
        if bv.type.ndim == 2 and not bv.contiguous:  # (x @ W.T: W's rows contiguous)
            bt = views.transpose(c, bv)
            _by_layout(c, bv.strides[1], lambda: _row_updates(c, av, bv, out, elem),
                       bv.strides[0], lambda: _row_dots(c, bt, av, out, elem))
        else:
            _row_updates(c, av, bv, out, elem)
        return out
    return _matrix_product(c, av, bv, elem, node)


def _by_layout(c: Compiling, inner: Value, rowwise: Callable[[], None], outer: Value,
               columnwise: Callable[[], None]) -> None:
    """`columnwise()` where a matrix's inner stride is not 1 but its outer one is (it is
    read by columns), else `rowwise()`: the same sums in the same order either way, each
    loop nest reading memory contiguously."""
    b = c.b
    one = ConstantInt(T.I64, 1)
    by_columns = b.binop("and", b.icmp("ne", inner, one), b.icmp("eq", outer, one))
    cols, rows, done = (c.new_block("matvec.columns"), c.new_block("matvec.rows"),
                        c.new_block("matvec.end"))
    b.condbr(by_columns, cols, rows)
    for blk, emit in ((cols, columnwise), (rows, rowwise)):
        b.position_at_end(blk)
        emit()
        b.br(done)
    b.position_at_end(done)


#: Rows of a matrix-vector product summed side by side: independent sums in one loop, so
#: each add waits for its own row's previous add only (a single dot waits on every add).
ROWS_TOGETHER = 4


def _row_dots(c: Compiling, av: AVal, bv: AVal, out: AVal, elem: Scalar) -> None:
    """out[..., i] = sum over k of av[..., i, k] * bv[k], each in order of k; a 2-D av's
    rows `ROWS_TOGETHER` at a time (the same sums, interleaved), then the rest one by one."""
    def row(idx: list[Value]) -> None:
        v = _dot_into(c, elem, bv.dims[0], lambda k: _load(c, av, [*idx, k], elem),
                      lambda k: _load(c, bv, [k], elem))
        c.b.store(v, L.element_address(c, out, idx))

    if av.type.ndim != 2:
        loops.nest(c, out.dims, row)
        return
    b = c.b
    group = ConstantInt(T.I64, ROWS_TOGETHER)
    groups = b.binop("udiv", av.dims[0], group)
    c.counted_loop(groups, lambda g: _rows_together(c, av, bv, out, elem,
                                                    b.mul(g, group, flags=("nuw", "nsw"))))
    first = b.mul(groups, group, flags=("nuw", "nsw"))
    c.counted_loop(b.sub(av.dims[0], first),
                   lambda r: row([c.b.add(first, r, flags=("nuw", "nsw"))]))


def _rows_together(c: Compiling, av: AVal, bv: AVal, out: AVal, elem: Scalar,
                   i0: Value) -> None:
    """out[i0 + r] for r < ROWS_TOGETHER: one loop over k keeps each row's sum."""
    rows = [c.b.add(i0, ConstantInt(T.I64, r), flags=("nuw", "nsw"))
            for r in range(ROWS_TOGETHER)]
    accs = [c.alloca_at.alloca(elem.ir, name="dot") for _ in rows]
    for acc in accs:
        c.b.store(const(elem, 0).v, acc)

    def body(k: Value) -> None:
        xk = _load(c, bv, [k], elem)
        for i, acc in zip(rows, accs, strict=True):
            prod = c.binop(ast.Mult(), SVal(elem, _load(c, av, [i, k], elem)), SVal(elem, xk),
                           c.fdef)
            cur = SVal(elem, c.b.load(elem.ir, acc))
            c.b.store(c.binop(ast.Add(), cur, prod, c.fdef).v, acc)

    c.counted_loop(bv.dims[0], body)
    for i, acc in zip(rows, accs, strict=True):
        c.b.store(c.b.load(elem.ir, acc), L.element_address(c, out, [i]))


def _column_updates(c: Compiling, av: AVal, bv: AVal, out: AVal, elem: Scalar) -> None:
    """out[:] = 0, then out[:] += av[:, k] * bv[k] for k in order (2-D av): the sums of
    `_row_dots`, in the same order."""
    zero_fill(c, out)

    def over_k(k: Value) -> None:
        bk = _load(c, bv, [k], elem)
        c.counted_loop(av.dims[0], lambda i: _accumulate(
            c, out, [i], elem, _load(c, av, [i, k], elem), bk))

    c.counted_loop(av.dims[1], over_k)


def _row_updates(c: Compiling, av: AVal, bv: AVal, out: AVal, elem: Scalar) -> None:
    """out[..., :] = 0, then out[..., :] += av[k] * bv[..., k, :] for k in order."""
    zero_fill(c, out)

    def col(idx: list[Value]) -> None:
        lead = idx[:-1]

        def over_k(k: Value) -> None:
            ak = _load(c, av, [k], elem)

            def over_j(j: Value) -> None:
                _accumulate(c, out, [*lead, j], elem, ak, _load(c, bv, [*lead, k, j], elem))

            c.counted_loop(bv.dims[-1], over_j)

        c.counted_loop(av.dims[0], over_k)

    loops.nest(c, [*bv.dims[:-2], ConstantInt(T.I64, 1)], col)


def zero_fill(c: Compiling, out: AVal) -> None:
    """Every element of the view `out` set to zero."""
    L.fill(c, out, const(out.type.elem, 0).v)


def _accumulate(c: Compiling, out: AVal, idx: list[Value], elem: Scalar, x: Value,
                y: Value) -> None:
    at = L.element_address(c, out, idx)
    prod = c.binop(ast.Mult(), SVal(elem, x), SVal(elem, y), c.fdef)
    cur = SVal(elem, c.b.load(elem.ir, at))
    c.b.store(c.binop(ast.Add(), cur, prod, c.fdef).v, at)


def _matrix_product(c: Compiling, av: AVal, bv: AVal, elem: Scalar,
                    node: ast.AST) -> AVal:
    """(..., n, k) @ (..., k, m) with the leading axes broadcast."""
    _check_inner(c, av.dims[-1], bv.dims[-2], node)
    lead = L.broadcast_dims(c, [av.dims[:-2], bv.dims[:-2]], node)
    n, m, inner = av.dims[-2], bv.dims[-1], av.dims[-1]
    out = L.fresh(c, Array(elem, len(lead) + 2), [*lead, n, m], node)
    zero_fill(c, out)
    if elem in KERNEL_TYPES and av.type.elem == elem and bv.type.elem == elem:
        products(c, av, bv, out, lead)
        return out
    release = None
    if not lead and not bv.contiguous:
        bv, release = _rows_made_contiguous(c, bv, node)
    a_lead = _lead_view(c, av, lead)
    b_lead = _lead_view(c, bv, lead)

    def batch(bidx: list[Value]) -> None:
        def over_i(i: Value) -> None:
            def over_k(k: Value) -> None:
                aik = _load(c, a_lead, [*bidx, i, k], elem)

                def over_j(j: Value) -> None:
                    _accumulate(c, out, [*bidx, i, j], elem, aik,
                                _load(c, b_lead, [*bidx, k, j], elem))

                c.counted_loop(m, over_j)

            c.counted_loop(inner, over_k)

        c.counted_loop(n, over_i)

    loops.nest(c, lead, batch)
    if release is not None:
        release()
    return out


#: Element types the matrix kernel (`rules.matrix_kernel`) computes in.
KERNEL_TYPES = (F64, F32)


def products(c: Compiling, av: AVal, bv: AVal, out: AVal, lead: list[Value]) -> None:
    """out[b] += av[b] @ bv[b] for each index b of the leading axes `lead` (the element
    type one of `KERNEL_TYPES`, the operands' too), by calls of the matrix kernel (any
    strides: views are passed as they are), which sums each element over k in order like
    the loop nest: one call per index of all leading axes but the last, which is the
    kernel's batch axis."""
    kernel = c.session.declared(matrix_kernel(c.fn.parent, str(out.type.elem.ir)))
    a_lead, b_lead = _lead_view(c, av, lead), _lead_view(c, bv, lead)
    zero_, one = ConstantInt(T.I64, 0), ConstantInt(T.I64, 1)
    outer = lead[:-1]

    def call(bidx: list[Value]) -> None:
        at = [*bidx, *([zero_] * (len(lead) - len(outer))), zero_, zero_]
        batch = [lead[-1], *(v.strides[len(outer)] for v in (a_lead, b_lead, out))] \
            if lead else [one, zero_, zero_, zero_]
        c.b.call(kernel, [batch[0], out.dims[-2], out.dims[-1], av.dims[-1],
                          L.element_address(c, a_lead, at), batch[1], *a_lead.strides[-2:],
                          L.element_address(c, b_lead, at), batch[2], *b_lead.strides[-2:],
                          L.element_address(c, out, at), batch[3], *out.strides[-2:]])

    loops.nest(c, outer, call)


def _subtract_products_type(call: TypeCall) -> FType | None:
    """`numpy_prelude_linalg._subtract_products(c, a, b)`: three matrices of one float type
    of the kernel's (the stand-ins' own helper; nothing else calls it)."""
    call.only()
    if any(t is None for t in call.args):
        return None
    if not (len(call.args) == 3 and all(isinstance(t, Array) and t.ndim == 2 and
                                        t.elem == call.args[0].elem  # type: ignore[union-attr]
                                        for t in call.args) and
            call.args[0].elem in KERNEL_TYPES):  # type: ignore[union-attr]
        raise call.error("_subtract_products takes three float matrices of one type")
    return NONE


@array_function(stand_ins._subtract_products, type_rule=_subtract_products_type)
def _subtract_products(call: EmitCall) -> Any:
    """c += (-a) @ b by the kernel: `c - x` and `c + (-x)` are the same number, and a
    negated product `(-a) b` is `-(a b)` exactly, so each element gets the bits of the
    in-order subtraction."""
    c = call.c
    cv, av, bv = (c.view(v, call.node) for v in call.args)
    elem = cv.type.elem
    negated = c.view(lift(c, [av], elem, lambda v: SVal(elem, c.b.fneg(v[0].v)), call.node),
                     call.node)
    products(c, negated, bv, cv, [])
    return None


def _rows_made_contiguous(c: Compiling, bv: AVal, node: ast.AST
                          ) -> tuple[AVal, Callable[[], None]]:
    """The matrix `bv` with rows of stride 1: itself where its rows are contiguous at run
    time, else a C-contiguous copy (`W.T` in `x @ W.T`: the product's inner loop then reads
    contiguous rows and vectorizes; the copy costs 1/n of the product for n rows of A),
    and what frees that copy after the product (a no-op without one)."""
    b = c.b
    one = ConstantInt(T.I64, 1)
    entry = b.block
    copy, done = c.new_block("matmul.pack"), c.new_block("matmul.packed")
    b.condbr(b.icmp("ne", bv.strides[1], one), copy, done)
    b.position_at_end(copy)
    tmp = L.copy(c, bv, node)
    assert tmp.base is not None
    c.heap.claim(tmp.base)  # (freed below, after the product, on the path that made it)
    copied = b.block
    b.br(done)
    b.position_at_end(done)
    ptr = b.phi(T.PTR, [(bv.ptr, entry), (tmp.ptr, copied)], name="rows")
    row = b.phi(T.I64, [(bv.strides[0], entry), (tmp.strides[0], copied)], name="rows.stride")
    col = b.phi(T.I64, [(bv.strides[1], entry), (one, copied)], name="rows.step")
    block = b.phi(T.PTR, [(NULL, entry), (tmp.base, copied)], name="rows.copy")
    view = AVal(bv.type, ptr, list(bv.dims), [row, col], False, bv.root)
    return view, lambda: c.heap.free_block(block)


def _lead_view(c: Compiling, v: AVal, lead: list[Value]) -> AVal:
    """`v` seen with leading axes `lead` (broadcast: stride 0 where v has extent 1 or
    lacks the axis)."""
    b = c.b
    own = v.type.ndim - 2
    off = len(lead) - own
    dims, strides = [], []
    for k, d in enumerate(lead):
        if k < off:
            dims.append(d)
            strides.append(ConstantInt(T.I64, 0))
            continue
        vd, vs = v.dims[k - off], v.strides[k - off]
        dims.append(d)
        if L.same_extent(vd, d):
            strides.append(vs)
        else:
            one = b.icmp("eq", vd, ConstantInt(T.I64, 1))
            strides.append(b.select(one, ConstantInt(T.I64, 0), vs))
    return AVal(Array(v.type.elem, len(lead) + 2), v.ptr, [*dims, *v.dims[-2:]],
                [*strides, *v.strides[-2:]], False, v.root)


# --- np.linalg.norm -------------------------------------------------------------------------

_MATRIX_ORDS = "None/'fro', 1, -1, np.inf, -np.inf"
_VECTOR_ORDS = "None/2, 1, np.inf, -np.inf, 0, any other number p (sum |x|**p)**(1/p)"


@dataclass(frozen=True)
class NormSpec:
    """What np.linalg.norm computes: a vector norm over `axes` (one axis, or all of them
    flattened), or a matrix norm over `axes` = (row axis, column axis)."""

    ord: object  # None, a number, or 'fro'
    axes: tuple[int, ...]
    matrix: bool
    keepdims: bool


def norm_spec(call: TypeCall | EmitCall, ndim: int) -> NormSpec:
    """Read and check `ord=`, `axis=` and `keepdims=` as NumPy does (errors as FrontendError)."""
    nodes = call.arg_nodes
    ord_node = call.keywords.get("ord", nodes[1] if len(nodes) > 1 else None)
    axis_node = call.keywords.get("axis", nodes[2] if len(nodes) > 2 else None)
    keep_node = call.keywords.get("keepdims", nodes[3] if len(nodes) > 3 else None)
    if isinstance(ord_node, ast.Constant) and isinstance(ord_node.value, str):
        order: object = ord_node.value
    else:
        order = call.constant(ord_node) if ord_node is not None else None
        if isinstance(order, bool) or not (order is None or isinstance(order, int | float)):
            raise error(call, f"invalid norm order {order!r}", ord_node,
                        f"vectors: {_VECTOR_ORDS}; matrices: {_MATRIX_ORDS}")
    keepdims = bool(call.constant(keep_node)) if keep_node is not None else False
    axis = call.constant(axis_node) if axis_node is not None else None
    if axis is None:
        if order is None:  # the 2-norm of the flattened array, any rank
            return NormSpec(None, tuple(range(ndim)), False, keepdims)
        if ndim not in (1, 2):
            raise error(call, f"np.linalg.norm with ord={order!r} needs a 1-D or 2-D array "
                        f"(got {ndim}-D)", ord_node, "axis=... to pick the axes")
        axis_t: tuple[int, ...] = tuple(range(ndim))
    else:
        axis_t = normalize_axes(call, ndim, axis_node)
        if isinstance(axis, tuple) and len(axis) == 2:
            raw = tuple(a % ndim for a in axis)  # (row, column) in the caller's order
            axis_t = raw
        if len(axis_t) not in (1, 2):
            raise error(call, "np.linalg.norm takes one axis (vector norms) or two (matrix "
                        "norms)", axis_node)
    matrix = len(axis_t) == 2
    if matrix:
        if order in (2, -2, "nuc"):
            raise error(call, f"np.linalg.norm with ord={order!r} of a matrix (a singular "
                        "value norm) is not supported", ord_node, _MATRIX_ORDS)
        if order not in (None, "fro", 1, -1, math.inf, -math.inf):
            raise error(call, f"invalid norm order {order!r} for matrices", ord_node,
                        _MATRIX_ORDS)
    elif isinstance(order, str):
        raise error(call, f"invalid norm order {order!r} for vectors", ord_node, _VECTOR_ORDS)
    return NormSpec(order, axis_t, matrix, keepdims)


def _norm_type(call: TypeCall) -> FType | None:
    call.only("ord", "axis", "keepdims")
    if not call.args or len(call.args) > 2:
        raise call.error("np.linalg.norm: pass the array (and ord) positionally, the rest by "
                         "keyword", "np.linalg.norm(x, ord=1, axis=0, keepdims=True)")
    t = call.args[0]
    if t is None:
        return None
    if not isinstance(t, Array):
        raise call.error(f"np.linalg.norm needs an array, got {t}")
    spec = norm_spec(call, t.ndim)
    elem = t.elem if t.elem.is_float else F64
    rank = t.ndim if spec.keepdims else t.ndim - len(spec.axes)
    return Array(elem, rank) if rank else elem


def _map(c: Compiling, v: Any, elem: Scalar, f: Any, node: ast.AST) -> Any:
    """`f` (IR value -> IR value) applied to a scalar, or element-wise (lazily) to an array."""
    if isinstance(v, SVal):
        return SVal(elem, f(v.v))
    return lift(c, [v], elem, lambda x: SVal(elem, f(x[0].v)), node)


def norm(c: Compiling, x: Any, spec: NormSpec, node: ast.AST) -> Any:
    """np.linalg.norm of `x` as `spec` says, from reductions of |x|, x*x or |x|**p."""
    math_fn = c.fn.parent
    src = L.as_lazy(c, x)
    elem = src.type.elem if src.type.elem.is_float else F64
    src = L.converted(c, src, elem)
    axes, keep, order = spec.axes, spec.keepdims, spec.ord

    def of(f: Any) -> L.Lazy:
        return L.Lazy(src.type, src.dims, lambda idx: f(src.element(idx)), src.reads)

    def fabs(v: Value) -> Value:
        return emit_math(c.b, math_fn, "fabs", [v])

    def sqrt(v: Value) -> Value:
        return emit_math(c.b, math_fn, "sqrt", [v])

    if order in (None, "fro", 2) and not (spec.matrix and order == 2):
        total = reduce(c, "sum", of(lambda v: c.b.fmul(v, v)), axes, keep, node)
        return _map(c, total, elem, sqrt, node)
    if spec.matrix:  # induced norms: 1 sums over rows (then max over columns), inf over columns
        row, col = axes
        inner = row if abs(order) == 1 else col  # type: ignore[arg-type]
        kind = "max" if order > 0 else "min"  # type: ignore[operator]
        sums = reduce(c, "sum", of(fabs), (inner,), True, node)
        return reduce(c, kind, sums, tuple(sorted(axes)), keep, node)
    if order in (math.inf, -math.inf):
        return reduce(c, "max" if order > 0 else "min", of(fabs), axes, keep, node)
    if order == 0:
        zero = const(elem, 0).v
        count = of(lambda v: c.b.cast("uitofp", c.b.fcmp("une", v, zero), elem.ir))
        return reduce(c, "sum", count, axes, keep, node)
    if order == 1:
        return reduce(c, "sum", of(fabs), axes, keep, node)
    p = const_float(elem.ir, float(order))  # type: ignore[arg-type]
    inv = const_float(elem.ir, 1.0 / float(order))  # type: ignore[arg-type]
    total = reduce(c, "sum", of(lambda v: emit_math(c.b, math_fn, "pow", [fabs(v), p])),
                   axes, keep, node)
    return _map(c, total, elem, lambda v: emit_math(c.b, math_fn, "pow", [v, inv]), node)


@array_function(np.linalg.norm, type_rule=_norm_type)
def _norm(call: EmitCall) -> Any:
    v = call.args[0]
    return norm(call.c, v, norm_spec(call, v.type.ndim), call.node)
