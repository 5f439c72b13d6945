"""softmax, log_softmax, layer_norm and rms_norm: every float type, inner
and outer dims, rows of every length of issue 6 (and many counts), keepdim
outputs, dynamic dims; NaN, infinities and huge values inside rows
(inf through softmax), f16/bf16 inputs whose f16/bf16 intermediates would
overflow (fuser computes them in f32, as documented).

References: PyTorch in f64 on the same values (torch.softmax,
torch.log_softmax, torch.native_layer_norm; rms_norm written out since
PyTorch 1.13 has no rms_norm), rounded once to the output type. Bounds:
docs/oracle.md."""

import math

import numpy as np
import torch

from . import values
from .core import (FLOAT_TYPES, HALF_TYPES, Case, PartBuilder, Ulps, from_f64,
                   mlir_type, to_f64)
from . import reductions
from .reductions import SWEEP, SWEEP_FEW, SWEEP_SHORT

U = {"f16": 2.0 ** -24, "bf16": 2.0 ** -24, "f32": 2.0 ** -24, "f64": 2.0 ** -53}


def _bind(fn, *a):
    return lambda: fn(*a)


def _growth(n):
    """How many roundings a row of n contributes at most in practice: a
    per-thread chain plus the tree (see docs/oracle.md)."""
    return 16 + 2 * math.log2(max(n, 2)) + math.sqrt(n) / 8


def softmax_ref(x, t, dim, log=False):
    f = torch.from_numpy(to_f64(x, t))
    y = torch.log_softmax(f, dim) if log else torch.softmax(f, dim)
    n = x.shape[dim]
    if n == 0:
        return from_f64(y.numpy(), t), Ulps(0), []
    m = f.amax(dim=dim, keepdim=True)
    u = U[t]
    g = _growth(n)
    if log:
        # absolute: |x - m| carries relative error 2u; log(sum) the sum's
        # relative error g*u as an absolute one (d log s = ds / s: a sum
        # near 1 has a log near 0 whose error is not relative to it), and
        # its own rounding relative to it
        lse = (y - (f - m)).abs()
        atol = (u * ((f - m).abs() * 2 + lse.clamp(min=1) * g + 4)).numpy()
    else:
        # relative: exp(x - m) is off by |x - m| * u (the rounded argument),
        # the sum by g * u
        atol = (u * ((f - m).abs() + g) * y.abs()).numpy()
    atol = np.nan_to_num(atol, nan=0.0, posinf=0.0)
    return from_f64(y.numpy(), t), Ulps(1, atol), _f32_alt(
        lambda g: torch.log_softmax(g, dim) if log else torch.softmax(g, dim), x, t, Ulps(1, atol))


def _f32_alt(fn, x, t, rule, *more):
    """PyTorch computing at the op's type (f32 for f16/bf16), rounded to t:
    an f32 intermediate that overflows (x * x of 1e37, a variance of 1e74)
    gives the same inf/NaN as in fuser, where the f64 reference has none."""
    if t == "f64":
        return []
    ct = torch.float32
    args = [torch.from_numpy(to_f64(a, t)).to(ct) if a is not None else None for a in (x,) + more]
    out = fn(*args)
    outs = out if isinstance(out, tuple) else (out,)
    return [(from_f64(o.double().numpy(), t if i == 0 else ("f32" if t in HALF_TYPES else t)),
             rule if not isinstance(rule, list) else rule[i], "PyTorch f32") for i, o in enumerate(outs)]


