"""fp8 (docs/fp8.md): casts to and from f8E4M3FN and f8E5M2, and fp8 tensors
moved by the data-movement ops.

Debian's torch has no float8 types, so the reference is written here, from
the formats' definitions and independent of fuser's bit arithmetic: the
value of each of the 256 codes, and rounding as "the nearest code, ties to
the even code", found by comparing with the exact midpoints between codes.
PyTorch's conventions (c10/util/Float8_e4m3fn.h, Float8_e5m2.h): a value
goes through float first (f64 and integers round to f32, then to fp8); a
magnitude that rounds past the largest finite value becomes NaN (e4m3fn,
which has no infinity) or infinity (e5m2); NaN becomes 0x7f with the
input's sign. `saturate` (fuser's option; PTX's .satfinite) makes overflow
and infinities the largest finite value of their sign instead.

Every result is compared bit for bit: the fp8 codes, NaN signs included,
and the wider types' exact values (any NaN matches any NaN there)."""

import numpy as np
import torch

from . import values
from .core import (Case, Exact, PartBuilder, Rule, Ulps, from_f64, from_torch,
                   ordered, to_f64, to_torch)

EXACT = Exact()
FORMATS = ("f8E4M3FN", "f8E5M2")
# mantissa bits, exponent bias
_LAYOUT = {"f8E4M3FN": (3, 7), "f8E5M2": (2, 15)}
# the largest finite code, and what overflow becomes without saturate
_MAX_FINITE = {"f8E4M3FN": 0x7E, "f8E5M2": 0x7B}
_OVERFLOW = {"f8E4M3FN": 0x7F, "f8E5M2": 0x7C}

_VALUES = {}


def code_values(t):
    """float64 value of each of the 256 codes of format t (NaN, +-inf)."""
    if t == "f8E8M0FNU" and t not in _VALUES:
        # 2^(code - 127); 0xff NaN (unsigned: no sign bit)
        v = np.ldexp(1.0, np.arange(256) - 127)
        v[255] = np.nan
        _VALUES[t] = v
    if t not in _VALUES:
        mb, bias = _LAYOUT[t]
        out = np.empty(256)
        for c in range(256):
            e, m = (c & 0x7F) >> mb, c & ((1 << mb) - 1)
            if t == "f8E4M3FN" and (c & 0x7F) == 0x7F:
                v = np.nan
            elif t == "f8E5M2" and e == 31:
                v = np.nan if m else np.inf
            elif e == 0:
                v = np.ldexp(float(m), 1 - bias - mb)
            else:
                v = np.ldexp(float(m + (1 << mb)), e - bias - mb)
            out[c] = -v if c & 0x80 else v
        _VALUES[t] = out
    return _VALUES[t]


def encode_e8m0(x32, saturate=False):
    """e8m0 codes of float32 values as PyTorch's c10::Float8_e8m0fnu makes
    them: the exponent field, plus one when the mantissa is over half, or
    exactly half of a normal number; the sign dropped; NaN and infinities
    0xff (NaN). saturate: infinities and finite results past 2^127 0xfe."""
    u = np.asarray(x32, dtype=np.float32).view(np.uint32).astype(np.int64)
    e = (u >> 23) & 0xFF
    m = u & 0x7FFFFF
    up = (m > 0x400000) | ((m == 0x400000) & (e > 0))
    code = np.where(e == 0xFF, 0xFF, e + up)
    if saturate:
        nan = (e == 0xFF) & (m != 0)
        code = np.where(nan, 0xFF, np.minimum(code, 0xFE))
    return code.astype(np.uint8)


def encode(x32, t, saturate=False):
    """The codes of float32 values x32 in format t (uint8 array)."""
    if t == "f8E8M0FNU":
        return encode_e8m0(x32, saturate)
    x32 = np.asarray(x32, dtype=np.float32)
    a = np.abs(x32.astype(np.float64)).ravel()
    neg = np.signbit(x32).ravel()
    top = _MAX_FINITE[t]
    # the codes 0..top+1, increasing in value; top+1 stands for "past the
    # largest finite value" (its value is where the next binade step would be)
    vals = code_values(t)[:top + 1].copy()
    mb, _ = _LAYOUT[t]
    step = vals[top] - vals[top - 1]
    vals = np.append(vals, vals[top] + step)
    with np.errstate(invalid="ignore"):
        hi = np.clip(np.searchsorted(vals, a, side="left"), 1, top + 1)
    lo = hi - 1
    mid = (vals[lo] + vals[hi]) / 2  # exact: few significant bits
    code = np.where(a < mid, lo, np.where(a > mid, hi, np.where(lo % 2 == 0, lo, hi)))
    code = np.where(a >= vals[top + 1], top + 1, code)  # beyond (inf too)
    over = code > top
    code = np.where(over, top if saturate else _OVERFLOW[t], code)
    code = np.where(np.isnan(a), 0x7F, code)
    code = code | np.where(neg, 0x80, 0)
    return code.astype(np.uint8).reshape(x32.shape)


