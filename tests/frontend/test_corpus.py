"""The Python corpus: every function's jit value against plain Python, and its gradient against
JAX (the same function on JAX values, x64) and finite differences."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py
from enzyme_py import Active, Const, Duplicated, autodiff
from enzyme_py.testing import check_grad, check_value, check_vjp, jax_version_of
from tests.frontend.corpus import CASES, VJP_CASES, WRITER_CASES, Case

ROOT = Path(__file__).resolve().parents[2]

def _params(cases: list[Case], kind: str) -> list:
    seen: dict[str, int] = {}
    out = []
    for c in cases:
        n = seen.get(c.id, 0)
        seen[c.id] = n + 1
        reason = c.xfail_value if kind == "value" else c.xfail_value or c.xfail_grad
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(c, id=c.id if n == 0 else f"{c.id}-{n}", marks=marks))
    return out


def _isolated(test: str, case_id: str, tries: int = 1) -> None:
    """Run `test` on one case in a fresh interpreter, so that a crash of native code cannot
    take the test worker down. The crash this guards against depended on the heap (malloc
    alignment); compiling and running the derivative 10 times first made it near-certain."""
    code = (f"from tests.frontend import test_corpus as t\n"
            f"c = t._case({case_id!r})\n"
            f"t._stress({test!r}, c)\n"
            f"t._BODIES[{test!r}](c)\n")
    for _ in range(tries):
        r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                           text=True, timeout=120, check=False)
        if r.returncode != 0:
            raise AssertionError(f"{test}[{case_id}] failed in a subprocess (exit status "
                                 f"{r.returncode}):\n{r.stderr[-3000:]}")


def _stress(test: str, case: Case) -> None:
    """Compile and run the derivative 10 times, from fresh copies of the function (each copy
    compiles anew: enzyme_py caches compiled code per function object)."""
    for _ in range(10):
        f = types.FunctionType(case.f.__code__, case.f.__globals__, case.f.__name__,
                               case.f.__defaults__, case.f.__closure__)
        args = [np.copy(a) if isinstance(a, np.ndarray) else a for a in case.args]
        if test == "test_grad":
            enzyme_py.grad(f, argnums=case.argnums)(*args)
        else:
            autodiff(f, *[Duplicated(a, np.ones_like(a)) if isinstance(a, np.ndarray)
                          else Active(a) if isinstance(a, float) else Const(a) for a in args])


def _case(case_id: str) -> Case:
    return next(c for c in CASES + VJP_CASES + WRITER_CASES if c.id == case_id)


def test_corpus_size() -> None:
    names = {c.f.__name__ for c in CASES + VJP_CASES + WRITER_CASES}
    assert len(names) >= 65


@pytest.mark.parametrize("case", _params(CASES + VJP_CASES + WRITER_CASES, "value"))
def test_value(case: Case) -> None:
    check_value(case.f, *case.args, rtol=case.value_rtol)


def _grad_body(case: Case) -> None:
    check_grad(case.f, *case.args, argnums=case.argnums, rtol=case.rtol, fd=case.fd)


@pytest.mark.parametrize("case", _params([c for c in CASES if c.argnums is not None], "grad"))
def test_grad(case: Case) -> None:
    if case.isolate:
        _isolated("test_grad", case.id)
    else:
        _grad_body(case)


@pytest.mark.parametrize("case", _params(VJP_CASES, "grad"))
def test_vjp_tuple_result(case: Case) -> None:
    check_vjp(case.f, *case.args, rtol=case.rtol)


def _writer_body(case: Case) -> None:
    rng = np.random.default_rng(7)
    args = case.args
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    seeds = {i: rng.uniform(-1.0, 1.0, args[i].shape) for i in arrays}
    marked = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            marked.append(Duplicated(a.copy(), seeds[i].copy()))
        elif isinstance(a, float):
            marked.append(Active(a))
        else:
            marked.append(Const(a))
    adjoints = autodiff(case.f, *marked)

    diff = [i for i, a in enumerate(args) if isinstance(a, float | np.ndarray)]
    with jax.enable_x64(True):
        run = jax_version_of(case.f, return_args=True)

        def finals(*vals):
            full = list(args)
            for i, v in zip(diff, vals, strict=True):
                full[i] = v
            return run(*full)[1]

        _, pullback = jax.vjp(finals, *[jnp.asarray(args[i]) for i in diff])
        cts = pullback(tuple(jnp.asarray(seeds[i]) for i in arrays))
    expected_scalars = []
    for i, ct in zip(diff, cts, strict=True):
        if i in seeds:
            np.testing.assert_allclose(marked[i].dval, np.asarray(ct), rtol=1e-10, atol=1e-12,
                                       err_msg=f"shadow of argument {i}")
        else:
            expected_scalars.append(float(ct))
    np.testing.assert_allclose(adjoints, expected_scalars, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", _params(WRITER_CASES, "grad"))
def test_writer_autodiff(case: Case) -> None:
    """Functions that write into arrays: Enzyme's Duplicated shadows hold the cotangent of the
    arrays' final contents on entry and the gradient with respect to their initial contents on
    return; that is jax.vjp of the function returning its final arrays."""
    if case.isolate:
        _isolated("test_writer_autodiff", case.id)
    else:
        _writer_body(case)


_BODIES = {"test_grad": _grad_body, "test_writer_autodiff": _writer_body}
