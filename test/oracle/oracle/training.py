"""Backward fusions of a training step, written from primitives as a tracer
would emit them: softmax and log_softmax backward (along the last and the
first dim), layer_norm and rms_norm backward (dx, dw, db; bf16 inputs, f32
compute), silu-mul (SwiGLU) backward with two outputs, gelu backward
(tanh and erf forms), tanh and sigmoid backward (from the stored output) and
silu backward; each also with NaN, inf and -inf in its inputs (PyTorch's
semantics: NaN where PyTorch's backward gives NaN, the same infinities), and
misaligned (`training-misaligned`: every tensor one element past 16-byte
alignment). Dropout + residual + layer_norm backward with a torch.uint8
mask passed as i8. Static and dynamic sizes, rows of 1, 7, 100, 1031 and
4097 elements. The sweep (`training-sweep`) runs layer_norm and rms_norm
backward over the grid of docs/schedulers.md's inner-outer section: rows of
1, 7, 64, 100, 1000, 4096, 4097 and 16384 elements, 1, 3, 128 and 4096 rows
(pairs up to 2^21 elements, and 4096 x 1024), static and dynamic.

References: torch.autograd.grad of the forward op in float64 on the same
inputs (fuser's formulas are the ones autograd computes), rounded once to
the output type. Bounds: the roundings of fuser's f32 computation, written
per case below (a few u per elementwise step, the sum bound of docs/oracle.md
per reduction), plus 1 ulp of the output type."""

import math

import numpy as np
import torch

from .core import Case, PartBuilder, Ulps, from_f64, mlir_type, to_f64

U = 2.0 ** -24


def _bind(fn, *a):
    return lambda: fn(*a)


def _growth(n):
    return 16 + 2 * math.log2(max(n, 2)) + math.sqrt(n) / 8


def _data(rng, shape, t, scale=1.0):
    return from_f64(rng.standard_normal(shape) * scale, t)


def _t64(a, t):
    return torch.from_numpy(to_f64(a, t))


def _ty(shape, dyn, t):
    return mlir_type(dyn if dyn is not None else shape, t)


def _dyn(shape, dynamic):
    return tuple(None for _ in shape) if dynamic else None


def _put(a, t, where):
    """`a` (storage of type t) with the values of `where` ({index: f64})."""
    f = to_f64(a, t).copy()
    for ix, v in where.items():
        f[ix] = v
    return from_f64(f, t)


def _elem_specials(shape, names):
    """NaN, +inf and -inf in each tensor of `names`, each at its own
    element: {name: {index: value}} (the elements 1, 3, 5, ... in C order)."""
    out, k = {}, 1
    for name in names:
        out[name] = {}
        for v in (np.nan, np.inf, -np.inf):
            out[name][np.unravel_index(k % int(np.prod(shape)), shape)] = v
            k += 2
    return out


def _finite_tol(tol):
    """A bound with the non-finite entries (rows or elements whose reference
    is NaN or infinite: the rule then needs the same NaN or infinity) set
    to 0, so that no infinite bound passes a finite reference."""
    tol = np.asarray(tol, dtype=np.float64)
    return np.where(np.isfinite(tol), tol, 0.0)


def _same_specials(a, b):
    """NaN where the other has NaN, the same infinities, and the finite
    elements close (two computations of one PyTorch formula)."""
    a, b = np.asarray(a), np.asarray(b)
    fa, fb = np.isfinite(a), np.isfinite(b)
    return bool((np.isnan(a) == np.isnan(b)).all() and (fa == fb).all() and
                (a[np.isinf(a)] == b[np.isinf(a)]).all() and
                np.allclose(a[fa], b[fa], rtol=1e-9, atol=1e-12))


# ---------------------------------------------------------------------------
# softmax / log_softmax backward
# ---------------------------------------------------------------------------

# Lines of a softmax backward with special values (`special=True`), by the
# index of the line along the other dim: what goes where in the line.
_SOFTMAX_SPECIALS = (
    (1, (("dy", np.nan),)),                    # the line's sum: the line is NaN
    (2, (("dy", np.inf),)),                    # the sum infinite: inf - inf, inf * 0
    (3, (("dy", -np.inf),)),
    (4, (("x", -np.inf),)),                    # a masked element: y = 0 (log: -inf), finite dx
    (5, (("x", -np.inf), ("dy", np.inf))),     # 0 * inf in the sum (log: exp(-inf) * inf)
    (6, (("x", np.nan),)),                     # y NaN on the whole line
    (7, (("x", np.inf),)),                     # inf - inf in the forward: y NaN
)


