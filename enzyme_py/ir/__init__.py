"""The IR core: an SSA IR mirroring LLVM's, with a parser, printer, builder and verifier.

Invariant: nothing here imports llvmlite or any other part of enzyme_py.
"""

from enzyme_py.ir import types
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.errors import EnzymePyError, ParseError, VerifyError
from enzyme_py.ir.module import Alias, Block, Function, GlobalVariable, Module
from enzyme_py.ir.parser import parse
from enzyme_py.ir.verifier import verify, verify_function

__all__ = [
    "Alias", "Block", "Builder", "EnzymePyError", "Function", "GlobalVariable", "Module",
    "ParseError", "VerifyError", "parse", "types", "verify", "verify_function",
]
