#!/usr/bin/python3
"""Statistics of fuser's random numbers (docs/random.md) on 2^24 samples each,
computed by the generated kernels on the CPU emulator (`fuserc run --device
cpu`):

  - rand (f32): mean and variance within 5 sigma of 1/2 and 1/12; a
    chi-squared test on 256 equal bins passes at p > 0.001; adjacent
    elements, adjacent seeds and adjacent offsets uncorrelated (|r| within
    5 sigma of 0);
  - randn (f32): mean and variance within 5 sigma of 0 and 1; chi-squared on
    256 bins equiprobable under the normal distribution, p > 0.001;
  - dropout (p = 0.3 on ones): the kept fraction within 5 sigma of 0.7, every
    kept value exactly 1 / 0.7 (in f32), every dropped one 0.

    /usr/bin/python3 test/oracle/random_stats.py [--fuserc build/bin/fuserc] [-v]

Exit status 0, 1 on a failed test, 77 without numpy."""

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("random-stats: skipped: %s has no numpy" % sys.executable)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
N = 1 << 24

FUSION = """\
func.func @stats(%%seed: tensor<i64>, %%offset: tensor<i64>, %%seed1: tensor<i64>,
                 %%offset1: tensor<i64>, %%ones: tensor<%(n)dxf32>, %%p: tensor<f32>)
    -> (tensor<%(n)dxf32>, tensor<%(n)dxf32>, tensor<%(n)dxf32>, tensor<%(n)dxf32>,
        tensor<%(n)dxf32>, tensor<%(n)dxi1>) {
  %%u = fuser.rand %%seed, %%offset : tensor<%(n)dxf32>
  %%us = fuser.rand %%seed1, %%offset : tensor<%(n)dxf32>
  %%uo = fuser.rand %%seed, %%offset1 : tensor<%(n)dxf32>
  %%z = fuser.randn %%seed, %%offset : tensor<%(n)dxf32>
  %%y, %%m = fuser.dropout %%ones, %%p, %%seed, %%offset1
      : tensor<%(n)dxf32>, tensor<f32> -> tensor<%(n)dxf32>, tensor<%(n)dxi1>
  return %%u, %%us, %%uo, %%z, %%y, %%m : tensor<%(n)dxf32>, tensor<%(n)dxf32>,
      tensor<%(n)dxf32>, tensor<%(n)dxf32>, tensor<%(n)dxf32>, tensor<%(n)dxi1>
}
"""


def chi2_p(chi2, df):
    """Upper tail p of a chi-squared statistic (Wilson-Hilferty)."""
    z = ((chi2 / df) ** (1.0 / 3) - (1 - 2.0 / (9 * df))) / math.sqrt(2.0 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def normal_cdf(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def normal_quantiles(k):
    """The k - 1 inner boundaries of k equiprobable bins of N(0, 1), by
    bisection on the CDF."""
    out = []
    for j in range(1, k):
        target, lo, hi = j / k, -10.0, 10.0
        for _ in range(80):
            mid = (lo + hi) / 2
            if normal_cdf(mid) < target:
                lo = mid
            else:
                hi = mid
        out.append((lo + hi) / 2)
    return np.array(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fuserc", default=os.path.join(ROOT, "build", "bin", "fuserc"))
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fuser-random-stats-")
    failures = []

    def check(ok, what):
        print("%s %s" % ("ok  " if ok else "FAIL", what))
        if not ok:
            failures.append(what)

    try:
        path = os.path.join(work, "stats.mlir")
        with open(path, "w") as f:
            f.write(FUSION % {"n": N})
        inputs = {"seed": np.array(20261201, np.int64), "offset": np.array(4, np.int64),
                  "seed1": np.array(20261202, np.int64), "offset1": np.array(5, np.int64),
                  "ones": np.ones(N, np.float32), "p": np.array(0.3, np.float32)}
        cmd = [a.fuserc, "run", path, "--device", "cpu", "--output-dir", os.path.join(work, "out")]
        for name, v in inputs.items():
            np.save(os.path.join(work, name + ".npy"), v)
            cmd += ["--input", "%s=%s" % (name, os.path.join(work, name + ".npy"))]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if r.returncode:
            print("random-stats: fuserc failed:\n" + r.stderr)
            return 1
        res = [np.load(os.path.join(work, "out", "result%d.npy" % i)) for i in range(6)]
        u, us, uo, z, y, m = res
        five = 5.0

        # Uniform: range, mean, variance.
        check(float(u.min()) >= 0.0 and float(u.max()) < 1.0,
              "rand in [0, 1): min %.9g, max %.9g" % (u.min(), u.max()))
        ud = u.astype(np.float64)
        mean, var = ud.mean(), ud.var()
        check(abs(mean - 0.5) < five * math.sqrt(1 / 12 / N),
              "rand mean %.6f, 1/2 +- %.2g (5 sigma)" % (mean, five * math.sqrt(1 / 12 / N)))
        sv = math.sqrt((1 / 80 - 1 / 144) / N)
        check(abs(var - 1 / 12) < five * sv,
              "rand variance %.6f, 1/12 +- %.2g" % (var, five * sv))
        counts = np.bincount((ud * 256).astype(np.int64), minlength=256)
        chi2 = float(((counts - N / 256) ** 2 / (N / 256)).sum())
        p = chi2_p(chi2, 255)
        check(p > 0.001, "rand chi-squared on 256 bins: %.1f (255 dof), p = %.3g" % (chi2, p))
        sc = five / math.sqrt(N)
        for name, x, y2 in [("adjacent elements", ud[:-1], ud[1:]),
                            ("adjacent seeds", ud, us.astype(np.float64)),
                            ("adjacent offsets", ud, uo.astype(np.float64))]:
            r_ = float(np.corrcoef(x, y2)[0, 1])
            check(abs(r_) < sc, "rand, %s: correlation %.2g, 0 +- %.2g" % (name, r_, sc))

        # Normal.
        zd = z.astype(np.float64)
        check(bool(np.isfinite(zd).all()), "randn finite")
        mean, var = zd.mean(), zd.var()
        check(abs(mean) < five / math.sqrt(N), "randn mean %.6f, 0 +- %.2g" % (mean, five / math.sqrt(N)))
        check(abs(var - 1) < five * math.sqrt(2.0 / N), "randn variance %.6f, 1 +- %.2g"
              % (var, five * math.sqrt(2.0 / N)))
        edges = normal_quantiles(256)
        counts = np.bincount(np.searchsorted(edges, zd), minlength=256)
        chi2 = float(((counts - N / 256) ** 2 / (N / 256)).sum())
        p = chi2_p(chi2, 255)
        check(p > 0.001, "randn chi-squared on 256 equiprobable bins: %.1f, p = %.3g" % (chi2, p))
        r_ = float(np.corrcoef(zd[0::2], zd[1::2])[0, 1])
        check(abs(r_) < five / math.sqrt(N / 2), "randn, the two of a Box-Muller pair: "
              "correlation %.2g" % r_)

        # Dropout.
        kept = float(m.mean())
        sk = math.sqrt(0.3 * 0.7 / N)
        check(abs(kept - 0.7) < five * sk, "dropout p = 0.3: kept %.6f, 0.7 +- %.2g" % (kept, five * sk))
        scale = np.float32(1) / (np.float32(1) - np.float32(0.3))
        check(bool((y[m] == scale).all()) and bool((y[~m] == 0).all()),
              "dropout: kept values exactly 1/(1 - p) = %.9g, dropped 0" % scale)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("random-stats: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
