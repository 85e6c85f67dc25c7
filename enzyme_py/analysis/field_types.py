"""The scalar type the IR declares at the address a load or store touches, beyond the type of
the access itself: clang copies fields and small structs as integers (`load i64` of a double),
so the access type alone cannot tell an integer field from a float moved as bits.

`declared_type(inst)` reads, in order: the TBAA access tag clang attaches at -O1 and above
(`long long`, `double`, `any pointer`), the aggregate type of a GEP with constant indices
(`getelementptr %struct.S, ptr %p, i32 0, i32 1`), and the allocated type of the stack slot the
address is a constant offset into.

Invariants: nothing here changes the IR; an answer is only given when one of these sources
names a scalar that starts exactly at the accessed byte with the access's width (never a guess
from neighbouring fields); None otherwise.
"""

from __future__ import annotations

import re

from enzyme_py.analysis.stored_pointers import constant_offset, gep_parts
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.layout import alloc_size, field_offset, store_size
from enzyme_py.ir.module import Module
from enzyme_py.ir.values import ConstantExpr, ConstantInt, Value

# C and C++ scalar type names in clang's TBAA type descriptors.
_TBAA_INTEGERS = frozenset({"int", "long", "long long", "short", "bool", "_Bool", "__int128",
                            "wchar_t", "char16_t", "char32_t", "char8_t"})
_TBAA_FLOATS = {"float": T.FLOAT, "double": T.DOUBLE, "_Float16": T.HALF}
_NODE = re.compile(r"^!(\d+)\s*=\s*(?:distinct\s+)?!\{(.*)\}\s*$")
_index_cache: dict[int, tuple[int, dict[str, list[str]]]] = {}


def _metadata(module: Module) -> dict[str, list[str]]:
    """`!N` -> the node's operands as text, cached per module (rebuilt when it grows)."""
    key = id(module.metadata)
    cached = _index_cache.get(key)
    if cached is not None and cached[0] == len(module.metadata):
        return cached[1]
    nodes: dict[str, list[str]] = {}
    for line in module.metadata:
        m = _NODE.match(line)
        if m is not None:
            nodes[f"!{m.group(1)}"] = [s.strip() for s in m.group(2).split(",")]
    _index_cache[key] = (len(module.metadata), nodes)
    return nodes


def _tbaa_type(inst: I.Instruction, width: int) -> T.Type | None:
    tag = next((t for k, t in inst.metadata if k == "tbaa"), None)
    fn = inst.function
    if tag is None or fn is None or fn.parent is None:
        return None
    nodes = _metadata(fn.parent)
    ops = nodes.get(tag, [])
    if len(ops) < 2:
        return None
    access = nodes.get(ops[1], [])
    name = access[0][2:-1] if access and access[0].startswith('!"') else None
    if name in _TBAA_INTEGERS:
        return T.IntType(width)
    if name in _TBAA_FLOATS and _TBAA_FLOATS[name].bits == width:
        return _TBAA_FLOATS[name]
    if name is not None and (name == "any pointer" or re.fullmatch(r"p\d+ .*", name)) and \
            width == 64:
        return T.PTR
    return None


def leaf_at(t: T.Type, offset: int) -> T.Type | None:
    """The scalar that starts at byte `offset` of a value of type `t`, or None (padding, the
    middle of a scalar, outside)."""
    while True:
        if offset < 0:
            return None
        if isinstance(t, (T.StructType, T.IdentifiedStructType)):
            elems = T.struct_elements(t)
            for k in range(len(elems) - 1, -1, -1):
                start = field_offset(t, k)
                if start <= offset:
                    if offset - start >= alloc_size(elems[k]):
                        return None
                    t, offset = elems[k], offset - start
                    break
            else:
                return None
        elif isinstance(t, T.ArrayType):
            size = alloc_size(t.element)
            if size == 0 or offset >= t.count * size:
                return None
            t, offset = t.element, offset % size
        else:
            return t if offset == 0 else None


def _is_gep(p: Value) -> bool:
    return isinstance(p, I.GetElementPtr) or (isinstance(p, ConstantExpr) and
                                              p.opcode == "getelementptr")


def _structural_type(p: Value) -> T.Type | None:
    """The scalar at `p` from the element types of the GEPs it is computed by (the outermost
    typed one first) and the stack slot `p` points into."""
    offset = 0  # bytes from the current GEP's result to the accessed address
    while _is_gep(p):
        base, source, indices = gep_parts(p)
        if isinstance(source, (T.StructType, T.IdentifiedStructType, T.ArrayType)):
            inner = constant_offset(source, [ConstantInt(T.I64, 0), *indices[1:]])
            if inner is not None:
                leaf = leaf_at(source, offset + inner)
                if leaf is not None:
                    return leaf
        elif source != T.I8 and not isinstance(source, T.VectorType):
            size = alloc_size(source)  # `double* a; a[i]`: a double wherever it lands
            return source if size and offset % size == 0 else None
        step = constant_offset(source, indices)
        if step is None:
            return None
        offset += step
        p = base
    if isinstance(p, I.Alloca) and not p.operands:
        return leaf_at(p.allocated_type, offset)
    return None


def declared_type(inst: I.Load | I.Store) -> T.Type | None:
    """The scalar type the IR declares at the address `inst` accesses, when it has the
    access's width (see the module docstring); None when nothing says."""
    ty = inst.type if isinstance(inst, I.Load) else inst.value.type
    width = store_size(ty) * 8
    found = _tbaa_type(inst, width)
    if found is not None:
        return found
    leaf = _structural_type(inst.pointer)
    if leaf is not None and store_size(leaf) * 8 == width:
        return leaf
    return None


# Integer arithmetic that float bits moved as integers do not go through (bitwise operations,
# comparisons and shifts do: sign tests, `fabs` by masking).
_ARITHMETIC = frozenset({"add", "sub", "mul", "sdiv", "udiv", "srem", "urem"})


def location(p: Value) -> tuple[Value, int] | None:
    """(base, byte offset) of a pointer computed by constant-offset GEPs from `base`."""
    offset = 0
    while _is_gep(p):
        base, source, indices = gep_parts(p)
        step = constant_offset(source, indices)
        if step is None:
            return None
        offset += step
        p = base
    return p, offset


def integer_by_use(load: I.Load) -> bool:
    """Some load of the same place (base and constant offset) with the same integer type, in
    the same function, feeds integer arithmetic (`R_end - R_start`): the place holds an
    integer, not float bits."""
    fn = load.function
    where = location(load.pointer)
    if fn is None or where is None:
        return False
    loads = [i for i in fn.instructions() if isinstance(i, I.Load) and i.type == load.type
             and location(i.pointer) == where]
    if not loads:
        return False
    for inst in fn.instructions():
        if inst.opcode in _ARITHMETIC and any(op in loads for op in inst.operands):
            return True
    return False
