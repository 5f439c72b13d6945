//===- MathExpansion.cpp - IR emitter of the math expansions -------------===//
//
// The primitives every expansion is made of.  Only arith ops and the two LLVM
// intrinsics that upstream convert-gpu-to-nvvm leaves alone (llvm.intr.fma and
// llvm.intr.trunc) are emitted: fabs, copysign, floor, roundeven and sqrt are
// built from integer and float arithmetic here instead (docs/math.md).
//
//===----------------------------------------------------------------------===//

#include "fuser/Math/MathExpansion.h"
#include "MathInternal.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cassert>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::mathx;

//===----------------------------------------------------------------------===//
// Emitter
//===----------------------------------------------------------------------===//

static Type withShape(Type like, Type elem) {
  if (auto v = dyn_cast<VectorType>(like))
    return v.clone(elem);
  return elem;
}

Emitter::Emitter(OpBuilder &b, Location loc, Type type)
    : b(b), loc(loc), ty(type) {
  Type elem = getElementTypeOrSelf(type);
  f64 = elem.isF64();
  assert((f64 || elem.isF32()) && "math expansions take f32 or f64");
  mant = f64 ? 52 : 23;
  bias = f64 ? 1023 : 127;
  width = f64 ? 64 : 32;
  ity = intType(width);
}

Type Emitter::intType(unsigned bits) {
  return withShape(ty, b.getIntegerType(bits));
}

Value Emitter::c(double v) {
  auto elem = cast<FloatType>(getElementTypeOrSelf(ty));
  TypedAttr attr = b.getFloatAttr(elem, v);
  if (auto vt = dyn_cast<VectorType>(ty))
    attr = DenseElementsAttr::get(vt, attr);
  return arith::ConstantOp::create(b, loc, attr);
}

Value Emitter::ci(int64_t v, Type intTy) {
  if (!intTy)
    intTy = ity;
  Type elem = getElementTypeOrSelf(intTy);
  TypedAttr attr = b.getIntegerAttr(elem, v);
  if (auto vt = dyn_cast<VectorType>(intTy))
    attr = DenseElementsAttr::get(vt, attr);
  return arith::ConstantOp::create(b, loc, attr);
}

Value Emitter::nan() { return c(std::numeric_limits<double>::quiet_NaN()); }
Value Emitter::inf() { return c(std::numeric_limits<double>::infinity()); }

Value Emitter::add(Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}
Value Emitter::sub(Value x, Value y) {
  return arith::SubFOp::create(b, loc, x, y);
}
Value Emitter::mul(Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}
Value Emitter::div(Value x, Value y) {
  return arith::DivFOp::create(b, loc, x, y);
}
Value Emitter::neg(Value x) { return arith::NegFOp::create(b, loc, x); }
Value Emitter::fma(Value x, Value y, Value z) {
  return LLVM::FMAOp::create(b, loc, x, y, z);
}
Value Emitter::trunc(Value x) { return LLVM::FTruncOp::create(b, loc, x); }

Value Emitter::roundEven(Value x) {
  // In round-to-nearest-even, adding 1.5 * 2^mant pushes every fraction bit
  // out; subtracting it again is exact.  Valid for |x| < 2^(mant - 1).
  Value m = c(1.5 * std::ldexp(1.0, mant));
  return sub(add(x, m), m);
}

Value Emitter::abs(Value x) {
  Value mask = ci(f64 ? INT64_MAX : INT32_MAX);
  return fromBits(iand(bitsOf(x), mask));
}

Value Emitter::copySign(Value mag, Value sign) {
  Value signMask = ci(f64 ? INT64_MIN : INT32_MIN);
  Value absMask = ci(f64 ? INT64_MAX : INT32_MAX);
  return fromBits(
      ior(iand(bitsOf(mag), absMask), iand(bitsOf(sign), signMask)));
}

Value Emitter::select(Value cond, Value x, Value y) {
  return arith::SelectOp::create(b, loc, cond, x, y);
}

static Value cmpf(Emitter &e, arith::CmpFPredicate p, Value x, Value y) {
  return arith::CmpFOp::create(e.b, e.loc, p, x, y);
}
Value Emitter::lt(Value x, Value y) {
  return cmpf(*this, arith::CmpFPredicate::OLT, x, y);
}
Value Emitter::le(Value x, Value y) {
  return cmpf(*this, arith::CmpFPredicate::OLE, x, y);
}
Value Emitter::gt(Value x, Value y) {
  return cmpf(*this, arith::CmpFPredicate::OGT, x, y);
}
Value Emitter::ge(Value x, Value y) {
  return cmpf(*this, arith::CmpFPredicate::OGE, x, y);
}
Value Emitter::eq(Value x, Value y) {
  return cmpf(*this, arith::CmpFPredicate::OEQ, x, y);
}
Value Emitter::ne(Value x, Value y) {
  return cmpf(*this, arith::CmpFPredicate::UNE, x, y);
}
Value Emitter::isNaN(Value x) {
  return cmpf(*this, arith::CmpFPredicate::UNO, x, x);
}
Value Emitter::isInf(Value x) { return eq(abs(x), inf()); }
Value Emitter::isFinite(Value x) { return lt(abs(x), inf()); }
Value Emitter::signBit(Value x) {
  return icmp(arith::CmpIPredicate::slt, bitsOf(x), ci(0));
}
Value Emitter::andB(Value x, Value y) {
  return arith::AndIOp::create(b, loc, x, y);
}
Value Emitter::orB(Value x, Value y) {
  return arith::OrIOp::create(b, loc, x, y);
}
Value Emitter::notB(Value x) {
  Type t = withShape(ty, b.getI1Type());
  Value one;
  if (auto vt = dyn_cast<VectorType>(t))
    one = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vt, b.getBoolAttr(true)));
  else
    one = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  return arith::XOrIOp::create(b, loc, x, one);
}

