"""Comparing arrays and reporting the worst elements as a table."""

from __future__ import annotations

from typing import Any

import numpy as np


def flat_array(x: Any) -> np.ndarray:
    return np.atleast_1d(np.asarray(x, dtype=np.float64)).ravel()


def index_label(shape: tuple[int, ...], k: int) -> str:
    if not shape:
        return "()"
    return str(tuple(int(i) for i in np.unravel_index(k, shape)))


def worst_table(title: str, rows: list[tuple], ratios: list[float], limit: int = 8) -> str:
    order = sorted(range(len(rows)), key=lambda i: -ratios[i])[:limit]
    head = f"{'arg':>4} {'index':>12} {'ours':>24} {'JAX':>24} {'finite diff':>24} {'rel err':>10}"
    lines = [title, head]
    for i in order:
        arg, idx, ours, ref, fd, rel = rows[i]
        fd_s = "-" if fd is None else f"{fd:.17g}"
        lines.append(f"{arg:>4} {idx:>12} {ours:>24.17g} {ref:>24.17g} {fd_s:>24} {rel:>10.3g}")
    return "\n".join(lines)


def close_elements(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Elementwise |a - b| / allowed (<= 1 passes); matching infinities and NaNs pass."""
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(a - b)
        allowed = atol + rtol * np.maximum(np.abs(a), np.abs(b))
        ratio = np.where(allowed > 0, err / np.where(allowed > 0, allowed, 1.0),
                         np.where(err == 0, 0.0, np.inf))
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    return np.where(same, 0.0, np.where(np.isnan(ratio), np.inf, ratio))


def relative_error(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(a - b) / np.maximum(np.abs(b), np.finfo(np.float64).tiny)
