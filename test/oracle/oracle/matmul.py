"""Matrix multiplication: fuser.matmul (torch.matmul) and fuser.linear
(torch.nn.functional.linear), library calls that the emulator runs with its
reference GEMM, for f32, bf16, f16 and f64: dot products, matrix-vector and
vector-matrix products, sizes 1, odd, prime and 0 (an empty product is 0),
batches with broadcast batch dims (a broadcast of the whole operand, and one
along some dims only, which fuser-decompose materializes), dynamic sizes,
transposed operands through fuser.permute, linear with and without a bias;
then the fusions around them: an MLP block (layer_norm, linear, gelu,
linear, residual) and attention (q @ k^T scaled, softmax, @ v, k^T read by
the GEMM through its transpose flag).

References: torch.matmul and F.linear in float64 on the same (exactly
representable) inputs, rounded once to the result's type. The tolerance is
the result type's rounding (1 ulp) plus f32 accumulation: a GEMM adds k
products, each addition rounding by at most 2^-24 of the running sum
(docs/matmul.md), so (k + 2) * 2^-24 * (|a| @ |b|) bounds the difference;
f64 gets the same with 2^-53."""

import numpy as np
import torch

from .core import Case, PartBuilder, Ulps, from_f64, from_torch, mlir_type, to_f64, to_torch

FLOAT_TYPES = ("f32", "bf16", "f16", "f64")


def _bind(fn, *a):
    return lambda: fn(*a)


def _data(t, shape, rng):
    return from_f64(rng.standard_normal(shape), t)


def _rule(t, k, bound):
    """1 ulp of t, or the accumulation bound of k products."""
    eps = 2.0 ** -53 if t == "f64" else 2.0 ** -24
    return Ulps(1, atol=(k + 2) * eps * bound + 1e-300)


def _matmul_ref(a, b, t):
    x, y = torch.from_numpy(to_f64(a, t)), torch.from_numpy(to_f64(b, t))
    want = torch.matmul(x, y).numpy()
    bound = torch.matmul(x.abs(), y.abs()).numpy()
    return from_f64(want, t), bound


# (lhs shape, rhs shape): torch.matmul's cases
MATMULS = [((7,), (7,)), ((1, 1), (1, 1)), ((3, 5), (5, 7)), ((17, 31), (31, 13)),
           ((0, 4), (4, 3)), ((4, 0), (0, 3)), ((4, 3), (3, 0)), ((6, 9), (9,)), ((9,), (9, 5)),
           ((5, 3, 4), (4, 6)), ((5, 3, 4), (5, 4, 6)), ((3, 4), (2, 4, 5)),
           ((2, 1, 3, 4), (1, 5, 4, 2)), ((2, 3, 3, 4), (1, 1, 4, 2)), ((4, 3, 8), (8,)),
           ((8,), (4, 8, 3)), ((1, 2, 5), (3, 1, 5, 4)), ((64, 256), (256, 96))]


def _matmul_parts(t, name, rng_for):
    rng = rng_for(name)
    parts = []
    for ashape, bshape in MATMULS:
        a, b = _data(t, ashape, rng), _data(t, bshape, rng)
        want, bound = _matmul_ref(a, b, t)
        pb = PartBuilder("matmul %s @ %s" % (ashape, bshape))
        ta = pb.arg("a", a, t)
        tb = pb.arg("b", b, t)
        to = mlir_type(want.shape, t)
        pb.line("%%0 = fuser.matmul %%a, %%b : (%s, %s) -> %s" % (ta, tb, to))
        pb.result("0", want.shape, t, want, _rule(t, ashape[-1], bound))
        parts.append(pb.part())
    # sizes known at launch
    for ashape, adims, bshape, bdims, odims in [
            ((5, 12), (None, None), (12, 7), (None, None), (None, None)),
            ((3, 4, 16), (None, 4, 16), (16, 9), (16, None), (None, 4, None)),
            ((2, 6, 8), (None, None, 8), (2, 8, 3), (None, 8, 3), (None, None, 3)),
            ((0, 8), (None, 8), (8, 4), (8, 4), (None, 4))]:
        a, b = _data(t, ashape, rng), _data(t, bshape, rng)
        want, bound = _matmul_ref(a, b, t)
        pb = PartBuilder("matmul %s as %s @ %s as %s" % (mlir_type(adims, t), ashape,
                                                         mlir_type(bdims, t), bshape))
        ta = pb.arg("a", a, t, adims)
        tb = pb.arg("b", b, t, bdims)
        to = mlir_type(odims, t)
        pb.line("%%0 = fuser.matmul %%a, %%b : (%s, %s) -> %s" % (ta, tb, to))
        pb.result("0", want.shape, t, want, _rule(t, ashape[-1], bound), dims=odims)
        parts.append(pb.part())
    # a transposed operand: x @ w.T written with fuser.permute
    a, w = _data(t, (6, 10), rng), _data(t, (4, 10), rng)
    want, bound = _matmul_ref(a, np.ascontiguousarray(w.T), t)
    pb = PartBuilder("matmul (6, 10) @ permute((4, 10))")
    ta = pb.arg("a", a, t)
    tw = pb.arg("w", w, t)
    tt = mlir_type((10, 4), t)
    pb.line("%%wt = fuser.permute %%w perm = [1, 0] : %s -> %s" % (tw, tt))
    pb.line("%%0 = fuser.matmul %%a, %%wt : (%s, %s) -> %s" % (ta, tt, mlir_type((6, 4), t)))
    pb.result("0", (6, 4), t, want, _rule(t, 10, bound))
    parts.append(pb.part())
    return parts


