"""Random fusions differentiated: each graph of the random-fusion generator
(randgen.py), its floating-point types promoted to f64, goes through
`fuserc run --vjp F --fusion F_vjp`; its gradients must agree with central
finite differences of fuser's own forward (`--fusion F` at x + h v and
x - h v) along a random direction v and cotangent c:

    sum(grad_i * v_i)  ==  sum(c_k * (F(x + h v)_k - F(x - h v)_k)) / (2 h)

within 1e-5 of the terms' magnitudes (h = 1e-6: the truncation error is
O(h^2), the rounding error O(eps / h), both below 1e-8 relative). A graph
is not judged when the two sides are not finite (a log of a negative
input), when the difference quotient at h and at h / 8 disagree (a jump or
a kink of floor, round, a comparison, relu, max, ... between x - h v and
x + h v: the function is not differentiable there), or when fuser-vjp says
an op has no rule (prod, scans, bitcast: docs/autodiff.md); the counts are
printed. Any other compile or run error is a failure."""

import argparse
import copy
import os
import shutil
import sys
import tempfile
import time

import numpy as np

from . import randgen
from .core import Arg, Env, Part, Result, execute

FLOATS = ("f16", "bf16", "f32", "f64")
H = 1e-6
TOL = 1e-5


def promote(g):
    """The graph with every float type f64, float inputs plain normals."""
    g = copy.deepcopy(g)
    for n in g["nodes"]:
        if n.get("dtype") in FLOATS:
            n["dtype"] = "f64"
            if n["op"] == "input":
                n["kind"], n["specials"] = "normal", False
        if n.get("to") in FLOATS:
            n["to"] = "f64"
    return g


class _WithF64:
    """randgen's type tables with f64 too, while a promoted graph is typed
    and printed (graphs are generated with the tables as they are, so seed
    N is the graph oracle/random-fusions checks)."""

    def __enter__(self):
        self.saved = (randgen.FLOATS, randgen.NUMERIC, randgen.REDUCE)
        randgen.FLOATS = randgen.FLOATS + ("f64",)
        randgen.NUMERIC = randgen.NUMERIC + ("f64",)
        randgen.REDUCE = {k: v + ("f64",) for k, v in randgen.REDUCE.items()}

    def __exit__(self, *exc):
        randgen.FLOATS, randgen.NUMERIC, randgen.REDUCE = self.saved


def build(seed):
    """(forward Part, cotangent arrays), or why the seed is not judged."""
    g = promote(randgen.generate(seed))
    with _WithF64():
        try:
            vals = randgen.infer(g)
            text = randgen.lines(g, vals)
        except randgen.Invalid as e:
            return "untyped after promotion to f64 (%s)" % str(e).split(" ")[0]
    args = randgen._args(g, vals, None)
    data = []
    inputs = [i for i, n in enumerate(g["nodes"]) if n["op"] == "input"]
    for a, i in zip(args, inputs):
        data.append(randgen.input_data(g, i, vals[(i, 0)]))
    part = Part("seed %d" % seed, [Arg(a.name, a.type, d, a.dtype) for a, d in zip(args, data)],
                text, randgen._results(g, vals))
    if not any(a.dtype == "f64" for a in part.args) or not any(
            r.dtype == "f64" for r in part.results):
        return "no floating-point input or result"
    rng = np.random.default_rng([seed, 7])
    cot = [rng.standard_normal(np.shape(np.zeros(vals[tuple(r)].sizes))).astype(np.float64)
           for r, res in zip(g["outputs"], part.results) if res.dtype == "f64"]
    return part, cot


def rounding(cot, plus, minus, h):
    """What rounding the outputs can move the quotient by, scaled so that
    TOL times it bounds it: the outputs' last bits over 2 h (an output
    large against its derivative has a quotient of 0 or of a few ulps)."""
    return sum(float(np.sum(np.abs(c) * (np.abs(p) + np.abs(m))))
               for c, p, m in zip(cot, plus, minus)) * 2.0 ** -52 / (2 * h) * 64 / TOL


def with_args(part, values):
    p = copy.copy(part)
    p.args = [Arg(a.name, a.type, v, a.dtype) for a, v in zip(part.args, values)]
    return p


def check(env, seed):
    """'pass', 'fail: ...', or 'skip <why>'."""
    b = build(seed)
    if isinstance(b, str):
        return "skip " + b
    part, cot = b
    fl = [k for k, a in enumerate(part.args) if a.dtype == "f64"]
    rng = np.random.default_rng([seed, 11])
    v = {k: rng.standard_normal(np.shape(part.args[k].value)) for k in fl}
    # the backward
    vp = copy.copy(part)
    vp.cotangents = [np.asarray(c) for c in cot]
    vp.grads = [Result("", part.args[k].type, "f64", None) for k in fl]
    grads, err, _ = execute(env, "f", [vp])
    if grads is None:
        if "no gradient" in err:
            return "skip no rule"
        return "fail: fuser-vjp or its fusion: " + err.strip().splitlines()[-1][:400]
    ad = sum(float(np.sum(gr.astype(np.float64) * v[k])) for gr, k in zip(grads, fl))
    mag_ad = sum(float(np.sum(np.abs(gr.astype(np.float64) * v[k]))) for gr, k in zip(grads, fl))

    def quotient(h):
        outs = []
        for sign in (1, -1):
            vals = [a.value + sign * h * v[k] if k in v else a.value
                    for k, a in enumerate(part.args)]
            res, err2, _ = execute(env, "f", [with_args(part, vals)])
            if res is None:
                return None, err2
            outs.append([r for r, rr in zip(res, part.results) if rr.dtype == "f64"])
        terms = [c * (p - m) / (2 * h) for c, p, m in zip(cot, outs[0], outs[1])]
        return (sum(float(np.sum(t)) for t in terms),
                sum(float(np.sum(np.abs(t))) for t in terms) + rounding(cot, outs[0], outs[1], h)), None

    q, err = quotient(H)
    if q is None:
        return "fail: the forward: " + err.strip().splitlines()[-1][:400]
    fd, mag_fd = q
    if not (np.isfinite(ad) and np.isfinite(fd) and np.isfinite(mag_ad) and np.isfinite(mag_fd)):
        return "skip not finite"
    scale = max(mag_ad, mag_fd, 1e-30)
    if abs(ad - fd) <= TOL * scale:
        return "pass"
    q2, _ = quotient(H / 8)
    if q2 is None or abs(q2[0] - fd) > TOL * scale:
        return "skip not differentiable here"
    return "fail: sum(grad * v) = %r, finite differences %r (scale %r)" % (ad, fd, scale)


