"""Indexing: fuser.gather (torch.gather) and fuser.index_select
(torch.index_select) for every element type and both index types, over
ranks 1 to 4, every dim, indices at 0 and at the last position, repeated
indices, empty index tensors, zero-size dims, an index smaller than the
input in the dims gather does not pick along, and dynamic sizes; then the
fusions they appear in: an embedding lookup scaled and shifted (one
pointwise kernel), a gather feeding a row reduction (cross-entropy's target
pick beside its logsumexp), cross-entropy's backward (softmax minus a
one-hot built from iota), RoPE (Llama's rotate_half, GPT-NeoX's partial
rotary and GPT-J's interleaved pairs, cos and sin picked by position ids;
and Llama's backward) and an index_select whose index
is computed in the fusion.

References: PyTorch's gather and index_select on the same values (exact:
they only move elements), and float64 for the cross-entropy."""

import math

import numpy as np
import torch

from . import values
from .core import (ALL_TYPES, Case, Exact, PartBuilder, Ulps, from_f64, from_torch,
                   mlir_type, to_f64, to_torch)

EXACT = Exact()
INDEX_TYPES = ("i64", "i32")
_NP_INDEX = {"i64": np.int64, "i32": np.int32}


def _bind(fn, *a):
    return lambda: fn(*a)


def _data(t, shape, rng):
    if int(np.prod(shape)) == 0:
        return values.random(t, shape, rng)
    return values.with_specials(t, shape, rng)


def _indices(rng, size, shape, it):
    """Indices in [0, size) of `shape`, with 0 and size - 1 (the edges) and
    repeats wherever there is room."""
    n = int(np.prod(shape))
    if n == 0 or size == 0:
        return np.zeros(shape, _NP_INDEX[it])
    idx = rng.integers(0, size, n)
    idx[0] = size - 1
    if n > 1:
        idx[1] = 0
    if n > 3:
        idx[3] = idx[2]  # a repeat
    return idx.reshape(shape).astype(_NP_INDEX[it])


def _gather_ref(x, dim, idx, t):
    return from_torch(torch.gather(to_torch(x, t), dim, torch.from_numpy(idx.astype(np.int64))), t)


def _index_select_ref(x, dim, idx, t):
    return from_torch(torch.index_select(to_torch(x, t), dim,
                                         torch.from_numpy(idx.astype(np.int64))), t)


# (input shape, dim, index shape)
GATHERS = [((10,), 0, (4,)), ((10,), 0, (0,)), ((4, 10), 1, (4, 3)), ((4, 10), 0, (7, 10)),
           ((5, 6), 1, (3, 9)), ((3, 4, 5), 2, (3, 4, 2)), ((3, 4, 5), 1, (2, 6, 5)),
           ((3, 4, 5), 0, (1, 1, 1)), ((2, 3, 4, 33), 3, (2, 3, 4, 33)), ((4, 0), 0, (2, 0)),
           ((1, 1031), 1, (1, 1031))]

# (input shape, dim, index length)
INDEX_SELECTS = [((10,), 0, 4), ((10,), 0, 0), ((7, 5), 0, 3), ((7, 5), 1, 8), ((3, 4, 5), 1, 6),
                 ((3, 4, 5), 2, 1), ((2, 3, 4, 33), 0, 5), ((0, 3), 1, 2), ((100, 64), 0, 16)]


def _gather_parts(t, it, name, rng_for):
    rng = rng_for(name)
    parts = []
    for ishape, dim, jshape in GATHERS:
        x = _data(t, ishape, rng)
        idx = _indices(rng, ishape[dim], jshape, it)
        pb = PartBuilder("gather %s dim %d by %s" % (ishape, dim, jshape))
        tx = pb.arg("x", x, t)
        ti = pb.arg("i", idx, it)
        to = mlir_type(jshape, t)
        pb.line("%%0 = fuser.gather %%x, %%i dim = %d : %s, %s -> %s" % (dim, tx, ti, to))
        pb.result("0", jshape, t, _gather_ref(x, dim, idx, t), EXACT)
        parts.append(pb.part())
    # dynamic sizes: the input, the index or both known only at launch
    for ishape, dim, jshape, xdims, idims in [
            ((6, 9), 1, (6, 4), (None, None), (None, None)),
            ((6, 9), 0, (3, 9), (6, 9), (None, 9)),
            ((5, 300), 1, (2, 300), (None, 300), (None, None))]:
        x = _data(t, ishape, rng)
        idx = _indices(rng, ishape[dim], jshape, it)
        pb = PartBuilder("gather %s as %s dim %d by %s as %s" % (
            mlir_type(xdims, t), ishape, dim, mlir_type(idims, it), jshape))
        tx = pb.arg("x", x, t, xdims)
        ti = pb.arg("i", idx, it, idims)
        to = mlir_type(idims, t)
        pb.line("%%0 = fuser.gather %%x, %%i dim = %d : %s, %s -> %s" % (dim, tx, ti, to))
        pb.result("0", jshape, t, _gather_ref(x, dim, idx, t), EXACT, dims=idims)
        parts.append(pb.part())
    return parts


