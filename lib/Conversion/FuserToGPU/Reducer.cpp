//===- Reducer.cpp - the arithmetic of one reduction ----------------------===//

#include "Reducer.h"

#include "ElementwiseEmitter.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fuser;

static Type elementOf(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    return v.getElementType();
  return t;
}
static Type withLanes(Type e, unsigned lanes) {
  return lanes > 1 ? Type(VectorType::get({lanes}, e)) : e;
}
static unsigned lanesOf(Value v) {
  auto t = dyn_cast<VectorType>(v.getType());
  return t ? t.getNumElements() : 1;
}

Reducer::Reducer(Operation *op) : op(op) {
  kind = TypeSwitch<Operation *, Kind>(op)
             .Case<SumOp>([](auto) { return Sum; })
             .Case<ProdOp>([](auto) { return Prod; })
             .Case<MaxOp>([](auto) { return Max; })
             .Case<MinOp>([](auto) { return Min; })
             .Case<MeanOp>([](auto) { return Mean; })
             .Case<AnyOp>([](auto) { return Any; })
             .Case<AllOp>([](auto) { return All; })
             .Case<VarMeanOp>([](auto) { return VarMean; });
  Type in = cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
  MLIRContext *ctx = op->getContext();
  if (kind == Any || kind == All)
    computeType = IntegerType::get(ctx, 1);
  else if (in.isF16() || in.isBF16())
    computeType = Float32Type::get(ctx);
  else
    computeType = in;
  // max/min of i1 is any/all.
  if (computeType.isInteger(1) && kind == Max)
    kind = Any;
  if (computeType.isInteger(1) && kind == Min)
    kind = All;
  if (kind == VarMean)
    accTypes = {computeType, computeType, computeType};
  else
    accTypes = {computeType};
}

static Value constant(OpBuilder &b, Location loc, Type t, double f, int64_t i) {
  Type e = elementOf(t);
  TypedAttr a = isa<FloatType>(e) ? TypedAttr(b.getFloatAttr(e, f)) : b.getIntegerAttr(e, i);
  if (auto v = dyn_cast<VectorType>(t))
    a = DenseElementsAttr::get(v, a);
  return arith::ConstantOp::create(b, loc, t, a);
}

SmallVector<Value> Reducer::identity(OpBuilder &b, Location loc, unsigned lanes) const {
  Type t = withLanes(computeType, lanes);
  bool isFloat = isa<FloatType>(computeType);
  unsigned w = computeType.getIntOrFloatBitWidth();
  switch (kind) {
  case Sum:
  case Mean:
    return {constant(b, loc, t, 0, 0)};
  case Prod:
    return {constant(b, loc, t, 1, 1)};
  case Max:
    return {constant(b, loc, t, -INFINITY, llvm::APInt::getSignedMinValue(w).getSExtValue())};
  case Min:
    return {constant(b, loc, t, INFINITY, llvm::APInt::getSignedMaxValue(w).getSExtValue())};
  case Any:
    return {constant(b, loc, t, 0, 0)};
  case All:
    return {constant(b, loc, t, 0, 1)};
  case VarMean:
    return {constant(b, loc, t, 0, 0), constant(b, loc, t, 0, 0), constant(b, loc, t, 0, 0)};
  }
  (void)isFloat;
  return {};
}

/// The binary op of the simple kinds.
static Value apply(OpBuilder &b, Location loc, Reducer::Kind kind, Value x, Value y) {
  bool isFloat = isa<FloatType>(elementOf(x.getType()));
  switch (kind) {
  case Reducer::Sum:
  case Reducer::Mean:
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case Reducer::Prod:
    return isFloat ? arith::MulFOp::create(b, loc, x, y).getResult()
                   : arith::MulIOp::create(b, loc, x, y).getResult();
  case Reducer::Max:
    return isFloat ? LLVM::MaximumOp::create(b, loc, x, y).getResult()
                   : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case Reducer::Min:
    return isFloat ? LLVM::MinimumOp::create(b, loc, x, y).getResult()
                   : arith::MinSIOp::create(b, loc, x, y).getResult();
  case Reducer::Any:
    return arith::OrIOp::create(b, loc, x, y);
  case Reducer::All:
    return arith::AndIOp::create(b, loc, x, y);
  case Reducer::VarMean:
    break;
  }
  llvm_unreachable("var_mean has no simple binary op");
}

