"""Shapes: ranks 0 to 5, size-1 and zero-size dims, primes, sizes that are
not multiples of the vector width, broadcasts, dynamic dims, and the shape
ops (broadcast, reshape, permute, slice, pad, concat) plus constant and iota,
for every element type. All exact: the references are numpy index
arithmetic and PyTorch's elementwise ops."""

import itertools

import numpy as np
import torch

from . import values
from .core import (ALL_TYPES, HALF_TYPES, NUMERIC_TYPES, Case, Exact, PartBuilder, Ulps,
                   from_f64, from_torch, is_float, is_int, mlir_type, to_f64, to_torch,
                   torch_dtype)

EXACT = Exact()


def _ct(t):
    return "f32" if t in HALF_TYPES else t


def ew(t, fn, *arrays):
    """fn on PyTorch tensors of the compute type, rounded to t (one op)."""
    ts = [to_torch(a, t).to(torch_dtype(_ct(t))) for a in arrays]
    return from_torch(fn(*ts), t)


def combine(t):
    """(mnemonic, reference) of an exact binary op that mixes two tensors of
    type t: add for numbers (PyTorch's rounding), xor for i1."""
    if t == "i1":
        return "xor", lambda a, b: np.logical_xor(a, b)
    return "add", lambda a, b: ew(t, torch.add, a, b)


def unary(t):
    """(mnemonic, reference) of an exact unary op on t."""
    if t == "i1":
        return "not", lambda a: ~a
    return "neg", lambda a: ew(t, torch.neg, a)


def _data(t, shape, rng):
    return values.with_specials(t, shape, rng) if int(np.prod(shape)) > 0 else \
        values.random(t, shape, rng)


def _bind(fn, *a):
    return lambda: fn(*a)


# ---------------------------------------------------------------------------
# Ranks and sizes: (a op b) op2 a, with b of the same shape or of rank 0
# ---------------------------------------------------------------------------

RANK_SHAPES = [(), (1,), (0,), (5,), (1031,), (1, 1), (0, 3), (3, 0), (13, 17), (33, 65),
               (2, 3, 5), (1, 0, 3), (2, 1, 3, 7), (2, 3, 1, 5, 2), (1, 1, 1, 1, 1),
               (3, 1, 4, 1, 5), (4, 4, 4, 4, 4)]


def _rank_parts(t, name, rng_for):
    rng = rng_for(name)
    op, ref = combine(t)
    op2, ref2 = ("and", lambda a, b: a & b) if t == "i1" else (
        "mul", lambda a, b: ew(t, torch.mul, a, b))
    parts = []
    for shape in RANK_SHAPES:
        for scalar_b in ([False, True] if shape in ((13, 17), (2, 3, 1, 5, 2)) else [False]):
            pb = PartBuilder("%s%s" % ("x".join(map(str, shape)) or "rank 0",
                                       ", rank-0 b" if scalar_b else ""))
            a = _data(t, shape, rng)
            b = _data(t, () if scalar_b else shape, rng)
            ta = pb.arg("a", a, t)
            tb = pb.arg("b", b, t)
            tys = ta if ta == tb else "%s, %s" % (ta, tb)
            pb.line("%%0 = fuser.%s %%a, %%b : %s" % (op, tys))
            pb.line("%%1 = fuser.%s %%0, %%a : %s" % (op2, ta))
            s = ref(a, np.broadcast_to(b, shape))
            pb.result("0", shape, t, s, EXACT)
            pb.result("1", shape, t, ref2(s, a), EXACT)
            parts.append(pb.part())
    return parts


# ---------------------------------------------------------------------------
# Broadcast
# ---------------------------------------------------------------------------

