"""fuser-vjp against torch.autograd: each case is a forward fusion that
fuserc differentiates (`fuserc run --vjp F --fusion F_vjp`) and runs on the
inputs and random cotangents; every floating-point input's gradient must
equal torch.autograd.grad of the PyTorch equivalent on the same values.

References: the forward in float64 on the inputs' values, differentiated
by autograd with the cotangents' values, rounded once to the input's type.
Bounds (docs/autodiff.md): fuser's rules compute in the gradient's own
type (f32 for f16/bf16) and gradients flow between ops rounded to each
value's type, as autograd's do; a gradient may be a difference of large
terms (softmax, the norms). So each gradient is within a few ulps of its
type, or within a tolerance relative to the largest gradient element of
its tensor: 2^-16 (f32), 2^-6 (bf16), 2^-8 (f16), 2^-40 (f64) times that
element, times a factor for the length of the chain the case writes."""

import numpy as np
import torch
import torch.nn.functional as F

from .core import Case, Expect, PartBuilder, Result, Ulps, from_f64, mlir_type, to_f64

_REL = {"f32": 2.0 ** -16, "bf16": 2.0 ** -6, "f16": 2.0 ** -8, "f64": 2.0 ** -40}
_ULPS = {"f32": 16, "bf16": 2, "f16": 2, "f64": 64}


def _t(a, t):
    return torch.from_numpy(to_f64(a, t))


class Vjp:
    """One forward part: arguments, MLIR lines, results, and the PyTorch
    function of the float64 inputs that computes the same results."""

    def __init__(self, rng, label, chain=1.0):
        self.rng, self.pb, self.chain = rng, PartBuilder(label), chain
        self.inputs = []     # (value, type, differentiable)
        self.outs = []       # (shape, type)

    def arg(self, name, shape, t, dynamic=False, data=None, scale=1.0, dims=None):
        if data is None:
            data = self.rng.standard_normal(shape) * scale
        v = from_f64(data, t) if t.startswith(("f", "b")) else np.asarray(data).astype(
            {"i64": np.int64, "i32": np.int32, "i1": np.bool_}[t])
        if dims is None and dynamic:
            dims = tuple(None for _ in shape)
        ty = self.pb.arg(name, v, t, dims)
        self.inputs.append((v, t, t in _REL))
        return ty

    def line(self, text):
        self.pb.line(text)

    def result(self, ssa, shape, t, dynamic=False, dims=None):
        if dims is None and dynamic:
            dims = tuple(None for _ in shape)
        self.pb.result(ssa, shape, t, None, None, dims=dims)
        self.outs.append((tuple(shape), t))

    def part(self, torch_fn):
        ins = []
        for v, t, diff in self.inputs:
            x = _t(v, t) if diff else torch.from_numpy(np.asarray(v))
            if diff:
                x.requires_grad_(True)
            ins.append(x)
        outs = torch_fn(*ins)
        if not isinstance(outs, (tuple, list)):
            outs = (outs,)
        cots, cot_vals = [], []
        for (shape, t), o in zip(self.outs, outs):
            assert tuple(o.shape) == shape, (self.pb.label, o.shape, shape)
            c = from_f64(self.rng.standard_normal(shape), t)
            cots.append(c)
            cot_vals.append(_t(c, t))
        diff_ins = [x for x, (_, _, d) in zip(ins, self.inputs) if d]
        grads = torch.autograd.grad(outs, diff_ins, cot_vals, allow_unused=True)
        p = self.pb.part()
        p.cotangents = cots
        p.grads = []
        for a, g, (v, t, d) in zip([a for a, (_, _, d) in zip(p.args, self.inputs) if d], grads,
                                    [i for i in self.inputs if i[2]]):
            g = torch.zeros(v.shape, dtype=torch.float64) if g is None else g.detach()
            want = from_f64(g.numpy(), t)
            big = float(np.max(np.abs(g.numpy()), initial=0.0))
            rule = Ulps(_ULPS[t], atol=_REL[t] * self.chain * max(big, 1e-30))
            p.grads.append(Result("", a.type, t, Expect(want, rule)))
        return p


def _positive(rng, shape):
    return np.abs(rng.standard_normal(shape)) + 0.25