SmallVector<Value> Reducer::accumulate(OpBuilder &b, Location loc, ArrayRef<Value> acc,
                                       Value x) const {
  // Convert the element to the compute type (halves widen; != 0 for bools).
  Value c = emitCast(b, loc, x, computeType);
  if (kind != VarMean)
    return {apply(b, loc, kind, acc[0], c)};
  // Welford: n += 1; d = x - mean; mean += d / n; m2 += d * (x - mean).
  // The lanes of a unit enter together, so they share n: one reciprocal per
  // unit instead of a division per lane.
  Type t = c.getType();
  Value n = arith::AddFOp::create(b, loc, acc[0], constant(b, loc, t, 1, 1));
  Value d = arith::SubFOp::create(b, loc, c, acc[1]);
  Value inv;
  if (auto vt = dyn_cast<VectorType>(t)) {
    Value n0 = vector::ExtractOp::create(b, loc, n, ArrayRef<int64_t>{0});
    inv = arith::DivFOp::create(b, loc, constant(b, loc, vt.getElementType(), 1, 1), n0);
    inv = vector::BroadcastOp::create(b, loc, vt, inv);
  } else {
    inv = arith::DivFOp::create(b, loc, constant(b, loc, t, 1, 1), n);
  }
  Value mean = arith::AddFOp::create(b, loc, acc[1], arith::MulFOp::create(b, loc, d, inv));
  Value m2 = arith::AddFOp::create(
      b, loc, acc[2], arith::MulFOp::create(b, loc, d, arith::SubFOp::create(b, loc, c, mean)));
  return {n, mean, m2};
}

SmallVector<Value> Reducer::combine(OpBuilder &b, Location loc, ArrayRef<Value> a,
                                    ArrayRef<Value> o) const {
  if (kind != VarMean)
    return {apply(b, loc, kind, a[0], o[0])};
  // Chan et al.: n = na + nb, d = mb - ma, mean = ma + d * nb / n,
  // m2 = m2a + m2b + d^2 * na * nb / n.
  Type t = a[0].getType();
  Value zero = constant(b, loc, t, 0, 0);
  Value n = arith::AddFOp::create(b, loc, a[0], o[0]);
  Value d = arith::SubFOp::create(b, loc, o[1], a[1]);
  Value safeN = arith::SelectOp::create(
      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, n, zero),
      constant(b, loc, t, 1, 1), n);
  Value wb = arith::DivFOp::create(b, loc, o[0], safeN);
  Value mean = arith::AddFOp::create(b, loc, a[1], arith::MulFOp::create(b, loc, d, wb));
  // (d * (na * nb / n)) * d: d^2 first overflowed for values of 2^64 or
  // more where the whole term does not.
  Value m2 = arith::AddFOp::create(
      b, loc, arith::AddFOp::create(b, loc, a[2], o[2]),
      arith::MulFOp::create(
          b, loc, arith::MulFOp::create(b, loc, d, arith::MulFOp::create(b, loc, a[0], wb)), d));
  // An empty side leaves the other exactly, also where the arithmetic
  // would not (an inf d times a weight of 0 is NaN: a partial of values
  // beyond 2^64 beside an empty one gave a NaN variance; PyTorch's is the
  // other side's).
  Value aEmpty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a[0], zero);
  Value oEmpty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, o[0], zero);
  SmallVector<Value> out{n, mean, m2};
  for (unsigned k = 1; k < 3; ++k) {
    out[k] = arith::SelectOp::create(b, loc, aEmpty, o[k], out[k]);
    out[k] = arith::SelectOp::create(b, loc, oEmpty, a[k], out[k]);
  }
  return out;
}

SmallVector<Value> Reducer::reduceLanes(OpBuilder &b, Location loc,
                                        ArrayRef<Value> acc) const {
  unsigned lanes = lanesOf(acc[0]);
  if (lanes == 1)
    return SmallVector<Value>(acc);
  // A fixed tree over the lanes.
  SmallVector<SmallVector<Value>> parts;
  for (unsigned l = 0; l < lanes; ++l) {
    SmallVector<Value> p;
    for (Value v : acc)
      p.push_back(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{(int64_t)l}));
    parts.push_back(p);
  }
  while (parts.size() > 1) {
    SmallVector<SmallVector<Value>> next;
    for (size_t i = 0; i + 1 < parts.size(); i += 2)
      next.push_back(combine(b, loc, parts[i], parts[i + 1]));
    if (parts.size() % 2)
      next.push_back(parts.back());
    parts = std::move(next);
  }
  return parts[0];
}