def _softmax_bwd_part(rng, t, shape, dim, log, dynamic, special=False):
    x = _t64(_data(rng, shape, "f64", 2.0), "f64")
    dy = _data(rng, shape, t)
    n = shape[dim]
    if special:
        # the special values of _SOFTMAX_SPECIALS on the lines that exist,
        # each at its own element of its line
        where = {"x": {}, "dy": {}}
        for line, vals in _SOFTMAX_SPECIALS:
            if line < shape[1 - dim]:
                k = (3 * line) % n
                for name, v in vals:
                    where[name][(line, k) if dim == 1 else (k, line)] = v
        x = _t64(_put(x.numpy(), "f64", where["x"]), "f64")
        dy = _put(dy, t, where["dy"])
    y64 = (torch.log_softmax if log else torch.softmax)(x, dim)
    y = from_f64(y64.numpy(), t)  # the forward's output, as stored
    yf, dyf = _t64(y, t), _t64(dy, t)
    pb = PartBuilder("%s backward %s %s dim %d%s%s" % (
        "log_softmax" if log else "softmax", "x".join(map(str, shape)), t, dim,
        " dynamic" if dynamic else "", ", NaN and inf in dy and x" if special else ""))
    dyn = _dyn(shape, dynamic)
    ty = _ty(shape, dyn, t)
    pb.arg("y", y, t, dyn)
    pb.arg("dy", dy, t, dyn)
    # bf16 and f16 inputs: computed in f32 (as a tracer's autocast writes
    # it), rounded once at the end
    half = t in ("bf16", "f16")
    ct = "f32" if half else t
    out = "%0"
    if half:
        tc = _ty(shape, dyn, ct)
        pb.line("%%yc = fuser.cast %%y : %s to %s" % (ty, tc))
        pb.line("%%dyc = fuser.cast %%dy : %s to %s" % (ty, tc))
        ty, out = tc, "%r"
    kshape = tuple(1 if d == dim else s for d, s in enumerate(shape))
    kdyn = None if dyn is None else tuple(1 if d == dim else None for d in range(len(shape)))
    tk = _ty(kshape, kdyn, ct)
    if log:
        # dx = dy - exp(y) * sum(dy)
        pb.line("%%s = fuser.sum %%dy%s dims = [%d] keepdim = true : %s -> %s" % (
            "c" if half else "", dim, ty, tk))
        pb.line("%%sb = fuser.broadcast %%s dims = [0, 1] : %s -> %s" % (tk, ty))
        pb.line("%%e = fuser.exp %%y%s : %s" % ("c" if half else "", ty))
        pb.line("%%p = fuser.mul %%e, %%sb : %s" % ty)
        pb.line("%s = fuser.sub %%dy%s, %%p : %s" % (out, "c" if half else "", ty))
        s = dyf.sum(dim, keepdim=True)
        want = dyf - torch.exp(yf) * s
        atol = U * (_growth(n) * dyf.abs().sum(dim, keepdim=True) * torch.exp(yf) +
                    4 * (dyf.abs() + torch.exp(yf) * s.abs()))
    else:
        # dx = y * (dy - sum(y * dy))
        c = "c" if half else ""
        pb.line("%%p = fuser.mul %%y%s, %%dy%s : %s" % (c, c, ty))
        pb.line("%%s = fuser.sum %%p dims = [%d] keepdim = true : %s -> %s" % (dim, ty, tk))
        pb.line("%%sb = fuser.broadcast %%s dims = [0, 1] : %s -> %s" % (tk, ty))
        pb.line("%%d = fuser.sub %%dy%s, %%sb : %s" % (c, ty))
        pb.line("%s = fuser.mul %%y%s, %%d : %s" % (out, c, ty))
        s = (yf * dyf).sum(dim, keepdim=True)
        want = yf * (dyf - s)
        atol = U * yf.abs() * (_growth(n) * (yf * dyf).abs().sum(dim, keepdim=True) +
                               4 * (dyf.abs() + s.abs()))
    # autograd agrees with the formula on the stored y (checked here, so a
    # wrong formula cannot make a wrong reference)
    xg = x.clone().requires_grad_(True)
    yg = (torch.log_softmax if log else torch.softmax)(xg, dim)
    (g,) = torch.autograd.grad(yg, xg, _t64(dy, t))
    on_y64 = ((dyf - torch.exp(y64) * dyf.sum(dim, keepdim=True)) if log
              else y64 * (dyf - (y64 * dyf).sum(dim, keepdim=True)))
    if special:
        # PyTorch's semantics: its backward kernel (the one autograd calls,
        # on the output it saved) on the stored y is the reference; where it
        # is NaN or infinite fuser must be the same, and the formula above
        # must agree with it
        bwd = (torch.ops.aten._log_softmax_backward_data if log
               else torch.ops.aten._softmax_backward_data)
        assert _same_specials(g.numpy(), bwd(dyf, y64, dim, torch.float64).numpy())
        assert _same_specials(g.numpy(), on_y64.numpy())
        want = bwd(dyf, yf, dim, torch.float64)
        on_y = ((dyf - torch.exp(yf) * dyf.sum(dim, keepdim=True)) if log
                else yf * (dyf - (yf * dyf).sum(dim, keepdim=True)))
        assert _same_specials(want.numpy(), on_y.numpy())
        assert np.isnan(want.numpy()).any() and np.isfinite(want.numpy()).any()
        atol = torch.from_numpy(_finite_tol(atol.numpy()))
    else:
        assert torch.allclose(g, on_y64, atol=1e-9)
    if half:
        pb.line("%%0 = fuser.cast %%r : %s to %s" % (ty, _ty(shape, dyn, t)))
    pb.result("0", shape, t, from_f64(want.numpy(), t), Ulps(1, atol.numpy()), dims=dyn)
    return pb.part()


# ---------------------------------------------------------------------------
# layer_norm / rms_norm backward
# ---------------------------------------------------------------------------

