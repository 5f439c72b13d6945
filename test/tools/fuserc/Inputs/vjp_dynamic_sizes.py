"""vjp-dynamic-sizes.test's cases: inputs, cotangents and the gradients
PyTorch's autograd gives (written here in numpy, so the test needs no torch).

  vjp_dynamic_sizes.py write DIR        writes DIR/CASE.NAME.npy
  vjp_dynamic_sizes.py check CASE DIR   exits 1 unless DIR/grad_*.npy hold
                                        CASE's gradients
"""
import sys
import numpy as np

rng = np.random.default_rng(7)
f32 = np.float32


def r(*shape):
    return rng.standard_normal(shape).astype(f32)


def softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


CASES = {}
x, t = r(5, 7), rng.integers(0, 7, (5, 1)).astype(np.int64)
t[1] = t[0]  # two picks of one column in different rows
gx = np.zeros_like(x)
np.add.at(gx, (np.arange(5)[:, None], t), f32(1.5))
CASES["gather_sum"] = ({"x": x, "t": t, "grad_result0": f32(1.5)}, {"grad_x": gx})
onehot = np.zeros_like(x)
np.put_along_axis(onehot, t, 1, 1)
CASES["cross_entropy"] = ({"x": x, "t": t, "grad_result0": f32(2)},
                          {"grad_x": (softmax(x) - onehot) * f32(2) / 5})
c = r(3, 6)
c[0, :3] = 1  # ties: the latest of equal maxima takes the gradient
run = np.maximum.accumulate(c, 1)
gc = np.zeros_like(c)
for i in range(3):
    for j in range(6):
        k = max(m for m in range(j + 1) if c[i, m] == run[i, j])
        gc[i, k] += 1
CASES["cummax_sum"] = ({"x": c, "grad_result0": f32(1)}, {"grad_x": gc})
s, g2 = r(4, 6), r(2)
gs = np.zeros_like(s)
gs[:, 1:5:2] = g2
CASES["slice_sum"] = ({"x": s, "grad_result0": g2}, {"grad_x": gs})
a, b, g5 = r(4, 2), r(4, 3), r(5)
CASES["concat_sum"] = ({"a": a, "b": b, "grad_result0": g5},
                       {"grad_a": np.broadcast_to(g5[:2], (4, 2)),
                        "grad_b": np.broadcast_to(g5[2:], (4, 3))})
p, g7 = r(3, 4), r(7)
CASES["pad_sum"] = ({"x": p, "v": f32(0.5), "grad_result0": g7},
                    {"grad_x": np.broadcast_to(g7[2:6], (3, 4)),
                     "grad_v": np.array(3 * (g7[:2].sum() + g7[6:].sum()), f32)})
q, g12, gn = r(2, 3, 4), r(12), r(2)
CASES["flatten_sum"] = ({"x": q, "grad_result0": g12},
                        {"grad_x": np.broadcast_to(g12.reshape(1, 3, 4), (2, 3, 4))})
CASES["flatten_mean"] = ({"x": q, "grad_result0": gn},
                         {"grad_x": np.broadcast_to(gn[:, None, None] / f32(12), (2, 3, 4))})

if sys.argv[1] == "write":
    for case, (inputs, _) in CASES.items():
        for name, v in inputs.items():
            np.save(f"{sys.argv[2]}/{case}.{name}.npy", np.asarray(v))
else:
    case, out = sys.argv[2], sys.argv[3]
    for name, want in CASES[case][1].items():
        got = np.load(f"{out}/{name}.npy")
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-6, atol=1e-7):
            print(f"{case}: {name} got {got.tolist()}, want {np.asarray(want).tolist()}")
            sys.exit(1)
