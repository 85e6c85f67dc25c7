"""Checking enzyme_py against plain Python, JAX and finite differences.

`check_value(f, *args)` runs `enzyme_py.jit(f)` and plain Python `f` on copies of the arguments
and compares the results (and the arrays `f` writes into). `check_grad(f, *args, argnums=...)`
compares `enzyme_py.grad(f, argnums)` with JAX's gradient of *the same Python function* and with
central finite differences of `enzyme_py.jit(f)`. `check_vjp` does the same for `vjp` (tuple
results).

How the same function runs under JAX: a copy of `f` is made with `types.FunctionType` whose
globals (and closure cells) map the `math` and `numpy` modules, and functions taken from them
(`from math import sin`), by object identity to shims backed by `jax.numpy`; other Python
functions `f` calls are copied the same way (recursively, once each). Arrays become
`ShimArray`s: `__getitem__` reads an element, `__setitem__` (and so `a[i] += v`) replaces one,
functionally as far as JAX is concerned; `.shape`, `.size`, `.ndim`, `len()` work. A shim
function runs the original math/numpy function on plain numbers and the `jax.numpy` one as
soon as a JAX value is involved, so constant work stays exact and cheap.

Invariants:

- JAX runs eagerly (never under `jax.jit`). Under `jax.grad`/`jax.vjp` the tracers carry
  concrete primal values, so Python `if`, `while`, `and`/`or`, `min`/`max` and `int(x)` on
  traced floats work (checked by the tests). `float(tracer)` raises ConcretizationTypeError
  even there (it would drop the derivative), so the shim's `float` keeps tracers as float64
  arrays.
- Integers never become JAX values: int arguments stay Python ints and integer array
  elements read as Python ints, so `//`, `%` and `**` on integers have Python's semantics
  exactly. Float `//` and `%` on JAX values are `jnp.floor_divide`/`jnp.remainder`, which
  round toward minus infinity like Python.
- Eager JAX costs about 0.3-0.5 ms per traced scalar operation; float array arguments are
  passed to `jax.grad` as lists of scalars (no gather/scatter per element access). Size
  checked cases to a few thousand operations.
- 64-bit JAX is enabled only inside the checks (`with jax.enable_x64(True)`, a thread-local
  context); the caller's JAX configuration is left as it was.
- No check mutates the caller's arrays: every run gets its own copies.
- Finite differences are central, of `enzyme_py.jit(f)`, with step
  `h = eps**(1/3) * max(1, |x|)` per element; an element passes when
  `|ours - fd| <= fd_rtol * max(|fd_i|, max|fd|) + 10 * eps * (|f| + 1) / h` (relative to the
  gradient's largest entry, plus the rounding error of the difference quotient). When any
  argument is a float32 array, `eps` is float32's and `fd_rtol` is at least 1e-3.
"""

from __future__ import annotations

import builtins
import copy
import functools
import math
import operator
import types
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from enzyme_py.custom import CustomRule

__all__ = ["ShimArray", "check_grad", "check_value", "check_vjp", "jax_version_of",
           "numpy_as_jax"]


# --- the JAX side: shims ------------------------------------------------------------------------


def _jax():
    import jax
    import jax.numpy as jnp

    return jax, jnp


def _is_jax(x: Any) -> bool:
    jax, _ = _jax()
    return isinstance(x, jax.Array | jax.core.Tracer)


def _any_jax(xs: Sequence[Any]) -> bool:
    jax, _ = _jax()
    kinds = jax.Array | jax.core.Tracer
    return any(isinstance(x, kinds) for x in xs)


class ShimArray:
    """An array for the JAX run: a flat list of scalar elements in C order.

    Float elements are numpy scalars of the array's dtype or 0-d jax values (tracers when
    differentiated); integer elements are Python ints. Reads return an element, writes replace
    one (`a[i] += v` reads, adds and writes, as in Python). Keeping scalars rather than one jax
    array avoids an eager gather/scatter per access (milliseconds each under `jax.grad`).
    """

    __slots__ = ("items", "shape", "dtype")

    def __init__(self, items: list[Any], shape: tuple[int, ...], dtype: Any) -> None:
        self.items = items
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)

    def _flat_index(self, idx: Any) -> int:
        idx = idx if isinstance(idx, tuple) else (idx,)
        if len(idx) != len(self.shape):
            raise IndexError(f"{len(idx)} indices into a {len(self.shape)}-D array")
        k = 0
        for axis, (i, n) in enumerate(zip(idx, self.shape, strict=True)):
            i = operator.index(i)
            if i < 0:
                i += n
            if not 0 <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            k = k * n + i
        return k

    def __getitem__(self, idx: Any) -> Any:
        return self.items[self._flat_index(idx)]

    def __setitem__(self, idx: Any, v: Any) -> None:
        self.items[self._flat_index(idx)] = _cast(v, self.dtype)

    @property
    def size(self) -> int:
        return len(self.items)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __len__(self) -> int:
        return self.shape[0]

    def __matmul__(self, other: Any) -> Any:
        return _np_dot(self, other)

    def value(self) -> Any:
        """The contents as one array (a jax array when any element is a jax value)."""
        if self.dtype.kind in "iub":
            return np.array(self.items, dtype=self.dtype).reshape(self.shape)
        _, jnp = _jax()
        if _any_jax(self.items):
            return jnp.stack([jnp.asarray(x, dtype=self.dtype) for x in self.items]
                             ).reshape(self.shape)
        return jnp.asarray(np.array(self.items, dtype=self.dtype).reshape(self.shape))

    def __repr__(self) -> str:
        return f"ShimArray(shape={self.shape}, dtype={self.dtype})"


