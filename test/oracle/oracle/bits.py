"""Bit-level ops: fuser.bitcast (Tensor.view(dtype)) between every pair of
types of one width, fuser.shl and fuser.shr (torch.bitwise_left_shift and
bitwise_right_shift) on i8, i32 and i64 for every shift amount, and the
recipe they exist for: MX block scaling (OCP Microscaling v1.0), whose
shared scale is a power of two taken from the exponent bits of the block's
amax and stored as an e8m0 code (here in an i8: the same byte).

References: numpy's views and shifts (exact); shift amounts outside
[0, width) follow PyTorch 2 (every bit shifted out: 0, or -1 for a negative
value shifted right), which torch 1.13's CPU kernels do not (they take the
amount modulo the register width), so numpy computes them here."""

import numpy as np

from . import values
from .core import Bits, Case, Exact, PartBuilder
from .fp8 import encode

EXACT = Exact()
BITS = Bits()
_NP = {"i8": np.int8, "i32": np.int32, "i64": np.int64}


def _bind(fn, *a):
    return lambda: fn(*a)


def _bitcast_parts(name, rng_for):
    """Every pair of distinct types of one width, both ways, with values
    that include NaNs with payloads, infinities, signed zeros and
    subnormals (their bits must move untouched)."""
    rng = rng_for(name)
    pairs = [("f32", "i32"), ("f64", "i64"), ("f16", "bf16"),
             ("f8E4M3FN", "i8"), ("f8E5M2", "i8"), ("f8E4M3FN", "f8E5M2")]
    parts = []
    for a, b in pairs:
        for src, dst in ((a, b), (b, a)):
            n = 300
            if src in ("f8E4M3FN", "f8E5M2"):
                x = np.arange(256, dtype=np.uint8)
            elif src in _NP:
                info = np.iinfo(_NP[src])
                x = rng.integers(info.min, info.max, n, dtype=np.int64, endpoint=True).astype(_NP[src])
            else:
                x = values.with_specials(src, (n,), rng)
            bits = np.ascontiguousarray(x).view({1: np.uint8, 2: np.uint16, 4: np.uint32,
                                                 8: np.uint64}[x.dtype.itemsize])
            want = bits.view({"i8": np.int8, "i32": np.int32, "i64": np.int64, "f32": np.float32,
                              "f64": np.float64, "f16": np.float16, "bf16": np.uint16,
                              "f8E4M3FN": np.uint8, "f8E5M2": np.uint8}[dst])
            pb = PartBuilder("bitcast %s -> %s" % (src, dst))
            tx = pb.arg("x", x, src)
            # Bit for bit, NaN payloads and signs included.
            tr = pb.result("0", x.shape, dst, want, BITS)
            pb.line("%%0 = fuser.bitcast %%x : %s to %s" % (tx, tr))
            parts.append(pb.part())
    return parts


def shift_ref(x, s, left):
    """PyTorch 2's x << s / x >> s for every s (numpy, exact)."""
    x = np.asarray(x)
    w = x.dtype.itemsize * 8
    s64 = np.asarray(s).astype(np.int64)
    ok = (s64 >= 0) & (s64 < w)
    sc = np.where(ok, s64, 0).astype(x.dtype)
    if left:
        r = np.left_shift(x, sc)
        return np.where(ok, r, np.zeros_like(x)).astype(x.dtype)
    r = np.right_shift(x, np.where(ok, s64, w - 1).astype(x.dtype))
    return r.astype(x.dtype)


