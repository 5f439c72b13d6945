//===- RandomEmitter.cpp - Philox4x32-10 random numbers in kernels --------===//
//
// The formula, which docs/random.md states for anyone to reproduce:
//  - key = (seed mod 2^32, seed >> 32), as unsigned 32-bit words;
//  - 32-bit results (f32, f16, bf16, i32): counter = (q mod 2^32, q >> 32,
//    offset mod 2^32, offset >> 32) with q = i >> 2, and the element is
//    word i & 3 of Philox4x32-10(counter, key);
//  - 64-bit results (f64, i64): q = i >> 1, and the element is the words
//    2(i & 1) (low) and 2(i & 1) + 1 (high);
//  - uniform floats take the top bits: f32 (w >> 8) 2^-24, f16 (w >> 21)
//    2^-11, bf16 (w >> 24) 2^-8, f64 (bits >> 11) 2^-53, each exact in its
//    type and below 1;
//  - normals: Box-Muller on the word pair of the element's pair of lanes.
//
//===----------------------------------------------------------------------===//

#include "RandomEmitter.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fuser;

namespace {

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

/// Elementwise integer and float arithmetic on scalars or vectors of one
/// shape, with splat constants.
struct Ops {
  OpBuilder &b;
  Location loc;
  Type shape; ///< a value whose shape (scalar or vector) constants take

  Type like(Type element) {
    if (auto v = dyn_cast<VectorType>(shape))
      return v.clone(element);
    return element;
  }
  Value cst(Type element, uint64_t v) {
    Type t = like(element);
    auto e = cast<IntegerType>(element);
    TypedAttr a = b.getIntegerAttr(e, APInt(e.getWidth(), v, false, true));
    if (auto vt = dyn_cast<VectorType>(t))
      a = DenseElementsAttr::get(vt, a);
    return arith::ConstantOp::create(b, loc, t, a);
  }
  Value fcst(Type element, double v) {
    Type t = like(element);
    TypedAttr a = b.getFloatAttr(element, v);
    if (auto vt = dyn_cast<VectorType>(t))
      a = DenseElementsAttr::get(vt, a);
    return arith::ConstantOp::create(b, loc, t, a);
  }
  Value i32(uint64_t v) { return cst(b.getI32Type(), v); }
  Value i64(uint64_t v) { return cst(b.getI64Type(), v); }
  Value xori(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value ori(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  Value select(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }
  Value trunc32(Value v) { return arith::TruncIOp::create(b, loc, like(b.getI32Type()), v); }
  Value ext64(Value v) { return arith::ExtUIOp::create(b, loc, like(b.getI64Type()), v); }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value uitofp(Type element, Value v) {
    return arith::UIToFPOp::create(b, loc, like(element), v);
  }
  /// A splat of the scalar `v` to this shape.
  Value splat(Value v) {
    if (auto vt = dyn_cast<VectorType>(shape))
      if (!isa<VectorType>(v.getType()))
        return vector::BroadcastOp::create(b, loc, vt.clone(v.getType()), v);
    return v;
  }
};

} // namespace

void mlir::fuser::emitPhilox(OpBuilder &b, Location loc, Value c[4], Value k[2],
                             Value out[4]) {
  Ops o{b, loc, c[0].getType()};
  Value x0 = c[0], x1 = c[1], x2 = c[2], x3 = c[3];
  Value k0 = k[0], k1 = k[1];
  Value m0 = o.i32(kM0), m1 = o.i32(kM1), w0 = o.i32(kW0), w1 = o.i32(kW1);
  for (int round = 0; round < 10; ++round) {
    if (round) {
      k0 = o.addi(k0, w0);
      k1 = o.addi(k1, w1);
    }
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, x0);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, x2);
    Value y0 = o.xori(o.xori(p1.getHigh(), x1), k0);
    Value y1 = p1.getLow();
    Value y2 = o.xori(o.xori(p0.getHigh(), x3), k1);
    Value y3 = p0.getLow();
    x0 = y0;
    x1 = y1;
    x2 = y2;
    x3 = y3;
  }
  out[0] = x0;
  out[1] = x1;
  out[2] = x2;
  out[3] = x3;
}

