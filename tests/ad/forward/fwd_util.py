"""Shared helpers of the forward-mode tests: build and JIT `@fwddiffe_f`, call derivatives
whose result the Python calling layer cannot take (arrays: width > 1) through a generated
wrapper that stores the result.  (Central differences: `tests/finite_diff.py`.)"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from enzyme_py.ad.driver import forward_module
from enzyme_py.backend import compile_ir
from enzyme_py.ir import parse
from enzyme_py.ir import types as T

_DTYPES = {"double": np.float64, "float": np.float32}


def _leaf_count(t: T.Type) -> tuple[int, str]:
    if isinstance(t, T.FloatType):
        return 1, str(t)
    if isinstance(t, (T.ArrayType, T.VectorType)):
        n, kind = _leaf_count(t.element)
        return t.count * n, kind
    if isinstance(t, (T.StructType, T.IdentifiedStructType)):
        parts = [_leaf_count(e) for e in T.struct_elements(t)]
        kinds = {k for _, k in parts}
        assert len(kinds) == 1, f"mixed float kinds in {t}"
        return sum(n for n, _ in parts), kinds.pop()
    raise TypeError(f"not a float aggregate: {t}")


class Compiled:
    """A primal and its forward derivative, native; `fwd(...)` returns a flat ndarray of the
    derivative's result (primal first when it has one, then the tangents lane by lane)."""

    def __init__(self, ir: str, fname: str, acts: Sequence[str], *, width: int = 1,
                 return_primal: bool = True, opt_level: int = 2) -> None:
        out, name = forward_module(parse(ir), fname, list(acts), width=width,
                                   return_primal=return_primal, opt_level=opt_level)
        self.module_text = str(out)
        fn = out.get_function(name)
        self.name = name
        ret = fn.return_type
        params = [str(a.type) for a in fn.args]
        self.result_type = ret
        self.nres, kind = (0, "double") if ret.is_void else _leaf_count(ret)
        self.dtype = _DTYPES[kind]
        formals = ", ".join(["ptr %out"] + [f"{p} %a{i}" for i, p in enumerate(params)])
        actuals = ", ".join(f"{p} %a{i}" for i, p in enumerate(params))
        body = (f"  %r = call {ret} @{name}({actuals})\n  store {ret} %r, ptr %out\n"
                if not ret.is_void else f"  call void @{name}({actuals})\n")
        wrapper = f"define void @wrap.{name}({formals}) {{\n{body}  ret void\n}}\n"
        self.jm = compile_ir(self.module_text + "\n" + wrapper, opt_level=2)
        self.primal = self.jm.function(fname)
        self._wrap = self.jm.function(f"wrap.{name}")

    def fwd(self, *args) -> np.ndarray:
        out = np.zeros(max(self.nres, 1), dtype=self.dtype)
        self._wrap(out, *args)
        return out[:self.nres]


def close(got, want, rtol: float = 1e-6, atol: float = 1e-8) -> None:
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=rtol, atol=atol)