def to_fp8(a, src, t, saturate=False):
    """Codes of storage array `a` of fuser type `src` cast to t, the way
    PyTorch converts: through float32."""
    if src in FORMATS or src == "f8E8M0FNU":
        x32 = code_values(src)[a.astype(np.int64)].astype(np.float32)
    elif src == "i1":
        x32 = np.asarray(a).astype(np.float32)
    elif src in ("i8", "i32", "i64"):
        x32 = torch.from_numpy(np.asarray(a).copy()).to(torch.float32).numpy()
    else:
        x32 = to_torch(a, src).to(torch.float32).numpy()
    return encode(x32, t, saturate)


def from_fp8(codes, t, dst):
    """Storage array of type dst for fp8 codes of format t (exact values)."""
    v = code_values(t)[codes.astype(np.int64)]
    if dst == "i1":
        return v != 0
    if dst in ("i32", "i64"):
        # fuser.cast to an integer: toward zero, saturating, NaN gives 0
        it = {"i32": np.int32, "i64": np.int64}[dst]
        lo, hi = np.iinfo(it).min, np.iinfo(it).max
        out = np.zeros(v.shape, dtype=it)
        fin = np.isfinite(v)
        out[fin] = np.trunc(v[fin]).astype(it)   # |v| <= 57344: in range
        out[v == np.inf] = hi
        out[v == -np.inf] = lo
        return out
    return from_f64(v, dst)


class Codes(Rule):
    """fp8 codes within `n` steps of the reference (adjacent values differ
    by one; +0 and -0 are the same), NaN exactly where the reference has
    NaN: for a quantization after arithmetic that fuser and the reference
    round differently (a layer_norm's output)."""

    def __init__(self, n):
        self.n = n
        self.name = "%d fp8 code%s" % (n, "" if n == 1 else "s")

    def check(self, got, want, t):
        def nan(a):
            mag = np.asarray(a) & 0x7F
            return mag == 0x7F if t == "f8E4M3FN" else mag > 0x7C
        gn, wn = nan(got), nan(want)
        far = np.abs(ordered(got, t).astype(np.int64) - ordered(want, t).astype(np.int64)) > self.n
        return np.where(gn | wn, gn != wn, far)


def _scaled_cast_lines(pb, src, rows, cols, t, per_row):
    """Lines of a current-scaling quantization of %src (f32 rows x cols):
    amax of |x| per row (or over the whole tensor), scale 448 / amax (or
    57344 / amax), a saturating cast; results: the codes and the
    dequantization scales amax / max (rows x 1, or rank 0)."""
    f = "tensor<%dx%dxf32>" % (rows, cols)
    a = "tensor<%dx1xf32>" % rows if per_row else "tensor<f32>"
    mx = 448.0 if t == "f8E4M3FN" else 57344.0
    pb.line("%%abs = fuser.abs %s : %s" % (src, f))
    if per_row:
        pb.line("%%amax = fuser.max %%abs dims = [1] keepdim = true : %s -> %s" % (f, a))
    else:
        pb.line("%%amax = fuser.max %%abs dims = [0, 1] : %s -> %s" % (f, a))
    pb.line("%tiny = fuser.constant 1.0e-12 : tensor<f32>")
    pb.line("%%clamped = fuser.maximum %%amax, %%tiny : %s, tensor<f32>" % a
            if per_row else "%clamped = fuser.maximum %amax, %tiny : tensor<f32>")
    pb.line("%%fmax = fuser.constant %r : tensor<f32>" % mx)
    pb.line("%%scale = fuser.div %%fmax, %%clamped : tensor<f32>, %s" % a
            if per_row else "%scale = fuser.div %fmax, %clamped : tensor<f32>")
    pb.line("%%s = fuser.broadcast %%scale dims = [%s] : %s -> %s"
            % ("0, 1" if per_row else "", a, f))
    pb.line("%%m = fuser.mul %s, %%s : %s" % (src, f))
    pb.line("%%0 = fuser.cast %%m saturate : %s to tensor<%dx%dx%s>" % (f, rows, cols, t))
    pb.line("%%1 = fuser.div %%clamped, %%fmax : %s, tensor<f32>" % a
            if per_row else "%1 = fuser.div %clamped, %fmax : tensor<f32>")
    return a, mx


