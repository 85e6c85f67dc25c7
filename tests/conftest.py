"""Shared test fixtures: the `.ll` corpus, clang-22 discovery, and LLVM normalization."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "ll"
CORPUS = ROOT / "tests" / "corpus"


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("*.ll"))


def load_regen():
    """The corpus build script as a module (it owns the clang flags)."""
    spec = importlib.util.spec_from_file_location("corpus_regen", CORPUS / "regen.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def find_clang() -> str | None:
    return shutil.which("clang-22")


@pytest.fixture(scope="session")
def clang() -> str:
    """Path of clang-22; tests that need it skip with a reason when it is absent."""
    path = find_clang()
    if path is None:
        pytest.skip("clang-22 is not installed (apt-get install clang-22); CI installs it")
    return path


def compile_c(clang: str, source: Path, out: Path, opt: str = "-O2",
              extra: tuple[str, ...] = ()) -> str:
    """Compile `source` to LLVM text with clang-22 and return the text."""
    cmd = [clang, opt, "-S", "-emit-llvm", *extra, str(source), "-o", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise AssertionError(f"clang failed: {' '.join(cmd)}\n{res.stderr}")
    return out.read_text()
