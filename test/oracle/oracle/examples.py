"""Every example fusion in examples/*.mlir, at its own size, run exactly as
a user would: `fuserc run examples/X.mlir --device cpu --random SEED`
(fuserc fills the inputs; values.fuserc_random regenerates the same values
here), so a failure's reproducer is that one line.

Each example has a reference below, written with PyTorch in f64 (or in f32
eager where fuser must agree bit for bit: chains of +, -, *, / that fuser
neither reorders nor contracts). An example without a reference fails the
suite: add one when you add an example."""

import glob
import os
import re

import numpy as np
import torch

from . import fp8, fp8_composites, normalization, random_ops, reductions
from .core import (Exact, Expect, Result, Ulps, from_f64, from_torch, to_f64,
                   to_torch)
from .values import fuserc_random, fuserc_random_at

EXACT = Exact()
U32 = 2.0 ** -24

# Sizes of the dynamic dims (--dims: every ? of the arguments, then of the
# results, in order).
DIMS = {
    "dynamic_dims": [1000, 999, 1000, 999, 1000, 999],
    "log_softmax": [16, 16],
    "var_mean": [100, 100, 100],
}


def parse_signature(text):
    """[(name, dims, type)] of the arguments and [(dims, type)] of the
    results of the first func.func in text (dims: ints, None for ?)."""
    m = re.search(r"func\.func\s+@(\w+)\((.*?)\)\s*->\s*(.*?)\{", text, re.S)
    if not m:
        raise ValueError("no func.func")

    def ty(s):
        parts = s.split("x")
        return [None if p == "?" else int(p) for p in parts[:-1]], parts[-1]
    args = [(n,) + ty(t) for n, t in re.findall(r"%(\w+)\s*:\s*tensor<([^>]*)>", m.group(2))]
    results = [ty(t) for t in re.findall(r"tensor<([^>]*)>", m.group(3))]
    return m.group(1), args, results


def _t(a, t):
    return to_torch(a, t)


def _f64(a, t):
    return torch.from_numpy(to_f64(a, t))


def _gelu_atol(h64):
    return np.abs(h64.numpy()) * 2.0 ** -23


# Each reference: inputs (name -> storage array) -> [(want, rule, alts)]
def ref_add_mul_chain(i):
    x, row, col, alpha = (_t(i[k], "f32") for k in ("x", "row", "col", "alpha"))
    y = (x + row) * col * alpha + x          # f32 eager, the same four roundings
    return [(from_torch(y, "f32"), EXACT, [])]