def _scaled_cast_ref(y32, t, per_row):
    """(codes, dequantization scales) of _scaled_cast_lines for float32 y32,
    in float32 as fuser computes it (each op rounds once)."""
    y32 = torch.as_tensor(y32, dtype=torch.float32)
    mx = torch.tensor(448.0 if t == "f8E4M3FN" else 57344.0)
    amax = y32.abs().amax(dim=1, keepdim=True) if per_row else y32.abs().amax()
    clamped = torch.maximum(amax, torch.tensor(1e-12, dtype=torch.float32))
    scale = mx / clamped
    codes = encode((y32 * scale).numpy(), t, True)
    return codes, (clamped / mx).numpy()


def current_scaling_part(rng, rows, cols, t, per_row, src="bf16"):
    """x (src) -> f32 -> current-scaling quantization to t (per row or per
    tensor): the codes and the dequantization scales, bit for bit."""
    x = values.random(src, (rows, cols), rng, kind="normal")
    x32 = to_torch(x, src).to(torch.float32)
    pb = PartBuilder("current scaling %s %s -> %s %dx%d" % (
        "per row" if per_row else "per tensor", src, t, rows, cols))
    tx = pb.arg("x", x, src)
    pb.line("%%xf = fuser.cast %%x : %s to tensor<%dx%dxf32>" % (tx, rows, cols))
    a, _ = _scaled_cast_lines(pb, "%xf", rows, cols, t, per_row)
    codes, deq = _scaled_cast_ref(x32, t, per_row)
    pb.result("0", (rows, cols), t, codes, EXACT)
    pb.result("1", (rows, 1) if per_row else (), "f32", deq, EXACT)
    return pb.part()


def layer_norm_quant_part(rng, rows, cols, t="f8E4M3FN"):
    """layer_norm (bf16 in and out, f32 compute) then per-row current
    scaling to t, one fusion (Transformer Engine's LayerNormLinear input).
    The reference quantizes the correctly rounded layer_norm output, which
    fuser's may miss by an ulp of bf16: codes within 1, scales within 2^-6
    relative (an amax one bf16 ulp off)."""
    x = values.random("bf16", (rows, cols), rng, kind="normal")
    w = values.random("bf16", (cols,), rng, kind="normal")
    b = values.random("bf16", (cols,), rng, kind="normal")
    f64 = lambda a: torch.from_numpy(to_f64(a, "bf16"))
    y64 = torch.nn.functional.layer_norm(f64(x), (cols,), f64(w), f64(b), 1e-5)
    y32 = to_torch(from_f64(y64.numpy(), "bf16"), "bf16").to(torch.float32)
    pb = PartBuilder("layer_norm then per-row current scaling -> %s %dx%d" % (t, rows, cols))
    tx = pb.arg("x", x, "bf16")
    tw = pb.arg("w", w, "bf16")
    tb = pb.arg("b", b, "bf16")
    rb = "tensor<%dx1xf32>" % rows
    pb.line("%%y:3 = fuser.layer_norm %%x weight %%w bias %%b dims = [1] eps = 1.0e-05 "
            ": (%s, %s, %s) -> (%s, %s, %s)" % (tx, tw, tb, tx, rb, rb))
    pb.line("%%yf = fuser.cast %%y#0 : %s to tensor<%dx%dxf32>" % (tx, rows, cols))
    _scaled_cast_lines(pb, "%yf", rows, cols, t, True)
    codes, deq = _scaled_cast_ref(y32, t, True)
    pb.result("0", (rows, cols), t, codes, Codes(1))
    pb.result("1", (rows, 1), "f32", deq, Ulps(1, np.abs(deq) * 2.0 ** -6))
    return pb.part()