# (op, torch function, inputs: True positive only, False any, or a domain
# named in _unary)
_UNARY = [
    ("neg", torch.neg, False), ("abs", torch.abs, False), ("exp", torch.exp, False),
    ("exp2", torch.exp2, False), ("expm1", torch.expm1, False), ("log", torch.log, True),
    ("log2", torch.log2, True), ("log1p", torch.log1p, True), ("sqrt", torch.sqrt, True),
    ("rsqrt", torch.rsqrt, True), ("reciprocal", torch.reciprocal, True),
    ("sin", torch.sin, False), ("cos", torch.cos, False), ("tanh", torch.tanh, False),
    ("sigmoid", torch.sigmoid, False), ("erf", torch.erf, False), ("relu", torch.relu, False),
    ("silu", F.silu, False), ("floor", torch.floor, False), ("sign", torch.sign, False),
    ("log10", torch.log10, True), ("tan", torch.tan, "tan"), ("asin", torch.asin, "unit"),
    ("acos", torch.acos, "unit"), ("atan", torch.atan, False), ("sinh", torch.sinh, False),
    ("cosh", torch.cosh, False), ("asinh", torch.asinh, False),
    ("acosh", torch.acosh, "above1"), ("atanh", torch.atanh, "unit"),
    ("trunc", torch.trunc, False), ("frac", torch.frac, False),
]


def _unary(rng, op, fn, positive, t, shape, dynamic):
    v = Vjp(rng, "%s %s %s%s" % (op, t, "x".join(map(str, shape)), " dynamic" if dynamic else ""))
    if positive == "unit":  # asin, acos, atanh: inside (-1, 1), away from its ends
        x = np.tanh(rng.standard_normal(shape)) * 0.9
    elif positive == "above1":  # acosh: above 1
        x = 1.25 + np.abs(rng.standard_normal(shape)) * 2
    elif positive == "tan":  # away from tan's poles
        x = np.tanh(rng.standard_normal(shape)) * 1.3
    else:
        x = _positive(rng, shape) if positive else rng.standard_normal(shape) * 2
    if op in ("abs", "relu"):  # the points without a derivative: 0 exactly
        x.reshape(-1)[::5] = 0
    ty = v.arg("x", shape, t, dynamic, x)
    v.line("%%y = fuser.%s %%x : %s" % (op, ty))
    v.result("y", shape, t, dynamic)
    return v.part(fn)


def _gelu(rng, approximate, t, shape):
    v = Vjp(rng, "gelu %s %s" % (approximate, t))
    ty = v.arg("x", shape, t, scale=2.0)
    attr = " approximate = tanh" if approximate == "tanh" else ""
    v.line("%%y = fuser.gelu %%x%s : %s" % (attr, ty))
    v.result("y", shape, t)
    return v.part(lambda x: F.gelu(x, approximate=approximate))


_BINARY = [
    ("add", torch.add), ("sub", torch.sub), ("mul", torch.mul), ("div", torch.div),
    ("maximum", torch.maximum), ("minimum", torch.minimum), ("atan2", torch.atan2),
    ("remainder", torch.remainder), ("fmod", torch.fmod), ("pow", torch.pow),
]


def _binary(rng, op, fn, t, shape, scalar_rhs, dynamic):
    v = Vjp(rng, "%s %s %s%s%s" % (op, t, "x".join(map(str, shape)),
                                   " scalar rhs" if scalar_rhs else "",
                                   " dynamic" if dynamic else ""))
    rshape = () if scalar_rhs else shape
    a = _positive(rng, shape) if op == "pow" else rng.standard_normal(shape)
    b = np.asarray(rng.standard_normal(rshape))
    if op in ("maximum", "minimum") and not scalar_rhs:  # ties split the gradient
        b.reshape(-1)[::3] = a.reshape(-1)[::3]
    if op == "pow":  # a zero base and a zero exponent: PyTorch's conventions
        a.reshape(-1)[::7] = 0
        b.reshape(-1)[::11] = 0
    if op in ("remainder", "fmod", "div"):  # no divisor near 0
        b = np.where(np.abs(b) < 0.25, 0.5, b)
    ta = v.arg("a", shape, t, dynamic, a)
    tb = v.arg("b", rshape, t, dynamic and not scalar_rhs, b)
    v.line("%%y = fuser.%s %%a, %%b : %s, %s" % (op, ta, tb) if scalar_rhs else
           "%%y = fuser.%s %%a, %%b : %s" % (op, ta))
    v.result("y", shape, t, dynamic)
    return v.part(fn)


