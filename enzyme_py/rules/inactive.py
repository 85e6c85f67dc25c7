"""Callees known to never carry derivatives: I/O, process control, timing, random numbers,
debug and optimizer hints, integer intrinsics, and C++ exception helpers.

Invariant: a name listed here is inactive whatever its arguments: neither its result nor any
memory it writes can hold a float that depends differentiably on its inputs. Allocation and
memory-moving functions (`malloc`, `free`, `memcpy` ...) are *not* inactive: the transforms
mirror them on shadow memory. Intrinsic overload suffixes are ignored (`llvm.smax.v4i32` is
`llvm.smax`). Functions with a derivative rule are never listed here.
"""

from __future__ import annotations

import re

from enzyme_py.rules.registry import intrinsic_base

INACTIVE_FUNCTIONS = frozenset({
    # output
    "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "puts", "putchar",
    "fputs", "fputc", "putc", "fflush", "fwrite", "perror",
    # strings
    "strlen", "strnlen", "strcmp", "strncmp", "memcmp", "bcmp",
    # process control
    "abort", "exit", "_exit", "__assert_fail", "__assert_rtn", "__stack_chk_fail",
    # random numbers and time
    "rand", "srand", "rand_r", "random", "srandom", "drand48", "srand48", "time", "clock",
    "clock_gettime", "gettimeofday",
    # heap queries (integer results); the runtime's advice on tape memory (contents unchanged)
    "malloc_usable_size", "enzyme_py.huge_pages",
    # libstdc++ hash tables: hashing bytes, bucket counts (integers; the policy's own state)
    "_ZSt11_Hash_bytesPKvmm", "_ZSt15_Fnv_hash_bytesPKvmm",
    "_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm",
    "_ZNKSt8__detail20_Prime_rehash_policy11_M_next_bktEm",
})

INACTIVE_INTRINSICS = frozenset({
    # hints and markers
    "llvm.assume", "llvm.lifetime.start", "llvm.lifetime.end", "llvm.expect",
    "llvm.expect.with.probability", "llvm.prefetch", "llvm.stacksave", "llvm.stackrestore",
    "llvm.experimental.noalias.scope.decl", "llvm.invariant.start", "llvm.invariant.end",
    "llvm.donothing", "llvm.sideeffect", "llvm.pseudoprobe", "llvm.var.annotation",
    "llvm.codeview.annotation", "llvm.allow.runtime.check", "llvm.allow.ubsan.check",
    "llvm.is.constant", "llvm.objectsize", "llvm.readcyclecounter", "llvm.eh.typeid.for",
    # traps
    "llvm.trap", "llvm.debugtrap", "llvm.ubsantrap",
    # float classification and float -> int rounding (integer results)
    "llvm.is.fpclass", "llvm.lround", "llvm.llround", "llvm.lrint", "llvm.llrint",
    "llvm.fptosi.sat", "llvm.fptoui.sat", "llvm.get.rounding",
    # integer arithmetic
    "llvm.umax", "llvm.umin", "llvm.smax", "llvm.smin", "llvm.abs", "llvm.scmp", "llvm.ucmp",
    "llvm.ctpop", "llvm.ctlz", "llvm.cttz", "llvm.bswap", "llvm.bitreverse", "llvm.fshl",
    "llvm.fshr",
    "llvm.sadd.with.overflow", "llvm.uadd.with.overflow", "llvm.ssub.with.overflow",
    "llvm.usub.with.overflow", "llvm.smul.with.overflow", "llvm.umul.with.overflow",
    "llvm.sadd.sat", "llvm.uadd.sat", "llvm.ssub.sat", "llvm.usub.sat", "llvm.sshl.sat",
    "llvm.ushl.sat",
    "llvm.vector.reduce.add", "llvm.vector.reduce.mul", "llvm.vector.reduce.and",
    "llvm.vector.reduce.or", "llvm.vector.reduce.xor", "llvm.vector.reduce.smax",
    "llvm.vector.reduce.smin", "llvm.vector.reduce.umax", "llvm.vector.reduce.umin",
})

# Whole families, by name prefix.
INACTIVE_PREFIXES = (
    "llvm.dbg.",  # debug info
    "llvm.nvvm.read.ptx.sreg.",  # where the thread runs in the GPU grid
    "__cxa_",  # C++ ABI: exceptions, guards, atexit
    "__gxx_personality",
    "_Unwind_",
)

# C++ standard library helpers that only throw or terminate (`std::__throw_length_error`), and
# character strings.
INACTIVE_PATTERNS = (
    re.compile(r"_ZSt\d+__throw_\w+"),
    re.compile(r"_ZSt9terminatev"),
    # std::string / std::wstring members (characters; constructed, moved, compared, freed)
    re.compile(r"_ZNK?St7__cxx1112basic_stringI([cw])St11char_traitsI\1ESaI\1EE\w+"),
)


def is_known_inactive(name: str) -> bool:
    """True when calls to `name` never carry derivatives.

    Example::

        >>> is_known_inactive("llvm.lifetime.start.p0"), is_known_inactive("sin")
        (True, False)
    """
    if name in INACTIVE_FUNCTIONS:
        return True
    base = intrinsic_base(name)
    if base in INACTIVE_INTRINSICS:
        return True
    if name.startswith(INACTIVE_PREFIXES):
        return True
    return any(p.fullmatch(name) for p in INACTIVE_PATTERNS)
