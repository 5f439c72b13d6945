//===- FastMath.cpp - The Fast tier of the f32 expansions -----------------===//
//
// Single-precision polynomials (f32 coefficients, fma Horner steps),
// Cody-Waite reductions and exponent scaling in integer arithmetic: at most
// 2 ulp over every f32 input, with the special values of the Precise tier,
// in about a third of its instructions.  Double-word arithmetic appears only
// where the 2-ulp bound needs it (pow's logarithm).  sin and cos are in
// TrigErf.cpp, next to the Payne-Hanek reduction they share with the Precise
// tier.  docs/math.md, "Two tiers", explains each function.
//
//===----------------------------------------------------------------------===//

#include "MathInternal.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::mathx;

#include "Coefficients.inc"

namespace {
/// 1.5 * 2^23: adding it rounds a float of magnitude below 2^22 to an
/// integer, which then sits in the low mantissa bits of the sum.
constexpr double kMagic = 0x1.8p23;
constexpr double kLog2e = 0x1.715476p+0; // log2(e) rounded to f32

/// k = roundeven(v) for |v| < 2^22 as the float `kf` and the integer
/// `kShifted` = k << 23 (the exponent field of 2^k, less the bias), taken
/// from the bits of v + 1.5 * 2^23.
struct Rounded {
  Value kf, kShifted;
};

/// min(x, v) and max(x, v) for a constant v, as compare and select: a NaN
/// x stays NaN (every expansion selects a NaN operand back at its end, and
/// no op below is undefined on NaN).  Not minnumf / maxnumf: fuser's kernel
/// lowering expands those into four instructions each.
Value atMost(Emitter &e, Value x, double v) {
  return e.select(e.gt(x, e.c(v)), e.c(v), x);
}
Value atLeast(Emitter &e, Value x, double v) {
  return e.select(e.lt(x, e.c(v)), e.c(v), x);
}

Rounded roundMagic(Emitter &e, Value sum) {
  Value kf = e.sub(sum, e.c(kMagic));
  return {kf, e.shl(e.bitsOf(sum), e.ci(23))};
}

/// v * 2^k for k in [-150, 128] (k << 23 given), with one rounding:
/// (v 2^(k+64)) 2^-64 for k < 0, so that subnormal results are rounded
/// once, and (v 2^(k-1)) 2 for k >= 0, so that 2^128 v overflows to inf.
Value scaleWide(Emitter &e, Value v, Value kf, Value kShifted) {
  Value neg = e.lt(kf, e.c(0.0));
  Value bias = e.select(neg, e.ci((127 + 64) << 23), e.ci((127 - 1) << 23));
  Value first = e.mul(v, e.fromBits(e.iadd(kShifted, bias)));
  return e.mul(first, e.select(neg, e.c(0x1p-64), e.c(2.0)));
}

/// e^x = 2^k p for x in [-104, 89] (the clamped argument): Cody-Waite with
/// ln2 as a 16-bit head (k * head exact) and a tail, then a degree-6
/// polynomial evaluated by Horner down to its two unit coefficients.
struct ExpParts32 {
  Value p;          // e^r in [0.70, 1.42]
  Rounded k;
};

ExpParts32 expReduced(Emitter &e, Value x) {
  Rounded k = roundMagic(e, e.fma(x, e.c(kLog2e), e.c(kMagic)));
  Value r = e.fma(k.kf, e.c(-kLn2ShortHiF32), x);
  r = e.fma(k.kf, e.c(-kLn2ShortLoF32), r);
  Value h = e.poly(r, kFastExpQF32);
  h = e.fma(h, r, e.c(1.0));
  return {e.fma(h, r, e.c(1.0)), k};
}

/// expm1(x) / 2 for x in [-30, 89] except near 0: 2^(k-1) (1 + p) - 1/2
/// with p = expm1(r) = r + r^2 Q(r) (Q fitted relative to expm1) carried as
/// p + pl, so that only the final additions round (at k = 1 the result,
/// 2p + 1, can be 0.41 while p is -0.29).  Returns the halved value so that
/// tanh can divide without doubling; for k = 0 it is p/2 exactly unless p
/// is below 2^-125 (the callers select x there).
Value expm1Half(Emitter &e, Value x) {
  Rounded k = roundMagic(e, e.fma(x, e.c(kLog2e), e.c(kMagic)));
  Value r = e.fma(k.kf, e.c(-kLn2ShortHiF32), x);
  r = e.fma(k.kf, e.c(-kLn2ShortLoF32), r);
  Value q = e.poly(r, kFastExpm1QF32);
  Value s = e.mul(r, r);
  Value p = e.fma(q, s, r);
  Value pl = e.fma(q, s, e.sub(r, p)); // r - p is exact (Sterbenz)
  // c + cl = 2^(k-1) - 1/2 exactly (c rounds for k >= 25).
  Value half2k = e.fromBits(e.iadd(k.kShifted, e.ci(126 << 23)));
  Value c = e.sub(half2k, e.c(0.5));
  Value cl = e.sub(e.sub(half2k, c), e.c(0.5));
  Value u = e.fma(half2k, p, c);
  return e.add(u, e.fma(half2k, pl, cl));
}

/// The reduction shared by log, log2 (x > 0 finite, subnormals scaled by
/// the caller) and log1p: x = 2^e m, m in [sqrt(1/2), sqrt(2)), from the
/// bits of `u` (which is x, or 1 + x for log1p).  eShifted = e << 23.
Value logExponent(Emitter &e, Value u) {
  return e.iand(e.isub(e.bitsOf(u), e.ci(0x3f3504f3)), e.ci(-0x800000));
}

/// log1p(f) = f + f^2 P(f) for f in [sqrt(1/2) - 1, sqrt(2) - 1].
Value log1pPoly(Emitter &e, Value f) {
  return e.fma(e.poly(f, kFastLogPF32), e.mul(f, f), f);
}

/// The special values of log, log2 (pole 0) and log1p (pole -1): r where
/// `valid`, else -inf at the pole, NaN below it, and x itself for +inf, NaN
/// (and, for log1p, +-0).
Value logSpecials(Emitter &e, Value r, Value x, Value valid, double pole) {
  Value v = e.select(e.lt(x, e.c(pole)), e.nan(), x);
  v = e.select(e.eq(x, e.c(pole)), e.neg(e.inf()), v);
  return e.select(valid, r, v);
}

/// x > 0 and finite, subnormals included (as bits: 0 < bits < inf's).
Value positiveFinite(Emitter &e, Value x) {
  Value b = e.isub(e.bitsOf(x), e.ci(1));
  return e.icmp(arith::CmpIPredicate::ult, b, e.ci(0x7f7fffff));
}

/// Subnormal x scaled by 2^23 (exact); the exponent adjustment is returned
/// as a float to add to the exponent times 2^23.
std::pair<Value, Value> scaleSubnormal(Emitter &e, Value x) {
  Value sub = e.lt(x, e.c(0x1p-126));
  Value xs = e.select(sub, e.mul(x, e.c(0x1p23)), x);
  return {xs, e.select(sub, e.c(-23.0 * 0x1p23), e.c(0.0))};
}
} // namespace

