"""Indirect calls whose target is known after optimization: guarded, inlined, and the fallback
removed only when `PointerValues` proves it dead; realloc expanded to malloc + copy + free."""

from __future__ import annotations

import pytest

from enzyme_py.ad.devirtualize import devirtualize, excluded_targets, remove_dead_fallbacks
from enzyme_py.ad.driver import INLINE_PIPELINE, gradient_module, mark_callees_inline, prepare
from enzyme_py.ad.realloc import expand_reallocs
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.analysis.stored_pointers import PointerValues
from enzyme_py.backend import compile_ir
from enzyme_py.ir import instructions as I
from enzyme_py.ir import parse
from enzyme_py.ir.dominance import predecessors
from enzyme_py.passes import Pipeline

# A local object whose first field points into a constant table (a vtable), called in a loop
# that also passes the object to the callee: LLVM alone cannot forward the stored pointer.
VIRTUAL = """
@vt.sq = internal constant { [2 x ptr] } { [2 x ptr] [ptr null, ptr @sq] }
@vt.cube = internal constant { [2 x ptr] } { [2 x ptr] [ptr null, ptr @cube] }

define internal double @sq(ptr %self, double %x) {
  %r = fmul double %x, %x
  ret double %r
}

define internal double @cube(ptr %self, double %x) {
  %a = fmul double %x, %x
  %r = fmul double %a, %x
  ret double %r
}

define double @f(ptr %xs, i32 %n) {
entry:
  %obj.a = alloca ptr, align 8
  %obj.b = alloca ptr, align 8
  store ptr getelementptr inbounds (i8, ptr @vt.sq, i64 8), ptr %obj.a, align 8
  store ptr getelementptr inbounds (i8, ptr @vt.cube, i64 8), ptr %obj.b, align 8
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %odd = trunc i32 %i to i1
  %obj = select i1 %odd, ptr %obj.b, ptr %obj.a
  %vt = load ptr, ptr %obj, align 8
  %fn = load ptr, ptr %vt, align 8
  %p = getelementptr inbounds double, ptr %xs, i32 %i
  %x = load double, ptr %p, align 8
  %y = call double %fn(ptr %obj, double %x)
  %s.next = fadd double %s, %y
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret double %s.next
}
"""


def _indirect_calls(text: str, fn: str = "f") -> list[I.Call]:
    module = parse(text)
    return [i for i in module.get_function(fn).instructions()
            if isinstance(i, I.Call) and i.callee_name is None]


def test_known_targets_become_direct_calls() -> None:
    work = prepare(parse(VIRTUAL), targets=["f"])
    assert not _indirect_calls(str(work)), str(work.get_function("f"))


def test_gradient_through_a_virtual_call_matches_the_formula() -> None:
    import ctypes

    import numpy as np

    out, name = gradient_module(parse(VIRTUAL), "f", ["dup", "const"], True)
    lib = compile_ir(str(out))
    xs = np.array([1.5, -0.5, 2.0, 0.25])
    dxs = np.zeros(4)
    ptr = ctypes.POINTER(ctypes.c_double)
    grad = ctypes.CFUNCTYPE(None, ptr, ptr, ctypes.c_int32, ctypes.c_double)(lib.address(name))
    grad(xs.ctypes.data_as(ptr), dxs.ctypes.data_as(ptr), 4, 1.0)
    want = [2 * x if k % 2 == 0 else 3 * x * x for k, x in enumerate(xs)]
    np.testing.assert_allclose(dxs, want, rtol=1e-12)


def test_guard_is_kept_when_the_object_escapes() -> None:
    text = VIRTUAL.replace("  br label %loop\n", "  call void @keep(ptr %obj.a)\n"
                           "  br label %loop\n", 1) + "declare void @keep(ptr)\n"
    work = prepare(parse(text), targets=["f"])
    # @keep may overwrite the table pointer: the indirect call stays, behind the guards
    assert len(_indirect_calls(str(work))) == 1


def test_pointer_argument_has_no_candidates() -> None:
    text = """
define double @f(ptr %fn, double %x) {
  %y = call double %fn(double %x)
  ret double %y
}
"""
    module = parse(text)
    assert devirtualize([module.get_function("f")]) == 0
    with pytest.raises(DifferentiationError, match="an indirect call"):
        gradient_module(parse(text), "f", ["const", "out"], True)


