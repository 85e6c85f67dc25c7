"""The Python functions the subset understands, as data: Python object -> what it means.

Invariant: lookups are by the function *object* (resolved through the function's globals), so
`math.sin`, `np.sin` and `from math import sin as s` all mean the same thing.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

# One-argument float functions: object -> name understood by rules.mathcalls.emit_math.
UNARY_MATH: dict[object, str] = {}
for _name, _objs in {
    "sin": (math.sin, np.sin), "cos": (math.cos, np.cos), "tan": (math.tan, np.tan),
    "asin": (math.asin, np.arcsin), "acos": (math.acos, np.arccos),
    "atan": (math.atan, np.arctan), "sinh": (math.sinh, np.sinh), "cosh": (math.cosh, np.cosh),
    "tanh": (math.tanh, np.tanh), "asinh": (math.asinh, np.arcsinh),
    "acosh": (math.acosh, np.arccosh), "atanh": (math.atanh, np.arctanh),
    "exp": (math.exp, np.exp), "expm1": (math.expm1, np.expm1), "exp2": (math.exp2, np.exp2),
    "log2": (math.log2, np.log2), "log10": (math.log10, np.log10),
    "log1p": (math.log1p, np.log1p), "sqrt": (math.sqrt, np.sqrt), "cbrt": (math.cbrt, np.cbrt),
    "erf": (math.erf,), "erfc": (math.erfc,), "fabs": (math.fabs, np.fabs),
    "floor": (math.floor, np.floor), "ceil": (math.ceil, np.ceil),
    "trunc": (math.trunc, np.trunc),
}.items():
    for _o in _objs:
        UNARY_MATH[_o] = _name
LOG = (math.log, np.log)  # math.log takes an optional base
# Two-argument float functions.
BINARY_MATH: dict[object, str] = {
    math.atan2: "atan2", np.arctan2: "atan2", math.hypot: "hypot", np.hypot: "hypot",
    math.pow: "pow", np.power: "pow", math.copysign: "copysign", np.copysign: "copysign",
    math.fmod: "fmod", np.fmod: "fmod",
}
# Functions that keep the integer type for integer arguments (Python semantics).
INT_PRESERVING = {math.floor: "floor", math.ceil: "ceil", math.trunc: "trunc"}
ABS = (builtins.abs, np.abs, np.absolute)
MIN = (builtins.min, np.minimum, np.fmin)
MAX = (builtins.max, np.maximum, np.fmax)
POW = (builtins.pow,)
SQUARE = (np.square,)
FLOAT_CTORS = {builtins.float: "f64", np.float64: "f64", np.float32: "f32"}
INT_CTORS = {builtins.int: "i64", np.int64: "i64", np.int32: "i32"}
BOOL_CTORS = (builtins.bool,)
LEN = (builtins.len,)
RANGE = (builtins.range,)
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan,
                               "tau": math.tau}
DTYPES = {np.float64: "f64", np.float32: "f32", np.int64: "i64", np.int32: "i32",
          builtins.float: "f64", builtins.int: "i64"}

SUPPORTED_CALLS = ("math.* and numpy ufuncs (sin, exp, log, sqrt, maximum, ...), abs, min, "
                   "max, pow, float, int, len, range, sum, the NumPy functions listed in "
                   "the README's subset (reductions, products, constructors, np.where, "
                   "np.clip, ...), and other Python functions of the same module")
