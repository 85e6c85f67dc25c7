"""The same Python function under JAX: `math`/`numpy` mapped to `jax.numpy` shims, arrays as
`ShimArray`s (see the package docstring for the invariants); `jax_version_of`."""

from __future__ import annotations

import builtins
import copy
import functools
import math
import operator
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from enzyme_py.custom import CustomRule


def jax_module():
    import jax
    import jax.numpy as jnp

    return jax, jnp


def _is_jax(x: Any) -> bool:
    jax, _ = jax_module()
    return isinstance(x, jax.Array | jax.core.Tracer)


def _any_jax(xs: Sequence[Any]) -> bool:
    jax, _ = jax_module()
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
        _, jnp = jax_module()
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
        _, jnp = jax_module()
        return jnp.asarray(v, dtype=dtype)
    return dtype.type(v)


def _shim_array(a: Any) -> ShimArray:
    """A numpy or jax array (or a flat list of scalars with its shape) as a `ShimArray`."""
    if isinstance(a, np.ndarray):
        if a.dtype.kind in "iub":
            return ShimArray([int(x) for x in a.ravel()], a.shape, a.dtype)
        _, jnp = jax_module()
        return ShimArray([jnp.asarray(x) for x in a.ravel()], a.shape, a.dtype)
    return ShimArray(list(a.ravel()), a.shape, a.dtype)  # a jax array: one slice per element


def _to_float(x: Any = 0.0) -> Any:
    if _is_jax(x):
        _, jnp = jax_module()
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
        _, jnp = jax_module()
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
        _, jnp = jax_module()
        return jnp.sum(jnp.stack(x.items))
    return np.sum(np.array(x.items, dtype=x.dtype))


def _lift(name: str, py_fn: Callable, jax_fn: Callable) -> Callable:
    """`py_fn` on plain numbers (exact Python/numpy semantics), `jax_fn` once JAX is involved."""

    def f(*args: Any) -> Any:
        return jax_fn(*args) if _any_jax(args) else py_fn(*args)

    f.__name__ = name
    return f


def _jnp(name: str) -> Callable:
    return lambda *a: getattr(jax_module()[1], name)(*a)


def _jax_int(name: str) -> Callable:
    """math.floor/ceil/trunc of a traced float: a Python int (concrete under jax.grad)."""
    return lambda x: int(getattr(jax_module()[1], name)(x))


def _jax_log(x: Any, base: Any = None) -> Any:
    _, jnp = jax_module()
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
        if not hasattr(jax_module()[1], jname):
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
    if not hasattr(jax_module()[1], name):
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


class Packed:
    """`f` on JAX values, taking float array arguments as flat lists of scalars.

    `jax.grad` of `run` over those lists differentiates with respect to each element directly
    (no slicing of a traced array); `grad_of(k, g)` turns the result back into an array.
    """

    def __init__(self, f: Callable, args: Sequence[Any]) -> None:
        self.g = _Shimmer().function(f)  # type: ignore[arg-type]
        self.args = list(args)
        _, jnp = jax_module()
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
