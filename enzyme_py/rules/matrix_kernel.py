"""The matrix product kernel `@enzyme_py.gemm.<t>`: C += A @ B for a batch of matrices,
register-blocked, in LLVM IR.

    void @enzyme_py.gemm.f64(i64 batch, i64 m, i64 n, i64 k,
                             ptr a, i64 a.bs, i64 a.rs, i64 a.cs,
                             ptr b, i64 b.bs, i64 b.rs, i64 b.cs,
                             ptr c, i64 c.bs, i64 c.rs, i64 c.cs)

adds to each `c[q, i, j]` (q < batch, i < m, j < n) the products `a[q, i, p] * b[q, p, j]` for
p = 0, 1, ..., k-1, one at a time and in that order: `c = (((c + a0 b0) + a1 b1) + ...)`, a
multiply then an add (no fused multiply-add), so a product summed into a zeroed C has the
bits of the plain loop nest `C[q, i, :] += A[q, i, p] * B[q, p, :]`. Strides (`bs` between
matrices of the batch, `rs` between rows, `cs` between columns) are in elements, of any
sign, so a transposed, strided or broadcast view (stride 0) is passed as it is: the AD's rule
passes `B.T` as `b` with its strides swapped.

How it runs: columns of C in blocks of `NC` and depth in blocks of `KC`; for as many
matrices of the batch as fit in a stack buffer of `BUFFER` vectors, the blocks of B are
copied there, a panel of `NR` columns (one vector) at a time (lanes past n are zero; vector
loads where B's columns are contiguous, masked gathers otherwise); then for each group of
`MR` rows, and within it for each of those matrices (so rows of A and C whose
batch axis lies between their row and column axes are read in memory order), an `MR x NR`
tile per panel is kept in vector registers: loaded from C (plain vector loads where C's
rows are contiguous and the panel is full, masked loads where they are contiguous and the
panel is C's last, part full, masked gathers otherwise; a last panel of at most `NARROW`
columns takes a tile that narrow), the block's products added (A's element splatted times
B's vector), and stored back the same way; leftover rows take one tile of each shorter height of
`HEIGHTS` that fits (4, 2, 1 rows). Each element's
sum still runs over p in order: a block starts from what the previous one stored. Where C
is the same matrix for several q (stride 0: a broadcast operand's adjoint), its elements
take the products of those q one tile after another.

Invariants: C overlaps neither A nor B (except C with itself across q, stride 0); the
extents are >= 0 (nothing happens when one is 0); the function reads A and B, writes only
C, and allocates nothing on the heap. A module that calls it only declares it
(`matrix_kernel`: `nounwind memory(argmem: readwrite)`), so the optimizer keeps every call
and its arguments as they are and never reads the body, and the AD differentiates the call
by its rule (`ad/matrix_calls`): products of the shadows, never the kernel's instructions.
Its one definition (`kernel_text`) is compiled once per process and linked in
(`backend/shared_code`).
"""

from __future__ import annotations

from enzyme_py.ir import types as T
from enzyme_py.ir.module import Function, Module

PREFIX = "enzyme_py.gemm."
#: What a declaration of the kernel promises the optimizer about a call (see the docstring).
ATTRIBUTES = ("nounwind", "memory(argmem: readwrite)")
OUTPUT_ARGUMENT = 12  # `c`, the only memory the kernel writes
NR = 8  # columns of a panel: lanes of one vector
MR = 8  # rows of the tallest register tile
#: Heights of the tiles: as many of the tallest as fit, then at most one of each other
#: (more rows in a tile: more independent sums in flight).
HEIGHTS = (MR, 4, 2, 1)
KC = 128  # depth of a block
BUFFER = 1024  # vectors of the stack buffer for blocks of B (64 KiB of doubles)
NC = 64  # columns of a block: NC / NR panels

_TYPES = {"double": ("f64", 8), "float": ("f32", 4)}
_KERNEL_TYPE = T.FunctionType(T.VOID, (T.I64,) * 4 + (T.PTR, T.I64, T.I64, T.I64) * 3)


def kernel_name(elem: str) -> str:
    """`@enzyme_py.gemm.f64` for 'double', `.f32` for 'float'."""
    return PREFIX + _TYPES[elem][0]