BROADCASTS = [  # (operand shape, result shape, dims)
    ((7,), (5, 7), [1]),
    ((5,), (5, 7), [0]),
    ((5, 1), (5, 7), [0, 1]),
    ((), (3, 4, 5), []),
    ((1, 1), (6, 9), [0, 1]),
    ((3, 1, 5), (2, 3, 4, 5), [1, 2, 3]),
    ((4,), (2, 3, 4, 5, 6), [2]),
    ((1,), (0, 5), [1]),
    ((2, 1, 1, 3, 1), (2, 4, 5, 3, 6), [0, 1, 2, 3, 4]),
    ((1031,), (3, 1031), [1]),
    ((33, 1), (33, 65), [0, 1]),
]


def _expand(x, oshape, dims):
    """numpy: operand x broadcast into oshape with operand dim i -> dims[i]."""
    full = [1] * len(oshape)
    for i, d in enumerate(dims):
        full[d] = x.shape[i]
    return np.broadcast_to(x.reshape(full), oshape)


def _broadcast_parts(t, name, rng_for):
    rng = rng_for(name)
    op, ref = combine(t)
    parts = []
    for ishape, oshape, dims in BROADCASTS:
        pb = PartBuilder("%s -> %s dims %s" % (ishape, oshape, dims))
        x = _data(t, ishape, rng)
        y = _data(t, oshape, rng)
        tx = pb.arg("x", x, t)
        ty = pb.arg("y", y, t)
        pb.line("%%b = fuser.broadcast %%x dims = %s : %s -> %s" % (dims, tx, ty))
        pb.line("%%0 = fuser.%s %%b, %%y : %s" % (op, ty))
        pb.result("0", oshape, t, ref(_expand(x, oshape, dims), y), EXACT)
        parts.append(pb.part())
    return parts


# ---------------------------------------------------------------------------
# Dynamic dims
# ---------------------------------------------------------------------------

DYN_SHAPES = [(1, 1), (0, 5), (7, 0), (13, 1031), (1, 4099), (257, 3)]


def _dynamic_parts(t, name, rng_for):
    rng = rng_for(name)
    op, ref = combine(t)
    uop, uref = unary(t)
    parts = []
    for shape in DYN_SHAPES:
        # elementwise on ?x?, a rank-0 operand, and a broadcast of a ? row
        pb = PartBuilder("?x? as %s" % (shape,))
        a = _data(t, shape, rng)
        s = values.random(t, (), rng)
        r = _data(t, shape[1:], rng)
        D = (None, None)
        ta = pb.arg("a", a, t, D)
        ts = pb.arg("s", s, t)
        tr = pb.arg("r", r, t, (None,))
        pb.line("%%0 = fuser.%s %%a, %%s : %s, %s" % (op, ta, ts))
        pb.line("%%rb = fuser.broadcast %%r dims = [1] : %s -> %s" % (tr, ta))
        pb.line("%%1 = fuser.%s %%0, %%rb : %s" % (op, ta))
        pb.line("%%2 = fuser.%s %%1 : %s" % (uop, ta))
        v0 = ref(a, np.broadcast_to(s, shape))
        v1 = ref(v0, np.broadcast_to(r, shape))
        pb.result("2", shape, t, uref(v1), EXACT, dims=D)
        parts.append(pb.part())
    # mixed static and dynamic dims, rank 3
    for shape in [(2, 0, 7), (3, 5, 7), (1, 100, 7)]:
        pb = PartBuilder("?x?x7 as %s" % (shape,))
        a = _data(t, shape, rng)
        b = _data(t, shape, rng)
        D = (None, None, 7)
        ta = pb.arg("a", a, t, D)
        pb.arg("b", b, t, D)
        pb.line("%%0 = fuser.%s %%a, %%b : %s" % (op, ta))
        pb.result("0", shape, t, ref(a, b), EXACT, dims=D)
        parts.append(pb.part())
    return parts


# ---------------------------------------------------------------------------
# Reshape, permute, slice, pad, concat
# ---------------------------------------------------------------------------

RESHAPES = [((8, 16), (128,)), ((2, 3, 4), (6, 4)), ((), (1, 1)), ((1, 1), ()),
            ((0, 5), (5, 0)), ((24,), (2, 3, 4)), ((2, 3, 4, 5, 6), (720,)),
            ((7, 11), (11, 7)), ((1031,), (1, 1031, 1))]


