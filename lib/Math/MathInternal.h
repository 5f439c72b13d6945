//===- MathInternal.h - Shared pieces of the math expansions ----*- C++ -*-===//
//
// The IR emitter behind MathBuilder: typed constants, the few integer and
// floating-point primitives the expansions are made of, and double-word
// ("hi + lo") arithmetic.  Everything works elementwise on a scalar float type
// or a vector of it; integer companions have the same shape.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_MATH_MATHINTERNAL_H
#define FUSER_LIB_MATH_MATHINTERNAL_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace mlir::fuser::mathx {

/// A value carried as an unevaluated sum hi + lo with |lo| <= ulp(hi)
/// (roughly): twice the working precision.
struct DD {
  Value hi, lo;
};

class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, Type type);

  OpBuilder &b;
  Location loc;
  Type ty;       // float type or vector of it
  Type ity;      // integer type of the same width and shape
  bool f64;      // element type is f64
  int mant;      // explicit mantissa bits: 23 or 52
  int bias;      // exponent bias: 127 or 1023
  int width;     // 32 or 64

  /// A float constant of `ty` (rounded to the element type).
  Value c(double v);
  /// `f64 ? v64 : v32`, as a constant.
  Value c(double v32, double v64) { return c(f64 ? v64 : v32); }
  /// An integer constant of type `intTy` (or `ity`).
  Value ci(int64_t v, Type intTy = {});
  Value nan();
  Value inf();

  /// Integer type with `bits` bits and the shape of `ty`.
  Type intType(unsigned bits);

  // Floating-point arithmetic (correctly rounded, no fast-math flags).
  Value add(Value a, Value b);
  Value sub(Value a, Value b);
  Value mul(Value a, Value b);
  Value div(Value a, Value b);
  Value neg(Value a);
  Value fma(Value a, Value b, Value c);
  Value trunc(Value a);
  /// Round to nearest even for |a| < 2^(mant-1), by the 1.5 * 2^mant trick.
  Value roundEven(Value a);
  Value abs(Value a);
  Value copySign(Value mag, Value sign);
  Value select(Value cond, Value a, Value b);

  // Comparisons (ordered unless the name says otherwise).
  Value lt(Value a, Value b);
  Value le(Value a, Value b);
  Value gt(Value a, Value b);
  Value ge(Value a, Value b);
  Value eq(Value a, Value b);
  Value ne(Value a, Value b);  // unordered or not equal
  Value isNaN(Value a);
  Value isInf(Value a);
  Value isFinite(Value a);
  Value signBit(Value a);
  Value andB(Value a, Value b);  // i1 logic
  Value orB(Value a, Value b);
  Value notB(Value a);

  // Integer arithmetic.
  Value bitsOf(Value a);         // float -> int of the same width
  Value fromBits(Value a);       // int -> float
  Value toInt(Value a);          // fptosi to ity (a must be in range)
  Value toFloat(Value a);        // sitofp from any integer type
  Value iadd(Value a, Value b);
  Value isub(Value a, Value b);
  Value imul(Value a, Value b);
  Value iand(Value a, Value b);
  Value ior(Value a, Value b);
  Value shl(Value a, Value b);
  Value shrs(Value a, Value b);
  Value shru(Value a, Value b);
  Value icmp(arith::CmpIPredicate p, Value a, Value b);
  Value zext(Value a, Type to);
  Value itrunc(Value a, Type to);
  /// Full 64x64 -> 128 unsigned product as (lo, hi).
  std::pair<Value, Value> mulExtended(Value a, Value b);

  Value iminSigned(Value a, Value b);

  /// a clamped to [lo, hi], NaN mapped to `ifNaN` (never lets a NaN through).
  Value clamp(Value a, double lo, double hi, double ifNaN = 0.0);

  /// 2^k for an integer k in [1 - bias, bias] (as ity).
  Value pow2(Value k);
  /// v * 2^k for an integral float k with |k| <= 2 * bias, by two exact
  /// scalings so that the single rounding happens in the second (subnormal
  /// results) and overflow gives inf.
  Value scale(Value v, Value kf);

  /// Horner evaluation of sum coeffs[i] * x^i with fma.
  Value poly(Value x, llvm::ArrayRef<double> coeffs);

  // Double-word arithmetic.
  DD twoSum(Value a, Value b);      // exact a + b, any magnitudes
  DD fastTwoSum(Value a, Value b);  // exact a + b, needs |a| >= |b| or a == 0
  DD twoProd(Value a, Value b);     // exact a * b (barring underflow)
  DD constDD(double hi32, double lo32, double hi64, double lo64);

  /// Picks one of several constants by an integer index (select chain).
  Value pick(Value index, llvm::ArrayRef<int64_t> table, Type intTy);
};

/// Shared cores (ExpLog.cpp).
struct ExpParts {
  Value hi, lo; // e^r as hi + lo, close to 1
  Value k;      // integral float: the result is 2^k (hi + lo)
};
/// e^(xh + xl) for xh in the clamped range of exp, xl small.
ExpParts expCore(Emitter &e, Value xh, Value xl);
/// e^(rh + rl) - 1 - rh for |rh| <= ln2/2, as a double word.
DD expTail(Emitter &e, Value rh, Value rl);

struct LogParts {
  Value e;      // integral float exponent
  Value hi, lo; // log of the mantissa m in [sqrt(1/2), sqrt(2))
};
/// log(x) = e * ln2 + (hi + lo) for finite x > 0 (subnormals included),
/// to about 2^-(2p - 8) relative.
LogParts logCore(Emitter &e, Value x);
/// The full log(x) of logCore as a normalized double word.
DD logDD(Emitter &e, const LogParts &l);

/// pow's sign and special cases around `mag` = |x|^y (ExpLog.cpp), for
/// both tiers.
Value powSpecials(Emitter &e, Value x, Value y, Value ax, Value mag,
                  Value zero, Value one);

/// The Fast tier (FastMath.cpp, sin and cos in TrigErf.cpp): f32 only.
Value fastExp(Emitter &e, Value x);
Value fastExp2(Emitter &e, Value x);
Value fastExpm1(Emitter &e, Value x);
Value fastLog(Emitter &e, Value x);
Value fastLog2(Emitter &e, Value x);
Value fastLog1p(Emitter &e, Value x);
Value fastTanh(Emitter &e, Value x);
Value fastSigmoid(Emitter &e, Value x);
Value fastErf(Emitter &e, Value x);
Value fastAtan2(Emitter &e, Value y, Value x);
Value fastPow(Emitter &e, Value x, Value y);
Value fastSinOrCos(Emitter &e, Value x, bool cosine);

} // namespace mlir::fuser::mathx

#endif // FUSER_LIB_MATH_MATHINTERNAL_H
