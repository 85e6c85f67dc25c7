"""Small IR helper functions the generated gradients call (tape growth, shadow copies).

Invariants: each helper is `internal` to the module that uses it, defined once (by name), and
written in plain LLVM IR so the optimizer can inline it. Names start with `enzyme_py.`.
"""

from __future__ import annotations

import math
import sys

from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.install import install_function
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.values import ConstantInt, Value

# Appends `bytes` (a multiple of 16) to the tape stream `*slot` (capacity `*cap`, `*used` bytes
# taken) and returns the offset of the new segment; the stream may move (realloc). Where the
# stream cannot grow (more than 2^64 bytes, or realloc fails) it returns -1, with `*used` the
# bytes it needed (saturated) and the stream as it was (`tape_checks.py` leaves on it).
_RESERVE = """
define internal i64 @enzyme_py.reserve(ptr %slot, ptr %cap, ptr %used, i64 %bytes) {
entry:
  %off = load i64, ptr %used, align 8
  %sum = call { i64, i1 } @llvm.uadd.with.overflow.i64(i64 %off, i64 %bytes)
  %wide = extractvalue { i64, i1 } %sum, 1
  %raw = extractvalue { i64, i1 } %sum, 0
  %end = select i1 %wide, i64 -1, i64 %raw
  store i64 %end, ptr %used, align 8
  %c = load i64, ptr %cap, align 8
  %full = icmp ugt i64 %end, %c
  br i1 %full, label %grow, label %done, !prof !0
grow:
  %twice = shl i64 %c, 1
  %big = icmp ugt i64 %twice, %end
  %newcap = select i1 %big, i64 %twice, i64 %end
  %old = load ptr, ptr %slot, align 8
  %new = call ptr @realloc(ptr %old, i64 %newcap)
  %failed = icmp eq ptr %new, null
  br i1 %failed, label %fail, label %grown, !prof !0
grown:
  store i64 %newcap, ptr %cap, align 8
  store ptr %new, ptr %slot, align 8
  br label %done
fail:
  ret i64 -1
done:
  ret i64 %off
}
declare ptr @realloc(ptr, i64)
declare { i64, i1 } @llvm.uadd.with.overflow.i64(i64, i64)
!0 = !{!"branch_weights", i32 1, i32 1000}
"""

# A tape array of rows of `size` bytes each at `*slot` (capacity `*cap` rows; null and 0 at
# first), grown (realloc, doubling, at least 4 rows) to hold row `needed`; 0, or the bytes it
# could not get (saturated at 2^64 - 1) with the array as it was (`tape_checks.py` leaves).
# Rows of 0 bytes (an inner nest that does not run) only count: realloc(p, 0) would free p.
_TAPE_GROW = """
define internal i64 @enzyme_py.tape_grow(ptr %slot, ptr %cap, i64 %needed, i64 %size) {
entry:
  %c = load i64, ptr %cap, align 8
  %full = icmp uge i64 %needed, %c
  br i1 %full, label %grow, label %done, !prof !0
grow:
  %twice = shl i64 %c, 1
  %more = add i64 %needed, 1
  %big = icmp ugt i64 %twice, %more
  %wanted = select i1 %big, i64 %twice, i64 %more
  %few = icmp ult i64 %wanted, 4
  %newcap = select i1 %few, i64 4, i64 %wanted
  %product = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %newcap, i64 %size)
  %wide = extractvalue { i64, i1 } %product, 1
  %raw = extractvalue { i64, i1 } %product, 0
  %bytes = select i1 %wide, i64 -1, i64 %raw
  %empty = icmp eq i64 %bytes, 0
  br i1 %empty, label %counted, label %more.memory
counted:
  store i64 %newcap, ptr %cap, align 8
  br label %done
more.memory:
  %old = load ptr, ptr %slot, align 8
  %new = call ptr @realloc(ptr %old, i64 %bytes)
  %failed = icmp eq ptr %new, null
  br i1 %failed, label %fail, label %grown, !prof !0
grown:
  store i64 %newcap, ptr %cap, align 8
  store ptr %new, ptr %slot, align 8
  br label %done
fail:
  ret i64 %bytes
done:
  ret i64 0
}
declare ptr @realloc(ptr, i64)
declare { i64, i1 } @llvm.umul.with.overflow.i64(i64, i64)
!0 = !{!"branch_weights", i32 1, i32 1000}
"""