def _linear_ref(x, w, bias, t):
    tx, tw = torch.from_numpy(to_f64(x, t)), torch.from_numpy(to_f64(w, t))
    tb = None if bias is None else torch.from_numpy(to_f64(bias, t))
    want = torch.nn.functional.linear(tx, tw, tb).numpy()
    bound = torch.nn.functional.linear(tx.abs(), tw.abs(),
                                       None if tb is None else tb.abs()).numpy()
    return from_f64(want, t), bound


# (input shape, input dims or None, out features, bias)
LINEARS = [((8, 32), None, 16, True), ((8, 32), None, 16, False), ((2, 3, 32), None, 5, True),
           ((32,), None, 7, True), ((13, 33), (None, 33), 11, True), ((0, 8), (None, 8), 3, True),
           ((4, 0), None, 3, True), ((1, 128), None, 1, False)]


def _linear_parts(t, name, rng_for):
    rng = rng_for(name)
    parts = []
    for xshape, xdims, out, has_bias in LINEARS:
        x = _data(t, xshape, rng)
        w = _data(t, (out, xshape[-1]), rng)
        bias = _data(t, (out,), rng) if has_bias else None
        want, bound = _linear_ref(x, w, bias, t)
        pb = PartBuilder("linear %s -> %d%s" % (xshape, out, " + bias" if has_bias else ""))
        tx = pb.arg("x", x, t, xdims)
        tw = pb.arg("w", w, t)
        odims = None if xdims is None else tuple(xdims[:-1]) + (out,)
        to = mlir_type(want.shape if odims is None else odims, t)
        if has_bias:
            tb = pb.arg("bias", bias, t)
            pb.line("%%0 = fuser.linear %%x, %%w bias %%bias : (%s, %s, %s) -> %s" % (tx, tw, tb, to))
        else:
            pb.line("%%0 = fuser.linear %%x, %%w : (%s, %s) -> %s" % (tx, tw, to))
        pb.result("0", want.shape, t, want, _rule(t, xshape[-1], bound), dims=odims)
        parts.append(pb.part())
    return parts


