"""The public checks: `check_value`, `check_grad`, `check_vjp` (see the package docstring)."""

from __future__ import annotations

import builtins
import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from enzyme_py.testing.compare import (
    close_elements,
    flat_array,
    index_label,
    relative_error,
    worst_table,
)
from enzyme_py.testing.finite_differences import fd_gradient
from enzyme_py.testing.jax_shims import Packed, jax_module
from enzyme_py.testing.runs import copies, copy_leaf, numpy_as_jax, our_grad, our_jit


def check_value(f: Callable, *args: Any, rtol: float = 1e-12, atol: float = 1e-12) -> Any:
    """Check that `enzyme_py.jit(f)(*args)` equals plain Python `f(*args)`, including the
    arrays `f` writes into; returns our result.

    Each run gets its own copies of the arguments. Results are compared with
    `|ours - python| <= atol + rtol * max(|ours|, |python|)`; use a looser `rtol` for float32.

    Example::

        >>> import numpy as np
        >>> def total(a):
        ...     s = 0.0
        ...     for i in range(len(a)):
        ...         s += a[i]
        ...     return s
        >>> check_value(total, np.array([1.0, 2.0]))
        3.0
    """
    mine_args = copies(args)
    py_args = copies(args)
    ours = our_jit(f)(*mine_args)
    expected = f(*py_args)
    name = getattr(f, "__name__", "f")
    pairs: list[tuple[str, Any, Any]] = [("result", ours, expected)]
    pairs += [(f"argument {i} after the call", m, p)
              for i, (m, p) in enumerate(zip(mine_args, py_args, strict=True))
              if isinstance(m, np.ndarray)]
    for what, a, b in pairs:
        if (a is None) != (b is None):
            raise AssertionError(f"{name}: {what}: enzyme_py.jit gives {a!r}, Python {b!r}")
        if a is None:
            continue
        if isinstance(b, tuple) != isinstance(a, tuple) or (
                isinstance(a, tuple) and len(a) != len(b)):
            raise AssertionError(f"{name}: {what}: enzyme_py.jit gives {a!r}, Python {b!r}")
        fa, fb = flat_array(a), flat_array(b)
        if fa.shape != fb.shape:
            raise AssertionError(f"{name}: {what}: shapes differ: {fa.shape} vs {fb.shape}")
        ratio = close_elements(fa, fb, rtol, atol)
        if np.any(ratio > 1):
            bad = np.argsort(-ratio)[:8]
            rows = "\n".join(f"  [{k}] ours {fa[k]!r}  python {fb[k]!r}" for k in bad
                             if ratio[k] > 1)
            raise AssertionError(f"{name}: {what} differs from plain Python "
                                 f"(rtol={rtol}, atol={atol}):\n{rows}")
    return ours


