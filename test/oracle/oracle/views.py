"""Views: fusion arguments declared with `fuser.strides` and passed as the
views PyTorch makes (a transpose or permute, a slice with an offset and a
step, an expand with stride 0, an unsqueezed broadcast), without a copy:
fuserc run --view hands fuser the view's storage, sizes and strides, as a
framework hands fuser_run a tensor's data pointer and strides.

Each view is read by the schedulers that meet it: pointwise (a transposed
view goes through the shared-memory tile, coalesced on both sides), inner
and outer reductions, a persistent softmax whose rows are strided, a scan,
an index_select whose table is a slice, with static strides and with
strides passed at run time (`?`), for every element type.

References: PyTorch on the same views; the ops here are exact in every
type (neg, add of integers, maximum, where, data movement) or PyTorch's
own rounding per op (sum: n + 10 roundings of f32; softmax: the
normalization suite's reference and bound)."""

import numpy as np
import torch

from . import values
from .core import Case, Exact, PartBuilder, Ulps, from_torch, mlir_type, to_torch
from .normalization import softmax_ref

EXACT = Exact()
TYPES = ("f16", "bf16", "f32", "f64", "i8", "i32", "i64", "i1")


def _bind(fn, *a):
    return lambda: fn(*a)


def _base(t, shape, rng):
    return to_torch(values.random(t, shape, rng), t)


def _declared(view, dynamic):
    return ["?"] * view.dim() if dynamic else list(view.stride())


def _views(t, rng):
    """(label, view) pairs of one element type: each a view of a fresh
    base tensor, made by PyTorch."""
    out = []
    b = _base(t, (48, 40), rng)
    out.append(("transpose 40x48", b.t()))
    b = _base(t, (3, 17, 5, 8), rng)
    out.append(("permute [0,2,1,3] of 3x17x5x8", b.permute(0, 2, 1, 3)))
    b = _base(t, (20, 72), rng)
    out.append(("slice [:, 5:69]", b[:, 5:69]))
    out.append(("slice [2:18:3, ::2]", b[2:18:3, ::2]))
    b = _base(t, (64,), rng)
    out.append(("expand 64 -> 9x64 (stride 0)", b.expand(9, 64)))
    b = _base(t, (9, 1), rng)
    out.append(("expand 9x1 -> 9x64 (inner stride 0)", b.expand(9, 64)))
    b = _base(t, (6, 33, 4), rng)
    out.append(("slice then transpose", b[1:5, 3:30].transpose(0, 2)))
    return out


def _unary(t):
    """An op exact in type t, its PyTorch reference, and its MLIR line."""
    if t == "i1":
        return (lambda x: torch.logical_not(x), "%%0 = fuser.not %%x : %s")
    return (lambda x: torch.neg(x), "%%0 = fuser.neg %%x : %s")


def _pointwise_parts(t, name, rng_for):
    rng = rng_for(name)
    ref, line = _unary(t)
    parts = []
    for label, v in _views(t, rng):
        for dynamic in (False, True):
            dims = tuple(None for _ in v.shape) if dynamic else None
            pb = PartBuilder("%s %s strides%s" % (label, t, " ?" if dynamic else ""))
            tx = pb.arg_view("x", v, t, _declared(v, dynamic), dims=dims)
            pb.line(line % tx)
            pb.result("0", tuple(v.shape), t, from_torch(ref(v), t), EXACT, dims=dims)
            parts.append(pb.part())
    # A view and a dense tensor together: the dense one read row-major, the
    # view through its strides, in one kernel.
    b = _base(t, (32, 24), rng)
    v = b.t()
    y = values.random(t, (24, 32), rng)
    pb = PartBuilder("transpose with a dense operand %s" % t)
    tv = pb.arg_view("x", v, t, list(v.stride()))
    pb.arg("y", y, t)
    if t == "i1":
        pb.line("%%0 = fuser.xor %%x, %%y : %s" % tv)
        want = torch.logical_xor(v, to_torch(y, t))
    else:
        pb.line("%%0 = fuser.maximum %%x, %%y : %s" % tv)
        want = torch.maximum(v, to_torch(y, t))
    pb.result("0", (24, 32), t, from_torch(want, t), EXACT)
    parts.append(pb.part())
    return parts


