"""Central finite differences of `enzyme_py.jit(f)`: the one implementation the checks (and the
tests) use. Step `h = eps**(1/3) * max(1, |x|)` per element."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from enzyme_py.testing.runs import copies


def fd_gradient(jf: Callable, args: list[Any], k: int, eps: float
                 ) -> tuple[np.ndarray, np.ndarray, float]:
    """Central differences of `jf` in argument k: (gradient, steps, |f(args)|).

    Steps are `eps**(1/3) * max(1, |x|)`, taken in the argument's own dtype; the quotient uses
    the step actually representable there.
    """
    base = args[k]
    f0 = abs(builtins.float(jf(*copies(args))))

    def at(x: Any) -> float:
        work = copies(args)
        work[k] = x
        return builtins.float(jf(*work))

    if isinstance(base, np.ndarray):
        g = np.zeros(base.size)
        steps = np.zeros(base.size)
        flat = base.ravel()
        for i in range(base.size):
            h = eps ** (1 / 3) * max(1.0, abs(builtins.float(flat[i])))
            up, down = base.copy(), base.copy()
            up.ravel()[i] += h
            down.ravel()[i] -= h
            span = builtins.float(up.ravel()[i]) - builtins.float(down.ravel()[i])
            g[i] = (at(up) - at(down)) / span
            steps[i] = span / 2
        return g.reshape(base.shape), steps.reshape(base.shape), f0
    xv = builtins.float(base)
    h = eps ** (1 / 3) * max(1.0, abs(xv))
    return np.array((at(xv + h) - at(xv - h)) / (2 * h)), np.array(h), f0