def check_batch(env, seeds):
    """{seed: verdict} for graphs run as one fusion (three fuserc runs for
    the batch); a batch that fails as a whole, and a graph whose quotient
    disagrees, is rerun alone (check)."""
    built, out = [], {}
    for seed in seeds:
        b = build(seed)
        if isinstance(b, str):
            out[seed] = "skip " + b
        else:
            built.append((seed,) + b)
    if len(built) < 2:
        for seed, _, _ in built:
            out[seed] = check(env, seed)
        return out
    dirs = []
    for seed, part, cot in built:
        fl = [k for k, a in enumerate(part.args) if a.dtype == "f64"]
        rng = np.random.default_rng([seed, 11])
        dirs.append({k: rng.standard_normal(np.shape(part.args[k].value)) for k in fl})
    vps = []
    for (seed, part, cot), v in zip(built, dirs):
        vp = copy.copy(part)
        vp.cotangents = [np.asarray(c) for c in cot]
        vp.grads = [Result("", part.args[k].type, "f64", None) for k in sorted(v)]
        vps.append(vp)
    grads, _, _ = execute(env, "f", vps)
    fwd = []
    for sign in (1, -1):
        ps = [with_args(part, [a.value + sign * H * v[k] if k in v else a.value
                               for k, a in enumerate(part.args)])
              for (_, part, _), v in zip(built, dirs)]
        res = None if grads is None else execute(env, "f", ps)[0]
        fwd.append(res)
    if grads is None or fwd[0] is None or fwd[1] is None:
        for seed, _, _ in built:
            out[seed] = check(env, seed)
        return out
    gi = ri = 0
    for (seed, part, cot), v in zip(built, dirs):
        g = grads[gi:gi + len(v)]
        gi += len(v)
        n = len(part.results)
        plus, minus = fwd[0][ri:ri + n], fwd[1][ri:ri + n]
        ri += n
        fl = [k for k in sorted(v)]
        ad = sum(float(np.sum(x.astype(np.float64) * v[k])) for x, k in zip(g, fl))
        mag_ad = sum(float(np.sum(np.abs(x.astype(np.float64) * v[k]))) for x, k in zip(g, fl))
        pf = [(p_, m_) for p_, m_, r in zip(plus, minus, part.results) if r.dtype == "f64"]
        terms = [c * (p_ - m_) / (2 * H) for c, (p_, m_) in zip(cot, pf)]
        fd = sum(float(np.sum(t)) for t in terms)
        mag_fd = sum(float(np.sum(np.abs(t))) for t in terms) + rounding(
            cot, [p_ for p_, _ in pf], [m_ for _, m_ in pf], H)
        if not all(np.isfinite([ad, fd, mag_ad, mag_fd])):
            out[seed] = "skip not finite"
        elif abs(ad - fd) <= TOL * max(mag_ad, mag_fd, 1e-30):
            out[seed] = "pass"
        else:
            out[seed] = check(env, seed)
    return out


def main(argv, root):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0:100", help="A:B, the seeds A to B-1 (default 0:100)")
    ap.add_argument("--fuserc", default=None)
    ap.add_argument("--keep", default=None, help="directory for failing cases' files")
    ap.add_argument("--batch", type=int, default=8, help="graphs per fuserc run (default 8)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    fuserc = os.environ.get("FUSER_ORACLE_FUSERC") or a.fuserc or \
        os.path.join(root, "build", "bin", "fuserc")
    lo, hi = (int(x) for x in a.seeds.split(":"))
    work = tempfile.mkdtemp(prefix="fuser-random-vjp-")
    env = Env(fuserc, work, a.keep, a.verbose, root)
    counts, failures = {}, []
    t0 = time.time()
    try:
        for start in range(lo, hi, a.batch):
            verdicts = check_batch(env, list(range(start, min(hi, start + a.batch))))
            for seed, r in sorted(verdicts.items()):
                kind = r.split(":")[0] if r.startswith("fail") else r
                counts[kind] = counts.get(kind, 0) + 1
                if a.verbose or kind == "fail":
                    print("seed %d: %s" % (seed, r))
                if kind == "fail":
                    failures.append(seed)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("random fusions differentiated: seeds %d:%d, %s; %.1f s" % (
        lo, hi, ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())), time.time() - t0))
    if failures:
        print("failing seeds: %s (reproduce: /usr/bin/python3 test/oracle/random_vjp.py "
              "--seeds S:S+1 -v)" % " ".join(map(str, failures)))
    return 1 if failures else 0
