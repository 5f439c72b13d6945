//===- Float8.cpp - f32 <-> fp8 conversions on the bits -------------------===//
//
// Both directions work elementwise on the bits, so one body serves scalars
// and vectors (vector<4xf32> and the like), and every backend lowers it to
// the same results: integer ops, one f32 add and f16 -> f32 widening, all
// exact on any IEEE machine. To fp8 (PyTorch's c10 algorithm): a normal
// result rebiases the exponent and rounds with one integer add (half an
// ulp less one, plus the kept lsb, so that ties go to even); a subnormal
// one lets the f32 adder round onto the subnormal grid; then overflow, NaN
// and the sign. About 20 instructions an element, straight-line.
//
//===----------------------------------------------------------------------===//

#include "fuser/Math/Float8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value xorI(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value ugt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, x, y);
  }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
};

/// f32 -> e8m0 as PyTorch's c10::Float8_e8m0fnu does: the magnitude's
/// exponent field, rounded up when the mantissa is over half, or exactly
/// half of a normal number (ties to even, the implicit one being odd); the
/// sign is dropped; NaN and infinities become 0xff (NaN), as does a
/// rounding past 2^127, unless `saturate` makes those finite ones 0xfe.
Value truncToE8M0(Bits &m, Value u, bool saturate) {
  Value e = m.andI(m.shr(u, m.c(23)), m.c(0xff));
  Value mant = m.andI(u, m.c(0x7fffff));
  Value half = m.c(0x400000);
  Value over = m.ugt(mant, half);
  Value tie = m.andI(m.eq(mant, half), m.ugt(e, m.c(0)));
  Value up = m.orI(over, tie); // i1
  Value code = m.add(e, arith::ExtUIOp::create(m.b, m.loc, m.shape, up));
  Value special = m.eq(e, m.c(0xff));
  if (!saturate)
    return m.select(special, m.c(0xff), code);
  // Finite overflow and infinities: 0xfe; NaN stays 0xff.
  Value isNan = m.andI(special, m.ugt(mant, m.c(0)));
  code = m.select(m.ugt(code, m.c(0xfe)), m.c(0xfe), code);
  return m.select(isNan, m.c(0xff), code);
}

} // namespace

Value mlir::fuser::emitTruncToFloat8(OpBuilder &b, Location loc, Value x,
                                     Type to, bool saturate) {
  Type i32 = b.getI32Type();
  Type shape = isa<VectorType>(x.getType())
                   ? Type(cast<VectorType>(x.getType()).clone(i32))
                   : i32;
  Bits m{b, loc, shape};
  if (isa<Float8E8M0FNUType>(to)) {
    Value code = truncToE8M0(m, arith::BitcastOp::create(b, loc, shape, x), saturate);
    Value byte = arith::TruncIOp::create(b, loc, m.like(b.getI8Type()), code);
    return arith::BitcastOp::create(b, loc, m.like(to), byte);
  }
  Format f = Format::of(to);
  Type f32 = m.like(b.getF32Type());
  Value u = arith::BitcastOp::create(b, loc, shape, x);
  Value sign = m.andI(u, m.c(0x80000000u));
  Value a = m.xorI(u, sign); // magnitude bits

  unsigned drop = 23 - f.mantissaBits;
  // Normal results: rebias the exponent and round the mantissa in one
  // add: half an ulp less one, plus the kept lsb (ties to even), carries
  // into the kept bits; a carry out of the mantissa moves up a binade.
  uint32_t rebiasAndHalf = ((f.bias - 127u) << 23) + (1u << (drop - 1)) - 1u;
  Value lsb = m.andI(m.shr(a, m.c(drop)), m.c(1));
  Value normal = m.shr(m.add(m.add(a, m.c(rebiasAndHalf)), lsb), m.c(drop));
  // Subnormal results (magnitudes below 2^(1 - bias)): adding 2^k whose
  // ulp is the smallest fp8 subnormal makes the f32 adder round to the
  // subnormal grid (to nearest even); the low bits are then the code.
  // Exact on every IEEE adder; an f32 subnormal input flushed to zero
  // gives 0 either way, as it must.
  uint32_t magic = (1u - f.bias - f.mantissaBits + 23u + 127u) << 23;
  Value mf = arith::ConstantOp::create(b, loc, f32, [&]() -> TypedAttr {
    TypedAttr a = b.getF32FloatAttr(
        std::ldexp(1.0f, static_cast<int>(magic >> 23) - 127));
    if (auto vt = dyn_cast<VectorType>(f32))
      a = DenseElementsAttr::get(vt, a);
    return a;
  }());
  Value sum = arith::AddFOp::create(b, loc, arith::BitcastOp::create(b, loc, f32, a), mf);
  Value subnormal = m.sub(arith::BitcastOp::create(b, loc, shape, sum), m.c(magic));
  Value isSub = m.ult(a, m.c((128u - f.bias) << 23));
  Value code = m.select(isSub, subnormal, normal);
  // Past the largest finite (infinities and NaNs too, whose normal code is
  // far above it): overflow, or the largest finite; NaN the format's NaN.
  Value tooLarge = m.ugt(code, m.c(f.maxFinite));
  code = m.select(tooLarge, m.c(saturate ? f.maxFinite : f.overflow), code);
  if (saturate || f.hasInfinity)
    code = m.select(m.ugt(a, m.c(0x7f800000u)), m.c(0x7f), code);
  code = m.orI(code, m.shr(sign, m.c(24)));
  Type i8 = m.like(b.getI8Type());
  Value byte = arith::TruncIOp::create(b, loc, i8, code);
  return arith::BitcastOp::create(b, loc, m.like(to), byte);
}

