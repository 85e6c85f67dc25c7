"""End-to-end forward-mode tests: self-checking C and C++ programs that use `__enzyme_fwddiff`.

Every ``tests/ad/forward/c/*.c`` and ``cpp/*.cpp`` program, and every program of the kernel
corpus ``tests/ad/c`` that has a forward-mode driver, calls ``__enzyme_fwddiff`` the way
Enzyme users do (scalars and pointers ``enzyme_dup``, ``enzyme_const``, unmarked defaults,
``enzyme_width``), compares the tangents with central finite differences of the primal along
the same direction, prints one ``PASS name`` / ``FAIL name ...`` line per check and exits
non-zero on any failure.

The kernel corpus is shared with reverse mode (``tests/ad/test_c_programs.py``): each
``tests/ad/c/<stem>.c`` holds its kernel once and a driver per mode, the forward one behind
``#ifdef FORWARD_MODE`` (``kernel_test.h``); its tests are named ``kernel_<stem>``.  Where the
reverse driver's hand-written gradient is short, the tangent is also checked against
``<grad, v>``.  ``whole_<stem>.c`` / ``.cpp`` differentiates the function of the
whole-program corpus ``tests/ad/whole/{c,cpp}/<stem>``.

Each program runs through the real pipeline at ``-O0`` and ``-O2``::

    clang-22 -O{0,2} -S -emit-llvm -DFORWARD_MODE -I tests/ad/c -I tests/ad/forward/c prog.c \
        -o prog.ll
        (clang++-22 -std=c++17 -fno-exceptions for .cpp; a first line
         ``// WHOLE-FLAGS: -fexceptions`` keeps exceptions, as in the whole-program corpus)
    python -m enzyme_py transform prog.ll -o t.ll      (in process: enzyme_py.cli.main)
    clang-22 -O2 t.ll -o prog -lm && ./prog            (clang++-22 ... -lstdc++ -lm)

Programs that use the heap check that the derivative call leaks nothing with
``mallinfo2().uordblks``, so they run with ``GLIBC_TUNABLES=glibc.malloc.tcache_count=0``
(see ``tests/ad/whole/test_whole_programs.py``).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.ad.harness import check_program_output as _check_program_output
from tests.ad.harness import clang_or_skip as _clang
from tests.ad.harness import run as _run
from tests.ad.harness import transform_error_in_process as _transform_error_in_process
from tests.ad.harness import transform_in_process as _transform_in_process

HERE = Path(__file__).resolve().parent
C_DIR = HERE / "c"
CPP_DIR = HERE / "cpp"
ROOT = HERE.parents[2]
KERNEL_DIR = ROOT / "tests" / "ad" / "c"  # the kernel corpus shared with reverse mode
WHOLE_DIR = ROOT / "tests" / "ad" / "whole"
# Every program is built with -DFORWARD_MODE; only the shared kernels look at it.
CFLAGS = ("-DFORWARD_MODE", "-I", str(KERNEL_DIR), "-I", str(C_DIR))
KERNELS = sorted(p for p in KERNEL_DIR.glob("*.c") if "#ifdef FORWARD_MODE" in p.read_text())
PROGRAMS = sorted(C_DIR.glob("*.c")) + KERNELS + sorted(CPP_DIR.glob("*.cpp"))
OPT_LEVELS = ("-O0", "-O2")

COMPILE_TIMEOUT = 120

# glibc keeps freed chunks in a per-thread cache that mallinfo2() reports as in use.
RUN_ENV = {**os.environ, "GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"}

pytestmark = pytest.mark.clang


def _name(prog: Path) -> str:
    """The test name of a program: `kernel_<stem>` for the shared kernel corpus (its stems
    may repeat those of forward-only programs), the file's stem otherwise."""
    return f"kernel_{prog.stem}" if prog.parent == KERNEL_DIR else prog.stem