def kernel_type(name: str) -> tuple[str, int]:
    """(IR float type, bytes) of the kernel `name` (`enzyme_py.gemm.f64`: 'double', 8)."""
    suffix = name[len(PREFIX):]
    return next((elem, size) for elem, (s, size) in _TYPES.items() if s == suffix)


def is_matrix_kernel(name: str | None) -> bool:
    return bool(name) and name.startswith(PREFIX)  # type: ignore[union-attr]


def matrix_kernel(module: Module, elem: str) -> Function:
    """`@enzyme_py.gemm.<t>` for the IR float type `elem` ('double' or 'float'), declared in
    `module` once (see the module docstring: the definition is linked in when it runs)."""
    if elem not in _TYPES:
        raise ValueError(f"no matrix kernel for {elem}")
    fn = module.declare_function(kernel_name(elem), _KERNEL_TYPE)
    fn.suffix = list(ATTRIBUTES)
    return fn


def _declarations(elem: str) -> str:
    """The masked memory intrinsics the kernel calls, for both tile widths."""
    suffix = _TYPES[elem][0]
    out = []
    for w in (NR, NARROW):
        v, vp, vm = f"<{w} x {elem}>", f"<{w} x ptr>", f"<{w} x i1>"
        out += [f"declare {v} @llvm.masked.gather.v{w}{suffix}.v{w}p0({vp}, {vm}, {v})",
                f"declare void @llvm.masked.scatter.v{w}{suffix}.v{w}p0({v}, {vp}, {vm})",
                f"declare {v} @llvm.masked.load.v{w}{suffix}.p0(ptr, {vm}, {v})",
                f"declare void @llvm.masked.store.v{w}{suffix}.p0({v}, ptr, {vm})"]
    return "\n".join(out) + "\n"


