"""The IR verifier: structure, operand types, and SSA dominance.

Invariant: `verify(module)` returns None for a well-formed module and otherwise raises
`VerifyError` listing up to `MAX_PROBLEMS` problems, each naming the function, the block and the
instruction's text, led by `file:line` where the instruction was parsed (`Instruction.loc`).
A use must be dominated by its definition; a phi's incoming value by the end of its incoming
block. It checks what our transforms can get wrong; LLVM re-verifies everything
when the backend parses the printed text.
"""

from __future__ import annotations

from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.dominance import Dominators, dominators, predecessors
from enzyme_py.ir.errors import VerifyError
from enzyme_py.ir.module import Block, Function, Module
from enzyme_py.ir.printer import FunctionPrinter
from enzyme_py.ir.values import Argument, Placeholder, Value

MAX_PROBLEMS = 10

_INT_ONLY = frozenset({"add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr",
                       "ashr", "and", "or", "xor"})


def verify(module: Module) -> None:
    """Raise `VerifyError` if any function of `module` is malformed."""
    problems: list[str] = []
    for fn in module.functions:
        if not fn.is_declaration:
            problems.extend(verify_function(fn, raise_error=False))
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise VerifyError(_summary(problems))


def _summary(problems: list[str]) -> str:
    head = f"IR verification failed ({len(problems)} problem{'s' * (len(problems) > 1)}):"
    return "\n".join([head, *("  " + p for p in problems[:MAX_PROBLEMS])])


def verify_function(fn: Function, raise_error: bool = True) -> list[str]:
    """Problems found in `fn` (raises `VerifyError` instead when `raise_error`)."""
    checker = _FunctionChecker(fn)
    checker.run()
    if checker.problems and raise_error:
        raise VerifyError(_summary(checker.problems))
    return checker.problems


