//===- ReductionScheduler.h - reductions and normalizations -----*- C++ -*-===//
//
// Kernels for reduction and normalization groups (GroupAnalysis.h):
//  - inner (the reduced dims are the fastest-varying ones): threads of a
//    block walk a row with vector loads, warp shuffles then shared memory
//    combine their partials, several rows per block when rows are short.
//    A normalization keeps its row in registers between its reductions (each
//    thread holds its units of the row) for rows of up to 32768 elements
//    (49152 two-byte ones; up to 65536 with the rest of the row in shared
//    memory, RowInShared.cpp);
//    with a row length known only at launch, a variant with a fixed number
//    of masked slots per thread does so for rows of whole vectors up to
//    32768 elements (65536 two-byte ones, part in shared memory; 8192
//    with 64-bit indices), and one of masked scalar
//    slots for other rows up to 8192 (32-bit indices). Longer rows are read
//    again for each pass (the documented fallback).
//    A reduction with few long rows splits them across blocks; the last
//    block of a row to finish combines the partials, in the same launch.
//  - outer (a kept dim is the fastest-varying one): threads run along the
//    kept dim (coalesced) and loop over the reduced dims; 8 rows of threads
//    combine through shared memory; when there are few columns the reduced
//    dims split across blocks, which write partials; the last block of a
//    column tile to finish (an atomic counter, fences) combines them in
//    split order, in the same launch.
//  - outer normalization (OuterNormalization.cpp): the outer kernel's
//    threads, each block holding whole columns (at most 256 positions,
//    static) on chip between the passes; the rows of threads combine
//    through shared memory after each pass.
//  - inner-outer (GroupAnalysis.h): the inner kernel, whose threads also
//    accumulate the column reductions of the rows they hold, one slot per
//    unit of the row, across the row blocks the block walks; the block's
//    rows of threads combine their slots through shared memory, and the
//    block writes one row of partials. A second kernel combines the
//    partials of the blocks in block order. The accumulators live in
//    registers (rows up to 8192 elements), or in dynamic shared memory
//    (up to 16384), with the rows' loads past 8 values a thread there
//    too; misaligned or non-vector rows up to 8192 are held in scalar
//    slots (past 4096 with the accumulators in shared memory). Rows that
//    do not stay on chip are read again per pass by blocks of one row,
//    which accumulate their partials in their own row of the partial
//    buffer (docs/schedulers.md).
// Partials always combine in a fixed order: results do not change from run
// to run (no value is accumulated with atomics; an atomic counter only
// elects the last block).
//
// Files: ReductionHeuristics.h (the decisions, no IR), ReductionScheduler.cpp
// (analysis and driver), InnerReduction.cpp, OuterReduction.cpp,
// OuterNormalization.cpp, InnerOuter.cpp, RowInShared.cpp,
// CombinePartials.cpp (partials, by the last block or a combine kernel).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_FUSERTOGPU_REDUCTIONSCHEDULER_H
#define FUSER_CONVERSION_FUSERTOGPU_REDUCTIONSCHEDULER_H

#include "GroupEmitter.h"
#include "Reducer.h"
#include "ReductionHeuristics.h"

#include "fuser/Analysis/GroupAnalysis.h"

