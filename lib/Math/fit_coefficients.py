#!/usr/bin/python3
"""Derives the polynomial coefficients of fuser's math expansions.

Each approximation is a weighted minimax fit (Remez exchange algorithm) done
in 256-bit arithmetic with mpmath; coefficients are then rounded to the
target type, and the error of the rounded polynomial is measured again on a
dense grid.  The output is lib/Math/Coefficients.inc, which MathExpansion
includes; rerun with

    /usr/bin/python3 lib/Math/fit_coefficients.py > lib/Math/Coefficients.inc

The script also emits the bits of 2/pi that the Payne-Hanek reduction of
sin/cos needs.  See docs/math.md for what each fit is used for.
"""
import struct
import sys

import mpmath
from mpmath import mp, mpf

mp.prec = 256


def to_f64(x):
    return float(x)


def to_f32(x):
    return struct.unpack('<f', struct.pack('<f', float(x)))[0]


def solve_linear(a, b):
    return mpmath.lu_solve(mpmath.matrix(a), mpmath.matrix(b))


def remez(g, w, lo, hi, n, basis, iters=40, grid=3000):
    """Coefficients c[0..n-1] minimizing max |w(x) (g(x) - sum c_j basis(x)^j)|."""
    lo, hi = mpf(lo), mpf(hi)
    pts = [lo + (hi - lo) * (1 - mpmath.cos(mpmath.pi * i / n)) / 2
           for i in range(n + 1)]
    # A weight that vanishes at 0 makes 0 useless as a reference point.
    pts = [x if abs(w(x)) > mpf('1e-30') else x + (hi - lo) * mpf('1e-3')
           for x in pts]
    xs = [lo + (hi - lo) * (1 - mpmath.cos(mpmath.pi * i / grid)) / 2
          for i in range(grid + 1)]
    gx = [g(x) for x in xs]
    wx = [w(x) for x in xs]
    bx = [basis(x) for x in xs]
    cache = dict(zip(xs, zip(gx, wx, bx)))

    def gwb(x):
        if x in cache:
            return cache[x]
        return g(x), w(x), basis(x)

    best = None
    for _ in range(iters):
        rows, rhs = [], []
        for i, x in enumerate(pts):
            gv, wv, bv = gwb(x)
            rows.append([bv ** j for j in range(n)] + [(-1) ** i / wv])
            rhs.append(gv)
        sol = solve_linear(rows, rhs)
        c = [sol[j] for j in range(n)]
        lev = abs(sol[n])

        def err(i):
            p = mpf(0)
            for cj in reversed(c):
                p = p * bx[i] + cj
            return wx[i] * (gx[i] - p)

        es = [err(i) for i in range(len(xs))]
        mx = max(abs(e) for e in es)
        best = (c, mx)
        # Local extrema of the error, with alternating signs.
        ext = []
        for i in range(len(xs)):
            left = es[i - 1] if i > 0 else None
            right = es[i + 1] if i + 1 < len(xs) else None
            e = es[i]
            if (left is None or abs(e) >= abs(left)) and \
               (right is None or abs(e) >= abs(right)):
                ext.append(i)
        merged = []
        for i in ext:
            if merged and (es[merged[-1]] >= 0) == (es[i] >= 0):
                if abs(es[i]) > abs(es[merged[-1]]):
                    merged[-1] = i
            else:
                merged.append(i)
        while len(merged) > n + 1:
            if abs(es[merged[0]]) < abs(es[merged[-1]]):
                merged.pop(0)
            else:
                merged.pop()
        if len(merged) < n + 1:
            break
        pts = [xs[i] for i in merged]
        if mx <= lev * (1 + mpf('1e-8')):
            break
    return best


def measure(c, g, w, lo, hi, basis, rnd, grid=20000, exact0=False):
    """Max weighted error of the polynomial with coefficients rounded by rnd
    (but c[0] taken as it is when exact0)."""
    cr = [mpf(rnd(x)) for x in c]
    if exact0:
        cr[0] = mpf(c[0])
    lo, hi = mpf(lo), mpf(hi)
    m = mpf(0)
    for i in range(grid + 1):
        x = lo + (hi - lo) * i / grid
        if x == 0:
            x = (hi - lo) * mpf('1e-9')
        p = mpf(0)
        b = basis(x)
        for cj in reversed(cr):
            p = p * b + cj
        m = max(m, abs(w(x) * (g(x) - p)))
    return m