def _cast(v: Any, dtype: np.dtype) -> Any:
    """A value stored into an array of `dtype` (float -> int truncates, as in compiled code)."""
    if dtype.kind in "iub":
        return int(v)
    if _is_jax(v):
        if v.dtype == dtype:
            return v
        _, jnp = _jax()
        return jnp.asarray(v, dtype=dtype)
    return dtype.type(v)


def _shim_array(a: Any) -> ShimArray:
    """A numpy or jax array (or a flat list of scalars with its shape) as a `ShimArray`."""
    if isinstance(a, np.ndarray):
        if a.dtype.kind in "iub":
            return ShimArray([int(x) for x in a.ravel()], a.shape, a.dtype)
        _, jnp = _jax()
        return ShimArray([jnp.asarray(x) for x in a.ravel()], a.shape, a.dtype)
    return ShimArray(list(a.ravel()), a.shape, a.dtype)  # a jax array: one slice per element


def _to_float(x: Any = 0.0) -> Any:
    if _is_jax(x):
        _, jnp = _jax()
        return jnp.asarray(x, dtype=jnp.float64)
    return builtins.float(x)


class _DType:
    """`np.float64` and friends: usable as `dtype=` and as a conversion `np.float64(x)`."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)

    def __call__(self, x: Any) -> Any:
        return _cast(x, self.dtype)


def _dtype_of(d: Any) -> np.dtype:
    if d is None or d is _to_float:
        return np.dtype(np.float64)
    if isinstance(d, _DType):
        return d.dtype
    return np.dtype(d)


def _new_array(shape: Any, dtype: Any, fill: float) -> ShimArray:
    dt = _dtype_of(dtype)
    dims = tuple(int(n) for n in shape) if isinstance(shape, tuple | list) else (int(shape),)
    size = math.prod(dims)
    value = int(fill) if dt.kind in "iub" else dt.type(fill)
    return ShimArray([value] * size, dims, dt)


def _like(x: ShimArray, dtype: Any, fill: float) -> ShimArray:
    return _new_array(x.shape, x.dtype if dtype is None else dtype, fill)


def _vdot(a: list[Any], b: list[Any]) -> Any:
    if _any_jax(a) or _any_jax(b):
        _, jnp = _jax()
        return jnp.dot(jnp.stack(a), jnp.stack(b))
    return np.dot(np.array(a), np.array(b))


def _np_dot(x: ShimArray, y: ShimArray) -> Any:
    if x.ndim == 1 and y.ndim == 1:
        return _vdot(x.items, y.items)
    n, m = x.shape
    rows = [x.items[i * m:(i + 1) * m] for i in range(n)]
    if y.ndim == 1:
        return ShimArray([_vdot(r, y.items) for r in rows], (n,), x.dtype)
    p = y.shape[1]
    cols = [y.items[j::p] for j in range(p)]
    return ShimArray([_vdot(r, c) for r in rows for c in cols], (n, p), x.dtype)


def _np_sum(x: ShimArray) -> Any:
    if x.dtype.kind in "iub":
        return builtins.sum(x.items)
    if _any_jax(x.items):
        _, jnp = _jax()
        return jnp.sum(jnp.stack(x.items))
    return np.sum(np.array(x.items, dtype=x.dtype))


def _lift(name: str, py_fn: Callable, jax_fn: Callable) -> Callable:
    """`py_fn` on plain numbers (exact Python/numpy semantics), `jax_fn` once JAX is involved."""

    def f(*args: Any) -> Any:
        return jax_fn(*args) if _any_jax(args) else py_fn(*args)

    f.__name__ = name
    return f


def _jnp(name: str) -> Callable:
    return lambda *a: getattr(_jax()[1], name)(*a)


def _jax_int(name: str) -> Callable:
    """math.floor/ceil/trunc of a traced float: a Python int (concrete under jax.grad)."""
    return lambda x: int(getattr(_jax()[1], name)(x))


def _jax_log(x: Any, base: Any = None) -> Any:
    _, jnp = _jax()
    return jnp.log(x) if base is None else jnp.log(x) / jnp.log(base)


def _jax_special(name: str) -> Callable:
    def f(x: Any) -> Any:
        import jax.scipy.special as sp

        return getattr(sp, name)(x)

    return f


_MATH_RENAME = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
                "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2", "pow": "power",
                "fabs": "abs"}


def _math_shim(name: str) -> Any:
    """The JAX meaning of `math.<name>`."""
    obj = getattr(math, name)
    if not callable(obj):
        return obj  # pi, e, inf, nan, tau
    if name in ("floor", "ceil", "trunc"):
        jax_fn = _jax_int(name)
    elif name == "log":
        jax_fn = _jax_log
    elif name in ("erf", "erfc"):
        jax_fn = _jax_special(name)
    else:
        jname = _MATH_RENAME.get(name, name)
        if not hasattr(_jax()[1], jname):
            raise AttributeError(f"math.{name} has no jax.numpy counterpart")
        jax_fn = _jnp(jname)
    return _lift(name, obj, jax_fn)


def _numpy_shim(name: str) -> Any:
    """The JAX meaning of `numpy.<name>`."""
    special: dict[str, Any] = {
        "zeros": lambda shape, dtype=None: _new_array(shape, dtype, 0.0),
        "ones": lambda shape, dtype=None: _new_array(shape, dtype, 1.0),
        "empty": lambda shape, dtype=None: _new_array(shape, dtype, 0.0),
        "zeros_like": lambda x, dtype=None: _like(x, dtype, 0.0),
        "ones_like": lambda x, dtype=None: _like(x, dtype, 1.0),
        "empty_like": lambda x, dtype=None: _like(x, dtype, 0.0),
        "sum": _np_sum, "dot": _np_dot,
    }
    if name in special:
        return special[name]
    obj = getattr(np, name)
    if isinstance(obj, type) and issubclass(obj, np.generic):
        return _DType(obj)
    if not callable(obj):
        return obj
    if not hasattr(_jax()[1], name):
        raise AttributeError(f"numpy.{name} has no jax.numpy counterpart")
    return _lift(name, obj, _jnp(name))


class _ModuleShim:
    """`math` or `numpy` as seen by the JAX copy of a function."""

    def __init__(self, name: str, resolve: Callable[[str], Any]) -> None:
        self.__name__ = name
        self._resolve = resolve

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = self._resolve(name)
        setattr(self, name, value)
        return value


@functools.cache
def _by_identity() -> dict[int, tuple[Any, Any]]:
    """id(math/numpy object) -> (object, its JAX meaning), for `from math import sin`."""
    table: dict[int, tuple[Any, Any]] = {}
    for module, shim in ((np, _numpy_shim), (math, _math_shim)):
        for name in dir(module):
            if name.startswith("_"):
                continue
            try:
                obj = getattr(module, name)
                if callable(obj) and not isinstance(obj, types.ModuleType):
                    table[id(obj)] = (obj, shim(name))
            except (AttributeError, TypeError):
                pass  # nothing in jax.numpy of that name (or not a dtype)
    return table


_BUILTIN_SHIMS = {"float": _to_float}


class _Shimmer:
    """Copies Python functions so that they run on JAX values (one copy per function)."""

    def __init__(self) -> None:
        self.functions: dict[int, tuple[Any, Any]] = {}
        self.globals: dict[int, tuple[dict, dict]] = {}
        self.math = _ModuleShim("math", _math_shim)
        self.numpy = _ModuleShim("numpy", _numpy_shim)
        self.table = _by_identity()

    def value(self, v: Any) -> Any:
        if v is math:
            return self.math
        if v is np:
            return self.numpy
        if isinstance(v, types.FunctionType):
            return self.function(v)
        if isinstance(v, CustomRule):  # JAX differentiates the body: the rule is what we test
            return self.function(v.fun)
        hit = self.table.get(id(v))
        if hit is not None and hit[0] is v:
            return hit[1]
        if v is builtins.float:
            return _to_float
        return v

    def function(self, f: types.FunctionType) -> types.FunctionType:
        hit = self.functions.get(id(f))
        if hit is not None:
            return hit[1]
        shim_globals = self._globals_for(f.__globals__)
        closure = None
        if f.__closure__:
            cells = []
            for cell in f.__closure__:
                try:
                    contents = cell.cell_contents
                except ValueError:  # an empty cell
                    cells.append(cell)
                    continue
                cells.append(types.CellType(self.value(contents)))
            closure = tuple(cells)
        g = types.FunctionType(f.__code__, shim_globals, f.__name__, f.__defaults__, closure)
        g.__kwdefaults__ = f.__kwdefaults__
        self.functions[id(f)] = (f, g)  # before filling names: recursion finds the copy
        for name in _global_names(f.__code__):
            if name in f.__globals__ and name not in shim_globals:
                shim_globals[name] = self.value(f.__globals__[name])
        return g

    def _globals_for(self, orig: dict) -> dict:
        hit = self.globals.get(id(orig))
        if hit is not None:
            return hit[1]
        b = orig.get("__builtins__", builtins)
        b = dict(b if isinstance(b, dict) else vars(b))
        b.update(_BUILTIN_SHIMS)
        shim = {"__builtins__": b, "__name__": orig.get("__name__", "shim")}
        self.globals[id(orig)] = (orig, shim)
        return shim


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _global_names(c)
    return names


class _Packed:
    """`f` on JAX values, taking float array arguments as flat lists of scalars.

    `jax.grad` of `run` over those lists differentiates with respect to each element directly
    (no slicing of a traced array); `grad_of(k, g)` turns the result back into an array.
    """

    def __init__(self, f: Callable, args: Sequence[Any]) -> None:
        self.g = _Shimmer().function(f)  # type: ignore[arg-type]
        self.args = list(args)
        _, jnp = _jax()
        self.packed: list[Any] = []
        for a in args:
            if isinstance(a, np.ndarray) and a.dtype.kind == "f":
                self.packed.append([jnp.asarray(x) for x in a.ravel()])
            elif isinstance(a, np.ndarray):
                self.packed.append(a.copy())
            else:
                self.packed.append(copy.copy(a))

    def _wrapped(self, packed: Sequence[Any]) -> list[Any]:
        out = []
        for a, p in zip(self.args, packed, strict=True):
            if isinstance(a, np.ndarray) and a.dtype.kind == "f":
                out.append(ShimArray(list(p), a.shape, a.dtype))
            elif isinstance(a, np.ndarray):
                out.append(_shim_array(p))
            else:
                out.append(p)
        return out

    def run(self, *packed: Any) -> Any:
        out = self.g(*self._wrapped(packed))
        return out.value() if isinstance(out, ShimArray) else out

    def finals(self, *packed: Any) -> tuple[Any, ...]:
        """The final contents of the float array arguments."""
        wrapped = self._wrapped(packed)
        self.g(*wrapped)
        return tuple(w.value() for a, w in zip(self.args, wrapped, strict=True)
                     if isinstance(a, np.ndarray) and a.dtype.kind == "f")

    def grad_of(self, k: int, g: Any) -> np.ndarray:
        a = self.args[k]
        if isinstance(a, np.ndarray):
            return np.array([np.asarray(x, dtype=np.float64) for x in g]).reshape(a.shape)
        return np.asarray(g, dtype=np.float64)


def jax_version_of(f: Callable, *, return_args: bool = False) -> Callable:
    """The same Python function, running on JAX values (see the module docstring).

    Its array arguments are numpy or jax arrays; inside, arrays are `ShimArray`s. With
    `return_args`, it returns `(result, final contents of the array arguments)`: what a
    function that writes into its arguments computed, as values JAX can differentiate.

    Example::

        >>> import numpy as np
        >>> def square_all(a):
        ...     for i in range(len(a)):
        ...         a[i] = a[i] * a[i]
        >>> _, (a,) = jax_version_of(square_all, return_args=True)(np.array([3.0]))
        >>> float(a[0])
        9.0
    """
    g = _Shimmer().function(f)  # type: ignore[arg-type]

    def run(*args: Any) -> Any:
        wrapped = [_shim_array(a) if getattr(a, "ndim", 0) >= 1 else a for a in args]
        out = g(*wrapped)
        if isinstance(out, ShimArray):
            out = out.value()
        if return_args:
            return out, tuple(w.value() for w in wrapped if isinstance(w, ShimArray))
        return out

    run.__name__ = getattr(f, "__name__", "f")
    return run


# --- our side: cached compiled functions ------------------------------------------------------


_JIT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_GRAD: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _our_jit(f: Callable) -> Callable:
    import enzyme_py

    j = _JIT.get(f)
    if j is None:
        j = enzyme_py.jit(f)
        _JIT[f] = j
    return j


def _our_grad(f: Callable, argnums: int | tuple[int, ...]) -> Callable:
    import enzyme_py

    per_f = _GRAD.setdefault(f, {})
    g = per_f.get(argnums)
    if g is None:
        g = enzyme_py.grad(f, argnums=argnums)
        per_f[argnums] = g
    return g


def _copies(args: Sequence[Any]) -> list[Any]:
    """Copies of the array arguments with their strides (a view stays a view, so strided
    arguments are checked as passed)."""
    return [_strided_copy(a) if isinstance(a, np.ndarray) else a for a in args]


def _copy_leaf(a: Any) -> Any:
    return _strided_copy(a) if isinstance(a, np.ndarray) else a


def _strided_copy(a: np.ndarray) -> np.ndarray:
    if a.flags.c_contiguous:
        return np.copy(a)
    from enzyme_py.api import shadow_like

    out = shadow_like(a)  # zeros with a's strides
    out[...] = a
    return out


def numpy_as_jax(f: Callable) -> Callable:
    """NumPy-style `f` with `numpy` bound to `jax.numpy` (in its globals, and in the other
    functions of its module it calls): the same source run by JAX.

    Example::

        >>> import numpy as np
        >>> def energy(x):
        ...     return np.sum((x[1:] - x[:-1]) ** 2)
        >>> float(numpy_as_jax(energy)(np.array([0.0, 1.0, 3.0])))
        5.0
    """
    _, jnp = _jax()
    env = dict(f.__globals__)  # type: ignore[attr-defined]
    for k, v in f.__globals__.items():  # type: ignore[attr-defined]
        if v is np:
            env[k] = jnp
    for k, v in f.__globals__.items():  # type: ignore[attr-defined]
        if isinstance(v, types.FunctionType) and v.__module__ == f.__module__ and v is not f:
            env[k] = types.FunctionType(v.__code__, env, v.__name__, v.__defaults__,
                                        v.__closure__)
    return types.FunctionType(f.__code__, env, f.__name__,  # type: ignore[attr-defined]
                              f.__defaults__, f.__closure__)  # type: ignore[attr-defined]


# --- comparison and reporting -----------------------------------------------------------------


def _flat(x: Any) -> np.ndarray:
    return np.atleast_1d(np.asarray(x, dtype=np.float64)).ravel()


def _index_label(shape: tuple[int, ...], k: int) -> str:
    if not shape:
        return "()"
    return str(tuple(int(i) for i in np.unravel_index(k, shape)))


def _table(title: str, rows: list[tuple], ratios: list[float], limit: int = 8) -> str:
    order = sorted(range(len(rows)), key=lambda i: -ratios[i])[:limit]
    head = f"{'arg':>4} {'index':>12} {'ours':>24} {'JAX':>24} {'finite diff':>24} {'rel err':>10}"
    lines = [title, head]
    for i in order:
        arg, idx, ours, ref, fd, rel = rows[i]
        fd_s = "-" if fd is None else f"{fd:.17g}"
        lines.append(f"{arg:>4} {idx:>12} {ours:>24.17g} {ref:>24.17g} {fd_s:>24} {rel:>10.3g}")
    return "\n".join(lines)


def _close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Elementwise |a - b| / allowed (<= 1 passes); matching infinities and NaNs pass."""
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(a - b)
        allowed = atol + rtol * np.maximum(np.abs(a), np.abs(b))
        ratio = np.where(allowed > 0, err / np.where(allowed > 0, allowed, 1.0),
                         np.where(err == 0, 0.0, np.inf))
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    return np.where(same, 0.0, np.where(np.isnan(ratio), np.inf, ratio))


