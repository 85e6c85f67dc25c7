"""The builder makes valid IR; the verifier names function, block and instruction."""

from __future__ import annotations

import numpy as np
import pytest

from enzyme_py import backend as jit
from enzyme_py.ir import Builder, Module, VerifyError, parse, verify
from enzyme_py.ir import types as T
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import ConstantFloat, ConstantInt


def build_poly_sum() -> Module:
    """sum_i (3 x_i^2 + 1) over a double array, with a phi loop."""
    m = Module("built")
    fn = m.add_function(Function("poly_sum", T.FunctionType(T.DOUBLE, (T.PTR, T.I64)),
                                 ["x", "n"]))
    x, n = fn.args
    entry, loop, done = fn.append_block("entry"), fn.append_block("loop"), fn.append_block("done")
    b = Builder(entry)
    b.br(loop)
    b.position_at_end(loop)
    i = b.phi(T.I64, name="i")
    acc = b.phi(T.DOUBLE, name="acc")
    p = b.getelementptr(T.DOUBLE, x, [i], name="p")
    xi = b.load(T.DOUBLE, p, align=8, name="xi")
    sq = b.fmul(xi, xi, name="sq")
    t = b.fmul(sq, ConstantFloat(T.DOUBLE, 3.0), name="t")
    t1 = b.fadd(t, ConstantFloat(T.DOUBLE, 1.0), name="t1")
    acc2 = b.fadd(acc, t1, name="acc")  # same name on purpose: the printer makes it unique
    i2 = b.add(i, ConstantInt(T.I64, 1), name="i.next")
    c = b.icmp("slt", i2, n, name="more")
    b.condbr(c, loop, done)
    i.add_incoming(ConstantInt(T.I64, 0), entry)
    i.add_incoming(i2, loop)
    acc.add_incoming(ConstantFloat(T.DOUBLE, 0.0), entry)
    acc.add_incoming(acc2, loop)
    b.position_at_end(done)
    b.ret(acc2)
    return m


def test_built_function_verifies_prints_and_runs():
    m = build_poly_sum()
    verify(m)
    text = str(m)
    assert "%acc.1 = fadd double %acc, %t1" in text
    assert str(parse(text)) == text
    f = jit.compile_ir(text).function("poly_sum")
    x = np.linspace(-1, 1, 17)
    assert f(x, len(x)) == pytest.approx(float(np.sum(3 * x * x + 1)), rel=1e-12)


def test_insert_before():
    m = build_poly_sum()
    fn = m.get_function("poly_sum")
    ret = fn.blocks[2].instructions[-1]
    b = Builder().position_before(ret)
    doubled = b.fmul(ret.operands[0], ConstantFloat(T.DOUBLE, 2.0), name="twice")
    ret.replace_operand(ret.operands[0], doubled)
    verify(m)
    assert [i.opcode for i in fn.blocks[2].instructions] == ["fmul", "ret"]


def _broken(body: str) -> Module:
    return parse(f"define double @g(double %a, i1 %c) {{\n{body}}}\n")


def test_use_not_dominated():
    m = _broken("entry:\n  br i1 %c, label %l, label %r\nl:\n  %v = fadd double %a, %a\n"
                "  br label %j\nr:\n  br label %j\nj:\n  ret double %v\n}\n".rstrip("}\n") + "\n")
    with pytest.raises(VerifyError) as info:
        verify(m)
    msg = str(info.value)
    assert "in function @g, block %j, instruction `ret double %v`" in msg
    assert "%v does not dominate this use" in msg


def test_phi_predecessor_mismatch():
    m = _broken("entry:\n  br label %j\nj:\n  %p = phi double [ %a, %entry ], [ %a, %j ]\n"
                "  ret double %p\n")
    with pytest.raises(VerifyError, match="phi incoming blocks do not match predecessors"):
        verify(m)


def test_type_mismatch_from_a_transform():
    m = _broken("entry:\n  %v = fadd double %a, %a\n  ret double %v\n")
    inst = m.get_function("g").entry.instructions[0]
    inst.operands[1] = m.get_function("g").args[1]  # an i1 into fadd
    with pytest.raises(VerifyError, match="operand types double, i1 differ from double"):
        verify(m)


def test_missing_terminator_and_detached_value():
    m = _broken("entry:\n  %v = fadd double %a, %a\n  ret double %v\n")
    fn = m.get_function("g")
    ret = fn.entry.instructions[-1]
    fn.entry.remove(ret)
    with pytest.raises(VerifyError, match="block does not end with a terminator"):
        verify(m)
    fn.entry.append(ret)
    fadd = fn.entry.instructions[0]
    fn.entry.remove(fadd)
    with pytest.raises(VerifyError, match="not in this function"):
        verify(m)


def test_return_type_checked():
    m = _broken("entry:\n  ret double %a\n")
    fn = m.get_function("g")
    fn.entry.instructions[-1].operands[0] = ConstantFloat(T.FLOAT, 1.0)
    with pytest.raises(VerifyError, match="returns float from a function returning double"):
        verify(m)