def test_corpus_shape() -> None:
    """The corpus is large enough and every program follows the conventions."""
    assert len(PROGRAMS) >= 15, f"only {len(PROGRAMS)} programs in {C_DIR}"
    assert len(KERNELS) >= 45, f"only {len(KERNELS)} kernels with a forward driver in {KERNEL_DIR}"
    for prog in PROGRAMS:
        text = prog.read_text()
        header = "kernel_test.h" if prog in KERNELS else "fwd_test.h"
        assert f'#include "{header}"' in text, prog.name
        assert re.search(r"__enzyme_fwddiff\w*(<\w+>)?\(\(void \*\)\w+", text), prog.name
        assert "return test_exit();" in text, prog.name
        assert "rand()" not in text, prog.name
        if re.search(r"\b(malloc|calloc|realloc)\s*\(|\bnew\s+\w+\s*[(\[{;]|push_back|unique_ptr", text):
            assert "mallinfo2().uordblks" in text, f"{prog.name}: heap use without leak check"
    assert any("enzyme_width" in p.read_text() for p in PROGRAMS)


def test_origins_exist() -> None:
    """`whole_<stem>` names a program of the whole-program corpus; the kernels of the reverse
    corpus are not copied here (they get a forward driver in `tests/ad/c/<stem>.c`)."""
    for prog in PROGRAMS:
        if prog.stem.startswith("whole_"):
            src = WHOLE_DIR / prog.suffix.lstrip(".") / f"{prog.stem[6:]}{prog.suffix}"
            assert src.exists(), prog.name
    assert not sorted(C_DIR.glob("rev_*.c")), "a copy of a kernel of tests/ad/c"


# What forward mode does not handle yet: (name, opt) -> reason; opt None means both levels
# (name: `_name(prog)`, i.e. `kernel_<stem>` for a program of the shared kernel corpus).
XFAIL: dict[tuple[str, str | None], str] = {}

# Programs whose transform must fail with a clear error, as in the reverse corpus: the callee
# is a function pointer chosen at run time. name -> text the message contains.
_INDIRECT = "an indirect call has no derivative rule and no body"
EXPECTED_ERRORS: dict[str, tuple[str, ...]] = {
    "whole_fnptr_unknown_arg": ("in @loss", _INDIRECT),  # a const argument
    "whole_fnptr_unknown_global": ("in @loss", _INDIRECT),  # loaded from a mutable global
}

_KNOWN = {_name(p) for p in PROGRAMS}
assert len(_KNOWN) == len(PROGRAMS), "two programs with the same test name"
assert all(name in _KNOWN for name, _ in XFAIL), "XFAIL names a missing program"
assert all(name in _KNOWN for name in EXPECTED_ERRORS), "EXPECTED_ERRORS names a missing program"


def _cases() -> list:
    out = []
    for prog in PROGRAMS:
        name = _name(prog)
        for opt in OPT_LEVELS:
            reason = XFAIL.get((name, opt)) or XFAIL.get((name, None))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(prog, opt, marks=marks, id=f"{name}-{opt.lstrip('-')}"))
    return out


def _toolchain(clang: str, prog: Path) -> tuple[str, list[str], list[str]]:
    """(compiler, compile flags, link libraries) for one program."""
    if prog.suffix == ".c":
        return clang, list(CFLAGS), ["-lm"]
    clangxx = shutil.which("clang++-22")
    if clangxx is None:
        pytest.skip("clang++-22 is not installed (apt-get install clang-22); CI installs it")
    extra = _extra_flags(prog)
    eh = [] if "-fexceptions" in extra else ["-fno-exceptions"]
    return clangxx, ["-std=c++17", *eh, *CFLAGS, *extra], ["-lstdc++", "-lm"]


def _extra_flags(prog: Path) -> list[str]:
    """`// WHOLE-FLAGS: ...` on a line of its own adds compile flags (as in the
    whole-program corpus: `-fexceptions`)."""
    m = re.search(r"^\s*(?://|/\*)\s*WHOLE-FLAGS:(.*?)(?:\*/)?$", prog.read_text(), re.M)
    return m.group(1).split() if m else []


