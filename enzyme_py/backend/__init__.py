"""The backend: LLVM text in, verified / optimized LLVM text or callable native code out.

Invariants:

- This is the only package of enzyme_py that imports llvmlite; everything above it exchanges
  LLVM *text*. LLVM is initialized lazily and once.
- Failures of LLVM (parse, verify, unresolved external symbols, unsupported signatures) raise
  `BackendError`; LLVM is never allowed to abort the process: input it would abort on is
  checked first (`target_check` for every text, `jit_check` before code is generated).
- Every argument of a native call is checked in Python before native code runs: a mismatch is
  a `CallError` (a `TypeError`) or `ValueError` that names the argument, never a crash.
- Each piece of module-level state (locks, target machines, OrcJITs, the libmvec table,
  `_DATA_OFFSET`) is defined in exactly one submodule and imported from there. Imports between
  submodules point one way: `target` <- `target_check` <- `text` <- `pipelines` <- `native`,
  `target` <- `system_llvm` <- `pipelines`, `target` <- `jit_check` <- `native`, and
  `signatures` <- `arguments` <- `native`.
- Where the system has a release libLLVM of llvmlite's major version, the `-O` pipelines and
  code generation of modules for the host run in it (`system_llvm`; llvmlite's LLVM is built
  with assertions); the code is the same as llvmlite's, and llvmlite does the work otherwise.

Submodules:

- `target`: LLVM initialization, the host, one target machine per opt level (and per triple
  for modules of other platforms).
- `target_check`: target attributes LLVM would ignore (set aside, `TargetWarning`) or abort on.
- `jit_check`: what cannot be compiled to run on this host without a crash.
- `text`: text <-> module (`parse_llvm`, `normalize`), scratch contexts, parse errors.
- `system_llvm`: the system's release libLLVM through LLVM's C API (pipelines, object files).
- `pipelines`: `-O<level>` pipelines (`optimize`) and named passes (`run_llvm_passes`,
  `LLVM_PASSES`, `PASS_ALIASES`).
- `signatures`: `ArgSpec`, `Signature`, LLVM function descriptions, ctypes types, the sret
  wrapper for struct results.
- `arguments`: the per-argument checks and conversions, the numpy data pointer.
- `native`: `compile_ir` (OrcJIT, libmvec), `JITModule`, `NativeFunction`.
"""

from enzyme_py.backend.arguments import _DATA_OFFSET as _DATA_OFFSET
from enzyme_py.backend.arguments import _data_pointer as _data_pointer
from enzyme_py.backend.native import JITModule, NativeFunction, compile_ir, prefetch_shared
from enzyme_py.backend.pipelines import LLVM_PASSES, PASS_ALIASES, optimize, run_llvm_passes
from enzyme_py.backend.signatures import ArgSpec, Signature
from enzyme_py.backend.target import PRINTED_NAME
from enzyme_py.backend.target_check import TargetWarning
from enzyme_py.backend.text import normalize, parse_llvm

__all__ = [
    "LLVM_PASSES",
    "PASS_ALIASES",
    "PRINTED_NAME",
    "ArgSpec",
    "JITModule",
    "NativeFunction",
    "Signature",
    "TargetWarning",
    "compile_ir",
    "normalize",
    "optimize",
    "parse_llvm",
    "prefetch_shared",
    "run_llvm_passes",
]
