"""Contractions: np.einsum, and np.outer, np.inner, np.vdot, np.tensordot, np.trace built on
the same loop nests.

`np.einsum(subscripts, *operands)` takes its subscripts as a string literal, explicit
(`'ij,jk->ik'`) or implicit (`'ij,jk'`: the labels used once, sorted), any number of
operands, a label repeated within an operand taking a diagonal (`'ii->i'`). It is one loop
per label, ordered by `loop_order` so that memory is read in row-major order where the
subscripts allow it; a two-operand contraction that is a batch of matrix products
(`matrix_labels`: `'ij,jk->ik'`, `'kji,nki->nkj'`, `'bik,bkj->bij'`) in float64 or float32
is a call of the matrix kernel instead (`linalg.products`), with the same sums in the same
order. When every output label is outside every summed label, each output
element is one scalar accumulation (a dot product: `'ij,kj->ik'`, `'ij,j->i'`); otherwise
the fresh output is zeroed and accumulated in place (`'ij,jk->ik'` runs `i, j, k`, the
inner loop contiguous in both `B` and the output, as `@` does). An operand that would make
the nest one sum per output element although it is reused across a loop (`B` of
`'ij,kj->ik'`, `L` of `'kji,nki->nkj'`) is first copied with the output's last label last, so
the in-place form applies (`_packed`): its inner loop vectorizes, the sums keep their order.

Invariants: extents of one label agree (a compile-time error for constants that differ, a
recorded `ValueError` otherwise; size-1 extents do not broadcast); an operand read more
than once per element is computed once into a temporary; the result is fresh memory (also
for a pure transpose such as `'ij->ji'`, which NumPy returns as a view); products are
accumulated in loop order, without reassociation. Ellipsis (`...`) is a `FrontendError`.
"""

from __future__ import annotations

import ast
import string
from collections.abc import Callable
from typing import Any

import numpy as np

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays import views
from enzyme_py.frontend.arrays.elementwise import lift
from enzyme_py.frontend.arrays.linalg import KERNEL_TYPES, products, zero_fill
from enzyme_py.frontend.arrays.registry import EmitCall, TypeCall, array_function
from enzyme_py.frontend.arrays.types import promote
from enzyme_py.frontend.ftypes import BOOL, I64, Array, FType, Scalar
from enzyme_py.frontend.values import AVal, SVal, const, convert
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

_LABELS = string.ascii_letters


# --- subscripts and loop order (pure) -------------------------------------------------------


def parse_subscripts(text: str, n: int) -> tuple[list[str], str]:
    """The operands' labels and the output's, from einsum subscripts for `n` operands
    (raises ValueError with NumPy's meaning for bad subscripts)."""
    text = text.replace(" ", "")
    if "." in text:
        raise ValueError("ellipsis ('...') in einsum subscripts is not supported")
    lhs, arrow, out = text.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != n:
        raise ValueError(f"einsum subscripts name {len(inputs)} operand(s), {n} given")
    for s in [*inputs, out]:
        for ch in s:
            if ch not in _LABELS:
                raise ValueError(f"invalid subscript {ch!r} in einsum (letters only)")
    if not arrow:
        used = "".join(inputs)
        out = "".join(sorted(ch for ch in set(used) if used.count(ch) == 1))
    if len(set(out)) != len(out):
        raise ValueError(f"einsum output subscript {out!r} repeats a label")
    for ch in out:
        if not any(ch in s for s in inputs):
            raise ValueError(f"einsum output label {ch!r} is not in any operand")
    return inputs, out


def loop_order(inputs: list[str], output: str) -> list[str]:
    """The labels, outermost loop first: chosen innermost first, each time the label that
    is the last not-yet-looped axis of the most arrays (operands and output: stride-order
    access) and an inner axis of the fewest; ties go to the operands' row-major order."""
    labels = list(dict.fromkeys("".join(inputs) + output))
    arrays = [*inputs, output]
    chosen: list[str] = []
    while len(chosen) < len(labels):
        def score(ch: str, among: list[str]) -> int:
            total = 0
            for s in among:
                rest = [x for x in s if x not in chosen]
                if ch in rest:
                    total += 1 if rest[-1] == ch else -1
            return total

        left = [ch for ch in labels if ch not in chosen]
        best = max(left, key=lambda ch: (score(ch, arrays), score(ch, inputs),
                                         labels.index(ch)))
        chosen.append(best)
    return chosen[::-1]