def _rel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(a - b) / np.maximum(np.abs(b), np.finfo(np.float64).tiny)


# --- finite differences -----------------------------------------------------------------------


def _fd_gradient(jf: Callable, args: list[Any], k: int, eps: float
                 ) -> tuple[np.ndarray, np.ndarray, float]:
    """Central differences of `jf` in argument k: (gradient, steps, |f(args)|).

    Steps are `eps**(1/3) * max(1, |x|)`, taken in the argument's own dtype; the quotient uses
    the step actually representable there.
    """
    base = args[k]
    f0 = abs(builtins.float(jf(*_copies(args))))

    def at(x: Any) -> float:
        work = _copies(args)
        work[k] = x
        return builtins.float(jf(*work))

    if isinstance(base, np.ndarray):
        g = np.zeros(base.size)
        steps = np.zeros(base.size)
        flat = base.ravel()
        for i in range(base.size):
            h = eps ** (1 / 3) * max(1.0, abs(builtins.float(flat[i])))
            up, down = base.copy(), base.copy()
            up.ravel()[i] += h
            down.ravel()[i] -= h
            span = builtins.float(up.ravel()[i]) - builtins.float(down.ravel()[i])
            g[i] = (at(up) - at(down)) / span
            steps[i] = span / 2
        return g.reshape(base.shape), steps.reshape(base.shape), f0
    xv = builtins.float(base)
    h = eps ** (1 / 3) * max(1.0, abs(xv))
    return np.array((at(xv + h) - at(xv - h)) / (2 * h)), np.array(h), f0