def check_grad(f: Callable, *args: Any, argnums: int | Sequence[int] = 0,
               reference: Callable | None = None, rtol: float = 1e-7, atol: float = 1e-9,
               fd: bool = True, fd_rtol: float = 1e-5) -> Any:
    """Check `enzyme_py.grad(f, argnums)(*args)` against JAX and finite differences; return it.

    The JAX gradient is `jax.grad` of `f` itself run on JAX values (see the module
    docstring), or of `reference` when given: a JAX function with the same signature taking
    jax arrays. It runs eagerly with 64-bit JAX enabled for the duration of the check only.
    An entry passes when `|ours - jax| <= atol + rtol * max(|ours|, |jax|)`. With `fd`,
    central finite differences of `enzyme_py.jit(f)` are compared too (tolerance in the
    module docstring). On a mismatch an `AssertionError` shows a table of the worst entries:
    argument, index, ours, JAX, finite differences, relative error.

    Example::

        >>> import math
        >>> import numpy as np
        >>> def energy(k, x):
        ...     e = 0.0
        ...     for i in range(x.shape[0] - 1):
        ...         e += k * (x[i + 1] - x[i]) ** 2 + math.cos(x[i])
        ...     return e
        >>> g = check_grad(energy, 2.0, np.array([0.0, 0.5, 1.5]), argnums=(0, 1))
        >>> round(g[0], 12)
        1.25
    """
    from enzyme_py.pytree import is_container

    if any(is_container(a) for a in args):
        return _check_tree_grad(f, args, argnums, reference, rtol, atol, fd, fd_rtol)
    jax, _ = jax_module()
    name = getattr(f, "__name__", "f")
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    norm = tuple(a % len(args) for a in nums)
    key = argnums if isinstance(argnums, int) else tuple(argnums)
    ours = our_grad(f, key)(*copies(args))
    ours_t = (ours,) if isinstance(argnums, int) else tuple(ours)

    with jax.enable_x64(True):
        if reference is not None:
            ref = jax.grad(reference, argnums=norm)(*[_jax_arg(a) for a in args])
            ref_t = tuple(np.asarray(r, dtype=np.float64) for r in ref)
        else:
            try:
                prog = Packed(f, args)
                ref = jax.grad(prog.run, argnums=norm)(*prog.packed)
                ref_t = tuple(prog.grad_of(k, r) for k, r in zip(norm, ref, strict=True))
            except Exception as scalar_error:  # NumPy-style code: run it on jax.numpy
                try:
                    ref = jax.grad(numpy_as_jax(f), argnums=norm)(
                        *[_jax_arg(a) for a in args])
                except Exception:
                    raise AssertionError(
                        f"{name}: JAX could not run the same source (element by element: "
                        f"{type(scalar_error).__name__}: {scalar_error}; with jax.numpy for "
                        "numpy: failed too); pass reference= a JAX version") from scalar_error
                ref_t = tuple(np.asarray(r, dtype=np.float64) for r in ref)

    rows: list[tuple] = []
    jax_ratio: list[float] = []
    fd_ratio: list[float] = []
    jf = our_jit(f) if fd else None
    single = any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args)
    eps = builtins.float(np.finfo(np.float32 if single else np.float64).eps)
    frt = max(fd_rtol, 1e-3) if single else fd_rtol
    for pos, (k, g, r) in enumerate(zip(norm, ours_t, ref_t, strict=True)):
        arr = isinstance(args[k], np.ndarray)
        if arr and (not isinstance(g, np.ndarray) or g.shape != args[k].shape):
            raise AssertionError(f"{name}: the gradient of argument {k} should be an array of "
                                 f"shape {args[k].shape}, got {g!r}")
        if not arr and not isinstance(g, float):
            raise AssertionError(f"{name}: the gradient of argument {k} should be a float, "
                                 f"got {type(g).__name__}")
        go, gr = flat_array(g), flat_array(r)
        ratio_j = close_elements(go, gr, rtol, atol)
        if jf is not None:
            fdg, steps, f0 = fd_gradient(jf, list(args), k, eps)
            fdf, hf = flat_array(fdg), flat_array(steps)
            allowed = frt * np.maximum(np.abs(fdf), np.max(np.abs(fdf), initial=0.0)) + \
                10 * eps * (f0 + 1) / hf
            with np.errstate(invalid="ignore"):
                ratio_f = np.abs(go - fdf) / allowed
            ratio_f = np.where(np.isnan(ratio_f), np.inf, ratio_f)
        else:
            fdf, ratio_f = None, np.zeros_like(go)
        shape = np.shape(args[k]) if arr else ()
        rel = relative_error(go, gr)
        for i in range(go.size):
            rows.append((k, index_label(shape, i), go[i], gr[i],
                         None if fdf is None else fdf[i], rel[i]))
            jax_ratio.append(float(ratio_j[i]))
            fd_ratio.append(float(ratio_f[i]))
        del pos
    worst_j = max(jax_ratio, default=0.0)
    worst_f = max(fd_ratio, default=0.0)
    if worst_j > 1:
        raise AssertionError(worst_table(f"{name}: enzyme_py.grad differs from JAX (rtol={rtol}, "
                                    f"atol={atol}); worst entries:", rows, jax_ratio))
    if worst_f > 1:
        raise AssertionError(worst_table(f"{name}: enzyme_py.grad differs from central finite "
                                    f"differences (fd_rtol={frt}); worst entries "
                                    "(rel err vs JAX):", rows, fd_ratio))
    return ours


