"""Regressions from Enzyme's own integration tests (`make enzyme-tests`,
`benchmarks/enzyme_suite.py`): one small self-checking program per construct that failed
there, run through the real pipeline at -O0 and -O2::

    clang-22 -O{0,2} -S -emit-llvm prog.c -o prog.ll        (clang++-22 -std=c++17 for C++)
    python -m enzyme_py transform prog.ll -o g.ll            (in process)
    clang-22 -O2 g.ll -o prog -lm && ./prog

- `libm_int_outputs.c`: libm with an integer output through a pointer (`frexp`, `remquo`);
- `nested_static_autodiff.c`: `__enzyme_autodiff` of a function that calls it, the inner
  function emitted after its caller;
- `nested_iter_series.c`: three nested `__enzyme_autodiff` over a series of
  `__enzyme_iter(8, 1)` terms (each level differentiates the inlined gradient below it);
- `pointer_struct_copy.c`: `*a = *b` of structs of integers and a pointer to active data;
- `integer_field_copy.c`: integer fields of such a struct copied one by one (`load i64`);
- `augmentfwd_result_first.c`: `__enzyme_augmentfwd` declared as `{double, void *}`;
- `global_allocator.c`: memory from an allocator called through a function pointer in a
  global that no code writes;
- `virtual_reverse_table.c`: `__enzyme_virtualreverse(f)`, the `{augmented, reverse}` pair,
  called by hand;
- `string_map.cpp`: `std::unordered_map<std::string, double>` (hashing, std::string).

Unit tests below cover what the programs reach only through clang's choices: the declared
types of integer copies (`analysis.field_types`), the retyping of a double copied as `i64`
out of a mixed struct, the loop form of the runtime helper a nested gradient inlines, and
which globals no code writes (`analysis.stored_pointers.never_written`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from enzyme_py.ad.float_memory import rewrite_float_copies
from enzyme_py.ad.runtime import free_deferred_function
from enzyme_py.analysis.field_types import declared_type, integer_by_use, leaf_at
from enzyme_py.analysis.loops import find_loops
from enzyme_py.analysis.stored_pointers import never_written
from enzyme_py.ir import instructions as I
from enzyme_py.ir import parse
from enzyme_py.ir import types as T
from enzyme_py.ir.module import Module
from tests.ad.harness import check_program_output, transform_in_process
from tests.ad.harness import clang_or_skip as _clang
from tests.ad.harness import run as _run

HERE = Path(__file__).resolve().parent
PROG_DIR = HERE / "enzyme_suite"
INCLUDE_DIR = HERE / "c"  # enzyme_test.h
PROGRAMS = sorted(PROG_DIR.glob("*.c")) + sorted(PROG_DIR.glob("*.cpp"))
OPT_LEVELS = ("-O0", "-O2")
COMPILE_TIMEOUT = 120


def _toolchain(prog: Path) -> tuple[str, list[str], list[str]]:
    clang = _clang()
    if prog.suffix == ".c":
        return clang, [], ["-lm"]
    clangxx = shutil.which("clang++-22")
    if clangxx is None:
        pytest.skip("clang++-22 is not installed (apt-get install clang-22); CI installs it")
    return clangxx, ["-std=c++17", "-fno-exceptions"], ["-lstdc++", "-lm"]


def test_programs_present() -> None:
    assert len(PROGRAMS) == 9, [p.name for p in PROGRAMS]


@pytest.mark.clang
@pytest.mark.parametrize("opt", OPT_LEVELS, ids=lambda o: o.lstrip("-"))
@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_program(prog: Path, opt: str, tmp_path: Path) -> None:
    cc, flags, libs = _toolchain(prog)
    ll, grad, exe = tmp_path / "p.ll", tmp_path / "g.ll", tmp_path / "p"
    _run([cc, opt, *flags, "-S", "-emit-llvm", "-I", str(INCLUDE_DIR), str(prog), "-o",
          str(ll)], "clang (source -> LLVM IR)", COMPILE_TIMEOUT)
    transform_in_process(ll, grad)
    _run([cc, "-O2", str(grad), "-o", str(exe), *libs], "clang (link)", COMPILE_TIMEOUT)
    check_program_output(exe, f"{prog.name} {opt}")


# --- declared types of integer accesses ------------------------------------------------------

_FIELDS = """
%struct.R = type { i64, i64, ptr }
%struct.M = type { i32, double, i64 }

