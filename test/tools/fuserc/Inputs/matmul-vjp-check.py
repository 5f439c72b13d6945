"""Runs a matmul's gradient (fuserc run --vjp) on random bf16 inputs and
checks grad_a and grad_b against float64 products of the same inputs:
within one bf16 ulp (one rounding of an f32 accumulation) of the exact
value (test/tools/fuserc/matmul-vjp-one-rounding.test)."""
import os
import subprocess
import sys

import numpy as np

fuserc, mlir, fusion, a_shape, b_shape, out = sys.argv[1:7]
a_shape = [int(d) for d in a_shape.split("x")]
b_shape = [int(d) for d in b_shape.split("x")]
rng = np.random.default_rng(7)


def bf16(x):
    """x rounded to bf16 (nearest even), as uint16 bits and as float64."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return bits, (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


a_bits, a = bf16(rng.standard_normal(a_shape))
b_bits, b = bf16(rng.standard_normal(b_shape))
y = np.matmul(a, b)
g_bits, g = bf16(rng.standard_normal(y.shape))
os.makedirs(out, exist_ok=True)
for name, bits in (("a", a_bits), ("b", b_bits), ("g", g_bits)):
    np.save(os.path.join(out, name + ".npy"), bits)
subprocess.run([fuserc, "run", mlir, "--vjp", fusion, "--fusion", fusion + "_vjp", "--device", "cpu",
                "--input", "a=" + os.path.join(out, "a.npy"), "--input", "b=" + os.path.join(out, "b.npy"),
                "--input", "grad_result0=" + os.path.join(out, "g.npy"), "--output-dir", out, "--quiet"],
               check=True)

# The exact gradients, float64 (torch.matmul's: a vector operand as a row
# or column, batch dims summed away for the operand that has none).
a2 = a if a.ndim > 1 else a[None, :]
b2 = b if b.ndim > 1 else b[:, None]
g2 = g.reshape(np.matmul(a2, b2).shape)
ga = np.matmul(g2, np.swapaxes(b2, -1, -2))
gb = np.matmul(np.swapaxes(a2, -1, -2), g2)
while ga.ndim > a2.ndim:
    ga = ga.sum(0)
while gb.ndim > b2.ndim:
    gb = gb.sum(0)
failed = False
for name, want in (("a", ga.reshape(a.shape)), ("b", gb.reshape(b.shape))):
    got_bits = np.load(os.path.join(out, "grad_" + name + ".npy"))
    got = (got_bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    ulp = np.maximum(np.abs(want), 2.0 ** -126)
    ulp = 2.0 ** (np.floor(np.log2(ulp)) - 7)
    bad = np.abs(got - want) > ulp
    print("%s grad_%s: %d of %d beyond one bf16 ulp" % (fusion, name, int(bad.sum()), bad.size))
    failed |= bool(bad.any())
sys.exit(1 if failed else 0)
