"""lit configuration of the golden tests: every `.ll` file below this directory is a test whose
`; RUN:` lines run `enzyme-py opt ... | filecheck %s` (the `filecheck` package, LLVM's FileCheck
in Python).

Run them all with `lit tests/filecheck` (or `pytest tests/filecheck`, one test per file); run one
by hand by copying its RUN line with `%s` replaced by the file's path. The console scripts
`enzyme-py` and `filecheck` are found next to the Python that runs lit (the venv's `bin/`).
"""

import os
import sys
import tempfile

import lit.formats

config.name = "enzyme_py"  # noqa: F821 (lit defines `config`)
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".ll"]  # noqa: F821
config.test_source_root = os.path.dirname(os.path.abspath(__file__))  # noqa: F821
# lit's own files (the test times it keeps, %t) go outside the source tree
config.test_exec_root = os.path.join(tempfile.gettempdir(), "enzyme_py-lit")  # noqa: F821
config.environment["PATH"] = os.pathsep.join(  # noqa: F821
    [os.path.dirname(sys.executable), os.environ.get("PATH", "")])