def _reduction_parts(name, rng_for):
    """Reductions over views: rows of a transposed view (the reduced dim is
    the strided one), columns of a slice, a softmax over strided rows, a
    cumsum along a transposed view, an index_select from a sliced table."""
    rng = rng_for(name)
    parts = []
    for t in ("f32", "bf16"):
        acc = "f32"
        b = to_torch(values.random(t, (300, 20), rng, kind="unit"), t)
        v = b.t()  # 20x300, contiguous along dim 0
        for dynamic in (False, True):
            dims = (None, None) if dynamic else None
            pb = PartBuilder("sum dim 1 of transpose 20x300 %s%s" % (t, " ?" if dynamic else ""))
            tx = pb.arg_view("x", v, t, _declared(v, dynamic), dims=dims)
            tf = mlir_type(dims or (20, 300), acc)
            tr = mlir_type((None,) if dynamic else (20,), acc)
            src = "%x"
            if t != acc:
                pb.line("%%xf = fuser.cast %%x : %s to %s" % (tx, tf))
                src = "%xf"
            pb.line("%%0 = fuser.sum %s dims = [1] : %s -> %s" % (src, tf, tr))
            x64 = v.double()
            want = x64.sum(dim=1).float().numpy()
            bound = 310 * 2.0 ** -24 * x64.abs().sum(dim=1).numpy() + 1e-30
            pb.result("0", (20,), acc, want, Ulps(1, bound), dims=(None,) if dynamic else None)
            parts.append(pb.part())
        # Columns of a slice: an outer reduction whose rows are 64 apart.
        b = to_torch(values.random(t, (50, 64), rng, kind="unit"), t)
        v = b[3:47, 8:40]
        pb = PartBuilder("sum dim 0 of slice [3:47, 8:40] %s" % t)
        tx = pb.arg_view("x", v, t, list(v.stride()))
        tf = mlir_type((44, 32), acc)
        src = "%x"
        if t != acc:
            pb.line("%%xf = fuser.cast %%x : %s to %s" % (tx, tf))
            src = "%xf"
        pb.line("%%0 = fuser.sum %s dims = [0] : %s -> %s" % (src, tf, mlir_type((32,), acc)))
        x64 = v.double()
        want = x64.sum(dim=0).float().numpy()
        bound = 60 * 2.0 ** -24 * x64.abs().sum(dim=0).numpy() + 1e-30
        pb.result("0", (32,), acc, want, Ulps(1, bound))
        parts.append(pb.part())
    # Reductions whose input is contiguous along a kept dim: the reduction
    # iterates with that dim last (an outer kernel, coalesced), for a
    # permute of a dense tensor as for a view.
    x = values.random("f32", (300, 20), rng, kind="unit")
    pb = PartBuilder("sum dim 1 of permute of dense 300x20 f32")
    tx = pb.arg("x", x, "f32")
    pb.line("%%p = fuser.permute %%x perm = [1, 0] : %s -> %s" % (tx, mlir_type((20, 300), "f32")))
    pb.line("%%0 = fuser.sum %%p dims = [1] : %s -> %s" % (mlir_type((20, 300), "f32"),
                                                           mlir_type((20,), "f32")))
    x64 = torch.from_numpy(x).double().t()
    pb.result("0", (20,), "f32", x64.sum(dim=1).float().numpy(),
              Ulps(1, 310 * 2.0 ** -24 * x64.abs().sum(dim=1).numpy() + 1e-30))
    parts.append(pb.part())
    b = to_torch(values.random("f32", (6, 50, 8), rng, kind="unit"), "f32")
    v = b.permute(2, 1, 0)  # 8x50x6, contiguous along dim 0
    for dynamic in (False, True):
        dims = (None, None, None) if dynamic else None
        pb = PartBuilder("sum and max dims [1, 2] of permute [2,1,0] view%s" % (" ?" if dynamic else ""))
        tx = pb.arg_view("x", v, "f32", _declared(v, dynamic), dims=dims)
        tr = mlir_type((None,) if dynamic else (8,), "f32")
        pb.line("%%0 = fuser.sum %%x dims = [1, 2] : %s -> %s" % (tx, tr))
        pb.line("%%1 = fuser.max %%x dims = [1, 2] : %s -> %s" % (tx, tr))
        pb.line("%%v, %%m = fuser.var_mean %%x dims = [1, 2] correction = 1 : %s -> %s, %s"
                % (tx, tr, tr))
        x64 = v.double()
        rd = dict(dim=(1, 2))
        rdims = (None,) if dynamic else None
        pb.result("0", (8,), "f32", x64.sum(**rd).float().numpy(),
                  Ulps(1, 310 * 2.0 ** -24 * x64.abs().sum(**rd).numpy() + 1e-30), dims=rdims)
        pb.result("1", (8,), "f32", from_torch(v.amax(dim=(1, 2)), "f32"), EXACT, dims=rdims)
        var = x64.var(dim=(1, 2), unbiased=True)
        pb.result("v", (8,), "f32", var.float().numpy(),
                  Ulps(4, 64 * 2.0 ** -24 * (var + x64.pow(2).mean(dim=(1, 2))).numpy()),
                  dims=rdims)
        pb.result("m", (8,), "f32", x64.mean(**rd).float().numpy(),
                  Ulps(1, 310 * 2.0 ** -24 * x64.abs().mean(**rd).numpy() + 1e-30), dims=rdims)
        parts.append(pb.part())
    # Softmax over the rows of a slice (row stride 160, row length 128):
    # the persistent normalization reads each row once through the view.
    b = torch.randn(12, 160, dtype=torch.float32, generator=torch.Generator().manual_seed(7))
    v = b[:, 16:144]
    pb = PartBuilder("softmax of slice [:, 16:144] f32")
    tx = pb.arg_view("x", v, "f32", list(v.stride()))
    pb.line("%%0 = fuser.softmax %%x dim = 1 : %s" % tx)
    want, rule, alts = softmax_ref(from_torch(v, "f32"), "f32", 1)
    pb.result("0", (12, 128), "f32", want, rule, alts=alts)
    parts.append(pb.part())
    # cumsum along the strided dim of a transposed view (i64: exact).
    b = to_torch(values.random("i64", (70, 5), rng), "i64")
    v = b.t()
    pb = PartBuilder("cumsum dim 1 of transpose 5x70 i64")
    tx = pb.arg_view("x", v, "i64", list(v.stride()))
    pb.line("%%0 = fuser.cumsum %%x dim = 1 : %s" % tx)
    pb.result("0", (5, 70), "i64", torch.cumsum(v, dim=1).numpy(), EXACT)
    parts.append(pb.part())
    # index_select from a sliced table (an embedding table's columns).
    for t in ("bf16", "f32"):
        table = _base(t, (30, 96), rng)
        v = table[:, 32:96]
        ids = rng.integers(0, 30, size=(17,)).astype(np.int64)
        pb = PartBuilder("index_select rows of slice [:, 32:96] %s" % t)
        tx = pb.arg_view("table", v, t, list(v.stride()))
        ti = pb.arg("ids", ids, "i64")
        to = mlir_type((17, 64), t)
        pb.line("%%0 = fuser.index_select %%table, %%ids dim = 0 : %s, %s -> %s" % (tx, ti, to))
        pb.result("0", (17, 64), t, from_torch(torch.index_select(v, 0, torch.from_numpy(ids)), t),
                  EXACT)
        parts.append(pb.part())
    return parts


