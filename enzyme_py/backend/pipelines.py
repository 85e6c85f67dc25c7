"""Optimization: LLVM's `-O<level>` pipelines (`optimize`) and named passes
(`run_llvm_passes`).

Invariants:

- Text in, text out: each call works on a scratch module (see `text`) given the host's target.
- Pipelines run one at a time under `_pipeline_lock`; each sets the process-wide
  `-force-ordered-reductions` option to its own value (see `_run_pipeline`), and the first
  sets `-hoist-runtime-checks=false` (see `_no_hoisted_checks`).
- The text that `optimize` and `run_llvm_passes` return keeps scalar libm calls (only
  `compile_ir` maps them to libmvec's vector functions), so it can be differentiated.
- A bad level or an unknown pass name raises `BackendError` (with a suggestion for a pass).
- `-O<level>` pipelines (1-3) of modules for the host run in the system's release libLLVM
  where it is there (`_in_system_llvm`, `system_llvm`: the same code, about twice as fast as
  llvmlite's LLVM, which has assertions); named passes always run in llvmlite (textual
  `instcombine` there verifies its fixpoint and ends the process where it is not reached).
- Every pass manager is freed right after its run (`_run_manager`): llvmlite 0.50 never frees
  one itself, which leaked ~30 KiB of LLVM heap per `-O2` pipeline.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Sequence

import llvmlite.binding as llvm
from llvmlite.binding.newpassmanagers import NewPassManager

from enzyme_py.backend import system_llvm
from enzyme_py.backend.jit_check import _has_inline_asm
from enzyme_py.backend.target import _host, _machine, _target_host, same_platform
from enzyme_py.backend.text import _scratch
from enzyme_py.errors import BackendError


def _check_level(level: int) -> None:
    if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 3:
        raise BackendError(f"optimization level must be 0, 1, 2 or 3, not {level!r}")


_pipeline_lock = threading.Lock()
_ordered_reductions = False  # the value of LLVM's -force-ordered-reductions; under the lock
_checks_hoisted = True  # LLVM's -hoist-runtime-checks, as this module last set it; under the lock


def _no_hoisted_checks() -> None:
    """Keep the loop vectorizer's alias checks at the inner loop (LLVM's process-wide
    `-hoist-runtime-checks=false`; the caller holds `_pipeline_lock`).

    Hoisted, the checks of an inner loop are expanded once per entry of its outer loop, over
    the range the outer loop sweeps, and hold only where that loop walks memory upwards (else
    they report a conflict). A reverse sweep walks its tape downwards, so every inner loop of
    a reversed time loop ran its scalar copy: the stencils' adjoint loops never ran vector code
    (stencil1d's gradient 6.7 -> 5.5 ms, stencil2d's 12.3 -> 10.6 ms with the checks kept
    inside; GMM, LSTM, BA and RK4 within noise)."""
    global _checks_hoisted
    if _checks_hoisted:
        llvm.set_option("", "-hoist-runtime-checks=false")
        _checks_hoisted = False


def _run_manager(manager: NewPassManager, module: llvm.ModuleRef,
                 builder: llvm.PassBuilder) -> None:
    """Run a module pass manager on `module`, then free it.

    llvmlite 0.50's `ModulePassManager` never frees its C++ pass manager: the no-op
    `ObjectRef._dispose` precedes `NewPassManager._dispose` in its MRO, so closing or
    collecting it does nothing. The real disposal is called here, then the wrapper is detached
    (which also keeps a later llvmlite that fixes the MRO from freeing it twice)."""
    try:
        manager.run(module, builder)
    finally:
        NewPassManager._dispose(manager)
        manager.detach()


def _run_pipeline(module: llvm.ModuleRef, level: int, loop_vectorize: bool,
                  slp_vectorize: bool, unroll: bool = True,
                  ordered_reductions: bool = False) -> None:
    """LLVM's -O<level> pipeline on `module`. `ordered_reductions` lets the loop vectorizer
    vectorize a loop around a floating-point sum that it keeps in source order (the
    transcendental calls beside the sum become vector calls; the result is unchanged).

    That switch is a process-wide LLVM option, so every pipeline runs under one lock and sets
    it to its own value: no run ever sees another's."""
    global _ordered_reductions
    _check_level(level)
    options = llvm.create_pipeline_tuning_options(speed_level=level)
    # Clang's choice: vectorize (and interleave) only from -O2 on.
    options.loop_vectorization = loop_vectorize and level >= 2
    options.loop_interleaving = loop_vectorize and level >= 2
    options.slp_vectorization = slp_vectorize and level >= 2
    options.loop_unrolling = unroll
    machine = _machine(level, module.triple)
    with _pipeline_lock:
        _no_hoisted_checks()
        if ordered_reductions != _ordered_reductions:
            llvm.set_option("", f"-force-ordered-reductions={str(ordered_reductions).lower()}")
            _ordered_reductions = ordered_reductions
        # A fresh builder per run: llvmlite registers each run's instrumentation callbacks on
        # the builder, so a reused builder would call into a finished run's destroyed state.
        builder = llvm.create_pass_builder(machine, options)
        _run_manager(builder.getModulePassManager(), module, builder)


