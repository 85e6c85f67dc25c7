"""Differential check of one loop-style program: enzyme_py against the Python interpreter,
central finite differences, and its own forward mode.

`check_program(source, args)` loads `source` (a module defining `f(x, w, n, s)`) from a real
file, since enzyme_py reads a function's source with `inspect.getsource`, and compares

- `ez.jit(f)(*args)` with `f(*args)` run by Python (`VALUE_RTOL`),
- `ez.grad(f, argnums=ARGNUMS)` (the float arrays `x`, `w` and the float `s`) with central
  finite differences of the Python function, coordinate by coordinate,
- that gradient with forward mode, `ez.jacfwd(f, argnums=ARGNUMS)` (`MODE_RTOL`, at any
  point: both are derivatives of the same branch, smooth or not; `ILL_RTOL` where a
  derivative exceeds the value `ILL_CONDITIONED` times, chaotic iterations whose rounding
  either order of summation amplifies), and with `full=True` also
  with `ez.jvp` along a random tangent, `ez.value_and_grad`'s value with Python's, and
  `ez.grad(..., checkpoint=2)` (binomial checkpointing of the time loops) with `grad`,

and checks after each enzyme_py call that the arguments still hold what they held.

Finite differences near a branch switch (an `if` on data, `min`, `max`, `abs`, a data-dependent
`break` or trip count) say nothing about the derivative. A coordinate counts only where two
central differences (steps `_H1`, `_H2`) agree, and a mismatch is reported only where the
one-sided differences on both sides agree too (no kink between them); the other coordinates
are skipped, and a program whose every coordinate is skipped is `INCONCLUSIVE`.

Invariants:

- The result is None when every comparison passed, else a `Finding`: `WRONG` (a value or
  derivative that disagrees), `CRASH` (an exception other than a clean refusal, or a
  compiled call raising where Python did not), `UNSUPPORTED` (a clean refusal:
  `FrontendError`, `NotDifferentiableError`, `DifferentiationError`; `construct` names it
  with numbers and names blurred), `INCONCLUSIVE` (the reference failed or was not finite,
  or no coordinate could be checked). Bugs take precedence over refusals: a program whose
  gradient is refused still has its value and its forward mode checked.
- The caller's arrays are never modified: every call gets fresh copies.
- Deterministic: the tangent of `full=True` comes from a generator seeded with a checksum of
  the source.
"""

from __future__ import annotations

import enum
import importlib.util
import itertools
import math
import os
import re
import shutil
import sys
import tempfile
import traceback
import types
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

import enzyme_py as ez
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.errors import NotDifferentiableError
from enzyme_py.frontend.errors import FrontendError

__all__ = ["ARGNUMS", "CLEAN_ERRORS", "Finding", "Outcome", "check_program", "load_module"]

ARGNUMS = (0, 1, 3)
CLEAN_ERRORS = (FrontendError, NotDifferentiableError, DifferentiationError)
VALUE_RTOL = 1e-12
MODE_RTOL = 1e-10
FD_RTOL = 1e-6
ILL_CONDITIONED, ILL_RTOL = 1e6, 1e-3
_H1, _H2, _H_ONE_SIDED = 1e-5, 1e-6, 1e-7
_counter = itertools.count()


class Outcome(enum.Enum):
    OK = "ok"
    UNSUPPORTED = "unsupported"
    WRONG = "wrong"
    CRASH = "crash"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class Finding:
    """What a check found. `stage`: `load`, `python`, `jit`, `grad`, `jacfwd`, `jvp`,
    `value_and_grad`, `fd`; `message`: the mismatch or the error's text."""

    outcome: Outcome
    stage: str
    message: str
    error_type: str = ""
    construct: str = ""

    @property
    def is_bug(self) -> bool:
        return self.outcome in (Outcome.WRONG, Outcome.CRASH)


@contextmanager
def load_module(source: str) -> Iterator[types.ModuleType]:
    """The module `source` defines, loaded from a temporary file that exists while the
    context is open (compilation reads it)."""
    d = tempfile.mkdtemp(prefix="loopfuzz_")
    name = f"loopfuzz_{zlib.crc32(source.encode()):08x}_{os.getpid()}_{next(_counter)}"
    path = os.path.join(d, name + ".py")
    with open(path, "w") as fh:
        fh.write(source)
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        yield mod
    finally:
        sys.modules.pop(name, None)
        shutil.rmtree(d, ignore_errors=True)