# --- the loop nest --------------------------------------------------------------------------


def _label_extents(c: Any, operands: list[Any], inputs: list[str], node: ast.AST
                   ) -> dict[str, Value]:
    b = c.b
    ext: dict[str, Value] = {}
    for v, s in zip(operands, inputs, strict=True):
        for axis, (ch, d) in enumerate(zip(s, v.dims, strict=True)):
            if ch not in ext:
                ext[ch] = d
                continue
            e = ext[ch]
            if L.same_extent(e, d):
                continue
            if isinstance(e, ConstantInt) and isinstance(d, ConstantInt):
                raise c.src.error(node, f"einsum: label '{ch}' has extents {e.value} and "
                                  f"{d.value}")
            c.check(b.icmp("eq", e, d), node, "shape mismatch", e, d, axis)
    return ext


def _nest(c: Any, labels: list[str], ext: dict[str, Value], at: dict[str, Value],
          body: Callable[[dict[str, Value]], None]) -> None:
    if not labels:
        body(at)
        return
    c.counted_loop(ext[labels[0]], lambda i: _nest(c, labels[1:], ext, {**at, labels[0]: i},
                                                   body))


def _packed(c: Any, operands: list[Any], inputs: list[str], output: str, order: list[str],
            node: ast.AST) -> tuple[list[Any], list[str]]:
    """The operands, with those that cross the output's rows copied so that its last label
    is their last axis too, when that turns one sum per output element (a chain of dependent
    adds: `'kji,nki->nkj'`, `'ij,kj->ik'`) into updates of a contiguous output row in the
    innermost loop (as `'ij,jk->ik'` runs), which vectorize without reordering any sum.

    Only an operand that some loop of the nest does not index is copied (it is read again in
    each iteration of that loop, so the copy costs a fraction of the work); otherwise, and
    when the new order would not end with that label, nothing changes. Each output element is
    still summed over the same labels in the same order, so the result is bit for bit the
    same. `order` is `loop_order(inputs, output)`."""
    outer = [ch for ch in order if ch in output]
    if not output or len(outer) == len(order) or order[:len(outer)] != outer:
        return operands, inputs
    last, labels = output[-1], set(order)
    new_operands, new_inputs = [], []
    for v, s in zip(operands, inputs, strict=True):
        if last in s and s[-1] != last:
            if isinstance(v, L.Lazy) or set(s) == labels or len(set(s)) != len(s):
                return operands, inputs
            perm = [k for k, ch in enumerate(s) if ch != last] + [s.index(last)]
            v = L.copy(c, views.transpose(c, v, perm), node)
            s = "".join(s[k] for k in perm)
        new_operands.append(v)
        new_inputs.append(s)
    if loop_order(new_inputs, output)[-1] != last:
        return operands, inputs
    return new_operands, new_inputs


