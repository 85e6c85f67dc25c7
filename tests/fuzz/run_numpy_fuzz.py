"""Command-line driver of the NumPy differential fuzzer.

    python -m tests.fuzz.run_numpy_fuzz --seeds 0:500 [--jobs 2] [--repro-dir DIR]

For every seed in the range: generate a program (`numpy_programs.program_for_seed`), build its
arguments (`Program.make_args(seed)`), check it (`differential.check_program`). Prints one
line per bug as it is found, then a summary: counts by outcome, the most common clean errors
(constructs outside the subset), the inconclusive cases, and for each bug the seed, the
source, the arguments and the mismatch, with the program shrunk (`shrink`: drop statements
and subexpressions while the failure keeps its signature). With `--repro-dir`, a standalone
script per bug is written there that prints the mismatch.

Invariants: a seed always means the same program and arguments; `--jobs N` runs seeds in N
worker processes (spawned, each with its own compile caches) and the summary does not depend
on N; shrinking has a time budget per bug (`--shrink-seconds`, 0 turns it off).
"""

from __future__ import annotations

import argparse
import ast
import collections
import copy
import multiprocessing
import os
import re
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tests.fuzz.differential import Finding, Outcome, check_program
from tests.fuzz.numpy_programs import program_for_seed

# ---- shrinking --------------------------------------------------------------------------------
# `shrink(source, args, argnums, finding)` greedily tries candidates and keeps the first that
# still fails with the same `Finding.signature()` (outcome, stage, error type), restarting from
# it, until no candidate fails or the budget is spent. Candidates, in order: drop a statement
# (not the `return`), replace an expression by one of its operands (a binary operation by a
# side, a call by an argument, a subscript or `.T` by what it reads, `e.sum()` by `e`), drop a
# keyword argument. Then each argument with a non-C layout is tried as a C-contiguous copy.
# Only the failing stage is rerun for a candidate.


def _function(tree: ast.Module) -> ast.FunctionDef:
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef))


def _statement_lists(fn: ast.FunctionDef) -> list[list[ast.stmt]]:
    out = [fn.body]
    for node in ast.walk(fn):
        if isinstance(node, ast.For | ast.While | ast.If) and node is not fn:
            out.append(node.body)
    return out


def _drop_statements(source: str) -> Iterator[str]:
    tree = ast.parse(source)
    n_lists = len(_statement_lists(_function(tree)))
    for li in range(n_lists):
        base = ast.parse(source)
        length = len(_statement_lists(_function(base))[li])
        for i in range(length):
            t = ast.parse(source)
            body = _statement_lists(_function(t))[li]
            if isinstance(body[i], ast.Return) or (len(body) == 1 and li > 0):
                continue
            del body[i]
            yield ast.unparse(t) + "\n"


def _replacements(node: ast.AST) -> list[ast.AST]:
    """Simpler expressions that may stand for `node`."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Call):
        out: list[ast.AST] = []
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "copy":
            return []  # without the copy, later writes would change an argument
        if isinstance(func, ast.Attribute) and not (isinstance(func.value, ast.Name)
                                                    and func.value.id == "np"):
            if not (isinstance(func.value, ast.Attribute)):
                out.append(func.value)  # (e).sum() -> e
        for a in node.args:
            if isinstance(a, ast.List):
                out.extend(a.elts)
            elif not isinstance(a, ast.Constant):
                out.append(a)
        return out
    if isinstance(node, ast.Subscript):
        return [node.value]
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return [node.value]
    return []


def _expression_edits(source: str) -> Iterator[str]:
    tree = ast.parse(source)
    fn = _function(tree)
    count = sum(1 for _ in ast.walk(fn))
    for k in range(count):
        t = ast.parse(source)
        nodes = list(ast.walk(_function(t)))
        if k >= len(nodes):
            break
        target = nodes[k]
        if not isinstance(target, ast.expr) or isinstance(getattr(target, "ctx", None),
                                                          ast.Store):
            continue
        for parent in nodes:
            for fname, value in ast.iter_fields(parent):
                if value is target:
                    for rep in _replacements(target):
                        setattr(parent, fname, copy.deepcopy(rep))
                        yield ast.unparse(t) + "\n"
                        setattr(parent, fname, target)
                elif isinstance(value, list) and any(v is target for v in value):
                    i = next(j for j, v in enumerate(value) if v is target)
                    for rep in _replacements(target):
                        value[i] = copy.deepcopy(rep)
                        yield ast.unparse(t) + "\n"
                        value[i] = target
        if isinstance(target, ast.Call) and target.keywords:
            for i in range(len(target.keywords)):
                kw = target.keywords.pop(i)
                yield ast.unparse(t) + "\n"
                target.keywords.insert(i, kw)


def _candidates(source: str) -> Iterator[str]:
    seen = {source}
    for c in _drop_statements(source):
        if c not in seen:
            seen.add(c)
            yield c
    for c in _expression_edits(source):
        if c not in seen:
            seen.add(c)
            yield c


def shrink(source: str, args: Sequence[Any], argnums: Any, finding: Finding,
           budget_s: float = 120.0) -> tuple[str, list[Any], Finding]:
    """A smaller program (and arguments) failing like `finding` (see the module docstring)."""
    start = time.monotonic()
    want = finding.signature()
    stages = (finding.stage,) if finding.stage in ("jit", "grad", "jvp") else ("jit", "grad",
                                                                               "jvp")
    best, best_finding = source, finding
    args = list(args)

    def fails(src: str, xs: Sequence[Any]) -> Finding | None:
        got = check_program(src, xs, argnums, stages=stages)
        return got if got is not None and got.signature() == want else None

    progress = True
    while progress and time.monotonic() - start < budget_s:
        progress = False
        for cand in _candidates(best):
            if time.monotonic() - start > budget_s:
                break
            got = fails(cand, args)
            if got is not None:
                best, best_finding, progress = cand, got, True
                break
    for k, a in enumerate(args):
        if isinstance(a, np.ndarray) and not a.flags.c_contiguous:
            trial = list(args)
            trial[k] = np.ascontiguousarray(a)
            got = fails(best, trial)
            if got is not None:
                args, best_finding = trial, got
    return best, args, best_finding



# ---- running seeds ----------------------------------------------------------------------------

@dataclass
class SeedResult:
    """One seed's outcome (plain data: it crosses process boundaries)."""

    seed: int
    outcome: str
    seconds: float
    finding: Finding | None = None
    source: str = ""
    arg_specs: tuple[str, ...] = ()
    argnums: Any = None
    shrunk_source: str = ""
    shrunk_args: list[Any] | None = None
    shrunk_finding: Finding | None = None
    args: list[Any] | None = None


