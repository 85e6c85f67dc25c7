"""The NumPy-style corpus (`numpy_corpus.py`), each case checked four ways:

1. value: `enzyme_py.jit(f)` against NumPy running `f`, on copies of the arguments that keep
   their memory layout (a strided view stays a strided view of a fresh buffer, Fortran order
   stays Fortran order); the arrays `f` writes into are compared too;
2. reverse mode: `check_grad` against JAX running the same source with `np` bound to
   `jax.numpy` (or the case's `reference`) and finite differences, for scalar-valued
   functions; for non-contiguous arguments also `enzyme_py.grad` at the arguments' own layout;
   functions that write their results into arrays go through `autodiff` with `Duplicated`
   shadows against `jax.vjp` of their final arrays;
3. forward mode: `enzyme_py.jvp` against `jax.jvp` at random tangents of every float argument;
4. for array-valued functions: `enzyme_py.jacrev` and `jacfwd` against JAX's.

Invariants: JAX runs with 64-bit floats (`jax.enable_x64(True)`) inside each check only, and
every array is converted to JAX inside that context; no check mutates a case's arguments.
A case's known gap or bug is a strict xfail with its reason (see `Case.xfail`).
"""

from __future__ import annotations

import types
import zlib
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py
from enzyme_py import Active, Const, Duplicated, autodiff
from enzyme_py.testing import check_grad
from tests.frontend import numpy_corpus
from tests.frontend.numpy_corpus import CASES, Case, mat, row_index


def _jax_namespace() -> dict[str, Any]:
    """The corpus module's globals with `np` bound to `jax.numpy` and every function of the
    module copied into them, so that helpers a function calls run on JAX too."""
    g = dict(vars(numpy_corpus))
    g["np"] = jnp
    for name, v in vars(numpy_corpus).items():
        if isinstance(v, types.FunctionType) and v.__module__ == numpy_corpus.__name__:
            g[name] = types.FunctionType(v.__code__, g, v.__name__, v.__defaults__,
                                         v.__closure__)
    return g


_JAX = _jax_namespace()


def jax_version(case: Case) -> Callable:
    """The case's JAX function, compiled with `jax.jit` (its int arguments static) where it
    traces, eagerly where Python control flow or a boolean mask needs concrete values: one
    compiled program per case instead of one per primitive keeps the file fast."""
    fn = case.reference or _JAX[case.f.__name__]
    static = tuple(k for k, a in enumerate(case.args) if isinstance(a, int))
    jitted = jax.jit(fn, static_argnums=static)

    def run(*args: Any) -> Any:
        try:
            return jitted(*args)
        except (jax.errors.JAXTypeError, jax.errors.NonConcreteBooleanIndexError):
            return fn(*args)  # `if`, `while` or a mask index on a traced value: run eagerly

    return run


def _layout_copy(a: Any) -> Any:
    """A copy of `a` with the same strides: a view of a fresh copy of the buffer it views."""
    if not isinstance(a, np.ndarray):
        return a
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is a or not root.flags.c_contiguous:
        return a.copy(order="K")
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    buf = root.copy()
    return np.ndarray(a.shape, a.dtype, buffer=buf, offset=offset, strides=a.strides)


def _copies(args: tuple) -> list:
    return [_layout_copy(a) for a in args]


def _kind(case: Case) -> str:
    """'scalar', 'array' (an array or a tuple holding one) or 'writer' (returns None)."""
    out = case.f(*_copies(case.args))
    if out is None:
        return "writer"
    if isinstance(out, tuple) or np.ndim(out) > 0:
        return "array"
    return "scalar"


_KINDS = {id(c): _kind(c) for c in CASES}


def _of(kind: str, *more: str) -> list[Case]:
    return [c for c in CASES if _KINDS[id(c)] in (kind, *more)]


def _params(cases: list[Case], check: str) -> list:
    seen: dict[str, int] = {}
    out = []
    for c in cases:
        n = seen.get(c.id, 0)
        seen[c.id] = n + 1
        reason = c.xfail_for(check)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(c, id=c.id if n == 0 else f"{c.id}-{n}", marks=marks))
    return out


def _nums(case: Case) -> tuple[int, ...]:
    nums = (case.argnums,) if isinstance(case.argnums, int) else tuple(case.argnums)
    return tuple(k % len(case.args) for k in nums)


def _is_float(a: Any) -> bool:
    return isinstance(a, float) or isinstance(a, np.ndarray) and a.dtype.kind == "f"


def _to_jax(a: Any) -> Any:
    return jnp.asarray(a) if isinstance(a, np.ndarray) else a


def _items(x: Any) -> tuple:
    return tuple(x) if isinstance(x, tuple | list) else (x,)


