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


def _last_line(err):
    """The last line of fuserc's stderr, or what happened when it printed
    nothing (a crash: the sweep reports the seed and goes on)."""
    lines = err.strip().splitlines()
    return lines[-1][:400] if lines else "fuserc printed nothing (it crashed?)"


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


def direction(seed, part):
    """v: a random direction for each f64 argument, by position."""
    rng = np.random.default_rng([seed, 11])
    return {k: rng.standard_normal(np.shape(a.value))
            for k, a in enumerate(part.args) if a.dtype == "f64"}


def backward_part(part, cot, v):
    """The part run as F_vjp: its cotangents, a gradient per f64 argument."""
    vp = copy.copy(part)
    vp.cotangents = [np.asarray(c) for c in cot]
    vp.grads = [Result("", part.args[k].type, "f64", None) for k in sorted(v)]
    return vp


def moved(part, v, step):
    """The part with each f64 argument moved by step * v."""
    return with_args(part, [a.value + step * v[k] if k in v else a.value
                            for k, a in enumerate(part.args)])


def sides(part, cot, v, grads, plus, minus, h):
    """(sum(grad * v), its terms' magnitude, the difference quotient, its
    terms' magnitude plus what rounding the outputs can move it by)."""
    g = [x.astype(np.float64) * v[k] for x, k in zip(grads, sorted(v))]
    f64 = [r.dtype == "f64" for r in part.results]
    pl = [x for x, ok in zip(plus, f64) if ok]
    mi = [x for x, ok in zip(minus, f64) if ok]
    terms = [c * (p_ - m_) / (2 * h) for c, p_, m_ in zip(cot, pl, mi)]
    return (sum(float(np.sum(t)) for t in g), sum(float(np.sum(np.abs(t))) for t in g),
            sum(float(np.sum(t)) for t in terms),
            sum(float(np.sum(np.abs(t))) for t in terms) + rounding(cot, pl, mi, h))


def check(env, seed):
    """'pass', 'fail: ...', or 'skip <why>'."""
    b = build(seed)
    if isinstance(b, str):
        return "skip " + b
    part, cot = b
    v = direction(seed, part)
    grads, err, _ = execute(env, "f", [backward_part(part, cot, v)])
    if grads is None:
        if "no gradient" in err:
            return "skip no rule"
        return "fail: fuser-vjp or its fusion: " + _last_line(err)

    def quotient(h):
        outs = []
        for sign in (1, -1):
            res, err2, _ = execute(env, "f", [moved(part, v, sign * h)])
            if res is None:
                return None, err2
            outs.append(res)
        return sides(part, cot, v, grads, outs[0], outs[1], h), None

    q, err = quotient(H)
    if q is None:
        return "fail: the forward: " + _last_line(err)
    ad, mag_ad, fd, mag_fd = q
    if not all(np.isfinite([ad, fd, mag_ad, mag_fd])):
        return "skip not finite"
    scale = max(mag_ad, mag_fd, 1e-30)
    if abs(ad - fd) <= TOL * scale:
        return "pass"
    q2, _ = quotient(H / 8)
    if q2 is None or abs(q2[2] - fd) > TOL * scale:
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
            built.append((seed,) + b + (direction(seed, b[0]),))
    if len(built) < 2:
        for seed, _, _, _ in built:
            out[seed] = check(env, seed)
        return out
    grads, _, _ = execute(env, "f", [backward_part(p, c, v) for _, p, c, v in built])
    fwd = []
    for sign in (1, -1):
        res = None if grads is None else execute(env, "f", [moved(p, v, sign * H)
                                                             for _, p, _, v in built])[0]
        fwd.append(res)
    if grads is None or fwd[0] is None or fwd[1] is None:
        for seed, _, _, _ in built:
            out[seed] = check(env, seed)
        return out
    gi = ri = 0
    for seed, part, cot, v in built:
        n = len(part.results)
        ad, mag_ad, fd, mag_fd = sides(part, cot, v, grads[gi:gi + len(v)],
                                       fwd[0][ri:ri + n], fwd[1][ri:ri + n], H)
        gi, ri = gi + len(v), ri + n
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
    ap.add_argument("--batch", type=int, default=8, help="graphs per fuserc run (default 8)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    fuserc = os.environ.get("FUSER_ORACLE_FUSERC") or a.fuserc or \
        os.path.join(root, "build", "bin", "fuserc")
    lo, hi = (int(x) for x in a.seeds.split(":"))
    work = tempfile.mkdtemp(prefix="fuser-random-vjp-")
    env = Env(fuserc, work, None, a.verbose, root)
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