def _reshape_parts(t, name, rng_for):
    rng = rng_for(name)
    uop, uref = unary(t)
    parts = []
    for ishape, oshape in RESHAPES:
        pb = PartBuilder("%s -> %s" % (ishape, oshape))
        x = _data(t, ishape, rng)
        tx = pb.arg("x", x, t)
        to = mlir_type(oshape, t)
        pb.line("%%r = fuser.reshape %%x : %s -> %s" % (tx, to))
        pb.line("%%0 = fuser.%s %%r : %s" % (uop, to))
        pb.result("0", oshape, t, uref(x.reshape(oshape)), EXACT)
        parts.append(pb.part())
    # dynamic: ?x4 -> ?
    for rows in (0, 1, 9):
        pb = PartBuilder("?x4 -> ? as %dx4" % rows)
        x = _data(t, (rows, 4), rng)
        tx = pb.arg("x", x, t, (None, 4))
        to = mlir_type((None,), t)
        pb.line("%%r = fuser.reshape %%x : %s -> %s" % (tx, to))
        pb.line("%%0 = fuser.%s %%r : %s" % (uop, to))
        pb.result("0", (rows * 4,), t, uref(x.reshape(-1)), EXACT, dims=(None,))
        parts.append(pb.part())
    if t != "i1":
        # [?, ?] -> [?, 5], reduced beside another [?, 5] that a later add
        # ties it to: fuser-segment copies the reshape into the reductions'
        # kernel, whose copy must have y's size (it was refused)
        cop, cref = combine(t)
        pb = PartBuilder("[?, ?] -> [?, 5] reduced beside y, tied later")
        x = _data(t, (3, 10), rng)
        y = _data(t, (6, 5), rng)
        tx = pb.arg("x", x, t, (None, None))
        ty = pb.arg("y", y, t, (None, 5))
        tr, tv = mlir_type((None, 5), t), mlir_type((5,), t)
        pb.line("%%r = fuser.reshape %%x : %s -> %s" % (tx, tr))
        pb.line("%%m = fuser.max %%r dims = [0] : %s -> %s" % (tr, tv))
        pb.line("%%s = fuser.min %%y dims = [0] : %s -> %s" % (tr, tv))
        pb.line("%%a = fuser.%s %%m, %%s : %s" % (cop, tv))
        pb.line("%%b = fuser.broadcast %%a dims = [1] : %s -> %s" % (tv, tr))
        pb.line("%%z = fuser.%s %%r, %%b : %s" % (cop, tr))
        pb.line("%%w = fuser.%s %%z, %%y : %s" % (cop, tr))
        pb.line("%%0 = fuser.max %%w dims = [0] : %s -> %s" % (tr, tv))
        r = x.reshape(6, 5)
        a = cref(ew(t, lambda v: v.amax(0), r), ew(t, lambda v: v.amin(0), y))
        w = cref(cref(r, np.broadcast_to(a, (6, 5))), y)
        pb.result("0", (5,), t, ew(t, lambda v: v.amax(0), w), EXACT)
        parts.append(pb.part())
    return parts


PERMUTES = [((33, 65), [1, 0]), ((1, 1), [1, 0]), ((0, 3), [1, 0]),
            ((4, 33, 65), [0, 2, 1]), ((64, 96), [1, 0]), ((5, 1, 64, 1, 33), [4, 3, 2, 1, 0]),
            ((2, 3, 4, 5), [3, 1, 0, 2]), ((2, 3, 4, 5, 6), [4, 3, 2, 1, 0])] + \
    [((2, 3, 4), list(p)) for p in itertools.permutations(range(3)) if list(p) != [0, 1, 2]]