class _FunctionChecker:
    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self._printer: FunctionPrinter | None = None
        self.problems: list[str] = []
        self.blocks = set(fn.blocks)

    @property
    def printer(self) -> FunctionPrinter:
        """The function's printer, for the messages (made at the first problem: numbering
        the slots of a large function costs about as much as checking it)."""
        if self._printer is None:
            self._printer = FunctionPrinter(self.fn)
        return self._printer

    def report(self, block: Block | None, inst: I.Instruction | None, message: str) -> None:
        where = f"in function @{self.fn.name}"
        if block is not None:
            where += f", block {self.printer.slots.local(block)}"
        if inst is not None:
            text = self.printer.instruction(inst).split("\n")[0].strip()
            where += f", instruction `{text}`"
            if inst.loc is not None:
                where = f"{inst.loc}: {where}"
        self.problems.append(f"{where}: {message}")

    def run(self) -> None:
        fn = self.fn
        positions: dict[I.Instruction, tuple[Block, int]] = {}
        for block in fn.blocks:
            if block.parent is not fn:
                self.report(block, None, "block's parent is another function")
            if not block.instructions:
                self.report(block, None, "empty block (needs a terminator)")
                continue
            for idx, inst in enumerate(block.instructions):
                positions[inst] = (block, idx)
                if inst.parent is not block:
                    self.report(block, inst, "instruction's parent is another block")
                last = idx == len(block.instructions) - 1
                if inst.is_terminator != last:
                    msg = ("block does not end with a terminator" if last
                           else "terminator in the middle of a block")
                    self.report(block, inst, msg)
                if isinstance(inst, I.Phi) and idx > block.first_non_phi_index():
                    self.report(block, inst, "phi after a non-phi instruction")
                for succ in inst.successors():
                    if succ not in self.blocks:
                        self.report(block, inst, "branch to a block outside the function")
                self.check_types(block, inst)
        if len(self.problems) > 0:
            return
        preds = predecessors(fn)
        if preds[fn.entry]:
            self.report(fn.entry, None, "the entry block has predecessors")
        self.check_phis(preds)
        self.check_dominance(dominators(fn), positions)

    def check_phis(self, preds: dict[Block, list[Block]]) -> None:
        for block in self.fn.blocks:
            expected = set(preds[block])
            for phi in block.phis():
                got = set(phi.incoming_blocks)
                if got != expected:
                    missing = [self.printer.slots.local(b) for b in expected - got]
                    extra = [self.printer.slots.local(b) for b in got - expected]
                    self.report(block, phi, f"phi incoming blocks do not match predecessors "
                                f"(missing {missing}, not predecessors {extra})")
                for v in phi.operands:
                    if v.type != phi.type:
                        self.report(block, phi, f"incoming value of type {v.type}")

    def check_dominance(self, dom: Dominators,
                        positions: dict[I.Instruction, tuple[Block, int]]) -> None:
        for block in self.fn.blocks:
            if not dom.is_reachable(block):
                continue
            for idx, inst in enumerate(block.instructions):
                if isinstance(inst, I.Phi):
                    for v, pred in zip(inst.operands, inst.incoming_blocks, strict=True):
                        self.check_def(v, block, inst, positions, dom, at_end_of=pred)
                    continue
                for v in inst.operands:
                    self.check_def(v, block, inst, positions, dom, index=idx)

    def check_def(self, v: Value, block: Block, inst: I.Instruction,
                  positions: dict[I.Instruction, tuple[Block, int]], dom: Dominators,
                  index: int = 0, at_end_of: Block | None = None) -> None:
        if isinstance(v, Placeholder):
            self.report(block, inst, f"unresolved forward reference {v.key}")
            return
        if isinstance(v, Argument):
            if v.parent is not self.fn:
                self.report(block, inst, "uses an argument of another function")
            return
        if isinstance(v, Block):
            self.report(block, inst, "a block used as a data operand")
            return
        if not isinstance(v, I.Instruction):
            return
        pos = positions.get(v)
        if pos is None:
            self.report(block, inst, f"uses {self.printer.ref(v)}, which is not in this "
                        "function (deleted, or from another function)")
            return
        def_block, def_idx = pos
        if at_end_of is not None:
            ok = dom.dominates(def_block, at_end_of)
        elif def_block is block:
            ok = def_idx < index
        else:
            ok = dom.dominates(def_block, block)
        if not ok:
            local = self.printer.slots.local
            at = f" (at {v.loc})" if v.loc is not None else ""
            why = f"{self.printer.ref(v)} does not dominate this use: it is defined "
            if def_block is block and at_end_of is None:
                why += f"later in the same block{at}"
            else:
                use = (f"the end of incoming block {local(at_end_of)}" if at_end_of is not None
                       else f"block {local(block)}")
                why += f"in block {local(def_block)}{at}, which does not dominate {use}"
            self.report(block, inst, why)

    def check_types(self, block: Block, inst: I.Instruction) -> None:
        ops = inst.operands
        op = inst.opcode
        bad = None
        if isinstance(inst, I.BinaryOp):
            if ops[0].type != inst.type or ops[1].type != inst.type:
                bad = f"operand types {ops[0].type}, {ops[1].type} differ from {inst.type}"
            elif op in I.FLOAT_BINARY_OPS and not inst.type.is_fp_or_fp_vector:
                bad = f"{op} needs floating point operands"
            elif op in _INT_ONLY and not inst.type.scalar.is_int:
                bad = f"{op} needs integer operands"
        elif isinstance(inst, I.UnaryOp):
            if not inst.type.is_fp_or_fp_vector or ops[0].type != inst.type:
                bad = "fneg needs a floating point operand of the result type"
        elif isinstance(inst, I.Compare):
            if ops[0].type != ops[1].type:
                bad = f"compared types differ ({ops[0].type}, {ops[1].type})"
            elif op == "fcmp" and not ops[0].type.is_fp_or_fp_vector:
                bad = "fcmp needs floating point operands"
        elif isinstance(inst, I.Select):
            if ops[1].type != ops[2].type or ops[1].type != inst.type:
                bad = "select arms have different types"
            elif ops[0].type.scalar != T.I1:
                bad = "select condition must be i1"
        elif isinstance(inst, (I.Load, I.Store)):
            if not inst.operands[-1].type.is_pointer:
                bad = "memory operand is not a pointer"
        elif isinstance(inst, I.Br):
            if ops and ops[0].type != T.I1:
                bad = "branch condition must be i1"
        elif isinstance(inst, I.Ret):
            want = self.fn.return_type
            got = ops[0].type if ops else T.VOID
            if got != want:
                bad = f"returns {got} from a function returning {want}"
        elif isinstance(inst, I.Call):
            ft = inst.function_type
            args = inst.args
            if len(args) < len(ft.params) or (len(args) > len(ft.params) and not ft.vararg):
                bad = f"{len(args)} arguments for a function type with {len(ft.params)}"
            else:
                for i, (a, p) in enumerate(zip(args, ft.params, strict=False)):
                    if a.type != p:
                        bad = f"argument {i} has type {a.type}, expected {p}"
                        break
            if len(inst.arg_attrs) != len(args):
                bad = "argument attribute list does not match the arguments"
        if bad is not None:
            self.report(block, inst, bad)