def fit_rounded(g, w, lo, hi, n, basis, rnd, grid=1500, c0=None):
    """Remez fit, then coefficients rounded to the target type.  Rounding is
    greedy, lowest order first: after rounding c0..cj, c(j+1).. are refitted
    so that they absorb part of that rounding error (this matters most in
    f32).  Every intermediate candidate (the refitted tail rounded as it is)
    is measured and the best one kept, so the greedy pass never makes things
    worse than plain rounding."""
    c_exact, e_exact = remez(g, w, lo, hi, n, basis, grid=grid)
    best = [rnd(x) for x in c_exact]
    best_err = measure(best, g, w, lo, hi, basis, rnd, grid=4000)
    if c0 is not None:
        # c0 is evaluated exactly (as a double word): only c1.. are fitted.
        best_err = mpf('inf')
    fixed = []
    for j in range(n - 1):
        if j == 0 and c0 is not None:
            fixed.append(mpf(c0))
        else:
            fixed.append(mpf(rnd(c_exact[0] if j == 0 else c[0])))

        def gj(x, j=j + 1):
            x = eps_lo(x)
            b = basis(x)
            v = g(x)
            for i, ci in enumerate(fixed):
                v -= ci * b ** i
            return v / b ** j

        def wj(x, j=j + 1):
            x = eps_lo(x)
            return w(x) * abs(basis(x)) ** j
        try:
            c, _ = remez(gj, wj, lo, hi, n - j - 1, basis, grid=grid)
        except ZeroDivisionError:
            break
        cand = [rnd(x) for x in fixed] + [rnd(x) for x in c]
        if c0 is not None:
            cand[0] = mpf(c0)
        err = measure(cand, g, w, lo, hi, basis, rnd, grid=4000)
        if err < best_err:
            best, best_err = cand, err
    return best, e_exact


def log2f(x):
    return float(mpmath.log(x, 2)) if x > 0 else float('-inf')


FITS = []


def fit(name, g, w, lo, hi, degs, basis=lambda x: x, doc='', c0=None):
    """Fits for f32 and f64; degs = (n32, n64) numbers of coefficients.
    With c0, the constant term is that exact value, evaluated as a double
    word (k<name>0Lo<type> holds its low part)."""
    out = {}
    for ty, n, rnd in (('F32', degs[0], to_f32), ('F64', degs[1], to_f64)):
        c, e = fit_rounded(g, w, lo, hi, n, basis, rnd, c0=c0)
        er = measure(c, g, w, lo, hi, basis, rnd, exact0=c0 is not None)
        lo0 = None
        if c0 is not None:
            c[0] = rnd(c0)
            lo0 = rnd(c0 - mpf(c[0]))
        out[ty] = (c, log2f(e), log2f(er), lo0)
    FITS.append((name, doc, lo, hi, out))


def eps_lo(x):
    return x if x != 0 else mpf('1e-40')


# exp and expm1: e^r = 1 + r + r^2 Q(r), |r| <= ln2/2 (plus slack for the
# rounding of k).  Weighted so that the error is small relative to both e^r
# and e^r - 1 (expm1 uses the same polynomial).
R_EXP = mpf('0.3467')


def g_exp(r):
    r = eps_lo(r)
    return (mpmath.expm1(r) - r) / (r * r)


def w_exp(r):
    r = eps_lo(r)
    return r * r / abs(mpmath.expm1(r))


fit('ExpQ', g_exp, w_exp, -R_EXP, R_EXP, (6, 12),
    doc='e^r = 1 + r + r^2 Q(r) on |r| <= 0.3467')

# log: log(m) = 2 atanh(s) = 2s + 2/3 s^3 + s^5 P(s^2), s = (m-1)/(m+1),
# m in [sqrt(1/2), sqrt(2)) so |s| <= 0.1716.  Basis variable z = s^2.
Z_LOG = mpf('0.02945')


def g_log(z):
    z = eps_lo(z)
    s = mpmath.sqrt(z)
    return (2 * mpmath.atanh(s) - 2 * s - 2 * s ** 3 / 3) / s ** 5


def w_log(z):
    z = eps_lo(z)
    s = mpmath.sqrt(z)
    return s ** 5 / (2 * mpmath.atanh(s))


fit('LogP', g_log, w_log, 0, Z_LOG, (3, 9),
    doc='2 atanh(s) = 2s + 2/3 s^3 + s^5 P(s^2) on s^2 <= 0.02945')