def _permute_parts(t, name, rng_for):
    rng = rng_for(name)
    op, ref = combine(t)
    parts = []
    for ishape, perm in PERMUTES:
        oshape = tuple(ishape[p] for p in perm)
        pb = PartBuilder("%s perm %s" % (ishape, perm))
        x = _data(t, ishape, rng)
        y = _data(t, oshape, rng)
        tx = pb.arg("x", x, t)
        ty = pb.arg("y", y, t)
        pb.line("%%p = fuser.permute %%x perm = %s : %s -> %s" % (perm, tx, ty))
        pb.line("%%0 = fuser.%s %%p, %%y : %s" % (op, ty))
        pb.result("0", oshape, t, ref(np.transpose(x, perm), y), EXACT)
        parts.append(pb.part())
    # dynamic transpose (shared-memory tile with run-time sizes)
    for shape in [(33, 65), (1, 100), (0, 4)]:
        pb = PartBuilder("?x? perm [1, 0] as %s" % (shape,))
        x = _data(t, shape, rng)
        D = (None, None)
        tx = pb.arg("x", x, t, D)
        pb.line("%%0 = fuser.permute %%x perm = [1, 0] : %s -> %s" % (tx, tx))
        pb.result("0", shape[::-1], t, x.T, EXACT, dims=D)
        parts.append(pb.part())
    return parts


SLICES = [((10, 13), [1, 2], [9, 13], [2, 3]), ((7,), [0], [7], [1]), ((7,), [3], [3], [1]),
          ((4, 5, 6), [0, 1, 2], [4, 5, 6], [3, 2, 1]), ((1031,), [5], [1030], [7]),
          ((2, 3, 4, 5, 6), [1, 0, 1, 2, 0], [2, 3, 4, 5, 6], [1, 2, 2, 1, 5])]


def _slice_parts(t, name, rng_for):
    rng = rng_for(name)
    uop, uref = unary(t)
    parts = []
    for ishape, start, limit, step in SLICES:
        sl = tuple(slice(a, b, c) for a, b, c in zip(start, limit, step))
        x = _data(t, ishape, rng)
        want = x[sl]
        pb = PartBuilder("%s[%s]" % (ishape, ", ".join("%d:%d:%d" % v for v in zip(start, limit, step))))
        tx = pb.arg("x", x, t)
        to = mlir_type(want.shape, t)
        pb.line("%%s = fuser.slice %%x start = %s limit = %s step = %s : %s -> %s" % (
            start, limit, step, tx, to))
        pb.line("%%0 = fuser.%s %%s : %s" % (uop, to))
        pb.result("0", want.shape, t, uref(want), EXACT)
        parts.append(pb.part())
    # a dynamic input: the limit is checked when the fusion runs
    for rows in (5, 12):
        x = _data(t, (rows, 6), rng)
        pb = PartBuilder("?x6 as %dx6 [1:5:2, 0:6:5]" % rows)
        tx = pb.arg("x", x, t, (None, 6))
        to = mlir_type((2, 2), t)
        pb.line("%%0 = fuser.slice %%x start = [1, 0] limit = [5, 6] step = [2, 5] : %s -> %s" % (tx, to))
        pb.result("0", (2, 2), t, x[1:5:2, 0:6:5], EXACT)
        parts.append(pb.part())
    return parts


PADS = [((4, 8), [0, 1], [2, 0]), ((3,), [0], [0]), ((0, 3), [2, 0], [1, 1]),
        ((2, 3, 4), [1, 0, 2], [0, 3, 1]), ((1, 1, 1, 1, 1), [1, 0, 1, 0, 1], [0, 2, 0, 2, 0]),
        ((), [], []),
        # negative amounts crop (torch.nn.functional.pad): alone, beside
        # padding at the other end, down to an empty dim
        ((4, 8), [-1, 2], [1, -3]), ((5,), [-2], [-3]), ((3, 9), [-3, 0], [2, -4]),
        ((2, 1031), [0, -1], [0, 5])]