SmallVector<Value> Reducer::finalize(OpBuilder &b, Location loc, ArrayRef<Value> acc,
                                     Value count) const {
  Type resultElem =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  unsigned lanes = lanesOf(acc[0]);
  // The element count as a float of the accumulator's shape.
  auto countAs = [&](Type t) -> Value {
    Value n = arith::UIToFPOp::create(b, loc, t, count);
    if (lanes > 1)
      n = vector::BroadcastOp::create(b, loc, VectorType::get({lanes}, t), n);
    return n;
  };
  switch (kind) {
  case Mean: {
    Value n = countAs(computeType);
    return {emitCast(b, loc, arith::DivFOp::create(b, loc, acc[0], n), resultElem)};
  }
  case VarMean: {
    // var = m2 / max(n - correction, 0), as torch.var_mean (0/0 is NaN).
    auto vm = cast<VarMeanOp>(op);
    Type t = withLanes(computeType, lanes);
    Value n = countAs(computeType);
    Value dof = arith::SubFOp::create(b, loc, n,
                                      constant(b, loc, t, (double)(int64_t)vm.getCorrection(), 0));
    dof = arith::MaximumFOp::create(b, loc, dof, constant(b, loc, t, 0, 0));
    Value var = arith::DivFOp::create(b, loc, acc[2], dof);
    // An empty reduction has no mean either.
    Value mean = arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, n, constant(b, loc, t, 0, 0)),
        constant(b, loc, t, NAN, 0), acc[1]);
    return {emitCast(b, loc, var, resultElem), emitCast(b, loc, mean, resultElem)};
  }
  default:
    return {emitCast(b, loc, acc[0], resultElem)};
  }
}

SmallVector<Value> Reducer::selectOrIdentity(OpBuilder &b, Location loc, Value keep,
                                             ArrayRef<Value> acc, unsigned lanes) const {
  SmallVector<Value> id = identity(b, loc, lanes), out;
  for (auto [a, i] : llvm::zip(acc, id))
    out.push_back(arith::SelectOp::create(b, loc, keep, a, i));
  return out;
}

Value mlir::fuser::shuffleXor(OpBuilder &b, Location loc, Value v, int32_t offset) {
  Type t = v.getType();
  Type i32 = b.getI32Type();
  Value off = arith::ConstantIntOp::create(b, loc, offset, 32);
  Value width = arith::ConstantIntOp::create(b, loc, 32, 32);
  auto shuffle32 = [&](Value x) {
    return gpu::ShuffleOp::create(b, loc, x, off, width, gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  unsigned bits = t.getIntOrFloatBitWidth();
  if (bits == 64) {
    // Shuffles move 32 bits: the two halves of the i64 (or f64) bits.
    Type i64 = b.getI64Type();
    Value w = t == i64 ? v : arith::BitcastOp::create(b, loc, i64, v).getResult();
    Value c32 = arith::ConstantIntOp::create(b, loc, 32, 64);
    Value lo = shuffle32(arith::TruncIOp::create(b, loc, i32, w));
    Value hi = shuffle32(
        arith::TruncIOp::create(b, loc, i32, arith::ShRUIOp::create(b, loc, w, c32)));
    Value r = arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, lo),
        arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, hi), c32));
    return t == i64 ? r : arith::BitcastOp::create(b, loc, t, r).getResult();
  }
  if (bits < 32) {
    Value w = isa<FloatType>(t) ? Value() : arith::ExtUIOp::create(b, loc, i32, v).getResult();
    assert(w && "halves accumulate in f32");
    return arith::TruncIOp::create(b, loc, t, shuffle32(w));
  }
  if (t == i32 || t.isF32())
    return shuffle32(v);
  return arith::BitcastOp::create(b, loc, t, shuffle32(arith::BitcastOp::create(b, loc, i32, v)));
}
