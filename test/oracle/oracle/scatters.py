"""Scatters: fuser.scatter_add (torch.scatter_add) and fuser.index_add
(torch.index_add) for every numeric element type and both index types, over
ranks 1 to 3, every dim, repeated indices (many contributions to one
element), indices at 0 and at the last position, empty index tensors,
zero-size dims, an index smaller than self and the source in the other
dims, dynamic sizes, and self computed in the same kernel; then the
fusions they appear in: gather's backward (cross-entropy's gradient of
the picked logit, a scatter of -g into zeros plus softmax * g) and an
embedding's backward (index_add of the output gradient into a zero table).

References: PyTorch's CPU scatter_add and index_add on the same values,
bit for bit: fuser adds each element's contributions in PyTorch's CPU order
(increasing position in the index) and rounds after each addition in the
element type, as it does (docs/schedulers.md, "Scatters")."""

import numpy as np
import torch

from . import values
from .core import Case, Exact, PartBuilder, Ulps, from_f64, from_torch, mlir_type, to_torch

from .indexing import _NP_INDEX, INDEX_TYPES, _bind

EXACT = Exact()
SCATTER_TYPES = ("f16", "bf16", "f32", "f64", "i8", "i32", "i64")


def _data(t, shape, rng):
    """Floats with their specials (NaN, infinities, zeros of both signs);
    integers over their whole range (sums wrap, as in PyTorch)."""
    if int(np.prod(shape)) == 0 or t in ("i8", "i32", "i64"):
        return values.random(t, shape, rng)
    return values.with_specials(t, shape, rng)


def _indices(rng, size, shape, it):
    """Indices in [0, size): the edges 0 and size - 1, and (small sizes)
    many repeats."""
    n = int(np.prod(shape))
    if n == 0 or size == 0:
        return np.zeros(shape, _NP_INDEX[it])
    idx = rng.integers(0, min(size, 3) if rng.random() < 0.3 else size, n)
    idx[0] = size - 1
    if n > 1:
        idx[1] = 0
    return idx.reshape(shape).astype(_NP_INDEX[it])


def _scatter_ref(x, dim, idx, src, t):
    return from_torch(torch.scatter_add(to_torch(x, t), dim, torch.from_numpy(idx.astype(np.int64)),
                                        to_torch(src, t)), t)


def _index_add_ref(x, dim, idx, src, t):
    return from_torch(torch.index_add(to_torch(x, t), dim, torch.from_numpy(idx.astype(np.int64)),
                                      to_torch(src, t)), t)


# (self shape, dim, index shape, source shape)
SCATTERS = [((10,), 0, (4,), (4,)), ((10,), 0, (0,), (3,)), ((10,), 0, (25,), (25,)),
            ((4, 10), 1, (4, 3), (4, 5)), ((4, 10), 0, (7, 10), (7, 10)),
            ((5, 6), 1, (3, 9), (3, 9)), ((3, 4, 5), 2, (3, 4, 2), (3, 4, 2)),
            ((3, 4, 5), 1, (2, 6, 5), (3, 6, 5)), ((3, 4, 5), 0, (1, 1, 1), (2, 2, 2)),
            ((4, 0), 0, (2, 0), (2, 0)), ((0, 3), 1, (0, 2), (0, 2)), ((2, 1031), 1, (2, 1031), (2, 1031)),
            ((64, 33), 0, (300, 33), (300, 33))]

# (self shape, dim, index length)
INDEX_ADDS = [((10,), 0, 4), ((10,), 0, 0), ((10,), 0, 40), ((7, 5), 0, 3), ((7, 5), 1, 8),
              ((3, 4, 5), 1, 6), ((3, 4, 5), 2, 1), ((0, 3), 1, 2), ((100, 64), 0, 16),
              ((5, 2, 130), 0, 9),
              # longer indices take the tiled kernel (IndexAddScheduler.cpp):
              # many row tiles, two column tiles, narrow inner extents with
              # idle threads, an index_add along the last dim, and an index
              # of several chunks of 1024 positions
              ((1000, 70), 0, 300), ((600, 300), 0, 100), ((4, 300, 6), 1, 500),
              ((3, 5000), 1, 700), ((20000,), 0, 100), ((50, 40), 0, 2500)]


