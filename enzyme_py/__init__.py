"""enzyme_py: Enzyme-style automatic differentiation of LLVM IR, written in Python.

Functions become LLVM IR (our Python front end, or any `.ll` file), are differentiated after
optimization, and the gradient IR is optimized again and JIT-compiled with llvmlite.

Invariant: importing the package is cheap; llvmlite is loaded only by `enzyme_py.jit`, on first
use.
"""

from enzyme_py.errors import BackendError, CallError, EnzymePyError, ParseError, VerifyError
from enzyme_py.ir import parse

__version__ = "0.1.0"

__all__ = [
    "BackendError", "CallError", "EnzymePyError", "ParseError", "VerifyError", "__version__",
    "parse",
]
