"""Installing a helper function written as LLVM IR text into a module.

Invariants: a helper is defined once per module (by name: installing it again returns the
definition already there, and a declaration of it becomes the definition); it is `internal`;
its attributes (`noinline`, ...) and its metadata come with it, the metadata renumbered so it
cannot collide with the module's.
"""

from __future__ import annotations

from enzyme_py.ir.clone import clone_body, symbol_importer
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.parser import parse
from enzyme_py.ir.values import Value


def install_function(module: Module, name: str, text: str, origin: str) -> Function:
    """The function `name` of the IR `text` (which names its origin in parse errors), defined
    in `module` (with the functions it declares declared there too)."""
    existing = module.symbols.get(name)
    if isinstance(existing, Function) and not existing.is_declaration:
        return existing
    helper_module = parse(text, origin)
    src = helper_module.get_function(name)
    importer = symbol_importer(module)
    fn = existing if isinstance(existing, Function) else module.add_function(
        Function(name, src.function_type, [a.name for a in src.args]))
    fn.set_type(src.function_type, fn.args)
    fn.prefix = ["internal"]
    fn.suffix = list(src.suffix)
    vmap: dict[Value, Value] = dict(zip(src.args, fn.args, strict=True))
    clone_body(src, fn, vmap, importer)
    for line in helper_module.metadata:
        if line not in module.metadata:
            _add_metadata(module, line, fn)
    return fn


def _add_metadata(module: Module, line: str, fn: Function) -> None:
    """Give the helper's `!0` a fresh number in `module` and retarget its uses."""
    new_id = module.fresh_metadata_number()
    old = line.split("=")[0].strip()
    module.metadata.append(f"!{new_id} =" + line.split("=", 1)[1])
    for inst in fn.instructions():
        inst.metadata = [(k, f"!{new_id}" if t == old else t) for k, t in inst.metadata]
