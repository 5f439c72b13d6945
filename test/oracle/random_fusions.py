#!/usr/bin/python3
"""Random fusions against PyTorch: random well-typed fusion graphs through
`fuserc run --device cpu`, each result compared with PyTorch; a mismatch is
shrunk to a small reproducer in test/oracle/random/. See docs/oracle.md
("Random fusions").

    /usr/bin/python3 test/oracle/random_fusions.py                 # kept reproducers, seeds 0:200
    /usr/bin/python3 test/oracle/random_fusions.py --seeds 0:1000
    /usr/bin/python3 test/oracle/random_fusions.py --time 300      # random seeds for 300 s
    /usr/bin/python3 test/oracle/random_fusions.py --seed 17 -v    # one graph, printed
    /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-17.mlir -v

Exit status: 0 all passed, 1 a mismatch, a compiler error or a graph the
verifier rejects (a generator bug), 77 when this interpreter has no torch or
numpy (ctest's skip code)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

try:
    import numpy  # noqa: F401
    import torch  # noqa: F401
except ImportError as e:
    print("random fusions: skipped: %s has no %s (install python3-torch and python3-numpy)"
          % (sys.executable, e.name))
    sys.exit(77)

sys.path.insert(0, HERE)

from oracle import randgen  # noqa: E402

if __name__ == "__main__":
    sys.exit(randgen.main(sys.argv[1:], ROOT))