# --- public checks ----------------------------------------------------------------------------


def check_value(f: Callable, *args: Any, rtol: float = 1e-12, atol: float = 1e-12) -> Any:
    """Check that `enzyme_py.jit(f)(*args)` equals plain Python `f(*args)`, including the
    arrays `f` writes into; returns our result.

    Each run gets its own copies of the arguments. Results are compared with
    `|ours - python| <= atol + rtol * max(|ours|, |python|)`; use a looser `rtol` for float32.

    Example::

        >>> import numpy as np
        >>> def total(a):
        ...     s = 0.0
        ...     for i in range(len(a)):
        ...         s += a[i]
        ...     return s
        >>> check_value(total, np.array([1.0, 2.0]))
        3.0
    """
    mine_args = _copies(args)
    py_args = _copies(args)
    ours = _our_jit(f)(*mine_args)
    expected = f(*py_args)
    name = getattr(f, "__name__", "f")
    pairs: list[tuple[str, Any, Any]] = [("result", ours, expected)]
    pairs += [(f"argument {i} after the call", m, p)
              for i, (m, p) in enumerate(zip(mine_args, py_args, strict=True))
              if isinstance(m, np.ndarray)]
    for what, a, b in pairs:
        if (a is None) != (b is None):
            raise AssertionError(f"{name}: {what}: enzyme_py.jit gives {a!r}, Python {b!r}")
        if a is None:
            continue
        if isinstance(b, tuple) != isinstance(a, tuple) or (
                isinstance(a, tuple) and len(a) != len(b)):
            raise AssertionError(f"{name}: {what}: enzyme_py.jit gives {a!r}, Python {b!r}")
        fa, fb = _flat(a), _flat(b)
        if fa.shape != fb.shape:
            raise AssertionError(f"{name}: {what}: shapes differ: {fa.shape} vs {fb.shape}")
        ratio = _close(fa, fb, rtol, atol)
        if np.any(ratio > 1):
            bad = np.argsort(-ratio)[:8]
            rows = "\n".join(f"  [{k}] ours {fa[k]!r}  python {fb[k]!r}" for k in bad
                             if ratio[k] > 1)
            raise AssertionError(f"{name}: {what} differs from plain Python "
                                 f"(rtol={rtol}, atol={atol}):\n{rows}")
    return ours