def ref_attention_block(i):
    """linear to q, k, v -> RoPE on q and k -> rms_norm of q and k per head
    -> softmax(q k^T / 8) v per head -> heads joined -> linear -> + x, f32,
    against float64. The bound carries each step's error through the next,
    as ref_mlp_block's: f32 accumulation over k products and one rounding
    per GEMM (docs/matmul.md); three roundings in RoPE's x c + r s;
    rms_norm moves x / rms by e / rms plus |x / rms| times the row's
    largest e / rms, plus its own 8 ulps; an exact scale by 1/8; the
    softmax moves each probability p by at most p (e^(2 d) - 1) for scores
    off by d, plus its own 8 ulps. Four GEMMs of random-sign data cancel,
    so this worst-case bound is loose (about 3/4 of a typical result), yet
    variants of the example with a wrong RoPE sign, sin for cos, k not
    transposed or a 20% wrong scale each fail it (tried by hand)."""
    U = U32
    x, w, b, cos, sin, wo, bo = (i[k].astype(np.float64) for k in
                                 ("x", "wqkv", "bqkv", "cos", "sin", "wo", "bo"))
    S, H, NH = x.shape[0], x.shape[1], 2
    D = H // NH

    def gemm(a, ea, bm, eb, k):
        """a @ bm and its error bound, given the operands' bounds."""
        v = a @ bm
        e = ea @ np.abs(bm) + np.abs(a) @ eb + (k + 2) * U * (np.abs(a) @ np.abs(bm)) + U * np.abs(v)
        return v, e

    qkv = x @ w.T + b
    e_qkv = (H + 2) * U * (np.abs(x) @ np.abs(w).T + np.abs(b)) + U * np.abs(qkv)

    def heads(a, col):  # [S, 3H] -> [NH, S, D]
        return a[:, col:col + H].reshape(S, NH, D).transpose(1, 0, 2)

    def rope(a, ea):
        rot = np.concatenate([-a[..., D // 2:], a[..., :D // 2]], axis=-1)
        erot = np.concatenate([ea[..., D // 2:], ea[..., :D // 2]], axis=-1)
        v = a * cos + rot * sin
        e = ea * np.abs(cos) + erot * np.abs(sin) + 3 * U * (np.abs(a * cos) + np.abs(rot * sin))
        return v, e

    def rms_norm(a, ea):
        rms = np.sqrt(np.mean(a * a, axis=-1, keepdims=True) + 1e-6)
        v = a / rms
        e = ea / rms + np.abs(v) * ea.max(axis=-1, keepdims=True) / rms + 8 * U * np.abs(v)
        return v, e

    q, e_q = rms_norm(*rope(heads(qkv, 0), heads(e_qkv, 0)))
    k, e_k = rms_norm(*rope(heads(qkv, H), heads(e_qkv, H)))
    v, e_v = heads(qkv, 2 * H), heads(e_qkv, 2 * H)
    s, e_s = gemm(q, e_q, k.transpose(0, 2, 1), e_k.transpose(0, 2, 1), D)
    z, e_z = s * 0.125, e_s * 0.125
    p = torch.softmax(torch.from_numpy(z), dim=2).numpy()
    d = e_z.max(axis=2, keepdims=True)
    e_p = p * np.expm1(np.minimum(2 * d, 700.0)) + 8 * U * p + 1e-45
    o, e_o = gemm(p, e_p, v, e_v, S)
    oj, e_oj = o.transpose(1, 0, 2).reshape(S, H), e_o.transpose(1, 0, 2).reshape(S, H)
    y, e_y = gemm(oj, e_oj, wo.T, np.zeros_like(wo.T), H)
    y = y + bo
    e_y = e_y + U * (np.abs(y) + np.abs(bo))
    r = y + x
    e_r = e_y + U * np.abs(r)
    return [(r.astype(np.float32), Ulps(1, 2 * e_r), [])]


def ref_bf16_scale_tanh(i):
    x, y = _f64(i["x"], "bf16"), _f64(i["y"], "bf16")
    th = torch.tanh(x * 0.5)
    r = th + y
    # f32 tanh (1 ulp of f32) and add, then one bf16 rounding: 1 bf16 ulp,
    # or the f32 errors where tanh and y cancel
    atol = (2 * U32 * (th.abs() + y.abs())).numpy()
    return [(from_f64(r.numpy(), "bf16"), Ulps(1, atol), [])]


def ref_bias_gelu(i):
    h = _t(i["x"], "f32") + _t(i["bias"], "f32")   # exact f32 add, as fuser
    h64 = h.double()
    g = torch.nn.functional.gelu(h64, approximate="tanh")
    g32 = torch.nn.functional.gelu(h, approximate="tanh")
    # as elementwise/gelu_tanh: 4 ulp of PyTorch f32, or 1 ulp of PyTorch f64
    # plus the cancellation of 1 + tanh(..) in f32
    return [(from_torch(g32, "f32"), Ulps(4),
             [(from_f64(g.numpy(), "f32"), Ulps(1, _gelu_atol(h64)), "PyTorch f64")])]


def ref_column_sum(i):
    return [_sum_ref(_f64(i["x"], "f32"), 0)]


def _sum_ref(x64, dim, extra=0):
    """A sum in f32 against f64: n roundings of the running sums, and `extra`
    roundings in computing each term."""
    n = x64.shape[dim]
    s = x64.sum(dim=dim)
    tol = ((n + extra) * U32 * x64.abs().sum(dim=dim)).numpy()
    return (from_f64(s.numpy(), "f32"), Ulps(1, tol), [])


def ref_dropout_residual_layer_norm(i, rows):
    # dropout's values depend on each element's index in the whole tensor:
    # the checked block of rows starts at element rows.start * 1024
    x, res = i["x"], i["residual"]
    seed, offset = int(i["seed"]), int(i["offset"])
    d, mask = random_ops.dropout("bf16", x, np.float32(0.1), seed, offset,
                                 rows.start * x.shape[1])
    h = (_t(d, "bf16").float() + _t(res, "bf16").float()).bfloat16()  # as eager PyTorch
    hs = from_torch(h, "bf16")
    refs, mt, alts = normalization.layer_norm_ref(hs, "bf16", 1, i["w"], i["b"], 1e-5)
    return [(refs[0][0], refs[0][1], alts[0:1]), (hs, EXACT, []), (mask, EXACT, []),
            (refs[1][0], refs[1][1], alts[1:2]), (refs[2][0], refs[2][1], alts[2:3])]


def _norm_backward(x, dy, mean, rstd, w):
    """layer_norm's dx in f64 (rms_norm's when `mean` is None: no centring,
    no mean term) and its bound: f32 roundings of xhat, wdy and their
    products (a few u each), the row means (the sum bound), before the
    bf16 rounding of dx (1 ulp). Returns dx, the bound and xhat."""
    n = x.shape[1]
    xhat = (x if mean is None else x - mean) * rstd
    wdy = dy * w
    c1 = (wdy * xhat).mean(dim=1, keepdim=True)
    c2 = 0 if mean is None else wdy.mean(dim=1, keepdim=True)
    dx = (wdy - xhat * c1 - c2) * rstd
    g = normalization._growth(n)
    m1 = (wdy * xhat).abs().mean(dim=1, keepdim=True)
    m2 = 0 if mean is None else wdy.abs().mean(dim=1, keepdim=True)
    atol = U32 * (8 * (wdy.abs() + xhat.abs() * m1) + g * (xhat.abs() * m1 + m2)) * rstd.abs()
    return dx, atol, xhat


def ref_layer_norm_backward(i):
    x, dy = _f64(i["x"], "bf16"), _f64(i["dy"], "bf16")
    mean, rstd, w = _f64(i["mean"], "f32"), _f64(i["rstd"], "f32"), _f64(i["w"], "bf16")
    dx, atol, xhat = _norm_backward(x, dy, mean, rstd, w)
    return [(from_f64(dx.numpy(), "bf16"), Ulps(1, atol.numpy()), []),
            _sum_ref(dy * xhat, 0, extra=4), _sum_ref(dy, 0)]


def ref_dropout_residual_layer_norm_backward(i):
    dy, h = _f64(i["dy"], "bf16"), _f64(i["h"], "bf16")
    mean, rstd, w = _f64(i["mean"], "f32"), _f64(i["rstd"], "f32"), _f64(i["w"], "bf16")
    keep = torch.from_numpy(np.asarray(i["mask"]).astype(np.float64))
    dh, atol, xhat = _norm_backward(h, dy, mean, rstd, w)
    # dx from fuser's bf16 dh (within atol, or 1 bf16 ulp: 2^-7 relative, of
    # the reference's), times the mask and the f32 scale, rounded once more
    scale = float(np.float32(1.0 / 0.9))
    dx = dh * keep * scale
    atol_dx = (atol + 2.0 ** -7 * dh.abs()) * keep * scale
    return [(from_f64(dx.numpy(), "bf16"), Ulps(1, atol_dx.numpy()), []),
            (from_f64(dh.numpy(), "bf16"), Ulps(1, atol.numpy()), []),
            _sum_ref(dy * xhat, 0, extra=4), _sum_ref(dy, 0)]


def ref_rms_norm_backward(i):
    x, dy = _f64(i["x"], "bf16"), _f64(i["dy"], "bf16")
    rstd, w = _f64(i["rstd"], "f32"), _f64(i["w"], "bf16")
    dx, atol, xhat = _norm_backward(x, dy, None, rstd, w)
    return [(from_f64(dx.numpy(), "bf16"), Ulps(1, atol.numpy()), []),
            _sum_ref(dy * xhat, 0, extra=4)]


def ref_dynamic_dims(i):
    x, y, s = (_t(i[k], "f32") for k in ("x", "y", "s"))
    a = (x - y) * s                          # exact f32 steps
    e64 = torch.exp(a.double())
    return [(from_f64(e64.numpy(), "f32"), Ulps(1), [])]


def ref_layer_norm(i):
    refs, mt, alts = normalization.layer_norm_ref(i["x"], "bf16", 1, i["w"], i["b"], 1e-5)
    return [(w, r, alts[k:k + 1]) for k, (w, r) in enumerate(refs)]


def ref_fp8_layer_norm_quantize(i):
    """The correctly rounded layer_norm output quantized per row by
    fp8_composites' recipe: fuser's layer_norm may miss by a bf16 ulp, so
    codes within one, scales and amaxes within 2^-6 relative (an amax one
    bf16 ulp off); the statistics as examples/layer_norm's."""
    refs, mt, alts = normalization.layer_norm_ref(i["x"], "bf16", 1, i["w"], i["b"], 1e-5)
    y32 = to_torch(refs[0][0], "bf16").to(torch.float32).numpy()
    codes, scale, amax = fp8_composites.quantize_ref(y32, "f8E4M3FN", "row", None, "f32")
    rows = y32.shape[0]
    scale, amax = scale.reshape(rows, 1), amax.reshape(rows, 1)
    return [(codes, fp8.Codes(1), []),
            (scale, Ulps(1, np.abs(scale) * 2.0 ** -6), []),
            (amax, Ulps(1, np.abs(amax) * 2.0 ** -6), []),
            (refs[1][0], refs[1][1], alts[1:2]), (refs[2][0], refs[2][1], alts[2:3])]


def ref_layer_norm_manual(i):
    refs, mt, alts = normalization.layer_norm_ref(i["x"], "f32", 1, i["w"], i["b"], 1e-5)
    return [(refs[0][0], refs[0][1], alts[0:1])]


def ref_log_softmax(i):
    want, rule, alts = normalization.softmax_ref(i["x"], "f32", 1, log=True)
    return [(want, rule, alts)]


def ref_mlp_block(i):
    """layer_norm -> linear -> gelu (tanh) -> linear -> + x, bf16, each op
    rounding once to bf16 (the linears after f32 accumulation and the
    bias). The reference rounds at the same points; the bound carries each
    step's error through the next: a bf16 ulp per rounding, f32
    accumulation over k products (docs/matmul.md), and what an error in an
    operand moves a product by (|error| @ |w|^T); gelu' is below 1.13."""
    t, B = "bf16", 2.0 ** -8
    r = lambda a: to_f64(from_f64(a, t), t)
    x, w1, b1, w2, b2 = (to_f64(i[k], t) for k in ("x", "w1", "b1", "w2", "b2"))
    lnw, lnb = i["ln_w"], i["ln_b"]
    refs, _, _ = normalization.layer_norm_ref(i["x"], t, 1, lnw, lnb, 1e-5)
    ln = to_f64(refs[0][0], t)
    e_ln = np.abs(ln) * B + refs[0][1].atol
    k1, k2 = w1.shape[1], w2.shape[1]
    h0 = ln @ w1.T + b1
    h = r(h0)
    e_h = e_ln @ np.abs(w1).T + (k1 + 2) * U32 * (np.abs(ln) @ np.abs(w1).T + np.abs(b1)) + B * np.abs(h)
    g = r(torch.nn.functional.gelu(torch.from_numpy(h), approximate="tanh").numpy())
    e_g = 1.13 * e_h + 2 * B * np.abs(g) + 1e-30
    o = r(g @ w2.T + b2)
    e_o = e_g @ np.abs(w2).T + (k2 + 2) * U32 * (np.abs(g) @ np.abs(w2).T + np.abs(b2)) + B * np.abs(o)
    y = o + x
    e_y = e_o + B * np.abs(y)
    return [(from_f64(y, t), Ulps(1, 2 * e_y), [])]


def ref_permute_add(i):
    x, y = _t(i["x"], "f32"), _t(i["y"], "f32")
    return [(from_torch(x.permute(0, 2, 1) + y, "f32"), EXACT, [])]


def ref_rms_norm(i):
    want, rule, alts = normalization.rms_norm_ref(i["x"], "bf16", 1, i["w"], 1e-6)
    return [(want, rule, alts)]


def ref_silu(i):
    x = _f64(i["x"], "f32")
    # f32 sigmoid (1 ulp) then an f32 multiply: within 2 ulp of the exact value
    return [(from_f64((x * torch.sigmoid(x)).numpy(), "f32"), Ulps(2), [])]


def ref_softmax(i):
    want, rule, alts = normalization.softmax_ref(i["x"], "f32", 1)
    return [(want, rule, alts)]


def ref_softmax_backward_dim0(i):
    y, dy = _f64(i["y"], "bf16"), _f64(i["dy"], "bf16")
    s = (y * dy).sum(0, keepdim=True)
    # the column sum's bound relative to its terms' magnitudes, a few u for
    # the products and the difference, then 1 bf16 ulp
    g = normalization._growth(y.shape[0])
    atol = U32 * y.abs() * (g * (y * dy).abs().sum(0, keepdim=True) + 4 * (dy.abs() + s.abs()))
    return [(from_f64((y * (dy - s)).numpy(), "bf16"), Ulps(1, atol.numpy()), [])]


def ref_gelu_backward(i):
    """torch.autograd.grad of gelu(x, approximate='tanh') in float64 on the
    same bf16 inputs, rounded once to bf16. The bound is oracle/training's
    gelu(tanh) backward: 0.5 (1 + tanh) within a few u; the right term
    0.5 x k (1 + 3 c x^2) sech^2 its own roundings, and sech^2 = 1 - tanh^2
    carries tanh's 2 ulp times the term's size without the sech^2."""
    x, dy = _f64(i["x"], "bf16"), _f64(i["dy"], "bf16")
    x.requires_grad_(True)
    (dx,) = torch.autograd.grad(torch.nn.functional.gelu(x, approximate="tanh"), x, dy)
    xa = x.detach().abs()
    right = 0.5 * xa * np.sqrt(2 / np.pi) * (1 + 3 * 0.044715 * xa ** 2)
    tol = U32 * dy.abs() * (8 + 16 * right)
    return [(from_f64(dx.numpy(), "bf16"), Ulps(1, tol.numpy()), [])]


def ref_log_softmax_backward(i):
    """PyTorch's log_softmax backward (the kernel autograd calls on the
    output it saved) in float64 on the same y and dy. The bound is
    oracle/training's: the row sum's (g(n) u per term, times exp(y)), and
    a few u for exp, the product and the difference."""
    y, dy = _f64(i["y"], "f32"), _f64(i["dy"], "f32")
    dx = torch.ops.aten._log_softmax_backward_data(dy, y, 1, torch.float64)
    e, s = torch.exp(y), dy.sum(1, keepdim=True)
    g = normalization._growth(y.shape[1])
    atol = U32 * (g * dy.abs().sum(1, keepdim=True) * e + 4 * (dy.abs() + e * s.abs()))
    return [(from_f64(dx.numpy(), "f32"), Ulps(1, atol.numpy()), [])]


def ref_swiglu_backward(i):
    """torch.autograd.grad of silu(gate) * up in float64 on the same bf16
    inputs, each gradient rounded once to bf16. The bounds are
    oracle/training's silu-mul backward: sigmoid within 2 ulp, then about
    six f32 steps (d_gate), four (d_up), each scaled by its term."""
    g, u, dy = (_f64(i[k], "bf16") for k in ("gate", "up", "dy"))
    g.requires_grad_(True)
    u.requires_grad_(True)
    y = torch.nn.functional.silu(g) * u
    dg, du = torch.autograd.grad(y, (g, u), dy)
    g, u = g.detach(), u.detach()
    s = torch.sigmoid(g)
    tol_g = U32 * 12 * dy.abs() * u.abs() * s * (1 + g.abs())
    tol_u = U32 * 8 * dy.abs() * g.abs() * s
    return [(from_f64(dg.numpy(), "bf16"), Ulps(1, tol_g.numpy()), []),
            (from_f64(du.numpy(), "bf16"), Ulps(1, tol_u.numpy()), [])]


def ref_two_kernels(i):
    x = _t(i["x"], "f32")
    y = x / x.amax(dim=1, keepdim=True)      # exact f32 division, as fuser
    return [_sum_ref(y.double(), 0)]


def ref_two_outputs(i):
    x, b = _t(i["x"], "f16").float(), _t(i["bias"], "f16").float()
    pre = (x + b).half()                     # f32 add, one f16 rounding
    return [(from_torch(pre, "f16"), EXACT, []), (from_torch(torch.relu(pre.float()).half(), "f16"), EXACT, [])]


def ref_var_mean(i):
    refs = reductions.reference("var_mean", i["x"], "f32", [1], False, 1)
    return [(w, r, []) for w, _, r in refs]


REFERENCES = {k[4:]: v for k, v in globals().items() if k.startswith("ref_")}

# Examples whose results are computed row by row along dim 0: their
# references are computed (and compared) a block of rows at a time, which
# keeps the float64 temporaries of an 8192x4096 example small.
ROWWISE = {"add_mul_chain", "bf16_scale_tanh", "bias_gelu", "dropout_residual_layer_norm",
           "dynamic_dims", "fp8_layer_norm_quantize", "gelu_backward", "layer_norm",
           "layer_norm_manual", "log_softmax", "log_softmax_backward", "permute_add", "rms_norm",
           "silu", "softmax", "swiglu_backward", "two_outputs", "var_mean"}
CHUNK_ELEMENTS = 1 << 22
# Row-wise examples whose reference also takes the block's row slice (their
# values depend on the position of each element, as random numbers do).
POSITIONAL = {"dropout_residual_layer_norm"}


class FileCase:
    """A case run from an existing .mlir file with fuserc's own --random
    inputs; `expect(seed)` gives the parts to compare (results only)."""

    def __init__(self, name, path, extra, expect, alone=True):
        self.name, self.path, self.extra, self.expect = name, path, list(extra), expect
        self.alone = alone
        self.parts = []


# Row-wise examples check at most this many elements: the first and the
# last blocks of rows and evenly spaced blocks between them (fuserc computes
# every row; regenerating its inputs and the float64 reference for all of an
# 8192x4096 example would cost the oracle more than the emulation does).
CHECK_ELEMENTS = 1 << 21
# column_sum checks this many of its 1024 columns (each one whole).
CHECK_COLUMNS = 64


def _blocks(rows, row_elems):
    step = max(1, CHUNK_ELEMENTS // max(1, row_elems))
    blocks = [(r, min(rows, r + step)) for r in range(0, rows, step)]
    keep = max(2, CHECK_ELEMENTS // max(1, step * row_elems))
    if len(blocks) > keep:
        pick = sorted(set(np.linspace(0, len(blocks) - 1, keep).round().astype(int)))
        blocks = [blocks[i] for i in pick]
    return [slice(a, b) for a, b in blocks]


def _expect_for(path, stem):
    def expect(seed):
        """[(result index, row slice or column index array or None, Result)]:
        what each checked block of each result must be."""
        with open(path) as f:
            text = f.read()
        fname, args, results = parse_signature(text)
        dims = list(DIMS.get(stem, []))
        shapes, offsets, off = {}, {}, 0
        for name, ds, t in args:
            shape = tuple(d if d is not None else dims.pop(0) for d in ds)
            shapes[name], offsets[name] = (shape, t), off
            off += int(np.prod(shape)) if shape else 1
        ref = REFERENCES.get(stem)
        if ref is None:
            raise KeyError("examples/%s.mlir has no reference in test/oracle/oracle/examples.py"
                           % stem)
        first = shapes[args[0][0]][0]
        rows = first[0] if first else 1
        row_elems = int(np.prod(first[1:])) if len(first) > 1 else 1

        def gen(name, sl=None, cols=None):
            shape, t = shapes[name]
            if cols is not None:  # whole columns of a 2-D argument
                idx = (np.arange(shape[0])[:, None] * shape[1] + cols[None, :]).reshape(-1)
                return fuserc_random_at(t, seed, offsets[name], idx).reshape(shape[0], len(cols))
            if sl is not None and len(shape) == len(first) and shape and shape[0] == rows:
                per = int(np.prod(shape[1:])) if len(shape) > 1 else 1
                return fuserc_random(t, (sl.stop - sl.start,) + shape[1:], seed,
                                     offsets[name] + sl.start * per)[0]
            return fuserc_random(t, shape, seed, offsets[name])[0]

        checks = []
        if stem == "column_sum":
            cols = np.unique(np.linspace(0, first[1] - 1, CHECK_COLUMNS).round().astype(np.int64))
            blocks = [("cols", cols)]
        elif stem in ROWWISE and first:
            blocks = [("rows", sl) for sl in _blocks(rows, row_elems)]
        else:
            blocks = [(None, None)]
        shared = {}
        for kind, sel in blocks:
            chunk = {}
            for name, _, _ in args:
                if kind == "cols":
                    chunk[name] = gen(name, cols=sel)
                elif kind == "rows":
                    shape, _ = shapes[name]
                    sliced = len(shape) == len(first) and shape and shape[0] == rows
                    if not sliced and name not in shared:
                        shared[name] = gen(name)
                    chunk[name] = gen(name, sl=sel) if sliced else shared[name]
                else:
                    chunk[name] = gen(name)
            outs = ref(chunk, sel) if stem in POSITIONAL else ref(chunk)
            if len(outs) != len(results):
                raise ValueError("%s: the reference gives %d results, the fusion %d"
                                 % (stem, len(outs), len(results)))
            for k, ((want, rule, alts), (ds, t)) in enumerate(zip(outs, results)):
                ty = "tensor<%s%s>" % ("".join(("?" if d is None else str(d)) + "x" for d in ds), t)
                exp = Expect(np.array(want, order="C"), rule, None,
                             [(np.array(a[0], order="C"),) + tuple(a[1:]) for a in alts])
                checks.append((k, sel, Result("%d" % k, ty, t, exp)))
        return checks
    return expect


def cases(rng_for, root):
    out = []
    for path in sorted(glob.glob(os.path.join(root, "examples", "*.mlir"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        extra = []
        if stem in DIMS:
            extra = ["--dims", ",".join(map(str, DIMS[stem]))]
        out.append(FileCase("examples/" + stem, path, extra, _expect_for(path, stem)))
    return out
