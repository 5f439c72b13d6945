"""Scans: fuser.cumsum, cumprod, cummax and cummin along every dim of ranks 1 to 3, for f16, bf16, f32,
f64 and i64, over lines of 1 to 4097 elements (a warp per line along the
contiguous dim, a thread per line along the others), empty dims, dynamic
sizes, and fused with the ops that compute its input (exp, a cast of an
attention mask: position ids as Hugging Face computes them).

References: float64 cumulative sums rounded once to the result type (i64:
numpy's, which wraps like fuser's). Bounds: fuser sums a line's elements in
32-element chunks by a tree of 5 steps, carrying from chunk to chunk (along
the contiguous dim), or in order (the others); either way at most
n + 8 roundings of f32 (or f64) touch an element's prefix, so the error is
within (n + 8) u times the prefix sum of magnitudes, plus the rounding to
the result type, as long as no partial sum of a window overflows (the
values here are far from it; docs/schedulers.md "Scans")."""

import numpy as np
import torch

from .core import Bits, Case, Exact, PartBuilder, Ulps, from_f64, mlir_type, np_dtype, to_f64

EXACT = Exact()
FLOAT_SCAN_TYPES = ("f16", "bf16", "f32", "f64")
U = {"f16": 2.0 ** -24, "bf16": 2.0 ** -24, "f32": 2.0 ** -24, "f64": 2.0 ** -53}


def _bind(fn, *a):
    return lambda: fn(*a)


# (shape, dim)
SCANS = [((1031,), 0), ((1,), 0), ((4, 100), 1), ((4, 100), 0), ((3, 5, 7), 1), ((3, 5, 7), 2),
         ((3, 5, 7), 0), ((2, 3, 4097), 2), ((2, 33), 1), ((0, 5), 1), ((5, 0), 1), ((64, 1), 1),
         ((1, 64), 0), ((300, 2), 0)]


def _want(x64, dim, t):
    return from_f64(np.cumsum(x64, axis=dim), t)


def _bound(x64, dim, t):
    n = x64.shape[dim] if x64.ndim else 1
    return (n + 8) * U[t] * np.cumsum(np.abs(x64), axis=dim) + 1e-300


def _float_parts(t, name, rng_for):
    rng = rng_for(name)
    parts = []
    for shape, dim in SCANS:
        x = from_f64(rng.standard_normal(shape), t)
        x64 = to_f64(x, t)
        pb = PartBuilder("cumsum %s dim %d" % (shape, dim))
        tx = pb.arg("x", x, t)
        pb.line("%%0 = fuser.cumsum %%x dim = %d : %s" % (dim, tx))
        pb.result("0", shape, t, _want(x64, dim, t), Ulps(1, _bound(x64, dim, t)))
        parts.append(pb.part())
    # dynamic sizes
    for shape, dim in [((6, 70), 1), ((9, 4), 0), ((2, 3, 40), 2)]:
        x = from_f64(rng.standard_normal(shape), t)
        x64 = to_f64(x, t)
        dyn = tuple(None for _ in shape)
        pb = PartBuilder("cumsum %s as %s dim %d" % (mlir_type(dyn, t), shape, dim))
        tx = pb.arg("x", x, t, dyn)
        pb.line("%%0 = fuser.cumsum %%x dim = %d : %s" % (dim, tx))
        pb.result("0", shape, t, _want(x64, dim, t), Ulps(1, _bound(x64, dim, t)), dims=dyn)
        parts.append(pb.part())
    # cumsum(exp(x)): the producer in the scan's kernel (16-bit floats cast
    # to f32 first)
    x = from_f64(rng.standard_normal((5, 200)), t)
    e64 = np.exp(to_f64(x, t))
    ct = "f32" if t in ("f16", "bf16") else t
    pb = PartBuilder("cumsum(exp(x)) 5x200 dim 1")
    tx = pb.arg("x", x, t)
    tc = mlir_type((5, 200), ct)
    src = "%x"
    if ct != t:
        pb.line("%%xf = fuser.cast %%x : %s to %s" % (tx, tc))
        src = "%xf"
    pb.line("%%e = fuser.exp %s : %s" % (src, tc))
    pb.line("%%0 = fuser.cumsum %%e dim = 1 : %s" % tc)
    # exp within 2 ulp (the fast tier) on every term
    pb.result("0", (5, 200), ct, from_f64(np.cumsum(e64, axis=1), ct),
              Ulps(1, (200 + 8 + 4) * U[ct] * np.cumsum(e64, axis=1)))
    parts.append(pb.part())
    return parts