def _epilogue_parts(t, name, rng_for):
    """linear or matmul, then relu or gelu: the activations cuBLASLt applies
    in its epilogue (relu; gelu with tanh's approximation) fold into the
    GEMM and round once; gelu's exact form stays a kernel. The reference
    rounds once; the bound also admits eager PyTorch's two roundings (an
    ulp of the pre-activation, times gelu's slope, below 1.13)."""
    rng = rng_for(name)
    ulp = {"f32": 2.0 ** -24, "bf16": 2.0 ** -8, "f16": 2.0 ** -11, "f64": 2.0 ** -53}[t]
    parts = []
    acts = [("relu", "fuser.relu %%h : %s", torch.relu),
            ("gelu tanh", "fuser.gelu %%h approximate = tanh : %s",
             lambda v: torch.nn.functional.gelu(v, approximate="tanh")),
            ("gelu erf", "fuser.gelu %%h : %s", torch.nn.functional.gelu)]
    for label, line, fn in acts:
        for bias in (True, False):
            x, w = _data(t, (9, 33), rng), _data(t, (12, 33), rng)
            b = _data(t, (12,), rng) if bias else None
            pb = PartBuilder("linear (9, 33) -> 12%s, %s" % (" + bias" if bias else "", label))
            tx = pb.arg("x", x, t)
            tw = pb.arg("w", w, t)
            th = mlir_type((9, 12), t)
            if bias:
                tb = pb.arg("b", b, t)
                pb.line("%%h = fuser.linear %%x, %%w bias %%b : (%s, %s, %s) -> %s" % (tx, tw, tb, th))
            else:
                pb.line("%%h = fuser.linear %%x, %%w : (%s, %s) -> %s" % (tx, tw, th))
            pb.line(("%%0 = " + line) % th)
            tt = torch.from_numpy
            h64 = torch.nn.functional.linear(tt(to_f64(x, t)), tt(to_f64(w, t)),
                                             None if b is None else tt(to_f64(b, t)))
            bound = torch.nn.functional.linear(tt(np.abs(to_f64(x, t))), tt(np.abs(to_f64(w, t))),
                                               None if b is None else tt(np.abs(to_f64(b, t))))
            want = from_f64(fn(h64).numpy(), t)
            eps = 2.0 ** -53 if t == "f64" else 2.0 ** -24
            atol = 1.13 * ((33 + 2) * eps * bound.numpy() + ulp * np.abs(h64.numpy())) + 1e-300
            pb.result("0", (9, 12), t, want, Ulps(2, atol=atol))
            parts.append(pb.part())
    # a gelu (tanh) whose input is kept (returned, or read by a later
    # kernel): one GEMM writes both (cuBLASLt's GELU_AUX; f64 stays a
    # kernel), the input rounded once as the linear's own result
    for keep in ("returned", "read by a kernel"):
        x, w, b = _data(t, (9, 33), rng), _data(t, (16, 33), rng), _data(t, (16,), rng)
        pb = PartBuilder("linear (9, 33) -> 16 + bias, gelu tanh, its input %s" % keep)
        tx = pb.arg("x", x, t)
        tw = pb.arg("w", w, t)
        tb = pb.arg("b", b, t)
        th = mlir_type((9, 16), t)
        pb.line("%%h = fuser.linear %%x, %%w bias %%b : (%s, %s, %s) -> %s" % (tx, tw, tb, th))
        pb.line("%%0 = fuser.gelu %%h approximate = tanh : %s" % th)
        if keep != "returned":
            pb.line("%%two = fuser.constant 2.0 : %s" % mlir_type((), t))
            pb.line("%%1 = fuser.mul %%h, %%two : %s, %s" % (th, mlir_type((), t)))
        else:
            pb.line("%%1 = fuser.add %%h, %%h : %s" % th)
        tt = torch.from_numpy
        h64 = torch.nn.functional.linear(tt(to_f64(x, t)), tt(to_f64(w, t)), tt(to_f64(b, t)))
        bound = torch.nn.functional.linear(tt(np.abs(to_f64(x, t))), tt(np.abs(to_f64(w, t))),
                                           tt(np.abs(to_f64(b, t))))
        eps = 2.0 ** -53 if t == "f64" else 2.0 ** -24
        atol = 1.13 * ((33 + 2) * eps * bound.numpy() + ulp * np.abs(h64.numpy())) + 1e-300
        want = from_f64(torch.nn.functional.gelu(h64, approximate="tanh").numpy(), t)
        pb.result("0", (9, 16), t, want, Ulps(2, atol=atol))
        # h rounded once, doubled exactly
        h = from_f64(h64.numpy(), t)
        pb.result("1", (9, 16), t, from_f64(2 * to_f64(h, t), t),
                  Ulps(2, atol=2 * (33 + 2) * eps * bound.numpy() + 1e-300))
        parts.append(pb.part())
    # relu keeps -0 and NaN as PyTorch's: a row of x that is NaN, one that is 0
    x, w = _data(t, (4, 8), rng), _data(t, (3, 8), rng)
    x[1] = from_f64(np.full(8, np.nan), t)
    x[2] = from_f64(np.zeros(8), t)
    pb = PartBuilder("matmul (4, 8) @ (8, 3), relu: NaN and zero rows")
    tx = pb.arg("x", x, t)
    tw = pb.arg("w", w, t)
    tt = mlir_type((8, 3), t)
    pb.line("%%wt = fuser.permute %%w perm = [1, 0] : %s -> %s" % (tw, tt))
    pb.line("%%h = fuser.matmul %%x, %%wt : (%s, %s) -> %s" % (tx, tt, mlir_type((4, 3), t)))
    pb.line("%%0 = fuser.relu %%h : %s" % mlir_type((4, 3), t))
    h64 = torch.from_numpy(to_f64(x, t)) @ torch.from_numpy(to_f64(w, t)).T
    bound = torch.from_numpy(np.abs(to_f64(x, t))) @ torch.from_numpy(np.abs(to_f64(w, t))).T
    pb.result("0", (4, 3), t, from_f64(torch.relu(h64).numpy(), t),
              Ulps(1, atol=10 * eps * bound.numpy() + 1e-300))
    parts.append(pb.part())
    return parts


