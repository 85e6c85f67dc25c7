"""The device policy: what changes when a derivative runs on a GPU, as one object the shared
core asks (never a switch on the mode or the target in the transforms).

- `kernel`: the function is a kernel (`ptx_kernel`), so its derivative is one too: the calling
  convention is kept, nothing is returned, and the adjoint of an active scalar argument is
  added, atomically, to the memory a pointer parameter (right after it) points to;
- `atomics`: many threads may add into one shadow, so every accumulation into memory other
  threads can reach is an `atomicrmw fadd` (into a thread's own allocas it is not);
- `synchronizes`: the function waits at barriers (or exchanges lanes), so memory that other
  threads write may change between two of its own instructions: the tape never re-reads it;
- `on_device`: there is no C library: tapes are per-thread stack arrays sized when the loop is
  entered, never `malloc`/`realloc`, and a cache that would have to grow is an error.

Invariants: the host policy (`HOST`) changes nothing, so host derivatives are what they were
before this policy existed; how an adjoint is added into memory under the policy is
`accumulation.py`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzyme_py.analysis.gpu import (
    KERNEL_CC,
    SPECIAL_REGISTER,
    is_kernel,
    on_device,
    synchronizes,
)
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.layout import alloc_size
from enzyme_py.ir.module import Block, Function, Module
from enzyme_py.ir.values import ConstantInt, Value


@dataclass(frozen=True)
class DevicePolicy:
    on_device: bool
    kernel: bool
    atomics: bool
    synchronizes: bool

    def prefix(self) -> list[str]:
        """The derivative's leading words: a kernel's is a kernel (`ptx_kernel`)."""
        return [KERNEL_CC] if self.kernel else []


BARRIER_ALL = "llvm.nvvm.barrier.cta.sync.aligned.all"
HOST = DevicePolicy(on_device=False, kernel=False, atomics=False, synchronizes=False)


def device_policy(module: Module, fn: Function, atomics: bool = True) -> DevicePolicy:
    """The policy for a derivative of `fn` in `module`; `atomics=False` is for tests that
    show what the atomics prevent (lost updates), never for real use."""
    if not on_device(module):
        return HOST
    return DevicePolicy(on_device=True, kernel=is_kernel(fn), atomics=atomics,
                        synchronizes=synchronizes(fn))


def atomic_add(b: Builder, ptr: Value, value: Value, align: int | None = None) -> None:
    """`atomicrmw fadd` of `value` (a float, or each lane of a float vector) at `ptr`;
    `monotonic`: the sum needs no ordering with other memory (barriers order the phases)."""
    t = value.type
    if isinstance(t, T.VectorType):
        for k in range(t.count):
            lane = b.extractelement(value, ConstantInt(T.I32, k))
            at = b.getelementptr(t.element, ptr, [ConstantInt(T.I64, k)])
            atomic_add(b, at, lane)
        return
    if not t.is_float:
        raise TypeError(f"atomic accumulation of {t} (a float or float vector is expected)")
    b.insert(I.AtomicRMW("fadd", t, ptr, value, "monotonic", align or alloc_size(t)))


def special_register(b: Builder, module: Module, reg: str) -> Value:
    """A read of `llvm.nvvm.read.ptx.sreg.<reg>` (`tid.x`, `ctaid.y` ...)."""
    fn = module.declare_function(SPECIAL_REGISTER + reg, T.FunctionType(T.I32, ()))
    return b.call(fn, [], name=reg.replace(".", "_"))


def barrier(b: Builder, module: Module) -> None:
    """`__syncthreads()`, as LLVM 22 spells it."""
    fn = module.declare_function(BARRIER_ALL, T.FunctionType(T.VOID, (T.I32,)))
    b.call(fn, [ConstantInt(T.I32, 0)])


def first_thread_block(module: Module, alloca: Block) -> Block:
    """A block that only the block's first thread, (0, 0, 0), runs at entry, after the alloca
    block and before a barrier every thread waits at; returns it (code goes before its
    branch). `alloca: br %first, first.thread, synced; first.thread: br synced; synced:
    barrier, br entry`."""
    fn = alloca.parent
    assert fn is not None
    term = alloca.instructions[-1]
    assert isinstance(term, I.Br) and not term.is_conditional
    entry = term.targets[0]
    at = Builder().position_before(term)
    ids = [special_register(at, module, f"tid.{a}") for a in "xyz"]
    first = at.icmp("eq", at.binop("or", at.binop("or", ids[0], ids[1]), ids[2]),
                    ConstantInt(T.I32, 0), name="first.thread")
    only = Block("first.thread", fn)
    synced = Block("first.thread.synced", fn)
    k = fn.blocks.index(alloca) + 1
    fn.blocks[k:k] = [only, synced]
    alloca.remove(term)
    Builder().position_at_end(alloca).condbr(first, only, synced)
    Builder().position_at_end(only).br(synced)
    b = Builder().position_at_end(synced)
    barrier(b, module)
    b.br(entry)
    return only