def contract(c: Any, operands: list[Any], inputs: list[str], output: str, elem: Scalar,
             node: ast.AST) -> Any:
    """sum over the labels not in `output` of the product of the operands' elements."""
    b = c.b
    labels = matrix_labels(inputs, output)
    if labels is not None and elem in KERNEL_TYPES and all(
            v.type.elem == elem for v in operands):
        return _by_kernel(c, operands, inputs, output, labels, node)
    order = loop_order(inputs, output)
    operands = [v if isinstance(v, L.Lazy) and set(s) == set(order) and len(set(s)) == len(s)
                else c.view(v, node) for v, s in zip(operands, inputs, strict=True)]
    ext = _label_extents(c, operands, inputs, node)
    packed, inputs = _packed(c, operands, inputs, output, order, node)
    if packed is not operands:
        operands, order = packed, loop_order(inputs, output)

    def product(at: dict[str, Value]) -> SVal:
        acc: SVal | None = None
        for v, s in zip(operands, inputs, strict=True):
            idx = [at[ch] for ch in s]
            raw = v.element(idx) if isinstance(v, L.Lazy) else \
                c.b.load(v.type.elem.ir, L.element_address(c, v, idx))
            x = convert(c.b, SVal(v.type.elem, raw), elem)
            acc = x if acc is None else c.binop(ast.Mult(), acc, x, node)
        assert acc is not None
        return acc

    summed = [ch for ch in order if ch not in output]
    outer = [ch for ch in order if ch in output]
    out = L.fresh(c, Array(elem, len(output)), [ext[ch] for ch in output], node) \
        if output else None
    if order[:len(outer)] == outer:  # one scalar accumulation per output element
        slot = c.alloca_at.alloca(elem.ir, name="einsum")

        def element(at: dict[str, Value]) -> None:
            c.b.store(const(elem, 0).v, slot)

            def add(inner: dict[str, Value]) -> None:
                cur = SVal(elem, c.b.load(elem.ir, slot))
                c.b.store(c.binop(ast.Add(), cur, product(inner), node).v, slot)

            _nest(c, summed, ext, at, add)
            if out is not None:
                c.b.store(c.b.load(elem.ir, slot),
                          L.element_address(c, out, [at[ch] for ch in output]))

        _nest(c, outer, ext, {}, element)
        return out if out is not None else SVal(elem, b.load(elem.ir, slot))
    assert out is not None
    zero_fill(c, out)

    def accumulate(at: dict[str, Value]) -> None:
        where = L.element_address(c, out, [at[ch] for ch in output])
        cur = SVal(elem, c.b.load(elem.ir, where))
        c.b.store(c.binop(ast.Add(), cur, product(at), node).v, where)

    _nest(c, order, ext, {}, accumulate)
    return out


# --- contractions the matrix kernel computes -----------------------------------------------


def matrix_labels(inputs: list[str], output: str
                  ) -> tuple[str, str, str, str] | None:
    """(batch, m, n, k) labels when two operands contract as a batch of matrix products
    `out[b, m, n] = sum_k x[b, m, k] * y[b, k, n]` (labels in any order; one m and one n
    label, at most one k, any number of batch labels), else None: a diagonal, a label summed
    within one operand, more than one label of a kind, or no m or no n (a matrix-vector
    product or an element-wise one runs better as the loop nest's dot products)."""
    if len(inputs) != 2 or not output:
        return None
    sa, sb = inputs
    if len(set(sa)) != len(sa) or len(set(sb)) != len(sb):
        return None
    batch = "".join(ch for ch in output if ch in sa and ch in sb)
    m = "".join(ch for ch in output if ch in sa and ch not in sb)
    n = "".join(ch for ch in output if ch in sb and ch not in sa)
    k = "".join(ch for ch in sa if ch in sb and ch not in output)
    if len(m) != 1 or len(n) != 1 or len(k) > 1:
        return None
    if set(sa) != set(batch + m + k) or set(sb) != set(batch + n + k):
        return None
    return batch, m, n, k


def _arranged(c: Any, v: AVal, s: str, labels: str) -> AVal:
    """The view `v` (axes labelled `s`) with its axes in the order of `labels`; a label it
    lacks is an axis of extent 1."""
    one, zero_ = ConstantInt(T.I64, 1), ConstantInt(T.I64, 0)
    dims = [v.dims[s.index(ch)] if ch in s else one for ch in labels]
    strides = [v.strides[s.index(ch)] if ch in s else zero_ for ch in labels]
    return AVal(Array(v.type.elem, len(labels)), v.ptr, dims, strides, False, v.root)


def _by_kernel(c: Any, operands: list[Any], inputs: list[str], output: str,
               labels: tuple[str, str, str, str], node: ast.AST) -> AVal:
    """A batch of matrix products (`matrix_labels`) by the matrix kernel: each output
    element summed over k in order, as the loop nest sums it."""
    batch, m, n, k = labels
    views_ = [c.view(v, node) for v in operands]
    ext = _label_extents(c, views_, inputs, node)
    (xa, xb), (sa, sb) = views_, inputs
    elem = xa.type.elem
    out = L.fresh(c, Array(elem, len(output)), [ext[ch] for ch in output], node)
    zero_fill(c, out)
    if output[-1] == m:  # out.T = xb.T @ xa.T: the kernel's rows of C contiguous
        (xa, sa, m), (xb, sb, n) = (xb, sb, n), (xa, sa, m)
    products(c, _arranged(c, xa, sa, batch + m + (k or "_")),
             _arranged(c, xb, sb, batch + (k or "_") + n),
             _arranged(c, out, output, batch + m + n),
             [ext[ch] for ch in batch])
    return out