# (input shape, input dims or None, out features): a linear layer's backward
BIAS_GRADIENTS = [((8, 32), None, 16), ((13, 24), (None, 24), 12), ((2, 5, 24), None, 8),
                  ((1, 7), None, 3), ((0, 8), (None, 8), 4), ((64, 40), None, 1)]


def _bias_grad_parts(t, name, rng_for):
    """A linear layer's backward as fuser-vjp writes it, dy given: dx = dy @
    w, dW = dy^T @ x over every row, db = dy summed over the rows (in f32
    for halves, rounded once). db and dW are one GEMM (cuBLASLt's bias
    gradient epilogue; f64 keeps a reduction kernel), rows of a size known
    at launch, [B, S, in] inputs through reshapes to rows, and no rows at
    all (db is 0). References: torch.autograd.grad of F.linear in float64,
    rounded once; dW and dx bounded as any GEMM, db by f32 accumulation of
    the rows."""
    rng = rng_for(name)
    eps = 2.0 ** -53 if t == "f64" else 2.0 ** -24
    parts = []
    for xshape, xdims, out in BIAS_GRADIENTS:
        inf = xshape[-1]
        x, w = _data(t, xshape, rng), _data(t, (out, inf), rng)
        dy = _data(t, tuple(xshape[:-1]) + (out,), rng)
        rows = int(np.prod(xshape[:-1]))
        tt = torch.from_numpy
        x64 = tt(to_f64(x, t)).requires_grad_()
        w64 = tt(to_f64(w, t)).requires_grad_()
        b64 = torch.zeros(out, dtype=torch.float64, requires_grad=True)
        dy64 = tt(to_f64(dy, t))
        gx, gw, gb = torch.autograd.grad(torch.nn.functional.linear(x64, w64, b64), (x64, w64, b64), dy64)
        ax, aw, ady = (tt(np.abs(to_f64(v, t))) for v in (x, w, dy))
        pb = PartBuilder("linear backward %s -> %d%s" % (xshape, out,
                                                         ", rows at launch" if xdims else ""))
        dydims = None if xdims is None else tuple(xdims[:-1]) + (out,)
        tx = pb.arg("x", x, t, xdims)
        tw = pb.arg("w", w, t)
        tdy = pb.arg("dy", dy, t, dydims)
        rdims = (None if xdims else rows,)
        tx2, tdy2 = mlir_type(rdims + (inf,), t), mlir_type(rdims + (out,), t)
        pb.line("%%dx = fuser.matmul %%dy, %%w : (%s, %s) -> %s" % (tdy, tw, tx))
        x2, dy2 = "%x", "%dy"
        if len(xshape) > 2:
            pb.line("%%x2 = fuser.reshape %%x : %s -> %s" % (tx, tx2))
            pb.line("%%dy2 = fuser.reshape %%dy : %s -> %s" % (tdy, tdy2))
            x2, dy2 = "%x2", "%dy2"
        tdyt = mlir_type((out,) + rdims, t)
        pb.line("%%dyt = fuser.permute %s perm = [1, 0] : %s -> %s" % (dy2, tdy2, tdyt))
        pb.line("%%dw = fuser.matmul %%dyt, %s : (%s, %s) -> %s" % (x2, tdyt, tx2, tw))
        lead = ", ".join(str(i) for i in range(len(xshape) - 1))
        half = t in ("bf16", "f16")
        if half:
            tdyf = mlir_type(dydims or dy.shape, "f32")
            pb.line("%%dyf = fuser.cast %%dy : %s to %s" % (tdy, tdyf))
            pb.line("%%sf = fuser.sum %%dyf dims = [%s] : %s -> %s" % (lead, tdyf, mlir_type((out,), "f32")))
            pb.line("%%db = fuser.cast %%sf : %s to %s" % (mlir_type((out,), "f32"), mlir_type((out,), t)))
        else:
            pb.line("%%db = fuser.sum %%dy dims = [%s] : %s -> %s" % (lead, tdy, mlir_type((out,), t)))
        bx = (ady @ aw).numpy()
        bw = (ady.reshape(rows, out).T @ ax.reshape(rows, inf)).numpy()
        bb = ady.reshape(rows, out).sum(0).numpy()
        pb.result("dx", gx.shape, t, from_f64(gx.numpy(), t), _rule(t, out, bx), dims=xdims)
        pb.result("dw", (out, inf), t, from_f64(gw.numpy(), t), _rule(t, rows, bw))
        pb.result("db", (out,), t, from_f64(gb.numpy(), t), _rule(t, rows, bb))
        parts.append(pb.part())
    return parts