def layer_norm_ref(x, t, nd, w, b, eps):
    """(y, mean, rstd) of torch.native_layer_norm over the last nd dims."""
    f = torch.from_numpy(to_f64(x, t))
    shape = x.shape[-nd:] if nd else ()
    wf = torch.from_numpy(to_f64(w, t)) if w is not None else None
    bf = torch.from_numpy(to_f64(b, t)) if b is not None else None
    y, mean, rstd = torch.native_layer_norm(f, list(shape), wf, bf, eps)
    n = int(np.prod(shape))
    u = U[t]
    g = _growth(n)
    # mean and rstd: relative g*u (Welford); y = (x - mean) * rstd * w + b
    wa = wf.abs() if wf is not None else 1.0
    ba = bf.abs() if bf is not None else 0.0
    scale = (f - mean).abs() * rstd * wa
    # y's own roundings and rstd's relative error, the bias, and the mean's
    # error, which moves every x - mean by g*u*mean(|x|)
    mabs = f.abs().mean(dim=tuple(range(f.dim() - nd, f.dim())), keepdim=True)
    aty = u * (scale * (g + 4) + ba * 2 + g * mabs * rstd * wa + 4 * y.abs())
    mt = "f32" if t in HALF_TYPES else t
    um = U[mt]
    atm = (um * g * f.abs().mean(dim=tuple(range(f.dim() - nd, f.dim())), keepdim=True)).numpy()
    # Welford's variance carries u * |mean| / sigma besides its own roundings
    # (a mean of 1000 and a spread of 0.01 cost PyTorch's f32 layer_norm
    # 3e-4 of rstd as well)
    kappa = mean.abs() * rstd
    atr = (um * rstd.abs() * (2 * g + 8 * kappa)).numpy()
    rules = [Ulps(1, np.nan_to_num(aty.numpy())), Ulps(1, np.nan_to_num(atm)),
             Ulps(1, np.nan_to_num(atr))]
    alts = _f32_alt(lambda a, ww, bb: torch.native_layer_norm(a, list(shape), ww, bb, eps),
                    x, t, rules, w, b)
    return [(from_f64(y.numpy(), t), rules[0]), (from_f64(mean.numpy(), mt), rules[1]),
            (from_f64(rstd.numpy(), mt), rules[2])], mt, alts


def rms_norm_ref(x, t, nd, w, eps):
    f = torch.from_numpy(to_f64(x, t))
    dims = tuple(range(f.dim() - nd, f.dim()))
    ms = (f * f).mean(dim=dims, keepdim=True)
    r = torch.rsqrt(ms + eps)
    y = f * r
    if w is not None:
        y = y * torch.from_numpy(to_f64(w, t))
    n = int(np.prod(x.shape[-nd:]))
    atol = (U[t] * (_growth(n) + 4) * y.abs()).numpy()
    rule = Ulps(1, np.nan_to_num(atol))

    def formula(a, ww):
        r = a * torch.rsqrt((a * a).mean(dim=dims, keepdim=True) + eps)
        return r * ww if ww is not None else r
    return from_f64(y.numpy(), t), rule, _f32_alt(formula, x, t, rule, w)


# ---------------------------------------------------------------------------
# Parts
# ---------------------------------------------------------------------------

def softmax_part(label, t, x, dim, log=False, dyn=None, chain=1):
    """chain > 1: log_softmax applied `chain` times, which is log_softmax
    once (its output's log-sum-exp is 0), each step within the bound of one:
    enough steps make the element's arithmetic compute-bound, so the kernel
    holds one vector of the row a thread (docs/schedulers.md)."""
    pb = PartBuilder(label)
    D = dyn if dyn is not None else x.shape
    tx = pb.arg("x", x, t, D)
    op = "log_softmax" if log else "softmax"
    prev = "%x"
    for i in range(chain):
        pb.line("%%%s = fuser.%s %s dim = %d : %s" % (
            "0" if i == chain - 1 else "c%d" % i, op, prev, dim, tx))
        prev = "%%c%d" % i
    want, rule, alts = softmax_ref(x, t, dim, log)
    if chain > 1:
        assert log, "a chain of softmaxes is not one softmax"
        rule = Ulps(chain, rule.atol * chain)
        alts = []
    pb.result("0", x.shape, t, want, rule, dims=D, alts=alts)
    return pb.part()


def layer_norm_part(label, t, x, nd, weight=True, bias=True, eps=1e-5, rng=None, dyn=None):
    pb = PartBuilder(label)
    D = dyn if dyn is not None else x.shape
    tx = pb.arg("x", x, t, D)
    nshape = x.shape[x.ndim - nd:]
    ndims = D[len(D) - nd:]
    w = values.random(t, nshape, rng, "normal") if weight else None
    b = values.random(t, nshape, rng, "normal") if bias else None
    types = [tx]
    ops = ""
    if weight:
        types.append(pb.arg("w", w, t, ndims))
        ops += " weight %w"
    if bias:
        types.append(pb.arg("b", b, t, ndims))
        ops += " bias %b"
    refs, mt, alts = layer_norm_ref(x, t, nd, w, b, eps)
    kshape = x.shape[:x.ndim - nd] + (1,) * nd
    kdims = tuple(D[:len(D) - nd]) + (1,) * nd
    ty, tm = mlir_type(D, t), mlir_type(kdims, mt)
    dims = list(range(x.ndim - nd, x.ndim))
    pb.line("%%y, %%m, %%r = fuser.layer_norm %%x%s dims = %s eps = %.9e : (%s) -> (%s, %s, %s)" % (
        ops, dims, eps, ", ".join(types), ty, tm, tm))
    for k, (nm, shp, ty_, dm) in enumerate([("y", x.shape, t, D), ("m", kshape, mt, kdims),
                                             ("r", kshape, mt, kdims)]):
        pb.result(nm, shp, ty_, refs[k][0], refs[k][1], dims=dm, alts=alts[k:k + 1])
    return pb.part()