def _np_pad(x, low, high, v):
    """torch.nn.functional.pad's constant mode: crop the negative amounts,
    then pad the positive ones."""
    sl = tuple(slice(max(0, -lo), x.shape[k] - max(0, -hi))
               for k, (lo, hi) in enumerate(zip(low, high)))
    x = x[sl]
    return np.pad(x, [(max(0, lo), max(0, hi)) for lo, hi in zip(low, high)],
                  constant_values=v)


def _pad_parts(t, name, rng_for):
    rng = rng_for(name)
    parts = []
    sp = values.specials(t)
    for k, (ishape, low, high) in enumerate(PADS):
        x = _data(t, ishape, rng)
        v = np.array(sp[(k * 3 + 4) % len(sp)])  # NaN, inf, INT_MIN... as the pad value
        want = _np_pad(x, low, high, v) if ishape else x.copy()
        pb = PartBuilder("%s low %s high %s" % (ishape, low, high))
        tx = pb.arg("x", x, t)
        tv = pb.arg("v", v, t)
        to = mlir_type(want.shape, t)
        pb.line("%%0 = fuser.pad %%x, %%v low = %s high = %s : %s, %s -> %s" % (
            low, high, tx, tv, to))
        pb.result("0", want.shape, t, want, EXACT)
        parts.append(pb.part())
    # a dynamic dim cropped at one end and padded at the other (checked at
    # launch: the dim must hold what is cropped)
    for rows in (3, 9):
        x = _data(t, (rows, 4), rng)
        v = np.array(sp[1 % len(sp)])
        want = _np_pad(x, [-2, 1], [1, 0], v)
        pb = PartBuilder("?x4 as %dx4 low [-2, 1] high [1, 0]" % rows)
        tx = pb.arg("x", x, t, (None, 4))
        tv = pb.arg("v", v, t)
        to = mlir_type((None, 5), t)
        pb.line("%%0 = fuser.pad %%x, %%v low = [-2, 1] high = [1, 0] : %s, %s -> %s" % (tx, tv, to))
        pb.result("0", want.shape, t, want, EXACT, dims=(None, 5))
        parts.append(pb.part())
    return parts


CONCATS = [([(4, 3), (4, 5)], 1), ([(2, 3), (0, 3), (1, 3)], 0), ([(2, 3, 4), (2, 1, 4), (2, 7, 4)], 1),
           ([(5,), (1031,)], 0), ([(2, 2, 2, 2, 1), (2, 2, 2, 2, 3)], 4),
           # split into pieces (docs/schedulers.md, "Concats: the dim in
           # pieces"): along the lane dim, an outer dim, three operands, flat
           ([(3, 32), (3, 32)], 1), ([(2, 16, 8), (2, 48, 8)], 1), ([(5, 16), (5, 48), (5, 16)], 1),
           ([(64,), (64,)], 0)]


