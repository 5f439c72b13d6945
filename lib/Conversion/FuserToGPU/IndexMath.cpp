//===- IndexMath.cpp - affine index expressions of kernels ----------------===//

#include "IndexMath.h"

#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace mlir::fuser;

AffineExpr mlir::fuser::linearize(ArrayRef<AffineExpr> index,
                                  ArrayRef<AffineExpr> shape) {
  assert(index.size() == shape.size());
  if (index.empty())
    return {};
  AffineExpr l = index[0];
  for (size_t i = 1; i < index.size(); ++i)
    l = l * shape[i] + index[i];
  return l;
}

SmallVector<AffineExpr> mlir::fuser::delinearize(AffineExpr linear,
                                                 ArrayRef<AffineExpr> shape) {
  SmallVector<AffineExpr> index(shape.size());
  AffineExpr rest = linear;
  for (size_t i = shape.size(); i-- > 0;) {
    if (i == 0) {
      index[0] = rest;
      break;
    }
    index[i] = rest % shape[i];
    rest = rest.floorDiv(shape[i]);
  }
  return index;
}

std::optional<SmallVector<AffineExpr>>
mlir::fuser::linearCoefficients(AffineExpr e, unsigned numDims) {
  MLIRContext *ctx = e.getContext();
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  SmallVector<AffineExpr> c(numDims + 1, zero);
  if (isa<AffineConstantExpr, AffineSymbolExpr>(e)) {
    c[0] = e;
    return c;
  }
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    c[d.getPosition() + 1] = getAffineConstantExpr(1, ctx);
    return c;
  }
  auto bin = cast<AffineBinaryOpExpr>(e);
  AffineExpr l = bin.getLHS(), r = bin.getRHS();
  switch (e.getKind()) {
  case AffineExprKind::Add: {
    auto a = linearCoefficients(l, numDims), b = linearCoefficients(r, numDims);
    if (!a || !b)
      return std::nullopt;
    for (unsigned i = 0; i <= numDims; ++i)
      c[i] = (*a)[i] + (*b)[i];
    return c;
  }
  case AffineExprKind::Mul: {
    AffineExpr scale = r, other = l;
    if (!r.isSymbolicOrConstant())
      std::swap(scale, other);
    if (!scale.isSymbolicOrConstant())
      return std::nullopt;
    auto a = linearCoefficients(other, numDims);
    if (!a)
      return std::nullopt;
    for (unsigned i = 0; i <= numDims; ++i)
      c[i] = (*a)[i] * scale;
    return c;
  }
  default:
    if (!e.isSymbolicOrConstant())
      return std::nullopt;
    c[0] = e;
    return c;
  }
}

AffineExpr mlir::fuser::simplify(AffineExpr e, unsigned numDims,
                                 unsigned numSymbols) {
  return simplifyAffineExpr(e, numDims, numSymbols);
}

bool mlir::fuser::isMultipleOf(AffineExpr e, int64_t m) {
  if (m == 1)
    return true;
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue() % m == 0;
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return false;
  if (e.getKind() == AffineExprKind::Add)
    return isMultipleOf(bin.getLHS(), m) && isMultipleOf(bin.getRHS(), m);
  if (e.getKind() == AffineExprKind::Mul)
    return isMultipleOf(bin.getLHS(), m) || isMultipleOf(bin.getRHS(), m);
  return false;
}
