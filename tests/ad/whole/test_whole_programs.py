"""Whole-program reverse-mode tests: self-checking C and C++ programs in Enzyme's ABI.

Where ``tests/ad/c`` holds one differentiated kernel per program, the programs here exercise
what real programs do around it: noinline calls with mixed activity several levels deep,
direct / mutual / tree recursion, heap memory (malloc/calloc/realloc/free, new/delete,
linked lists and trees of heap nodes, allocation inside loops), structs with pointer
fields, ``double **`` matrices, ``byval`` / ``sret`` callees, globals, function pointers,
C++ classes / templates / lambdas / ``std::vector`` / exceptions, custom gradients
(``__enzyme_register_gradient_*``), ``__enzyme_inactivefn`` and ``enzyme_dupnoneed``.

Every ``c/*.c`` and ``cpp/*.cpp`` program includes ``tests/ad/c/enzyme_test.h``, checks
its gradients against central finite differences, prints ``PASS name`` / ``FAIL name ...``
lines and returns ``test_exit()``.  Programs that use the heap also check that the
gradient call leaks nothing: ``mallinfo2().uordblks`` is compared before and after the
``__enzyme_autodiff`` call.  glibc counts chunks parked in its per-thread cache as in use,
so the programs run with ``GLIBC_TUNABLES=glibc.malloc.tcache_count=0``.

``test_whole_program`` runs the real pipeline at ``-O0`` and ``-O2``::

    clang-22 -O{0,2} -S -emit-llvm prog.c -o prog.ll     (clang++-22 -std=c++17 -fno-exceptions)
    python -m enzyme_py transform prog.ll -o g.ll         (in process: enzyme_py.cli.main)
    clang-22 -O2 g.ll -o prog -lm && ./prog               (clang++-22 ... -lstdc++ -lm)

A first line ``// WHOLE-FLAGS: ...`` in a program adds compile flags (``-fexceptions``).
Programs listed in ``EXPECTED_ERRORS`` must make the transform fail cleanly (exit 1, a
one-line ``error:`` message, no traceback).  What the tool does not handle yet is listed in
``XFAIL`` and marked ``xfail(strict=True)``: an entry that starts passing must be removed.

``test_whole_program_no_inline`` runs every program again at ``-O0`` with ``--no-inline``: each
call stays a call, so the gradients go through augmented forward and reverse functions (what
needs inlining is listed in ``NO_INLINE_ERRORS`` and must fail cleanly).

``test_reference_gradients`` validates the programs themselves: with ``-DREFERENCE_GRADIENT``
each ``__enzyme_autodiff`` call is replaced by a hand-written gradient with the same effect
(heap programs also run the primal, so their leak checks see real allocations), so every
check must pass without our tool.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ad.harness import check_program_output
from tests.ad.harness import clip as _clip
from tests.ad.harness import run as _run
from tests.ad.harness import tool_env as _tool_env
from tests.ad.harness import transform_error_in_process as _transform_error_in_process
from tests.ad.harness import transform_in_process as _transform_in_process

HERE = Path(__file__).resolve().parent
C_DIR = HERE / "c"
CPP_DIR = HERE / "cpp"
INCLUDE_DIR = HERE.parent / "c"  # enzyme_test.h
ROOT = HERE.parent.parent.parent
PROGRAMS = sorted(C_DIR.glob("*.c")) + sorted(CPP_DIR.glob("*.cpp"))
OPT_LEVELS = ("-O0", "-O2")

COMPILE_TIMEOUT = 120
TRANSFORM_TIMEOUT = 300
RUN_TIMEOUT = 60

# glibc keeps freed chunks in a per-thread cache that mallinfo2() reports as in use.
RUN_ENV_EXTRA = {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"}

pytestmark = pytest.mark.clang

# Programs whose transform must fail with a clear error: stem -> text the message contains.
EXPECTED_ERRORS: dict[str, tuple[str, ...]] = {
    # The callee is a constant function-pointer argument chosen at run time.
    "fnptr_unknown_arg": ("error:", "in @loss", "an indirect call"),
    # The callee is loaded from a mutable global set at run time.
    "fnptr_unknown_global": ("error:", "in @loss", "an indirect call"),
}

# What the tool does not handle today: (stem, opt) -> reason; opt None means both levels.
XFAIL: dict[tuple[str, str | None], str] = {}

# With `--no-inline` every call stays a call, as Enzyme leaves them: each callee on an active
# path is differentiated on its own (an augmented forward function that returns a tape, and
# a reverse function). What only inlining makes known must then fail with a clear error:
# stem -> text the message contains.
_INDIRECT_CALL = "an indirect call on an active path, through a function pointer without a shadow"
NO_INLINE_ERRORS: dict[str, tuple[str, ...]] = {
    # the callee calls its function-pointer argument: the target is known only after inlining
    "fnptr_callback_arg": ("in @integrate", _INDIRECT_CALL),
    # std::transform gets raw iterators into a vector whose memory has no shadow in the caller
    "stl_algorithms": ("passes a pointer to memory holding active data that has no shadow",),
    # std::function's manager copies the captured state as integers
    "std_function": ("active memory is copied as integers",),
    # unique_ptr::get() returns a pointer loaded from a const object: no shadow to follow
    "unique_ptr_array": ("stores an active value into memory without a shadow",),
}
# ... or at run time: the virtual calls inside `total` go through the shadow objects' vtables,
# which `loss` made as zero-filled copies (it never sets them with __enzyme_virtualreverse),
# so the program stops with this message instead of calling into data.
NO_INLINE_RUN_ERRORS: dict[str, str] = {
    "virtual_known": "the shadow of a function pointer called on an active path is not a pair",
}

_KNOWN = {p.stem for p in PROGRAMS}
assert all(stem in _KNOWN for stem in NO_INLINE_ERRORS), "NO_INLINE_ERRORS names a missing program"
assert all(stem in _KNOWN for stem in NO_INLINE_RUN_ERRORS), "NO_INLINE_RUN_ERRORS: a missing one"
assert all(stem in _KNOWN for stem, _ in XFAIL), "XFAIL names a missing program"
assert all(stem in _KNOWN for stem in EXPECTED_ERRORS), "EXPECTED_ERRORS names a missing program"


def _run_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(RUN_ENV_EXTRA)
    return env


def _extra_flags(prog: Path) -> list[str]:
    m = re.search(r"^\s*(?://|/\*)\s*WHOLE-FLAGS:(.*?)(?:\*/)?$", prog.read_text(), re.M)
    return m.group(1).split() if m else []


def _toolchain(clang: str, prog: Path) -> tuple[str, list[str], list[str]]:
    """(compiler, compile flags, link libraries) for one program."""
    if prog.suffix == ".c":
        return clang, ["-I", str(INCLUDE_DIR), *_extra_flags(prog)], ["-lm"]
    clangxx = shutil.which("clang++-22")
    if clangxx is None:
        pytest.skip("clang++-22 is not installed (apt-get install clang-22); CI installs it")
    extra = _extra_flags(prog)
    eh = [] if "-fexceptions" in extra else ["-fno-exceptions"]
    return clangxx, ["-std=c++17", *eh, "-I", str(INCLUDE_DIR), *extra], ["-lstdc++", "-lm"]


def _params() -> list:
    out = []
    for prog in PROGRAMS:
        for opt in OPT_LEVELS:
            reason = XFAIL.get((prog.stem, opt)) or XFAIL.get((prog.stem, None))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(prog, opt, marks=marks,
                                    id=f"{prog.parent.name}/{prog.stem}-{opt.lstrip('-')}"))
    return out


def test_corpus_shape() -> None:
    """Enough programs, every one follows the conventions, heap programs check for leaks."""
    assert len(PROGRAMS) >= 45, f"only {len(PROGRAMS)} programs in {C_DIR} and {CPP_DIR}"
    assert any(p.suffix == ".cpp" for p in PROGRAMS)
    for prog in PROGRAMS:
        text = prog.read_text()
        assert '#include "enzyme_test.h"' in text, prog.name
        assert "__enzyme_autodiff" in text, prog.name
        assert "#ifdef REFERENCE_GRADIENT" in text, prog.name
        assert "return test_exit();" in text, prog.name
        assert "rand()" not in text, prog.name
        if re.search(r"\b(malloc|calloc|realloc)\s*\(|\bnew\s+\w|push_back|unique_ptr", text):
            assert "mallinfo2().uordblks" in text, f"{prog.name}: heap use without leak check"


def test_leak_check_method(clang: str, tmp_path: Path) -> None:
    """mallinfo2().uordblks with the thread cache off sees a leak and only a leak."""
    src = tmp_path / "leak.c"
    src.write_text(
        "#include <malloc.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
        "int main(int argc, char **argv) {\n"
        "  void *volatile warm = malloc(1);\n  free(warm);\n"
        "  size_t a = mallinfo2().uordblks;\n"
        "  void *volatile p = malloc(48), *volatile q = calloc(3, 40);\n"
        "  free(q);\n  if (argc == 1) free(p);\n"
        "  size_t b = mallinfo2().uordblks;\n"
        "  (void)argv;\n  printf(\"%zu\\n\", b - a);\n  return 0;\n}\n")
    exe = tmp_path / "leak"
    _run([clang, "-O2", str(src), "-o", str(exe)], "clang (leak probe)", COMPILE_TIMEOUT)
    balanced = subprocess.run([str(exe)], capture_output=True, text=True, env=_run_env(),
                              timeout=RUN_TIMEOUT, check=True)
    leaking = subprocess.run([str(exe), "leak"], capture_output=True, text=True,
                             env=_run_env(), timeout=RUN_TIMEOUT, check=True)
    assert int(balanced.stdout) == 0, balanced.stdout
    assert int(leaking.stdout) >= 48, leaking.stdout


@pytest.mark.parametrize(("prog", "opt"), _params())
def test_whole_program(prog: Path, opt: str, clang: str, tmp_path: Path) -> None:
    """clang -> enzyme_py transform -> clang -> run: every check passes (or a clean error)."""
    cc, cflags, libs = _toolchain(clang, prog)
    ll = tmp_path / f"{prog.stem}{opt}.ll"
    grad_ll = tmp_path / f"{prog.stem}{opt}.grad.ll"
    exe = tmp_path / f"{prog.stem}{opt}"
    _run([cc, opt, "-S", "-emit-llvm", *cflags, str(prog), "-o", str(ll)],
         "clang (source -> LLVM IR)", COMPILE_TIMEOUT)
    if prog.stem in EXPECTED_ERRORS:
        cmd = [sys.executable, "-m", "enzyme_py", "transform", str(ll), "-o", str(grad_ll)]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=TRANSFORM_TIMEOUT,
                                 cwd=ROOT, env=_tool_env(), check=False)
        except subprocess.TimeoutExpired as exc:
            raise AssertionError(f"transform timed out after {TRANSFORM_TIMEOUT}s") from exc
        out = res.stdout + res.stderr
        detail = f"--- stdout ---\n{_clip(res.stdout)}\n--- stderr ---\n{_clip(res.stderr)}"
        assert res.returncode == 1, f"expected exit 1, got {res.returncode}\n{detail}"
        assert "Traceback" not in out, f"the transform crashed\n{detail}"
        for needle in EXPECTED_ERRORS[prog.stem]:
            assert needle in res.stderr, f"{needle!r} not in the error message\n{detail}"
        assert not grad_ll.exists(), "an output file was written despite the error"
        return
    _transform_in_process(ll, grad_ll)
    _run([cc, "-O2", str(grad_ll), "-o", str(exe), *libs],
         f"clang (link transformed IR {grad_ll})", COMPILE_TIMEOUT)
    _check_program_output(exe, f"{prog.name} {opt}")


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_whole_program_no_inline(prog: Path, clang: str, tmp_path: Path) -> None:
    """The same programs at -O0 (where every call is still a call) with `--no-inline`: the
    gradients go through augmented/reverse pairs and must pass the same checks."""
    cc, cflags, libs = _toolchain(clang, prog)
    ll = tmp_path / f"{prog.stem}.ll"
    grad_ll = tmp_path / f"{prog.stem}.grad.ll"
    exe = tmp_path / prog.stem
    _run([cc, "-O0", "-S", "-emit-llvm", *cflags, str(prog), "-o", str(ll)],
         "clang (source -> LLVM IR)", COMPILE_TIMEOUT)
    needles = EXPECTED_ERRORS.get(prog.stem) or NO_INLINE_ERRORS.get(prog.stem)
    if needles:
        rc, err = _transform_error_in_process(ll, grad_ll, "--no-inline")
        assert rc == 1, f"expected exit 1, got {rc}\n{_clip(err)}"
        assert "Traceback" not in err, f"the transform crashed\n{_clip(err)}"
        for needle in needles:
            assert needle in err, f"{needle!r} not in the error message\n{_clip(err)}"
        return
    _transform_in_process(ll, grad_ll, "--no-inline", "-O", "0")  # (clang -O2 optimizes)
    assert "@augmented_" in grad_ll.read_text() or prog.stem in _NOTHING_TO_SPLIT, \
        "no call was split: the test would not exercise --no-inline"
    _run([cc, "-O2", str(grad_ll), "-o", str(exe), *libs],
         f"clang (link transformed IR {grad_ll})", COMPILE_TIMEOUT)
    stop = NO_INLINE_RUN_ERRORS.get(prog.stem)
    if stop is not None:
        res = subprocess.run([str(exe)], capture_output=True, text=True, env=_run_env(),
                             timeout=RUN_TIMEOUT)
        assert res.returncode != 0 and stop in res.stderr, _clip(res.stderr)
        return
    _check_program_output(exe, f"{prog.name} -O0 --no-inline")


# Programs whose differentiated function calls only functions with custom rules, inactive
# functions, or none carrying a derivative: nothing to split.
_NOTHING_TO_SPLIT = {
    "custom_gradient_loop", "custom_gradient_square", "enzyme_template_decl",
    "exceptions_custom_gradient",
    "global_const_table", "heap_calloc_accum", "heap_loop_alloc", "heap_malloc_scratch",
    "heap_realloc_grow", "inactivefn_print", "inactivefn_value",
}


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_reference_gradients(prog: Path, clang: str, tmp_path: Path) -> None:
    """With hand-written gradients (-DREFERENCE_GRADIENT) the program's own checks pass."""
    cc, cflags, libs = _toolchain(clang, prog)
    for opt in OPT_LEVELS:
        exe = tmp_path / f"{prog.stem}{opt}.ref"
        _run([cc, opt, "-DREFERENCE_GRADIENT", *cflags, str(prog), "-o", str(exe), *libs],
             "clang (reference build)", COMPILE_TIMEOUT)
        _check_program_output(exe, f"{prog.name} {opt} -DREFERENCE_GRADIENT")


def _check_program_output(exe: Path, label: str) -> None:
    check_program_output(exe, label, env=_run_env())