def _reshape_parts(name, rng_for):
    """Reshapes of views whose dims are known only at launch but whose
    strides are static: the flat index is delinearized by sizes the plan
    passes and multiplied by constant strides (MLIR's semi-affine
    simplification got such offsets wrong: IndexMath.cpp, simplify)."""
    rng = rng_for(name)
    parts = []
    # (label, base shape, view of the base, the type's dims (None: ?),
    # rows of the result or None for flat)
    specs = [
        ("2x5x? slice [:, :, :3] -> flat", (2, 5, 6), lambda b: b[:, :, :3], (2, 5, None), None),
        ("?x5x? slice [:, :, :3] -> flat", (2, 5, 6), lambda b: b[:, :, :3], (None, 5, None),
         None),
        ("3x?x5x? step slice -> 15 rows", (3, 2, 5, 8), lambda b: b[:, :, :, ::2],
         (3, None, 5, None), 15),
        ("6x4x? permute(1, 2, 0) -> flat", (5, 6, 4), lambda b: b.permute(1, 2, 0), (6, 4, None),
         None),
    ]
    for label, base_shape, make, dims, rows in specs:
        v = make(to_torch(values.random("f32", base_shape, rng), "f32"))
        n = int(np.prod(tuple(v.shape)))
        flat = (n,) if rows is None else (rows, n // rows)
        pb = PartBuilder("reshape of %s" % label)
        tx = pb.arg_view("x", v, "f32", list(v.stride()), dims=dims)
        rdims = (None,) if rows is None else (rows, None)
        pb.line("%%0 = fuser.reshape %%x : %s -> %s" % (tx, mlir_type(rdims, "f32")))
        pb.result("0", flat, "f32", from_torch(v.reshape(flat), "f32"), EXACT, dims=rdims)
        parts.append(pb.part())
    return parts


def cases(rng_for):
    out = [Case("views/pointwise/%s" % t, _bind(_pointwise_parts, t, "views/pointwise/%s" % t,
                                                 rng_for)) for t in TYPES]
    out.append(Case("views/reductions", _bind(_reduction_parts, "views/reductions", rng_for)))
    out.append(Case("views/reshapes", _bind(_reshape_parts, "views/reshapes", rng_for)))
    return out
