"""The collector pause around compiles (`enzyme_py.collector`)."""

from __future__ import annotations

import gc
import threading

import numpy as np

import enzyme_py as ez
from enzyme_py.collector import paused, while_compiling


def _square_sum(x):
    return np.sum(x * x)


def test_paused_nests_and_restores_the_collector():
    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # (the outer compile still runs)
    assert gc.isenabled()


def test_a_collector_the_program_turned_off_stays_off():
    gc.disable()
    try:
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_enabled_again_when_the_last_of_several_threads_ends():
    inside, release = threading.Barrier(3), threading.Event()
    seen = []

    @while_compiling
    def compile_in_thread():
        inside.wait()
        release.wait()
        seen.append(gc.isenabled())

    threads = [threading.Thread(target=compile_in_thread) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    assert not gc.isenabled()
    release.set()
    for t in threads:
        t.join()
    assert seen == [False, False] and gc.isenabled()


def test_a_failing_compile_restores_the_collector():
    def not_compilable(x):
        return x.no_such_attribute

    try:
        ez.grad(not_compilable)(np.ones(3))
    except Exception:
        pass
    assert gc.isenabled()
    assert ez.grad(_square_sum)(np.arange(3.0)).tolist() == [0.0, 2.0, 4.0]
    assert gc.isenabled()
