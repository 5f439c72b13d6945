#!/usr/bin/python3
"""fuser's PyTorch oracle: every op of the dialect and every example fusion,
run through `fuserc run --device cpu` (the CPU emulation of the GPU kernels)
and compared with PyTorch. See docs/oracle.md.

    /usr/bin/python3 test/oracle/run.py [SUITE...] [--case GLOB] [--seed N] [-v]

Exit status: 0 all passed, 1 a mismatch (each printed with a reproducer),
77 when this interpreter has no torch or numpy (ctest's skip code)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

try:
    import numpy  # noqa: F401
    import torch  # noqa: F401
except ImportError as e:
    print("oracle: skipped: %s has no %s (install python3-torch and python3-numpy)"
          % (sys.executable, e.name))
    sys.exit(77)

sys.path.insert(0, HERE)

from oracle import driver, suites  # noqa: E402

if __name__ == "__main__":
    sys.exit(driver.main(sys.argv[1:], suites.SUITES, ROOT))