@pytest.mark.parametrize("prog,opt", _cases())
def test_c_program(prog: Path, opt: str, tmp_path: Path) -> None:
    """clang -> enzyme_py transform -> clang -> run: every tangent check passes."""
    cc, cflags, libs = _toolchain(_clang(), prog)
    ll = tmp_path / f"{prog.stem}{opt}.ll"
    fwd_ll = tmp_path / f"{prog.stem}{opt}.fwd.ll"
    exe = tmp_path / f"{prog.stem}{opt}"
    _run([cc, opt, "-S", "-emit-llvm", *cflags, str(prog), "-o", str(ll)],
         "clang (source -> LLVM IR)", COMPILE_TIMEOUT)
    if _name(prog) in EXPECTED_ERRORS:
        _check_clean_error(ll, fwd_ll, EXPECTED_ERRORS[_name(prog)])
        return
    _transform_in_process(ll, fwd_ll)
    text = fwd_ll.read_text()
    assert "__enzyme_fwddiff" not in text.replace("declare", ""), "a call was not lowered"
    _run([cc, "-O2", str(fwd_ll), "-o", str(exe), *libs],
         f"clang (link transformed IR {fwd_ll})", COMPILE_TIMEOUT)
    _check_program_output(exe, f"{prog.relative_to(ROOT)} {opt}", env=RUN_ENV)


# With `--no-inline` every call stays a call: each callee on an active path gets its own
# forward derivative. What only inlining makes known must fail with a clear error:
# name -> text the message contains.
NO_INLINE_ERRORS: dict[str, tuple[str, ...]] = {
    # the callee calls its function-pointer argument: the target is known only after inlining
    "whole_fnptr_callback_arg": ("in @integrate", "an indirect call has no derivative rule"),
    "whole_virtual_known": ("an indirect call has no derivative rule",),
    # an iterator's operator* returns a pointer loaded from memory without a shadow
    "whole_stl_algorithms": ("returns a pointer and could not be inlined",),
    # std::function's manager copies the captured state as integers
    "whole_std_function": ("active memory is copied as integers",),
    # unique_ptr::get() returns a pointer loaded from a const object: no shadow to follow
    "whole_unique_ptr_array": ("stores an active value into memory without a shadow",),
}
assert all(name in _KNOWN for name in NO_INLINE_ERRORS), "NO_INLINE_ERRORS names a missing program"


def _no_inline_cases() -> list:
    out = []
    for prog in PROGRAMS:
        name = _name(prog)
        reason = XFAIL.get((name, "-O0")) or XFAIL.get((name, None))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(prog, marks=marks, id=name))
    return out


@pytest.mark.parametrize("prog", _no_inline_cases())
def test_c_program_no_inline(prog: Path, tmp_path: Path) -> None:
    """The same programs at -O0 (every call still a call) with `--no-inline`: the tangents go
    through the callees' own derivatives and must pass the same checks."""
    cc, cflags, libs = _toolchain(_clang(), prog)
    ll = tmp_path / f"{prog.stem}.ll"
    fwd_ll = tmp_path / f"{prog.stem}.fwd.ll"
    exe = tmp_path / prog.stem
    _run([cc, "-O0", "-S", "-emit-llvm", *cflags, str(prog), "-o", str(ll)],
         "clang (source -> LLVM IR)", COMPILE_TIMEOUT)
    needles = EXPECTED_ERRORS.get(_name(prog)) or NO_INLINE_ERRORS.get(_name(prog))
    if needles:
        _check_clean_error(ll, fwd_ll, needles, "--no-inline")
        return
    _transform_in_process(ll, fwd_ll, "--no-inline", "-O", "0")  # (clang -O2 optimizes)
    _run([cc, "-O2", str(fwd_ll), "-o", str(exe), *libs],
         f"clang (link transformed IR {fwd_ll})", COMPILE_TIMEOUT)
    _check_program_output(exe, f"{prog.relative_to(ROOT)} -O0 --no-inline", env=RUN_ENV)


def _check_clean_error(ll: Path, out: Path, needles: tuple[str, ...], *options: str) -> None:
    """The transform fails with exit 1 and a one-line message holding every needle."""
    rc, err = _transform_error_in_process(ll, out, *options)
    assert rc == 1 and "Traceback" not in err, f"expected a clean error (exit 1)\n{err}"
    for needle in needles:
        assert needle in err, f"{needle!r} not in the error message\n{err}"
    assert not out.exists(), "an output file was written despite the error"
