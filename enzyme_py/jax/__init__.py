"""enzyme_py inside JAX: compiled functions as JAX primitives, called through the XLA FFI.

`primitive(f)` makes a function of the numeric Python subset a JAX primitive whose lowering is
an XLA FFI custom call into native code enzyme_py compiled (no Python on the hot path), with
JVP, transpose and batching rules from enzyme_py's own forward and reverse modes. `from_ll`
does the same for a C/C++ function compiled to LLVM IR by clang.

Modules: `ffi_handler` (the handler in LLVM IR; the only one that knows the XLA FFI C ABI),
`messages` (error-site messages baked into handlers), `derivatives` (the four compiled forms,
primal, tangent, vjp and hvp, and their handler plans), `shapes` (result shapes for abstract
evaluation), `targets` (compiling, naming and registering targets; pinned native code), `op`
(the JAX primitive `enzyme_py_call`, abstract evaluation), `lowering` (the custom call,
partitionable over a sharded batch), `rules` (jvp, transpose, vmap), `second_order` (forward
over forward from the hvp form), `record` (a per-call error record), `manual_axes` (varying
mesh axes under `shard_map`), `from_ll` (LLVM IR from C).

Invariant: this package (with `testing`) is the only one that imports jax; importing it without
jax installed raises ImportError with the install line.
"""

try:
    import jax  # noqa: F401
    import jax.ffi  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised without jax
    raise ImportError("enzyme_py.jax needs JAX: pip install 'jax[cpu]' (jax and jaxlib "
                      ">= 0.4.31, with jax.ffi)") from err

from enzyme_py.jax import lowering as _lowering  # noqa: F401  (registers the lowering)
from enzyme_py.jax import rules as _rules  # noqa: F401  (registers the rules)
from enzyme_py.jax.from_ll import LLOp, from_ll
from enzyme_py.jax.op import Op, primitive
from enzyme_py.jax.targets import registered

__all__ = ["LLOp", "Op", "from_ll", "primitive", "registered"]
