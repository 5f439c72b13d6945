"""vjp-extremes.test's cases: inputs, cotangents and torch 1.13's gradients
(torch.autograd.grad), written here as numbers so the test needs no torch.

  vjp_extremes.py write DIR             writes DIR/CASE.NAME.npy
  vjp_extremes.py check CASE NAME FILE  exits 1 unless FILE holds CASE's
                                        gradient NAME (NaN where torch's is)
"""
import sys
import numpy as np

inf, nan = np.inf, np.nan
CASES = {
    # div_tensor_other_backward: -g * ((a / b) / b). -g * a / (b * b) gave
    # NaN (b * b underflows to 0), -0 (b * b overflows), -inf and NaN.
    "div": ({"a": [0, 1e30, 1e-30, inf], "b": [1e-23, 1e20, 1e-23, 1e20],
             "grad_result0": [1, 1, 1, 1]},
            {"grad_b": [-0.0, -1e-10, -1e16, -inf]}),
    # pow_backward_self: g * (b * a^(b - 1)). (g * b) * a^(b - 1) gave inf
    # and NaN where g * b overflows and a^(b - 1) underflows.
    "pow": ({"a": [0.5, 0.5, 0.5, 2], "b": [100, 3e38, 200, 2],
             "grad_result0": [1e37, 1.5, 1e37, 1]},
            {"grad_a": [1.5777218e9, 0, 0, 4]}),
    # var_backward: 2 / (N - c) * g * (x - x.mean()): the plain mean (inf
    # on the first row), not var_mean's running one (NaN), which made the
    # whole line NaN.
    "var_mean": ({"x": [[inf, 1, 2], [1, 2, 6]], "grad_result0": [1, 1],
                  "grad_result1": [0, 3]},
                 {"grad_x": [[nan, -inf, -inf], [-1 / 3, 1 / 3, 3]]}),
}

if sys.argv[1] == "write":
    for case, (inputs, _) in CASES.items():
        for name, v in inputs.items():
            np.save(f"{sys.argv[2]}/{case}.{name}.npy", np.array(v, np.float32))
else:
    want = np.array(CASES[sys.argv[2]][1][sys.argv[3]], np.float32)
    got = np.load(sys.argv[4])
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-6, atol=0, equal_nan=True):
        print(f"{sys.argv[2]} {sys.argv[3]}: got {got.tolist()}, torch {want.tolist()}")
        sys.exit(1)
