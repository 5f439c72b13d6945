"""prod-vjp.test's cases: inputs, cotangents and torch 1.13's gradients
(torch.autograd.grad of x.prod(dim) or x.prod()), written here as numbers
so the test needs no torch.

  prod_vjp.py write DIR        writes DIR/CASE.x.npy and DIR/CASE.g.npy
  prod_vjp.py check CASE FILE  exits 1 unless FILE holds CASE's gradient
                               (NaN where torch's is, signs of zeros aside)
"""
import sys
import numpy as np

inf, nan = np.inf, np.nan
CASES = {
    # A zero anywhere: every line takes the product of its others, so the
    # inf line gets 12 at its inf, not inf / inf.
    "rows_zero": ([[2, inf, 3, 4], [1, 0, 5, 2], [nan, 0, 2, 1]], [0.5, 2, -1],
                  [[inf, 12, inf, inf], [0, 20, 0, 0], [0, nan, nan, nan]]),
    # No zero in the tensor: g * (y / x), inf / inf is NaN.
    "rows_nozero": ([[2, inf, 3, 4], [1, 2, 3, 4], [inf, -inf, 2, 1]], [0.5, 2, -1],
                    [[inf, nan, inf, inf], [48, 24, 16, 12], [nan, nan, inf, inf]]),
    "cols_zero": ([[2, 1, 0], [inf, 3, 5], [4, nan, 2]], [[0.5, 2, -1]],
                  [[inf, nan, -10], [4, nan, 0], [inf, 6, 0]]),
    # torch.prod(x): one zero, the product of the others (in order, so an
    # inf and a zero among them give NaN); two zeros, 0 everywhere.
    "whole_one": ([[1, 0, 3], [inf, 2, 1]], 0.5, [[nan, inf, nan], [0, nan, nan]]),
    "whole_two": ([[0, 0, inf], [1, 2, nan]], 0.5, [[0, 0, 0], [0, 0, 0]]),
    "whole_none": ([[1, 2, 3], [4, inf, 6]], 0.5, [[inf, inf, inf], [inf, nan, inf]]),
}

if sys.argv[1] == "write":
    for name, (x, g, _) in CASES.items():
        np.save(f"{sys.argv[2]}/{name}.x.npy", np.array(x, np.float32))
        np.save(f"{sys.argv[2]}/{name}.g.npy", np.array(g, np.float32))
else:
    want = np.array(CASES[sys.argv[2]][2], np.float32)
    got = np.load(sys.argv[3])
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-6, atol=0, equal_nan=True):
        print(f"{sys.argv[2]}: got {got.tolist()}, torch {want.tolist()}")
        sys.exit(1)
