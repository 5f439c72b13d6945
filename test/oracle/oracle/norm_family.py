"""batch_norm, instance_norm and group_norm, forward (training: batch
statistics) and backward, written from primitives as a tracer emits them,
channels-first (N, C, H, W) and channels-last (N, H, W, C): reductions over
several dims that are not the contiguous ones (batch_norm channels-first
reduces dims 0, 2 and 3), over the middle dims (instance_norm channels-last),
and through reshapes (group_norm's groups).

Forward: y = (x - mean) * rstd * w + b over each normalized set, with the
biased variance; outputs y, mean and rstd (f32, as PyTorch saves them).
Backward: inputs x, dy, the saved f32 mean and rstd, and w; outputs dx, dw
and db, with

    xhat = (x - mean) rstd,  wdy = dy w
    dx = rstd (wdy - mean(wdy) - xhat mean(wdy xhat))   (over each set)
    dw = sum(dy xhat),  db = sum(dy)                     (over all but C)

References: torch.nn.functional's own batch_norm / instance_norm /
group_norm and torch.autograd.grad in float64 on the same inputs (the
backward's formula with the stored f32 statistics is checked against
autograd first, as training.py does). Bounds: the roundings of f32
computation, per output below, plus 1 ulp of the output type."""

import math

import numpy as np
import torch
import torch.nn.functional as F

from .core import Case, PartBuilder, Ulps, from_f64, mlir_type, to_f64

U = 2.0 ** -24
EPS = 1e-5


def _bind(fn, *a):
    return lambda: fn(*a)


def _growth(n):
    return 16 + 2 * math.log2(max(n, 2)) + math.sqrt(n) / 8


