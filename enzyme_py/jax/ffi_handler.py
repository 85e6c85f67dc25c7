"""XLA FFI handlers emitted as LLVM IR: the one module that knows the XLA FFI C ABI.

A handler is `ptr @name(ptr %frame)` (`XLA_FFI_Error *(XLA_FFI_CallFrame *)`). It is appended to
the text of the module holding the function it calls (`link`), so the call is direct and the
optimizer may inline it. What it does is described by a `HandlerSpec`, built elsewhere
(`derivatives`, `from_ll`) from the callee's signature:

- on the registration-time metadata query (`extension_start` of type `XLA_FFI_Extension_Metadata`)
  it writes the API version of the installed jaxlib's `c_api.h` (read by `ffi_version`, never
  hard-coded: XLA accepts only an exact match) and no traits, and touches nothing else;
- at other stages than EXECUTE it does nothing;
- it reads operand k from the frame's position `arg_slots[k]` (the custom call may list its
  operands in another order: `op._lower` puts a sharded one first);
- it checks the numbers of operands and results, and each buffer's dtype and rank (batch axes
  included), and that batched operands agree with the results on each batch axis;
- it loops over the batch (the leading `k` axes; an operand lacking an axis is read with
  stride 0), passing per element the buffers' data, their extents, loaded scalars, scratch
  blocks (malloc'ed once, zeroed or copied from a buffer before each call) and constants,
  then stores the callee's returned values into result buffers. A result lacking a batch axis
  is the sum over it: zeroed first, the callee adds into it (an array it accumulates into)
  or the handler adds the returned value (a number);
- after each call it reads the error record (`[site, index, extent]`: its own per-call block
  passed to the callee, `error_param`, or else the module's global `error_global`); a failure
  becomes an `XLA_FFI_Error` (through `api->XLA_FFI_Error_Create`) whose message is the site's
  `Message` formatted with snprintf, and the record is cleared. Every error path frees the
  scratch blocks.

Invariants: the emitted text is deterministic for a spec; it declares only what the module
does not already declare; it defines no attribute groups or metadata (so it can be appended to
any module text). Layouts are those of LP64 for XLA FFI API major version 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DTYPES", "BufferSpec", "HandlerSpec", "Message", "Param", "Scratch", "Store",
           "emit_handler", "ffi_version", "link"]

# --- the C ABI (c_api.h, LP64) --------------------------------------------------------------

KNOWN_MAJOR = 0  # the major API version these offsets are written for

# XLA_FFI_CallFrame
_FRAME_EXTENSION, _FRAME_API, _FRAME_STAGE = 8, 16, 32
_ARGS_SIZE, _ARGS_ARGS = 56, 72  # XLA_FFI_Args inside the frame (at 40)
_RETS_SIZE, _RETS_RETS = 96, 112  # XLA_FFI_Rets inside the frame (at 80)
_STAGE_EXECUTE = 3
# XLA_FFI_Extension_Base / XLA_FFI_Metadata_Extension / XLA_FFI_Metadata
_EXTENSION_TYPE, _EXTENSION_METADATA_TYPE, _EXTENSION_METADATA = 8, 1, 24
_META_VERSION_SIZE, _META_VERSION_EXT, _META_MAJOR, _META_MINOR, _META_TRAITS = 8, 16, 24, 28, 32
_API_VERSION_STRUCT_SIZE = 24  # sizeof(XLA_FFI_Api_Version)
# XLA_FFI_Buffer
_BUFFER_DTYPE, _BUFFER_DATA, _BUFFER_RANK, _BUFFER_DIMS = 16, 24, 32, 40
# XLA_FFI_Api: XLA_FFI_Error_Create; its args {struct_size, extension_start, message, errc}
_API_ERROR_CREATE = 48
_ERROR_ARGS_SIZE = 28
ERR_INVALID_ARGUMENT, ERR_RESOURCE_EXHAUSTED, ERR_OUT_OF_RANGE = 3, 8, 11

#: numpy dtype name -> (XLA_FFI_DataType, LLVM memory type, bytes)
DTYPES: dict[str, tuple[int, str, int]] = {
    "float64": (12, "double", 8), "float32": (11, "float", 4), "int64": (5, "i64", 8),
    "int32": (4, "i32", 4), "bool": (1, "i8", 1),
}

_MESSAGE_BYTES = 1024


def ffi_version(include_dir: str | None = None) -> tuple[int, int]:
    """`(XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR)` of the installed jaxlib's `c_api.h` (under
    `jax.ffi.include_dir()` unless `include_dir` is given). A major version other than the
    one the offsets here are written for is refused."""
    if include_dir is None:
        import jax.ffi

        include_dir = jax.ffi.include_dir()
    header = Path(include_dir) / "xla" / "ffi" / "api" / "c_api.h"
    text = header.read_text()
    found = {}
    for part in ("MAJOR", "MINOR"):
        m = re.search(rf"^#define XLA_FFI_API_{part} (\d+)", text, re.MULTILINE)
        if m is None:
            raise RuntimeError(f"enzyme_py.jax: {header} defines no XLA_FFI_API_{part}")
        found[part] = int(m.group(1))
    if found["MAJOR"] != KNOWN_MAJOR:
        raise RuntimeError(f"enzyme_py.jax knows the XLA FFI C ABI of API version "
                           f"{KNOWN_MAJOR}.x; the installed jaxlib's is {found['MAJOR']}."
                           f"{found['MINOR']} ({header})")
    return found["MAJOR"], found["MINOR"]


# --- what a handler does ----------------------------------------------------------------------


@dataclass(frozen=True)
class BufferSpec:
    """An operand or result buffer: dtype (a `DTYPES` key), rank without the batch axes, and
    which of the `k` batch axes it has in front (a result lacking one is summed over it)."""

    dtype: str
    rank: int
    batch: tuple[bool, ...] = ()


@dataclass(frozen=True)
class Param:
    """One parameter of the callee, per batch element.

    kind: `data` (the element's data pointer of buffer `index` on `side` "arg"/"ret"),
    `dim` (extent `axis` of that buffer, batch axes not counted), `value` (the scalar in that
    buffer, loaded; a bool is passed as i1), `scratch` (scratch block `index`), `const`
    (the i64 `index`), `record` (this call's error record, `[3 x i64]` on the handler's
    stack)."""

    kind: str
    index: int = 0
    side: str = "arg"
    axis: int = 0


@dataclass(frozen=True)
class Scratch:
    """A block the handler allocates: as many elements of `dtype` as one batch element of
    buffer `like` ((side, index)) has, or `elements` when `like` is None; zeroed before every
    call, or a copy of `like`'s element when `copy`."""

    dtype: str
    like: tuple[str, int] | None = None
    elements: int = 1
    copy: bool = False


@dataclass(frozen=True)
class Store:
    """The callee's result (or its struct field `field`) stored into result buffer `ret`."""

    ret: int
    field: int | None = None


@dataclass(frozen=True)
class Message:
    """The message of an error site: printf formats taking the record's index and extent as
    two `long long`s (`alt` is used when the index is >= 0), and an XLA_FFI_Error_Code."""

    text: str
    alt: str | None = None
    code: int = ERR_INVALID_ARGUMENT


@dataclass(frozen=True)
class HandlerSpec:
    """Everything a handler does (see the module docstring)."""

    name: str  # the handler's symbol
    label: str  # names the function in messages
    callee: str
    callee_return: str  # LLVM type text: void, double, { double, float } ...
    args: tuple[BufferSpec, ...]
    rets: tuple[BufferSpec, ...]
    params: tuple[Param, ...]
    param_types: tuple[str, ...]  # the callee's parameter types (LLVM text)
    scratch: tuple[Scratch, ...] = ()
    stores: tuple[Store, ...] = ()
    zeroed: tuple[int, ...] = ()  # results zeroed before the loop (the callee adds into them)
    error_global: str | None = None  # the callee module's `[3 x i64]` error record
    messages: tuple[Message, ...] = ()  # per error site, numbered from 1
    arg_slots: tuple[int, ...] = ()  # the frame position of each operand (empty: in order)
    error_param: bool = False  # the record is this call's own block, passed as Param("record")

    @property
    def batch_axes(self) -> int:
        return len(self.rets[0].batch) if self.rets else 0


# --- emission ---------------------------------------------------------------------------------


def _c_string(text: str) -> tuple[str, int]:
    """An LLVM `c"..."` literal of `text` (UTF-8, NUL-terminated) and its length in bytes."""
    data = text.encode() + b"\0"
    out = "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:02X}" for b in data)
    return f'c"{out}"', len(data)


