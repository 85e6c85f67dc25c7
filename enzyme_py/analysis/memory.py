"""Memory objects behind pointers, and which may alias (what writes them: `memory_effects`).

Invariants: `underlying(p)` is the set of objects `p` may point into — arguments, allocas,
globals, allocation calls, and for a pointer loaded from memory the load itself ("derived"
memory: what that pointer leads to) — found through GEPs, casts, phis and selects; `UNKNOWN`
stands for memory we cannot name (returned by an unknown call, made from an integer), and
`EXTERNAL` for what a function the module does not define may write (it aliases like an
argument that is not `noalias`). Two objects may alias unless they are distinct
allocas/globals/allocations, or one is local (alloca, allocation) and the other an argument, a
global or `EXTERNAL`, or either is a `noalias` argument; derived memory may alias anything,
except the front end's error record (`enzyme_py.error.N`) when no code of the module takes its
address (it is only loaded and stored): no argument or loaded pointer can then lead there. This
is deliberately conservative: a wrong "cannot alias" would give a wrong gradient, a wrong "may
alias" only costs a cached value.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function, GlobalVariable, Module
from enzyme_py.ir.values import Argument, ConstantExpr, ConstantKeyword, GlobalValue, Value


class _Unknown:
    """Memory that cannot be named (`UNKNOWN`, `EXTERNAL`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


UNKNOWN = _Unknown("UNKNOWN")
# What code the module does not define may reach without being handed it: globals, the memory
# behind arguments that are not `noalias`, and everything reached through them. It is never
# a local (an alloca or an allocation) and never a `noalias` argument: a write set names those
# explicitly when their address escapes (`memory_effects.escaped_objects`).
EXTERNAL = _Unknown("EXTERNAL")
MemObject = Value | _Unknown


def is_unnamed(o: object) -> bool:
    """`o` stands for memory that cannot be named (`UNKNOWN` or `EXTERNAL`)."""
    return isinstance(o, _Unknown)

ALLOCATION_FUNCTIONS = frozenset({
    "malloc", "calloc", "realloc", "aligned_alloc", "_Znwm", "_Znam", "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t",
})
DEALLOCATION_FUNCTIONS = frozenset({
    "free", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZdlPvSt11align_val_t",
    "_ZdaPvSt11align_val_t", "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t",
})


def underlying(p: Value, _seen: set[Value] | None = None) -> frozenset[MemObject]:
    """The objects pointer `p` may point into."""
    seen = _seen if _seen is not None else set()
    if p in seen:
        return frozenset()
    seen.add(p)
    if isinstance(p, (Argument, I.Alloca, GlobalValue)):
        return frozenset({p})
    if isinstance(p, ConstantKeyword):  # null / undef / poison point nowhere
        return frozenset()
    if isinstance(p, I.GetElementPtr):
        return underlying(p.operands[0], seen)
    if isinstance(p, ConstantExpr) and p.opcode in ("getelementptr", "bitcast",
                                                    "addrspacecast"):
        return underlying(p.ops[0], seen)
    if isinstance(p, I.Cast) and p.opcode in ("bitcast", "addrspacecast"):
        return underlying(p.operands[0], seen)
    if isinstance(p, I.Phi):
        out: frozenset[MemObject] = frozenset()
        for v in p.operands:
            out |= underlying(v, seen)
        return out
    if isinstance(p, I.Select):
        return underlying(p.operands[1], seen) | underlying(p.operands[2], seen)
    if isinstance(p, I.Call) and p.callee_name in ALLOCATION_FUNCTIONS:
        return frozenset({p})
    if isinstance(p, I.Load) and p.type.is_pointer:
        return frozenset({p})  # the memory this loaded pointer leads to (a "derived" object)
    if isinstance(p, I.Call) and isinstance(p.callee, Function) and \
            not p.callee.is_declaration:
        return _call_result(p, seen)
    return frozenset({UNKNOWN})


def _call_result(call: I.Call, seen: set[Value]) -> frozenset[MemObject]:
    """What a pointer returned by a defined callee may point into, in the caller's terms: the
    objects behind the arguments it returns; the call itself for memory the callee allocated
    (fresh, like an allocation) or reached through a pointer it loaded (derived, like a
    load); globals as they are; anything else is UNKNOWN."""
    callee = call.callee
    assert isinstance(callee, Function)
    out: set[MemObject] = set()
    for o in returned_objects(callee):
        if isinstance(o, Argument) and o.parent is callee and o.index < len(call.args):
            out |= underlying(call.args[o.index], seen)
        elif o is FRESH or o is DERIVED:
            out.add(call)
        elif isinstance(o, GlobalValue):
            out.add(o)
        else:
            out.add(UNKNOWN)
    return frozenset(out)


class _Returned:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


FRESH = _Returned("FRESH")  # memory the function (or its callees) allocated
DERIVED = _Returned("DERIVED")  # memory reached through a pointer loaded from memory
# callee -> its summary so far, while its returns are being followed (recursion)
_RETURNING: dict[Function, frozenset] = {}


def returned_objects(fn: Function) -> frozenset[MemObject | _Returned]:
    """The objects a pointer returned by `fn` may point into, in `fn`'s terms (its arguments,
    globals, UNKNOWN), with FRESH for memory allocated by `fn` or its callees and DERIVED for
    memory behind a pointer loaded from memory. A recursion is followed to a fixpoint: while
    `fn` is being summarized, its own calls return the summary so far (starting empty)."""
    if fn.is_declaration:
        return frozenset({UNKNOWN})
    if fn in _RETURNING:
        return _RETURNING[fn]
    _RETURNING[fn] = frozenset()
    try:
        for _ in range(8):
            got = _returned_once(fn)
            if got == _RETURNING[fn]:
                return got
            _RETURNING[fn] = got
        return frozenset({UNKNOWN})  # (does not settle: give up, soundly)
    finally:
        del _RETURNING[fn]


def _returned_once(fn: Function) -> frozenset[MemObject | _Returned]:
    out: set[MemObject | _Returned] = set()
    for block in fn.blocks:
        ret = block.instructions[-1] if block.instructions else None
        if not isinstance(ret, I.Ret) or ret.value is None:
            continue
        for o in underlying(ret.value):
            if isinstance(o, I.Call):
                out.add(DERIVED if is_derived(o) else FRESH)
            elif isinstance(o, I.Load):
                out.add(DERIVED)
            elif isinstance(o, (Argument, GlobalValue)) or o is UNKNOWN:
                out.add(o)
            else:  # a stack slot: dangling once returned
                out.add(UNKNOWN)
    return frozenset(out)


def _defined_pointer_call(o: object) -> bool:
    return isinstance(o, I.Call) and o.type.is_pointer and \
        isinstance(o.callee, Function) and not o.callee.is_declaration and \
        o.callee_name not in ALLOCATION_FUNCTIONS


def is_derived_call(o: object) -> bool:
    """A call of a defined function returning a pointer it loaded from memory."""
    return _defined_pointer_call(o) and DERIVED in returned_objects(o.callee)  # type: ignore[union-attr]


def derived_sources(o: MemObject) -> frozenset[MemObject]:
    """Where the pointer to derived memory `o` was loaded from (for a call: somewhere behind
    its pointer arguments)."""
    if isinstance(o, I.Load):
        return underlying(o.pointer)
    out: frozenset[MemObject] = frozenset()
    assert isinstance(o, I.Call)
    for a in o.args:
        if a.type.is_pointer:
            out |= underlying(a)
    return out


def is_heap_object(o: object) -> bool:
    """An allocation call, or a call of a defined function returning memory it allocated."""
    if not isinstance(o, I.Call):
        return False
    if o.callee_name in ALLOCATION_FUNCTIONS:
        return True
    if not _defined_pointer_call(o):
        return False
    kinds = returned_objects(o.callee)  # type: ignore[arg-type]
    return FRESH in kinds and DERIVED not in kinds



def is_derived(o: MemObject) -> bool:
    """Memory reached through a pointer loaded from memory (here, or in a callee)."""
    return isinstance(o, I.Load) or (isinstance(o, I.Call) and is_derived_call(o))


def _is_local(o: MemObject) -> bool:
    return isinstance(o, (I.Alloca, I.Call))


def _noalias(o: MemObject) -> bool:
    return isinstance(o, Argument) and "noalias" in o.attrs


ERROR_RECORD = "enzyme_py.error."  # the front end's error record (`frontend/session.py`)
_NON_CAPTURING = ("llvm.memset.", "llvm.memcpy.", "llvm.memmove.", "llvm.lifetime.")
# per module, per record name: no code takes its address (weak: modules are not kept alive)
_record_private: WeakKeyDictionary[Module, dict[str, bool]] = WeakKeyDictionary()


def _private_record(o: MemObject) -> bool:
    """`o` is the front end's error record and nothing in its module takes its address."""
    if not (isinstance(o, GlobalVariable) and (o.name or "").startswith(ERROR_RECORD)) or \
            o.parent is None:
        return False
    known = _record_private.setdefault(o.parent, {})
    got = known.get(o.name or "")
    if got is None:
        got = known[o.name or ""] = not _address_taken(o)
    return got


def _address_taken(g: GlobalVariable) -> bool:
    """Any use of `g` other than as the address of a load or a store (of something else)."""
    module = g.parent
    assert module is not None
    if any(_mentions(other.initializer, g) for other in module.globals):
        return True
    for fn in module.functions:
        for inst in fn.instructions():
            for k, op in enumerate(inst.operands):
                if not _mentions(op, g):
                    continue
                if isinstance(inst, I.Load) or (isinstance(inst, I.Store) and k == 1):
                    continue
                if isinstance(inst, I.Call) and (inst.callee_name or "").startswith(
                        _NON_CAPTURING) and op is not inst.callee:
                    continue  # (memset of the record: written, not passed on)
                return True
    return False


def _mentions(v: object, g: GlobalVariable) -> bool:
    if v is g:
        return True
    if isinstance(v, ConstantExpr):
        return any(_mentions(o, g) for o in v.ops)
    elements = getattr(v, "elements", None)
    return bool(elements) and any(_mentions(e, g) for e in elements)


def may_alias_objects(a: MemObject, b: MemObject) -> bool:
    if a is b:
        return True
    if _private_record(a) or _private_record(b):
        return False
    if is_derived(a) or is_derived(b):
        return True  # a loaded pointer may lead anywhere, even to a local that escaped
    if a is UNKNOWN or b is UNKNOWN:
        return not (_is_local(a) or _is_local(b))
    if _is_local(a) or _is_local(b):
        return False  # distinct allocas/allocations never overlap; locals never alias args
    if _noalias(a) or _noalias(b):
        return False
    if isinstance(a, GlobalVariable) and isinstance(b, GlobalVariable):
        return False
    return True  # two arguments, or an argument and a global (EXTERNAL counts as an argument)


def may_alias(xs: frozenset[MemObject], ys: frozenset[MemObject]) -> bool:
    return any(may_alias_objects(x, y) for x in xs for y in ys)