def _ternary(rng, t, shape):
    parts = []
    v = Vjp(rng, "where %s" % t)
    tc = v.arg("c", shape, "i1", data=rng.standard_normal(shape) > 0)
    ta = v.arg("a", shape, t)
    tb = v.arg("b", (), t)
    v.line("%%y = fuser.where %%c, %%a, %%b : %s, %s, %s" % (tc, ta, tb))
    v.result("y", shape, t)
    parts.append(v.part(lambda c, a, b: torch.where(c, a, b)))

    v = Vjp(rng, "clamp %s" % t)
    tx = v.arg("x", shape, t, scale=2.0)
    tl = v.arg("lo", shape, t, data=rng.standard_normal(shape) - 0.5)
    th = v.arg("hi", shape, t, data=rng.standard_normal(shape) + 0.5)
    v.line("%%y = fuser.clamp %%x, %%lo, %%hi : %s, %s, %s" % (tx, tl, th))
    v.result("y", shape, t)
    parts.append(v.part(lambda x, lo, hi: torch.clamp(x, lo, hi)))

    v = Vjp(rng, "lerp %s" % t)
    ts = v.arg("s", shape, t)
    te = v.arg("e", shape, t)
    tw = v.arg("w", shape, t)
    v.line("%%y = fuser.lerp %%s, %%e, %%w : %s, %s, %s" % (ts, te, tw))
    v.result("y", shape, t)
    parts.append(v.part(torch.lerp))

    v = Vjp(rng, "fma %s" % t)
    ta = v.arg("a", shape, t)
    tb = v.arg("b", shape, t)
    tcc = v.arg("c", (), t)
    v.line("%%y = fuser.fma %%a, %%b, %%c : %s, %s, %s" % (ta, tb, tcc))
    v.result("y", shape, t)
    parts.append(v.part(lambda a, b, c: a * b + c))
    return parts


def _reductions(rng, t, n, h, dynamic):
    parts = []
    d = " dynamic" if dynamic else ""
    for op, keep in (("sum", False), ("sum", True), ("mean", False), ("max", False),
                     ("min", True)):
        v = Vjp(rng, "%s keepdim=%s %s %dx%d%s" % (op, keep, t, n, h, d))
        x = rng.standard_normal((n, h))
        if op in ("max", "min"):  # ties share the gradient evenly
            x[:, 1::4] = x[:, ::4][:, :x[:, 1::4].shape[1]]
        tx = v.arg("x", (n, h), t, dynamic, x)
        rs = (n, 1) if keep else (n,)
        rdims = ((None,) if dynamic else (n,)) + ((1,) if keep else ())
        rty = mlir_type(rdims, t)
        v.line("%%y = fuser.%s %%x dims = [1]%s : %s -> %s" % (
            op, " keepdim = true" if keep else "", tx, rty))
        v.result("y", rs, t, dims=rdims)
        fn = {"sum": lambda x, k=keep: x.sum(1, keepdim=k),
              "mean": lambda x, k=keep: x.mean(1, keepdim=k),
              "max": lambda x, k=keep: x.amax(1, keepdim=k),
              "min": lambda x, k=keep: x.amin(1, keepdim=k)}[op]
        parts.append(v.part(fn))
    # the whole tensor, and over the leading dim
    v = Vjp(rng, "mean over all %s %dx%d%s" % (t, n, h, d))
    tx = v.arg("x", (n, h), t, dynamic)
    v.line("%%y = fuser.mean %%x dims = [0, 1] : %s -> %s" % (tx, mlir_type((), t)))
    v.result("y", (), t)
    parts.append(v.part(lambda x: x.mean()))
    v = Vjp(rng, "var_mean %s %dx%d%s" % (t, n, h, d))
    tx = v.arg("x", (n, h), t, dynamic)
    rty = mlir_type((None,) if dynamic else (n,), t)
    v.line("%%var, %%mean = fuser.var_mean %%x dims = [1] correction = 1 : %s -> %s, %s" % (
        tx, rty, rty))
    v.result("var", (n,), t, dynamic)
    v.result("mean", (n,), t, dynamic)
    parts.append(v.part(lambda x: torch.var_mean(x, 1, unbiased=True)))
    return parts


def _products_and_scans(rng, t, dynamic):
    parts = []
    d = " dynamic" if dynamic else ""
    n, h = 6, 37
    x = rng.standard_normal((n, h)) + 0.1
    x[1, 5] = 0                 # one zero in a row: the product of the others there
    x[2, 3] = x[2, 30] = 0      # two zeros: no gradient in the row
    dims = (None, None) if dynamic else None
    v = Vjp(rng, "prod %s%s" % (t, d), chain=4)
    tx = v.arg("x", (n, h), t, dims=dims, data=x * 0.9)
    ry = mlir_type((None,) if dynamic else (n,), t)
    v.line("%%y = fuser.prod %%x dims = [1] : %s -> %s" % (tx, ry))
    v.result("y", (n,), t, dims=(None,) if dynamic else None)
    parts.append(v.part(lambda x: x.prod(1)))
    for dim in (0, 1):
        v = Vjp(rng, "cumsum dim %d %s%s" % (dim, t, d), chain=4)
        tx = v.arg("x", (n, h), t, dims=dims)
        v.line("%%y = fuser.cumsum %%x dim = %d : %s" % (dim, tx))
        v.result("y", (n, h), t, dims=dims)
        parts.append(v.part(lambda x, dim=dim: torch.cumsum(x, dim)))
    for dim in (0, 1):
        v = Vjp(rng, "cumprod dim %d %s%s" % (dim, t, d), chain=8)
        xc = rng.uniform(0.5, 1.5, (n, h)) * np.where(rng.random((n, h)) < 0.5, -1, 1)
        xc[1, 4] = 0                  # one zero in a line (dim 1), in a column too
        xc[2, 3] = xc[2, 20] = 0      # two zeros in a line
        xc[4, 0] = 0                  # a zero first
        tx = v.arg("x", (n, h), t, dims=dims, data=xc)
        v.line("%%y = fuser.cumprod %%x dim = %d : %s" % (dim, tx))
        v.result("y", (n, h), t, dims=dims)
        parts.append(v.part(lambda x, dim=dim: torch.cumprod(x, dim)))
    for op, fn in (("cummax", torch.cummax), ("cummin", torch.cummin)):
        v = Vjp(rng, "%s %s%s" % (op, t, d))
        xs = np.round(rng.standard_normal((n, h)) * 2) / 2  # ties
        tx = v.arg("x", (n, h), t, dims=dims, data=xs)
        ti = mlir_type(dims or (n, h), "i64")
        v.line("%%y, %%i = fuser.%s %%x dim = 1 : %s -> %s" % (op, tx, ti))
        v.result("y", (n, h), t, dims=dims)
        parts.append(v.part(lambda x, fn=fn: fn(x, 1)[0]))
    return parts


