"""JAX's forward-mode and Jacobian entry points with its conventions: `jvp`, `linearize`,
`hvp`, `jacfwd`, `jacrev`, `hessian`, taking `argnums` (an int or a tuple), `has_aux`, and
pytree arguments and results.

Each entry point flattens pytree arguments to leaves (`pytree.Flattened`), runs the flat
machinery of `api.forward` / `api.grad` on the leaves, and rebuilds the results. A plain call (one
int `argnums`, no containers, no aux) goes straight to the flat version, so it costs what it
did before.

Invariants (JAX's): a Jacobian of a result leaf of shape `S` with respect to an argument leaf
of shape `A` has shape `S + A`; blocks nest with the result's structure outside and the
arguments' inside (a tuple over `argnums` when it is a tuple); a Hessian is the Jacobian of
the gradient (`H[i][j]` blocks for argument leaves `i`, `j`); an integer leaf differentiated
is a `TypeError`; the caller's arrays are never modified.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from enzyme_py.api import forward as F
from enzyme_py.api.compile import flatten_call, with_defaults
from enzyme_py.api.grad import normalize_argnums
from enzyme_py.api.gradients import grad_cache_of
from enzyme_py.api.vjp import aux_split, flat_vjp, result_leaves, result_structure, zero_like
from enzyme_py.errors import ArgumentValueError, CallError, NotDifferentiableError
from enzyme_py.pytree import Flattened, Node, flatten_all, is_container

__all__ = ["hessian", "hvp", "jacfwd", "jacrev", "jvp", "linearize"]


def _plain(args: Sequence[Any], argnums: Any = 0, has_aux: bool = False) -> bool:
    return isinstance(argnums, int) and not has_aux and \
        not any(is_container(a) for a in args)


def _check_tangents(flat: Flattened, tangents: Sequence[Any], what: str) -> list[Any]:
    """The tangents' leaves, which must have the primals' structure."""
    if len(tangents) != len(flat.in_trees):
        raise CallError(f"{what}: {len(tangents)} tangents for {len(flat.in_trees)} primals")
    leaves, nodes = flatten_all(tangents)
    for i, (got, want) in enumerate(zip(nodes, flat.in_trees, strict=True)):
        if got != want:
            raise ArgumentValueError(f"{what}: tangent {i} has structure {got}; its "
                                     f"primal's is {want}")
    return leaves


def _float_leaf(flat: Flattened, args: Sequence[Any], j: int, what: str) -> None:
    x = args[j]
    ok = isinstance(x, float | np.floating) or (isinstance(x, np.ndarray) and
                                                 x.dtype.kind == "f")
    if not ok:
        raise NotDifferentiableError(f"{what} of {flat.__name__}(): '{flat.params[j]}' is "
                        f"{type(x).__name__}" +
                        (f" of dtype {x.dtype}" if isinstance(x, np.ndarray) else "") +
                        "; only float arguments can be differentiated (as in JAX)")


def _basis(x: Any) -> list[Any]:
    """Unit tangents along each element of a float leaf (1.0 for a float)."""
    if not isinstance(x, np.ndarray):
        return [1.0]
    out = []
    for k in range(x.size):
        e = np.zeros(x.shape, x.dtype)
        e.flat[k] = 1.0
        out.append(e)
    return out


def _zeros(args: Sequence[Any]) -> list[Any]:
    return [np.zeros(np.shape(a), a.dtype) if isinstance(a, np.ndarray) else 0.0
            for a in args]


# --- jvp and linearize ---------------------------------------------------------------------------


def jvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: bool = False) -> tuple[Any, ...]:
    """`(f(*primals), directional derivative along tangents)`, like `jax.jvp`; primals and
    tangents may be pytrees of the same structure, the value a pytree (its tangent has its
    structure). With `has_aux`, `f` returns `(value, aux)` and the result is
    `(value, tangent, aux)`. Tangents of integers are ignored (JAX's float0)."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) == len(tangents):  # (a None default makes the call a pytree's)
        primals, filled = with_defaults(f, primals, tangents)
        assert filled is not None
        tangents = filled
    if _plain(primals, 0, has_aux):
        return F.jvp(f, primals, tangents)
    if len(primals) != len(tangents):
        raise CallError("jvp: primals and tangents must have the same length")
    full = tangents
    flat, leaves = flatten_call(f, primals)
    t_leaves = _check_tangents(flat, full, "jvp")
    node = result_structure(grad_cache_of(flat), leaves)
    value, tangent = F.jvp(flat, leaves, t_leaves)
    values, tans = result_leaves(value, node), result_leaves(tangent, node)
    if not has_aux:
        return node.unflatten(values), node.unflatten(tans)
    value_node = aux_split(node, flat.__name__)
    n = value_node.num_leaves
    return (value_node.unflatten(values[:n]), value_node.unflatten(tans[:n]),
            node.children[1].unflatten(values[n:]))


