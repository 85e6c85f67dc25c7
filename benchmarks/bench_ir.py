"""Parser and printer throughput on a large clang -O2 module (lines per second, medians).

Run: `python benchmarks/bench_ir.py [--repeat N] [--quick]` (also part of `make bench`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from enzyme_py.ir import parse, verify  # noqa: E402

BIG = ROOT / "benchmarks" / "data" / "big.O2.ll"


def _median_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run(repeat: int = 5, quick: bool = False) -> dict[str, float]:
    text = BIG.read_text()
    lines = text.count("\n")
    module = parse(text)
    parse_s = _median_seconds(lambda: parse(text), repeat)
    print_s = _median_seconds(lambda: str(module), repeat)
    verify_s = _median_seconds(lambda: verify(module), repeat)
    return {
        "lines": lines,
        "parse_lines_per_s": lines / parse_s,
        "print_lines_per_s": lines / print_s,
        "verify_lines_per_s": lines / verify_s,
        "parse_s": parse_s,
        "print_s": print_s,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="one run instead of several")
    ap.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    args = ap.parse_args(argv)
    res = run(1 if args.quick else args.repeat, args.quick)
    print(f"IR throughput on {BIG.name} ({res['lines']:,} lines), median of runs:")
    for key in ("parse", "print", "verify"):
        print(f"  {key:7s} {res[key + '_lines_per_s']:>12,.0f} lines/s")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