def check_grad(f: Callable, *args: Any, argnums: int | Sequence[int] = 0,
               reference: Callable | None = None, rtol: float = 1e-7, atol: float = 1e-9,
               fd: bool = True, fd_rtol: float = 1e-5) -> Any:
    """Check `enzyme_py.grad(f, argnums)(*args)` against JAX and finite differences; return it.

    The JAX gradient is `jax.grad` of `f` itself run on JAX values (see the module
    docstring), or of `reference` when given: a JAX function with the same signature taking
    jax arrays. It runs eagerly with 64-bit JAX enabled for the duration of the check only.
    An entry passes when `|ours - jax| <= atol + rtol * max(|ours|, |jax|)`. With `fd`,
    central finite differences of `enzyme_py.jit(f)` are compared too (tolerance in the
    module docstring). On a mismatch an `AssertionError` shows a table of the worst entries:
    argument, index, ours, JAX, finite differences, relative error.

    Example::

        >>> import math
        >>> import numpy as np
        >>> def energy(k, x):
        ...     e = 0.0
        ...     for i in range(x.shape[0] - 1):
        ...         e += k * (x[i + 1] - x[i]) ** 2 + math.cos(x[i])
        ...     return e
        >>> g = check_grad(energy, 2.0, np.array([0.0, 0.5, 1.5]), argnums=(0, 1))
        >>> round(g[0], 12)
        1.25
    """
    from enzyme_py.pytree import is_container

    if any(is_container(a) for a in args):
        return _check_tree_grad(f, args, argnums, reference, rtol, atol, fd, fd_rtol)
    jax, _ = _jax()
    name = getattr(f, "__name__", "f")
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    norm = tuple(a % len(args) for a in nums)
    key = argnums if isinstance(argnums, int) else tuple(argnums)
    ours = _our_grad(f, key)(*_copies(args))
    ours_t = (ours,) if isinstance(argnums, int) else tuple(ours)

    with jax.enable_x64(True):
        if reference is not None:
            ref = jax.grad(reference, argnums=norm)(*[_jax_arg(a) for a in args])
            ref_t = tuple(np.asarray(r, dtype=np.float64) for r in ref)
        else:
            try:
                prog = _Packed(f, args)
                ref = jax.grad(prog.run, argnums=norm)(*prog.packed)
                ref_t = tuple(prog.grad_of(k, r) for k, r in zip(norm, ref, strict=True))
            except Exception as scalar_error:  # NumPy-style code: run it on jax.numpy
                try:
                    ref = jax.grad(numpy_as_jax(f), argnums=norm)(
                        *[_jax_arg(a) for a in args])
                except Exception:
                    raise AssertionError(
                        f"{name}: JAX could not run the same source (element by element: "
                        f"{type(scalar_error).__name__}: {scalar_error}; with jax.numpy for "
                        "numpy: failed too); pass reference= a JAX version") from scalar_error
                ref_t = tuple(np.asarray(r, dtype=np.float64) for r in ref)

    rows: list[tuple] = []
    jax_ratio: list[float] = []
    fd_ratio: list[float] = []
    jf = _our_jit(f) if fd else None
    single = any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args)
    eps = builtins.float(np.finfo(np.float32 if single else np.float64).eps)
    frt = max(fd_rtol, 1e-3) if single else fd_rtol
    for pos, (k, g, r) in enumerate(zip(norm, ours_t, ref_t, strict=True)):
        arr = isinstance(args[k], np.ndarray)
        if arr and (not isinstance(g, np.ndarray) or g.shape != args[k].shape):
            raise AssertionError(f"{name}: the gradient of argument {k} should be an array of "
                                 f"shape {args[k].shape}, got {g!r}")
        if not arr and not isinstance(g, float):
            raise AssertionError(f"{name}: the gradient of argument {k} should be a float, "
                                 f"got {type(g).__name__}")
        go, gr = _flat(g), _flat(r)
        ratio_j = _close(go, gr, rtol, atol)
        if jf is not None:
            fdg, steps, f0 = _fd_gradient(jf, list(args), k, eps)
            fdf, hf = _flat(fdg), _flat(steps)
            allowed = frt * np.maximum(np.abs(fdf), np.max(np.abs(fdf), initial=0.0)) + \
                10 * eps * (f0 + 1) / hf
            with np.errstate(invalid="ignore"):
                ratio_f = np.abs(go - fdf) / allowed
            ratio_f = np.where(np.isnan(ratio_f), np.inf, ratio_f)
        else:
            fdf, ratio_f = None, np.zeros_like(go)
        shape = np.shape(args[k]) if arr else ()
        rel = _rel(go, gr)
        for i in range(go.size):
            rows.append((k, _index_label(shape, i), go[i], gr[i],
                         None if fdf is None else fdf[i], rel[i]))
            jax_ratio.append(float(ratio_j[i]))
            fd_ratio.append(float(ratio_f[i]))
        del pos
    worst_j = max(jax_ratio, default=0.0)
    worst_f = max(fd_ratio, default=0.0)
    if worst_j > 1:
        raise AssertionError(_table(f"{name}: enzyme_py.grad differs from JAX (rtol={rtol}, "
                                    f"atol={atol}); worst entries:", rows, jax_ratio))
    if worst_f > 1:
        raise AssertionError(_table(f"{name}: enzyme_py.grad differs from central finite "
                                    f"differences (fd_rtol={frt}); worst entries "
                                    "(rel err vs JAX):", rows, fd_ratio))
    return ours


