//===- ExpLog.cpp - exp, exp2, expm1, log, log2, log1p, pow, tanh, sigmoid ===//
//
// One exponential core and one logarithm core, both carrying about twice the
// working precision (double-word arithmetic with fma), from which every
// function of the family is assembled.  docs/math.md explains each step.
//
//===----------------------------------------------------------------------===//

#include "MathInternal.h"
#include "fuser/Math/MathExpansion.h"

#include "mlir/IR/Location.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::mathx;

#include "Coefficients.inc"

#define COEFFS(name)                                                           \
  (e.f64 ? llvm::ArrayRef<double>(name##F64) : llvm::ArrayRef<double>(name##F32))
#define KONST(name) e.c(name##F32, name##F64)

namespace {
/// exp's argument reduction: x = k ln2 + (rh + rl), |rh| <= ln2/2 (+ ulp).
struct ExpReduced {
  Value kf, rh, rl;
};
} // namespace

// Clamp bounds of exp's argument: e^hi overflows and e^lo underflows to 0 in
// round-to-nearest, and 2^k stays representable in two steps.
static double expHi(const Emitter &e) { return e.f64 ? 710.0 : 89.0; }
static double expLo(const Emitter &e) { return e.f64 ? -746.0 : -104.0; }

static ExpReduced expReduce(Emitter &e, Value xh, Value xl) {
  Value kf = e.roundEven(e.mul(xh, KONST(kLog2eHi)));
  // ln2 = hi + lo with a short hi: k * hi is exact and so is xh - k * hi
  // (|k| < 2^11); the product k * lo is kept exactly as a double word.
  Value r1 = e.fma(e.neg(kf), KONST(kLn2ShortHi), xh);
  DD t = e.twoProd(kf, KONST(kLn2ShortLo));
  DD r = e.twoSum(r1, e.neg(t.hi));
  Value rl = e.add(e.sub(r.lo, t.lo), xl);
  return {kf, r.hi, rl};
}

DD mathx::expTail(Emitter &e, Value rh, Value rl) {
  // e^(rh + rl) = 1 + rh + rh^2/2 + rh^3 Q1(rh) + rl e^rh + O(rl^2), with
  // Q(r) = 1/2 + r Q1(r) (Q's constant is exactly 1/2).  rh^2/2 is exact as
  // a double word, so the rounding errors are those of the rh^3 term (up to
  // 0.1 of the tail).  rl is not always tiny next to rh: pow passes the low
  // word of y log|x| (up to 2^-44 in f64), so rl is multiplied by e^rh.
  llvm::ArrayRef<double> q = COEFFS(kExpQ);
  assert(q[0] == 0.5 && "exp polynomial must start with 1/2");
  DD r2 = e.twoProd(rh, rh);
  Value hi = e.mul(e.c(0.5), r2.hi);
  Value r3q = e.mul(e.mul(r2.hi, rh), e.poly(rh, q.drop_front()));
  Value er = e.add(e.add(e.c(1.0), rh), e.add(hi, r3q)); // e^rh to ~2^-p
  Value lo = e.add(r3q, e.fma(e.c(0.5), r2.lo, e.mul(rl, er)));
  return {hi, lo};
}

ExpParts mathx::expCore(Emitter &e, Value xh, Value xl) {
  ExpReduced r = expReduce(e, xh, xl);
  DD tail = expTail(e, r.rh, r.rl);
  DD one = e.fastTwoSum(e.c(1.0), r.rh);
  return {one.hi, e.add(e.add(one.lo, tail.lo), tail.hi), r.kf};
}

/// e^x - 1 as a double word, for x in [-50, expHi] (f64) or [-30, expHi].
static DD expm1DD(Emitter &e, Value xc) {
  ExpReduced r = expReduce(e, xc, e.c(0.0));
  DD tail = expTail(e, r.rh, r.rl);
  // k == 0: e^r - 1 = rh + tail, relative accuracy kept near 0.
  DD s0 = e.twoSum(r.rh, tail.hi);
  DD small = e.fastTwoSum(s0.hi, e.add(s0.lo, tail.lo));
  // k != 0: 2^k ((1 - 2^-k) + rh + tail), with 1 - 2^-k an exact double word.
  Value nk = e.neg(r.kf);
  double nkLo = e.f64 ? -200.0 : -100.0; // 2^-k below that is negligible
  nk = e.select(e.lt(nk, e.c(nkLo)), e.c(nkLo), nk);
  DD t = e.twoSum(e.c(1.0), e.neg(e.pow2(e.toInt(nk))));
  DD s = e.twoSum(t.hi, r.rh);
  DD s2 = e.twoSum(s.hi, tail.hi); // tail is up to 0.4 of the sum at k = 1
  DD sn = e.fastTwoSum(s2.hi, e.add(e.add(s2.lo, tail.lo), e.add(s.lo, t.lo)));
  DD big = {e.scale(sn.hi, r.kf), e.scale(sn.lo, r.kf)};
  Value k0 = e.eq(r.kf, e.c(0.0));
  return {e.select(k0, small.hi, big.hi), e.select(k0, small.lo, big.lo)};
}

LogParts mathx::logCore(Emitter &e, Value x) {
  int p = e.mant + 1;
  // Subnormals: scale into the normal range first (exact).
  Value sub = e.lt(x, e.c(std::ldexp(1.0, 1 - e.bias)));
  Value xs = e.select(sub, e.mul(x, e.c(std::ldexp(1.0, p))), x);
  Value eadj = e.select(sub, e.c(-p), e.c(0.0));
  // x = 2^ei m with m in [sqrt(1/2), sqrt(2)): subtracting the bits of
  // sqrt(1/2) makes the exponent field carry at m = sqrt(2).
  Value bits = e.bitsOf(xs);
  int64_t sqrtHalfBits = e.f64 ? 0x3fe6a09e667f3bcdLL : 0x3f3504f3LL;
  Value ei = e.shrs(e.isub(bits, e.ci(sqrtHalfBits)), e.ci(e.mant));
  Value m = e.fromBits(e.isub(bits, e.shl(ei, e.ci(e.mant))));
  Value ef = e.add(e.toFloat(ei), eadj);
  // log(m) = 2 atanh(s), s = f / (2 + f), f = m - 1 (exact).
  Value f = e.sub(m, e.c(1.0));
  DD den = e.fastTwoSum(e.c(2.0), f);
  Value rcp = e.div(e.c(1.0), den.hi);
  Value sh = e.mul(f, rcp);
  Value rem = e.fma(e.neg(sh), den.hi, f);
  Value sl = e.mul(e.fma(e.neg(sh), den.lo, rem), rcp);
  // 2 atanh(s) = 2s + 2/3 s^3 + s^5 P(s^2); the first two terms in double
  // words, the rest (< 2^-12 of the total) in working precision.
  DD z = e.twoProd(sh, sh);
  DD cube = e.twoProd(sh, z.hi);
  cube.lo = e.fma(sh, z.lo, cube.lo);
  DD tt = e.constDD(kTwoThirdsHiF32, kTwoThirdsLoF32, kTwoThirdsHiF64,
                    kTwoThirdsLoF64);
  DD t3 = e.twoProd(cube.hi, tt.hi);
  t3.lo = e.add(t3.lo, e.fma(cube.hi, tt.lo, e.mul(cube.lo, tt.hi)));
  t3.lo = e.fma(e.mul(e.c(2.0), z.hi), sl, t3.lo); // 2 s^2 sl
  // s^5 P(s^2) = c0 s^5 + s^7 P1(s^2): c0 s^5 (up to 2^-12.5 of the result)
  // in double words too, the rest (2^-17) in working precision.
  llvm::ArrayRef<double> lp = COEFFS(kLogP);
  DD s5 = e.twoProd(cube.hi, z.hi);
  s5.lo = e.fma(cube.hi, z.lo, e.fma(cube.lo, z.hi, s5.lo));
  DD c5 = e.twoProd(s5.hi, e.c(lp[0]));
  c5.lo = e.fma(s5.lo, e.c(lp[0]), c5.lo);
  Value rest = e.mul(e.mul(s5.hi, z.hi), e.poly(z.hi, lp.drop_front()));
  // Sum from the small terms up: 2s + (2/3 s^3 + c0 s^5) + low parts.
  DD a3 = e.fastTwoSum(t3.hi, c5.hi);
  DD a = e.fastTwoSum(e.mul(e.c(2.0), sh), a3.hi);
  // sl enters 2s, 2/3 s^3 (above) and c0 s^5: 5 c0 s^4 sl.
  Value sl5 = e.mul(e.mul(e.c(5 * lp[0]), e.mul(z.hi, z.hi)), sl);
  Value lo = e.add(e.add(c5.lo, rest), e.fma(e.c(2.0), sl, sl5));
  lo = e.add(a.lo, e.add(a3.lo, e.add(t3.lo, lo)));
  return {ef, a.hi, lo};
}

DD mathx::logDD(Emitter &e, const LogParts &l) {
  Value eh = e.mul(l.e, KONST(kLn2ShortHi)); // exact
  DD s = e.fastTwoSum(eh, l.hi);
  Value lo = e.add(s.lo, e.fma(l.e, KONST(kLn2ShortLo), l.lo));
  return e.fastTwoSum(s.hi, lo);
}

static Location locOf(const void *p) {
  return Location::getFromOpaquePointer(p);
}

//===----------------------------------------------------------------------===//
// exp, exp2, expm1
//===----------------------------------------------------------------------===//

Value MathBuilder::exp(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  if (fast(x))
    return fastExp(e, x);
  Value xc = e.clamp(x, expLo(e), expHi(e));
  ExpParts p = expCore(e, xc, e.c(0.0));
  Value r = e.scale(e.add(p.hi, p.lo), p.k);
  return e.select(e.isNaN(x), x, r);
}

Value MathBuilder::exp2(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  if (fast(x))
    return fastExp2(e, x);
  Value xc = e.f64 ? e.clamp(x, -1080.0, 1030.0) : e.clamp(x, -160.0, 130.0);
  Value kf = e.roundEven(xc);
  Value r = e.sub(xc, kf); // exact, |r| <= 1/2
  // r ln2 as a double word, then e^(r ln2) with the exp polynomial.
  DD ln2 = e.constDD(kLn2HiF32, kLn2LoF32, kLn2HiF64, kLn2LoF64);
  DD p = e.twoProd(r, ln2.hi);
  p.lo = e.fma(r, ln2.lo, p.lo);
  DD tail = expTail(e, p.hi, p.lo);
  DD one = e.fastTwoSum(e.c(1.0), p.hi);
  Value v = e.add(one.hi, e.add(e.add(one.lo, tail.lo), tail.hi));
  return e.select(e.isNaN(x), x, e.scale(v, kf));
}

Value MathBuilder::expm1(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  if (fast(x))
    return fastExpm1(e, x);
  Value xc = e.clamp(x, e.f64 ? -50.0 : -30.0, expHi(e));
  DD m = expm1DD(e, xc);
  Value r = e.add(m.hi, m.lo);
  r = e.select(e.eq(x, e.c(0.0)), x, r); // expm1(-0) = -0
  return e.select(e.isNaN(x), x, r);
}

//===----------------------------------------------------------------------===//
// log, log2, log1p
//===----------------------------------------------------------------------===//

/// The special cases shared by log and log2 (x = arg) and log1p (x = arg - 1).
static Value logSpecials(Emitter &e, Value r, Value x, double pole) {
  r = e.select(e.eq(x, e.c(pole)), e.neg(e.inf()), r);
  r = e.select(e.lt(x, e.c(pole)), e.nan(), r);
  r = e.select(e.eq(x, e.inf()), e.inf(), r);
  return e.select(e.isNaN(x), x, r);
}

Value MathBuilder::log(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  if (fast(x))
    return fastLog(e, x);
  Value ok = e.andB(e.gt(x, e.c(0.0)), e.lt(x, e.inf()));
  Value xs = e.select(ok, x, e.c(1.0));
  DD l = logDD(e, logCore(e, xs));
  return logSpecials(e, l.hi, x, 0.0);
}

Value MathBuilder::log2(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  if (fast(x))
    return fastLog2(e, x);
  Value ok = e.andB(e.gt(x, e.c(0.0)), e.lt(x, e.inf()));
  Value xs = e.select(ok, x, e.c(1.0));
  LogParts l = logCore(e, xs);
  // e + log(m) log2(e), the product in double words.
  DD l2e = e.constDD(kLog2eHiF32, kLog2eLoF32, kLog2eHiF64, kLog2eLoF64);
  DD m = e.twoProd(l.hi, l2e.hi);
  m.lo = e.add(m.lo, e.fma(l.hi, l2e.lo, e.mul(l.lo, l2e.hi)));
  DD s = e.fastTwoSum(l.e, m.hi);
  Value r = e.add(s.hi, e.add(s.lo, m.lo));
  return logSpecials(e, r, x, 0.0);
}

// 1 / ln 10 as a double word (hi + lo), for f32 and f64; computed with
// Python's decimal module to 60 digits.
static const double kLog10eHiF32 = 0x1.bcb7b20000000p-2, kLog10eLoF32 = -0x1.5b235e0000000p-27;
static const double kLog10eHiF64 = 0x1.bcb7b1526e50ep-2, kLog10eLoF64 = 0x1.95355baaafad3p-57;

Value MathBuilder::log10(Value x) {
  // One path for both tiers: the Fast tier's log times 1/ln 10 is just
  // over 2 ulp, and log10(10^k) should be k.
  Emitter e(builder, locOf(location), x.getType());
  Value ok = e.andB(e.gt(x, e.c(0.0)), e.lt(x, e.inf()));
  Value xs = e.select(ok, x, e.c(1.0));
  // log(x) as a double word times 1/ln 10 as one: log10(10^k) comes out
  // k exactly, as the C library's does.
  DD l = logDD(e, logCore(e, xs));
  DD c = e.constDD(kLog10eHiF32, kLog10eLoF32, kLog10eHiF64, kLog10eLoF64);
  DD m = e.twoProd(l.hi, c.hi);
  m.lo = e.add(m.lo, e.fma(l.hi, c.lo, e.mul(l.lo, c.hi)));
  return logSpecials(e, e.add(m.hi, m.lo), x, 0.0);
}

Value MathBuilder::log1p(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  if (fast(x))
    return fastLog1p(e, x);
  // 1 + x = u + c exactly; log(u + c) = log(u) + c/u.
  DD u = e.twoSum(e.c(1.0), x);
  Value ok = e.andB(e.gt(x, e.c(-1.0)), e.lt(x, e.inf()));
  Value us = e.select(ok, u.hi, e.c(1.0));
  Value cs = e.select(ok, u.lo, e.c(0.0));
  DD l = logDD(e, logCore(e, us));
  // c/u can be a fifth of the result (x just below 2^-p): add it with a
  // TwoSum, and its remainder (the 1/u factor of the remainder only matters
  // where c/u itself is negligible).
  Value q = e.div(cs, us);
  Value qe = e.fma(e.neg(q), us, cs);
  DD s = e.twoSum(l.hi, q);
  Value r = e.add(s.hi, e.add(s.lo, e.add(l.lo, qe)));
  r = e.select(e.eq(x, e.c(0.0)), x, r); // log1p(-0) = -0
  return logSpecials(e, r, x, -1.0);
}

//===----------------------------------------------------------------------===//
// pow
//===----------------------------------------------------------------------===//

/// pow's sign and special cases (C99 F.9.4.4) around `mag` = |x|^y, shared
/// by both tiers; `ax` = |x|, `zero` and `one` the caller's constants.
Value mathx::powSpecials(Emitter &e, Value x, Value y, Value ax, Value mag,
                         Value zero, Value one) {
  // Sign: negative for x < 0 (or -0) and y an odd integer.
  Value yInt = e.eq(e.trunc(y), y); // true for +-inf, false for NaN
  Value half = e.mul(y, e.c(0.5));
  Value yOdd = e.andB(yInt, e.ne(e.trunc(half), half));
  Value negRes = e.andB(e.signBit(x), yOdd);
  Value r = e.select(negRes, e.neg(mag), mag);

  // x = +-0 or +-inf (C99 F.9.4.4).
  Value yNeg = e.lt(y, zero);
  Value xZero = e.eq(ax, zero);
  Value edge = e.select(xZero, e.select(yNeg, e.inf(), zero),
                        e.select(yNeg, zero, e.inf()));
  edge = e.select(negRes, e.neg(edge), edge);
  r = e.select(e.orB(xZero, e.eq(ax, e.inf())), edge, r);
  // y = +-inf: 1 for |x| = 1, else +inf or +0.
  Value toInf = e.select(e.lt(ax, one), yNeg, e.notB(yNeg));
  Value yInfR = e.select(e.eq(ax, one), one, e.select(toInf, e.inf(), zero));
  r = e.select(e.isInf(y), yInfR, r);
  // Finite x < 0 and finite non-integer y.
  Value xNegFinite = e.andB(e.lt(x, zero), e.gt(x, e.neg(e.inf())));
  Value bad = e.andB(xNegFinite, e.andB(e.notB(yInt), e.isFinite(y)));
  r = e.select(bad, e.nan(), r);
  r = e.select(e.isNaN(y), y, r);
  r = e.select(e.isNaN(x), x, r);
  // pow(x, +-0) = 1 and pow(1, y) = 1, even for NaN.
  return e.select(e.orB(e.eq(y, zero), e.eq(x, one)), one, r);
}

Value MathBuilder::pow(Value x, Value y) {
  Emitter e(builder, locOf(location), x.getType());
  assert(x.getType() == y.getType() && "pow operands differ in type");
  if (fast(x))
    return fastPow(e, x, y);
  Value zero = e.c(0.0), one = e.c(1.0);
  Value ax = e.abs(x);
  Value finiteX = e.andB(e.gt(ax, zero), e.lt(ax, e.inf()));
  Value axs = e.select(finiteX, ax, one);
  // |y| beyond 2^(p+11) over- or underflows whenever log|x| != 0 (which is
  // then at least 2^-p in magnitude), so clamping keeps y log|x| finite.
  double yBig = std::ldexp(1.0, e.mant + 12);
  Value ys = e.clamp(y, -yBig, yBig);
  // y log|x| as a double word: log|x| to about 2^-(2p-8) relative.
  DD l = logDD(e, logCore(e, axs));
  DD prod = e.twoProd(ys, l.hi);
  prod.lo = e.fma(ys, l.lo, prod.lo);
  Value over = e.gt(prod.hi, e.c(expHi(e)));
  Value under = e.lt(prod.hi, e.c(expLo(e)));
  Value ph = e.select(over, e.c(expHi(e)),
                      e.select(under, e.c(expLo(e)), prod.hi));
  Value pl = e.select(e.orB(over, under), zero, prod.lo);
  ExpParts ex = expCore(e, ph, pl);
  Value mag = e.scale(e.add(ex.hi, ex.lo), ex.k);

  return powSpecials(e, x, y, ax, mag, zero, one);
}

//===----------------------------------------------------------------------===//
// tanh, sigmoid
//===----------------------------------------------------------------------===//

/// (nh + nl) / (dh + dl) to about twice the precision, rounded once.
static Value divDD(Emitter &e, Value nh, Value nl, Value dh, Value dl) {
  Value rcp = e.div(e.c(1.0), dh);
  Value qh = e.mul(nh, rcp);
  Value rem = e.sub(e.fma(e.neg(qh), dh, nh), e.mul(qh, dl));
  Value ql = e.mul(e.add(rem, nl), rcp);
  return e.add(qh, ql);
}

Value MathBuilder::tanh(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  if (fast(x))
    return fastTanh(e, x);
  // tanh|x| = -t / (2 + t), t = expm1(-2|x|) in (-1, 0]: no cancellation.
  Value ax = e.abs(x);
  Value a2 = e.clamp(e.mul(ax, e.c(-2.0)), e.f64 ? -50.0 : -30.0, 0.0);
  DD t = expm1DD(e, a2);
  DD d = e.fastTwoSum(e.c(2.0), t.hi);
  d.lo = e.add(d.lo, t.lo);
  Value r = divDD(e, e.neg(t.hi), e.neg(t.lo), d.hi, d.lo);
  r = e.copySign(r, x);
  return e.select(e.isNaN(x), x, r);
}

Value MathBuilder::sigmoid(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  if (fast(x))
    return fastSigmoid(e, x);
  // u = e^-|x| in (0, 1]: sigmoid = 1 / (1 + u) for x >= 0 and
  // u / (1 + u) for x < 0; u never overflows.
  Value a = e.clamp(e.neg(e.abs(x)), expLo(e), 0.0);
  ExpParts u = expCore(e, a, e.c(0.0));
  DD un = e.fastTwoSum(u.hi, u.lo); // divDD wants normalized double words
  u.hi = un.hi;
  u.lo = un.lo;
  Value uh = e.scale(u.hi, u.k), ul = e.scale(u.lo, u.k);
  DD d = e.fastTwoSum(e.c(1.0), uh);
  d.lo = e.add(d.lo, ul);
  Value negX = e.lt(x, e.c(0.0));
  Value nh = e.select(negX, u.hi, e.c(1.0));
  Value nl = e.select(negX, u.lo, e.c(0.0));
  Value q = divDD(e, nh, nl, d.hi, d.lo);
  Value r = e.scale(q, e.select(negX, u.k, e.c(0.0)));
  return e.select(e.isNaN(x), x, r);
}