def _concat_parts(t, name, rng_for):
    rng = rng_for(name)
    uop, uref = unary(t)
    parts = []
    for shapes, dim in CONCATS:
        xs = [_data(t, s, rng) for s in shapes]
        want = np.concatenate(xs, axis=dim)
        pb = PartBuilder("%s along %d" % (" + ".join(map(str, shapes)), dim))
        tys = [pb.arg("x%d" % i, x, t) for i, x in enumerate(xs)]
        to = mlir_type(want.shape, t)
        pb.line("%%c = fuser.concat %s dim = %d : %s -> %s" % (
            ", ".join("%%x%d" % i for i in range(len(xs))), dim, ", ".join(tys), to))
        pb.line("%%0 = fuser.%s %%c : %s" % (uop, to))
        pb.result("0", want.shape, t, uref(want), EXACT)
        parts.append(pb.part())
    # a permute of a concat: pieces, then the transpose shape's tiles, each
    # computing both pieces (the operands read along their contiguous dim)
    for rows, cols in [(40, 32), (33, 64)]:
        xs = [_data(t, (rows, cols), rng), _data(t, (rows, cols), rng)]
        want = np.concatenate(xs, axis=1).T.copy()
        pb = PartBuilder("(%dx%d ++ %dx%d along 1) transposed" % (rows, cols, rows, cols))
        tys = [pb.arg("x%d" % i, x, t) for i, x in enumerate(xs)]
        tc = mlir_type((rows, 2 * cols), t)
        pb.line("%%c = fuser.concat %%x0, %%x1 dim = 1 : %s, %s -> %s" % (tys[0], tys[1], tc))
        pb.line("%%0 = fuser.permute %%c perm = [1, 0] : %s -> %s" % (tc, mlir_type(want.shape, t)))
        pb.result("0", want.shape, t, want, EXACT)
        parts.append(pb.part())
    # each pair of x [.., 2k] swapped by a view as [.., k, 2] and a concat
    # along the 2, then an op on the whole (GPT-J's interleaved form):
    # interleaved pieces
    for rows, k in [(3, 4), (2, 9)]:
        x = _data(t, (rows, 2 * k), rng)
        want = x.reshape(rows, k, 2)[:, :, ::-1].reshape(rows, 2 * k)
        pb = PartBuilder("%dx%d pairs swapped" % (rows, 2 * k))
        tx = pb.arg("x", x, t)
        tp, th = mlir_type((rows, k, 2), t), mlir_type((rows, k, 1), t)
        pb.line("%%p = fuser.reshape %%x : %s -> %s" % (tx, tp))
        pb.line("%%e = fuser.slice %%p start = [0, 0, 0] limit = [%d, %d, 1] step = [1, 1, 1] "
                ": %s -> %s" % (rows, k, tp, th))
        pb.line("%%o = fuser.slice %%p start = [0, 0, 1] limit = [%d, %d, 2] step = [1, 1, 1] "
                ": %s -> %s" % (rows, k, tp, th))
        pb.line("%%c = fuser.concat %%o, %%e dim = 2 : %s, %s -> %s" % (th, th, tp))
        pb.line("%%r = fuser.reshape %%c : %s -> %s" % (tp, tx))
        pb.line("%%0 = fuser.%s %%r : %s" % (uop, tx))
        pb.result("0", want.shape, t, uref(want), EXACT)
        parts.append(pb.part())
    # dynamic: ?x3 ++ ?x3 along 0
    for r1, r2 in [(0, 4), (3, 5)]:
        xs = [_data(t, (r1, 3), rng), _data(t, (r2, 3), rng)]
        want = np.concatenate(xs, axis=0)
        pb = PartBuilder("?x3 + ?x3 as %dx3 + %dx3" % (r1, r2))
        D = (None, 3)
        tys = [pb.arg("x%d" % i, x, t, D) for i, x in enumerate(xs)]
        pb.line("%%0 = fuser.concat %%x0, %%x1 dim = 0 : %s, %s -> %s" % (tys[0], tys[1], tys[0]))
        pb.result("0", want.shape, t, want, EXACT, dims=D)
        parts.append(pb.part())
    return parts


# ---------------------------------------------------------------------------
# Constant and iota
# ---------------------------------------------------------------------------

