"""Memory effects and float kinds: written arguments (own and through callees), writes after a
call, masked stores as writes (and as stores to the activity analysis), the printers."""

from __future__ import annotations

from enzyme_py.analysis.activity import analyze_activity
from enzyme_py.analysis.float_kinds import float_kinds, integer_copies_of_floats
from enzyme_py.analysis.memory_effects import (
    memory_effects,
    memory_intrinsic,
    write_after,
    writes_no_memory,
    writes_through_argument,
    written_arguments,
)
from enzyme_py.ir import instructions as I
from enzyme_py.ir import parse

MODULE = """
declare double @llvm.sin.f64(double)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.masked.store.v2f64.p0(<2 x double>, ptr, <2 x i1>)
declare void @opaque(ptr)

define void @writes_second(ptr %a, ptr %b) {
entry:
  %x = load double, ptr %a
  %s = call double @llvm.sin.f64(double %x)
  store double %s, ptr %b
  ret void
}

define void @calls(ptr %p, ptr %q, ptr %r) {
entry:
  call void @writes_second(ptr %p, ptr %q)
  call void @llvm.memset.p0.i64(ptr %r, i8 0, i64 8, i1 false)
  %v = load double, ptr %p
  ret void
}

define void @masked(ptr %p, ptr %q, <2 x double> %v) {
entry:
  call void @llvm.masked.store.v2f64.p0(<2 x double> %v, ptr align 8 %q, <2 x i1> <i1 true, i1 false>)
  ret void
}

@g = global [2 x double] zeroinitializer

define void @clobber_g() {
entry:
  store double 7.0, ptr @g
  ret void
}

define void @clobber_g_twice_removed() {
entry:
  call void @clobber_g()
  ret void
}

define void @reads_g_then_clobbers(ptr %out) {
entry:
  call void @writes_second(ptr @g, ptr %out)
  call void @clobber_g_twice_removed()
  ret void
}

define void @clobbers_then_reads_g(ptr %out) {
entry:
  call void @clobber_g()
  call void @writes_second(ptr @g, ptr %out)
  ret void
}

define void @unknown(ptr %p, ptr %q) {
entry:
  call void @opaque(ptr %q)
  ret void
}
"""


def _fn(name: str):
    return parse(MODULE).get_function(name)


def test_written_arguments() -> None:
    assert written_arguments(_fn("writes_second")) == {1}
    # a defined callee that writes counts for the pointers it writes through
    assert written_arguments(_fn("calls")) == {1, 2}
    assert written_arguments(_fn("masked")) == {1}
    assert written_arguments(_fn("unknown")) == {0, 1}  # something unknown is called


def test_writes_through_one_argument() -> None:
    fn = _fn("calls")
    assert not writes_through_argument(fn, 0)  # only read, by the callee too
    assert writes_through_argument(fn, 1) and writes_through_argument(fn, 2)
    unknown = _fn("unknown")
    assert writes_through_argument(unknown, 1) and not writes_through_argument(unknown, 0)


def test_write_after_a_call() -> None:
    fn = _fn("calls")
    call = next(i for i in fn.instructions() if isinstance(i, I.Call))
    w = write_after(memory_effects(fn), call)
    assert w is not None and memory_intrinsic(w.callee_name or "") == "memset"


def test_a_callee_writing_a_global_after_the_call_is_found() -> None:
    # the store is two calls deep; it happens (for @reads_g_then_clobbers) at its call
    fn = _fn("reads_g_then_clobbers")
    first, second = (i for i in fn.instructions() if isinstance(i, I.Call))
    effects = memory_effects(fn)
    assert all(w.function is fn for w, _ in effects.writes)
    assert write_after(effects, first) is second
    # a write before the call is not after it
    fn = _fn("clobbers_then_reads_g")
    reader = [i for i in fn.instructions() if isinstance(i, I.Call)][1]
    assert write_after(memory_effects(fn), reader) is None


def test_calls_that_write_nothing() -> None:
    assert writes_no_memory("llvm.sin.f64") and writes_no_memory("printf")
    assert writes_no_memory("llvm.lifetime.start.p0")
    assert writes_no_memory("llvm.masked.load.v4f64.p0")
    assert not writes_no_memory("llvm.masked.store.v4f64.p0")
    assert not writes_no_memory("opaque")
    assert memory_effects(_fn("masked")).writes_unknown_call is False


def test_printers() -> None:
    text = str(memory_effects(_fn("calls")))
    assert text.splitlines()[0] == "; writes of @calls"
    assert ";   call void @writes_second(ptr %p, ptr %q): %q\n" in text
    assert ";   call void @llvm.memset.p0.i64(ptr %r, i8 0, i64 8, i1 false): %r\n" in text
    kinds = str(float_kinds(_fn("writes_second")))
    assert kinds == "; memory types of @writes_second\n;   %a: double  ; float*\n" \
                    ";   %b: double  ; float*\n"