def _shapes(rng, t):
    parts = []
    v = Vjp(rng, "broadcast bias %s" % t)
    tx = v.arg("x", (6, 10), t)
    tb = v.arg("b", (10,), t)
    tk = v.arg("k", (6, 1), t)
    v.line("%%bb = fuser.broadcast %%b dims = [1] : %s -> %s" % (tb, tx))
    v.line("%%kb = fuser.broadcast %%k dims = [0, 1] : %s -> %s" % (tk, tx))
    v.line("%%s = fuser.add %%x, %%bb : %s" % tx)
    v.line("%%y = fuser.mul %%s, %%kb : %s" % tx)
    v.result("y", (6, 10), t)
    parts.append(v.part(lambda x, b, k: (x + b) * k))

    v = Vjp(rng, "broadcast bias dynamic %s" % t)
    tx = v.arg("x", (5, 12), t, True)
    tb = v.arg("b", (12,), t, True)
    v.line("%%bb = fuser.broadcast %%b dims = [1] : %s -> %s" % (tb, tx))
    v.line("%%y = fuser.mul %%x, %%bb : %s" % tx)
    v.result("y", (5, 12), t, True)
    parts.append(v.part(lambda x, b: x * b))

    v = Vjp(rng, "reshape permute %s" % t)
    tx = v.arg("x", (4, 6), t)
    v.line("%%r = fuser.reshape %%x : %s -> %s" % (tx, mlir_type((2, 2, 6), t)))
    v.line("%%p = fuser.permute %%r perm = [2, 0, 1] : %s -> %s" % (
        mlir_type((2, 2, 6), t), mlir_type((6, 2, 2), t)))
    v.line("%%y = fuser.exp %%p : %s" % mlir_type((6, 2, 2), t))
    v.result("y", (6, 2, 2), t)
    parts.append(v.part(lambda x: torch.exp(x.reshape(2, 2, 6).permute(2, 0, 1))))

    # the gradient's reshape back to [4, 4, ?] is the only tie of the
    # broadcast's dim: the shape analysis computes it from the result
    v = Vjp(rng, "reshape joining dims, sum over a dim known at launch %s" % t)
    tx = v.arg("x", (4, 4, 5), t, dims=(4, 4, None))
    tr = mlir_type((16, None), t)
    v.line("%%r = fuser.reshape %%x : %s -> %s" % (tx, tr))
    v.line("%%s = fuser.sum %%r dims = [1] : %s -> %s" % (tr, mlir_type((16,), t)))
    v.result("s", (16,), t)
    parts.append(v.part(lambda x: x.reshape(16, -1).sum(1)))

    # a reshape that merges dims known at launch: the gradient's reshape
    # back to [?, ?] takes its dims from the input (the reshape rule would
    # keep dim 0 of [?] and make dim 1 the rest); also summed, with the
    # reshaped value returned too
    v = Vjp(rng, "reshape merging dims known at launch %s" % t)
    tx = v.arg("x", (3, 4), t, dims=(None, None))
    tr = mlir_type((None,), t)
    v.line("%%n = fuser.neg %%x : %s" % tx)
    v.line("%%r = fuser.reshape %%n : %s -> %s" % (tx, tr))
    v.line("%%e = fuser.exp %%r : %s" % tr)
    v.line("%%s = fuser.sum %%r dims = [0] : %s -> %s" % (tr, mlir_type((), t)))
    v.result("e", (12,), t, dims=(None,))
    v.result("s", (), t)
    v.result("n", (3, 4), t, dims=(None, None))
    parts.append(v.part(lambda x: (torch.exp(-x.reshape(-1)), (-x.reshape(-1)).sum(), -x)))

    # layer_norm over a dim known at launch, then a sum: the gradient's
    # broadcast of the sum's cotangent is read by a mean too (fuser-segment
    # gave the mean a copy of it that nothing sized)
    v = Vjp(rng, "layer_norm over a dim known at launch, then sum %s" % t)
    tx = v.arg("x", (37,), t, dims=(None,))
    v.line("%%y, %%m, %%r = fuser.layer_norm %%x dims = [0] eps = 1.000000e-01 : (%s) -> (%s, %s, %s)" % (
        tx, tx, mlir_type((1,), "f32" if t != "f64" else t), mlir_type((1,), "f32" if t != "f64" else t)))
    v.line("%%e = fuser.exp %%y : %s" % tx)
    v.line("%%s = fuser.sum %%e dims = [0] keepdim = true : %s -> %s" % (tx, mlir_type((1,), t)))
    v.result("s", (1,), t)
    parts.append(v.part(lambda x: torch.exp(
        torch.nn.functional.layer_norm(x, (37,), eps=0.1)).sum(0, keepdim=True)))

    v = Vjp(rng, "slice step 2, pad and crop %s" % t)
    tx = v.arg("x", (5, 9), t)
    v.line("%%s = fuser.slice %%x start = [1, 0] limit = [5, 9] step = [1, 2] : %s -> %s" % (
        tx, mlir_type((4, 5), t)))
    v.line("%%z = fuser.constant 0.0 : %s" % mlir_type((), t))
    v.line("%%p = fuser.pad %%s, %%z low = [1, -1] high = [-2, 3] : %s, %s -> %s" % (
        mlir_type((4, 5), t), mlir_type((), t), mlir_type((3, 7), t)))
    v.line("%%y = fuser.sin %%p : %s" % mlir_type((3, 7), t))
    v.result("y", (3, 7), t)
    parts.append(v.part(lambda x: torch.sin(F.pad(x[1:5, 0:9:2], (-1, 3, 1, -2)))))

    # the padding value's gradient, the sum of g over 2 + 3 positions next to
    # 4096 large ones (a difference of the two sums would cancel)
    for dyn in (False, True):
        v = Vjp(rng, "pad value %s%s" % (t, " dynamic" if dyn else ""))
        tx = v.arg("x", (4096,), t, data=100 + rng.standard_normal(4096),
                   dims=(None,) if dyn else None)
        tv = v.arg("v", (), t)
        ty = mlir_type((None,) if dyn else (4101,), t)
        v.line("%%p = fuser.pad %%x, %%v low = [2] high = [3] : %s, %s -> %s" % (tx, tv, ty))
        v.line("%%y = fuser.mul %%p, %%p : %s" % ty)
        v.result("y", (4101,), t, dims=(None,) if dyn else None)
        parts.append(v.part(lambda x, val: torch.cat([val.expand(2), x, val.expand(3)]) ** 2))

    v = Vjp(rng, "concat %s" % t)
    ta = v.arg("a", (3, 4), t, dims=(None, 4))
    tb = v.arg("b", (3, 2), t)
    v.line("%%b2 = fuser.reshape %%b : %s -> %s" % (tb, mlir_type((None, 2), t)))
    v.line("%%c = fuser.concat %%a, %%b2 dim = 1 : %s, %s -> %s" % (
        ta, mlir_type((None, 2), t), mlir_type((None, 6), t)))
    v.line("%%y = fuser.tanh %%c : %s" % mlir_type((None, 6), t))
    v.result("y", (3, 6), t, dims=(None, 6))
    parts.append(v.part(lambda a, b: torch.tanh(torch.cat([a, b], 1))))

    v = Vjp(rng, "cast round trip %s" % t)
    tx = v.arg("x", (7, 5), t)
    t32 = mlir_type((7, 5), "f32")
    v.line("%%w = fuser.cast %%x : %s to %s" % (tx, t32))
    v.line("%%e = fuser.exp %%w : %s" % t32)
    v.line("%%y = fuser.cast %%e : %s to %s" % (t32, tx))
    v.result("y", (7, 5), t)
    parts.append(v.part(torch.exp))

    # (last: the random inputs of the cases above stay as they were)
    # a pad before a reshape that merges dims known at launch: the gradient's crop reads the reshape
    # back, whose dims are known only after every op (the compiler
    # crashed on its unknown size: random_vjp seed 1949)
    v = Vjp(rng, "pad then reshape merging dims known at launch %s" % t)
    tx = v.arg("x", (5, 1), t, dims=(None, 1))
    tz = mlir_type((), t)
    tp = mlir_type((None, 2), t)
    tr = mlir_type((None,), t)
    v.line("%%z = fuser.constant 0.0 : %s" % tz)
    v.line("%%p = fuser.pad %%x, %%z low = [1, 0] high = [0, 1] : %s, %s -> %s" % (tx, tz, tp))
    v.line("%%r = fuser.reshape %%p : %s -> %s" % (tp, tr))
    v.line("%%e = fuser.exp %%r : %s" % tr)
    v.result("e", (12,), t, dims=(None,))
    parts.append(v.part(lambda x: torch.exp(F.pad(x, (0, 1, 1, 0)).reshape(-1))))

    # log_softmax over dim 0 of [?, ?], flattened: the gradient's reshape
    # back to [?, ?] is summed over dim 0 in the kernel of the forward's
    # max, where nothing but fuser-segment's record of its sizes gives the
    # copy its dims (the kernel was refused: random_vjp seed 1193)
    v = Vjp(rng, "log_softmax over dim 0 known at launch, flattened %s" % t)
    tx = v.arg("x", (6, 5), t, dims=(None, None))
    tr = mlir_type((None,), t)
    v.line("%%l = fuser.log_softmax %%x dim = 0 : %s" % tx)
    v.line("%%r = fuser.reshape %%l : %s -> %s" % (tx, tr))
    v.result("r", (30,), t, dims=(None,))
    parts.append(v.part(lambda x: torch.log_softmax(x, 0).reshape(-1)))
    return parts


