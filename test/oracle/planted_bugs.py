#!/usr/bin/python3
"""Planted schedule bugs: the CPU emulation must catch each one.

fuserc's --plant-bug (testing only) makes the compiler emit a known schedule
bug. For a softmax (block reduction), a softmax along dim 0 (an outer
normalization: rows of threads meet in shared memory), a transpose
(shared-memory tile), a
flat pointwise fusion, an inner-outer fusion (row means, then column sums
of the centred rows), column and long-row sums finished by their last
block, and rotate_half (a concat's dim in pieces) (test/oracle/planted/*.mlir),
each run with fuserc's
--random inputs, this checks:

  - without a bug, forward, --reverse-threads and --race-check runs match
    PyTorch;
  - with a bug that applies to the fusion's schedule, the forward and the
    reverse-order runs give wrong results (a missing barrier: NaN read from
    the poisoned shared memory; a wrong tile index: wrong elements; a wrong
    tail bound: the last element is never written; a dropped block of
    column partials or a wrong row-block mapping: wrong column sums; a
    piece's values stored at the next piece's place: wrong elements), and
    --race-check either stops with an error naming the race (missing
    barrier, wrong index) or, for a bug that is not a race, gives the wrong
    result too;
  - with a bug that does not apply (no barrier, no tile, no flat tail), the
    results still match.

    /usr/bin/python3 test/oracle/planted_bugs.py [--fuserc PATH] [-v]

Exit status 0 when every planted bug is caught, 1 otherwise, 77 without
torch or numpy. docs/cpu-emulation.md describes what each bug looks like."""

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
    print("planted bugs: skipped: %s has no %s (install python3-torch and python3-numpy)"
          % (sys.executable, e.name))
    sys.exit(77)

sys.path.insert(0, HERE)
from oracle import normalization  # noqa: E402
from oracle.core import Exact, Ulps, from_f64, from_torch, to_f64, to_torch  # noqa: E402
from oracle.values import fuserc_random  # noqa: E402

SEED = 1


def ref_softmax(inputs):
    want, rule, alts = normalization.softmax_ref(inputs[0], "f32", 1)
    return want, rule


def ref_column_softmax(inputs):
    want, rule, alts = normalization.softmax_ref(inputs[0], "f32", 0)
    return want, rule


def ref_transpose(inputs):
    x, y = (to_torch(a, "f32") for a in inputs)
    return from_torch(x.permute(0, 2, 1) + y, "f32"), Exact()


def ref_inner_outer(inputs):
    x = torch.from_numpy(to_f64(inputs[0], "f32"))
    c = (x - x.mean(1, keepdim=True)).sum(0)
    # f32 roundings: the row mean, the difference, the column sum
    tol = (x.shape[0] + 8) * 2.0 ** -24 * (x.abs() + x.abs().mean(1, keepdim=True)).sum(0)
    return from_f64(c.numpy(), "f32"), Ulps(1, tol.numpy())


def ref_column_sum(inputs):
    x = torch.from_numpy(to_f64(inputs[0], "f32"))
    tol = (x.shape[0] + 8) * 2.0 ** -24 * x.abs().sum(0)
    return from_f64(x.sum(0).numpy(), "f32"), Ulps(1, tol.numpy())


def ref_row_sum(inputs):
    x = torch.from_numpy(to_f64(inputs[0], "f32"))
    tol = (x.shape[1] + 8) * 2.0 ** -24 * x.abs().sum(1)
    return from_f64(x.sum(1).numpy(), "f32"), Ulps(1, tol.numpy())


def ref_pointwise(inputs):
    x, y = (torch.from_numpy(to_f64(a, "f32")) for a in inputs)
    return from_f64((torch.exp(x) * y).numpy(), "f32"), Ulps(2)


def ref_rotate_half(inputs):
    x = to_torch(inputs[0], "f32")
    h = x.shape[1] // 2
    return from_torch(x + torch.cat([-x[:, h:], x[:, :h]], 1), "f32"), Exact()


# fusion -> (argument shapes, reference, the bugs that apply to its schedule)
FUSIONS = {
    "softmax": ([(64, 1000)], ref_softmax, ["missing-barrier"]),
    "column_softmax": ([(100, 96)], ref_column_softmax, ["missing-barrier"]),
    "transpose": ([(4, 65, 33), (4, 33, 65)], ref_transpose, ["missing-barrier", "wrong-index"]),
    "pointwise": ([(1031,), (1031,)], ref_pointwise, ["wrong-tail"]),
    "inner_outer": ([(300, 256)], ref_inner_outer,
                    ["inner-outer-drop-partial", "inner-outer-row-map"]),
    "column_sum": ([(2048, 96)], ref_column_sum, ["last-block-no-fence"]),
    "long_rows": ([(4, 40000)], ref_row_sum, ["missing-barrier", "last-block-no-fence"]),
    "concat_pieces": ([(16, 64)], ref_rotate_half, ["concat-piece-position"]),
}
BUGS = ["missing-barrier", "wrong-tail", "wrong-index", "inner-outer-drop-partial",
        "inner-outer-row-map", "last-block-no-fence", "concat-piece-position"]
