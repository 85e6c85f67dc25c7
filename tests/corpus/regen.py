"""Regenerate the LLVM IR fixtures in ``tests/fixtures/ll`` from the C/C++ corpus.

Every ``tests/corpus/c/*.c`` and ``tests/corpus/cpp/*.cpp`` file is compiled with
clang-22 / clang++-22 at ``-O0`` and ``-O2`` with ``-S -emit-llvm`` into
``tests/fixtures/ll/<lang>_<stem>.<opt>.ll``.

File-name prefixes select extra flags:

* ``named_*``: ``-fno-discard-value-names`` (IR values keep their source names);
* ``dbg_*``: ``-g`` (debug records and debug-info metadata);
* ``eh_*`` (C++ only): exceptions stay enabled; other C++ files get ``-fno-exceptions``.

clang runs with the repository root as its working directory and a relative source
path, so ``ModuleID`` and ``source_filename`` carry no absolute paths.  Debug-info
``DIFile``/``DICompileUnit`` directories are remapped with ``-fdebug-prefix-map``.

Usage: ``python tests/corpus/regen.py [--clang PATH] [--clangxx PATH] [-j N]``.
Importing this module has no side effects.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parent
REPO_ROOT = CORPUS_DIR.parent.parent
FIXTURE_DIR = REPO_ROOT / "tests" / "fixtures" / "ll"
OPT_LEVELS: tuple[str, ...] = ("O0", "O2")

CLANG = os.environ.get("CLANG", "clang-22")
CLANGXX = os.environ.get("CLANGXX", "clang++-22")

_LANGS: dict[str, str] = {".c": "c", ".cpp": "cpp"}


def corpus_sources() -> list[Path]:
    """Return every corpus source file (absolute paths), C files first, sorted by name."""
    sources: list[Path] = []
    for lang in ("c", "cpp"):
        sources.extend(sorted((CORPUS_DIR / lang).glob(f"*.{lang}")))
    return sources


def language(path: Path) -> str:
    """Return ``"c"`` or ``"cpp"`` for a corpus source file."""
    try:
        return _LANGS[path.suffix]
    except KeyError:
        raise ValueError(f"not a corpus source: {path}") from None


def fixture_path(path: Path, opt: str) -> Path:
    """Return the fixture file that ``path`` compiled at ``opt`` (``"O0"``/``"O2"``) goes to."""
    return FIXTURE_DIR / f"{language(path)}_{path.stem}.{opt.lstrip('-')}.ll"


def compiler(path: Path) -> str:
    """Return the clang driver used for ``path``."""
    return CLANG if language(path) == "c" else CLANGXX


def clang_flags(path: Path, opt: str) -> list[str]:
    """Return the clang flags (without the compiler, source or output) for ``path`` at ``opt``."""
    opt = opt.lstrip("-")
    if opt not in OPT_LEVELS:
        raise ValueError(f"unsupported optimisation level: {opt!r}")
    lang = language(path)
    stem = path.stem
    flags = [f"-{opt}", "-S", "-emit-llvm"]
    if lang == "c":
        flags.append("-std=c17")
    else:
        flags.append("-std=c++17")
        if not stem.startswith("eh_"):
            flags.append("-fno-exceptions")
    if stem.startswith("named_"):
        flags.append("-fno-discard-value-names")
    if stem.startswith("dbg_"):
        flags.extend(["-g", f"-fdebug-prefix-map={REPO_ROOT}=."])
    return flags


def _relative_source(path: Path) -> Path:
    path = Path(path).resolve()
    try:
        return path.relative_to(REPO_ROOT)
    except ValueError:
        return path


def compile_source(path: Path, opt: str, out: Path) -> None:
    """Compile ``path`` at ``opt`` into the textual IR file ``out``.

    clang runs in the repository root with a relative source path.  Raises
    ``subprocess.CalledProcessError`` when clang fails.
    """
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [compiler(path), *clang_flags(path, opt), str(_relative_source(path)), "-o", str(out)]
    subprocess.run(cmd, cwd=REPO_ROOT, check=True, capture_output=True, text=True)


def regenerate(jobs: int = os.cpu_count() or 1) -> list[Path]:
    """Compile the whole corpus at every level; return the fixture paths written."""
    tasks = [(src, opt, fixture_path(src, opt)) for src in corpus_sources() for opt in OPT_LEVELS]

    def run(task: tuple[Path, str, Path]) -> str | None:
        src, opt, out = task
        try:
            compile_source(src, opt, out)
        except subprocess.CalledProcessError as exc:
            return f"{src.relative_to(REPO_ROOT)} -{opt} failed:\n{exc.stderr}"
        return None

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        errors = [err for err in pool.map(run, tasks) if err]
    if errors:
        raise RuntimeError("\n".join(errors))
    return [out for _, _, out in tasks]


def main(argv: list[str] | None = None) -> int:
    global CLANG, CLANGXX
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clang", default=CLANG, help="C compiler (default: %(default)s)")
    parser.add_argument("--clangxx", default=CLANGXX, help="C++ compiler (default: %(default)s)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    CLANG, CLANGXX = args.clang, args.clangxx
    written = regenerate(args.jobs)
    for out in written:
        print(out.relative_to(REPO_ROOT))
    print(f"{len(written)} fixtures written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