def _indexing(rng, t):
    parts = []
    v = Vjp(rng, "index_select (embedding) %s" % t)
    tw = v.arg("table", (20, 8), t)
    ids = rng.integers(0, 20, 12)
    ids[:3] = 4  # repeated rows add up
    ti = v.arg("ids", (12,), "i64", data=ids)
    v.line("%%e = fuser.index_select %%table, %%ids dim = 0 : %s, %s -> %s" % (
        tw, ti, mlir_type((12, 8), t)))
    v.result("e", (12, 8), t)
    parts.append(v.part(lambda w, i: w.index_select(0, i)))

    v = Vjp(rng, "gather (cross-entropy pick) %s" % t)
    tx = v.arg("x", (6, 10), t)
    ti = v.arg("idx", (6, 3), "i64", data=rng.integers(0, 10, (6, 3)))
    v.line("%%g = fuser.gather %%x, %%idx dim = 1 : %s, %s -> %s" % (tx, ti, mlir_type((6, 3), t)))
    v.result("g", (6, 3), t)
    parts.append(v.part(lambda x, i: torch.gather(x, 1, i)))
    return parts


def _composites(rng, t, n, h, dynamic):
    parts = []
    d = " dynamic" if dynamic else ""
    shape = (n, h)
    for log in (False, True):
        op = "log_softmax" if log else "softmax"
        v = Vjp(rng, "%s %s %dx%d%s" % (op, t, n, h, d), chain=4)
        tx = v.arg("x", shape, t, dynamic, scale=2.0)
        v.line("%%y = fuser.%s %%x dim = 1 : %s" % (op, tx))
        v.result("y", shape, t, dynamic)
        parts.append(v.part(lambda x, log=log: (torch.log_softmax if log else torch.softmax)(x, 1)))

    stat = "f32" if t in ("bf16", "f16") else t
    v = Vjp(rng, "layer_norm %s %dx%d%s" % (t, n, h, d), chain=8)
    tx = v.arg("x", shape, t, dynamic)
    tw = v.arg("w", (h,), t, dynamic)
    tb = v.arg("b", (h,), t, dynamic)
    st = mlir_type((None, 1) if dynamic else (n, 1), stat)
    v.line("%%y, %%mean, %%rstd = fuser.layer_norm %%x weight %%w bias %%b dims = [1] "
           "eps = 1.0e-05 : (%s, %s, %s) -> (%s, %s, %s)" % (tx, tw, tb, tx, st, st))
    v.result("y", shape, t, dynamic)
    parts.append(v.part(lambda x, w, b: F.layer_norm(x, (h,), w, b, 1e-5)))

    v = Vjp(rng, "layer_norm with mean and rstd results %s %dx%d%s" % (t, n, h, d), chain=8)
    tx = v.arg("x", shape, t, dynamic)
    v.line("%%y, %%mean, %%rstd = fuser.layer_norm %%x dims = [1] "
           "eps = 1.0e-05 : (%s) -> (%s, %s, %s)" % (tx, tx, st, st))
    v.result("y", shape, t, dynamic)
    sdims = ((None,) if dynamic else (n,)) + (1,)
    v.result("mean", (n, 1), stat, dims=sdims)
    v.result("rstd", (n, 1), stat, dims=sdims)

    def ln_stats(x):
        m = x.mean(1, keepdim=True)
        var = ((x - m) ** 2).mean(1, keepdim=True)
        r = torch.rsqrt(var + 1e-5)
        return (x - m) * r, m, r
    parts.append(v.part(ln_stats))

    v = Vjp(rng, "rms_norm %s %dx%d%s" % (t, n, h, d), chain=8)
    tx = v.arg("x", shape, t, dynamic)
    tw = v.arg("w", (h,), t, dynamic)
    v.line("%%y = fuser.rms_norm %%x weight %%w dims = [1] eps = 1.0e-06 : (%s, %s) -> %s" % (
        tx, tw, tx))
    v.result("y", shape, t, dynamic)
    parts.append(v.part(lambda x, w: x * torch.rsqrt((x * x).mean(1, keepdim=True) + 1e-6) * w))
    return parts


