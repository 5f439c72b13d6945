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
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
namespace func {
class FuncOp;
}
namespace fuser {

class ReshapeOp;

/// The strides of fusion argument `i` (`fuser.strides`; ShapedType::kDynamic
/// for `?`), or none when it is dense row-major (no attribute, or static
/// strides equal to the dense ones).
std::optional<SmallVector<int64_t>> argStrides(func::FuncOp fusion, unsigned i);

class ShapeAnalysis {
public:
  /// Where a symbol comes from: the size (or, with `stride`, the stride in
  /// elements) of dim `dim` of fusion argument `arg`.
  struct Symbol {
    unsigned arg;
    unsigned dim;
    bool stride = false;
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
  /// The strides in elements of `v` when it is a fusion argument declared
  /// as a view (`fuser.strides`): constants, or symbols passed at launch;
  /// empty for a dense row-major tensor.
  ArrayRef<AffineExpr> strides(Value v) const;
  /// The elements a kernel may address from `v`'s start: its number of
  /// elements, or for a view 1 + sum((size - 1) * stride) (an upper bound:
  /// a tensor with a 0 dim addresses none).
  AffineExpr span(Value v) const;

  ArrayRef<Symbol> symbols() const { return symbols_; }
  ArrayRef<Constraint> constraints() const { return constraints_; }
  MLIRContext *getContext() const { return ctx; }

  /// The value of `e` when it is a constant.
  static std::optional<int64_t> constantValue(AffineExpr e);

  /// Whether `r`'s sizes rule guesses how its dims split: two or more
  /// dynamic result dims of other than static size 1, neither sized
  /// already (kSizesAttr, kDimsFromUsesAttr) nor a refinement. Other ops
  /// size such a reshape first (docs/dialect.md).
  static bool reshapeGuessesDims(ReshapeOp r);
  /// Whether such a reshape took its sizes from other ops, not its rule.
  bool sizedByUses(Operation *reshape) const { return reshapesSizedByUses.contains(reshape); }

private:
  MLIRContext *ctx = nullptr;
  SmallVector<Symbol> symbols_;
  SmallVector<Constraint> constraints_;
  DenseMap<Value, SmallVector<AffineExpr>> shapes;
  DenseMap<Value, SmallVector<AffineExpr>> strides_;
  llvm::SmallPtrSet<Operation *, 4> reshapesSizedByUses;
};

} // namespace fuser
} // namespace mlir

#endif // FUSER_ANALYSIS_SHAPEANALYSIS_H
