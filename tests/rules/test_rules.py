"""Every registered rule, checked numerically: jvp against central finite differences and
<vjp(u), v> == <u, jvp(v)>, at random points of its `Spec` (one JIT module per rule)."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest

from enzyme_py.ir import Builder, Module, verify
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.module import Function
from enzyme_py.rules import registry
from enzyme_py.rules.registry import Rule
from tests.rules import harness as H

RULES = registry.all_rules()
OPCODES = I.BINARY_OPS | I.CAST_OPS | {
    "fneg", "select", "phi", "freeze", "fcmp", "icmp", "load", "store", "call", "invoke",
    "extractelement", "insertelement", "shufflevector", "extractvalue", "insertvalue",
    "atomicrmw", "cmpxchg", "getelementptr", "alloca", "va_arg"}


def names_of(rule: Rule) -> list[str]:
    return [rule.name, *sorted(a for a, c in registry.ALIASES.items() if c == rule.name)]


def spec_of(rule: Rule) -> registry.Spec:
    if rule.spec is None:
        pytest.fail(f"rule {rule.name!r} ({rule.where}) has no Spec: pass spec=Spec(...) to "
                    "@rule so the suite can check it")
    return rule.spec


@pytest.mark.parametrize("name", sorted(RULES))
def test_rule_has_spec(name: str) -> None:
    spec = spec_of(RULES[name])
    assert spec.domain, f"{name}: empty domain"
    for lo, hi in spec.domain:
        assert lo <= hi


ELSEWHERE = sorted(n for n, r in RULES.items() if r.spec is not None and r.spec.checked_in)


@pytest.mark.parametrize("name", ELSEWHERE)
def test_rule_checked_elsewhere_names_a_real_test(name: str) -> None:
    path, _, test = spec_of(RULES[name]).checked_in.partition("::")
    source = (Path(__file__).parents[2] / path).read_text()
    assert f"def {test}(" in source, f"{name}: {path} has no test {test!r}"


@pytest.mark.parametrize("name", sorted(n for n in RULES if n not in H.NO_DERIVATIVE and
                                        n not in ELSEWHERE))
def test_rule_numerics(name: str) -> None:
    rule = RULES[name]
    spec = spec_of(rule)
    cases = H.opcode_cases(name)
    if cases is None:
        assert name not in OPCODES, f"no test cases for opcode {name!r}: teach harness.py"
        cases = H.call_cases(names_of(rule), spec)
    else:  # C names of an instruction's math (`fmod` for `frem`)
        cases += H.call_cases(names_of(rule)[1:], spec)
    assert cases, f"no test cases for rule {name!r}: teach tests/rules/harness.py"
    jm, built = H.jit_cases(rule, cases)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    failures = [f for b in built for f in H.check(jm, b, spec, rng)]
    assert not failures, "\n".join(failures[:8])


@pytest.mark.parametrize("name", sorted(H.NO_DERIVATIVE))
def test_rule_without_derivative(name: str) -> None:
    types, make = H.NO_DERIVATIVE[name]
    module = Module()
    fn = module.add_function(Function("f", T.FunctionType(T.VOID, types)))
    b = Builder(fn.append_block("entry"))
    inst = make(b, module, list(fn.args))
    partials = H.partials_of(RULES[name], b, inst)
    assert all(p is None for p in partials)
    b.ret()
    verify(module)