def _index_select_parts(t, it, name, rng_for):
    rng = rng_for(name)
    parts = []
    for ishape, dim, k in INDEX_SELECTS:
        x = _data(t, ishape, rng)
        idx = _indices(rng, ishape[dim], (k,), it)
        want = _index_select_ref(x, dim, idx, t)
        pb = PartBuilder("index_select %s dim %d by %d" % (ishape, dim, k))
        tx = pb.arg("x", x, t)
        ti = pb.arg("i", idx, it)
        to = mlir_type(want.shape, t)
        pb.line("%%0 = fuser.index_select %%x, %%i dim = %d : %s, %s -> %s" % (dim, tx, ti, to))
        pb.result("0", want.shape, t, want, EXACT)
        parts.append(pb.part())
    # dynamic: the table's rows and the number of ids known at launch
    for rows, k in [(37, 5), (3, 0)]:
        x = _data(t, (rows, 24), rng)
        idx = _indices(rng, rows, (k,), it)
        want = _index_select_ref(x, 0, idx, t)
        pb = PartBuilder("index_select ?x24 as %dx24 by ? as %d" % (rows, k))
        tx = pb.arg("x", x, t, (None, 24))
        ti = pb.arg("i", idx, it, (None,))
        pb.line("%%0 = fuser.index_select %%x, %%i dim = 0 : %s, %s -> %s" % (
            tx, ti, mlir_type((None, 24), t)))
        pb.result("0", want.shape, t, want, EXACT, dims=(None, 24))
        parts.append(pb.part())
    return parts


def _embedding_part(rng, t, vocab, dim, n, dynamic):
    """x = table[ids] * scale + pos (bf16 or f32): one pointwise kernel."""
    table = from_f64(rng.standard_normal((vocab, dim)), t)
    pos = from_f64(rng.standard_normal((n, dim)), t)
    ids = _indices(rng, vocab, (n,), "i32")
    scale = math.sqrt(dim)
    ct = "f32"
    tdims = (None, dim) if dynamic else (vocab, dim)
    ndims = (None,) if dynamic else (n,)
    odims = (None, dim) if dynamic else (n, dim)
    pb = PartBuilder("embedding %s[%d x %d] by %d ids%s" % (t, vocab, dim, n,
                                                          ", dynamic" if dynamic else ""))
    tt = pb.arg("table", table, t, tdims)
    ti = pb.arg("ids", ids, "i32", ndims)
    tp = pb.arg("pos", pos, t, odims)
    to = mlir_type(odims, t)
    tc = mlir_type(odims, ct)
    pb.line("%%e = fuser.index_select %%table, %%ids dim = 0 : %s, %s -> %s" % (tt, ti, to))
    pb.line("%%ef = fuser.cast %%e : %s to %s" % (to, tc))
    pb.line("%%pf = fuser.cast %%pos : %s to %s" % (to, tc))
    pb.line("%%s = fuser.constant %r : %s" % (scale, mlir_type((), ct)))
    pb.line("%%sb = fuser.broadcast %%s dims = [] : %s -> %s" % (mlir_type((), ct), tc))
    pb.line("%%m = fuser.mul %%ef, %%sb : %s" % tc)
    pb.line("%%a = fuser.add %%m, %%pf : %s" % tc)
    pb.line("%%0 = fuser.cast %%a : %s to %s" % (tc, to))
    e = torch.from_numpy(to_f64(table, t)[ids.astype(np.int64)]).float()
    want = (e * np.float32(scale) + torch.from_numpy(to_f64(pos, t)).float()).numpy()
    pb.result("0", (n, dim), t, from_f64(want.astype(np.float64), t), Ulps(0 if t == "f32" else 1),
              dims=odims)
    return pb.part()


def _row_exp_lines(pb, tx, tf, tr):
    """%xf = f32 x, %mx = its row max (kept dims), %e = exp(x - max), %s =
    the row sum of %e: the start of softmax and logsumexp."""
    pb.line("%%xf = fuser.cast %%x : %s to %s" % (tx, tf))
    pb.line("%%mx = fuser.max %%xf dims = [1] keepdim = true : %s -> %s" % (tf, tr))
    pb.line("%%mb = fuser.broadcast %%mx dims = [0, 1] : %s -> %s" % (tr, tf))
    pb.line("%%d = fuser.sub %%xf, %%mb : %s" % tf)
    pb.line("%%e = fuser.exp %%d : %s" % tf)
    pb.line("%%s = fuser.sum %%e dims = [1] keepdim = true : %s -> %s" % (tf, tr))