def block_quant_part(rng, rows, cols, block=128, t="f8E4M3FN", src="bf16"):
    """Block-scaled quantization (DeepSeek-V3's 1x128 activation tiles):
    every `block` contiguous elements of a row get their own f32 scale,
    448 / amax; results: the codes (rows x cols) and the dequantization
    scales (rows x cols/block), bit for bit."""
    nb = cols // block
    x = values.random(src, (rows, cols), rng, kind="normal")
    x32 = to_torch(x, src).to(torch.float32)
    pb = PartBuilder("block-scaled 1x%d %s -> %s %dx%d" % (block, src, t, rows, cols))
    tx = pb.arg("x", x, src)
    f3 = "tensor<%dx%dx%dxf32>" % (rows, nb, block)
    a3 = "tensor<%dx%dx1xf32>" % (rows, nb)
    mx = 448.0 if t == "f8E4M3FN" else 57344.0
    pb.line("%%xf = fuser.cast %%x : %s to tensor<%dx%dxf32>" % (tx, rows, cols))
    pb.line("%%b = fuser.reshape %%xf : tensor<%dx%dxf32> -> %s" % (rows, cols, f3))
    pb.line("%%abs = fuser.abs %%b : %s" % f3)
    pb.line("%%amax = fuser.max %%abs dims = [2] keepdim = true : %s -> %s" % (f3, a3))
    pb.line("%tiny = fuser.constant 1.0e-12 : tensor<f32>")
    pb.line("%%clamped = fuser.maximum %%amax, %%tiny : %s, tensor<f32>" % a3)
    pb.line("%%fmax = fuser.constant %r : tensor<f32>" % mx)
    pb.line("%%scale = fuser.div %%fmax, %%clamped : tensor<f32>, %s" % a3)
    pb.line("%%s = fuser.broadcast %%scale dims = [0, 1, 2] : %s -> %s" % (a3, f3))
    pb.line("%%m = fuser.mul %%b, %%s : %s" % f3)
    pb.line("%%q = fuser.cast %%m saturate : %s to tensor<%dx%dx%dx%s>" % (f3, rows, nb, block, t))
    pb.line("%%0 = fuser.reshape %%q : tensor<%dx%dx%dx%s> -> tensor<%dx%dx%s>"
            % (rows, nb, block, t, rows, cols, t))
    pb.line("%%d = fuser.div %%clamped, %%fmax : %s, tensor<f32>" % a3)
    pb.line("%%1 = fuser.reshape %%d : %s -> tensor<%dx%dxf32>" % (a3, rows, nb))
    b3 = x32.reshape(rows, nb, block)
    amax = b3.abs().amax(dim=2, keepdim=True)
    clamped = torch.maximum(amax, torch.tensor(1e-12, dtype=torch.float32))
    scale = torch.tensor(mx) / clamped
    codes = encode((b3 * scale).numpy(), t, True).reshape(rows, cols)
    pb.result("0", (rows, cols), t, codes, EXACT)
    pb.result("1", (rows, nb), "f32", (clamped / torch.tensor(mx)).reshape(rows, nb).numpy(), EXACT)
    return pb.part()


def _recipe_parts(name, rng_for):
    """The scaling recipes of fp8 training, each one fusion: current scaling
    per tensor and per row (from bf16 and f32, to both formats),
    layer_norm with per-row scaling, 1x128 block scaling, with odd sizes
    (rows that do not fill a block of threads, columns not a multiple of
    the vector width) as well as model-like ones."""
    rng = rng_for(name)
    parts = []
    for t in FORMATS:
        for per_row in (True, False):
            parts.append(current_scaling_part(rng, 37, 300, t, per_row))
        parts.append(current_scaling_part(rng, 64, 1024, t, True, src="f32"))
    parts.append(layer_norm_quant_part(rng, 64, 1024))
    parts.append(layer_norm_quant_part(rng, 5, 4096))
    parts.append(block_quant_part(rng, 16, 1024))
    parts.append(block_quant_part(rng, 3, 96, block=32, t="f8E5M2", src="f32"))
    return parts


def _bind(fn, *a):
    return lambda: fn(*a)


