"""Results of array-returning functions written into caller memory, so that AD can see them.

A compiled function returning arrays gives back a struct: per array item a fresh heap block
(C order) and its extents, per scalar item the value. The AD transforms differentiate results
that are floats or memory written through arguments, so `add_output_wrapper` builds a twin of
such a function, `@<f>.into`, which takes every parameter of `f` and then one *output slot* per
result item: a pointer and its extents for an array, a pointer to one element for a scalar. It
calls `f`, copies each result into its slot, frees the blocks and returns void. Differentiated
with the slots `dup`, the slots' shadows carry the cotangent (reverse) or receive the tangent
(forward) of the results.

Invariants: the wrapper frees every block `f` returned, on every path; when `f` recorded an
error nothing is copied (the caller raises that error); the output slots are `noalias`: every
caller passes memory of their own for them (fresh arrays, XLA's result buffers), so the
analyses know that writing a result changes no operand (else each operand read before the
copy would be taken as overwritten, and cached on the tape instead of re-read); when a
slot's extents differ from the result's, nothing is copied and a "shape mismatch" error is
recorded; a float item's slot is differentiated, an integer or bool item's slot never is.
"""

from __future__ import annotations

from collections.abc import Callable

from enzyme_py.analysis.activities import Activity
from enzyme_py.errors import NotDifferentiableError
from enzyme_py.frontend import Compiled, CompileSession, ErrorSite
from enzyme_py.frontend.ftypes import Array, FType, Scalar, Tuple
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.values import ConstantInt, Value

__all__ = ["Item", "add_output_wrapper", "carries_arrays", "result_items", "slot_activities",
           "slot_types"]

Item = Array | Scalar


def carries_arrays(t: FType) -> bool:
    """Does a result of type `t` hold an array (alone or in a tuple)?"""
    return isinstance(t, Array) or (isinstance(t, Tuple) and
                                    any(isinstance(i, Array) for i in t.items))


def result_items(t: FType, fname: str) -> tuple[Item, ...]:
    """The items of a result, each an array or a scalar (one item unless a tuple)."""
    items = t.items if isinstance(t, Tuple) else (t,)
    for item in items:
        if not isinstance(item, Array | Scalar):
            raise NotDifferentiableError(f"{fname}() returns {t}; results that are arrays, "
                                         "floats, or flat tuples of them can be "
                                         "differentiated")
    return tuple(items)  # type: ignore[arg-type]


def slot_types(items: tuple[Item, ...]) -> tuple[Array, ...]:
    """The output slots as C-contiguous array arguments (a scalar's slot: one element)."""
    return tuple(i.value if isinstance(i, Array) else Array(i, 1) for i in items)


def slot_activities(items: tuple[Item, ...], output: str) -> list[str]:
    """The flat activities of the slots' parameters: `output` (dup / dupnoneed) for a float
    item's pointer, const for the rest."""
    acts: list[str] = []
    for item in items:
        elem = item.elem if isinstance(item, Array) else item
        acts.append(output if elem.is_float else Activity.CONST)
        acts.extend([Activity.CONST] * (item.ndim if isinstance(item, Array) else 0))
    return acts


def _memory_type(elem: Scalar) -> T.Type:
    return T.I8 if elem.name == "bool" else elem.ir  # numpy's bool is one byte


def add_output_wrapper(session: CompileSession, compiled: Compiled, pyfunc: Callable) -> str:
    """Add `@<f>.into` (see the module docstring) to `session.module`; `f` becomes internal
    and always inlined, so the optimizer fuses the copy into `f`'s own loops. Returns the
    wrapper's name."""
    fn = compiled.function
    name = getattr(pyfunc, "__name__", "f")
    items = result_items(compiled.return_type, name)
    module = session.module
    params: list[T.Type] = list(fn.function_type.params)
    names: list[str | None] = [a.name for a in fn.args]
    for k, item in enumerate(items):
        params.append(T.PTR)
        names.append(f"out{k}")
        if isinstance(item, Array):
            params.extend([T.I64] * item.ndim)
            names.extend(f"out{k}.shape{d}" for d in range(item.ndim))
    wrapper = module.add_function(Function(module.unique_name(f"{fn.name}.into"),
                                           T.FunctionType(T.VOID, tuple(params)), names))
    for arg in wrapper.args[len(fn.args):]:
        if arg.type.is_pointer:
            arg.attrs = ["noalias"]
    fn.prefix = ["internal"]
    if "noinline" not in fn.suffix:
        fn.suffix = ["alwaysinline"]
    _WrapperBody(session, wrapper, fn, items, pyfunc).build()
    return wrapper.name or ""


