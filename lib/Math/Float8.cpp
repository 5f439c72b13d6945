//===- Float8.cpp - f32 <-> fp8 conversions as integer arithmetic ---------===//
//
// Both directions work on the bits in i32, elementwise, so one body serves
// scalars and vectors (vector<4xf32> and the like) and every backend lowers
// it the same way. The rounding is IEEE's to nearest even, done by hand: the
// kept bits are shifted down and one is added when the dropped bits are over
// half, or exactly half with the kept bits odd; a carry out of the mantissa
// moves to the next binade, which the code layout makes correct.
//
//===----------------------------------------------------------------------===//

#include "fuser/Math/Float8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cassert>
#include <cmath>

using namespace mlir;

namespace {

/// The layout of one fp8 format.
struct Format {
  unsigned mantissaBits; // stored mantissa bits
  unsigned bias;
  uint32_t maxFinite;    // code of the largest finite magnitude
  uint32_t overflow;     // code a too-large magnitude becomes
  bool hasInfinity;      // f8E5M2: exponent all ones, mantissa 0

  static Format of(Type t) {
    if (isa<Float8E4M3FNType>(t)) // no infinity; S.1111.111 is NaN
      return {3, 7, 0x7e, 0x7f, false};
    assert(isa<Float8E5M2Type>(t) && "fp8 format");
    return {2, 15, 0x7b, 0x7c, true};
  }
};

/// Elementwise i32 arithmetic on values shaped like `shape` (a scalar or a
/// vector), with splat constants.
struct Bits {
  OpBuilder &b;
  Location loc;
  Type shape; // i32 or vector<N x i32>

  Type like(Type element) {
    if (auto v = dyn_cast<VectorType>(shape))
      return v.clone(element);
    return element;
  }
  Value c(uint32_t v) {
    auto e = b.getI32Type();
    TypedAttr a = b.getIntegerAttr(e, static_cast<int64_t>(v));
    if (auto vt = dyn_cast<VectorType>(shape))
      a = DenseElementsAttr::get(vt, a);
    return arith::ConstantOp::create(b, loc, shape, a);
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value xorI(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value minU(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value ugt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, x, y);
  }
  Value uge(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, x, y);
  }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value zext(Value i1s) { return arith::ExtUIOp::create(b, loc, shape, i1s); }

  /// `kept` (bits already shifted down by `shift`) rounded to nearest even
  /// by the dropped bits `value & ((1 << shift) - 1)`; shift in [1, 31].
  Value roundNearestEven(Value kept, Value value, Value shift) {
    Value one = c(1);
    Value mask = sub(shl(one, shift), one);
    Value dropped = andI(value, mask);
    Value half = shl(one, sub(shift, one));
    Value over = ugt(dropped, half);
    Value tieOdd = andI(eq(dropped, half), eq(andI(kept, one), one));
    return add(kept, zext(arith::OrIOp::create(b, loc, over, tieOdd)));
  }
};

} // namespace