def _check_tree_grad(f: Callable, args: Sequence[Any], argnums: int | Sequence[int],
                     reference: Callable | None, rtol: float, atol: float, fd: bool,
                     fd_rtol: float) -> Any:
    """`check_grad` for pytree arguments: the gradient must have each argument's structure;
    its leaves are compared with `jax.grad` of the same source on jax.numpy (or of
    `reference`) and with finite differences of `jit(f)`, leaf by leaf."""
    from enzyme_py.pytree import flatten, flatten_all, tree_map

    jax, _ = jax_module()
    name = getattr(f, "__name__", "f")
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    norm = tuple(a % len(args) for a in nums)
    key = argnums if isinstance(argnums, int) else tuple(argnums)
    ours = our_grad(f, key)(*[tree_map(copy_leaf, a) for a in args])
    ours_t = (ours,) if isinstance(argnums, int) else tuple(ours)
    with jax.enable_x64(True):
        fn = reference if reference is not None else numpy_as_jax(f)
        ref = jax.grad(fn, argnums=norm)(*[tree_map(_jax_arg, a) for a in args])
    leaves, nodes = flatten_all(args)
    starts = np.cumsum([0] + [n.num_leaves for n in nodes])
    jf = our_jit(f) if fd else None

    def flat_call(*xs: Any) -> Any:
        return jf(*[n.unflatten(xs[starts[i]:starts[i + 1]])  # type: ignore[misc]
                    for i, n in enumerate(nodes)])

    eps = builtins.float(np.finfo(np.float64).eps)
    rows: list[tuple] = []
    jax_ratio: list[float] = []
    fd_ratio: list[float] = []
    for k, g, r in zip(norm, ours_t, ref, strict=True):
        got, got_node = flatten(g)
        if got_node != nodes[k]:
            raise AssertionError(f"{name}: the gradient of argument {k} has structure "
                                 f"{got_node}; the argument's is {nodes[k]}")
        want = jax.tree_util.tree_leaves(r)
        paths = nodes[k].leaf_paths(f"#{k}")
        for j, (go_v, gr_v, path) in enumerate(zip(got, want, paths, strict=True)):
            leaf = leaves[starts[k] + j]
            if np.shape(go_v) != np.shape(leaf):
                raise AssertionError(f"{name}: the gradient of {path} has shape "
                                     f"{np.shape(go_v)}, the leaf {np.shape(leaf)}")
            go, gr = flat_array(go_v), flat_array(gr_v)
            ratio_j = close_elements(go, gr, rtol, atol)
            fdf, ratio_f = None, np.zeros_like(go)
            if jf is not None:
                fdg, steps, f0 = fd_gradient(flat_call, list(leaves), int(starts[k]) + j, eps)
                fdf = flat_array(fdg)
                allowed = fd_rtol * np.maximum(np.abs(fdf), np.max(np.abs(fdf), initial=0.0)) \
                    + 10 * eps * (f0 + 1) / flat_array(steps)
                with np.errstate(invalid="ignore"):
                    ratio_f = np.nan_to_num(np.abs(go - fdf) / allowed, nan=np.inf)
            rel = relative_error(go, gr)
            for i in range(go.size):
                rows.append((path, index_label(np.shape(leaf), i), go[i], gr[i],
                             None if fdf is None else fdf[i], rel[i]))
                jax_ratio.append(float(ratio_j[i]))
                fd_ratio.append(float(ratio_f[i]))
    if max(jax_ratio, default=0.0) > 1:
        raise AssertionError(worst_table(f"{name}: enzyme_py.grad differs from JAX (rtol={rtol}, "
                                    f"atol={atol}); worst entries:", rows, jax_ratio))
    if max(fd_ratio, default=0.0) > 1:
        raise AssertionError(worst_table(f"{name}: enzyme_py.grad differs from central finite "
                                    f"differences (fd_rtol={fd_rtol}); worst entries:", rows,
                                    fd_ratio))
    return ours