class _WrapperBody:
    def __init__(self, session: CompileSession, wrapper: Function, fn: Function,
                 items: tuple[Item, ...], pyfunc: Callable) -> None:
        self.session, self.wrapper, self.fn, self.items = session, wrapper, fn, items
        self.pyfunc = pyfunc
        self.b = Builder(wrapper.append_block("entry"))
        self.free = module_free(session)

    def build(self) -> None:
        b = self.b
        n = len(self.fn.args)
        result = b.call(self.fn, list(self.wrapper.args[:n]), name="result")
        # (field index of each item in the result struct, its output slot's arguments)
        layout: list[tuple[int, list[Value]]] = []
        field, arg = 0, n
        for item in self.items:
            width = 1 + (item.ndim if isinstance(item, Array) else 0)
            layout.append((field, list(self.wrapper.args[arg:arg + width])))
            field += width
            arg += width
        block_ptrs = [self._field(result, f) for (f, _), item in zip(layout, self.items,
                                                                      strict=True)
                      if isinstance(item, Array)]
        g = self.session.error_global()
        word = b.getelementptr(T.ArrayType(3, T.I64), g, [_i64(0), _i64(0)])
        failed = b.icmp("ne", b.load(T.I64, word, name="error"), _i64(0))
        self._leave_if(failed, block_ptrs, "f.failed")
        for k, ((f, slot), item) in enumerate(zip(layout, self.items, strict=True)):
            if not isinstance(item, Array):
                continue
            for d in range(item.ndim):
                extent = self._field(result, f + 1 + d)
                self._leave_if(b.icmp("ne", extent, slot[1 + d]), block_ptrs,
                               "shape.mismatch", (self._site(k, d), extent, slot[1 + d]))
        for (f, slot), item in zip(layout, self.items, strict=True):
            if isinstance(item, Array):
                self._copy(item, self._field(result, f),
                           [self._field(result, f + 1 + d) for d in range(item.ndim)], slot[0])
            else:
                value: Value = self._field(result, f)
                if item.name == "bool":
                    value = b.zext(value, T.I8)
                b.store(value, slot[0])
        for p in block_ptrs:
            b.call(self.free, [p])
        b.ret(None)

    def _field(self, result: Value, k: int) -> Value:
        if not isinstance(self.fn.return_type, T.StructType):
            return result
        return self.b.extractvalue(result, [k])

    def _site(self, item: int, axis: int) -> int:
        code = getattr(self.pyfunc, "__code__", None)
        filename = code.co_filename if code else "<unknown>"
        line = code.co_firstlineno if code else 0
        name = getattr(self.pyfunc, "__name__", "f")
        where = f"result {item} of {name}()" if len(self.items) > 1 else f"result of {name}()"
        return self.session.add_site(ErrorSite(filename, line, f"{where} vs its output array",
                                               "shape mismatch", axis))

    def _leave_if(self, cond: Value, block_ptrs: list[Value], label: str,
                  record: tuple[int, Value, Value] | None = None) -> None:
        """Branch to a block that frees the result blocks (recording an error) and returns."""
        b = self.b
        leave, stay = self._block(label), self._block("ok")
        b.condbr(cond, leave, stay)
        lb = Builder(leave)
        if record is not None:
            site, index, extent = record
            g = self.session.error_global()
            for k, v in enumerate((_i64(site), index, extent)):
                lb.store(v, lb.getelementptr(T.ArrayType(3, T.I64), g, [_i64(0), _i64(k)]))
        for p in block_ptrs:
            lb.call(self.free, [p])
        lb.ret(None)
        b.position_at_end(stay)

    def _copy(self, item: Array, src: Value, dims: list[Value], dst: Value) -> None:
        """dst[i] = src[i] for every element (both C order, the same extents)."""
        b = self.b
        count: Value = _i64(1)
        for d in dims:
            count = b.mul(count, d)
        head, body, done = self._block("copy"), self._block("copy.body"), self._block("copied")
        entry = b.block
        assert entry is not None
        b.br(head)
        b.position_at_end(head)
        i = b.phi(T.I64, [(_i64(0), entry)], name="i")
        b.condbr(b.icmp("slt", i, count), body, done)
        b.position_at_end(body)
        t = _memory_type(item.elem)
        v = b.load(t, b.getelementptr(t, src, [i]))
        # `freeze` (an identity on a loaded value) keeps LLVM from turning this loop into a
        # memcpy: the reverse of a memcpy needs the element type, which typed loads tell and
        # a copy between blocks written only by copies does not
        b.store(b.freeze(v), b.getelementptr(t, dst, [i]))
        nxt = b.add(i, _i64(1))
        i.add_incoming(nxt, body)
        b.br(head)
        b.position_at_end(done)

    def _block(self, label: str) -> Block:
        return self.wrapper.append_block(label)


def module_free(session: CompileSession) -> Function:
    return session.module.declare_function("free", T.FunctionType(T.VOID, (T.PTR,)))


def _i64(v: int) -> ConstantInt:
    return ConstantInt(T.I64, v)