def _norm_bwd_part(rng, t, rows, h, rms, dynamic, special=False):
    x = _data(rng, (rows, h), t, 2.0)
    dy = _data(rng, (rows, h), t)
    if special:
        # a NaN in row 1 and an infinity in row 2 of dy: they reach their
        # rows' dx (through the row means) and their columns' dw and db, and
        # no other element
        f = to_f64(dy, t).copy()
        f[1, 2 % h] = np.nan
        f[2, 5 % h] = np.inf
        dy = from_f64(f, t)
    w = _data(rng, (h,), t)
    x64, dy64, w64 = _t64(x, t), _t64(dy, t), _t64(w, t)
    eps = 1e-5
    # the forward's saved statistics, as fuser's forward stores them (f32)
    if rms:
        rstd = torch.rsqrt((x64 * x64).mean(1, keepdim=True) + eps)
        mean = torch.zeros_like(rstd)
    else:
        var, mean = torch.var_mean(x64, 1, unbiased=False, keepdim=True)
        rstd = torch.rsqrt(var + eps)
    mean_s, rstd_s = from_f64(mean.numpy(), "f32"), from_f64(rstd.numpy(), "f32")
    mean_f, rstd_f = _t64(mean_s, "f32"), _t64(rstd_s, "f32")

    dyn = (None, None) if dynamic else None
    ty = _ty((rows, h), dyn, t)
    tf = _ty((rows, h), dyn, "f32")
    tk = _ty((rows, 1), (None, 1) if dynamic else None, "f32")
    tw = _ty((h,), (None,) if dynamic else None, t)
    twf = _ty((h,), (None,) if dynamic else None, "f32")
    tc = _ty((h,), (None,) if dynamic else None, "f32")
    pb = PartBuilder("%s backward %dx%d %s%s%s" % ("rms_norm" if rms else "layer_norm", rows, h, t,
                                                  " dynamic" if dynamic else "",
                                                  ", NaN and inf in dy" if special else ""))
    pb.arg("x", x, t, dyn)
    pb.arg("dy", dy, t, dyn)
    if not rms:
        pb.arg("mean", mean_s, "f32", (None, 1) if dynamic else None)
    pb.arg("rstd", rstd_s, "f32", (None, 1) if dynamic else None)
    pb.arg("w", w, t, (None,) if dynamic else None)
    L = pb.line
    L("%%xf = fuser.cast %%x : %s to %s" % (ty, tf))
    L("%%dyf = fuser.cast %%dy : %s to %s" % (ty, tf))
    L("%%wf = fuser.cast %%w : %s to %s" % (tw, twf))
    L("%%rb = fuser.broadcast %%rstd dims = [0, 1] : %s -> %s" % (tk, tf))
    L("%%wb = fuser.broadcast %%wf dims = [1] : %s -> %s" % (twf, tf))
    if rms:
        L("%%xhat = fuser.mul %%xf, %%rb : %s" % tf)
    else:
        L("%%mb = fuser.broadcast %%mean dims = [0, 1] : %s -> %s" % (tk, tf))
        L("%%xc = fuser.sub %%xf, %%mb : %s" % tf)
        L("%%xhat = fuser.mul %%xc, %%rb : %s" % tf)
    L("%%wdy = fuser.mul %%dyf, %%wb : %s" % tf)
    L("%%p = fuser.mul %%wdy, %%xhat : %s" % tf)
    L("%%c1 = fuser.mean %%p dims = [1] keepdim = true : %s -> %s" % (tf, tk))
    L("%%c1b = fuser.broadcast %%c1 dims = [0, 1] : %s -> %s" % (tk, tf))
    L("%%t1 = fuser.mul %%xhat, %%c1b : %s" % tf)
    L("%%t2 = fuser.sub %%wdy, %%t1 : %s" % tf)
    if rms:
        L("%%t3 = fuser.mul %%t2, %%rb : %s" % tf)
    else:
        L("%%c2 = fuser.mean %%wdy dims = [1] keepdim = true : %s -> %s" % (tf, tk))
        L("%%c2b = fuser.broadcast %%c2 dims = [0, 1] : %s -> %s" % (tk, tf))
        L("%%t4 = fuser.sub %%t2, %%c2b : %s" % tf)
        L("%%t3 = fuser.mul %%t4, %%rb : %s" % tf)
    L("%%0 = fuser.cast %%t3 : %s to %s" % (tf, ty))
    L("%%q = fuser.mul %%dyf, %%xhat : %s" % tf)
    L("%%1 = fuser.sum %%q dims = [0] : %s -> %s" % (tf, tc))
    if not rms:
        L("%%2 = fuser.sum %%dyf dims = [0] : %s -> %s" % (tf, tc))

    # autograd of the forward with the saved statistics held fixed is the
    # formula below; checked against torch's own backward on x's true
    # statistics (the stored f32 ones differ by a rounding).
    xg = x64.clone().requires_grad_(True)
    wg = w64.clone().requires_grad_(True)
    if rms:
        yg = xg * torch.rsqrt((xg * xg).mean(1, keepdim=True) + eps) * wg
    else:
        yg = torch.nn.functional.layer_norm(xg, (h,), wg, None, eps)
    gx, gw = torch.autograd.grad(yg, (xg, wg), dy64)

    xhat = (x64 - mean_f) * rstd_f
    wdy = dy64 * w64
    c1 = (wdy * xhat).mean(1, keepdim=True)
    c2 = torch.zeros_like(c1) if rms else wdy.mean(1, keepdim=True)
    dx = (wdy - xhat * c1 - c2) * rstd_f
    dw = (dy64 * xhat).sum(0)
    g = _growth(h)
    m1 = (wdy * xhat).abs().mean(1, keepdim=True)
    m2 = wdy.abs().mean(1, keepdim=True)
    # (the terms' size: dx cancels to nearly 0 where a row has one element)
    scale = float(((wdy.abs() + xhat.abs() * m1 + m2) * rstd_f.abs()).max())
    if not special:
        # (with NaN and inf the formula's and autograd's orders of
        # operations may turn an infinity into NaN differently; the finite
        # parts check the formula)
        assert torch.allclose(dx, gx, rtol=0, atol=1e-5 * scale + 1e-12)
        # (the stored statistics' rounding, about 2^-24 relative, moves
        # each term of the column sum by up to dy (|xhat| + |mean| rstd)
        # 2^-24)
        stats_err = (dy64.abs() * (xhat.abs() + mean_f.abs() * rstd_f.abs())).sum(0)
        assert bool(((dw - gw).abs() <= 1e-6 * stats_err + 1e-12).all())
    atol_dx = U * (8 * (wdy.abs() + xhat.abs() * m1) + g * (xhat.abs() * m1 + m2)) * rstd_f.abs()
    pb.result("0", (rows, h), t, from_f64(dx.numpy(), t), Ulps(1, atol_dx.numpy()), dims=dyn)
    cdyn = (None,) if dynamic else None
    sum_tol = lambda terms: ((rows + 4) * U * terms.abs().sum(0)).numpy()
    pb.result("1", (h,), "f32", from_f64(dw.numpy(), "f32"), Ulps(1, sum_tol(dy64 * xhat)),
              dims=cdyn)
    if not rms:
        pb.result("2", (h,), "f32", from_f64(dy64.sum(0).numpy(), "f32"), Ulps(1, sum_tol(dy64)),
                  dims=cdyn)
    return pb.part()


