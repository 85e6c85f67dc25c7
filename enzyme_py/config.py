"""How a function is compiled and differentiated: one object from the front doors to the passes.

`jit()`, `grad()` and the other entry points, and `enzyme-py grad` / `enzyme-py transform`,
build one `Config`; it reaches the front end (bounds checks, error mode), the AD pipeline
(`ad/driver.py`: inlining, width, name, return-primal, opt level) and the backend (opt level,
fast-math flags) unchanged. A stage that needs a variant derives one with `replace`
(`grad` compiles its gradient module at `opt_level=0` and optimizes once in the backend).

Invariants: a `Config` is frozen and hashable (a key of the compile caches); it is checked
when built (`ArgumentValueError` for a bad value), so every stage may trust it; `fastmath` is
kept as given (what the user wrote) and `fast_flags` is its normalized tuple of LLVM flags.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from enzyme_py.errors import ArgumentValueError
from enzyme_py.fastmath import fast_math_flags

ERROR_MODES = ("numpy", "python")


@dataclass(frozen=True)
class Config:
    """Compilation and differentiation options (an explicit object, never global flags).

    Example::

        cfg = Config(opt_level=3, fastmath={"reassoc", "contract"})
        cfg.replace(width=4).width   # 4; cfg itself is unchanged
    """

    bounds_check: bool = True  # index checks in compiled Python code (IndexError, not a crash)
    opt_level: int = 2  # LLVM's -O level of the primal and the derivative
    # "numpy": math functions and float division give IEEE results (nan, inf), unchecked;
    # "python": math.* domain errors and float division by zero raise as in Python
    errors: str = "numpy"
    # LLVM fast-math flags on the primal and the derivative (see `enzyme_py.fastmath`): False,
    # True (all), or a set of flag names; the default is IEEE-exact
    fastmath: Any = False
    inline: bool = True  # inline callees into the function before differentiating it
    width: int = 1  # forward mode: directions per sweep (vector forward mode)
    name: str | None = None  # the derivative's name (default: diffe_<f> / fwddiffe_<f>)
    # also return the primal result; None: the mode's default (reverse no, forward yes)
    return_primal: bool | None = None
    # reuse compiled code from earlier processes (`api/disk_cache.py`); never changes results
    cache: bool = False
    # reverse mode: binomial checkpointing of the time loops (`ad/checkpoint.py`): False, True
    # (about sqrt(trip count) states kept), or the number of states to keep
    checkpoint: Any = False
    # bytes the kept states of a checkpointed loop may take (an int, or "256MB", "1.5GiB");
    # giving one turns checkpointing on
    memory_budget: Any = None
    fast_flags: tuple[str, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.errors not in ERROR_MODES:
            raise ArgumentValueError(f"errors must be 'numpy' or 'python', not "
                                     f"{self.errors!r}")
        if not isinstance(self.opt_level, int) or not 0 <= self.opt_level <= 3:
            raise ArgumentValueError(f"opt_level must be 0, 1, 2 or 3, not {self.opt_level!r}")
        if not isinstance(self.width, int) or self.width < 1:
            raise ArgumentValueError(f"width must be a positive integer, not {self.width!r}")
        flags = fast_math_flags(self.fastmath)
        if self.errors == "python" and {"fast", "nnan", "ninf"} & set(flags):
            raise ArgumentValueError("errors='python' detects NaN and infinite results, which "
                                     "fastmath's nnan/ninf flags assume away; drop one or pass "
                                     "fastmath={'reassoc', 'contract', ...}")
        if not (isinstance(self.checkpoint, bool) or
                (isinstance(self.checkpoint, int) and self.checkpoint >= 1)):
            raise ArgumentValueError(f"checkpoint must be True, False or a number of states "
                                     f"to keep (>= 1), not {self.checkpoint!r}")
        if self.memory_budget is not None:
            object.__setattr__(self, "memory_budget", parse_bytes(self.memory_budget))
        if isinstance(self.fastmath, (set, list)):  # hashable, as a cache key must be
            object.__setattr__(self, "fastmath", frozenset(self.fastmath))
        object.__setattr__(self, "fast_flags", flags)

    @property
    def checkpointing(self) -> bool:
        """Reverse mode checkpoints the time loops (`checkpoint` or `memory_budget` given)."""
        return self.checkpoint is not False or self.memory_budget is not None

    @property
    def checkpoint_snapshots(self) -> int:
        """The states a checkpointed loop keeps (0: from the budget, or about sqrt(N))."""
        return 0 if isinstance(self.checkpoint, bool) else self.checkpoint

    @property
    def python_errors(self) -> bool:
        """Math domain errors and float division by zero raise as in Python."""
        return self.errors == "python"

    def replace(self, **changes: Any) -> Config:
        """This config with `changes` (checked as when built)."""
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self) if f.init})
        if unknown:
            raise TypeError(f"Config has no option {unknown[0]!r}")
        return dataclasses.replace(self, **changes)

    def primal_returned(self, default: bool) -> bool:
        """Whether the derivative also returns the primal result (`default`: the mode's)."""
        return default if self.return_primal is None else self.return_primal


_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def parse_bytes(value: Any) -> int:
    """A size in bytes from an int or a string such as "256MB", "1.5 GiB", "4096"."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ArgumentValueError(f"memory_budget must be a number of bytes or a string such "
                                 f"as '256MB', not {value!r}")
    if isinstance(value, int):
        n = value
    else:
        text = value.strip().lower().replace(" ", "").replace("_", "")
        digits = text.rstrip("abcdefghijklmnopqrstuvwxyz")
        unit = text[len(digits):]
        try:
            n = int(float(digits) * _UNITS[unit])
        except (KeyError, ValueError):
            raise ArgumentValueError(f"memory_budget {value!r} is not a size (use bytes, or "
                                     f"a number with kB, MB, GB, KiB, MiB or GiB)") from None
    if n < 1:
        raise ArgumentValueError(f"memory_budget must be positive, not {value!r}")
    return n