# --- np.einsum ------------------------------------------------------------------------------


def _subscripts(call: TypeCall | EmitCall) -> str:
    node = call.arg_nodes[0] if call.arg_nodes else None
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        src = call.typer.src if isinstance(call, TypeCall) else call.c.src
        raise src.error(node or call.node, "np.einsum needs its subscripts as a string "
                        "literal", "np.einsum('ij,jk->ik', A, B)")
    return node.value


def _einsum_elem(call: TypeCall, types: list[FType]) -> Scalar:
    elem = promote(types)
    if elem == BOOL:
        raise call.error("np.einsum of boolean arrays is not supported",
                         "convert first: x.astype(float)")
    return elem


def _einsum_type(call: TypeCall) -> FType | None:
    call.only("optimize")
    text = _subscripts(call)
    types = call.args[1:]
    if not types:
        raise call.error("np.einsum needs at least one operand")
    try:
        inputs, out = parse_subscripts(text, len(types))
    except ValueError as err:
        raise call.error(str(err), "subscripts of letters such as 'ij,jk->ik', 'ii->', "
                         "'bij,bjk->bik'", call.arg_nodes[0]) from None
    if any(t is None for t in types):
        return None
    for k, (t, s) in enumerate(zip(types, inputs, strict=True)):
        if not isinstance(t, Array):
            raise call.error(f"np.einsum operands must be arrays, operand {k} is {t}",
                             node=call.arg_nodes[k + 1])
        if t.ndim != len(s):
            raise call.error(f"np.einsum: operand {k} has {t.ndim} dimension(s) but "
                             f"subscripts '{s}'", node=call.arg_nodes[k + 1])
    elem = _einsum_elem(call, types)  # type: ignore[arg-type]
    return Array(elem, len(out)) if out else elem


def _result_elem(t: FType) -> Scalar:
    return t.elem if isinstance(t, Array) else t  # type: ignore[return-value]


@array_function(np.einsum, type_rule=_einsum_type)
def _einsum(call: EmitCall) -> Any:
    operands = call.args[1:]
    inputs, out = parse_subscripts(_subscripts(call), len(operands))
    return contract(call.c, operands, inputs, out, _result_elem(call.type), call.node)


# --- np.outer, np.inner, np.vdot ------------------------------------------------------------


def _two_arrays(call: TypeCall, name: str, scalars: bool = False) -> list[FType] | None:
    call.only()
    if len(call.args) != 2:
        raise call.error(f"{name} takes two arrays")
    if any(t is None for t in call.args):
        return None
    for t, n in zip(call.args, call.arg_nodes, strict=True):
        if not (isinstance(t, Array) or scalars and isinstance(t, Scalar)):
            raise call.error(f"{name} needs arrays, got {t}", node=n)
    elem = promote(call.args)  # type: ignore[arg-type]
    if elem == BOOL:
        raise call.error(f"{name} of boolean arrays is not supported",
                         "convert first: x.astype(float)")
    return call.args  # type: ignore[return-value]


def _flat(c: Any, v: Any, node: ast.AST) -> AVal:
    """`v` as a 1-D view in row-major order (a copy when it is not C-contiguous)."""
    view = c.view(v, node)
    if view.type.ndim == 1:
        return view
    if not view.contiguous:
        view = L.copy(c, view, node)
    return views.reshape(c, view, [L.count_of(c, view.dims)], node)


def _outer_type(call: TypeCall) -> FType | None:
    types = _two_arrays(call, "np.outer")
    return None if types is None else Array(promote(types), 2)


