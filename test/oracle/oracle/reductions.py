"""Reductions: sum prod max min mean any all var_mean, every element type
each accepts, over inner, outer, middle, several and all dims, keepdim both
ways, dynamic dims, empty dims, NaN and infinities inside rows; and a sweep
of row lengths and row counts through every scheduler variant (one block
per row, several rows per block, rows split across blocks, outer reductions
split across blocks) with data whose sums are exact in any order.

References: PyTorch (numpy for max/min/any/all) in f64 on the same values,
rounded once to the result type. Bounds: docs/oracle.md."""

import numpy as np
import torch

from . import values
from .core import (ALL_TYPES, FLOAT_TYPES, NUMERIC_TYPES, Case, Exact, PartBuilder, Ulps,
                   from_f64, iinfo, is_float, is_int, mlir_type, np_dtype, to_f64)

EXACT = Exact()
U_ACC = {"f16": 2.0 ** -24, "bf16": 2.0 ** -24, "f32": 2.0 ** -24, "f64": 2.0 ** -53}

OPS = {  # op -> element types
    "sum": NUMERIC_TYPES, "prod": NUMERIC_TYPES, "max": ALL_TYPES, "min": ALL_TYPES,
    "mean": FLOAT_TYPES, "any": ALL_TYPES, "all": ALL_TYPES, "var_mean": FLOAT_TYPES,
}


def _bind(fn, *a):
    return lambda: fn(*a)


def _reduced_shape(shape, dims, keepdim):
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def reference(op, x, t, dims, keepdim, correction=1, exact_data=False):
    """[(value, result type, rule)] of `op` over `dims` of storage array x."""
    dims = tuple(dims)
    n = int(np.prod([x.shape[d] for d in dims])) if dims else 1
    rshape = _reduced_shape(x.shape, dims, keepdim)
    if op in ("any", "all"):
        nz = (to_f64(x, t) != 0) if is_float(t) else (x != 0)
        v = nz.any(axis=dims, keepdims=keepdim) if op == "any" else nz.all(axis=dims, keepdims=keepdim)
        return [(np.asarray(v, bool).reshape(rshape), "i1", EXACT)]
    if op in ("max", "min"):
        if n == 0:  # documented: the lowest / highest value (PyTorch raises)
            if t == "i1":
                v = np.full(rshape, op == "min", bool)
            elif is_int(t):
                lo, hi = iinfo(t)
                v = np.full(rshape, lo if op == "max" else hi, np_dtype(t))
            else:
                v = from_f64(np.full(rshape, -np.inf if op == "max" else np.inf), t)
            return [(v, t, EXACT)]
        if is_float(t):
            f = to_f64(x, t)
            v = f.max(axis=dims, keepdims=keepdim) if op == "max" else f.min(axis=dims, keepdims=keepdim)
            return [(from_f64(v, t), t, EXACT)]
        v = x.max(axis=dims, keepdims=keepdim) if op == "max" else x.min(axis=dims, keepdims=keepdim)
        return [(np.asarray(v).reshape(rshape), t, EXACT)]
    if is_int(t):
        w = x.astype(np.int64)
        v = w.sum(axis=dims, keepdims=keepdim) if op == "sum" else w.prod(axis=dims, keepdims=keepdim)
        return [(np.asarray(v).astype(np_dtype(t)).reshape(rshape), t, EXACT)]
    f = torch.from_numpy(to_f64(x, t))
    u = U_ACC[t]
    absf = f.abs()
    if op == "sum":
        v = f.sum(dim=dims, keepdim=keepdim) if dims else f
        tol = None if exact_data else (n * u * absf.sum(dim=dims, keepdim=keepdim)).numpy()
        return [(from_f64(v.numpy(), t), t, EXACT if exact_data and t != "f64" else Ulps(1, tol))]
    if op == "prod":
        v = np.prod(f.numpy(), axis=dims, keepdims=keepdim)
        tol = 2 * n * u * np.abs(v)
        return [(from_f64(v, t), t, Ulps(1, tol))]
    if op == "mean":
        v = f.mean(dim=dims, keepdim=keepdim) if n else torch.full(rshape, float("nan"), dtype=torch.float64)
        tol = (u * absf.sum(dim=dims, keepdim=keepdim)).numpy() if not exact_data else None
        return [(from_f64(v.numpy(), t), t, Ulps(1, tol))]
    if op == "var_mean":
        if n == 0:
            nan = from_f64(np.full(rshape, np.nan), t)
            return [(nan, t, EXACT), (nan, t, EXACT)]
        var, mean = torch.var_mean(f, dim=dims, correction=correction, keepdim=keepdim)
        dof = max(n - correction, 0)
        sq = (f * f).sum(dim=dims, keepdim=keepdim).numpy()
        vtol = 4 * n * u * sq / dof if dof > 0 else None
        mtol = 2 * u * absf.sum(dim=dims, keepdim=keepdim).numpy()
        return [(from_f64(var.numpy(), t), t, Ulps(1, vtol)),
                (from_f64(mean.numpy(), t), t, Ulps(1, mtol))]
    raise KeyError(op)