def linearize(f: Callable, *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """`(f(*primals), f_jvp)` where `f_jvp(*tangents)` is the directional derivative at
    `primals`, like `jax.linearize` (each call is one forward-mode sweep; `(value, f_jvp,
    aux)` with `has_aux`)."""
    got = jvp(f, primals, [_zero_tree(p) for p in primals], has_aux=has_aux)

    def f_jvp(*tangents: Any) -> Any:
        return jvp(f, primals, tangents, has_aux=has_aux)[1]

    return (got[0], f_jvp, got[2]) if has_aux else (got[0], f_jvp)


def _zero_tree(value: Any) -> Any:
    leaves, nodes = flatten_all([value])
    return nodes[0].unflatten(_zeros(leaves))


# --- Jacobians -----------------------------------------------------------------------------------


def _in_structure(flat: Flattened, argnums: int | Sequence[int], nums: tuple[int, ...]) -> Node:
    if isinstance(argnums, int):
        return flat.in_trees[nums[0]]
    return Node("tuple", tuple(flat.in_trees[i] for i in nums))


def _assemble(out_node: Node, in_node: Node, blocks: list[list[Any]]) -> Any:
    """`blocks[k][j]` (result leaf k, argument leaf j) nested result-outside."""
    return out_node.unflatten([in_node.unflatten(row) for row in blocks])


def _structured_jacobian(f: Callable, args: Sequence[Any], argnums: int | Sequence[int],
                         has_aux: bool, forward: bool) -> Any:
    what = "jacfwd" if forward else "jacrev"
    flat, leaves = flatten_call(f, args)
    nums = normalize_argnums(argnums, len(args), flat.__name__)
    leaf_nums = [j for i in nums for j in flat.leaf_range(i)]
    for j in leaf_nums:
        _float_leaf(flat, leaves, j, what)
    node = result_structure(grad_cache_of(flat), leaves)
    out_node = aux_split(node, flat.__name__) if has_aux else node
    n_out = out_node.num_leaves
    if forward:
        values, blocks = _jacfwd_blocks(flat, leaves, leaf_nums, node, n_out)
    else:
        values, blocks = _jacrev_blocks(flat, leaves, leaf_nums, node, n_out)
    jac = _assemble(out_node, _in_structure(flat, argnums, nums), blocks)
    return (jac, node.children[1].unflatten(values[n_out:])) if has_aux else jac


def _check_float_result(flat: Flattened, v: Any, k: int) -> None:
    if not (isinstance(v, float) or isinstance(v, np.ndarray) and v.dtype.kind == "f"):
        raise NotDifferentiableError(f"Jacobian of {flat.__name__}(): result leaf {k} is "
                        f"{type(v).__name__}; only float results have a Jacobian")


def _jacrev_blocks(flat: Flattened, leaves: list[Any], leaf_nums: list[int], node: Node,
                   n_out: int) -> tuple[list[Any], list[list[Any]]]:
    """One reverse sweep per element of each result leaf."""
    from enzyme_py.api.vjp import as_result

    active = tuple(j in leaf_nums for j in range(len(leaves)))
    value, pullback = flat_vjp(grad_cache_of(flat), leaves, active)
    values = result_leaves(value, node)
    blocks: list[list[Any]] = []
    for k in range(n_out):
        v = values[k]
        _check_float_result(flat, v, k)
        shape = np.shape(v)
        rows = [np.zeros((int(np.prod(shape, dtype=np.int64)), *np.shape(leaves[j])),
                         np.result_type(np.asarray(v).dtype, np.asarray(leaves[j]).dtype))
                for j in leaf_nums]
        for e, unit in enumerate(_basis(v)):
            ct = [zero_like(w) for w in values]
            ct[k] = unit
            cots = pullback(as_result(ct, node))
            for r, j in zip(rows, leaf_nums, strict=True):
                r[e] = cots[j]
        blocks.append([_shaped(r.reshape(shape + np.shape(leaves[j])), v, leaves[j])
                       for r, j in zip(rows, leaf_nums, strict=True)])
    return values, blocks


def _jacfwd_blocks(flat: Flattened, leaves: list[Any], leaf_nums: list[int], node: Node,
                   n_out: int) -> tuple[list[Any], list[list[Any]]]:
    """One forward sweep per element of each differentiated argument leaf."""
    base = _zeros(leaves)
    cols: dict[int, list[list[Any]]] = {}
    values: list[Any] = []
    for j in leaf_nums:
        cols[j] = [[] for _ in range(n_out)]
        for unit in _basis(leaves[j]):
            tangents = list(base)
            tangents[j] = unit
            value, tangent = F.jvp(flat, leaves, tangents)
            values = result_leaves(value, node)
            tans = result_leaves(tangent, node)
            for k in range(n_out):
                cols[j][k].append(tans[k])
    if not leaf_nums:
        values = result_leaves(F.jvp(flat, leaves, base)[0], node)
    blocks: list[list[Any]] = []
    for k in range(n_out):
        v = values[k]
        _check_float_result(flat, v, k)
        row = []
        for j in leaf_nums:
            c = np.asarray(cols[j][k])  # (size of leaf j, *S)
            moved = np.moveaxis(c.reshape((-1, *np.shape(v))), 0, -1)
            block = np.array(moved.reshape(np.shape(v) + np.shape(leaves[j])), order="C")
            row.append(_shaped(block, v, leaves[j]))
        blocks.append(row)
    return values, blocks


def _shaped(block: np.ndarray, value: Any, x: Any) -> Any:
    """A float for the derivative of a float by a float (JAX gives a scalar there)."""
    return float(block) if np.ndim(value) == 0 and np.ndim(x) == 0 else block


def jacfwd(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False
           ) -> Callable[..., Any]:
    """The Jacobian of `f` with respect to argument(s) `argnums` by forward mode (one sweep
    per input element), like `jax.jacfwd`: for a result leaf of shape `S` and an argument
    leaf of shape `A`, shape `S + A`; pytrees of results and arguments nest as in JAX
    (`(jacobian, aux)` with `has_aux`)."""

    def jac(*args: Any) -> Any:
        args, _ = with_defaults(f, args)  # (argnums count the arguments given)
        if _plain(args, argnums, has_aux):
            return F.jacfwd(f, argnums)(*args)  # type: ignore[arg-type]
        return _structured_jacobian(f, args, argnums, has_aux, forward=True)

    return jac


def jacrev(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False
           ) -> Callable[..., Any]:
    """The Jacobian of `f` with respect to argument(s) `argnums` by reverse mode (one sweep
    per result element), like `jax.jacrev`; shapes and nesting as for `jacfwd`."""

    def jac(*args: Any) -> Any:
        args, _ = with_defaults(f, args)  # (argnums count the arguments given)
        if _plain(args, argnums, has_aux):
            return F.jacrev(f, argnums)(*args)  # type: ignore[arg-type]
        return _structured_jacobian(f, args, argnums, has_aux, forward=False)

    return jac


# --- second order --------------------------------------------------------------------------------


def hvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any],
        argnums: int | Sequence[int] | None = None) -> Any:
    """Hessian-vector product of scalar `f` at `primals` along `tangents` (forward over
    reverse), like `jax.jvp(jax.grad(f, argnums), primals, tangents)[1]`. Without `argnums`
    it gives one array/float (pytree) per argument; with `argnums`, `tangents` are those
    arguments' only (the others are held fixed) and so is the result (one for an int)."""
    primals = tuple(primals)
    if argnums is None and not any(is_container(a) for a in primals):
        return F.hvp(f, primals, tangents)
    n_given = len(primals)
    primals, _ = with_defaults(f, primals)
    flat, leaves = flatten_call(f, primals)
    nums = tuple(range(n_given)) if argnums is None else \
        normalize_argnums(argnums, len(primals), flat.__name__)
    if len(tangents) != len(nums):
        raise CallError(f"hvp: {len(tangents)} tangents for {len(nums)} differentiated "
                        "arguments")
    full = [_zero_tree(p) for p in primals]
    for i, t in zip(nums, tangents, strict=True):
        full[i] = t
    t_leaves = _check_tangents(flat, full, "hvp")
    per_leaf = F.hvp(flat, leaves, t_leaves)
    groups = flat.regroup(nums, [per_leaf[j] for i in nums for j in flat.leaf_range(i)])
    return groups[0] if isinstance(argnums, int) else tuple(groups)


