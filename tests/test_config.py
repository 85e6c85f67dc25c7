"""`Config`: one checked, hashable options object from the front doors to the passes."""

from __future__ import annotations

import pytest

from enzyme_py import api
from enzyme_py.ad.driver import forward_pipeline, gradient_pipeline
from enzyme_py.config import Config
from enzyme_py.errors import ArgumentValueError


def test_frozen_and_hashable_with_a_set_of_flags() -> None:
    a = Config(fastmath={"reassoc", "contract"})
    b = Config(fastmath=["contract", "reassoc"])
    assert a == b and hash(a) == hash(b)
    assert set(a.fast_flags) == {"reassoc", "contract"}
    with pytest.raises(AttributeError):
        a.opt_level = 3  # type: ignore[misc]


@pytest.mark.parametrize(("changes", "message"), [
    ({"errors": "c"}, "errors must be 'numpy' or 'python'"),
    ({"opt_level": 5}, "opt_level must be 0, 1, 2 or 3"),
    ({"width": 0}, "width must be a positive integer"),
    ({"errors": "python", "fastmath": True}, "nnan/ninf"),
])
def test_bad_values_are_refused_when_built(changes: dict, message: str) -> None:
    with pytest.raises(ArgumentValueError, match=message):
        Config(**changes)


def test_replace_checks_and_leaves_the_original() -> None:
    base = Config()
    wide = base.replace(width=4, name="g")
    assert (base.width, base.name) == (1, None) and (wide.width, wide.name) == (4, "g")
    with pytest.raises(ArgumentValueError):
        base.replace(width=-1)
    with pytest.raises(TypeError, match="no option 'widht'"):
        base.replace(widht=2)


def test_return_primal_defaults_per_mode() -> None:
    assert Config().primal_returned(False) is False
    assert Config().primal_returned(True) is True
    assert Config(return_primal=True).primal_returned(False) is True


def test_the_config_reaches_the_pipeline_text() -> None:
    cfg = Config(opt_level=3, inline=False, name="g", return_primal=True)
    text = gradient_pipeline("f", ["dup", "const"], True, cfg)
    assert "inline-callees" not in text and text.endswith(",O3")
    assert "reverse{fn=f,acts=dup,const,ret=active,name=g,primal=1}" in text
    fwd = forward_pipeline("f", ["dup"], cfg.replace(width=2, return_primal=False))
    assert "forward{fn=f,acts=dup,width=2,name=g,primal=0}" in fwd
    # keyword changes are the same options
    assert gradient_pipeline("f", ["dup"], True, opt_level=0) == \
        gradient_pipeline("f", ["dup"], True, Config(opt_level=0))


def _square(x: float) -> float:
    return x * x


def test_grad_keeps_the_users_config() -> None:
    g = api.grad(_square, fastmath={"contract"}, bounds_check=False)
    assert g.options == Config(bounds_check=False, fastmath=frozenset({"contract"}))
    assert g(3.0) == 6.0
