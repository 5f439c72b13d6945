//===- TrigErf.cpp - sin, cos, atan2, erf ---------------------------------===//
//
// sin and cos reduce their argument with a branch-free Payne-Hanek reduction
// (integer arithmetic on the bits of 2/pi, picked by select chains), valid
// for every finite input; atan2 reduces to atan on [0, 7/16] with one
// division; erf is a polynomial near 0 and 1 - exp(-x^2) G(x) beyond.
//
//===----------------------------------------------------------------------===//

#include "MathInternal.h"
#include "fuser/Math/MathExpansion.h"
#include "fuser/Math/RareHelper.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::mathx;

#include "Coefficients.inc"

#define COEFFS(name)                                                           \
  (e.f64 ? llvm::ArrayRef<double>(name##F64) : llvm::ArrayRef<double>(name##F32))
#define KONST(name) e.c(name##F32, name##F64)

static Location locOf(const void *p) {
  return Location::getFromOpaquePointer(p);
}

//===----------------------------------------------------------------------===//
// Payne-Hanek reduction
//===----------------------------------------------------------------------===//

namespace {
/// x = (4j + q) pi/2 + (rh + rl), |rh + rl| <= pi/4 (about).
struct TrigReduced {
  Value q; // integer of type e.ity, in [0, 3]
  Value rh, rl;
};
} // namespace

/// Picks table[index + k] for k = 0..n-1, sharing the index comparisons.
static SmallVector<Value> pickWindow(Emitter &e, Value index,
                                     llvm::ArrayRef<int64_t> table, int n,
                                     int maxIndex, Type intTy) {
  SmallVector<Value> isIdx;
  for (int j = 0; j <= maxIndex; ++j)
    isIdx.push_back(
        e.icmp(arith::CmpIPredicate::eq, index, e.ci(j, index.getType())));
  SmallVector<Value> out;
  for (int k = 0; k < n; ++k) {
    Value r = e.ci(table[k], intTy);
    for (int j = 1; j <= maxIndex; ++j)
      r = e.select(isIdx[j], e.ci(table[j + k], intTy), r);
    out.push_back(r);
  }
  return out;
}

/// Payne-Hanek for f64: |x| = m 2^E with m a 53-bit integer.  Only the bits
/// j >= E - 1 of 2/pi = sum b_j 2^-j matter modulo 4; a window of 192 bits
/// from there (three 64-bit words, funnel-shifted out of four table words)
/// times m gives x 2/pi mod 4 as a fixed-point number with 2 integer bits and
/// 126 fraction bits: enough for the closest double to a multiple of pi/2
/// (2^-61 away relative).
static TrigReduced payneHanek64(Emitter &e, Value ax) {
  Type i64 = e.ity;
  Value bits = e.bitsOf(ax);
  Value biased = e.shru(bits, e.ci(52));
  Value m = e.ior(e.iand(bits, e.ci((1LL << 52) - 1)), e.ci(1LL << 52));
  // Bit offset of b_(E-1) in the stream T[0] T[1] ..., T[0] = 0 standing for
  // the (zero) bits b_-63..b_0:  (E - 1) + 63 with E = biased - 1075.
  Value q0 = e.isub(biased, e.ci(1013));
  q0 = e.select(e.icmp(arith::CmpIPredicate::slt, q0, e.ci(0)), e.ci(0), q0);
  q0 = e.select(e.icmp(arith::CmpIPredicate::sgt, q0, e.ci(1033)),
                e.ci(1033), q0);
  Value idx = e.shru(q0, e.ci(6));
  Value sh = e.iand(q0, e.ci(63));
  Value rsh = e.isub(e.ci(63), sh);
  SmallVector<int64_t> table = {0};
  for (unsigned long long w : kTwoOverPi64)
    table.push_back(static_cast<int64_t>(w));
  SmallVector<Value> t = pickWindow(e, idx, table, 4, 16, i64);
  auto word = [&](int k) {
    // (T[k] << sh) | (T[k+1] >> (64 - sh)), without a shift by 64.
    return e.ior(e.shl(t[k], sh), e.shru(e.shru(t[k + 1], e.ci(1)), rsh));
  };
  Value w0 = word(0), w1 = word(1), w2 = word(2);
  // P = m (w0 2^128 + w1 2^64 + w2); x 2/pi mod 4 = (P mod 2^192) 2^-190.
  auto [l2, h2] = e.mulExtended(m, w2);
  auto [l1, h1] = e.mulExtended(m, w1);
  Value l0 = e.imul(m, w0);
  Value p1 = e.iadd(h2, l1);
  Value c1 = e.zext(e.icmp(arith::CmpIPredicate::ult, p1, h2), i64);
  Value p2 = e.iadd(e.iadd(h1, l0), c1);
  // Quadrant: bits 63..62 of p2, rounded by the next bit (the fraction is
  // centred on 0).  Fraction: the 128 bits below, as a signed number.
  Value q = e.iand(e.shru(e.iadd(p2, e.ci(1LL << 61)), e.ci(62)), e.ci(3));
  Value fHi = e.ior(e.shl(p2, e.ci(2)), e.shru(p1, e.ci(62)));
  Value fLo = e.ior(e.shl(p1, e.ci(2)), e.shru(l2, e.ci(62)));
  // Exact conversion in 53 + 53 + 22 bit pieces.
  Value a0 = e.toFloat(e.shrs(fHi, e.ci(11)));
  Value a1 = e.toFloat(e.ior(e.shl(e.iand(fHi, e.ci(0x7ff)), e.ci(42)),
                             e.shru(fLo, e.ci(22))));
  Value a2 = e.toFloat(e.iand(fLo, e.ci(0x3fffff)));
  DD f = e.twoSum(e.mul(a0, e.c(0x1p-53)), e.mul(a1, e.c(0x1p-106)));
  f = e.fastTwoSum(f.hi, e.fma(a2, e.c(0x1p-128), f.lo));
  // r = f pi/2.
  DD pio2 = e.constDD(kPiOver2HiF32, kPiOver2LoF32, kPiOver2HiF64,
                      kPiOver2LoF64);
  DD r = e.twoProd(f.hi, pio2.hi);
  r.lo = e.add(r.lo, e.fma(f.hi, pio2.lo, e.mul(f.lo, pio2.hi)));
  return {q, r.hi, r.lo};
}

/// Payne-Hanek for f32: |x| = m 2^E with m a 24-bit integer; a 96-bit window
/// of 2/pi (three 32-bit words) times m in 64-bit integer arithmetic.
static TrigReduced payneHanek32(Emitter &e, Value ax) {
  Type i32 = e.ity, i64 = e.intType(64);
  Value bits = e.bitsOf(ax);
  Value biased = e.shru(bits, e.ci(23));
  Value m = e.ior(e.iand(bits, e.ci(0x7fffff)), e.ci(0x800000));
  // (E - 1) + 31 with E = biased - 150.
  Value q0 = e.isub(biased, e.ci(120));
  q0 = e.select(e.icmp(arith::CmpIPredicate::slt, q0, e.ci(0)), e.ci(0), q0);
  q0 = e.select(e.icmp(arith::CmpIPredicate::sgt, q0, e.ci(134)), e.ci(134),
                q0);
  Value idx = e.shru(q0, e.ci(5));
  Value sh = e.iand(q0, e.ci(31));
  Value rsh = e.isub(e.ci(31), sh);
  SmallVector<int64_t> table = {0};
  for (unsigned w : kTwoOverPi32)
    table.push_back(static_cast<int32_t>(w));
  SmallVector<Value> t = pickWindow(e, idx, table, 4, 4, i32);
  auto word = [&](int k) {
    Value w = e.ior(e.shl(t[k], sh), e.shru(e.shru(t[k + 1], e.ci(1)), rsh));
    return e.zext(w, i64);
  };
  Value m64 = e.zext(m, i64);
  Value p0 = e.imul(m64, word(0));
  Value p1 = e.imul(m64, word(1));
  Value p2 = e.imul(m64, word(2));
  // P = p0 2^64 + p1 2^32 + p2; x 2/pi mod 4 = (P mod 2^96) 2^-94.
  // y = bits 95..32 of P.
  Value c32 = e.ci(32, i64);
  Value y = e.iadd(e.iadd(e.shl(p0, c32), p1), e.shru(p2, c32));
  Value q = e.itrunc(
      e.iand(e.shru(e.iadd(y, e.ci(1LL << 61, i64)), e.ci(62, i64)),
             e.ci(3, i64)),
      i32);
  // Signed fraction: f = y << 2 (64 bits) then the low 32 bits of p2.
  Value f = e.shl(y, e.ci(2, i64));
  Value a0 = e.toFloat(e.shrs(f, e.ci(40, i64)));
  Value a1 = e.toFloat(e.iand(e.shru(f, e.ci(16, i64)), e.ci(0xffffff, i64)));
  Value a2 = e.toFloat(e.iand(f, e.ci(0xffff, i64)));
  Value a3 = e.toFloat(e.shru(e.iand(p2, e.ci(0xffffffffLL, i64)),
                              e.ci(8, i64)));
  DD fr = e.twoSum(e.mul(a0, e.c(0x1p-24)), e.mul(a1, e.c(0x1p-48)));
  Value lo = e.fma(a2, e.c(0x1p-64), e.mul(a3, e.c(0x1p-86)));
  fr = e.fastTwoSum(fr.hi, e.add(fr.lo, lo));
  DD pio2 = e.constDD(kPiOver2HiF32, kPiOver2LoF32, kPiOver2HiF64,
                      kPiOver2LoF64);
  DD r = e.twoProd(fr.hi, pio2.hi);
  r.lo = e.add(r.lo, e.fma(fr.hi, pio2.lo, e.mul(fr.lo, pio2.hi)));
  return {q, r.hi, r.lo};
}

static TrigReduced trigReduce(Emitter &e, Value x) {
  // Inf and NaN are replaced (their results are selected later).
  Value xs = e.select(e.isFinite(x), x, e.c(0.0));
  Value ax = e.abs(xs);
  TrigReduced ph = e.f64 ? payneHanek64(e, ax) : payneHanek32(e, ax);
  // Negative x: x = -(4j + q) pi/2 - r.
  Value neg = e.lt(xs, e.c(0.0));
  Value q = e.select(neg, e.iand(e.isub(e.ci(0), ph.q), e.ci(3)), ph.q);
  Value rh = e.select(neg, e.neg(ph.rh), ph.rh);
  Value rl = e.select(neg, e.neg(ph.rl), ph.rl);
  // |x| < pi/4: no reduction at all.
  Value small = e.lt(ax, e.c(0.78539818525314331, 0.78539816339744828));
  return {e.select(small, e.ci(0), q), e.select(small, xs, rh),
          e.select(small, e.c(0.0), rl)};
}

namespace {
struct SinCos {
  Value sin, cos;
};
} // namespace

/// sin and cos of rh + rl for |rh| <= pi/4.
static SinCos sinCosKernel(Emitter &e, Value rh, Value rl) {
  Value z = e.mul(rh, rh);
  Value half = e.c(0.5);
  // sin(rh + rl) = rh + rh^3 S(rh^2) + rl (1 - rh^2/2).
  Value s = e.poly(z, COEFFS(kSinS));
  Value sinCorr =
      e.fma(e.mul(rh, z), s, e.fma(rl, e.mul(e.c(-0.5), z), rl));
  Value sinV = e.add(rh, sinCorr);
  // cos(rh + rl) = 1 - (z + zl)/2 + z^2 C(z) - rh rl, with w = 1 - z/2
  // rounded and its rounding error put back into the tail.
  Value zl = e.fma(rh, rh, e.neg(z));
  Value hz = e.mul(half, z);
  Value w = e.sub(e.c(1.0), hz);
  Value cpoly = e.poly(z, COEFFS(kCosC));
  Value corr = e.fma(rh, rl, e.mul(half, zl));
  Value tail = e.fma(e.mul(z, z), cpoly, e.neg(corr));
  Value cosV = e.add(w, e.add(e.sub(e.sub(e.c(1.0), w), hz), tail));
  return {sinV, cosV};
}

/// sin (cosine = false) or cos of x, from the quadrant and the kernels.
static Value sinOrCos(Emitter &e, Value x, bool cosine) {
  TrigReduced red = trigReduce(e, x);
  SinCos k = sinCosKernel(e, red.rh, red.rl);
  Value q = cosine ? e.iadd(red.q, e.ci(1)) : red.q;
  Value odd = e.icmp(arith::CmpIPredicate::ne, e.iand(q, e.ci(1)), e.ci(0));
  Value flip = e.icmp(arith::CmpIPredicate::ne, e.iand(q, e.ci(2)), e.ci(0));
  Value v = e.select(odd, k.cos, k.sin);
  v = e.select(flip, e.neg(v), v);
  if (!cosine)
    v = e.select(e.eq(x, e.c(0.0)), x, v); // sin(-0) = -0
  v = e.select(e.isFinite(x), v, e.nan());
  return e.select(e.isNaN(x), x, v);
}

//===----------------------------------------------------------------------===//
// sin and cos, Fast tier
//===----------------------------------------------------------------------===//

/// sin (cosine = false) or cos of x = (4j + q) pi/2 + r, |r| <= pi/4 (about),
/// with single-precision polynomials.
static Value fastTrigKernel(Emitter &e, Value x, Value q, Value r,
                            bool cosine) {
  Value z = e.mul(r, r);
  // sin r = r + r^3 S(z); cos r = 1 - z/2 + z^2 C(z).
  Value sinV = e.fma(e.mul(r, z), e.poly(z, kFastSinSF32), r);
  Value c = e.fma(e.poly(z, kFastCosCF32), z, e.c(-0.5));
  Value cosV = e.fma(c, z, e.c(1.0));
  if (cosine)
    q = e.iadd(q, e.ci(1));
  Value odd = e.icmp(arith::CmpIPredicate::ne, e.iand(q, e.ci(1)), e.ci(0));
  Value flip = e.icmp(arith::CmpIPredicate::ne, e.iand(q, e.ci(2)), e.ci(0));
  Value v = e.select(odd, cosV, sinV);
  v = e.select(flip, e.neg(v), v);
  if (!cosine) // sin(-0) = -0 (r + r^3 S gives +0)
    v = e.select(e.eq(x, e.c(0.0)), x, v);
  return v;
}

/// Cody-Waite: j = round(x 2/pi), r = x - j pi/2 with pi/2 in three parts
/// (fma steps); the quadrant j mod 4 from the bits of the rounding sum.
/// Within 0.5 ulp of the exact reduction for |x| <= 105615 (checked on
/// every such float by the exhaustive accuracy test).
static TrigReduced codyWaite(Emitter &e, Value x) {
  Value t = e.fma(x, e.c(0x1.45f306p-1), e.c(0x1.8p23));
  Value j = e.sub(t, e.c(0x1.8p23));
  Value r = e.fma(j, e.c(-0x1.921fb0p+0), x);
  r = e.fma(j, e.c(-0x1.5110b4p-22), r);
  r = e.fma(j, e.c(-0x1.846988p-48), r);
  return {e.iand(e.bitsOf(t), e.ci(3)), r, Value()};
}

/// The rare path of the Fast tier's sin and cos, for every lane of x:
/// Cody-Waite where |x| <= 105615, the Payne-Hanek reduction of the Precise
/// tier beyond, and the special values.
static Value fastSinOrCosRare(Emitter &e, Value x, Value huge, bool cosine) {
  TrigReduced cw = codyWaite(e, x);
  TrigReduced ph = trigReduce(e, x);
  Value q = e.select(huge, ph.q, cw.q);
  Value r = e.select(huge, e.add(ph.rh, ph.rl), cw.rh);
  Value v = fastTrigKernel(e, x, q, r, cosine);
  v = e.select(e.isFinite(x), v, e.nan());
  return e.select(e.isNaN(x), x, v);
}

static Value isHuge(Emitter &e, Value x) {
  return arith::CmpFOp::create(e.b, e.loc, arith::CmpFPredicate::UGT, e.abs(x),
                               e.c(105615.0));
}

/// The rare path as a helper beside the kernels (RareHelper.h), made once
/// per function, type and module: `__fuser_sin_rare_f32(x) -> sin(x)`,
/// scalar (a vector calls it lane by lane). Null where the insertion point
/// is not inside a function of a symbol table; the caller then inlines the
/// path.
///
/// Why a function: the rare path is about 600 instructions a vector (the
/// Payne-Hanek reduction is select chains over the bits of 2/pi), and
/// inlined at every sin it was most of LLVM's work: a chain of 100 sins
/// took 4 s to compile, 1000 sins 68 s (bench/results/compile-scaling.md).
/// Whether a function called only once is inlined is LLVM's inliner's call
/// (fuser-serialize-kernels marks the others noinline).
static func::FuncOp fastSinOrCosRareFunction(Emitter &e, bool cosine) {
  Type f32 = getElementTypeOrSelf(e.ty);
  return getOrCreateRareHelper(
      e.b, e.loc, cosine ? "__fuser_cos_rare_f32" : "__fuser_sin_rare_f32",
      e.b.getFunctionType({f32}, {f32}), [&](OpBuilder &b, Block &entry) {
        Emitter fe(b, e.loc, f32);
        Value x = entry.getArgument(0);
        return SmallVector<Value>{fastSinOrCosRare(fe, x, isHuge(fe, x), cosine)};
      });
}

/// Cody-Waite for |x| <= 105615.  Beyond, and for inf and NaN, a branch
/// (rarely taken, uniform in the sense that a whole vector takes it) calls
/// the rare path above; the common path is then straight-line code without
/// the Payne-Hanek reduction or the special values.
Value mathx::fastSinOrCos(Emitter &e, Value x, bool cosine) {
  Value huge = isHuge(e, x);
  Value any = huge;
  if (isa<VectorType>(x.getType()))
    any = vector::ReductionOp::create(e.b, e.loc, vector::CombiningKind::OR,
                                      huge);
  func::FuncOp rare = fastSinOrCosRareFunction(e, cosine);
  auto ifOp = scf::IfOp::create(e.b, e.loc, TypeRange{x.getType()}, any,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(e.b);
  {
    e.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value v;
    if (!rare)
      v = fastSinOrCosRare(e, x, huge, cosine);
    else
      v = callLaneByLane(e.b, e.loc, rare, ValueRange{x});
    scf::YieldOp::create(e.b, e.loc, v);
  }
  {
    e.b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    TrigReduced cw = codyWaite(e, x);
    scf::YieldOp::create(e.b, e.loc,
                         fastTrigKernel(e, x, cw.q, cw.rh, cosine));
  }
  return ifOp.getResult(0);
}

Value MathBuilder::sin(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  if (fast(x))
    return fastSinOrCos(e, x, /*cosine=*/false);
  return sinOrCos(e, x, /*cosine=*/false);
}

Value MathBuilder::cos(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  if (fast(x))
    return fastSinOrCos(e, x, /*cosine=*/true);
  return sinOrCos(e, x, /*cosine=*/true);
}

//===----------------------------------------------------------------------===//
// atan2
//===----------------------------------------------------------------------===//

Value MathBuilder::atan2(Value y, Value x) {
  Emitter e(builder, locOf(location), x.getType());
  assert(x.getType() == y.getType() && "atan2 operands differ in type");
  if (fast(x))
    return fastAtan2(e, y, x);
  Value zero = e.c(0.0), one = e.c(1.0);
  Value ax = e.abs(x), ay = e.abs(y);
  // theta = atan(n / d) in [0, pi/4] with n = min, d = max.
  Value swap = e.gt(ay, ax);
  Value n = e.select(swap, ax, ay);
  Value d = e.select(swap, ay, ax);
  Value bothInf = e.andB(e.isInf(x), e.isInf(y));
  n = e.select(bothInf, one, n); // atan(1): the +-pi/4, +-3pi/4 cases
  d = e.select(bothInf, one, d);
  Value ratio0 = e.orB(e.orB(e.eq(d, e.inf()), e.eq(d, zero)),
                       e.orB(e.isNaN(x), e.isNaN(y)));
  n = e.select(ratio0, zero, n);
  d = e.select(ratio0, one, d);
  // Keep d + n from overflowing (divide by 4: n loses bits only when the
  // result underflows to 0 anyway) and n, d away from subnormals (exactness
  // of d/2 and of the remainders; multiplying by 2^k is exact).
  double big = std::ldexp(1.0, e.bias - 1);
  double tiny = e.f64 ? 0x1p-600 : 0x1p-64;
  Value factor =
      e.select(e.ge(d, e.c(big)), e.c(0.25),
               e.select(e.lt(d, e.c(tiny)), e.c(1.0 / tiny), one));
  n = e.mul(n, factor);
  d = e.mul(d, factor);
  // atan(n/d) = atan(c) + atan((n - c d) / (d + c n)) with c in {0, 1/2, 1}
  // so that |t| <= 7/16; n - c d is exact (Sterbenz) and d + c n is kept
  // as a double word.
  Value ge7 = e.ge(n, e.mul(d, e.c(7.0 / 16)));
  Value ge11 = e.ge(n, e.mul(d, e.c(11.0 / 16)));
  Value cc = e.select(ge11, one, e.select(ge7, e.c(0.5), zero));
  Value num = e.sub(n, e.mul(cc, d));
  DD den = e.fastTwoSum(d, e.mul(cc, n));
  // th correctly rounded (it may be the subnormal result itself), tl its
  // remainder term.
  Value th = e.div(num, den.hi);
  Value tl = e.div(e.sub(e.fma(e.neg(th), den.hi, num), e.mul(th, den.lo)),
                   den.hi);
  Value z = e.mul(th, th);
  Value a = e.poly(z, COEFFS(kAtanA));
  // atan(th + tl) = th + th^3 A(th^2) + tl / (1 + th^2).
  Value tail = e.fma(e.mul(th, z), a, e.fma(tl, e.neg(z), tl));
  Value bh = e.select(ge11, KONST(kPiOver4Hi),
                      e.select(ge7, KONST(kAtanHalfHi), zero));
  Value bl = e.select(ge11, KONST(kPiOver4Lo),
                      e.select(ge7, KONST(kAtanHalfLo), zero));
  DD theta = e.fastTwoSum(bh, th);
  theta.lo = e.add(theta.lo, e.add(bl, tail));
  // Quadrant: theta, pi/2 - theta, pi - theta or pi/2 + theta.
  Value xNeg = e.signBit(x);
  Value kh = e.select(swap, KONST(kPiOver2Hi), e.select(xNeg, KONST(kPiHi), zero));
  Value kl = e.select(swap, KONST(kPiOver2Lo), e.select(xNeg, KONST(kPiLo), zero));
  Value minus = arith::XOrIOp::create(e.b, e.loc, swap, xNeg);
  Value sh = e.select(minus, e.neg(theta.hi), theta.hi);
  Value sl = e.select(minus, e.neg(theta.lo), theta.lo);
  DD sum = e.twoSum(kh, sh);
  Value r = e.add(sum.hi, e.add(sum.lo, e.add(kl, sl)));
  r = e.copySign(r, y);
  r = e.select(e.isNaN(x), x, r);
  return e.select(e.isNaN(y), y, r); // the first NaN operand wins
}

//===----------------------------------------------------------------------===//
// erf
//===----------------------------------------------------------------------===//

Value MathBuilder::erf(Value x) {
  Emitter e(builder, locOf(location), x.getType());
  if (fast(x))
    return fastErf(e, x);
  double xmax = e.f64 ? kErfcXMaxF64 : kErfcXMaxF32; // erf rounds to 1 beyond
  Value one = e.c(1.0);
  Value a = e.clamp(e.abs(x), 0.0, xmax);
  // |x| <= 1: erf = a + a E(a^2), E = c0 + z E1(z) with z = a^2 and the last
  // step in double words, then a + a E rounded once.
  llvm::ArrayRef<double> ec = COEFFS(kErfE);
  DD z = e.twoProd(a, a);
  Value e1 = e.poly(z.hi, ec.drop_front());
  DD ze = e.twoProd(z.hi, e1);
  ze.lo = e.fma(z.lo, e1, ze.lo);
  DD ed = e.twoSum(e.c(ec[0]), ze.hi);
  ed.lo = e.add(ed.lo, e.add(ze.lo, KONST(kErfE0Lo)));
  DD ae = e.twoProd(a, ed.hi);
  ae.lo = e.fma(a, ed.lo, ae.lo);
  DD sum = e.fastTwoSum(a, ae.hi);
  Value small = e.add(sum.hi, e.add(sum.lo, ae.lo));

  // |x| > 1: erf = 1 - erfc, erfc = e^(-a^2) G(t), t = (a - c) / (a + c),
  // all kept in double words (erfc is up to 0.16 of the result): a - c is
  // exact for a >= 1, t carries the remainder of its division, G's constant
  // term is a double word, and G(t + tl) = G(t) (1 + tl G'/G(t)).
  Value cc = KONST(kErfcC);
  Value num = e.sub(a, cc);
  DD den = e.twoSum(a, cc);
  Value t = e.div(num, den.hi);
  Value tl = e.div(e.sub(e.fma(e.neg(t), den.hi, num), e.mul(t, den.lo)),
                   den.hi);
  llvm::ArrayRef<double> gc = COEFFS(kErfcG);
  Value h = e.poly(t, gc.drop_front());
  DD th = e.twoProd(t, h);
  DD g = e.twoSum(KONST(kErfcG0Hi), th.hi);
  Value dlog = e.poly(t, COEFFS(kErfcDLogG));
  g.lo = e.add(e.add(g.lo, e.add(th.lo, KONST(kErfcG0Lo))),
               e.mul(g.hi, e.mul(dlog, tl)));
  DD sq = e.twoProd(a, a);
  ExpParts ex = expCore(e, e.neg(sq.hi), e.neg(sq.lo));
  DD p = e.twoProd(ex.hi, g.hi);
  p.lo = e.add(p.lo, e.fma(ex.hi, g.lo, e.mul(ex.lo, g.hi)));
  // 2^k is at least 2^-53 here: exact scaling.
  Value ph = e.scale(p.hi, ex.k), pl = e.scale(p.lo, ex.k);
  DD d = e.twoSum(one, e.neg(ph));
  Value large = e.add(d.hi, e.sub(d.lo, pl));

  Value r = e.select(e.le(a, one), small, large);
  r = e.copySign(r, x);
  return e.select(e.isNaN(x), x, r);
}
