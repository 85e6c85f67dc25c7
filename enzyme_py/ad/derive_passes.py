"""The transforms as passes (registered on import): `reverse`, `forward`, `dupnoneed`,
`lower-enzyme`, `tape-scopes`.

    reverse{fn=f,acts=dup,out,ret=active,name=g,primal=0}   adds @diffe_f (reverse.py)
    forward{fn=f,acts=dup,const,width=2,name=g,primal=1}    adds @fwddiffe_f (forward.py)
    dupnoneed{fn=f,acts=dupnoneed,out,ret=active}           drops the gradient's needless stores
    tape-scopes                                             the tape is no other memory
    lower-enzyme                                            the __enzyme_* calls (Enzyme's ABI)

Defaults (`activity_arguments.py`): Enzyme's activities for unmarked arguments, an active
return when it carries floats, the default names, no primal result in reverse mode and the
primal result in forward mode (as `gradient_module` and `forward_module` give them).

Invariants: the input is canonical (the preprocessing pipeline ran: `ad/driver.py`); a pass
adds functions and never changes the functions it differentiates; after a run, `derived`
holds the name of what the pass made (the driver returns it).
"""

from __future__ import annotations

from enzyme_py.ad import names
from enzyme_py.ad.activity_arguments import activities_for, function_named, return_active
from enzyme_py.ad.derived import DerivedFunctions, GradientKey
from enzyme_py.ad.dupnoneed import drop_unneeded_stores
from enzyme_py.ad.enzyme_abi import (
    autodiff_calls,
    call_target,
    innermost_rounds,
    lower_autodiff_calls,
    lower_iter_calls,
)
from enzyme_py.ad.enzyme_abi_calls import check_all_lowered
from enzyme_py.ad.enzyme_abi_fwd import lower_fwddiff_calls
from enzyme_py.ad.enzyme_abi_split import lower_split_calls
from enzyme_py.ad.enzyme_abi_virtual import lower_virtualreverse_calls
from enzyme_py.ad.forward import ForwardOptions, forward_diff
from enzyme_py.ad.reverse import ReverseOptions, reverse_diff
from enzyme_py.ad.tape_scope import mark_other_accesses
from enzyme_py.ir.module import Function, Module
from enzyme_py.passes import Param, Pipeline, pass_text, register_pass

_FN = Param("fn", "the function to differentiate", required=True)
_NAME = Param("name", "the name of the derivative (default: diffe_<fn> / fwddiffe_<fn>)")


class Reverse:
    """Add the gradient of `fn` (`reverse.reverse_diff`)."""

    name = "reverse"

    def __init__(self, fn: str, acts: list[str] | None, ret: str | None, name: str | None,
                 primal: bool, atomics: bool) -> None:
        self.function, self.activities, self.ret = fn, acts, ret
        self.options = ReverseOptions(name=name, return_primal=primal, atomics=atomics)
        self.derived: str | None = None

    def run(self, module: Module) -> Module:
        fn = function_named(module, self.function)
        grad = reverse_diff(module, fn, activities_for(fn, self.activities),
                            return_active(self.name, fn, self.ret), self.options)
        self.derived = grad.name
        return module


class Forward:
    """Add the forward derivative of `fn` (`forward.forward_diff`)."""

    name = "forward"

    def __init__(self, fn: str, acts: list[str] | None, width: int, name: str | None,
                 primal: bool) -> None:
        self.function, self.activities = fn, acts
        self.options = ForwardOptions(name=name, return_primal=primal, width=width)
        self.derived: str | None = None

    def run(self, module: Module) -> Module:
        fn = function_named(module, self.function)
        fwd = forward_diff(module, fn, activities_for(fn, self.activities, forward=True),
                           self.options)
        self.derived = fwd.name
        return module


