"""Compiling handlers and registering them with XLA as FFI targets.

A target's name is a hash of the linked module text (the callee and its handler), the XLA FFI
API version and the enzyme_py version: compiled executables (and JAX's persistent compilation
cache, which outlives the process) refer to targets by name, so a name always means the same
code. The error record is renamed to one fixed name first (`derivatives`), so the same function
gives the same name in every process.

Invariants: a name is registered at most once per process (XLA's registry is append-only and
refuses a name bound to another address); the `JITModule` behind every registered target is
kept in `_PINNED` for the life of the process, so its code is never unloaded (the backend
unloads a module's code when its `JITModule` is collected). Compiling and registering happen
under one lock.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from enzyme_py import backend
from enzyme_py.jax.derivatives import Plan
from enzyme_py.jax.ffi_handler import HandlerSpec, ffi_version, link

__all__ = ["register_plan", "registered"]

_PINNED: dict[str, Any] = {}  # target name -> its JITModule, never released
_lock = threading.Lock()
_PLACEHOLDER = "enzyme_py.jax.handler"


def _spec(plan: Plan, name: str, label: str) -> HandlerSpec:
    return HandlerSpec(name, label, plan.callee, plan.callee_return, plan.args, plan.rets,
                       plan.params, plan.param_types, plan.scratch, plan.stores, plan.zeroed,
                       plan.error_global, plan.messages, plan.arg_slots, plan.error_param)


def linked_text(plan: Plan, label: str, name: str = _PLACEHOLDER) -> str:
    """The module text with its handler, the handler named `name`."""
    version = ffi_version()
    return link(plan.text, _spec(plan, name, label), version)


def target_name(plan: Plan, label: str) -> str:
    """`enzyme_py_<hash>`: the hash of what the target runs (see the module docstring)."""
    from enzyme_py import __version__

    text = linked_text(plan, label)
    digest = hashlib.sha256(f"{__version__}\n{ffi_version()}\n{text}".encode()).hexdigest()
    return f"enzyme_py_{digest[:24]}"


def register_plan(plan: Plan, label: str) -> str:
    """Compile `plan` with its handler, register it on the CPU platform (once per process),
    and return the target's name."""
    import jax.ffi

    name = target_name(plan, label)
    with _lock:
        if name in _PINNED:
            return name
        text = linked_text(plan, label, name)
        jm = backend.compile_ir(text, opt_level=2)
        address = jm.address(name)
        _PINNED[name] = jm  # before registering: XLA may call it right away
        jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(address), platform="cpu")
        # the handler loops over leading batch axes: XLA may split them across devices
        jax.ffi.register_ffi_target_as_batch_partitionable(name)
    return name


def registered() -> list[str]:
    """The names of the targets registered by this process so far."""
    return sorted(_PINNED)