Value Emitter::bitsOf(Value x) {
  return arith::BitcastOp::create(b, loc, ity, x);
}
Value Emitter::fromBits(Value x) {
  return arith::BitcastOp::create(b, loc, ty, x);
}
Value Emitter::toInt(Value x) { return arith::FPToSIOp::create(b, loc, ity, x); }
Value Emitter::toFloat(Value x) {
  return arith::SIToFPOp::create(b, loc, ty, x);
}
Value Emitter::iadd(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value Emitter::isub(Value x, Value y) {
  return arith::SubIOp::create(b, loc, x, y);
}
Value Emitter::imul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value Emitter::iand(Value x, Value y) {
  return arith::AndIOp::create(b, loc, x, y);
}
Value Emitter::ior(Value x, Value y) {
  return arith::OrIOp::create(b, loc, x, y);
}
Value Emitter::shl(Value x, Value y) {
  return arith::ShLIOp::create(b, loc, x, y);
}
Value Emitter::shrs(Value x, Value y) {
  return arith::ShRSIOp::create(b, loc, x, y);
}
Value Emitter::shru(Value x, Value y) {
  return arith::ShRUIOp::create(b, loc, x, y);
}
Value Emitter::icmp(arith::CmpIPredicate p, Value x, Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}
Value Emitter::zext(Value x, Type to) {
  return arith::ExtUIOp::create(b, loc, to, x);
}
Value Emitter::itrunc(Value x, Type to) {
  return arith::TruncIOp::create(b, loc, to, x);
}
std::pair<Value, Value> Emitter::mulExtended(Value x, Value y) {
  auto op = arith::MulUIExtendedOp::create(b, loc, x, y);
  return {op.getLow(), op.getHigh()};
}

Value Emitter::iminSigned(Value x, Value y) {
  return arith::MinSIOp::create(b, loc, x, y);
}

Value Emitter::clamp(Value x, double lo, double hi, double ifNaN) {
  Value r = select(gt(x, c(hi)), c(hi), x);
  r = select(lt(r, c(lo)), c(lo), r);
  return select(isNaN(x), c(ifNaN), r);
}

Value Emitter::pow2(Value k) {
  return fromBits(shl(iadd(k, ci(bias)), ci(mant)));
}

Value Emitter::scale(Value v, Value kf) {
  Value k = toInt(kf);
  Value k1 = shrs(k, ci(1));
  Value k2 = isub(k, k1);
  return mul(mul(v, pow2(k1)), pow2(k2));
}

Value Emitter::poly(Value x, llvm::ArrayRef<double> coeffs) {
  assert(!coeffs.empty());
  Value r = c(coeffs.back());
  for (int i = static_cast<int>(coeffs.size()) - 2; i >= 0; --i)
    r = fma(r, x, c(coeffs[i]));
  return r;
}

DD Emitter::twoSum(Value x, Value y) {
  Value s = add(x, y);
  Value bb = sub(s, x);
  Value err = add(sub(x, sub(s, bb)), sub(y, bb));
  return {s, err};
}

DD Emitter::fastTwoSum(Value x, Value y) {
  Value s = add(x, y);
  Value err = sub(y, sub(s, x));
  return {s, err};
}

DD Emitter::twoProd(Value x, Value y) {
  Value p = mul(x, y);
  return {p, fma(x, y, neg(p))};
}

DD Emitter::constDD(double hi32, double lo32, double hi64, double lo64) {
  return {c(hi32, hi64), c(lo32, lo64)};
}

Value Emitter::pick(Value index, llvm::ArrayRef<int64_t> table, Type intTy) {
  Value r = ci(table[0], intTy);
  for (size_t i = 1; i < table.size(); ++i) {
    Value is = icmp(arith::CmpIPredicate::eq, index,
                    ci(static_cast<int64_t>(i), index.getType()));
    r = select(is, ci(table[i], intTy), r);
  }
  return r;
}

//===----------------------------------------------------------------------===//
// MathBuilder
//===----------------------------------------------------------------------===//

MathBuilder::MathBuilder(OpBuilder &b, Location loc, MathAccuracy accuracy)
    : builder(b), location(loc.getAsOpaquePointer()), accuracy(accuracy) {}

bool MathBuilder::fast(Value x) const {
  return accuracy == MathAccuracy::Fast &&
         getElementTypeOrSelf(x.getType()).isF32();
}

bool mlir::fuser::parseMathAccuracy(llvm::StringRef name, MathAccuracy &out) {
  if (name == "fast")
    out = MathAccuracy::Fast;
  else if (name == "precise")
    out = MathAccuracy::Precise;
  else
    return false;
  return true;
}

const char *mlir::fuser::stringifyMathAccuracy(MathAccuracy accuracy) {
  return accuracy == MathAccuracy::Fast ? "fast" : "precise";
}

bool MathBuilder::isSupportedType(Type type) {
  if (auto v = dyn_cast<VectorType>(type)) {
    if (v.isScalable() || v.getRank() != 1)
      return false;
    type = v.getElementType();
  }
  return type.isF32() || type.isF64();
}