def _check_tree_grad(f: Callable, args: Sequence[Any], argnums: int | Sequence[int],
                     reference: Callable | None, rtol: float, atol: float, fd: bool,
                     fd_rtol: float) -> Any:
    """`check_grad` for pytree arguments: the gradient must have each argument's structure;
    its leaves are compared with `jax.grad` of the same source on jax.numpy (or of
    `reference`) and with finite differences of `jit(f)`, leaf by leaf."""
    from enzyme_py.pytree import flatten, flatten_all, tree_map

    jax, _ = _jax()
    name = getattr(f, "__name__", "f")
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    norm = tuple(a % len(args) for a in nums)
    key = argnums if isinstance(argnums, int) else tuple(argnums)
    ours = _our_grad(f, key)(*[tree_map(_copy_leaf, a) for a in args])
    ours_t = (ours,) if isinstance(argnums, int) else tuple(ours)
    with jax.enable_x64(True):
        fn = reference if reference is not None else numpy_as_jax(f)
        ref = jax.grad(fn, argnums=norm)(*[tree_map(_jax_arg, a) for a in args])
    leaves, nodes = flatten_all(args)
    starts = np.cumsum([0] + [n.num_leaves for n in nodes])
    jf = _our_jit(f) if fd else None

    def flat_call(*xs: Any) -> Any:
        return jf(*[n.unflatten(xs[starts[i]:starts[i + 1]])  # type: ignore[misc]
                    for i, n in enumerate(nodes)])

    eps = builtins.float(np.finfo(np.float64).eps)
    rows: list[tuple] = []
    jax_ratio: list[float] = []
    fd_ratio: list[float] = []
    for k, g, r in zip(norm, ours_t, ref, strict=True):
        got, got_node = flatten(g)
        if got_node != nodes[k]:
            raise AssertionError(f"{name}: the gradient of argument {k} has structure "
                                 f"{got_node}; the argument's is {nodes[k]}")
        want = jax.tree_util.tree_leaves(r)
        paths = nodes[k].leaf_paths(f"#{k}")
        for j, (go_v, gr_v, path) in enumerate(zip(got, want, paths, strict=True)):
            leaf = leaves[starts[k] + j]
            if np.shape(go_v) != np.shape(leaf):
                raise AssertionError(f"{name}: the gradient of {path} has shape "
                                     f"{np.shape(go_v)}, the leaf {np.shape(leaf)}")
            go, gr = _flat(go_v), _flat(gr_v)
            ratio_j = _close(go, gr, rtol, atol)
            fdf, ratio_f = None, np.zeros_like(go)
            if jf is not None:
                fdg, steps, f0 = _fd_gradient(flat_call, list(leaves), int(starts[k]) + j, eps)
                fdf = _flat(fdg)
                allowed = fd_rtol * np.maximum(np.abs(fdf), np.max(np.abs(fdf), initial=0.0)) \
                    + 10 * eps * (f0 + 1) / _flat(steps)
                with np.errstate(invalid="ignore"):
                    ratio_f = np.nan_to_num(np.abs(go - fdf) / allowed, nan=np.inf)
            rel = _rel(go, gr)
            for i in range(go.size):
                rows.append((path, _index_label(np.shape(leaf), i), go[i], gr[i],
                             None if fdf is None else fdf[i], rel[i]))
                jax_ratio.append(float(ratio_j[i]))
                fd_ratio.append(float(ratio_f[i]))
    if max(jax_ratio, default=0.0) > 1:
        raise AssertionError(_table(f"{name}: enzyme_py.grad differs from JAX (rtol={rtol}, "
                                    f"atol={atol}); worst entries:", rows, jax_ratio))
    if max(fd_ratio, default=0.0) > 1:
        raise AssertionError(_table(f"{name}: enzyme_py.grad differs from central finite "
                                    f"differences (fd_rtol={fd_rtol}); worst entries:", rows,
                                    fd_ratio))
    return ours