def _prod_parts(t, name, rng_for):
    """cumprod of values near 1 (so that long lines neither overflow nor
    vanish), and a zero and an infinity that reach every later element."""
    rng = rng_for(name)
    parts = []
    for shape, dim in SCANS:
        x = from_f64(1 + 0.01 * rng.standard_normal(shape), t)
        x64 = to_f64(x, t)
        want64 = np.cumprod(x64, axis=dim)
        n = shape[dim]
        pb = PartBuilder("cumprod %s dim %d" % (shape, dim))
        tx = pb.arg("x", x, t)
        pb.line("%%0 = fuser.cumprod %%x dim = %d : %s" % (dim, tx))
        # each product one rounding: relative (n + 8) u
        pb.result("0", shape, t, from_f64(want64, t),
                  Ulps(1, (n + 8) * U[t] * np.abs(want64) + 1e-300))
        parts.append(pb.part())
    x64 = np.array([2.0, 0.5, 0.0, 3.0, np.inf, -1.0])
    x = from_f64(x64, t)
    pb = PartBuilder("cumprod through 0 and inf")
    tx = pb.arg("x", x, t)
    pb.line("%%0 = fuser.cumprod %%x dim = 0 : %s" % tx)
    pb.result("0", (6,), t, from_f64(np.cumprod(x64), t), EXACT)  # 2 1 0 0 nan nan
    parts.append(pb.part())
    return parts


def _int_parts(name, rng_for):
    rng = rng_for(name)
    parts = []
    for shape, dim in SCANS:
        x = rng.integers(-1000, 1000, shape).astype(np.int64)
        pb = PartBuilder("cumsum %s dim %d" % (shape, dim))
        tx = pb.arg("x", x, "i64")
        pb.line("%%0 = fuser.cumsum %%x dim = %d : %s" % (dim, tx))
        pb.result("0", shape, "i64", np.cumsum(x, axis=dim), EXACT)
        parts.append(pb.part())
    # wrapping: int64 sums past 2^63 wrap, as in PyTorch
    x = np.array([2 ** 62, 2 ** 62, 2 ** 62, -5], dtype=np.int64)
    pb = PartBuilder("cumsum wraps past 2^63")
    tx = pb.arg("x", x, "i64")
    pb.line("%%0 = fuser.cumsum %%x dim = 0 : %s" % tx)
    pb.result("0", (4,), "i64", torch.cumsum(torch.from_numpy(x), 0).numpy(), EXACT)
    parts.append(pb.part())
    # cumprod: small factors, and wrapping past 2^63
    x = rng.integers(-3, 4, (3, 40)).astype(np.int64)
    pb = PartBuilder("cumprod 3x40 dim 1")
    tx = pb.arg("x", x, "i64")
    pb.line("%%0 = fuser.cumprod %%x dim = 1 : %s" % tx)
    pb.result("0", (3, 40), "i64", torch.cumprod(torch.from_numpy(x), 1).numpy(), EXACT)
    parts.append(pb.part())
    # position ids from an attention mask (Hugging Face): cumsum(mask) * mask
    # - 1, the i1 mask cast to i64 in the scan's kernel
    mask = rng.random((4, 77)) < 0.8
    pb = PartBuilder("position ids from an attention mask, 4x?")
    tm = pb.arg("mask", mask, "i1", (4, None))
    ti = mlir_type((4, None), "i64")
    pb.line("%%m = fuser.cast %%mask : %s to %s" % (tm, ti))
    pb.line("%%0 = fuser.cumsum %%m dim = 1 : %s" % ti)
    pb.result("0", (4, 77), "i64", np.cumsum(mask.astype(np.int64), axis=1), EXACT,
              dims=(4, None))
    parts.append(pb.part())
    return parts


EXTREMUM_TYPES = ("f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64")


