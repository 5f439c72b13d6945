//===- PointwiseScheduler.h - the pointwise kernel family -------*- C++ -*-===//
//
// The scheduler of pointwise segments: a vectorized grid-stride loop
// (PointwiseScheduler.cpp), or, when an input is read across its contiguous
// dim, the shared-memory tiled transpose (TransposeScheduler.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_FUSERTOGPU_POINTWISESCHEDULER_H
#define FUSER_CONVERSION_FUSERTOGPU_POINTWISESCHEDULER_H

#include "GroupEmitter.h"

namespace mlir::fuser {

/// The pointwise scheduler: a vectorized grid-stride loop over the output
/// space (PointwiseScheduler.cpp), or the tiled transpose
/// (TransposeScheduler.cpp).
class PointwiseScheduler : public GroupEmitter {
public:
  using GroupEmitter::GroupEmitter;
  LogicalResult run();
  /// Emits `segments` (pointwise, each reading only values computed before
  /// the first) as one horizontal kernel: blocks [0, B0) run the first
  /// segment's grid-stride loop, [B0, B0 + B1) the second's, and so on.
  /// Those that take another shape (the transpose) or another block size
  /// stay out. Returns the segments emitted; none, having emitted nothing,
  /// when the first stays out or no other joins it.
  static SmallVector<const Segment *> emitHorizontal(FusionEmitter &fe,
                                                     ArrayRef<const Segment *> segments);

private:
  /// Analyzes the segment and chooses its shape (plain loop or transpose,
  /// concat pieces), without emitting anything.
  LogicalResult plan();
  /// Whether plan() chose the transpose shape.
  bool transposeShape = false;
  /// A result of a unit, stored after every unit of a step is computed.
  struct PendingStore {
    Value ptr, value, offset;
  };
  /// Computes every output of the unit at element `linear`; stores them, or
  /// appends them to `pending` for the caller to store.
  void emitUnit(Value linear, unsigned lanes,
                SmallVectorImpl<PendingStore> *pending = nullptr);
  void emitKernel(unsigned indexBits);
  /// The elements of the iteration space (one piece of a split dim).
  AffineExpr iterationCount();
  /// The pointwise.* keys of the segment's schedule (fe.schedule).
  void readSchedule();
  /// The grid-stride loops, for the blocks `bid` of `gdim` (the kernel's own
  /// block id and grid where null).
  void emitBody(Value bid, Value gdim);
  /// The plan's side of a launch: the grid, its condition, the vector flag,
  /// and the explain note.
  struct Grid {
    Value blocks, cond, flag;
    std::string note;
  };
  Grid planGrid();
  /// Threads per block (pointwise.block).
  int64_t block = 256;
  /// Analyzes the outputs (at every piece of a split dim), chooses the
  /// iteration space and the lanes.
  void planSpaceAndLanes();
  /// The lanes the schedule's widest access holds (pointwise.vector_bytes
  /// of the narrowest contiguous element), before the sizes and offsets
  /// narrow them to vectorLanes.
  unsigned widestLanes = 1;
  /// Whether the heuristic chose one lane for that reason (explain).
  bool computeBound = false;
  /// Vector units each thread computes per step of the grid-stride loop.
  int64_t unitsPerThread = 1;
  /// The grid's cap in full waves at full occupancy (0: a block per
  /// `block` units, no cap).
  int64_t gridWaves = 1;
  /// Chooses the transposed dim when some input is read across its
  /// contiguous dim; false when the vectorized loop serves better.
  bool planTranspose();
  LogicalResult emitTransposeKernel(unsigned indexBits);
  /// The shared memory the staged tiles take at the schedule's tile size.
  int64_t stagedTileBytes();
  /// The staged copy of an input access, when the transpose shape reads it
  /// from shared memory.
  Value stagedLoad(Value input, AffineExpr offset);
  std::optional<Lanes> loadHook(Value input, AffineExpr offset, unsigned lanes) override {
    if (Value s = stagedLoad(input, offset))
      return Lanes{s, true};
    return std::nullopt;
  }
};

} // namespace mlir::fuser

#endif