def _mlp_part(rng, t, n, h, f):
    """layer_norm -> linear -> gelu (tanh) -> linear -> + residual, bf16 or
    f32: the library calls plus one kernel between consecutive matmuls."""
    x = _data(t, (n, h), rng)
    w1, b1 = from_f64(rng.standard_normal((f, h)) / np.sqrt(h), t), _data(t, (f,), rng)
    w2, b2 = from_f64(rng.standard_normal((h, f)) / np.sqrt(f), t), _data(t, (h,), rng)
    pb = PartBuilder("mlp block %s %dx%d, %d hidden" % (t, n, h, f))
    tx = pb.arg("x", x, t)
    tw1 = pb.arg("w1", w1, t)
    tb1 = pb.arg("b1", b1, t)
    tw2 = pb.arg("w2", w2, t)
    tb2 = pb.arg("b2", b2, t)
    th = mlir_type((n, f), t)
    stat = mlir_type((n, 1), "f32" if t in ("bf16", "f16") else t)
    pb.line("%%ln, %%mean, %%rstd = fuser.layer_norm %%x dims = [1] eps = 1.0e-05 : (%s) -> (%s, %s, %s)"
            % (tx, tx, stat, stat))
    pb.line("%%h = fuser.linear %%ln, %%w1 bias %%b1 : (%s, %s, %s) -> %s" % (tx, tw1, tb1, th))
    pb.line("%%g = fuser.gelu %%h approximate = tanh : %s" % th)
    pb.line("%%o = fuser.linear %%g, %%w2 bias %%b2 : (%s, %s, %s) -> %s" % (th, tw2, tb2, tx))
    pb.line("%%0 = fuser.add %%o, %%x : %s" % tx)
    # The reference rounds where fuser's graph rounds: layer_norm's output,
    # each linear's, gelu's and the sum, each to t from float64.
    r = lambda v: to_f64(from_f64(v, t), t)
    X = to_f64(x, t)
    ln = r(torch.nn.functional.layer_norm(torch.from_numpy(X), (h,), eps=1e-5).numpy())
    h1 = r(torch.nn.functional.linear(torch.from_numpy(ln), torch.from_numpy(to_f64(w1, t)),
                                      torch.from_numpy(to_f64(b1, t))).numpy())
    g = r(torch.nn.functional.gelu(torch.from_numpy(h1), approximate="tanh").numpy())
    o = r(torch.nn.functional.linear(torch.from_numpy(g), torch.from_numpy(to_f64(w2, t)),
                                     torch.from_numpy(to_f64(b2, t))).numpy())
    want = from_f64(o + X, t)
    # Roundings upstream (layer_norm, gelu: a few ulps of t each) move the
    # second linear's result by up to sum |w2| * those ulps: a relative
    # bound of the result's magnitude scale.
    eps = {"f32": 2.0 ** -24, "bf16": 2.0 ** -8, "f16": 2.0 ** -11, "f64": 2.0 ** -53}[t]
    scale = np.abs(torch.nn.functional.linear(torch.from_numpy(np.abs(g)),
                                              torch.from_numpy(np.abs(to_f64(w2, t)))).numpy())
    pb.result("0", (n, h), t, want, Ulps(2, atol=8 * eps * (scale + np.abs(X)) + 8 * eps))
    return pb.part()