# sin and cos on |r| <= pi/4 (plus slack): z = r^2.
Z_TRIG = (mpmath.pi / 4 * mpf('1.0001')) ** 2


def g_sin(z):
    z = eps_lo(z)
    r = mpmath.sqrt(z)
    return (mpmath.sin(r) - r) / r ** 3


def w_sin(z):
    z = eps_lo(z)
    r = mpmath.sqrt(z)
    return r ** 3 / mpmath.sin(r)


def g_cos(z):
    z = eps_lo(z)
    r = mpmath.sqrt(z)
    return (mpmath.cos(r) - 1 + z / 2) / (z * z)


def w_cos(z):
    z = eps_lo(z)
    r = mpmath.sqrt(z)
    return z * z / mpmath.cos(r)


fit('SinS', g_sin, w_sin, 0, Z_TRIG, (4, 7),
    doc='sin(r) = r + r^3 S(r^2) on |r| <= pi/4')
fit('CosC', g_cos, w_cos, 0, Z_TRIG, (4, 7),
    doc='cos(r) = 1 - r^2/2 + r^4 C(r^2) on |r| <= pi/4')

# atan on |t| <= 7/16: atan(t) = t + t^3 A(t^2).
Z_ATAN = (mpf(7) / 16 * mpf('1.0001')) ** 2


def g_atan(z):
    z = eps_lo(z)
    t = mpmath.sqrt(z)
    return (mpmath.atan(t) - t) / t ** 3


def w_atan(z):
    z = eps_lo(z)
    t = mpmath.sqrt(z)
    return t ** 3 / mpmath.atan(t)


fit('AtanA', g_atan, w_atan, 0, Z_ATAN, (6, 12),
    doc='atan(t) = t + t^3 A(t^2) on |t| <= 7/16')

# erf on |x| <= ERF_SPLIT: erf(x) = x + x E(x^2).
ERF_SPLIT = mpf('1.0')


def g_erf(z):
    z = eps_lo(z)
    x = mpmath.sqrt(z)
    return mpmath.erf(x) / x - 1


def w_erf(z):
    z = eps_lo(z)
    x = mpmath.sqrt(z)
    return x / mpmath.erf(x)


fit('ErfE', g_erf, w_erf, 0, ERF_SPLIT ** 2, (8, 15),
    doc='erf(x) = x + x E(x^2) on |x| <= 1',
    c0=2 / mpmath.sqrt(mpmath.pi) - 1)


# erfc(x) = exp(-x^2) G(x) for x in [0.875, XMAX] (G = erfcx), G a polynomial
# in t = (x - c) / (x + c), relative error.  XMAX is where erf rounds to 1.
def g_erfcx(x):
    return mpmath.erfc(x) * mpmath.exp(x * x)


ERFC = {'F32': (mpf('2.0'), mpf('4.0'), 10), 'F64': (mpf('3.5'), mpf('6.0'), 20)}
ERFC_FITS = {}
for ty, (cc, xmax, n) in ERFC.items():
    rnd = to_f32 if ty == 'F32' else to_f64
    tlo = (ERF_SPLIT - cc) / (ERF_SPLIT + cc)
    thi = (xmax - cc) / (xmax + cc)

    def g_t(t, cc=cc):
        return g_erfcx(cc * (1 + t) / (1 - t))

    def w_t(t, cc=cc):
        return 1 / g_erfcx(cc * (1 + t) / (1 - t))
    c, e = fit_rounded(g_t, w_t, tlo, thi, n, lambda t: t, rnd,
                       c0=g_erfcx(cc))
    er = measure(c, g_t, w_t, tlo, thi, lambda t: t, rnd, exact0=True)
    c[0] = rnd(c[0])  # the code adds the low part kErfcG0Lo
    ERFC_FITS[ty] = (float(cc), float(xmax), c, log2f(e), log2f(er))


def tlo_of(cc):
    return (ERF_SPLIT - cc) / (ERF_SPLIT + cc)


def thi_of(cc, xmax):
    return (xmax - cc) / (xmax + cc)


def dlogg(t, cc):
    """d/dt log G(x(t)), x = c (1 + t) / (1 - t)."""
    x = cc * (1 + t) / (1 - t)
    dxdt = 2 * cc / (1 - t) ** 2
    # d/dx log erfcx(x) = 2x - 2/sqrt(pi) / erfcx(x)
    return (2 * x - 2 / mpmath.sqrt(mpmath.pi) / g_erfcx(x)) * dxdt