def _cross_entropy_part(rng, n, v, dynamic):
    """Per-row cross-entropy from primitives, bf16 logits, f32 compute:
    logsumexp(x) - x[target], the target picked with gather beside the
    row reduction."""
    x = from_f64(rng.standard_normal((n, v)) * 3, "bf16")
    target = _indices(rng, v, (n, 1), "i64")
    xd = (None, None) if dynamic else (n, v)
    rd = (None, 1) if dynamic else (n, 1)
    pb = PartBuilder("cross-entropy %dx%d%s" % (n, v, ", dynamic" if dynamic else ""))
    tx = pb.arg("x", x, "bf16", xd)
    tt = pb.arg("t", target, "i64", rd)
    tf = mlir_type(xd, "f32")
    tr = mlir_type(rd, "f32")
    tb = mlir_type(rd, "bf16")
    _row_exp_lines(pb, tx, tf, tr)
    pb.line("%%l = fuser.log %%s : %s" % tr)
    pb.line("%%lse = fuser.add %%l, %%mx : %s" % tr)
    pb.line("%%p = fuser.gather %%x, %%t dim = 1 : %s, %s -> %s" % (tx, tt, tb))
    pb.line("%%pf = fuser.cast %%p : %s to %s" % (tb, tr))
    pb.line("%%0 = fuser.sub %%lse, %%pf : %s" % tr)
    x64 = to_f64(x, "bf16")
    lse = torch.logsumexp(torch.from_numpy(x64), dim=1, keepdim=True).numpy()
    want = lse - np.take_along_axis(x64, target.astype(np.int64), axis=1)
    # the sum of exp: v terms, each within a few u; log and the subtraction
    bound = (8 + 2 * math.log2(v)) * 2.0 ** -24 * (np.abs(lse) + 1) + 2.0 ** -20
    pb.result("0", (n, 1), "f32", from_f64(want, "f32"), Ulps(4, bound), dims=rd)
    return pb.part()


def _computed_index_part(rng):
    """index_select by ids computed in the fusion (ids + 1), the table an
    argument: the index is emitted in the same kernel."""
    table = from_f64(rng.standard_normal((9, 16)), "f32")
    ids = _indices(rng, 8, (5,), "i64")
    pb = PartBuilder("index_select by ids + 1")
    tt = pb.arg("table", table, "f32")
    ti = pb.arg("ids", ids, "i64")
    pb.line("%%one = fuser.constant 1 : %s" % mlir_type((), "i64"))
    pb.line("%%ob = fuser.broadcast %%one dims = [] : %s -> %s" % (mlir_type((), "i64"), ti))
    pb.line("%%j = fuser.add %%ids, %%ob : %s" % ti)
    pb.line("%%0 = fuser.index_select %%table, %%j dim = 0 : %s, %s -> %s" % (
        tt, ti, mlir_type((5, 16), "f32")))
    pb.result("0", (5, 16), "f32", table[ids + 1], EXACT)
    return pb.part()


def _gather_of_computed_part(rng):
    """gather of a value the fusion computes (exp of the input): the table
    is written by a kernel of its own, then gathered."""
    x = from_f64(rng.standard_normal((6, 20)), "f32")
    idx = _indices(rng, 20, (6, 4), "i64")
    pb = PartBuilder("gather of exp(x)")
    tx = pb.arg("x", x, "f32")
    ti = pb.arg("i", idx, "i64")
    pb.line("%%e = fuser.exp %%x : %s" % tx)
    pb.line("%%0 = fuser.gather %%e, %%i dim = 1 : %s, %s -> %s" % (
        tx, ti, mlir_type((6, 4), "f32")))
    want = np.exp(np.take_along_axis(x.astype(np.float64), idx, axis=1))
    pb.result("0", (6, 4), "f32", from_f64(want, "f32"), Ulps(2))
    return pb.part()