//===----------------------------------------------------------------------===//
// exp, exp2, expm1
//===----------------------------------------------------------------------===//

Value mathx::fastExp(Emitter &e, Value x) {
  // Beyond [-104, 89] e^x is 0 or inf in f32.
  Value xc = atLeast(e, atMost(e, x, 89.0), -104.0);
  ExpParts32 p = expReduced(e, xc);
  Value r = scaleWide(e, p.p, p.k.kf, p.k.kShifted);
  return e.select(e.isNaN(x), x, r);
}

Value mathx::fastExp2(Emitter &e, Value x) {
  Value xc = atLeast(e, atMost(e, x, 128.25), -151.0);
  Rounded k = roundMagic(e, e.add(xc, e.c(kMagic)));
  Value f = e.sub(xc, k.kf); // exact, |f| <= 1/2
  // 2^f = 1 + f H(f).
  Value h = e.poly(f, kFastExp2HF32);
  Value p = e.fma(h, f, e.c(1.0));
  Value r = scaleWide(e, p, k.kf, k.kShifted);
  return e.select(e.isNaN(x), x, r);
}

Value mathx::fastExpm1(Emitter &e, Value x) {
  // Below -30 expm1 rounds to -1; 2^(k-1) stays normal for k <= 128.
  Value xc = atLeast(e, atMost(e, x, 89.0), -30.0);
  Value h = expm1Half(e, xc);
  Value r = e.add(h, h); // overflows to inf for x > 88.72
  // |x| < 2^-25 (also +-0, subnormals and NaN): expm1(x) rounds to x.
  Value tiny = arith::CmpFOp::create(e.b, e.loc, arith::CmpFPredicate::ULT,
                                     e.abs(x), e.c(0x1p-25));
  return e.select(tiny, x, r);
}