def test_fallback_is_removed_only_when_proven_dead() -> None:
    module = parse(VIRTUAL)
    assert devirtualize([module.get_function("f")]) == 1
    mark_callees_inline(module, ["f"])
    module = Pipeline.parse(INLINE_PIPELINE).run(module)  # the direct calls are inlined
    fn = module.get_function("f")
    fallback = [i for i in fn.instructions() if isinstance(i, I.Call) and i.callee_name is None]
    assert len(fallback) == 1
    assert {f.name for f in excluded_targets(fallback[0], predecessors(fn))} == {"sq", "cube"}
    # unless the fallback is assumed not to run, it may overwrite the table pointer itself
    assert PointerValues(fn).functions(fallback[0].callee) is None
    found = PointerValues(fn, frozenset(fallback)).functions(fallback[0].callee)
    assert found is not None and {f.name for f in found} == {"sq", "cube"}
    assert remove_dead_fallbacks([fn]) == 1
    assert not [i for i in fn.instructions() if isinstance(i, I.Call) and i.callee_name is None]


def test_slot_values_follow_stores_on_paths() -> None:
    text = """
define internal double @a(double %x) {
  ret double %x
}
define internal double @b(double %x) {
  ret double %x
}
define double @f(i1 %c, double %x) {
entry:
  %slot = alloca ptr, align 8
  store ptr @a, ptr %slot, align 8
  br i1 %c, label %then, label %join
then:
  store ptr @b, ptr %slot, align 8
  br label %join
join:
  %fn = load ptr, ptr %slot, align 8
  %y = call double %fn(double %x)
  store ptr null, ptr %slot, align 8
  ret double %y
}
"""
    fn = parse(text).get_function("f")
    call = next(i for i in fn.instructions() if isinstance(i, I.Call))
    found = PointerValues(fn).functions(call.callee)
    assert found is not None and {f.name for f in found} == {"a", "b"}


REALLOC = """
declare ptr @malloc(i64)
declare ptr @realloc(ptr, i64)
declare void @free(ptr)

define double @f(ptr %x, i32 %n) {
entry:
  %buf = call ptr @malloc(i64 8)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %p = phi ptr [ %buf, %entry ], [ %q, %loop ]
  %i.next = add i32 %i, 1
  %i64 = zext i32 %i.next to i64
  %bytes = shl i64 %i64, 3
  %q = call ptr @realloc(ptr %p, i64 %bytes)
  %xi = getelementptr double, ptr %x, i32 %i
  %v = load double, ptr %xi, align 8
  %v2 = fmul double %v, %v
  %slot = getelementptr double, ptr %q, i32 %i
  store double %v2, ptr %slot, align 8
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %first = load double, ptr %q, align 8
  %last.p = getelementptr double, ptr %q, i32 %i
  %last = load double, ptr %last.p, align 8
  %r = fmul double %first, %last
  call void @free(ptr %q)
  ret double %r
}
"""


def test_realloc_becomes_malloc_copy_free() -> None:
    module = parse(REALLOC)
    fn = module.get_function("f")
    assert expand_reallocs(module, fn) == 1
    names = [i.callee_name for i in fn.instructions() if isinstance(i, I.Call)]
    assert "realloc" not in names
    assert names.count("malloc") == 2 and names.count("free") == 2
    assert "llvm.memcpy.p0.p0.i64" in names
    text = str(module)
    assert "phi i64" in text  # the size of the block %p points to, beside %p


def test_realloc_gradient_matches_the_formula() -> None:
    import ctypes

    import numpy as np

    out, name = gradient_module(parse(REALLOC), "f", ["dup", "const"], True)
    lib = compile_ir(str(out))
    xs = np.array([1.5, -0.5, 2.0, 0.25])
    dxs = np.zeros(4)
    ptr = ctypes.POINTER(ctypes.c_double)
    grad = ctypes.CFUNCTYPE(None, ptr, ptr, ctypes.c_int32, ctypes.c_double)(lib.address(name))
    grad(xs.ctypes.data_as(ptr), dxs.ctypes.data_as(ptr), 4, 1.0)
    # r = x0^2 * x3^2
    want = [2 * xs[0] * xs[3] ** 2, 0.0, 0.0, 2 * xs[3] * xs[0] ** 2]
    np.testing.assert_allclose(dxs, want, rtol=1e-12)
