"""Checks sharded-reshard-steps.test's results against numpy on the whole
tensors: x, y, then the directory of each fusion's results."""
import os
import sys

import numpy as np

x, y = np.load(sys.argv[1]), np.load(sys.argv[2])
out = sys.argv[3]
want = {
    "whole_to_two": x,
    "two_to_whole": np.exp(x),
    "axis_move": x,
    "swapped": x,
    "whole_operand": (x + y) * x,
    "sum_other_axis": x.sum(axis=1),
    "two_axes_softmax": np.exp(x - x.max(0)) / np.exp(x - x.max(0)).sum(0),
    "merge_axes": x,
    "for_users_swapped": x + y,
}
mean = x.mean(axis=(1, 2), keepdims=True)
var = ((x - mean) ** 2).mean(axis=(1, 2), keepdims=True)
rstd = 1 / np.sqrt(var + 1e-5)
apart = {"result0": (x - mean) * rstd, "result1": mean, "result2": rstd}
cols = {"result0": (x - mean) * rstd, "result1": mean}
m2 = x.mean(axis=2, keepdims=True)
r2 = 1 / np.sqrt(((x - m2) ** 2).mean(axis=2, keepdims=True) + 1e-5)
unannotated = {"result0": (x - m2) * r2, "result1": m2, "result2": np.exp(r2)}
direct = {"result0": np.exp(x) + y, "result1": np.exp(x) * y, "result2": np.exp(x) + np.exp(x)}
for name, w in want.items():
    got = np.load(os.path.join(out, name, "result0.npy"))
    ok = got.shape == w.shape and np.allclose(got, w, rtol=1e-6, atol=1e-6)
    print(name, "ok" if ok else "WRONG: shape %s, want %s" % (got.shape, w.shape))
for fusion, results in (("results_apart", apart), ("results_cols", cols),
                        ("whole_read_directly", direct),
                        ("results_unannotated", unannotated)):
    for r, w in results.items():
        got = np.load(os.path.join(out, fusion, r + ".npy"))
        ok = got.shape == w.shape and np.allclose(got, w, rtol=1e-5, atol=1e-5)
        print(fusion, r, "ok" if ok else "WRONG: shape %s, want %s" % (got.shape, w.shape))