def _cum_extremum(a, dim, is_max):
    """PyTorch's sequential rule (aten's cummax_cummin_helper) on values `a`
    (float64 for floats: exact): element j replaces the running value when
    it is NaN, or when the running value is not NaN and x[j] >= it (<= for
    the minimum): ties go to the later position, the latest NaN stays."""
    a = np.moveaxis(np.asarray(a), dim, -1)
    vals = np.empty_like(a)
    idx = np.zeros(a.shape, dtype=np.int64)
    floats = a.dtype.kind == "f"
    if a.shape[-1] == 0:
        return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)
    out, at = a[..., 0].copy(), np.zeros(a.shape[:-1], dtype=np.int64)
    with np.errstate(invalid="ignore"):
        for j in range(a.shape[-1]):
            cur = a[..., j]
            better = cur >= out if is_max else cur <= out
            take = (np.isnan(cur) | (~np.isnan(out) & better)) if floats else better
            out = np.where(take, cur, out)
            at = np.where(take, j, at)
            vals[..., j] = out
            idx[..., j] = at
    return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)


def _extremum_input(rng, shape, t):
    """Values with many ties: small integers, and for floats NaNs, both
    infinities and both zeros; the integer types' extremes."""
    if t == "i1":
        return rng.random(shape) < 0.5
    if t in ("i8", "i32", "i64"):
        info = np.iinfo(np_dtype(t))
        x = rng.integers(-4, 5, shape).astype(np_dtype(t))
        pick = rng.random(shape)
        x[pick < 0.05] = info.min
        x[pick > 0.95] = info.max
        return x
    x64 = rng.integers(-4, 5, shape).astype(np.float64)
    pick = rng.random(shape)
    x64[pick < 0.02] = np.nan
    x64[(pick >= 0.02) & (pick < 0.04)] = np.inf
    x64[(pick >= 0.04) & (pick < 0.06)] = -np.inf
    x64[x64 == 0] = np.where(rng.random(shape) < 0.5, 0.0, -0.0)[x64 == 0]
    return from_f64(x64, t)


def _torch_check(x, t, dim, is_max, vals, idx):
    """The reference against PyTorch itself where it has the type (Debian's
    torch 1.13 has no cummax for f16 and bf16 on the CPU)."""
    if t in ("f16", "bf16"):
        return
    fn = torch.cummax if is_max else torch.cummin
    tv, ti = fn(torch.from_numpy(np.array(x)), dim)
    tv = tv.numpy()
    same = (tv == vals) | (np.isnan(tv) & np.isnan(vals)) if tv.dtype.kind == "f" else tv == vals
    if tv.dtype.kind == "f":
        same &= np.signbit(tv) == np.signbit(vals)
    assert same.all() and (ti.numpy() == idx).all(), "the reference differs from torch.cummax"


def _extremum_parts(t, name, rng_for):
    rng = rng_for(name)
    parts = []
    floats = t in FLOAT_SCAN_TYPES
    for op in ("cummax", "cummin"):
        is_max = op == "cummax"
        for shape, dim in SCANS + [((3, 2, 600), 2)]:
            x = _extremum_input(rng, shape, t)
            ref_in = to_f64(x, t) if floats else x
            vals, idx = _cum_extremum(ref_in, dim, is_max)
            _torch_check(x, t, dim, is_max, vals, idx)
            pb = PartBuilder("%s %s dim %d" % (op, shape, dim))
            tx = pb.arg("x", x, t)
            pb.line("%%v, %%i = fuser.%s %%x dim = %d : %s -> %s"
                    % (op, dim, tx, mlir_type(shape, "i64")))
            pb.result("v", shape, t, from_f64(vals, t) if floats else vals, EXACT)
            pb.result("i", shape, "i64", idx, EXACT)
            parts.append(pb.part())
    # dynamic sizes, only the indices written (an argmax so far)
    shape, dim = (5, 300), 1
    x = _extremum_input(rng, shape, t)
    vals, idx = _cum_extremum(to_f64(x, t) if floats else x, dim, True)
    pb = PartBuilder("cummax %s indices only" % mlir_type((None, None), t))
    tx = pb.arg("x", x, t, (None, None))
    pb.line("%%v, %%i = fuser.cummax %%x dim = %d : %s -> %s"
            % (dim, tx, mlir_type((None, None), "i64")))
    pb.result("i", shape, "i64", idx, EXACT, dims=(None, None))
    parts.append(pb.part())
    return parts


