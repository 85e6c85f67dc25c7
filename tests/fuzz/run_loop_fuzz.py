"""Driver of the loop-style differential fuzzer.

    python -m tests.fuzz.run_loop_fuzz --seeds 0:500 [--jobs 2] [--full] [--shrink]

runs `check_program` on `program_for_seed(seed)` for each seed and prints a summary: outcome
counts, the most common refused constructs, and for each bug its seed, (shrunk) source and
mismatch.

Invariants:

- Each check runs in a worker process (spawned, so the parent never loads LLVM): a worker
  killed by a signal (a segfault in compiled code) is a `CRASH` at stage `signal`, one that
  runs past `--timeout` seconds a `CRASH` at stage `hang`; the worker is replaced and the run
  goes on.
- Shrinking (`--shrink`) is greedy over the AST (delete a statement, replace a compound
  statement by one of its bodies, replace an expression by one of its operands, drop a
  helper) and keeps a candidate only when it still gives a bug of the same outcome and stage.
- Deterministic for given seeds (up to timeouts).
"""

from __future__ import annotations

import argparse
import ast
import collections
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from tests.fuzz.loop_programs import program_for_seed

__all__ = ["Result", "WorkerPool", "main", "shrink"]


@dataclass(frozen=True)
class Result:
    """A check's outcome in plain values (it crosses processes)."""

    outcome: str  # ok, unsupported, wrong, crash, inconclusive
    stage: str = ""
    message: str = ""
    construct: str = ""
    seconds: float = 0.0

    @property
    def is_bug(self) -> bool:
        return self.outcome in ("wrong", "crash")


def _worker(conn: Connection, full: bool) -> None:
    os.environ.setdefault("PYTHONHASHSEED", "0")
    from tests.fuzz.loop_differential import check_program

    while True:
        task = conn.recv()
        if task is None:
            return
        source, args = task
        t = time.time()
        f = check_program(source, args, full=full)
        r = Result("ok", seconds=time.time() - t) if f is None else \
            Result(f.outcome.value, f.stage, f.message, f.construct, time.time() - t)
        conn.send(r)


class _Slot:
    def __init__(self, ctx: Any, full: bool) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, full), daemon=True)
        self.proc.start()
        child.close()
        self.task: Any = None
        self.started = 0.0

    def close(self) -> None:
        if self.proc.is_alive():
            try:
                self.conn.send(None)
            except OSError:
                pass
            self.proc.join(2)
            if self.proc.is_alive():
                self.proc.kill()
        self.proc.join()


class WorkerPool:
    """`jobs` worker processes; `run(tasks)` yields `(key, Result)` as checks finish."""

    def __init__(self, jobs: int, full: bool, timeout: float) -> None:
        self.ctx = mp.get_context("spawn")
        self.full, self.timeout = full, timeout
        self.slots = [_Slot(self.ctx, full) for _ in range(jobs)]

    def run(self, tasks: Iterator[tuple[Any, str, tuple]]) -> Iterator[tuple[Any, Result]]:
        busy: dict[int, tuple[Any, float]] = {}
        tasks = iter(tasks)
        done = False
        while True:
            for i, sl in enumerate(self.slots):
                if i not in busy and not done:
                    try:
                        key, src, args = next(tasks)
                    except StopIteration:
                        done = True
                        break
                    sl.conn.send((src, args))
                    busy[i] = (key, time.time())
            if not busy:
                return
            wait([self.slots[i].conn for i in busy] + [self.slots[i].proc.sentinel
                                                        for i in busy], timeout=0.5)
            for i in list(busy):
                sl, (key, t0) = self.slots[i], busy[i]
                res: Result | None = None
                if sl.conn.poll():
                    try:
                        res = sl.conn.recv()
                    except EOFError:
                        res = None
                if res is None and not sl.proc.is_alive():
                    res = Result("crash", "signal", f"worker died, exit code {sl.proc.exitcode}",
                                 f"signal {-(sl.proc.exitcode or 0)}", time.time() - t0)
                    self.slots[i] = _Slot(self.ctx, self.full)
                elif res is None and time.time() - t0 > self.timeout:
                    sl.proc.kill()
                    sl.proc.join()
                    res = Result("crash", "hang", f"no result after {self.timeout} s", "hang",
                                 time.time() - t0)
                    self.slots[i] = _Slot(self.ctx, self.full)
                if res is not None:
                    del busy[i]
                    yield key, res

    def check(self, source: str, args: tuple) -> Result:
        return next(iter(self.run(iter([(0, source, args)]))))[1]

    def close(self) -> None:
        for sl in self.slots:
            sl.close()


# --- shrinking ---------------------------------------------------------------------------

def _bodies(node: ast.AST) -> Iterator[list[ast.stmt]]:
    for fld in ("body", "orelse"):
        b = getattr(node, fld, None)
        if isinstance(b, list) and b and isinstance(b[0], ast.stmt):
            yield b
    for child in ast.iter_child_nodes(node):
        yield from _bodies(child)


