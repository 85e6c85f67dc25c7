"""Float data that LLVM's -O2 moves as integers wider than one element (two float32 as one
i64): where the memory read holds only float32, the copy is retyped as `<2 x float>`
(`ad/float_memory.py`) and differentiates; where nothing tells the float type, such a copy
of shadowed memory is a `DifferentiationError` wherever the bits go. Into memory without a
shadow (the copy is why that memory looks inactive) it used to be a silent zero gradient.
Found by the NumPy fuzzer (`tests/fuzz`); float64, where the rewrite to float loads applies,
differentiates."""

from __future__ import annotations

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.analysis.errors import DifferentiationError


def copy_then_concatenate(w):
    a = w * w[1]  # noqa: F841 (unused; its checked read puts the copy below in a block of its own)
    z = w.copy()
    v = np.concatenate([z[None, :2], z[None, :]])
    return np.sum(v)  # == 2 (w[0] + w[1])


def concatenate_row_part(x):
    v1 = np.einsum("ij,ij->i", np.zeros((3, 3), dtype=x.dtype), x[:3])
    return np.mean(np.concatenate([x[2, :-1], v1[3:1]]))  # (v1[3:1] is empty)


def test_float32_pairs_copied_as_one_integer_are_an_error_not_a_zero() -> None:
    w = np.array([0.5, 1.0], dtype=np.float32)
    assert ez.jit(copy_then_concatenate)(w) == pytest.approx(3.0)
    with pytest.raises(DifferentiationError, match="copied as integers"):
        ez.grad(copy_then_concatenate)(w)
    with pytest.raises(DifferentiationError, match="copied as integers"):
        ez.jvp(copy_then_concatenate, (w,), (np.ones_like(w),))



def test_float32_pairs_read_from_float32_memory_are_retyped() -> None:
    """Where the memory read is only ever accessed as float32, the i64 load of two elements
    becomes a `<2 x float>` load (`ad/float_memory.py`), and the gradient is exact."""
    x = np.random.default_rng(5).uniform(-1, 1, (4, 3)).astype(np.float32)
    want = np.zeros((4, 3), dtype=np.float32)
    want[2, :2] = 0.5
    np.testing.assert_array_equal(ez.grad(concatenate_row_part)(x), want)


def test_the_same_code_in_float64_differentiates() -> None:
    w = np.array([0.5, 1.0])
    np.testing.assert_allclose(ez.grad(copy_then_concatenate)(w), [2.0, 2.0], rtol=1e-15)
    x = np.random.default_rng(5).uniform(-1, 1, (4, 3))
    want = np.zeros((4, 3))
    want[2, :2] = 0.5
    np.testing.assert_allclose(ez.grad(concatenate_row_part)(x), want, rtol=1e-15)
