"""Run every benchmark (`make bench`), or a quick smoke run of each (`make bench-quick`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import (  # noqa: E402
    bench_adbench,
    bench_calls,
    bench_checkpoint,
    bench_ir,
    bench_reverse,
)

BENCHMARKS = [("IR parse/print", bench_ir.main),
              ("reverse mode vs primal", bench_reverse.main),
              ("call overhead", bench_calls.main),
              ("ADBench-style objectives vs JAX", bench_adbench.main),
              ("checkpointing on long loops", bench_checkpoint.main)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="small sizes, one run each")
    args = ap.parse_args(argv)
    status = 0
    for title, bench_main in BENCHMARKS:
        print(f"=== {title} ===")
        status |= bench_main(["--quick"] if args.quick else [])
    return status


if __name__ == "__main__":
    sys.exit(main())