def _rope_part(rng, b, seq, heads, d, rot, maxpos, kv_heads=None):
    """RoPE as Llama / Hugging Face write it on q [B, S, H, D] (bf16), cos
    and sin rows picked by position ids, rotate_half by slices, neg and
    concat, f32 compute, then permuted to [B, H, S, D]; with rot < d the
    GPT-NeoX partial form (only the first rot channels rotate). With
    kv_heads, on k [B, S, kv_heads, D] too, as grouped-query attention has
    it (fewer key heads than query heads: a second result of another
    shape)."""
    q = from_f64(rng.standard_normal((b, seq, heads, d)), "bf16")
    ang = rng.standard_normal((maxpos, rot)) * 3
    cos = from_f64(np.cos(ang), "bf16")
    sin = from_f64(np.sin(ang), "bf16")
    pos = _indices(rng, maxpos, (seq,), "i64")
    k = from_f64(rng.standard_normal((b, seq, kv_heads, d)), "bf16") if kv_heads else None
    h = rot // 2
    pb = PartBuilder("rope %dx%dx%dx%d rot %d%s" % (
        b, seq, heads, d, rot, " with k of %d heads" % kv_heads if kv_heads else ""))
    tq = pb.arg("q", q, "bf16")
    tc = pb.arg("cos", cos, "bf16")
    ts = pb.arg("sin", sin, "bf16")
    tp = pb.arg("pos", pos, "i64")
    T = lambda shape, t="bf16": mlir_type(shape, t)
    pb.line("%%c = fuser.index_select %%cos, %%pos dim = 0 : %s, %s -> %s" % (tc, tp, T((seq, rot))))
    pb.line("%%s = fuser.index_select %%sin, %%pos dim = 0 : %s, %s -> %s" % (ts, tp, T((seq, rot))))

    def rope(x, n, p, result):
        """The lines of RoPE on %x (n heads), names prefixed with p, as
        result `result`; its expected value."""
        tx = T((b, seq, n, d))
        full = (b, seq, n, rot)
        pb.line("%%%scb = fuser.broadcast %%c dims = [1, 3] : %s -> %s" % (p, T((seq, rot)), T(full)))
        pb.line("%%%ssb = fuser.broadcast %%s dims = [1, 3] : %s -> %s" % (p, T((seq, rot)), T(full)))
        src = "%" + x
        if rot < d:
            pb.line("%%%sr = fuser.slice %%%s start = [0, 0, 0, 0] limit = [%d, %d, %d, %d] "
                    "step = [1, 1, 1, 1] : %s -> %s" % (x, x, b, seq, n, rot, tx, T(full)))
            pb.line("%%%sp = fuser.slice %%%s start = [0, 0, 0, %d] limit = [%d, %d, %d, %d] "
                    "step = [1, 1, 1, 1] : %s -> %s" % (x, x, rot, b, seq, n, d, tx,
                                                         T((b, seq, n, d - rot))))
            src = "%%%sr" % x
        half = (b, seq, n, h)
        pb.line("%%%sx1 = fuser.slice %s start = [0, 0, 0, 0] limit = [%d, %d, %d, %d] "
                "step = [1, 1, 1, 1] : %s -> %s" % (p, src, b, seq, n, h, T(full), T(half)))
        pb.line("%%%sx2 = fuser.slice %s start = [0, 0, 0, %d] limit = [%d, %d, %d, %d] "
                "step = [1, 1, 1, 1] : %s -> %s" % (p, src, h, b, seq, n, rot, T(full), T(half)))
        pb.line("%%%sn2 = fuser.neg %%%sx2 : %s" % (p, p, T(half)))
        pb.line("%%%srot = fuser.concat %%%sn2, %%%sx1 dim = 3 : %s, %s -> %s" % (
            p, p, p, T(half), T(half), T(full)))
        for v in ("src", "rot", "cb", "sb"):
            name = src[1:] if v == "src" else p + v
            pb.line("%%%s%sf = fuser.cast %%%s : %s to %s" % (p, v, name, T(full), T(full, "f32")))
        pb.line("%%%sa = fuser.mul %%%ssrcf, %%%scbf : %s" % (p, p, p, T(full, "f32")))
        pb.line("%%%sbb = fuser.mul %%%srotf, %%%ssbf : %s" % (p, p, p, T(full, "f32")))
        pb.line("%%%so = fuser.add %%%sa, %%%sbb : %s" % (p, p, p, T(full, "f32")))
        pb.line("%%%sob = fuser.cast %%%so : %s to %s" % (p, p, T(full, "f32"), T(full)))
        out = "%%%sob" % p
        if rot < d:
            pb.line("%%%soc = fuser.concat %%%sob, %%%sp dim = 3 : %s, %s -> %s" % (
                p, p, x, T(full), T((b, seq, n, d - rot)), tx))
            out = "%%%soc" % p
        pb.line("%%%s = fuser.permute %s perm = [0, 2, 1, 3] : %s -> %s" % (
            result, out, tx, T((b, n, seq, d))))

    rope("q", heads, "", "0")
    if kv_heads:
        pb.arg("k", k, "bf16")
        rope("k", kv_heads, "k", "1")

    def want(x):
        x64 = to_f64(x, "bf16")
        c64 = to_f64(cos, "bf16")[pos][None, :, None, :]
        s64 = to_f64(sin, "bf16")[pos][None, :, None, :]
        xr = x64[..., :rot]
        rotated = np.concatenate([-xr[..., h:], xr[..., :h]], axis=-1)
        o = from_f64(xr * c64 + rotated * s64, "bf16")
        if rot < d:
            o = np.concatenate([o, x[..., rot:]], axis=-1)
        return np.ascontiguousarray(o.transpose(0, 2, 1, 3))

    # f32 products and one f32 sum, rounded once to bf16: within 1 ulp of
    # the rounded exact value
    pb.result("0", (b, heads, seq, d), "bf16", want(q), Ulps(1))
    if kv_heads:
        pb.result("1", (b, kv_heads, seq, d), "bf16", want(k), Ulps(1))
    return pb.part()