def _literal(v, t):
    """The MLIR spelling of constant value v (storage scalar) of type t."""
    if t == "i1":
        return "true" if v else "false"
    if is_int(t):
        return str(int(v))
    f = float(to_f64(np.array([v]), t)[0])
    if np.isnan(f) or (f != 0 and abs(f) < 1e-30):  # NaN and subnormals as bit patterns
        bits = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[t]
        u = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
        return "0x%0*X" % (bits // 4, int(np.array([v]).view(u)[0]))
    if np.isinf(f):
        return "inf" if f > 0 else "-inf"
    r = repr(f)
    m, _, e = r.partition("e")
    if "." not in m:
        m += ".0"
    return m + ("e" + e if e else "")


def _constant_parts(t, name, rng_for):
    rng = rng_for(name)
    parts = []
    sp = values.specials(t)
    for k, v in enumerate(sp):
        dyn = k % 3 == 0
        shape = (3, 5) if not dyn else (4, 7)
        D = (None, None) if dyn else shape
        pb = PartBuilder("constant %s%s" % (_literal(v, t), " (?x?)" if dyn else ""))
        c = values.random("i1", shape, rng)
        c.flat[0] = True
        x = _data(t, shape, rng)
        tc = pb.arg("c", c, "i1", D)
        tx = pb.arg("x", x, t, D)
        pb.line("%%k = fuser.constant %s : %s" % (_literal(v, t), tx))
        pb.line("%%0 = fuser.where %%c, %%k, %%x : %s, %s, %s" % (tc, tx, tx))
        pb.result("0", shape, t, np.where(c, np.array(v, dtype=x.dtype), x), EXACT, dims=D)
        parts.append(pb.part())
    return parts


def _iota_part(t, rng, shape, dims):
    """One part: an iota along each of `dims` of `shape`, returned directly
    and added to an input."""
    pb = PartBuilder("%s dims %s" % (shape, dims))
    x = _data(t, shape, rng)
    tx = pb.arg("x", x, t)
    op, ref = combine(t)
    for k, dim in enumerate(dims):
        idx = np.arange(shape[dim], dtype=np.float64)
        full = [1] * len(shape)
        full[dim] = shape[dim]
        want = np.broadcast_to(idx.reshape(full), shape)
        want = from_f64(want, t) if is_float(t) else want.astype(values.np_dtype(t))
        pb.line("%%i%d = fuser.iota dim = %d : %s" % (k, dim, tx))
        pb.line("%%s%d = fuser.%s %%i%d, %%x : %s" % (k, op, k, tx))
        pb.result("i%d" % k, shape, t, want, EXACT)
        pb.result("s%d" % k, shape, t, ref(want, x), EXACT)
    return pb.part()


def _iota_dyn_part(t, rng):
    # ? dims take their size from the tensors the iota combines with
    pb = PartBuilder("?x? dim 0 as (4, 6)")
    x = _data(t, (4, 6), rng)
    D = (None, None)
    tx = pb.arg("x", x, t, D)
    op, ref = combine(t)
    pb.line("%%0 = fuser.iota dim = 0 : %s" % tx)
    pb.line("%%1 = fuser.%s %%0, %%x : %s" % (op, tx))
    idx = np.broadcast_to(np.arange(4, dtype=np.float64).reshape(4, 1), (4, 6))
    w = from_f64(idx, t) if is_float(t) else idx.astype(values.np_dtype(t))
    pb.result("1", (4, 6), t, ref(w, x), EXACT, dims=D)
    return pb.part()


def iota_cases(rng_for):
    """Each iota part is a fusion of its own; shapes/iota/sibling-output
    returns an iota directly next to a result of another shape (which once
    joined that result's segment and did not compile)."""
    out = []
    for t in NUMERIC_TYPES:
        specs = [((3, 5, 7), [0, 1, 2]), ((1, 1), [1])]
        if t in ("f16", "bf16", "i32", "f32"):
            specs.append(((2, 3000), [1]))  # past the exact integers of f16 and bf16
        for shape, dims in specs:
            name = "shapes/iota/%s/%s" % (t, "x".join(map(str, shape)))
            out.append(Case(name, _bind(lambda t, s, d, n: [_iota_part(t, rng_for(n), s, d)],
                                        t, shape, dims, name), alone=True))
        name = "shapes/iota/%s/dynamic" % t
        out.append(Case(name, _bind(lambda t, n: [_iota_dyn_part(t, rng_for(n))], t, name),
                        alone=True))

    def sibling():
        pb = PartBuilder("iota returned next to a result of another shape")
        x = values.random("f32", (4,), rng_for("shapes/iota/sibling-output"))
        tx = pb.arg("x", x, "f32")
        pb.line("%0 = fuser.iota dim = 1 : tensor<3x5xi64>")
        pb.line("%%1 = fuser.neg %%x : %s" % tx)
        pb.result("0", (3, 5), "i64", np.broadcast_to(np.arange(5), (3, 5)), EXACT)
        pb.result("1", (4,), "f32", ew("f32", torch.neg, x), EXACT)
        return [pb.part()]
    out.append(Case("shapes/iota/sibling-output", sibling, alone=True))
    return out


# Every shape list runs for these types (1, 2, 4 and 8-byte elements: i1 is
# stored as a byte); the other types run every fourth entry of each list
# (their element sizes are covered above, their arithmetic by the
# elementwise suite).
FULL_TYPES = ("i1", "bf16", "f32", "f64")


def _thin(fn, t):
    if t in FULL_TYPES:
        return fn

    def thinned(t_, name, rng_for):
        parts = fn(t_, name, rng_for)
        return parts[::4] + ([parts[-1]] if (len(parts) - 1) % 4 else [])
    return thinned


def size_cases(rng_for):
    """fuser.size of static and dynamic dims, into every result type it
    takes (rounded to nearest even in floats: 1031 is 1032 in bf16), alone
    and in a row mean written as sum / size, in kernels of each kind."""
    def parts(t, name, rng_for):
        rng = rng_for(name)
        out = []
        shapes = [((5, 1031), (None, None)), ((3, 7), (3, None)), ((0, 4), (None, 4)),
                  ((2, 1, 300), (2, None, None))]
        if t == "i8":  # extents above 127 are a run-time error (test/tools/fuserc/size.test)
            shapes = [((5, 127), (None, None)), ((3, 7), (3, None)), ((0, 4), (None, 4))]
        for shape, dyn in shapes:
            x = _data("f32", shape, rng)
            pb = PartBuilder("%s as %s" % (mlir_type(dyn, "f32"), "x".join(map(str, shape))))
            tx = pb.arg("x", x, "f32", dyn)
            for d in range(len(shape)):
                pb.line("%%%d = fuser.size %%x dim = %d : %s -> %s" % (d, d, tx, mlir_type((), t)))
                pb.result("%d" % d, (), t, from_f64(np.array(float(shape[d])), t), EXACT)
            out.append(pb.part())
        if is_float(t) and t != "bf16" and t != "f16":
            # row mean = sum / size, in a reduction kernel with a dynamic row
            x = from_f64(rng.standard_normal((6, 257)), t)
            pb = PartBuilder("sum / size over ?x? as 6x257")
            tx = pb.arg("x", x, t, (None, None))
            rt = mlir_type((None,), t)
            pb.line("%%s = fuser.sum %%x dims = [1] : %s -> %s" % (tx, rt))
            pb.line("%%n = fuser.size %%x dim = 1 : %s -> %s" % (tx, mlir_type((), t)))
            pb.line("%%0 = fuser.div %%s, %%n : %s, %s" % (rt, mlir_type((), t)))
            want = to_f64(x, t).sum(axis=1) / 257.0
            pb.result("0", (6,), t, from_f64(want, t), Ulps(2, np.abs(to_f64(x, t)).sum(axis=1)
                                                            / 257.0 * 257 * 2.0 ** -23), dims=(None,))
            out.append(pb.part())
        return out
    return [Case("shapes/size/%s" % t, _bind(parts, t, "shapes/size/%s" % t, rng_for))
            for t in ("i8", "i32", "i64", "f16", "bf16", "f32", "f64")]


def cases(rng_for):
    out = []
    for t in ALL_TYPES:
        for what, fn in [("ranks", _rank_parts), ("broadcast", _broadcast_parts),
                         ("dynamic", _dynamic_parts), ("reshape", _reshape_parts),
                         ("permute", _permute_parts), ("slice", _slice_parts),
                         ("pad", _pad_parts), ("concat", _concat_parts),
                         ("constant", _constant_parts)]:
            name = "shapes/%s/%s" % (what, t)
            out.append(Case(name, _bind(_thin(fn, t), t, name, rng_for)))
    return out + iota_cases(rng_for) + size_cases(rng_for)