//===----------------------------------------------------------------------===//
// log, log2, log1p
//===----------------------------------------------------------------------===//

Value mathx::fastLog(Emitter &e, Value x) {
  auto [xs, eAdj] = scaleSubnormal(e, x);
  Value eb = logExponent(e, xs);
  Value m = e.fromBits(e.isub(e.bitsOf(xs), eb));
  Value r = log1pPoly(e, e.sub(m, e.c(1.0)));
  // e ln2 with the exponent as e * 2^23 (exact in f32) and ln2 * 2^-23.
  Value ef = e.add(e.toFloat(eb), eAdj);
  r = e.fma(ef, e.c(kLn2HiF32 * 0x1p-23), r);
  return logSpecials(e, r, x, positiveFinite(e, x), 0.0);
}

Value mathx::fastLog2(Emitter &e, Value x) {
  auto [xs, eAdj] = scaleSubnormal(e, x);
  Value eb = logExponent(e, xs);
  Value m = e.fromBits(e.isub(e.bitsOf(xs), eb));
  Value f = e.sub(m, e.c(1.0));
  // log2(1 + f) = f (L + l) + f^2 P2(f), the f L product unrounded.
  Value t = e.fma(e.poly(f, kFastLog2PF32), e.mul(f, f),
                  e.mul(f, e.c(kLog2eLoF32)));
  Value r = e.fma(f, e.c(kLog2eHiF32), t);
  Value ef = e.add(e.toFloat(eb), eAdj);
  r = e.fma(ef, e.c(0x1p-23), r);
  return logSpecials(e, r, x, positiveFinite(e, x), 0.0);
}

Value mathx::fastLog1p(Emitter &e, Value x) {
  // 1 + x = 2^k m with k from the rounded u = 1 + x; then
  // f = (1 + x) 2^-k - 1 = x 2^-k - (1 - 2^-k), rounded once: x 2^-k is
  // exact (integer exponent arithmetic), 1 - 2^-k is exact for k <= 24 and
  // 1 beyond (2^-k clamped to 2^-127 and rounded away).
  Value u = e.add(e.c(1.0), x);
  Value eb = logExponent(e, u);
  Value xs = e.fromBits(e.isub(e.bitsOf(x), eb));
  Value ebc = e.iminSigned(eb, e.ci(127 << 23));
  Value c = e.sub(e.c(1.0), e.fromBits(e.isub(e.ci(0x3f800000), ebc)));
  Value f = e.sub(xs, c);
  Value r = log1pPoly(e, f);
  r = e.fma(e.toFloat(eb), e.c(kLn2HiF32 * 0x1p-23), r);
  // Valid: -1 < x < inf and x != 0 (log1p(+-0) = +-0 comes from x).
  Value valid = e.andB(e.andB(e.gt(x, e.c(-1.0)), e.lt(x, e.inf())),
                       e.ne(x, e.c(0.0)));
  return logSpecials(e, r, x, valid, -1.0);
}

//===----------------------------------------------------------------------===//
// tanh, sigmoid
//===----------------------------------------------------------------------===//

