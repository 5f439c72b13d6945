"""Input values: random data mixed with the edge values of each type."""

import numpy as np

from .core import INT_TYPES, finfo, from_f64, iinfo, np_dtype


def float_specials(t):
    """+-0, +-inf, NaN, the smallest and largest subnormals, the smallest
    normal, the largest finite, huge and tiny magnitudes, integers and
    halves (rounding ties), and a few ordinary values, as float64 values
    exactly representable in `t`."""
    mx, tiny, sub, eps = finfo(t)
    v = [0.0, -0.0, np.inf, -np.inf, np.nan, sub, -sub, tiny - sub, -(tiny - sub),
         tiny, -tiny, mx, -mx, mx / 3, tiny * 3, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5,
         3.0, -7.0, 1.0 + eps, 1.0 - eps / 2, 1e-3, -1e-3, 0.1, 3.140625, 10.0, -20.0,
         88.5, -104.0, 710.0, 1e4, -65504.0, 1e10, -3e20, 1e-20]
    out = from_f64(np.array(v, dtype=np.float64), t)
    return out


def int_specials(t):
    lo, hi = iinfo(t)
    v = [0, 1, -1, 2, -2, 3, -3, 7, -7, 100, -100, lo, hi, lo + 1, hi - 1, 127, -128,
         255, 1 << 15, -(1 << 15)]
    v = [x for x in v if lo <= x <= hi]
    return np.array(v, dtype=np_dtype(t))


def specials(t):
    if t == "i1":
        return np.array([False, True])
    if t in INT_TYPES:
        return int_specials(t)
    return float_specials(t)


def random_floats(t, n, rng, kind="wide"):
    """n random values of float type t. kinds: 'wide' (a mix of scales, random
    bit patterns and specials), 'normal' (standard normal), 'unit'
    (uniform [-1, 1)), 'positive' (log-uniform over many binades)."""
    if kind == "normal":
        v = rng.standard_normal(n)
    elif kind == "unit":
        v = rng.uniform(-1, 1, n)
    elif kind == "positive":
        v = np.exp(rng.uniform(-20, 20, n))
    else:
        k = rng.integers(0, 8, n)
        v = rng.standard_normal(n)
        scaled = rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 6, n)
        v = np.where(k == 1, scaled, v)
        v = np.where(k == 2, rng.uniform(-4, 4, n), v)
        v = np.where(k == 3, np.round(rng.uniform(-8, 8, n) * 2) / 2, v)  # ties
        out = from_f64(v, t)
        # random bit patterns: every binade, subnormals, infinities, NaNs
        bits = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[t]
        u = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
        raw = rng.integers(0, 1 << 62, n, dtype=np.int64).astype(np.uint64)
        raw = (raw ^ (raw << np.uint64(2))).astype(u)
        pick = k == 4
        ov = out.view(u)
        ov[pick] = raw[pick]
        sp = specials(t)
        pick = k == 5
        out[pick] = sp[rng.integers(0, len(sp), int(pick.sum()))]
        return out
    return from_f64(v, t)


def random_ints(t, n, rng, kind="wide"):
    lo, hi = iinfo(t)
    if kind == "small":
        return rng.integers(-100, 100, n).astype(np_dtype(t))
    if kind == "nonneg":
        return rng.integers(0, 100, n).astype(np_dtype(t))
    k = rng.integers(0, 4, n)
    small = rng.integers(-100, 100, n)
    full = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64)
    v = np.where(k == 0, full, small)
    sp = int_specials(t)
    v = np.where(k == 1, sp[rng.integers(0, len(sp), n)], v)
    return v.astype(np_dtype(t))


def random(t, shape, rng, kind="wide"):
    """A storage array of type t and `shape`."""
    shape = tuple(shape)
    n = int(np.prod(shape)) if shape else 1
    if t == "i1":
        v = rng.integers(0, 2, n).astype(bool)
    elif t in INT_TYPES:
        v = random_ints(t, n, rng, kind)
    else:
        v = random_floats(t, n, rng, kind)
    return np.array(order="C", copy=True, object=v.reshape(shape))


def with_specials(t, shape, rng, kind="wide"):
    """Random values whose first elements are every special value of t."""
    a = random(t, shape, rng, kind).reshape(-1)
    sp = specials(t)
    m = min(len(sp), a.size)
    a[:m] = sp[:m]
    return a.reshape(shape)


def cross(t1, t2, rng, extra=0, kind="wide"):
    """Two 1-D arrays: every pair of specials, then `extra` random pairs."""
    s1, s2 = specials(t1), specials(t2)
    a = np.repeat(s1, len(s2))
    b = np.tile(s2, len(s1))
    if extra:
        a = np.concatenate([a, random(t1, (extra,), rng, kind)])
        b = np.concatenate([b, random(t2, (extra,), rng, kind)])
    return a, b


# ---------------------------------------------------------------------------
# fuserc run --random SEED, reproduced (tools/fuserc/run.c: fillRandom)
# ---------------------------------------------------------------------------

_GAMMA = np.uint64(0x9E3779B97F4A7C15)


def _splitmix(start, n):
    """The n outputs of splitmix64 after `start` steps of a generator seeded
    with the state value s0 (start counts steps already taken)."""
    s0, k0 = start
    i = np.arange(k0 + 1, k0 + n + 1, dtype=np.uint64)
    z = np.uint64(s0) + i * _GAMMA
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def fuserc_random_at(t, seed, offset, index):
    """The values fuserc's --random gives the elements at flat positions
    `index` (an int64 array) of an argument whose first element is the
    generator's step `offset`."""
    r = _splitmix_at(seed, offset + np.asarray(index, dtype=np.uint64))
    return _convert(r, t)


def _splitmix_at(s0, steps):
    z = np.uint64(s0) + (steps + np.uint64(1)) * _GAMMA
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _convert(r, t):
    if t == "i1":
        return (r & np.uint64(1)).astype(bool)
    if t in INT_TYPES:
        return ((r % np.uint64(200)).astype(np.int64) - 100).astype(np_dtype(t))
    u = (r >> np.uint64(11)).astype(np.float64) / 9007199254740992.0
    f = -4.0 + 8.0 * u
    if t == "f64":
        return f
    if t == "f32":
        return f.astype(np.float32)
    if t == "f16":
        return f.astype(np.float32).astype(np.float16)
    b = f.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + np.uint64(0x7FFF) + ((b >> np.uint64(16)) & np.uint64(1)))
            >> np.uint64(16)).astype(np.uint16)


def fuserc_random(t, shape, seed, offset, chunk=1 << 22):
    """The values `fuserc run --random SEED` fills an argument of type t and
    `shape` with, when `offset` elements were generated for earlier
    arguments of the same fusion: floats uniform in [-4, 4), integers in
    [-100, 100), bools half true. Returns (storage array, new offset)."""
    n = int(np.prod(shape)) if len(shape) else 1
    out = np.empty(n, dtype=np_dtype(t))
    for s in range(0, n, chunk):
        m = min(chunk, n - s)
        out[s:s + m] = _convert(_splitmix((seed, offset + s), m), t)
    return out.reshape(shape), offset + n