namespace mlir::fuser {

/// An inner-outer kernel's threads hold at most this many values of a row
/// and as many column accumulators per column reduction in registers: a
/// layer_norm backward (x and dy, dw and db) takes 125 registers of the 128
/// a block of 512 threads allows at 16; at 32 it spilled (H = 16384 bf16:
/// 464 bytes). Rows of up to twice that keep the accumulators in shared
/// memory instead, in blocks of 512 threads that hold
/// kInnerOuterSharedValuesPerThread values of the row each, reading the
/// weight again per row (emitInner: hoisted out of the row loop with its
/// f32 conversion it spilled 92 bytes at H = 16384 bf16; 1024 threads of 16
/// values and 64 registers spilled 128).
inline constexpr int64_t kInnerOuterValuesPerThread = 16;
inline constexpr int64_t kInnerOuterSharedValuesPerThread = 32;
inline constexpr int64_t kInnerOuterSharedThreads = 512;
/// The inner-outer combine's blocks: 32 columns (coalesced partial loads)
/// by 8 groups of splits, each group adding every 8th split; group 0 then
/// adds the 8 groups' sums in group order. One thread a column walking all
/// the splits took 23.7 us for 264 splits of 4096 columns on an H200 (16
/// blocks, a chain of dependent loads) beside the row kernel's 90.7 us in
/// layer_norm backward at 256 MB.
inline constexpr int64_t kCombineColumns = 32;
inline constexpr int64_t kCombineGroups = 8;
/// Thread tx's lane `lane` of slot `slot` in a buffer laid out
/// [slot][thread][lane]: (tx + threads * slot) * lanes + lane.
Value threadSlotIndex(KernelBuilder &k, Value tx, Value threads, Value slot, unsigned lanes,
                      unsigned lane);
/// Rows of an inner block of `threads` threads per row (256 threads a
/// block for short rows).
inline int64_t rowsPerBlockOf(int64_t threads) { return std::max<int64_t>(1, 256 / threads); }
/// An inner-outer kernel's column sums add the rows in a fixed order, the
/// same for every variant, launch shape, schedule and chip: the rows are cut
/// into chunks of consecutive rows, each chunk's partial adds its rows one
/// after another from the reduction's identity, and the combine adds the
/// chunks' partials in its fixed order. Rows per chunk: at least those a
/// block of 256 threads holds at once at 16 values a thread (1 to 8, from the
/// row length), and enough that there are at most kInnerOuterMaxChunks
/// chunks (one wave of two blocks an SM on a 132-SM part: the partials stay
/// a few percent of the bytes). Both are functions of the sizes alone
/// (outerChunks).
inline constexpr int64_t kInnerOuterMaxChunks = 256;
/// Those blocks keep this many of a thread's values of the row in
/// registers and the rest in shared memory beside the accumulators, where
/// it has room (RowInShared.cpp): with all 32 in registers, rms_norm
/// backward spilled 8 bytes at H = 16384 bf16, layer_norm backward 64 at
/// a length known at launch; with 16, 16 bytes there.
inline constexpr int64_t kInnerOuterRowValuesInRegisters = 8;
/// Rows held in scalars (misaligned, or not whole vectors): a slot per
/// element, each with its own mask and address; at 16 a thread the 32-bit
/// kernel spilled 40 bytes. With the accumulators in shared memory (and
/// the row past 8 values), 16 slots in 512 threads (rows of up to 8192);
/// 32 spilled 524 to 624 bytes.
inline constexpr int64_t kInnerOuterScalarValuesPerThread = 8;
inline constexpr int64_t kInnerOuterSharedScalarValuesPerThread = 16;

class ReductionScheduler : public GroupEmitter {
public:
  ReductionScheduler(FusionEmitter &fe, const Segment &seg, GroupInfo info);
  LogicalResult run();

private:
  struct OuterAccs;
  /// One unit of a row (lanes consecutive reduced elements) whose values a
  /// persistent kernel keeps across the reductions of the row.
  struct Unit {
    std::unique_ptr<ExprExpander> expander;
    Memo memo;
    SmallVector<Value> values; ///< iteration dims
    Value inRange;             ///< null when always in range
    bool masked = false;       ///< loads only where inRange holds
    /// A row held partly in shared memory: this unit's slot there (-1: its
    /// loads stay in registers), and the accesses it keeps there, in the
    /// order of the buffers (RowInShared.cpp).
    int64_t sharedSlot = -1;
    SmallVector<std::pair<Value, AffineExpr>> inShared;
    /// The unit's place among the thread's (j: unit tx + j*T), and the
    /// accesses the rows share that it keeps in shared memory across rows
    /// (invariantFirstRow), in the order of their buffers.
    int64_t slot = -1;
    SmallVector<std::pair<Value, AffineExpr>> invariants;
  };

  Index sIndex();
  Index rIndex(Value v);
  /// The index a reducer reads its input at: sIndex(), or for an input of
  /// another shape (a row segment's) the row-major index of the same
  /// element.
  Index reducerIndex(const Reducer &r);
  /// A row segment's result element of the current row: the row's
  /// row-major number times the segments, plus the segment.
  Index segmentIndex(const Reducer &r);
  /// The position of the current unit's first lane along its row (an
  /// index-typed value).
  Value positionInRow();
  /// A row segment's accumulator `acc` (one lane) with the lanes of `x`
  /// that lie in its part of the row added (inRange aside).
  SmallVector<Value> accumulateSegment(const Reducer &r, ArrayRef<Value> acc, Value x,
                                       unsigned lanes);
  /// Writes the row segments' results of the current row (`guard`: the
  /// thread that writes, or null).
  void storeRowSegments(Value guard);
  /// The index of an output of S's element count: sIndex(), or for a view
  /// of S (GroupInfo::sViews) the row-major index of the same element.
  Index sOutputIndex(Value out);
  std::optional<Index> viewIndex(Value operand, AffineExpr linear) override;
  /// Row-major values of the iteration dims `dims` for linear index `linear`.
  void assignIterValues(Value linear, ArrayRef<unsigned> dims, SmallVector<Value> &out);
  /// Combines per-thread accumulators over a warp, then over the block's
  /// warps of the same row (through `scratch`, one memref per value).
  SmallVector<Value> blockReduce(const Reducer &r, SmallVector<Value> acc,
                                 ArrayRef<Value> scratch, Value tx, Value ty,
                                 Value threadsPerRow, int64_t staticThreads);
  /// A unit at the reduced position `reducedLinear` (row-major over the
  /// reduced iteration dims) of the kept position `base` (iteration values),
  /// with its own expander.
  std::unique_ptr<Unit> makeUnit(ArrayRef<Value> base, Value reducedLinear, Value inRange);
  /// The reducers of pass `lvl` (a normalization's passes: max, then the
  /// sum of exponentials, ...), in order.
  SmallVector<unsigned> reducersAtLevel(unsigned lvl) const;
  /// Emits `body` with unit `u`'s expander and memo in place.
  void withUnit(Unit &u, function_ref<void()> body);

  // -- rows held partly in shared memory (RowInShared.cpp) ------------------
  /// Whether a unit in shared memory keeps the access at `offset`: it
  /// belongs to one row (a kept dim) and moves along it (a reduced dim).
  bool heldInShared(AffineExpr offset, unsigned lanes);
  /// Whether an access is the same for every row and moves along it (a
  /// weight): kept in shared memory across rows when invariantFirstRow is
  /// set.
  bool sharedByRows(AffineExpr offset, unsigned lanes);
  /// Whether input `in` is read and none of its accesses depends on the
  /// row (and, with `movesAlongRow`, each moves along it: a weight).
  bool sharedByRows(Value in, bool movesAlongRow);
  /// A workgroup buffer of `elements` of `elem` for the `k`th access kept
  /// in shared memory, in `buffers` (allocated on first use).
  Value sharedBuffer(SmallVector<Value> &buffers, size_t k, Type elem, int64_t elements);
  /// The current unit's accesses kept in shared memory: the first pass
  /// loads from global memory and stores the values to the unit's slot,
  /// later passes load them from there.
  std::optional<Lanes> loadHook(Value input, AffineExpr offset, unsigned lanes) override;
  /// Forgets the values of `u` computed in a pass (and the loads it keeps
  /// in shared memory), unless `keepComputed`.
  void forgetPass(Unit &u, bool keepComputed);
  /// Thread `tx`'s slot `slot` (`lanes` wide) of a shared buffer laid out
  /// [slot][thread][lane] for `threads` threads, loaded or stored: the
  /// inner-outer kernel's accumulators and the rows' values kept in shared
  /// memory. Each thread touches only its own slots: no barrier.
  Value loadThreadSlot(Value memref, Value tx, Value threads, int64_t slot, unsigned lanes,
                       Type t);
  void storeThreadSlot(Value memref, Value tx, Value threads, int64_t slot, unsigned lanes,
                       Value v);
  void storeOutput(Value out, const Index &idx, unsigned lanes, Value guard);

