"""Loop analysis: natural loops, nesting, preheaders/latches/exits, induction variables, and
trip counts checked against the number of header executions measured at run time."""

from __future__ import annotations

import ctypes
import subprocess
from dataclasses import dataclass

import numpy as np
import pytest

from enzyme_py.ad.driver import prepare
from enzyme_py.analysis.errors import AnalysisError
from enzyme_py.analysis.loops import (
    describe_loops,
    emit_trip_count,
    find_loops,
    induction_variables,
    trip_count,
)
from enzyme_py.backend import compile_ir
from enzyme_py.ir import Module, parse
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.dominance import dominators
from enzyme_py.ir.values import ConstantInt

NEST = """
define double @f(ptr %x, i64 %n, i64 %m) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %s = phi double [ 0.0, %entry ], [ %s.inner, %outer.latch ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %inner.pre, label %exit
inner.pre:
  br label %inner
inner:
  %j = phi i64 [ 0, %inner.pre ], [ %j.next, %inner ]
  %t = phi double [ %s, %inner.pre ], [ %t.next, %inner ]
  %p = getelementptr double, ptr %x, i64 %j
  %v = load double, ptr %p
  %t.next = fadd double %t, %v
  %j.next = add nsw i64 %j, 2
  %cj = icmp sle i64 %j.next, %m
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %s.inner = phi double [ %t.next, %inner ]
  %i.next = add i64 %i, 1
  br label %outer
exit:
  ret double %s
}
"""


def _fn(text: str, name: str = "f"):
    fn = parse(text).get_function(name)
    dom = dominators(fn)
    return fn, dom, find_loops(fn, dom)


def _block(fn, name: str):
    return next(b for b in fn.blocks if b.name == name)


def _names(blocks) -> set[str]:
    return {b.name for b in blocks}


# --- structure ----------------------------------------------------------------------------


def test_nested_loops_structure() -> None:
    fn, dom, info = _fn(NEST)
    assert len(info.loops) == 2
    outer, inner = info.loops  # outermost first
    assert outer.header.name == "outer" and inner.header.name == "inner"
    assert _names(outer.blocks) == {"outer", "inner.pre", "inner", "outer.latch"}
    assert _names(inner.blocks) == {"inner"}
    assert inner.parent is outer and outer.parent is None
    assert outer.children == [inner]
    assert (outer.depth, inner.depth) == (1, 2)
    assert outer.preheader is _block(fn, "entry")
    assert inner.preheader is _block(fn, "inner.pre")
    assert outer.latch is _block(fn, "outer.latch")
    assert inner.latch is _block(fn, "inner")
    assert _names(outer.exits) == {"exit"} and _names(outer.exiting) == {"outer"}
    assert _names(inner.exits) == {"outer.latch"} and _names(inner.exiting) == {"inner"}
    assert outer.is_simplified and inner.is_simplified
    assert inner.nest() == [outer, inner]
    # the innermost loop owns each block
    assert info.loop_of[_block(fn, "inner")] is inner
    assert info.loop_of[_block(fn, "outer.latch")] is outer
    assert info.loop_of[_block(fn, "inner.pre")] is outer
    assert _block(fn, "entry") not in info.loop_of
    assert _block(fn, "exit") not in info.loop_of


def test_no_loops() -> None:
    _, _, info = _fn("define double @f(double %x) {\n  %y = fmul double %x, %x\n"
                     "  ret double %y\n}\n")
    assert info.loops == () and info.loop_of == {}


TWO_ENTRIES_TWO_LATCHES = """
define i64 @f(i1 %c, i64 %n) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %head
b:
  br label %head
head:
  %i = phi i64 [ 0, %a ], [ 1, %b ], [ %i.1, %l1 ], [ %i.2, %l2 ]
  %t = icmp slt i64 %i, %n
  br i1 %t, label %body, label %exit
body:
  %odd = trunc i64 %i to i1
  br i1 %odd, label %l1, label %l2
l1:
  %i.1 = add i64 %i, 1
  br label %head
l2:
  %i.2 = add i64 %i, 3
  br label %head
exit:
  ret i64 %i
}
"""


def test_loop_without_preheader_and_with_two_latches() -> None:
    fn, dom, info = _fn(TWO_ENTRIES_TWO_LATCHES)
    (lp,) = info.loops
    assert lp.header.name == "head"
    assert _names(lp.latches) == {"l1", "l2"}
    assert lp.latch is None and lp.preheader is None and not lp.is_simplified
    assert induction_variables(lp) == []
    assert trip_count(lp, dom) is None
    text = describe_loops(fn)
    assert "preheader none" in text and "trip count: unknown" in text


TWO_EXITS = """
define i64 @f(ptr %x, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %t = icmp slt i64 %i, %n
  br i1 %t, label %body, label %done
body:
  %p = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %p
  %neg = fcmp olt double %v, 0.0
  br i1 %neg, label %found, label %latch
latch:
  %i.next = add nsw i64 %i, 1
  br label %head
found:
  ret i64 %i
done:
  ret i64 -1
}
"""


def test_loop_with_two_exits_has_an_upper_bound() -> None:
    fn, dom, info = _fn(TWO_EXITS)
    (lp,) = info.loops
    assert _names(lp.exits) == {"done", "found"}
    assert _names(lp.exiting) == {"head", "body"}
    assert lp.is_simplified
    assert [iv.phi.name for iv in induction_variables(lp)] == ["i"]
    # the test `i slt n` runs on every iteration; the `found` exit can only end it earlier
    tc = trip_count(lp, dom)
    assert tc is not None and tc.iv.phi.name == "i" and tc.predicate == "slt"
    assert not tc.tested_next and tc.bound is fn.args[1]


EQUALITY_EXIT_FIRST = """
define double @f(ptr %a, i64 %k, i64 %n) {
entry:
  br label %body
body:
  %i = phi i64 [ %k, %entry ], [ %i.next, %latch ]
  %p = getelementptr double, ptr %a, i64 %i
  store double 1.0, ptr %p
  %hit = icmp eq i64 %i, 2
  br i1 %hit, label %early, label %latch
latch:
  %i.next = add nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %body, label %done
early:
  ret double 0.0
done:
  ret double 1.0
}
"""


def test_a_comparison_exit_bounds_the_count_before_an_equality_exit() -> None:
    # `i == 2` comes first but bounds the count only where i reaches 2; from k > 2 it would
    # count to the IV's wrap (loop fuzz seed 5149: a tape sized by a wrapped count,
    # then written past its end); `i + 1 < n` bounds it from any start
    fn, dom, info = _fn(EQUALITY_EXIT_FIRST)
    (lp,) = info.loops
    tc = trip_count(lp, dom)
    assert tc is not None and tc.predicate == "slt" and tc.bound is fn.args[2]


WHILE_DATA = """
define double @f(double %x) {
entry:
  br label %head
head:
  %y = phi double [ %x, %entry ], [ %y.half, %head ]
  %y.half = fmul double %y, 0.5
  %big = fcmp ogt double %y.half, 1.0
  br i1 %big, label %head, label %exit
exit:
  ret double %y.half
}
"""


def test_data_dependent_loop() -> None:
    fn, dom, info = _fn(WHILE_DATA)
    (lp,) = info.loops
    assert lp.header is lp.latch and lp.header.name == "head"
    assert induction_variables(lp) == []  # a float phi is not an induction variable
    assert trip_count(lp, dom) is None


IRREDUCIBLE = """
define void @g(i1 %c, i1 %d) {
entry:
  br i1 %c, label %a, label %b
a:
  br i1 %d, label %b, label %exit
b:
  br label %a
exit:
  ret void
}
"""


def test_irreducible_control_flow_raises() -> None:
    fn = parse(IRREDUCIBLE).get_function("g")
    with pytest.raises(AnalysisError, match=r"irreducible control flow in @g.*%[ab]"):
        find_loops(fn)


def test_irreducible_inside_a_loop_raises() -> None:
    text = """
define void @g(i1 %c, i1 %d, i1 %e) {
entry:
  br label %outer
outer:
  br i1 %c, label %a, label %b
a:
  br i1 %d, label %b, label %latch
b:
  br i1 %e, label %a, label %latch
latch:
  br i1 %c, label %outer, label %exit
exit:
  ret void
}
"""
    with pytest.raises(AnalysisError, match="irreducible"):
        find_loops(parse(text).get_function("g"))


IVS = """
define i64 @f(i64 %n, i32 %m, i64 %k) {
entry:
  br label %head
head:
  %up = phi i64 [ 5, %entry ], [ %up.next, %head ]
  %down = phi i32 [ %m, %entry ], [ %down.next, %head ]
  %rev = phi i64 [ 0, %entry ], [ %rev.next, %head ]
  %var = phi i64 [ 0, %entry ], [ %var.next, %head ]
  %geo = phi i64 [ 1, %entry ], [ %geo.next, %head ]
  %fp = phi double [ 0.0, %entry ], [ %fp.next, %head ]
  %up.next = add nsw i64 %up, 3
  %down.next = sub i32 %down, 2
  %rev.next = add i64 7, %rev
  %var.next = add i64 %var, %k
  %geo.next = mul i64 %geo, 2
  %fp.next = fadd double %fp, 1.0
  %t = icmp slt i64 %up.next, %n
  br i1 %t, label %head, label %exit
exit:
  ret i64 %up
}
"""


def test_induction_variables() -> None:
    fn, dom, info = _fn(IVS)
    (lp,) = info.loops
    ivs = {iv.phi.name: iv for iv in induction_variables(lp)}
    assert set(ivs) == {"up", "down", "rev"}  # not: a variable step, a product, a float
    assert (ivs["up"].step, ivs["down"].step, ivs["rev"].step) == (3, -2, 7)
    assert isinstance(ivs["up"].start, ConstantInt) and ivs["up"].start.value == 5
    assert ivs["down"].start is fn.args[1]
    assert ivs["up"].next.name == "up.next"
    tc = trip_count(lp, dom)
    assert tc is not None
    assert tc.iv.phi.name == "up" and tc.tested_next and tc.predicate == "slt"
    assert tc.bound is fn.args[0]


def test_trip_count_normalizes_swapped_and_negated_tests() -> None:
    # exit when `n slt i.next`: the loop continues while `i.next sle n` (swapped, negated)
    text = """
define void @f(i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %head ]
  %i.next = add i64 %i, 1
  %t = icmp slt i64 %n, %i.next
  br i1 %t, label %exit, label %head
exit:
  ret void
}
"""
    fn, dom, info = _fn(text)
    tc = trip_count(info.loops[0], dom)
    assert tc is not None and tc.predicate == "sle" and tc.tested_next



# --- trip counts against reality ----------------------------------------------------------

SHAPES_C = r"""
#define BODY acc = (acc ^ (long)i) * 3 + 1
long lt1(long a, long n) { long acc = 0; for (long i = a; i < n; i++) BODY; return acc; }
long lt3(long a, long n) { long acc = 0; for (long i = a; i < n; i += 3) BODY; return acc; }
long le2(long a, long n) { long acc = 0; for (long i = a; i <= n; i += 2) BODY; return acc; }
long ge1(long a, long n) { long acc = 0; for (long i = n; i >= a; i--) BODY; return acc; }
long ge0(long a, long n) { long acc = a; for (long i = n; i >= 0; i -= 2) BODY; return acc; }
long gt3(long a, long n) { long acc = 0; for (long i = n; i > a; i -= 3) BODY; return acc; }
long ne1(long a, long n) { long acc = 0; for (long i = a; i != n; i++) BODY; return acc; }
long nedown(long a, long n) { long acc = 0; for (long i = n; i != a; i--) BODY; return acc; }
long ult2(unsigned a, unsigned n) { long acc = 0; for (unsigned i = a; i < n; i += 2) BODY; return acc; }
long ule1(unsigned a, unsigned n) { long acc = 0; for (unsigned i = a; i <= n; i++) BODY; return acc; }
long une1(unsigned a, unsigned n) { long acc = 0; for (unsigned i = a; i != n; i++) BODY; return acc; }
long ugt1(unsigned a, unsigned n) { long acc = 0; for (unsigned i = n; i > a; i--) BODY; return acc; }
long unedown(unsigned a, unsigned n) { long acc = 0; for (unsigned i = n; i != a; i--) BODY; return acc; }
long slt4_32(int a, int n) { long acc = 0; for (int i = a; i < n; i += 4) BODY; return acc; }
long sge_32(int a, int n) { long acc = 0; for (int i = n; i >= a; i--) BODY; return acc; }
long ne_32(int a, int n) { long acc = 0; for (int i = a; i != n; i++) BODY; return acc; }
long nest(long a, long n) {
  long acc = 0;
  for (long i = a; i < n; i++)
    for (long j = 0; j <= i; j += 2) acc = (acc ^ j) * 3 + i;
  return acc;
}
long brk(long a, long n) {
  long acc = 0;
  for (long i = a; i < n; i++) { BODY; if (acc % 5 == 3) break; }
  return acc;
}
long ultc(unsigned a, unsigned n) { long acc = n; for (unsigned i = a; i < 3000000000u; i++) BODY; return acc; }
double red(const double *x, long n) { double s = 0; for (long i = 0; i < n; i++) s += x[i] * x[i]; return s; }
long isum(const long *x, long n) { long s = 0; for (long i = 0; i < n; i++) s += x[i]; return s; }
"""

SHAPES = ("lt1", "lt3", "le2", "ge1", "ge0", "gt3", "ne1", "nedown", "ult2", "ule1", "une1",
          "ugt1", "unedown", "slt4_32", "sge_32", "ne_32", "nest", "brk", "red", "isum")
UNSIGNED_NE = ("une1", "unedown")
U32 = 2**32
COUNTERS = ("cnt", "tc", "bad", "entries", "last.cnt", "last.tc")


@dataclass
class Instrumented:
    """A JIT-compiled module where each loop with a trip count records, on every exit,
    whether the header ran exactly as often as the trip count emitted in its preheader (at
    most as often, for loops with other exits: the count is then an upper bound)."""

    jit: object
    loops: dict[str, list[int]]  # function -> global indices of its loops
    unknown: list[str]  # "function loop-index" of loops without a trip count
    known: set[int]  # global indices of the instrumented loops
    ir: str

    def cell(self, name: str, j: int) -> ctypes.c_int64:
        return ctypes.c_int64.from_address(self.jit.address(f"tcq.{name}{j}"))

    def run(self, fname: str, args: tuple) -> list[str]:
        for j in self.loops[fname]:
            self.cell("bad", j).value = 0
        self.jit.function(fname)(*args)
        problems = []
        for j in self.loops[fname]:
            if self.cell("bad", j).value:
                shown = tuple("array" if isinstance(a, np.ndarray) else a for a in args)
                problems.append(f"{fname}{shown} loop {j}: header ran "
                                f"{self.cell('last.cnt', j).value} times, trip count said "
                                f"{self.cell('last.tc', j).value}")
        return problems


def _instrument(text: str) -> Instrumented:
    module = prepare(parse(text, "shapes.ll"))
    total = sum(len(find_loops(fn).loops) for fn in module.functions if not fn.is_declaration)
    decls = "".join(f"@tcq.{c}{j} = global i64 0\n" for j in range(total) for c in COUNTERS)
    module = parse(str(module) + "\n" + decls)
    loops: dict[str, list[int]] = {}
    unknown: list[str] = []
    known: set[int] = set()
    j = 0
    for fn in module.functions:
        if fn.is_declaration:
            continue
        dom = dominators(fn)
        info = find_loops(fn, dom)
        for k, lp in enumerate(info.loops):
            loops.setdefault(fn.name, []).append(j)
            tc = trip_count(lp, dom)
            if tc is None:
                unknown.append(f"{fn.name} {k}")
            else:
                _instrument_loop(module, lp, tc, j)
                known.add(j)
            j += 1
    return Instrumented(compile_ir(str(module), opt_level=0), loops, unknown, known,
                        str(module))


def _instrument_loop(module: Module, lp, tc, j: int) -> None:
    g = {c: module.get_global(f"tcq.{c}{j}") for c in COUNTERS}
    one = ConstantInt(T.I64, 1)
    b = Builder().position_before(lp.preheader.terminator)
    b.store(emit_trip_count(b, tc), g["tc"])
    b.store(ConstantInt(T.I64, 0), g["cnt"])
    b = Builder().position_after_phis(lp.header)
    b.store(b.add(b.load(T.I64, g["cnt"]), one), g["cnt"])
    for exit_block in lp.exits:  # loop-simplify form: exits are entered only from the loop
        b = Builder().position_after_phis(exit_block)
        count = b.load(T.I64, g["cnt"])
        want = b.load(T.I64, g["tc"])
        wrong = b.zext(b.icmp("ne" if len(lp.exiting) == 1 else "ugt", count, want), T.I64)
        b.store(b.add(b.load(T.I64, g["bad"]), wrong), g["bad"])
        b.store(b.add(b.load(T.I64, g["entries"]), one), g["entries"])
        b.store(count, g["last.cnt"])
        b.store(want, g["last.tc"])


_BUILT: dict[str, Instrumented] = {}


def _build(clang: str, opt: str, tmp_path_factory) -> Instrumented:
    if opt not in _BUILT:
        d = tmp_path_factory.mktemp("shapes")
        src = d / "shapes.c"
        src.write_text(SHAPES_C)
        out = d / f"shapes{opt}.ll"
        res = subprocess.run([clang, opt, "-S", "-emit-llvm", str(src), "-o", str(out)],
                             capture_output=True, text=True, check=False)
        assert res.returncode == 0, res.stderr
        _BUILT[opt] = _instrument(out.read_text())
        _BUILT[opt].opt = opt  # type: ignore[attr-defined]
    return _BUILT[opt]


@pytest.fixture(params=["-O0", "-O2"], ids=["O0", "O2"])
def shapes(request, clang, tmp_path_factory) -> Instrumented:
    return _build(clang, request.param, tmp_path_factory)


def _small(fname: str) -> list[tuple]:
    """(a, n) pairs (or (array, n)) whose loops run at most a few dozen times."""
    if fname in ("red", "isum"):
        x = np.arange(64, dtype=np.float64 if fname == "red" else np.int64)
        return [(x, n) for n in range(-3, 41)]
    if fname.startswith("u"):
        bases = [0, 1, 5, 1000, 0x7FFFFFF0, 0x80000005, 0xFFFFFFE0]
        pairs = []
        for a in bases:
            for d in range(-4, 27):
                n = a + d
                if not 0 <= n < U32 - 2:  # keep clear of unsigned wrap-around
                    continue
                if fname in UNSIGNED_NE and d < 0:  # would wrap around: 2^32 iterations
                    continue
                pairs.append((a, n))
        return pairs
    vals = list(range(-9, 14))
    if fname in ("ne1", "ne_32", "nedown"):
        return [(a, n) for a in vals for n in vals if n >= a]
    return [(a, n) for a in vals for n in vals]


def test_every_shape_has_a_trip_count(shapes: Instrumented) -> None:
    assert set(shapes.loops) == {*SHAPES, "ultc"}
    # -O2 folds brk's two exit tests into one `select`: no trip count (the tape grows)
    allowed = {"ultc 0", "brk 0"} if shapes.opt == "-O2" else set()  # type: ignore[attr-defined]
    assert set(shapes.unknown) <= allowed
    # -O2 really produced the shapes we meant: unrolled main loops with remainder loops
    if shapes.opt == "-O2":  # type: ignore[attr-defined]
        assert len(shapes.loops["red"]) == 2 and len(shapes.loops["lt1"]) == 2
        assert len(shapes.loops["nest"]) >= 2


@pytest.mark.parametrize("fname", SHAPES)
def test_trip_count_matches_header_executions(shapes: Instrumented, fname: str) -> None:
    for j in shapes.loops[fname]:
        shapes.cell("entries", j).value = 0
    problems: list[str] = []
    for args in _small(fname):
        problems += shapes.run(fname, args)
    assert not problems, "\n".join(problems[:10])
    for j in shapes.loops[fname]:  # every instrumented loop was really exercised
        if j in shapes.known:
            assert shapes.cell("entries", j).value > 0, f"loop {j} of {fname} never ran"
    assert any(j in shapes.known for j in shapes.loops[fname]) or fname == "brk"


@pytest.mark.parametrize("fname", UNSIGNED_NE)
def test_unsigned_ne_trip_count_across_2_pow_31(clang, tmp_path_factory, fname: str) -> None:
    """Regression: `ne` tests on an i32 IV were sign-extended, so an unsigned range across 2^31
    got a negative trip count (a tape malloc of garbage size)."""
    inst = _build(clang, "-O0", tmp_path_factory)
    a = 0x7FFFFFF0
    problems: list[str] = []
    for d in range(15, 25):  # i runs between a and a + d: across 2^31
        problems += inst.run(fname, (a, a + d))
    assert not problems, "\n".join(problems[:4])


def test_unsigned_constant_bound_above_2_pow_31(clang, tmp_path_factory) -> None:
    """Regression: an i32 constant bound was widened by its signed value, so
    `i ult 3000000000` (printed `i32 -1294967296`) got a negative trip count."""
    inst = _build(clang, "-O0", tmp_path_factory)
    assert "ultc 0" not in inst.unknown
    problems: list[str] = []
    for a in range(2999999980, 3000000003):
        problems += inst.run("ultc", (a, 0))
    assert not problems, "\n".join(problems[:4])


def test_emit_trip_count_at_preheader_is_a_valid_value() -> None:
    """The emitted count is plain IR at the end of the preheader and verifies."""
    from enzyme_py.ir import verify

    module = parse(NEST)
    fn = module.get_function("f")
    dom = dominators(fn)
    info = find_loops(fn, dom)
    for lp in info.loops:
        tc = trip_count(lp, dom)
        b = Builder().position_before(lp.preheader.terminator)
        v = emit_trip_count(b, tc)
        assert v.type == T.I64 and isinstance(v, I.Instruction)
        assert v.parent is lp.preheader
    verify(module)