def _in_system_llvm(module: llvm.ModuleRef, level: int, loop_vectorize: bool,
                    slp_vectorize: bool, unroll: bool, ordered_reductions: bool,
                    then: Sequence[str] = ()) -> str | None:
    """The text of `module` (parsed, verified, for a target) after `-O<level>` and the named
    passes `then`, run with `_run_pipeline`'s tuning in the system's release LLVM
    (`system_llvm`: faster than llvmlite's, which has assertions); None where that library
    is missing or failed, the module is not for the host's platform or holds inline asm, or
    `level` is 0: then the caller runs the pipeline in llvmlite."""
    _check_level(level)
    if level == 0 or not same_platform(module.triple, _host().triple):
        return None
    text = str(module)
    if _has_inline_asm(text):  # (stays in llvmlite, as in `native.compile_ir`)
        return None
    vectorize = loop_vectorize and level >= 2
    pipeline = ",".join([f"default<O{level}>", *(_TEXTUAL.get(n, n) for n in then)])
    return system_llvm.optimize(text, pipeline, vectorize,
                                slp_vectorize and level >= 2,
                                unroll, ordered_reductions)


def optimize(text: str, level: int = 2, *, loop_vectorize: bool = True,
             slp_vectorize: bool = True, unroll: bool = True, then: Sequence[str] = ()) -> str:
    """Run LLVM's default `-O<level>` pipeline (0-3) for the host (for a module of another
    platform: for its own triple) and return the new text; `then`: named passes
    (`LLVM_PASSES`) run after it on the same module (one parse and one print for both).

    As in clang, the loop and SLP vectorizers run from level 2 on (each can be switched off,
    and so can loop unrolling); the host CPU's features decide the vector width. A module for
    the host runs in the system's release LLVM where it is there (`system_llvm`), with the
    same result. Calls of
    libm functions stay scalar calls (unlike `compile_ir`'s), so the text can be
    differentiated.

    Example::

        >>> src = "define i32 @f() {\\n  %a = add i32 1, 2\\n  ret i32 %a\\n}"
        >>> "ret i32 3" in optimize(src, 2)
        True
    """
    after = _resolved(then)
    with _scratch(text) as module:
        _target_host(module)
        out = _in_system_llvm(module, level, loop_vectorize, slp_vectorize, unroll,
                              ordered_reductions=False, then=after)
        if out is not None:
            return out
        _run_pipeline(module, level, loop_vectorize, slp_vectorize, unroll)
        _run_named(module, after)
        return str(module)


#: LLVM's textual pass name -> the llvmlite 0.50 `ModulePassManager` method that adds it.
#: Printer and viewer passes (they write files or start programs) and Numba's `refprune`
#: are left out. Not offered by llvmlite 0.50: gvn (use newgvn), mem2reg (use sroa), licm.
LLVM_PASSES: dict[str, str] = {
    # function passes
    "aa-eval": "add_aa_eval_pass",
    "adce": "add_aggressive_dce_pass",
    "aggressive-instcombine": "add_aggressive_instcombine_pass",
    "break-crit-edges": "add_break_critical_edges_pass",
    "dce": "add_dead_code_elimination_pass",
    "dse": "add_dead_store_elimination_pass",
    "instcombine": "add_instruction_combine_pass",
    "instnamer": "add_instruction_namer_pass",
    "jump-threading": "add_jump_threading_pass",
    "lcssa": "add_lcssa_pass",
    "loop-deletion": "add_loop_deletion_pass",
    "loop-reduce": "add_loop_strength_reduce_pass",
    "loop-rotate": "add_loop_rotate_pass",
    "loop-simplify": "add_loop_simplify_pass",
    "loop-unroll": "add_loop_unroll_pass",
    "loop-unroll-and-jam": "add_loop_unroll_and_jam_pass",
    "lower-atomic": "add_lower_atomic_pass",
    "lower-invoke": "add_lower_invoke_pass",
    "lower-switch": "add_lower_switch_pass",
    "memcpyopt": "add_mem_copy_opt_pass",
    "mergereturn": "add_unify_function_exit_nodes_pass",
    "newgvn": "add_new_gvn_pass",
    "reassociate": "add_reassociate_pass",
    "reg2mem": "add_register_to_memory_pass",
    "sccp": "add_sccp_pass",
    "simplifycfg": "add_simplify_cfg_pass",
    "sink": "add_sinking_pass",
    "sroa": "add_sroa_pass",
    "tailcallelim": "add_tail_call_elimination_pass",
    # module and CGSCC passes
    "always-inline": "add_always_inliner_pass",
    "argpromotion": "add_argument_promotion_pass",
    "constmerge": "add_constant_merge_pass",
    "deadargelim": "add_dead_arg_elimination_pass",
    "function-attrs": "add_post_order_function_attributes_pass",
    "globaldce": "add_global_dead_code_eliminate_pass",
    "globalopt": "add_global_opt_pass",
    "internalize": "add_internalize_pass",
    "ipsccp": "add_ipsccp_pass",
    "loop-extract": "add_loop_extract_pass",
    "mergefunc": "add_merge_functions_pass",
    "partial-inliner": "add_partial_inliner_pass",
    "rpo-function-attrs": "add_rpo_function_attrs_pass",
    "strip": "add_strip_symbols_pass",
    "strip-dead-debug-info": "add_strip_dead_debug_info_pass",
    "strip-dead-prototypes": "add_strip_dead_prototype_pass",
    "strip-debug-declare": "add_strip_debug_declare_pass",
    "strip-nondebug": "add_strip_non_debug_symbols_pass",
    "verify": "add_verifier",
}