Value mathx::fastTanh(Emitter &e, Value x) {
  // |x| < 0.55: tanh a = a + a^3 T(a^2).  Beyond, tanh a = h / (h + 1)
  // with h = expm1(2a) / 2 >= 1 (so that r and h + 1 stay in one binade
  // each); h + 1 = d + dl exactly (Fast2Sum) and h / (d + dl) =
  // r - r dl / d with 1 / d = 1 - r: the rounding of h + 1 (up to an ulp of
  // the result) is put back.  tanh rounds to 1 from 9.01 on: clamp at 10.
  Value a = e.abs(x);
  Value z = e.mul(a, a);
  Value small = e.fma(e.mul(a, z), e.poly(z, kFastTanhTF32), a);
  Value ac = atMost(e, a, 10.0);
  Value h = expm1Half(e, e.add(ac, ac));
  Value d = e.add(h, e.c(1.0));
  Value dl = e.sub(e.c(1.0), e.sub(d, h));
  Value r = e.div(h, d);
  r = e.fma(e.neg(e.mul(r, dl)), e.sub(e.c(1.0), r), r);
  r = e.select(e.lt(a, e.c(0.55)), small, r);
  r = e.fromBits(e.ior(e.bitsOf(r), e.iand(e.bitsOf(x), e.ci(INT32_MIN))));
  return e.select(e.isNaN(x), x, r);
}

Value mathx::fastSigmoid(Emitter &e, Value x) {
  // v = e^-|x| in (0, 1]: 1 / (1 + v) for x >= 0, v / (1 + v) for x < 0.
  // v = 2^k e^-g with k = round(-|x| log2 e) <= 0, g = |x| + k ln2; the
  // polynomial of e^-g is that of e^r with the odd coefficients negated.
  Value a = atMost(e, e.abs(x), 104.0);
  Rounded k = roundMagic(e, e.fma(a, e.c(-kLog2e), e.c(kMagic)));
  Value g = e.fma(k.kf, e.c(kLn2ShortHiF32), a);
  g = e.fma(k.kf, e.c(kLn2ShortLoF32), g);
  SmallVector<double> q;
  for (size_t i = 0; i < std::size(kFastExpQF32); ++i)
    q.push_back(i % 2 ? -kFastExpQF32[i] : kFastExpQF32[i]);
  Value h = e.poly(g, q);
  h = e.fma(h, g, e.c(-1.0));
  Value p = e.fma(h, g, e.c(1.0));
  Value pl = e.fma(h, g, e.sub(e.c(1.0), p)); // 1 - p is exact (Sterbenz)
  // k in [-150, 0]: (p 2^(k+64)) 2^-64 rounds once, into the subnormals.
  Value s64 = e.fromBits(e.iadd(k.kShifted, e.ci((127 + 64) << 23)));
  Value v = e.mul(e.mul(p, s64), e.c(0x1p-64));
  Value vl = e.mul(e.mul(pl, s64), e.c(0x1p-64));
  // n / (d + dl) with n = 1 (x >= 0) or v + vl (x < 0) and d + dl = 1 + v
  // + vl (Fast2Sum): r = n / d, then r + (n - r (d + dl)) / d with 1 / d
  // = r for x >= 0 and 1 - r for x < 0.  Carrying v's low word matters
  // where v / (1 + v) falls into the binade below v's.
  Value neg = e.lt(x, e.c(0.0));
  Value d = e.add(e.c(1.0), v);
  Value dl = e.add(e.sub(v, e.sub(d, e.c(1.0))), vl);
  Value nh = e.select(neg, v, e.c(1.0));
  Value nl = e.select(neg, vl, e.c(0.0));
  // r need not be the rounded quotient, only within an ulp or so: the
  // correction below puts the remainder back. So 1 / d by Newton steps
  // from a linear start (d in (1, 2]: relative error 1/17, squared by each
  // step, 2^-32 after three), not a division: NVPTX's div.rn.f32 carries a
  // slow path that made ptxas spill on sm_80 in bf16 silu kernels.
  Value y = e.fma(d, e.c(-8.0 / 17.0), e.c(24.0 / 17.0));
  for (int i = 0; i < 3; ++i)
    y = e.fma(y, e.fma(e.neg(d), y, e.c(1.0)), y);
  Value r = e.mul(nh, y);
  Value rem = e.add(e.fma(e.neg(r), d, nh), e.fma(e.neg(r), dl, nl));
  Value inv = e.select(neg, e.sub(e.c(1.0), r), r);
  r = e.fma(rem, inv, r);
  return e.select(e.isNaN(x), x, r);
}