/// The hardware conversion of one pair: `lo` into the low byte, `hi` into
/// the high one (PTX packs operand a, here `hi`, into the upper byte).
static Value convertPair(OpBuilder &b, Location loc, Value hi, Value lo, Type to) {
  return NVVM::ConvertF32x2ToF8x2Op::create(
      b, loc, VectorType::get({2}, b.getI8Type()), hi, lo, NVVM::FPRoundingMode::RN,
      NVVM::SaturationMode::SATFINITE, /*relu=*/false, to);
}

Value mlir::fuser::emitSaturatingTruncToFloat8Pairs(OpBuilder &b, Location loc,
                                                    Value x, Type to) {
  assert((isa<Float8E4M3FNType, Float8E5M2Type>(to)) && "e4m3 or e5m2");
  Type i8 = b.getI8Type();
  auto vt = dyn_cast<VectorType>(x.getType());
  Value codes;
  if (!vt) {
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    codes = vector::ExtractOp::create(b, loc, convertPair(b, loc, zero, x, to),
                                      ArrayRef<int64_t>{0});
  } else {
    // Pairs of neighbours; an odd last element pairs with 0.
    int64_t n = vt.getNumElements();
    SmallVector<Value> elems;
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    for (int64_t i = 0; i < n; i += 2) {
      Value lo = vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{i});
      Value hi = i + 1 < n ? Value(vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{i + 1})) : zero;
      Value pair = convertPair(b, loc, hi, lo, to);
      elems.push_back(vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{0}));
      if (i + 1 < n)
        elems.push_back(vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{1}));
    }
    codes = vector::FromElementsOp::create(b, loc, vt.clone(i8), elems);
  }
  // The instruction's NaN is 0x7f whatever the sign; emitTruncToFloat8's
  // (PyTorch's) keeps it: or the sign byte in where the input is NaN.
  Type i32 = b.getI32Type();
  Type shape = vt ? Type(vt.clone(i32)) : i32;
  Bits m{b, loc, shape};
  Value u = arith::BitcastOp::create(b, loc, shape, x);
  Value isNan = m.ugt(m.andI(u, m.c(0x7fffffffu)), m.c(0x7f800000u));
  Value signByte = m.select(isNan, m.shr(m.andI(u, m.c(0x80000000u)), m.c(24)), m.c(0));
  codes = arith::OrIOp::create(b, loc, codes,
                               arith::TruncIOp::create(b, loc, m.like(i8), signByte));
  return arith::BitcastOp::create(b, loc, m.like(to), codes);
}

LogicalResult mlir::fuser::expandFloat8PairConversions(Operation *root) {
  SmallVector<NVVM::ConvertF32x2ToF8x2Op> ops;
  root->walk([&](NVVM::ConvertF32x2ToF8x2Op op) { ops.push_back(op); });
  for (NVVM::ConvertF32x2ToF8x2Op op : ops) {
    Type to = op.getDstTy();
    if (op.getRnd() != NVVM::FPRoundingMode::RN ||
        op.getSat() != NVVM::SaturationMode::SATFINITE || op.getRelu() ||
        !isa<Float8E4M3FNType, Float8E5M2Type>(to))
      return op.emitError("fuser emits this conversion rounding to nearest, saturating, "
                          "without relu, to f8E4M3FN or f8E5M2 only");
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type i8 = b.getI8Type(), i32 = b.getI32Type();
    Bits m{b, loc, i32};
    // One element as the instruction converts it: emitTruncToFloat8's
    // saturating bits, but every NaN 0x7f.
    auto one = [&](Value x) -> Value {
      Value code = arith::BitcastOp::create(b, loc, i8, emitTruncToFloat8(b, loc, x, to, true));
      Value u = arith::BitcastOp::create(b, loc, i32, x);
      Value isNan = m.ugt(m.andI(u, m.c(0x7fffffffu)), m.c(0x7f800000u));
      Value nan = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0x7f));
      return arith::SelectOp::create(b, loc, isNan, nan, code);
    };
    Value lo = one(op.getB()), hi = one(op.getA());
    Value result;
    if (auto vt = dyn_cast<VectorType>(op.getType())) {
      result = vector::FromElementsOp::create(b, loc, vt, ValueRange{lo, hi});
    } else {
      Type i16 = b.getI16Type();
      Value h = arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i16, hi),
                                      arith::ConstantOp::create(b, loc, b.getI16IntegerAttr(8)));
      result = arith::OrIOp::create(b, loc, h, arith::ExtUIOp::create(b, loc, i16, lo));
    }
    op.replaceAllUsesWith(result);
    op.erase();
  }
  return success();
}