def check_vjp(f: Callable, *args: Any, cotangent: Any = None, reference: Callable | None = None,
              rtol: float = 1e-7, atol: float = 1e-9) -> tuple[Any, tuple[Any, ...]]:
    """Check `enzyme_py.vjp(f, *args)` (primal and cotangents) against `jax.vjp` of `f` run on
    JAX values (or of `reference`); returns `(primal, cotangents)`.

    `cotangent` defaults to 1.0 per result component (1.0, 2.0, ... for tuples, so that
    components are told apart). Cotangents of int arguments are None, as ours are.

    Example::

        >>> import math
        >>> def polar(r, t):
        ...     return r * math.cos(t), r * math.sin(t)
        >>> primal, cts = check_vjp(polar, 2.0, 0.0)
        >>> cts[0], round(cts[1], 12)
        (1.0, 4.0)
    """
    import enzyme_py

    jax, _ = _jax()
    name = getattr(f, "__name__", "f")
    primal, vjp_fn = enzyme_py.vjp(f, *_copies(args))
    if cotangent is None:
        cotangent = tuple(float(i + 1) for i in range(len(primal))) \
            if isinstance(primal, tuple) else 1.0
    cts = vjp_fn(cotangent)
    floats = [i for i, a in enumerate(args)
              if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")]
    with jax.enable_x64(True):
        if reference is not None:
            fn, jargs, grad_of = reference, [_jax_arg(a) for a in args], None
        else:
            prog = _Packed(f, args)
            fn, jargs, grad_of = prog.run, prog.packed, prog.grad_of

        def on_floats(*fa: Any) -> Any:
            full = list(jargs)
            for i, v in zip(floats, fa, strict=True):
                full[i] = v
            return fn(*full)

        ref_primal, ref_fn = jax.vjp(on_floats, *[jargs[i] for i in floats])
        ct = tuple(np.float64(c) for c in cotangent) if isinstance(cotangent, tuple) \
            else np.float64(cotangent)
        ct = jax.tree_util.tree_map(lambda p, c: jax.numpy.asarray(c, dtype=p.dtype),
                                    ref_primal, ct)
        ref_cts = ref_fn(ct)
        ref_primal_np = _flat(jax.tree_util.tree_leaves(ref_primal))
        ref_np = [np.asarray(c, dtype=np.float64) if grad_of is None else grad_of(i, c)
                  for i, c in zip(floats, ref_cts, strict=True)]
    ratio = _close(_flat(primal), ref_primal_np, rtol, atol)
    if np.any(ratio > 1):
        raise AssertionError(f"{name}: vjp primal {primal!r} differs from JAX's "
                             f"{ref_primal_np!r}")
    rows: list[tuple] = []
    ratios: list[float] = []
    for i, c in enumerate(cts):
        if i not in floats:
            if c is not None:
                raise AssertionError(f"{name}: the cotangent of non-float argument {i} should "
                                     f"be None, got {c!r}")
            continue
        r = ref_np[floats.index(i)]
        if c is None:
            raise AssertionError(f"{name}: the cotangent of argument {i} is None")
        go, gr = _flat(c), _flat(r)
        rat = _close(go, gr, rtol, atol)
        rel = _rel(go, gr)
        for j in range(go.size):
            rows.append((i, _index_label(np.shape(args[i]), j), go[j], gr[j], None, rel[j]))
            ratios.append(float(rat[j]))
    if max(ratios, default=0.0) > 1:
        raise AssertionError(_table(f"{name}: enzyme_py.vjp differs from jax.vjp "
                                    f"(rtol={rtol}, atol={atol}); worst entries:", rows, ratios))
    return primal, cts


def _jax_arg(a: Any) -> Any:
    _, jnp = _jax()
    if isinstance(a, np.ndarray):
        return jnp.asarray(a) if a.dtype.kind == "f" else a.copy()
    return copy.copy(a)