//===----------------------------------------------------------------------===//
// erf
//===----------------------------------------------------------------------===//

Value mathx::fastErf(Emitter &e, Value x) {
  // |x| <= kFastErfSplit: erf = x + x E(x^2).  Beyond: erf = 1 - erfc with
  // log2(erfc(a)) a polynomial L(a) on [split, 4] and 2^L by the exp2
  // polynomial (erfc > 2^-27 there: no subnormal scaling).  erf rounds to 1
  // from 3.92 on.
  Value a = atMost(e, e.abs(x), 4.0);
  Value small = e.fma(e.poly(e.mul(x, x), kFastErfEF32), x, x);
  Value l = e.poly(a, kFastErfcLF32);
  Rounded k = roundMagic(e, e.add(l, e.c(kMagic)));
  Value f = e.sub(l, k.kf);
  Value p = e.fma(e.poly(f, kFastExp2HF32), f, e.c(1.0));
  Value erfc = e.fromBits(e.iadd(e.bitsOf(p), k.kShifted));
  Value large = e.sub(e.c(1.0), erfc);
  large = e.fromBits(
      e.ior(e.bitsOf(large), e.iand(e.bitsOf(x), e.ci(INT32_MIN))));
  // NaN compares false: it takes `small`, which is NaN... so select x.
  Value r = e.select(e.le(a, e.c(kFastErfSplitF32)), small, large);
  return e.select(e.isNaN(x), x, r);
}

//===----------------------------------------------------------------------===//
// atan2
//===----------------------------------------------------------------------===//

Value mathx::fastAtan2(Emitter &e, Value y, Value x) {
  Value ax = e.abs(x), ay = e.abs(y);
  // a = min / max in [0, 1], correctly rounded (subnormal ratios too).
  Value swap = e.gt(ay, ax);
  Value mn = e.select(swap, ax, ay);
  Value mx = e.select(swap, ay, ax);
  Value a = e.div(mn, mx);
  // 0/0 (both zero) -> 0, inf/inf -> 1; NaN operands are selected at the end.
  a = e.select(e.isNaN(a), atMost(e, mn, 1.0), a);
  // atan(a) = a + a^3 A(a^2).
  Value s = e.mul(a, a);
  Value r = e.fma(e.mul(a, s), e.poly(s, kFastAtanAF32), a);
  // Octant: pi/2 - r, then pi - r for x < 0 (or -0), with the constants
  // as head + tail so that only the final additions round.
  r = e.select(swap, e.add(e.c(kPiOver2HiF32), e.sub(e.c(kPiOver2LoF32), r)),
               r);
  r = e.select(e.signBit(x), e.add(e.c(kPiHiF32), e.sub(e.c(kPiLoF32), r)),
               r);
  r = e.fromBits(e.ior(e.bitsOf(r), e.iand(e.bitsOf(y), e.ci(INT32_MIN))));
  r = e.select(e.isNaN(x), x, r);
  return e.select(e.isNaN(y), y, r); // the first NaN operand wins
}

//===----------------------------------------------------------------------===//
// pow
//===----------------------------------------------------------------------===//

