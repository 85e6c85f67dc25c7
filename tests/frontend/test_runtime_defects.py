"""Regression tests for runtime defects found by fuzzing (the correctness issue's list):
large local arrays live on the heap, ndarray subclasses get their own specialization, and
forward mode raises the bounds-check record like jit and grad do."""

from __future__ import annotations

import numpy as np
import pytest

import enzyme_py as ez


def big_local(x):
    t = np.zeros(1_100_000)  # 8.8 MB: larger than a thread's C stack
    t[0] = x
    t[1_099_999] = 2.0 * x
    return t[0] + t[1_099_999] + np.sum(t)


def test_local_array_larger_than_the_stack():
    assert ez.jit(big_local)(1.5) == pytest.approx(9.0)
    assert ez.grad(big_local)(1.5) == pytest.approx(6.0)


def read_first(a):
    return a[0] * 1.0


class Tagged(np.ndarray):
    pass


def test_subclasses_are_keyed_by_dtype_and_rank(tmp_path):
    ints = np.memmap(tmp_path / "i.bin", dtype=np.int64, mode="w+", shape=(3,))
    ints[:] = [7, 8, 9]
    floats = np.array([2.5, 3.0]).view(Tagged)
    f = ez.jit(read_first)
    assert f(ints) == 7.0
    assert f(floats) == 2.5  # not int64 bits read as float64
    assert f(np.array([[4.0]])[0]) == 4.0


def pick(x, i):
    return x[i] * x[i]


@pytest.mark.parametrize("call", [
    lambda x: ez.jvp(pick, (x, 10), (np.ones_like(x), 0)),
    lambda x: ez.hvp(pick, (x, 10), (np.ones_like(x), 0)),
    lambda x: ez.hessian(pick)(x, 10),
    lambda x: ez.jacfwd(pick)(x, 10),
])
def test_forward_mode_raises_index_error(call):
    with pytest.raises(IndexError, match="index 10 is out of bounds"):
        call(np.arange(3.0))


def write_first(x, v):
    x[0] = v
    return x[1] * v


def read_at(x, i):
    return x[i] * 2.0


def _read_only(values):
    a = np.array(values, dtype=np.float64)
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("make", [lambda: _read_only([1.0, 2.0, 3.0]),
                                  lambda: np.frombuffer(np.array([1.0, 2.0]).tobytes())],
                         ids=["setflags", "frombuffer"])
@pytest.mark.parametrize("entry", ["jit", "grad"])
def test_writing_a_read_only_array_is_refused(make, entry):
    x = make()
    before = x.copy()
    fn = ez.jit(write_first) if entry == "jit" else ez.grad(write_first, argnums=1)
    with pytest.raises(ValueError, match="read-only"):
        fn(x, 5.0)
    np.testing.assert_array_equal(x, before)  # untouched (bytes stay immutable)


def test_reading_a_read_only_array_is_fine():
    x = _read_only([1.0, 2.0, 3.0])
    assert ez.jit(read_at)(x, 2) == 6.0
    np.testing.assert_array_equal(ez.grad(read_at)(x, 1), [0.0, 2.0, 0.0])
    # the writable array of the same dtype and rank has its own specialization
    y = np.array([1.0, 2.0, 3.0])
    assert ez.jit(write_first)(y, 4.0) == 8.0 and y[0] == 4.0


@pytest.mark.parametrize("index", [2**64 + 1, 2**63, -2**63 - 1, 10**30])
def test_python_ints_beyond_int64_overflow(index):
    x = np.arange(3.0)
    with pytest.raises(OverflowError, match="64-bit"):
        ez.jit(read_at)(x, index)
    with pytest.raises(OverflowError, match="64-bit"):
        ez.grad(read_at)(x, index)
    assert ez.jit(read_at)(x, 2**63 - 1 - (2**63 - 1) + 1) == 2.0  # in range still works


def test_active_of_an_array_is_a_type_error():
    x = np.arange(3.0)
    with pytest.raises(TypeError, match="Duplicated"):
        ez.autodiff(read_at, ez.Active(x), ez.Const(1))


