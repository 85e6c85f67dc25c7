"""Globals in an address space other than 0 (CUDA's shared memory): their address is a
`ptr addrspace(N)`, so constant expressions that use them print and round-trip exactly."""

from __future__ import annotations

from enzyme_py.backend import parse_llvm
from enzyme_py.ir import parse
from enzyme_py.ir import types as T

SHARED = """target triple = "nvptx64-nvidia-cuda"

@buf = internal addrspace(3) global [4 x double] undef, align 8

define double @f(i64 %i) {
entry:
  %p = getelementptr inbounds double, ptr addrspacecast (ptr addrspace(3) @buf to ptr), i64 %i
  %v = load double, ptr %p, align 8
  ret double %v
}
"""


def test_the_global_is_a_pointer_in_its_space() -> None:
    m = parse(SHARED)
    assert m.get_global("buf").type == T.PointerType(3)
    text = str(m)
    assert "addrspacecast (ptr addrspace(3) @buf to ptr)" in text
    assert str(parse(text)) == text
    parse_llvm(text)  # LLVM accepts what we print
