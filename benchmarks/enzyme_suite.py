"""Enzyme's own C/C++ integration tests through `enzyme-py transform` (`make enzyme-tests`).

Enzyme's repository holds self-checking programs in ``enzyme/test/Integration`` (their
``test_utils.h`` ``APPROX_EQ`` aborts on a wrong gradient).  This runner takes the
``ReverseMode`` and ``ForwardMode`` programs, leaves out what needs something we do not
provide (``EXCLUDED``: one reason per file), and runs each at -O0 and -O2::

    clang-22 -O{0,2} <the test's own flags> -S -emit-llvm test.c -o test.ll     (clang)
    python -m enzyme_py transform test.ll -o grad.ll                             (transform)
    clang-22 -O2 grad.ll -o test -lm        (clang++-22 ... for C++)             (link)
    ./test                                   (in a scratch folder)               (run)

A run passes when the program exits 0.  Each failure is reported with its stage and the
first line of its message; the results also go to a JSON file.  The tests are never
fetched here: ``ENZYME_INTEGRATION_TESTS`` names the ``Integration`` folder of a checkout.

The RUN lines are honoured as lit would for LLVM 22: ``if [ %llvmver ... ]`` conditions
select the lines (a file with none left is excluded), the clang flags of the line at each
level are kept (``-std=``, ``-ffast-math``, ``-fno-exceptions`` ...; Enzyme's own options
dropped), C++ links with clang++.  Where the RUN lines load Enzyme's clang plugin, which
differentiates inside clang's pipeline, -O2 is clang's unoptimized -O2 output run through
``transform --preoptimize``.  A program the RUN lines only compile (``cout.cpp``) passes
when it links; what running it gives is kept in the message.  When clang warns that it
ignored an ``enzyme_*`` attribute (only the plugin gives those meaning), a failure says so.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV_VAR = "ENZYME_INTEGRATION_TESTS"
SUBDIRS = ("ReverseMode", "ForwardMode")
OPT_LEVELS = ("-O0", "-O2")
DEFAULT_JSON = ROOT / "benchmarks" / "enzyme_suite.json"
LLVM_VERSION = 22  # clang-22: the RUN lines' `if [ %llvmver ... ]` conditions are read for it

HOW_TO_GET = f"""\
{ENV_VAR} is not set: it names the enzyme/test/Integration folder of Enzyme's sources.
Get them once, for example:

    git clone --depth 1 https://github.com/EnzymeAD/Enzyme /tmp/Enzyme
    export {ENV_VAR}=/tmp/Enzyme/enzyme/test/Integration
    make enzyme-tests

