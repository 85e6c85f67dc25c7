"""enzyme_py: Enzyme-style automatic differentiation of LLVM IR, written in Python.

Functions become LLVM IR (our Python front end, or any `.ll` file), are differentiated after
optimization, and the gradient IR is optimized again and JIT-compiled with llvmlite.

Invariant: llvmlite is imported only by `enzyme_py.backend`.
"""

from enzyme_py.api import (
    Active,
    Const,
    Duplicated,
    DuplicatedNoNeed,
    autodiff,
    grad,
    inactive,
    jit,
    show,
    value_and_grad,
    vjp,
)
from enzyme_py.api.jacobians import hessian, hvp, jacfwd, jacrev, jvp, linearize
from enzyme_py.checkpointing import checkpointed
from enzyme_py.custom import custom_jvp, custom_vjp
from enzyme_py.errors import (
    ArgnumsError,
    ArgumentValueError,
    BackendError,
    CallError,
    EnzymePyError,
    NotDifferentiableError,
    ParseError,
    VerifyError,
)
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.ir import parse
from enzyme_py.profiling import profile

__version__ = "0.1.0"

__all__ = [
    "profile",
    "Active", "ArgnumsError", "ArgumentValueError", "BackendError", "CallError", "Const",
    "Duplicated", "DuplicatedNoNeed", "EnzymePyError", "FrontendError", "NotDifferentiableError",
    "ParseError", "VerifyError", "__version__", "autodiff", "checkpointed",
    "custom_jvp", "custom_vjp", "grad", "hessian", "hvp", "inactive", "jacfwd", "jacrev", "jit",
    "jvp", "linearize", "parse", "show", "value_and_grad", "vjp",
]