def reduction_part(label, op, t, x, dims, keepdim=False, dyn=None, correction=1,
                   exact_data=False, computed_i1=False):
    """`op` over `dims` of the argument x; with computed_i1, x (i1) is
    computed in the fusion as x8 != 0 from an i8 argument."""
    pb = PartBuilder(label)
    D = dyn if dyn is not None else x.shape
    if computed_i1:
        x8 = np.where(x, np.int8(1) + (np.arange(x.size).reshape(x.shape) % 100).astype(np.int8),
                      np.int8(0)).astype(np.int8)
        t8 = pb.arg("x8", x8, "i8", D)
        tx = mlir_type(D, "i1")
        pb.line("%z = fuser.constant 0 : tensor<i8>")
        pb.line("%%x = fuser.ne %%x8, %%z : %s, tensor<i8>" % t8)
    else:
        tx = pb.arg("x", x, t, D)
    rshape = _reduced_shape(x.shape, dims, keepdim)
    rdims = _reduced_shape(D, dims, keepdim)
    refs = reference(op, x, t, dims, keepdim, correction, exact_data)
    kd = " keepdim = true" if keepdim else ""
    if op == "var_mean":
        ty = mlir_type(rdims, t)
        cs = " correction = %d" % correction if correction != 1 else ""
        pb.line("%%v, %%m = fuser.var_mean %%x dims = %s%s%s : %s -> %s, %s" % (
            list(dims), cs, kd, tx, ty, ty))
        pb.result("v", rshape, t, refs[0][0], refs[0][2], dims=rdims)
        pb.result("m", rshape, t, refs[1][0], refs[1][2], dims=rdims)
    else:
        (want, rt, rule), = refs
        ty = mlir_type(rdims, rt)
        pb.line("%%0 = fuser.%s %%x dims = %s%s : %s -> %s" % (op, list(dims), kd, tx, ty))
        pb.result("0", rshape, rt, want, rule, dims=rdims)
    return pb.part()


# ---------------------------------------------------------------------------
# Values: NaN and infinities inside rows, every type, every dims pattern
# ---------------------------------------------------------------------------