def test_integer_copy_of_a_double_is_found() -> None:
    fn = parse("""
define void @f(ptr %a, ptr %b) {
entry:
  %x = load double, ptr %a
  %bits = load i64, ptr %a
  store i64 %bits, ptr %b
  %y = load double, ptr %b
  ret void
}
""").get_function("f")
    assert [i.opcode for i in integer_copies_of_floats(fn)] == ["load", "store"]


def test_masked_store_is_a_store_to_the_activity_analysis() -> None:
    """An active value stored by `llvm.masked.store` into dup memory is active (it used to be
    missed, and its tangent silently zero)."""
    fn = parse("""
declare void @llvm.masked.store.v2f64.p0(<2 x double>, ptr, <2 x i1>)

define void @f(ptr %x, ptr %y) {
entry:
  %v = load <2 x double>, ptr %x
  %w = fmul <2 x double> %v, %v
  call void @llvm.masked.store.v2f64.p0(<2 x double> %w, ptr align 8 %y, <2 x i1> <i1 true, i1 false>)
  ret void
}
""").get_function("f")
    act = analyze_activity(fn, ["dup", "dup"], False)
    w = next(i for i in fn.instructions() if i.name == "w")
    assert act.is_active(w)
    assert "masked.store" in [line for line in str(act).splitlines() if "; active" in line][-1]


KINDS_MODULE = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare ptr @malloc(i64)

define void @kinds(ptr %x, ptr %hinted, ptr %mixed, i1 %c) {
entry:
  %slot = alloca { double, float }
  %y = call ptr @malloc(i64 64)
  %z = call ptr @malloc(i64 64)
  %w = call ptr @malloc(i64 64)
  %v = load double, ptr %x
  call void @llvm.memcpy.p0.p0.i64(ptr %y, ptr %x, i64 64, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %z, ptr %y, i64 64, i1 false)
  %g = getelementptr float, ptr %mixed, i64 1
  store double %v, ptr %mixed
  %either = select i1 %c, ptr %w, ptr %slot
  store double %v, ptr %either
  ret void
}
"""


def _kind_by_scan(insts, same, hints, fn, pointers, seen=frozenset()):
    """memory_float_kind as one pass over the instructions per question (what `MemoryKinds`
    must agree with), without the callees' last resort."""
    objs = frozenset().union(*(same(p) for p in pointers))
    kinds = set()
    for inst in insts:
        if isinstance(inst, (I.Load, I.Store)) and same(inst.pointer) & objs:
            t = inst.type if isinstance(inst, I.Load) else inst.value.type
            if t.scalar.is_float or t.scalar.is_pointer:
                kinds.add(str(t.scalar))
        elif isinstance(inst, I.GetElementPtr) and same(inst) & objs and \
                inst.source_type.is_float:
            kinds.add(str(inst.source_type))
    for o in objs:
        if isinstance(o, I.Alloca):
            kinds |= {str(e) for e in o.allocated_type.elements if e.is_float}
    if not kinds:
        kinds |= {hints[o.index] for o in objs
                  if getattr(o, "parent", None) is fn and hasattr(o, "index") and
                  o.index < len(hints) and hints[o.index]}
    if not kinds and not objs & seen:
        for inst in insts:
            if isinstance(inst, I.Call) and memory_intrinsic(inst.callee_name or "") == "memcpy":
                dest, src = inst.args[0], inst.args[1]
                other = src if same(dest) & objs else dest if same(src) & objs else None
                got = _kind_by_scan(insts, same, hints, fn, [other], seen | objs) \
                    if other is not None else None
                if got:
                    kinds |= set(got.split(", "))
    return ", ".join(sorted(kinds)) or None


def test_memory_kinds_index_answers_as_a_scan():
    from enzyme_py.analysis.activity import alias_classes
    from enzyme_py.analysis.float_kinds import MemoryKinds

    fn = parse(KINDS_MODULE).get_function("kinds")
    insts = list(fn.instructions())
    same = alias_classes(insts)
    hints = (None, "float", None, None)
    index = MemoryKinds(insts, same, hints, fn)
    pointers = [a for a in fn.args if a.type.is_pointer] + \
        [i for i in insts if i.type.is_pointer]
    answers = {}
    for p in pointers:
        answers[p.name] = index.kind([p])
        assert answers[p.name] == _kind_by_scan(insts, same, hints, fn, [p]), p.name
    # (the cases the module is built for: a chain of copies, a hint, disagreeing accesses,
    # a stack slot's own type, a select of a heap block and a slot)
    assert answers["z"] == answers["y"] == answers["x"] == "double"
    assert answers["hinted"] == "float"
    assert answers["mixed"] == "double, float"
    assert answers["slot"] == "double, float"
    assert answers["w"] == "double"
