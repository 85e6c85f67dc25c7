"""Fixtures for `enzyme_py.jax`: 64-bit JAX inside every test (jax is a test dependency)."""

from __future__ import annotations

import jax
import pytest


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield
