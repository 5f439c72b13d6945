//===- Derived.cpp - tan, the inverse trig and the hyperbolic functions ---===//
//
// Functions composed from the library's core expansions (sin, cos, atan2,
// exp, expm1, log, log1p) with the classic formulas that keep them accurate
// where a naive one cancels (sinh near 0 through expm1, asin near 1 through
// (1 - x)(1 + x), asinh and atanh through log1p). Each core call takes the
// builder's tier, so the composition inherits Fast or Precise; its error is
// the composition's, a few ulp (docs/math.md measures each), not the tier's
// single bound. No control flow: every branch is a select.
//
//===----------------------------------------------------------------------===//

#include "MathInternal.h"
#include "fuser/Math/MathExpansion.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::mathx;

static Location locOf(const void *p) { return Location::getFromOpaquePointer(p); }

/// A NaN operand comes back as it is (bit for bit, as from every core
/// function); `r` otherwise.
static Value keepNaN(Emitter &e, Value x, Value r) { return e.select(e.isNaN(x), x, r); }

/// Where e^-2a is below a quarter of an ulp of 1: from there on sinh and
/// cosh of a are e^a / 2 to within rounding.
static double bigHyperbolic(const Emitter &e) { return e.f64 ? 24.0 : 12.0; }

/// Where 1 / (4 a^2) is negligible beside log(2a): asinh(a) and acosh(a)
/// are log(a) + ln 2 from there on, and a^2 cannot overflow before it.
static double bigInverseHyperbolic(const Emitter &e) { return e.f64 ? 0x1p28 : 0x1p12; }

static const double kLn2 = 0x1.62e42fefa39efp-1;

/// sqrt(x) from arithmetic alone: upstream convert-gpu-to-nvvm routes
/// llvm.intr.sqrt to libdevice (docs/math.md), which the library never
/// calls. 1/sqrt from the exponent bits (the classic magic constant),
/// Newton steps to full precision, then s = x y and one correction
/// s + (x - s^2) y / 2 with the residual from an fma: within a hair of
/// correct rounding. Subnormal x is scaled by an even power of 2 first.
static Value sqrtArith(Emitter &e, Value x) {
  double tiny = e.f64 ? 0x1p-1000 : 0x1p-100;
  double up = e.f64 ? 0x1p128 : 0x1p64, down = e.f64 ? 0x1p-64 : 0x1p-32;
  Value small = e.lt(x, e.c(tiny));
  Value xs = e.select(small, e.mul(x, e.c(up)), x);
  int64_t magic = e.f64 ? 0x5fe6eb50c7b537a9LL : 0x5f3759df;
  Value y = e.fromBits(e.isub(e.ci(magic), e.shru(e.bitsOf(xs), e.ci(1))));
  Value half = e.mul(xs, e.c(0.5));
  for (int i = 0, n = e.f64 ? 5 : 3; i < n; ++i)
    y = e.mul(y, e.fma(e.neg(half), e.mul(y, y), e.c(1.5)));
  Value s = e.mul(xs, y);
  Value r = e.fma(e.neg(s), s, xs);
  s = e.fma(r, e.mul(y, e.c(0.5)), s);
  s = e.select(small, e.mul(s, e.c(down)), s);
  s = e.select(e.eq(x, e.c(0.0)), x, s);
  s = e.select(e.eq(x, e.inf()), x, s);
  s = e.select(e.lt(x, e.c(0.0)), e.nan(), s);
  return keepNaN(e, x, s);
}

/// r >= 0 with x's sign: -r for x < 0, x itself for x = +-0. By compares,
/// not by the bits (Emitter::copySign): with the bit version, the CPU
/// emulation's JIT for AVX-512 hosts (skylake-avx512, znver4) gave garbage
/// for sinh and asinh of a bf16 input (a widened bf16, then its bits
/// masked twice), and the right values for haswell, znver3 and the
/// baseline; an AVX-512 code generation problem we did not isolate
/// (test/tools/fuserc/avx512-sign.test keeps the case).
static Value withSignOf(Emitter &e, Value r, Value x) {
  Value zero = e.c(0.0);
  return e.select(e.lt(x, zero), e.neg(r), e.select(e.eq(x, zero), x, r));
}

Value MathBuilder::tan(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  // Both reductions are exact (Payne-Hanek for large arguments), so cos is
  // accurate relative to itself even next to a pole.
  return keepNaN(e, x, e.div(sin(x), cos(x)));
}

Value MathBuilder::atan(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  return atan2(x, e.c(1.0));
}

