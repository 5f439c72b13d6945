//===- ElementwiseEmitter.cpp - fuser ops on register values --------------===//
//
// Each fuser elementwise op becomes arith ops and LLVM intrinsics that both
// NVPTX and the host backend lower natively; transcendentals come from
// MathBuilder. Nothing here calls libdevice, so the CPU emulation computes
// the same bits as the GPU. Semantics follow PyTorch's CPU kernels, including
// their order of operations (see docs/dialect.md for the defined results
// where PyTorch raises or is undefined).
//
//===----------------------------------------------------------------------===//

#include "ElementwiseEmitter.h"

#include "fuser/Dialect/Fuser/IR/ElementwiseOps.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Math/Float8.h"
#include "fuser/Math/MathExpansion.h"
#include "fuser/Math/RareHelper.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fuser;

namespace {

Type elementOf(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    return v.getElementType();
  return t;
}

Type withElement(Type t, Type e) {
  if (auto v = dyn_cast<VectorType>(t))
    return v.clone(e);
  return e;
}

bool isHalf(Type e) { return e.isF16() || e.isBF16(); }

/// Builds the arithmetic of one op at one location.
struct Emitter {
  OpBuilder &b;
  Location loc;
  MathAccuracy accuracy = MathAccuracy::Fast;
  bool fp8Instruction = false;

  // -- constants -------------------------------------------------------------
  Value splat(Type type, double v) { return emitSplat(b, loc, type, v); }
  Value splatInt(Type type, int64_t v) {
    Type e = elementOf(type);
    TypedAttr a = b.getIntegerAttr(e, v);
    if (auto vt = dyn_cast<VectorType>(type))
      a = DenseElementsAttr::get(vt, a);
    return arith::ConstantOp::create(b, loc, type, a);
  }
  Value zero(Type t) {
    return isa<FloatType>(elementOf(t)) ? splat(t, 0.0) : splatInt(t, 0);
  }

  // -- compute type ------------------------------------------------------------
  /// f16/bf16 widen to f32; everything else computes in its own type.
  Value widen(Value v) {
    Type e = elementOf(v.getType());
    if (!isHalf(e))
      return v;
    return arith::ExtFOp::create(b, loc, withElement(v.getType(), b.getF32Type()), v);
  }
  Value narrow(Value v, Type e) {
    if (elementOf(v.getType()) == e)
      return v;
    return arith::TruncFOp::create(b, loc, withElement(v.getType(), e), v);
  }

  // -- float helpers -----------------------------------------------------------
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value fabs(Value x) { return LLVM::FAbsOp::create(b, loc, x); }
  Value floor(Value x) { return LLVM::FFloorOp::create(b, loc, x); }
  Value fmod(Value x, Value y) { return exactFmod(x, y); }

  /// C's fmod of f32 or f64 (halves come widened), exact, as CUDA's fmodf
  /// and so PyTorch's: |x| reduced by |y|, with x's sign. Not arith.remf,
  /// which the GPU lowering turns into a call of libdevice's __nv_fmodf,
  /// which fuser never links (the PTX would not load).
  ///
  /// In steps (fmodSteps): Y = |y| * 2^k with k the most that keeps r / Y
  /// below 2^(p-2) (p: the significand's bits); q = trunc(r / Y), one too
  /// large at worst (the quotient's rounding error is below 1/2 there, even
  /// for a fast-math division); d = fma(-q, Y, r) is exact, a multiple of
  /// Y's ulp in (-Y, Y); adding Y back to a negative d is exact too. A step
  /// takes p - 3 bits off the exponents' difference, which is at most
  /// emax - (the smallest subnormal's exponent): 15 steps for f32, 43 for
  /// f64. Lanes already below |y| keep r.
  ///
  /// Where |x| / |y| < 2^(p-2) one step with k = 0 finishes: that step is
  /// inline. A larger quotient (and an infinite x or a zero y, whose
  /// result is NaN anyway) takes a branch, uniform for a vector, to a loop
  /// of the steps in a function beside the kernels
  /// (`__fuser_fmod_rare_f32(|x|, |y|)`, lane by lane), made once per
  /// module as sin's rare path is (RareHelper.h). Unrolled at every
  /// fmod, the steps were about 450 instructions in f32 and 1,300 in f64.
  /// Each lane goes through the same steps either way, so the bits are the
  /// same.
  Value exactFmod(Value x, Value y) {
    Type t = x.getType();
    auto ft = cast<FloatType>(elementOf(t));
    FmodParams fp(ft);
    Value ax = fabs(x), ay = fabs(y), r = ax;
    Value far = arith::AndIOp::create(
        b, loc, cmpf(arith::CmpFPredicate::OGE, r, ay),
        cmpi(arith::CmpIPredicate::sgt,
             arith::SubIOp::create(b, loc, fmodExponent(r, fp), fmodExponent(ay, fp)),
             splatInt(withElement(t, b.getIntegerType(fp.width)), fp.bitsPerStep)));
    if (func::FuncOp rare = fmodRareFunction(ft, fp)) {
      Value any = far;
      if (isa<VectorType>(t))
        any = vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, far);
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{t}, any, /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        scf::YieldOp::create(b, loc, callLaneByLane(b, loc, rare, ValueRange{r, ay}));
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        scf::YieldOp::create(b, loc, r);
      }
      r = fmodSteps(ifOp.getResult(0), ay, fp, 1, /*scaled=*/false);
    } else {
      r = fmodSteps(r, ay, fp, fp.steps, /*scaled=*/true); // not inside a module: inline
    }
    Value result = LLVM::CopySignOp::create(b, loc, r, x);
    // NaN for y = 0, x infinite, or either NaN; x itself for an infinite y.
    Value nan = arith::OrIOp::create(
        b, loc, cmpf(arith::CmpFPredicate::UEQ, y, zero(t)),
        arith::OrIOp::create(b, loc,
                             cmpf(arith::CmpFPredicate::UEQ, ax,
                                  splat(t, std::numeric_limits<double>::infinity())),
                             cmpf(arith::CmpFPredicate::UNO, x, y)));
    return select(nan, splat(t, std::numeric_limits<double>::quiet_NaN()), result);
  }

  /// The constants of exactFmod's steps for f32 or f64.
  struct FmodParams {
    explicit FmodParams(FloatType ft)
        : width(ft.getWidth()), p(ft.getFPMantissaWidth()), emax(width == 64 ? 1023 : 127),
          emin(1 - emax), bitsPerStep(p - 3) {
      int maxDiff = emax - (emin - (p - 1)); // 276, 2097
      steps = (maxDiff + bitsPerStep - 1) / bitsPerStep + 1;
    }
    unsigned width;
    int p;    // 24, 53
    int emax; // and the bias
    int emin; // the smallest normal's exponent
    int bitsPerStep;
    int steps;
  };

  /// floor(log2 v) of a finite v > 0 (a subnormal through v * 2^p), as an
  /// integer of v's width.
  Value fmodExponent(Value v, const FmodParams &fp) {
    Type t = v.getType();
    Type it = withElement(t, b.getIntegerType(fp.width));
    auto ci = [&](int64_t c) { return splatInt(it, c); };
    Value smallest = splat(t, std::ldexp(1.0, fp.emin)), twoP = splat(t, std::ldexp(1.0, fp.p));
    Value sub = cmpf(arith::CmpFPredicate::OLT, v, smallest);
    Value bits = arith::BitcastOp::create(b, loc, it, select(sub, mul(v, twoP), v));
    Value e = arith::ShRUIOp::create(b, loc, bits, ci(fp.p - 1));
    e = arith::SubIOp::create(b, loc, e, ci(fp.emax));
    return select(sub, arith::SubIOp::create(b, loc, e, ci(fp.p)).getResult(), e);
  }

  /// `steps` of exactFmod's reduction of r >= 0 by ay = |y| > 0; each
  /// scales |y| by 2^k where `scaled` (the inline step after the rare path
  /// needs k = 0 alone).
  Value fmodSteps(Value r, Value ay, const FmodParams &fp, int steps, bool scaled) {
    Type t = r.getType();
    Type it = withElement(t, b.getIntegerType(fp.width));
    auto ci = [&](int64_t v) { return splatInt(it, v); };
    // 2^k for 0 <= k <= emax.
    auto pow2 = [&](Value k) {
      Value bits = arith::ShLIOp::create(b, loc, arith::AddIOp::create(b, loc, k, ci(fp.emax)),
                                         ci(fp.p - 1));
      return arith::BitcastOp::create(b, loc, t, bits).getResult();
    };
    Value ey = scaled ? fmodExponent(ay, fp) : Value();
    for (int i = 0; i < steps; ++i) {
      Value active = cmpf(arith::CmpFPredicate::OGE, r, ay);
      // Y = |y| * 2^k in exact factors of at most 2^emax (k reaches
      // maxDiff - bitsPerStep: 255 for f32, 2047 for f64, just past two
      // factors); Y <= r, so none overflows. (Lanes already below |y|
      // may hold any k; their Y is unused.) Unscaled, k = 0: Y = |y|.
      Value Y = ay;
      if (scaled) {
        Value e = arith::SubIOp::create(b, loc, fmodExponent(r, fp), ey);
        Value k = arith::MaxSIOp::create(
            b, loc, arith::SubIOp::create(b, loc, e, ci(fp.bitsPerStep)), ci(0));
        Value rest = k;
        for (int f = 0; f < 3; ++f) {
          Value kf = arith::MinSIOp::create(b, loc, rest, ci(fp.emax));
          Y = mul(Y, pow2(kf));
          rest = arith::SubIOp::create(b, loc, rest, kf);
        }
      }
      Value q = LLVM::FTruncOp::create(b, loc, div(r, Y));
      Value d = LLVM::FMAOp::create(b, loc, arith::NegFOp::create(b, loc, q), Y, r);
      d = select(cmpf(arith::CmpFPredicate::OLT, d, zero(t)), add(d, Y), d);
      r = select(active, d, r);
    }
    return r;
  }

  /// exactFmod's steps as a loop in a helper beside the kernels
  /// (RareHelper.h), made once per type and module:
  /// `__fuser_fmod_rare_f32(r, ay) -> r`, scalar. Null where the insertion
  /// point is not inside a function of a symbol table.
  func::FuncOp fmodRareFunction(FloatType ft, const FmodParams &fp) {
    return getOrCreateRareHelper(
        b, loc, fp.width == 64 ? "__fuser_fmod_rare_f64" : "__fuser_fmod_rare_f32",
        b.getFunctionType({ft, ft}, {ft}), [&](OpBuilder &fb, Block &entry) {
          // The steps as a loop of one step, `steps` times (a lane below
          // |y| keeps r, so the same bits as the unrolled form), in one
          // step's code. (i32 bounds: a helper holds numbers, not index
          // values)
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(fb.getInsertionBlock(), fb.getInsertionPoint());
          Value lo = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
          Value hi = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(fp.steps));
          Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
          Value ay = entry.getArgument(1);
          auto loop = scf::ForOp::create(b, loc, lo, hi, one, ValueRange{entry.getArgument(0)});
          b.setInsertionPointToStart(loop.getBody());
          scf::YieldOp::create(
              b, loc, fmodSteps(loop.getRegionIterArgs()[0], ay, fp, 1, /*scaled=*/true));
          return SmallVector<Value>{loop.getResult(0)};
        });
  }
  MathBuilder math() { return MathBuilder(b, loc, accuracy); }

  bool isBool(Value v) { return elementOf(v.getType()).isInteger(1); }

  /// x << s or x >> s (arithmetic) as PyTorch 2 defines them for every s:
  /// a shift below 0 or of the width or more shifts everything out (0, or
  /// the sign for >>). LLVM's shifts are poison there, so the amount is
  /// checked first (one unsigned compare covers both ends).
  Value shift(bool left, Value x, Value s) {
    Type t = x.getType();
    unsigned w = elementOf(t).getIntOrFloatBitWidth();
    Value inRange = cmpi(arith::CmpIPredicate::ult, s, splatInt(t, w));
    if (left)
      return select(inRange, arith::ShLIOp::create(b, loc, x, select(inRange, s, zero(t))),
                    zero(t));
    return arith::ShRSIOp::create(b, loc, x, select(inRange, s, splatInt(t, w - 1)));
  }

  // -- ops ---------------------------------------------------------------------

  /// A float unary op computed in f32 for halves.
  template <typename Fn>
  Value floatUnary(Value x, Fn fn) {
    Type e = elementOf(x.getType());
    return narrow(fn(widen(x)), e);
  }
  template <typename Fn>
  Value floatBinary(Value x, Value y, Fn fn) {
    Type e = elementOf(x.getType());
    return narrow(fn(widen(x), widen(y)), e);
  }

  Value neg(Value x) {
    if (isa<FloatType>(elementOf(x.getType())))
      return arith::NegFOp::create(b, loc, x);
    return arith::SubIOp::create(b, loc, zero(x.getType()), x);
  }

  Value abs(Value x) {
    if (isa<FloatType>(elementOf(x.getType())))
      return fabs(x);
    return LLVM::AbsOp::create(b, loc, x.getType(), x, /*is_int_min_poison=*/false);
  }

  /// relu as PyTorch's clamp_min(x, 0): 0 where x < 0, else x, so NaN
  /// and -0.0 stay (x <= 0 made -0.0 +0.0).
  Value relu(Value x) {
    if (isa<FloatType>(elementOf(x.getType())))
      return select(cmpf(arith::CmpFPredicate::OLT, x, zero(x.getType())),
                    zero(x.getType()), x);
    return arith::MaxSIOp::create(b, loc, x, zero(x.getType()));
  }

  /// sign as PyTorch's CPU kernel: (0 < x) - (x < 0), so NaN gives 0.
  Value sign(Value x) {
    Type t = x.getType();
    if (isa<FloatType>(elementOf(t))) {
      Value pos = select(cmpf(arith::CmpFPredicate::OLT, zero(t), x), splat(t, 1), zero(t));
      Value negv = select(cmpf(arith::CmpFPredicate::OLT, x, zero(t)), splat(t, 1), zero(t));
      return sub(pos, negv);
    }
    Value pos = select(cmpi(arith::CmpIPredicate::sgt, x, zero(t)), splatInt(t, 1), zero(t));
    Value negv = select(cmpi(arith::CmpIPredicate::slt, x, zero(t)), splatInt(t, 1), zero(t));
    return arith::SubIOp::create(b, loc, pos, negv);
  }

  Value gelu(Value x, GeluApproximation approx) {
    Type t = x.getType();
    if (approx == GeluApproximation::tanh) {
      // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
      Value cube = mul(mul(x, x), x);
      Value inner = mul(splat(t, M_SQRT2 * M_2_SQRTPI * 0.5),
                        add(x, mul(splat(t, 0.044715), cube)));
      return mul(mul(splat(t, 0.5), x), add(splat(t, 1), math().tanh(inner)));
    }
    // x * 0.5 * (1 + erf(x / sqrt(2)))
    Value e = math().erf(mul(x, splat(t, M_SQRT1_2)));
    return mul(mul(x, splat(t, 0.5)), add(splat(t, 1), e));
  }

  /// silu as PyTorch: x / (1 + exp(-x)).
  Value silu(Value x) {
    Type t = x.getType();
    return div(x, add(splat(t, 1), math().exp(arith::NegFOp::create(b, loc, x))));
  }

  Value isnan(Value x) {
    if (!isa<FloatType>(elementOf(x.getType())))
      return zeroBool(x.getType());
    return cmpf(arith::CmpFPredicate::UNO, x, x);
  }
  Value isinf(Value x) {
    if (!isa<FloatType>(elementOf(x.getType())))
      return zeroBool(x.getType());
    return cmpf(arith::CmpFPredicate::OEQ, fabs(x), splat(x.getType(), INFINITY));
  }
  Value isfinite(Value x) {
    if (!isa<FloatType>(elementOf(x.getType())))
      return oneBool(x.getType());
    return cmpf(arith::CmpFPredicate::OLT, fabs(x), splat(x.getType(), INFINITY));
  }
  /// x == +inf (positive) or -inf; never for integers.
  Value isSignedInf(Value x, bool positive) {
    if (!isa<FloatType>(elementOf(x.getType())))
      return zeroBool(x.getType());
    return cmpf(arith::CmpFPredicate::OEQ, x,
                splat(x.getType(), positive ? INFINITY : -INFINITY));
  }
  /// The sign bit, read from the bits (so -0.0 and negative NaNs count);
  /// integers: x < 0; bools: false.
  Value signbit(Value x) {
    Type t = x.getType();
    Type e = elementOf(t);
    if (e.isInteger(1))
      return zeroBool(t);
    if (isa<FloatType>(e)) {
      Type bits = withElement(t, b.getIntegerType(e.getIntOrFloatBitWidth()));
      x = arith::BitcastOp::create(b, loc, bits, x);
      t = bits;
    }
    return cmpi(arith::CmpIPredicate::slt, x, zero(t));
  }
  /// C's fmod: the sign of x, exact. Integers truncate; by zero gives 0, and
  /// by -1 gives 0 without the overflow of INT_MIN / -1.
  Value truncatedRemainder(Value x, Value y) {
    Type t = x.getType();
    if (isa<FloatType>(elementOf(t)))
      return floatBinary(x, y, [&](Value a, Value c) { return fmod(a, c); });
    Value unsafe = arith::OrIOp::create(b, loc, cmpi(arith::CmpIPredicate::eq, y, zero(t)),
                                        cmpi(arith::CmpIPredicate::eq, y, splatInt(t, -1)));
    Value r = arith::RemSIOp::create(b, loc, x, select(unsafe, splatInt(t, 1), y));
    return select(unsafe, zero(t), r);
  }
  Value zeroBool(Type like) { return splatInt(withElement(like, b.getI1Type()), 0); }
  Value oneBool(Type like) { return splatInt(withElement(like, b.getI1Type()), 1); }

  /// Float division with PyTorch's rounding modes.
  Value floatDiv(Value x, Value y, RoundingMode mode) {
    Type t = x.getType();
    if (mode == RoundingMode::none)
      return div(x, y);
    if (mode == RoundingMode::trunc)
      return LLVM::FTruncOp::create(b, loc, div(x, y));
    // div_floor_floating from c10/util/generic_math.h.
    Value mod = fmod(x, y);
    Value d = div(sub(x, mod), y);
    Value modNonZero = cmpf(arith::CmpFPredicate::UNE, mod, zero(t));
    Value signsDiffer = arith::XOrIOp::create(
        b, loc, cmpf(arith::CmpFPredicate::OLT, y, zero(t)),
        cmpf(arith::CmpFPredicate::OLT, mod, zero(t)));
    d = select(arith::AndIOp::create(b, loc, modNonZero, signsDiffer),
               sub(d, splat(t, 1)), d);
    Value fl = floor(d);
    fl = select(cmpf(arith::CmpFPredicate::OGT, sub(d, fl), splat(t, 0.5)),
                add(fl, splat(t, 1)), fl);
    Value signedZero = LLVM::CopySignOp::create(b, loc, zero(t), div(x, y));
    Value r = select(cmpf(arith::CmpFPredicate::UNE, d, zero(t)), fl, signedZero);
    return select(cmpf(arith::CmpFPredicate::OEQ, y, zero(t)), div(x, y), r);
  }

  /// Integer division: by zero gives 0, by -1 negates (wrapping).
  Value intDiv(Value x, Value y, RoundingMode mode) {
    Type t = x.getType();
    Value isZero = cmpi(arith::CmpIPredicate::eq, y, zero(t));
    Value isMinusOne = cmpi(arith::CmpIPredicate::eq, y, splatInt(t, -1));
    Value safe = select(arith::OrIOp::create(b, loc, isZero, isMinusOne),
                        splatInt(t, 1), y);
    Value q = arith::DivSIOp::create(b, loc, x, safe);
    if (mode == RoundingMode::floor) {
      Value r = arith::RemSIOp::create(b, loc, x, safe);
      Value adjust = arith::AndIOp::create(
          b, loc, cmpi(arith::CmpIPredicate::ne, r, zero(t)),
          arith::XOrIOp::create(b, loc, cmpi(arith::CmpIPredicate::slt, r, zero(t)),
                                cmpi(arith::CmpIPredicate::slt, y, zero(t))));
      q = select(adjust, arith::SubIOp::create(b, loc, q, splatInt(t, 1)), q);
    }
    q = select(isMinusOne, neg(x), q);
    return select(isZero, zero(t), q);
  }

  /// remainder: the sign of the divisor. Integer remainder by zero is 0.
  Value remainder(Value x, Value y) {
    Type t = x.getType();
    if (isa<FloatType>(elementOf(t))) {
      return floatBinary(x, y, [&](Value a, Value c) {
        Type ct = a.getType();
        Value mod = fmod(a, c);
        Value fix = arith::AndIOp::create(
            b, loc, cmpf(arith::CmpFPredicate::UNE, mod, zero(ct)),
            arith::XOrIOp::create(b, loc, cmpf(arith::CmpFPredicate::OLT, c, zero(ct)),
                                  cmpf(arith::CmpFPredicate::OLT, mod, zero(ct))));
        return select(fix, add(mod, c), mod);
      });
    }
    Value isZero = cmpi(arith::CmpIPredicate::eq, y, zero(t));
    Value isMinusOne = cmpi(arith::CmpIPredicate::eq, y, splatInt(t, -1));
    Value safe = select(arith::OrIOp::create(b, loc, isZero, isMinusOne),
                        splatInt(t, 1), y);
    Value r = arith::RemSIOp::create(b, loc, x, safe);
    Value fix = arith::AndIOp::create(
        b, loc, cmpi(arith::CmpIPredicate::ne, r, zero(t)),
        arith::XOrIOp::create(b, loc, cmpi(arith::CmpIPredicate::slt, r, zero(t)),
                              cmpi(arith::CmpIPredicate::slt, y, zero(t))));
    r = select(fix, arith::AddIOp::create(b, loc, r, y), r);
    return select(isZero, zero(t), r);
  }

  /// Integer power by squaring over every exponent bit (a fixed trip count,
  /// so no lane diverges). Negative exponents give 0 except for bases 1, -1.
  Value intPow(Value x, Value y) {
    Type t = x.getType();
    unsigned width = elementOf(t).getIntOrFloatBitWidth();
    Value one = splatInt(t, 1);
    Value result = one, base = x, e = y;
    for (unsigned i = 0; i + 1 < width; ++i) {
      Value bit = arith::AndIOp::create(b, loc, e, one);
      Value odd = cmpi(arith::CmpIPredicate::ne, bit, zero(t));
      result = select(odd, arith::MulIOp::create(b, loc, result, base), result);
      base = arith::MulIOp::create(b, loc, base, base);
      e = arith::ShRUIOp::create(b, loc, e, one);
    }
    Value negative = cmpi(arith::CmpIPredicate::slt, y, zero(t));
    Value yOdd = cmpi(arith::CmpIPredicate::ne,
                      arith::AndIOp::create(b, loc, y, one), zero(t));
    Value minusOne = splatInt(t, -1);
    Value negResult = select(cmpi(arith::CmpIPredicate::eq, x, one), one,
                             select(cmpi(arith::CmpIPredicate::eq, x, minusOne),
                                    select(yOdd, minusOne, one), zero(t)));
    return select(negative, negResult, result);
  }

  /// torch.lerp as PyTorch's CPU vector kernel (lerp_vec) and its CUDA
  /// kernel (nvcc contracts it) compute it, one rounding after the
  /// difference: fma(w, end - start, start) when |w| < 0.5, else
  /// fma(w - 1, end - start, end). Two roundings (start + w * diff) were
  /// an ulp away in a quarter of the results.
  Value lerp(Value s, Value e, Value w) {
    Type t = s.getType();
    Value diff = sub(e, s);
    Value small = cmpf(arith::CmpFPredicate::OLT, fabs(w), splat(t, 0.5));
    Value lo = LLVM::FMAOp::create(b, loc, w, diff, s);
    Value hi = LLVM::FMAOp::create(b, loc, sub(w, splat(t, 1)), diff, e);
    return select(small, lo, hi);
  }

  Value maximum(Value x, Value y) {
    Type e = elementOf(x.getType());
    if (isa<FloatType>(e))
      return floatBinary(x, y, [&](Value a, Value c) {
        return LLVM::MaximumOp::create(b, loc, a, c).getResult();
      });
    if (e.isInteger(1))
      return arith::MaxUIOp::create(b, loc, x, y);
    return arith::MaxSIOp::create(b, loc, x, y);
  }
  Value minimum(Value x, Value y) {
    Type e = elementOf(x.getType());
    if (isa<FloatType>(e))
      return floatBinary(x, y, [&](Value a, Value c) {
        return LLVM::MinimumOp::create(b, loc, a, c).getResult();
      });
    if (e.isInteger(1))
      return arith::MinUIOp::create(b, loc, x, y);
    return arith::MinSIOp::create(b, loc, x, y);
  }

  /// torch.clamp: a float x is kept unless it is below lo (or above hi)
  /// or the bound is NaN, as PyTorch's std::max / std::min: x where it
  /// equals a bound, so -0 stays -0 against a bound of +0 (maximum and
  /// minimum order -0 below +0), and a NaN x or bound gives NaN. Compared
  /// in f32 for f16 and bf16 (exact; see compare).
  Value clamp(Value x, Value lo, Value hi) {
    if (!isa<FloatType>(elementOf(x.getType())))
      return minimum(maximum(x, lo), hi);
    // The bound where `less` is below `greater`, or where the bound is NaN.
    auto takesBound = [&](Value less, Value greater, Value bound) {
      Value wb = widen(bound);
      return arith::OrIOp::create(b, loc,
                                  cmpf(arith::CmpFPredicate::OLT, widen(less), widen(greater)),
                                  cmpf(arith::CmpFPredicate::UNO, wb, wb));
    };
    Value r = select(takesBound(x, lo, lo), lo, x);
    return select(takesBound(hi, r, hi), hi, r);
  }

  Value compare(Operation *op, Value x, Value y) {
    Type e = elementOf(x.getType());
    if (isa<FloatType>(e)) {
      // Ordered predicates: NaN compares false, except ne (true), as in C.
      arith::CmpFPredicate p =
          TypeSwitch<Operation *, arith::CmpFPredicate>(op)
              .Case<EqOp>([](auto) { return arith::CmpFPredicate::OEQ; })
              .Case<NeOp>([](auto) { return arith::CmpFPredicate::UNE; })
              .Case<LtOp>([](auto) { return arith::CmpFPredicate::OLT; })
              .Case<LeOp>([](auto) { return arith::CmpFPredicate::OLE; })
              .Case<GtOp>([](auto) { return arith::CmpFPredicate::OGT; })
              .Case<GeOp>([](auto) { return arith::CmpFPredicate::OGE; });
      // bf16 compares in f32 (exact, and the same result): LLVM's x86 back
      // end cannot select some vector bf16 compares and aborts, which would
      // take the CPU emulation down (test/tools/fuserc/emulator-bf16-compare).
      if (e.isBF16())
        return cmpf(p, widen(x), widen(y));
      return cmpf(p, x, y);
    }
    bool u = e.isInteger(1);
    arith::CmpIPredicate p =
        TypeSwitch<Operation *, arith::CmpIPredicate>(op)
            .Case<EqOp>([](auto) { return arith::CmpIPredicate::eq; })
            .Case<NeOp>([](auto) { return arith::CmpIPredicate::ne; })
            .Case<LtOp>([&](auto) { return u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt; })
            .Case<LeOp>([&](auto) { return u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle; })
            .Case<GtOp>([&](auto) { return u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt; })
            .Case<GeOp>([&](auto) { return u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge; });
    return cmpi(p, x, y);
  }

  Value emit(Operation *op, ValueRange in) {
    auto isFloatOp = [&] { return isa<FloatType>(elementOf(in[0].getType())); };
    return TypeSwitch<Operation *, Value>(op)
        .Case<NegOp>([&](auto) { return neg(in[0]); })
        .Case<AbsOp>([&](auto) { return abs(in[0]); })
        .Case<ExpOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().exp(x); }); })
        .Case<Exp2Op>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().exp2(x); }); })
        .Case<Expm1Op>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().expm1(x); }); })
        .Case<LogOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().log(x); }); })
        .Case<Log2Op>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().log2(x); }); })
        .Case<Log1pOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().log1p(x); }); })
        .Case<SqrtOp>([&](auto) {
          return floatUnary(in[0], [&](Value x) { return LLVM::SqrtOp::create(b, loc, x).getResult(); });
        })
        .Case<RsqrtOp>([&](auto) {
          return floatUnary(in[0], [&](Value x) {
            return div(splat(x.getType(), 1), LLVM::SqrtOp::create(b, loc, x));
          });
        })
        .Case<ReciprocalOp>([&](auto) {
          return floatUnary(in[0], [&](Value x) { return div(splat(x.getType(), 1), x); });
        })
        .Case<SinOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().sin(x); }); })
        .Case<CosOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().cos(x); }); })
        .Case<TanhOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().tanh(x); }); })
        .Case<SigmoidOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().sigmoid(x); }); })
        .Case<ErfOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().erf(x); }); })
        .Case<Log10Op>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().log10(x); }); })
        .Case<TanOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().tan(x); }); })
        .Case<AsinOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().asin(x); }); })
        .Case<AcosOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().acos(x); }); })
        .Case<AtanOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().atan(x); }); })
        .Case<SinhOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().sinh(x); }); })
        .Case<CoshOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().cosh(x); }); })
        .Case<AsinhOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().asinh(x); }); })
        .Case<AcoshOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().acosh(x); }); })
        .Case<AtanhOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return math().atanh(x); }); })
        .Case<ReluOp>([&](auto) { return relu(in[0]); })
        .Case<GeluOp>([&](GeluOp g) {
          return floatUnary(in[0], [&](Value x) { return gelu(x, g.getApproximate()); });
        })
        .Case<SiluOp>([&](auto) { return floatUnary(in[0], [&](Value x) { return silu(x); }); })
        .Case<FloorOp>([&](auto) {
          return isFloatOp() ? floor(in[0]) : in[0];
        })
        .Case<CeilOp>([&](auto) {
          return isFloatOp() ? LLVM::FCeilOp::create(b, loc, in[0]).getResult() : in[0];
        })
        .Case<RoundOp>([&](auto) {
          return isFloatOp() ? LLVM::RoundEvenOp::create(b, loc, in[0]).getResult() : in[0];
        })
        .Case<TruncOp>([&](auto) {
          return isFloatOp() ? LLVM::FTruncOp::create(b, loc, in[0]).getResult() : in[0];
        })
        .Case<FracOp>([&](auto) {
          // Exact in the operand's own precision: no widening needed.
          return sub(in[0], LLVM::FTruncOp::create(b, loc, in[0]).getResult());
        })
        .Case<SignOp>([&](auto) { return sign(in[0]); })
        .Case<NotOp>([&](auto) {
          Type t = in[0].getType();
          return arith::XOrIOp::create(b, loc, in[0], splatInt(t, -1)).getResult();
        })
        .Case<IsNanOp>([&](auto) { return isnan(in[0]); })
        .Case<IsInfOp>([&](auto) { return isinf(in[0]); })
        .Case<IsFiniteOp>([&](auto) { return isfinite(in[0]); })
        .Case<IsPosInfOp>([&](auto) { return isSignedInf(in[0], true); })
        .Case<IsNegInfOp>([&](auto) { return isSignedInf(in[0], false); })
        .Case<SignbitOp>([&](auto) { return signbit(in[0]); })
        .Case<AddOp>([&](auto) {
          return isFloatOp() ? floatBinary(in[0], in[1], [&](Value x, Value y) { return add(x, y); })
                             : arith::AddIOp::create(b, loc, in[0], in[1]).getResult();
        })
        .Case<SubOp>([&](auto) {
          return isFloatOp() ? floatBinary(in[0], in[1], [&](Value x, Value y) { return sub(x, y); })
                             : arith::SubIOp::create(b, loc, in[0], in[1]).getResult();
        })
        .Case<MulOp>([&](auto) {
          return isFloatOp() ? floatBinary(in[0], in[1], [&](Value x, Value y) { return mul(x, y); })
                             : arith::MulIOp::create(b, loc, in[0], in[1]).getResult();
        })
        .Case<DivOp>([&](DivOp d) {
          if (isFloatOp())
            return floatBinary(in[0], in[1], [&](Value x, Value y) {
              return floatDiv(x, y, d.getRoundingMode());
            });
          return intDiv(in[0], in[1], d.getRoundingMode());
        })
        .Case<PowOp>([&](auto) {
          if (isFloatOp())
            return floatBinary(in[0], in[1], [&](Value x, Value y) { return math().pow(x, y); });
          return intPow(in[0], in[1]);
        })
        .Case<MaximumOp>([&](auto) { return maximum(in[0], in[1]); })
        .Case<MinimumOp>([&](auto) { return minimum(in[0], in[1]); })
        .Case<RemainderOp>([&](auto) { return remainder(in[0], in[1]); })
        .Case<FmodOp>([&](auto) { return truncatedRemainder(in[0], in[1]); })
        .Case<Atan2Op>([&](auto) {
          return floatBinary(in[0], in[1], [&](Value y, Value x) { return math().atan2(y, x); });
        })
        .Case<EqOp, NeOp, LtOp, LeOp, GtOp, GeOp>([&](Operation *c) { return compare(c, in[0], in[1]); })
        .Case<AndOp>([&](auto) { return arith::AndIOp::create(b, loc, in[0], in[1]).getResult(); })
        .Case<OrOp>([&](auto) { return arith::OrIOp::create(b, loc, in[0], in[1]).getResult(); })
        .Case<XorOp>([&](auto) { return arith::XOrIOp::create(b, loc, in[0], in[1]).getResult(); })
        .Case<ShlOp, ShrOp>([&](Operation *s) { return shift(isa<ShlOp>(s), in[0], in[1]); })
        .Case<WhereOp>([&](auto) { return select(in[0], in[1], in[2]); })
        .Case<ClampOp>([&](auto) { return clamp(in[0], in[1], in[2]); })
        .Case<LerpOp>([&](auto) {
          Type e = elementOf(in[0].getType());
          return narrow(lerp(widen(in[0]), widen(in[1]), widen(in[2])), e);
        })
        .Case<FmaOp>([&](auto) {
          if (isFloatOp()) {
            Type e = elementOf(in[0].getType());
            return narrow(LLVM::FMAOp::create(b, loc, widen(in[0]), widen(in[1]), widen(in[2])), e);
          }
          return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, in[0], in[1]), in[2])
              .getResult();
        })
        .Case<BitcastOp>([&](BitcastOp c) -> Value {
          return arith::BitcastOp::create(b, loc, withElement(in[0].getType(),
                                                              c.getType().getElementType()),
                                          in[0]);
        })
        .Case<CastOp>([&](CastOp c) {
          return emitCast(b, loc, in[0], c.getType().getElementType(), c.getSaturate(),
                          fp8Instruction);
        })
        .Default([](Operation *) -> Value { return {}; });
  }
};

} // namespace