def _dropout_ln_bwd_part(rng, rows, h, dynamic, p=0.1):
    """dropout + residual + layer_norm backward (examples/dropout_residual_
    layer_norm_backward.mlir) with the dropout mask a torch.uint8 tensor of
    0 and 1, as PyTorch code often keeps it, passed to fuser as i8 (the
    .npy file is uint8 '|u1': docs/npy.md). bf16 in and out, f32 compute.
    Reference: dh by the layer_norm backward's formula on the stored
    statistics (checked against autograd), then torch.autograd.grad of the
    forward's x * mask * scale + residual, the mask uint8, with that dh."""
    t = "bf16"
    x, r, dy = _data(rng, (rows, h), t, 2.0), _data(rng, (rows, h), t), _data(rng, (rows, h), t)
    mask = (rng.random((rows, h)) >= p).astype(np.uint8)
    mask[0, 0], mask[-1, -1] = 0, 1
    w = _data(rng, (h,), t)
    mask_t = torch.from_numpy(mask)
    assert mask_t.dtype == torch.uint8
    scale = 1.0 / (1.0 - p)
    x64, r64, dy64, w64 = (_t64(a, t) for a in (x, r, dy, w))
    hs = from_f64((x64 * mask_t * scale + r64).numpy(), t)  # the forward's h, as stored
    h64 = _t64(hs, t)
    eps = 1e-5
    var, mean = torch.var_mean(h64, 1, unbiased=False, keepdim=True)
    mean_s = from_f64(mean.numpy(), "f32")
    rstd_s = from_f64(torch.rsqrt(var + eps).numpy(), "f32")
    mean_f, rstd_f = _t64(mean_s, "f32"), _t64(rstd_s, "f32")

    dyn = (None, None) if dynamic else None
    kdyn = (None, 1) if dynamic else None
    ty, tf = _ty((rows, h), dyn, t), _ty((rows, h), dyn, "f32")
    tm = _ty((rows, h), dyn, "i8")
    tk = _ty((rows, 1), kdyn, "f32")
    tw = _ty((h,), (None,) if dynamic else None, t)
    twf = _ty((h,), (None,) if dynamic else None, "f32")
    pb = PartBuilder("dropout + residual + layer_norm backward %dx%d, uint8 mask as i8%s" % (
        rows, h, " dynamic" if dynamic else ""))
    pb.arg("dy", dy, t, dyn)
    pb.arg("h", hs, t, dyn)
    pb.arg("mask", mask, "i8", dyn)
    pb.arg("mean", mean_s, "f32", kdyn)
    pb.arg("rstd", rstd_s, "f32", kdyn)
    pb.arg("w", w, t, (None,) if dynamic else None)
    L = pb.line
    L("%%hf = fuser.cast %%h : %s to %s" % (ty, tf))
    L("%%dyf = fuser.cast %%dy : %s to %s" % (ty, tf))
    L("%%wf = fuser.cast %%w : %s to %s" % (tw, twf))
    L("%%mb = fuser.broadcast %%mean dims = [0, 1] : %s -> %s" % (tk, tf))
    L("%%rb = fuser.broadcast %%rstd dims = [0, 1] : %s -> %s" % (tk, tf))
    L("%%wb = fuser.broadcast %%wf dims = [1] : %s -> %s" % (twf, tf))
    L("%%xc = fuser.sub %%hf, %%mb : %s" % tf)
    L("%%xhat = fuser.mul %%xc, %%rb : %s" % tf)
    L("%%wdy = fuser.mul %%dyf, %%wb : %s" % tf)
    L("%%p = fuser.mul %%wdy, %%xhat : %s" % tf)
    L("%%c1 = fuser.mean %%p dims = [1] keepdim = true : %s -> %s" % (tf, tk))
    L("%%c2 = fuser.mean %%wdy dims = [1] keepdim = true : %s -> %s" % (tf, tk))
    L("%%c1b = fuser.broadcast %%c1 dims = [0, 1] : %s -> %s" % (tk, tf))
    L("%%c2b = fuser.broadcast %%c2 dims = [0, 1] : %s -> %s" % (tk, tf))
    L("%%t1 = fuser.mul %%xhat, %%c1b : %s" % tf)
    L("%%t2 = fuser.sub %%wdy, %%t1 : %s" % tf)
    L("%%t3 = fuser.sub %%t2, %%c2b : %s" % tf)
    L("%%dhf = fuser.mul %%t3, %%rb : %s" % tf)
    L("%%dh = fuser.cast %%dhf : %s to %s" % (tf, ty))
    L("%%dhr = fuser.cast %%dh : %s to %s" % (ty, tf))
    L("%%keep = fuser.cast %%mask : %s to %s" % (tm, tf))
    L("%%scale = fuser.constant %.9g : tensor<f32>" % float(np.float32(scale)))
    L("%%kept = fuser.mul %%dhr, %%keep : %s" % tf)
    L("%%scaled = fuser.mul %%kept, %%scale : %s, tensor<f32>" % tf)
    L("%%dx = fuser.cast %%scaled : %s to %s" % (tf, ty))
    L("%%q = fuser.mul %%dyf, %%xhat : %s" % tf)
    L("%%dw = fuser.sum %%q dims = [0] : %s -> %s" % (tf, twf))
    L("%%db = fuser.sum %%dyf dims = [0] : %s -> %s" % (tf, twf))

    xhat = (h64 - mean_f) * rstd_f
    wdy = dy64 * w64
    c1 = (wdy * xhat).mean(1, keepdim=True)
    c2 = wdy.mean(1, keepdim=True)
    dh = (wdy - xhat * c1 - c2) * rstd_f
    # the formula is autograd's layer_norm backward (on h's true statistics)
    hg = h64.clone().requires_grad_(True)
    wg = w64.clone().requires_grad_(True)
    gh, gw = torch.autograd.grad(torch.nn.functional.layer_norm(hg, (h,), wg, None, eps),
                                 (hg, wg), dy64)
    m1 = (wdy * xhat).abs().mean(1, keepdim=True)
    m2 = wdy.abs().mean(1, keepdim=True)
    scl = float(((wdy.abs() + xhat.abs() * m1 + m2) * rstd_f.abs()).max())
    assert torch.allclose(dh, gh, rtol=0, atol=1e-5 * scl + 1e-12)
    # dx and the residual's gradient: autograd of the forward with the
    # uint8 mask (PyTorch promotes it in x * mask)
    xg = x64.clone().requires_grad_(True)
    rg = r64.clone().requires_grad_(True)
    dx, dr = torch.autograd.grad(xg * mask_t * scale + rg, (xg, rg), dh)
    assert torch.equal(dr, dh) and torch.equal(dx == 0, (mask_t == 0) | (dh == 0))
    atol_dh = U * (8 * (wdy.abs() + xhat.abs() * m1) + _growth(h) * (xhat.abs() * m1 + m2)) * \
        rstd_f.abs()
    # dx from fuser's bf16 dh (within atol_dh, or 1 bf16 ulp: 2^-7 relative,
    # of the reference's), times the mask and the f32 scale, rounded once more
    keep = mask_t.double()
    atol_dx = (atol_dh + 2.0 ** -7 * dh.abs()) * keep * scale
    pb.result("dx", (rows, h), t, from_f64(dx.numpy(), t), Ulps(1, atol_dx.numpy()), dims=dyn)
    pb.result("dh", (rows, h), t, from_f64(dh.numpy(), t), Ulps(1, atol_dh.numpy()), dims=dyn)
    cdyn = (None,) if dynamic else None
    sum_tol = lambda terms: ((rows + 4) * U * terms.abs().sum(0)).numpy()
    pb.result("dw", (h,), "f32", from_f64((dy64 * xhat).sum(0).numpy(), "f32"),
              Ulps(1, sum_tol(dy64 * xhat)), dims=cdyn)
    pb.result("db", (h,), "f32", from_f64(dy64.sum(0).numpy(), "f32"), Ulps(1, sum_tol(dy64)),
              dims=cdyn)
    return pb.part()


