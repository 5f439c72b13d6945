//===- IndexMath.h - affine index expressions of kernels --------*- C++ -*-===//
//
// Kernels address tensors with affine expressions over their iteration dims
// and the fusion's symbols. These helpers linearize and delinearize row-major
// indices and split an expression into its per-dim coefficients when it is
// linear in the dims (coefficients may be symbolic), which is what decides
// vector access, alignment and dim merging. operandIndexOf says at which
// index each op reads its operands for an index of its result: the one
// definition the kernel emitters and the segmenter's index-growth bound
// (IndexGrowth.h) share.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_ANALYSIS_INDEXMATH_H
#define FUSER_ANALYSIS_INDEXMATH_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::fuser {

class ShapeAnalysis;

/// How a value is indexed: one expression per dim, or (after a reshape) its
/// row-major linear index, which every same-shape consumer shares.
struct Index {
  bool linear = false;
  SmallVector<AffineExpr> exprs;

  bool operator==(const Index &o) const {
    return linear == o.linear && exprs == o.exprs;
  }
};

/// Row-major linear index of `index` in `shape`.
AffineExpr linearize(ArrayRef<AffineExpr> index, ArrayRef<AffineExpr> shape);

/// Row-major multi-index of linear index `linear` in `shape`.
SmallVector<AffineExpr> delinearize(AffineExpr linear, ArrayRef<AffineExpr> shape);

/// `e` as c[0] + sum_k c[k+1] * d_k with every c free of dims, or nullopt
/// when `e` is not linear in the dims (a dim under a division or modulo, or
/// a product of dims).
std::optional<SmallVector<AffineExpr>> linearCoefficients(AffineExpr e,
                                                          unsigned numDims);

/// Simplifies `e` (no dims beyond `numDims`, symbols beyond `numSymbols`).
AffineExpr simplify(AffineExpr e, unsigned numDims, unsigned numSymbols);

/// Whether `e` is provably a multiple of `m` (a constant `e`, a product with
/// a constant multiple of `m`, or a sum of such).
bool isMultipleOf(AffineExpr e, int64_t m);

/// The multi-index of a value of shape `shape` read at `idx`.
SmallVector<AffineExpr> multiIndexIn(ArrayRef<AffineExpr> shape, const Index &idx);
/// The row-major linear index of a value of shape `shape` read at `idx`.
AffineExpr linearIndexIn(ArrayRef<AffineExpr> shape, const Index &idx, MLIRContext *ctx);

/// The index at which `op` reads its operand `i` for its result's element
/// at `idx`: a broadcast, permute, reshape (the result's linear index),
/// slice, pad or concat maps it; an index_select reads its index operand
/// at the result's position along its dim; every other op (elementwise)
/// reads its operands at the result's index. A rank-0 operand is read at
/// the empty index.
Index operandIndexOf(Operation *op, unsigned i, const Index &idx, const ShapeAnalysis &shapes);

} // namespace mlir::fuser

#endif
