"""The tutorial notebooks: each `tutorials/NN_name.ipynb` runs top to bottom without an error
and matches its percent-format source `NN_name.py` (`make tutorials` regenerates them).

Notebooks run in a fresh `python3` kernel, which jupyter_client starts with this interpreter
(the kernelspec's `python` is replaced by `sys.executable`), so they see the venv's packages.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import ipykernel  # noqa: F401  (test requirements, always there: the notebooks' kernel,
import jupytext  # noqa: F401  and what tutorials/build.py runs them with)
import nbclient  # noqa: F401
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ROOT / "tutorials"
CELL_TIMEOUT = 120  # seconds


def _build_module():
    spec = importlib.util.spec_from_file_location("tutorials_build", TUTORIALS / "build.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


build = _build_module()
SOURCES = build.sources()


def _cells(nb) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source.strip()) for c in nb.cells if c.cell_type in ("code",
                                                                                 "markdown")]


def test_every_tutorial_has_a_source_and_a_notebook() -> None:
    assert SOURCES, "no tutorials/NN_*.py found"
    notebooks = sorted(p.stem for p in TUTORIALS.glob("[0-9][0-9]_*.ipynb"))
    assert notebooks == [s.stem for s in SOURCES], "run `make tutorials`"


@pytest.mark.parametrize("src", SOURCES, ids=[s.stem for s in SOURCES])
def test_notebook_matches_its_source(src: Path) -> None:
    """The committed .ipynb has the cells of its .py source (regenerate: make tutorials)."""
    committed = nbformat.read(src.with_suffix(".ipynb"), as_version=4)
    expected = build.notebook_from_source(src)
    assert _cells(committed) == _cells(expected), \
        f"{src.with_suffix('.ipynb').name} is out of date with {src.name}: run `make tutorials`"
    for cell in committed.cells:
        if cell.cell_type == "code":
            assert cell.get("outputs") is not None
            assert not any(o.get("output_type") == "error" for o in cell.outputs), \
                f"{src.with_suffix('.ipynb').name} was committed with an error output"


@pytest.mark.parametrize("src", SOURCES, ids=[s.stem for s in SOURCES])
def test_notebook_executes(src: Path) -> None:
    """Every cell of the notebook runs without an error (cell timeout 120 s)."""
    nb = nbformat.read(src.with_suffix(".ipynb"), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    build.execute(nb, timeout=CELL_TIMEOUT)  # raises CellExecutionError on the first error


def test_kernel_runs_this_interpreter() -> None:
    """The `python3` kernel runs in this interpreter's environment (the venv), so notebooks
    import this checkout."""
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("import sys, enzyme_py\n"
                                              "print(sys.prefix)\n"
                                              "print(enzyme_py.__file__)"))
    build.execute(nb, timeout=CELL_TIMEOUT)
    prefix, package = nb.cells[0].outputs[0]["text"].split()
    assert Path(prefix) == Path(sys.prefix)
    assert Path(package).resolve().parent.parent == ROOT
