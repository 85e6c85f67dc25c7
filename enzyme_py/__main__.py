"""`python -m enzyme_py` runs the command-line tool."""

import sys

from enzyme_py.cli import main

sys.exit(main())
