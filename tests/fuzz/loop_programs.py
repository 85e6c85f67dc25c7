"""Random loop-style programs (scalar loops over NumPy arrays, Numba-kernel style) for the
differential fuzzer (`loop_differential`).

`generate(rng)` returns a `LoopProgram`: the source of a module defining `f(x, w, n, s)` (and
helpers `g0`, `g1`, ... called from it) and the arguments to call it with: `x` a float64
vector of length `n`, `w` a float64 vector of length `n` or a matrix of shape `(n, 3)`, `n`
an int in `N_RANGE`, `s` a float.

Constructs: `for` over `range(a, b[, step])` with bounds from the arguments or constants
(empty and one-iteration ranges too), `reversed(range(...))`, nested and triangular loops,
`while` loops with a counter, `if`/`elif`/`else` on floats and on indices, `break`,
`continue`, early `return`, `+=`/`-=`/`*=` accumulations, local work arrays (`np.zeros`,
`np.empty` filled before they are read, `.copy()` of an argument, a row of 3 refilled on
every iteration of an outer loop and read by later loops of that iteration) updated in place
through recurrences (`u[i] = u[i - 1] * c + ...`, reads at `i - 1` and `i + 1` of the array the loop
writes), ping-pong stencil buffers swapped by name, `math` functions on safe domains,
`min`/`max`/`abs`, index arithmetic (`x[(i * 3) % n]`, `x[n - 1 - i]`), 2-D arrays
(`A[i, j]`), helpers returning floats or tuples or writing into an array argument,
`math.pi`.

Invariants:

- Deterministic: the program depends only on the state of `rng`.
- Every program runs in plain Python without an exception for every `n` in `N_RANGE` and
  every argument drawn by `make_args`: each index is checked against the bounds of the loop
  variables it uses for all those `n` (reads at `i - 1` with `i == 0` wrap to the last element,
  as Python's do); every division is by a value >= 1; `math.log` and `math.sqrt` take
  arguments >= 0.1; `math.exp` takes arguments <= 1; factors of `*=` lie in [0.85, 1.05]; in the right side of an update
  (`+=`, a store) a value the program changes appears only inside a bounded function, so no
  value grows geometrically.
- `f` never writes into its arguments (helpers write only into `f`'s local arrays), so
  neither the function nor its gradient may change them.
- Every variable is assigned before it is read on every path (a name assigned in a block is
  visible only inside it), and every float variable holds only floats, every int only ints.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["N_RANGE", "LoopProgram", "generate", "make_args", "program_for_seed"]

N_RANGE = (5, 11)  # above a vector width of 4 with remainders, and below
_NS = tuple(range(N_RANGE[0], N_RANGE[1] + 1))
_K = 3  # second extent of 2-D arrays

IntFn = Callable[[int], int]


@dataclass(frozen=True)
class LoopProgram:
    """One generated module (defining `f`) and the arguments `(x, w, n, s)` to call it with."""

    source: str
    args: tuple


@dataclass(frozen=True)
class _Len:
    """An extent: its source text (in the scope where it is used) and its value for `n`."""

    text: str
    fn: IntFn


@dataclass(frozen=True)
class _Arr:
    name: str
    shape: tuple[_Len, ...]
    writable: bool


@dataclass(frozen=True)
class _IntVar:
    """A loop variable with the bounds `lo(n) <= v <= hi(n)` of every value it takes."""

    name: str
    lo: IntFn
    hi: IntFn


@dataclass
class _Scope:
    floats: list[str] = field(default_factory=list)
    accs: list[str] = field(default_factory=list)  # floats that may be updated in place
    ints: list[str] = field(default_factory=list)  # int counters (not loop variables)
    arrays: list[_Arr] = field(default_factory=list)
    ivars: list[_IntVar] = field(default_factory=list)


class _Gen:
    """Generates one module; the scope stack says what is defined where."""

    def __init__(self, rng: random.Random, w_rank: int) -> None:
        self.rng = rng
        self.w_rank = w_rank
        self.scopes: list[_Scope] = []
        self.lines: list[str] = []
        self.helpers: list[str] = []
        self.helper_sigs: list[tuple[str, str]] = []  # (name, kind)
        self.names = 0
        self.loop_depth = 0
        self.nname = "n"
        self.in_helper = False
        self.budget = 0  # statements left in this function
        self.safe = False  # generating the right side of an update
        self.pure = {"c", "a", "b"}  # float names that are never updated (helper parameters)

    # --- scopes ------------------------------------------------------------------------
    def all(self, attr: str) -> list:
        out: list = []
        for sc in self.scopes:
            out.extend(getattr(sc, attr))
        return out

    def fresh(self, base: str) -> str:
        self.names += 1
        return f"{base}{self.names}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    # --- leaves --------------------------------------------------------------------------
    def const(self) -> str:
        return self.rng.choice(["0.5", "1.5", "0.25", "-0.75", "2.0", "0.1", "-1.25", "0.3"])

    def index(self, ext: _Len) -> str:
        """An int expression in bounds of an axis of extent `ext` for every n in _NS."""
        r = self.rng
        cands: list[tuple[str, float]] = []
        ivars = self.all("ivars")
        for v in ivars:
            for d, wgt in ((0, 6.0), (-1, 1.5), (1, 1.5), (-2, 0.4), (2, 0.4)):
                if _fits(v.lo, v.hi, d, ext.fn):
                    cands.append((_plus(v.name, d), wgt))
                elif d == -1 and _fits(v.lo, v.hi, d, ext.fn, wrap=True):
                    cands.append((_plus(v.name, d), 0.3))  # x[-1] at i == 0
            if _fits(v.lo, v.hi, 0, ext.fn) and ext.text in ("n", "m"):
                cands.append((f"({v.name} * 3) % {ext.text}", 0.8))
                cands.append((f"{ext.text} - 1 - {v.name}", 0.6))
                cands.append((f"{v.name} // 2", 0.3))
                cands.append((f"min({v.name} + 1, {ext.text} - 1)", 0.3))
                cands.append((f"max({v.name} - 1, 0)", 0.2))
            elif v.lo(_NS[0]) >= 0 and ext.text == "3":
                cands.append((f"{v.name} % 3", 0.6))
        inb = [v for v in ivars if _fits(v.lo, v.hi, 0, ext.fn)]
        if len(inb) >= 2 and ext.text in ("n", "m"):
            a, b = r.sample(inb, 2)
            cands.append((f"({a.name} + {b.name}) % {ext.text}", 0.6))
            cands.append((f"abs({a.name} - {b.name})", 0.4))
        small = min(ext.fn(n) for n in _NS)
        cands.append((str(r.randrange(small)), 0.8))
        cands.append((f"{ext.text} - 1" if ext.text != "3" else "2", 0.3))
        cands.append(("-1", 0.15))
        texts, weights = zip(*cands, strict=True)
        return r.choices(texts, weights)[0]

    def read(self) -> str:
        arrs = self.all("arrays")
        a = self.rng.choice(arrs)
        text = f"{a.name}[{', '.join(self.index(e) for e in a.shape)}]"
        return self.squash(text) if a.writable else text

    def squash(self, text: str) -> str:
        """In the right side of an update, a value the program changes enters only through a
        bounded function, so that no loop makes it grow geometrically."""
        if not self.safe:
            return text
        return self.rng.choice([f"math.tanh({text})", f"math.sin({text})",
                                f"math.cos({text})", f"{text} / (1.0 + abs({text}))"])

    def leaf(self) -> str:
        r = self.rng
        k = r.random()
        floats = self.all("floats")
        ivars = self.all("ivars")
        if k < 0.45 and self.all("arrays"):
            return self.read()
        if k < 0.7 and floats:
            v = r.choice(floats)
            return v if v in self.pure else self.squash(v)
        if k < 0.8 and ivars:
            v = r.choice(ivars).name
            return r.choice([f"{v} * 0.1", f"float({v})", f"0.2 * {v}"])
        if k < 0.85:
            return "math.pi"
        if k < 0.9 and self.all("ints"):
            return f"{r.choice(self.all('ints'))} * 0.05"
        return self.const()

    # --- expressions -------------------------------------------------------------------
    def expr(self, depth: int = 2) -> str:
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return self.leaf()
        e = self.expr
        d = depth - 1
        k = r.randrange(22)
        if k < 4:
            return f"{e(d)} {r.choice(['+', '-', '*'])} {e(d)}"
        if k < 6:
            return f"{self.leaf()} * {e(d)}"
        if k == 6:
            return f"math.sin({e(d)})"
        if k == 7:
            return f"math.cos({e(d)})"
        if k == 8:
            return f"math.tanh({e(d)})"
        if k == 9:
            return r.choice([f"math.exp(math.tanh({e(d)}))", f"math.exp(-abs({e(d)}))",
                             f"math.exp(min({e(d)}, 1.0))"])
        if k == 10:
            a = e(d)
            return r.choice([f"math.sqrt({a} * {a} + 0.5)", f"math.sqrt(abs({a}) + 0.1)"])
        if k == 11:
            a = e(d)
            return r.choice([f"math.log(1.0 + {a} * {a})", f"math.log(abs({a}) + 0.5)",
                             f"math.log(2.0 + math.sin({a}))"])
        if k == 12:
            return f"{r.choice(['min', 'max'])}({e(d)}, {e(d)})"
        if k == 13:
            return f"abs({e(d)})"
        if k == 14:
            a = e(d)
            return r.choice([f"{e(d)} / (1.0 + {a} * {a})", f"{e(d)} / (1.5 + math.cos({a}))"])
        if k == 15:
            return f"({e(d)}) ** 2"
        if k == 16:
            return f"({e(d)} if {self.cond()} else {e(d)})"
        if k == 17:
            return f"math.sin(math.pi * {e(d)})"
        if k == 18 and self.helper_sigs and not self.in_helper:
            return self.call_expr()
        return f"({e(d)} {r.choice(['+', '-'])} {e(d)})"

    def factor(self) -> str:
        e = self.expr(1)
        return self.rng.choice([f"(1.0 + 0.05 * math.tanh({e}))",
                                f"(1.0 + 0.05 * math.sin({e}))",
                                f"(0.95 + 0.1 * math.cos({e}))"])

    def cond(self) -> str:
        r = self.rng
        ivars = self.all("ivars")
        k = r.random()
        if k < 0.4 and ivars:
            v = r.choice(ivars).name
            opts = [f"{v} % 2 == 0", f"{v} == 2", f"{v} < {self.nname} // 2", f"{v} % 3 == 1",
                    f"{v} > 0", f"{v} == {self.nname} - 1"]
            if len(ivars) >= 2:
                u = r.choice(ivars).name
                opts += [f"{v} > {u}", f"{v} + {u} == {self.nname} - 1"]
            return r.choice(opts)
        if k < 0.55:
            c = f"{self.leaf()} {r.choice(['<', '>', '<=', '>='])} {self.const()}"
            return f"{c} {r.choice(['and', 'or'])} {self.cond()}" if r.random() < 0.2 else c
        return f"{self.expr(1)} {r.choice(['<', '>'])} {self.expr(1)}"

    def call_expr(self) -> str:
        """A call of a float-returning helper."""
        r = self.rng
        floats = [h for h in self.helper_sigs if h[1] in ("reduce", "pair")]
        if not floats:
            return self.leaf()
        name, kind = r.choice(floats)
        vecs = [a for a in self.all("arrays") if len(a.shape) == 1]
        if kind == "reduce" and vecs:
            return f"{name}({r.choice(vecs).name}, {self.expr(1)})"
        if kind == "pair":
            return f"{name}({self.expr(1)}, {self.expr(1)})[{r.randrange(2)}]"
        return self.leaf()

    # --- statements -----------------------------------------------------------------
    def stmt(self, ind: int) -> None:
        r = self.rng
        self.budget -= 1
        accs = self.all("accs")
        wr = [a for a in self.all("arrays") if a.writable]
        k = r.random()
        if k < 0.3 and accs:
            a = r.choice(accs)
            op = r.choice(["+=", "+=", "-="])
            self.emit(ind, f"{a} {op} {self.rhs()}")
        elif k < 0.36 and accs:
            self.emit(ind, f"{r.choice(accs)} *= {self.factor()}")
        elif k < 0.52 and wr:
            a = r.choice(wr)
            idx = ", ".join(self.index(e) for e in a.shape)
            self.emit(ind, f"{a.name}[{idx}] {r.choice(['=', '+=', '='])} {self.rhs()}")
        elif k < 0.64 and self.budget > 0:
            self.if_stmt(ind)
        elif k < 0.72 and self.loop_depth > 0 and not self.in_helper:
            self.jump(ind)
        elif k < 0.84 and self.budget > 0 and self.loop_depth < 3:
            self.loop(ind)
        elif k < 0.88:
            t = self.fresh("q")
            self.emit(ind, f"{t} = {self.rhs()}")
            self.scopes[-1].floats.append(t)
        elif k < 0.92 and self.all("ints") and self.loop_depth > 0:
            c = r.choice(self.all("ints"))
            self.emit(ind, f"if {self.cond()}:")
            self.emit(ind + 1, f"{c} += 1")
        elif k < 0.97 and self.helper_sigs and not self.in_helper:
            self.helper_call(ind)
        elif accs:
            self.emit(ind, f"{r.choice(accs)} += {self.rhs()}")
        else:
            self.emit(ind, "pass")

    def rhs(self, depth: int = 2) -> str:
        self.safe = True
        try:
            return self.expr(depth)
        finally:
            self.safe = False

    def block(self, ind: int, count: int, scope: _Scope | None = None) -> None:
        self.scopes.append(scope or _Scope())
        for _ in range(max(1, count)):
            self.stmt(ind)
        self.scopes.pop()

    def if_stmt(self, ind: int) -> None:
        r = self.rng
        self.emit(ind, f"if {self.cond()}:")
        self.block(ind + 1, r.randint(1, 2))
        for _ in range(r.choice([0, 0, 1, 2])):
            self.emit(ind, f"elif {self.cond()}:")
            self.block(ind + 1, r.randint(1, 2))
        if r.random() < 0.5:
            self.emit(ind, "else:")
            self.block(ind + 1, r.randint(1, 2))

    def jump(self, ind: int) -> None:
        r = self.rng
        k = r.random()
        self.emit(ind, f"if {self.cond()}:")
        if k < 0.4:
            self.emit(ind + 1, "break")
        elif k < 0.85:
            self.emit(ind + 1, "continue")
        else:
            self.emit(ind + 1, f"return {self.ret_expr()}")

    def ranges(self) -> list[tuple[str, IntFn, IntFn, float]]:
        """Range texts with the bounds of the values they yield (`lo > hi`: empty)."""
        n = self.nname
        out: list[tuple[str, IntFn, IntFn, float]] = [
            (f"range({n})", lambda n: 0, lambda n: n - 1, 5.0),
            (f"range(1, {n})", lambda n: 1, lambda n: n - 1, 2.0),
            (f"range({n} - 1)", lambda n: 0, lambda n: n - 2, 1.0),
            (f"range(1, {n} - 1)", lambda n: 1, lambda n: n - 2, 1.5),
            (f"range(2, {n})", lambda n: 2, lambda n: n - 1, 0.5),
            (f"range(0, {n}, 2)", lambda n: 0, lambda n: n - 1, 0.8),
            (f"range(1, {n}, 3)", lambda n: 1, lambda n: n - 1, 0.5),
            (f"range({n} - 1, -1, -1)", lambda n: 0, lambda n: n - 1, 0.8),
            (f"range({n} - 2, 0, -2)", lambda n: 1, lambda n: n - 2, 0.5),
            (f"reversed(range({n}))", lambda n: 0, lambda n: n - 1, 1.0),
            (f"reversed(range(1, {n}))", lambda n: 1, lambda n: n - 1, 0.6),
            ("range(3)", lambda n: 0, lambda n: 2, 0.6),
            (f"range({n} // 2)", lambda n: 0, lambda n: n // 2 - 1, 0.5),
            (f"range({n} // 2, {n})", lambda n: n // 2, lambda n: n - 1, 0.5),
            (f"range({n}, {n})", lambda n: n, lambda n: n - 1, 0.25),
            ("range(3, 2)", lambda n: 3, lambda n: 1, 0.15),
            ("range(0)", lambda n: 0, lambda n: -1, 0.1),
            (f"range({n} - 1, {n})", lambda n: n - 1, lambda n: n - 1, 0.3),
            ("range(2, 3)", lambda n: 2, lambda n: 2, 0.3),
        ]
        if not self.in_helper:
            out.append(("range(len(x))", lambda n: 0, lambda n: n - 1, 0.5))
            out.append(("range(x.shape[0])", lambda n: 0, lambda n: n - 1, 0.3))
        else:
            out.append(("range(len(v))", lambda n: 0, lambda n: n - 1, 0.5))
        for v in self.all("ivars"):
            lo, hi = v.lo, v.hi
            if all(lo(m) >= 0 and hi(m) <= m - 1 for m in _NS):
                out.append((f"range({v.name} + 1, {n})", _add(lo, 1), lambda n: n - 1, 2.0))
                out.append((f"range({v.name})", lambda n: 0, _add(hi, -1), 1.0))
                out.append((f"range({v.name}, {n})", lo, lambda n: n - 1, 0.7))
                out.append((f"range({v.name} + 1)", lambda n: 0, hi, 0.5))
                out.append((f"reversed(range({v.name}))", lambda n: 0, _add(hi, -1), 0.4))
        return out

    def loop(self, ind: int) -> None:
        r = self.rng
        name = "ijl"[self.loop_depth] if self.loop_depth < 3 else self.fresh("k")
        if self.in_helper:
            name = ("ka", "kb", "kc")[self.loop_depth]
        if r.random() < 0.15 and not self.in_helper:
            self.while_loop(ind, name)
            return
        cands = self.ranges()
        text, lo, hi, _ = r.choices(cands, [c[3] for c in cands])[0]
        if self.w_rank == 2 and r.random() < 0.15 and not self.in_helper:
            text, lo, hi = "range(w.shape[1])", (lambda n: 0), (lambda n: _K - 1)
        self.emit(ind, f"for {name} in {text}:")
        self.loop_depth += 1
        self.block(ind + 1, r.randint(1, 3), _Scope(ivars=[_IntVar(name, lo, hi)]))
        self.loop_depth -= 1

    def while_loop(self, ind: int, name: str) -> None:
        r = self.rng
        c = self.fresh("k")
        start = r.choice([0, 0, 1])
        stepv = r.choice([1, 1, 2])
        self.emit(ind, f"{c} = {start}")
        cond = f"{c} < {self.nname}"
        accs = self.all("accs")
        if r.random() < 0.3 and accs:
            cond += f" and {r.choice(accs)} < {r.choice(['3.0', '10.0', '0.5'])}"
        self.emit(ind, f"while {cond}:")
        self.emit(ind + 1, f"{name} = {c}")
        self.emit(ind + 1, f"{c} += {stepv}")
        self.loop_depth += 1
        self.block(ind + 1, r.randint(1, 3),
                   _Scope(ivars=[_IntVar(name, lambda n: start, lambda n: n - 1)]))
        self.loop_depth -= 1

    def helper_call(self, ind: int) -> None:
        r = self.rng
        name, kind = r.choice(self.helper_sigs)
        vecs = [a for a in self.all("arrays") if len(a.shape) == 1]
        wr = [a for a in vecs if a.writable]
        accs = self.all("accs")
        if kind == "write" and wr:
            out = r.choice(wr).name
            src = r.choice(vecs).name
            call = f"{name}({out}, {src}, {self.rhs(1)})"
            if accs and r.random() < 0.6:
                self.emit(ind, f"{r.choice(accs)} += {call}")
            else:
                self.emit(ind, call)
        elif kind == "pair" and accs:
            p, q = self.fresh("p"), self.fresh("p")
            self.emit(ind, f"{p}, {q} = {name}({self.rhs(1)}, {self.rhs(1)})")
            self.emit(ind, f"{r.choice(accs)} += {p} * {q}")
        elif kind == "reduce" and vecs and accs:
            self.emit(ind, f"{r.choice(accs)} += {name}({r.choice(vecs).name}, {self.rhs(1)})")
        elif accs:
            self.emit(ind, f"{r.choice(accs)} += {self.rhs()}")
        else:
            self.emit(ind, "pass")

    def ret_expr(self) -> str:
        r = self.rng
        terms = list(self.all("accs"))
        r.shuffle(terms)
        terms = terms[:3]
        vecs = [a for a in self.all("arrays") if a.writable]
        if vecs and r.random() < 0.6:
            a = r.choice(vecs)
            terms.append(f"{a.name}[{', '.join(self.index(e) for e in a.shape)}]")
        if not terms or r.random() < 0.3:
            terms.append(self.expr(1))
        return " + ".join(f"{r.choice(['', '0.5 * ', '2.0 * '])}{t}" for t in terms)

    # --- top-level blocks -------------------------------------------------------------
    def stencil(self, ind: int) -> None:
        """Ping-pong buffers: a Jacobi sweep from one array into the other, then a swap."""
        r = self.rng
        a, b = self.fresh("ua"), self.fresh("ub")
        src = r.choice(["x", "w"]) if self.w_rank == 1 else "x"
        self.emit(ind, f"{a} = {src}.copy()")
        self.emit(ind, f"{b} = {r.choice(['np.zeros(n)', 'np.empty(n)', 'np.zeros_like(x)'])}")
        steps = r.choice(["3", "2", "n // 2", "1", "4"])
        c = r.choice(["0.25", "0.1", "0.4"])
        swap = r.random() < 0.6
        self.emit(ind, f"for step in range({steps}):")
        if swap:
            rd, wt = a, b
        else:
            rd, wt = self.fresh("src"), self.fresh("dst")
            self.emit(ind + 1, "if step % 2 == 0:")
            self.emit(ind + 2, f"{rd} = {a}")
            self.emit(ind + 2, f"{wt} = {b}")
            self.emit(ind + 1, "else:")
            self.emit(ind + 2, f"{rd} = {b}")
            self.emit(ind + 2, f"{wt} = {a}")
        self.emit(ind + 1, "for i in range(1, n - 1):")
        self.scopes.append(_Scope(ivars=[_IntVar("i", lambda n: 1, lambda n: n - 2)]))
        extra = ""
        if r.random() < 0.6:
            extra = f" + 0.1 * math.tanh({self.rhs(1)})"
        self.scopes.pop()
        self.emit(ind + 2, f"{wt}[i] = {rd}[i] + {c} * ({rd}[i - 1] - 2.0 * {rd}[i] + "
                           f"{rd}[i + 1]){extra}")
        self.emit(ind + 1, f"{wt}[0] = {rd}[0]" if r.random() < 0.7 else
                  f"{wt}[0] = 0.5 * {rd}[1]")
        self.emit(ind + 1, f"{wt}[n - 1] = {rd}[n - 1]")
        if swap:
            self.emit(ind + 1, f"{a}, {b} = {b}, {a}")
        vec = (_Len("n", lambda n: n),)
        self.scopes[-1].arrays += [_Arr(a, vec, True), _Arr(b, vec, True)]

    def recurrence(self, ind: int) -> None:
        """A local copy updated in place, each element from its neighbours."""
        r = self.rng
        u = self.fresh("u")
        src = r.choice(["x", "w"]) if self.w_rank == 1 else "x"
        self.emit(ind, f"{u} = {src}.copy()")
        vec = (_Len("n", lambda n: n),)
        kind = r.randrange(4)
        self.scopes.append(_Scope())
        if kind == 0:
            self.emit(ind, "for i in range(1, n):")
            self.scopes[-1].ivars.append(_IntVar("i", lambda n: 1, lambda n: n - 1))
            rhs = f"{u}[i - 1] * {r.choice(['0.5', '-0.7', '0.9'])} + {self.rhs(1)}"
        elif kind == 1:
            self.emit(ind, "for i in range(1, n - 1):")
            self.scopes[-1].ivars.append(_IntVar("i", lambda n: 1, lambda n: n - 2))
            rhs = f"0.5 * ({u}[i - 1] + {u}[i + 1]) + 0.1 * {self.rhs(1)}"
        elif kind == 2:
            self.emit(ind, "for i in reversed(range(n - 1)):")
            self.scopes[-1].ivars.append(_IntVar("i", lambda n: 0, lambda n: n - 2))
            rhs = f"math.tanh({u}[i + 1] + {self.rhs(1)})"
        else:
            self.emit(ind, "for i in range(1, n):")
            self.scopes[-1].ivars.append(_IntVar("i", lambda n: 1, lambda n: n - 1))
            rhs = f"{u}[i] * {u}[i - 1] * 0.5 + math.sin({self.rhs(1)})"
        self.scopes[-1].arrays.append(_Arr(u, vec, False))
        self.emit(ind + 1, f"{u}[i] = {rhs}")
        if r.random() < 0.4:
            self.loop_depth += 1
            self.stmt(ind + 1)
            self.loop_depth -= 1
        self.scopes.pop()
        self.scopes[-1].arrays.append(_Arr(u, vec, True))

    def matrix(self, ind: int) -> None:
        """A local 2-D array filled by a nested loop, read later as `A[i, j]`."""
        r = self.rng
        name = self.fresh("A")
        square = r.random() < 0.5
        cols = _Len("n", lambda n: n) if square else _Len("3", lambda n: _K)
        ctor = r.choice(["np.zeros", "np.empty"])
        self.emit(ind, f"{name} = {ctor}((n, {cols.text}))")
        self.emit(ind, "for i in range(n):")
        self.emit(ind + 1, f"for j in range({cols.text}):")
        self.scopes.append(_Scope(ivars=[_IntVar("i", lambda n: 0, lambda n: n - 1),
                                         _IntVar("j", lambda n: 0, lambda n: cols.fn(n) - 1)]))
        self.emit(ind + 2, f"{name}[i, j] = {self.expr(2)}")
        self.scopes.pop()
        self.scopes[-1].arrays.append(_Arr(name, (_Len("n", lambda n: n), cols), True))

    def scratch_row(self, ind: int) -> None:
        """A row of 3 refilled by one loop on every iteration of an outer loop, then read by
        one or two later loops of the same iteration (ADBench GMM's `xcentered`: the tape
        rebuilds what such reads read, `ad/forwarded_loads.py`)."""
        r = self.rng
        t = self.fresh("row")
        accs = self.all("accs")
        self.emit(ind, f"{t} = np.empty(3)")
        self.emit(ind, "for i in range(n):")
        self.scopes.append(_Scope(ivars=[_IntVar("i", lambda n: 0, lambda n: n - 1)]))
        self.loop_depth += 1
        self.emit(ind + 1, "for j in range(3):")
        self.scopes.append(_Scope(ivars=[_IntVar("j", lambda n: 0, lambda n: _K - 1)]))
        self.emit(ind + 2, f"{t}[j] = {self.rhs()}")
        self.scopes.pop()
        for _ in range(r.choice([1, 1, 2])):
            self.emit(ind + 1, "for j in range(3):")
            self.scopes.append(_Scope(ivars=[_IntVar("j", lambda n: 0, lambda n: _K - 1)]))
            self.safe = True
            read = self.squash(f"{t}[j]")
            self.safe = False
            self.emit(ind + 2, f"{r.choice(accs)} += {read} * {self.rhs(1)}")
            self.scopes.pop()
        self.loop_depth -= 1
        self.scopes.pop()

    def work_array(self, ind: int) -> None:
        r = self.rng
        t = self.fresh("t")
        vec = (_Len("n", lambda n: n),)
        k = r.random()
        if k < 0.45:
            self.emit(ind, f"{t} = {r.choice(['np.zeros(n)', 'np.zeros_like(x)', 'np.ones(n)'])}")
        else:
            self.emit(ind, f"{t} = {r.choice(['np.empty(n)', 'np.empty_like(x)'])}")
            self.emit(ind, "for i in range(n):")
            self.scopes.append(_Scope(ivars=[_IntVar("i", lambda n: 0, lambda n: n - 1)]))
            self.emit(ind + 1, f"{t}[i] = {self.expr(2)}")
            self.scopes.pop()
        self.scopes[-1].arrays.append(_Arr(t, vec, True))

    # --- helpers --------------------------------------------------------------------------
    def helper(self) -> None:
        r = self.rng
        name = f"g{len(self.helper_sigs)}"
        kind = r.choice(["reduce", "reduce", "write", "pair"])
        saved = self.lines, self.scopes, self.nname, self.loop_depth, self.budget
        self.lines, self.nname, self.loop_depth, self.in_helper = [], "m", 0, True
        self.budget = r.randint(1, 3)
        vec = (_Len("m", lambda n: n),)
        if kind == "reduce":
            self.scopes = [_Scope(floats=["c"], arrays=[_Arr("v", vec, False)])]
            self.emit(0, f"def {name}(v, c):")
            self.emit(1, "m = v.shape[0]" if r.random() < 0.5 else "m = len(v)")
            self.emit(1, "r = 0.0")
            self.scopes.append(_Scope(accs=["r"], floats=["r"]))
            self.loop(1)
            if r.random() < 0.5:
                self.stmt(1)
            self.emit(1, "return r")
        elif kind == "write":
            # `v` may be the array written (`g(t, t, c)`): its reads are squashed.
            self.scopes = [_Scope(floats=["c"], arrays=[_Arr("v", vec, True)])]
            self.emit(0, f"def {name}(out, v, c):")
            self.emit(1, "m = len(v)")
            self.emit(1, "for a in range(m):")
            self.scopes.append(_Scope(ivars=[_IntVar("a", lambda n: 0, lambda n: n - 1)]))
            self.emit(2, f"out[a] = {r.choice(['', 'out[a] + '])}{self.rhs(2)}")
            self.scopes.pop()
            self.emit(1, f"return out[{r.choice(['0', 'm - 1', '1'])}] * c")
        else:
            self.scopes = [_Scope(floats=["a", "b"])]
            self.emit(0, f"def {name}(a, b):")
            self.emit(1, f"return {self.expr(2)}, {self.expr(2)}")
        self.helpers.append("\n".join(self.lines))
        self.helper_sigs.append((name, kind))
        self.lines, self.scopes, self.nname, self.loop_depth, self.budget = saved
        self.in_helper = False

    # --- the module -------------------------------------------------------------------------
    def module(self) -> str:
        r = self.rng
        for _ in range(r.choice([0, 0, 1, 1, 2])):
            self.helper()
        w_shape = (_Len("n", lambda n: n),) if self.w_rank == 1 else \
            (_Len("n", lambda n: n), _Len("3", lambda n: _K))
        top = _Scope(floats=["s"], accs=["s"],
                     arrays=[_Arr("x", (_Len("n", lambda n: n),), False),
                             _Arr("w", w_shape, False)])
        self.scopes = [top]
        self.emit(0, "def f(x, w, n, s):")
        for _ in range(r.randint(0, 2)):
            a = self.fresh("acc")
            self.emit(1, f"{a} = {r.choice(['0.0', '1.0', '0.5 * s'])}")
            top.accs.append(a)
            top.floats.append(a)
        if r.random() < 0.3:
            c = self.fresh("cnt")
            self.emit(1, f"{c} = 0")
            top.ints.append(c)
        self.budget = r.randint(4, 10)
        blocks = r.randint(2, 4)
        for _ in range(blocks):
            k = r.random()
            if k < 0.2:
                self.work_array(1)
            elif k < 0.32:
                self.recurrence(1)
            elif k < 0.42:
                self.stencil(1)
            elif k < 0.5:
                self.matrix(1)
            elif k < 0.56:
                self.scratch_row(1)
            self.loop(1)
        self.emit(1, f"return {self.ret_expr()}")
        body = "\n".join(self.lines)
        return "import math\n\nimport numpy as np\n\n\n" + "\n\n\n".join(self.helpers +
                                                                          [body]) + "\n"


def _plus(name: str, d: int) -> str:
    return name if d == 0 else f"{name} + {d}" if d > 0 else f"{name} - {-d}"


def _add(fn: IntFn, d: int) -> IntFn:
    return lambda n: fn(n) + d


def _fits(lo: IntFn, hi: IntFn, d: int, ext: IntFn, wrap: bool = False) -> bool:
    """`v + d` is a valid index (or, with `wrap`, a valid negative one) of an axis of extent
    `ext(n)` for every value `lo(n) <= v <= hi(n)` and every n."""
    for n in _NS:
        if lo(n) > hi(n):
            continue
        if lo(n) + d < (-ext(n) if wrap else 0) or hi(n) + d > ext(n) - 1:
            return False
    return True


def make_args(rng: random.Random, w_rank: int = 1) -> tuple:
    """`(x, w, n, s)`: values in [-1, 1], `n` in `N_RANGE`."""
    n = rng.randint(*N_RANGE)
    x = np.array([rng.uniform(-1.0, 1.0) for _ in range(n)])
    wshape = (n,) if w_rank == 1 else (n, _K)
    w = np.array([rng.uniform(-1.0, 1.0) for _ in range(int(np.prod(wshape)))]).reshape(wshape)
    return x, w, n, rng.uniform(-1.0, 1.0)


def generate(rng: random.Random) -> LoopProgram:
    w_rank = 2 if rng.random() < 0.2 else 1
    source = _Gen(rng, w_rank).module()
    return LoopProgram(source, make_args(rng, w_rank))


def program_for_seed(seed: int) -> LoopProgram:
    return generate(random.Random(seed))