/// sqrt((1 - x)(1 + x)) for |x| <= 1: 1 - x is exact where it matters
/// (x near 1), so no cancellation.
static Value cosOfAsin(Emitter &e, Value x) {
  Value one = e.c(1.0);
  Value p = e.mul(e.sub(one, x), e.add(one, x));
  return e.select(e.lt(p, e.c(0.0)), e.c(0.0), sqrtArith(e, p));
}

Value MathBuilder::asin(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  Value r = atan2(x, cosOfAsin(e, x));
  r = e.select(e.gt(e.abs(x), e.c(1.0)), e.nan(), r);
  return keepNaN(e, x, r);
}

Value MathBuilder::acos(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  Value r = atan2(cosOfAsin(e, x), x);
  r = e.select(e.gt(e.abs(x), e.c(1.0)), e.nan(), r);
  return keepNaN(e, x, r);
}

/// e^a / 2 for large a, as (e^(a/2) / 2) e^(a/2): overflows only where the
/// result does.
static Value halfExpBig(MathBuilder &m, Emitter &e, Value a) {
  Value h = m.exp(e.mul(a, e.c(0.5)));
  return e.mul(e.mul(h, e.c(0.5)), h);
}

Value MathBuilder::sinh(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  Value a = e.abs(x);
  // (e^a - e^-a) / 2 = (t + t / (t + 1)) / 2 with t = e^a - 1: no
  // cancellation near 0.
  Value small = e.select(e.lt(a, e.c(bigHyperbolic(e))), a, e.c(0.0));
  Value t = expm1(small);
  Value s = e.mul(e.c(0.5), e.add(t, e.div(t, e.add(t, e.c(1.0)))));
  Value r = e.select(e.lt(a, e.c(bigHyperbolic(e))), s, halfExpBig(*this, e, a));
  return keepNaN(e, x, withSignOf(e, r, x));
}

Value MathBuilder::cosh(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  Value a = e.abs(x);
  Value small = e.select(e.lt(a, e.c(bigHyperbolic(e))), a, e.c(0.0));
  Value u = exp(small);
  Value c = e.mul(e.c(0.5), e.add(u, e.div(e.c(1.0), u)));
  Value r = e.select(e.lt(a, e.c(bigHyperbolic(e))), c, halfExpBig(*this, e, a));
  return keepNaN(e, x, r);
}

Value MathBuilder::asinh(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  Value a = e.abs(x);
  Value big = e.ge(a, e.c(bigInverseHyperbolic(e)));
  // log(a + sqrt(a^2 + 1)) = log1p(a + a^2 / (1 + sqrt(1 + a^2))).
  Value as = e.select(big, e.c(1.0), a);
  Value a2 = e.mul(as, as);
  Value root = sqrtArith(e, e.add(e.c(1.0), a2));
  Value mid = log1p(e.add(as, e.div(a2, e.add(e.c(1.0), root))));
  Value far = e.add(log(e.select(big, a, e.c(1.0))), e.c(kLn2));
  Value r = e.select(big, far, mid);
  return keepNaN(e, x, withSignOf(e, r, x));
}

Value MathBuilder::acosh(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  Value big = e.ge(x, e.c(bigInverseHyperbolic(e)));
  // log(x + sqrt(x^2 - 1)) = log1p(t + sqrt(2t + t^2)), t = x - 1 (exact
  // for x in [1, 2]).
  Value xs = e.select(big, e.c(1.0), x);
  Value t = e.sub(xs, e.c(1.0));
  Value p = e.fma(t, t, e.add(t, t));
  Value root = sqrtArith(e, e.select(e.lt(p, e.c(0.0)), e.c(0.0), p));
  Value mid = log1p(e.add(t, root));
  Value far = e.add(log(e.select(big, x, e.c(1.0))), e.c(kLn2));
  Value r = e.select(big, far, mid);
  r = e.select(e.lt(x, e.c(1.0)), e.nan(), r);
  return keepNaN(e, x, r);
}

Value MathBuilder::atanh(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  Value a = e.abs(x);
  Value one = e.c(1.0);
  Value twoA = e.add(a, a);
  Value d = e.sub(one, a);
  // 1/2 log((1 + a) / (1 - a)) = 1/2 log1p(2a / (1 - a)); below 1/2 as
  // 1/2 log1p(2a + 2a^2 / (1 - a)), which keeps the small a's bits.
  Value small = e.add(twoA, e.div(e.mul(twoA, a), d));
  Value large = e.div(twoA, d);
  Value r = withSignOf(e, e.mul(e.c(0.5), log1p(e.select(e.lt(a, e.c(0.5)), small, large))), x);
  r = e.select(e.gt(a, one), e.nan(), r);
  return keepNaN(e, x, r);
}
