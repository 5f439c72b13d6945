//===- IndexMath.h - affine index expressions of kernels --------*- C++ -*-===//
//
// Kernels address tensors with affine expressions over their iteration dims
// and the fusion's symbols. These helpers linearize and delinearize row-major
// indices and split an expression into its per-dim coefficients when it is
// linear in the dims (coefficients may be symbolic), which is what decides
// vector access, alignment and dim merging.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_FUSERTOGPU_INDEXMATH_H
#define FUSER_CONVERSION_FUSERTOGPU_INDEXMATH_H

#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::fuser {

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

} // namespace mlir::fuser

#endif
