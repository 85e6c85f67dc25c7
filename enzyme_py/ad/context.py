"""What every derivation shares, whatever its mode: the primal function and its working copy,
the module's registrations and cache of derived functions, the frozen analysis results, the
alloca block, the C library, and the errors that name where a problem is.

A transform opens a context (`open_derivation`): checks the request, copies `f` into a new
function (blocks named after `f`'s numbering, arguments keeping `f`'s attributes for the alias
analysis), and rewrites what both modes rewrite first (integer copies of floats). The mode then
rewrites what it needs (each gives invokes an edge block of their own: `split_invoke_edges`)
and calls `analyze` once.

Invariants: `f` is never modified; `entry` is the working copy's first block as cloned (the
alloca block, made on first use, goes before it); after `analyze` the analysis results are
never recomputed; messages name the user's function, block and instruction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from enzyme_py.ad.derived import DerivedFunctions
from enzyme_py.ad.device import DevicePolicy, device_policy
from enzyme_py.ad.float_memory import rewrite_float_copies
from enzyme_py.ad.libc import LibC
from enzyme_py.ad.registrations import Registrations, find_registrations
from enzyme_py.analysis.activity import ActivityResult, analyze_activity
from enzyme_py.analysis.errors import AnalysisError, DifferentiationError
from enzyme_py.analysis.globals import globals_shared_with_callees
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_body
from enzyme_py.ir.module import Block, Function, GlobalVariable, Module
from enzyme_py.ir.printer import Slots
from enzyme_py.ir.values import Value


def check_request(fn: Function, activities: list[str]) -> None:
    """A derivative can be asked of `fn` with these activities (one per argument)."""
    check_body(fn)
    check_arity(fn, activities)


def check_body(fn: Function) -> None:
    if fn.is_declaration:
        raise DifferentiationError(f"@{fn.name} has no body to differentiate")


def check_arity(fn: Function, activities: list[str]) -> None:
    if len(activities) != len(fn.args):
        raise DifferentiationError(f"@{fn.name} takes {len(fn.args)} arguments, but "
                                   f"{len(activities)} activities were given")


@contextmanager
def analysis_errors() -> Iterator[None]:
    """An analysis' error, raised as the transform's."""
    try:
        yield
    except AnalysisError as exc:
        raise DifferentiationError(str(exc)) from None


class DerivationContext:
    """One derivation of `primal` in `module`, as both modes see it."""

    registrations: Registrations
    activity: ActivityResult
    shared_globals: frozenset[GlobalVariable]

    def __init__(self, module: Module, primal: Function, work: Function,
                 activities: list[str], device: DevicePolicy) -> None:
        self.module = module
        self.device = device  # what runs differently on a GPU (`device.py`)
        self.primal = primal
        self.work = work
        self.activities = activities
        self.entry = work.blocks[0]
        self.libc = LibC(module)
        self.derived = DerivedFunctions(module)
        self._alloca_block: Block | None = None

    def analyze(self, activities: list[str], return_active: bool, *, return_shadow: bool,
                shared_globals: tuple[str, ...] | None) -> None:
        """Read the registrations and run the activity analysis (`activities` in the
        analysis' terms). `shared_globals`: the names of the globals the outermost derivative
        shares with its callees, or None in the outermost one (found here)."""
        with analysis_errors():
            self.registrations = find_registrations(self.module)
            if shared_globals is not None:
                self.shared_globals = frozenset(self.module.symbols[n]  # type: ignore[misc]
                                                for n in shared_globals)
            else:
                self.shared_globals = globals_shared_with_callees(
                    self.work, self.registrations.keep_calls)
            self.activity = analyze_activity(
                self.work, activities, return_active, self.registrations.inactive,
                return_shadow=return_shadow, dup_globals=self.shared_globals)

    def shared_global_names(self) -> tuple[str, ...]:
        """The shared globals as a callee's derivative is asked for them (a cache key)."""
        return tuple(sorted(v.name or "" for v in self.shared_globals))

    def is_active(self, v: Value) -> bool:
        return self.activity.is_active(v)

    def error(self, inst: I.Instruction, message: str) -> DifferentiationError:
        slots = Slots(self.work)
        block = slots.local(inst.parent) if inst.parent else "?"
        text = str(inst).split("\n")[0].strip()
        return DifferentiationError(
            f"in @{self.primal.name}, block {block}, instruction `{text}`: {message}")

    @property
    def alloca_block(self) -> Block:
        """A new first block for every slot (so SROA can promote them) and for code that
        must run before anything else; made on first use (`make_alloca_block`)."""
        return self.make_alloca_block()

    def make_alloca_block(self) -> Block:
        """The alloca block, made now if it does not exist yet, with the entry's static
        allocas moved into it."""
        if self._alloca_block is None:
            entry = self.entry
            block = Block("alloca", self.work)
            self.work.blocks.insert(0, block)
            for inst in list(entry.instructions):
                if isinstance(inst, I.Alloca) and not inst.operands:
                    entry.remove(inst)
                    block.append(inst)
            block.append(I.Br([entry]))
            self._alloca_block = block
        return self._alloca_block

    def at_start(self) -> Builder:
        """A builder at the end of the alloca block (before its branch to the entry)."""
        return Builder().position_before(self.alloca_block.instructions[-1])

    def entry_alloca(self, ty: T.Type, name: str, init: Value | None = None) -> I.Instruction:
        at = self.at_start()
        slot = at.alloca(ty, name=name)
        if init is not None:
            at.store(init, slot)
        return slot


def open_derivation(module: Module, fn: Function, activities: list[str], *,
                    atomics: bool = True) -> DerivationContext:
    """Check the request and make the working copy of `fn` (registered nowhere yet: the
    mode names it and adds it to the module when it is done). `atomics`: see
    `device.device_policy`."""
    check_request(fn, activities)
    # The copy keeps f's name while it is analysed, so messages name the user's function.
    work = Function(fn.name or "f", fn.function_type, [a.name for a in fn.args])
    work.parent = module
    for src_arg, arg in zip(fn.args, work.args, strict=True):
        arg.attrs = list(src_arg.attrs)  # noalias/readonly inform the alias analysis
    clone_body(fn, work, dict(zip(fn.args, work.args, strict=True)))
    work.personality = fn.personality  # landing pads need the same personality
    _name_blocks(fn, work)
    rewrite_float_copies(work)
    return DerivationContext(module, fn, work, activities, device_policy(module, fn, atomics))


def split_invoke_edges(fn: Function) -> None:
    """Give each invoke a normal destination of its own (a block that only branches on):
    code that must follow it (reading a split callee's tape, storing its result on the
    tape, the results of an invoked derivative) goes there. Done on the working copy before
    any analysis."""
    for inst in list(fn.instructions()):
        if not isinstance(inst, I.Invoke):
            continue
        normal, here = inst.normal, inst.parent
        assert here is not None
        preds = [b for b in fn.blocks if normal in b.successors()]
        if len(preds) == 1 and here.successors().count(normal) == 1:
            continue
        edge = Block(f"{normal.name or 'bb'}.from.invoke", fn)
        fn.blocks.insert(fn.blocks.index(here) + 1, edge)
        edge.append(I.Br([normal]))
        inst.normal = edge
        for phi in normal.phis():
            phi.replace_block(here, edge)


def _name_blocks(src: Function, dst: Function) -> None:
    """Anonymous blocks get `bbN` names from the original's numbering (readable `rev.bbN`)."""
    slots = Slots(src)
    for s, d in zip(src.blocks, dst.blocks, strict=True):
        if not s.name:
            d.name = "bb" + slots.block_label(s)