Value mlir::fuser::emitTruncToFloat8(OpBuilder &b, Location loc, Value x,
                                     Type to, bool saturate) {
  Format f = Format::of(to);
  Type i32 = b.getI32Type();
  Type shape = isa<VectorType>(x.getType())
                   ? Type(cast<VectorType>(x.getType()).clone(i32))
                   : i32;
  Bits m{b, loc, shape};
  Value u = arith::BitcastOp::create(b, loc, shape, x);
  Value sign = m.andI(u, m.c(0x80000000u));
  Value a = m.xorI(u, sign); // magnitude bits

  unsigned dropBits = 23 - f.mantissaBits;
  // Normal results: rebias the exponent, keep the top mantissa bits.
  uint32_t rebias = (127 - f.bias) << 23;
  Value shiftNormal = m.c(dropBits);
  Value keptNormal = m.shr(m.sub(a, m.c(rebias)), shiftNormal);
  Value normal = m.roundNearestEven(keptNormal, a, shiftNormal);
  // Subnormal results (below 2^(1 - bias)): the significand with its
  // implicit one, shifted further by how far the exponent is below the
  // smallest normal one. Past 31 the result is 0 either way.
  Value exp32 = m.shr(a, m.c(23));
  Value significand = m.orI(m.andI(a, m.c(0x7fffff)),
                            m.select(m.eq(exp32, m.c(0)), m.c(0), m.c(0x800000)));
  // shift = dropBits + (1 - (exp32 - 127 + bias)), exp32 < 128 - bias here.
  uint32_t shiftBase = dropBits + 1 + 127 - f.bias;
  Value shiftSub = m.minU(m.sub(m.c(shiftBase), m.minU(exp32, m.c(shiftBase - 1))),
                          m.c(31));
  Value keptSub = m.shr(significand, shiftSub);
  Value subnormal = m.roundNearestEven(keptSub, significand, shiftSub);
  Value isSub = m.ult(a, m.c((128 - f.bias) << 23));
  Value code = m.select(isSub, subnormal, normal);
  // Too large (infinities too): NaN or infinity, or the largest finite.
  Value tooLarge = m.ugt(code, m.c(f.maxFinite));
  code = m.select(tooLarge, m.c(saturate ? f.maxFinite : f.overflow), code);
  // NaN: the format's NaN.
  Value isNan = m.ugt(a, m.c(0x7f800000u));
  code = m.select(isNan, m.c(0x7f), code);
  code = m.orI(code, m.shr(sign, m.c(24)));
  Type i8 = m.like(b.getI8Type());
  Value byte = arith::TruncIOp::create(b, loc, i8, code);
  return arith::BitcastOp::create(b, loc, m.like(to), byte);
}

Value mlir::fuser::emitExtFromFloat8(OpBuilder &b, Location loc, Value v) {
  Type from = getElementTypeOrSelf(v.getType());
  Format f = Format::of(from);
  Type i32 = b.getI32Type();
  Type shape = isa<VectorType>(v.getType())
                   ? Type(cast<VectorType>(v.getType()).clone(i32))
                   : i32;
  Bits m{b, loc, shape};
  Value byte = arith::BitcastOp::create(b, loc, m.like(b.getI8Type()), v);
  Value w = arith::ExtUIOp::create(b, loc, shape, byte);
  Value sign = m.shl(m.andI(w, m.c(0x80)), m.c(24));
  Value mag = m.andI(w, m.c(0x7f));
  unsigned shift = 23 - f.mantissaBits;
  // Normal: the exponent rebiased, the mantissa moved to the top.
  Value normal = m.add(m.shl(mag, m.c(shift)), m.c((127 - f.bias) << 23));
  // Subnormal (exponent 0): mantissa * 2^(1 - bias - mantissaBits), exact.
  Type f32 = m.like(b.getF32Type());
  Value mantissa = m.andI(mag, m.c((1u << f.mantissaBits) - 1));
  Value subF = arith::UIToFPOp::create(b, loc, f32, mantissa);
  float scale = std::ldexp(1.0f, 1 - static_cast<int>(f.bias) -
                                     static_cast<int>(f.mantissaBits));
  TypedAttr scaleAttr = b.getF32FloatAttr(scale);
  if (auto vt = dyn_cast<VectorType>(f32))
    scaleAttr = DenseElementsAttr::get(vt, scaleAttr);
  Value scaleV = arith::ConstantOp::create(b, loc, f32, scaleAttr);
  Value sub = arith::BitcastOp::create(
      b, loc, shape, arith::MulFOp::create(b, loc, subF, scaleV));
  Value isSub = m.ult(mag, m.c(1u << f.mantissaBits));
  Value bits = m.select(isSub, sub, normal);
  if (f.hasInfinity) {
    Value top = m.c(0x7c);
    bits = m.select(m.eq(mag, top), m.c(0x7f800000u), bits);
    bits = m.select(m.ugt(mag, top), m.c(0x7fc00000u), bits);
  } else {
    bits = m.select(m.eq(mag, m.c(0x7f)), m.c(0x7fc00000u), bits);
  }
  bits = m.orI(bits, sign);
  return arith::BitcastOp::create(b, loc, f32, bits);
}
