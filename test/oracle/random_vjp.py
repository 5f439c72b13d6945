#!/usr/bin/python3
"""Random fusions differentiated, checked by finite differences of fuser's
own forward (test/oracle/oracle/random_vjp.py, docs/autodiff.md).

    /usr/bin/python3 test/oracle/random_vjp.py                  # seeds 0:100
    /usr/bin/python3 test/oracle/random_vjp.py --seeds 17:18 -v

Exit status: 0 all judged graphs agree, 1 a mismatch or an error, 77 when
this interpreter has no numpy (ctest's skip code)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

try:
    import numpy  # noqa: F401
    import torch  # noqa: F401
except ImportError as e:
    print("random vjp: skipped: %s has no %s" % (sys.executable, e.name))
    sys.exit(77)

sys.path.insert(0, HERE)

from oracle import random_vjp  # noqa: E402

if __name__ == "__main__":
    sys.exit(random_vjp.main(sys.argv[1:], ROOT))
