"""Unsupported constructs: each gives `enzyme_py.FrontendError` naming this file, the line and
column of the construct, with the source line, a caret under the construct, what was found and
what is supported. The functions are never run by Python, only compiled."""

# ruff: noqa: F841, B018, E731

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py import FrontendError

A = np.array([1.0, 2.0, 3.0])
M = np.ones((2, 3))
COUNTER = 0


def helper(x, scale):
    return x * scale


def list_comprehension(a):
    ys = [a[i] * a for i in range(3) if a[i] > 0.0]
    return 0.0


def index_scatter(a):
    a[np.arange(2)] = 0.0
    return 0.0


def with_statement(a):
    with a:
        pass
    return 0.0


def try_statement(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y


def lambda_expression(x):
    return (lambda t: t * 2.0)(x)


def string_constant(x):
    name = "hello"
    return x + name


def array_or_float(a, flag):
    if flag > 0:
        y = a
    else:
        y = 0.0
    return 1.0


def chained_array_comparison(x, y):
    z = x < y < 1.0
    return 0.0


def returns_array_or_number(a):
    if a[0] > 0.0:
        return a
    return 1.0


def calls_print(x):
    print(x)
    return x


def keyword_arguments(x):
    return helper(x, factor=2.0)


def star_args(*xs):
    return 0.0


def aliased_array_in_loop(a):
    s = 0.0
    tmp = np.ones(3)
    for _ in range(3):
        view = tmp[1:]  # a view taken in the loop that rebinds tmp
        tmp = np.zeros(3)
        s += tmp[0] + view[0]
    return s


def dict_literal(x):
    d = {"a": x}
    d["a"] = 2.0
    return x


def for_over_number(a):
    s = 0.0
    for v in a[0]:
        s += v
    return s


def nested_def(x):
    y = x

    def inner(t):
        nonlocal y
        y = t
        return t * t

    return inner(x)


def global_statement(x):
    global COUNTER
    COUNTER = 1
    return x


def while_else(x):
    while x > 1.0:
        x = x / 2.0
    else:
        x = x + 1.0
    return x


def is_comparison(x, y):
    if x is y:  # (`x is None` is a test the types decide: see test_static_conditions)
        return 0.0
    return x


def in_operator(x):
    if x in (1.0, 2.0):
        return 0.0
    return x


def flags_attribute(a):
    b = a.flags
    return 0.0


def undefined_name(x):
    return x + not_defined_anywhere  # noqa: F821


def sum_with_bad_axis(a):
    return np.sum(a, axis=2)


def int_power_variable(n, k):
    return n ** k


def assert_statement(x):
    assert x > 0.0, x  # (a message that is not a string literal)
    return x


def f_string(x):
    s = f"{x}"
    return x


def raise_statement(x):
    raise KeyboardInterrupt
    return x


def bare_shape(a):
    s = a.shape
    return 0.0


def min_of_arrays(a, b):
    return min(a, b)


def generator_argument(a):
    return max(a[i] for i in range(3))


def unknown_module_function(x):
    return np.fft.fft(x)


def tuple_to_function(x):
    return abs((x, x))


def float_array_index(a, x):
    return a[x]


def starred_call(x):
    return helper(*(x, 2.0))


def _tuple_default(x, ys=(1.0, 2.0)):
    return x * ys[0]


def default_parameter(x):
    return _tuple_default(x)


def set_literal(x):
    s = {x, 1.0}
    return x


def del_statement(x):
    y = x
    del y
    return x


def walrus(x):
    if (y := x * 2.0) > 1.0:
        return y
    return x


def chained_assignment_to_array_element_of_tuple(a):
    a[0], a[1] = 1.0, 2.0
    return a[0]


@dataclass
class Err:
    f: object
    args: tuple
    at: str  # the text the caret points at (first occurrence on the marked line)
    found: str  # a regex the message must match
    line_has: str = ""  # text on the error line, when `at` is not unique enough
    xfail: str = ""  # a known bug in the error itself
    hint: str = ""  # a known bug: no 'supported:' hint (strict xfail of the hint test)


NO_HINT = "the error has no 'supported:' hint saying what is supported instead"

CASES = [
    Err(list_comprehension, (A,), "a[i] > 0.0", r"filtered comprehension of arrays"),
    Err(index_scatter, (A,), "a[np.arange(2)]", r"integer index array \(a scatter\)"),
    Err(with_statement, (A,), "with a", r"'With' statements are not supported"),
    Err(try_statement, (1.0,), "try", r"'Try' statements are not supported"),
    Err(lambda_expression, (1.0,), "lambda t", r"Lambda|cannot call this"),
    Err(string_constant, (1.0,), "x + name", r"arithmetic on str 'hello' is not supported"),
    Err(array_or_float, (A, 1), "y = 0.0", r"variable 'y' holds float64\[:\] on one path"),
    Err(chained_array_comparison, (A, A), "x < y", r"chained comparisons of arrays"),
    Err(returns_array_or_number, (A,), "return 1.0", r"this returns float, another return "
        r"gives float64\[:\]"),
    Err(calls_print, (1.0,), "print", r"calling print is not supported"),
    Err(keyword_arguments, (1.0,), "2.0", r"unexpected keyword argument 'factor'"),
    Err(star_args, (1.0,), "def", r"\*args"),
    Err(aliased_array_in_loop, (A,), "np.zeros", r"also reached through another array",
        line_has="tmp = np.zeros"),
    Err(dict_literal, (1.0,), 'd["a"]', r"cannot assign into a dict: containers are immutable"),
    Err(for_over_number, (A,), "a[0]", r"only 'for \.\.\. in range\(\.\.\.\)' and 'for row in "
        r"array' loops", line_has="for v in a"),
    Err(nested_def, (1.0,), "nonlocal", r"nonlocal"),
    Err(global_statement, (1.0,), "global", r"Global"),
    Err(while_else, (3.0,), "while", r"while \.\.\. else"),
    Err(is_comparison, (1.0, 2.0), "x is y", r"'is' and 'is not' compare with None only"),
    Err(in_operator, (1.0,), "(1.0, 2.0)", r"cannot compare or test tuple"),
    Err(flags_attribute, (M,), "a.flags", r"attribute 'flags'"),
    Err(undefined_name, (1.0,), "not_defined_anywhere",
        r"name 'not_defined_anywhere' is not defined", hint="-"),
    Err(sum_with_bad_axis, (M,), "2", r"axis 2 is out of bounds", line_has="np.sum", hint="-"),
    Err(int_power_variable, (2, 3), "n ** k", r"integer \*\* needs a small constant exponent"),
    Err(assert_statement, (1.0,), "x  #", r"an exception's message must be one string "
        r"literal", line_has="assert"),
    Err(f_string, (1.0,), 'f"{x}"', r"JoinedStr"),
    Err(raise_statement, (1.0,), "KeyboardInterrupt", r"raising KeyboardInterrupt is not "
        r"supported"),
    Err(bare_shape, (A,), "a.shape", r"a.shape must be indexed or unpacked"),
    Err(min_of_arrays, (A, A), "min(a, b)", r"min/max of arrays"),
    Err(generator_argument, (A,), "max(", r"min/max of arrays"),
    Err(unknown_module_function, (A,), "np.fft.fft", r"calling fft is not supported"),
    Err(tuple_to_function, (1.0,), "(x, x)", r"tuple\[float, float\] is passed where a number "
        r"or an array is needed"),
    Err(float_array_index, (A, 1.0), "x", r"array index has type float", line_has="a[x]"),
    Err(starred_call, (1.0,), "*(x, 2.0)", r"Starred"),
    Err(default_parameter, (1.0,), "_tuple_default(x)", r"default of _tuple_default\(\)'s "
        r"parameter 'ys' is not a number"),
    Err(set_literal, (1.0,), "{x, 1.0}", r"Set"),
    Err(del_statement, (1.0,), "del", r"'Delete' statements are not supported"),
    Err(walrus, (1.0,), "y := x * 2.0", r"NamedExpr"),
]


def _expected_location(err: Err) -> tuple[int, int, str, int]:
    """(file line, 1-based column, stripped source line, its indent) of `err.at` in `err.f`."""
    lines, first = inspect.getsourcelines(err.f)
    if err.at == "def":
        k = 0
    else:
        want = err.line_has or err.at
        k = next(i for i, t in enumerate(lines) if want in t and i > 0)
    text = lines[k].rstrip("\n")
    lead = len(text) - len(text.lstrip())
    return first + k, text.index(err.at) + 1, text.strip(), lead


def _params(kind: str) -> list:
    out = []
    for e in CASES:
        if kind == "hint" and (e.hint == "-" or e.xfail):
            continue  # nothing to suggest (an undefined name), or the error itself is wrong
        reason = e.hint if kind == "hint" else e.xfail
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(e, id=e.f.__name__, marks=marks))
    return out