# Tape memory (`malloc`), under its own name so that `tape_checks.py` finds each allocation.
_TAPE_ALLOC = """
define internal ptr @enzyme_py.tape_alloc(i64 %bytes) alwaysinline {
entry:
  %p = call ptr @malloc(i64 %bytes)
  ret ptr %p
}
declare ptr @malloc(i64)
"""

#: Tape frames of at least this many bytes ask Linux for huge pages (`_HUGE_PAGES`).
HUGE_TAPE_BYTES = 4 << 20
_HUGE_PAGE = 2 << 20  # (2 MiB on x86-64 and AArch64 with 4 KiB base pages)
_MADV_HUGEPAGE = 14  # (Linux, every architecture)

# On Linux, the whole 2 MiB pages of a large tape frame are advised MADV_HUGEPAGE before
# anything touches them. glibc serves such blocks with a fresh mapping on every call (above
# its mmap threshold, at most 32 MiB), which the forward sweep then faults in page by page:
# the C stencil2d gradient took 12,500 page faults a call, 38% of its time in the kernel.
# Where transparent huge pages are off, madvise fails or does nothing: the same memory. Kept
# out of line and listed inactive (`rules/inactive.py`): a gradient differentiated again
# (Hessians) replays it, where inlined, its madvise would be a call without a rule. Its
# attributes tell LLVM what it is: it neither keeps the pointer nor touches the memory.
_ADVICE = "noinline nounwind willreturn memory(inaccessiblemem: readwrite)"
_HUGE_PAGES = f"""
define internal void @enzyme_py.huge_pages(ptr captures(none) %p, i64 %bytes) {_ADVICE} {{
entry:
  %big = icmp uge i64 %bytes, {HUGE_TAPE_BYTES}
  br i1 %big, label %pages, label %done
pages:
  %at = ptrtoint ptr %p to i64
  %up = add i64 %at, {_HUGE_PAGE - 1}
  %first = and i64 %up, -{_HUGE_PAGE}
  %past = add i64 %at, %bytes
  %end = and i64 %past, -{_HUGE_PAGE}
  %any = icmp ugt i64 %end, %first
  br i1 %any, label %huge, label %done
huge:
  %skip = sub i64 %first, %at
  %start = getelementptr i8, ptr %p, i64 %skip
  %length = sub i64 %end, %first
  %ignored = call i32 @madvise(ptr %start, i64 %length, i32 {_MADV_HUGEPAGE})
  br label %done
done:
  ret void
}}
declare i32 @madvise(ptr, i64, i32)
"""

#: What `enzyme_py.bytes_mul` saturates at: 256 TiB, more than any process can allocate (user
#: address space is 128 TiB on x86-64 and AArch64 Linux unless asked for more), and small
#: enough that adding up to 2^14 such counts cannot overflow 64 bits.
BYTES_CAP = 2 ** 48

# `a * b` for byte counts, saturated at BYTES_CAP; a negative factor counts as 0 (the trip
# count of a loop that does not run, `range(n - d)` with n < d: it needs no rows).
_BYTES_MUL = f"""
define internal i64 @enzyme_py.bytes_mul(i64 %a.signed, i64 %b.signed) alwaysinline {{
entry:
  %a = call i64 @llvm.smax.i64(i64 %a.signed, i64 0)
  %b = call i64 @llvm.smax.i64(i64 %b.signed, i64 0)
  %product = call {{ i64, i1 }} @llvm.umul.with.overflow.i64(i64 %a, i64 %b)
  %wide = extractvalue {{ i64, i1 }} %product, 1
  %raw = extractvalue {{ i64, i1 }} %product, 0
  %over = icmp ugt i64 %raw, {BYTES_CAP}
  %cap = or i1 %wide, %over
  %out = select i1 %cap, i64 {BYTES_CAP}, i64 %raw
  ret i64 %out
}}
declare {{ i64, i1 }} @llvm.umul.with.overflow.i64(i64, i64)
declare i64 @llvm.smax.i64(i64, i64)
"""