# ---------------------------------------------------------------------------
# activations: silu-mul (SwiGLU) and gelu backward
# ---------------------------------------------------------------------------

def _swiglu_bwd_part(rng, t, shape, dynamic, special=False):
    g, u, dy = (_data(rng, shape, t, 3.0) for _ in range(3))
    if special:
        # NaN, inf and -inf in each input, each at its own element (g = inf:
        # 1 + inf * (1 - sigmoid) = inf * 0, NaN in dg as in PyTorch)
        sp = _elem_specials(shape, ("g", "u", "dy"))
        g, u, dy = _put(g, t, sp["g"]), _put(u, t, sp["u"]), _put(dy, t, sp["dy"])
    dyn = _dyn(shape, dynamic)
    ty, tf = _ty(shape, dyn, t), _ty(shape, dyn, "f32")
    pb = PartBuilder("silu-mul backward %s %s%s%s" % ("x".join(map(str, shape)), t,
                                                      " dynamic" if dynamic else "",
                                                      ", NaN and inf in g, u, dy" if special
                                                      else ""))
    for name, a in (("g", g), ("u", u), ("dy", dy)):
        pb.arg(name, a, t, dyn)
    L = pb.line
    for name in ("g", "u", "dy"):
        L("%%%sf = fuser.cast %%%s : %s to %s" % (name, name, ty, tf))
    L("%one = fuser.constant 1.0 : tensor<f32>")
    L("%%sg = fuser.sigmoid %%gf : %s" % tf)
    L("%%silu = fuser.mul %%gf, %%sg : %s" % tf)
    L("%%du = fuser.mul %%dyf, %%silu : %s" % tf)
    L("%%oms = fuser.sub %%one, %%sg : tensor<f32>, %s" % tf)
    L("%%t = fuser.mul %%gf, %%oms : %s" % tf)
    L("%%t1 = fuser.add %%one, %%t : tensor<f32>, %s" % tf)
    L("%%ds = fuser.mul %%sg, %%t1 : %s" % tf)
    L("%%dg0 = fuser.mul %%dyf, %%uf : %s" % tf)
    L("%%dg1 = fuser.mul %%dg0, %%ds : %s" % tf)
    L("%%0 = fuser.cast %%dg1 : %s to %s" % (tf, ty))
    L("%%1 = fuser.cast %%du : %s to %s" % (tf, ty))
    g64, u64, dy64 = (_t64(a, t).requires_grad_(a is not dy) for a in (g, u, dy))
    y = torch.nn.functional.silu(g64) * u64
    dg, du = torch.autograd.grad(y, (g64, u64), dy64)
    sg = torch.sigmoid(g64.detach())
    # sigmoid within 2 ulp (fast math), then ~6 f32 steps
    tol_g = U * 12 * (dy64.abs() * u64.detach().abs() * sg * (1 + g64.detach().abs()))
    tol_u = U * 8 * (dy64.abs() * g64.detach().abs() * sg)
    if special:
        assert np.isnan(dg.numpy()).any() and np.isinf(dg.numpy()).any()
    pb.result("0", shape, t, from_f64(dg.numpy(), t), Ulps(1, _finite_tol(tol_g.numpy())),
              dims=dyn)
    pb.result("1", shape, t, from_f64(du.numpy(), t), Ulps(1, _finite_tol(tol_u.numpy())),
              dims=dyn)
    return pb.part()


