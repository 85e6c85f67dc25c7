"""A simulated GPU grid: NVPTX kernels run on the CPU, for tests without a GPU.

    grid = SimulatedGrid(ptx_ll_text, "saxpy")
    grid.run((n, 2.0, x, y), grid=(4,), block=(64,))        # y is written, as on the device

Two ways to run (`grid.py` lowers with `grid_lowering.py`):

- **serial**: one CPU function, `@grid.serial.<kernel>(params..., i32 gx, gy, gz, bx, by, bz)`,
  loops over every block and thread (x fastest) and calls the lowered kernel; it is an ordinary
  function of the package's IR (`serial_module()`), so it can itself be compiled, timed or
  differentiated. Kernels with barriers or shuffles are refused (they would deadlock);
- **threaded**: one OS thread per GPU thread, a block at a time: every thread of a block runs
  at once, so barriers, shuffles, real atomics and real races behave as on a device (blocks
  are serialized, as a GPU may schedule them; shared memory is one instance reused per block).

Invariants: arrays are passed by pointer and written in place (C-contiguous and writeable, or
an `ArgumentValueError`); scalars are converted to the parameter's type; no thread outlives
`run`; a kernel that needs threads never runs serially.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from enzyme_py import backend
from enzyme_py.errors import ArgumentValueError
from enzyme_py.ir import parse
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.values import ConstantInt, zero
from enzyme_py.testing.grid_lowering import (
    BARRIER_OFFSET,
    EXCHANGE_OFFSET,
    GRID_BYTES,
    GRID_FIELDS,
    GridError,
    LoweredKernel,
    lower_kernel,
)

__all__ = ["GridError", "SimulatedGrid"]

_CTYPES = {"i32": ctypes.c_int32, "i64": ctypes.c_int64, "float": ctypes.c_float,
           "double": ctypes.c_double, "ptr": ctypes.c_void_p}
_BARRIER_BYTES = 128  # >= sizeof(pthread_barrier_t) on every glibc target
_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.pthread_barrier_init.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint)
_libc.pthread_barrier_destroy.argtypes = (ctypes.c_void_p,)


def _dims(d: Sequence[int] | int) -> tuple[int, int, int]:
    dims = (d,) if isinstance(d, int) else tuple(d)
    if not 1 <= len(dims) <= 3 or any(not isinstance(v, int) or v < 1 for v in dims):
        raise ArgumentValueError(f"grid and block sizes are 1 to 3 positive ints, not {d!r}")
    return (*dims, 1, 1)[:3]  # type: ignore[return-value]


class SimulatedGrid:
    """One kernel of an NVPTX module (clang-22 `-x cuda --cuda-device-only` output), lowered
    for the CPU (see the module docstring)."""

    def __init__(self, source: str | Module, kernel: str) -> None:
        self.lowered: LoweredKernel = lower_kernel(source, kernel)
        self.name = kernel
        self._native: dict[str, Any] = {}

    @property
    def needs_threads(self) -> bool:
        return self.lowered.needs_threads

    def serial_module(self) -> Module:
        """The lowered module with the serial loop `@grid.serial.<kernel>` added (a copy)."""
        module = parse(str(self.lowered.module))
        _add_serial_loop(module, module.get_function(self.name), self.lowered.params)
        return module

    def run(self, args: Sequence[Any], grid: Sequence[int] | int = 1,
            block: Sequence[int] | int = 1, threaded: bool | None = None) -> None:
        """Run the kernel on `grid` x `block` threads (threaded when it needs threads, or
        when asked)."""
        g, b = _dims(grid), _dims(block)
        threaded = self.needs_threads if threaded is None else threaded
        if self.needs_threads and not threaded:
            raise GridError(f"@{self.name} synchronizes threads (barriers or shuffles); it "
                            "runs only on the threaded grid")
        if len(args) != len(self.lowered.params):
            raise ArgumentValueError(f"@{self.name} takes {len(self.lowered.params)} "
                                     f"arguments, not {len(args)}")
        cargs = [self._convert(k, t, a) for k, (t, a) in
                 enumerate(zip(self.lowered.params, args, strict=True))]
        if threaded:
            self._run_threaded(cargs, g, b)
        else:
            fn = self._function("serial")
            fn(*cargs, *g, *b)

    # --- native code ---------------------------------------------------------------------

    def _function(self, which: str) -> Any:
        got = self._native.get(which)
        if got is None:
            if which == "serial":
                module, name = self.serial_module(), f"grid.serial.{self.name}"
                extra = [ctypes.c_int32] * 6
            else:
                module, name, extra = self.lowered.module, self.name, [ctypes.c_void_p]
            jm = backend.compile_ir(str(module))
            types = [_CTYPES[str(t)] for t in self.lowered.params] + extra
            cfunc = ctypes.CFUNCTYPE(None, *types)(jm.address(name))
            got = self._native[which] = (cfunc, jm)  # (jm keeps the code alive)
        return got[0]

    def _convert(self, k: int, t: T.Type, a: Any) -> Any:
        kind = str(t)
        if kind not in _CTYPES:
            raise ArgumentValueError(f"@{self.name}: parameter {k} has type {kind}, which the "
                                     "simulated grid cannot pass")
        if kind == "ptr":
            if not isinstance(a, np.ndarray):
                raise ArgumentValueError(f"@{self.name}: argument {k} must be a numpy array")
            if not (a.flags.c_contiguous and a.flags.writeable):
                raise ArgumentValueError(f"@{self.name}: argument {k} must be a C-contiguous, "
                                         "writeable array (device memory is written in place)")
            return a.ctypes.data
        return _CTYPES[kind](a).value

    def _run_threaded(self, cargs: list[Any], grid: tuple[int, int, int],
                      block: tuple[int, int, int]) -> None:
        fn = self._function("threaded")
        per_block = block[0] * block[1] * block[2]
        barrier = np.zeros(_BARRIER_BYTES, np.uint8)
        exchange = np.zeros(per_block, np.int64)
        for bz in range(grid[2]):
            for by in range(grid[1]):
                for bx in range(grid[0]):
                    if _libc.pthread_barrier_init(barrier.ctypes.data, None, per_block):
                        raise GridError(f"pthread_barrier_init failed for {per_block} threads")
                    try:
                        records = [_record((tx, ty, tz), block, (bx, by, bz), grid, barrier,
                                           exchange)
                                   for tz in range(block[2]) for ty in range(block[1])
                                   for tx in range(block[0])]
                        threads = [threading.Thread(target=fn, args=(*cargs, r.ctypes.data))
                                   for r in records]
                        _start(threads)
                        for th in threads:
                            th.join()
                    finally:
                        _libc.pthread_barrier_destroy(barrier.ctypes.data)


THREAD_STACK = 16 << 20  # a GPU thread's tape lives on its stack (derivative kernels)


def _start(threads: list[threading.Thread]) -> None:
    """Start the GPU threads with stacks as large as a derivative kernel's tape may need."""
    old = threading.stack_size()
    threading.stack_size(max(old, THREAD_STACK))
    try:
        for th in threads:
            th.start()
    finally:
        threading.stack_size(old)