_DEEP = '''
import enzyme_py as ez

def rdeep(t, n):
    if n == 0:
        return t
    return rdeep(t * 1.0000001, n - 1) + 0.0

def even(n):
    if n == 0:
        return 1
    return odd(n - 1)

def odd(n):
    if n == 0:
        return 0
    return even(n - 1)

for call in (lambda: ez.jit(rdeep)(1.0, 1_000_000), lambda: ez.grad(rdeep)(1.0, 1_000_000),
             lambda: ez.jit(even)(10_000_000)):
    try:
        call()
    except RecursionError as err:
        assert "maximum recursion depth exceeded in compiled code" in str(err), err
        assert "def " in str(err), err  # names the function's line
    else:
        raise AssertionError("no RecursionError")
# the depth counts went back to zero: moderate recursion still runs, gradients stay exact
assert abs(ez.jit(rdeep)(1.0, 900) - 1.0000001 ** 900) < 1e-12
assert abs(ez.grad(rdeep)(1.0, 900) - 1.0000001 ** 900) < 1e-9
assert ez.jit(even)(900) == 1 and ez.jit(odd)(901) == 1
print("ok")
'''


def test_deep_recursion_raises_recursion_error_not_a_crash(tmp_path):
    """Run in a child process: a regression would overflow the C stack (SIGSEGV)."""
    import subprocess
    import sys

    script = tmp_path / "deep.py"
    script.write_text(_DEEP)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"


def _made(a):
    return a * 2.0  # (the caller's variable owns this block)


def returns_its_transpose(a):
    v = _made(a)
    return v.T


def returns_a_column(a):
    v = _made(a)
    return v[:, 0]


def returns_every_other_column(a):
    v = _made(a)
    return v[:, ::2]


def returns_a_prefix(a):
    v = _made(a)
    return v[:2]


def returns_views_in_a_tuple(a):
    v = _made(a)
    return v.T, v[:, 1], v


@pytest.mark.parametrize("f", [returns_its_transpose, returns_a_column,
                               returns_every_other_column, returns_a_prefix,
                               returns_views_in_a_tuple], ids=lambda f: f.__name__)
def test_a_returned_view_of_an_owned_block_keeps_its_order(f):
    # (a view starting where the block does was handed over as the block, C-ordered:
    # `v.T` came back untransposed and `v[:, 0]` as the first row)
    a = np.arange(15.0).reshape(5, 3)
    got, want = ez.jit(f)(a), f(a)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,), strict=True):
        np.testing.assert_array_equal(g, w)


def sum_twice_after_a_product(x):
    """NumPy fuzz seed 8366, shrunk: in float32, LLVM turns the zeroing of the 2-float
    accumulator of `np.sum(x, axis=0)` into one `store i64 0`, which both modes ignored (not
    a float store): the reverse sweep kept the adjoint of the first trip's sum in the second
    (every element 4.0 too large), forward mode its tangent."""
    acc = x.reshape(2, -1) @ x[..., 1] + x
    for _ in range(2):
        acc = acc + np.sum(x, axis=0)
    return np.sum(acc)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_an_integer_zero_stored_over_floats_clears_their_shadow(dtype):
    x = np.random.default_rng(1).uniform(-1.0, 1.0, (4, 2))
    v = np.random.default_rng(2).uniform(-1.0, 1.0, (4, 2))
    # f = 4 sum(A @ b) + sum(x) + 2 * 4 sum(x), A = x.reshape(2, 4), b = x[:, 1]: the
    # product is broadcast over x's 4 rows, each trip adds the column sums to 4 rows
    a, b = x.reshape(2, -1), x[:, 1]
    want = np.full((4, 2), 9.0)
    want.reshape(2, -1)[...] += 4.0 * b[None, :]  # d/dA[k, m] = 4 b[m]
    want[:, 1] += 4.0 * a.sum(axis=0)  # d/db[m] = 4 sum_k A[k, m]
    got = ez.grad(sum_twice_after_a_product)(x.astype(dtype))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    _, slope = ez.jvp(sum_twice_after_a_product, (x.astype(dtype),), (v.astype(dtype),))
    assert slope == pytest.approx(float(np.sum(want * v)), rel=tol, abs=tol)