class _Emitter:
    """Numbered SSA names and lines of one function body."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._n = 0

    def fresh(self, hint: str = "v") -> str:
        self._n += 1
        return f"%{hint}.{self._n}"

    def __call__(self, rhs: str, hint: str = "v") -> str:
        name = self.fresh(hint)
        self.lines.append(f"  {name} = {rhs}")
        return name

    def do(self, line: str) -> None:
        self.lines.append(f"  {line}")

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")

    def field(self, base: str, offset: int, ty: str, hint: str = "v") -> str:
        """Load the `ty` at byte `offset` of `base`."""
        p = self(f"getelementptr inbounds i8, ptr {base}, i64 {offset}")
        return self(f"load {ty}, ptr {p}", hint)

    def put(self, base: str, offset: int, ty: str, value: str) -> None:
        p = self(f"getelementptr inbounds i8, ptr {base}, i64 {offset}")
        self.do(f"store {ty} {value}, ptr {p}")


class _Handler:
    def __init__(self, spec: HandlerSpec, version: tuple[int, int]) -> None:
        self.spec = spec
        self.version = version
        self.e = _Emitter()
        self.globals: list[str] = []
        self._strings: dict[str, str] = {}
        self._blocks = 0
        self.fails: list[tuple[str, str, str, str, str]] = []  # (block, fmt, i, e, code)
        self.scratch_slots: list[str] = []

    def block(self, hint: str) -> str:
        self._blocks += 1
        return f"{hint}.{self._blocks}"

    def string(self, text: str) -> str:
        """A private constant holding `text`; its global name."""
        got = self._strings.get(text)
        if got is None:
            lit, size = _c_string(text)
            got = f"@{self.spec.name}.s{len(self._strings)}"
            self.globals.append(f"{got} = private unnamed_addr constant [{size} x i8] {lit}")
            self._strings[text] = got
        return got

    def fail_unless(self, cond: str, fmt: str, i: str = "0", x: str = "0",
                    code: int = ERR_INVALID_ARGUMENT) -> None:
        """Continue when `cond` holds, else fail with `fmt` formatted with (i, x)."""
        e = self.e
        ok, bad = self.block("ok"), self.block("fail")
        e.do(f"br i1 {cond}, label %{ok}, label %{bad}")
        e.label(bad)
        e.do("br label %fail")
        self.fails.append((bad, self.string(fmt), i, x, str(code)))
        e.label(ok)

    def fail_with(self, fmt: str, i: str, x: str, code: str) -> None:
        """Branch to the failure block from here (fmt is an SSA pointer or a global)."""
        here = self.block("error")
        self.e.do(f"br label %{here}")
        self.e.label(here)
        self.e.do("br label %fail")
        self.fails.append((here, fmt, i, x, code))

    # -- the body ----------------------------------------------------------------------------

    def emit(self) -> str:
        s, e = self.spec, self.e
        e.label("entry")
        e.lines.append(f"  %message = alloca [{_MESSAGE_BYTES} x i8], align 16")
        e.lines.append("  %error.args = alloca { i64, ptr, ptr, i32 }, align 8")
        if s.error_param:
            e.lines.append("  %record = alloca [3 x i64], align 8")
        for k in range(len(s.scratch)):
            slot = f"%scratch.slot.{k}"
            e.lines.append(f"  {slot} = alloca ptr, align 8")
            e.do(f"store ptr null, ptr {slot}")
            self.scratch_slots.append(slot)
        ext = e.field("%frame", _FRAME_EXTENSION, "ptr", "extension")
        has_ext = e(f"icmp ne ptr {ext}, null")
        e.do(f"br i1 {has_ext}, label %extension, label %stage")
        e.label("extension")
        kind = e.field(ext, _EXTENSION_TYPE, "i32")
        is_meta = e(f"icmp eq i32 {kind}, {_EXTENSION_METADATA_TYPE}")
        e.do(f"br i1 {is_meta}, label %metadata, label %stage")
        e.label("metadata")
        meta = e.field(ext, _EXTENSION_METADATA, "ptr", "metadata")
        e.put(meta, _META_VERSION_SIZE, "i64", str(_API_VERSION_STRUCT_SIZE))
        e.put(meta, _META_VERSION_EXT, "ptr", "null")
        e.put(meta, _META_MAJOR, "i32", str(self.version[0]))
        e.put(meta, _META_MINOR, "i32", str(self.version[1]))
        e.put(meta, _META_TRAITS, "i32", "0")
        e.do("ret ptr null")
        e.label("stage")
        stage = e.field("%frame", _FRAME_STAGE, "i32", "stage")
        execute = e(f"icmp eq i32 {stage}, {_STAGE_EXECUTE}")
        e.do(f"br i1 {execute}, label %execute, label %done")
        e.label("execute")
        self._check_counts()
        self.bufs = {"arg": [self._buffer("arg", k, b) for k, b in enumerate(s.args)],
                     "ret": [self._buffer("ret", k, b) for k, b in enumerate(s.rets)]}
        self._batch()
        self._allocate()
        if s.error_param:
            e.do("call void @llvm.memset.p0.i64(ptr %record, i8 0, i64 24, i1 false)")
        summed = {st.ret for st in s.stores if not all(s.rets[st.ret].batch)}
        for k in sorted(set(s.zeroed) | summed):
            buf = self.bufs["ret"][k]
            total = buf["slice"]
            for a, present in enumerate(buf["spec"].batch):
                if present:
                    total = e(f"mul i64 {total}, {self.sizes[a]}")
            e.do(f"call void @llvm.memset.p0.i64(ptr {buf['data']}, i8 0, i64 {total}, i1 false)")
        self._loop()
        e.label("done")
        self._free_scratch()
        e.do("ret ptr null")
        self._fail_block()
        body = "\n".join(e.lines)
        return f"define ptr @{s.name}(ptr %frame) {{\n{body}\n}}"

    def _check_counts(self) -> None:
        s, e = self.spec, self.e
        self.api = e.field("%frame", _FRAME_API, "ptr", "api")  # first: every failure uses it
        for what, offset, n in (("operands", _ARGS_SIZE, len(s.args)),
                                ("results", _RETS_SIZE, len(s.rets))):
            got = e.field("%frame", offset, "i64", f"n{what}")
            self.fail_unless(e(f"icmp eq i64 {got}, {n}"),
                             f"enzyme_py.jax: {s.label} takes {n} {what}; got %lld", got)
        self.argv = e.field("%frame", _ARGS_ARGS, "ptr", "argv")
        self.retv = e.field("%frame", _RETS_RETS, "ptr", "retv")

    def _buffer(self, side: str, k: int, b: BufferSpec) -> dict:
        """Load and check buffer `k`; its data pointer, dims pointer, base extents and the
        bytes of one batch element."""
        s, e = self.spec, self.e
        vec = self.argv if side == "arg" else self.retv
        at = s.arg_slots[k] if side == "arg" and s.arg_slots else k
        slot = e(f"getelementptr inbounds ptr, ptr {vec}, i64 {at}")
        buf = e(f"load ptr, ptr {slot}", f"{side}{k}")
        code, _, size = DTYPES[b.dtype]
        what = f"{'operand' if side == 'arg' else 'result'} {k}"
        dtype = e.field(buf, _BUFFER_DTYPE, "i32")
        dtype64 = e(f"sext i32 {dtype} to i64")
        self.fail_unless(e(f"icmp eq i32 {dtype}, {code}"),
                         f"enzyme_py.jax: {s.label}: {what} has XLA dtype %lld; expected "
                         f"{b.dtype} ({code})", dtype64)
        nbatch = sum(b.batch)
        rank = e.field(buf, _BUFFER_RANK, "i64")
        self.fail_unless(e(f"icmp eq i64 {rank}, {b.rank + nbatch}"),
                         f"enzyme_py.jax: {s.label}: {what} has rank %lld; expected "
                         f"{b.rank + nbatch}", rank)
        data = e.field(buf, _BUFFER_DATA, "ptr", f"{side}{k}.data")
        dims = e.field(buf, _BUFFER_DIMS, "ptr", f"{side}{k}.dims")
        extents = []
        slice_bytes = str(size)
        for d in range(b.rank):
            p = e(f"getelementptr inbounds i64, ptr {dims}, i64 {nbatch + d}")
            x = e(f"load i64, ptr {p}", f"{side}{k}.dim{d}")
            extents.append(x)
            slice_bytes = e(f"mul i64 {slice_bytes}, {x}")
        batch_dims = []
        for a in range(nbatch):
            p = e(f"getelementptr inbounds i64, ptr {dims}, i64 {a}")
            batch_dims.append(e(f"load i64, ptr {p}"))
        return {"spec": b, "data": data, "extents": extents, "slice": slice_bytes,
                "batch_dims": batch_dims}

    def _batch(self) -> None:
        """Batch sizes (each from the first buffer that has the axis), checks of the operands'
        batch extents, the element count, and per buffer the byte stride of each batch axis
        it has."""
        s, e = self.spec, self.e
        k = s.batch_axes
        sizes = []
        for a in range(k):
            for buf in (*self.bufs["ret"], *self.bufs["arg"]):
                mask = buf["spec"].batch
                if mask[a]:
                    sizes.append(buf["batch_dims"][sum(mask[:a])])
                    break
            else:
                raise ValueError(f"enzyme_py.jax: internal error: no buffer has batch axis {a}")
        self.sizes = sizes
        count = "1"
        for size in sizes:
            count = e(f"mul i64 {count}, {size}")
        self.count = count
        # inner[a]: how many elements the axes after a span
        self.inner = ["1"] * k
        for a in range(k - 2, -1, -1):
            self.inner[a] = e(f"mul i64 {self.inner[a + 1]}, {sizes[a + 1]}")
        for side in ("arg", "ret"):
            for j, buf in enumerate(self.bufs[side]):
                axes = [a for a, present in enumerate(buf["spec"].batch) if present]
                for a, dim in zip(axes, buf["batch_dims"], strict=True):
                    if side == "arg":
                        self.fail_unless(e(f"icmp eq i64 {dim}, {sizes[a]}"),
                                         f"enzyme_py.jax: {s.label}: operand {j} has %lld "
                                         f"elements on batch axis {a}; the results %lld",
                                         dim, sizes[a])
                strides: dict[int, str] = {}
                stride = buf["slice"]
                for a in reversed(axes):
                    strides[a] = stride
                    stride = e(f"mul i64 {stride}, {sizes[a]}")
                buf["strides"] = strides

    def _size_of(self, sc: Scratch) -> str:
        if sc.like is None:
            return str(sc.elements * DTYPES[sc.dtype][2])
        side, k = sc.like
        return self.bufs[side][k]["slice"]

    def _allocate(self) -> None:
        e = self.e
        self.scratch_ptrs = []
        for k, sc in enumerate(self.spec.scratch):
            size = self._size_of(sc)
            nonzero = e(f"icmp ugt i64 {size}, 0")
            asked = e(f"select i1 {nonzero}, i64 {size}, i64 1")
            p = e(f"call ptr @malloc(i64 {asked})", f"scratch{k}")
            e.do(f"store ptr {p}, ptr {self.scratch_slots[k]}")
            self.fail_unless(e(f"icmp ne ptr {p}, null"),
                             f"enzyme_py.jax: {self.spec.label}: cannot allocate %lld bytes",
                             asked, code=ERR_RESOURCE_EXHAUSTED)
            self.scratch_ptrs.append((p, size))

    def _element(self, side: str, k: int, n_index: list[str]) -> str:
        """The data pointer of buffer (side, k) at the current batch element."""
        e, buf = self.e, self.bufs[side][k]
        offset = "0"
        for a, stride in sorted(buf["strides"].items()):
            term = e(f"mul i64 {n_index[a]}, {stride}")
            offset = e(f"add i64 {offset}, {term}")
        return e(f"getelementptr inbounds i8, ptr {buf['data']}, i64 {offset}")

    def _loop(self) -> None:
        s, e = self.spec, self.e
        e.do("br label %loop")
        e.label("loop")
        n = e(f"phi i64 [ 0, %{self._last_label()} ], [ %n.next, %next ]", "n")
        more = e(f"icmp ult i64 {n}, {self.count}")
        e.do(f"br i1 {more}, label %body, label %done")
        e.label("body")
        index = []
        for a in range(s.batch_axes):
            q = e(f"udiv i64 {n}, {self.inner[a]}")
            index.append(e(f"urem i64 {q}, {self.sizes[a]}", f"i{a}"))
        elements: dict[tuple[str, int], str] = {}

        def element(side: str, k: int) -> str:
            if (side, k) not in elements:
                elements[(side, k)] = self._element(side, k, index)
            return elements[(side, k)]

        for sc, (p, size) in zip(s.scratch, self.scratch_ptrs, strict=True):
            if sc.copy and sc.like is not None:
                src = element(*sc.like)
                e.do(f"call void @llvm.memcpy.p0.p0.i64(ptr {p}, ptr {src}, i64 {size}, "
                     "i1 false)")
            else:
                e.do(f"call void @llvm.memset.p0.i64(ptr {p}, i8 0, i64 {size}, i1 false)")
        args = []
        for param, ty in zip(s.params, s.param_types, strict=True):
            args.append(f"{ty} {self._param(param, ty, element)}")
        call = f"call {s.callee_return} @{s.callee}({', '.join(args)})"
        if s.callee_return == "void":
            e.do(call)
        else:
            result = e(call, "result")
            struct = s.callee_return.startswith("{")
            for st in s.stores:
                value = e(f"extractvalue {s.callee_return} {result}, {st.field}") \
                    if struct else result
                ty = DTYPES[s.rets[st.ret].dtype][1]
                where = element("ret", st.ret)
                if not all(s.rets[st.ret].batch):  # summed over the batch axes it lacks
                    old = e(f"load {ty}, ptr {where}")
                    value = e(f"fadd {ty} {old}, {value}")
                e.do(f"store {ty} {value}, ptr {where}")
        if s.error_global is not None or s.error_param:
            self._check_record()
        e.do("br label %next")
        e.label("next")
        e.lines.append(f"  %n.next = add i64 {n}, 1")
        e.do("br label %loop")

    def _last_label(self) -> str:
        for line in reversed(self.e.lines[:-1]):
            if line.endswith(":") and not line.startswith(" "):
                return line[:-1]
        return "entry"

    def _param(self, p: Param, ty: str, element) -> str:
        e = self.e
        if p.kind == "data":
            return element(p.side, p.index)
        if p.kind == "dim":
            return self.bufs[p.side][p.index]["extents"][p.axis]
        if p.kind == "scratch":
            return self.scratch_ptrs[p.index][0]
        if p.kind == "const":
            return str(p.index)
        if p.kind == "record":
            return "%record"
        if p.kind == "value":
            mem = DTYPES[self.bufs[p.side][p.index]["spec"].dtype][1]
            v = e(f"load {mem}, ptr {element(p.side, p.index)}")
            if ty == "i1" and mem == "i8":
                return e(f"icmp ne i8 {v}, 0")
            return v
        raise ValueError(f"unknown parameter kind {p.kind!r}")

    def _check_record(self) -> None:
        """A failed check in the callee: format its site's message, clear the record."""
        s, e = self.spec, self.e
        g = "%record" if s.error_param else f"@{s.error_global}"
        site = e(f"load i64, ptr {g}", "site")
        failed = e(f"icmp ne i64 {site}, 0")
        ok, bad = self.block("record.ok"), self.block("record.failed")
        e.do(f"br i1 {failed}, label %{bad}, label %{ok}")
        e.label(bad)
        i = e.field(g, 8, "i64", "i")
        x = e.field(g, 16, "i64", "x")
        e.do(f"store i64 0, ptr {g}")
        n = len(s.messages)
        known = e(f"icmp ule i64 {site}, {n}")
        generic = self.string(f"enzyme_py.jax: {s.label}: check %lld failed (%lld)")
        if n:
            texts = [self.string(m.text) for m in s.messages]
            alts = [self.string(m.alt or m.text) for m in s.messages]
            table = f"@{s.name}.messages"
            alt_table = f"@{s.name}.messages.alt"
            codes = f"@{s.name}.codes"
            self.globals.append(f"{table} = private unnamed_addr constant [{n} x ptr] "
                                f"[{', '.join(f'ptr {t}' for t in texts)}]")
            self.globals.append(f"{alt_table} = private unnamed_addr constant [{n} x ptr] "
                                f"[{', '.join(f'ptr {t}' for t in alts)}]")
            self.globals.append(f"{codes} = private unnamed_addr constant [{n} x i32] "
                                f"[{', '.join(f'i32 {m.code}' for m in s.messages)}]")
            zero_site = e(f"icmp eq i64 {site}, 0")
            in_range = e(f"and i1 {known}, {e(f'xor i1 {zero_site}, true')}")
            at = e(f"sub i64 {site}, 1")
            safe = e(f"select i1 {in_range}, i64 {at}, i64 0")
            nonneg = e(f"icmp sge i64 {i}, 0")
            which = e(f"select i1 {nonneg}, ptr {alt_table}, ptr {table}")
            slot = e(f"getelementptr inbounds [{n} x ptr], ptr {which}, i64 0, i64 {safe}")
            fmt = e(f"load ptr, ptr {slot}")
            fmt = e(f"select i1 {in_range}, ptr {fmt}, ptr {generic}")
            cslot = e(f"getelementptr inbounds [{n} x i32], ptr {codes}, i64 0, i64 {safe}")
            code = e(f"load i32, ptr {cslot}")
            code = e(f"select i1 {in_range}, i32 {code}, i32 {ERR_INVALID_ARGUMENT}")
            self.fail_with(fmt, i, x, code)
        else:
            self.fail_with(generic, site, i, str(ERR_INVALID_ARGUMENT))
        e.label(ok)

    def _free_scratch(self) -> None:
        for slot in self.scratch_slots:
            p = self.e(f"load ptr, ptr {slot}")
            self.e.do(f"call void @free(ptr {p})")

    def _fail_block(self) -> None:
        e = self.e
        if not self.fails:
            return
        e.label("fail")

        def phi(ty: str, pick) -> str:
            return e(f"phi {ty} " + ", ".join(f"[ {pick(f)}, %{f[0]} ]" for f in self.fails))

        fmt = phi("ptr", lambda f: f[1])
        i = phi("i64", lambda f: f[2])
        x = phi("i64", lambda f: f[3])
        code = phi("i32", lambda f: f[4])
        self._free_scratch()
        e(f"call i32 (ptr, i64, ptr, ...) @snprintf(ptr %message, i64 {_MESSAGE_BYTES}, "
          f"ptr {fmt}, i64 {i}, i64 {x})")
        args = "%error.args"
        e.put(args, 0, "i64", str(_ERROR_ARGS_SIZE))
        e.put(args, 8, "ptr", "null")
        e.put(args, 16, "ptr", "%message")
        e.put(args, 24, "i32", code)
        create = e.field(self.api, _API_ERROR_CREATE, "ptr", "error.create")
        err = e(f"call ptr {create}(ptr {args})", "error")
        e.do(f"ret ptr {err}")


_DECLARATIONS = {
    "malloc": "declare ptr @malloc(i64)",
    "free": "declare void @free(ptr)",
    "snprintf": "declare i32 @snprintf(ptr, i64, ptr, ...)",
    "llvm.memset.p0.i64": "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)",
    "llvm.memcpy.p0.p0.i64": "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)",
}


def emit_handler(spec: HandlerSpec, version: tuple[int, int]) -> str:
    """The handler's LLVM text: its constants, then its definition (no declarations)."""
    h = _Handler(spec, version)
    body = h.emit()
    return "\n".join([*h.globals, "", body]) + "\n"


def link(module_text: str, spec: HandlerSpec, version: tuple[int, int]) -> str:
    """`module_text` with the handler of `spec` appended (and the declarations it needs that
    the module lacks)."""
    handler = emit_handler(spec, version)
    extra = [decl for name, decl in _DECLARATIONS.items()
             if f"@{name}(" in handler and
             not re.search(rf"^(declare|define)[^\n]*@{re.escape(name)}\(", module_text,
                           re.MULTILINE)]
    return "\n".join([module_text.rstrip(), "", handler, *extra]) + "\n"