(benchmarks/enzyme_suite.json was measured on Enzyme's February 2025 sources, the fork
snapshot minansys/Enzyme at 69e20cccdaad0506b6788b274fc9762d36785ae6)."""

# (glob relative to the Integration folder, why the file is left out); first match wins.
EXCLUDED: list[tuple[str, str]] = [
    ("*/mpi_*", "MPI: needs an MPI runtime"),
    ("*/omp*", "OpenMP: needs -fopenmp and Enzyme's OpenMP support"),
    ("ReverseMode/cublas.cpp", "CUDA: calls cuBLAS"),
    ("*/blas*", "BLAS runtime: calls a BLAS library (blasinfra.h / blas_inline.h)"),
    ("*/*eigen*", "Eigen: needs the Eigen headers"),
    ("*/sugar.cpp", "Enzyme's C++ header (enzyme/enzyme, enzyme::autodiff)"),
    ("*/err_*", "diagnostic only: checks Enzyme's compile errors (-Xclang -verify)"),
    ("ReverseMode/allocatedtape_err.c", "diagnostic only: checks a compile error (-verify)"),
    ("ReverseMode/warn_cache.c", "diagnostic only: checks a compile warning (-verify)"),
    ("ForwardMode/nofn.cpp", "diagnostic only: checks a compile error (-verify)"),
]

_IGNORED_ATTRIBUTE = re.compile(r"unknown attribute '(enzyme_\w+)' ignored")

# RUN-line tokens that belong to Enzyme's plugin or to lit, not to the program.
_DROP_WITH_ARG = {"-o", "-x"}
_DROP = {"-S", "-emit-llvm", "%s", "-", "%loadClangEnzyme", "%newLoadClangEnzyme"}


@dataclass
class Result:
    """One program at one optimization level."""

    file: str
    opt: str
    passed: bool
    stage: str  # "" when passed, else clang | transform | link | run | timeout
    message: str
    seconds: float


@dataclass(frozen=True)
class Test:
    file: str  # relative to the Integration folder
    path: Path
    cxx: bool
    plugin: bool  # the RUN lines load Enzyme's clang plugin (it runs inside clang's -O2)
    compile_only: bool  # the RUN lines never execute the program


def excluded_reason(rel: str) -> str | None:
    for pattern, reason in EXCLUDED:
        if fnmatch(rel, pattern):
            return reason
    return None


def discover(tests_dir: Path) -> tuple[list[Test], list[tuple[str, str]]]:
    """The selected programs and the excluded ones with their reasons, sorted by name."""
    selected: list[Test] = []
    skipped: list[tuple[str, str]] = []
    for sub in SUBDIRS:
        for path in sorted((tests_dir / sub).rglob("*")):
            if path.suffix not in (".c", ".cpp") or not path.is_file():
                continue
            rel = path.relative_to(tests_dir).as_posix()
            reason = excluded_reason(rel)
            if reason is not None:
                skipped.append((rel, reason))
                continue
            text = path.read_text(errors="replace")
            lines = _run_lines(text)
            if not lines:
                skipped.append((rel, f"no RUN line applies to LLVM {LLVM_VERSION}"))
                continue
            cxx = path.suffix == ".cpp" or any("%clang++" in ln for ln in lines)
            plugin = any("LoadClangEnzyme" in ln for ln in lines)
            compile_only = not any("%lli" in ln or ".out" in ln for ln in lines)
            selected.append(Test(rel, path, cxx, plugin, compile_only))
    return selected, skipped


_CONDITION = re.compile(r"^\s*if\s+\[\s*(.*?)\s*\];\s*then\s+(.*?)\s*;\s*fi\s*$")
_TEST = re.compile(r"%llvmver\s+-(eq|ne|lt|le|gt|ge)\s+(\d+)")
_COMPARE = {"eq": int.__eq__, "ne": int.__ne__, "lt": int.__lt__, "le": int.__le__,
            "gt": int.__gt__, "ge": int.__ge__}


def _applies(condition: str) -> bool:
    """`%llvmver -ge 12` (or several joined by `] && [`) holds for LLVM_VERSION."""
    tests = _TEST.findall(condition)
    return bool(tests) and all(_COMPARE[op](LLVM_VERSION, int(n)) for op, n in tests)


def _run_lines(text: str) -> list[str]:
    """The RUN commands that lit would run with LLVM_VERSION (`if [ %llvmver ... ]` honoured)."""
    out = []
    for m in re.finditer(r"^\s*//\s*RUN:(.*)$", text, re.M):
        line = m.group(1)
        cond = _CONDITION.match(line)
        if cond is not None:
            if not _applies(cond.group(1)):
                continue
            line = cond.group(2)
        out.append(line)
    return out


def clang_flags(text: str, opt: str) -> list[str]:
    """The program's own clang flags from its RUN line at `opt` (else its first RUN line),
    without the -O level and without Enzyme's plugin options."""
    lines = _run_lines(text)
    want = "%O0TBAA" if opt == "-O0" else opt

    def level_of(line: str) -> bool:
        return re.search(rf"(^|\s)({re.escape(opt)}|{re.escape(want)})(\s|$)", line) is not None

    chosen = next((ln for ln in lines if level_of(ln)), lines[0] if lines else "")
    start = chosen.find("%clang")
    if start < 0:
        return []
    cmd = re.split(r"\||;", chosen[start:])[0]
    tokens = shlex.split(cmd)[1:]
    flags: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if tok in _DROP_WITH_ARG:
            i += 2
            continue
        if tok in ("-Xclang", "-mllvm"):
            if nxt == "-verify" or nxt.startswith("-enzyme") or nxt == "-load" or \
                    nxt.endswith(".so") or nxt.startswith("%"):
                i += 2
                continue
            flags += [tok, nxt]
            i += 2
            continue
        if tok in _DROP or tok.startswith("%") or re.fullmatch(r"-O[0-3sz]?", tok):
            i += 1
            continue
        flags.append(tok)
        i += 1
    return flags