# ---------------------------------------------------------------------------
# The Fast tier (f32 only, lib/Math/FastMath.cpp): single-precision
# polynomials, every coefficient an f32, evaluated by fma Horner steps.
# Fitted at 128 bits (ample for f32 coefficients) on a coarser grid.
FAST = []


def fit_fast(name, g, w, lo, hi, n, doc):
    prec = mp.prec
    mp.prec = 128
    lo, hi = mpf(lo), mpf(hi)
    c, e = fit_rounded(g, w, lo, hi, n, lambda x: x, to_f32)
    er = measure(c, g, w, lo, hi, lambda x: x, to_f32, grid=4000)
    mp.prec = prec
    FAST.append((name, doc, c, log2f(e), log2f(er)))


def fast_fits():
    ln2 = mpmath.log(2)
    # e^r = 1 + r + r^2 Q(r), |r| <= ln2/2, relative to e^r.  Also expm1's
    # (r + r^2 Q(r)) and, with the odd coefficients negated, e^-r.
    fit_fast('FastExpQ', g_exp, lambda r: r * r / mpmath.exp(eps_lo(r)),
             -R_EXP, R_EXP, 5, 'e^r = 1 + r + r^2 Q(r) on |r| <= 0.3467')
    # The same relative to expm1(r): expm1 and tanh near 0.
    fit_fast('FastExpm1Q', g_exp, w_exp, -R_EXP, R_EXP, 5,
             'e^r - 1 = r + r^2 Q(r) on |r| <= 0.3467, relative to e^r - 1')
    # tanh(a) = a + a^3 T(a^2) on |a| <= 0.55.
    fit_fast('FastTanhT',
             lambda z: (mpmath.tanh(mpmath.sqrt(eps_lo(z))) -
                        mpmath.sqrt(eps_lo(z))) / mpmath.sqrt(eps_lo(z)) ** 3,
             lambda z: mpmath.sqrt(eps_lo(z)) ** 3 /
             mpmath.tanh(mpmath.sqrt(eps_lo(z))),
             0, (mpf('0.55') * mpf('1.0001')) ** 2, 5,
             'tanh(a) = a + a^3 T(a^2) on |a| <= 0.55')
    # 2^f = 1 + f H(f), |f| <= 1/2.
    fit_fast('FastExp2H',
             lambda f: (mpmath.exp(eps_lo(f) * ln2) - 1) / eps_lo(f),
             lambda f: eps_lo(f) / mpmath.exp(eps_lo(f) * ln2),
             mpf('-0.50005'), mpf('0.50005'), 6,
             '2^f = 1 + f H(f) on |f| <= 1/2')
    # log1p(f) = f + f^2 P(f) and log2(1 + f) = f log2(e) + f^2 P2(f) for
    # f = m - 1, m in [sqrt(1/2), sqrt(2)) (plus slack: log1p's f is
    # rounded).
    flo = (mpmath.sqrt(mpf(1) / 2) - 1) * mpf('1.0001')
    fhi = (mpmath.sqrt(2) - 1) * mpf('1.0001')
    fit_fast('FastLogP',
             lambda f: (mpmath.log1p(eps_lo(f)) - eps_lo(f)) / eps_lo(f) ** 2,
             lambda f: eps_lo(f) ** 2 / abs(mpmath.log1p(eps_lo(f))),
             flo, fhi, 9, 'log1p(f) = f + f^2 P(f) on [sqrt(1/2) - 1, sqrt(2) - 1]')
    l2e = 1 / ln2
    fit_fast('FastLog2P',
             lambda f: (mpmath.log1p(eps_lo(f)) - eps_lo(f)) * l2e / eps_lo(f) ** 2,
             lambda f: eps_lo(f) ** 2 / abs(mpmath.log1p(eps_lo(f)) * l2e),
             flo, fhi, 9,
             'log2(1 + f) = f log2(e) + f^2 P2(f) on [sqrt(1/2) - 1, sqrt(2) - 1]')
    # sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2), |r| <= pi/4.
    fit_fast('FastSinS', g_sin, w_sin, 0, Z_TRIG, 3,
             'sin(r) = r + r^3 S(r^2) on |r| <= pi/4')
    fit_fast('FastCosC', g_cos, w_cos, 0, Z_TRIG, 3,
             'cos(r) = 1 - r^2/2 + r^4 C(r^2) on |r| <= pi/4')
    # atan(a) = a + a^3 A(a^2) on [0, 1].
    fit_fast('FastAtanA', g_atan, w_atan, 0, mpf('1.0001'), FAST_ATAN_N,
             'atan(a) = a + a^3 A(a^2) on [0, 1]')
    # erf(x) = x + x E(x^2) on |x| <= FAST_ERF_SPLIT; beyond, erf = 1 - erfc
    # with log2(erfc(a)) = L(a) on [FAST_ERF_SPLIT, 4], the weight erfc(a)
    # making the error absolute in erf.
    fit_fast('FastErfE', g_erf, w_erf, 0, FAST_ERF_SPLIT ** 2, FAST_ERFE_N,
             'erf(x) = x + x E(x^2) on |x| <= %g' % FAST_ERF_SPLIT)
    fit_fast('FastErfcL', lambda t: mpmath.log(mpmath.erfc(t), 2),
             lambda t: mpmath.erfc(t), FAST_ERF_SPLIT, 4, FAST_ERFCL_N,
             'log2(erfc(a)) = L(a) on [%g, 4], error times erfc(a)'
             % FAST_ERF_SPLIT)
    # pow: 2 atanh(s) = 2s + s z Q(z), z = s^2 <= tanh(ln2 / 8)^2.
    zmax = mpmath.tanh(ln2 / 8) ** 2 * mpf('1.001')

    def g_pow(z):
        s = mpmath.sqrt(eps_lo(z))
        return (2 * mpmath.atanh(s) - 2 * s) / (s * eps_lo(z))

    def w_pow(z):
        s = mpmath.sqrt(eps_lo(z))
        return s * eps_lo(z) / (2 * mpmath.atanh(s))
    fit_fast('FastPowQ', g_pow, w_pow, 0, zmax, 3,
             '2 atanh(s) = 2s + s^3 Q(s^2) on |s| <= tanh(ln2/8)')


