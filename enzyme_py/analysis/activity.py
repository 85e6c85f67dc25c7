"""Activity analysis: which values carry derivatives, which memory needs a shadow.

A value is *varied* when it depends on an active input (an `out` scalar, or memory behind a
`dup` pointer), and *useful* when it can influence an active output (the returned value when the
return is active, or memory behind a `dup` pointer). It is *active* when it is both. Derivatives
flow through SSA values of floating point type (scalars, vectors, aggregates holding them) and
through memory; integer and pointer arithmetic never carries one.

Invariants: the result never changes the IR; `active` holds only values of float-carrying
types; `shadowed` holds the memory objects (dup arguments, allocas, heap allocations, globals
written with active data) that get shadow memory;
a varied value stored where no shadow can follow it and loaded back on a useful path raises
`AnalysisError` rather than dropping the derivative silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from enzyme_py.analysis.activities import WORDS, Activity, parse_activities
from enzyme_py.analysis.errors import AnalysisError
from enzyme_py.analysis.memory import (
    UNKNOWN,
    MemObject,
    derived_sources,
    is_derived,
    is_heap_object,
    underlying,
)
from enzyme_py.analysis.memory_effects import (
    known_writes,
    memory_intrinsic,
    stored,
    written_arguments,
)
from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function, GlobalVariable
from enzyme_py.ir.printer import FunctionPrinter
from enzyme_py.ir.types import carries_float
from enzyme_py.ir.values import Argument, Value

ACTIVITIES = WORDS  # the words of `acts=` (kept for the printers and the CLI's help)


def _mem_call_kind(inst: I.Instruction) -> str | None:
    return memory_intrinsic(inst.callee_name or "") if isinstance(inst, I.Call) else None


@dataclass(frozen=True)
class ActivityResult:
    """What `analyze_activity` found for one function and its argument activities."""

    function: Function
    arg_activity: tuple[Activity, ...]
    return_active: bool
    varied: frozenset[Value]
    useful: frozenset[Value]
    active: frozenset[Value]
    shadowed: frozenset[MemObject]

    def is_active(self, v: Value) -> bool:
        return v in self.active

    def has_shadow(self, ptr: Value) -> bool:
        """The pointer points (only) into shadowed memory."""
        objs = underlying(ptr)
        return bool(objs) and objs <= self.shadowed

    def touches_shadow(self, ptr: Value) -> bool:
        return bool(underlying(ptr) & self.shadowed)

    def __str__(self) -> str:
        """The function with `; active` / `; const` on every instruction."""
        p = FunctionPrinter(self.function)
        lines = [f"; activity of @{self.function.name}"]
        for arg, act in zip(self.function.args, self.arg_activity, strict=True):
            lines.append(f";   arg {p.ref(arg)}: {act}")
        lines.append(f";   return: {'active' if self.return_active else 'const'}")
        shadows = [p.ref(o) for o in self.function.args if o in self.shadowed]
        shadows += [p.ref(i) for i in self.function.instructions() if i in self.shadowed]
        lines.append(f";   shadow memory: {', '.join(shadows) or 'none'}")
        for block in self.function.blocks:
            lines.append(f"{p.slots.block_label(block)}:")
            for inst in block.instructions:
                mark = "active" if self._marks_active(inst) else "const"
                text = p.instruction(inst).split("\n")[0]
                lines.append(f"  {text}  ; {mark}")
        return "\n".join(lines) + "\n"

    def _marks_active(self, inst: I.Instruction) -> bool:
        if inst in self.active:
            return True
        store = stored(inst)
        if store is not None or _mem_call_kind(inst):
            return self.touches_shadow(store[1] if store is not None else inst.operands[0])
        if isinstance(inst, I.Ret):
            return self.return_active
        return False


def analyze_activity(fn: Function, arg_activity: Sequence[str | Activity],
                     return_active: bool,
                     inactive_calls: frozenset[str] | set[str] = frozenset(),
                     return_shadow: bool = False,
                     dup_globals: frozenset[Value] = frozenset()) -> ActivityResult:
    """Activity of `fn` for the given argument activities (`const`/`dup`/`dupnoneed`/`out`);
    calls to `inactive_calls` carry no derivative. `return_shadow`: `fn` returns a pointer
    whose memory the caller differentiates through, so the memory it allocates and returns
    gets a shadow (as if it were a dup argument). `dup_globals`: globals shared with callees
    that stay calls (`globals.py`), treated as dup memory."""
    if len(arg_activity) != len(fn.args):
        raise AnalysisError(f"@{fn.name} takes {len(fn.args)} arguments, but "
                            f"{len(arg_activity)} activities were given")
    try:
        arg_activity = parse_activities(arg_activity)
    except ValueError as exc:
        raise AnalysisError(str(exc)) from None
    for arg, act in zip(fn.args, arg_activity, strict=True):
        if act.shadowed and not arg.type.is_pointer:
            raise AnalysisError(f"argument {arg.index} of @{fn.name} is {arg.type}, not a "
                                f"pointer: it cannot be '{act}' (use 'out' or 'const')")
        if act is Activity.OUT and not carries_float(arg.type):
            raise AnalysisError(f"argument {arg.index} of @{fn.name} is {arg.type}: only "
                                "floating point arguments can be 'out' (use 'dup' for pointers)")
    if return_active and not carries_float(fn.return_type):
        raise AnalysisError(f"@{fn.name} returns {fn.return_type}: an active return needs a "
                            "floating point result")
    insts = list(fn.instructions())
    dup_args: set[Value] = {a for a, act in zip(fn.args, arg_activity, strict=True)
                            if act.shadowed}
    dup_args |= dup_globals
    if return_shadow and fn.return_type.is_pointer:
        dup_args |= {o for i in insts if isinstance(i, I.Ret) and i.value is not None
                     for o in underlying(i.value) if is_heap_object(o) or is_derived(o)}
    objs = _remembered(alias_classes(insts))
    reach = _reacher(insts, objs)
    shares = _shares_globals(dup_globals, inactive_calls)
    varied = _varied(insts, fn, arg_activity, dup_args, inactive_calls, objs, reach, shares)
    useful = _useful(insts, fn, return_active, dup_args, objs, reach, shares)
    active = frozenset(v for v in varied & useful if carries_float(v.type))
    # Memory objects that both receive varied data and are read on useful paths get shadows.
    shadowed = frozenset(dup_args) | frozenset(
        o for o in varied & useful
        if isinstance(o, (I.Alloca, GlobalVariable)) or is_heap_object(o))
    shadowed |= _merged_with_shadowed(insts, shadowed)
    # Memory behind a loaded pointer has a shadow when the pointer was loaded from shadowed
    # memory (the shadow pointer sits at the same place in the shadow). The greatest
    # fixpoint: lists (`p = p->next`) load pointers from memory reached the same way.
    derived = {i for i in insts if i.type.is_pointer and is_derived(i)
               and i in varied and i in useful and i not in shadowed}
    shrank = True
    while shrank:
        shrank = False
        for d in list(derived):
            src = derived_sources(d)
            if not src or not src <= (shadowed | derived):
                derived.discard(d)
                shrank = True
    shadowed |= derived
    _check_lost_derivatives(insts, varied, useful, shadowed)
    return ActivityResult(fn, tuple(arg_activity), return_active, frozenset(varied),
                          frozenset(useful), active, shadowed)


def _merged_with_shadowed(insts: list[I.Instruction],
                          shadowed: frozenset[MemObject]) -> frozenset[MemObject]:
    """Local memory that a phi or select merges with shadowed memory: the merged pointer has
    a shadow only when every object behind it has one (a realloc'd buffer, say, whose first
    block never held active data)."""
    merges = [i for i in insts if isinstance(i, (I.Phi, I.Select)) and i.type.is_pointer]
    out: set[MemObject] = set()
    changed = True
    while changed:
        changed = False
        for m in merges:
            objs = underlying(m)
            if not objs & (shadowed | out):
                continue
            for o in objs:
                if o not in shadowed and o not in out and (isinstance(o, I.Alloca) or
                                                            is_heap_object(o)):
                    out.add(o)
                    changed = True
    return frozenset(out)


def alias_classes(insts: list[I.Instruction]):
    """`objs(p)`: the objects `p` may point into, closed under "reached the same way".

    Two pointers loaded from the same memory lead to the same memory, and a pointer stored
    into memory is what later loads from that memory give back. Those objects share their
    activity: a union-find over memory objects, built once per function.
    """
    parent: dict[MemObject, MemObject] = {}

    def find(o: MemObject) -> MemObject:
        while parent.get(o, o) is not o:
            parent[o] = parent.get(parent[o], parent[o])
            o = parent[o]
        return o

    def union(a: MemObject, b: MemObject) -> None:
        ra, rb = find(a), find(b)
        if ra is not rb:
            parent[ra] = rb

    loads = [i for i in insts if isinstance(i, I.Load) and i.type.is_pointer]
    for k, d in enumerate(loads):
        src = underlying(d.pointer)
        for e in loads[k + 1:]:
            if src & underlying(e.pointer):
                union(d, e)
    for inst in insts:
        if isinstance(inst, I.Store) and inst.value.type.is_pointer:
            slot = underlying(inst.pointer)
            for d in loads:
                if slot & underlying(d.pointer):
                    for q in underlying(inst.value):
                        if q is not UNKNOWN:
                            union(q, d)
    members: dict[MemObject, set[MemObject]] = {}
    for o in list(parent):
        members.setdefault(find(o), set()).add(o)

    def objs(p: Value) -> frozenset[MemObject]:
        base = underlying(p)
        if not members:
            return base
        out = set(base)
        for o in base:
            out |= members.get(find(o), set())
        return frozenset(out)

    return objs


def _remembered(objs):
    """`objs`, each answer kept (the fixpoints below ask for the same pointers on every
    round; the function does not change while it is analyzed)."""
    memo: dict[int, tuple[Value, frozenset[MemObject]]] = {}

    def remembered(p: Value) -> frozenset[MemObject]:
        got = memo.get(id(p))
        if got is None:
            got = memo[id(p)] = (p, objs(p))  # (p kept alive: its id stays its own)
        return got[1]

    return remembered


def _reacher(insts: list[I.Instruction], objs):
    """`reach(p)`: the objects `p` may point into and all memory reachable from them through
    pointers stored there (as this function's loads name it): what a callee given `p` may
    read or write."""
    loads = [i for i in insts if isinstance(i, I.Load) and i.type.is_pointer]
    memo: dict[int, frozenset[MemObject]] = {}

    def reach(p: Value) -> frozenset[MemObject]:
        got = memo.get(id(p))
        if got is None:
            out = set(objs(p))
            changed = bool(loads)
            while changed:
                changed = False
                for d in loads:
                    if d not in out and underlying(d.pointer) & out:
                        out |= objs(d)
                        out.add(d)
                        changed = True
            got = memo[id(p)] = frozenset(out)
        return got

    return reach


def _shares_globals(dup_globals: frozenset[Value], inactive_calls):
    """`shares(inst)`: a call of a defined function that may read and write the globals
    shared with callees (which are varied and useful: treated as dup)."""
    from enzyme_py.analysis.globals import touches_globals

    memo: dict[int, bool] = {}

    def shares(inst: I.Instruction) -> bool:
        if not (dup_globals and isinstance(inst, I.Call) and
                isinstance(inst.callee, Function) and not inst.callee.is_declaration and
                inst.callee_name not in inactive_calls):
            return False
        got = memo.get(id(inst.callee))
        if got is None:
            got = memo[id(inst.callee)] = touches_globals(
                inst.callee, dup_globals)  # type: ignore[arg-type]
        return got
    return shares


def _varied(insts: list[I.Instruction], fn: Function, arg_activity: Sequence[Activity],
            dup_args: set[Argument], inactive_calls, objs, reach, shares) -> set[Value]:
    """Values (and memory objects) that depend on an active input; a fixpoint."""
    varied: set[Value] = {a for a, act in zip(fn.args, arg_activity, strict=True)
                          if act is Activity.OUT}
    varied |= dup_args  # as memory objects: their contents are active inputs
    changed = True
    while changed:
        changed = False
        for inst in insts:
            new: list[Value] = []
            if shares(inst) and carries_float(inst.type) and inst not in varied:
                new.append(inst)  # it may read the shared globals
            if isinstance(inst, I.Load):
                if (carries_float(inst.type) or inst.type.is_pointer) and \
                        _objects_varied(objs(inst.pointer), varied):
                    new.append(inst)  # a float value, or (pointer) the memory it leads to
            elif (store := stored(inst)) is not None:  # (a masked store too)
                v, ptr = store
                if v in varied or (v.type.is_pointer and
                                   _objects_varied(objs(v), varied)):
                    new.extend(o for o in objs(ptr) if o is not UNKNOWN)
            elif _mem_call_kind(inst) in ("memcpy", "memmove"):
                if _objects_varied(objs(inst.operands[1]), varied):
                    new.extend(o for o in objs(inst.operands[0]) if o is not UNKNOWN)
            elif isinstance(inst, I.Call) and inst.callee_name in inactive_calls:
                pass  # declared inactive: its result carries no derivative
            elif isinstance(inst, I.Call) and _writes_through_args(inst):
                # a defined callee (not inlined) may move active data between its arguments
                if any(a in varied or (a.type.is_pointer and _objects_varied(reach(a), varied))
                       for a in inst.args):
                    if carries_float(inst.type) or inst.type.is_pointer:
                        new.append(inst)  # (the memory it returns may hold active data)
                    written = written_arguments(inst.callee)  # type: ignore[arg-type]
                    for k, a in enumerate(inst.args):
                        if a.type.is_pointer and k in written:
                            new.extend(o for o in reach(a) if o is not UNKNOWN)
            elif isinstance(inst, I.Call) and (carries_float(inst.type) or
                                               is_heap_object(inst) or is_derived(inst)):
                # the callee may read active data through a pointer argument
                if any(a in varied or (a.type.is_pointer and _objects_varied(reach(a), varied))
                       for a in inst.args):
                    new.append(inst)
            elif carries_float(inst.type) and any(op in varied for op in inst.operands):
                new.append(inst)
            for v in new:
                if v not in varied:
                    varied.add(v)
                    changed = True
    return varied


def _writes_through_args(call: I.Call) -> bool:
    """A call to a function with a body, or with `known_writes`, that takes pointers (it may
    write through them: `written_arguments`)."""
    callee = call.callee
    return isinstance(callee, Function) and \
        (not callee.is_declaration or known_writes(callee.name) is not None) and \
        any(a.type.is_pointer for a in call.args)


def _objects_varied(objs: frozenset[MemObject], varied: set[Value]) -> bool:
    return any(o in varied for o in objs if o is not UNKNOWN)


def _useful(insts: list[I.Instruction], fn: Function, return_active: bool,
            dup_args: set[Argument], objs, reach, shares) -> set[Value]:
    """Values (and memory objects) that can influence an active output; a fixpoint."""
    useful: set[Value] = set(dup_args)
    if return_active:
        for inst in insts:
            if isinstance(inst, I.Ret) and inst.value is not None:
                useful.add(inst.value)
    changed = True
    while changed:
        changed = False
        for inst in reversed(insts):
            new: list[Value] = []
            if shares(inst) and inst not in useful:
                new.append(inst)  # it may write the shared globals
            if isinstance(inst, I.Call) and inst not in useful and is_derived(inst) and any(
                    a.type.is_pointer and _objects_varied(objs(a), useful) for a in inst.args):
                new.append(inst)  # memory reached through output memory is output too
            if isinstance(inst, I.Call) and _writes_through_args(inst) and inst not in useful:
                written = written_arguments(inst.callee)  # type: ignore[arg-type]
                if any(a.type.is_pointer and k in written and _objects_varied(reach(a), useful)
                       for k, a in enumerate(inst.args)):
                    new.append(inst)  # it writes into memory that matters
            if (store := stored(inst)) is not None:  # (a masked store too)
                v, ptr = store
                if _objects_varied(objs(ptr), useful):
                    new.append(v)
                    if v.type.is_pointer:  # what it points to is reachable output
                        new.extend(o for o in objs(v) if o is not UNKNOWN)
            elif isinstance(inst, I.Load) and inst.type.is_pointer:
                if _objects_varied(objs(inst.pointer), useful):
                    new.append(inst)  # memory reached through output memory is output too
                if inst in useful:
                    # the memory it leads to matters, so does the pointer kept here: that
                    # memory needs a shadow to hold the pointer's shadow
                    new.extend(o for o in objs(inst.pointer) if o is not UNKNOWN)
            elif _mem_call_kind(inst) in ("memcpy", "memmove"):
                if _objects_varied(objs(inst.operands[0]), useful):
                    new.extend(o for o in objs(inst.operands[1]) if o is not UNKNOWN)
            elif inst in useful:
                if isinstance(inst, I.Load):
                    new.extend(o for o in objs(inst.pointer) if o is not UNKNOWN)
                elif isinstance(inst, I.Call):
                    new.extend(a for a in inst.args if carries_float(a.type))
                    for a in inst.args:  # the callee may read its result from this memory
                        if a.type.is_pointer:
                            new.extend(o for o in reach(a) if o is not UNKNOWN)
                else:
                    new.extend(op for op in inst.operands if carries_float(op.type))
            for v in new:
                if v not in useful:
                    useful.add(v)
                    changed = True
    return useful


def _check_lost_derivatives(insts, varied, useful, shadowed) -> None:
    for inst in insts:
        store = stored(inst)
        if store is not None and store[0] in varied and carries_float(store[0].type):
            objs = underlying(store[1])
            lost = [o for o in objs if o not in shadowed and (o is UNKNOWN or o in useful)]
            if lost:
                if UNKNOWN in lost:
                    where = "memory that cannot be identified"
                elif any(isinstance(o, I.Load) for o in lost):
                    where = ("memory without a shadow (reached through a pointer loaded from "
                             "memory that has none)")
                else:
                    where = "memory without a shadow (a const argument or a global)"
                fn = inst.function
                raise AnalysisError(
                    f"in @{fn.name if fn else '?'}: `{inst}` stores an active value into "
                    f"{where}, which is read again on an active path; its derivative would "
                    "be lost. Pass that pointer as dup (enzyme_dup), or keep active data out "
                    "of it.")