def _first_line(text: str, prefer: tuple[str, ...] = ("error",)) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for word in prefer:
        for ln in lines:
            if word in ln.lower():
                return ln[:2000]
    return lines[0][:2000] if lines else ""


def run_one(test: Test, opt: str, tools: dict[str, str], timeout: float,
            keep: Path | None) -> Result:
    t0 = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="enzyme_suite_"))
    stem = f"{Path(test.file).stem}{opt}"
    ll, grad, exe = work / f"{stem}.ll", work / f"{stem}.grad.ll", work / stem
    compiler = tools["clang++"] if test.cxx else tools["clang"]
    text = test.path.read_text(errors="replace")
    lang = ["-x", "c++"] if test.cxx and test.path.suffix == ".c" else []
    # Enzyme's clang plugin differentiates inside clang's -O2 pipeline: clang's unoptimized
    # -O2 output, optimized by `transform --preoptimize` around the differentiation.
    inside = test.plugin and opt != "-O0"
    level = [opt, "-Xclang", "-disable-llvm-passes"] if inside else [opt]
    stages = [
        ("clang", [compiler, *level, *clang_flags(text, opt), *lang, "-S", "-emit-llvm",
                   "-Wno-everything", "-Wunknown-attributes", str(test.path), "-o", str(ll)]),
        ("transform", [sys.executable, "-m", "enzyme_py", "transform",
                       *(["--preoptimize"] if inside else []), str(ll), "-o", str(grad)]),
        ("link", [compiler, "-O2", "-Wno-everything", str(grad), "-o", str(exe), "-lm"]),
        ("run", [str(exe)]),
    ]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    scratch = work / "cwd"
    scratch.mkdir()
    result = None
    ignored: list[str] = []
    for stage, cmd in stages:
        left = timeout - (time.monotonic() - t0)
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                 timeout=max(left, 1.0), cwd=scratch, env=env,
                                 stdin=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            result = Result(test.file, opt, False, "timeout",
                            f"{stage} still running after {timeout:.0f}s in all",
                            time.monotonic() - t0)
            break
        if stage == "clang":
            ignored = sorted(set(_IGNORED_ATTRIBUTE.findall(res.stderr)))
        if res.returncode != 0 and stage == "run" and test.compile_only:
            code = res.returncode
            why = f"signal {-code}" if code < 0 else f"exit {code}"
            note = (f"compile-only (its RUN lines never execute it); executing it: {why}: "
                    f"{_first_line(res.stderr + res.stdout, ('error', 'abort', 'assert'))}")
            result = Result(test.file, opt, True, "", note, time.monotonic() - t0)
            break
        if res.returncode != 0:
            out = res.stderr + "\n" + res.stdout
            if stage == "link":
                msg = _first_line(out, ("undefined reference", "error"))
                if "__enzyme_" in msg:
                    msg = "UNLOWERED " + msg
            elif stage == "run":
                code = res.returncode
                why = f"signal {-code}" if code < 0 else f"exit {code}"
                msg = f"{why}: {_first_line(out, ('error', 'abort', 'assert'))}"
            else:
                msg = _first_line(out)
            if ignored:  # what the test relies on never reached the IR
                names = ", ".join(f"__attribute__(({a}))" for a in ignored)
                msg = (f"clang ignored {names} (only Enzyme's clang plugin puts it in the IR); "
                       + msg)
            result = Result(test.file, opt, False, stage, msg, time.monotonic() - t0)
            break
    if result is None:
        result = Result(test.file, opt, True, "", "", time.monotonic() - t0)
    if keep is not None:
        dest = keep / test.file.replace("/", "_")
        dest.mkdir(parents=True, exist_ok=True)
        for f in work.iterdir():
            if f.is_file():
                shutil.copy2(f, dest / f.name)
    shutil.rmtree(work, ignore_errors=True)
    return result