def run_seed(seed: int, shrink_seconds: float = 0.0) -> SeedResult:
    """Generate, check and (for a bug, within the budget) shrink one seed."""
    prog = program_for_seed(seed)
    args = prog.make_args(seed)
    t = time.monotonic()
    try:
        finding = check_program(prog.source, args, prog.argnums)
    except Exception as e:  # noqa: BLE001 - the checker itself broke: report, do not stop
        finding = Finding(Outcome.CRASH, "checker", f"{type(e).__name__}: {e}",
                          type(e).__name__)
    dt = time.monotonic() - t
    res = SeedResult(seed, "ok" if finding is None else finding.outcome.value, dt, finding,
                     prog.source, tuple(a.describe() for a in prog.args), prog.argnums)
    if finding is not None and finding.is_bug:
        res.args = args
        if shrink_seconds > 0 and finding.stage != "checker":
            src, xs, fnd = shrink(prog.source, args, prog.argnums, finding, shrink_seconds)
            res.shrunk_source, res.shrunk_args, res.shrunk_finding = src, xs, fnd
    return res


def _worker(job: tuple[int, float]) -> SeedResult:
    return run_seed(*job)


def parse_seeds(text: str) -> list[int]:
    """`A:B` (B excluded), `A:B:S`, or a comma-separated list of seeds."""
    if ":" in text:
        parts = [int(p) for p in text.split(":")]
        return list(range(*parts))
    return [int(p) for p in text.split(",") if p]


# ---- reports ----------------------------------------------------------------------------------

def describe_array(a: Any) -> str:
    if not isinstance(a, np.ndarray):
        return f"{type(a).__name__} {a!r}"
    flags = "C" if a.flags.c_contiguous else ("F" if a.flags.f_contiguous else "non-contig")
    return f"{a.dtype}{list(a.shape)} strides={a.strides} ({flags})"