def _rope_gptj_part(rng, b, seq, heads, d, maxpos):
    """RoPE's interleaved (GPT-J) form: channel pairs (2i, 2i+1) rotate,
    rot = (-x[2i+1], x[2i]), written with a reshape to pairs, slices, neg,
    concat and a reshape back; cos and sin rows picked by position ids and
    repeated per pair. f32."""
    q = from_f64(rng.standard_normal((b, seq, heads, d)), "f32")
    ang = rng.standard_normal((maxpos, d // 2)) * 3
    cos = from_f64(np.repeat(np.cos(ang), 2, axis=1), "f32")
    sin = from_f64(np.repeat(np.sin(ang), 2, axis=1), "f32")
    pos = _indices(rng, maxpos, (seq,), "i32")
    T = lambda shape: mlir_type(shape, "f32")
    full, pairs, one = (b, seq, heads, d), (b, seq, heads, d // 2, 2), (b, seq, heads, d // 2, 1)
    pb = PartBuilder("rope gpt-j %dx%dx%dx%d" % full)
    tq = pb.arg("q", q, "f32")
    tc = pb.arg("cos", cos, "f32")
    ts = pb.arg("sin", sin, "f32")
    tp = pb.arg("pos", pos, "i32")
    pb.line("%%c = fuser.index_select %%cos, %%pos dim = 0 : %s, %s -> %s" % (tc, tp, T((seq, d))))
    pb.line("%%s = fuser.index_select %%sin, %%pos dim = 0 : %s, %s -> %s" % (ts, tp, T((seq, d))))
    pb.line("%%cb = fuser.broadcast %%c dims = [1, 3] : %s -> %s" % (T((seq, d)), T(full)))
    pb.line("%%sb = fuser.broadcast %%s dims = [1, 3] : %s -> %s" % (T((seq, d)), T(full)))
    pb.line("%%qp = fuser.reshape %%q : %s -> %s" % (tq, T(pairs)))
    pb.line("%%ev = fuser.slice %%qp start = [0, 0, 0, 0, 0] limit = [%d, %d, %d, %d, 1] "
            "step = [1, 1, 1, 1, 1] : %s -> %s" % (b, seq, heads, d // 2, T(pairs), T(one)))
    pb.line("%%od = fuser.slice %%qp start = [0, 0, 0, 0, 1] limit = [%d, %d, %d, %d, 2] "
            "step = [1, 1, 1, 1, 1] : %s -> %s" % (b, seq, heads, d // 2, T(pairs), T(one)))
    pb.line("%%no = fuser.neg %%od : %s" % T(one))
    pb.line("%%rp = fuser.concat %%no, %%ev dim = 4 : %s, %s -> %s" % (T(one), T(one), T(pairs)))
    pb.line("%%rot = fuser.reshape %%rp : %s -> %s" % (T(pairs), T(full)))
    pb.line("%%a = fuser.mul %%q, %%cb : %s" % T(full))
    pb.line("%%bb = fuser.mul %%rot, %%sb : %s" % T(full))
    pb.line("%%0 = fuser.add %%a, %%bb : %s" % T(full))
    q64 = q.astype(np.float64)
    rot = np.stack([-q64[..., 1::2], q64[..., 0::2]], axis=-1).reshape(full)
    want = q64 * cos.astype(np.float64)[pos][None, :, None, :] + \
        rot * sin.astype(np.float64)[pos][None, :, None, :]
    # two f32 products and their f32 sum
    bound = 3 * 2.0 ** -24 * (np.abs(q64) + np.abs(rot)) + 2.0 ** -40
    pb.result("0", full, "f32", from_f64(want, "f32"), Ulps(1, bound))
    return pb.part()


def _rope_backward_part(rng, b, seq, heads, d, maxpos):
    """RoPE's backward (Llama form) from the gradient dy of the [B, H, S, D]
    output: dq = dy*cos + rotate_half^T(dy*sin), rotate_half^T(g) =
    concat(g[..., h:], -g[..., :h]), permuted back to [B, S, H, D]; bf16 dy
    and dq, f32 compute. Checked against torch.autograd.grad of the
    forward."""
    dy = from_f64(rng.standard_normal((b, heads, seq, d)), "bf16")
    ang = rng.standard_normal((maxpos, d)) * 3
    cos = from_f64(np.cos(ang), "bf16")
    sin = from_f64(np.sin(ang), "bf16")
    pos = _indices(rng, maxpos, (seq,), "i64")
    h = d // 2
    T = lambda shape, t="bf16": mlir_type(shape, t)
    full, half = (b, seq, heads, d), (b, seq, heads, h)
    pb = PartBuilder("rope backward %dx%dx%dx%d" % full)
    tdy = pb.arg("dy", dy, "bf16")
    tc = pb.arg("cos", cos, "bf16")
    ts = pb.arg("sin", sin, "bf16")
    tp = pb.arg("pos", pos, "i64")
    pb.line("%%g = fuser.permute %%dy perm = [0, 2, 1, 3] : %s -> %s" % (tdy, T(full)))
    pb.line("%%gf = fuser.cast %%g : %s to %s" % (T(full), T(full, "f32")))
    pb.line("%%c = fuser.index_select %%cos, %%pos dim = 0 : %s, %s -> %s" % (tc, tp, T((seq, d))))
    pb.line("%%s = fuser.index_select %%sin, %%pos dim = 0 : %s, %s -> %s" % (ts, tp, T((seq, d))))
    pb.line("%%cb = fuser.broadcast %%c dims = [1, 3] : %s -> %s" % (T((seq, d)), T(full)))
    pb.line("%%sb = fuser.broadcast %%s dims = [1, 3] : %s -> %s" % (T((seq, d)), T(full)))
    pb.line("%%cf = fuser.cast %%cb : %s to %s" % (T(full), T(full, "f32")))
    pb.line("%%sf = fuser.cast %%sb : %s to %s" % (T(full), T(full, "f32")))
    pb.line("%%gc = fuser.mul %%gf, %%cf : %s" % T(full, "f32"))
    pb.line("%%gs = fuser.mul %%gf, %%sf : %s" % T(full, "f32"))
    pb.line("%%lo = fuser.slice %%gs start = [0, 0, 0, 0] limit = [%d, %d, %d, %d] step = [1, 1, 1, 1] "
            ": %s -> %s" % (b, seq, heads, h, T(full, "f32"), T(half, "f32")))
    pb.line("%%hi = fuser.slice %%gs start = [0, 0, 0, %d] limit = [%d, %d, %d, %d] step = [1, 1, 1, 1] "
            ": %s -> %s" % (h, b, seq, heads, d, T(full, "f32"), T(half, "f32")))
    pb.line("%%nlo = fuser.neg %%lo : %s" % T(half, "f32"))
    pb.line("%%rt = fuser.concat %%hi, %%nlo dim = 3 : %s, %s -> %s" % (
        T(half, "f32"), T(half, "f32"), T(full, "f32")))
    pb.line("%%dq = fuser.add %%gc, %%rt : %s" % T(full, "f32"))
    pb.line("%%0 = fuser.cast %%dq : %s to %s" % (T(full, "f32"), T(full)))
    q = torch.zeros(full, dtype=torch.float64, requires_grad=True)
    c = torch.from_numpy(to_f64(cos, "bf16")[pos])[None, :, None, :]
    sn = torch.from_numpy(to_f64(sin, "bf16")[pos])[None, :, None, :]
    rot = torch.cat([-q[..., h:], q[..., :h]], dim=-1)
    out = (q * c + rot * sn).permute(0, 2, 1, 3)
    (dq,) = torch.autograd.grad(out, q, torch.from_numpy(to_f64(dy, "bf16")))
    pb.result("0", full, "bf16", from_f64(dq.numpy(), "bf16"), Ulps(1))
    return pb.part()


def _softmax_minus_one_hot_lines(pb, xd, rd):
    """%q = softmax(x) - one_hot(t), from _row_exp_lines's %e and %s, the
    one-hot an iota compared with the target (a target of -100 is hot
    nowhere)."""
    tf, tr, ti = mlir_type(xd, "f32"), mlir_type(rd, "f32"), mlir_type(xd, "i64")
    pb.line("%%sb = fuser.broadcast %%s dims = [0, 1] : %s -> %s" % (tr, tf))
    pb.line("%%p = fuser.div %%e, %%sb : %s" % tf)
    pb.line("%%col = fuser.iota dim = 1 : %s" % ti)
    pb.line("%%tb = fuser.broadcast %%t dims = [0, 1] : %s -> %s" % (mlir_type(rd, "i64"), ti))
    pb.line("%%hot = fuser.eq %%col, %%tb : %s" % ti)
    pb.line("%%hotf = fuser.cast %%hot : %s to %s" % (mlir_type(xd, "i1"), tf))
    pb.line("%%q = fuser.sub %%p, %%hotf : %s" % tf)


def _cross_entropy_backward_part(rng, n, v, dynamic):
    """Cross-entropy's backward from primitives: (softmax(x) - one_hot(t))
    * g, the one-hot an iota compared with the target, bf16 logits and dx,
    f32 compute: one normalization kernel."""
    x = from_f64(rng.standard_normal((n, v)) * 3, "bf16")
    target = _indices(rng, v, (n, 1), "i64")
    g = from_f64(rng.standard_normal((n, 1)), "f32")
    xd = (None, None) if dynamic else (n, v)
    rd = (None, 1) if dynamic else (n, 1)
    pb = PartBuilder("cross-entropy backward %dx%d%s" % (n, v, ", dynamic" if dynamic else ""))
    tx = pb.arg("x", x, "bf16", xd)
    tt = pb.arg("t", target, "i64", rd)
    tg = pb.arg("g", g, "f32", rd)
    tf, tr = mlir_type(xd, "f32"), mlir_type(rd, "f32")
    _row_exp_lines(pb, tx, tf, tr)
    _softmax_minus_one_hot_lines(pb, xd, rd)
    pb.line("%%gb = fuser.broadcast %%g dims = [0, 1] : %s -> %s" % (tr, tf))
    pb.line("%%dx = fuser.mul %%q, %%gb : %s" % tf)
    pb.line("%%0 = fuser.cast %%dx : %s to %s" % (tf, tx))
    xt = torch.from_numpy(to_f64(x, "bf16")).requires_grad_(True)
    loss = torch.nn.functional.cross_entropy(xt, torch.from_numpy(target[:, 0]), reduction="none")
    (dx,) = torch.autograd.grad(loss, xt, torch.from_numpy(g[:, 0].astype(np.float64)))
    # softmax's sum of v exps within a few u, the division, one more
    # rounding to bf16
    bound = (8 + 2 * math.log2(v)) * 2.0 ** -24 * np.abs(g.astype(np.float64)) + 2.0 ** -30
    pb.result("0", (n, v), "bf16", from_f64(dx.numpy(), "bf16"), Ulps(1, bound), dims=xd)
    return pb.part()


def _ignored_targets(rng, v, n, all_ignored):
    """Targets in [0, v) with about a quarter of them (or all) -100,
    PyTorch's default ignore_index."""
    target = _indices(rng, v, (n, 1), "i64")
    if all_ignored:
        target[:] = -100
    else:
        target[rng.random((n, 1)) < 0.25] = -100
        target[0, 0] = -100
    return target


def _ignore_index_lines(pb, tt, rd):
    """%ign: the rows whose target is -100; %safe: their target replaced by
    0, so that the gather reads in range (PyTorch never reads them); %cnt:
    how many rows count, in f32."""
    ti1 = mlir_type(rd, "i1")
    pb.line("%%m100 = fuser.constant -100 : %s" % mlir_type((), "i64"))
    pb.line("%%m100b = fuser.broadcast %%m100 dims = [] : %s -> %s" % (mlir_type((), "i64"), tt))
    pb.line("%%ign = fuser.eq %%t, %%m100b : %s" % tt)
    pb.line("%%zi = fuser.constant 0 : %s" % mlir_type((), "i64"))
    pb.line("%%safe = fuser.where %%ign, %%zi, %%t : %s, %s, %s" % (ti1, mlir_type((), "i64"), tt))
    pb.line("%%keep = fuser.not %%ign : %s" % ti1)
    pb.line("%%keepf = fuser.cast %%keep : %s to %s" % (ti1, mlir_type(rd, "f32")))
    pb.line("%%cnt = fuser.sum %%keepf dims = [0, 1] : %s -> tensor<f32>" % mlir_type(rd, "f32"))


def _cross_entropy_mean_part(rng, n, v, dynamic, all_ignored=False):
    """torch.nn.functional.cross_entropy(x, t) as written: mean over the
    rows whose target is not ignore_index (-100), from primitives, bf16
    logits, f32 compute. All rows ignored: 0 / 0, NaN, as in PyTorch."""
    x = from_f64(rng.standard_normal((n, v)) * 3, "bf16")
    target = _ignored_targets(rng, v, n, all_ignored)
    xd = (None, None) if dynamic else (n, v)
    rd = (None, 1) if dynamic else (n, 1)
    pb = PartBuilder("cross-entropy mean, ignore_index %dx%d%s%s" % (
        n, v, ", dynamic" if dynamic else "", ", all ignored" if all_ignored else ""))
    tx = pb.arg("x", x, "bf16", xd)
    tt = pb.arg("t", target, "i64", rd)
    tf, tr, tb = mlir_type(xd, "f32"), mlir_type(rd, "f32"), mlir_type(rd, "bf16")
    _row_exp_lines(pb, tx, tf, tr)
    pb.line("%%l = fuser.log %%s : %s" % tr)
    pb.line("%%lse = fuser.add %%l, %%mx : %s" % tr)
    _ignore_index_lines(pb, tt, rd)
    pb.line("%%p = fuser.gather %%x, %%safe dim = 1 : %s, %s -> %s" % (tx, tt, tb))
    pb.line("%%pf = fuser.cast %%p : %s to %s" % (tb, tr))
    pb.line("%%row = fuser.sub %%lse, %%pf : %s" % tr)
    pb.line("%zf = fuser.constant 0.0 : tensor<f32>")
    pb.line("%%rl = fuser.where %%ign, %%zf, %%row : %s, tensor<f32>, %s" % (
        mlir_type(rd, "i1"), tr))
    pb.line("%%tot = fuser.sum %%rl dims = [0, 1] : %s -> tensor<f32>" % tr)
    pb.line("%0 = fuser.div %tot, %cnt : tensor<f32>")
    x64 = torch.from_numpy(to_f64(x, "bf16"))
    want = torch.nn.functional.cross_entropy(x64, torch.from_numpy(target[:, 0])).numpy()
    lse = torch.logsumexp(x64, dim=1).numpy()
    # each row within the per-row bound, the sum of n rows n more roundings
    row_bound = (8 + 2 * math.log2(v)) * 2.0 ** -24 * (np.abs(lse).max() + 1) + 2.0 ** -20
    bound = row_bound + (n + 2) * 2.0 ** -24 * np.abs(want)
    pb.result("0", (), "f32", from_f64(want, "f32"), Ulps(4, bound))
    return pb.part()


def _cross_entropy_mean_backward_part(rng, n, v, dynamic):
    """The backward of the mean with ignore_index: (softmax(x) -
    one_hot(t)) * g / count on the rows that count, 0 on the ignored ones."""
    x = from_f64(rng.standard_normal((n, v)) * 3, "bf16")
    target = _ignored_targets(rng, v, n, False)
    g = np.array(rng.standard_normal(), dtype=np.float32)
    xd = (None, None) if dynamic else (n, v)
    rd = (None, 1) if dynamic else (n, 1)
    pb = PartBuilder("cross-entropy mean backward, ignore_index %dx%d%s" % (
        n, v, ", dynamic" if dynamic else ""))
    tx = pb.arg("x", x, "bf16", xd)
    tt = pb.arg("t", target, "i64", rd)
    pb.arg("g", g, "f32")
    tf, tr = mlir_type(xd, "f32"), mlir_type(rd, "f32")
    _row_exp_lines(pb, tx, tf, tr)
    _ignore_index_lines(pb, tt, rd)
    _softmax_minus_one_hot_lines(pb, xd, rd)
    pb.line("%scale = fuser.div %g, %cnt : tensor<f32>")
    pb.line("%zf = fuser.constant 0.0 : tensor<f32>")
    pb.line("%%w = fuser.where %%keep, %%scale, %%zf : %s, tensor<f32>, tensor<f32>" % (
        mlir_type(rd, "i1")))
    pb.line("%%wb = fuser.broadcast %%w dims = [0, 1] : %s -> %s" % (tr, tf))
    pb.line("%%dx = fuser.mul %%q, %%wb : %s" % tf)
    pb.line("%%0 = fuser.cast %%dx : %s to %s" % (tf, tx))
    xt = torch.from_numpy(to_f64(x, "bf16")).requires_grad_(True)
    loss = torch.nn.functional.cross_entropy(xt, torch.from_numpy(target[:, 0]))
    (dx,) = torch.autograd.grad(loss, xt, torch.tensor(float(g), dtype=torch.float64))
    count = float((target != -100).sum())
    bound = (8 + 2 * math.log2(v)) * 2.0 ** -24 * abs(float(g)) / count + 2.0 ** -30
    pb.result("0", (n, v), "bf16", from_f64(dx.numpy(), "bf16"), Ulps(1, bound), dims=xd)
    return pb.part()


def _fusion_parts(name, rng_for):
    rng = rng_for(name)
    parts = []
    for t in ("bf16", "f32"):
        parts.append(_embedding_part(rng, t, 50, 64, 12, False))
        parts.append(_embedding_part(rng, t, 33, 40, 7, True))
    # the vocabularies of Llama-2 (32000), GPT-2 (50257) and Llama-3 (128256)
    for n, v, dyn in [(4, 100, False), (3, 1031, False), (5, 4097, True), (2, 32000, False),
                      (2, 50257, False), (2, 128256, True)]:
        parts.append(_cross_entropy_part(rng, n, v, dyn))
    for n, v, dyn in [(4, 100, False), (3, 4097, True), (2, 32000, False), (2, 50257, True),
                      (2, 128256, False)]:
        parts.append(_cross_entropy_backward_part(rng, n, v, dyn))
    for n, v, dyn in [(8, 100, False), (6, 4097, True), (4, 32000, False), (2, 128256, False)]:
        parts.append(_cross_entropy_mean_part(rng, n, v, dyn))
        parts.append(_cross_entropy_mean_backward_part(rng, n, v, dyn))
    parts.append(_cross_entropy_mean_part(rng, 3, 50, False, all_ignored=True))
    parts.append(_rope_part(rng, 2, 16, 4, 64, 64, 100))
    parts.append(_rope_part(rng, 1, 7, 3, 32, 16, 9))
    # grouped-query attention: q and k of 8 and 2 heads, one horizontal kernel
    parts.append(_rope_part(rng, 2, 16, 8, 64, 64, 100, kv_heads=2))
    parts.append(_rope_part(rng, 1, 7, 6, 32, 16, 9, kv_heads=3))
    parts.append(_rope_gptj_part(rng, 2, 16, 4, 64, 100))
    parts.append(_rope_backward_part(rng, 2, 16, 4, 64, 100))
    parts.append(_computed_index_part(rng))
    parts.append(_gather_of_computed_part(rng))
    return parts


def cases(rng_for):
    out = []
    for t in ALL_TYPES:
        for it in INDEX_TYPES:
            if it == "i32" and t not in ("i1", "bf16", "f32", "f64"):
                continue  # the index type's own paths are covered by these
            for what, fn in [("gather", _gather_parts), ("index_select", _index_select_parts)]:
                name = "indexing/%s/%s/%s" % (what, t, it)
                out.append(Case(name, _bind(fn, t, it, name, rng_for)))
    out.append(Case("indexing/fusions", _bind(_fusion_parts, "indexing/fusions", rng_for)))
    return out