def _mlp(rng, t, n, h):
    """layer_norm -> gelu -> scale -> + residual -> sum of squares: a chain."""
    v = Vjp(rng, "layer_norm gelu residual %s %dx%d" % (t, n, h), chain=16)
    tx = v.arg("x", (n, h), t)
    tw = v.arg("w", (h,), t)
    ts = v.arg("s", (), t)
    st = mlir_type((n, 1), "f32" if t in ("bf16", "f16") else t)
    v.line("%%y, %%m, %%r = fuser.layer_norm %%x weight %%w dims = [1] eps = 1.0e-05 "
           ": (%s, %s) -> (%s, %s, %s)" % (tx, tw, tx, st, st))
    v.line("%%g = fuser.gelu %%y approximate = tanh : %s" % tx)
    v.line("%%k = fuser.mul %%g, %%s : %s, %s" % (tx, ts))
    v.line("%%o = fuser.add %%k, %%x : %s" % tx)
    v.line("%%q = fuser.mul %%o, %%o : %s" % tx)
    v.line("%%l = fuser.sum %%q dims = [1] : %s -> %s" % (tx, mlir_type((n,), t)))
    v.result("o", (n, h), t)
    v.result("l", (n,), t)

    def fn(x, w, s):
        o = F.gelu(F.layer_norm(x, (h,), w, None, 1e-5), approximate="tanh") * s + x
        return o, (o * o).sum(1)
    return v.part(fn)