def _value_data(op, t, shape, rng, row_axis=0):
    """Random values; for floats, rows (along axis row_axis of the kept
    dims) 0..4 hold NaN, +inf, -inf, +inf and -inf, and huge values."""
    if t == "i1":
        x = values.random(t, shape, rng)
        if len(shape) >= 1 and shape[0] >= 3:
            x[0] = True
            x[1] = False
        return x
    if is_int(t):
        return values.random(t, shape, rng, "wide")
    if op == "prod":
        mag = np.exp2(rng.uniform(-1, 1, shape))
        v = np.where(rng.random(shape) < 0.5, -mag, mag)
        x = from_f64(v, t)
    else:
        v = rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 3, shape)
        x = from_f64(v, t)
    f = to_f64(x, t)
    rows = np.moveaxis(f, row_axis, 0)
    specials = [np.nan, np.inf, -np.inf, None, "huge"]
    for r, s in enumerate(specials):
        if r >= rows.shape[0] or rows[r].size == 0:
            break
        flat = rows[r].reshape(-1)
        if s is None:
            flat[0] = np.inf
            flat[-1] = -np.inf
        elif s == "huge":
            flat[:] = np.abs(flat) + 1.0
            flat[:] = flat * 1e38 if t in ("f32", "bf16") else flat * (6e4 if t == "f16" else 1e307)
        else:
            flat[len(flat) // 2] = s
        rows[r] = flat.reshape(rows[r].shape)
    return from_f64(np.moveaxis(rows, 0, row_axis), t)


# Every dims pattern runs for these element types; the others (whose
# element sizes these cover) run six of the ten.
FULL_TYPES = ("i1", "i32", "bf16", "f32", "f64")


def _value_parts(op, t, name, rng_for, computed_i1=False):
    rng = rng_for(name)
    parts = []
    specs = [  # (label, shape, dims, keepdim, dyn, row axis for the specials)
        ("inner 13x257 dims [1]", (13, 257), [1], False, None, 0),
        ("outer 257x13 dims [0] keepdim", (257, 13), [0], True, None, 1),
        ("3x5x7 dims [0, 2]", (3, 5, 7), [0, 2], False, None, 1),
        ("3x5x7 dims [2, 1] keepdim", (3, 5, 7), [2, 1], True, None, 0),
        ("all of 1031", (1031,), [0], False, None, None),
        ("?x? dims [1] as 6x77", (6, 77), [1], False, (None, None), 0),
        ("2x3x4x5x6 dims [1, 3]", (2, 3, 4, 5, 6), [1, 3], False, None, 0),
        ("empty 4x0 dims [1]", (4, 0), [1], False, None, None),
        ("empty 0x5 dims [0] keepdim", (0, 5), [0], True, None, None),
        ("size-1 dim 9x1 dims [1]", (9, 1), [1], False, None, None),
        # a size-1 dim beside others (it drops out: a row reduction over
        # the others, its result reshaped; a column one)
        ("1x5x37 dims [0, 2]", (1, 5, 37), [0, 2], False, None, 1),
        ("37x1x5 dims [1, 0]", (37, 1, 5), [1, 0], False, None, 2),
        ("1x6x1x33 dims [0, 2, 3] keepdim", (1, 6, 1, 33), [0, 2, 3], True, None, 1),
    ]
    if t not in FULL_TYPES:
        specs = [specs[i] for i in (0, 1, 4, 6, 7, 9, 10, 11)]  # inner, outer, all, 5-D, empty, size 1
    for label, shape, dims, keepdim, dyn, raxis in specs:
        if raxis is None:
            x = values.random(t, shape, rng, "wide" if not is_float(t) else "normal") \
                if int(np.prod(shape)) else values.random(t, shape, rng)
        else:
            x = _value_data(op, t, shape, rng, raxis)
        if op == "var_mean":
            for corr in ([1, 0] if label.startswith("inner") else [1]):
                parts.append(reduction_part(label + (" correction %d" % corr if corr != 1 else ""),
                                            op, t, x, dims, keepdim, dyn, corr))
        else:
            parts.append(reduction_part(label, op, t, x, dims, keepdim, dyn,
                                        computed_i1=computed_i1))
    return parts


# ---------------------------------------------------------------------------
# Sweep: row lengths x row counts, inner and outer, exact sums
# ---------------------------------------------------------------------------

# (row length, row count): every length of issue 6, counts from 1 to 100000,
# fewer rows for long rows (the emulator runs ~10^7 elements per second).
SWEEP = [(1, 100000), (7, 100000), (31, 4099), (32, 1), (32, 4096), (33, 3000),
         (1000, 257), (1024, 1), (1024, 100), (4097, 31), (32768, 3), (32768, 1),
         (100000, 2), (100000, 1)]
# One pair per row length, for the cases after the first of each family
# (each pair is a kernel to compile: ~0.1 s).
SWEEP_SHORT = [(1, 100000), (7, 100000), (31, 4099), (32, 4096), (33, 3000), (1000, 257),
               (1024, 100), (4097, 31), (32768, 3), (100000, 2)]
# A few pairs across the scheduler variants (rows in registers, several
# rows per block, a row per block, rows split across blocks), for the
# remaining cases.
SWEEP_FEW = [(7, 100000), (33, 3000), (1000, 257), (4097, 31), (100000, 2)]


def exact_data(t, shape, rng):
    """Multiples of 1/16 in [-1, 1]: every partial sum of up to 10^5 of them
    is exact in f32 (and f16/bf16 hold them exactly), so sums and maxima
    have one right answer whatever the order."""
    k = rng.integers(-16, 17, shape)
    return from_f64(k / 16.0, t)


def sweep_cases(rng_for):
    out = []
    # (op, type, direction, most rows): a block per row of one element costs
    # the emulator ~15 us, so only a few combinations go up to 100000 rows
    combos = [("sum", "f32", "inner", 100000, SWEEP), ("sum", "f32", "outer", 10000, SWEEP),
              ("sum", "bf16", "inner", 10000, SWEEP_FEW),
              ("max", "f32", "outer", 10000, SWEEP_SHORT),
              ("mean", "f16", "inner", 10000, SWEEP_FEW),
              ("var_mean", "f32", "inner", 10000, SWEEP_SHORT),
              ("var_mean", "f32", "outer", 10000, SWEEP_FEW),
              ("sum", "i32", "outer", 10000, SWEEP_FEW),
              ("any", "i1", "inner", 10000, SWEEP_FEW),
              ("min", "f64", "outer", 10000, SWEEP_FEW)]
    for op, t, direction, most, pairs in combos:
        name = "reductions/sweep/%s/%s/%s" % (op, t, direction)
        out.append(Case(name, _bind(_sweep_parts, op, t, direction, name, rng_for, most, pairs)))
    return out


def _sweep_parts(op, t, direction, name, rng_for, most=100000, pairs=SWEEP):
    rng = rng_for(name)
    parts = []
    computed = t == "i1-computed"
    if computed:
        t = "i1"
    for i, (length, rows) in enumerate(pairs):
        rows = min(rows, most)
        if t == "i1" and op == "all":
            x = rng.random((rows, length)) >= (1.0 / max(length, 2))
        elif t == "i1":
            # mostly false, a few true: any/all depend on single elements
            x = rng.random((rows, length)) < (1.0 / max(length, 2))
        elif is_int(t):
            x = values.random(t, (rows, length), rng, "wide")
        else:
            x = exact_data(t, (rows, length), rng)
        keepdim = i % 2 == 1
        dyn = (None, None) if i % 3 == 2 else None
        if direction == "inner":
            label = "%d rows of %d%s%s" % (rows, length, " keepdim" if keepdim else "",
                                           " ?x?" if dyn else "")
            parts.append(reduction_part(label, op, t, x, [1], keepdim, dyn, exact_data=True,
                                        computed_i1=computed))
        else:
            xt = np.array(x.T, order="C")
            label = "%d columns of %d%s%s" % (rows, length, " keepdim" if keepdim else "",
                                              " ?x?" if dyn else "")
            parts.append(reduction_part(label, op, t, xt, [0], keepdim, dyn, exact_data=True,
                                        computed_i1=computed))
    return parts


def cases(rng_for):
    out = []
    for op, types in OPS.items():
        for t in types:
            name = "reductions/%s/%s" % (op, t)
            out.append(Case(name, _bind(_value_parts, op, t, name, rng_for)))
        if "i1" in types:
            # i1 computed in the fusion (x8 != 0), next to the i1 arguments above
            name = "reductions/%s/i1-computed" % op
            out.append(Case(name, _bind(_value_parts, op, "i1", name, rng_for, True)))
    return out