def _candidates(source: str) -> Iterator[str]:
    """Smaller variants of `source`, biggest cuts first."""
    tree = ast.parse(source)
    n_bodies = sum(1 for _ in _bodies(tree))
    for bi in range(n_bodies):
        for si in range(64):
            t = ast.parse(source)
            body = list(_bodies(t))[bi]
            if si >= len(body):
                break
            st = body[si]
            if isinstance(st, ast.FunctionDef) and st.name == "f":
                continue
            if isinstance(st, ast.Import | ast.ImportFrom):
                continue
            repl: list[list[ast.stmt]] = [[]]
            if isinstance(st, ast.If | ast.For | ast.While):
                repl.append(st.body)
                if st.orelse:
                    repl.append(st.orelse)
            for r in repl:
                t2 = ast.parse(source)
                b2 = list(_bodies(t2))[bi]
                new = [ast.parse(ast.unparse(x)).body[0] for x in r] if r else []
                b2[si:si + 1] = new
                if not b2:
                    b2.append(ast.Pass())
                yield ast.unparse(t2) + "\n"
    yield from _expr_candidates(source)


def _expr_candidates(source: str) -> Iterator[str]:
    tree = ast.parse(source)
    count = sum(1 for _ in ast.walk(tree))
    for k in range(count):
        for choice in range(3):
            t = ast.parse(source)
            nodes = list(ast.walk(t))
            if k >= len(nodes):
                return
            target = nodes[k]
            sub: ast.expr | None = None
            if isinstance(target, ast.BinOp):
                sub = (target.left, target.right, None)[choice]
            elif isinstance(target, ast.Call) and target.args and choice < len(target.args) \
                    and isinstance(target.func, ast.Attribute) and \
                    isinstance(target.func.value, ast.Name) and target.func.value.id == "math":
                sub = target.args[choice]
            elif isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and \
                    target.func.id in ("min", "max", "abs") and choice < len(target.args):
                sub = target.args[choice]
            elif isinstance(target, ast.IfExp):
                sub = (target.body, target.orelse, None)[choice]
            elif isinstance(target, ast.BoolOp) and choice < len(target.values):
                sub = target.values[choice]
            if sub is None:
                continue
            for parent in ast.walk(t):
                for fld, val in ast.iter_fields(parent):
                    if val is target:
                        setattr(parent, fld, sub)
                    elif isinstance(val, list):
                        for i, v in enumerate(val):
                            if v is target:
                                val[i] = sub
            yield ast.unparse(t) + "\n"


def shrink(pool: WorkerPool, source: str, args: tuple, want: Result,
           budget_s: float = 150.0) -> str:
    """A smaller source that still gives a bug like `want` (same outcome and stage)."""
    t0 = time.time()
    best = source
    progress = True
    while progress and time.time() - t0 < budget_s:
        progress = False
        seen = set()
        for cand in _candidates(best):
            if time.time() - t0 > budget_s:
                break
            if cand in seen or len(cand) >= len(best):
                continue
            seen.add(cand)
            r = pool.check(cand, args)
            if r.outcome == want.outcome and r.stage == want.stage:
                best = cand
                progress = True
                break
    return best


def _parse_seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if ":" in part:
            a, b = part.split(":")
            out += range(int(a), int(b))
        else:
            out.append(int(part))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0:100", help="a:b ranges and numbers, comma-separated")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--full", action="store_true", help="also jvp and value_and_grad")
    ap.add_argument("--shrink", action="store_true")
    ap.add_argument("--verbose", "-v", action="store_true")
    ns = ap.parse_args(argv)
    seeds = _parse_seeds(ns.seeds)
    pool = WorkerPool(ns.jobs, ns.full, ns.timeout)
    counts: collections.Counter[str] = collections.Counter()
    constructs: collections.Counter[str] = collections.Counter()
    bugs: list[tuple[int, Result]] = []
    t0 = time.time()
    programs = {}

    def tasks() -> Iterator[tuple[int, str, tuple]]:
        for sd in seeds:
            p = program_for_seed(sd)
            programs[sd] = p
            yield sd, p.source, p.args

    try:
        for sd, r in pool.run(tasks()):
            counts[r.outcome] += 1
            if r.outcome == "unsupported":
                constructs[f"[{r.stage}] {r.construct}"] += 1
            if r.is_bug:
                bugs.append((sd, r))
            if ns.verbose or r.is_bug:
                print(f"seed {sd}: {r.outcome} {r.stage} {r.seconds:.1f}s "
                      f"{r.construct or r.message.splitlines()[0] if r.message else ''}",
                      flush=True)
        print(f"\n{len(seeds)} programs in {time.time() - t0:.0f} s")
        for k, v in counts.most_common():
            print(f"  {k:13s} {v:5d}  ({100 * v / len(seeds):.0f}%)")
        if constructs:
            print("\nmost common refusals:")
            for k, v in constructs.most_common(15):
                print(f"  {v:4d}  {k}")
        for sd, r in sorted(bugs):
            p = programs[sd]
            src = p.source
            if ns.shrink:
                src = shrink(pool, p.source, p.args, r)
            print(f"\n=== BUG seed {sd}: {r.outcome} at {r.stage} ===")
            print(src)
            print(f"args = {p.args!r}")
            print(r.message)
    finally:
        pool.close()
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
