"""The API against JAX's on the same calls: `argnums` (an int or a tuple) and `has_aux` for
grad, value_and_grad, vjp, jvp, linearize, jacfwd, jacrev, hessian and hvp; the signatures
take JAX's keywords with JAX's defaults. (Pytree arguments: `test_pytrees.py`.)"""

import inspect

import jax
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.testing import numpy_as_jax

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(7)
X = RNG.random(4)
Y = RNG.random(4)


def energy(x, y, s):
    return np.sum(np.sin(x) * y) * s + x[0] * y[1] * s * s


def layer(x, y):
    return np.tanh(x * y), np.sum(x)


def with_aux(x, y):
    z = np.sin(x) * y
    return np.sum(z * z), z


def with_scalar_aux(a, b):
    return a * a * b, a + b


def with_int_aux(x, n):
    return np.sum(x * x) * n, n + 1


def _same(a, b, rtol=1e-10, atol=1e-12):
    """Same pytree structure (as JAX sees it) and close leaves."""
    ta, tb = jax.tree_util.tree_structure(a), jax.tree_util.tree_structure(b)
    assert ta == tb, (ta, tb)
    for p, q in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True):
        assert np.shape(p) == np.shape(q)
        np.testing.assert_allclose(np.asarray(p, dtype=float), np.asarray(q, dtype=float),
                                   rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["grad", "value_and_grad", "jacfwd", "jacrev", "hessian"])
def test_signature_takes_jax_keywords_with_jax_defaults(name):
    ours = inspect.signature(getattr(ez, name)).parameters
    theirs = inspect.signature(getattr(jax, name)).parameters
    for kw in ("argnums", "has_aux"):
        assert kw in ours, f"ez.{name} lacks {kw}"
        assert ours[kw].default == theirs[kw].default


@pytest.mark.parametrize("name", ["vjp", "jvp", "linearize"])
def test_signature_has_aux(name):
    ours = inspect.signature(getattr(ez, name)).parameters
    theirs = inspect.signature(getattr(jax, name)).parameters
    assert ours["has_aux"].default == theirs["has_aux"].default is False


@pytest.mark.parametrize("argnums", [0, 1, 2, -1, (0,), (0, 2), (2, 0, 1)])
@pytest.mark.parametrize("which", ["grad", "value_and_grad"])
def test_grad_argnums(which, argnums):
    ours = getattr(ez, which)(energy, argnums=argnums)(X, Y, 1.5)
    theirs = getattr(jax, which)(numpy_as_jax(energy), argnums=argnums)(X, Y, 1.5)
    _same(ours, theirs)


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0)])
@pytest.mark.parametrize("which", ["jacfwd", "jacrev"])
def test_jacobian_argnums_scalar_result(which, argnums):
    ours = getattr(ez, which)(energy, argnums=argnums)(X, Y, 1.5)
    theirs = getattr(jax, which)(numpy_as_jax(energy), argnums=argnums)(X, Y, 1.5)
    _same(ours, theirs)


@pytest.mark.parametrize("argnums", [0, (0, 1), (1,)])
@pytest.mark.parametrize("which", ["jacfwd", "jacrev"])
def test_jacobian_argnums_tuple_result(which, argnums):
    """A tuple result: its structure outside, the arguments' inside."""
    ours = getattr(ez, which)(layer, argnums=argnums)(X, Y)
    theirs = getattr(jax, which)(numpy_as_jax(layer), argnums=argnums)(X, Y)
    _same(ours, theirs)


@pytest.mark.parametrize("argnums", [0, 2, (0, 1), (0, 2), (2, 1, 0)])
def test_hessian_argnums(argnums):
    ours = ez.hessian(energy, argnums=argnums)(X, Y, 1.5)
    theirs = jax.hessian(numpy_as_jax(energy), argnums=argnums)(X, Y, 1.5)
    _same(ours, theirs, rtol=1e-9)


def test_hessian_of_float_argument_is_a_float():
    h = ez.hessian(energy, argnums=2)(X, Y, 1.5)
    assert isinstance(h, float)
    assert h == pytest.approx(float(jax.hessian(numpy_as_jax(energy), argnums=2)(X, Y, 1.5)))


def test_hessian_of_integer_argument_is_a_type_error():
    with pytest.raises(TypeError, match="only float arguments"):
        ez.hessian(with_int_aux, 1)(X, 3)


