//===- ShapeAnalysis.h - symbolic sizes of a fusion's tensors ---*- C++ -*-===//
//
// Every dim of every tensor in a fusion as an affine expression over the
// fusion's symbols: symbol k is the k-th dynamic dim of the fusion's
// arguments (in signature order). Elementwise ops, broadcasts and the like
// tie dims together; where two known sizes meet that are not provably equal,
// the analysis records a constraint that the launch plan checks at run time.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_ANALYSIS_SHAPEANALYSIS_H
#define FUSER_ANALYSIS_SHAPEANALYSIS_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
namespace func {
class FuncOp;
}
namespace fuser {

class ShapeAnalysis {
public:
  /// Where a symbol comes from: dim `dim` of fusion argument `arg`.
  struct Symbol {
    unsigned arg;
    unsigned dim;
  };
  /// A run-time condition on sizes: `lhs == rhs` or `lhs <= rhs`.
  struct Constraint {
    enum Kind { Equal, LessEqual } kind;
    AffineExpr lhs, rhs;
    std::string what; ///< Names both sides, for the failure message.
  };

  /// Analyzes `fusion`; emits a diagnostic and fails when a dynamic size
  /// cannot be determined from the arguments.
  static FailureOr<ShapeAnalysis> analyze(func::FuncOp fusion);

  /// The sizes of `v` (a tensor of the fusion), one expression per dim.
  ArrayRef<AffineExpr> shape(Value v) const;
  /// The number of elements of `v`.
  AffineExpr numElements(Value v) const;

  ArrayRef<Symbol> symbols() const { return symbols_; }
  ArrayRef<Constraint> constraints() const { return constraints_; }
  MLIRContext *getContext() const { return ctx; }

  /// The value of `e` when it is a constant.
  static std::optional<int64_t> constantValue(AffineExpr e);

private:
  MLIRContext *ctx = nullptr;
  SmallVector<Symbol> symbols_;
  SmallVector<Constraint> constraints_;
  DenseMap<Value, SmallVector<AffineExpr>> shapes;
};

} // namespace fuser
} // namespace mlir

#endif // FUSER_ANALYSIS_SHAPEANALYSIS_H
