#!/usr/bin/python3
"""fuserc run's inputs and outputs (issue 5): good .npy files give results
PyTorch agrees with, in the documented storage (bf16 as uint16 bit
patterns); a wrong dtype, shape or rank, a truncated or malformed file, a
Fortran-ordered or big-endian array, a missing file, a missing input, or
dynamic dims that disagree give a clear error (naming the file and the
argument) and exit code 1.

    /usr/bin/python3 test/oracle/inputs.py [--fuserc PATH] [-v]

Exit status 0 when every case behaves, 1 otherwise, 77 without numpy or
torch."""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

try:
    import numpy as np
    import torch
except ImportError as e:
    print("inputs: skipped: %s has no %s (install python3-torch and python3-numpy)"
          % (sys.executable, e.name))
    sys.exit(77)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fuserc", default=os.path.join(ROOT, "build", "bin", "fuserc"))
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    a.fuserc = os.environ.get("FUSER_ORACLE_FUSERC") or a.fuserc  # as run.py
    d = tempfile.mkdtemp(prefix="fuser-inputs-")
    P = lambda n: os.path.join(d, n)  # noqa: E731
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    bt = torch.tensor([1.5, -0.0, float("nan")], dtype=torch.bfloat16)
    b = bt.view(torch.int16).numpy().view(np.uint16)
    dd = rng.standard_normal((2, 5)).astype(np.float32)
    e = rng.standard_normal((2, 5)).astype(np.float32)
    np.save(P("x.npy"), x)
    np.save(P("b.npy"), b)
    np.save(P("d.npy"), dd)
    np.save(P("e.npy"), e)
    np.save(P("x64.npy"), x.astype(np.float64))
    np.save(P("x53.npy"), np.zeros((5, 3), np.float32))
    np.save(P("x12.npy"), np.zeros(12, np.float32))
    np.save(P("bf32.npy"), np.zeros(3, np.float32))
    np.save(P("e6.npy"), np.zeros((2, 6), np.float32))
    np.save(P("xf.npy"), np.asfortranarray(x))
    np.save(P("xbe.npy"), x.astype(">f4"))
    raw = open(P("x.npy"), "rb").read()
    open(P("xt.npy"), "wb").write(raw[:-5])
    open(P("xh.npy"), "wb").write(raw[:10])
    open(P("xm.npy"), "wb").write(b"not a numpy file at all")

    good = {"x": "x.npy", "b": "b.npy", "d": "d.npy", "e": "e.npy"}
    # (what, inputs changed, substrings the error must contain)
    bad = [
        ("wrong dtype", {"x": "x64.npy"}, ["x64.npy", "float64", "argument 'x'"]),
        ("wrong shape", {"x": "x53.npy"}, ["x53.npy", "dim 0 is 5", "needs 4"]),
        ("wrong rank", {"x": "x12.npy"}, ["x12.npy", "rank is 1", "rank 2"]),
        ("bf16 given as float32", {"b": "bf32.npy"}, ["bf32.npy", "bf16 is expected", "argument 'b'"]),
        ("truncated data", {"x": "xt.npy"}, ["xt.npy", "truncated", "argument 'x'"]),
        ("truncated header", {"x": "xh.npy"}, ["xh.npy", "truncated"]),
        ("not a .npy file", {"x": "xm.npy"}, ["xm.npy", "not a .npy file"]),
        ("Fortran order", {"x": "xf.npy"}, ["xf.npy", "Fortran"]),
        ("big-endian", {"x": "xbe.npy"}, ["xbe.npy", "big-endian"]),
        ("missing file", {"x": "nope.npy"}, ["nope.npy", "argument 'x'"]),
        ("missing input", {"e": None}, ["no --input for argument 'e'"]),
        ("dynamic dims that disagree", {"e": "e6.npy"}, ["dim 1 of e (6)", "dim 1 of d (5)"]),
    ]
    failures = []

    def run(inputs, outdir):
        cmd = [a.fuserc, "run", os.path.join(HERE, "inputs", "f.mlir"), "--device", "cpu",
               "--output-dir", outdir]
        for k, v in inputs.items():
            if v is not None:
                cmd += ["--input", "%s=%s" % (k, P(v))]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return p.returncode, p.stderr.decode(errors="replace"), " ".join(map(shlex.quote, cmd))

    # the good run, compared with PyTorch
    out = P("out")
    rc, err, line = run(good, out)
    if rc != 0:
        failures.append("good inputs: exit %d: %s\n  reproduce: %s" % (rc, err.strip(), line))
    else:
        r0, r1, r2 = (np.load(os.path.join(out, "result%d.npy" % i)) for i in range(3))
        want1 = (-bt).view(torch.int16).numpy().view(np.uint16)
        checks = [("result0 = -x (f32)", r0.dtype == np.float32 and np.array_equal(r0, -x)),
                  ("result1 = -b (bf16 as uint16 bits)", r1.dtype == np.uint16 and
                   np.array_equal(r1[:2], want1[:2]) and np.isnan(
                       (r1[2:].astype(np.uint32) << 16).view(np.float32)).all()),
                  ("result2 = d + e (dynamic 2x5)", r2.shape == (2, 5) and
                   np.array_equal(r2, (torch.from_numpy(dd) + torch.from_numpy(e)).numpy()))]
        for what, ok in checks:
            if not ok:
                failures.append("good inputs: %s does not hold\n  reproduce: %s" % (what, line))
            elif a.verbose:
                print("ok   good inputs: %s" % what)
    for what, change, needles in bad:
        inputs = dict(good)
        inputs.update(change)
        rc, err, line = run(inputs, P("bad"))
        msg = err.strip().splitlines()[-1] if err.strip() else ""
        missing = [n for n in needles if n not in err]
        if rc != 1 or missing:
            failures.append("%s: exit %d, message %r (expected exit 1 and %s)\n  reproduce: %s"
                            % (what, rc, msg, needles, line))
        elif a.verbose:
            print("ok   %-28s exit 1: %s" % (what, msg.replace(d + "/", "")))
    for f in failures:
        print("FAIL " + f)
    print("inputs: %d checks, %d failed" % (len(bad) + 3, len(failures)))
    if not failures:
        import shutil
        shutil.rmtree(d, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