Value mathx::fastPow(Emitter &e, Value x, Value y) {
  Value zero = e.c(0.0), one = e.c(1.0);
  Value ax = e.abs(x);
  Value finiteX = e.andB(e.gt(ax, zero), e.lt(ax, e.inf()));
  Value axs = e.select(finiteX, ax, one);
  auto [xs, eAdj] = scaleSubnormal(e, axs);
  // log2|x| = E + log2 c + log2(m / c) with m in [2^-1/4, 2^3/4), c = 1 or
  // sqrt(2) (from m >= 2^1/4), so that |s| <= 0.0865 for
  // s = (m - c) / (m + c) and log2(m / c) = 2 atanh(s) log2(e), and E +
  // log2 c (a multiple of 1/2) is 0 or at least twice the rest: no
  // cancellation.  log2|x| comes out as a double word to about 2^-31.
  Value bits = e.bitsOf(xs);
  Value eb = e.iand(e.isub(bits, e.ci(0x3f5744fd)), e.ci(-0x800000));
  Value m = e.fromBits(e.isub(bits, eb));
  Value upper = e.ge(m, e.c(0x1.306fe0p+0)); // 2^(1/4) rounded up
  Value cc = e.select(upper, e.c(kFastSqrt2F32), one);
  Value big = e.fma(e.add(e.toFloat(eb), eAdj), e.c(0x1p-23),
                    e.select(upper, e.c(0.5), zero)); // E + log2 c, exact
  Value num = e.sub(m, cc);                              // exact (Sterbenz)
  Value dh = e.add(cc, m);
  Value dl = e.sub(m, e.sub(dh, cc)); // exact: exponent(c) >= exponent(m)
  Value rcp = e.div(one, dh);
  Value sh = e.mul(num, rcp);
  Value rem = e.fma(e.neg(sh), dh, num);
  rem = e.fma(e.neg(sh), dl, rem);
  Value sl = e.mul(rem, rcp);
  // 2 atanh(s) = 2 sh + 2 sl (1 + z) + sh z Q(z), z = sh^2.
  Value z = e.mul(sh, sh);
  Value t = e.mul(e.mul(sh, z), e.poly(z, kFastPowQF32));
  t = e.fma(sl, e.fma(z, e.c(2.0), e.c(2.0)), t);
  // times log2(e) = L + l: (2 sh) L exactly as bh + e1, then the small
  // terms w (up to 2^-11 of bh) added with Fast2Sum: b = bh + bl.
  Value bh = e.mul(sh, e.c(2 * kLog2eHiF32));
  Value e1 = e.fma(sh, e.c(2 * kLog2eHiF32), e.neg(bh));
  Value w = e.fma(sh, e.c(2 * kLog2eLoF32), e1);
  w = e.fma(t, e.c(kLog2eHiF32), w);
  Value b = e.add(bh, w);
  Value bl = e.sub(w, e.sub(b, bh));
  // + big (Fast2Sum: |big| >= |b| or big = 0) + log2 c's tail.
  Value lh = e.add(big, b);
  Value ll = e.sub(b, e.sub(lh, big));
  ll = e.add(ll, e.add(bl, e.select(upper, e.c(kFastLog2Sqrt2LoF32), zero)));
  // y log2|x| as a double word; |y| beyond 2^35 over- or underflows
  // whenever log2|x| != 0 (then at least 2^-24 in magnitude).
  Value ys = e.clamp(y, -0x1p35, 0x1p35);
  Value th = e.mul(ys, lh);
  Value tl = e.fma(ys, lh, e.neg(th));
  tl = e.fma(ys, ll, tl);
  // 2^(th + tl): k = round(th), f = (th - k) + tl.
  // Clamped (the result over- or underflows), tl is dropped: it may be
  // large next to f.
  Value thc = atLeast(e, atMost(e, th, 129.0), -152.0);
  tl = e.select(e.eq(th, thc), tl, zero);
  Rounded k = roundMagic(e, e.add(thc, e.c(kMagic)));
  Value f = e.add(e.sub(thc, k.kf), tl);
  Value p = e.fma(e.poly(f, kFastExp2HF32), f, one);
  Value mag = scaleWide(e, p, k.kf, k.kShifted);

  return powSpecials(e, x, y, ax, mag, zero, one);
}
