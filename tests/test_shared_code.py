"""Functions compiled once per process (`backend/shared_code.py`): a module's definition of
the matrix kernel is declared instead and linked to the process's copy; with the persistent
cache, that copy's object file is kept on disk and a later process links it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

import enzyme_py as ez
from enzyme_py.backend import shared_code
from enzyme_py.ir import Module
from enzyme_py.rules.matrix_kernel import kernel_name, matrix_kernel

ROOT = Path(__file__).resolve().parent.parent


def test_split_off_declares_a_defined_kernel_and_leaves_other_text():
    name = kernel_name("double")
    text = shared_code.SHARED[name]() + "\ndefine i64 @other(i64 %x) {\n  ret i64 %x\n}\n"
    got, names = shared_code.split_off(text)
    assert names == [name]
    assert f"define internal void @{name}(" not in got
    assert f"declare void @{name}(i64, i64, i64, i64, ptr, i64, i64, i64, ptr," in got
    assert "define i64 @other(i64 %x) {\n  ret i64 %x\n}" in got
    again, names_again = shared_code.split_off(got)  # a declaration is found as a use
    assert again == got and names_again == [name]
    module = Module("m")  # (the front end's modules declare it from the start)
    matrix_kernel(module, "double")
    assert shared_code.split_off(str(module)) == (str(module), [name])
    plain = "define i64 @f(i64 %x) {\n  ret i64 %x\n}\n"
    assert shared_code.split_off(plain) == (plain, [])


def product(a, b):
    return np.sum(np.tanh(a @ b))


def test_compiled_code_calls_the_one_shared_copy():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((5, 4)), rng.standard_normal((4, 3))
    assert abs(ez.jit(product)(a, b) - np.sum(np.tanh(a @ b))) < 1e-13
    name = kernel_name("double")
    jm, at = shared_code._compiled[name]
    assert f"define void @{name}(" in jm.ir  # (the shared copy itself)
    ga, gb = ez.grad(product, argnums=(0, 1))(a, b)
    assert shared_code._compiled[name][1] == at  # compiled once
    t = 1.0 - np.tanh(a @ b) ** 2
    np.testing.assert_allclose(ga, t @ b.T, rtol=1e-13)
    np.testing.assert_allclose(gb, a.T @ t, rtol=1e-13)


_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import enzyme_py as ez
    from enzyme_py.backend import native
    if sys.argv[1] == "second":
        def refuse(*args, **kwargs):
            raise AssertionError("compiled again: " + str(kwargs))
        native.compile_ir = refuse  # a cached process links, it compiles nothing
    from tests.test_shared_code import product
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((5, 4)), rng.standard_normal((4, 3))
    ga, gb = ez.grad(product, argnums=(0, 1), cache=True)(a, b)
    t = 1.0 - np.tanh(a @ b) ** 2
    assert np.allclose(ga, t @ b.T, rtol=1e-13) and np.allclose(gb, a.T @ t, rtol=1e-13)
""")


def test_the_persistent_cache_keeps_the_shared_copy(tmp_path):
    env = {**os.environ, "ENZYME_PY_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    for run in ("first", "second"):
        done = subprocess.run([sys.executable, "-c", _SCRIPT, run], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    assert len(list(tmp_path.glob("shared-*.pkl"))) == 1


def test_a_module_that_calls_the_kernel_starts_its_compile_at_once():
    # building the module (no compile of it here) starts the kernel's compile on a thread;
    # the interpreter then exits, joining it (never tearing LLVM down under it)
    code = textwrap.dedent("""
        import numpy as np
        import enzyme_py as ez
        from enzyme_py.backend import shared_code
        from tests.test_shared_code import product
        ez.show(product, np.ones((2, 3)), np.ones((3, 2)), stage="python")
        print(sorted(shared_code._started))
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == str([kernel_name("double")])