def _shift_parts(name, rng_for):
    """Every shift amount from -2 to width + 2 against values of every
    magnitude and both signs, elementwise and with a rank-0 amount."""
    rng = rng_for(name)
    parts = []
    for t, npt in _NP.items():
        w = np.dtype(npt).itemsize * 8
        amounts = np.arange(-2, w + 3)
        info = np.iinfo(npt)
        xs = np.concatenate([np.array([0, 1, -1, info.min, info.max, 5, -5], dtype=npt),
                             rng.integers(info.min, info.max, 9, dtype=np.int64,
                                          endpoint=True).astype(npt)])
        x = np.repeat(xs[:, None], len(amounts), 1)
        s = np.repeat(amounts[None, :], len(xs), 0).astype(npt)
        for left, op in ((True, "shl"), (False, "shr")):
            pb = PartBuilder("%s %s" % (op, t))
            tx = pb.arg("x", x, t)
            pb.arg("s", s, t)
            pb.result("0", x.shape, t, shift_ref(x, s, left), EXACT)
            pb.line("%%0 = fuser.%s %%x, %%s : %s" % (op, tx))
            parts.append(pb.part())
        # a rank-0 amount (x >> 3, as a constant)
        pb = PartBuilder("shr %s by a constant 3, shl by 1" % t)
        tx = pb.arg("x", xs, t)
        pb.line("%%three = fuser.constant 3 : tensor<%s>" % t)
        pb.line("%%one = fuser.constant 1 : tensor<%s>" % t)
        pb.result("0", xs.shape, t, shift_ref(xs, np.full(xs.shape, 3), False), EXACT)
        pb.result("1", xs.shape, t, shift_ref(xs, np.full(xs.shape, 1), True), EXACT)
        pb.line("%%0 = fuser.shr %%x, %%three : %s, tensor<%s>" % (tx, t))
        pb.line("%%1 = fuser.shl %%x, %%one : %s, tensor<%s>" % (tx, t))
        parts.append(pb.part())
    return parts


