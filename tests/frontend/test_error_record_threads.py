"""The error record is per call (per thread): threads calling one compiled function (jit,
grad, jvp) each see their own failures, never another thread's."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import enzyme_py as ez


def pick(x, i):
    s = 0.0
    for k in range(200):
        s += x[i] * x[(i + k) % x.shape[0]]
    return s


def _hammer(call, good, bad, rounds: int = 3000) -> tuple[list, list]:
    """Run `call(*good)` and `call(*bad)` on two threads at once; what each saw."""
    seen: dict[str, list] = {"good": [], "bad": []}
    start = threading.Barrier(2)

    def run(name: str, args: tuple) -> None:
        start.wait()
        for _ in range(rounds):
            try:
                call(*args)
                seen[name].append(None)
            except IndexError as exc:
                seen[name].append(str(exc).split("\n")[0])

    threads = [threading.Thread(target=run, args=(n, a)) for n, a in
               (("good", good), ("bad", bad))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return seen["good"], seen["bad"]


@pytest.mark.parametrize("form", ["jit", "grad", "jvp"])
def test_threads_never_see_each_others_failures(form: str) -> None:
    x = np.linspace(0.0, 1.0, 50)
    call = {"jit": ez.jit(pick), "grad": ez.grad(pick),
            "jvp": lambda x, i: ez.jvp(pick, (x, i), (np.ones_like(x), 0))}[form]
    call(x, 3)  # compiled before the threads start
    good, bad = _hammer(call, (x, 3), (x, 70))
    assert good == [None] * len(good)
    assert set(bad) == {"index 70 is out of bounds for axis 0 with size 50"}


def test_the_record_is_a_parameter_of_the_compiled_code() -> None:
    from enzyme_py.api.jit import JitFunction

    jf = JitFunction(pick)
    spec = jf.specialization((np.zeros(4), 1))
    assert "ptr %error.record" in spec.code.ir
    assert "@enzyme_py.error" not in spec.code.ir.split("define")[0]  # no global record