def _leaves(x: Any) -> list[np.ndarray]:
    return [np.asarray(v, dtype=np.float64) for v in _items(x)]


def _assert_same(ours: Any, ref: Any, rtol: float, what: str) -> None:
    if isinstance(ref, tuple) != isinstance(ours, tuple | list) or (
            isinstance(ref, tuple) and len(ref) != len(ours)):
        raise AssertionError(f"{what}: structure differs: ours {ours!r}, reference {ref!r}")
    for k, (a, b) in enumerate(zip(_leaves(ours), _leaves(ref), strict=True)):
        assert a.shape == b.shape, f"{what}[{k}]: shape {a.shape} vs {b.shape}"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12, err_msg=f"{what}[{k}]")


def _tangents(case: Case) -> list:
    """A random tangent for every float argument (in its dtype), 0 for the others."""
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    out: list = []
    for a in case.args:
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            out.append(rng.uniform(-1.0, 1.0, a.shape).astype(a.dtype))
        elif isinstance(a, float):
            out.append(float(rng.uniform(-1.0, 1.0)))
        else:
            out.append(0)
    return out


def _jax_of_floats(fn: Callable, args: list, floats: list[int]) -> Callable:
    """`fn` as a function of the arguments at `floats` only, the others fixed."""

    def run(*vals: Any) -> Any:
        full = list(args)
        for i, v in zip(floats, vals, strict=True):
            full[i] = v
        return fn(*full)

    return run


# --- the checks (bodies kept apart so that one can run alone) --------------------------------


def check_value(case: Case) -> None:
    mine, py = _copies(case.args), _copies(case.args)
    ours = enzyme_py.jit(case.f)(*mine)
    expected = case.f(*py)
    if expected is None:
        assert ours is None, f"{case.id}: returns None in NumPy, {ours!r} here"
    else:
        _assert_same(ours, expected, case.value_rtol, f"{case.id}: result")
        for k, (a, b) in enumerate(zip(_items(ours), _items(expected), strict=True)):
            if isinstance(b, np.ndarray):
                assert isinstance(a, np.ndarray) and a.dtype == b.dtype, \
                    f"{case.id}: result[{k}] is {a!r}, NumPy gives dtype {b.dtype}"
    for k, (m, p) in enumerate(zip(mine, py, strict=True)):
        if isinstance(p, np.ndarray):
            np.testing.assert_allclose(m, p, rtol=case.value_rtol, atol=1e-12,
                                       err_msg=f"{case.id}: argument {k} after the call")


def check_reverse(case: Case) -> None:
    ours = check_grad(case.f, *case.args, argnums=case.argnums, reference=jax_version(case),
                      rtol=case.rtol, fd=case.fd)
    strided = [k for k, a in enumerate(case.args)
               if isinstance(a, np.ndarray) and not a.flags.c_contiguous]
    if strided:  # check_grad copies its arguments contiguous; here they keep their layout
        at_layout = enzyme_py.grad(case.f, argnums=case.argnums)(*_copies(case.args))
        _assert_same(at_layout, ours, max(case.rtol, 1e-10),
                     f"{case.id}: gradient at the arguments' own layout {strided}")


def check_writer_reverse(case: Case) -> None:
    """Duplicated shadows hold the cotangent of each array's final contents on entry and the
    gradient with respect to its initial contents on return: `jax.vjp` of the final arrays."""
    args = case.args
    rng = np.random.default_rng(zlib.crc32(case.id.encode()) + 1)
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    seeds = {i: rng.uniform(-1.0, 1.0, args[i].shape) for i in arrays}
    marked = [Duplicated(a.copy(), seeds[i].copy()) if isinstance(a, np.ndarray) else
              Active(a) if isinstance(a, float) else Const(a) for i, a in enumerate(args)]
    adjoints = autodiff(case.f, *marked)
    adjoints = list(adjoints) if isinstance(adjoints, tuple | list) else [adjoints]
    floats = [i for i, a in enumerate(args) if _is_float(a)]
    with jax.enable_x64(True):
        jargs = [_to_jax(a) for a in args]
        run = _jax_of_floats(jax_version(case), jargs, floats)
        _, pullback = jax.vjp(run, *[jargs[i] for i in floats])
        cts = pullback(tuple(jnp.asarray(seeds[i]) for i in arrays))
    scalars = []
    for i, ct in zip(floats, cts, strict=True):
        if i in seeds:
            np.testing.assert_allclose(marked[i].dval, np.asarray(ct), rtol=1e-10, atol=1e-12,
                                       err_msg=f"{case.id}: shadow of argument {i}")
        else:
            scalars.append(float(ct))
    np.testing.assert_allclose(adjoints, scalars, rtol=1e-10, atol=1e-12,
                               err_msg=f"{case.id}: adjoints of the float arguments")