namespace {

/// Philox's four words for the elements `index` (i64, scalar or vector)
/// grouped `perCall` to a counter (4 for 32-bit results, 2 for 64-bit).
struct Words {
  Value w[4];
  Value lane; ///< index mod perCall (i64)
};

/// Philox4x32-10 of counter `q` (i64, of `o`'s shape) and the seed and
/// offset: key (seed lo, seed hi), counter (q lo, q hi, offset lo, offset hi).
void philoxOfCounter(Ops &o, Value q, Value seed, Value offset, Value out[4]) {
  Value c32 = o.i64(32);
  Value s = o.splat(seed), off = o.splat(offset);
  Value c[4] = {o.trunc32(q), o.trunc32(o.shr(q, c32)), o.trunc32(off),
                o.trunc32(o.shr(off, c32))};
  Value k[2] = {o.trunc32(s), o.trunc32(o.shr(s, c32))};
  emitPhilox(o.b, o.loc, c, k, out);
}

Words philoxFor(Ops &o, Value index, Value seed, Value offset, unsigned perCall) {
  Words r;
  philoxOfCounter(o, o.shr(index, o.i64(perCall == 4 ? 2 : 1)), seed, offset, r.w);
  r.lane = o.andi(index, o.i64(perCall - 1));
  return r;
}

/// words[lane] for lane in 0..3 (or 0..1 of pairs when `pairs`).
Value pick(Ops &o, const Value words[4], Value lane) {
  Value r = words[3];
  for (int j = 2; j >= 0; --j)
    r = o.select(o.eq(lane, o.i64(j)), words[j], r);
  return r;
}

/// The 32-bit word of element `index`.
Value word32(Ops &o, Value index, Value seed, Value offset) {
  Words w = philoxFor(o, index, seed, offset, 4);
  return pick(o, w.w, w.lane);
}

/// The 64 bits of element `index` (two words, low first).
Value word64(Ops &o, Value index, Value seed, Value offset) {
  Words w = philoxFor(o, index, seed, offset, 2);
  Value isOdd = o.eq(w.lane, o.i64(1));
  Value lo = o.select(isOdd, w.w[2], w.w[0]);
  Value hi = o.select(isOdd, w.w[3], w.w[1]);
  return o.ori(o.ext64(lo), o.shl(o.ext64(hi), o.i64(32)));
}

/// Uniform in [0, 1) of a 32-bit word, with `bits` of it, in f32.
Value uniform32(Ops &o, Value w, unsigned bits) {
  Value top = o.shr(w, o.i32(32 - bits));
  return o.mulf(o.uitofp(o.b.getF32Type(), top), o.fcst(o.b.getF32Type(), std::ldexp(1.0, -int(bits))));
}

/// Uniform in [0, 1) of 64 bits: 53 of them, in f64.
Value uniform64(Ops &o, Value bits) {
  Value top = o.shr(bits, o.i64(11));
  return o.mulf(o.uitofp(o.b.getF64Type(), top), o.fcst(o.b.getF64Type(), 0x1p-53));
}

/// The Box-Muller pair of two uniforms' bits: `a` gives u1 in (0, 1] (so
/// that log(u1) is finite), `c` gives u2 in [0, 1); i32 words in f32, 64-bit
/// values in f64. Returns r cos(theta) and r sin(theta).
std::pair<Value, Value> boxMuller(Ops &o, Value a, Value c, bool f64, MathAccuracy accuracy) {
  MathBuilder math(o.b, o.loc, accuracy);
  Type ft = f64 ? Type(o.b.getF64Type()) : Type(o.b.getF32Type());
  Value u1, u2;
  if (f64) {
    Value top = o.shr(a, o.i64(11));
    u1 = o.mulf(o.uitofp(ft, o.addi(top, o.i64(1))), o.fcst(ft, 0x1p-53));
    u2 = uniform64(o, c);
  } else {
    Value top = o.shr(a, o.i32(8));
    u1 = o.mulf(o.uitofp(ft, o.addi(top, o.i32(1))), o.fcst(ft, 0x1p-24));
    u2 = uniform32(o, c, 24);
  }
  // r = sqrt(-2 log u1), theta = 2 pi u2.
  Value r = LLVM::SqrtOp::create(o.b, o.loc, o.mulf(o.fcst(ft, -2.0), math.log(u1)));
  Value theta = o.mulf(o.fcst(ft, 6.283185307179586), u2);
  return {o.mulf(r, math.cos(theta)), o.mulf(r, math.sin(theta))};
}

Value bits64(Ops &o, Value lo, Value hi) {
  return o.ori(o.ext64(lo), o.shl(o.ext64(hi), o.i64(32)));
}

/// A standard normal of element `index`, in f32 or (f64) f64: the first of
/// a pair of lanes takes the cosine, the second the sine.
Value normal(Ops &o, Value index, Value seed, Value offset, bool f64, MathAccuracy accuracy) {
  Value a, c, second;
  if (f64) {
    // Two 53-bit uniforms from the counter's four words; lanes 0 and 1.
    Words w = philoxFor(o, index, seed, offset, 2);
    a = bits64(o, w.w[0], w.w[1]);
    c = bits64(o, w.w[2], w.w[3]);
    second = o.eq(w.lane, o.i64(1));
  } else {
    // Lanes 2j and 2j + 1 share words 2j (u1) and 2j + 1 (u2).
    Words w = philoxFor(o, index, seed, offset, 4);
    Value isSecondPair = o.eq(o.shr(w.lane, o.i64(1)), o.i64(1));
    a = o.select(isSecondPair, w.w[2], w.w[0]);
    c = o.select(isSecondPair, w.w[3], w.w[1]);
    second = o.eq(o.andi(w.lane, o.i64(1)), o.i64(1));
  }
  auto [cosine, sine] = boxMuller(o, a, c, f64, accuracy);
  return o.select(second, sine, cosine);
}

//===----------------------------------------------------------------------===//
// Aligned vectors: one Philox call per counter
//===----------------------------------------------------------------------===//
//
// A unit of `lanes` consecutive elements whose first index is a multiple of
// `lanes` covers whole counters: lanes / 4 of them for 32-bit results,
// lanes / 2 for 64-bit ones. Philox then runs once per counter, on vectors
// of the counters, and shuffles put each word in its lane: a quarter of the
// per-element work (Philox is ~10 multiply-high pairs), with the same
// values, since the formula is the same.

/// The vector whose lane l is lane l / n of parts[l % n] (all of one type).
Value interleave(OpBuilder &b, Location loc, ArrayRef<Value> parts) {
  auto vt = cast<VectorType>(parts[0].getType());
  int64_t g = vt.getNumElements();
  auto concat = [&](Value x, Value y) {
    SmallVector<int64_t> mask;
    for (int64_t l = 0; l < 2 * vt.getNumElements(); ++l)
      mask.push_back(l);
    return vector::ShuffleOp::create(b, loc, x, y, mask).getResult();
  };
  Value lhs = parts[0], rhs = parts[1];
  if (parts.size() == 4) {
    lhs = concat(parts[0], parts[1]);
    rhs = concat(parts[2], parts[3]);
  }
  int64_t n = parts.size();
  SmallVector<int64_t> mask;
  for (int64_t l = 0; l < n * g; ++l)
    mask.push_back((l % n) * g + l / n);
  return vector::ShuffleOp::create(b, loc, lhs, rhs, mask);
}

/// The words of the `g` consecutive counters from index `base` (i64, a
/// multiple of `perCall`), as vectors of g lanes.
Words counterWords(OpBuilder &b, Location loc, Value base, int64_t g, unsigned perCall,
                   Value seed, Value offset) {
  auto vt = VectorType::get({g}, b.getI64Type());
  Ops o{b, loc, vt};
  SmallVector<APInt> steps;
  for (int64_t j = 0; j < g; ++j)
    steps.push_back(APInt(64, j));
  Value q0 = o.shr(base, arith::ConstantIntOp::create(b, loc, perCall == 4 ? 2 : 1, 64));
  Value q = o.addi(o.splat(q0),
                   arith::ConstantOp::create(b, loc, vt, DenseIntElementsAttr::get(vt, steps)));
  Words r;
  philoxOfCounter(o, q, seed, offset, r.w);
  return r;
}

} // namespace