def kernel_text(elem: str) -> str:
    """The kernel's IR for the float type `elem`."""
    suffix, size = _TYPES[elem]
    v = f"<{NR} x {elem}>"
    head = f"""
define internal void @{kernel_name(elem)}(i64 %batch, i64 %m, i64 %n, i64 %k, ptr %a, \
i64 %a.bs, i64 %a.rs, i64 %a.cs, ptr %b, i64 %b.bs, i64 %b.rs, i64 %b.cs, ptr %c, \
i64 %c.bs, i64 %c.rs, i64 %c.cs) noinline {{
entry:
  %buffer = alloca [{BUFFER} x {v}], align 64
  %c.unit = icmp eq i64 %c.cs, 1
  %b.unit = icmp eq i64 %b.cs, 1
  %q.pos = icmp sgt i64 %batch, 0
  %m.pos = icmp sgt i64 %m, 0
  %n.pos = icmp sgt i64 %n, 0
  %k.pos = icmp sgt i64 %k, 0
  %qm.pos = and i1 %q.pos, %m.pos
  %nk.pos = and i1 %n.pos, %k.pos
  %work = and i1 %qm.pos, %nk.pos
{_row_bounds()}\
  br i1 %work, label %cols.head, label %done

cols.head:                                        ; columns j0 .. j0 + {NC} of C
  %j0 = phi i64 [ 0, %entry ], [ %j0.next, %cols.next ]
  %n.left = sub i64 %n, %j0
  %n.big = icmp sgt i64 %n.left, {NC}
  %nc = select i1 %n.big, i64 {NC}, i64 %n.left
  %nc.up = add i64 %nc, {NR - 1}
  %panels = udiv i64 %nc.up, {NR}
  br label %depth.head

depth.head:                                       ; depth p0 .. p0 + {KC}
  %p0 = phi i64 [ 0, %cols.head ], [ %p0.next, %depth.next ]
  %k.left = sub i64 %k, %p0
  %k.big = icmp sgt i64 %k.left, {KC}
  %kc = select i1 %k.big, i64 {KC}, i64 %k.left
  %per.batch = mul i64 %panels, %kc
  %fit = udiv i64 {BUFFER}, %per.batch
  br label %group.head

group.head:                                       ; the batches g0 .. g0 + gs
  %g0 = phi i64 [ 0, %depth.head ], [ %g0.next, %group.next ]
  %q.left = sub i64 %batch, %g0
  %q.big = icmp sgt i64 %q.left, %fit
  %gs = select i1 %q.big, i64 %fit, i64 %q.left
  br label %pack.batch

pack.batch:                                       ; their blocks of B, gathered
  %pq = phi i64 [ 0, %group.head ], [ %pq.next, %pack.batch.next ]
  %pq.index = add i64 %g0, %pq
  %pq.off = mul i64 %pq.index, %b.bs
  %pq.b = getelementptr {elem}, ptr %b, i64 %pq.off
  %pq.base = mul i64 %pq, %per.batch
  br label %pack.panel

pack.panel:                                       ; a panel at a time
  %pp = phi i64 [ 0, %pack.batch ], [ %pp.next, %pack.panel.next ]
{_lanes("pp", "b")}\
  %pp.skip = mul i64 %pp, %kc
  %pp.base = add i64 %pq.base, %pp.skip
  %pp.col.b = mul i64 %pp.col, %b.cs
  %pp.vec = and i1 %b.unit, %pp.full
  br i1 %pp.vec, label %pack.vec, label %pack.part

pack.part:
  br i1 %b.unit, label %pack.masked, label %pack.other
{_pack_loop(elem, size, "vec")}{_pack_loop(elem, size, "masked")}{_pack_loop(elem, size, "other")}
pack.panel.next:
  %pp.next = add i64 %pp, 1
  %pp.more = icmp slt i64 %pp.next, %panels
  br i1 %pp.more, label %pack.panel, label %pack.batch.next

pack.batch.next:
  %pq.next = add i64 %pq, 1
  %pq.more = icmp slt i64 %pq.next, %gs
  br i1 %pq.more, label %pack.batch, label %tiles.head

tiles.head:
  br label %rows{HEIGHTS[0]}.check
"""
    tail = f"""
group.next:
  %g0.next = add i64 %g0, %gs
  %g0.more = icmp slt i64 %g0.next, %batch
  br i1 %g0.more, label %group.head, label %depth.next

depth.next:
  %p0.next = add i64 %p0, {KC}
  %p0.more = icmp slt i64 %p0.next, %k
  br i1 %p0.more, label %depth.head, label %cols.next

cols.next:
  %j0.next = add i64 %j0, {NC}
  %j0.more = icmp slt i64 %j0.next, %n
  br i1 %j0.more, label %cols.head, label %done

done:
  ret void
}}

{_declarations(elem)}"""
    rows = []
    for at, height in enumerate(HEIGHTS):
        first = f"%m.to{HEIGHTS[at - 1]}" if at else "0"
        after = f"rows{HEIGHTS[at + 1]}.check" if height > 1 else "group.next"
        rows.append(f"""
rows{height}.check:                                   ; rows {first} .. %m.to{height}
  %any{height} = icmp slt i64 {first}, %m.to{height}
  br i1 %any{height}, label %t{height}.head, label %{after}
""")
        rows.append(_rows(elem, size, height, first=first, entry=f"rows{height}.check",
                          bound=f"%m.to{height}", after=after))
    return head + "".join(rows) + tail


def _row_bounds() -> str:
    """IR lines for `%m.to<h>` per tile height h of `HEIGHTS`: the rows that tiles of that
    height or a taller one cover (the tallest take all they can, each shorter one at most
    one tile of what is left; `%m.to1` is m)."""
    out, before = [], "0"
    for h in HEIGHTS:
        out.append(f"  %m.left{h} = sub i64 %m, {before}\n"
                   f"  %m.tiles{h} = udiv i64 %m.left{h}, {h}\n"
                   f"  %m.took{h} = mul i64 %m.tiles{h}, {h}\n"
                   f"  %m.to{h} = add i64 {before}, %m.took{h}\n")
        before = f"%m.to{h}"
    return "".join(out)


