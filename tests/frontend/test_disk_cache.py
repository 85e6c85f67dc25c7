"""The persistent compile cache (`cache=True`): a later compile of the same function reuses
the stored code, and anything the code depends on that changed (a global, a helper's source,
the options) makes it compile again; what cannot be fingerprinted is never stored."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.stage_times import collecting

MODULE = """
import math

SCALE = {scale}


def helper(v):
    return {helper}


def f(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += helper(x[i]) * SCALE
    return s
"""


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("ENZYME_PY_CACHE_DIR", str(d))
    return d


def _module(tmp_path: Path, name: str, scale: float = 2.0, helper: str = "math.sin(v)"):
    path = tmp_path / f"{name}.py"
    path.write_text(MODULE.format(scale=scale, helper=helper))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _stages(call) -> tuple[object, set[str]]:
    with collecting() as st:
        out = call()
    return out, {s.name for s in st}


X = np.linspace(0.1, 1.0, 9)


def test_a_second_compile_reuses_the_stored_code(tmp_path, cache) -> None:
    mod = _module(tmp_path, "dc_reuse")
    first, stages = _stages(lambda: ez.jit(mod.f, cache=True)(X))
    assert "front end" in stages and len(list(cache.glob("*.pkl"))) == 1
    again, stages = _stages(lambda: ez.jit(mod.f, cache=True)(X))
    assert again == first and "front end" not in stages and "LLVM: -O2" not in stages
    assert "LLVM: code generation (object file)" not in stages  # the stored object is linked
    assert "LLVM: linking" in stages and "LLVM: parse and verify" not in stages  # (unparsed)
    assert first == pytest.approx(2.0 * np.sin(X).sum(), rel=1e-14)


def test_gradients_are_cached_too(tmp_path, cache) -> None:
    mod = _module(tmp_path, "dc_grad")
    first, stages = _stages(lambda: ez.grad(mod.f, cache=True)(X))
    assert "AD pipeline" in stages
    again, stages = _stages(lambda: ez.grad(mod.f, cache=True)(X))
    assert "AD pipeline" not in stages and "front end" not in stages
    assert "LLVM: parse and verify" not in stages and "LLVM: linking" in stages
    np.testing.assert_array_equal(again, first)
    np.testing.assert_allclose(first, 2.0 * np.cos(X), rtol=1e-14)


def test_a_changed_global_is_compiled_again(tmp_path, cache) -> None:
    mod = _module(tmp_path, "dc_global")
    assert ez.jit(mod.f, cache=True)(X) == pytest.approx(2.0 * np.sin(X).sum())
    mod.SCALE = 3.0
    got, stages = _stages(lambda: ez.jit(mod.f, cache=True)(X))
    assert "front end" in stages
    assert got == pytest.approx(3.0 * np.sin(X).sum(), rel=1e-14)


def test_an_edited_helper_is_compiled_again(tmp_path, cache) -> None:
    mod = _module(tmp_path, "dc_helper")
    assert ez.jit(mod.f, cache=True)(X) == pytest.approx(2.0 * np.sin(X).sum())
    mod = _module(tmp_path, "dc_helper", helper="math.cos(v)")  # f's own source is unchanged
    got, stages = _stages(lambda: ez.jit(mod.f, cache=True)(X))
    assert "front end" in stages
    assert got == pytest.approx(2.0 * np.cos(X).sum(), rel=1e-14)


def test_options_are_part_of_the_key(tmp_path, cache) -> None:
    mod = _module(tmp_path, "dc_options")
    ez.jit(mod.f, cache=True)(X)
    _, stages = _stages(lambda: ez.jit(mod.f, cache=True, fastmath=True)(X))
    assert "front end" in stages and len(list(cache.glob("*.pkl"))) == 2


def test_a_custom_rule_is_not_stored(tmp_path, cache) -> None:
    @ez.custom_vjp
    def square(v):
        return v * v

    def fwd(v):
        return v * v, v

    def bwd(v, g):
        return 2.0 * v * g

    square.defvjp(fwd, bwd)

    def uses_rule(x):
        return square(x[0])

    assert ez.jit(uses_rule, cache=True)(X) == pytest.approx(X[0] ** 2)
    assert not list(cache.glob("*.pkl"))  # (a custom rule has no fingerprint)


def test_a_damaged_entry_is_ignored_and_replaced(tmp_path, cache) -> None:
    mod = _module(tmp_path, "dc_damaged")
    ez.jit(mod.f, cache=True)(X)
    (entry,) = cache.glob("*.pkl")
    entry.write_bytes(b"not a pickle")
    got, stages = _stages(lambda: ez.jit(mod.f, cache=True)(X))
    assert "front end" in stages and got == pytest.approx(2.0 * np.sin(X).sum())
    _, stages = _stages(lambda: ez.jit(mod.f, cache=True)(X))
    assert "front end" not in stages


def test_a_second_process_skips_the_front_end(tmp_path, cache) -> None:
    _module(tmp_path, "dc_process")
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np
        import enzyme_py as ez
        from enzyme_py.stage_times import collecting
        import dc_process
        with collecting() as st:
            g = ez.grad(dc_process.f, cache=True)(np.linspace(0.1, 1.0, 9))
        print(repr(float(g[0])), "front end" in {{s.name for s in st}})
    """)
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(2)]
    assert runs[0][1] == "True" and runs[1][1] == "False"
    assert runs[0][0] == runs[1][0]


def test_the_package_source_hash_is_kept_by_the_sources_times_and_sizes(cache) -> None:
    from enzyme_py.api.disk_cache import _package_sources

    first = _package_sources()
    (memo,) = cache.glob("sources-*.txt")
    assert memo.read_text() == first and len(first) == 64
    assert _package_sources() == first  # read back from the memo
    memo.write_text("damaged")  # not a digest: hashed again and rewritten
    assert _package_sources() == first and memo.read_text() == first


SHADOWED = """
import numpy as np

weights = np.ones(3)  # a module-level array a parameter's name shadows


def f(weights, b):
    return float(np.sum(weights * b)) + weights.sum()
"""


def test_a_parameter_named_like_a_module_level_array_is_cached(tmp_path, cache) -> None:
    # (the front end looked `weights.sum` up as a global, an array's method: a lookup the
    # cache cannot fingerprint, so nothing was stored and every process compiled again)
    path = tmp_path / "dc_shadowed.py"
    path.write_text(SHADOWED)
    spec = importlib.util.spec_from_file_location("dc_shadowed", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["dc_shadowed"] = mod
    spec.loader.exec_module(mod)
    a, b = np.arange(3.0), np.ones(3)
    np.testing.assert_allclose(ez.grad(mod.f, cache=True)(a, b), b + 1.0)
    assert list(cache.rglob("f-*.pkl")), "no cache entry was stored"