def rms_norm_part(label, t, x, nd, weight=True, eps=1e-6, rng=None, dyn=None):
    pb = PartBuilder(label)
    D = dyn if dyn is not None else x.shape
    tx = pb.arg("x", x, t, D)
    nshape = x.shape[x.ndim - nd:]
    w = values.random(t, nshape, rng, "normal") if weight else None
    types = [tx]
    ops = ""
    if weight:
        types.append(pb.arg("w", w, t, D[len(D) - nd:]))
        ops = " weight %w"
    want, rule, alts = rms_norm_ref(x, t, nd, w, eps)
    dims = list(range(x.ndim - nd, x.ndim))
    pb.line("%%0 = fuser.rms_norm %%x%s dims = %s eps = %.9e : (%s) -> %s" % (
        ops, dims, eps, ", ".join(types), tx))
    pb.result("0", x.shape, t, want, rule, dims=D, alts=alts)
    return pb.part()


def _rows(t, shape, rng, scale=3.0):
    return from_f64(rng.standard_normal(shape) * scale, t)


def special_rows(t, shape, rng):
    """Rows 0..6 hold: a NaN, +inf, -inf, every element -inf, huge values
    (near the type's max), an f16/bf16 row whose exp would overflow the half
    type (values near 88 for bf16, 11 for f16) and tiny values."""
    x = _rows(t, shape, rng)
    f = to_f64(x, t)
    L = shape[-1]
    mx = {"f16": 65504.0, "bf16": 3.3e38, "f32": 3.4e38, "f64": 1.7e308}[t]
    if shape[0] >= 7 and L >= 2:
        f[0, L // 2] = np.nan
        f[1, 0] = np.inf
        f[2, L - 1] = -np.inf
        f[3, :] = -np.inf
        f[4, :] = np.abs(f[4, :]) / 8 * mx / 4
        f[5, :] = 80 + np.abs(f[5, :]) if t != "f16" else 10 + np.abs(f[5, :])
        f[6, :] = f[6, :] * 1e-30 if t != "f16" else f[6, :] * 1e-6
    return from_f64(f, t)


def _value_parts(kind, t, name, rng_for):
    rng = rng_for(name)
    parts = []
    if kind in ("softmax", "log_softmax"):
        log = kind == "log_softmax"
        x = special_rows(t, (9, 257), rng)
        parts.append(softmax_part("9x257 dim 1, NaN/inf/huge rows", t, x, 1, log))
        x = np.array(special_rows(t, (9, 130), rng).T, order="C")
        parts.append(softmax_part("130x9 dim 0, NaN/inf/huge columns", t, x, 0, log))
        parts.append(softmax_part("3x40x5 dim 1", t, _rows(t, (3, 40, 5), rng), 1, log))
        parts.append(softmax_part("?x? dim 1 as 5x1031", t, _rows(t, (5, 1031), rng), 1, log,
                                  (None, None)))
        parts.append(softmax_part("7x1 dim 1", t, _rows(t, (7, 1), rng), 1, log))
        if log and t == "f32":
            parts.append(softmax_part("9x1000 dim 1, log_softmax 4 times (compute-bound: one "
                                      "vector a thread)", t, special_rows(t, (9, 1000), rng),
                                      1, log, chain=4))
        parts.append(softmax_part("rank 1 of 33", t, _rows(t, (33,), rng), 0, log))
        parts.append(softmax_part("4x0 dim 1 (empty rows)", t, _rows(t, (4, 0), rng), 1, log))
        # columns of no positions: the outer normalization's plan divided by
        # a block height of 0 (random fusion seed 580)
        parts.append(softmax_part("0x64 dim 0 (empty columns)", t, _rows(t, (0, 64), rng), 0, log))
        parts.append(softmax_part("0x1x0x1 dim 0 (empty columns)", t, _rows(t, (0, 1, 0, 1), rng),
                                  0, log))
        if t in HALF_TYPES:
            parts.append(softmax_part("2x49152 dim 1 (two-byte rows on chip, 512 threads)", t,
                                      _rows(t, (2, 49152), rng), 1, log))
            # past the registers: the rest of the row in shared memory
            x = special_rows(t, (7, 65536), rng)
            parts.append(softmax_part("7x65536 dim 1, NaN/inf/huge rows (part in shared memory)",
                                      t, x, 1, log))
            parts.append(softmax_part("2x65535 dim 1 (scalar units, part in shared memory)", t,
                                      _rows(t, (2, 65535), rng), 1, log))
            parts.append(softmax_part("?x? dim 1 as 2x40000 (part in shared memory)", t,
                                      _rows(t, (2, 40000), rng), 1, log, (None, None)))
    elif kind == "layer_norm":
        x = special_rows(t, (9, 257), rng)
        parts.append(layer_norm_part("9x257 dims [1], NaN/inf/huge rows", t, x, 1, rng=rng))
        parts.append(layer_norm_part("6x7x9 dims [1, 2]", t, _rows(t, (6, 7, 9), rng), 2, rng=rng))
        parts.append(layer_norm_part("5x33 no weight", t, _rows(t, (5, 33), rng), 1, False, True, rng=rng))
        parts.append(layer_norm_part("5x33 no bias", t, _rows(t, (5, 33), rng), 1, True, False, rng=rng))
        parts.append(layer_norm_part("5x33 neither", t, _rows(t, (5, 33), rng), 1, False, False, rng=rng))
        x = from_f64(1000.0 + rng.standard_normal((4, 1031)) * 0.01, t)
        parts.append(layer_norm_part("4x1031 mean 1000, spread 0.01", t, x, 1, rng=rng))
        parts.append(layer_norm_part("?x? as 3x100", t, _rows(t, (3, 100), rng), 1, rng=rng,
                                     dyn=(None, None)))
        if t in HALF_TYPES:
            parts.append(layer_norm_part("2x36864 (two-byte rows on chip, 512 threads)", t,
                                         _rows(t, (2, 36864), rng), 1, rng=rng))
            parts.append(layer_norm_part("2x40000 (part of the row in shared memory)", t,
                                         _rows(t, (2, 40000), rng), 1, rng=rng))
            x = special_rows(t, (7, 65536), rng)
            parts.append(layer_norm_part("7x65536 NaN/inf/huge rows (part in shared memory)", t,
                                         x, 1, rng=rng))
            parts.append(layer_norm_part("?x? as 3x20000 (part in shared memory)", t,
                                         _rows(t, (3, 20000), rng), 1, rng=rng, dyn=(None, None)))
            parts.append(layer_norm_part("?x? as 2x65536 (part in shared memory)", t,
                                         _rows(t, (2, 65536), rng), 1, rng=rng, dyn=(None, None)))
    elif kind == "rms_norm":
        x = special_rows(t, (9, 257), rng)
        parts.append(rms_norm_part("9x257 dims [1], NaN/inf/huge rows", t, x, 1, rng=rng))
        parts.append(rms_norm_part("6x7x9 dims [1, 2]", t, _rows(t, (6, 7, 9), rng), 2, rng=rng))
        parts.append(rms_norm_part("5x33 no weight", t, _rows(t, (5, 33), rng), 1, False, rng=rng))
        parts.append(rms_norm_part("?x? as 3x100", t, _rows(t, (3, 100), rng), 1, rng=rng,
                                   dyn=(None, None)))
        if t in HALF_TYPES:
            parts.append(rms_norm_part("2x49152 (two-byte rows on chip, 512 threads)", t,
                                       _rows(t, (2, 49152), rng), 1, rng=rng))
            parts.append(rms_norm_part("3x50000 (part of the row in shared memory)", t,
                                       _rows(t, (3, 50000), rng), 1, rng=rng))
            parts.append(rms_norm_part("2x65536 (part of the row in shared memory)", t,
                                       _rows(t, (2, 65536), rng), 1, rng=rng))
            parts.append(rms_norm_part("?x? as 2x65536 (part in shared memory)", t,
                                       _rows(t, (2, 65536), rng), 1, rng=rng, dyn=(None, None)))
    return parts


def _view_parts(t, name, rng_for):
    """Results that are reshapes of a kernel's value (fuser-segment's result
    views: the kernel writes into the result's buffer, no copy kernel): of
    a normalization, of a reduction, dynamic, a value viewed twice (the
    second view is a copy) and a value also read by another op."""
    rng = rng_for(name)
    parts = []

    def viewed(rule, shape, vshape):
        # the rule's per-element tolerance, reshaped like the result
        if isinstance(getattr(rule, "atol", None), np.ndarray):
            return Ulps(rule.ulps, np.broadcast_to(rule.atol, shape).reshape(vshape),
                        rule.name, rule.signed_zero)
        return rule

    def softmax_view(label, shape, dyn, views, also_exp=False):
        x = _rows(t, shape, rng)
        pb = PartBuilder(label)
        tx = pb.arg("x", x, t, dyn)
        pb.line("%%y = fuser.softmax %%x dim = %d : %s" % (len(shape) - 1, tx))
        want, rule, alts = softmax_ref(x, t, len(shape) - 1)
        for k, (vshape, vdyn) in enumerate(views):
            pb.line("%%%d = fuser.reshape %%y : %s -> %s" % (k, tx, mlir_type(vdyn, t)))
            pb.result("%d" % k, vshape, t, want.reshape(vshape), viewed(rule, shape, vshape),
                      dims=vdyn, alts=[(a[0].reshape(vshape), viewed(a[1], shape, vshape))
                                       + tuple(a[2:]) for a in alts])
        if also_exp:
            k = len(views)
            pb.line("%%%d = fuser.neg %%y : %s" % (k, tx))
            pb.result("%d" % k, shape, t, from_f64(-to_f64(want, t), t), rule, dims=dyn,
                      alts=[(from_f64(-to_f64(a[0], t), t),) + tuple(a[1:]) for a in alts])
        parts.append(pb.part())

    softmax_view("softmax 9x257 -> 9x1x257", (9, 257), (9, 257), [((9, 1, 257), (9, 1, 257))])
    softmax_view("softmax 5x33 -> 165", (5, 33), (5, 33), [((165,), (165,))])
    softmax_view("softmax ?x257 -> ?x1x257 as 6x257", (6, 257), (None, 257),
                 [((6, 1, 257), (None, 1, 257))])
    softmax_view("softmax 7x40 viewed twice", (7, 40), (7, 40),
                 [((7, 1, 40), (7, 1, 40)), ((280,), (280,))])
    softmax_view("softmax 7x40 viewed and negated", (7, 40), (7, 40),
                 [((7, 40, 1), (7, 40, 1))], also_exp=True)
    # a reduction's value viewed with its kept dim
    x = _rows(t, (64, 33), rng)
    pb = PartBuilder("sum 64x33 -> 64 -> 64x1")
    tx = pb.arg("x", x, t)
    pb.line("%%s = fuser.sum %%x dims = [1] : %s -> %s" % (tx, mlir_type((64,), t)))
    pb.line("%%0 = fuser.reshape %%s : %s -> %s" % (mlir_type((64,), t), mlir_type((64, 1), t)))
    for w, _, rule in reductions.reference("sum", x, t, [1], True, 1)[:1]:
        pb.result("0", (64, 1), t, w, rule)
    parts.append(pb.part())
    return parts


def cases(rng_for):
    out = []
    for kind in ("softmax", "log_softmax", "layer_norm", "rms_norm"):
        for t in FLOAT_TYPES:
            name = "normalization/%s/%s" % (kind, t)
            out.append(Case(name, _bind(_value_parts, kind, t, name, rng_for)))
    for t in ("f32", "bf16"):
        name = "normalization/result-views/%s" % t
        out.append(Case(name, _bind(_view_parts, t, name, rng_for)))
    return out


# ---------------------------------------------------------------------------
# Outer normalizations: along the leading or a middle dim
# ---------------------------------------------------------------------------

# (label, shape, dim, dyn): columns of up to 256 positions, static, are one
# kernel that holds them on chip (docs/schedulers.md); 257 and a length known
# only at launch take a reduction and a pointwise kernel.
OUTER_SHAPES = [
    ("1x1000 dim 0", (1, 1000), 0, None),
    ("7x33 dim 0", (7, 33), 0, None),
    ("100x1000 dim 0", (100, 1000), 0, None),
    ("256x65 dim 0 (the longest column on chip)", (256, 65), 0, None),
    ("257x65 dim 0 (two kernels)", (257, 65), 0, None),
    ("16x4100 dim 0", (16, 4100), 0, None),
    ("64x3x5 dim 0", (64, 3, 5), 0, None),
    ("3x50x17 dim 1", (3, 50, 17), 1, None),
    ("4x8x33 dim 1", (4, 8, 33), 1, None),
    ("100x? dim 0 as 100x1000", (100, 1000), 0, (100, None)),
    ("3x50x? dim 1 as 3x50x17", (3, 50, 17), 1, (3, 50, None)),
    ("?x9 dim 0 as 130x9 (two kernels)", (130, 9), 0, (None, 9)),
]


def _outer_parts(kind, t, name, rng_for):
    from . import training
    rng = rng_for(name)
    parts = []
    if kind == "backward":
        for log in (False, True):
            for shape in ((100, 1000), (256, 65), (7, 33), (1, 9)):
                parts.append(training._softmax_bwd_part(rng, t, shape, 0, log, False))
        return parts
    log = kind == "log_softmax"
    x = np.array(special_rows(t, (9, 200), rng).T, order="C")
    parts.append(softmax_part("200x9 dim 0, NaN/inf/huge columns", t, x, 0, log))
    for label, shape, dim, dyn in OUTER_SHAPES:
        parts.append(softmax_part(label, t, _rows(t, shape, rng), dim, log, dyn))
    return parts


def outer_cases(rng_for):
    """softmax and log_softmax along non-trailing dims, forward and backward."""
    out = []
    for kind in ("softmax", "log_softmax", "backward"):
        for t in ("bf16", "f32"):
            name = "normalization-outer/%s/%s" % (kind, t)
            out.append(Case(name, _bind(_outer_parts, kind, t, name, rng_for)))
    return out


# ---------------------------------------------------------------------------
# Sweep: row lengths x counts through the normalization schedulers
# ---------------------------------------------------------------------------

def _sweep_parts(kind, t, name, rng_for, pairs=SWEEP):
    rng = rng_for(name)
    parts = []
    for i, (length, rows) in enumerate(pairs):
        # normalizations write every element, and short rows cost the
        # emulator a block each: at most 150000 elements and 5000 rows
        rows = max(1, min(rows, 5000, 150000 // max(length, 1)))
        x = _rows(t, (rows, length), rng)
        dyn = (None, None) if i % 3 == 2 else None
        label = "%d rows of %d%s" % (rows, length, " ?x?" if dyn else "")
        if kind == "softmax":
            parts.append(softmax_part(label, t, x, 1, False, dyn))
        elif kind == "softmax_outer":
            parts.append(softmax_part(label.replace("rows", "columns"), t,
                                      np.array(x.T, order="C"), 0, False, dyn))
        elif kind == "log_softmax":
            parts.append(softmax_part(label, t, x, 1, True, dyn))
        elif kind == "layer_norm":
            parts.append(layer_norm_part(label, t, x, 1, rng=rng, dyn=dyn))
        else:
            parts.append(rms_norm_part(label, t, x, 1, rng=rng, dyn=dyn))
    return parts


def sweep_cases(rng_for):
    out = []
    # every pair (each is a kernel to compile, ~0.2 s) for softmax and
    # layer_norm in f32, a few for the other combinations
    for kind, t, pairs in [("softmax", "f32", SWEEP), ("softmax", "bf16", SWEEP_FEW),
                           ("softmax_outer", "f32", SWEEP_FEW),
                           ("log_softmax", "f32", SWEEP_FEW), ("layer_norm", "f32", SWEEP),
                           ("layer_norm", "bf16", SWEEP_FEW), ("rms_norm", "f16", SWEEP_SHORT)]:
        name = "normalization/sweep/%s/%s" % (kind, t)
        out.append(Case(name, _bind(_sweep_parts, kind, t, name, rng_for, pairs)))
    return out