FAST_ATAN_N = 8
FAST_ERF_SPLIT = mpf('0.921875')
FAST_ERFE_N = 6
FAST_ERFCL_N = 8


def emit_fast(w):
    w('// The Fast tier (f32 only): f32 coefficients, fma Horner evaluation.\n')
    for name, doc, c, e, er in FAST:
        w('// %s: %d coefficients, weighted error 2^%.1f (2^%.1f after '
          'rounding)\n' % (doc, len(c), e, er))
        w('static const double k%sF32[] = {\n' % name)
        for x in c:
            w('    %s,\n' % fmt64(x))
        w('};\n')
    w('static const double kFastErfSplitF32 = %s;\n' % fmt64(FAST_ERF_SPLIT))
    # pow: c = sqrt(2) rounded to f32 and log2(c) - 1/2.
    c = to_f32(mpmath.sqrt(2))
    w('static const double kFastSqrt2F32 = %s;\n' % fmt64(c))
    w('static const double kFastLog2Sqrt2LoF32 = %s;\n' % fmt64(
        to_f32(mpmath.log(mpf(c), 2) - mpf(1) / 2)))


def two_over_pi_words(bits_per_word, nwords):
    """Words of the binary expansion of 2/pi, first word = bits 1..w."""
    mp.prec = bits_per_word * nwords + 64
    v = 2 / mpmath.pi
    n = int(mpmath.floor(v * mpf(2) ** (bits_per_word * nwords)))
    mp.prec = 256
    words = []
    for i in range(nwords):
        shift = bits_per_word * (nwords - 1 - i)
        words.append((n >> shift) & ((1 << bits_per_word) - 1))
    return words


def fmt64(x):
    return float(x).hex()


def split(v, rnd, hi_bits=None):
    """v as hi + lo: hi rounded to hi_bits significant bits (so that small
    integer multiples of it are exact) or to the type, lo = v - hi rounded."""
    if hi_bits is None:
        hi = rnd(v)
    else:
        e = int(mpmath.floor(mpmath.log(abs(v), 2)))
        hi = rnd(mpmath.nint(v * mpf(2) ** (hi_bits - 1 - e)) /
                 mpf(2) ** (hi_bits - 1 - e))
    return hi, rnd(v - mpf(hi))


