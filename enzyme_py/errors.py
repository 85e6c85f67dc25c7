"""All error classes of enzyme_py in one place (the IR's own ones are re-exported).

Errors a user's call can cause follow Python's conventions, so that `except TypeError` and
`except ValueError` catch what they would catch around the same mistake in JAX or NumPy:

    EnzymePyError
    ├── CallError (TypeError)               an argument of the wrong type
    │   ├── NotDifferentiableError          what is differentiated is not real-valued
    │   └── ArgnumsError (also ValueError)  `argnums` names an argument the call lacks
    ├── ArgumentValueError (ValueError)     the right type, a wrong shape, structure or layout
    ├── BackendError                        LLVM rejected a module, a symbol is missing
    ├── FrontendError (frontend.errors)     a construct outside the Python subset
    └── ParseError, VerifyError (ir.errors)

Invariant: every class a call can raise subclasses `EnzymePyError` and, where Python has one
for the mistake, the built-in class; failed checks inside compiled code (an index out of
bounds, a math domain error) raise the built-in classes themselves, as Python does
(`calling.ErrorRecord`).
"""

from __future__ import annotations

from enzyme_py.ir.errors import EnzymePyError, ParseError, VerifyError

__all__ = ["ArgnumsError", "ArgumentValueError", "BackendError", "CallError", "EnzymePyError",
           "NotDifferentiableError", "ParseError", "VerifyError"]


class BackendError(EnzymePyError):
    """LLVM (through llvmlite) rejected a module, or a symbol could not be found or compiled."""


class CallError(EnzymePyError, TypeError):
    """An argument of a type the call cannot take (checked before native code): not a
    supported number or array, a dtype that cannot be passed, not `Const`/`Active`/
    `Duplicated` for `autodiff`, too few tangents for `jvp`."""


class NotDifferentiableError(CallError):
    """What is differentiated is not real-valued: an integer argument or integer array among
    `argnums`, a function whose result is not a float (or not floats, for a Jacobian), as
    `jax.grad` refuses them with a `TypeError` ("grad requires real-valued inputs")."""


class ArgumentValueError(EnzymePyError, ValueError):
    """An argument of the right type but a wrong value: a tangent, cotangent or shadow whose
    shape or structure differs from its primal's, an array whose layout the call cannot take
    (strides that are not whole elements, a read-only or differently strided shadow)."""


class ArgnumsError(CallError, ArgumentValueError):
    """`argnums` names an argument the call does not have. Both a `ValueError` (a bad index
    value, as `jax.jacfwd` says) and a `TypeError` (too few positional arguments, as
    `jax.grad` says), so code written for either catches it."""