def _pack_loop(elem: str, size: int, how: str) -> str:
    """The loop that copies the block's rows of panel `%pp` of B into the buffer, by B's
    layout: `vec` (columns contiguous, the panel full: plain vector loads), `masked`
    (columns contiguous: a masked load) or `other` (any strides: a masked gather); lanes
    past n are zero."""
    suffix = _TYPES[elem][0]
    v = f"<{NR} x {elem}>"
    r = f"r.{how}"
    read = {
        "vec": f"  %{r}.vec = load {v}, ptr %{r}.first, align {size}\n",
        "masked": f"  %{r}.vec = call {v} @llvm.masked.load.v{NR}{suffix}.p0(ptr align {size} "
                  f"%{r}.first, <{NR} x i1> %pp.mask, {v} zeroinitializer)\n",
        "other": f"  %{r}.ptrs = getelementptr {elem}, ptr %{r}.at, <{NR} x i64> %pp.b.lanes\n"
                 f"  %{r}.vec = call {v} @llvm.masked.gather.v{NR}{suffix}.v{NR}p0(<{NR} x ptr> "
                 f"align {size} %{r}.ptrs, <{NR} x i1> %pp.mask, {v} zeroinitializer)\n",
    }[how]
    return f"""
pack.{how}:
  %{r} = phi i64 [ 0, %pack.{'part' if how != 'vec' else 'panel'} ], [ %{r}.next, %pack.{how} ]
  %{r}.row = add i64 %p0, %{r}
  %{r}.off = mul i64 %{r}.row, %b.rs
  %{r}.at = getelementptr {elem}, ptr %pq.b, i64 %{r}.off
  %{r}.first = getelementptr {elem}, ptr %{r}.at, i64 %pp.col.b
{read}\
  %{r}.index = add i64 %pp.base, %{r}
  %{r}.slot = getelementptr {v}, ptr %buffer, i64 %{r}.index
  store {v} %{r}.vec, ptr %{r}.slot, align 64
  %{r}.next = add i64 %{r}, 1
  %{r}.more = icmp slt i64 %{r}.next, %kc
  br i1 %{r}.more, label %pack.{how}, label %pack.panel.next
"""


def _lanes(panel: str, of: str) -> str:
    """IR lines for panel `%panel` of the column block: its first column `%panel.col`, and
    (`_lane_vectors`) which of its `NR` lanes lie inside C and where they are in `of`."""
    return f"""\
  %{panel}.first = mul i64 %{panel}, {NR}
  %{panel}.col = add i64 %j0, %{panel}.first
{_lane_vectors(panel, f"%{panel}.col", of, NR)}"""


def _lane_vectors(name: str, col: str, of: str, width: int) -> str:
    """IR lines for `width` lanes from column `col`: `%name.left` (columns of C from `col`
    on), `%name.full` (all lanes inside C), `%name.mask` (the lanes inside) and
    `%name.<of>.lanes` (each lane's column times `%<of>.cs`)."""
    lanes = ", ".join(f"i64 {i}" for i in range(width))
    vi = f"<{width} x i64>"
    return f"""\
  %{name}.left = sub i64 %n, {col}
  %{name}.full = icmp sge i64 %{name}.left, {width}
  %{name}.left.ins = insertelement {vi} poison, i64 %{name}.left, i64 0
  %{name}.left.v = shufflevector {vi} %{name}.left.ins, {vi} poison, \
<{width} x i32> zeroinitializer
  %{name}.mask = icmp slt {vi} <{lanes}>, %{name}.left.v
  %{name}.col.ins = insertelement {vi} poison, i64 {col}, i64 0
  %{name}.col.v = shufflevector {vi} %{name}.col.ins, {vi} poison, <{width} x i32> zeroinitializer
  %{name}.cols = add {vi} %{name}.col.v, <{lanes}>
  %{name}.{of}.cs.ins = insertelement {vi} poison, i64 %{of}.cs, i64 0
  %{name}.{of}.cs.v = shufflevector {vi} %{name}.{of}.cs.ins, {vi} poison, \
<{width} x i32> zeroinitializer
  %{name}.{of}.lanes = mul {vi} %{name}.cols, %{name}.{of}.cs.v
"""


#: Lanes of the narrow tile, used for a last panel with at most this many columns left.
NARROW = 4