def _attention_part(rng, t, b, s, d):
    """softmax(q @ k^T * scale) @ v per batch: k^T is read by the GEMM
    through its transpose flag (no kernel), softmax is one kernel."""
    q, k, v = (_data(t, (b, s, d), rng) for _ in range(3))
    scale = 1.0 / np.sqrt(d)
    pb = PartBuilder("attention %s %dx%dx%d" % (t, b, s, d))
    tq = pb.arg("q", q, t)
    tk = pb.arg("k", k, t)
    tv = pb.arg("v", v, t)
    tkt = mlir_type((b, d, s), t)
    ts = mlir_type((b, s, s), t)
    pb.line("%%kt = fuser.permute %%k perm = [0, 2, 1] : %s -> %s" % (tk, tkt))
    pb.line("%%s = fuser.matmul %%q, %%kt : (%s, %s) -> %s" % (tq, tkt, ts))
    pb.line("%%c = fuser.constant %r : %s" % (scale, mlir_type((), t)))
    pb.line("%%cb = fuser.broadcast %%c dims = [] : %s -> %s" % (mlir_type((), t), ts))
    pb.line("%%z = fuser.mul %%s, %%cb : %s" % ts)
    pb.line("%%p = fuser.softmax %%z dim = 2 : %s" % ts)
    pb.line("%%0 = fuser.matmul %%p, %%v : (%s, %s) -> %s" % (ts, tv, tv))
    r = lambda x: to_f64(from_f64(x, t), t)
    Q, K, V = (torch.from_numpy(to_f64(a, t)) for a in (q, k, v))
    sc = r(torch.matmul(Q, K.transpose(1, 2)).numpy())
    z = r(sc * to_f64(from_f64(np.array(scale), t), t))
    p = r(torch.softmax(torch.from_numpy(z), dim=2).numpy())
    want = from_f64(torch.matmul(torch.from_numpy(p), V).numpy(), t)
    # softmax's rounding (an ulp of t per probability) moves each output
    # by up to sum |v| * ulp; probabilities sum to 1, so |v|'s max bounds it.
    eps = {"f32": 2.0 ** -24, "bf16": 2.0 ** -8, "f16": 2.0 ** -11, "f64": 2.0 ** -53}[t]
    vmax = np.abs(to_f64(v, t)).max(axis=1, keepdims=True)
    pb.result("0", (b, s, d), t, want, Ulps(2, atol=(s + 8) * 4 * eps * vmax))
    return pb.part()


