"""What a GPU kernel's IR says about threads: which functions are kernels, which calls read the
thread's place in the grid, synchronize the threads or exchange values between lanes, which
memory is private to a thread, and which addresses are provably distinct per thread.

Invariants: names are LLVM 22's NVPTX spellings (`llvm.nvvm.barrier0` is auto-upgraded by the
parser LLVM uses, and we accept it too); every answer errs toward "shared" and "not
injective" (a wrong "private" or "injective" would drop an atomic and lose updates). Nothing
here changes the IR. A leaf of `analysis/`: the transforms and the simulated grid read the same
tables.
"""

from __future__ import annotations

import re

from enzyme_py.analysis.call_graph import called_functions
from enzyme_py.analysis.memory import may_alias, underlying
from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function, GlobalVariable, Module
from enzyme_py.ir.values import Argument, Value

KERNEL_CC = "ptx_kernel"
DEVICE_TRIPLES = ("nvptx", "nvptx64")
SPECIAL_REGISTER = "llvm.nvvm.read.ptx.sreg."
# every thread of the block waits (the counted and arrive-only forms are not barriers for all)
BARRIER = re.compile(r"llvm\.nvvm\.barrier(0|\.cta\.sync(\.aligned)?\.all|\.sync|\.cta\.sync)$")
SHUFFLE = re.compile(r"llvm\.nvvm\.shfl\.sync\.(down|up|bfly|idx)\.(i32|f32)$")
SHARED_ADDRSPACE = 3
LOCAL_ADDRSPACE = 5
WARP_SIZE = 32


def on_device(module: Module) -> bool:
    """`module` is GPU code (an NVPTX target triple)."""
    return (module.triple or "").split("-")[0] in DEVICE_TRIPLES


def is_kernel(fn: Function) -> bool:
    """`fn` is a kernel entry point: the `ptx_kernel` calling convention, or (IR of front ends
    before LLVM 20) an `!nvvm.annotations` entry `!{ptr @fn, !"kernel", i32 1}`."""
    if KERNEL_CC in fn.prefix or KERNEL_CC in fn.ret_attrs:
        return True
    module = fn.parent
    return module is not None and (fn.name or "") in annotated_kernels(module)


_NAMED = re.compile(r"^!nvvm\.annotations\s*=\s*!\{(.*)\}")
_KERNEL_NODE = re.compile(r'^(![\w.]+)\s*=\s*(?:distinct\s+)?!\{\s*ptr\s+@("?)([^",\s]+)\2\s*,'
                          r'\s*!"kernel"\s*,\s*i32\s+1\s*\}')


def annotated_kernels(module: Module) -> set[str]:
    """Names the module's `!nvvm.annotations` marks as kernels."""
    listed: set[str] = set()
    for line in module.named_metadata:
        m = _NAMED.match(line)
        if m:
            listed |= {n.strip() for n in m.group(1).split(",")}
    out = set()
    for line in module.metadata:
        m = _KERNEL_NODE.match(line)
        if m and m.group(1) in listed:
            out.add(m.group(3))
    return out


def is_barrier(name: str) -> bool:
    return bool(BARRIER.match(name))


def is_special_register(name: str) -> bool:
    """A read of the thread's place in the grid (`tid`, `ctaid`, `ntid`, `laneid` ...): pure,
    the same wherever the thread reads it."""
    return name.startswith(SPECIAL_REGISTER)


def synchronizes(fn: Function) -> bool:
    """`fn` (or a function it calls) waits at a barrier or exchanges lanes: writes of other
    threads can become visible to it between two of its own instructions."""
    return any(isinstance(inst, I.Call) and (is_barrier(inst.callee_name or "") or
                                             SHUFFLE.match(inst.callee_name or ""))
               for f in called_functions(fn) for inst in f.instructions())


def thread_private(p: Value) -> bool:
    """Every object `p` may point into is a stack slot of this thread (an alloca); other
    threads cannot reach it."""
    objs = underlying(p)
    return bool(objs) and all(isinstance(o, I.Alloca) for o in objs)


def in_shared_memory(g: object) -> bool:
    """`g` is a global in the block's shared memory (`addrspace(3)`)."""
    return isinstance(g, GlobalVariable) and getattr(g.type, "addrspace", 0) == SHARED_ADDRSPACE


