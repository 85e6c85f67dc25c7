"""Target names and lifetimes: a content hash, the same in every process; registered code stays
loaded; JAX's persistent compilation cache never runs stale code."""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import enzyme_py.jax as ezjax
from enzyme_py.jax import lowering as lowering_module
from enzyme_py.jax import targets

ROOT = Path(__file__).resolve().parents[2]


def double(x):
    return x * 2.0


def test_names_are_content_hashes_and_code_stays_pinned():
    a, b = ezjax.primitive(double), ezjax.primitive(double)
    x = jnp.arange(3.0)
    text_a = jax.jit(a).lower(x).as_text()
    text_b = jax.jit(b).lower(x).as_text()
    name = re.search(r"@(enzyme_py_[0-9a-f]+)", text_a).group(1)
    assert name in text_b  # two ops of one function: one target
    assert name in ezjax.registered()
    pinned = targets._PINNED[name]
    del a, b
    lowering_module._TARGETS.clear()
    gc.collect()
    assert targets._PINNED[name] is pinned  # never released: XLA may still call it
    np.testing.assert_array_equal(jax.jit(ezjax.primitive(double))(x), 2 * np.arange(3.0))


SCRIPT = """
import sys
import jax, jax.numpy as jnp
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
import enzyme_py.jax as ezjax

def f(x):
    return x * FACTOR

op = ezjax.primitive(f)
y = jax.jit(op)(jnp.arange(3.0))
print(ezjax.registered()[0], float(y[2]))
"""


def test_persistent_cache_never_runs_stale_code(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    script = tmp_path / "prog.py"

    def run(factor: str) -> tuple[str, float]:
        script.write_text(SCRIPT.replace("FACTOR", factor))
        res = subprocess.run([sys.executable, str(script), str(cache)], capture_output=True,
                             text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                             timeout=300, check=False)
        assert res.returncode == 0, res.stderr
        name, value = res.stdout.split()
        return name, float(value)

    first = run("2.0")
    assert first[1] == 4.0 and any(cache.iterdir())
    assert run("2.0") == first  # the same code: the same name in another process
    edited = run("3.0")
    assert edited[1] == 6.0 and edited[0] != first[0]