def _rows(elem: str, size: int, rows: int, first: str, entry: str, bound: str,
          after: str) -> str:
    """The loop over groups of `rows` rows from row `first` (reached from block `entry`)
    while below `bound`, then on to block `after`; in each group, for each batch of the
    group of batches, a tile per panel: `NR` lanes wide, or `NARROW` for a last panel with
    no more columns left than that."""
    t = f"t{rows}"
    out = [f"""
{t}.head:                                          ; rows i .. i + {rows}
  %{t}.i = phi i64 [ {first}, %{entry} ], [ %{t}.i.next, %{t}.batch.next ]
"""]
    for r in range(rows):
        out.append(f"""\
  %{t}.i{r} = add i64 %{t}.i, {r}
  %{t}.c.off{r} = mul i64 %{t}.i{r}, %c.rs
  %{t}.a.off{r} = mul i64 %{t}.i{r}, %a.rs
""")
    out.append(f"""\
  br label %{t}.batch

{t}.batch:                                         ; these rows of one batch
  %{t}.q = phi i64 [ 0, %{t}.head ], [ %{t}.q.next, %{t}.panel.next ]
  %{t}.q.index = add i64 %g0, %{t}.q
  %{t}.q.c = mul i64 %{t}.q.index, %c.bs
  %{t}.q.a = mul i64 %{t}.q.index, %a.bs
  %{t}.q.base = mul i64 %{t}.q, %per.batch
""")
    for r in range(rows):
        out.append(f"""\
  %{t}.c.at.row{r} = add i64 %{t}.q.c, %{t}.c.off{r}
  %{t}.c.row{r} = getelementptr {elem}, ptr %c, i64 %{t}.c.at.row{r}
  %{t}.a.at.row{r} = add i64 %{t}.q.a, %{t}.a.off{r}
  %{t}.a.row{r} = getelementptr {elem}, ptr %a, i64 %{t}.a.at.row{r}
""")
    out.append(f"""\
  br label %{t}.panel

{t}.panel:                                         ; one tile: these rows, one panel
  %{t}.pp = phi i64 [ 0, %{t}.batch ], [ %{t}.pp.next, %{t}.stored ]
  %{t}.first = mul i64 %{t}.pp, {NR}
  %{t}.col = add i64 %j0, %{t}.first
  %{t}.c.j = mul i64 %{t}.col, %c.cs
  %{t}.skip = mul i64 %{t}.pp, %kc
  %{t}.base = add i64 %{t}.q.base, %{t}.skip
  %{t}.cols.left = sub i64 %n, %{t}.col
  %{t}.narrow = icmp sle i64 %{t}.cols.left, {NARROW}
  br i1 %{t}.narrow, label %{t}.w{NARROW}, label %{t}.w{NR}
""")
    for width in (NR, NARROW):
        out.append(_tile(elem, size, rows, t, width))
    out.append(f"""
{t}.stored:
  %{t}.pp.next = add i64 %{t}.pp, 1
  %{t}.pp.more = icmp slt i64 %{t}.pp.next, %panels
  br i1 %{t}.pp.more, label %{t}.panel, label %{t}.panel.next

{t}.panel.next:
  %{t}.q.next = add i64 %{t}.q, 1
  %{t}.q.more = icmp slt i64 %{t}.q.next, %gs
  br i1 %{t}.q.more, label %{t}.batch, label %{t}.batch.next

{t}.batch.next:
  %{t}.i.next = add i64 %{t}.i, {rows}
  %{t}.i.more = icmp slt i64 %{t}.i.next, {bound}
  br i1 %{t}.i.more, label %{t}.head, label %{after}
""")
    return "".join(out)