class DupNoNeed:
    """Remove the primal's stores into `dupnoneed` memory from the gradient of `fn`
    (`dupnoneed.drop_unneeded_stores`): the one `reverse` made in this module with the same
    `acts`, `ret` and `primal`, or else the function `grad=` (default `diffe_<fn>`)."""

    name = "dupnoneed"

    def __init__(self, fn: str, acts: list[str] | None, ret: str | None, primal: bool,
                 grad: str | None) -> None:
        self.function, self.activities, self.ret, self.primal = fn, acts, ret, primal
        self.gradient = grad

    def run(self, module: Module) -> Module:
        fn = function_named(module, self.function)
        acts = activities_for(fn, self.activities)
        drop_unneeded_stores(self._gradient(module, fn, acts), fn, acts)
        return module

    def _gradient(self, module: Module, fn: Function, acts: list[str]) -> Function:
        if self.gradient is None:
            key = GradientKey(fn.name, tuple(acts), return_active(self.name, fn, self.ret),
                              self.primal)
            made = DerivedFunctions(module).get(key)
            if made is not None:
                return made.function
        return function_named(module, self.gradient or names.reverse_function(fn.name))


class LowerEnzyme:
    """Replace every `__enzyme_autodiff`, `__enzyme_fwddiff` and split-mode call
    (`__enzyme_augmentfwd`, `__enzyme_reverse`) by a call to the derivative it asks for
    (`enzyme_abi.py`, `enzyme_abi_fwd.py`, `enzyme_abi_split.py`); any `__enzyme_*` call
    left is an error naming it."""

    name = "lower-enzyme"

    def run(self, module: Module) -> Module:
        rounds = innermost_rounds(autodiff_calls(module))
        while len(rounds) > 1:  # nested: the inner gradients made, the outer code is prepared
            lower_autodiff_calls(module, rounds[0])  # again (inlined, canonical) before AD
            targets = sorted({t.name or "" for c in autodiff_calls(module)
                              if (t := call_target(c)) is not None})
            module = Pipeline.parse(pass_text("prepare", fn=targets)).run(module)
            rounds = innermost_rounds(autodiff_calls(module))
        lower_autodiff_calls(module)
        lower_fwddiff_calls(module)
        lower_virtualreverse_calls(module)  # (its functions call the split-mode markers)
        lower_split_calls(module)
        lower_iter_calls(module)
        check_all_lowered(module)  # no __enzyme_* call may be left in place silently
        return module


class TapeScopes:
    """Mark the loads and stores of every function that accesses the tape, outside the tape's
    alias scope, as not aliasing it (`tape_scope.mark_other_accesses`)."""

    name = "tape-scopes"

    def run(self, module: Module) -> Module:
        mark_other_accesses(module)
        return module


_ACTS = Param("acts", "one of const, dup, dupnoneed, out per argument (default: integers "
              "const, and floats out, pointers dup in reverse mode; dup in forward mode)", list)

register_pass("reverse", "add the reverse-mode gradient @diffe_<fn>", (
    _FN, _ACTS,
    Param("ret", "active or const (default: active when fn returns floats)"),
    _NAME,
    Param("primal", "also return fn's result: { result, adjoints... }", bool, False),
    Param("atomics", "(GPU) add into shadows other threads share atomically; 0 only to show "
          "the lost updates the atomics prevent", bool, True),
))(Reverse)
register_pass("forward", "add the forward-mode derivative @fwddiffe_<fn>", (
    _FN, _ACTS,
    Param("width", "directions per sweep (vector forward mode)", int, 1),
    _NAME,
    Param("primal", "return { primal, tangent } (0: the tangent alone)", bool, True),
))(Forward)
register_pass("dupnoneed", "drop the stores of fn's gradient into dupnoneed memory that "
              "nothing reads", (
                  _FN, Param("acts", "the activities the gradient was made for", list),
                  Param("ret", "the return's activity it was made for (as for reverse)"),
                  Param("primal", "it also returns fn's result (as for reverse)", bool,
                        False),
                  Param("grad", "the gradient (default: the one reverse made with these "
                        "arguments, or diffe_<fn>)"),
              ))(DupNoNeed)
register_pass("lower-enzyme", "replace __enzyme_autodiff / __enzyme_fwddiff / split-mode calls "
              "by calls to the derivatives they ask for")(LowerEnzyme)
register_pass("tape-scopes", "tell LLVM that the tape is no other memory: loads and stores "
              "outside its alias scope get !noalias with it (after reverse or "
              "lower-enzyme)")(TapeScopes)
