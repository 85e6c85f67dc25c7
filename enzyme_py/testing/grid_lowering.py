"""An NVPTX kernel lowered to CPU code, for the simulated grid (`grid.py`).

What a GPU provides becomes ordinary code and memory:

- the special registers (`llvm.nvvm.read.ptx.sreg.{tid,ntid,ctaid,nctaid}.{x,y,z}`, `warpsize`,
  `laneid`) are read from a *grid record* passed as a trailing `ptr %grid` parameter to every
  function that reads them (or calls one that does): twelve `i32` (`GRID_FIELDS`), then the
  block's barrier (`ptr`, at byte `BARRIER_OFFSET`) and the block's exchange buffer for warp
  shuffles (`ptr` to one `i64` per thread of the block, at `EXCHANGE_OFFSET`);
- barriers (`llvm.nvvm.barrier.cta.sync.*`, `barrier0`, `barrier.sync`) wait on the block's
  pthread barrier; warp shuffles (`shfl.sync.{down,up,bfly,idx}.{i32,f32}`) write the value to
  the thread's slot of the exchange buffer, wait, read the source lane's slot as PTX defines it
  (the clamp and segment mask of `c`; a source out of range reads the thread's own value),
  and wait again;
- address spaces become the generic one (`addrspacecast` disappears); the NVPTX triple, data
  layout, `ptx_kernel` and the `"target-cpu"`/`"target-features"` attributes go;
- the nvvm math intrinsics become LLVM's and libdevice's `__nv_sin` libm's `sin`
  (`nvvm_math.py`); atomics (`atomicrmw`) stay, and are real on the CPU.

Invariants: the input is never changed (a copy is lowered); any other `llvm.nvvm.*` call is a
`GridError` naming it, never silently kept; `needs_threads` is true exactly when a barrier or a
shuffle remains reachable from the kernel, and then only the threaded grid may run it (one OS
thread per GPU thread; a serial loop over threads would deadlock or read stale slots).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from enzyme_py.analysis.call_graph import called_functions
from enzyme_py.analysis.gpu import BARRIER, SHUFFLE, SPECIAL_REGISTER, WARP_SIZE
from enzyme_py.errors import EnzymePyError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import parse
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.values import Argument, ConstantExpr, ConstantInt, Value
from enzyme_py.rules.warp import source_lane
from enzyme_py.testing.nvvm_math import map_math

GRID_FIELDS = ("tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z",
               "ctaid.x", "ctaid.y", "ctaid.z", "nctaid.x", "nctaid.y", "nctaid.z")
BARRIER_OFFSET = 48
EXCHANGE_OFFSET = 56
GRID_BYTES = 64
_SREG = SPECIAL_REGISTER
_BARRIERS = BARRIER
_SHUFFLE = SHUFFLE
_WARP = WARP_SIZE


class GridError(EnzymePyError):
    """A kernel the simulated grid cannot lower (names the construct)."""


@dataclass(frozen=True)
class LoweredKernel:
    module: Module  # CPU code: the kernel takes its parameters, then `ptr %grid`
    name: str  # the kernel's name (unchanged)
    params: tuple[T.Type, ...]  # the kernel's own parameters (generic pointers)
    needs_threads: bool  # barriers or shuffles: only the threaded grid runs it


def lower_kernel(source: str | Module, kernel: str) -> LoweredKernel:
    """Lower `kernel` of an NVPTX module (text, or a module, which is copied)."""
    module = parse(source if isinstance(source, str) else str(source))
    if not (module.triple or "").startswith("nvptx"):
        raise GridError(f"not an NVPTX module (target triple {module.triple!r}); the simulated "
                        "grid lowers CUDA device code (clang-22 -x cuda --cuda-device-only)")
    try:
        fn = module.get_function(kernel)
    except KeyError as exc:
        raise GridError(str(exc.args[0])) from None
    module.triple = module.datalayout = None
    _generic_address_space(module)
    _strip_target_attributes(module)
    map_math(module)
    users = _grid_users(module)
    params = tuple(fn.function_type.params)
    grid_args = {f: _add_grid_parameter(f) for f in users}
    synchronizing = {f for f in users if _lower_calls(module, f, grid_args)}
    if fn not in users:  # a kernel that never asks where it runs still takes the record
        grid_args[fn] = _add_grid_parameter(fn)
    _check_no_nvvm_left(module)
    threads = bool(synchronizing & called_functions(fn))
    return LoweredKernel(module, kernel, params, threads)


# --- address spaces and target ---------------------------------------------------------------


def _generic(t: T.Type) -> T.Type:
    if isinstance(t, T.PointerType) and t.addrspace:
        return T.PTR
    if isinstance(t, T.VectorType) and isinstance(t.element, T.PointerType):
        return T.VectorType(t.count, T.PTR)
    return t


def _generic_ftype(ft: T.FunctionType) -> T.FunctionType:
    return T.FunctionType(_generic(ft.ret), tuple(_generic(p) for p in ft.params), ft.vararg)


def _strip_casts(v: Value) -> Value:
    """`v` without address space casts (constant expressions rebuilt where one was inside)."""
    if not isinstance(v, ConstantExpr):
        return v
    if v.opcode == "addrspacecast":
        return _strip_casts(v.ops[0])
    ops = tuple(_strip_casts(o) for o in v.ops)
    if all(a is b for a, b in zip(ops, v.ops, strict=True)) and v.type == _generic(v.type):
        return v
    return ConstantExpr(_generic(v.type), v.opcode, ops, v.flags, v.source_type, v.extra)


def _generic_address_space(module: Module) -> None:
    for gv in module.globals:
        gv.prefix = [w for w in gv.prefix if not w.startswith("addrspace(")]
        gv.type = T.PTR
    for fn in module.functions:
        fn.function_type = _generic_ftype(fn.function_type)
        for a in fn.args:
            a.type = _generic(a.type)
        for block in fn.blocks:
            for inst in list(block.instructions):
                inst.type = _generic(inst.type)
                inst.operands[:] = [_strip_casts(o) for o in inst.operands]
                if isinstance(inst, I.Call):
                    inst.function_type = _generic_ftype(inst.function_type)
                if isinstance(inst, I.Alloca):
                    inst.suffix = tuple(w for w in inst.suffix if not w.startswith("addrspace("))
                if inst.opcode == "addrspacecast":
                    fn.replace_all_uses(inst, inst.operands[0])
                    block.remove(inst)


_TARGET_ATTRS = re.compile(r'\s*"(target-cpu|target-features|uniform-work-group-size)"="[^"]*"')


def _strip_target_attributes(module: Module) -> None:
    for key, text in module.attribute_groups.items():
        module.attribute_groups[key] = _TARGET_ATTRS.sub("", text)
    for fn in module.functions:
        fn.ret_attrs = [w for w in fn.ret_attrs if w != "ptx_kernel"]
        fn.prefix = [w for w in fn.prefix if w != "ptx_kernel"]


# --- the grid record -----------------------------------------------------------------------


def _asks_for_grid(name: str) -> bool:
    return name.startswith(_SREG) or bool(_BARRIERS.match(name) or _SHUFFLE.match(name))


def _grid_users(module: Module) -> list[Function]:
    """Defined functions that read the grid (or call one that does), transitively."""
    defined = [f for f in module.functions if not f.is_declaration]
    users: list[Function] = []
    while True:
        more = [f for f in defined if f not in users and any(
            isinstance(i, I.Call) and (_asks_for_grid(i.callee_name or "") or i.callee in users)
            for i in f.instructions())]
        if not more:
            return users
        users += more


def _add_grid_parameter(fn: Function) -> Argument:
    arg = Argument(T.PTR, "grid")
    ft = fn.function_type
    fn.set_type(T.FunctionType(ft.ret, (*ft.params, T.PTR), ft.vararg), [*fn.args, arg])
    return arg


def _lower_calls(module: Module, fn: Function, grid_args: dict[Function, Argument]) -> bool:
    """Rewrite `fn`'s grid intrinsics and calls to grid users; True if it synchronizes."""
    grid = grid_args[fn]
    synchronizes = False
    for block in list(fn.blocks):
        for call in list(block.instructions):
            if not isinstance(call, I.Call):
                continue
            name = call.callee_name or ""
            if call.callee in grid_args:
                ft = call.function_type
                call.function_type = T.FunctionType(ft.ret, (*ft.params, T.PTR), ft.vararg)
                call.operands.insert(len(call.operands) - 1, grid)
                call.arg_attrs.append([])
                continue
            if not _asks_for_grid(name):
                continue
            b = Builder().position_before(call)
            if name.startswith(_SREG):
                new = _special_register(b, grid, name[len(_SREG):], call)
            elif _BARRIERS.match(name):
                _barrier(module, b, grid)
                synchronizes = True
                block.remove(call)
                continue
            else:
                new = _shuffle(module, b, grid, call)
                synchronizes = True
            fn.replace_all_uses(call, new)
            block.remove(call)
    return synchronizes


