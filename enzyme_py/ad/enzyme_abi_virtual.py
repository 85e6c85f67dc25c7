"""Enzyme's `__enzyme_virtualreverse(f)`: the shadow of function pointer `f`, as Enzyme lays
it out: a pointer to the pair `{augmented, reverse}` of functions with the split-mode ABI of
`__enzyme_augmentfwd(f, ...)` and `__enzyme_reverse(f, ...)` (what a user writes by hand as
`void *shadow_f[2] = {(void *)f_aug, (void *)f_rev};`, Enzyme's ReverseMode/virtualshadow*.cpp).

For `f`'s parameters in Enzyme's default activities (integers const, floats out, pointers
dup): the augmented function takes each argument (a dup pointer and its shadow) and returns
what `__enzyme_augmentfwd` returns (the tape, then f's result, then its shadow for a pointer);
the reverse function takes the same arguments, then the seed of f's float result (if any),
then the tape, and returns the adjoints of the float arguments (void, one, or a struct).

`__enzyme_virtualreverse(vtable)` (a pointer into a C++ vtable, as in `*(void **)d_obj =
__enzyme_virtualreverse(*(void **)d_obj)`) gives the same place in the vtable's shadow:
`@<vtable>.shadow_vtable`, the vtable with each function replaced by its pair, so that a
virtual call through the shadow object finds the callee's pair (`indirect_calls.py`). A
pointer known only at run time is mapped by `@enzyme_py.virtual_shadow`, which finds the
constant table of the module it points into (a trap if none).

Invariants: one table per function (`@<f>.shadow_table`, internal and constant), reused by
every call, and one shadow per vtable; the two functions are written as calls of the
split-mode markers, so `lower_split_calls`, which runs after this, makes their bodies; `f` must
be defined here.
"""

from __future__ import annotations

from enzyme_py.ad.enzyme_abi_calls import (
    MARKERS,
    call_site,
    is_marker_function,
    replace_marker_call,
    split_call,
)
from enzyme_py.analysis.activities import Activity
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.layout import alloc_size
from enzyme_py.ir.module import Function, GlobalVariable, Module
from enzyme_py.ir.types import carries_float
from enzyme_py.ir.values import (
    ConstantAggregate,
    ConstantExpr,
    ConstantInt,
    Value,
    strip_constant_casts,
)

VIRTUAL_REVERSE = "__enzyme_virtualreverse"


def lower_virtualreverse_calls(module: Module) -> int:
    """Replace each `__enzyme_virtualreverse(f)` by the address of f's shadow table; returns
    how many calls were replaced."""
    calls = [i for fn in module.functions for i in fn.instructions()
             if isinstance(i, I.Call) and is_marker_function(i.callee_name, VIRTUAL_REVERSE)]
    for call in calls:
        table = _table_argument(call)
        if table is not None:
            replace_marker_call(call, _vtable_shadow(module, call, table))
            continue
        _, target, rest = split_call(call)
        if rest:
            raise DifferentiationError(f"{call_site(call)}: {VIRTUAL_REVERSE} takes one "
                                       "function")
        replace_marker_call(call, shadow_table(module, target))
    return len(calls)


def _table_argument(call: I.Call) -> Value | None:
    """The argument of a `__enzyme_virtualreverse` call when it is not a function (a pointer
    into a vtable)."""
    if len(call.args) != 1:
        return None
    return None if isinstance(strip_constant_casts(call.args[0]), Function) else call.args[0]


def _has_functions(c: Value | None) -> bool:
    if isinstance(c, Function):
        return not c.is_declaration
    if isinstance(c, ConstantExpr):
        return any(_has_functions(o) for o in c.ops)
    if isinstance(c, ConstantAggregate):
        return any(_has_functions(e) for e in c.elements)
    return False


def _tables(module: Module) -> list[GlobalVariable]:
    """Constant globals holding pointers to defined functions (vtables)."""
    return [g for g in module.globals if g.is_constant and not g.name.endswith(
        (".shadow_table", ".shadow_vtable")) and _has_functions(g.initializer)]


def _shadow_constant(module: Module, c: Value) -> Value:
    if isinstance(c, Function) and not c.is_declaration:
        return shadow_table(module, c)
    if isinstance(c, ConstantAggregate):
        return ConstantAggregate(c.type, tuple(_shadow_constant(module, e) for e in c.elements))
    return c


def vtable_shadow(module: Module, g: GlobalVariable) -> GlobalVariable:
    """`@<g>.shadow_vtable`: `g` with every defined function replaced by its pair."""
    name = f"{g.name}.shadow_vtable"
    got = module.symbols.get(name)
    if isinstance(got, GlobalVariable):
        return got
    assert g.initializer is not None
    shadow = GlobalVariable(name, g.value_type, _shadow_constant(module, g.initializer),
                            is_constant=True)
    shadow.prefix = ["internal"]
    shadow.suffix = [s for s in g.suffix if s.startswith("align ")]
    return module.add_global(shadow)


def _vtable_shadow(module: Module, call: I.Call, p: Value) -> Value:
    """The place `p` points to, in the shadow of the vtable it points into."""
    base = p
    while isinstance(base, ConstantExpr) and base.opcode in ("getelementptr", "bitcast",
                                                             "addrspacecast"):
        base = base.ops[0]
    if isinstance(base, GlobalVariable) and base in _tables(module):
        shadow = vtable_shadow(module, base)
        return _rebase(p, base, shadow)
    if isinstance(base, GlobalVariable):
        raise DifferentiationError(f"{call_site(call)}: @{base.name} holds no functions to "
                                   "make shadows of")
    mapper = _runtime_mapper(module)
    return Builder().position_before(call).call(mapper, [p], name="virtual.shadow")


