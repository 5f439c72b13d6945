"""Writes a fusion that chains PAIRS steps of views, and the values numpy
computes for it (view-chain.test).

usage: view_chain.py PAIRS A B {plain,mixed,butterfly} OUT.mlir EXPECTED.npy

plain: y = -y.t().reshape(a, b), PAIRS times.
mixed: y = (y.t().reshape(a, b) + y) * 0.5: each step also reads y at its
own index, so a kernel that computed the whole chain would compute its head
at 2^PAIRS indices (each index tree also doubling).
butterfly: y = -cat(y[0::2], y[1::2]) over y of a * b elements: no reshape,
and small indices (2i and 2i - a * b + 1 of the next), but 2^PAIRS of them.

x enters as x * 0 plus an iota, so the result names each element's source
whatever values `fuserc run --random` gives x.
"""
import sys

import numpy as np

pairs, a, b, kind, out, expected = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                                    sys.argv[4], sys.argv[5], sys.argv[6])
t = f"tensor<{a}x{b}xf32>"
tt = f"tensor<{b}x{a}xf32>"
lines = [
    f"func.func @chain(%x: {t}) -> {t} {{",
    f"  %i = fuser.iota dim = 0 : tensor<{a * b}xf32>",
    f"  %s = fuser.reshape %i : tensor<{a * b}xf32> -> {t}",
    "  %zero = fuser.constant 0.0 : tensor<f32>",
    "  %half = fuser.constant 0.5 : tensor<f32>",
    f"  %x0 = fuser.mul %x, %zero : {t}, tensor<f32>",
    f"  %y0 = fuser.add %s, %x0 : {t}",
]
y = np.arange(a * b, dtype=np.float32).reshape(a, b)
if kind == "butterfly":
    n, h = a * b, a * b // 2
    t, th = f"tensor<{n}xf32>", f"tensor<{h}xf32>"
    lines[0] = f"func.func @chain(%x: {t}) -> {t} {{"
    lines[2] = "  // (no reshape: every index is 2^k i + c)"
    lines[5] = f"  %x0 = fuser.mul %x, %zero : {t}, tensor<f32>"
    lines[6] = f"  %y0 = fuser.add %i, %x0 : {t}"
    y = y.reshape(-1)
for k in range(pairs):
    if kind == "butterfly":
        lines.append(f"  %e{k} = fuser.slice %y{k} start = [0] limit = [{n}] step = [2] : {t} -> {th}")
        lines.append(f"  %o{k} = fuser.slice %y{k} start = [1] limit = [{n}] step = [2] : {t} -> {th}")
        lines.append(f"  %c{k} = fuser.concat %e{k}, %o{k} dim = 0 : {th}, {th} -> {t}")
        lines.append(f"  %y{k + 1} = fuser.neg %c{k} : {t}")
        y = -np.concatenate([y[0::2], y[1::2]])
        continue
    lines.append(f"  %p{k} = fuser.permute %y{k} perm = [1, 0] : {t} -> {tt}")
    lines.append(f"  %r{k} = fuser.reshape %p{k} : {tt} -> {t}")
    r = np.ascontiguousarray(y.T).reshape(a, b)
    if kind == "plain":
        lines.append(f"  %y{k + 1} = fuser.neg %r{k} : {t}")
        y = -r
    else:
        lines.append(f"  %m{k} = fuser.add %r{k}, %y{k} : {t}")
        lines.append(f"  %y{k + 1} = fuser.mul %m{k}, %half : {t}, tensor<f32>")
        y = ((r + y).astype(np.float32) * np.float32(0.5)).astype(np.float32)
lines.append(f"  return %y{pairs} : {t}")
lines.append("}")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
np.save(expected, y)