# Where no caller reads an error record (C through Enzyme's ABI, a callee's gradient): a
# message on stderr, then abort(), as C code does when memory runs out. (The message is built
# on the stack: a helper brings no globals with it.)
_TAPE_MESSAGE = b"enzyme_py: the gradient's tape needs more memory than could be allocated\n"


def _tape_failed_text() -> str:
    words = (_TAPE_MESSAGE + bytes(-len(_TAPE_MESSAGE) % 8))
    stores = "\n".join(
        f"  %at{k} = getelementptr inbounds i64, ptr %text, i64 {k}\n"
        f"  store i64 {int.from_bytes(words[8 * k:8 * k + 8], 'little')}, ptr %at{k}, align 8"
        for k in range(len(words) // 8))
    return f"""
define internal void @enzyme_py.tape_failed(i64 %bytes) noreturn cold noinline {{
entry:
  %text = alloca [{len(words)} x i8], align 8
{stores}
  %w = call i64 @write(i32 2, ptr %text, i64 {len(_TAPE_MESSAGE)})
  call void @abort()
  unreachable
}}
declare i64 @write(i32, ptr, i64)
declare void @abort() noreturn
"""

# `src[i] += dst[i]; dst[i] = 0` over `n` bytes of T: the adjoint of memcpy(dst, src, n).
_COPY_ADJOINT = """
define internal void @enzyme_py.copy_adjoint.{suffix}(ptr %dst, ptr %src, i64 %bytes) {{
entry:
  %n = udiv i64 %bytes, {size}
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %pd = getelementptr inbounds {ty}, ptr %dst, i64 %i
  %ps = getelementptr inbounds {ty}, ptr %src, i64 %i
  %d = load {ty}, ptr %pd, align {size}
  %s = load {ty}, ptr %ps, align {size}
  %sum = fadd {ty} %s, %d
  store {ty} 0.000000e+00, ptr %pd, align {size}
  store {ty} %sum, ptr %ps, align {size}
  %i.next = add nuw i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}}
"""

# The adjoint of memmove (regions may overlap): read the whole destination adjoint first.
_MOVE_ADJOINT = """
define internal void @enzyme_py.move_adjoint.{suffix}(ptr %dst, ptr %src, i64 %bytes) {{
entry:
  %tmp = call ptr @malloc(i64 %bytes)
  call void @llvm.memcpy.p0.p0.i64(ptr %tmp, ptr %dst, i64 %bytes, i1 false)
  call void @llvm.memset.p0.i64(ptr %dst, i8 0, i64 %bytes, i1 false)
  %n = udiv i64 %bytes, {size}
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %pt = getelementptr inbounds {ty}, ptr %tmp, i64 %i
  %ps = getelementptr inbounds {ty}, ptr %src, i64 %i
  %d = load {ty}, ptr %pt, align {size}
  %s = load {ty}, ptr %ps, align {size}
  %sum = fadd {ty} %s, %d
  store {ty} %sum, ptr %ps, align {size}
  %i.next = add nuw i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %done
done:
  call void @free(ptr %tmp)
  ret void
}}
declare ptr @malloc(i64)
declare void @free(ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
"""

_FLOAT_SUFFIX = {"double": ("f64", 8), "float": ("f32", 4), "half": ("f16", 2)}


# Frees of memory not provably allocated in the function: the pointer is appended to a list
# (grown by realloc, `enzyme_py.tape_grow`; its failure is not checked: the list holds one
# pointer per free) in the forward sweep, and everything listed is freed when the reverse
# sweep ends, when nothing can read the memory any more.
_DEFER_FREE = """
define internal void @enzyme_py.defer_free(ptr %list, ptr %cap, ptr %count, ptr %p) {
entry:
  %n = load i64, ptr %count, align 8
  %grown = call i64 @enzyme_py.tape_grow(ptr %list, ptr %cap, i64 %n, i64 8)
  %base = load ptr, ptr %list, align 8
  %at = getelementptr inbounds ptr, ptr %base, i64 %n
  store ptr %p, ptr %at, align 8
  %n1 = add i64 %n, 1
  store i64 %n1, ptr %count, align 8
  ret void
}
declare i64 @enzyme_py.tape_grow(ptr, ptr, i64, i64)
"""

# In canonical loop form (preheader, dedicated exit): a nested `__enzyme_autodiff` may
# differentiate a gradient that calls it.
_FREE_DEFERRED = """
define internal void @enzyme_py.free_deferred(ptr %list, ptr %count) {
entry:
  %n = load i64, ptr %count, align 8
  %base = load ptr, ptr %list, align 8
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %done, label %preheader
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i.next, %loop ]
  %at = getelementptr inbounds ptr, ptr %base, i64 %i
  %p = load ptr, ptr %at, align 8
  call void @free(ptr %p)
  %i.next = add nuw i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  br label %done
done:
  call void @free(ptr %base)
  ret void
}
declare void @free(ptr)
"""


# Binomial checkpointing (`checkpoint.py`): how many steps of `l` to run before keeping the
# next state when `s` more states can be kept. L(s, r) = C(s + r + 1, s + 1) steps can be
# reversed with s free states and at most r runs of each step; for the least r with
# L(s, r) >= l, the steps after the kept state are at most L(s - 1, r) (reversed with one
# state less), the ones before it at most L(s, r - 1). Without a free state: l - 1.
_REVOLVE_SPLIT = """
define internal i64 @enzyme_py.revolve_split(i64 %l, i64 %s) {
entry:
  %none = icmp eq i64 %s, 0
  br i1 %none, label %last, label %grow
last:
  %all = sub i64 %l, 1
  ret i64 %all
grow:
  %r = phi i64 [ 0, %entry ], [ %r.next, %more ]
  %c = phi i64 [ 1, %entry ], [ %c.next, %more ]
  %enough = icmp sge i64 %c, %l
  br i1 %enough, label %found, label %more
more:
  %r.next = add i64 %r, 1
  %n = add i64 %s, %r
  %n2 = add i64 %n, 2
  %p = mul i64 %c, %n2
  %c.next = udiv i64 %p, %r.next
  br label %grow
found:
  %s1 = add i64 %s, 1
  %q = mul i64 %c, %s1
  %d = add i64 %s1, %r
  %right = udiv i64 %q, %d
  %ahead = sub i64 %l, %right
  %few = icmp slt i64 %ahead, 1
  %got = select i1 %few, i64 1, i64 %ahead
  ret i64 %got
}
"""

# How many states a checkpointed loop of `n` steps keeps, each `bytes` long (and 16 bytes of
# its schedule's frame): `fixed` when given, else what `budget` bytes hold besides the copy
# of the final state, else about sqrt(n); at least 1 (the start), at most n.
_CHECKPOINT_SNAPSHOTS = """
define internal i64 @enzyme_py.checkpoint_snapshots(i64 %n, i64 %bytes, i64 %fixed,
                                                    i64 %budget) {
entry:
  %is.fixed = icmp sgt i64 %fixed, 0
  br i1 %is.fixed, label %clamp, label %free
free:
  %has.budget = icmp sgt i64 %budget, 0
  br i1 %has.budget, label %by.budget, label %by.sqrt
by.budget:
  %each = add i64 %bytes, 16
  %fit = udiv i64 %budget, %each
  %fit1 = sub i64 %fit, 1
  br label %clamp
by.sqrt:
  %nf = uitofp i64 %n to double
  %root = call double @llvm.sqrt.f64(double %nf)
  %ri = fptoui double %root to i64
  %ri1 = add i64 %ri, 1
  br label %clamp
clamp:
  %k = phi i64 [ %fixed, %entry ], [ %fit1, %by.budget ], [ %ri1, %by.sqrt ]
  %low = icmp slt i64 %k, 1
  %k1 = select i1 %low, i64 1, i64 %k
  %high = icmp sgt i64 %k1, %n
  %k2 = select i1 %high, i64 %n, i64 %k1
  ret i64 %k2
}
declare double @llvm.sqrt.f64(double)
"""


def revolve_split_function(module: Module) -> Function:
    return _install(module, "enzyme_py.revolve_split", _REVOLVE_SPLIT)


def checkpoint_snapshots_function(module: Module) -> Function:
    return _install(module, "enzyme_py.checkpoint_snapshots", _CHECKPOINT_SNAPSHOTS)


def defer_free_function(module: Module) -> Function:
    tape_grow_function(module)
    return _install(module, "enzyme_py.defer_free", _DEFER_FREE)


def free_deferred_function(module: Module) -> Function:
    return _install(module, "enzyme_py.free_deferred", _FREE_DEFERRED)


def _install(module: Module, name: str, text: str) -> Function:
    return install_function(module, name, text, "enzyme_py runtime")


def reserve_function(module: Module) -> Function:
    return _install(module, "enzyme_py.reserve", _RESERVE)


def tape_grow_function(module: Module) -> Function:
    return _install(module, "enzyme_py.tape_grow", _TAPE_GROW)


def tape_alloc_function(module: Module) -> Function:
    return _install(module, "enzyme_py.tape_alloc", _TAPE_ALLOC)


def huge_pages_function(module: Module) -> Function | None:
    """`enzyme_py.huge_pages(p, bytes)`, for a module that runs on a Linux CPU (its triple's;
    without one, this process's platform); None elsewhere."""
    triple = module.triple
    linux = sys.platform.startswith("linux") if triple is None else \
        "linux" in triple and not triple.startswith(("nvptx", "amdgcn", "spir"))
    return _install(module, "enzyme_py.huge_pages", _HUGE_PAGES) if linux else None


def bytes_mul_function(module: Module) -> Function:
    return _install(module, "enzyme_py.bytes_mul", _BYTES_MUL)


def bytes_product(b: Builder, module: Module, factors: list[Value],
                  name: str | None = None) -> Value:
    """The product of byte-count `factors`, saturated at `BYTES_CAP` (which no allocation
    gets: `tape_checks` then leaves instead of writing past a wrapped size); constant factors
    fold as `bytes_mul` computes them."""
    if all(isinstance(f, ConstantInt) for f in factors):
        product = math.prod(max(f.value, 0) for f in factors if isinstance(f, ConstantInt))
        return ConstantInt(T.I64, min(product, BYTES_CAP))
    mul = bytes_mul_function(module)
    out = factors[0]
    for f in factors[1:]:
        out = b.call(mul, [out, f], name=name)
    return out


def tape_failed_function(module: Module) -> Function:
    return _install(module, "enzyme_py.tape_failed", _tape_failed_text())


def copy_adjoint_function(module: Module, float_type: str) -> Function:
    suffix, size = _FLOAT_SUFFIX[float_type]
    text = _COPY_ADJOINT.format(suffix=suffix, size=size, ty=float_type)
    return _install(module, f"enzyme_py.copy_adjoint.{suffix}", text)


def move_adjoint_function(module: Module, float_type: str) -> Function:
    suffix, size = _FLOAT_SUFFIX[float_type]
    text = _MOVE_ADJOINT.format(suffix=suffix, size=size, ty=float_type)
    return _install(module, f"enzyme_py.move_adjoint.{suffix}", text)
