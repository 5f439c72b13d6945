//===- Reducer.h - the arithmetic of one reduction --------------*- C++ -*-===//
//
// What a kernel needs to reduce with one reduction op: the accumulator's
// values and types, their identity, how an element enters, how two partial
// accumulators combine (in a fixed order, so results are deterministic), and
// the final result. Halves accumulate in f32; var_mean uses Welford's
// algorithm with Chan's combination of partials.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_FUSERTOGPU_REDUCER_H
#define FUSER_CONVERSION_FUSERTOGPU_REDUCER_H

#include "mlir/IR/Builders.h"

namespace mlir::fuser {

class Reducer {
public:
  enum Kind { Sum, Prod, Max, Min, Mean, Any, All, VarMean };

  explicit Reducer(Operation *op);

  Operation *op;
  Kind kind;
  /// The type elements are converted to before they accumulate.
  Type computeType;
  /// The accumulator: one value, or (count, mean, m2) for var_mean.
  SmallVector<Type> accTypes;
  /// A row segment (GroupInfo::rowSegments): the op's rows are `segments`
  /// consecutive parts of the kernel's row, and this reducer adds part
  /// `segment` alone (0 for a reduction over the kernel's own rows).
  int64_t segment = 0, segments = 0;
  bool isRowSegment() const { return segments > 0; }

  /// The identity accumulator, of `lanes` lanes (1: scalars).
  SmallVector<Value> identity(OpBuilder &b, Location loc, unsigned lanes) const;
  /// Adds element(s) `x` (the input's element type) to `acc`.
  SmallVector<Value> accumulate(OpBuilder &b, Location loc, ArrayRef<Value> acc,
                                Value x) const;
  /// Combines two accumulators (a before b).
  SmallVector<Value> combine(OpBuilder &b, Location loc, ArrayRef<Value> a,
                             ArrayRef<Value> bAcc) const;
  /// Combines the lanes of a vector accumulator into a scalar one.
  SmallVector<Value> reduceLanes(OpBuilder &b, Location loc, ArrayRef<Value> acc) const;
  /// The op's results from a scalar accumulator over `count` elements (an
  /// integer value of any width).
  SmallVector<Value> finalize(OpBuilder &b, Location loc, ArrayRef<Value> acc,
                              Value count) const;
  /// acc if `keep`, else identity (for lanes outside the reduced extent).
  SmallVector<Value> selectOrIdentity(OpBuilder &b, Location loc, Value keep,
                                      ArrayRef<Value> acc, unsigned lanes) const;
};

/// Exchanges a 32-bit-or-narrower or 64-bit value across a warp with
/// gpu.shuffle xor (64-bit values as two 32-bit halves).
Value shuffleXor(OpBuilder &b, Location loc, Value v, int32_t offset);

} // namespace mlir::fuser

#endif