  /// Builds an inner kernel and its launch. `split`: each row's units
  /// divide among `splitsValue` blocks along y that write partials; the
  /// last of them to finish combines them (lastBlockFinishRow).
  /// Which bodies a kernel has: both, chosen by its vector flag, or only
  /// the one the plan's launch condition guarantees.
  /// Which bodies a kernel has: vector and scalar under the plan's flag,
  /// one of them, or (VectorUnits) the vector body alone whose accesses go
  /// lane by lane where the flag is clear (unitAccessesAligned).
  enum class Bodies { Both, VectorOnly, ScalarOnly, VectorUnits };
  void emitInner(unsigned indexBits, int64_t staticThreads, bool persistent,
                 bool split = false, Bodies bodies = Bodies::Both);
  /// What ReductionHeuristics.h reads about this group at index width
  /// `indexBits`.
  InnerFacts innerFacts(unsigned indexBits);
  /// emitInner's kernel in words, with the key or rule behind each
  /// decision (EmitKernelsPass's explain).
  std::string describeInner(unsigned indexBits, int64_t staticThreads, bool persistent,
                            bool split, Bodies bodies);
  /// The plan's side of an inner split: its condition, the split count, the
  /// partial buffers and the rows' arrival counters (once a segment).
  void planInnerSplit();
  /// Sets splitsValue to `splits` and allocates the split's partials and
  /// row counters for `rows` rows (empty where `splitCond`, when given, is
  /// false).
  void planSplitBuffers(Value splits, Value rows, Value splitCond);
  /// An inner group's kernels at index width `w`, as the heuristics choose
  /// them, each with its launch condition.
  void emitInnerKernels(unsigned w);
  /// An outer group's kernel at index width `w`: split or not, or an outer
  /// normalization's.
  void emitOuterKernels(unsigned w, bool split, bool normalization);
  /// One row of an inner kernel; `split` (the block's y index, or null)
  /// restricts it to that block's chunk of the row.
  void emitInnerRow(unsigned lanes, Value row, Value valid, Value tx, Value ty,
                    Value threadsPerRow, int64_t staticThreads, bool persistent,
                    ArrayRef<SmallVector<Value>> scratch, Value split,
                    OuterAccs *outerAccs = nullptr);
  /// Builds the outer kernel and its launch on `grid` x `splits` blocks
  /// (split: it writes partial accumulators instead of outputs).
  void emitOuter(unsigned indexBits, bool split, Value grid, Value splits, Value flag,
                 Value cond);
  /// What a combine kernel reduces: the reducers, their partial buffers
  /// ([split][column] per accumulator value), the outputs it writes, the
  /// columns (kept extent) and depth (reduced extent), the iteration dims
  /// of a column, and an output's index.
  struct CombineSpec {
    const std::vector<Reducer> *reducers;
    ArrayRef<Value> partials;
    ArrayRef<Value> outputs;
    AffineExpr columns, depth;
    ArrayRef<unsigned> columnIter;
    std::function<Index(Value)> index;
  };
  /// A block's arrival at `counters[index]` (see the .cpp): whether it is
  /// the last split.
  Value arriveIsLast(Value counters, Value index);
  /// Combines partials in split order into `known` (see the .cpp).
  void combinePartials(ArrayRef<Reducer> rs, Value splits, Value stride, Value offset,
                       unsigned lanes, Value depth, bool crossBlock);
  /// Adds one reducer's partials of splits first, first + step, ... in
  /// that order (see the .cpp); returns the accumulator values.
  SmallVector<Value> accumulatePartials(const Reducer &r, unsigned base, Value first,
                                        Value splits, Value step, Value stride, Value offset,
                                        unsigned lanes, bool crossBlock);
  /// Finalizes a reducer's accumulators over `depth` into `known`.
  void finishReduction(const Reducer &r, ArrayRef<Value> acc, unsigned lanes, Value depth);
  /// The end of a split outer kernel's column tile `tile`: the last block
  /// of the tile's splits to arrive combines their partials (see the .cpp).
  void lastBlockCombine(unsigned lanes, Value tile, Value cu, Value valid,
                        ArrayRef<Value> colValues, Value columns, Value depth, Value lastFlag,
                        Value tx, Value ty);
  /// The end of a split row: the last block of the row's splits to arrive
  /// combines their partials (see the .cpp).
  void lastBlockFinishRow(Value row, ArrayRef<Value> rowValues, Value valid, Value tx,
                          Value depth);
  void emitCombine(const CombineSpec &spec, unsigned indexBits, Value grid, Value splits,
                   Value cond);