define i64 @f(ptr %r, ptr %q, ptr %p) {
  %start = getelementptr inbounds %struct.R, ptr %r, i64 0, i32 0
  %a = load i64, ptr %start, align 8
  %at8 = getelementptr inbounds i8, ptr %q, i64 8
  %b = load i64, ptr %at8, align 8, !tbaa !3
  %c = load i64, ptr %at8, align 8, !tbaa !6
  %slot = alloca %struct.M, align 8
  %v.at = getelementptr inbounds i8, ptr %slot, i64 8
  %v = load i64, ptr %v.at, align 8
  %n.at = getelementptr inbounds i8, ptr %slot, i64 16
  %n = load i64, ptr %n.at, align 8
  %x = load i64, ptr %p, align 8
  %y = getelementptr inbounds i8, ptr %p, i64 0
  %z = load i64, ptr %y, align 8
  %d = sub i64 %z, %a
  ret i64 %d
}

!0 = !{!"Simple C/C++ TBAA"}
!1 = !{!"omnipotent char", !0, i64 0}
!2 = !{!"long long", !1, i64 0}
!3 = !{!4, !2, i64 8}
!4 = !{!"", !2, i64 0, !2, i64 8}
!5 = !{!"double", !1, i64 0}
!6 = !{!5, !5, i64 0}
"""


def _loads(m: Module) -> dict[str, I.Load]:
    return {i.name: i for i in m.get_function("f").instructions()
            if isinstance(i, I.Load) and i.name}


def test_declared_types_of_integer_loads() -> None:
    loads = _loads(parse(_FIELDS))
    assert declared_type(loads["a"]) == T.I64  # struct GEP: field 0 is i64
    assert declared_type(loads["b"]) == T.I64  # TBAA access type "long long"
    assert declared_type(loads["c"]) == T.DOUBLE  # TBAA access type "double"
    assert declared_type(loads["v"]) == T.DOUBLE  # the stack slot's field at byte 8
    assert declared_type(loads["n"]) == T.I64
    assert declared_type(loads["x"]) is None  # nothing says


def test_integer_by_use() -> None:
    loads = _loads(parse(_FIELDS))
    assert integer_by_use(loads["x"])  # the same place, loaded again, feeds `sub`
    assert not integer_by_use(loads["v"])


def test_leaf_at() -> None:
    s = T.StructType((T.I32, T.DOUBLE, T.ArrayType(2, T.FLOAT)))
    assert leaf_at(s, 0) == T.I32 and leaf_at(s, 8) == T.DOUBLE
    assert leaf_at(s, 20) == T.FLOAT
    assert leaf_at(s, 4) is None and leaf_at(s, 10) is None and leaf_at(s, 24) is None
    assert leaf_at(s, -8) is None


def test_double_copied_as_i64_out_of_a_mixed_struct_is_retyped() -> None:
    m = parse("""
%struct.M = type { i32, double, i64 }

define void @copy(ptr %dst) {
  %slot = alloca %struct.M, align 8
  %n.at = getelementptr inbounds i8, ptr %slot, i64 16
  store i64 7, ptr %n.at, align 8
  %v.at = getelementptr inbounds i8, ptr %slot, i64 8
  %bits = load i64, ptr %v.at, align 8
  store i64 %bits, ptr %dst, align 8
  %n = load i64, ptr %n.at, align 8
  store i64 %n, ptr %dst, align 8
  ret void
}
""")
    fn = m.get_function("copy")
    assert rewrite_float_copies(fn) == 1
    loads = [i for i in fn.instructions() if isinstance(i, I.Load)]
    assert [str(i.type) for i in loads] == ["double", "i64"]


def test_free_deferred_helper_loop_is_canonical() -> None:
    m = Module("m")
    fn = free_deferred_function(m)
    loops = find_loops(fn).loops
    assert len(loops) == 1 and loops[0].is_simplified


def test_never_written_globals() -> None:
    m = parse("""
@only_loaded = global { i32, ptr } { i32 0, ptr @malloc }
@stored = global ptr @malloc
@escapes = global ptr @malloc
@weak = weak global ptr @malloc
@table = global ptr @escapes

declare ptr @malloc(i64)
declare void @use(ptr)

define ptr @f() {
  %a = load ptr, ptr getelementptr inbounds (i8, ptr @only_loaded, i64 8), align 8
  store ptr null, ptr @stored, align 8
  %b = load ptr, ptr @weak, align 8
  call void @use(ptr @escapes)
  ret ptr %a
}
""")
    verdict = {g.name: never_written(g) for g in m.globals}
    assert verdict == {"only_loaded": True, "stored": False, "escapes": False, "weak": False,
                       "table": True}