def _unary_bwd_part(rng, t, shape, act, dynamic, special=False):
    """tanh and sigmoid backward from the forward's output y, as PyTorch's
    tanh_backward and sigmoid_backward compute them (dy (1 - y^2), dy y
    (1 - y)); silu backward from x (dy s (1 + x (1 - s)), s = sigmoid(x)).
    `special`: NaN, inf and -inf in x (y = NaN, +-1 or 0 and 1) and in dy
    (inf * 0 where y saturated: NaN, as in PyTorch)."""
    x = _data(rng, shape, t, 3.0)
    dy = _data(rng, shape, t)
    if special:
        sp = _elem_specials(shape, ("x", "dy"))
        x, dy = _put(x, t, sp["x"]), _put(dy, t, sp["dy"])
    x64, dy64 = _t64(x, t), _t64(dy, t)
    fwd = {"tanh": torch.tanh, "sigmoid": torch.sigmoid, "silu": torch.nn.functional.silu}[act]
    dyn = _dyn(shape, dynamic)
    ty, tf = _ty(shape, dyn, t), _ty(shape, dyn, "f32")
    pb = PartBuilder("%s backward %s %s%s%s" % (act, "x".join(map(str, shape)), t,
                                                " dynamic" if dynamic else "",
                                                ", NaN and inf in x and dy" if special else ""))
    L = pb.line
    L("%one = fuser.constant 1.0 : tensor<f32>")
    if act == "silu":
        pb.arg("x", x, t, dyn)
        pb.arg("dy", dy, t, dyn)
        L("%%xf = fuser.cast %%x : %s to %s" % (ty, tf))
        L("%%s = fuser.sigmoid %%xf : %s" % tf)
        L("%%oms = fuser.sub %%one, %%s : tensor<f32>, %s" % tf)
        L("%%xo = fuser.mul %%xf, %%oms : %s" % tf)
        L("%%a = fuser.add %%one, %%xo : tensor<f32>, %s" % tf)
        L("%%g = fuser.mul %%s, %%a : %s" % tf)
        s64 = torch.sigmoid(x64)
        want = dy64 * s64 * (1 + x64 * (1 - s64))
        # sigmoid within 2 ulp, then 4 steps, each scaled by its term
        tol = U * 12 * dy64.abs() * s64 * (1 + x64.abs())
    else:
        y = from_f64(fwd(x64).numpy(), t)  # the forward's output, as stored
        y64 = _t64(y, t)
        pb.arg("y", y, t, dyn)
        pb.arg("dy", dy, t, dyn)
        L("%%yf = fuser.cast %%y : %s to %s" % (ty, tf))
        if act == "tanh":
            L("%%y2 = fuser.mul %%yf, %%yf : %s" % tf)
            L("%%g = fuser.sub %%one, %%y2 : tensor<f32>, %s" % tf)
            want = dy64 * (1 - y64 * y64)
            tol = U * 4 * dy64.abs() * (1 + y64 * y64)
        else:
            L("%%omy = fuser.sub %%one, %%yf : tensor<f32>, %s" % tf)
            L("%%g = fuser.mul %%yf, %%omy : %s" % tf)
            want = dy64 * y64 * (1 - y64)
            tol = U * 4 * dy64.abs() * y64.abs() * (1 + (1 - y64).abs())
    L("%%dyf = fuser.cast %%dy : %s to %s" % (ty, tf))
    L("%%dx = fuser.mul %%dyf, %%g : %s" % tf)
    L("%%0 = fuser.cast %%dx : %s to %s" % (tf, ty))
    # the formula is autograd's, up to the stored y's rounding
    xg = x64.clone().requires_grad_(True)
    (gx,) = torch.autograd.grad(fwd(xg), xg, dy64)
    stored = 0 if act == "silu" else 4 * 2.0 ** -8 if t == "bf16" else 4 * 2.0 ** -11 if t == "f16" \
        else 4 * U
    if special:
        # PyTorch's semantics: its backward kernel (the one autograd calls)
        # on the stored y (silu: on x) is the reference, NaN and infinities
        # included; the formula above agrees with it
        bwd = {"tanh": torch.ops.aten.tanh_backward, "sigmoid": torch.ops.aten.sigmoid_backward,
               "silu": torch.ops.aten.silu_backward}[act]
        if act == "silu":
            assert _same_specials(gx.numpy(), bwd(dy64, x64).numpy())
            want_k = bwd(dy64, x64)
        else:
            assert _same_specials(gx.numpy(), bwd(dy64, fwd(x64)).numpy())
            want_k = bwd(dy64, y64)
        assert _same_specials(want_k.numpy(), want.numpy())
        assert np.isnan(want.numpy()).any() and np.isinf(want.numpy()).any()
        tol = torch.from_numpy(_finite_tol(tol.numpy()))
    else:
        assert bool(((gx - want).abs() <= stored * dy64.abs() + 1e-12).all())
    pb.result("0", shape, t, from_f64(want.numpy(), t), Ulps(1, tol.numpy()), dims=dyn)
    return pb.part()