def _tile(elem: str, size: int, rows: int, t: str, width: int) -> str:
    """The `rows x width` tile of rows `%t.i...` at column `%t.col`: loaded from C, the
    block's products added in order of p, stored back; then on to `%t.stored`."""
    suffix = _TYPES[elem][0]
    v = f"<{width} x {elem}>"
    vp, vm = f"<{width} x ptr>", f"<{width} x i1>"
    gather = f"llvm.masked.gather.v{width}{suffix}.v{width}p0"
    scatter = f"llvm.masked.scatter.v{width}{suffix}.v{width}p0"
    load = f"llvm.masked.load.v{width}{suffix}.p0"
    store = f"llvm.masked.store.v{width}{suffix}.p0"
    w = f"{t}.w{width}"
    out = [f"""
{w}:                                               ; {rows} x {width}
{_lane_vectors(w, f"%{t}.col", "c", width)}\
  %{w}.vec = and i1 %c.unit, %{w}.full
"""]
    for r in range(rows):
        out.append(f"  %{w}.c.at{r} = getelementptr {elem}, ptr %{t}.c.row{r}, i64 %{t}.c.j\n"
                   f"  %{w}.c.ptrs{r} = getelementptr {elem}, ptr %{t}.c.row{r}, "
                   f"<{width} x i64> %{w}.c.lanes\n")
    out.append(_by_layout(
        w, "load", f"{w}.loaded",
        [f"  %{w}.lv{r} = load {v}, ptr %{w}.c.at{r}, align {size}\n" for r in range(rows)],
        [f"  %{w}.lm{r} = call {v} @{load}(ptr align {size} %{w}.c.at{r}, {vm} %{w}.mask, "
         f"{v} zeroinitializer)\n" for r in range(rows)],
        [f"  %{w}.lg{r} = call {v} @{gather}({vp} align {size} %{w}.c.ptrs{r}, "
         f"{vm} %{w}.mask, {v} zeroinitializer)\n" for r in range(rows)]))
    out.append(f"\n{w}.loaded:\n")
    for r in range(rows):
        out.append(f"  %{w}.init{r} = phi {v} [ %{w}.lv{r}, %{w}.load.vec ], "
                   f"[ %{w}.lm{r}, %{w}.load.masked ], [ %{w}.lg{r}, %{w}.load.other ]\n")
    out.append(f"  br label %{w}.inner\n\n{w}.inner:\n"
               f"  %{w}.p = phi i64 [ 0, %{w}.loaded ], [ %{w}.p.next, %{w}.inner ]\n")
    for r in range(rows):
        out.append(f"  %{w}.acc{r} = phi {v} [ %{w}.init{r}, %{w}.loaded ], "
                   f"[ %{w}.sum{r}, %{w}.inner ]\n")
    out.append(f"""\
  %{w}.index = add i64 %{t}.base, %{w}.p
  %{w}.slot = getelementptr <{NR} x {elem}>, ptr %buffer, i64 %{w}.index
  %{w}.bv = load {v}, ptr %{w}.slot, align 32
  %{w}.col.p = add i64 %p0, %{w}.p
  %{w}.a.col = mul i64 %{w}.col.p, %a.cs
""")
    for r in range(rows):
        out.append(f"""\
  %{w}.a.at{r} = getelementptr {elem}, ptr %{t}.a.row{r}, i64 %{w}.a.col
  %{w}.x{r} = load {elem}, ptr %{w}.a.at{r}, align {size}
  %{w}.xi{r} = insertelement {v} poison, {elem} %{w}.x{r}, i64 0
  %{w}.xs{r} = shufflevector {v} %{w}.xi{r}, {v} poison, <{width} x i32> zeroinitializer
  %{w}.prod{r} = fmul {v} %{w}.xs{r}, %{w}.bv
  %{w}.sum{r} = fadd {v} %{w}.acc{r}, %{w}.prod{r}
""")
    out.append(f"""\
  %{w}.p.next = add i64 %{w}.p, 1
  %{w}.p.more = icmp slt i64 %{w}.p.next, %kc
  br i1 %{w}.p.more, label %{w}.inner, label %{w}.store

{w}.store:
""")
    out.append(_by_layout(
        w, "store", f"{t}.stored",
        [f"  store {v} %{w}.sum{r}, ptr %{w}.c.at{r}, align {size}\n" for r in range(rows)],
        [f"  call void @{store}({v} %{w}.sum{r}, ptr align {size} %{w}.c.at{r}, "
         f"{vm} %{w}.mask)\n" for r in range(rows)],
        [f"  call void @{scatter}({v} %{w}.sum{r}, {vp} align {size} %{w}.c.ptrs{r}, "
         f"{vm} %{w}.mask)\n" for r in range(rows)]))
    return "".join(out)


def _by_layout(w: str, what: str, join: str, plain: list[str], masked: list[str],
               other: list[str]) -> str:
    """Blocks `%w.<what>.vec`, `.masked` and `.other` holding the given lines, one of them
    run by C's layout (`%w.vec`: rows contiguous and the panel full; `%c.unit`: rows
    contiguous; else any strides), each then on to block `join`."""
    return (f"  br i1 %{w}.vec, label %{w}.{what}.vec, label %{w}.{what}.part\n\n"
            f"{w}.{what}.vec:\n{''.join(plain)}  br label %{join}\n\n"
            f"{w}.{what}.part:\n"
            f"  br i1 %c.unit, label %{w}.{what}.masked, label %{w}.{what}.other\n\n"
            f"{w}.{what}.masked:\n{''.join(masked)}  br label %{join}\n\n"
            f"{w}.{what}.other:\n{''.join(other)}  br label %{join}\n")
