"""The matrix kernel `@enzyme_py.gemm.<t>` (rules/matrix_kernel.py), compiled on its own:
C += A @ B with each element summed over k in order (the bits of the plain loop nest), for
any strides (negative, zero, transposed), both float types, empty extents, depths past one
block (KC) and widths past one column block (NC)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from enzyme_py.backend.native import compile_ir
from enzyme_py.ir import Module
from enzyme_py.rules.matrix_kernel import KC, NC, kernel_name, matrix_kernel

_ARGS = ", ".join(["i64 %q, i64 %m, i64 %n, i64 %k"] +
                  [f"ptr %{x}, i64 %{x}.bs, i64 %{x}.rs, i64 %{x}.cs" for x in "abc"])




@pytest.fixture(scope="module")
def kernels():
    module = Module("kernel test")
    text = []
    for elem in ("double", "float"):
        fn = matrix_kernel(module, elem)
        text.append(f"define void @call.{elem}({_ARGS}) {{\n  call void @{fn.name}({_ARGS})"
                    "\n  ret void\n}")
    jm = compile_ir(str(module) + "\n" + "\n".join(text))
    i64, ptr = ctypes.c_int64, ctypes.c_void_p
    proto = ctypes.CFUNCTYPE(None, i64, i64, i64, i64, *[ptr, i64, i64, i64] * 3)
    return jm, {np.float64: proto(jm.address("call.double")),
                np.float32: proto(jm.address("call.float"))}


def _call(kernels, a, b, c):
    """c += a @ b through the kernel, for stacks (3-D: one matrix per index of the first
    axis, all given) or matrices (a batch of one), each operand with its own strides."""
    _, fns = kernels
    size = a.itemsize
    if c.ndim == 2:
        a, b, c = a[None], b[None], c[None]
    fns[a.dtype.type](c.shape[0], c.shape[1], c.shape[2], a.shape[2],
                      *(x for v in (a, b, c) for x in (v.ctypes.data, v.strides[0] // size,
                                                        v.strides[1] // size,
                                                        v.strides[2] // size)))


def _in_order(a, b, c):
    """The loop nest's sums: c + a[:, 0] b[0] + a[:, 1] b[1] + ..., one product at a time."""
    out = c.copy()
    for p in range(a.shape[1]):
        out = out + (a[:, p, None] * b[None, p, :]).astype(c.dtype)
    return out


def _layouts(rng, shape, dtype):
    """The same values as a C-order array, a Fortran-order one, a strided view, a view with
    negative strides, and (for one row) a row broadcast with stride 0."""
    x = rng.standard_normal(shape).astype(dtype)
    yield x
    yield np.asfortranarray(x)
    big = np.zeros((shape[0] * 2 + 1, shape[1] * 3 + 1), dtype)
    view = big[1::2, 2::3][:shape[0], :shape[1]]
    view[...] = x
    yield view
    yield np.ascontiguousarray(x[::-1, ::-1])[::-1, ::-1]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 5, 3), (4, 8, 8), (9, 17, 2), (13, 3, 21),
                                   (5, 2 * NC + 3, 4), (6, 9, KC + 7), (0, 4, 3), (3, 0, 2),
                                   (3, 4, 0), (33, 70, 1)])
def test_the_kernel_gives_the_bits_of_the_loop_nest(kernels, dtype, m, n, k):
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    for a in _layouts(rng, (m, k), dtype):
        for b in _layouts(rng, (k, n), dtype):
            c0 = rng.standard_normal((m, n)).astype(dtype)
            for c in (c0.copy(), np.asfortranarray(c0).copy(order="F")):
                _call(kernels, a, b, c)
                np.testing.assert_array_equal(c, _in_order(a, b, c0))


def test_a_row_broadcast_with_stride_zero_is_read_as_it_is(kernels):
    rng = np.random.default_rng(3)
    row = rng.standard_normal((1, 6))
    a = np.broadcast_to(row, (5, 6))  # every row the same memory: stride 0
    b = rng.standard_normal((6, 11))
    c = np.zeros((5, 11))
    _call(kernels, a, b, c)
    np.testing.assert_array_equal(c, _in_order(np.array(a), b, np.zeros((5, 11))))


def test_the_kernel_writes_only_c_inside_its_extents(kernels):
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((6, 5)), rng.standard_normal((5, 10))
    guard = np.full((8, 14), 7.0)
    c = guard[1:7, 2:12]
    before_a, before_b = a.copy(), b.copy()
    _call(kernels, a, b, c)
    np.testing.assert_array_equal(c, _in_order(a, b, np.full((6, 10), 7.0)))
    outside = guard.copy()
    outside[1:7, 2:12] = 7.0
    np.testing.assert_array_equal(outside, np.full((8, 14), 7.0))
    np.testing.assert_array_equal(a, before_a)
    np.testing.assert_array_equal(b, before_b)


def test_a_module_declares_the_kernel_once_with_what_a_call_may_do():
    module = Module("once")
    first = matrix_kernel(module, "double")
    assert matrix_kernel(module, "double") is first
    assert first.name == kernel_name("double")
    assert first.is_declaration  # (the definition is linked in: backend/shared_code)
    assert first.suffix == ["nounwind", "memory(argmem: readwrite)"]
    assert len(first.args) == 16
    assert "llvm.compiler.used" not in module.symbols
    assert matrix_kernel(module, "float").name == kernel_name("float")
    with pytest.raises(ValueError, match="no matrix kernel for half"):
        matrix_kernel(module, "half")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_batch_with_its_axis_inside_the_matrices_and_a_shared_b(kernels, dtype):
    """A batch whose axis lies between rows and columns ('nki', as gmm's centred points),
    B shared by every matrix (stride 0), and a batch larger than the stack buffer holds."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((37, 6, 10)).astype(dtype)  # (n, batch, i)
    a = x.transpose(1, 0, 2)  # (batch, n, i): rows 60 elements apart
    b = np.broadcast_to(rng.standard_normal((10, 11)).astype(dtype), (6, 10, 11))
    out = np.zeros((37, 6, 11), dtype)
    c = out.transpose(1, 0, 2)
    _call(kernels, a, b, c)
    for q in range(6):
        np.testing.assert_array_equal(c[q], _in_order(a[q], b[q], np.zeros((37, 11), dtype)))
    big = 3000  # 3000 x 1 x 1 blocks of B: more than one group of the batch
    a2 = rng.standard_normal((big, 2, 1)).astype(dtype)
    b2 = rng.standard_normal((big, 1, 3)).astype(dtype)
    c2 = np.zeros((big, 2, 3), dtype)
    _call(kernels, a2, b2, c2)
    np.testing.assert_array_equal(c2, a2 * b2)


def test_products_of_a_batch_into_one_c_add_up(kernels):
    """C shared across the batch (stride 0: a broadcast operand's adjoint) receives every
    matrix's products."""
    rng = np.random.default_rng(6)
    a = rng.standard_normal((5, 7, 4))
    b = rng.standard_normal((5, 4, 9))
    base = np.zeros((7, 9))
    c = np.lib.stride_tricks.as_strided(base, (5, 7, 9), (0, *base.strides))
    _call(kernels, a, b, c)
    np.testing.assert_allclose(base, np.einsum("qik,qkj->ij", a, b), rtol=1e-13)