# Bugs that are shared-memory races (the race check names them); the others
# only give wrong results.
RACES = ["missing-barrier", "wrong-index"]
# Bugs that the emulation stops in every mode: values one block hands to
# another without the fences the GPU needs (on the CPU they come out right).
FENCES = ["last-block-no-fence"]
MODES = [[], ["--reverse-threads"], ["--race-check"]]
# Orders in which a bug cannot show, with why: the missing barrier of the
# long rows' block reduction needs warp 0 (which reads the warps' partials)
# to run before the others wrote them; in reverse order it runs last.
UNSEEN = {("long_rows", "missing-barrier"): [["--reverse-threads"]]}


def run(fuserc, fusion, bug, mode, outdir):
    cmd = [fuserc, "run", os.path.join(HERE, "planted", fusion + ".mlir"), "--device", "cpu",
           "--random", str(SEED), "--output-dir", outdir] + mode
    if bug:
        cmd += ["--plant-bug", bug]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = " ".join(shlex.quote(c) for c in cmd)
    if "error while loading shared libraries" in p.stderr.decode(errors="replace"):
        print("planted bugs: error: fuserc cannot start: %s" % p.stderr.decode().strip())
        sys.exit(1)
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace"), line
    return np.load(os.path.join(outdir, "result0.npy")), "", line


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fuserc", default=os.path.join(ROOT, "build", "bin", "fuserc"))
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    a.fuserc = os.environ.get("FUSER_ORACLE_FUSERC") or a.fuserc  # as run.py
    failures = []
    checks = 0
    work = tempfile.mkdtemp(prefix="fuser-planted-")
    for fusion, (shapes, ref, applies) in FUSIONS.items():
        inputs, off = [], 0
        for s in shapes:
            v, off = fuserc_random("f32", s, SEED, off)
            inputs.append(v)
        want, rule = ref(inputs)
        for bug in [None] + BUGS:
            caught_by_design = bug in applies
            modes = MODES if (bug is None or caught_by_design) else MODES[:1]
            modes = [m for m in modes if m not in UNSEEN.get((fusion, bug), [])]
            for mode in modes:
                checks += 1
                out = os.path.join(work, "%s-%s-%s" % (fusion, bug or "none", "".join(mode) or "forward"))
                got, err, line = run(a.fuserc, fusion, bug, mode, out)
                what = "%s, %s, %s" % (fusion, bug or "no bug", " ".join(mode) or "forward order")
                if got is not None:
                    bad = rule.check(got, want, "f32")
                    nbad = int(bad.sum())
                    nnan = int(np.isnan(got).sum())
                else:
                    nbad = nnan = None
                verdict = None
                if not caught_by_design:
                    # no bug, or one that does not touch this schedule: must match
                    if got is None:
                        verdict = "fuserc failed: " + err.strip().splitlines()[-1]
                    elif nbad:
                        verdict = "%d of %d elements differ from PyTorch" % (nbad, got.size)
                    result = "matches PyTorch"
                elif bug in FENCES:
                    if got is not None:
                        verdict = "the fence check did not stop the run (%d elements wrong)" % nbad
                    elif "without a fence" not in err:
                        verdict = "failed without naming the fence: " + err.strip().splitlines()[-1]
                    result = "error: " + err.strip().splitlines()[-1].split("emulator: ")[-1]
                elif mode == ["--race-check"] and bug in RACES:
                    if got is not None:
                        verdict = "the race check did not stop the run (%d elements wrong)" % nbad
                    elif "shared memory race" not in err:
                        verdict = "failed without naming a race: " + err.strip().splitlines()[-1]
                    result = "error: " + err.strip().splitlines()[-1].split("emulator: ")[-1]
                else:
                    if got is None:
                        verdict = "fuserc failed: " + err.strip().splitlines()[-1]
                    elif not nbad:
                        verdict = "the planted bug went unnoticed: the result matches PyTorch"
                    elif bug == "missing-barrier" and not nnan:
                        verdict = "no NaN from the poisoned shared memory (%d elements wrong)" % nbad
                    elif bug == "wrong-tail" and not (bad.reshape(-1)[-1] and nbad == 1):
                        verdict = "expected exactly the last element to be wrong, %d differ" % nbad
                    result = "%d of %d elements wrong, %d NaN" % (nbad, got.size, nnan)
                if verdict:
                    failures.append("%s: %s\n  reproduce: %s" % (what, verdict, line))
                    print("FAIL %s: %s\n  reproduce: %s" % (what, verdict, line))
                elif a.verbose:
                    print("ok   %-58s %s" % (what, result))
    if not failures:
        import shutil
        shutil.rmtree(work, ignore_errors=True)
    print("planted bugs: %d runs, %d failed" % (checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