#: Older (legacy pass manager) spellings accepted by `run_llvm_passes`.
PASS_ALIASES: dict[str, str] = {
    "loweratomic": "lower-atomic",
    "lowerinvoke": "lower-invoke",
    "lowerswitch": "lower-switch",
    "unify-function-exit-nodes": "mergereturn",
    "loop-strength-reduce": "loop-reduce",
}

_MISSING_HINTS = {"gvn": "newgvn", "mem2reg": "sroa", "licm": None}
_LEVELS = {"O0": 0, "O1": 1, "O2": 2, "O3": 3}


def _unknown_pass(name: str) -> BackendError:
    known = sorted(LLVM_PASSES) + sorted(_LEVELS)
    hint = ""
    if name in _MISSING_HINTS:
        alt = _MISSING_HINTS[name]
        hint = f" llvmlite 0.50 does not offer '{name}'" + (f"; use '{alt}'." if alt else ".")
    else:
        close = difflib.get_close_matches(name, known, n=1)
        if close:
            hint = f" Did you mean '{close[0]}'?"
    return BackendError(f"unknown LLVM pass '{name}'.{hint} Known passes: {', '.join(known)}")


def run_llvm_passes(text: str, names: Sequence[str]) -> str:
    """Run the named LLVM passes in order (`LLVM_PASSES` names, or "O0".."O3").

    Example::

        >>> src = '''define double @f(double %x) {
        ...   %p = alloca double
        ...   store double %x, ptr %p
        ...   %v = load double, ptr %p
        ...   ret double %v
        ... }'''
        >>> "alloca" in run_llvm_passes(src, ["sroa", "instcombine"])
        False
    """
    resolved = _resolved(names, levels=True)
    with _scratch(text) as module:
        _target_host(module)
        batch: list[str] = []  # consecutive named passes share one pass manager
        for name in resolved:
            if name in _LEVELS:
                _run_named(module, batch)
                batch.clear()
                _run_pipeline(module, _LEVELS[name], True, True)
            else:
                batch.append(name)
        _run_named(module, batch)
        return str(module)


#: The textual names (`system_llvm`) of named passes whose default there differs from
#: llvmlite's: textual `instcombine` verifies its fixpoint and ends the process where it is
#: not reached (llvmlite's `add_instruction_combine_pass` does not).
_TEXTUAL = {"instcombine": "instcombine<no-verify-fixpoint>"}


def _resolved(names: Sequence[str], levels: bool = False) -> list[str]:
    """`names` with their aliases resolved; `BackendError` for an unknown one (`levels`:
    "O0".."O3" are known too)."""
    if isinstance(names, str):
        raise TypeError("names must be a list of pass names, not a string")
    resolved = [PASS_ALIASES.get(name, name) for name in names]
    for name in resolved:
        if name not in LLVM_PASSES and not (levels and name in _LEVELS):
            raise _unknown_pass(name)
    return resolved


def _run_named(module: llvm.ModuleRef, names: Sequence[str]) -> None:
    """The named passes (resolved `LLVM_PASSES` names) on `module`, in one pass manager."""
    if not names:
        return
    manager = llvm.create_new_module_pass_manager()
    for name in names:
        getattr(manager, LLVM_PASSES[name])()
    options = llvm.create_pipeline_tuning_options(speed_level=2)
    _run_manager(manager, module, llvm.create_pass_builder(_machine(2, module.triple), options))