def _rebase(p: Value, base: GlobalVariable, shadow: GlobalVariable) -> Value:
    if p is base:
        return shadow
    assert isinstance(p, ConstantExpr)
    return ConstantExpr(p.type, p.opcode, (_rebase(p.ops[0], base, shadow), *p.ops[1:]),
                        p.flags, p.source_type, p.extra)


def _runtime_mapper(module: Module) -> Function:
    """`ptr @enzyme_py.virtual_shadow(ptr %p)`: `p` moved from the constant table it points
    into to that table's shadow; a trap when it points into none."""
    name = "enzyme_py.virtual_shadow"
    got = module.symbols.get(name)
    if isinstance(got, Function):
        return got
    fn = module.add_function(Function(name, T.FunctionType(T.PTR, (T.PTR,)), ["p"]))
    fn.prefix = ["internal"]
    p = fn.args[0]
    b = Builder().position_at_end(fn.append_block("entry"))
    address = b.insert(I.Cast("ptrtoint", T.I64, [p]), name="address")
    for g in _tables(module):
        shadow = vtable_shadow(module, g)
        start = b.insert(I.Cast("ptrtoint", T.I64, [g]), name="table")
        offset = b.sub(address, start, name="offset")
        inside = b.icmp("ult", offset, ConstantInt(T.I64, alloc_size(g.value_type)))
        found, nxt = fn.append_block("found"), fn.append_block("next")
        b.condbr(inside, found, nxt)
        b.position_at_end(found)
        b.ret(b.getelementptr(T.I8, shadow, [offset]))
        b.position_at_end(nxt)
    trap = module.declare_function("llvm.trap", T.FunctionType(T.VOID, ()))
    b.call(trap, [])
    b.insert(I.Unreachable())
    return fn


def _activity(t: T.Type) -> Activity:
    return Activity.CONST if t.is_int else Activity.OUT if carries_float(t) \
        else Activity.DUP if t.is_pointer else Activity.CONST


def _marker(module: Module, act: Activity) -> GlobalVariable:
    name = next(n for n, a in MARKERS.items() if a is act)
    g = module.symbols.get(name)
    if isinstance(g, GlobalVariable):
        return g
    g = GlobalVariable(name, T.I32)
    g.prefix = ["external"]
    return module.add_global(g)


def shadow_table(module: Module, f: Function) -> GlobalVariable:
    """`@<f>.shadow_table = internal constant [2 x ptr] [@augmented, @reverse]`."""
    name = f"{f.name}.shadow_table"
    got = module.symbols.get(name)
    if isinstance(got, GlobalVariable):
        return got
    acts = [_activity(p.type) for p in f.args]
    values: list[T.Type] = []
    for p, act in zip(f.args, acts, strict=True):
        values += [p.type, p.type] if act is Activity.DUP else [p.type]
    ret = f.return_type
    aug_leaves = [T.PTR] + ([] if ret.is_void else [ret]) + ([T.PTR] if ret.is_pointer else [])
    aug_ret = aug_leaves[0] if len(aug_leaves) == 1 else T.StructType(tuple(aug_leaves))
    outs = [p.type for p, a in zip(f.args, acts, strict=True) if a is Activity.OUT]
    rev_ret = T.VOID if not outs else outs[0] if len(outs) == 1 else T.StructType(tuple(outs))
    seed = [ret] if carries_float(ret) else []
    aug = _wrapper(module, f, acts, f"{f.name}.shadow.augmented", values, aug_ret,
                   "__enzyme_augmentfwd", [])
    rev = _wrapper(module, f, acts, f"{f.name}.shadow.reverse", values + seed + [T.PTR],
                   rev_ret, "__enzyme_reverse", seed)
    table = GlobalVariable(name, T.ArrayType(2, T.PTR),
                           ConstantAggregate(T.ArrayType(2, T.PTR), (aug, rev)),
                           is_constant=True)
    table.prefix = ["internal"]
    return module.add_global(table)


def _wrapper(module: Module, f: Function, acts: list[Activity], name: str,
             params: list[T.Type], ret: T.Type, marker: str, seed: list[T.Type]) -> Function:
    """`ret name(params) { return marker(f, <activity, values>..., [seed], [enzyme_tape,
    tape]); }`"""
    fn = module.add_function(Function(module.unique_name(name), T.FunctionType(ret,
                                      tuple(params)), [f"a{k}" for k in range(len(params))]))
    fn.prefix = ["internal"]
    b = Builder().position_at_end(fn.append_block("entry"))
    args: list[Value] = [f]
    k = 0
    for act in acts:
        args.append(_marker(module, act))
        take = 2 if act is Activity.DUP else 1
        args += fn.args[k:k + take]
        k += take
    if marker == "__enzyme_reverse":
        args += fn.args[k:k + len(seed)]
        tape = module.symbols.get("enzyme_tape")
        if not isinstance(tape, GlobalVariable):
            tape = module.add_global(GlobalVariable("enzyme_tape", T.I32))
            tape.prefix = ["external"]
        args += [tape, fn.args[-1]]
    callee = module.declare_function(f"{marker}.{f.name}.shadow",
                                     T.FunctionType(ret, tuple(a.type for a in args)))
    result = b.call(callee, args)
    b.ret(None if ret.is_void else result)
    return fn