def _gelu_bwd_part(rng, t, shape, approximate, dynamic=False, special=False):
    x, dy = _data(rng, shape, t, 3.0), _data(rng, shape, t)
    if special:
        # x = +-inf: inf * 0 in both forms (x phi(x); x sech^2), NaN as in
        # PyTorch's gelu_backward
        sp = _elem_specials(shape, ("x", "dy"))
        x, dy = _put(x, t, sp["x"]), _put(dy, t, sp["dy"])
    dyn = _dyn(shape, dynamic)
    ty, tf = _ty(shape, dyn, t), _ty(shape, dyn, "f32")
    pb = PartBuilder("gelu(%s) backward %s %s%s%s" % (
        approximate, "x".join(map(str, shape)), t, " dynamic" if dynamic else "",
        ", NaN and inf in x and dy" if special else ""))
    pb.arg("x", x, t, dyn)
    pb.arg("dy", dy, t, dyn)
    L = pb.line
    L("%%xf = fuser.cast %%x : %s to %s" % (ty, tf))
    L("%%dyf = fuser.cast %%dy : %s to %s" % (ty, tf))
    L("%half = fuser.constant 0.5 : tensor<f32>")
    L("%one = fuser.constant 1.0 : tensor<f32>")
    if approximate == "tanh":
        # d/dx 0.5 x (1 + tanh(k (x + c x^3)))
        L("%k = fuser.constant 0.797884583 : tensor<f32>")
        L("%c = fuser.constant 0.044715 : tensor<f32>")
        L("%c3 = fuser.constant 0.134145 : tensor<f32>")
        L("%%x2 = fuser.mul %%xf, %%xf : %s" % tf)
        L("%%x3 = fuser.mul %%x2, %%xf : %s" % tf)
        L("%%cx3 = fuser.mul %%c, %%x3 : tensor<f32>, %s" % tf)
        L("%%in0 = fuser.add %%xf, %%cx3 : %s" % tf)
        L("%%in = fuser.mul %%k, %%in0 : tensor<f32>, %s" % tf)
        L("%%th = fuser.tanh %%in : %s" % tf)
        L("%%a = fuser.add %%one, %%th : tensor<f32>, %s" % tf)
        L("%%left = fuser.mul %%half, %%a : tensor<f32>, %s" % tf)
        L("%%th2 = fuser.mul %%th, %%th : %s" % tf)
        L("%%sech2 = fuser.sub %%one, %%th2 : tensor<f32>, %s" % tf)
        L("%%c3x2 = fuser.mul %%c3, %%x2 : tensor<f32>, %s" % tf)
        L("%%d0 = fuser.add %%one, %%c3x2 : tensor<f32>, %s" % tf)
        L("%%d1 = fuser.mul %%k, %%d0 : tensor<f32>, %s" % tf)
        L("%%d2 = fuser.mul %%sech2, %%d1 : %s" % tf)
        L("%%d3 = fuser.mul %%xf, %%d2 : %s" % tf)
        L("%%d4 = fuser.mul %%half, %%d3 : tensor<f32>, %s" % tf)
        L("%%grad = fuser.add %%left, %%d4 : %s" % tf)
    else:
        # d/dx x Phi(x) = Phi(x) + x phi(x)
        L("%r2 = fuser.constant 0.707106769 : tensor<f32>")
        L("%rp = fuser.constant 0.398942292 : tensor<f32>")
        L("%mh = fuser.constant -0.5 : tensor<f32>")
        L("%%s = fuser.mul %%xf, %%r2 : %s, tensor<f32>" % tf)
        L("%%erf = fuser.erf %%s : %s" % tf)
        L("%%a = fuser.add %%one, %%erf : tensor<f32>, %s" % tf)
        L("%%cdf = fuser.mul %%half, %%a : tensor<f32>, %s" % tf)
        L("%%x2 = fuser.mul %%xf, %%xf : %s" % tf)
        L("%%e0 = fuser.mul %%mh, %%x2 : tensor<f32>, %s" % tf)
        L("%%e = fuser.exp %%e0 : %s" % tf)
        L("%%pdf = fuser.mul %%rp, %%e : tensor<f32>, %s" % tf)
        L("%%xp = fuser.mul %%xf, %%pdf : %s" % tf)
        L("%%grad = fuser.add %%cdf, %%xp : %s" % tf)
    L("%%dx = fuser.mul %%dyf, %%grad : %s" % tf)
    L("%%0 = fuser.cast %%dx : %s to %s" % (tf, ty))
    x64 = _t64(x, t).requires_grad_(True)
    y = torch.nn.functional.gelu(x64, approximate=approximate)
    (gx,) = torch.autograd.grad(y, x64, _t64(dy, t))
    xa = x64.detach().abs()
    k, c = math.sqrt(2 / math.pi), 0.044715
    if approximate == "tanh":
        # left = 0.5 (1 + tanh): a few u; the right term 0.5 x k (1 + 3c x^2)
        # sech^2: its own roundings, and sech^2 = 1 - tanh^2 carries tanh's
        # 2 ulp times the term's size without the sech^2
        right = 0.5 * xa * k * (1 + 3 * c * xa ** 2)
        tol = U * _t64(dy, t).abs() * (8 + 16 * right)
    else:
        # Phi (erf within 2 ulp) and x phi (exp within 2 ulp), a few steps each
        pdf = torch.exp(-0.5 * xa ** 2) / math.sqrt(2 * math.pi)
        tol = U * _t64(dy, t).abs() * (8 + 8 * xa * pdf)
    if special:
        assert np.isnan(gx.numpy()).any() and np.isinf(gx.numpy()).any()
    pb.result("0", shape, t, from_f64(gx.numpy(), t), Ulps(1, _finite_tol(tol.numpy())),
              dims=dyn)
    return pb.part()


