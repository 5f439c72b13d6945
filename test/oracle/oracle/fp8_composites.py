"""fp8 scaling composites (docs/fp8.md): fuser.quantize (current scaling per
tensor, per row, per block, with f32 scales as torchao computes them or e8m0
scales as OCP Microscaling defines them) and fuser.scaled_cast (delayed
scaling), each compared bit for bit with a reference written here in numpy
from the recipes' definitions, on random data, on rows of zeros (the amax
clamp), and on rows holding infinities and NaN."""

import numpy as np
import torch

from . import values
from .core import Case, PartBuilder, from_f64, to_torch
from .fp8 import EXACT, FORMATS, encode

_FMAX = {"f8E4M3FN": 448.0, "f8E5M2": 57344.0}
_EMAX = {"f8E4M3FN": 8, "f8E5M2": 15}


def _groups(x32, granularity, block):
    """x32 (rows x cols, f32) as groups along the last axis: [rows, g, n]."""
    rows, cols = x32.shape
    if granularity == "tensor":
        return x32.reshape(1, 1, rows * cols)
    if granularity == "row":
        return x32.reshape(rows, 1, cols)
    return x32.reshape(rows, cols // block, block)


def quantize_ref(x32, t, granularity, block, scale_type):
    """(codes, scale, amax) of fuser.quantize, each group's arrays shaped
    [rows, g, 1]: torchao's f32 recipe (fmax / clamp(amax, 1e-12) in f64,
    rounded to f32; x * scale) or OCP MX's e8m0 recipe (the shared exponent
    floor(log2 amax) - emax from amax's exponent field, clamped to
    [-127, 127]; x * 2^-exponent; the scale's code exponent + 127, 0xff
    where amax is NaN)."""
    g = _groups(x32, granularity, block)
    with np.errstate(invalid="ignore"):
        amax = np.maximum(np.abs(g).max(axis=2, keepdims=True), 0).astype(np.float32)
    if scale_type == "f32":
        clamped = np.maximum(amax.astype(np.float64), 1e-12)
        with np.errstate(over="ignore"):
            scale = (_FMAX[t] / clamped).astype(np.float32)
        mult = scale
        scale_out = scale
    else:
        field = (amax.view(np.int32) >> 23) & 0xFF
        code = np.clip(field - _EMAX[t], 0, 254).astype(np.int32)
        mult = ((254 - code) << 23).astype(np.int32).view(np.float32)
        scale_out = np.where(np.isnan(amax), 0xFF, code).astype(np.uint8)
    with np.errstate(over="ignore", invalid="ignore"):
        y = (g * mult).astype(np.float32)
    codes = encode(_positive_nan(y), t, True).reshape(x32.shape)
    return codes, scale_out, amax


def _positive_nan(y):
    """Every NaN the positive quiet NaN, as the composites make it before
    the cast (so that its code is 0x7f on every machine)."""
    return np.where(np.isnan(y), np.float32(np.nan), y).astype(np.float32)


def _shape(rows, groups, granularity):
    if granularity == "tensor":
        return ()
    return (rows, groups)


def quantize_part(rng, rows, cols, t, granularity, block=None, scale_type="f32",
                  src="bf16", special=None):
    """One fuser.quantize, its three results bit for bit. `special`: a row
    of zeros ("zeros") or of infinities and a NaN ("nonfinite") at row 1."""
    x = values.random(src, (rows, cols), rng, kind="normal")
    x32 = to_torch(x, src).to(torch.float32).numpy().copy()
    if special == "zeros":
        x32[1, :] = 0.0
    elif special == "nonfinite":
        x32[1, 3] = np.inf
        x32[1, 5] = -np.inf
        x32[min(2, rows - 1), 7] = np.nan
        x32[min(3, rows - 1), 9] = -np.float32(np.nan)  # sign bit set
    if special:
        x = from_f64(x32.astype(np.float64), src) if src != "f32" else x32
        x32 = to_torch(x, src).to(torch.float32).numpy().copy()
    codes, scale, amax = quantize_ref(x32, t, granularity, block, scale_type)
    groups = {"tensor": 1, "row": 1, "block": cols // (block or 1)}[granularity]
    st = "f8E8M0FNU" if scale_type == "e8m0" else "f32"
    name = "quantize %s%s %s scales %s -> %s %dx%d%s" % (
        granularity, " %d" % block if block else "", scale_type, src, t, rows, cols,
        ", a row of %s" % special if special else "")
    pb = PartBuilder(name)
    tx = pb.arg("x", x, src)
    sshape = _shape(rows, groups, granularity)
    tq = pb.result("0", (rows, cols), t, codes, EXACT)
    ts = pb.result("1", sshape, st, scale.reshape(sshape), EXACT)
    ta = pb.result("2", sshape, "f32", amax.reshape(sshape), EXACT)
    gran = granularity + (" %d" % block if block else "")
    pb.line("%%0, %%1, %%2 = fuser.quantize %%x %s : %s -> (%s, %s, %s)"
            % (gran, tx, tq, ts, ta))
    return pb.part()


def scaled_cast_part(rng, rows, cols, t, per_row, src="bf16"):
    """One fuser.scaled_cast (delayed scaling), a given f32 scale per tensor
    or per row: cast(x * scale) saturate, amax over the scale's group."""
    x = values.random(src, (rows, cols), rng, kind="normal")
    x32 = to_torch(x, src).to(torch.float32).numpy()
    sshape = (rows, 1) if per_row else ()
    scale = (rng.uniform(0.5, 300.0, sshape)).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        codes = encode(_positive_nan((x32 * scale).astype(np.float32)), t, True)
    amax = (np.abs(x32).max(axis=1, keepdims=True) if per_row
            else np.abs(x32).max()).astype(np.float32)
    pb = PartBuilder("scaled_cast per %s %s -> %s %dx%d" % (
        "row" if per_row else "tensor", src, t, rows, cols))
    tx = pb.arg("x", x, src)
    ts = pb.arg("scale", scale, "f32")
    tq = pb.result("0", (rows, cols), t, codes, EXACT)
    ta = pb.result("1", sshape, "f32", amax, EXACT)
    pb.line("%%0, %%1 = fuser.scaled_cast %%x, %%scale : (%s, %s) -> (%s, %s)"
            % (tx, ts, tq, ta))
    return pb.part()


def rank0_part(t, scale_type, value):
    """fuser.quantize of a rank-0 tensor (one element, one group)."""
    x = np.array(value, dtype=np.float32)
    codes, scale, amax = quantize_ref(x.reshape(1, 1), t, "tensor", None, scale_type)
    st = "f8E8M0FNU" if scale_type == "e8m0" else "f32"
    pb = PartBuilder("quantize tensor %s scales, rank 0 f32 %r -> %s" % (scale_type, value, t))
    tx = pb.arg("x", x, "f32")
    tq = pb.result("0", (), t, codes.reshape(()), EXACT)
    ts = pb.result("1", (), st, scale.reshape(()), EXACT)
    ta = pb.result("2", (), "f32", amax.reshape(()), EXACT)
    pb.line("%%0, %%1, %%2 = fuser.quantize %%x tensor : %s -> (%s, %s, %s)" % (tx, tq, ts, ta))
    return pb.part()


def nan_scale_part(t):
    """scaled_cast with the scales 0, inf and NaN of a row each against
    x holding infinities, NaN and -NaN: inf * 0 and NaN * s make NaNs,
    whose code is 0x7f on every machine."""
    x = np.array([[1.0, np.inf, -np.inf, np.nan, -np.float32(np.nan), -2.0]] * 3,
                 dtype=np.float32)
    scale = np.array([[0.0], [np.inf], [np.nan]], dtype=np.float32)
    with np.errstate(invalid="ignore"):
        codes = encode(_positive_nan((x * scale).astype(np.float32)), t, True)
        amax = np.abs(x).max(axis=1, keepdims=True).astype(np.float32)
    pb = PartBuilder("scaled_cast, scales 0, inf and NaN, x with inf and NaN -> %s" % t)
    tx = pb.arg("x", x, "f32")
    ts = pb.arg("scale", scale, "f32")
    tq = pb.result("0", (3, 6), t, codes, EXACT)
    ta = pb.result("1", (3, 1), "f32", amax, EXACT)
    pb.line("%%0, %%1 = fuser.scaled_cast %%x, %%scale : (%s, %s) -> (%s, %s)"
            % (tx, ts, tq, ta))
    return pb.part()


def _quantize_parts(name, rng_for):
    """Every granularity and scale type to both formats, from bf16 and f32,
    odd sizes (rows that fill no block of threads, 96 columns) and
    model-like ones, and the rows that test the edges."""
    rng = rng_for(name)
    parts = []
    for t in FORMATS:
        parts.append(quantize_part(rng, 37, 300, t, "tensor"))
        parts.append(quantize_part(rng, 37, 300, t, "row"))
        parts.append(quantize_part(rng, 16, 1024, t, "block", 128))
        parts.append(quantize_part(rng, 16, 1024, t, "block", 32, "e8m0"))
        parts.append(quantize_part(rng, 5, 96, t, "block", 32, "e8m0", src="f32"))
        parts.append(quantize_part(rng, 5, 96, t, "row", None, "e8m0", src="f32"))
    parts.append(quantize_part(rng, 64, 4096, "f8E4M3FN", "row"))
    parts.append(quantize_part(rng, 64, 4096, "f8E4M3FN", "block", 32, "e8m0"))
    for special in ("zeros", "nonfinite"):
        parts.append(quantize_part(rng, 4, 256, "f8E4M3FN", "row", special=special, src="f32"))
        parts.append(quantize_part(rng, 4, 256, "f8E4M3FN", "block", 32, "e8m0",
                                   special=special, src="f32"))
        parts.append(quantize_part(rng, 4, 256, "f8E5M2", "tensor", special=special, src="f32"))
    for value in (3.0, -0.0, float("-inf"), float("nan"), 1e-30):
        parts.append(rank0_part("f8E4M3FN", "f32", value))
        parts.append(rank0_part("f8E5M2", "e8m0", value))
    return parts


def _scaled_cast_parts(name, rng_for):
    rng = rng_for(name)
    parts = []
    for t in FORMATS:
        for per_row in (False, True):
            parts.append(scaled_cast_part(rng, 37, 300, t, per_row))
        parts.append(scaled_cast_part(rng, 64, 1024, t, False, src="f32"))
        parts.append(nan_scale_part(t))
    return parts


def cases(rng_for):
    return [Case("fp8/quantize", lambda: _quantize_parts("fp8/quantize", rng_for)),
            Case("fp8/scaled_cast", lambda: _scaled_cast_parts("fp8/scaled_cast", rng_for))]
