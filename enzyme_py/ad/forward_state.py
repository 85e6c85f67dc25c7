"""What the per-instruction forward rules (`forward_ops`) read and write of the forward
transform: a protocol, so that `forward_ops` never imports the transform it serves.

Invariant: `ForwardTransform` satisfies this protocol; the rules use nothing else of it.
"""

from __future__ import annotations

from typing import Any, Protocol

from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Block, Function, Module
from enzyme_py.ir.values import Value

Lanes = tuple[Value, ...]  # one tangent per direction


class ForwardState(Protocol):
    module: Module
    work: Function
    b: Builder
    width: int
    options: Any  # ForwardOptions
    activity: Any  # the frozen activity result
    registrations: Any  # custom rules and inactive functions of the module
    tangents: dict[Value, Lanes]
    shared_globals: Any
    pending_calls: list
    returned_shadow_slots: dict
    lanes: list  # per direction: the shadow map the shadow builder fills

    @property
    def alloca_block(self) -> Block: ...

    def error(self, inst: I.Instruction, message: str) -> DifferentiationError: ...
    def is_active(self, v: Value) -> bool: ...
    def tangent(self, v: Value) -> Lanes | None: ...
    def tangent_or_zero(self, v: Value) -> Lanes: ...
    def set_tangent(self, v: Value, lanes: Lanes) -> None: ...
    def shadows(self, p: Value) -> Lanes: ...
    def callee_derivative(self, g: Function, acts: list[str],
                          return_shadow: bool = False) -> tuple[Function, T.FunctionType]: ...
