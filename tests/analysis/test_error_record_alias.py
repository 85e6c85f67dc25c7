"""The front end's error record (`enzyme_py.error.N`) aliases no argument when nothing takes its
address: a write of the record must not make the tape cache what the function reads from its
arguments (the JAX vjp form keeps the record a global until after AD)."""

from __future__ import annotations

from enzyme_py.analysis.memory import may_alias_objects
from enzyme_py.ir import parse

BODY = """
@{name} = global [3 x i64] zeroinitializer
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @keep(ptr)

define double @f(ptr %a) {{
  %v = load double, ptr %a
  store i64 1, ptr @{name}
  call void @llvm.memset.p0.i64(ptr getelementptr (i8, ptr @{name}, i64 8), i8 0, i64 16,
                                 i1 false)
  {extra}
  ret double %v
}}
"""


def _objects(name: str, extra: str = ""):
    m = parse(BODY.format(name=name, extra=extra).replace(",\n" + " " * 33, ", "))
    return m.get_function("f").args[0], m.symbols[name]


def test_the_record_aliases_no_argument() -> None:
    arg, record = _objects("enzyme_py.error.3")
    assert not may_alias_objects(arg, record) and not may_alias_objects(record, arg)
    assert may_alias_objects(record, record)


def test_unless_its_address_is_taken() -> None:
    arg, record = _objects("enzyme_py.error.3", "call void @keep(ptr @enzyme_py.error.3)")
    assert may_alias_objects(arg, record)


def test_any_other_global_may_alias_an_argument() -> None:
    arg, user = _objects("table")
    assert may_alias_objects(arg, user)