def check_forward(case: Case) -> None:
    tangents = _tangents(case)
    value, slope = enzyme_py.jvp(case.f, _copies(case.args), tangents)
    floats = [i for i, a in enumerate(case.args) if _is_float(a)]
    with jax.enable_x64(True):
        jargs = [_to_jax(a) for a in case.args]
        run = _jax_of_floats(jax_version(case), jargs, floats)
        ref_value, ref_slope = jax.jvp(run, tuple(jargs[i] for i in floats),
                                       tuple(_to_jax(tangents[i]) for i in floats))
    rtol = max(case.rtol, 1e-9)
    if _KINDS[id(case)] == "writer":  # one entry per array argument; None for integer arrays
        value = tuple(v for v in value)
        slope = tuple(s for s in slope if s is not None)
    _assert_same(value, ref_value, rtol, f"{case.id}: jvp value")
    _assert_same(slope, ref_slope, rtol, f"{case.id}: jvp tangent")


def _check_jacobian(case: Case, ours_of: Callable, jax_of: Callable) -> None:
    argnum = _nums(case)[0]
    ours = ours_of(case.f, argnum)(*_copies(case.args))
    with jax.enable_x64(True):
        ref = jax_of(jax_version(case), argnums=argnum)(*[_to_jax(a) for a in case.args])
    _assert_same(ours, ref, max(case.rtol, 1e-9), f"{case.id}: Jacobian in argument {argnum}")


def check_jacrev(case: Case) -> None:
    _check_jacobian(case, enzyme_py.jacrev, jax.jacrev)


def check_jacfwd(case: Case) -> None:
    _check_jacobian(case, enzyme_py.jacfwd, jax.jacfwd)


CHECKS: dict[str, Callable[[Case], None]] = {
    "value": check_value, "grad": check_reverse, "writer_grad": check_writer_reverse,
    "jvp": check_forward, "jacrev": check_jacrev, "jacfwd": check_jacfwd,
}


# --- the tests --------------------------------------------------------------------------------


def test_numpy_corpus_size() -> None:
    names = {c.f.__name__ for c in CASES}
    assert len(names) >= 120, len(names)


def test_corpus_passes_non_contiguous_arguments() -> None:
    arrays = [a for c in CASES for a in c.args if isinstance(a, np.ndarray)]
    assert any(a.flags.f_contiguous and not a.flags.c_contiguous and a.base is None
               for a in arrays), "a Fortran-order array"
    assert any(a.ndim == 1 and a.strides[0] < 0 for a in arrays), "a reversed view"
    assert any(a.ndim == 2 and not a.flags.c_contiguous and not a.flags.f_contiguous
               for a in arrays), "a strided 2-D view"
    assert any(a.ndim == 2 and a.flags.f_contiguous and a.base is not None
               for a in arrays), "a transpose"


def test_layout_copy_keeps_strides() -> None:
    base = np.arange(24.0).reshape(4, 6)
    for a in (base[:, ::2], base.T, base[::-1, 1], np.asfortranarray(base), base[1]):
        c = _layout_copy(a)
        assert c.strides == a.strides and np.array_equal(c, a)
        assert not np.shares_memory(c, a)


def test_jit_raises_index_error() -> None:
    with pytest.raises(IndexError, match="out of bounds"):
        enzyme_py.jit(row_index)(mat(3, 4), 2)  # reads X[3]


def test_jvp_raises_index_error() -> None:
    X = mat(3, 4)
    with pytest.raises(IndexError, match="out of bounds"):
        enzyme_py.jvp(row_index, (X, 2), (np.ones_like(X), 0))


@pytest.mark.parametrize("case", _params(CASES, "value"))
def test_value(case: Case) -> None:
    check_value(case)


@pytest.mark.parametrize("case", _params(_of("scalar"), "grad"))
def test_grad(case: Case) -> None:
    check_reverse(case)


@pytest.mark.parametrize("case", _params(_of("writer"), "grad"))
def test_writer_autodiff(case: Case) -> None:
    check_writer_reverse(case)


@pytest.mark.parametrize("case", _params(CASES, "jvp"))
def test_jvp(case: Case) -> None:
    check_forward(case)


@pytest.mark.parametrize("case", _params(_of("array"), "jacrev"))
def test_jacrev(case: Case) -> None:
    check_jacrev(case)


@pytest.mark.parametrize("case", _params(_of("array"), "jacfwd"))
def test_jacfwd(case: Case) -> None:
    check_jacfwd(case)
