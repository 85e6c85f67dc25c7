"""Random NumPy-style programs in enzyme_py's subset, for differential fuzzing.

`generate(rng)` returns a `Program`: the source text of one function `def f(...)` that returns
a float, the specification of its arguments (`ArgSpec`: shape, dtype, memory layout) and the
`argnums` to differentiate. `Program.make_args(seed)` builds the argument values.

Invariants (every program the generator emits):

- Shapes are tracked while an expression is built (`Expr.shape`): NumPy runs the program
  without a broadcasting, indexing or shape error. An expression asked for with `exact=True`
  has exactly the target shape; otherwise its shape broadcasts to the target.
- Values stay in safe domains: arguments are drawn from [-1, 1] and `Expr.mag` bounds
  |value| from there. `np.exp` sees bounds <= 3 (else `np.exp(-e * e)`), `np.log`,
  `np.sqrt` and fractional `**` see `e * e + c` (c > 0), a divisor is `e * e + 1.0`,
  `np.abs(e) + 0.5` or a literal >= 1.5, `np.prod` multiplies at most 4 values bounded by
  1.5, and an expression whose bound passes `_SQUASH` goes through `np.tanh(e / K)`.
- In-place updates (`z[1:] += ...`, `z *= ...`) write only arrays the function owns (a
  `.copy()`, a constructor, a computed value), never an argument or a view of one, so
  calling `f` leaves its arguments unchanged.
- `.reshape` is applied to names of C-contiguous data (owned locals, C-layout arguments),
  except with probability `_RESHAPE_ANY` where it may meet a non-contiguous argument.
- The same `random.Random` state gives the same program (no other source of randomness).
"""

from __future__ import annotations

import ast
import math
import random
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

Shape = tuple[int, ...]

_SQUASH = 30.0
_RESHAPE_ANY = 0.1
_MAX_SIZE = 48
_LAYOUTS = ("c", "f", "strided", "transposed", "reversed", "offset")


@dataclass(frozen=True)
class ArgSpec:
    """One argument: a float (`shape == ()`) or an array of `dtype` laid out as `layout`.

    Layouts: `c` (C order), `f` (`np.asfortranarray`), `strided` (`base[..., ::2]` of a base
    twice as wide), `transposed` (`base.T` of a C array of the reversed shape), `reversed`
    (`base[::-1]`), `offset` (`base[1:]`, not starting at the base's first element).
    """

    name: str
    shape: Shape
    dtype: str = "float64"
    layout: str = "c"

    @property
    def contiguous(self) -> bool:
        return self.shape == () or self.layout == "c" or (
            len(self.shape) == 1 and self.layout in ("f", "transposed", "offset"))

    def make(self, gen: np.random.Generator) -> Any:
        if self.shape == ():
            return float(gen.uniform(-1.0, 1.0))
        dt = np.dtype(self.dtype)
        shape = self.shape

        def draw(s: Shape) -> np.ndarray:
            return gen.uniform(-1.0, 1.0, size=s).astype(dt)

        if self.layout == "f":
            return np.asfortranarray(draw(shape))
        if self.layout == "strided":
            base = draw(shape[:-1] + (2 * shape[-1],))
            return base[..., ::2]
        if self.layout == "transposed":
            return draw(shape[::-1]).T
        if self.layout == "reversed":
            return draw(shape)[::-1]
        if self.layout == "offset":
            return draw((shape[0] + 1,) + shape[1:])[1:]
        return draw(shape)

    def describe(self) -> str:
        if self.shape == ():
            return f"{self.name}: float"
        return f"{self.name}: {self.dtype}{list(self.shape)} layout={self.layout}"


@dataclass(frozen=True)
class Program:
    """A generated function: `source` defines `f(*[a.name for a in args])`."""

    source: str
    args: tuple[ArgSpec, ...]
    argnums: int | tuple[int, ...]

    def make_args(self, seed: int) -> list[Any]:
        gen = np.random.default_rng(seed)
        return [a.make(gen) for a in self.args]

    @property
    def float32(self) -> bool:
        return any(a.dtype == "float32" and a.shape != () for a in self.args)


@dataclass(frozen=True)
class Expr:
    """A generated expression: its text (fully parenthesized), shape and |value| bound.

    `view_of` names the variable an expression is a pure view of (None for a computed value).
    """

    text: str
    shape: Shape
    mag: float
    view_of: str | None = None


@dataclass
class Var:
    """A name the generated code can read: an argument, a local, a loop's `u[i]`."""

    name: str
    shape: Shape
    mag: float
    contiguous: bool
    owned: bool  # memory the function owns: in-place updates allowed
    uses: int = 0
    root: str = ""  # the variable whose memory this one is (itself for a computed value)
    dup: bool = False  # may hold equal elements by construction (broadcast constants)
    loop_made: bool = False  # rebound in a loop (enzyme_py refuses views of it then)


def _size(s: Shape) -> int:
    return math.prod(s)


def _broadcast(a: Shape, b: Shape) -> Shape:
    return tuple(np.broadcast_shapes(a, b))


def _fmt(c: float) -> str:
    return repr(float(c))


def _shape_text(t: Shape) -> str:
    return f"({t[0]},)" if len(t) == 1 else f"({', '.join(map(str, t))})"


def _slice_len(n: int, sl: slice) -> int:
    return len(range(n)[sl])


def _parse_slice(text: str) -> slice:
    parts = [int(p) if p else None for p in text.split(":")]
    return slice(*parts)