def _error(err: Err) -> FrontendError:
    with pytest.raises(FrontendError) as info:
        ez.jit(err.f)(*err.args)
    return info.value


@pytest.mark.parametrize("err", _params("location"))
def test_frontend_error(err: Err) -> None:
    e = _error(err)
    line, col, source, lead = _expected_location(err)
    text = str(e)
    assert re.search(err.found, e.message), f"message does not say what was found:\n{text}"
    assert e.filename == __file__, text
    assert (e.line, e.col) == (line, col), f"expected {line}:{col}, got {e.line}:{e.col}\n{text}"
    assert text.startswith(f"{__file__}:{line}:{col}: "), text
    out = text.splitlines()
    k = out.index(f"    {source}")  # the source line, then a caret under the construct
    assert out[k + 1] == "    " + " " * (col - 1 - lead) + "^", text


@pytest.mark.parametrize("err", _params("hint"))
def test_frontend_error_says_what_is_supported(err: Err) -> None:
    e = _error(err)
    assert e.supported and f"\n  supported: {e.supported}" in str(e), str(e)


def test_error_is_raised_by_grad_too() -> None:
    with pytest.raises(FrontendError, match="scatter"):
        ez.grad(index_scatter)(A)


def test_frontend_error_is_an_enzyme_py_error() -> None:
    assert issubclass(FrontendError, ez.EnzymePyError)