def _f32_probes(rng):
    """float32 values that exercise every rounding of both formats: each
    code's value, each midpoint between neighbouring codes (the ties) and
    the float32 on either side of it, the overflow boundaries, zeros,
    infinities, NaNs of both signs, float32 subnormals, and random values
    spread over the whole exponent range."""
    pts = []
    for t in FORMATS:
        v = code_values(t)
        fin = v[np.isfinite(v)]
        pts.append(fin)
        pos = np.unique(np.abs(fin))
        mids = (pos[:-1] + pos[1:]) / 2
        step = pos[-1] - pos[-2]
        mids = np.append(mids, [pos[-1] + step / 2, pos[-1] + step])
        m32 = mids.astype(np.float32)
        pts += [m32, np.nextafter(m32, np.float32(np.inf)),
                np.nextafter(m32, np.float32(0)), -m32]
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45,
                        1.17549435e-38, 3.4028235e38, -3.4028235e38,
                        2.0 ** -10, 2.0 ** -17, 2.0 ** -18, 464.0, 465.0,
                        480.0, 61440.0, 61439.996, 65536.0, 1e6],
                       dtype=np.float32)
    neg_nan = np.array([0xFFC00000, 0x7F800001, 0xFFFFFFFF],
                       dtype=np.uint32).view(np.float32)
    rnd = (rng.standard_normal(3000) * np.exp2(rng.uniform(-24, 20, 3000))).astype(np.float32)
    out = np.concatenate([np.asarray(p, dtype=np.float32) for p in pts] +
                         [special, neg_nan, rnd])
    return out.astype(np.float32)


def _encode_parts(name, rng_for):
    """f32 -> each format, with and without saturate, on the probes, in one
    kernel (1-D) and again as a 2-D tensor with a dynamic dim."""
    rng = rng_for(name)
    x = _f32_probes(rng)
    parts = []
    for t in FORMATS:
        for sat in (False, True):
            pb = PartBuilder("f32 -> %s%s" % (t, " saturate" if sat else ""))
            tx = pb.arg("x", x, "f32")
            tr = pb.result("0", x.shape, t, encode(x, t, sat), EXACT)
            pb.line("%%0 = fuser.cast %%x%s : %s to %s" % (" saturate" if sat else "", tx, tr))
            parts.append(pb.part())
    n = x.size - x.size % 8
    x2 = x[:n].reshape(-1, 8)
    for t in FORMATS:
        pb = PartBuilder("f32 ?x8 -> %s saturate" % t)
        tx = pb.arg("x", x2, "f32", dims=(None, 8))
        tr = pb.result("0", x2.shape, t, encode(x2, t, True), EXACT, dims=(None, 8))
        pb.line("%%0 = fuser.cast %%x saturate : %s to %s" % (tx, tr))
        parts.append(pb.part())
    return parts


def _decode_parts(name, rng_for):
    """Every code of each format to every float type, to i1, i32 and i64,
    and to the other format."""
    codes = np.arange(256, dtype=np.uint8)
    parts = []
    for t in FORMATS:
        for dst in ("f32", "f16", "bf16", "f64", "i1", "i32", "i64"):
            pb = PartBuilder("%s -> %s" % (t, dst))
            tx = pb.arg("x", codes, t)
            tr = pb.result("0", codes.shape, dst, from_fp8(codes, t, dst), EXACT)
            pb.line("%%0 = fuser.cast %%x : %s to %s" % (tx, tr))
            parts.append(pb.part())
        # Back to the same format through f32 (x.float().to(dtype)): every
        # NaN becomes 0x7f with its sign; with saturate, infinities the
        # largest finite. Also a saturating cast straight to the same type.
        for sat in (False, True):
            pb = PartBuilder("%s -> f32 -> %s%s" % (t, t, " saturate" if sat else ""))
            tx = pb.arg("x", codes, t)
            pb.line("%%w = fuser.cast %%x : %s to tensor<256xf32>" % tx)
            tr = pb.result("0", codes.shape, t, to_fp8(codes, t, t, sat), EXACT)
            pb.line("%%0 = fuser.cast %%w%s : tensor<256xf32> to %s" % (" saturate" if sat else "", tr))
            parts.append(pb.part())
        pb = PartBuilder("%s -> %s saturate" % (t, t))
        tx = pb.arg("x", codes, t)
        tr = pb.result("0", codes.shape, t, to_fp8(codes, t, t, True), EXACT)
        pb.line("%%0 = fuser.cast %%x saturate : %s to %s" % (tx, tr))
        parts.append(pb.part())
        other = [f for f in FORMATS if f != t][0]
        for sat in (False, True):
            pb = PartBuilder("%s -> %s%s" % (t, other, " saturate" if sat else ""))
            tx = pb.arg("x", codes, t)
            tr = pb.result("0", codes.shape, other, to_fp8(codes, t, other, sat), EXACT)
            pb.line("%%0 = fuser.cast %%x%s : %s to %s" % (" saturate" if sat else "", tx, tr))
            parts.append(pb.part())
    return parts