def _slice_text(sl: slice) -> str:
    def part(v: int | None) -> str:
        return "" if v is None else str(v)

    text = f"{part(sl.start)}:{part(sl.stop)}"
    if sl.step is not None:
        text += f":{sl.step}"
    return text


class _Gen:
    """The state of one program's generation (see the module docstring)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.vars: list[Var] = []
        self.lines: list[str] = []
        self.counter = 0
        self.loop_vars: list[Var] = []  # `u[i]` and friends inside a loop body
        self.loop_index: str | None = None
        self.dims: list[int] = []
        self.dtype_kw = ""  # ", dtype=np.float32" in float32 programs: constants keep the type

    # ---- small helpers -------------------------------------------------------------------

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, options: list[Any], weights: list[float] | None = None) -> Any:
        return self.rng.choices(options, weights=weights, k=1)[0]

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def readable(self) -> list[Var]:
        return self.vars + self.loop_vars

    def may_tie(self, text: str) -> bool:
        """Whether an expression may hold equal elements by construction (a constant array,
        a broadcast widened by `np.zeros`, a variable that may): `np.max`/`np.min` of it
        would meet ties, where derivative conventions differ (first maximum or shared)."""
        if any(c in text for c in ("np.zeros(", "np.ones(", "_like(", "np.zeros_like")):
            return True
        return any(v.dup and re.search(rf"\b{re.escape(v.name)}\b", text)
                   for v in self.readable())

    def squash(self, e: Expr) -> Expr:
        if e.mag <= _SQUASH:
            return e
        k = float(f"{e.mag:.2g}")
        return Expr(f"np.tanh(({e.text}) / {_fmt(k)})", e.shape, 1.0)

    # ---- shapes -----------------------------------------------------------------------------

    def some_shape(self) -> Shape:
        """A target shape: mostly one a variable has (so leaves are views, not constants)."""
        shapes = [v.shape for v in self.readable() if v.shape != ()]
        if shapes and self.chance(0.8):
            s = self.pick(shapes)
            r = self.rng.random()
            if r < 0.1 and len(s) >= 2:
                return s[::-1]
            if r < 0.2 and len(s) >= 2:
                return s[1:]
            if r < 0.25 and len(s) >= 1 and s[0] > 2:
                return (s[0] - 1,) + s[1:]
            return s
        d = self.dims
        return self.pick([(d[0],), (d[1],), (d[0], d[1]), (d[1], d[0]), (d[2], d[0], d[1])])

    def broadcast_target(self, t: Shape) -> Shape:
        """A shape that broadcasts to `t` (drop leading axes, set some to 1)."""
        s = list(t)
        while s and self.chance(0.35):
            s.pop(0)
        for i in range(len(s)):
            if self.chance(0.25):
                s[i] = 1
        return tuple(s)

    # ---- views ------------------------------------------------------------------------------

    def axis_slice(self, n: int, k: int) -> str | None:
        """A slice of an axis of length n selecting k elements (":" for all of them)."""
        if n == k:
            r = self.rng.random()
            if r < 0.7:
                return ":"
            return self.pick(["::-1", "0:", f":{n}", f"-{n}:", f"{n - 1}::-1"])
        for _ in range(40):
            step = self.pick([1, 1, 1, 2, -1, -2, 3, None])
            start = self.pick([None, 0, 1, 2, -1, -2, -3, n - 1])
            stop = self.pick([None, 1, 2, 3, -1, -2, n, k, k + 1])
            sl = slice(start, stop, step)
            if _slice_len(n, sl) == k and step != 0:
                return _slice_text(sl)
        return f":{k}" if k <= n else None

    def index_text(self, name: str, parts: list[str]) -> str:
        while parts and parts[-1] == ":":
            parts = parts[:-1]
        if not parts:
            return name
        return f"{name}[{', '.join(parts)}]"

    def sliced(self, v: Var, target: Shape) -> str | None:
        """`v` sliced (same rank) to `target`, or None when an axis is too short."""
        if len(v.shape) != len(target) or any(n < k for n, k in zip(v.shape, target,
                                                                    strict=True)):
            return None
        parts = []
        for n, k in zip(v.shape, target, strict=True):
            p = self.axis_slice(n, k)
            if p is None:
                return None
            parts.append(p)
        return self.index_text(v.name, parts)

    def views(self, v: Var, target: Shape) -> list[str]:
        """Texts of views of `v` with exactly the shape `target`."""
        out: list[str] = []
        vs = v.shape
        if vs == ():
            return [v.name] if target == () else []
        s = self.sliced(v, target)
        if s is not None:
            out.append(s)
            if vs == target and vs != () and self.chance(0.3):
                out.append(f"np.flip({v.name}, axis={self.rng.randrange(len(vs))})")
        if len(vs) >= 2:
            s = self.sliced(Var(v.name, vs, v.mag, False, False), target[::-1])
            if s is not None:
                out.append(f"{s}.T" if s != v.name else self.pick(
                    [f"{v.name}.T", f"np.transpose({v.name})"]))
        if len(vs) >= 2 and len(vs) == len(target) and vs != target:
            for a in range(len(vs)):
                for b in range(a + 1, len(vs)):
                    sw = list(vs)
                    sw[a], sw[b] = sw[b], sw[a]
                    if tuple(sw) == target:
                        out.append(self.pick([f"{v.name}.swapaxes({a}, {b})",
                                              f"np.swapaxes({v.name}, {a}, {b})"]))
        if len(vs) + 1 == len(target) and vs == tuple(n for n in target if n != 1) and \
                target.count(1) == 1:
            out.append(f"np.expand_dims({v.name}, {target.index(1)})")
        if len(vs) == len(target) + 1:
            for _ in range(2):
                j = self.rng.randrange(len(vs))
                rest = vs[:j] + vs[j + 1:]
                if all(n >= k for n, k in zip(rest, target, strict=True)):
                    i = self.rng.randrange(vs[j]) - (vs[j] if self.chance(0.3) else 0)
                    parts = []
                    for n, k in zip(rest, target, strict=True):
                        p = self.axis_slice(n, k)
                        if p is None:
                            break
                        parts.append(p)
                    else:
                        parts.insert(j, str(i))
                        if (j == len(vs) - 1 and self.chance(0.3) and len(vs) > 1
                                and all(q == ":" for q in parts[:-1])):
                            out.append(f"{v.name}[..., {i}]")
                        else:
                            out.append(self.index_text(v.name, parts))
        if len(vs) + 1 == len(target) and 1 in target:
            p = self.pick([i for i, n in enumerate(target) if n == 1])
            rest = target[:p] + target[p + 1:]
            s = self.sliced(v, rest)
            if s is not None:
                parts = [":"] * len(vs)
                if s != v.name:
                    inner = s[len(v.name) + 1:-1].split(", ")
                    parts = inner + [":"] * (len(vs) - len(inner))
                parts.insert(p, "None")
                out.append(f"{v.name}[{', '.join(parts)}]")
        if (vs != target and vs != () and _size(vs) == _size(target) and target != ()
                and (v.contiguous or self.chance(_RESHAPE_ANY))):
            dims = list(target)
            if self.chance(0.3):
                dims[self.rng.randrange(len(dims))] = -1
            arg = ", ".join(map(str, dims)) if len(dims) > 1 else f"{dims[0]}"
            if self.chance(0.3) and len(dims) > 1:
                arg = f"({arg})"
            out.append(f"{v.name}.reshape({arg})")
        return out

    # ---- expressions ------------------------------------------------------------------------

    def leaf(self, t: Shape, exact: bool) -> Expr | None:
        """A view of a variable (or a literal) of shape `t` (broadcasting to `t` unless
        exact); None when no variable fits."""
        cands: list[tuple[Expr, Var | None, float]] = []
        for v in self.readable():
            w = 3.0 if v.uses == 0 else 1.0
            for text in self.views(v, t):
                cands.append((Expr(text, t, v.mag, v.name), v, w))
            if not exact and t != ():
                b = self.broadcast_target(t)
                if b != t:
                    for text in self.views(v, b):
                        cands.append((Expr(text, b, v.mag, v.name), v, w))
        if not exact or t == ():
            for v in self.readable():
                if v.shape == ():
                    cands.append((Expr(v.name, (), v.mag, v.name), v, 1.0))
            c = self.pick([0.5, 2.0, -1.5, 0.25, 3.0, -0.75, 1.0])
            cands.append((Expr(_fmt(c), (), abs(c)), None, 0.5))
            if self.loop_index is not None:
                cands.append((Expr(f"({self.loop_index} + 1.0)", (), 5.0), None, 1.0))
        if not cands:
            return None
        e, v, _ = self.pick(cands, [w for _, _, w in cands])
        if v is not None:
            v.uses += 1
        return e

    def expr(self, t: Shape, exact: bool, depth: int) -> Expr:
        """An expression of shape `t` (broadcasting to `t` unless `exact`)."""
        if depth <= 0 or self.chance(0.25):
            e = self.leaf(t, exact)
            if e is not None:
                return e
            if depth <= 0:
                return self.constant(t)
        kinds = ["binop", "unary", "ufunc", "reduce", "matmul", "where", "minmax", "clip",
                 "construct", "power", "div"]
        weights = [8, 1, 6, 4, 3, 1.5, 1.5, 1, 2, 2, 2]
        kind = self.pick(kinds, weights)
        e = getattr(self, f"expr_{kind}")(t, exact, depth - 1)
        if e is None:
            e = self.expr_binop(t, exact, depth - 1)
        return self.squash(e)

    def constant(self, t: Shape) -> Expr:
        """Shape `t` where no view of a variable has it: a view that broadcasts to `t`
        widened by adding `np.zeros(t)`, else a constant array."""
        if t == ():
            return Expr("1.5", (), 1.5)
        shape = _shape_text(t)
        for _ in range(6):
            b = self.broadcast_target(t)
            if b in ((), t):
                continue
            cands = [(text, v) for v in self.readable() for text in self.views(v, b)]
            if cands:
                text, v = self.pick(cands)
                v.uses += 1
                return Expr(f"({text} + np.zeros({shape}{self.dtype_kw}))", t, v.mag)
        c = self.pick([0.5, 2.0, -1.0])
        return Expr(f"(np.ones({shape}{self.dtype_kw}) * {_fmt(c)})", t, abs(c))

    def two(self, t: Shape, exact: bool, depth: int) -> tuple[Expr, Expr, Shape]:
        a = self.expr(t, exact, depth)
        b = self.expr(t, False, depth)
        if self.chance(0.5):
            a, b = b, a
        return a, b, _broadcast(a.shape, b.shape)

    def expr_binop(self, t: Shape, exact: bool, depth: int) -> Expr:
        a, b, s = self.two(t, exact, depth)
        op = self.pick(["+", "-", "*"], [3, 2, 3])
        mag = a.mag * b.mag if op == "*" else a.mag + b.mag
        return Expr(f"({a.text} {op} {b.text})", s, mag)

    def expr_unary(self, t: Shape, exact: bool, depth: int) -> Expr:
        a = self.expr(t, exact, depth)
        return Expr(f"(-{a.text})", a.shape, a.mag)

    def expr_div(self, t: Shape, exact: bool, depth: int) -> Expr:
        a = self.expr(t, exact, depth)
        r = self.rng.random()
        if r < 0.3:
            c = self.pick([1.5, 2.0, 4.0, 3.0])
            return Expr(f"({a.text} / {_fmt(c)})", a.shape, a.mag / c)
        b = self.expr(t, False, depth)
        s = _broadcast(a.shape, b.shape)
        if r < 0.7:
            return Expr(f"({a.text} / ({b.text} * {b.text} + 1.0))", s, a.mag)
        if r < 0.85:
            return Expr(f"({a.text} / (np.abs({b.text}) + 0.5))", s, 2 * a.mag)
        return Expr(f"({_fmt(self.pick([1.0, 0.5]))} / ({b.text} ** 2 + 1.0) * {a.text})", s,
                    a.mag)

    def expr_power(self, t: Shape, exact: bool, depth: int) -> Expr:
        a = self.expr(t, exact, depth)
        r = self.rng.random()
        if r < 0.4:
            n = self.pick([2, 3, 2.0])
            return Expr(f"({a.text} ** {n})", a.shape, a.mag ** float(n))
        if r < 0.6:
            return Expr(f"np.square({a.text})", a.shape, a.mag ** 2)
        p = self.pick([0.5, 1.5, -0.5, 2.5, 0.25])
        c = self.pick([1.0, 0.5])
        base = a.mag ** 2 + c
        return Expr(f"(({a.text} * {a.text} + {_fmt(c)}) ** {_fmt(p)})", a.shape,
                    base ** p if p > 0 else c ** p)

    def expr_ufunc(self, t: Shape, exact: bool, depth: int) -> Expr:
        a = self.expr(t, exact, depth)
        name = self.pick(["tanh", "sin", "cos", "exp", "log", "sqrt", "abs", "exp2"],
                         [3, 2, 2, 3, 2, 2, 1.5, 1])
        if name == "exp2":
            return Expr(f"np.exp(-{a.text} * {a.text})", a.shape, 1.0)
        if name == "exp":
            if a.mag <= 3.0:
                return Expr(f"np.exp({a.text})", a.shape, math.exp(a.mag))
            return Expr(f"np.exp(np.tanh({a.text}))", a.shape, math.e)
        if name in ("log", "sqrt"):
            c = self.pick([1.0, 0.5, 2.0])
            mag = (math.log(a.mag ** 2 + c) if name == "log" else math.sqrt(a.mag ** 2 + c))
            return Expr(f"np.{name}({a.text} * {a.text} + {_fmt(c)})", a.shape,
                        max(abs(mag), abs(math.log(c))))
        if name == "abs":
            return Expr(f"np.abs({a.text})", a.shape, a.mag)
        return Expr(f"np.{name}({a.text})", a.shape, 1.0)

    def expr_where(self, t: Shape, exact: bool, depth: int) -> Expr:
        c1 = self.expr(t, False, depth - 1)
        c2 = self.expr(t, False, depth - 1)
        a, b, s = self.two(t, exact, depth)
        s = _broadcast(_broadcast(s, c1.shape), c2.shape)
        cmp = self.pick([">", "<", ">="])
        return Expr(f"np.where({c1.text} {cmp} {c2.text}, {a.text}, {b.text})", s,
                    max(a.mag, b.mag))

    def expr_minmax(self, t: Shape, exact: bool, depth: int) -> Expr:
        a, b, s = self.two(t, exact, depth)
        name = self.pick(["maximum", "minimum"])
        return Expr(f"np.{name}({a.text}, {b.text})", s, max(a.mag, b.mag))

    def expr_clip(self, t: Shape, exact: bool, depth: int) -> Expr:
        a = self.expr(t, exact, depth)
        lo, hi = self.pick([(-0.5, 0.5), (0.0, 1.0), (None, 0.3), (-0.2, None), (-1.0, 0.25)])
        bound = max(abs(x) for x in (lo, hi) if x is not None)
        mag = a.mag if lo is None or hi is None else min(a.mag, bound)
        lo_t = "None" if lo is None else _fmt(lo)
        hi_t = "None" if hi is None else _fmt(hi)
        return Expr(f"np.clip({a.text}, {lo_t}, {hi_t})", a.shape, max(mag, bound))

    def expr_reduce(self, t: Shape, exact: bool, depth: int) -> Expr | None:
        name = self.pick(["sum", "mean", "max", "min", "prod", "norm"], [4, 3, 2, 1, 1, 1.5])
        method = name in ("sum", "mean", "max", "min", "prod") and self.chance(0.25)
        keep = self.chance(0.35)
        n = self.pick([2, 3, 4])
        if name == "prod":
            n = self.pick([2, 3])
        if self.chance(0.85):
            # reduce a shape some variable has, so that the operand is not a constant
            fits = self.reducible_to(t, keep)
            if fits:
                inner_t, axis = self.pick(fits)
                if _size(inner_t) <= _MAX_SIZE and not (name == "prod" and inner_t[axis] > 4):
                    inner = self.expr(inner_t, True, depth)
                    if name == "prod" and inner.mag > 1.5:
                        inner = Expr(f"np.tanh({inner.text})", inner.shape, 1.0)
                    return self.reduction(name, inner, (axis,), keep, method)
        if not exact and self.chance(0.3):
            # a full reduction to a scalar broadcasts to anything
            inner_t = self.some_shape()
            if _size(inner_t) > _MAX_SIZE:
                return None
            inner = self.expr(inner_t, True, depth)
            if name == "prod" and (inner.mag > 1.5 or _size(inner_t) > 4):
                name = "sum"
            return self.reduction(name, inner, None, False, method)
        if keep:
            ones = [i for i, k in enumerate(t) if k == 1]
            if not ones:
                if exact or not t:
                    keep = False
                else:
                    ones = [self.rng.randrange(len(t))]
            if keep:
                k = self.pick(ones)
                inner_t = t[:k] + (n,) + t[k + 1:]
                axes: tuple[int, ...] = (k,)
        if not keep:
            if len(t) >= 3:
                return None
            k = self.rng.randrange(len(t) + 1)
            inner_t = t[:k] + (n,) + t[k:]
            axes = (k,)
            if len(inner_t) <= 2 and self.chance(0.15) and name != "norm":
                k2 = self.rng.randrange(len(inner_t) + 1)
                inner_t = inner_t[:k2] + (self.pick([2, 3]),) + inner_t[k2:]
                axes = tuple(sorted({a + (1 if a >= k2 else 0) for a in axes} | {k2}))
        if _size(inner_t) > _MAX_SIZE or len(inner_t) > 3:
            return None
        inner = self.expr(inner_t, True, depth)
        if name == "prod" and inner.mag > 1.5:
            inner = Expr(f"np.tanh({inner.text})", inner.shape, 1.0)
        return self.reduction(name, inner, axes, keep, method)

    def reducible_to(self, t: Shape, keep: bool) -> list[tuple[Shape, int]]:
        """(shape of a variable, axis) pairs whose reduction over that axis gives `t` (with
        `keepdims` when `keep`)."""
        out = []
        for v in self.readable():
            s = v.shape
            for ax in range(len(s)):
                if keep and s[:ax] + (1,) + s[ax + 1:] == t or (
                        not keep and s[:ax] + s[ax + 1:] == t):
                    out.append((s, ax))
        return out

    def reduction(self, name: str, inner: Expr, axes: tuple[int, ...] | None, keep: bool,
                  method: bool) -> Expr:
        shape = inner.shape
        if name in ("max", "min") and self.may_tie(inner.text):
            name = "sum"
        if axes is None:
            out: Shape = ()
            count = _size(shape)
        else:
            out = tuple((1 if keep else None) if i in axes else k
                        for i, k in enumerate(shape))
            out = tuple(k for k in out if k is not None)
            count = math.prod(shape[a] for a in axes)
        kw = []
        if axes is not None:
            ax = [a - len(shape) if self.chance(0.2) else a for a in axes]
            kw.append(f"axis={ax[0]}" if len(ax) == 1 else f"axis=({', '.join(map(str, ax))})")
        if keep:
            kw.append("keepdims=True")
        mags = {"sum": count * inner.mag, "mean": inner.mag, "max": inner.mag,
                "min": inner.mag, "prod": inner.mag ** count,
                "norm": math.sqrt(count) * inner.mag}
        if name == "norm":
            text = f"np.linalg.norm({', '.join([inner.text] + kw)})"
        elif method:
            text = f"({inner.text}).{name}({', '.join(kw)})"
        else:
            text = f"np.{name}({', '.join([inner.text] + kw)})"
        return Expr(text, out, mags[name])

    def expr_matmul(self, t: Shape, exact: bool, depth: int) -> Expr | None:
        var_dims = [n for v in self.readable() for n in v.shape if n > 1]
        k = self.pick(var_dims or self.dims)
        r = self.rng.random()
        if len(t) == 0:
            a = self.expr((k,), True, depth)
            b = self.expr((k,), True, depth)
            form = self.pick(["@", "dot", "einsum"])
            text = {"@": f"({a.text} @ {b.text})", "dot": f"np.dot({a.text}, {b.text})",
                    "einsum": f"np.einsum('i,i->', {a.text}, {b.text})"}[form]
            return Expr(text, (), k * a.mag * b.mag)
        if len(t) == 1:
            n = t[0]
            if r < 0.4:
                a, b = self.expr((n, k), True, depth), self.expr((k,), True, depth)
                text = self.pick([f"({a.text} @ {b.text})", f"np.dot({a.text}, {b.text})",
                                  f"np.einsum('ij,j->i', {a.text}, {b.text})"])
            elif r < 0.7:
                a, b = self.expr((k,), True, depth), self.expr((k, n), True, depth)
                text = self.pick([f"({a.text} @ {b.text})", f"np.dot({a.text}, {b.text})"])
            else:
                a, b = self.expr((n, k), True, depth), self.expr((n, k), True, depth)
                text = f"np.einsum('ij,ij->i', {a.text}, {b.text})"
            return Expr(text, t, k * a.mag * b.mag)
        if len(t) == 2:
            n, p = t
            if r < 0.2:
                a, b = self.expr((n,), True, depth), self.expr((p,), True, depth)
                text = self.pick([f"np.outer({a.text}, {b.text})",
                                  f"np.einsum('i,j->ij', {a.text}, {b.text})"])
                return Expr(text, t, a.mag * b.mag)
            if r < 0.4:
                a, b = self.expr((n, k), True, depth), self.expr((p, k), True, depth)
                text = self.pick([f"np.einsum('ik,jk->ij', {a.text}, {b.text})",
                                  f"({a.text} @ {b.text}.T)"])
                return Expr(text, t, k * a.mag * b.mag)
            if r < 0.5 and _size((n, p, k)) <= _MAX_SIZE:
                a, b = self.expr((n, p, k), True, depth), self.expr((n, k), True, depth)
                text = f"np.einsum('ijk,ik->ij', {a.text}, {b.text})"
                return Expr(text, t, k * a.mag * b.mag)
            a, b = self.expr((n, k), True, depth), self.expr((k, p), True, depth)
            text = self.pick([f"({a.text} @ {b.text})", f"np.dot({a.text}, {b.text})",
                              f"np.einsum('ij,jk->ik', {a.text}, {b.text})"])
            return Expr(text, t, k * a.mag * b.mag)
        if len(t) == 3 and _size(t) * k <= 2 * _MAX_SIZE:
            bt, n, p = t
            a, b = self.expr((bt, n, k), True, depth), self.expr((bt, k, p), True, depth)
            text = self.pick([f"({a.text} @ {b.text})",
                              f"np.einsum('bij,bjk->bik', {a.text}, {b.text})"])
            return Expr(text, t, k * a.mag * b.mag)
        return None

    def expr_construct(self, t: Shape, exact: bool, depth: int) -> Expr | None:
        r = self.rng.random()
        if t and r < 0.4:
            axes = [i for i, k in enumerate(t) if k >= 2]
            if not axes:
                return None
            ax = self.pick(axes)
            first = self.rng.randrange(1, t[ax])
            a = self.expr(t[:ax] + (first,) + t[ax + 1:], True, depth)
            b = self.expr(t[:ax] + (t[ax] - first,) + t[ax + 1:], True, depth)
            kw = "" if ax == 0 and self.chance(0.5) else f", axis={ax}"
            return Expr(f"np.concatenate([{a.text}, {b.text}]{kw})", t, max(a.mag, b.mag))
        if t and r < 0.65:
            axes = [i for i, k in enumerate(t) if k in (2, 3)]
            if not axes:
                return None
            ax = self.pick(axes)
            inner = t[:ax] + t[ax + 1:]
            parts = [self.expr(inner, True, depth) for _ in range(t[ax])]
            if inner == () and self.chance(0.8):
                return Expr(f"np.array([{', '.join(p.text for p in parts)}])", t,
                            max(p.mag for p in parts))
            kw = "" if ax == 0 and self.chance(0.5) else f", axis={ax}"
            return Expr(f"np.stack([{', '.join(p.text for p in parts)}]{kw})", t,
                        max(p.mag for p in parts))
        if r < 0.8 and t:
            a = self.expr(t, True, depth)
            name = self.pick(["zeros_like", "ones_like"])
            b = self.expr(t, exact, depth)
            c = self.pick([0.5, 2.0])
            mag = b.mag + (0.0 if name == "zeros_like" else c)
            return Expr(f"(np.{name}({a.text}) * {_fmt(c)} + {b.text})", _broadcast(
                a.shape, b.shape), mag)
        if not t:
            return None
        a = self.expr(t, exact, depth)
        shape = f"({t[0]},)" if len(t) == 1 else f"({', '.join(map(str, t))})"
        if self.chance(0.5):
            return Expr(f"(np.ones({shape}{self.dtype_kw}) * {a.text})", _broadcast(t, a.shape),
                        a.mag)
        if a.shape == ():
            return a
        return Expr(f"({a.text}).copy()", a.shape, a.mag)

    # ---- statements ---------------------------------------------------------------------------

    def emit(self, line: str, indent: int = 1) -> None:
        self.lines.append("    " * indent + line)

    def new_var(self, e: Expr, prefix: str = "v") -> Var:
        name = self.fresh(prefix)
        view_src = next((v for v in self.readable() if v.name == e.view_of), None)
        if view_src is not None:
            var = Var(name, e.shape, e.mag, contiguous=False, owned=False,
                      root=view_src.root or view_src.name)
            var.owned = view_src.owned and view_src.name not in [x.name for x in
                                                                   self.loop_vars]
        else:
            var = Var(name, e.shape, e.mag, contiguous=True, owned=True, root=name)
        var.dup = self.may_tie(e.text)
        return var

    def stmt_assign(self, depth: int) -> None:
        t = self.some_shape() if self.chance(0.85) else ()
        e = self.expr(t, True, depth)
        var = self.new_var(e)
        self.emit(f"{var.name} = {e.text}")
        self.vars.append(var)

    def stmt_tuple(self, depth: int) -> None:
        a = self.expr(self.some_shape(), True, depth)
        b = self.expr(self.some_shape() if self.chance(0.7) else (), True, depth)
        va, vb = self.new_var(a), self.new_var(b)
        if self.chance(0.5):
            self.emit(f"{va.name}, {vb.name} = {a.text}, {b.text}")
        else:
            t = self.fresh("t")
            self.emit(f"{t} = ({a.text}, {b.text})")
            self.emit(f"{va.name}, {vb.name} = {t}[0], {t}[1]" if self.chance(0.5)
                      else f"{va.name}, {vb.name} = {t}")
        self.vars += [va, vb]

    def stmt_slice_write(self, depth: int) -> None:
        srcs = [v for v in self.vars if v.shape != ()]
        if not srcs:
            return self.stmt_assign(depth)
        src = self.pick(srcs)
        src.uses += 1
        z = Var(self.fresh("z"), src.shape, src.mag, contiguous=True, owned=True, dup=src.dup)
        z.root = z.name
        self.emit(f"{z.name} = {src.name}.copy()")
        self.vars.append(z)
        for _ in range(self.pick([1, 1, 2])):
            # the written region: per axis a slice or an integer
            parts, region = [], []
            for n in z.shape:
                r = self.rng.random()
                if r < 0.2 and n > 1:
                    parts.append(str(self.rng.randrange(-n, n)))
                elif r < 0.45:
                    parts.append(":")
                    region.append(n)
                else:
                    k = self.rng.randrange(1, n + 1)
                    sl = self.axis_slice(n, k) or ":"
                    parts.append(sl)
                    region.append(_slice_len(n, _parse_slice(sl)))
            target = tuple(region)
            rhs = self.expr(target, False, depth)
            op = self.pick(["+=", "-=", "*=", "="], [4, 2, 1, 2])
            if op == "*=":
                rhs = Expr(f"np.tanh({rhs.text})", rhs.shape, 1.0)
            lhs = self.index_text(z.name, parts)
            if lhs == z.name:
                lhs = f"{z.name}[:]"
            self.emit(f"{lhs} {op} {rhs.text}")
            z.dup = z.dup or self.may_tie(rhs.text) or rhs.shape != target
            z.mag = {"+=": z.mag + rhs.mag, "-=": z.mag + rhs.mag, "*=": z.mag,
                     "=": max(z.mag, rhs.mag)}[op]
        z.uses = 0

    def stmt_inplace(self, depth: int) -> None:
        owned = [v for v in self.vars if v.owned and v.root == v.name]
        if not owned:
            return self.stmt_assign(depth)
        v = self.pick(owned)
        rhs = self.expr(v.shape, False, depth)
        op = self.pick(["+=", "-=", "*="])
        if op == "*=":
            rhs = Expr(f"np.cos({rhs.text})", rhs.shape, 1.0)
        self.emit(f"{v.name} {op} {rhs.text}")
        v.dup = v.dup or self.may_tie(rhs.text)
        v.mag = v.mag * rhs.mag if op == "*=" else v.mag + rhs.mag
        v.uses = 0
        if v.mag > _SQUASH:
            k = float(f"{v.mag:.2g}")
            self.emit(f"{v.name} = np.tanh({v.name} / {_fmt(k)})")
            v.mag = 1.0

    def stmt_loop(self, depth: int) -> None:
        over = [v for v in self.vars if v.shape != () and v.shape[0] <= 5]
        i = self.fresh("i")
        header = ""
        if over and self.chance(0.7):
            u = self.pick(over)
            u.uses += 1
            n = u.shape[0]
            if self.chance(0.3):
                r = self.fresh("r")
                header = self.pick([f"for {r} in {u.name}:",
                                    f"for {i}, {r} in enumerate({u.name}):"])
                row = Var(r, u.shape[1:], u.mag, contiguous=False, owned=False)
            else:
                row = Var(f"{u.name}[{i}]", u.shape[1:], u.mag, contiguous=False, owned=False)
            self.loop_vars.append(row)
            t = u.shape[1:] if self.chance(0.7) else self.some_shape()
        else:
            n = self.pick([2, 3, 4])
            t = self.some_shape()
        acc = self.fresh("acc")
        if t == ():
            self.emit(f"{acc} = 0.0")
        elif self.chance(0.5):
            shape = f"({t[0]},)" if len(t) == 1 else f"({', '.join(map(str, t))})"
            self.emit(f"{acc} = np.zeros({shape}{self.dtype_kw})")
        else:
            like = [v for v in self.vars if v.shape == t]
            if like:
                self.emit(f"{acc} = np.zeros_like({self.pick(like).name})")
            else:
                shape = f"({t[0]},)" if len(t) == 1 else f"({', '.join(map(str, t))})"
                self.emit(f"{acc} = np.ones({shape}{self.dtype_kw})")
        self.emit(header or f"for {i} in range({n}):")
        self.loop_index = i if "range" in (header or "range") or "enumerate" in header else None
        body = self.expr(t, False, max(depth - 1, 1))
        self.loop_index = None
        self.loop_vars = []
        op = self.pick(["+=", "=", "tanh"])
        if op == "+=":
            self.emit(f"{acc} += {body.text}", 2)
            mag = n * body.mag + 1.0
        elif op == "=":
            self.emit(f"{acc} = {acc} + {body.text}", 2)
            mag = n * body.mag + 1.0
        else:
            self.emit(f"{acc} = np.tanh({acc} + {body.text})", 2)
            mag = 1.0
        var = Var(acc, t, mag, contiguous=True, owned=True, root=acc,
                  dup=self.may_tie(body.text) or _broadcast(body.shape, t) != body.shape,
                  loop_made=op != "+=")
        self.vars.append(var)

    def stmt_row_loop(self, depth: int) -> None:
        """Rows of a copy updated in a loop: `z[i] += ...`, or a recurrence reading the row
        written the iteration before (`z[i] = z[i] + c * np.tanh(z[i - 1])`)."""
        srcs = [v for v in self.vars if v.shape != () and 2 <= v.shape[0] <= 5]
        if not srcs:
            return self.stmt_loop(depth)
        src = self.pick(srcs)
        src.uses += 1
        n = src.shape[0]
        z = Var(self.fresh("z"), src.shape, src.mag, contiguous=True, owned=True, dup=src.dup)
        z.root = z.name
        i = self.fresh("i")
        self.emit(f"{z.name} = {src.name}.copy()")
        if self.chance(0.5):
            c = self.pick([0.5, -0.25, 0.75])
            self.emit(f"for {i} in range(1, {n}):")
            self.emit(f"{z.name}[{i}] = {z.name}[{i}] + {_fmt(c)} * np.tanh({z.name}[{i} - 1])",
                      2)
            z.mag = z.mag + 1.0
        else:
            self.emit(f"for {i} in range({n}):")
            self.loop_index = i
            self.loop_vars.append(Var(f"{src.name}[{i}]", src.shape[1:], src.mag, False,
                                      False))
            body = self.expr(src.shape[1:], False, max(depth - 1, 1))
            self.loop_vars, self.loop_index = [], None
            op = self.pick(["+=", "-=", "="])
            self.emit(f"{z.name}[{i}] {op} {body.text}", 2)
            z.mag = z.mag + body.mag if op != "=" else max(z.mag, body.mag)
            z.dup = z.dup or self.may_tie(body.text) or body.shape != src.shape[1:]
        self.vars.append(z)

    def stmt_view_write(self, depth: int) -> None:
        """An update through a view of an owned array: `w = z[1:]; w += ...` changes `z`."""
        owned = [v for v in self.vars if v.owned and v.root == v.name and v.shape != ()
                 and not v.loop_made]
        if not owned:
            return self.stmt_slice_write(depth)
        z = self.pick(owned)
        t = tuple(self.rng.randint(1, n) for n in z.shape)
        views = self.views(z, t)
        if not views:
            return self.stmt_slice_write(depth)
        w = Var(self.fresh("w"), t, z.mag, contiguous=False, owned=True, root=z.name,
                dup=z.dup)
        self.emit(f"{w.name} = {self.pick(views)}")
        rhs = self.expr(t, False, depth)
        op = self.pick(["+=", "-=", "*="])
        if op == "*=":
            rhs = Expr(f"np.cos({rhs.text})", rhs.shape, 1.0)
        self.emit(f"{w.name} {op} {rhs.text}")
        grow = rhs.mag if op != "*=" else 0.0
        z.mag, w.mag = z.mag + grow, z.mag + grow
        z.dup = z.dup or self.may_tie(rhs.text) or rhs.shape != t
        w.dup = z.dup
        z.uses = 0
        self.vars.append(w)

    def finish(self, depth: int) -> None:
        terms = []
        unused = [v for v in self.vars if v.uses == 0]
        for v in unused[:3]:
            v.uses += 1
            red = self.pick(["sum", "sum", "mean"])
            terms.append(f"np.{red}({v.name})" if v.shape != () else v.name)
        t = self.some_shape()
        e = self.expr(t, True, depth)
        if e.shape == ():
            terms.append(e.text)
        else:
            terms.append(self.pick([f"np.sum({e.text})", f"np.mean({e.text})",
                                    f"({e.text}).sum()"]))
        self.emit(f"return {' + '.join(terms)}")


def generate(rng: random.Random) -> Program:
    """One random program (see the module docstring for what every program satisfies)."""
    g = _Gen(rng)
    d0, d1, d2 = rng.choice([2, 3, 4]), rng.choice([3, 4, 5]), rng.choice([2, 3])
    dtype = "float32" if rng.random() < 0.15 else "float64"
    g.dims = [d0, d1, d2]
    if dtype == "float32":
        g.dtype_kw = ", dtype=np.float32"
    shapes = [(d0,), (d1,), (d0, d1), (d1, d0), (d2, d0, d1), (d0, d0), (d1, d2)]
    weights = [3, 3, 4, 2, 1, 1, 1]
    n_arrays = rng.choice([1, 2, 2, 3, 3])
    names = ["x", "y", "w"]
    args: list[ArgSpec] = []
    for k in range(n_arrays):
        shape = rng.choices(shapes, weights=weights, k=1)[0]
        layout = "c"
        if rng.random() < 0.35:
            layout = rng.choice(_LAYOUTS[1:] if len(shape) >= 2 else ("reversed", "offset",
                                                                      "strided"))
        args.append(ArgSpec(names[k], shape, dtype, layout))
    if rng.random() < 0.3:
        args.append(ArgSpec("s", ()))
    for a in args:
        g.vars.append(Var(a.name, a.shape, 1.0, contiguous=a.contiguous, owned=False,
                          root=a.name))
    depth = rng.choice([2, 2, 3, 3])
    stmts = ["assign", "slice_write", "loop", "tuple", "inplace", "row_loop", "view_write"]
    stmt_weights = [10, 2.5, 2, 1.5, 1.5, 1.2, 1]
    for _ in range(rng.randint(1, 5)):
        getattr(g, f"stmt_{rng.choices(stmts, weights=stmt_weights, k=1)[0]}")(depth)
    g.finish(depth)
    header = f"def f({', '.join(a.name for a in args)}):"
    source = "import numpy as np\n\n\n" + "\n".join([header] + g.lines) + "\n"
    source = ast.unparse(ast.parse(source)) + "\n"
    source = source.replace("import numpy as np\n", "import numpy as np\n\n", 1)
    floats = [k for k, a in enumerate(args)]
    argnums: int | tuple[int, ...]
    if len(floats) > 1 and rng.random() < 0.3:
        argnums = rng.choice(floats)
    else:
        argnums = tuple(floats)
    return Program(source, tuple(args), argnums)


def program_for_seed(seed: int) -> Program:
    """The program of a fuzzing seed (`generate(random.Random(seed))`)."""
    return generate(random.Random(seed))


__all__ = ["ArgSpec", "Program", "generate", "program_for_seed"]