  // -- outer kernels' rows of threads ---------------------------------------
  /// The outer kernel's keys the segment's schedule gives.
  OuterKeys outerKeys() const;
  /// Whether the outer kernel's scratch (below) fits a block's static shared
  /// memory (with a `split` kernel's flag); a diagnostic naming the block's
  /// keys where it does not.
  LogicalResult checkOuterScratch(bool split);
  /// The bytes of that scratch for a block of `x` x `y` threads.
  int64_t outerScratchBytes(int64_t x, int64_t y, bool split) const;
  /// Where the schedule leaves the block to the heuristic, halves its rows
  /// and then its threads along the columns until the scratch fits (many
  /// column reductions in one kernel: 12 f32 sums of 4 lanes need 49156
  /// bytes at 32 x 8 threads).
  void fitOuterScratch(bool split);
  /// Shared scratch of an outer kernel: [outerY][outerX * lanes] per
  /// accumulator value of each reducer.
  SmallVector<SmallVector<Value>> outerScratch();
  /// This thread's accumulators `acc` (`lanes` wide) into its row `ty` of
  /// the scratch, at `slot` (its first lane's column in the tile).
  void storeRowPartials(ArrayRef<Value> acc, ArrayRef<Value> scratch, Value ty, Value slot,
                        unsigned lanes);
  /// The column tiles of an outer kernel, `outerX` units of `lanesV` lanes
  /// each, from block `bx` in steps of `gx`: `body(tile, cu, valid,
  /// colValues)` in the tile loop, with this thread's column unit (clamped
  /// to the last), whether it is a real one, and the kept iteration values
  /// of its first lane.
  void forEachColumnTile(Value lanesV, Value columns, Value tx, Value bx, Value gx,
                         function_ref<void(Value, Value, Value, ArrayRef<Value>)> body);
  /// Every row of threads' partials at `slot`, combined in row order.
  SmallVector<Value> combineRowPartials(const Reducer &r, ArrayRef<Value> scratch, Value slot,
                                        unsigned lanes);

  // -- outer normalization (OuterNormalization.cpp) -------------------------
  /// The block and lanes of an outer normalization over `depth` reduced
  /// elements (`columns` kept ones, when known).
  LogicalResult planOuterNormalization(int64_t depth, std::optional<int64_t> columns);
  /// Its kernel: each block holds whole columns on chip across the passes.
  void emitOuterNormalization(unsigned indexBits, Value grid, Value flag, Value cond);