def _view_parts(t, name, rng_for):
    """Operands that are views of other tensors, passed without a copy: the
    GEMM reads a transposed view through its transpose flag, a slice of
    wider rows through its leading dimension, an expanded or permuted batch
    through its batch stride; linear's weight given as w.t() of a [in, out]
    tensor is read untransposed. Static strides, and strides passed at
    launch ("?")."""
    rng = rng_for(name)
    parts = []

    def base(shape):
        return to_torch(_data(t, shape, rng), t)

    def f64(v):
        return torch.from_numpy(to_f64(from_torch(v, t), t))

    def declared(v, dynamic):
        return [s if s == 1 or not dynamic else "?" for s in v.stride()]

    specs = [
        ("a transposed", lambda: (base((10, 6)).t(), base((10, 4)))),
        ("b transposed", lambda: (base((6, 10)), base((4, 10)).t())),
        ("a and b transposed", lambda: (base((10, 6)).t(), base((4, 10)).t())),
        ("a a slice of wider rows", lambda: (base((6, 16))[:, 3:13], base((10, 4)))),
        ("b a slice of wider rows", lambda: (base((6, 10)), base((10, 9))[:, 2:6])),
        ("a expanded along the batch", lambda: (base((3, 5)).expand(4, 3, 5), base((4, 5, 2)))),
        ("a permuted batch (rows 20 apart, batch 5)",
         lambda: (base((3, 4, 5)).permute(1, 0, 2), base((4, 5, 2)))),
        ("b transposed in a batch", lambda: (base((2, 3, 5)), base((2, 7, 5)).transpose(1, 2))),
        ("strided vector rhs", lambda: (base((6, 9)), base((9, 2))[:, 0])),
        ("strided vector lhs", lambda: (base((9, 3))[:, 1], base((9, 4)))),
    ]
    for label, make in specs:
        a, b = make()
        want = torch.matmul(f64(a), f64(b)).numpy()
        bound = torch.matmul(f64(a).abs(), f64(b).abs()).numpy()
        for dynamic in (False, True):
            pb = PartBuilder("matmul, %s%s" % (label, ", strides at launch" if dynamic else ""))
            ta = pb.arg_view("a", a, t, declared(a, dynamic))
            tb = pb.arg_view("b", b, t, declared(b, dynamic))
            to = mlir_type(want.shape, t)
            pb.line("%%0 = fuser.matmul %%a, %%b : (%s, %s) -> %s" % (ta, tb, to))
            pb.result("0", want.shape, t, from_f64(want, t), _rule(t, a.shape[-1], bound))
            parts.append(pb.part())
    # a transposed view, transposed again in the fusion (x @ wv.t() with wv
    # itself w.t()): read in place, untransposed
    w = base((10, 4)).t()
    a = base((6, 10))
    want = torch.matmul(f64(a), f64(w).t()).numpy()
    bound = torch.matmul(f64(a).abs(), f64(w).abs().t()).numpy()
    for dynamic in (False, True):
        pb = PartBuilder("matmul, a permute of a transposed view%s" % (
            ", strides at launch" if dynamic else ""))
        ta = pb.arg("a", from_torch(a, t), t)
        tw = pb.arg_view("w", w, t, declared(w, dynamic))
        tt = mlir_type((10, 4), t)
        pb.line("%%wt = fuser.permute %%w perm = [1, 0] : %s -> %s" % (tw, tt))
        pb.line("%%0 = fuser.matmul %%a, %%wt : (%s, %s) -> %s" % (ta, tt, mlir_type((6, 4), t)))
        pb.result("0", (6, 4), t, from_f64(want, t), _rule(t, 10, bound))
        parts.append(pb.part())
    lspecs = [
        ("x transposed", lambda: (base((32, 8)).t(), base((16, 32)))),
        ("w given as w.t()", lambda: (base((8, 32)), base((32, 16)).t())),
        ("3-D x a slice of wider rows", lambda: (base((2, 3, 40))[:, :, 4:36], base((5, 32)))),
    ]
    for label, make in lspecs:
        x, w = make()
        bias = base((w.shape[0],))
        want = torch.nn.functional.linear(f64(x), f64(w), f64(bias)).numpy()
        bound = torch.nn.functional.linear(f64(x).abs(), f64(w).abs(), f64(bias).abs()).numpy()
        for dynamic in (False, True):
            pb = PartBuilder("linear + bias, %s%s" % (label, ", strides at launch" if dynamic else ""))
            tx = pb.arg_view("x", x, t, declared(x, dynamic))
            tw = pb.arg_view("w", w, t, declared(w, dynamic))
            tbias = pb.arg("bias", from_torch(bias, t), t)
            to = mlir_type(want.shape, t)
            pb.line("%%0 = fuser.linear %%x, %%w bias %%bias : (%s, %s, %s) -> %s" % (
                tx, tw, tbias, to))
            pb.result("0", want.shape, t, from_f64(want, t), _rule(t, x.shape[-1], bound))
            parts.append(pb.part())
    return parts


def _fusion_parts(name, rng_for):
    rng = rng_for(name)
    return [_mlp_part(rng, "f32", 16, 64, 256), _mlp_part(rng, "bf16", 8, 128, 512),
            _attention_part(rng, "f32", 2, 16, 32), _attention_part(rng, "bf16", 3, 24, 16)]


def cases(rng_for):
    out = []
    for t in FLOAT_TYPES:
        out.append(Case("matmul/matmul/%s" % t, _bind(_matmul_parts, t, "matmul/matmul/" + t, rng_for)))
        out.append(Case("matmul/linear/%s" % t, _bind(_linear_parts, t, "matmul/linear/" + t, rng_for)))
        out.append(Case("matmul/epilogues/%s" % t,
                        _bind(_epilogue_parts, t, "matmul/epilogues/" + t, rng_for)))
        out.append(Case("matmul/views/%s" % t, _bind(_view_parts, t, "matmul/views/" + t, rng_for)))
        out.append(Case("matmul/bias_gradients/%s" % t,
                        _bind(_bias_grad_parts, t, "matmul/bias_gradients/" + t, rng_for)))
    out.append(Case("matmul/fusions", _bind(_fusion_parts, "matmul/fusions", rng_for)))
    return out