class _Layout:
    """Where each norm's sets lie in x for one layout. `x` is the shape of
    the input as the fusion sees it; `z` the shape the statistics are taken
    over (x itself, or a reshape for group_norm's groups); `reduce` the dims
    of z reduced; `cdim` the channel dim of x; `nchw` permutes an x-shaped
    torch tensor to N, C, H, W (and `back` undoes it)."""

    def __init__(self, norm, last, n, c, h, w, groups):
        self.norm, self.last = norm, last
        hw = h * w
        if last:
            self.x = (n, h, w, c)
            self.cdim = 3
            self.nchw, self.back = (0, 3, 1, 2), (0, 2, 3, 1)
        else:
            self.x = (n, c, h, w)
            self.cdim = 1
            self.nchw = self.back = (0, 1, 2, 3)
        if norm == "batch_norm":
            self.z, self.reduce = self.x, (0, 1, 2) if last else (0, 2, 3)
            self.stats = (c,)
        elif norm == "instance_norm":
            self.z, self.reduce = self.x, (1, 2) if last else (2, 3)
            self.stats = (n, c)
        else:
            g = groups
            if last:
                # (n, hw, g, c/g): each group's channels are adjacent in c
                self.z, self.reduce = (n, hw, g, c // g), (1, 3)
            else:
                self.z, self.reduce = (n, g, (c // g) * hw), (2,)
            self.stats = (n, g)
        self.zstats = tuple(1 if d in self.reduce else s for d, s in enumerate(self.z))
        self.count = int(np.prod([self.z[d] for d in self.reduce]))


def _dyn_of(shape, dynamic):
    """The fusion's view of `shape`: every dim `?` when dynamic, but the
    statistics' dims of size 1."""
    if not dynamic:
        return None
    return tuple(1 if s == 1 else None for s in shape)


def _torch_norm(lay, x, w, b, c, groups):
    """The forward in float64 on an x-shaped tensor, through PyTorch."""
    xn = x.permute(*lay.nchw)
    if lay.norm == "batch_norm":
        y = F.batch_norm(xn, None, None, w, b, training=True, eps=EPS)
    elif lay.norm == "instance_norm":
        # instance_norm as PyTorch defines it, batch_norm over the (n, c)
        # sets as channels of one sample: this PyTorch's (1.13)
        # F.instance_norm backward is wrong for a batch of one whose
        # gradient arrives channels-last (dx off by O(1) against autograd of
        # the explicit formula), while its batch_norm is right.
        n, c = xn.shape[0], xn.shape[1]
        y = F.batch_norm(xn.reshape(1, n * c, *xn.shape[2:]), None, None,
                         None if w is None else w.repeat(n),
                         None if b is None else b.repeat(n),
                         training=True, eps=EPS).reshape(xn.shape)
    else:
        y = F.group_norm(xn, groups, w, b, EPS)
    return y.permute(*lay.back)


class _Text:
    """Types of the fusion's values, dynamic or not."""

    def __init__(self, lay, dynamic, t):
        self.lay, self.t = lay, t
        if lay.norm == "group_norm":
            # only the batch dim dynamic: the reshape back from the groups
            # could not infer dynamic spatial dims (docs/dialect.md)
            batch = lambda shape: (None,) + tuple(shape[1:]) if dynamic else None
            self.dx, self.dz, self.dzs = batch(lay.x), batch(lay.z), batch(lay.zstats)
            self.dstats, self.dc = batch(lay.stats), None
        else:
            self.dx, self.dz = _dyn_of(lay.x, dynamic), _dyn_of(lay.z, dynamic)
            self.dzs = _dyn_of(lay.zstats, dynamic)
            self.dstats = _dyn_of(lay.stats, dynamic)
            self.dc = _dyn_of((lay.x[lay.cdim],), dynamic)

    def x(self, t=None):
        return mlir_type(self.dx or self.lay.x, t or self.t)

    def z(self):
        return mlir_type(self.dz or self.lay.z, "f32")

    def zs(self):
        return mlir_type(self.dzs or self.lay.zstats, "f32")

    def stats(self):
        return mlir_type(self.dstats or self.lay.stats, "f32")

    def c(self, t=None):
        return mlir_type(self.dc or (self.lay.x[self.lay.cdim],), t or self.t)


def _to_z(L, lay, ty, src, dst):
    """`dst` = `src` (f32, x-shaped) in the shape the statistics are over."""
    if lay.z == lay.x:
        L("%%%s = fuser.cast %%%s : %s to %s" % (dst, src, ty.x("f32"), ty.z()))
    else:
        L("%%%s = fuser.reshape %%%s : %s -> %s" % (dst, src, ty.x("f32"), ty.z()))


def _from_z(L, lay, ty, src, dst):
    if lay.z == lay.x:
        L("%%%s = fuser.cast %%%s : %s to %s" % (dst, src, ty.z(), ty.x("f32")))
    else:
        L("%%%s = fuser.reshape %%%s : %s -> %s" % (dst, src, ty.z(), ty.x("f32")))


def _stats_in(L, lay, ty, src, dst):
    """A saved statistic (the stats shape) as the keepdim shape over z."""
    L("%%%s = fuser.reshape %%%s : %s -> %s" % (dst, src, ty.stats(), ty.zs()))


def _to_x_channel(L, lay, ty, src, dst):
    """A per-channel f32 vector broadcast along x."""
    L("%%%s = fuser.broadcast %%%s dims = [%d] : %s -> %s"
      % (dst, src, lay.cdim, ty.c("f32"), ty.x("f32")))


def _rank_dims(r):
    return ", ".join(str(d) for d in range(r))


def _stats_ref(lay, x64):
    """mean and rstd over each set, float64, in the z shape with keepdim."""
    z = x64.reshape(lay.z)
    var, mean = torch.var_mean(z, lay.reduce, unbiased=False, keepdim=True)
    return mean, torch.rsqrt(var + EPS), var


def _with_nan(a, t):
    """`a` with a NaN at its first element: the set (and, for the column
    sums, the channel) it belongs to turns NaN, no other."""
    f = to_f64(a, t).copy()
    f.flat[0] = np.nan
    return from_f64(f, t)


def _with_infs(a, t):
    """`a` with +inf at its first element and -inf at its last: the sets
    holding them turn NaN (their variance is NaN), no other."""
    f = to_f64(a, t).copy()
    f.flat[0] = np.inf
    f.flat[-1] = -np.inf
    return from_f64(f, t)


def _forward_part(rng, norm, last, shape, groups, t, dynamic, nan=False, inf=False,
                  keepdim=True):
    """keepdim=False: the statistics as nvFuser's own batch_norm and
    group_norm write them, reduced to the stats shape, rsqrt(var + eps) taken
    there and broadcast back along the kept dims."""
    n, c, h, w = shape
    lay = _Layout(norm, last, n, c, h, w, groups)
    ty = _Text(lay, dynamic, t)
    x = from_f64(rng.standard_normal(lay.x) * 2.0 + 0.5, t)
    if nan:
        x = _with_nan(x, t)
    if inf:
        x = _with_infs(x, t)
    wt = from_f64(rng.standard_normal((c,)), t)
    bt = from_f64(rng.standard_normal((c,)), t)
    pb = PartBuilder("%s forward %s %s %s%s%s" % (norm, "NHWC" if last else "NCHW",
                                                 "x".join(map(str, lay.x)), t,
                                                 (" dynamic" if dynamic else "") +
                                                 ("" if keepdim else " keepdim=false"),
                                                 ", a NaN in x" if nan else
                                                 ", +inf and -inf in x" if inf else ""))
    pb.arg("x", x, t, ty.dx)
    pb.arg("w", wt, t, ty.dc)
    pb.arg("b", bt, t, ty.dc)
    L = pb.line
    rz = len(lay.z)
    L("%%xf = fuser.cast %%x : %s to %s" % (ty.x(), ty.x("f32")))
    _to_z(L, lay, ty, "xf", "z")
    ts = ty.zs() if keepdim else ty.stats()
    bdims = (_rank_dims(rz) if keepdim else
             ", ".join(str(d) for d in range(rz) if d not in lay.reduce))
    L("%%var, %%mean = fuser.var_mean %%z dims = [%s] correction = 0 keepdim = %s : %s -> %s, %s"
      % (", ".join(map(str, lay.reduce)), "true" if keepdim else "false", ty.z(), ts, ts))
    L("%eps = fuser.constant 1.0e-5 : tensor<f32>")
    L("%%ve = fuser.add %%var, %%eps : %s, tensor<f32>" % ts)
    L("%%rstd = fuser.rsqrt %%ve : %s" % ts)
    L("%%mb = fuser.broadcast %%mean dims = [%s] : %s -> %s" % (bdims, ts, ty.z()))
    L("%%rb = fuser.broadcast %%rstd dims = [%s] : %s -> %s" % (bdims, ts, ty.z()))
    L("%%zc = fuser.sub %%z, %%mb : %s" % ty.z())
    L("%%zh = fuser.mul %%zc, %%rb : %s" % ty.z())
    _from_z(L, lay, ty, "zh", "xh")
    L("%%wf = fuser.cast %%w : %s to %s" % (ty.c(), ty.c("f32")))
    L("%%bf = fuser.cast %%b : %s to %s" % (ty.c(), ty.c("f32")))
    _to_x_channel(L, lay, ty, "wf", "wb")
    _to_x_channel(L, lay, ty, "bf", "bb")
    L("%%y0 = fuser.mul %%xh, %%wb : %s" % ty.x("f32"))
    L("%%y1 = fuser.add %%y0, %%bb : %s" % ty.x("f32"))
    L("%%0 = fuser.cast %%y1 : %s to %s" % (ty.x("f32"), ty.x()))
    if not inf:
        L("%%1 = fuser.reshape %%mean : %s -> %s" % (ts, ty.stats()))
    L("%%2 = fuser.reshape %%rstd : %s -> %s" % (ts, ty.stats()))

    x64, w64, b64 = (torch.from_numpy(to_f64(a, t)) for a in (x, wt, bt))
    y = _torch_norm(lay, x64, w64, b64, c, groups)
    mean, rstd, var = _stats_ref(lay, x64)
    xc = (x64.reshape(lay.z) - mean)
    # the same y from the formula (PyTorch's kernels are the reference; the
    # formula gives the bound's terms)
    wx = w64.reshape([c if d == lay.cdim else 1 for d in range(4)])
    bx = b64.reshape([c if d == lay.cdim else 1 for d in range(4)])
    assert torch.allclose((xc * rstd).reshape(lay.x) * wx + bx, y, atol=1e-9, equal_nan=True)
    g = _growth(lay.count)
    absmean = x64.reshape(lay.z).abs().mean(lay.reduce, keepdim=True)
    # Welford's mean and variance: g u relative to the set's magnitudes
    # (mean of |x|, and of (x - mean)^2 for the variance, which moves rstd
    # by half as much), rsqrt 2 ulp, then 4 roundings for y
    err_z = U * rstd * (g * absmean + (g + 8) * xc.abs())
    atol_y = (err_z.reshape(lay.x) * wx.abs() + 2 * U * bx.abs())
    pb.result("0", lay.x, t, from_f64(y.numpy(), t), Ulps(1, atol_y.numpy()), dims=ty.dx)
    st = lambda a: a.reshape(lay.stats)
    if not inf:
        # (the mean of a set holding an infinity is inf or NaN by where the
        # infinity falls in the order of accumulation: PyTorch's CPU kernel
        # gives inf, a Welford accumulation NaN once a finite value follows
        # it, as PyTorch's CUDA kernel does; not compared)
        pb.result("1", lay.stats, "f32", from_f64(st(mean).numpy(), "f32"),
                  Ulps(1, st(U * g * absmean).numpy()), dims=ty.dstats)
    pb.result("2", lay.stats, "f32", from_f64(st(rstd).numpy(), "f32"),
              Ulps(1, st(U * (g + 4) * rstd).numpy()), dims=ty.dstats)
    return pb.part()


def _backward_part(rng, norm, last, shape, groups, t, dynamic, nan=False):
    n, c, h, w = shape
    lay = _Layout(norm, last, n, c, h, w, groups)
    ty = _Text(lay, dynamic, t)
    x = from_f64(rng.standard_normal(lay.x) * 2.0 + 0.5, t)
    dy = from_f64(rng.standard_normal(lay.x), t)
    if nan:
        dy = _with_nan(dy, t)
    wt = from_f64(rng.standard_normal((c,)), t)
    x64, dy64, w64 = (torch.from_numpy(to_f64(a, t)) for a in (x, dy, wt))
    mean64, rstd64, _ = _stats_ref(lay, x64)
    # the forward's saved statistics, as fuser's forward stores them (f32)
    mean_s = from_f64(mean64.reshape(lay.stats).numpy(), "f32")
    rstd_s = from_f64(rstd64.reshape(lay.stats).numpy(), "f32")
    mean_f = torch.from_numpy(mean_s.astype(np.float64)).reshape(lay.zstats)
    rstd_f = torch.from_numpy(rstd_s.astype(np.float64)).reshape(lay.zstats)

    pb = PartBuilder("%s backward %s %s %s%s%s" % (norm, "NHWC" if last else "NCHW",
                                                  "x".join(map(str, lay.x)), t,
                                                  " dynamic" if dynamic else "",
                                                  ", a NaN in dy" if nan else ""))
    pb.arg("x", x, t, ty.dx)
    pb.arg("dy", dy, t, ty.dx)
    pb.arg("mean", mean_s, "f32", ty.dstats)
    pb.arg("rstd", rstd_s, "f32", ty.dstats)
    pb.arg("w", wt, t, ty.dc)
    L = pb.line
    rz = len(lay.z)
    tx, tz = ty.x("f32"), ty.z()
    red = ", ".join(map(str, lay.reduce))
    L("%%xf = fuser.cast %%x : %s to %s" % (ty.x(), tx))
    L("%%dyf = fuser.cast %%dy : %s to %s" % (ty.x(), tx))
    L("%%wf = fuser.cast %%w : %s to %s" % (ty.c(), ty.c("f32")))
    _to_x_channel(L, lay, ty, "wf", "wb")
    L("%%wdyx = fuser.mul %%dyf, %%wb : %s" % tx)
    _to_z(L, lay, ty, "xf", "z")
    _to_z(L, lay, ty, "wdyx", "wdy")
    _stats_in(L, lay, ty, "mean", "m")
    _stats_in(L, lay, ty, "rstd", "r")
    L("%%mb = fuser.broadcast %%m dims = [%s] : %s -> %s" % (_rank_dims(rz), ty.zs(), tz))
    L("%%rb = fuser.broadcast %%r dims = [%s] : %s -> %s" % (_rank_dims(rz), ty.zs(), tz))
    L("%%zc = fuser.sub %%z, %%mb : %s" % tz)
    L("%%zh = fuser.mul %%zc, %%rb : %s" % tz)
    L("%%p = fuser.mul %%wdy, %%zh : %s" % tz)
    L("%%c1 = fuser.mean %%p dims = [%s] keepdim = true : %s -> %s" % (red, tz, ty.zs()))
    L("%%c2 = fuser.mean %%wdy dims = [%s] keepdim = true : %s -> %s" % (red, tz, ty.zs()))
    L("%%c1b = fuser.broadcast %%c1 dims = [%s] : %s -> %s" % (_rank_dims(rz), ty.zs(), tz))
    L("%%c2b = fuser.broadcast %%c2 dims = [%s] : %s -> %s" % (_rank_dims(rz), ty.zs(), tz))
    L("%%t1 = fuser.mul %%zh, %%c1b : %s" % tz)
    L("%%t2 = fuser.sub %%wdy, %%t1 : %s" % tz)
    L("%%t3 = fuser.sub %%t2, %%c2b : %s" % tz)
    L("%%dz = fuser.mul %%t3, %%rb : %s" % tz)
    _from_z(L, lay, ty, "dz", "dxf")
    L("%%0 = fuser.cast %%dxf : %s to %s" % (tx, ty.x()))
    _from_z(L, lay, ty, "zh", "xh")
    L("%%q = fuser.mul %%dyf, %%xh : %s" % tx)
    others = ", ".join(str(d) for d in range(4) if d != lay.cdim)
    L("%%1 = fuser.sum %%q dims = [%s] : %s -> %s" % (others, tx, ty.c("f32")))
    L("%%2 = fuser.sum %%dyf dims = [%s] : %s -> %s" % (others, tx, ty.c("f32")))

    # autograd of PyTorch's forward, on x's true statistics
    xg = x64.clone().requires_grad_(True)
    wg = w64.clone().requires_grad_(True)
    bg = torch.zeros(c, dtype=torch.float64, requires_grad=True)
    y = _torch_norm(lay, xg, wg, bg, c, groups)
    gx, gw, gb = torch.autograd.grad(y, (xg, wg, bg), dy64)

    wx = w64.reshape([c if d == lay.cdim else 1 for d in range(4)])
    zh = (x64.reshape(lay.z) - mean_f) * rstd_f
    wdy = (dy64 * wx).reshape(lay.z)
    c1 = (wdy * zh).mean(lay.reduce, keepdim=True)
    c2 = wdy.mean(lay.reduce, keepdim=True)
    dx = ((wdy - zh * c1 - c2) * rstd_f).reshape(lay.x)
    xh = zh.reshape(lay.x)
    sum_dims = tuple(d for d in range(4) if d != lay.cdim)
    dw = (dy64 * xh).sum(sum_dims)
    db = dy64.sum(sum_dims)
    m1 = (wdy * zh).abs().mean(lay.reduce, keepdim=True)
    m2 = wdy.abs().mean(lay.reduce, keepdim=True)
    scale = float(((wdy.abs() + zh.abs() * m1 + m2) * rstd_f.abs()).nan_to_num(0).max())
    assert torch.allclose(dx, gx, rtol=0, atol=1e-5 * scale + 1e-12, equal_nan=True)
    stats_err = (dy64.abs() * (xh.abs() + (mean_f.abs() * rstd_f.abs()).expand(
        lay.z).reshape(lay.x))).sum(sum_dims)
    assert bool((((dw - gw).abs() <= 1e-6 * stats_err + 1e-12) |
                 (dw.isnan() & gw.isnan())).all())
    assert torch.allclose(db, gb, rtol=1e-12, atol=1e-12, equal_nan=True)
    g = _growth(lay.count)
    atol_dx = (U * (8 * (wdy.abs() + zh.abs() * m1) + g * (zh.abs() * m1 + m2))
               * rstd_f.abs()).reshape(lay.x)
    pb.result("0", lay.x, t, from_f64(dx.numpy(), t), Ulps(1, atol_dx.numpy()), dims=ty.dx)
    count = int(np.prod([lay.x[d] for d in sum_dims]))
    sum_tol = lambda terms: ((count + 4) * U * terms.abs().sum(sum_dims)).numpy()
    pb.result("1", (c,), "f32", from_f64(dw.numpy(), "f32"), Ulps(1, sum_tol(dy64 * xh)),
              dims=ty.dc)
    pb.result("2", (c,), "f32", from_f64(db.numpy(), "f32"), Ulps(1, sum_tol(dy64)),
              dims=ty.dc)
    return pb.part()


# (N, C, H, W), groups: odd sizes, a channel count that is not a multiple of
# the vector width, a single sample, sets of one element, and one large
# enough that batch_norm's sets (576 elements) split across blocks
# (1, 6, 5, 7): a batch of one, whose batch_norm statistics are row
# reductions once the size-1 batch dim drops out of them (one kernel).
SHAPES = (((4, 6, 5, 7), 3, False), ((3, 5, 9, 11), 5, True), ((1, 8, 1, 1), 4, False),
          ((2, 12, 4, 4), 4, True), ((4, 16, 12, 12), 8, False), ((1, 6, 5, 7), 3, False))


def _parts(norm, direction, t, name, rng_for):
    rng = rng_for(name)
    make = _forward_part if direction == "forward" else _backward_part
    parts = []
    for last in (False, True):
        # (f32 on two shapes: the bf16 ones check the same kernels, with
        # the cast; the suite must stay well inside ctest's 300 s)
        # (forward: every other shape takes its statistics keepdim=false)
        for i, (shape, groups, dyn) in enumerate(SHAPES):
            if t != "bf16" and i % 3 != 1:
                continue
            n, c, h, w = shape
            if norm != "group_norm" and (h * w if norm == "instance_norm" else n * h * w) == 1:
                continue  # PyTorch refuses one value per set in training
            if direction == "forward":
                parts.append(make(rng, norm, last, shape, groups, t, dyn, keepdim=i % 2 == 0))
            else:
                parts.append(make(rng, norm, last, shape, groups, t, dyn))
        if t == "bf16":
            # NaN propagates through its set's statistics to the set, and
            # through the column sums to its channel's dw and db, and
            # nowhere else. An infinity in x turns its set's variance, rstd
            # and y NaN (its mean is inf or NaN by where it falls in the
            # order of accumulation: PyTorch's own var_mean gives NaN when
            # it comes first and inf when last; fuser's partials combine in
            # another order: the forward's inf part leaves the mean out).
            shape, groups, _ = SHAPES[0]
            parts.append(make(rng, norm, last, shape, groups, t, False, nan=True))
            if direction == "forward":
                parts.append(make(rng, norm, last, shape, groups, t, False, inf=True))
    return parts


def _cases(rng_for, direction, norms=("batch_norm", "instance_norm", "group_norm")):
    out = []
    for norm in norms:
        for t in ("bf16", "f32"):
            name = "norm-family/%s/%s/%s" % (norm, direction, t)
            out.append(Case(name, _bind(_parts, norm, direction, t, name, rng_for)))
    return out


def forward_cases(rng_for):
    return _cases(rng_for, "forward")


def backward_cases(rng_for):
    """instance_norm and group_norm backward (suites of their own: each
    backward fusion is several kernels, and batch_norm's with every dim
    dynamic compiles many variants; together they took 160 s)."""
    name = "norm-family/group_norm/backward/segments"
    return _cases(rng_for, "backward", ("instance_norm", "group_norm")) + [
        Case(name, _bind(_segment_parts, "bf16", name, rng_for))]


# group_norm backward's channels as parts of the group's rows
# (docs/schedulers.md, "Reductions split beside a row reduction"): 8
# channels a group (the most a kernel adds on its own), 9 (more: dw and db
# in a kernel of their own), rows split across blocks (two rows of 16384),
# rows longer than the registers and shared memory hold (73728, read again
# per pass), and a batch dim known at launch.
SEGMENT_SHAPES = (((2, 32, 3, 5), 4, False), ((2, 18, 5, 3), 2, False),
                  ((1, 8, 64, 64), 2, False), ((1, 8, 96, 96), 1, False),
                  ((3, 24, 7, 7), 3, True))


def _segment_parts(t, name, rng_for):
    rng = rng_for(name)
    return [_backward_part(rng, "group_norm", False, shape, groups, t, dyn)
            for shape, groups, dyn in SEGMENT_SHAPES]


def batch_norm_backward_cases(rng_for):
    return _cases(rng_for, "backward", ("batch_norm",))