@pytest.mark.parametrize("argnums", [0, (0, 2), (1,)])
def test_hvp_argnums(argnums):
    nums = (argnums,) if isinstance(argnums, int) else argnums
    args = (X, Y, 1.5)
    tangents = tuple(np.ones_like(args[i]) if isinstance(args[i], np.ndarray) else 0.5
                     for i in nums)
    ours = ez.hvp(energy, args, tangents if not isinstance(argnums, int) else tangents,
                  argnums=argnums)
    full = [np.zeros_like(a) if isinstance(a, np.ndarray) else 0.0 for a in args]
    for i, t in zip(nums, tangents, strict=True):
        full[i] = t
    theirs = jax.jvp(jax.grad(numpy_as_jax(energy), argnums=argnums), args, tuple(full))[1]
    _same(ours, theirs)


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_grad_has_aux_with_array_aux(argnums):
    ours = ez.grad(with_aux, argnums=argnums, has_aux=True)(X, Y)
    theirs = jax.grad(numpy_as_jax(with_aux), argnums=argnums, has_aux=True)(X, Y)
    _same(ours, theirs)


def test_value_and_grad_has_aux_scalar_aux():
    ours = ez.value_and_grad(with_scalar_aux, argnums=(0, 1), has_aux=True)(2.0, 3.0)
    theirs = jax.value_and_grad(with_scalar_aux, argnums=(0, 1), has_aux=True)(2.0, 3.0)
    _same(ours, theirs)
    (value, aux), _ = ours
    assert isinstance(value, float) and isinstance(aux, float)


def test_grad_has_aux_integer_aux_is_returned_as_an_int():
    grads, aux = ez.grad(with_int_aux, has_aux=True)(X, 3)
    np.testing.assert_allclose(grads, 6 * X)
    assert aux == 4 and isinstance(aux, int)


def test_has_aux_needs_a_pair():
    with pytest.raises(TypeError, match="pair"):
        ez.grad(energy, has_aux=True)(X, Y, 1.0)


def test_vjp_has_aux():
    y, pull, aux = ez.vjp(with_aux, X, Y, has_aux=True)
    ty, tpull, taux = jax.vjp(numpy_as_jax(with_aux), X, Y, has_aux=True)
    _same((y, aux), (ty, taux))
    _same(pull(0.7), tpull(0.7))


def test_vjp_cotangent_of_wrong_structure_is_a_value_error():
    _, pull, _ = ez.vjp(with_aux, X, Y, has_aux=True)
    with pytest.raises(ValueError, match="structure"):
        pull((1.0, 2.0))


@pytest.mark.parametrize("which", ["jacfwd", "jacrev"])
def test_jacobian_has_aux(which):
    ours = getattr(ez, which)(with_aux, argnums=(0, 1), has_aux=True)(X, Y)
    theirs = getattr(jax, which)(numpy_as_jax(with_aux), argnums=(0, 1), has_aux=True)(X, Y)
    _same(ours, theirs)


def test_jvp_has_aux_and_tuple_results():
    ours = ez.jvp(with_aux, (X, Y), (Y, X), has_aux=True)
    theirs = jax.jvp(numpy_as_jax(with_aux), (X, Y), (Y, X), has_aux=True)
    _same(ours, theirs)
    _same(ez.jvp(layer, (X, Y), (Y, X)), jax.jvp(numpy_as_jax(layer), (X, Y), (Y, X)))


def test_linearize():
    value, f_jvp = ez.linearize(energy, X, Y, 1.5)
    tvalue, tf_jvp = jax.linearize(numpy_as_jax(energy), X, Y, 1.5)
    _same(value, tvalue)
    for t in [(Y, X, 0.0), (X, X, 1.0)]:
        _same(f_jvp(*t), tf_jvp(*t))


def test_linearize_has_aux():
    value, f_jvp, aux = ez.linearize(with_aux, X, Y, has_aux=True)
    tvalue, tf_jvp, taux = jax.linearize(numpy_as_jax(with_aux), X, Y, has_aux=True)
    _same((value, aux), (tvalue, taux))
    _same(f_jvp(Y, X), tf_jvp(Y, X))


def test_argnums_out_of_range_is_a_value_error():
    for fn in (ez.jacfwd, ez.jacrev, ez.hessian):
        with pytest.raises(ValueError):
            fn(energy, argnums=(0, 5))(X, Y, 1.0)


@pytest.mark.parametrize("ct", [(1.0,), (1.0, 2.0, 3.0), "x", np.ones(2), 1.0])
def test_vjp_cotangent_of_a_tuple_of_numbers_is_checked(ct):
    _, pull = ez.vjp(with_scalar_aux, 2.0, 3.0)
    with pytest.raises(ValueError, match="cotangent"):
        pull(ct)


def test_vjp_cotangent_of_a_number_is_checked():
    _, pull = ez.vjp(energy, X, Y, 1.5)
    with pytest.raises(ValueError, match="cotangent"):
        pull(np.ones(3))
    _same(pull(np.float64(2.0)), jax.vjp(numpy_as_jax(energy), X, Y, 1.5)[1](2.0))