def _scatter_parts(t, it, name, rng_for):
    rng = rng_for(name)
    parts = []
    for xshape, dim, jshape, sshape in SCATTERS:
        x = _data(t, xshape, rng)
        src = _data(t, sshape, rng)
        idx = _indices(rng, xshape[dim], jshape, it)
        pb = PartBuilder("scatter_add %s dim %d by %s from %s" % (xshape, dim, jshape, sshape))
        tx = pb.arg("x", x, t)
        ti = pb.arg("i", idx, it)
        ts = pb.arg("s", src, t)
        pb.line("%%0 = fuser.scatter_add %%x, %%i, %%s dim = %d : %s, %s, %s" % (dim, tx, ti, ts))
        pb.result("0", xshape, t, _scatter_ref(x, dim, idx, src, t), EXACT)
        parts.append(pb.part())
    # dynamic sizes: self, the index and the source known only at launch
    for xshape, dim, jshape, sshape in [((6, 9), 1, (6, 4), (6, 5)), ((6, 9), 0, (3, 9), (4, 9))]:
        x = _data(t, xshape, rng)
        src = _data(t, sshape, rng)
        idx = _indices(rng, xshape[dim], jshape, it)
        dyn = (None, None)
        pb = PartBuilder("scatter_add ?x? as %s dim %d by %s from %s" % (xshape, dim, jshape, sshape))
        tx = pb.arg("x", x, t, dyn)
        ti = pb.arg("i", idx, it, dyn)
        ts = pb.arg("s", src, t, dyn)
        pb.line("%%0 = fuser.scatter_add %%x, %%i, %%s dim = %d : %s, %s, %s" % (dim, tx, ti, ts))
        pb.result("0", xshape, t, _scatter_ref(x, dim, idx, src, t), EXACT, dims=dyn)
        parts.append(pb.part())
    return parts


def _index_add_parts(t, it, name, rng_for):
    rng = rng_for(name)
    parts = []
    for xshape, dim, k in INDEX_ADDS:
        x = _data(t, xshape, rng)
        sshape = tuple(k if d == dim else n for d, n in enumerate(xshape))
        src = _data(t, sshape, rng)
        idx = _indices(rng, xshape[dim], (k,), it)
        pb = PartBuilder("index_add %s dim %d by %d" % (xshape, dim, k))
        tx = pb.arg("x", x, t)
        ti = pb.arg("i", idx, it)
        ts = pb.arg("s", src, t)
        pb.line("%%0 = fuser.index_add %%x, %%i, %%s dim = %d : %s, %s, %s" % (dim, tx, ti, ts))
        pb.result("0", xshape, t, _index_add_ref(x, dim, idx, src, t), EXACT)
        parts.append(pb.part())
    # dynamic sizes
    xshape, dim, k = (9, 70), 0, 13
    x = _data(t, xshape, rng)
    src = _data(t, (k, 70), rng)
    idx = _indices(rng, 9, (k,), it)
    pb = PartBuilder("index_add ?x? as %s dim 0 by ? as %d" % (xshape, k))
    tx = pb.arg("x", x, t, (None, None))
    ti = pb.arg("i", idx, it, (None,))
    ts = pb.arg("s", src, t, (None, None))
    pb.line("%%0 = fuser.index_add %%x, %%i, %%s dim = 0 : %s, %s, %s" % (tx, ti, ts))
    pb.result("0", xshape, t, _index_add_ref(x, dim, idx, src, t), EXACT, dims=(None, None))
    parts.append(pb.part())
    return parts