  // -- inner-outer ---------------------------------------------------------
  bool hasOuter() const { return !outerReducers.empty(); }
  /// A column-domain output's index: the row's reduced dims, 0 or nothing
  /// for the others.
  Index oIndex(Value v);
  /// Rows per block: one for an inner-outer kernel that reads its rows
  /// again per pass (each block then owns one row of partials).
  int64_t rowsPerBlock(int64_t threads, bool persistent) const;
  /// The per-thread column accumulators of a persistent inner-outer kernel
  /// (slot by slot, reducer by reducer, value by value), or, when rows are
  /// read again, what the late pass needs to update the block's partials.
  struct OuterAccs {
    SmallVector<Value> values;
    /// Accumulators in shared memory (outerInShared): one buffer per
    /// accumulator value; slot j's lane l of thread tx at (j*T + tx)*lanes + l.
    ArrayRef<Value> shared;
    Value tx, ty, threads;
    Value firstRowBlock; ///< i1: the chunk's first row (read again)
    Value partialRow;    ///< the chunk's partial row (read again)
    /// Registers, more than one row of threads a block: each step's values
    /// go through `stage` (a buffer per outer reducer, laid out
    /// [row of threads][slot][lane][thread]) and the owner of each slot
    /// (foldStagedRows) adds them in row order. `staged`: i1, true in such a
    /// block (null: never staged); `rowsInBlock`: rows of threads; R when
    /// known at emission (0 when not, 1 for never staged), `slots`: S.
    ArrayRef<Value> stage;
    Value staged, rowsInBlock;
    int64_t staticRows = 1;
    unsigned slots = 0;
  };
  /// Rows per chunk and chunks of an inner-outer kernel (kInnerOuterMaxChunks)
  /// for `rows` rows of `length`, in the kernel or the plan: one formula.
  std::pair<Value, Value> outerChunks(OpBuilder &b, Location loc, Value rows, Value length,
                                      function_ref<Value(int64_t)> constant);
  /// Values of the outer reducers a slot holds (all their accumulators).
  unsigned outerValuesPerSlot() const;
  /// Whether a block's rows of threads can stage `rowValues` values per
  /// outer reducer in static shared memory beside the row reductions'
  /// scratch (else an inner-outer kernel takes one row of threads a block).
  bool outerStageFits(int64_t rowValues) const;
  /// Adds row `row`'s values at unit `unit` (lanes wide, `inRange` or null)
  /// to the slot accumulators at `slot`, or stages them (OuterAccs::stage).
  void accumulateOuter(OuterAccs &accs, unsigned slot, unsigned lanes, Value valid,
                       Value inRange);
  /// The k-th slot a thread owns (k*R + ty; k with one row of threads),
  /// its unit, and whether it is one (a slot of the row, a unit in range).
  struct OwnedSlot {
    Value slot, unit, owns;
  };
  OwnedSlot ownedSlot(const OuterAccs &accs, unsigned k, Value units);
  /// After a step of staged rows `first` + (0 .. R-1), those below `end`:
  /// each thread adds the staged values of the slots it owns (slot
  /// k*R + ty, its k-th accumulator) in row order.
  void foldStagedRows(OuterAccs &accs, unsigned lanes, Value first, Value end);
  /// Read-again rows: adds the values at the current unit into the
  /// chunk's partial row.
  void accumulateOuterInMemory(const OuterAccs &accs, Value unit, unsigned lanes,
                               Value valid);
  /// After a chunk's rows: each thread writes the partials of the slots it
  /// owns (k*R + ty; every slot of its own with one row of threads) to the
  /// chunk's partial row.
  void writeChunkPartials(const OuterAccs &accs, ArrayRef<Value> values, unsigned lanes,
                          Value chunk);
  /// The kernels of an inner-outer group at index width `w`: the row
  /// kernel's variants (rows on chip, rows read again) and the combine.
  void emitInnerOuter(unsigned w);
  /// The plan's side of an inner-outer group, the same for every kernel of
  /// it: the row kernels' grid (innerouter.* keys), the chunk count and the
  /// partial buffers.
  void planInnerOuter();

