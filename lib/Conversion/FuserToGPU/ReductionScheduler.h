//===- ReductionScheduler.h - reductions and normalizations -----*- C++ -*-===//
//
// Kernels for reduction and normalization groups (GroupAnalysis.h):
//  - inner (the reduced dims are the fastest-varying ones): threads of a
//    block walk a row with vector loads, warp shuffles then shared memory
//    combine their partials, several rows per block when rows are short.
//    A normalization keeps its row in registers between its reductions (each
//    thread holds its units of the row) for rows of up to 32768 elements;
//    with a row length known only at launch, a variant with a fixed number
//    of masked slots per thread does so for rows of 512 to 16384 elements
//    (8192 with 64-bit indices). Longer or shorter rows, and rows of a
//    misaligned buffer, are read again for each pass (the documented
//    fallback).
//    A reduction with few long rows splits them across blocks and combines
//    the partials in a second kernel.
//  - outer (a kept dim is the fastest-varying one): threads run along the
//    kept dim (coalesced) and loop over the reduced dims; 8 rows of threads
//    combine through shared memory; when there are few columns the reduced
//    dims split across blocks and a second kernel combines the partials.
// Partials always combine in a fixed order: results do not change from run
// to run (no atomics).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_FUSERTOGPU_REDUCTIONSCHEDULER_H
#define FUSER_CONVERSION_FUSERTOGPU_REDUCTIONSCHEDULER_H

#include "GroupEmitter.h"
#include "Reducer.h"

#include "fuser/Analysis/GroupAnalysis.h"

namespace mlir::fuser {

class ReductionScheduler : public GroupEmitter {
public:
  ReductionScheduler(FusionEmitter &fe, const Segment &seg, GroupInfo info);
  LogicalResult run();

private:
  /// One unit of a row (lanes consecutive reduced elements) whose values a
  /// persistent kernel keeps across the reductions of the row.
  struct Unit {
    std::unique_ptr<ExprExpander> expander;
    Memo memo;
    SmallVector<Value> values; ///< iteration dims
    Value inRange;             ///< null when always in range
    bool masked = false;       ///< loads only where inRange holds
  };

  /// Plan condition: vector accesses are aligned and whole.
  Value planVectorOk();
  Index sIndex();
  Index rIndex(Value v);
  /// Row-major values of the iteration dims `dims` for linear index `linear`.
  void assignIterValues(Value linear, ArrayRef<unsigned> dims, SmallVector<Value> &out);
  /// Combines per-thread accumulators over a warp, then over the block's
  /// warps of the same row (through `scratch`, one memref per value).
  SmallVector<Value> blockReduce(const Reducer &r, SmallVector<Value> acc,
                                 ArrayRef<Value> scratch, Value tx, Value ty,
                                 Value threadsPerRow, int64_t staticThreads);
  /// Emits `body` with unit `u`'s expander and memo in place.
  void withUnit(Unit &u, function_ref<void()> body);
  void storeOutput(Value out, const Index &idx, unsigned lanes, Value guard);

  /// Builds an inner kernel and its launch. `split`: each row's units
  /// divide among `splitsValue` blocks along y that write partials, and a
  /// combine kernel follows.
  /// Which bodies a kernel has: both, chosen by its vector flag, or only
  /// the one the plan's launch condition guarantees.
  enum class Bodies { Both, VectorOnly, ScalarOnly };
  void emitInner(unsigned indexBits, int64_t staticThreads, bool persistent,
                 bool split = false, Bodies bodies = Bodies::Both);
  /// One row of an inner kernel; `split` (the block's y index, or null)
  /// restricts it to that block's chunk of the row.
  void emitInnerRow(unsigned lanes, Value row, Value valid, Value tx, Value ty,
                    Value threadsPerRow, int64_t staticThreads, bool persistent,
                    ArrayRef<SmallVector<Value>> scratch, Value split);
  /// Builds the outer kernel and its launch on `grid` x `splits` blocks
  /// (split: it writes partial accumulators instead of outputs).
  void emitOuter(unsigned indexBits, bool split, Value grid, Value splits, Value flag,
                 Value cond);
  void emitOuterCombine(unsigned indexBits, Value grid, Value splits, Value cond);

  GroupInfo info;
  std::vector<Reducer> reducers;
  SmallVector<unsigned> level;
  unsigned numLevels = 1;
  SmallVector<int> dimClass;   ///< d-space: 1 for reduced dims
  SmallVector<unsigned> keptIter, reducedIter;
  SmallVector<Value> sOutputs, rOutputs;
  llvm::DenseSet<Value> dependsOnReduction;
  bool innerStyle = true;
  AffineExpr keptSize, reducedSize;
  /// Outer split: the partial accumulators in the plan, one buffer per
  /// accumulator value of each reducer.
  SmallVector<Value> partials;
  Value splitsValue; ///< plan value
  Value innerSplitCond; ///< plan value: the inner split variant runs
};

LogicalResult emitReductionSegment(FusionEmitter &fe, const Segment &segment,
                                   const GroupInfo &info);

} // namespace mlir::fuser

#endif