def _matmuls(rng, t):
    """torch.matmul's shapes (vectors, batches broadcast whole and along
    some dims) and F.linear with and without a bias, rows of a size known at
    launch: the gradients of library calls are library calls."""
    parts = []
    for ashape, bshape in [((7,), (7,)), ((5, 7), (7,)), ((7,), (7, 3)), ((5, 7), (7, 3)),
                           ((2, 5, 7), (7, 3)), ((5, 7), (4, 7, 3)), ((2, 1, 5, 7), (3, 7, 4))]:
        v = Vjp(rng, "matmul %s @ %s %s" % (ashape, bshape, t), chain=4)
        ta = v.arg("a", ashape, t)
        tb = v.arg("b", bshape, t)
        want = torch.matmul(torch.zeros(ashape), torch.zeros(bshape)).shape
        to = mlir_type(tuple(want), t)
        v.line("%%0 = fuser.matmul %%a, %%b : (%s, %s) -> %s" % (ta, tb, to))
        v.result("0", tuple(want), t)
        parts.append(v.part(torch.matmul))
    for xshape, dynamic, bias in [((6, 9), False, True), ((2, 3, 9), False, False),
                                  ((9,), False, True), ((6, 9), True, True)]:
        v = Vjp(rng, "linear %s -> 4%s%s %s" % (xshape, " + bias" if bias else "",
                                               ", dynamic rows" if dynamic else "", t), chain=4)
        dims = ((None,) + tuple(xshape[1:])) if dynamic else None
        tx = v.arg("x", xshape, t, dims=dims)
        tw = v.arg("w", (4, xshape[-1]), t)
        oshape = tuple(xshape[:-1]) + (4,)
        odims = ((None,) + oshape[1:]) if dynamic else None
        to = mlir_type(odims or oshape, t)
        if bias:
            tb = v.arg("bias", (4,), t)
            v.line("%%0 = fuser.linear %%x, %%w bias %%bias : (%s, %s, %s) -> %s" % (tx, tw, tb, to))
        else:
            v.line("%%0 = fuser.linear %%x, %%w : (%s, %s) -> %s" % (tx, tw, to))
        v.result("0", oshape, t, dims=odims)
        parts.append(v.part(F.linear))
    # Sizes known only at launch where a gradient's type must take its
    # operand's (a static 1 against ?), inputs of rank 3 with several ? (no
    # reshape into rows says which dims it joins), and empty dims beside ?.
    for ashape, adims, bshape, bdims in [((3, 1), (None, 1), (1, 4), (None, None)),
                                         ((0, 3), (0, None), (3, 4), (3, 4)),
                                         ((1,), (1,), (1, 5), (None, None))]:
        v = Vjp(rng, "matmul %s as %s @ %s as %s %s" % (ashape, adims, bshape, bdims, t))
        ta = v.arg("a", ashape, t, dims=adims)
        tb = v.arg("b", bshape, t, dims=bdims)
        want = tuple(torch.matmul(torch.zeros(ashape), torch.zeros(bshape)).shape)
        odims = tuple(([adims[0]] if len(ashape) > 1 else []) + ([bdims[-1]] if len(bshape) > 1 else []))
        v.line("%%0 = fuser.matmul %%a, %%b : (%s, %s) -> %s" % (ta, tb, mlir_type(odims, t)))
        v.result("0", want, t, dims=odims)
        parts.append(v.part(torch.matmul))
    for xshape, xdims, wshape, wdims in [((2, 3, 5), (None, None, None), (4, 5), (4, None)),
                                         ((2, 3, 5), (2, None, None), (4, 5), (4, 5)),
                                         ((1, 3), (1, 3), (0, 3), (0, None))]:
        v = Vjp(rng, "linear %s as %s by %s as %s %s" % (xshape, xdims, wshape, wdims, t))
        tx = v.arg("x", xshape, t, dims=xdims)
        tw = v.arg("w", wshape, t, dims=wdims)
        odims = tuple(xdims[:-1]) + (wdims[0],)
        v.line("%%0 = fuser.linear %%x, %%w : (%s, %s) -> %s" % (tx, tw, mlir_type(odims, t)))
        v.result("0", tuple(xshape[:-1]) + (wshape[0],), t, dims=odims)
        parts.append(v.part(F.linear))
    return parts