def check_vjp(f: Callable, *args: Any, cotangent: Any = None, reference: Callable | None = None,
              rtol: float = 1e-7, atol: float = 1e-9) -> tuple[Any, tuple[Any, ...]]:
    """Check `enzyme_py.vjp(f, *args)` (primal and cotangents) against `jax.vjp` of `f` run on
    JAX values (or of `reference`); returns `(primal, cotangents)`.

    `cotangent` defaults to 1.0 per result component (1.0, 2.0, ... for tuples, so that
    components are told apart). Cotangents of int arguments are None, as ours are.

    Example::

        >>> import math
        >>> def polar(r, t):
        ...     return r * math.cos(t), r * math.sin(t)
        >>> primal, cts = check_vjp(polar, 2.0, 0.0)
        >>> cts[0], round(cts[1], 12)
        (1.0, 4.0)
    """
    import enzyme_py

    jax, _ = jax_module()
    name = getattr(f, "__name__", "f")
    primal, vjp_fn = enzyme_py.vjp(f, *copies(args))
    if cotangent is None:
        cotangent = tuple(float(i + 1) for i in range(len(primal))) \
            if isinstance(primal, tuple) else 1.0
    cts = vjp_fn(cotangent)
    floats = [i for i, a in enumerate(args)
              if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")]
    with jax.enable_x64(True):
        if reference is not None:
            fn, jargs, grad_of = reference, [_jax_arg(a) for a in args], None
        else:
            prog = Packed(f, args)
            fn, jargs, grad_of = prog.run, prog.packed, prog.grad_of

        def on_floats(*fa: Any) -> Any:
            full = list(jargs)
            for i, v in zip(floats, fa, strict=True):
                full[i] = v
            return fn(*full)

        ref_primal, ref_fn = jax.vjp(on_floats, *[jargs[i] for i in floats])
        ct = tuple(np.float64(c) for c in cotangent) if isinstance(cotangent, tuple) \
            else np.float64(cotangent)
        ct = jax.tree_util.tree_map(lambda p, c: jax.numpy.asarray(c, dtype=p.dtype),
                                    ref_primal, ct)
        ref_cts = ref_fn(ct)
        ref_primal_np = flat_array(jax.tree_util.tree_leaves(ref_primal))
        ref_np = [np.asarray(c, dtype=np.float64) if grad_of is None else grad_of(i, c)
                  for i, c in zip(floats, ref_cts, strict=True)]
    ratio = close_elements(flat_array(primal), ref_primal_np, rtol, atol)
    if np.any(ratio > 1):
        raise AssertionError(f"{name}: vjp primal {primal!r} differs from JAX's "
                             f"{ref_primal_np!r}")
    rows: list[tuple] = []
    ratios: list[float] = []
    for i, c in enumerate(cts):
        if i not in floats:
            if c is not None:
                raise AssertionError(f"{name}: the cotangent of non-float argument {i} should "
                                     f"be None, got {c!r}")
            continue
        r = ref_np[floats.index(i)]
        if c is None:
            raise AssertionError(f"{name}: the cotangent of argument {i} is None")
        go, gr = flat_array(c), flat_array(r)
        rat = close_elements(go, gr, rtol, atol)
        rel = relative_error(go, gr)
        for j in range(go.size):
            rows.append((i, index_label(np.shape(args[i]), j), go[j], gr[j], None, rel[j]))
            ratios.append(float(rat[j]))
    if max(ratios, default=0.0) > 1:
        raise AssertionError(worst_table(f"{name}: enzyme_py.vjp differs from jax.vjp "
                                    f"(rtol={rtol}, atol={atol}); worst entries:", rows, ratios))
    return primal, cts


def _jax_arg(a: Any) -> Any:
    _, jnp = jax_module()
    if isinstance(a, np.ndarray):
        return jnp.asarray(a) if a.dtype.kind == "f" else a.copy()
    return copy.copy(a)
