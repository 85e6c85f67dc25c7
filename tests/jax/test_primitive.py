"""`enzyme_py.jax.primitive`: values, jit, dtypes, several results, lowering, errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
import enzyme_py.jax as ezjax
from enzyme_py.errors import ArgumentValueError, CallError


def energy(x, k):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += k * (x[i + 1] - x[i]) ** 2
    return s


def energy_jnp(x, k):
    return jnp.sum(k * (x[1:] - x[:-1]) ** 2)


def layer(W, x, n):
    y = np.tanh(W @ x)
    return y * 2.0, np.sum(y) + n, n + 1


def layer_jnp(W, x, n):
    y = jnp.tanh(W @ x)
    return y * 2.0, jnp.sum(y) + n, n + 1


def pick(x, i):
    return x[i] * 2.0


def repeat(x, n):
    return np.zeros(n) + x[0]


def by_value(x):
    return np.zeros(int(x[0]))


def writes(x):
    x[0] = 1.0
    return x[1]


def nothing(x):
    np.sum(x)


E = ezjax.primitive(energy)
L = ezjax.primitive(layer)
X = np.array([0.5, -1.0, 2.0, 0.25])  # numpy: float64 whatever JAX's default is
W = np.arange(12.0).reshape(3, 4) / 10


def test_value_eager_and_under_jit():
    assert float(E(X, 3.0)) == pytest.approx(float(energy_jnp(X, 3.0)))
    assert float(jax.jit(E)(X, 3.0)) == pytest.approx(energy(np.asarray(X), 3.0))
    assert E(X, 3.0).dtype == jnp.float64 and E(X, 3.0).shape == ()


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_array_and_several_results(dtype):
    w, x = W.astype(dtype), X.astype(dtype)
    got = jax.jit(lambda w, x: L(w, x, 3))(w, x)
    want = layer_jnp(w, x, 3)
    assert [g.dtype for g in got] == [dtype, dtype, jnp.int64]
    assert got[0].shape == (3,) and got[1].shape == ()
    tol = 1e-6 if dtype == jnp.float32 else 1e-12
    np.testing.assert_allclose(got[0], want[0], rtol=tol)
    np.testing.assert_allclose(got[1], want[1], rtol=tol)
    assert int(got[2]) == 4


def test_composes_with_jnp_code():
    def loss(w, x):
        y, s, _ = L(jnp.sin(w), x * 2.0, 1)
        return jnp.sum(y ** 2) + jnp.cos(s)

    def loss_jnp(w, x):
        y, s, _ = layer_jnp(jnp.sin(w), x * 2.0, 1)
        return jnp.sum(y ** 2) + jnp.cos(s)

    np.testing.assert_allclose(jax.jit(loss)(W, X), loss_jnp(W, X), rtol=1e-12)
    np.testing.assert_allclose(jax.jit(jax.grad(loss))(W, X), jax.grad(loss_jnp)(W, X),
                               rtol=1e-10)


def test_python_ints_are_static_and_decide_shapes():
    rep = ezjax.primitive(repeat)
    assert jax.jit(lambda x: rep(x, 5))(X).shape == (5,)
    with pytest.raises(ArgumentValueError, match="integer operand traced by JAX"):
        jax.jit(rep)(X, 5)
    with pytest.raises(ArgumentValueError, match="values of array elements or floats"):
        ezjax.primitive(by_value)(jnp.array([3.0, 1.0]))


def test_lowered_text_is_one_custom_call_and_no_callback():
    text = jax.jit(lambda w, x: L(w, x, 3)).lower(W, X).as_text()
    assert text.count("stablehlo.custom_call @enzyme_py_") == 1
    assert "callback" not in text
    grad_text = jax.jit(jax.grad(E)).lower(X, 2.0).as_text()
    # one call, the reverse pass: the primal, whose value grad drops, is dead code
    assert grad_text.count("custom_call @enzyme_py_") == 1
    assert "callback" not in grad_text


def test_wrong_dtype_is_a_clear_error():
    with pytest.raises(CallError, match=r"operand 0 is float16\[4\]; supported: float64"):
        E(X.astype(jnp.float16), 1.0)
    with pytest.raises(CallError, match="operand 0 is bool"):
        E(X > 0, 1.0)


def test_out_of_bounds_names_the_source_line():
    P = ezjax.primitive(pick)
    assert float(jax.jit(P)(X, jnp.asarray(2))) == 4.0
    with pytest.raises(Exception, match=r"IndexError: index 7 is out of bounds for axis 0 "
                                        r"with size 4\n  at .*test_primitive.py:\d+: "
                                        r"return x\[i\] \* 2.0") as info:
        jax.jit(P)(X, jnp.asarray(7)).block_until_ready()
    assert "OUT_OF_RANGE" in str(info.value)
    # the record holds the wrapped index, as `ez.jit` reports it
    with pytest.raises(Exception, match="index -5 is out of bounds"):
        jax.jit(jax.grad(P))(X, jnp.asarray(-9)).block_until_ready()
    assert float(jax.jit(P)(X, jnp.asarray(1))) == -2.0  # the record was cleared


def test_written_arguments_come_back_and_returning_nothing_is_refused():
    value, new_x = jax.jit(ezjax.primitive(writes))(X)
    assert float(value) == X[1]
    np.testing.assert_array_equal(new_x, [1.0, *X[1:]])
    with pytest.raises(CallError, match="returns nothing and writes no argument"):
        ezjax.primitive(nothing)(X)


def test_equals_ez_jit_for_the_same_arguments():
    w, x = np.asarray(W), np.asarray(X)
    got = jax.jit(lambda w, x: L(w, x, 2))(W, X)
    want = ez.jit(layer)(w, x, 2)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-14)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-14)


def test_name_and_unchecked_build():
    P = ezjax.primitive(pick, bounds_check=False, name="pick_fast")
    assert "pick_fast" in repr(P)
    assert float(jax.jit(P)(X, jnp.asarray(3))) == 0.5


def test_importing_without_jax_says_how_to_install():
    import subprocess
    import sys

    code = ("import sys; sys.modules['jax'] = None\n"
            "try:\n    import enzyme_py.jax\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "pip install 'jax[cpu]'" in out