def mx_quant_part(rng, rows, cols, block=32, src="bf16"):
    """MX block quantization to e4m3 (OCP Microscaling v1.0): per block of
    `block` contiguous elements, the shared exponent is floor(log2(amax))
    minus e4m3's largest exponent (8), clamped to e8m0's range [-127, 127];
    each element is multiplied by 2^-exponent (exact) and cast saturating;
    the scales come out as e8m0 codes (exponent + 127) in an i8. All from
    the amax's exponent bits (bitcast, shift, and); and again as an
    f8E8M0FNU tensor."""
    nb = cols // block
    x = values.random(src, (rows, cols), rng, kind="normal")
    if src == "bf16":
        x32 = (x.astype(np.uint32) << np.uint32(16)).view(np.float32)
    else:
        x32 = x.astype(np.float32)
    x32 = x32.reshape(rows, cols)
    pb = PartBuilder("MX e4m3 1x%d blocks, e8m0 scales, %s %dx%d" % (block, src, rows, cols))
    tx = pb.arg("x", x, src)
    f3 = "tensor<%dx%dx%dxf32>" % (rows, nb, block)
    a3 = "tensor<%dx%dx1xf32>" % (rows, nb)
    i3 = "tensor<%dx%dx1xi32>" % (rows, nb)
    if src != "f32":
        pb.line("%%xf = fuser.cast %%x : %s to tensor<%dx%dxf32>" % (tx, rows, cols))
        xs = "%xf"
    else:
        xs = "%x"
    pb.line("%%b = fuser.reshape %s : tensor<%dx%dxf32> -> %s" % (xs, rows, cols, f3))
    pb.line("%%abs = fuser.abs %%b : %s" % f3)
    pb.line("%%amax = fuser.max %%abs dims = [2] keepdim = true : %s -> %s" % (f3, a3))
    pb.line("%%bits = fuser.bitcast %%amax : %s to %s" % (a3, i3))
    pb.line("%c23 = fuser.constant 23 : tensor<i32>")
    pb.line("%c255 = fuser.constant 255 : tensor<i32>")
    pb.line("%%expf = fuser.shr %%bits, %%c23 : %s, tensor<i32>" % i3)
    pb.line("%%ebiased = fuser.and %%expf, %%c255 : %s, tensor<i32>" % i3)
    # shared exponent + 127 = biased exponent - 8, clamped to [0, 254]
    pb.line("%c8 = fuser.constant 8 : tensor<i32>")
    pb.line("%c0 = fuser.constant 0 : tensor<i32>")
    pb.line("%c254 = fuser.constant 254 : tensor<i32>")
    pb.line("%%code0 = fuser.sub %%ebiased, %%c8 : %s, tensor<i32>" % i3)
    pb.line("%%code = fuser.clamp %%code0, %%c0, %%c254 : %s, tensor<i32>, tensor<i32>" % i3)
    # 2^-exponent as f32 bits: (254 - code) << 23 (an exponent field of 1..254)
    pb.line("%%invf = fuser.sub %%c254, %%code : tensor<i32>, %s" % i3)
    pb.line("%%invb = fuser.shl %%invf, %%c23 : %s, tensor<i32>" % i3)
    pb.line("%%inv = fuser.bitcast %%invb : %s to %s" % (i3, a3))
    pb.line("%%s = fuser.broadcast %%inv dims = [0, 1, 2] : %s -> %s" % (a3, f3))
    pb.line("%%m = fuser.mul %%b, %%s : %s" % f3)
    pb.line("%%q = fuser.cast %%m saturate : %s to tensor<%dx%dx%dxf8E4M3FN>" % (f3, rows, nb, block))
    pb.line("%%0 = fuser.reshape %%q : tensor<%dx%dx%dxf8E4M3FN> -> tensor<%dx%dxf8E4M3FN>"
            % (rows, nb, block, rows, cols))
    pb.line("%%c8b = fuser.cast %%code : %s to tensor<%dx%dx1xi8>" % (i3, rows, nb))
    pb.line("%%1 = fuser.reshape %%c8b : tensor<%dx%dx1xi8> -> tensor<%dx%dxi8>" % (rows, nb, rows, nb))
    # The same scales as an e8m0 tensor: 2^(code - 127) as f32 bits, cast
    # (exact for a power of two; code 0 is f32 zero, whose e8m0 code is 0).
    pb.line("%%pow2b = fuser.shl %%code, %%c23 : %s, tensor<i32>" % i3)
    pb.line("%%pow2 = fuser.bitcast %%pow2b : %s to %s" % (i3, a3))
    pb.line("%%e8 = fuser.cast %%pow2 : %s to tensor<%dx%dx1xf8E8M0FNU>" % (a3, rows, nb))
    pb.line("%%2 = fuser.reshape %%e8 : tensor<%dx%dx1xf8E8M0FNU> -> tensor<%dx%dxf8E8M0FNU>"
            % (rows, nb, rows, nb))
    b3 = x32.reshape(rows, nb, block)
    amax = np.abs(b3).max(axis=2, keepdims=True).astype(np.float32)
    ebiased = (amax.view(np.int32) >> 23) & 0xFF
    code = np.clip(ebiased - 8, 0, 254).astype(np.int32)
    inv = ((254 - code) << 23).astype(np.int32).view(np.float32)
    q = encode((b3 * inv).astype(np.float32), "f8E4M3FN", True).reshape(rows, cols)
    pb.result("0", (rows, cols), "f8E4M3FN", q, EXACT)
    pb.result("1", (rows, nb), "i8", code.astype(np.int8).reshape(rows, nb), EXACT)
    pb.result("2", (rows, nb), "f8E8M0FNU", code.astype(np.uint8).reshape(rows, nb), EXACT)
    return pb.part()


def _mx_parts(name, rng_for):
    rng = rng_for(name)
    return [mx_quant_part(rng, 16, 1024), mx_quant_part(rng, 3, 96, src="f32"),
            mx_quant_part(rng, 64, 4096)]


def cases(rng_for):
    return [Case("bits/bitcast", _bind(_bitcast_parts, "bits/bitcast", rng_for)),
            Case("bits/shifts", _bind(_shift_parts, "bits/shifts", rng_for)),
            Case("bits/mx", _bind(_mx_parts, "bits/mx", rng_for))]