Value mlir::fuser::emitRandom(OpBuilder &b, Location loc, Operation *op, Value index,
                              Value seed, Value offset, Value p, MathAccuracy accuracy,
                              bool alignedLanes) {
  Ops o{b, loc, index.getType()};
  // Indices in i64 whatever the kernel's index width: the formula is the
  // same for 32- and 64-bit kernels.
  if (getElementTypeOrSelf(index.getType()) != b.getI64Type())
    index = arith::ExtUIOp::create(b, loc, o.like(b.getI64Type()), index);
  Type resultElem = getElementTypeOrSelf(cast<RankedTensorType>(op->getResult(0).getType()));
  auto toResult = [&](Value f) -> Value {
    if (getElementTypeOrSelf(f.getType()) == resultElem)
      return f;
    return arith::TruncFOp::create(b, loc, o.like(resultElem), f);
  };
  bool wide = resultElem.isF64() || resultElem.isInteger(64);
  unsigned perCall = wide ? 2 : 4;
  auto vt = dyn_cast<VectorType>(index.getType());
  int64_t lanes = vt ? vt.getNumElements() : 1;
  // Whole counters per unit: Philox once per counter (see above).
  Words group;
  int64_t g = 0;
  if (alignedLanes && lanes >= perCall && lanes % perCall == 0) {
    g = lanes / perCall;
    Value base = vector::ExtractOp::create(b, loc, index, ArrayRef<int64_t>{0});
    group = counterWords(b, loc, base, g, perCall, seed, offset);
  }
  auto w32 = [&]() -> Value {
    if (g)
      return interleave(b, loc, {group.w[0], group.w[1], group.w[2], group.w[3]});
    return word32(o, index, seed, offset);
  };
  auto w64 = [&]() -> Value {
    if (g)
      return bits64(o, interleave(b, loc, {group.w[0], group.w[2]}),
                    interleave(b, loc, {group.w[1], group.w[3]}));
    return word64(o, index, seed, offset);
  };
  if (isa<RandOp>(op)) {
    if (resultElem.isInteger(32))
      return w32();
    if (resultElem.isInteger(64))
      return w64();
    if (resultElem.isF64())
      return uniform64(o, w64());
    unsigned bits = resultElem.isF16() ? 11 : resultElem.isBF16() ? 8 : 24;
    return toResult(uniform32(o, w32(), bits));
  }
  if (isa<RandnOp>(op)) {
    if (!g)
      return toResult(normal(o, index, seed, offset, resultElem.isF64(), accuracy));
    // One Box-Muller per pair of lanes: cosine to the first, sine to the
    // second.
    // A pair per counter (f64) or two (f32).
    Ops pairs{b, loc, VectorType::get({wide ? g : 2 * g}, b.getI64Type())};
    Value a, c;
    if (wide) {
      a = bits64(pairs, group.w[0], group.w[1]);
      c = bits64(pairs, group.w[2], group.w[3]);
    } else {
      a = interleave(b, loc, {group.w[0], group.w[2]});
      c = interleave(b, loc, {group.w[1], group.w[3]});
    }
    auto [cosine, sine] = boxMuller(pairs, a, c, wide, accuracy);
    return toResult(interleave(b, loc, {cosine, sine}));
  }
  // bernoulli: the uniform of rand at the same index (f32's, f64's for f64)
  // below p gives 1.
  Value u, pc = p;
  if (resultElem.isF64()) {
    u = uniform64(o, w64());
  } else {
    u = uniform32(o, w32(), 24);
    if (!resultElem.isF32())
      pc = arith::ExtFOp::create(
          b, loc,
          isa<VectorType>(p.getType()) ? cast<VectorType>(p.getType()).clone(b.getF32Type())
                                       : Type(b.getF32Type()),
          p);
  }
  pc = o.splat(pc);
  Value hit = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, u, pc);
  return arith::SelectOp::create(b, loc, hit, o.fcst(resultElem, 1.0), o.fcst(resultElem, 0.0));
}
