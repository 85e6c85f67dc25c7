"""Fixtures for `enzyme_py.jax`: skip without jax; 64-bit JAX inside every test."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax", reason="enzyme_py.jax needs jax (pip install 'jax[cpu]')")


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield
