"""Binomial checkpointing of time loops (`grad(..., checkpoint=, memory_budget=)`).

The checkpointed gradient must be the taped gradient (the same step gradients of the same
states), whatever the number of kept states; the schedule must reverse every step exactly
once, in order, within the bound on repeated steps; what cannot be checkpointed is an error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import enzyme_py as ez
from benchmarks.objectives import ode
from enzyme_py.ad.checkpoint_loops import CheckpointPlan, checkpoint_plan
from enzyme_py.ad.runtime import checkpoint_snapshots_function, revolve_split_function
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.backend import compile_ir
from enzyme_py.config import Config, parse_bytes
from enzyme_py.errors import ArgumentValueError
from enzyme_py.ir import Module, parse
from enzyme_py.ir.printer import format_module


def heat(u0, kappa, r, n, steps):
    """A 1-D heat stencil ping-ponging between two local buffers (the state is memory)."""
    u = np.zeros(n)
    v = np.zeros(n)
    for i in range(n):
        u[i] = u0[i]
        v[i] = u0[i]
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = u[i] + r * kappa[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(1, n - 1):
            u[i] = v[i]
    s = 0.0
    for i in range(n):
        s += math.sin(u[i]) * (i + 1)
    return s


def in_place(u, n, steps):
    """Writes its argument in the time loop (the front end tells the argument's extent)."""
    for _ in range(steps):
        for i in range(1, n - 1):
            u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1])
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]
    return s


def in_place_2d(u, a, n, steps):
    for _ in range(steps):
        for i in range(1, n - 1):
            for j in range(n):
                u[i, j] = 0.5 * u[i, j] + 0.25 * a[i, j] * (u[i - 1, j] + u[i + 1, j])
    return np.sum(u * u)


rk4 = ode.primal  # RK4 on Lotka-Volterra: the state is two floats carried by the loop
RK4_ARGS = ode.make_args(ode.Size("300 steps", 300))


def heat_args(n=40, steps=37):
    rng = np.random.default_rng(1)
    return (rng.uniform(-1.0, 1.0, n), rng.uniform(0.5, 1.5, n), 0.2, n, steps)


@pytest.mark.parametrize("checkpoint", [True, 1, 2, 5, 299, 300, 10_000])
def test_rk4_checkpointed_gradient_is_the_taped_one(checkpoint):
    want = ez.grad(rk4, argnums=(0, 1))(*RK4_ARGS)
    got = ez.grad(rk4, argnums=(0, 1), checkpoint=checkpoint)(*RK4_ARGS)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    assert np.all(np.abs(want[0]) > 1e-3)  # (a gradient that is not zero)


@pytest.mark.parametrize("options", [dict(checkpoint=True), dict(checkpoint=1),
                                     dict(checkpoint=3), dict(memory_budget=4096),
                                     dict(memory_budget="1MB")])
def test_heat_checkpointed_gradient_is_the_taped_one(options):
    args = heat_args()
    want = ez.grad(heat, argnums=(0, 1))(*args)
    got = ez.grad(heat, argnums=(0, 1), **options)(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert np.abs(want[1]).max() > 1e-3


@pytest.mark.parametrize("block_steps", [1, 3, 36, 37, 50])
@pytest.mark.parametrize("options", [dict(checkpoint=True), dict(checkpoint=2),
                                     dict(memory_budget="1MB")])
def test_heat_reversed_in_blocks_is_the_taped_gradient(monkeypatch, block_steps, options):
    """37 steps in blocks of 1, 3 (the last one short), 36, 37 and 50 steps: every block is
    run forward again with its tape and reversed, from kept states at block boundaries (all
    of them under the budget; a few, and steps run again, with checkpoint=)."""
    import enzyme_py.ad.checkpoint as checkpoint

    n, steps = 40, 37
    state = 2 * n * 8 + 16  # (u and v, then the loop's record: its counter, and the exit code)
    monkeypatch.setattr(checkpoint, "BLOCK_STATE_BYTES", state * block_steps)
    args = heat_args(n, steps)
    want = ez.grad(heat, argnums=(0, 1))(*args)
    got = ez.grad(heat, argnums=(0, 1), **options)(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert np.abs(want[1]).max() > 1e-3
    # each block is reversed once, with one tape: its derivative's allocation counts them
    report = ez.profile(heat, *args, argnums=(0, 1), repeat=1, **options)
    tapes = [s.calls for s in report.gradient_heap
             if s.site.function.endswith(".block") and s.site.name == "tape"]
    assert tapes == [-(-steps // block_steps)]


def test_rk4_reversed_in_blocks_sums_the_float_adjoints_of_every_block(monkeypatch):
    """The adjoints of the loop's float arguments are summed per block, then over blocks."""
    import enzyme_py.ad.checkpoint as checkpoint

    monkeypatch.setattr(checkpoint, "BLOCK_STATE_BYTES", 7 * 48)  # (7 steps of its record)
    want = ez.grad(rk4, argnums=(0, 1, 3))(*RK4_ARGS)
    got = ez.grad(rk4, argnums=(0, 1, 3), checkpoint=3)(*RK4_ARGS)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    assert abs(want[2]) > 1e-3  # (h, a float argument of the loop)


def read_then_overwritten(x, n, steps, overwrite):
    """The time loop only reads `a`; the code after it overwrites `a` (or not)."""
    a = np.zeros(n)
    u = np.zeros(n)
    for i in range(n):
        a[i] = 0.5 + 0.1 * x[i]
        u[i] = x[i]
    for _ in range(steps):
        for i in range(n):
            u[i] = u[i] * a[i] + 0.1 * math.sin(u[i])
    if overwrite:
        for i in range(n):
            a[i] = 2.0 * u[i]
    s = 0.0
    for i in range(n):
        s += a[i] * u[i]
    return s


@pytest.mark.parametrize("overwrite", [False, True])
@pytest.mark.parametrize("options", [dict(checkpoint=True), dict(checkpoint=2)])
def test_memory_the_loop_reads_and_later_code_writes_is_taped_not_read_again(monkeypatch,
                                                                            overwrite,
                                                                            options):
    """Run as one block (the block's halves apart: the rest of the function runs between
    them) or in blocks of 2 steps, the reverse sweep must not read `a` again once the code
    after the loop overwrote it; memory the loop only reads and nothing writes later is
    read again (the block's stable arguments)."""
    import enzyme_py.ad.checkpoint as checkpoint

    if options == dict(checkpoint=2):
        monkeypatch.setattr(checkpoint, "BLOCK_STATE_BYTES", 2 * (16 + 16 * 8 * 2))
    args = (np.linspace(-1.0, 1.0, 16), 16, 9, overwrite)
    want = ez.grad(read_then_overwritten)(*args)
    got = ez.grad(read_then_overwritten, **options)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    assert np.abs(want).max() > 0.01


def heat_of_copies(u0, kappa, r, steps):
    """`heat` with its buffers made by `u0.copy()` (LLVM makes one of them on two paths)."""
    n = u0.shape[0]
    u = u0.copy()
    v = u0.copy()
    for _ in range(steps // 2):
        for i in range(1, n - 1):
            v[i] = u[i] + r * kappa[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(1, n - 1):
            u[i] = v[i] + r * kappa[i] * (v[i - 1] - 2.0 * v[i] + v[i + 1])
    s = 0.0
    for i in range(n):
        s += math.sin(u[i]) * (i + 1)
    return s


@pytest.mark.parametrize("options", [dict(checkpoint=True), dict(checkpoint=2)])
def test_a_buffer_made_on_two_paths_is_one_region(options):
    """The loop writes through a phi of two allocations of one size: one region."""
    u0, kappa, r, n, steps = heat_args(40, 36)
    want = ez.grad(heat_of_copies, argnums=(0, 1))(u0, kappa, r, steps)
    got = ez.grad(heat_of_copies, argnums=(0, 1), **options)(u0, kappa, r, steps)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert np.abs(want[1]).max() > 1e-3


def test_heat_checkpointed_gradient_matches_finite_differences():
    args = heat_args(12, 9)
    g = ez.grad(heat, argnums=1, checkpoint=2)(*args)
    kappa, eps = args[1].copy(), 1e-6
    for k in (1, 5, 10):
        up, down = kappa.copy(), kappa.copy()
        up[k] += eps
        down[k] -= eps
        fd = (heat(args[0], up, *args[2:]) - heat(args[0], down, *args[2:])) / (2 * eps)
        assert abs(g[k] - fd) < 1e-7 * max(1.0, abs(fd))


def test_value_and_grad_with_checkpointing_returns_the_value():
    value, g = ez.value_and_grad(rk4, checkpoint=4)(*RK4_ARGS)
    assert value == pytest.approx(rk4(*RK4_ARGS), rel=1e-12)
    np.testing.assert_allclose(g, ez.grad(rk4)(*RK4_ARGS), rtol=1e-12)


def test_a_loop_writing_its_array_arguments_is_checkpointed():
    u = np.linspace(0.0, 1.0, 16)
    want = ez.grad(in_place)(u.copy(), 16, 3)
    v = u.copy()
    got = ez.grad(in_place, checkpoint=2)(v, 16, 3)
    np.testing.assert_array_equal(got, want)
    w = u.copy()
    in_place(w, 16, 3)
    np.testing.assert_array_equal(v, w)  # (the argument as the function leaves it)
    rng = np.random.default_rng(0)
    m, a = rng.uniform(size=(6, 6)), rng.uniform(size=(6, 6))
    want2 = ez.grad(in_place_2d, argnums=(0, 1))(m.copy(), a, 6, 5)
    got2 = ez.grad(in_place_2d, argnums=(0, 1), checkpoint=2)(m.copy(), a, 6, 5)
    for g, w2 in zip(got2, want2, strict=True):
        np.testing.assert_array_equal(g, w2)


def test_a_loop_writing_a_strided_argument_is_refused_with_the_reason():
    m, a = np.ones((6, 6)), np.ones((6, 6))
    with pytest.raises(DifferentiationError, match="cannot checkpoint this loop: the loop "
                                                   "writes the memory argument %u points "
                                                   "to, whose extent is not known"):
        ez.grad(in_place_2d, argnums=(0, 1), checkpoint=True)(np.asfortranarray(m), a, 6, 5)


def test_options_are_checked():
    with pytest.raises(ArgumentValueError, match="checkpoint must be"):
        Config(checkpoint=0)
    with pytest.raises(ArgumentValueError, match="not a size"):
        Config(memory_budget="lots")
    with pytest.raises(ArgumentValueError, match="positive"):
        Config(memory_budget=0)
    assert parse_bytes("256MB") == 256_000_000
    assert parse_bytes("1.5 GiB") == 3 * 2**29
    assert parse_bytes(4096) == 4096
    cfg = Config(memory_budget="2kB")
    assert cfg.checkpointing and cfg.memory_budget == 2000 and cfg.checkpoint_snapshots == 0
    assert Config(checkpoint=7).checkpoint_snapshots == 7
    assert not Config().checkpointing


def test_plan_round_trips_through_its_attribute():
    plan = CheckpointPlan("f.loop.1.step", 48, ((3, 4), (5, 6)), 7, 1 << 20)
    m = parse(f"define internal void @f.loop.1(ptr %s) {plan.attribute()} {{\n"
              "entry:\n  ret void\n}\n")
    fn = m.get_function("f.loop.1")
    assert checkpoint_plan(fn) == plan
    assert plan.attribute() in format_module(m)


# --- the schedule: the IR helpers, driven as `@L.revolve` drives them -----------------------

@pytest.fixture(scope="module")
def helpers():
    m = Module()
    revolve_split_function(m)
    checkpoint_snapshots_function(m)
    for f in m.functions:
        f.prefix = []  # (exported, to call them)
    jm = compile_ir(format_module(m), opt_level=0)
    return jm.function("enzyme_py.revolve_split"), jm.function("enzyme_py.checkpoint_snapshots")


def reverse_by_revolve(split, n, kept):
    """Drive the schedule as `@L.revolve` (checkpoint.py) does over n steps with `kept`
    states, with the IR helper `split` placing each kept state: returns the order the steps
    are reversed in and how many times each step runs forward again."""
    reversed_order: list[int] = []
    runs = [0] * n

    def revolve(a, b, s):  # (the state before step a is kept; s more states are free)
        while b - a > 1:
            ahead = split(b - a, s)
            assert 1 <= ahead <= b - a - 1
            mid = a + ahead
            for t in range(a, mid):
                runs[t] += 1
            if s > 0:
                revolve(mid, b, s - 1)
            else:  # (no state to keep: the helper must run up to the last step)
                assert mid == b - 1
                reversed_order.append(mid)
            b = mid
        reversed_order.append(a)

    revolve(0, n, kept - 1)
    return reversed_order, runs


def binomial_runs(n, kept):
    """The least r with C(kept + r, kept) >= n: Griewank's bound on repeated runs."""
    r = 0
    while math.comb(kept + r, kept) < n:
        r += 1
    return r


@pytest.mark.parametrize("n,kept", [(1, 1), (2, 1), (7, 1), (10, 2), (100, 3), (1000, 10),
                                    (4097, 5), (12, 12), (50, 64)])
def test_revolve_reverses_every_step_once_within_the_binomial_bound(helpers, n, kept):
    split, _ = helpers
    kept = min(kept, n)
    order, runs = reverse_by_revolve(split, n, kept)
    assert order == list(range(n - 1, -1, -1))
    assert max(runs) <= binomial_runs(n, kept)


def test_snapshot_count_from_options(helpers):
    _, count = helpers
    assert count(1000, 100, 7, 0) == 7
    assert count(5, 100, 7, 0) == 5  # (never more than the steps)
    assert count(1000, 100, 0, 116 * 11) == 10  # (a state and its frame; one is the final copy)
    assert count(1000, 100, 0, 50) == 1  # (at least the start)
    assert count(10_000, 100, 0, 0) == 101  # about sqrt(N)


LOOP_IR = """  ; (a time loop: at least MIN_BODY_INSTRUCTIONS instructions)
define double @decay(double %k, double %x0, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %x = phi double [ %x0, %entry ], [ %x.next, %loop ]
  %a = fmul double %k, %x
  %b = fmul double %a, 1.000000e-02
  %c = fsub double %x, %b
  %d = call double @llvm.sin.f64(double %c)
  %e = fmul double %d, 1.000000e-03
  %f = fadd double %c, %e
  %g = fmul double %f, %f
  %h = fmul double %g, 1.000000e-04
  %p = fsub double %f, %h
  %q = fmul double %p, %k
  %r = fmul double %q, 1.000000e-05
  %s = fadd double %p, %r
  %t = fmul double %s, 9.999000e-01
  %u = fadd double %t, 1.000000e-06
  %v = fmul double %u, %u
  %w = fmul double %v, 1.000000e-07
  %w1 = fmul double %w, 5.000000e-01
  %w2 = fadd double %w1, %w
  %w3 = fmul double %w2, %k
  %w4 = fmul double %w3, 1.000000e-02
  %x.next = fsub double %u, %w4
  %i.next = add i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %y = phi double [ %x.next, %loop ]
  ret double %y
}
declare double @llvm.sin.f64(double)
"""


def test_cli_grad_checkpoints_a_loop_and_gives_the_same_gradient(tmp_path, capsys):
    import ctypes

    from enzyme_py.cli import main

    src = tmp_path / "decay.ll"
    src.write_text(LOOP_IR)
    results = []
    for extra in ([], ["--snapshots", "3"], ["--memory-budget", "1kB"]):
        out = tmp_path / f"g{len(results)}.ll"
        assert main(["grad", str(src), "-f", "decay", "-O", "0", "-o", str(out), *extra]) == 0
        text = out.read_text()
        assert ("decay.loop.1" in text) == bool(extra)
        jm = compile_ir(text)

        class Adjoints(ctypes.Structure):
            _fields_ = [("k", ctypes.c_double), ("x0", ctypes.c_double)]

        fn = ctypes.CFUNCTYPE(Adjoints, ctypes.c_double, ctypes.c_double, ctypes.c_long,
                              ctypes.c_double)(jm.address("diffe_decay"))
        r = fn(0.7, 1.3, 500, 1.0)
        results.append((r.k, r.x0))
    assert results[0][0] != 0.0
    for got in results[1:]:
        np.testing.assert_allclose(got, results[0], rtol=1e-13)
    assert main(["grad", str(src), "-f", "decay", "--checkpoint", "--print-pipeline"]) == 0
    assert "checkpoint-loops{fn=decay}" in capsys.readouterr().out


@pytest.mark.parametrize("checkpoint", [True, 3])
def test_an_index_error_inside_a_checkpointed_loop_is_raised(checkpoint):
    u0, kappa, r, n, steps = heat_args()
    g = ez.grad(heat, argnums=(0, 1), checkpoint=checkpoint)
    with pytest.raises(IndexError, match="out of bounds.*size 30"):
        g(u0, kappa[:30], r, n, steps)  # (the loop leaves by its error exit, in step 0)
    got = g(u0, kappa, r, n, steps)  # (and the compiled gradient still works)
    np.testing.assert_array_equal(got[1], ez.grad(heat, argnums=(0, 1))(u0, kappa, r, n,
                                                                        steps)[1])


# --- one loop marked in the source: `for t in ez.checkpointed(range(n), snapshots=K)` --------

def decay_marked(x0, k, n):
    x = x0
    for _ in ez.checkpointed(range(n), snapshots=3):
        x = x - 0.01 * k * x + 0.001 * np.sin(x)
    return x * x


def decay_plain(x0, k, n):
    x = x0
    for _ in range(n):
        x = x - 0.01 * k * x + 0.001 * np.sin(x)
    return x * x


def marked_inside(x, n):
    s = 0.0
    for i in range(n):
        for _ in ez.checkpointed(range(n)):
            s = s + x * i
    return s


def marked_array_loop(x):
    s = 0.0
    for v in ez.checkpointed(x):
        s = s + v
    return s


def marked_zero(x, n):
    for _ in ez.checkpointed(range(n), snapshots=0):
        x = x * 0.5
    return x


def test_a_marked_loop_is_checkpointed_with_its_number_of_states(monkeypatch):
    import enzyme_py.ad.reverse as reverse

    plans = []
    made = reverse.checkpoint_pair

    def spy(module, loop, plan, acts, block_derivative):
        plans.append(plan)
        return made(module, loop, plan, acts, block_derivative)

    monkeypatch.setattr(reverse, "checkpoint_pair", spy)
    got = ez.grad(decay_marked, argnums=(0, 1))(1.0, 0.5, 100)
    assert [p.snapshots for p in plans] == [3]  # (a short body: marked, not a time loop)
    want = ez.grad(decay_plain, argnums=(0, 1))(1.0, 0.5, 100)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    ez.grad(decay_plain)(1.0, 0.5, 100)
    assert len(plans) == 1  # (an unmarked loop is not, without checkpoint=)
    assert ez.jit(decay_marked)(1.0, 0.5, 100) == decay_marked(1.0, 0.5, 100)
    assert list(ez.checkpointed(range(3), snapshots=2)) == [0, 1, 2]


def test_marks_that_cannot_be_honoured_are_errors():
    with pytest.raises(DifferentiationError, match="inside another loop is marked"):
        ez.grad(marked_inside)(1.0, 5)
    with pytest.raises(ez.FrontendError, match=r"checkpointed\(\) marks a loop over range"):
        ez.grad(marked_array_loop)(np.ones(3))
    with pytest.raises(ez.FrontendError, match="number of states"):
        ez.grad(marked_zero)(1.0, 5)
    with pytest.raises(ArgumentValueError, match="number of states"):
        ez.checkpointed(range(3), snapshots=0)


def test_hessian_through_a_marked_loop_is_the_taped_one():
    x = np.array([1.0, 0.5])
    want = ez.hessian(plain_of_vector)(x)
    got = ez.hessian(marked_of_vector)(x)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert abs(want[0, 1]) > 0.1


def marked_of_vector(x):
    return decay_marked(x[0], x[1], 50)


def plain_of_vector(x):
    return decay_plain(x[0], x[1], 50)


def swapping(u0, n, steps):
    """Swaps the roles of two buffers: the loop carries pointers (their shadows too)."""
    u = np.zeros(n)
    v = np.zeros(n)
    for i in range(n):
        u[i] = u0[i]
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1])
        u, v = v, u
    return np.sum(u * u)


def test_a_loop_carrying_pointers_is_refused_with_the_reason():
    u0 = np.linspace(0.0, 1.0, 10)
    assert ez.grad(swapping)(u0, 10, 4).shape == (10,)
    with pytest.raises(DifferentiationError, match="carries a pointer from one iteration"):
        ez.grad(swapping, checkpoint=True)(u0, 10, 4)


def test_a_buffer_typed_only_inside_the_outlined_loop_is_checkpointed():
    """stencil2d's copies of its argument into two work buffers become memcpy calls, and
    once its time loop is outlined the only typed accesses of those buffers are in the step
    function: the copies' element type is read from there."""
    from benchmarks.objectives import stencil2d

    args = stencil2d.make_args(stencil2d.sizes(True)[0])
    want = ez.grad(stencil2d.primal, argnums=stencil2d.ARGNUMS)(*args)
    got = ez.grad(stencil2d.primal, argnums=stencil2d.ARGNUMS, checkpoint=True)(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-15)
    assert np.abs(want[1]).max() > 1e-3


def numpy_heat(u0, kappa, r, steps):
    """The heat stencil in array form: a slice assignment per step, its temporaries made and
    freed in each step (the gradient asks the front end for fresh ones when it checkpoints)."""
    u = u0.copy()
    rk = r * kappa[1:-1]
    for _ in range(steps):
        u[1:-1] = u[1:-1] + rk * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return np.sum(u * u)


@pytest.mark.parametrize("options", [dict(checkpoint=True), dict(checkpoint=2),
                                     dict(memory_budget=2048)])
def test_numpy_form_time_loops_are_checkpointed(options):
    """The NumPy forms of the 1-D and 2-D stencils: their time loops keep no buffer from one
    step to the next once each step's temporaries are its own, so they are checkpointed, with
    the taped gradient's bits."""
    from benchmarks.objectives import stencil2d_numpy

    args = (np.sin(np.linspace(0.0, 3.0, 12)), np.linspace(0.5, 1.5, 12), 0.2, 9)
    want = ez.grad(numpy_heat, argnums=(0, 1))(*args)
    got = ez.grad(numpy_heat, argnums=(0, 1), **options)(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert np.abs(want[1]).max() > 1e-3
    args2 = stencil2d_numpy.make_args(stencil2d_numpy.sizes(True)[0])
    want = ez.grad(stencil2d_numpy.primal, argnums=stencil2d_numpy.ARGNUMS)(*args2)
    got = ez.grad(stencil2d_numpy.primal, argnums=stencil2d_numpy.ARGNUMS, **options)(*args2)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def row_maxima_squared(v):
    """np.max along an axis in a gradient records where each maximum is (integers that
    depend on v but carry no derivative); its row loop counts as a time loop."""
    mx = np.max(v, axis=-1, keepdims=True)
    return np.sum(mx * mx) + np.sum(np.log(np.sum(np.exp(v - mx), axis=-1)))


def test_a_checkpointed_loop_writing_integers_that_depend_on_the_input_is_differentiated():
    v = np.random.default_rng(5).standard_normal((20, 5))
    want = ez.grad(row_maxima_squared)(v)
    got = ez.grad(row_maxima_squared, checkpoint=True)(v)
    np.testing.assert_array_equal(got, want)
    assert np.abs(want).max() > 0.01