def _record(tid: tuple[int, int, int], ntid: tuple[int, int, int],
            ctaid: tuple[int, int, int], nctaid: tuple[int, int, int],
            barrier: np.ndarray, exchange: np.ndarray) -> np.ndarray:
    rec = np.zeros(GRID_BYTES, np.uint8)
    rec[:48].view(np.int32)[:] = [*tid, *ntid, *ctaid, *nctaid]
    rec[BARRIER_OFFSET:BARRIER_OFFSET + 8].view(np.uint64)[0] = barrier.ctypes.data
    rec[EXCHANGE_OFFSET:EXCHANGE_OFFSET + 8].view(np.uint64)[0] = exchange.ctypes.data
    return rec


def _add_serial_loop(module: Module, kernel: Function, params: tuple[T.Type, ...]) -> Function:
    """`@grid.serial.<kernel>(params..., i32 gx, gy, gz, bx, by, bz)`: every thread of every
    block in turn (see the module docstring)."""
    i32, i64 = T.I32, T.I64
    names = [*(f"p{k}" for k in range(len(params))), "gx", "gy", "gz", "bx", "by", "bz"]
    fn = Function(f"grid.serial.{kernel.name}", T.FunctionType(T.VOID, (*params, *[i32] * 6)),
                  names)
    module.add_function(fn)
    entry, head, body, done = (fn.append_block(n) for n in ("entry", "loop", "body", "exit"))
    b = Builder().position_at_end(entry)
    rec = b.alloca(T.ArrayType(GRID_BYTES, T.I8), align=8, name="grid")
    *kargs, gx, gy, gz, bx, by, bz = fn.args

    def put(field: str, v: Any) -> None:
        slot = b.getelementptr(i32, rec, [ConstantInt(i64, GRID_FIELDS.index(field))])
        b.store(v, slot, 4)

    for field, v in zip(("ntid.x", "ntid.y", "ntid.z", "nctaid.x", "nctaid.y", "nctaid.z"),
                        (bx, by, bz, gx, gy, gz), strict=True):
        put(field, v)
    for offset in (BARRIER_OFFSET, EXCHANGE_OFFSET):
        b.store(zero(T.PTR), b.getelementptr(T.I8, rec, [ConstantInt(i64, offset)]), 8)
    wide = [b.zext(v, i64) for v in (bx, by, bz, gx, gy, gz)]
    per_block = b.mul(b.mul(wide[0], wide[1]), wide[2], name="per.block")
    total = b.mul(per_block, b.mul(b.mul(wide[3], wide[4]), wide[5]), name="total")
    b.br(head)
    b.position_at_end(head)
    i = b.phi(i64, [(ConstantInt(i64, 0), entry)], name="i")
    b.condbr(b.icmp("ult", i, total), body, done)
    b.position_at_end(body)
    t = b.binop("urem", i, per_block, name="t")
    blk = b.binop("udiv", i, per_block, name="blk")
    for value, (nx, ny), prefix in ((t, (wide[0], wide[1]), "tid"),
                                    (blk, (wide[3], wide[4]), "ctaid")):
        x = b.binop("urem", value, nx)
        rest = b.binop("udiv", value, nx)
        y = b.binop("urem", rest, ny)
        z = b.binop("udiv", rest, ny)
        for axis, v in zip("xyz", (x, y, z), strict=True):
            put(f"{prefix}.{axis}", b.trunc(v, i32))
    b.call(kernel, [*kargs, rec])
    nxt = b.add(i, ConstantInt(i64, 1), name="i.next")
    i.add_incoming(nxt, body)
    b.br(head)
    b.position_at_end(done)
    b.ret()
    return fn