def _copies(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _same(a: tuple, b: tuple) -> bool:
    return all(np.array_equal(x, y, equal_nan=True) if isinstance(x, np.ndarray) else
               (x == y or (x != x and y != y)) for x, y in zip(a, b, strict=True))


def _construct(e: BaseException) -> str:
    text = getattr(e, "message", None) or str(e)
    first = text.strip().splitlines()[0] if text.strip() else type(e).__name__
    first = re.sub(r"^\S+\.py:\d+:\d+: ", "", first)
    first = re.sub(r"'[^']*'", "'_'", first)
    first = re.sub(r"\b\d+\b", "N", first)
    return f"{type(e).__name__}: {first}"[:160]


def _flat(grads: Any) -> np.ndarray:
    return np.concatenate([np.ravel(np.asarray(g, dtype=float)) for g in grads])


def _unflat(p: np.ndarray, args: tuple) -> tuple:
    out, k = list(args), 0
    for j in ARGNUMS:
        a = args[j]
        size = a.size if isinstance(a, np.ndarray) else 1
        chunk = p[k:k + size]
        out[j] = chunk.reshape(a.shape).copy() if isinstance(a, np.ndarray) else float(chunk[0])
        k += size
    return tuple(out)


class _Failed(Exception):
    def __init__(self, finding: Finding) -> None:
        self.finding = finding


def _call(stage: str, fn: Callable[[], Any], args: tuple, kept: tuple) -> Any:
    """Runs an enzyme_py call; a refusal or crash becomes a `_Failed`; checks `args`."""
    try:
        out = fn()
    except CLEAN_ERRORS as e:
        raise _Failed(Finding(Outcome.UNSUPPORTED, stage, str(e), type(e).__name__,
                              _construct(e))) from e
    except Exception as e:
        tb = "".join(traceback.format_exception(e)[-6:])
        raise _Failed(Finding(Outcome.CRASH, stage, tb, type(e).__name__, _construct(e))) from e
    if not _same(args, kept):
        raise _Failed(Finding(Outcome.WRONG, stage, f"{stage} modified its arguments: "
                              f"{args!r} (were {kept!r})"))
    return out


def _value_mismatch(got: Any, want: float) -> str | None:
    try:
        g = float(got)
    except (TypeError, ValueError):
        return f"returned {got!r} ({type(got).__name__}), Python {want!r}"
    if not (abs(g - want) <= VALUE_RTOL * max(1.0, abs(want))):
        return f"returned {g!r}, Python {want!r} (diff {g - want:.3e})"
    return None


def _names(args: tuple) -> list[str]:
    out = []
    for j, nm in zip(ARGNUMS, ("x", "w", "s"), strict=True):
        a = args[j]
        if isinstance(a, np.ndarray):
            out += [f"{nm}[{', '.join(map(str, ix))}]" for ix in np.ndindex(a.shape)]
        else:
            out.append(nm)
    return out


def _fd_check(f: Callable, args: tuple, g: np.ndarray, want: float) -> Finding | None:
    """Central differences of the Python function against `g`, skipping kinks."""
    p0 = np.concatenate([np.ravel(np.asarray(args[j], dtype=float)) for j in ARGNUMS])

    def F(p: np.ndarray) -> float:
        return float(f(*_unflat(p, args)))

    checked, bad = 0, []
    names = _names(args)
    for k in range(p0.size):
        e = np.zeros_like(p0)
        e[k] = 1.0
        try:
            c1 = (F(p0 + _H1 * e) - F(p0 - _H1 * e)) / (2 * _H1)
            c2 = (F(p0 + _H2 * e) - F(p0 - _H2 * e)) / (2 * _H2)
        except (ArithmeticError, ValueError):
            continue
        # The scale comes from the reference, never from the gradient checked.
        tol = FD_RTOL * max(1.0, abs(want), abs(c1), abs(c2))
        if not (math.isfinite(c1) and math.isfinite(c2)) or abs(c1 - c2) > tol:
            continue  # a branch switch within the steps, or an ill-conditioned coordinate
        checked += 1
        if abs(g[k] - c2) <= tol + FD_RTOL * abs(c2):
            continue
        h = _H_ONE_SIDED
        fwd = (F(p0 + h * e) - want) / h
        bwd = (want - F(p0 - h * e)) / h
        if abs(fwd - bwd) > 100 * tol:
            continue  # a kink at the point itself: either side's derivative is right
        bad.append(f"d/d{names[k]}: grad {g[k]!r}, finite differences {c2!r} "
                   f"(h={_H1}: {c1!r}; one-sided {fwd!r}, {bwd!r})")
    if bad:
        return Finding(Outcome.WRONG, "fd", "\n".join(bad))
    if checked == 0 and p0.size:
        return Finding(Outcome.INCONCLUSIVE, "fd", "every coordinate is near a branch switch")
    return None


def _mode_mismatch(rev: np.ndarray, fwd: np.ndarray, args: tuple, want: float) -> str | None:
    """Elementwise, to `MODE_RTOL` of the largest entry; an ill-conditioned program (a
    derivative over `ILL_CONDITIONED` times the value: an iterated map amplifying rounding)
    only to `ILL_RTOL`, as both modes may sum the same products in different orders."""
    if rev.shape != fwd.shape:
        return f"shapes: grad {rev.shape}, jacfwd {fwd.shape}"
    scale = max(1.0, float(np.max(np.abs(rev))) if rev.size else 1.0)
    rtol = ILL_RTOL if scale > ILL_CONDITIONED * max(1.0, abs(want)) else MODE_RTOL
    diff = np.abs(rev - fwd)
    bad = np.nonzero(~(diff <= rtol * scale))[0]
    if bad.size == 0:
        return None
    names = _names(args)
    return "\n".join(f"d/d{names[k]}: grad {rev[k]!r}, jacfwd {fwd[k]!r}" for k in bad[:12])


def check_program(source: str, args: tuple, *, full: bool = False) -> Finding | None:
    """Compares enzyme_py with Python on `f` of `source` at `args` (see the module's doc)."""
    kept = _copies(args)
    try:
        ctx = load_module(source)
        mod = ctx.__enter__()
    except Exception as e:  # the generator's fault
        return Finding(Outcome.INCONCLUSIVE, "load", repr(e), type(e).__name__)
    try:
        return _check(mod.f, args, kept, full, source)
    finally:
        ctx.__exit__(None, None, None)


def _check(f: Callable, args: tuple, kept: tuple, full: bool, source: str) -> Finding | None:
    try:
        want = float(f(*_copies(args)))
    except Exception as e:
        return Finding(Outcome.INCONCLUSIVE, "python", repr(e), type(e).__name__)
    if not math.isfinite(want) or abs(want) > 1e8:
        return Finding(Outcome.INCONCLUSIVE, "python", f"value {want!r}")
    refused: Finding | None = None
    grads: np.ndarray | None = None

    def run(stage: str, fn: Callable[[], Any]) -> Any:
        a = _copies(kept)
        return _call(stage, lambda: fn(a), a, kept)

    try:
        got = run("jit", lambda a: ez.jit(f)(*a))
        if (m := _value_mismatch(got, want)) is not None:
            return Finding(Outcome.WRONG, "jit", m)
    except _Failed as e:
        return e.finding
    try:
        grads = _flat(run("grad", lambda a: ez.grad(f, argnums=ARGNUMS)(*a)))
    except _Failed as e:
        if e.finding.is_bug:
            return e.finding
        refused = e.finding
    try:
        fwd = _flat(run("jacfwd", lambda a: ez.jacfwd(f, argnums=ARGNUMS)(*a)))
    except _Failed as e:
        if e.finding.is_bug:
            return e.finding
        refused, fwd = refused or e.finding, None
    if grads is not None and fwd is not None:
        if (m := _mode_mismatch(grads, fwd, args, want)) is not None:
            return Finding(Outcome.WRONG, "jacfwd", "reverse and forward mode disagree:\n" + m)
    if full and grads is not None:
        try:
            bug = _full_checks(run, f, kept, grads, want, source)
        except _Failed as e:
            bug = e.finding
        if bug is not None and bug.outcome is not Outcome.UNSUPPORTED:
            return bug
        refused = refused or bug
    g = grads if grads is not None else fwd
    if g is not None:
        if (fd := _fd_check(f, kept, g, want)) is not None and (fd.is_bug or refused is None):
            return fd
    return refused


def _full_checks(run: Callable, f: Callable, args: tuple, grads: np.ndarray, want: float,
                 source: str) -> Finding | None:
    rng = np.random.default_rng(zlib.crc32(source.encode()))
    tangents = tuple(rng.uniform(-1.0, 1.0, a.shape) if isinstance(a, np.ndarray) else
                     (float(rng.uniform(-1.0, 1.0)) if isinstance(a, float) else 0)
                     for a in args)
    tan = np.concatenate([np.ravel(np.asarray(tangents[j], dtype=float)) for j in ARGNUMS])
    value, slope = run("jvp", lambda a: ez.jvp(f, a, tangents))
    if (m := _value_mismatch(value, want)) is not None:
        return Finding(Outcome.WRONG, "jvp", "primal " + m)
    ref = float(grads @ tan)
    if not abs(float(slope) - ref) <= MODE_RTOL * max(1.0, float(np.abs(grads) @ np.abs(tan))):
        return Finding(Outcome.WRONG, "jvp", f"jvp slope {slope!r}, grad . tangent {ref!r}")
    value, _ = run("value_and_grad", lambda a: ez.value_and_grad(f, argnums=ARGNUMS)(*a))
    if (m := _value_mismatch(value, want)) is not None:
        return Finding(Outcome.WRONG, "value_and_grad", m)
    ck = _flat(run("checkpoint", lambda a: ez.grad(f, argnums=ARGNUMS, checkpoint=2)(*a)))
    scale = max(1.0, float(np.max(np.abs(grads))))
    if not np.all(np.abs(ck - grads) <= MODE_RTOL * scale):
        return Finding(Outcome.WRONG, "checkpoint", f"grad(checkpoint=2) {ck!r}, grad {grads!r}")
    return None