@array_function(np.outer, type_rule=_outer_type)
def _outer(call: EmitCall) -> Any:
    c = call.c
    elem = _result_elem(call.type)
    a, b = (_flat(c, v, call.node) for v in call.args)
    one = ConstantInt(T.I64, 1)
    col = L.Lazy(Array(a.type.elem, 2), [a.dims[0], one],
                 lambda idx: L.of_view(c, a).element([idx[0]]), [a])
    row = L.Lazy(Array(b.type.elem, 2), [one, b.dims[0]],
                 lambda idx: L.of_view(c, b).element([idx[1]]), [b])
    return lift(c, [col, row], elem,
                lambda v: c.binop(ast.Mult(), convert(c.b, v[0], elem),
                                  convert(c.b, v[1], elem), call.node), call.node)


def _inner_type(call: TypeCall) -> FType | None:
    types = _two_arrays(call, "np.inner", scalars=True)
    if types is None:
        return None
    elem = promote(types)
    if any(isinstance(t, Scalar) for t in types):
        rank = max(t.ndim for t in types if isinstance(t, Array)) if any(
            isinstance(t, Array) for t in types) else 0
        return Array(elem, rank) if rank else elem
    rank = types[0].ndim + types[1].ndim - 2  # type: ignore[union-attr]
    return Array(elem, rank) if rank else elem


@array_function(np.inner, type_rule=_inner_type)
def _inner(call: EmitCall) -> Any:
    c = call.c
    a, b = call.args
    if not (L.is_array(a) and L.is_array(b)):
        return c.binop(ast.Mult(), a, b, call.node)
    na, nb = a.type.ndim, b.type.ndim
    sa, sb = _LABELS[:na - 1], _LABELS[na - 1:na + nb - 2]
    return contract(c, [a, b], [sa + "Z", sb + "Z"], sa + sb, _result_elem(call.type),
                    call.node)


def _vdot_type(call: TypeCall) -> FType | None:
    types = _two_arrays(call, "np.vdot")
    return None if types is None else promote(types)


@array_function(np.vdot, type_rule=_vdot_type)
def _vdot(call: EmitCall) -> Any:
    c = call.c
    a, b = (_flat(c, v, call.node) for v in call.args)
    return contract(c, [a, b], ["i", "i"], "", _result_elem(call.type), call.node)


# --- np.tensordot --------------------------------------------------------------------------


def _tensordot_labels(call: TypeCall | EmitCall, na: int, nb: int) -> tuple[str, str, str]:
    """np.tensordot's `axes` (an int N: a's last N with b's first N; or two axis lists) as
    einsum subscripts for a, b and the result (a's free axes, then b's)."""
    src = call.typer.src if isinstance(call, TypeCall) else call.c.src
    node = call.keywords.get("axes", call.arg_nodes[2] if len(call.arg_nodes) > 2 else None)
    axes = 2 if node is None else call.constant(node)
    at = node or call.node
    if isinstance(axes, int) and not isinstance(axes, bool):
        if not 0 <= axes <= min(na, nb):
            raise src.error(at, f"np.tensordot: axes={axes} for arrays of dimensions {na} "
                            f"and {nb}", "axes between 0 and the smaller dimension")
        pairs = [(na - axes + k, k) for k in range(axes)]
    else:
        try:
            a_axes, b_axes = (list(x) if isinstance(x, tuple | list) else [x] for x in axes)
        except (TypeError, ValueError):
            raise src.error(at, "np.tensordot: axes must be an int or two axis lists",
                            "axes=2 or axes=([1, 2], [0, 1])") from None
        if len(a_axes) != len(b_axes):
            raise src.error(at, "np.tensordot: shape-mismatch for sum (the two axis lists "
                            "differ in length)")
        for a, n in [*((x, na) for x in a_axes), *((x, nb) for x in b_axes)]:
            if not isinstance(a, int) or isinstance(a, bool) or not -n <= a < n:
                raise src.error(at, f"np.tensordot: axis {a!r} is out of bounds for an array "
                                f"of dimension {n}")
        pairs = [(a % na, b % nb) for a, b in zip(a_axes, b_axes, strict=True)]
        if len({a for a, _ in pairs}) != len(pairs) or len({b for _, b in pairs}) != len(pairs):
            raise src.error(at, "np.tensordot: repeated axis")
    sa = _LABELS[:na]
    free_b = iter(_LABELS[na:na + nb])
    summed = dict((b, sa[a]) for a, b in pairs)
    sb = "".join(summed[k] if k in summed else next(free_b) for k in range(nb))
    contracted = {a for a, _ in pairs}
    out = "".join(sa[k] for k in range(na) if k not in contracted) + \
        "".join(sb[k] for k in range(nb) if k not in summed)
    return sa, sb, out