_REPRO_TEMPLATE = '''"""Fuzz repro (seed {seed}): {outcome} in {stage}.

{message}
"""

import numpy as np

import enzyme_py as ez


def laid_out(values, dtype, strides):
    """An array holding `values` with these strides (in bytes), in a base of its own."""
    a = np.array(values, dtype=dtype)
    item = a.itemsize
    lo = sum(s * (n - 1) for s, n in zip(strides, a.shape) if s < 0)
    hi = sum(s * (n - 1) for s, n in zip(strides, a.shape) if s > 0)
    base = np.zeros((hi - lo) // item + 3, dtype=dtype)
    out = np.ndarray(a.shape, a.dtype, buffer=base, offset=item - lo, strides=strides)
    out[...] = a
    return out


{source}

ARGS = [
{args}
]
ARGNUMS = {argnums!r}


def copies():
    return [np.array(a) if isinstance(a, np.ndarray) else a for a in ARGS]


def reference_grad(idx):
    """JAX's gradient of the same source (programs without array writes) or central finite
    differences of the NumPy function (in float64)."""
    if {writes!r}:
        out = []
        for k in idx:
            a = np.array(ARGS[k], dtype=np.float64) if isinstance(ARGS[k], np.ndarray) \\
                else float(ARGS[k])
            g = np.zeros(np.shape(a))
            for j in np.ndindex(*np.shape(a)):
                h = 1e-3 * max(1.0, abs(float(a[j] if np.ndim(a) else a)))
                vals = []
                for d in (-2 * h, -h, h, 2 * h):
                    xs = [np.array(x, dtype=np.float64) if isinstance(x, np.ndarray) else x
                          for x in ARGS]
                    if np.ndim(a):
                        xs[k] = a.copy()
                        xs[k][j] += d
                    else:
                        xs[k] = a + d
                    vals.append(float(f(*xs)))
                g[j] = (vals[0] - 8 * vals[1] + 8 * vals[2] - vals[3]) / (12 * h)
            out.append(g)
        return out
    import jax
    import jax.numpy as jnp

    from enzyme_py.testing import numpy_as_jax

    with jax.enable_x64(True):
        jargs = [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in ARGS]
        return [np.asarray(g) for g in
                jax.grad(numpy_as_jax(f), argnums=tuple(idx))(*jargs)]


def main():
    before = copies()
    want = f(*copies())
    got = ez.jit(f)(*ARGS)
    print("value   enzyme_py:", repr(got), "  numpy:", repr(want), "  error:", abs(got - want))
    idx = ARGNUMS if isinstance(ARGNUMS, tuple) else (ARGNUMS,)
    ref = reference_grad(idx)
    if "{stage}" in ("grad", "jit"):
        g = ez.grad(f, argnums=ARGNUMS)(*ARGS)
        g = g if isinstance(ARGNUMS, tuple) else (g,)
        for k, gk, rk in zip(idx, g, ref):
            print(f"grad of argument {{k}}: max error {{np.max(np.abs(gk - rk)):.3e}}")
            print("  enzyme_py:", np.array2string(np.asarray(gk).ravel(), precision=8))
            print("  reference:", np.array2string(np.asarray(rk).ravel(), precision=8))
    else:
        tangents = [np.full(np.shape(a), 0.5, dtype=np.asarray(a).dtype) if isinstance(a, np.ndarray)
                    else 0.5 for a in ARGS]
        _, slope = ez.jvp(f, tuple(ARGS), tuple(tangents))
        want_slope = sum(float(np.sum(r * np.asarray(tangents[k], np.float64)))
                         for k, r in zip(idx, ref))
        print("jvp     enzyme_py:", repr(float(slope)), "  reference:", repr(want_slope))
    for k, (a, b) in enumerate(zip(ARGS, before)):
        if isinstance(a, np.ndarray) and not np.array_equal(a, b):
            print(f"argument {{k}} was modified")


if __name__ == "__main__":
    main()
'''


def repro_script(res: SeedResult) -> str:
    """A standalone script printing the mismatch of a bug (the shrunk program if any)."""
    from tests.fuzz.differential import writes_arrays

    source = res.shrunk_source or res.source
    args = res.shrunk_args if res.shrunk_args is not None else res.args
    finding = res.shrunk_finding or res.finding
    assert finding is not None and args is not None
    lines = []
    for a in args:
        if isinstance(a, np.ndarray):
            lines.append(f"    laid_out({a.tolist()!r}, np.{a.dtype}, {a.strides!r}),  "
                         f"# {describe_array(a)}")
        else:
            lines.append(f"    {a!r},")
    body = source.replace("import numpy as np\n", "").strip()
    idx = res.argnums
    if res.shrunk_args is not None and isinstance(idx, tuple):
        idx = tuple(k for k in idx if k < len(args))
    return _REPRO_TEMPLATE.format(
        seed=res.seed, outcome=finding.outcome.value.upper(), stage=finding.stage,
        message=finding.message.replace('"""', "'''"), source=body, args="\n".join(lines),
        argnums=idx, writes=writes_arrays(source))


def report_bug(res: SeedResult, out: Any = sys.stdout) -> None:
    f = res.shrunk_finding or res.finding
    assert f is not None
    print(f"\n=== seed {res.seed}: {f.outcome.value.upper()} in {f.stage} ===", file=out)
    print("arguments:", "; ".join(res.arg_specs), f"argnums={res.argnums}", file=out)
    print(res.finding.message if res.finding else "", file=out)
    print("--- source ---", file=out)
    print(res.source.rstrip(), file=out)
    if res.shrunk_source:
        print("--- shrunk ---", file=out)
        print(res.shrunk_source.rstrip(), file=out)
        if res.shrunk_args is not None:
            print("shrunk arguments:", "; ".join(describe_array(a) for a in res.shrunk_args),
                  file=out)
        if res.shrunk_finding is not None:
            print(res.shrunk_finding.message, file=out)


