"""PTX out: the kernel corpus as PTX for sm_80 and sm_90 (`backend.ptx`, `enzyme-py transform
--target nvptx64`), assembled by ptxas where it is installed."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from enzyme_py.backend.ptx import emit_ptx
from enzyme_py.cli import main
from enzyme_py.errors import BackendError

KERNELS = ("saxpy", "gather_scatter", "block_sum", "warp_sum", "warp_modes", "stencil1d",
           "stencil2d", "element_update", "horner", "racy_count", "atomic_count", "xs_lookup",
           "shared_weight", "sum_squares")


@pytest.mark.parametrize("sm", [80, 90])
def test_every_kernel_is_an_entry(corpus: str, sm: int) -> None:
    ptx = emit_ptx(corpus, sm=sm)
    assert re.search(rf"^\.target sm_{sm}$", ptx, re.M)
    assert sorted(re.findall(r"\.visible \.entry (\w+)\(", ptx)) == sorted(KERNELS)
    assert "barrier.sync" in ptx and "shfl.sync.down" in ptx and "atom.global.add.f64" in ptx


@pytest.mark.xfail(shutil.which("ptxas") is None, raises=FileNotFoundError, strict=True,
                   reason="ptxas is not installed (pip install nvidia-cuda-nvcc-cu12 ships it); "
                          "the PTX text is still checked by test_every_kernel_is_an_entry")
@pytest.mark.parametrize("sm", [80, 90])
def test_ptx_assembles(corpus: str, sm: int, tmp_path) -> None:
    src = tmp_path / "k.ptx"
    src.write_text(emit_ptx(corpus, sm=sm))
    done = subprocess.run(["ptxas", f"-arch=sm_{sm}", str(src), "-o",
                           str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_host_code_is_refused() -> None:
    with pytest.raises(BackendError, match="not from one for none"):
        emit_ptx("define void @f() {\n  ret void\n}\n")
    host = 'target triple = "x86_64-unknown-linux-gnu"\ndefine void @f() {\n  ret void\n}\n'
    with pytest.raises(BackendError, match="x86_64-unknown-linux-gnu"):
        emit_ptx(host)


def test_transform_writes_ptx(corpus: str, tmp_path, capsys) -> None:
    src = tmp_path / "k.ll"
    src.write_text(corpus)
    assert main(["transform", str(src), "--target", "nvptx64", "--sm", "90"]) == 0
    out = capsys.readouterr().out
    assert ".target sm_90" in out and ".visible .entry saxpy(" in out


DERIVED = [k for k in KERNELS if k not in ("racy_count", "atomic_count")]


@pytest.fixture(scope="module")
def derivatives(corpus: str) -> list:
    """Every kernel with its gradient and tangent kernels."""
    from enzyme_py.api.kernels import kernel_derivatives

    return [kernel_derivatives(corpus, k) for k in DERIVED]


@pytest.mark.parametrize("sm", [80, 90])
def test_derivative_kernels_are_entries(derivatives: list, sm: int) -> None:
    entries = {e for d in derivatives
               for e in re.findall(r"\.visible \.entry (\w+)\(", d.ptx(sm=sm))}
    for k in DERIVED:
        assert {f"diffe_{k}", f"fwddiffe_{k}"} <= entries


@pytest.mark.xfail(shutil.which("ptxas") is None, raises=FileNotFoundError, strict=True,
                   reason="ptxas is not installed (pip install nvidia-cuda-nvcc-cu12 ships it)")
@pytest.mark.parametrize("sm", [80, 90])
def test_derivative_ptx_assembles(derivatives: list, sm: int, tmp_path) -> None:
    for d in derivatives:
        src = tmp_path / f"{d.kernel}.ptx"
        src.write_text(d.ptx(sm=sm))
        done = subprocess.run(["ptxas", f"-arch=sm_{sm}", str(src), "-o",
                               str(tmp_path / f"{d.kernel}.cubin")], capture_output=True,
                              text=True)
        assert done.returncode == 0, f"{d.kernel}: {done.stderr}"