def _field(b: Builder, grid: Value, name: str) -> Value:
    k = GRID_FIELDS.index(name)
    slot = b.getelementptr(T.I32, grid, [ConstantInt(T.I64, k)], name=f"grid.{name}.ptr")
    return b.load(T.I32, slot, 4, name=f"grid.{name}")


def _linear_tid(b: Builder, grid: Value) -> Value:
    x, y, z = (_field(b, grid, f"tid.{a}") for a in "xyz")
    nx, ny = _field(b, grid, "ntid.x"), _field(b, grid, "ntid.y")
    return b.add(x, b.mul(nx, b.add(y, b.mul(ny, z))), name="grid.linear.tid")


def _special_register(b: Builder, grid: Value, reg: str, call: I.Call) -> Value:
    if reg in GRID_FIELDS:
        value = _field(b, grid, reg)
    elif reg == "warpsize":
        value = ConstantInt(T.I32, _WARP)
    elif reg == "laneid":
        value = b.binop("urem", _linear_tid(b, grid), ConstantInt(T.I32, _WARP),
                        name="grid.lane")
    else:
        raise GridError(f"the simulated grid does not provide the special register {reg} "
                        f"(in {call.callee_name})")
    if call.type != T.I32:
        raise GridError(f"{call.callee_name} returns {call.type}, expected i32")
    return value