def _tensordot_type(call: TypeCall) -> FType | None:
    call.only("axes")
    if len(call.args) not in (2, 3) or len(call.arg_nodes) < 2:
        raise call.error("np.tensordot takes two arrays and axes")
    types = call.args[:2]
    if any(t is None for t in types):
        return None
    for t, n in zip(types, call.arg_nodes, strict=True):
        if not isinstance(t, Array):
            raise call.error(f"np.tensordot needs arrays, got {t}", node=n)
    elem = _einsum_elem(call, types)  # type: ignore[arg-type]
    _, _, out = _tensordot_labels(call, types[0].ndim, types[1].ndim)  # type: ignore
    return Array(elem, len(out)) if out else elem


@array_function(np.tensordot, type_rule=_tensordot_type)
def _tensordot(call: EmitCall) -> Any:
    a, b = call.args[:2]
    sa, sb, out = _tensordot_labels(call, a.type.ndim, b.type.ndim)
    return contract(call.c, [a, b], [sa, sb], out, _result_elem(call.type), call.node)


# --- np.trace -------------------------------------------------------------------------------


def _trace_type(call: TypeCall) -> FType | None:
    call.only("offset")
    if not call.args or len(call.args) > 2:
        raise call.error("np.trace takes a matrix and an offset", "np.trace(A, offset=1)")
    t = call.args[0]
    if t is None:
        return None
    if not (isinstance(t, Array) and t.ndim == 2):
        raise call.error(f"np.trace needs a 2-D array, got {t}",
                         "np.trace of a matrix; np.einsum('bii->b', A) for stacks")
    _offset(call)
    return t.elem if t.elem.is_float else I64


def _offset(call: TypeCall | EmitCall) -> int:
    node = call.keywords.get("offset", call.arg_nodes[1] if len(call.arg_nodes) > 1 else None)
    if node is None:
        return 0
    k = call.constant(node)
    if not isinstance(k, int) or isinstance(k, bool):
        src = call.typer.src if isinstance(call, TypeCall) else call.c.src
        raise src.error(node, "np.trace: the offset must be an integer constant")
    return k


@array_function(np.trace, type_rule=_trace_type, method="trace")
def _trace(call: EmitCall) -> Any:
    c = call.c
    b = c.b
    elem = _result_elem(call.type)
    src = L.as_lazy(c, call.args[0])
    off = _offset(call)
    r0, c0 = max(0, -off), max(0, off)
    rows = b.sub(src.dims[0], ConstantInt(T.I64, r0)) if r0 else src.dims[0]
    cols = b.sub(src.dims[1], ConstantInt(T.I64, c0)) if c0 else src.dims[1]
    n = b.select(b.icmp("slt", rows, cols), rows, cols) if not L.same_extent(rows, cols) \
        else rows
    n = b.select(b.icmp("slt", n, ConstantInt(T.I64, 0)), ConstantInt(T.I64, 0), n)
    slot = c.alloca_at.alloca(elem.ir, name="trace")
    b.store(const(elem, 0).v, slot)

    def body(k: Value) -> None:
        i = c.b.add(k, ConstantInt(T.I64, r0)) if r0 else k
        j = c.b.add(k, ConstantInt(T.I64, c0)) if c0 else k
        x = convert(c.b, SVal(src.type.elem, src.element([i, j])), elem)
        c.b.store(c.binop(ast.Add(), SVal(elem, c.b.load(elem.ir, slot)), x, call.node).v,
                  slot)

    c.counted_loop(n, body)
    return SVal(elem, b.load(elem.ir, slot))
