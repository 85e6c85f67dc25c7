"""`enzyme-py demo` / `make demo`: the tool end to end on bundled examples.

1. Python: `grad` of a NumPy-style least-squares loss, checked against its loop form and JAX,
   then used to fit a model.
2. C: Enzyme's C ABI (`__enzyme_autodiff`) through `enzyme-py transform` and clang-22.
3. The stages of the pipeline for a small `.ll` file (`enzyme-py opt` with the stage dump).

Invariant: returns 0 only when every check passed; a part that needs a missing tool (JAX,
clang-22) says so and is skipped, never faked.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

import numpy as np


def _example(name: str) -> Path:
    return Path(str(resources.files("enzyme_py") / "examples" / name))


def _load_fit():
    spec = importlib.util.spec_from_file_location("enzyme_py_demo_fit", _example("fit.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def python_part(say) -> bool:
    import enzyme_py as ez

    fit = _load_fit()
    t, y, truth = fit.make_data()
    params = np.array([1.0, 1.0, 0.0])
    say("== 1. Python: enzyme_py.grad of a least-squares loss ==")
    say("   model a*exp(-b t) + c, 200 noisy samples; loss(params, t, y) is NumPy-style "
        "Python, np.mean((a*np.exp(-b*t) + c - y)**2) (examples/fit.py)")
    grad = ez.grad(fit.loss)
    g = grad(params, t, y)
    say(f"   grad(loss)(params={params.tolist()}) = {np.array2string(g, precision=10)}")
    g_loop = ez.grad(fit.loss_loop)(params, t, y)
    same = bool(np.allclose(g, g_loop, rtol=1e-12, atol=1e-14))
    say(f"   the same loss written as a loop:  {np.array2string(g_loop, precision=10)} -> "
        f"{'PASS' if same else 'FAIL'}")
    ok = same
    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)

        def jax_loss(p, t, y):
            return jnp.mean((p[0] * jnp.exp(-p[1] * t) + p[2] - y) ** 2)

        ref = np.asarray(jax.grad(jax_loss)(jnp.asarray(params), jnp.asarray(t),
                                            jnp.asarray(y)))
        err = float(np.max(np.abs(g - ref) / np.maximum(1.0, np.abs(ref))))
        ok = ok and err < 1e-10
        say(f"   jax.grad of the same loss:      {np.array2string(ref, precision=10)}")
        say(f"   JAX check: max relative difference {err:.1e} -> "
            f"{'PASS' if ok else 'FAIL'}")
    except ImportError:
        say("   (JAX is not installed: `make test` installs it; skipping the JAX check)")
    value_and_grad = ez.value_and_grad(fit.loss)
    p = params.copy()
    first = None
    for step in range(3000):
        value, g = value_and_grad(p, t, y)
        first = value if first is None else first
        p -= 0.25 * g
        if step in (0, 100, 1000, 2999):
            say(f"   step {step:4d}: loss {value:.3e}   params {np.array2string(p, precision=4)}")
    close = bool(np.allclose(p, truth, atol=0.05))
    say(f"   fitted {np.array2string(p, precision=3)} vs truth {truth} -> "
        f"{'PASS' if close else 'FAIL'}")
    return ok and close and value < first


def c_part(say) -> bool | None:
    say("\n== 2. C: __enzyme_autodiff through `enzyme-py transform` ==")
    clang = shutil.which("clang-22")
    if clang is None:
        say("   clang-22 is not installed (Debian: apt-get install clang-22); skipping")
        return None
    src = _example("weighted_norm.c")
    with tempfile.TemporaryDirectory() as d:
        ll, gll, exe = Path(d, "wn.ll"), Path(d, "wn_grad.ll"), Path(d, "wn")
        steps = [[clang, "-O2", "-S", "-emit-llvm", str(src), "-o", str(ll)],
                 [sys.executable, "-m", "enzyme_py", "transform", str(ll), "-o", str(gll)],
                 [clang, "-O2", str(gll), "-o", str(exe), "-lm"], [str(exe)]]
        shown = ["clang-22 -O2 -S -emit-llvm weighted_norm.c -o wn.ll",
                 "enzyme-py transform wn.ll -o wn_grad.ll",
                 "clang-22 -O2 wn_grad.ll -o wn -lm", "./wn"]
        for cmd, text in zip(steps, shown, strict=True):
            say(f"   $ {text}")
            res = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if res.stdout.strip():
                say(res.stdout.rstrip())
            if res.returncode != 0:
                say(f"   FAILED ({res.returncode}): {res.stderr.strip()}")
                return False
        say("   PASS")
    return True


def ir_part(say) -> bool:
    from enzyme_py.ad.driver import gradient_module
    from enzyme_py.ir import parse

    say("\n== 3. The pipeline on examples/sum_squares.ll (clang -O0 output) ==")
    module = parse(_example("sum_squares.ll").read_text(), "sum_squares.ll")
    stages: list[tuple[str, str]] = []
    out, name = gradient_module(module, "sum_squares", ["dup", "dup", "const"], True,
                                on_stage=lambda s, m: stages.append((s, str(m))))
    say("   stages: " + ", ".join(s for s, _ in stages))
    text = str(out)
    start = text.rfind("\ndefine", 0, text.index(f"@{name}(")) + 1
    body = text[start:text.index("\n}\n", start) + 2].splitlines()
    say(f"   the optimized gradient @{name}: {len(body)} lines, the loop runs backwards, "
        "vectorized, with no tape (x and w are re-read, never overwritten):")
    for line in body[:12]:
        say("   " + line)
    say("   ...")
    from enzyme_py import backend

    f = backend.compile_ir(text).function(name)
    x, w = np.linspace(-1, 1, 7), np.linspace(0.5, 2, 7)
    dx, dw = np.zeros(7), np.zeros(7)
    f(x, dx, w, dw, 7, 1.0)
    ok = bool(np.allclose(dx, 2 * w * x) and np.allclose(dw, x * x))
    say(f"   d/dx = 2 w x and d/dw = x^2 on 7 points -> {'PASS' if ok else 'FAIL'}")
    return ok


def run_demo(quiet: bool = False) -> int:
    say = (lambda *a: None) if quiet else print
    results = [python_part(say), c_part(say), ir_part(say)]
    failed = [r for r in results if r is False]
    print("demo: all checks passed" if not failed else f"demo: {len(failed)} part(s) FAILED")
    return 1 if failed else 0