def _gather_backward_part(rng, n, v):
    """Cross-entropy's gradient as autograd builds it: the picked logit's
    gradient -g scattered into zeros at the target (gather's backward),
    plus softmax(x) * g: f32 logits, the scatter in the softmax's kernel."""
    x = rng.standard_normal((n, v)).astype(np.float32)
    target = rng.integers(0, v, (n, 1)).astype(np.int64)
    g = rng.standard_normal((n, 1)).astype(np.float32)
    pb = PartBuilder("gather backward into softmax * g, %dx%d" % (n, v))
    tx = pb.arg("x", x, "f32")
    tt = pb.arg("t", target, "i64")
    tg = pb.arg("g", g, "f32")
    tf, tr = mlir_type((n, v), "f32"), mlir_type((n, 1), "f32")
    pb.line("%%mx = fuser.max %%x dims = [1] keepdim = true : %s -> %s" % (tf, tr))
    pb.line("%%mb = fuser.broadcast %%mx dims = [0, 1] : %s -> %s" % (tr, tf))
    pb.line("%%d = fuser.sub %%x, %%mb : %s" % tf)
    pb.line("%%e = fuser.exp %%d : %s" % tf)
    pb.line("%%s = fuser.sum %%e dims = [1] keepdim = true : %s -> %s" % (tf, tr))
    pb.line("%%sb = fuser.broadcast %%s dims = [0, 1] : %s -> %s" % (tr, tf))
    pb.line("%%p = fuser.div %%e, %%sb : %s" % tf)
    pb.line("%%gb = fuser.broadcast %%g dims = [0, 1] : %s -> %s" % (tr, tf))
    pb.line("%%pg = fuser.mul %%p, %%gb : %s" % tf)
    pb.line("%%ng = fuser.neg %%g : %s" % tr)
    pb.line("%%0 = fuser.scatter_add %%pg, %%t, %%ng dim = 1 : %s, %s, %s" % (
        tf, mlir_type((n, 1), "i64"), tr))
    xt = torch.from_numpy(x.astype(np.float64)).requires_grad_(True)
    loss = torch.nn.functional.cross_entropy(xt, torch.from_numpy(target[:, 0]), reduction="none")
    (dx,) = torch.autograd.grad(loss, xt, torch.from_numpy(g[:, 0].astype(np.float64)))
    bound = 40 * 2.0 ** -24 * np.abs(g.astype(np.float64)) + 2.0 ** -40
    pb.result("0", (n, v), "f32", from_f64(dx.numpy(), "f32"), Ulps(2, bound))
    return pb.part()


def _embedding_backward_part(rng, t, vocab, hidden, tokens):
    """An embedding's weight gradient: the output gradient's rows added
    into a zero table at the token ids (repeats add up), bf16 or f32."""
    ids = rng.integers(0, vocab, tokens).astype(np.int64)
    ids[: tokens // 4] = 1  # a frequent token
    dy = from_f64(rng.standard_normal((tokens, hidden)), t)
    pb = PartBuilder("embedding backward %s %dx%d by %d ids" % (t, vocab, hidden, tokens))
    ti = pb.arg("ids", ids, "i64")
    td = pb.arg("dy", dy, t)
    tw = mlir_type((vocab, hidden), t)
    pb.line("%%z = fuser.constant 0.0 : %s" % mlir_type((), t))
    pb.line("%%zb = fuser.broadcast %%z dims = [] : %s -> %s" % (mlir_type((), t), tw))
    pb.line("%%0 = fuser.index_add %%zb, %%ids, %%dy dim = 0 : %s, %s, %s" % (tw, ti, td))
    want = torch.index_add(torch.zeros((vocab, hidden), dtype=to_torch(dy, t).dtype), 0,
                           torch.from_numpy(ids), to_torch(dy, t))
    pb.result("0", (vocab, hidden), t, from_torch(want, t), EXACT)
    return pb.part()


def _fusion_parts(name, rng_for):
    rng = rng_for(name)
    parts = [_gather_backward_part(rng, 4, 100), _gather_backward_part(rng, 3, 4097)]
    for t in ("bf16", "f32"):
        parts.append(_embedding_backward_part(rng, t, 50, 64, 40))
    return parts


def cases(rng_for):
    out = []
    for t in SCATTER_TYPES:
        for it in INDEX_TYPES:
            if it == "i32" and t not in ("bf16", "f32", "i64"):
                continue  # the index type's own paths are covered by these
            for what, fn in [("scatter_add", _scatter_parts), ("index_add", _index_add_parts)]:
                name = "scatters/%s/%s/%s" % (what, t, it)
                out.append(Case(name, _bind(fn, t, it, name, rng_for)))
    out.append(Case("scatters/fusions", _bind(_fusion_parts, "scatters/fusions", rng_for)))
    return out