bool mlir::fuser::isElementwise(Operation *op) { return isa<FUSER_ELEMENTWISE_OPS>(op); }

Value mlir::fuser::emitElementwise(OpBuilder &b, Location loc, Operation *op,
                                   ValueRange operands, MathAccuracy math,
                                   bool fp8Instruction) {
  return Emitter{b, loc, math, fp8Instruction}.emit(op, operands);
}

Value mlir::fuser::emitSplat(OpBuilder &b, Location loc, Type type, double value) {
  Type e = elementOf(type);
  TypedAttr a = b.getFloatAttr(e, value);
  if (auto vt = dyn_cast<VectorType>(type))
    a = DenseElementsAttr::get(vt, a);
  return arith::ConstantOp::create(b, loc, type, a);
}

Value mlir::fuser::emitCast(OpBuilder &b, Location loc, Value v, Type to,
                            bool saturate, bool fp8Instruction) {
  Emitter em{b, loc};
  Type from = elementOf(v.getType());
  Type outType = withElement(v.getType(), to);
  if (from == to && !(saturate && isFloat8(to)))
    return v;
  // fp8 converts through f32 both ways, as PyTorch's c10::Float8_* types
  // do (an f64 or an integer becomes a float first, which can round twice).
  if (isFloat8(from))
    return emitCast(b, loc, emitExtFromFloat8(b, loc, v), to, saturate, fp8Instruction);
  if (isFloat8(to)) {
    Value f = emitCast(b, loc, v, b.getF32Type());
    // Saturating e4m3/e5m2: the hardware's paired conversion.
    if (saturate && fp8Instruction && !isa<Float8E8M0FNUType>(to))
      return emitSaturatingTruncToFloat8Pairs(b, loc, f, to);
    return emitTruncToFloat8(b, loc, f, to, saturate);
  }
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  auto toI = dyn_cast<IntegerType>(to);
  if (to.isInteger(1)) {
    if (fromF) // NaN is true, as bool(NaN) in PyTorch
      return em.cmpf(arith::CmpFPredicate::UNE, v, em.zero(v.getType()));
    return em.cmpi(arith::CmpIPredicate::ne, v, em.zero(v.getType()));
  }
  if (fromF && toF) {
    // bf16 <-> f16 goes through f32, where both are exact. f64 -> half
    // rounds to f32 first, as PyTorch does (c10::Half and c10::BFloat16 are
    // built from a float), though that rounds twice.
    if (isHalf(from) && isHalf(to))
      v = em.widen(v);
    else if (isHalf(to) && from.isF64())
      v = arith::TruncFOp::create(b, loc, withElement(v.getType(), b.getF32Type()), v);
    Type mid = elementOf(v.getType());
    if (mid.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, outType, v);
    return arith::TruncFOp::create(b, loc, outType, v);
  }
  if (fromF && toI) {
    // Truncate toward zero, saturate at the integer range, NaN gives 0. The
    // bounds are powers of two, exact in every float type; the operand is
    // clamped first so that fptosi never sees a value it cannot represent.
    Value x = em.widen(v);
    Type xt = x.getType();
    unsigned w = toI.getWidth();
    double lo = -std::ldexp(1.0, w - 1), hi = std::ldexp(1.0, w - 1);
    Value tooLow = em.cmpf(arith::CmpFPredicate::OLT, x, em.splat(xt, lo));
    Value tooHigh = em.cmpf(arith::CmpFPredicate::OGE, x, em.splat(xt, hi));
    Value nan = em.cmpf(arith::CmpFPredicate::UNO, x, x);
    Value bad = arith::OrIOp::create(b, loc, arith::OrIOp::create(b, loc, tooLow, tooHigh), nan);
    Value safe = em.select(bad, em.zero(xt), x);
    Value r = arith::FPToSIOp::create(b, loc, outType, safe);
    r = em.select(tooLow, em.splatInt(outType, llvm::APInt::getSignedMinValue(w).getSExtValue()), r);
    r = em.select(tooHigh, em.splatInt(outType, llvm::APInt::getSignedMaxValue(w).getSExtValue()), r);
    return r;
  }
  if (!fromF && toF) {
    bool isBool = from.isInteger(1);
    // Halves: through f32, as PyTorch converts (an integer becomes a float,
    // which becomes the half): past 2^24 that rounds twice.
    Type mid = isHalf(to) ? b.getF32Type() : to;
    Type midType = withElement(v.getType(), mid);
    Value f = isBool ? arith::UIToFPOp::create(b, loc, midType, v).getResult()
                     : arith::SIToFPOp::create(b, loc, midType, v).getResult();
    // The explicit rounding mode (the default one) keeps the canonicalizer
    // from folding truncf(sitofp) into one sitofp that rounds once.
    if (mid != to)
      f = arith::TruncFOp::create(
          b, loc, outType, f,
          arith::RoundingModeAttr::get(b.getContext(), arith::RoundingMode::to_nearest_even),
          arith::FastMathFlagsAttr());
    return f;
  }
  // Integer to integer: extend (zero for i1) or wrap.
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (tw > fw)
    return from.isInteger(1) ? arith::ExtUIOp::create(b, loc, outType, v).getResult()
                             : arith::ExtSIOp::create(b, loc, outType, v).getResult();
  return arith::TruncIOp::create(b, loc, outType, v);
}