def _e8m0_parts(name, rng_for):
    """e8m0 (MX scales): every code to f32, f64 and bf16 and back to e8m0;
    f32 to e8m0 on every power of two, the half-binade ties and their
    neighbours, subnormals, zero, infinities and NaN, both signs, with and
    without saturate; and the bitcast to i8."""
    rng = rng_for(name)
    t = "f8E8M0FNU"
    codes = np.arange(256, dtype=np.uint8)
    parts = []
    for dst in ("f32", "f64", "bf16"):
        pb = PartBuilder("%s -> %s" % (t, dst))
        tx = pb.arg("x", codes, t)
        tr = pb.result("0", codes.shape, dst, from_fp8(codes, t, dst), EXACT)
        pb.line("%%0 = fuser.cast %%x : %s to %s" % (tx, tr))
        parts.append(pb.part())
    p = np.ldexp(np.float32(1), np.arange(-149, 128)).astype(np.float32)
    ties = (p * np.float32(1.5)).astype(np.float32)
    xs = [p, np.nextafter(p, np.float32(0)), np.nextafter(p, np.float32(np.inf)), ties,
          np.nextafter(ties, np.float32(0)), np.nextafter(ties, np.float32(np.inf)),
          np.array([0.0, np.inf, np.nan, 3.4028235e38], np.float32),
          (rng.standard_normal(500) * np.exp2(rng.uniform(-140, 120, 500))).astype(np.float32)]
    x = np.concatenate(xs)
    x = np.concatenate([x, -x]).astype(np.float32)
    for sat in (False, True):
        pb = PartBuilder("f32 -> %s%s" % (t, " saturate" if sat else ""))
        tx = pb.arg("x", x, "f32")
        tr = pb.result("0", x.shape, t, encode_e8m0(x, sat), EXACT)
        pb.line("%%0 = fuser.cast %%x%s : %s to %s" % (" saturate" if sat else "", tx, tr))
        parts.append(pb.part())
    pb = PartBuilder("%s bitcast to i8" % t)
    tx = pb.arg("x", codes, t)
    tr = pb.result("0", codes.shape, "i8", codes.view(np.int8), EXACT)
    pb.line("%%0 = fuser.bitcast %%x : %s to %s" % (tx, tr))
    parts.append(pb.part())
    return parts


def _sources_parts(name, rng_for):
    """f16, bf16, f64 and integers to each format (through f32, as PyTorch)."""
    rng = rng_for(name)
    parts = []
    for src in ("f16", "bf16", "f64", "i32", "i64", "i8", "i1"):
        if src in ("f16", "bf16", "f64"):
            x = values.with_specials(src, (40, 33), rng)
        elif src == "i1":
            x = rng.integers(0, 2, (40, 33)).astype(bool)
        else:
            lim = {"i8": 127, "i32": 2 ** 31 - 1, "i64": 2 ** 40}[src]
            x = rng.integers(-lim, lim, (40, 33)).astype(
                {"i8": np.int8, "i32": np.int32, "i64": np.int64}[src])
            x.flat[:6] = [0, 1, -1, 448, 449, 57344][:6]
        for t in FORMATS:
            pb = PartBuilder("%s -> %s" % (src, t))
            tx = pb.arg("x", x, src)
            tr = pb.result("0", x.shape, t, to_fp8(x, src, t), EXACT)
            pb.line("%%0 = fuser.cast %%x : %s to %s" % (tx, tr))
            parts.append(pb.part())
    return parts


