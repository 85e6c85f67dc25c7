"""What the front end's helpers see of the compiler and the typer: structural types only.

The array helpers (`arrays/`), the comprehension, call and versioning helpers and the type rules
are called by the statement compiler (`compiler.FunctionCompiler`) and the typer
(`typing.Typer`), which import them; they take those objects as these protocols, so no helper
imports its caller. `FunctionCompiler` satisfies `Compiling`, `Typer` satisfies `TypeContext`,
`session.CompileSession` satisfies `SessionContext` and `arrays.heap.Heap` satisfies `Buffers`.

Invariants: a leaf module (it imports only `ir`, `values`, `ftypes`, `errors` and typing); the
protocols list exactly the members the helpers use, with the implementations' signatures.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, Protocol

from enzyme_py.frontend.errors import SourceInfo
from enzyme_py.frontend.ftypes import Array, FType, Scalar
from enzyme_py.frontend.values import AVal, SVal
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.values import Value


class TypeContext(Protocol):
    """The typer of one function, as type rules and helpers read it."""

    src: SourceInfo
    fdef: ast.FunctionDef
    env: dict[str, FType]
    shared: set[str]
    fixed_params: set[str]
    _may_view: set[str]
    _not_contiguous: set[str]

    def expr_type(self, e: ast.expr, lenient: bool = False) -> FType | None: ...
    def resolve_global(self, e: ast.expr) -> object: ...
    def view_root(self, e: ast.expr) -> str | None: ...
    def is_dtype(self, e: ast.expr) -> bool: ...
    def _array_entry(self, e: ast.Call) -> tuple[object, ast.expr | None]: ...
    def _assign_name(self, name: str, t: FType | None, node: ast.AST) -> None: ...


class SessionContext(Protocol):
    """The compile session, as helpers read it."""

    bounds_check: bool
    noalias: bool
    python_errors: bool
    optimistic: bool
    reverse_mode: bool
    fresh_temporaries: bool

    def function_for(self, pyfunc: object, arg_types: tuple[FType, ...]) -> Function: ...


class Buffers(Protocol):
    """The heap buffers of the function being compiled (`arrays.heap.Heap`)."""

    levels: list[list[Value]]

    def allocate(self, elem: Scalar, count: Value, node: ast.AST) -> Value: ...
    def begin_statement(self) -> None: ...
    def end_statement(self) -> None: ...
    def remembered(self, key: object) -> object: ...
    def remember(self, key: object, value: object) -> None: ...
    def forget(self, key: object) -> None: ...
    def release(self, base: Value) -> None: ...
    def free_block(self, p: Value) -> None: ...
    def claim(self, base: Value) -> bool: ...


class Compiling(Protocol):
    """The compiler of one specialization, as helpers emit code with it."""

    b: Builder
    alloca_at: Builder  # the entry block's builder (allocas)
    src: SourceInfo
    fdef: ast.FunctionDef
    fn: Function
    typer: TypeContext
    session: SessionContext
    heap: Buffers
    vars: dict[str, object]
    loops: list[tuple[Block, Block]]  # (continue target, break target)
    unchecked: set[int]  # ids of subscripts proven in bounds
    carried: dict[Value, Callable[[list[Value]], Value]]  # redirected loads (`writes`)

    def check(self, ok: Value, node: ast.AST, what: str, index: Value, extent: Value,
              axis: int) -> None: ...
    def pass_on_retry(self, callee: Function, stand_in_call: ast.AST | None = None
                      ) -> None: ...
    def leave_for_retry(self, eb: Builder) -> None: ...
    def counted_loop(self, count: Value, body: Callable[[Value], None]) -> None: ...
    def new_block(self, name: str) -> Block: ...
    def terminated(self) -> bool: ...
    def expr(self, e: ast.expr, want_result: bool = True) -> Any: ...
    def scalar(self, e: ast.expr) -> SVal: ...
    def int_value(self, e: ast.expr) -> Value: ...
    def condition(self, e: ast.expr) -> Value: ...
    def view(self, v: Any, node: ast.AST) -> AVal: ...
    def binop(self, op: ast.operator, a: Any, c: Any, e: ast.AST) -> Any: ...
    def compare(self, op: ast.cmpop, a: SVal, c: SVal, e: ast.AST) -> Value: ...
    def unary(self, op: ast.unaryop, v: SVal, e: ast.AST) -> SVal: ...
    def new_array(self, t: Array, dims: list[Value], fill: float | None, e: ast.AST) -> AVal: ...
    def store_var(self, name: str, val: object, node: ast.AST | None = None,
                  initial: bool = False) -> None: ...
    def load_var(self, name: str) -> SVal | AVal: ...
