"""Correctly rounded references where PyTorch has no op: fma."""

from fractions import Fraction

import numpy as np

from .core import finfo, from_f64, to_f64

_U = {"f16": np.uint16, "bf16": np.uint16, "f32": np.uint32, "f64": np.uint64}


_EMAX = {"f16": 15, "bf16": 127, "f32": 127, "f64": 1023}


def round_fraction(q, t):
    """The value of type t nearest to the rational q (ties to even), as a
    one-element storage array; overflow gives inf."""
    mx, _, _, eps = finfo(t)
    half_ulp = Fraction(2) ** _EMAX[t] * Fraction(eps) / 2
    if abs(q) >= Fraction(mx) + half_ulp:
        return from_f64(np.array([np.inf if q > 0 else -np.inf]), t)
    x = float(q)  # correctly rounded to double (int / int is)
    a = from_f64(np.array([x]), t)
    if t == "f64":
        return a
    if not np.isfinite(to_f64(a, t)[0]):
        return from_f64(np.array([np.copysign(mx, x)]), t)
    # candidates: a and its neighbours; pick the closest to q exactly
    u = _U[t]
    bits = a.view(u).astype(np.int64)[0]
    cands = []
    for d in (-1, 0, 1):
        b = bits + d
        if b < 0 or b >= (1 << (8 * np.dtype(u).itemsize)):
            continue
        c = np.array([b]).astype(u).view(a.dtype)
        v = to_f64(c, t)[0]
        if np.isfinite(v) and np.signbit(v) == (q < 0) or v == 0:
            cands.append((abs(Fraction(float(v)) - q), int(c.view(u)[0]) & 1, c))
    cands.sort(key=lambda c: (c[0], c[1]))
    return cands[0][2]


def fma(a, b, c, t):
    """a * b + c with one rounding, elementwise, for float storage arrays."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    fa, fb, fc = (np.broadcast_to(to_f64(x, t), shape).ravel() for x in (a, b, c))
    n = fa.size
    out = np.empty(n, dtype=from_f64(np.zeros(1), t).dtype)
    for i in range(n):
        x, y, z = float(fa[i]), float(fb[i]), float(fc[i])
        if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)):
            with np.errstate(all="ignore"):
                out[i] = from_f64(np.array([np.float64(x) * y + z]), t)[0]
            continue
        q = Fraction(x) * Fraction(y) + Fraction(z)
        if q == 0:
            if (x == 0 or y == 0) and z == 0:
                neg = (np.signbit(x) != np.signbit(y)) and np.signbit(z)
                s = -0.0 if neg else 0.0
            else:
                s = 0.0
            out[i] = from_f64(np.array([s]), t)[0]
            continue
        out[i] = round_fraction(q, t)[0]
    return out.reshape(shape)
