"""The tape's alias scope: LLVM is told that the tape's memory is no other memory.

The tape's arrays (`tape.py`) are memory the transform allocates for itself: only its own
element loads and stores touch them (and the runtime helpers that grow them, which are other
functions). Without saying so, LLVM cannot tell a tape pointer (loaded from a slot, grown by
`realloc`) from the primal's and the shadows' pointers, and guards every vectorized loop that
stores a tape row with run-time overlap checks against each array the loop reads (lstm_numpy's
gradient had 1.2k instructions of them).

`tag(inst, scope_list(module))` puts a tape access into the scope (`!alias.scope`; `tape.py`
tags the forward sweep's stores); the `tape-scopes` pass then marks every other load and store
of each function holding tagged accesses `!noalias` with it (merged into a `!noalias` list the
access already has). LLVM's scoped-noalias analysis then answers "no alias" for each (tagged,
marked) pair.

Invariants: only accesses of `tape.py`'s arrays are tagged, and every access marked touches
no tape array (the primal's memory, shadows, slots); an access that is neither (a call, an
untagged tape load, a runtime helper's code inlined later, a `!noalias` list that cannot be
read) keeps LLVM's ordinary answers; metadata nodes get fresh numbers, none is renumbered.
"""

from __future__ import annotations

import re

from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function, Module

SCOPE_NAME = "enzyme_py.tape"
_LIST = re.compile(r"^(!\d+)\s*=\s*!\{([^{}]*)\}\s*$")
_DOMAIN_MARKER = f'!"{SCOPE_NAME}"'
_MARKER = f'!"{SCOPE_NAME} array"'
_READ_MARKER = f'!"{SCOPE_NAME} array, read back"'


def scope_list(module: Module, reads: bool = False) -> str:
    """The `!N` of the one-scope list `!{tape scope}` (made on first use). `reads`: the list
    of a second scope, for the reverse sweep's tape loads, that no access is marked `!noalias`
    with: those loads are kept out of the marking and keep LLVM's ordinary answers."""
    marker = _READ_MARKER if reads else _MARKER
    scope = _known_scope(module, marker)
    if scope is None:
        domain = _known_scope(module, _DOMAIN_MARKER)
        k = module.fresh_metadata_number()
        if domain is None:
            module.metadata.append(f"!{k} = distinct !{{!{k}, {_DOMAIN_MARKER}}}")
            domain, k = f"!{k}", k + 1
        module.metadata.append(f"!{k} = distinct !{{!{k}, {domain}, {marker}}}")
        scope = f"!{k}"
    got = _list_of(module, scope)
    if got is not None:
        return got
    k = module.fresh_metadata_number()
    module.metadata.append(f"!{k} = !{{{scope}}}")
    return f"!{k}"


def _known_scope(module: Module, marker: str) -> str | None:
    for line in module.metadata:
        if line.rstrip().endswith(marker + "}") and "distinct" in line:
            return line.split("=", 1)[0].strip()
    return None


def _list_of(module: Module, scope: str) -> str | None:
    for line in module.metadata:
        m = _LIST.match(line.strip())
        if m and [x.strip() for x in m.group(2).split(",")] == [scope]:
            return m.group(1)
    return None


def tag(inst: I.Instruction, tape_list: str) -> I.Instruction:
    """Put the tape access `inst` in the tape's scope (`tape_list`: `scope_list`'s answer)."""
    inst.metadata.append(("alias.scope", tape_list))
    return inst


def mark_other_accesses(module: Module) -> int:
    """Mark every load and store outside the tape's scopes, in the functions that access the
    tape, as not aliasing the tape's stores; the number marked."""
    scope = _known_scope(module, _MARKER)
    tape_list = _list_of(module, scope) if scope is not None else None
    if scope is None or tape_list is None:
        return 0
    read = _known_scope(module, _READ_MARKER)
    skip = {tape_list} | ({_list_of(module, read)} if read is not None else set())
    lists = {m.group(1): m for line in module.metadata if (m := _LIST.match(line.strip()))}
    merged: dict[str, str | None] = {}
    marked = 0
    for fn in module.functions:
        if not fn.is_declaration and _accesses_tape(fn, tape_list):
            marked += _mark(module, fn, scope, tape_list, skip, lists, merged)
    return marked


def _accesses_tape(fn: Function, tape_list: str) -> bool:
    return any(inst.get_metadata("alias.scope") == tape_list for inst in fn.instructions()
               if isinstance(inst, (I.Load, I.Store)))


def _mark(module: Module, fn: Function, scope: str, tape_list: str, skip: set[str | None],
          lists: dict[str, re.Match], merged: dict[str, str | None]) -> int:
    marked = 0
    for inst in fn.instructions():
        if not isinstance(inst, (I.Load, I.Store)) or inst.get_metadata("alias.scope") in skip:
            continue
        old = inst.get_metadata("noalias")
        if old is None:
            new: str | None = tape_list
        else:
            if old not in merged:
                merged[old] = _merged_list(module, lists.get(old), scope)
            new = merged[old]
        if new is None:
            continue  # a list we cannot read: left as it is
        inst.metadata = [(k, t) for k, t in inst.metadata if k != "noalias"] + [("noalias", new)]
        marked += 1
    return marked


def _merged_list(module: Module, m: re.Match | None, scope: str) -> str | None:
    if m is None:
        return None
    members = [x.strip() for x in m.group(2).split(",") if x.strip()]
    if scope in members:
        return m.group(1)
    k = module.fresh_metadata_number()
    module.metadata.append(f"!{k} = !{{{', '.join([*members, scope])}}}")
    return f"!{k}"