def _nan_bits_parts(t, name, rng_for):
    """cummax and cummin return the input's own elements: a NaN keeps its
    payload and sign (PyTorch copies it), for 16-bit floats too, which
    compare as f32 but must not round-trip their bits through it."""
    bits = {"f16": [0x3C00, 0x7E01, 0x4000, 0xFE02, 0x3800],
            "bf16": [0x3F80, 0x7FC1, 0x4000, 0xFFC2, 0x3F00],
            "f32": [0x3F800000, 0x7FC00001, 0x40000000, 0xFFC00002, 0x3F000000],
            "f64": [0x3FF0000000000000, 0x7FF8000000000001, 0x4000000000000000,
                    0xFFF8000000000002, 0x3FE0000000000000]}[t]
    storage = {"f16": np.uint16, "bf16": np.uint16, "f32": np.uint32, "f64": np.uint64}[t]
    x = np.array(bits, dtype=storage).view(np_dtype(t)) if t != "bf16" else np.array(bits, np.uint16)
    parts = []
    for op in ("cummax", "cummin"):
        # PyTorch's rule: the running value becomes each NaN as it comes
        want = np.array([bits[0], bits[1], bits[1], bits[3], bits[3]], dtype=storage)
        want = want.view(np_dtype(t)) if t != "bf16" else want
        pb = PartBuilder("%s keeps NaN payloads and signs" % op)
        tx = pb.arg("x", x, t)
        pb.line("%%v, %%i = fuser.%s %%x dim = 0 : %s -> %s" % (op, tx, mlir_type((5,), "i64")))
        pb.result("v", (5,), t, want, Bits())
        pb.result("i", (5,), "i64", np.array([0, 1, 1, 3, 3]), EXACT)
        parts.append(pb.part())
    return parts


def _running_max_of_scores(name, rng_for):
    """cummax fused with what computes its input: the running maximum of
    bf16 scores scaled in f32 (an online-softmax style running max), and
    cummin of a negation in the scan's kernel."""
    rng = rng_for(name)
    x = from_f64(rng.standard_normal((4, 1000)), "bf16")
    s64 = to_f64(x, "bf16").astype(np.float32).astype(np.float64) * 0.125
    vals, idx = _cum_extremum(s64, 1, True)
    nvals, nidx = _cum_extremum(-to_f64(x, "bf16"), 0, False)
    pb = PartBuilder("cummax(cast(x) * 0.125), cummin(-x)")
    tx = pb.arg("x", x, "bf16")
    tf = mlir_type((4, 1000), "f32")
    pb.line("%%xf = fuser.cast %%x : %s to %s" % (tx, tf))
    pb.line("%c = fuser.constant 0.125 : tensor<f32>")
    pb.line("%%cb = fuser.broadcast %%c dims = [] : tensor<f32> -> %s" % tf)
    pb.line("%%s = fuser.mul %%xf, %%cb : %s" % tf)
    pb.line("%%v, %%i = fuser.cummax %%s dim = 1 : %s -> %s" % (tf, mlir_type((4, 1000), "i64")))
    pb.line("%%n = fuser.neg %%x : %s" % tx)
    pb.line("%%w, %%j = fuser.cummin %%n dim = 0 : %s -> %s" % (tx, mlir_type((4, 1000), "i64")))
    pb.result("v", (4, 1000), "f32", vals.astype(np.float32), EXACT)
    pb.result("i", (4, 1000), "i64", idx, EXACT)
    pb.result("w", (4, 1000), "bf16", from_f64(nvals, "bf16"), EXACT)
    pb.result("j", (4, 1000), "i64", nidx, EXACT)
    return [pb.part()]


def cases(rng_for):
    out = [Case("scans/cumsum/%s" % t, _bind(_float_parts, t, "scans/cumsum/%s" % t, rng_for))
           for t in FLOAT_SCAN_TYPES]
    out += [Case("scans/cumprod/%s" % t, _bind(_prod_parts, t, "scans/cumprod/%s" % t, rng_for))
            for t in FLOAT_SCAN_TYPES]
    out.append(Case("scans/cumsum/i64", _bind(_int_parts, "scans/cumsum/i64", rng_for)))
    out += [Case("scans/cummax-cummin/%s" % t,
                 _bind(_extremum_parts, t, "scans/cummax-cummin/%s" % t, rng_for))
            for t in EXTREMUM_TYPES]
    out += [Case("scans/cummax-nan-bits/%s" % t,
                 _bind(_nan_bits_parts, t, "scans/cummax-nan-bits/%s" % t, rng_for))
            for t in FLOAT_SCAN_TYPES]
    out.append(Case("scans/cummax-fused", _bind(_running_max_of_scores, "scans/cummax-fused",
                                                 rng_for)))
    return out