def hessian(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False
            ) -> Callable[..., Any]:
    """The Hessian of scalar `f` with respect to argument(s) `argnums` (forward over
    reverse), like `jax.hessian`: for one float array argument of shape `A`, shape `A + A`
    (`HESSIAN_WIDTH` columns per vector forward sweep); for pytrees or several arguments,
    blocks `H[i][j]` of shape `A_i + A_j` nested as `jax.hessian` nests them (one
    Hessian-vector product per column). `(hessian, aux)` with `has_aux`."""

    def h(*args: Any) -> Any:
        args, _ = with_defaults(f, args)  # (argnums count the arguments given)
        if _plain(args, argnums, has_aux):
            (i,) = normalize_argnums(argnums, len(args), getattr(f, "__name__", "f"))
            if isinstance(args[i], np.ndarray):  # vector forward mode over the gradient
                return F.hessian(f, i)(*args)
        return _structured_hessian(f, args, argnums, has_aux)

    return h


def _structured_hessian(f: Callable, args: Sequence[Any], argnums: int | Sequence[int],
                        has_aux: bool) -> Any:
    flat, leaves = flatten_call(f, args)
    nums = normalize_argnums(argnums, len(args), flat.__name__)
    leaf_nums = [j for i in nums for j in flat.leaf_range(i)]
    for j in leaf_nums:
        _float_leaf(flat, leaves, j, "hessian")
    if has_aux:
        raise CallError("hessian(..., has_aux=True) is not supported: differentiate a "
                        "function returning the value alone, and compute aux with jit")
    base = _zeros(leaves)
    # columns[b][e] = d(gradient)/d(leaf b, element e), per leaf
    blocks = [[np.zeros((int(np.size(leaves[a])), int(np.size(leaves[b]))),
                        np.result_type(np.asarray(leaves[a]).dtype,
                                       np.asarray(leaves[b]).dtype))
               for b in leaf_nums] for a in leaf_nums]
    for col, b in enumerate(leaf_nums):
        for e, unit in enumerate(_basis(leaves[b])):
            tangents = list(base)
            tangents[b] = unit
            per_leaf = F.hvp(flat, leaves, tangents)
            for row, a in enumerate(leaf_nums):
                blocks[row][col][:, e] = np.ravel(per_leaf[a])
    shaped = [[_shaped(blocks[r][c].reshape(np.shape(leaves[a]) + np.shape(leaves[b])),
                       leaves[a], leaves[b])
               for c, b in enumerate(leaf_nums)] for r, a in enumerate(leaf_nums)]
    in_node = _in_structure(flat, argnums, nums)
    return _assemble(in_node, in_node, shaped)