def find_tools() -> dict[str, str] | None:
    tools = {"clang": shutil.which("clang-22"), "clang++": shutil.which("clang++-22")}
    if tools["clang++"] is None and tools["clang"] is not None:
        tools["clang++"] = tools["clang"].replace("clang-22", "clang++-22")
    if any(v is None for v in tools.values()):
        return None
    return {k: v for k, v in tools.items() if v is not None}


def _clip(msg: str, keep: int = 420) -> str:
    """A long message's start and end (C++ names make the middle long; the cause is last)."""
    if len(msg) <= keep:
        return msg
    return msg[:keep // 3] + " [...] " + msg[-(2 * keep) // 3:]


def print_table(results: list[Result]) -> None:
    width = max((len(r.file) for r in results), default=10)
    for r in results:
        status = "pass" if r.passed else "FAIL"
        detail = f"  ({r.message})" if r.passed and r.message else ""
        if not r.passed:
            detail = f"  [{r.stage}] {_clip(r.message)}"
        print(f"{r.file:<{width}}  {r.opt}  {status}  {r.seconds:6.1f}s{detail}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", "-j", type=int, default=2, help="parallel runs (default 2)")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="seconds per run, all stages together (default 600)")
    ap.add_argument("--only", action="append", default=[],
                    help="run only the files whose path contains this text (repeatable)")
    ap.add_argument("--opt", action="append", choices=OPT_LEVELS,
                    help="optimization levels (default: -O0 and -O2)")
    ap.add_argument("--json", type=Path, default=DEFAULT_JSON,
                    help=f"where to write the results (default {DEFAULT_JSON})")
    ap.add_argument("--keep", type=Path, default=None,
                    help="copy each run's .ll files and executable into this folder")
    ap.add_argument("--list", action="store_true", help="list the selection and exit")
    args = ap.parse_args(argv)

    where = os.environ.get(ENV_VAR)
    if not where:
        print(HOW_TO_GET, file=sys.stderr)
        return 2
    tests_dir = Path(where)
    if not (tests_dir / "ReverseMode").is_dir() or not (tests_dir / "test_utils.h").is_file():
        print(f"{ENV_VAR}={where} has no ReverseMode/ folder and test_utils.h: it must name "
              f"enzyme/test/Integration.\n\n{HOW_TO_GET}", file=sys.stderr)
        return 2
    selected, skipped = discover(tests_dir)
    if args.only:
        selected = [t for t in selected if any(s in t.file for s in args.only)]
    if args.list:
        for t in selected:
            print(f"run   {t.file}{'  (C++)' if t.cxx else ''}")
        for rel, reason in skipped:
            print(f"skip  {rel}: {reason}")
        print(f"{len(selected)} selected, {len(skipped)} excluded")
        return 0
    tools = find_tools()
    if tools is None:
        print("clang-22 and clang++-22 are needed (apt-get install clang-22)", file=sys.stderr)
        return 2
    opts = tuple(args.opt) if args.opt else OPT_LEVELS
    jobs = [(t, o) for t in selected for o in opts]
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        futures = [pool.submit(run_one, t, o, tools, args.timeout, args.keep) for t, o in jobs]
        results = []
        for fut in futures:
            r = fut.result()
            results.append(r)
            print(f"{'pass' if r.passed else 'FAIL'} {r.file} {r.opt}"
                  f"{'' if r.passed else f' [{r.stage}] {_clip(r.message)}'}", file=sys.stderr,
                  flush=True)
    print_table(results)
    totals = {}
    for o in opts:
        rs = [r for r in results if r.opt == o]
        totals[o] = {"passed": sum(r.passed for r in rs), "runs": len(rs)}
        print(f"{o}: {totals[o]['passed']} of {totals[o]['runs']} passed")
    passed = sum(r.passed for r in results)
    print(f"total: {passed} of {len(results)} runs passed "
          f"({len(selected)} files, {len(skipped)} excluded, {time.monotonic() - t0:.0f}s)")
    report = {"tests_dir": str(tests_dir), "totals": totals,
              "passed": passed, "runs": len(results),
              "excluded": [{"file": f, "reason": r} for f, r in skipped],
              "results": [asdict(r) for r in results]}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n")
    print(f"results written to {args.json}")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