def shared_object(o: object) -> bool:
    """Memory other threads of the block or grid may read or write: anything but an alloca."""
    return not isinstance(o, I.Alloca)


# --- addresses distinct per thread ------------------------------------------------------------

_GLOBAL_X = ("ctaid.x", "ntid.x", "tid.x")


def _sreg(v: Value) -> str | None:
    if isinstance(v, I.Call) and is_special_register(v.callee_name or "") and not v.args:
        return (v.callee_name or "")[len(SPECIAL_REGISTER):]
    return None


def _strip_ext(v: Value) -> Value:
    while isinstance(v, I.Cast) and v.opcode in ("zext", "sext"):
        v = v.operands[0]
    return v


def is_global_thread_index(v: Value) -> bool:
    """`v` is `ctaid.x * ntid.x + tid.x` computed without wrapping (`nuw` on both), possibly
    extended: distinct for distinct threads of a grid whose blocks and grid are 1-D (the
    y and z extents are 1; the caller checks that at run time)."""
    v = _strip_ext(v)
    if not (isinstance(v, I.BinaryOp) and v.opcode == "add" and "nuw" in v.flags):
        return False
    for prod, tid in (v.operands, v.operands[::-1]):
        if _sreg(tid) != "tid.x":
            continue
        if isinstance(prod, I.BinaryOp) and prod.opcode == "mul" and "nuw" in prod.flags and \
                sorted(_sreg(o) or "" for o in prod.operands) == ["ctaid.x", "ntid.x"]:
            return True
    return False


def indexed_by_thread(p: Value) -> Value | None:
    """The base pointer when `p` is `getelementptr T, base, gid` with `gid` the global thread
    index (`is_global_thread_index`) and `base` not changing between threads (an argument or
    a global): each thread then reaches a distinct element. None otherwise."""
    if not (isinstance(p, I.GetElementPtr) and len(p.operands) == 2):
        return None
    base, index = p.operands
    if isinstance(base, (Argument, GlobalVariable)) and is_global_thread_index(index):
        return base
    return None


def _accessed_pointer(inst: I.Instruction) -> list[Value]:
    """The pointers `inst` reads or writes memory through (a call: every pointer argument)."""
    if isinstance(inst, (I.Load, I.Store)):
        return [inst.pointer]
    if isinstance(inst, (I.AtomicRMW, I.CmpXchg)):
        return [inst.operands[0]]
    if isinstance(inst, I.Call):
        return [a for a in inst.args if a.type.scalar.is_pointer]
    return []


def thread_owned(insts: list[I.Instruction]) -> frozenset[Value]:
    """The base pointers whose memory each thread touches only at its own element: every
    access (in `insts`, a kernel's instructions) to memory that may alias the base is a load,
    store or atomic at `base[gid]` (`indexed_by_thread`) with the element type of every other
    such access. Under a 1-D launch no two threads then touch one element of that memory, nor
    of its shadow (shadows alias as their primals do), so an adjoint added there needs no
    atomic. A call that may reach the memory, or any other address, disqualifies the base."""
    accesses: list[tuple[I.Instruction, Value]] = [
        (inst, p) for inst in insts for p in _accessed_pointer(inst)]
    candidates: dict[Value, set] = {}
    for inst, p in accesses:
        base = indexed_by_thread(p)
        if base is not None and isinstance(inst, (I.Load, I.Store, I.AtomicRMW)):
            assert isinstance(p, I.GetElementPtr)
            candidates.setdefault(base, set()).add((str(p.source_type), _access_type(inst)))
    owned = set()
    for base, shapes in candidates.items():
        if len(shapes) != 1:
            continue
        objs = frozenset({base})
        ok = True
        for inst, p in accesses:
            if not may_alias(objs, underlying(p)):
                continue
            if isinstance(inst, I.Call) or indexed_by_thread(p) is None:
                ok = False
                break
            assert isinstance(p, I.GetElementPtr)
            if (str(p.source_type), _access_type(inst)) not in shapes:
                ok = False
                break
        if ok:
            owned.add(base)
    return frozenset(owned)


def _access_type(inst: I.Instruction) -> str:
    if isinstance(inst, I.Load):
        return str(inst.type)
    if isinstance(inst, I.Store):
        return str(inst.value.type)
    return str(inst.operands[1].type)