  GroupInfo info;
  std::vector<Reducer> reducers;
  /// The row segments' results of the current row, by op and segment.
  DenseMap<std::pair<Operation *, int64_t>, SmallVector<Value>> segmentResults;
  bool hasRowSegments() const { return !info.rowSegments.empty(); }
  SmallVector<unsigned> level;
  unsigned numLevels = 1;
  SmallVector<int> dimClass;   ///< d-space: 1 for reduced dims
  SmallVector<unsigned> keptIter, reducedIter;
  SmallVector<Value> sOutputs, rOutputs;
  llvm::DenseSet<Value> dependsOnReduction;
  bool innerStyle = true;
  /// The order of the d-dims to iterate in (planIterationSpace): a kept dim
  /// the inputs are contiguous along goes last; empty for the reference's.
  SmallVector<unsigned> memoryOrder(ArrayRef<int> dimClass);
  AffineExpr keptSize, reducedSize;
  /// Outer split: the partial accumulators in the plan, one buffer per
  /// accumulator value of each reducer.
  SmallVector<Value> partials;
  Value splitsValue; ///< plan value
  /// Outer kernels: threads along the kept dim and along the reduced ones.
  int64_t outerX = 32, outerY = 8;
  /// The narrowest element type accessed contiguously, in bytes.
  unsigned narrowestBytes = 16;
  /// Outer split: the plan's zeroed i32 buffer of one arrival counter per
  /// column tile.
  Value outerCounters;
  Value innerSplitCond; ///< plan value: the inner split variant runs
  /// Inner split: the plan's zeroed i32 buffer of one arrival counter per
  /// row.
  Value splitCounters;
  /// Inner-outer: the column domain's reducers and outputs, the partial
  /// buffers ([chunk][column] per accumulator value), the plan's block
  /// count and chunk count (the same for every variant).
  std::vector<Reducer> outerReducers;
  SmallVector<Value> oOutputs;
  SmallVector<Value> outerPartials;
  Value outerGrid, outerChunkCount;
  /// The variant being emitted, when its row stays on chip and its length
  /// is known only at launch: the values of the row a thread holds (0: the
  /// default of its index width).
  int64_t valuesPerThread = 0;
  /// Inner-outer: whether the column accumulators live in shared memory
  /// (dynamic: more than 48 KiB) rather than registers.
  bool outerInShared = false;
  /// Inner-outer, rows in registers, length known at launch: the short rows'
  /// kernel (rows of threads staged, at most 256 threads a block, so up to
  /// 255 registers: with 512 allowed, 128, the stage's fold spilled 96
  /// bytes) and the long rows' one (one row of threads a block, no stage).
  int64_t outerBlockLimit = 0;
  bool outerNoStage = false;
  /// Persistent rows longer than the registers hold: the values of the row
  /// a thread keeps in registers (-1: all of them); its later units keep
  /// their loads in shared memory between passes (RowInShared.cpp).
  int64_t rowValuesInRegisters = -1;
  /// The kernel being emitted: per access a unit keeps in shared memory,
  /// its buffer ([slot][thread][lane]), and the unit being emitted, the
  /// units in shared memory a thread has, the row's threads and this one.
  SmallVector<Value> rowBuffers;
  Unit *currentUnit = nullptr;
  int64_t rowSharedSlots = 0, rowThreads = 0;
  Value rowThreadsValue, rowTx;
  /// Inner-outer rows with the accumulators in shared memory: whether the
  /// rows' shared inputs (a weight) are kept there too, and (in the row
  /// loop) whether this is the block's first row, which loads them from
  /// global memory; the others read them back. Their buffers and a
  /// thread's unit count.
  bool keepInvariantsInShared = false;
  Value invariantFirstRow;
  SmallVector<Value> invariantBuffers;
  int64_t invariantSlots = 0;
};

LogicalResult emitReductionSegment(FusionEmitter &fe, const Segment &segment,
                                   const GroupInfo &info);

} // namespace mlir::fuser

#endif
