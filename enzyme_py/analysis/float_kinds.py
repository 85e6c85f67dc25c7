"""Which floating point types memory holds. Pointers are opaque, so memory has no type of its
own: it is read off the loads, stores and GEPs that touch each memory object (and the types of
stack slots, what a caller says of an argument, the other end of a copy).

`float_kinds(fn)` is the analysis of one function (a frozen `FloatKinds`, printed by the
`print-types` printer); `memory_float_kind` answers for the memory behind some pointers, as the
adjoint of a `memcpy` needs it; `integer_copies_of_floats` lists integer accesses of memory
that holds only floats of their width (what `ad/float_memory.py` retypes).

Invariants: nothing here changes the IR; a memory object whose accesses disagree has every
type listed (never one picked); memory that cannot be named (`UNKNOWN`) has no kind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from enzyme_py.analysis.activity import alias_classes
from enzyme_py.analysis.memory import UNKNOWN, MemObject, underlying
from enzyme_py.analysis.memory_effects import memory_intrinsic
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.module import Function
from enzyme_py.ir.printer import FunctionPrinter
from enzyme_py.ir.values import Argument, Value
from enzyme_py.rules.matrix_kernel import is_matrix_kernel, kernel_type

FLOAT_OF_WIDTH = {16: T.HALF, 32: T.FLOAT, 64: T.DOUBLE}


def _scalar(t: T.Type) -> T.Type:
    while isinstance(t, (T.ArrayType, T.VectorType)):
        t = t.element
    return t


@dataclass(frozen=True)
class FloatKinds:
    """The scalar types each memory object of `function` is accessed as."""

    function: Function
    kinds: Mapping[MemObject, frozenset[T.Type]]

    def of(self, obj: MemObject) -> frozenset[T.Type]:
        return self.kinds.get(obj, frozenset())

    def float_of_width(self, objs: frozenset[MemObject], width: int) -> T.Type | None:
        """The float type of `width` bits when every object in `objs` is accessed only as
        that float (or as an integer of the same width); or a vector of narrower floats that
        fills `width` (`<2 x float>` for i64: LLVM copies two float32 as one i64) when every
        object is accessed only as that float (or as integers of either width); else None."""
        if not objs or UNKNOWN in objs:
            return None
        want = FLOAT_OF_WIDTH.get(width)
        if want is not None and self._only(objs, want, {width}):
            return want
        for bits, narrow in FLOAT_OF_WIDTH.items():
            if bits < width and width % bits == 0 and self._only(objs, narrow, {width, bits}):
                return T.VectorType(width // bits, narrow)
        return None

    def _only(self, objs: frozenset[MemObject], want: T.Type, int_widths: set[int]) -> bool:
        """Every object in `objs` is accessed as `want` and otherwise only as integers of
        `int_widths` bits."""
        for o in objs:
            ks = {k for k in self.of(o) if not (isinstance(k, T.IntType) and
                                                k.bits in int_widths)}
            if ks != {want}:
                return False
        return True

    def __str__(self) -> str:
        """One line per memory object: `;   %x: double  ; float*` (all of its accesses are
        one float type), or the types it is accessed as."""
        p = FunctionPrinter(self.function)
        lines = [f"; memory types of @{self.function.name}"]
        objs = [a for a in self.function.args if a in self.kinds]
        objs += [i for i in self.function.instructions() if i in self.kinds]
        for o in objs:
            kinds = sorted(str(k) for k in self.kinds[o])
            floats = [k for k in self.kinds[o] if k.is_float]
            mark = "  ; float*" if len(floats) == 1 and len(kinds) == 1 else ""
            lines.append(f";   {p.ref(o)}: {', '.join(kinds)}{mark}")  # type: ignore[arg-type]
        if not objs:
            lines.append(";   no typed memory accesses")
        return "\n".join(lines) + "\n"


def float_kinds(fn: Function) -> FloatKinds:
    """Scalar types each memory object of `fn` is accessed as (loads, stores, GEP element
    types)."""
    kinds: dict[MemObject, set[T.Type]] = {}

    def note(objs: frozenset[MemObject], t: T.Type) -> None:
        for o in objs:
            if o is not UNKNOWN:
                kinds.setdefault(o, set()).add(_scalar(t))

    for inst in fn.instructions():
        if isinstance(inst, I.Load):
            note(underlying(inst.pointer), inst.type)
        elif isinstance(inst, I.Store):
            note(underlying(inst.pointer), inst.value.type)
        elif isinstance(inst, I.GetElementPtr) and inst.source_type != T.I8:
            st = _scalar(inst.source_type)
            if st.is_float or st.is_int:
                note(underlying(inst), st)
    return FloatKinds(fn, {o: frozenset(ks) for o, ks in kinds.items()})


def integer_copies_of_floats(fn: Function) -> list[I.Instruction]:
    """Integer loads/stores left on memory that holds only floats of their width."""
    kinds = float_kinds(fn)
    out = []
    for inst in fn.instructions():
        if isinstance(inst, I.Load) and isinstance(inst.type, T.IntType):
            if kinds.float_of_width(underlying(inst.pointer), inst.type.bits) is not None:
                out.append(inst)
        elif isinstance(inst, I.Store) and isinstance(inst.value.type, T.IntType):
            if kinds.float_of_width(underlying(inst.pointer), inst.value.type.bits) is not None:
                out.append(inst)
    return out


def memory_float_kind(insts: list[I.Instruction], same: Callable[[Value], frozenset],
                      hints: Sequence[str | None], fn: Function, pointers: list[Value],
                      _seen: frozenset = frozenset()) -> str | None:
    """The one float type of the memory behind `pointers` in `fn` (whose instructions of
    interest are `insts`; `same(p)`: what `p` may point into, pointers loaded from one place
    leading to one memory), from the loads, stores and GEPs that touch it, the types of stack
    slots, or else what the caller said of an argument (`hints`, per argument), or else what
    the memory at the other end of a `memcpy`/`memmove` holds (a chain of copies:
    `y = x.copy(); z = y.copy()`); a comma-separated list when they disagree, None when
    nothing tells. (One query; `MemoryKinds` answers many of the same instructions.)"""
    return MemoryKinds(insts, same, hints, fn).kind(pointers, _seen)


class MemoryKinds:
    """`memory_float_kind` of one list of instructions, for many queries: each memory
    object's kinds (from the loads, stores and GEPs whose pointer `same` maps to it) and the
    copies between memory are read once, so a query costs its objects, not a pass over the
    function. A query's answer is `memory_float_kind`'s for the same arguments: an access
    counts for a query iff its objects meet the query's, which is iff one of the query's
    objects lists it."""

    def __init__(self, insts: list[I.Instruction], same: Callable[[Value], frozenset],
                 hints: Sequence[str | None], fn: Function) -> None:
        self.insts, self.same, self.hints, self.fn = insts, same, hints, fn
        self.by_object: dict[MemObject, set[str]] = {}
        # (destination, source, their objects) of each memcpy/memmove
        self.copies: list[tuple[Value, Value, frozenset, frozenset]] = []
        for inst in insts:
            if isinstance(inst, (I.Load, I.Store)):
                t = inst.type if isinstance(inst, I.Load) else inst.value.type
                if t.scalar.is_float or t.scalar.is_pointer:
                    self._note(same(inst.pointer), str(t.scalar))
            elif isinstance(inst, I.GetElementPtr):
                st = _scalar(inst.source_type)
                if st.is_float:
                    self._note(same(inst), str(st))
            elif isinstance(inst, I.Call) and memory_intrinsic(inst.callee_name or "") in (
                    "memcpy", "memmove"):
                dest, src = inst.args[0], inst.args[1]
                self.copies.append((dest, src, same(dest), same(src)))

    def _note(self, objs: frozenset, kind: str) -> None:
        for o in objs:
            self.by_object.setdefault(o, set()).add(kind)

    def kind(self, pointers: list[Value], seen: frozenset = frozenset(),
             calls: Callable[[], list[I.Instruction]] | None = None) -> str | None:
        """`memory_float_kind` of `pointers` (`calls()`: the instructions whose calls a last
        resort reads, where they may have grown since the index was made; default its own)."""
        same = self.same
        objs: frozenset = frozenset()
        for p in pointers:
            objs |= same(p)
        kinds: set[str] = set()
        for o in objs:
            kinds |= self.by_object.get(o, set())
            if isinstance(o, I.Alloca):
                kinds |= _leaf_kinds(o.allocated_type)
        if not kinds:
            for o in objs:
                if isinstance(o, Argument) and o.parent is self.fn and \
                        o.index < len(self.hints) and self.hints[o.index]:
                    kinds.add(self.hints[o.index])  # type: ignore[arg-type]
        if not kinds and not objs & seen:
            seen = seen | objs
            for dest, src, to, of in self.copies:
                other = src if to & objs else dest if of & objs else None
                got = self.kind([other], seen, calls) if other is not None else None
                if got is not None:
                    kinds |= set(got.split(", "))
            if not kinds:
                kinds = _callee_kinds(calls() if calls is not None else self.insts, same,
                                      objs, seen)
        if not kinds:
            return None
        return ", ".join(sorted(kinds))


def _callee_kinds(insts: list[I.Instruction], same: Callable[[Value], frozenset],
                  objs: frozenset, seen: frozenset) -> set[str]:
    """The float types that the functions called with a pointer into `objs` give that
    parameter's memory (a loop outlined into its own function, as `checkpoint-loops` makes
    one, is then the only typed user of the caller's buffer; the matrix kernel, declared,
    by its name); `seen` stops a recursion."""
    kinds: set[str] = set()
    for inst in insts:
        callee = inst.callee if isinstance(inst, I.Call) else None
        if isinstance(callee, Function) and is_matrix_kernel(callee.name):
            if any(a.type.is_pointer and same(a) & objs for a in inst.args):
                kinds.add(kernel_type(callee.name)[0])  # (its A, B and C hold its floats)
            continue
        if not isinstance(callee, Function) or callee.is_declaration:
            continue
        for k, arg in enumerate(inst.args[:len(callee.args)]):
            if arg.type.is_pointer and same(arg) & objs and callee.args[k] not in seen:
                body = list(callee.instructions())
                got = memory_float_kind(body, alias_classes(body), (), callee,
                                        [callee.args[k]], seen)
                if got is not None:
                    kinds |= set(got.split(", "))
    return kinds


def _leaf_kinds(t: T.Type) -> set[str]:
    if isinstance(t, (T.ArrayType, T.VectorType)):
        return _leaf_kinds(t.element)
    if isinstance(t, (T.StructType, T.IdentifiedStructType)):
        out: set[str] = set()
        for e in T.struct_elements(t):
            out |= _leaf_kinds(e)
        return out
    return {str(t)} if t.is_float or t.is_pointer else set()