def constants():
    ln2 = mpmath.log(2)
    out = []
    for ty, rnd, ln2bits in (('F32', to_f32, 16), ('F64', to_f64, 32)):
        def pair(name, v, bits=None):
            hi, lo = split(v, rnd, bits)
            out.append(('k%sHi%s' % (name, ty), hi))
            out.append(('k%sLo%s' % (name, ty), lo))
        # ln2 with a short head: k * hi is exact for the |k| < 2^11 (f64)
        # or 2^8 (f32) of exp's reduction and log's exponent.
        pair('Ln2Short', ln2, ln2bits)
        pair('Ln2', ln2)
        pair('Log2e', 1 / ln2)
        pair('TwoThirds', mpf(2) / 3)
        pair('PiOver2', mpmath.pi / 2)
        pair('Pi', mpmath.pi)
        pair('PiOver4', mpmath.pi / 4)
        pair('AtanHalf', mpmath.atan(mpf(1) / 2))
    return out


def emit():
    w = sys.stdout.write
    w('// Generated by lib/Math/fit_coefficients.py; do not edit.\n')
    w('// Weighted minimax fits (Remez, 256-bit mpmath); see docs/math.md.\n')
    w('// Constants split as hi + lo (hi + lo = value to twice the precision).\n')
    for name, v in constants():
        w('static const double %s = %s;\n' % (name, fmt64(v)))
    for name, doc, lo, hi, out in FITS:
        for ty in ('F32', 'F64'):
            c, e, er, lo0 = out[ty]
            w('// %s (%s): %d coefficients, weighted error 2^%.1f '
              '(2^%.1f after rounding%s)\n' % (
                  doc, ty, len(c), e, er,
                  '' if lo0 is None else ', c0 as a double word'))
            w('static const double k%s%s[] = {\n' % (name, ty))
            for x in c:
                w('    %s,\n' % fmt64(x))
            w('};\n')
            if lo0 is not None:
                w('static const double k%s0Lo%s = %s;\n' % (name, ty,
                                                            fmt64(lo0)))
    for ty in ('F32', 'F64'):
        cc, xmax, c, e, er = ERFC_FITS[ty]
        w('// erfc(x) = exp(-x^2) G(t), t = (x - %g)/(x + %g), x in [%g, %g] '
          '(%s): %d coefficients, relative error 2^%.1f (2^%.1f after '
          'rounding, G(0) as a double word)\n' % (
              cc, cc, float(ERF_SPLIT), xmax, ty, len(c), e, er))
        w('static const double kErfcC%s = %s;\n' % (ty, fmt64(cc)))
        w('static const double kErfcXMax%s = %s;\n' % (ty, fmt64(xmax)))
        w('static const double kErfcG%s[] = {\n' % ty)
        for x in c:
            w('    %s,\n' % fmt64(x))
        w('};\n')
        # G(0) = erfcx(c) to twice the precision, for the last Horner step.
        rnd = to_f32 if ty == 'F32' else to_f64
        g0 = g_erfcx(mpf(cc))
        w('static const double kErfcG0Lo%s = %s;\n' % (
            ty, fmt64(rnd(g0 - mpf(rnd(g0))))))
        w('static const double kErfcG0Hi%s = %s;\n' % (ty, fmt64(rnd(g0))))
        # G'(t) / G(t), roughly (relative error < 1e-3), for the correction
        # of the rounding of t.
        d, _ = remez(lambda t, cc=cc: dlogg(t, mpf(cc)), lambda t: 1,
                     tlo_of(mpf(cc)), thi_of(mpf(cc), mpf(xmax)), 6,
                     lambda t: t, grid=400)
        w('static const double kErfcDLogG%s[] = {%s};\n' % (
            ty, ', '.join(fmt64(rnd(x)) for x in d)))
    w32 = two_over_pi_words(32, 8)
    w('// Bits of 2/pi, 32 per word, most significant first.\n')
    w('static const unsigned kTwoOverPi32[] = {\n')
    for x in w32:
        w('    0x%08xu,\n' % x)
    w('};\n')
    w64 = two_over_pi_words(64, 19)
    w('// Bits of 2/pi, 64 per word, most significant first.\n')
    w('static const unsigned long long kTwoOverPi64[] = {\n')
    for x in w64:
        w('    0x%016xull,\n' % x)
    w('};\n')
    emit_fast(w)


if __name__ == '__main__':
    fast_fits()
    emit()
