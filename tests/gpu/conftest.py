"""The CUDA test kernels (`kernels/corpus.cu`), compiled once by clang-22 for sm_80."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

KERNELS = Path(__file__).parent / "kernels"
CUDA = ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc",
        "-nocudalib", "-emit-llvm", "-S", "-Wno-unknown-cuda-version"]


@pytest.fixture(scope="session")
def corpus(clang: str, tmp_path_factory) -> str:
    """The corpus as NVPTX LLVM IR (clang-22 -O2)."""
    out = tmp_path_factory.mktemp("cuda") / "corpus.ll"
    subprocess.run([clang, *CUDA, "-O2", str(KERNELS / "corpus.cu"), "-o", str(out)],
                   check=True, capture_output=True, text=True)
    return out.read_text()
