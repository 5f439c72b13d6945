//===- VectorAccesses.cpp - lanes, their launch checks, the body switch ---===//
//
// Every scheduler reads and writes contiguous accesses `vectorLanes` elements
// at a time where the plan finds, at launch, that the sizes divide and the
// buffers are aligned, and one element at a time otherwise. The lanes, the
// plan's checks and the kernel's switch between the two bodies are defined
// here once (GroupEmitter.h), for the pointwise, reduction, normalization
// and inner-outer kernels alike.
//
//===----------------------------------------------------------------------===//

#include "GroupEmitter.h"
#include "KernelBuilder.h"

#include "fuser/Analysis/IndexMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::fuser;

void GroupEmitter::planLanes(unsigned lanes, bool wholeRows,
                             ArrayRef<std::pair<Value, AffineExpr>> contiguous,
                             ArrayRef<AffineExpr> moreTerms) {
  vectorLanes = lanes;
  // Rows of a multi-dim space must hold whole units; a static inner size
  // picks the widest lane count that divides it.
  if (wholeRows && numIterDims > 0) {
    AffineExpr inner = iterSizes.back();
    if (auto c = ShapeAnalysis::constantValue(inner)) {
      while (vectorLanes > 1 && *c % vectorLanes)
        vectorLanes /= 2;
    } else {
      divisibility.push_back(inner);
    }
  }
  // Each contiguous access starts a unit at offset c0 + sum c_j m_j with the
  // lane dim a multiple of the lanes: the other terms must be multiples too.
  for (auto &[v, off] : contiguous) {
    auto c = linearCoefficients(off, numIterDims);
    if (!c) {
      vectorLanes = 1;
      break;
    }
    for (unsigned j = 0; j < numIterDims; ++j) {
      AffineExpr term = simplify((*c)[j], 0, numSymbols);
      if (!isMultipleOf(term, vectorLanes))
        divisibility.push_back(term);
    }
    alignment.push_back({v, std::min(16u, vectorLanes * byteSize(elementTypeOf(v)))});
  }
  for (AffineExpr term : moreTerms)
    if (!isMultipleOf(term, vectorLanes))
      divisibility.push_back(term);
  // A term that is a constant and not a multiple rules the vector path out.
  for (AffineExpr e : divisibility)
    if (ShapeAnalysis::constantValue(e))
      vectorLanes = 1;
  if (vectorLanes == 1) {
    divisibility.clear();
    alignment.clear();
  }
  // One alignment check per buffer, in a deterministic order.
  llvm::MapVector<Value, unsigned> align;
  for (auto &[v, bytes] : alignment)
    align[v] = std::max(align[v], bytes);
  alignment.assign(align.begin(), align.end());
}

Value GroupEmitter::planVectorOk() {
  OpBuilder &pb = fe.planBuilder;
  Value ok = arith::ConstantIntOp::create(pb, fe.loc, 1, 1);
  if (vectorLanes == 1)
    return ok;
  for (AffineExpr e : divisibility) {
    Value rem = arith::RemUIOp::create(pb, fe.loc, fe.planExpr(e), fe.planConstant(vectorLanes));
    ok = arith::AndIOp::create(
        pb, fe.loc, ok,
        arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::eq, rem, fe.planConstant(0)));
  }
  for (auto &[buf, bytes] : alignment)
    ok = arith::AndIOp::create(pb, fe.loc, ok, fe.planAligned(fe.buffers.lookup(buf), bytes));
  return ok;
}

bool GroupEmitter::vectorsAlwaysOk() const {
  for (auto &[buf, bytes] : alignment)
    if (!fe.alignmentPromised(fe.buffers.lookup(buf)))
      return false;
  for (AffineExpr e : divisibility) {
    std::optional<int64_t> n = ShapeAnalysis::constantValue(e);
    if (!n || *n % vectorLanes != 0)
      return false;
  }
  return true;
}

Value GroupEmitter::vectorFlagSet(KernelBuilder &k) {
  return arith::CmpIOp::create(k.b, k.loc, arith::CmpIPredicate::ne, k.flag(vectorFlag),
                               arith::ConstantIntOp::create(k.b, k.loc, 0, 32));
}

void GroupEmitter::emitVectorOrScalar(function_ref<void(unsigned)> body) {
  KernelBuilder &k = *kb;
  OpBuilder &b = k.b;
  if (vectorLanes == 1) {
    body(1);
    return;
  }
  auto ifOp = scf::IfOp::create(b, k.loc, TypeRange{}, vectorFlagSet(k), true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  {
    ExprScope scope(*k.expander);
    body(vectorLanes);
  }
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  {
    ExprScope scope(*k.expander);
    body(1);
  }
}

/// Element `offset + l`: lane l of the unit at `offset`.
static Value laneOffset(KernelBuilder &k, Value offset, int64_t l) {
  return l == 0 ? offset
                : arith::AddIOp::create(k.b, k.loc, offset,
                                        arith::ConstantOp::create(
                                            k.b, k.loc, k.b.getIntegerAttr(offset.getType(), l)))
                      .getResult();
}

Value GroupEmitter::loadUnit(Value v, Type elem, Value offset, unsigned lanes) {
  KernelBuilder &k = *kb;
  if (lanes == 1 || !unitAccessesAligned)
    return k.load(k.pointer(v), elem, offset, lanes);
  OpBuilder &b = k.b;
  auto vt = VectorType::get({lanes}, elem);
  auto ifOp = scf::IfOp::create(b, k.loc, TypeRange{vt}, unitAccessesAligned, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(b, k.loc, k.load(k.pointer(v), elem, offset, lanes));
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  {
    SmallVector<Value> elems;
    for (unsigned l = 0; l < lanes; ++l)
      elems.push_back(k.load(k.pointer(v), elem, laneOffset(k, offset, l), 1));
    scf::YieldOp::create(b, k.loc,
                         Value(vector::FromElementsOp::create(b, k.loc, vt, elems)));
  }
  return ifOp.getResult(0);
}

void GroupEmitter::storeUnit(Value v, Value value, Value offset) {
  KernelBuilder &k = *kb;
  auto vt = dyn_cast<VectorType>(value.getType());
  if (!vt || !unitAccessesAligned) {
    k.store(k.pointer(v), value, offset);
    return;
  }
  OpBuilder &b = k.b;
  auto ifOp = scf::IfOp::create(b, k.loc, TypeRange{}, unitAccessesAligned, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  k.store(k.pointer(v), value, offset);
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  for (int64_t l = 0; l < vt.getNumElements(); ++l)
    k.store(k.pointer(v), vector::ExtractOp::create(b, k.loc, value, ArrayRef<int64_t>{l}),
            laneOffset(k, offset, l));
}
