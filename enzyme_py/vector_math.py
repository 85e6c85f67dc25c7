"""Vector versions of libm calls (glibc's libmvec) for LLVM's loop vectorizer.

LLVM vectorizes a loop that calls `sin` only if it knows a vector `sin`. The LLVM inside
llvmlite has no `-vector-library` option, so the mapping is stated per call site, with LLVM's
vector function ABI attribute::

    call double @llvm.sin.f64(double %x)
        "vector-function-abi-variant"="_ZGV_LLVM_N4v_llvm.sin.f64(_ZGVdN4v_sin)"

on one line (several variants are separated by commas), and every vector function named
there is declared and listed in `@llvm.compiler.used`, so that no pass deletes the (still
unused) declaration before the vectorizer runs.

Invariants:

- A string-level edit of LLVM text; this module never imports llvmlite (the backend says which
  vector symbols exist in the process and which ISAs the host CPU has).
- Only the call sites of `MATH_FUNCTIONS` change, and only by the attribute; what the code
  computes changes only within libmvec's accuracy (glibc documents < 4 ulp for these).
- Text that calls none of them, or that already has such an attribute, is returned
  unchanged (the same string); an `@llvm.compiler.used` already there
  is kept, with the vector functions added to its list.
- Meant for the final compilation only: the differentiation has no rules for `_ZGV*` calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["ISAS", "MATH_FUNCTIONS", "VectorLibrary", "annotate", "vector_library"]

ATTRIBUTE = "vector-function-abi-variant"


@dataclass(frozen=True)
class MathFunction:
    """A scalar libm function: its libmvec base name, element type and arity."""

    base: str
    elem: str  # "double" or "float"
    arity: int


def _math_functions() -> dict[str, MathFunction]:
    table: dict[str, MathFunction] = {}
    for name, arity in (("sin", 1), ("cos", 1), ("exp", 1), ("log", 1), ("pow", 2)):
        for elem, suffix, bits in (("double", "", 64), ("float", "f", 32)):
            fn = MathFunction(name + suffix, elem, arity)
            table[name + suffix] = fn  # the libm call (C code)
            table[f"llvm.{name}.f{bits}"] = fn  # the intrinsic (Python front end, clang)
    return table


#: Callee name -> the libm function it computes.
MATH_FUNCTIONS: dict[str, MathFunction] = _math_functions()

#: libmvec's x86-64 ISA letters: (letter, vector bytes, host feature needed or None).
ISAS: tuple[tuple[str, int, str | None], ...] = (
    ("b", 16, None),  # SSE (x86-64 baseline; libmvec picks SSE4.1 code when it can)
    ("d", 32, "avx2"),
    ("e", 64, "avx512f"),
)


@dataclass(frozen=True)
class Variant:
    lanes: int
    symbol: str  # e.g. "_ZGVdN4v_sin"


@dataclass(frozen=True)
class VectorLibrary:
    """The vector variants available, per libmvec base name (narrowest first)."""

    variants: dict[str, tuple[Variant, ...]]

    def __bool__(self) -> bool:
        return bool(self.variants)


def _vector_type(lanes: int, elem: str) -> str:
    return f"<{lanes} x {elem}>"


def vector_library(features: str, available: Callable[[str], bool]) -> VectorLibrary:
    """The variants of `MATH_FUNCTIONS` the host can run: `features` is LLVM's host feature
    string ("+avx2,-avx512f,..."), `available(symbol)` says whether the process defines it."""
    have = {f[1:] for f in features.split(",") if f.startswith("+")}
    variants: dict[str, tuple[Variant, ...]] = {}
    for fn in {f.base: f for f in MATH_FUNCTIONS.values()}.values():
        found = []
        for letter, nbytes, feature in ISAS:
            if feature is not None and feature not in have:
                continue
            lanes = nbytes // (8 if fn.elem == "double" else 4)
            symbol = f"_ZGV{letter}N{lanes}{'v' * fn.arity}_{fn.base}"
            if available(symbol):
                found.append(Variant(lanes, symbol))
        if found:
            variants[fn.base] = tuple(found)
    return VectorLibrary(variants)


_CALL = re.compile(r"\bcall\b[^@\n;]*@([\w.]+)\(")


def _closing_paren(line: str, start: int) -> int:
    """Index of the `)` that closes the `(` just before `start`; -1 if none on the line."""
    depth = 1
    for i in range(start, len(line)):
        if line[i] == "(":
            depth += 1
        elif line[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _attribute(callee: str, fn: MathFunction, variants: tuple[Variant, ...]) -> str:
    params = "v" * fn.arity
    value = ",".join(f"_ZGV_LLVM_N{v.lanes}{params}_{callee}({v.symbol})" for v in variants)
    return f' "{ATTRIBUTE}"="{value}"'


def _declaration(fn: MathFunction, variant: Variant) -> str:
    vt = _vector_type(variant.lanes, fn.elem)
    return f"declare {vt} @{variant.symbol}({', '.join([vt] * fn.arity)})"


def annotate(text: str, library: VectorLibrary) -> str:
    """`text` with every call of a `MATH_FUNCTIONS` function mapped to its vector variants."""
    if not library or ATTRIBUTE in text:
        return text
    used: dict[str, MathFunction] = {}
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if "call" not in line or line.lstrip().startswith(";"):
            continue
        match = _CALL.search(line)
        if match is None:
            continue
        fn = MATH_FUNCTIONS.get(match.group(1))
        variants = library.variants.get(fn.base) if fn is not None else None
        end = _closing_paren(line, match.end())
        if fn is None or variants is None or end < 0:
            continue
        lines[k] = line[:end + 1] + _attribute(match.group(1), fn, variants) + line[end + 1:]
        used[fn.base] = fn
    if not used:
        return text
    symbols = [(fn, v) for fn in used.values() for v in library.variants[fn.base]]
    kept = [f"ptr @{v.symbol}" for _, v in symbols]
    for k, line in enumerate(lines):  # a list already there: its entries first, then ours
        match = _USED.match(line)
        if match:
            kept = [item.strip() for item in match.group(1).split(",")] + kept
            lines[k] = ""
    extra = [_declaration(fn, v) for fn, v in symbols]
    extra.append(f"@llvm.compiler.used = appending global [{len(kept)} x ptr] "
                 f"[{', '.join(kept)}], " 'section "llvm.metadata"')
    return "\n".join(lines).rstrip("\n") + "\n\n" + "\n".join(extra) + "\n"


_USED = re.compile(r'@llvm\.compiler\.used = appending global \[\d+ x ptr\] \[([^\]]*)\], '
                   r'section "llvm\.metadata"\s*$')
