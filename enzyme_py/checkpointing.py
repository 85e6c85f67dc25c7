"""`checkpointed`: mark one loop of a compiled function for binomial checkpointing.

    for t in ez.checkpointed(range(steps), snapshots=20):   # (Tapenade's BINOMIAL-CKP)
        u = step(u)

In reverse mode (`grad`, `value_and_grad`) the marked loop is reversed from a few kept copies
of its state instead of a tape that grows with its trip count (`ad/checkpoint.py`), whether
or not `grad(..., checkpoint=...)` was given; `snapshots` fixes how many states it keeps
(default: the gradient's `memory_budget`, else about the square root of the trip count).
The front end drops the call and marks the loop's metadata (`LOOP_PROPERTY`,
`ir/loop_marks.py`); called from Python, `checkpointed` returns the loop's range itself.

Invariant: marking a loop never changes what the function computes.
"""

from __future__ import annotations

from typing import Any

from enzyme_py.errors import ArgumentValueError

LOOP_PROPERTY = "enzyme_py.checkpoint"  # its value: the states to keep (0: the default)


def checkpointed(loop_range: Any, snapshots: int | None = None) -> Any:
    """`loop_range` itself; in compiled code, the loop over it is checkpointed (see above)."""
    check_snapshots(snapshots)
    return loop_range


def check_snapshots(snapshots: object) -> int:
    """The number of states to keep as the loop metadata holds it (0: the default)."""
    if snapshots is None:
        return 0
    if isinstance(snapshots, bool) or not isinstance(snapshots, int) or snapshots < 1:
        raise ArgumentValueError(f"checkpointed(..., snapshots=) takes a number of states to "
                                 f"keep (>= 1), not {snapshots!r}")
    return snapshots