def cases(rng_for):
    out = []
    for t in ("f32", "bf16", "f64"):
        for op, fn, pos in _UNARY:
            out.append(Case("autodiff/unary/%s/%s" % (op, t), lambda op=op, fn=fn, pos=pos, t=t: [
                _unary(rng_for("u" + op + t), op, fn, pos, t, (7, 33), False),
                _unary(rng_for("ud" + op + t), op, fn, pos, t, (3, 130), True)]))
        out.append(Case("autodiff/gelu/%s" % t, lambda t=t: [
            _gelu(rng_for("g" + a + t), a, t, (9, 40)) for a in ("none", "tanh")]))
        for op, fn in _BINARY:
            out.append(Case("autodiff/binary/%s/%s" % (op, t), lambda op=op, fn=fn, t=t: [
                _binary(rng_for("b" + op + t), op, fn, t, (5, 24), False, False),
                _binary(rng_for("bs" + op + t), op, fn, t, (5, 24), True, False),
                _binary(rng_for("bd" + op + t), op, fn, t, (4, 70), False, True)]))
        out.append(Case("autodiff/ternary/%s" % t, lambda t=t: _ternary(rng_for("t" + t), t, (6, 17))))
        out.append(Case("autodiff/reductions/%s" % t, lambda t=t: (
            _reductions(rng_for("r" + t), t, 5, 64, False)
            + _reductions(rng_for("rd" + t), t, 3, 1000, True))))
        out.append(Case("autodiff/shapes/%s" % t, lambda t=t: _shapes(rng_for("s" + t), t)))
        out.append(Case("autodiff/scans/%s" % t, lambda t=t: (
            _products_and_scans(rng_for("p" + t), t, False)
            + _products_and_scans(rng_for("pd" + t), t, True))))
        out.append(Case("autodiff/indexing/%s" % t, lambda t=t: _indexing(rng_for("i" + t), t)))
        out.append(Case("autodiff/composites/%s" % t, lambda t=t: (
            _composites(rng_for("c" + t), t, 4, 100, False)
            + _composites(rng_for("cd" + t), t, 3, 1031, True))))
        out.append(Case("autodiff/matmul/%s" % t, lambda t=t: _matmuls(rng_for("mm" + t), t)))
        out.append(Case("autodiff/chain/%s" % t, lambda t=t: [_mlp(rng_for("m" + t), t, 8, 256)]))
    return out


def residual_cases(rng_for):
    """The residual form: F_fwd, then F_bwd on what it saved."""
    out = []
    for t in ("f32", "bf16", "f64"):
        out.append(Case("autodiff/residuals/%s" % t, lambda t=t: (
            _composites(rng_for("rc" + t), t, 4, 100, False)
            + _reductions(rng_for("rr" + t), t, 3, 1000, True)
            + [_mlp(rng_for("rm" + t), t, 8, 256)]
            + _matmuls(rng_for("rmm" + t), t)
            + _shapes(rng_for("rs" + t), t)), extra=["--residuals"]))
    return out