def _pointer_field(b: Builder, grid: Value, offset: int, name: str) -> Value:
    slot = b.getelementptr(T.I8, grid, [ConstantInt(T.I64, offset)], name=f"{name}.ptr")
    return b.load(T.PTR, slot, 8, name=name)


def _barrier(module: Module, b: Builder, grid: Value) -> None:
    wait = module.declare_function("pthread_barrier_wait", T.FunctionType(T.I32, (T.PTR,)))
    b.call(wait, [_pointer_field(b, grid, BARRIER_OFFSET, "grid.barrier")])


def _shuffle(module: Module, b: Builder, grid: Value, call: I.Call) -> Value:
    """PTX's shfl.sync through the block's exchange buffer (see the module docstring)."""
    m = _SHUFFLE.match(call.callee_name or "")
    assert m is not None
    mode, kind = m.group(1), m.group(2)
    _mask, value, bval, cval = call.args
    i32 = T.I32
    bits = value if kind == "i32" else b.bitcast(value, i32, name="shfl.bits")
    exchange = _pointer_field(b, grid, EXCHANGE_OFFSET, "grid.exchange")
    tid = _linear_tid(b, grid)
    mine = b.getelementptr(T.I64, exchange, [b.zext(tid, T.I64)], name="shfl.mine")
    b.store(b.zext(bits, T.I64), mine, 8)
    _barrier(module, b, grid)
    lane = b.binop("urem", tid, ConstantInt(i32, _WARP), name="shfl.lane")
    warp_base = b.sub(tid, lane, name="shfl.warp")
    source = source_lane(b, mode, lane, bval, cval)  # (PTX's rule, as the shuffle rules use it)
    slot = b.getelementptr(T.I64, exchange, [b.zext(b.add(warp_base, source), T.I64)])
    got = b.trunc(b.load(T.I64, slot, 8), i32, name="shfl.got")
    _barrier(module, b, grid)  # every thread has read before any slot is written again
    return got if kind == "i32" else b.bitcast(got, T.FLOAT, name=call.name)


def _check_no_nvvm_left(module: Module) -> None:
    for fn in module.functions:
        for inst in fn.instructions():
            name = inst.callee_name if isinstance(inst, I.Call) else None
            if name and name.startswith("llvm.nvvm."):
                raise GridError(f"the simulated grid cannot run @{name} (in @{fn.name}); "
                                "add it to testing/grid_lowering.py")
    for fn in list(module.functions):
        if fn.is_declaration and (fn.name or "").startswith("llvm.nvvm."):
            module.functions.remove(fn)
            module.symbols.pop(fn.name or "", None)