def _parts(kind, t, name, rng_for):
    rng = rng_for(name)
    parts = []
    if kind == "softmax":
        for log in (False, True):
            for shape, dim, dyn in (((9, 1031), 1, False), ((5, 100), 1, True), ((3, 1), 1, False),
                                    ((130, 9), 0, False), ((4, 4097), 1, False)):
                parts.append(_softmax_bwd_part(rng, t, shape, dim, log, dyn))
            # NaN and infinities in dy and x (_SOFTMAX_SPECIALS): rows of
            # 1, 100, 1031, 4097 and a reduction along dim 0
            for shape, dim, dyn in (((9, 1031), 1, False), ((8, 100), 1, True), ((8, 1), 1, False),
                                    ((100, 9), 0, False), ((8, 4097), 1, True)):
                parts.append(_softmax_bwd_part(rng, t, shape, dim, log, dyn, special=True))
    elif kind == "dropout-u8":
        for rows, h, dyn in ((7, 100, False), (5, 1031, True), (3, 4097, False)):
            parts.append(_dropout_ln_bwd_part(rng, rows, h, dyn))
    elif kind == "norm":
        for rms in (False, True):
            # (inner-outer variants: rows on chip with registers, several row
            # blocks per block (600 x 64, 300 x 256 dynamic), accumulators in
            # shared memory (3 x 16384, 2 x 12000 dynamic), scalar slots (5 x
            # 1031 dynamic; 2 x 4097 dynamic with the accumulators in shared
            # memory))
            for rows, h, dyn in ((7, 100, False), (5, 1031, True), (3, 7, False), (4, 1, False),
                                 (2, 4097, False), (65, 64, True), (600, 64, False),
                                 (300, 256, True), (3, 16384, False), (2, 12000, True),
                                 (2, 4097, True)):
                parts.append(_norm_bwd_part(rng, t, rows, h, rms, dyn))
            for rows, h, dyn in ((7, 100, False), (3, 16384, False), (5, 1031, True)):
                parts.append(_norm_bwd_part(rng, t, rows, h, rms, dyn, special=True))
    elif kind == "activations":
        for shape, dyn in (((6, 1031), False), ((5, 100), True), ((1,), False)):
            parts.append(_swiglu_bwd_part(rng, t, shape, dyn))
        for approximate in ("tanh", "none"):
            parts.append(_gelu_bwd_part(rng, t, (7, 513), approximate))
        for act in ("tanh", "sigmoid", "silu"):
            for shape, dyn in (((7, 513), False), ((3, 100), True)):
                parts.append(_unary_bwd_part(rng, t, shape, act, dyn))
        # NaN, inf and -inf in every input, each at its own element
        for shape, dyn in (((6, 1031), False), ((5, 100), True)):
            parts.append(_swiglu_bwd_part(rng, t, shape, dyn, special=True))
        for approximate in ("tanh", "none"):
            parts.append(_gelu_bwd_part(rng, t, (7, 513), approximate, special=True))
        for act in ("tanh", "sigmoid", "silu"):
            parts.append(_unary_bwd_part(rng, t, (3, 100), act, True, special=True))
    elif kind == "norm-misaligned":
        # every tensor one element past 16-byte alignment (fuserc run
        # --misalign): the scalar variants, static and at launch, rows in
        # registers, with the accumulators in shared memory (4097 to 8192),
        # read again (past 8192)
        for rms in (False, True):
            for rows, h, dyn in ((7, 100, False), (2, 4097, False), (2, 6000, False),
                                 (2, 8193, False), (5, 1031, True), (2, 4097, True),
                                 (2, 8000, True), (2, 12000, True)):
                parts.append(_norm_bwd_part(rng, t, rows, h, rms, dyn))
    elif kind == "misaligned":
        # every tensor one element past 16-byte alignment (fuserc run
        # --misalign): softmax and log_softmax backward with rows of 1, 7,
        # 100, 4097 (static and dynamic, along dim 1 and dim 0), and the
        # activations' backward on 1, 7, 100 and 4097 elements a row; a part
        # of each with NaN and infinities
        for log in (False, True):
            for shape, dim, dyn in (((7, 1), 1, False), ((5, 7), 1, True), ((9, 100), 1, False),
                                    ((3, 4097), 1, True), ((2, 4097), 1, False),
                                    ((100, 7), 0, True)):
                parts.append(_softmax_bwd_part(rng, t, shape, dim, log, dyn))
            parts.append(_softmax_bwd_part(rng, t, (8, 100), 1, log, True, special=True))
        for shape, dyn in (((7,), False), ((3, 100), True), ((2, 4097), False)):
            parts.append(_swiglu_bwd_part(rng, t, shape, dyn))
        parts.append(_swiglu_bwd_part(rng, t, (3, 100), True, special=True))
        for approximate, shape, dyn in (("tanh", (1,), False), ("none", (7,), True),
                                        ("tanh", (3, 100), True), ("none", (2, 4097), False)):
            parts.append(_gelu_bwd_part(rng, t, shape, approximate, dyn))
        parts.append(_gelu_bwd_part(rng, t, (3, 100), "tanh", True, special=True))
        for act, shape, dyn in (("tanh", (7,), True), ("sigmoid", (3, 100), False),
                                ("silu", (2, 4097), True), ("tanh", (2, 4097), False),
                                ("sigmoid", (1,), True), ("silu", (3, 7), False)):
            parts.append(_unary_bwd_part(rng, t, shape, act, dyn))
        parts.append(_unary_bwd_part(rng, t, (3, 100), "sigmoid", False, special=True))
    return parts


def _cases(rng_for, kinds, extra=()):
    out = []
    for kind, types in kinds:
        for t in types:
            name = "training/%s/%s" % (kind, t)
            out.append(Case(name, _bind(_parts, kind, t, name, rng_for), extra))
    return out


def cases(rng_for):
    """softmax, log_softmax and the activations' backward; dropout +
    residual + layer_norm backward with a uint8 mask."""
    return _cases(rng_for, (("softmax", ("f32",)), ("activations", ("bf16", "f32")),
                            ("dropout-u8", ("bf16",))))


def misaligned_cases(rng_for):
    """softmax, log_softmax and the activations' backward in bf16 and f32
    with every tensor one element past 16-byte alignment (fuserc run
    --misalign)."""
    return _cases(rng_for, (("misaligned", ("bf16", "f32")),), extra=["--misalign"])


def norm_cases(rng_for):
    """layer_norm and rms_norm backward in bf16 and f16 (suites of their own:
    they compile every variant of the inner-outer kernel, about 60 s a type)."""
    return _cases(rng_for, (("norm", ("bf16", "f16")),))


def norm_misaligned_cases(rng_for):
    """layer_norm and rms_norm backward in bf16 with every tensor one
    element past 16-byte alignment (fuserc run --misalign)."""
    return _cases(rng_for, (("norm-misaligned", ("bf16",)),), extra=["--misalign"])


def norm_f32_cases(rng_for):
    """layer_norm and rms_norm backward in f32."""
    return _cases(rng_for, (("norm", ("f32",)),))


SWEEP_H = (1, 7, 64, 100, 1000, 4096, 4097, 16384)
SWEEP_N = (1, 3, 128, 4096)


def _sweep_parts(t, name, rng_for):
    rng = rng_for(name)
    parts = []
    for rms in (False, True):
        for n in SWEEP_N:
            for h in SWEEP_H:
                if n * h > 2 ** 21 and (n, h) != (4096, 1024):
                    continue
                for dyn in (False, True):
                    parts.append(_norm_bwd_part(rng, t, n, h, rms, dyn))
    return parts


def sweep_cases(rng_for):
    out = []
    for t in ("bf16", "f32"):
        name = "training-sweep/norm/%s" % t
        out.append(Case(name, _bind(_sweep_parts, t, name, rng_for)))
    return out
