"""fuser.rand, fuser.randn, fuser.bernoulli and fuser.dropout against the
formula of docs/random.md, computed here with numpy: Philox4x32-10 (whose
implementation is checked against Random123's known answers first), the
uniform and Box-Muller conversions, bernoulli and dropout.

Uniforms, raw words, bernoulli and dropout must match bit for bit; normals
within a few ulps (fuser's log, sin and cos against numpy's). Every case
runs with static and dynamic shapes, alone and fused with other ops, under
views (permute, slice, broadcast) that change the kernel's index
arithmetic, with 32- and 64-bit index math: the values depend on (seed,
offset, index) alone."""

import numpy as np

from .core import (Case, Exact, Expect, Part, PartBuilder, Result, Ulps, from_f64, mlir_type,
                   np_dtype, to_f64)

EXACT = Exact()
MASK32 = np.uint64(0xFFFFFFFF)
M0, M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
W0, W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)

# Random123's known-answer vectors of Philox4x32-10: counter, key, output.
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    ((0xffffffff,) * 4, (0xffffffff,) * 2, (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
     (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
]


def philox(c, k):
    """Philox4x32-10 of counter words c[0..3] and key words k[0..1] (uint64
    arrays holding 32-bit values): the four output words."""
    c = [np.asarray(x, np.uint64) for x in c]
    k = [np.asarray(x, np.uint64) for x in k]
    for r in range(10):
        if r:
            k = [(k[0] + W0) & MASK32, (k[1] + W1) & MASK32]
        p0 = M0 * c[0]
        p1 = M1 * c[2]
        c = [((p1 >> np.uint64(32)) ^ c[1] ^ k[0]) & MASK32, p1 & MASK32,
             ((p0 >> np.uint64(32)) ^ c[3] ^ k[1]) & MASK32, p0 & MASK32]
    return c


def _check_kat():
    for c, k, want in KAT:
        got = tuple(int(w) for w in philox(c, k))
        assert got == want, "numpy Philox4x32-10 disagrees with Random123: %r" % (got,)


_check_kat()


def _split(v):
    v = np.uint64(np.int64(v).astype(np.uint64))
    return v & MASK32, v >> np.uint64(32)


def words(seed, offset, q):
    """The four words of counter q (an array of element groups)."""
    q = np.asarray(q, np.uint64)
    s0, s1 = _split(seed)
    o0, o1 = _split(offset)
    zero = np.zeros_like(q)
    return philox([q & MASK32, q >> np.uint64(32), zero + o0, zero + o1],
                  [zero + s0, zero + s1])


def word32(seed, offset, n, start=0):
    """The 32-bit word of elements start..start+n-1."""
    i = np.arange(start, start + n, dtype=np.uint64)
    w = words(seed, offset, i >> np.uint64(2))
    lane = (i & np.uint64(3)).astype(np.int64)
    return np.choose(lane, w).astype(np.uint64)


def word64(seed, offset, n):
    """The 64 bits of elements 0..n-1 (words 2(i&1) low, 2(i&1)+1 high)."""
    i = np.arange(n, dtype=np.uint64)
    w = words(seed, offset, i >> np.uint64(1))
    odd = (i & np.uint64(1)).astype(bool)
    lo = np.where(odd, w[2], w[0])
    hi = np.where(odd, w[3], w[1])
    return lo | (hi << np.uint64(32))


def uniform(t, seed, offset, n, start=0):
    """fuser.rand of element type t at elements start..start+n-1, flat, as
    t's storage."""
    if t == "i32":
        return word32(seed, offset, n, start).astype(np.uint32).view(np.int32)
    if t == "i64":
        return word64(seed, offset, n).view(np.int64)
    if t == "f64":
        return (word64(seed, offset, n) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    bits = {"f32": 24, "f16": 11, "bf16": 8}[t]
    u = (word32(seed, offset, n, start) >> np.uint64(32 - bits)).astype(np.float64) * 2.0 ** -bits
    return from_f64(u, t)


def normal(t, seed, offset, n):
    """fuser.randn's value in f64 (the reference before rounding to t)."""
    i = np.arange(n, dtype=np.uint64)
    if t == "f64":
        w = words(seed, offset, i >> np.uint64(1))
        a = (w[0] | (w[1] << np.uint64(32))) >> np.uint64(11)
        b = (w[2] | (w[3] << np.uint64(32))) >> np.uint64(11)
        u1 = (a + np.uint64(1)).astype(np.float64) * 2.0 ** -53
        u2 = b.astype(np.float64) * 2.0 ** -53
        second = (i & np.uint64(1)).astype(bool)
        theta = 6.283185307179586 * u2
    else:
        w = words(seed, offset, i >> np.uint64(2))
        lane = i & np.uint64(3)
        pair2 = (lane >> np.uint64(1)).astype(bool)
        wa = np.where(pair2, w[2], w[0])
        wb = np.where(pair2, w[3], w[1])
        u1 = ((wa >> np.uint64(8)) + np.uint64(1)).astype(np.float64) * 2.0 ** -24
        u2 = (wb >> np.uint64(8)).astype(np.float64) * 2.0 ** -24
        second = (lane & np.uint64(1)).astype(bool)
        # theta rounds to f32 in fuser (f32 arithmetic)
        theta = (np.float32(6.2831855) * u2.astype(np.float32)).astype(np.float64)
    r = np.sqrt(-2.0 * np.log(u1))
    return r * np.where(second, np.sin(theta), np.cos(theta))


def bernoulli(t, p, seed, offset):
    """fuser.bernoulli of probabilities p (storage of t), flat order."""
    n = p.size
    pf = to_f64(p.reshape(-1), t)
    if t == "f64":
        u = uniform("f64", seed, offset, n)
    else:
        u = uniform("f32", seed, offset, n).astype(np.float64)
        pf = pf.astype(np.float32).astype(np.float64)
    return from_f64(np.where(u < pf, 1.0, 0.0), t).reshape(p.shape)


def dropout(t, x, p, seed, offset, start=0):
    """(y, mask) of fuser.dropout as torch.native_dropout computes them on the GPU;
    x holds the elements start..start+x.size-1 of the op's input."""
    ft = np.float64 if t == "f64" else np.float32
    xf = to_f64(x.reshape(-1), t).astype(ft)
    keep_p = ft(1.0) - ft(np.float32(p))  # p is passed as an f32 tensor
    u = uniform("f32", seed, offset, x.size, start).astype(ft)
    mask = u < keep_p
    if keep_p == 0:
        # p = 1: CUDA's native_dropout (and torch._refs) return zeros_like(x),
        # +0 even where x is inf, NaN or negative (the CPU kernel's x * 0
        # is not what the GPU computes).
        y = np.zeros_like(xf)
    else:
        y = (xf * mask.astype(ft)) * (ft(1.0) / keep_p)
    return from_f64(y.astype(np.float64), t).reshape(x.shape), mask.reshape(x.shape)


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

SEEDS = [(0, 0), (42, 7), (-1, 1), (0x123456789ABCDEF, -5), (2 ** 62 + 3, 2 ** 40)]
SHAPES = [(1031,), (13, 17), (4, 0), (), (3, 5, 7), (2, 64)]
RAND_TYPES = ("f32", "f16", "bf16", "f64", "i32", "i64")


def _scalar_args(pb, seed, offset):
    pb.arg("seed", np.array(seed, np.int64), "i64")
    pb.arg("offset", np.array(offset, np.int64), "i64")


def _rule(t):
    return EXACT


def _normal_rule(t):
    # fuser's log, sin and cos (fast tier for f32: 2 ulp) against numpy's:
    # a few ulps of r and of the trig value; near a zero of the trig value
    # the error is absolute.
    if t == "f64":
        return Ulps(16, atol=1e-14)
    return Ulps(16, atol=2e-6 if t == "f32" else 0.0)


def _rand_part(op, t, shape, seed, offset, dynamic=False, view=None, fused=False):
    """One rand/randn part: the result, optionally under a view or added to
    an argument, checked against the formula."""
    label = "%s %s %s seed %d offset %d%s%s%s" % (
        op, t, shape, seed, offset, " dynamic" if dynamic else "",
        " " + view if view else "", " fused" if fused else "")
    pb = PartBuilder(label)
    _scalar_args(pb, seed, offset)
    n = int(np.prod(shape))
    dims = tuple(None for _ in shape) if dynamic else None
    if op == "rand":
        flat = uniform(t, seed, offset, n)
    else:
        flat = from_f64(normal(t, seed, offset, n), t)
    want = flat.reshape(shape)
    rt = mlir_type(dims if dynamic else shape, t)
    if dynamic:
        like = np.zeros(shape, np.float32)
        lt = pb.arg("like", like, "f32", dims=dims)
        pb.line("%%r = fuser.%s %%seed, %%offset like %%like : %s : %s" % (op, lt, rt))
    else:
        pb.line("%%r = fuser.%s %%seed, %%offset : %s" % (op, rt))
    rule = EXACT if op == "rand" else _normal_rule(t)
    out, out_t, out_shape, out_want = "r", rt, shape, want
    if view == "permute" and len(shape) == 2:
        out_shape = (shape[1], shape[0])
        out_t = mlir_type(tuple(reversed(dims)) if dynamic else out_shape, t)
        pb.line("%%v = fuser.permute %%r perm = [1, 0] : %s -> %s" % (rt, out_t))
        out, out_want = "v", np.ascontiguousarray(want.T)
    elif view == "slice" and len(shape) == 1 and shape[0] > 8:
        out_shape = ((shape[0] - 3 + 2) // 3,)
        out_t = mlir_type(out_shape, t)
        pb.line("%%v = fuser.slice %%r start = [3] limit = [%d] step = [3] : %s -> %s"
                % (shape[0], rt, out_t))
        out, out_want = "v", want[3::3]
    elif view == "broadcast" and len(shape) == 1:
        out_shape = (3,) + shape
        out_t = mlir_type(out_shape, t)
        pb.line("%%v = fuser.broadcast %%r dims = [1] : %s -> %s" % (rt, out_t))
        out, out_want = "v", np.broadcast_to(want, out_shape)
    if fused and t in ("f32", "f64"):
        x = np.arange(int(np.prod(out_shape)), dtype=np.float64).reshape(out_shape) * 0.25
        xs = from_f64(x, t)
        xt = pb.arg("x", xs, t, dims=None)
        pb.line("%%s = fuser.add %%%s, %%x : %s, %s" % (out, out_t, xt))
        out = "s"
        out_want = from_f64(to_f64(out_want, t) + to_f64(xs, t), t)
        if op == "randn":
            rule = Ulps(16, atol=2e-6 * (1 + np.abs(x)) if t == "f32" else 1e-14 * (1 + np.abs(x)))
    pb.result(out, out_shape, t, out_want, rule,
              dims=(tuple(None for _ in out_shape) if dynamic and view is None else None))
    return pb.part()


def _rand_parts(op, t):
    parts = []
    types = RAND_TYPES if op == "rand" else ("f32", "f16", "bf16", "f64")
    if t not in types:
        return parts
    for k, (seed, offset) in enumerate(SEEDS):
        shape = SHAPES[k % len(SHAPES)]
        parts.append(_rand_part(op, t, shape, seed, offset))
    parts.append(_rand_part(op, t, (13, 17), 5, 9, dynamic=True))
    parts.append(_rand_part(op, t, (1031,), 5, 9, dynamic=True))
    parts.append(_rand_part(op, t, (13, 17), 11, 3, view="permute"))
    parts.append(_rand_part(op, t, (1031,), 11, 3, view="slice"))
    parts.append(_rand_part(op, t, (33,), 11, 3, view="broadcast"))
    parts.append(_rand_part(op, t, (4, 256), 8, 1, fused=True))
    parts.append(_rand_part(op, t, (13, 17), 8, 1, view="permute", fused=True))
    return parts


def _bernoulli_parts(t):
    parts = []
    rng = np.random.default_rng(7)
    for k, (seed, offset) in enumerate(SEEDS[:3]):
        shape = [(1031,), (13, 17), (2, 3, 5)][k]
        p = from_f64(rng.uniform(-0.1, 1.1, size=shape), t)
        p.reshape(-1)[:3] = from_f64(np.array([0.0, 1.0, 0.5]), t)
        pb = PartBuilder("bernoulli %s %s seed %d" % (t, shape, seed))
        pt = pb.arg("p", p, t)
        _scalar_args(pb, seed, offset)
        pb.line("%%b = fuser.bernoulli %%p, %%seed, %%offset : %s" % pt)
        pb.result("b", shape, t, bernoulli(t, p, seed, offset), EXACT)
        parts.append(pb.part())
    return parts


def _dropout_parts(t):
    parts = []
    rng = np.random.default_rng(11)
    for k, p in enumerate([0.0, 0.1, 0.5, 0.9, 1.0]):
        shape = [(1031,), (8, 129), (3, 5, 7), (64, 64), (2, 16)][k]
        seed, offset = SEEDS[k]
        x = from_f64(rng.normal(size=shape) * 3, t)
        flat = x.reshape(-1)
        if flat.size >= 4:
            flat[:4] = from_f64(np.array([np.inf, -np.inf, np.nan, -0.0]), t)
        pb = PartBuilder("dropout %s p=%g %s" % (t, p, shape))
        xt = pb.arg("x", x, t)
        pf = pb.arg("p", np.array(p, np.float32), "f32")
        _scalar_args(pb, seed, offset)
        mt = mlir_type(shape, "i1")
        pb.line("%%y, %%m = fuser.dropout %%x, %%p, %%seed, %%offset : %s, %s -> %s, %s"
                % (xt, pf, xt, mt))
        y, mask = dropout(t, x, p, seed, offset)
        pb.result("y", shape, t, y, EXACT)
        pb.result("m", shape, "i1", mask, EXACT)
        parts.append(pb.part())
    return parts


def cases(rng_for):
    out = []
    for op in ("rand", "randn"):
        for t in RAND_TYPES:
            parts = _rand_parts(op, t)
            if parts:
                out.append(Case("random/%s/%s" % (op, t), lambda parts=parts: parts))
                out.append(Case("random/%s/%s/index64" % (op, t), lambda parts=parts: parts,
                                extra=["--index-bits", "64"]))
    for t in ("f32", "f16", "bf16", "f64"):
        out.append(Case("random/bernoulli/%s" % t, lambda t=t: _bernoulli_parts(t)))
        out.append(Case("random/dropout/%s" % t, lambda t=t: _dropout_parts(t)))
    return out