def bug_kind(f: Finding) -> str:
    """A bug's kind, to group seeds that likely share a cause: the stage and, for a crash,
    the error's type and first informative line with numbers blurred."""
    if f.outcome is Outcome.WRONG:
        what = f.message.split(":")[0]
        what = re.sub(r"\d+", "N", what)
        return f"WRONG [{f.stage}] {what}"
    lines = [ln for ln in f.message.splitlines() if ln.strip()]
    text = lines[1] if len(lines) > 1 and lines[0].rstrip().endswith(":") else lines[0]
    return f"CRASH [{f.stage}] {f.error_type}: {re.sub(r'[0-9]+', 'N', text.strip())[:120]}"


def summarize(results: Sequence[SeedResult], top: int = 15, out: Any = sys.stdout) -> None:
    counts = collections.Counter(r.outcome for r in results)
    total = len(results)
    print(f"\n{total} programs, {sum(r.seconds for r in results):.0f} s of checks", file=out)
    for k in ("ok", "unsupported", "inconclusive", "wrong", "crash"):
        print(f"  {k:13s} {counts.get(k, 0):5d}  ({100 * counts.get(k, 0) / max(total, 1):.1f}%)",
              file=out)
    unsupported = collections.Counter(
        f"[{r.finding.stage}] {r.finding.error_type}: {r.finding.construct}"
        for r in results if r.outcome == "unsupported" and r.finding)
    if unsupported:
        print("\nmost common clean errors (constructs outside the subset):", file=out)
        for text, n in unsupported.most_common(top):
            seeds = [r.seed for r in results if r.finding and r.outcome == "unsupported"
                     and f"[{r.finding.stage}] {r.finding.error_type}: {r.finding.construct}"
                     == text][:5]
            print(f"  {n:4d}  {text}   (seeds {seeds})", file=out)
    inconclusive = collections.Counter(
        f"[{r.finding.stage}] {r.finding.message.splitlines()[0][:90]}"
        for r in results if r.outcome == "inconclusive" and r.finding)
    if inconclusive:
        print("\ninconclusive (reference failed or a tie):", file=out)
        for text, n in inconclusive.most_common(top):
            print(f"  {n:4d}  {text}", file=out)
    bugs = [r for r in results if r.outcome in ("wrong", "crash")]
    print(f"\n{len(bugs)} bugs: {[r.seed for r in bugs]}", file=out)
    kinds = collections.defaultdict(list)
    for r in bugs:
        assert r.finding is not None
        kinds[bug_kind(r.finding)].append(r.seed)
    for kind, seeds in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(seeds):4d}  {kind}   (seeds {seeds[:8]})", file=out)
    for r in bugs:
        report_bug(r, out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0:100", help="A:B, A:B:STEP or a comma list")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--shrink-seconds", type=float, default=90.0)
    ap.add_argument("--repro-dir", default="")
    ap.add_argument("--verbose", action="store_true", help="one line per seed")
    opts = ap.parse_args(argv)
    seeds = parse_seeds(opts.seeds)

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)  # `kill PID`: stop and print the summary so far
    jobs = [(s, opts.shrink_seconds) for s in seeds]
    results: list[SeedResult] = []
    start = time.monotonic()

    def note(res: SeedResult) -> None:
        results.append(res)
        f = res.finding
        if opts.verbose or (f is not None and f.is_bug):
            detail = "" if f is None else f"{f.stage}: {(f.construct or f.message)[:150]}"
            print(f"seed {res.seed:6d} {res.outcome:12s} {res.seconds:5.2f}s {detail}",
                  flush=True)
        if len(results) % 100 == 0:
            counts = collections.Counter(r.outcome for r in results)
            print(f"... {len(results)}/{len(seeds)} seeds, {time.monotonic() - start:.0f} s, "
                  f"{dict(counts)}", flush=True)

    try:
        if opts.jobs > 1:
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(opts.jobs) as pool:
                for res in pool.imap_unordered(_worker, jobs):
                    note(res)
        else:
            for job in jobs:
                note(_worker(job))
    except KeyboardInterrupt:
        print(f"interrupted: summary of the {len(results)} seeds done", flush=True)
    results.sort(key=lambda r: r.seed)
    summarize(results)
    if opts.repro_dir:
        os.makedirs(opts.repro_dir, exist_ok=True)
        for r in results:
            if r.outcome in ("wrong", "crash") and r.args is not None:
                path = os.path.join(opts.repro_dir, f"seed_{r.seed}.py")
                with open(path, "w") as fh:
                    fh.write(repro_script(r))
                print(f"wrote {path}")
    print(f"\n{time.monotonic() - start:.0f} s wall")
    return 1 if any(r.outcome in ("wrong", "crash") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