Value mlir::fuser::emitExtFromFloat8(OpBuilder &b, Location loc, Value v) {
  Type from = getElementTypeOrSelf(v.getType());
  if (isa<Float8E8M0FNUType>(from)) {
    // 2^(code - 127) as f32 bits, PyTorch's: code 0 is the subnormal
    // 2^-127 (0x00400000), 0xff its NaN 0x7f800001.
    Type i32 = b.getI32Type();
    Type shape = isa<VectorType>(v.getType())
                     ? Type(cast<VectorType>(v.getType()).clone(i32))
                     : i32;
    Bits m{b, loc, shape};
    Value byte = arith::BitcastOp::create(b, loc, m.like(b.getI8Type()), v);
    Value w = arith::ExtUIOp::create(b, loc, shape, byte);
    Value bits = m.shl(w, m.c(23));
    bits = m.select(m.eq(w, m.c(0)), m.c(0x00400000u), bits);
    bits = m.select(m.eq(w, m.c(0xff)), m.c(0x7f800001u), bits);
    return arith::BitcastOp::create(b, loc, m.like(b.getF32Type()), bits);
  }
  Format f = Format::of(from);
  Type i16 = b.getI16Type();
  auto like = [&](Type e) -> Type {
    if (auto vt = dyn_cast<VectorType>(v.getType()))
      return vt.clone(e);
    return e;
  };
  Type shape = like(i16);
  auto c = [&](uint32_t k) -> Value {
    TypedAttr a = b.getIntegerAttr(i16, static_cast<int64_t>(k));
    if (auto vt = dyn_cast<VectorType>(shape))
      a = DenseElementsAttr::get(vt, a);
    return arith::ConstantOp::create(b, loc, shape, a);
  };
  // Both formats are f16 with fewer bits, which widens exactly (hardware
  // cvt.f32.f16 on the GPU): e5m2 is f16's top byte; e4m3's exponent and
  // mantissa sit 7 bits up in an f16 whose bias is 8 too large, so the f16
  // value times 2^8 is the e4m3 value (subnormals too: f16's subnormals
  // hold e4m3's exactly).
  Value byte = arith::BitcastOp::create(b, loc, like(b.getI8Type()), v);
  Value w = arith::ExtUIOp::create(b, loc, shape, byte);
  Type f32 = like(b.getF32Type());
  if (f.hasInfinity) {
    Value h = arith::ShLIOp::create(b, loc, w, c(8));
    return arith::ExtFOp::create(b, loc, f32,
                                 arith::BitcastOp::create(b, loc, like(b.getF16Type()), h).getResult());
  }
  Value mag = arith::AndIOp::create(b, loc, w, c(0x7f));
  Value h = arith::OrIOp::create(b, loc, arith::ShLIOp::create(b, loc, mag, c(7)),
                                 arith::ShLIOp::create(b, loc,
                                                       arith::AndIOp::create(b, loc, w, c(0x80)),
                                                       c(8)));
  Value wide = arith::ExtFOp::create(b, loc, f32,
                                     arith::BitcastOp::create(b, loc, like(b.getF16Type()), h).getResult());
  TypedAttr k = b.getF32FloatAttr(256.0f);
  if (auto vt = dyn_cast<VectorType>(f32))
    k = DenseElementsAttr::get(vt, k);
  Value scaled = arith::MulFOp::create(b, loc, wide, arith::ConstantOp::create(b, loc, f32, k));
  // S.1111.111 is NaN (f16 would read 480): the quiet NaN, sign kept.
  Value isNan = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, mag, c(0x7f));
  TypedAttr nanAttr = b.getF32FloatAttr(std::nanf(""));
  if (auto vt = dyn_cast<VectorType>(f32))
    nanAttr = DenseElementsAttr::get(vt, nanAttr);
  Value nan = arith::ConstantOp::create(b, loc, f32, nanAttr);
  Value negNan = arith::NegFOp::create(b, loc, nan);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                    arith::AndIOp::create(b, loc, w, c(0x80)), c(0));
  Value nanSigned = arith::SelectOp::create(b, loc, neg, negNan, nan);
  return arith::SelectOp::create(b, loc, isNan, nanSigned, scaled);
}
