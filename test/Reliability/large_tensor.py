#!/usr/bin/python3
"""A fusion over more than 2^31 elements, run through the CPU emulation.

    /usr/bin/python3 test/Reliability/large_tensor.py --fuserc build/bin/fuserc

x is an i8 tensor of 2^31 + 11 elements (2 GiB), zero but for a few planted
values on both sides of element 2^31; the fusion writes y = x + 1 and
m = max(x) (docs/reliability.md, "Large tensors"). Its kernels index in 64
bits (test/Conversion/FuserToGPU/index-width.test checks the IR and PTX); a
32-bit index would wrap at 2^31, so y's planted elements past it would land
on, or be read from, the tensor's start, and max would miss the 9 planted
there. Every element of y is checked, m exactly.

Needs about 9 GiB of memory (x and y in the emulator, and in the .npy files
as they are read and written) and 5 GiB of disk: exits 77 (ctest's skip) with
a message where there is less, or when numpy is missing. About 100 s on one
core.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

N = 2 ** 31 + 11
PLANTED = {0: -3, 2 ** 31 - 1: 5, 2 ** 31: 1, 2 ** 31 + 5: 9, N - 1: 7}

FUSION = """\
func.func @big(%x: tensor<{n}xi8>) -> (tensor<{n}xi8>, tensor<i8>) {{
  %one = fuser.constant 1 : tensor<i8>
  %b = fuser.broadcast %one dims = [] : tensor<i8> -> tensor<{n}xi8>
  %y = fuser.add %x, %b : tensor<{n}xi8>
  %m = fuser.max %x dims = [0] : tensor<{n}xi8> -> tensor<i8>
  return %y, %m : tensor<{n}xi8>, tensor<i8>
}}
""".format(n=N)


def skip(why):
    print("large tensor: skipped: " + why)
    sys.exit(77)


def available_memory():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fuserc", required=True)
    ap.add_argument("--work", default=None, help="directory for the 4 GiB of .npy files")
    a = ap.parse_args()
    try:
        import numpy as np
    except ImportError:
        skip("%s has no numpy (install python3-numpy)" % sys.executable)
    if available_memory() < 9 * 2 ** 30:
        skip("needs 9 GiB of available memory, %.1f GiB here" % (available_memory() / 2 ** 30))
    work = tempfile.mkdtemp(prefix="fuser-large-", dir=a.work)
    try:
        if shutil.disk_usage(work).free < 5 * 2 ** 30:
            skip("needs 5 GiB of free disk in %s" % work)
        src = os.path.join(work, "big.mlir")
        with open(src, "w") as f:
            f.write(FUSION)
        x = np.lib.format.open_memmap(os.path.join(work, "x.npy"), mode="w+",
                                      dtype=np.int8, shape=(N,))
        for i, v in PLANTED.items():
            x[i] = v
        x.flush()
        del x
        out = os.path.join(work, "out")
        cmd = [a.fuserc, "run", src, "--device", "cpu", "--input",
               "x=" + os.path.join(work, "x.npy"), "--output-dir", out]
        print("$ " + " ".join(cmd), flush=True)
        r = subprocess.run(cmd)
        if r.returncode != 0:
            print("large tensor: FAIL: fuserc exited with %d" % r.returncode)
            return 1
        y = np.load(os.path.join(out, "result0.npy"), mmap_mode="r")
        m = np.load(os.path.join(out, "result1.npy"))
        problems = []
        if y.shape != (N,) or y.dtype != np.int8:
            problems.append("result0 is %s %s, want (%d,) int8" % (y.shape, y.dtype, N))
        else:
            # y = x + 1: 1 everywhere but at the planted elements.
            chunk = 1 << 26
            for start in range(0, N, chunk):
                part = np.asarray(y[start:start + chunk])
                want = np.ones(part.shape, np.int8)
                for i, v in PLANTED.items():
                    if start <= i < start + chunk:
                        want[i - start] = np.int8(v + 1)
                bad = np.flatnonzero(part != want)
                for i in bad[:4]:
                    problems.append("result0[%d] = %d, want %d"
                                    % (start + i, part[i], want[i]))
                if len(problems) > 8:
                    break
        want_max = max(PLANTED.values())
        if m.shape != () or int(m) != want_max:
            problems.append("result1 (max) = %s, want %d" % (m, want_max))
        for p in problems:
            print("large tensor: FAIL: " + p)
        if problems:
            return 1
        print("large tensor: ok: y = x + 1 on all %d elements and max(x) = %d "
              "through the emulated 64-bit kernels" % (N, want_max))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