def _movement_parts(name, rng_for):
    """fp8 tensors through the ops that only move elements, in the
    pointwise, transpose and indexing kernels: permute, slice, concat,
    broadcast, reshape, index_select, gather; and a delayed-scaling
    quantization (Transformer Engine's recipe: the scale is an input, the
    amax of this step an output) in one fusion."""
    rng = rng_for(name)
    parts = []
    for t in FORMATS:
        a = rng.integers(0, 256, (24, 40)).astype(np.uint8)
        b = rng.integers(0, 256, (24, 8)).astype(np.uint8)
        v = rng.integers(0, 256, (40,)).astype(np.uint8)
        pb = PartBuilder("moves %s" % t)
        ta = pb.arg("a", a, t)
        tb = pb.arg("b", b, t)
        tv = pb.arg("v", v, t)
        t0 = pb.result("0", (40, 24), t, a.T, EXACT)
        pb.line("%%0 = fuser.permute %%a perm = [1, 0] : %s -> %s" % (ta, t0))
        t1 = pb.result("1", (20, 17), t, a[2:22, 5:39:2], EXACT)
        pb.line("%%1 = fuser.slice %%a start = [2, 5] limit = [22, 39] step = [1, 2] : %s -> %s"
                % (ta, t1))
        t2 = pb.result("2", (24, 48), t, np.concatenate([a, b], 1), EXACT)
        pb.line("%%2 = fuser.concat %%a, %%b dim = 1 : %s, %s -> %s" % (ta, tb, t2))
        t3 = pb.result("3", (24, 40), t, np.broadcast_to(v, (24, 40)), EXACT)
        pb.line("%%3 = fuser.broadcast %%v dims = [1] : %s -> %s" % (tv, t3))
        t4 = pb.result("4", (4, 6, 40), t, a.reshape(4, 6, 40), EXACT)
        pb.line("%%4 = fuser.reshape %%a : %s -> %s" % (ta, t4))
        idx = rng.integers(0, 24, (10,)).astype(np.int64)
        ti = pb.arg("i", idx, "i64")
        t5 = pb.result("5", (10, 40), t, a[idx], EXACT)
        pb.line("%%5 = fuser.index_select %%a, %%i dim = 0 : %s, %s -> %s" % (ta, ti, t5))
        g = rng.integers(0, 40, (24, 5)).astype(np.int32)
        tg = pb.arg("g", g, "i32")
        t6 = pb.result("6", (24, 5), t, np.take_along_axis(a, g.astype(np.int64), 1), EXACT)
        pb.line("%%6 = fuser.gather %%a, %%g dim = 1 : %s, %s -> %s" % (ta, tg, t6))
        parts.append(pb.part())
    # Delayed scaling: y = cast(x * scale) saturating, amax = max |x|.
    for src in ("f32", "bf16"):
        x = values.random(src, (64, 96), rng, kind="unit")
        x32 = to_torch(x, src).to(torch.float32)
        x32 = x32 * 37.0 if src == "f32" else x32
        x = from_torch(x32, src)
        x32 = to_torch(x, src).to(torch.float32)
        scale = np.array(3.5, dtype=np.float32)
        for t in FORMATS:
            pb = PartBuilder("delayed scaling %s -> %s" % (src, t))
            tx = pb.arg("x", x, src)
            ts = pb.arg("scale", scale, "f32")
            y = encode((x32 * torch.tensor(3.5)).numpy(), t, True)
            amax = from_torch(x32.abs().amax(), "f32")
            f = "tensor<64x96xf32>"
            if src != "f32":
                pb.line("%%xf = fuser.cast %%x : %s to %s" % (tx, f))
            xs = "%xf" if src != "f32" else "%x"
            pb.line("%%s = fuser.broadcast %%scale dims = [] : %s -> %s" % (ts, f))
            pb.line("%%m = fuser.mul %s, %%s : %s" % (xs, f))
            ty = pb.result("0", (64, 96), t, y, EXACT)
            pb.line("%%0 = fuser.cast %%m saturate : %s to %s" % (f, ty))
            pb.line("%%ab = fuser.abs %s : %s" % (xs, f))
            ta = pb.result("1", (), "f32", amax, EXACT)
            pb.line("%%1 = fuser.max %%ab dims = [0, 1] : %s -> %s" % (f, ta))
            parts.append(pb.part())
    return parts


def cases(rng_for):
    return [Case("fp8/encode", _bind(_encode_parts, "fp8/encode", rng_for)),
            Case("fp8/decode", _bind(_decode_parts, "fp8/decode", rng_for)),
            Case("fp8/sources", _bind(_sources_parts, "fp8/sources", rng_for)),
            Case("fp8/movement", _bind(_movement_parts, "fp8/movement", rng_for)),
            Case("fp8/recipes", _bind(_recipe_parts, "fp8/recipes", rng_for)),
            Case("fp8/e8m0", _bind(_e8m0_parts, "fp8/e8m0", rng_for))]
