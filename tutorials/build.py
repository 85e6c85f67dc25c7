"""Regenerate the tutorial notebooks from their percent-format sources and execute them.

    python tutorials/build.py                 # every tutorials/NN_*.py
    python tutorials/build.py 03_c_and_cpp 05 # some of them, by name or number

Each `NN_name.py` (jupytext percent format) is the source; `NN_name.ipynb` is generated from it
with jupytext and executed top to bottom with nbclient in this directory, so the committed
notebook carries its outputs. `tests/test_tutorials.py` checks that the two stay in sync.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
KERNEL = "python3"
CELL_TIMEOUT = 120  # seconds per cell
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": KERNEL}


def sources() -> list[Path]:
    """The notebook sources, in order: `NN_name.py`."""
    return sorted(p for p in HERE.glob("[0-9][0-9]_*.py"))


def notebook_from_source(src: Path) -> nbformat.NotebookNode:
    """The notebook of `src`, without outputs."""
    nb = jupytext.read(src, fmt="py:percent")
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["jupytext"] = {"formats": "ipynb,py:percent"}
    nb.metadata.pop("language_info", None)
    return nb


def execute(nb: nbformat.NotebookNode, timeout: int = CELL_TIMEOUT) -> nbformat.NotebookNode:
    """Run every cell in a fresh kernel in this directory; raises on the first error."""
    client = NotebookClient(nb, timeout=timeout, kernel_name=KERNEL, record_timing=False,
                            resources={"metadata": {"path": str(HERE)}})
    client.execute()
    return nb


def build(src: Path) -> float:
    """Generate and execute `src`'s notebook; returns the seconds it took."""
    start = time.perf_counter()
    nb = execute(notebook_from_source(src))
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, src.with_suffix(".ipynb"))
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    wanted = {Path(a).stem for a in argv}  # names, or their number: 03
    todo = [s for s in sources() if not wanted or s.stem in wanted or s.stem[:2] in wanted]
    missing = {w for w in wanted if not any(w in (s.stem, s.stem[:2]) for s in todo)}
    if missing:
        print(f"no such tutorial: {', '.join(sorted(missing))}", file=sys.stderr)
        return 1
    for src in todo:
        print(f"{src.stem}: executing ...", flush=True)
        print(f"{src.stem}: {build(src):.1f} s -> {src.with_suffix('.ipynb').name}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
