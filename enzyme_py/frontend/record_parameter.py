"""The compiled code's error record made per call: a parameter instead of a module global.

The front end records a failed check (`[site, index, extent]`) in one `[3 x i64]` global per
module. Two threads calling one compiled function (Python threads, XLA's one per device) could
then report each other's failures. `record_as_parameter` rewrites a module so that every
function that reads or writes the record, or calls one that does, takes it as a trailing
`ptr %error.record` parameter, passed on at each call; the caller passes a record of its own:
`calling.ErrorRecord` one per thread, the XLA handler a zeroed block of its stack per call
(`ffi_handler`, `Param("record")`).

Invariants: after a rewrite the global has no use and is removed; a function that touches the
record only through a direct call is rewritten too; when the module uses the record or such a
function in a way this cannot follow (a function's address taken, the record in a constant
expression other than a `getelementptr` or inside another global), nothing is changed and
None is returned (the caller then reads the global, correct on one thread at a time).
`pass_record` does the same on a parsed module in place, all or nothing.
"""

from __future__ import annotations

from enzyme_py.ir import Function, GlobalVariable, Module
from enzyme_py.ir import parse as parse_module
from enzyme_py.ir import types as T
from enzyme_py.ir.instructions import Call, GetElementPtr, Instruction, Phi
from enzyme_py.ir.values import Argument, ConstantExpr, Value

__all__ = ["pass_record", "record_as_parameter"]


class _Unsupported(Exception):
    pass


def _mentions(v: Value, target: Value) -> bool:
    if v is target:
        return True
    return isinstance(v, ConstantExpr) and any(_mentions(o, target) for o in v.ops)


def _uses(fn: Function, g: GlobalVariable, users: set[Function]) -> bool:
    for inst in fn.instructions():
        for op in inst.operands:
            if _mentions(op, g):
                return True
        if isinstance(inst, Call) and inst.callee in users:
            return True
    return False


def record_as_parameter(text: str, record: str, entry: str | None = None) -> str | None:
    """`text` with global `@record` passed as a parameter (see the module docstring), or
    None when the module cannot be rewritten (or does not have the record, or function
    `entry`, the one callers call, would not take it: it never reaches a check)."""
    if f"@{record} " not in text:  # (no record: nothing to parse)
        return None
    module = parse_module(text)
    return str(module) if pass_record(module, record, entry) else None


def pass_record(module: Module, record: str, entry: str | None = None) -> bool:
    """`record_as_parameter` on a module in place, without a text round trip: True when it
    was rewritten; False (and `module` unchanged) when it cannot be, or has no record, or
    `entry` would not take it."""
    g = next((v for v in module.globals if v.name == record), None)
    if g is None:
        return False
    try:
        users = _users(module, g)
    except _Unsupported:
        return False
    if entry is not None and entry not in {f.name for f in users}:
        return False
    _rewrite(module, g, users)
    return True


def _users(module: Module, g: GlobalVariable) -> set[Function]:
    """The functions that must take the record (those that use it and their callers,
    transitively); `_Unsupported` where the rewrite could not follow a use. Changes nothing,
    so that a rewrite that starts always finishes."""
    defined = [f for f in module.functions if not f.is_declaration]
    users: set[Function] = set()
    while True:
        more = {f for f in defined if f not in users and _uses(f, g, users)}
        if not more:
            break
        users |= more
    for gv in module.globals:
        if gv is not g and gv.initializer is not None and \
                any(_mentions(v, g) or v in users for v in _constants(gv.initializer)):
            raise _Unsupported
    for f in defined:
        rewritten = f in users
        for inst in f.instructions():
            callee = len(inst.operands) - 1 if isinstance(inst, Call) else -1
            for k, op in enumerate(inst.operands):  # (only functions and constant
                if isinstance(op, Function):        # expressions can name a user)
                    if op in users and k != callee:
                        raise _Unsupported  # a function's address taken
                elif isinstance(op, ConstantExpr):
                    if any(_mentions(op, u) for u in users):
                        raise _Unsupported  # a function's address taken
                    if rewritten and not _followable(op, g):
                        raise _Unsupported  # the record in a constant other than a gep
    if any(f.function_type.vararg for f in users):
        raise _Unsupported
    return users


def _followable(v: Value, g: GlobalVariable) -> bool:
    """Can `_rewrite_body` rebuild operand `v` from the parameter? (the record itself, a
    constant without it, or plain `getelementptr` constants over it)"""
    if v is g or not isinstance(v, ConstantExpr) or not _mentions(v, g):
        return True
    return v.opcode == "getelementptr" and not v.extra and \
        all(_followable(o, g) for o in v.ops)


def _rewrite(module: Module, g: GlobalVariable, users: set[Function]) -> None:
    params = {}
    for f in users:
        arg = Argument(T.PTR, "error.record", attrs=["noalias"])  # the call's own block
        ftype = T.FunctionType(f.function_type.ret, (*f.function_type.params, T.PTR),
                               f.function_type.vararg)
        f.set_type(ftype, [*f.args, arg])
        params[f] = arg
    for f in users:
        _rewrite_body(f, g, params)
    module.globals.remove(g)
    module.symbols.pop(g.name, None)


def _constants(v: Value) -> list[Value]:
    out = [v]
    for child in getattr(v, "elements", ()) or ():
        out += _constants(child)
    if isinstance(v, ConstantExpr):
        for child in v.ops:
            out += _constants(child)
    return out


def _rewrite_body(f: Function, g: GlobalVariable, params: dict[Function, Argument]) -> None:
    arg = params[f]
    count = [0]

    def materialize(v: Value, before: Instruction) -> Value:
        if v is g:
            return arg
        if not isinstance(v, ConstantExpr) or not _mentions(v, g):
            return v
        count[0] += 1  # (a plain getelementptr: checked by `_followable`)
        ops = [materialize(o, before) for o in v.ops]
        gep = GetElementPtr(v.source_type, v.type, ops, f"error.record.{count[0]}", v.flags)
        block = before.parent
        assert block is not None
        block.insert(block.instructions.index(before), gep)
        gep.parent = block
        return gep

    for block in list(f.blocks):
        for inst in list(block.instructions):
            for k, op in enumerate(inst.operands):
                if not _mentions(op, g):
                    continue
                if isinstance(inst, Phi):  # computed at the end of the incoming block
                    term = inst.incoming_blocks[k].terminator
                    assert term is not None
                    inst.operands[k] = materialize(op, term)
                else:
                    inst.operands[k] = materialize(op, inst)
            if isinstance(inst, Call) and inst.callee in params:
                ft = inst.function_type
                inst.function_type = T.FunctionType(ft.ret, (*ft.params, T.PTR), ft.vararg)
                inst.operands.insert(len(inst.operands) - 1, arg)
                inst.arg_attrs.append([])
