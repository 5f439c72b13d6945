//===- ReductionHeuristics.h - how a row or a column is reduced -*- C++ -*-===//
//
// The reduction and normalization schedulers' decisions that follow from
// sizes, element types and the group's shape, as plain functions of those
// facts: no IR is built here. Threads along a row, whether a normalization's
// row stays on chip (registers, part in shared memory) or is read again per
// pass, the kernels a row length known only at launch chooses among, whether
// few long rows split across blocks, and the outer (column) kernel's block.
// The emitters build kernels from these answers (InnerReduction.cpp,
// OuterReduction.cpp, InnerOuter.cpp); the numbers below were measured with
// ptxas (test/examples/norm-sizes-ptxas.test) and on an H200, and each says
// where. docs/schedulers.md describes the same rules for users.
//
// What is a schedule key (a user's or the tuner's choice, Schedule.h) is
// read by the emitters; what is here fixes the order in which a row's or a
// column's values are added, so it is not a key (docs/tuning.md).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_FUSERTOGPU_REDUCTIONHEURISTICS_H
#define FUSER_CONVERSION_FUSERTOGPU_REDUCTIONHEURISTICS_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir::fuser {

/// Threads per row of an inner kernel whose row length is known at launch
/// and that does not keep the row in registers.
inline constexpr int64_t kMaxDynamicThreads = 512;
/// Rows of at most this many register values per thread stay in registers
/// (two-byte rows: kPersistentHalfValuesPerThread in 512 threads).
inline constexpr int64_t kPersistentValuesPerThread = 32;
inline constexpr int64_t kPersistentHalfValuesPerThread = 96;
inline constexpr int64_t kPersistentHalfValuesPerThreadBeside = 72;
/// Two-byte rows longer than the registers hold: up to this many values a
/// thread of 512 (rows of up to 65536 elements), of which 32 fewer than
/// the above stay in registers and the rest in shared memory
/// (RowInShared.cpp): reading them back takes registers in every pass; at
/// 8 fewer rms_norm over 65536 spilled 24 bytes, at 24 fewer 12.
inline constexpr int64_t kPersistentHalfRowValuesPerThread = 128;
inline constexpr int64_t kRowInSharedRegisterRelief = 32;
/// A normalization's row of a length known at launch that is not whole
/// vectors stays on chip in this many scalar slots a thread (each with its
/// own mask and address), 512 threads at most: rows up to 8192 elements.
inline constexpr int64_t kScalarValuesPerThread = 16;
/// With a row length known only at launch, per thread: every slot's
/// addresses stay live, and 64-bit ones take twice the registers.
inline int64_t dynamicValuesPerThread(unsigned indexBits) { return indexBits == 64 ? 16 : 32; }
/// Inner reductions with fewer rows than two waves of blocks split rows of
/// at least this many elements across blocks of this many threads.
inline constexpr int64_t kInnerSplitMinLength = 32768, kInnerSplitThreads = 512;
/// A split reduction's target in blocks (two waves of a 128-SM part), and
/// twice the rows below which an inner reduction splits its rows: the same
/// on every chip, so the split count, and a sum's order, do not depend on
/// the SM count (docs/schedulers.md).
inline constexpr int64_t kSplitBlocksTarget = 256;
/// The outer kernel's block: 32 threads along the kept dim, 8 along the
/// reduced ones (fewer along the kept dim when it has fewer units: see
/// chooseOuterBlock; more along the reduced ones for an outer
/// normalization, OuterNormalization.cpp).
inline constexpr int64_t kOuterX = 32, kOuterY = 8;

/// What the inner (row) heuristics read about a group and a kernel variant.
struct InnerFacts {
  bool normalization = false; ///< the row is used again after its reductions
  bool reduction = false;     ///< a plain reduction (may split its rows)
  unsigned indexBits = 32;    ///< the variant's index width
  unsigned lanes = 1;         ///< vector lanes along the row
  std::optional<int64_t> length, rows; ///< reduced and kept extents, when static
  unsigned passes = 1;        ///< reductions that depend on one another
  /// The group reads one input of the row's shape and it is two bytes wide
  /// (bf16, f16): a register holds two of its values.
  bool halfRow = false;
  unsigned inputs = 0;        ///< the group's inputs
  unsigned reducerValues = 0; ///< accumulator values of all its reductions
  int64_t sharedMemoryPerBlock = 0; ///< the chip's, in bytes
  /// An element's arithmetic in instructions (ComputeEstimate.h).
  int64_t instructionsPerElement = 0;
  /// Threads along a row of static length the schedule gives
  /// (`reduction.threads`), or 0: the heuristic's.
  int64_t threads = 0;
  /// Blocks a row splits across (`reduction.splits`; 1: none), or 0: the
  /// heuristic's.
  int64_t splits = 0;
};

/// A row of a length known at compile time.
struct InnerRow {
  int64_t threads = 0;     ///< threads along it (a power of two, 32 to 1024)
  bool persistent = false; ///< kept on chip between the passes
  /// Values of it a thread keeps in registers (-1: all); the rest in shared
  /// memory (RowInShared.cpp).
  int64_t rowValuesInRegisters = -1;
};
/// Threads along a row of static length `*f.length` (`f.threads` when
/// given) and where it lives.
InnerRow chooseInnerRow(const InnerFacts &f);

/// Whether few long rows split across blocks (the last block of a row to
/// finish combines them): `may` where the sizes could ask for it at launch,
/// `must` where static sizes, or the schedule's `f.splits` > 1, always do.
struct InnerSplit {
  bool may = false, must = false;
};
InnerSplit chooseInnerSplit(const InnerFacts &f);

/// One kernel a normalization whose row length is known only at launch may
/// take: rows of length in [minLength, maxLength], where the plan's vector
/// check holds (`vector`: a body of vector accesses only) or not a length
/// an earlier variant takes (a body of scalar slots only).
struct DynamicRowKernel {
  int64_t minLength, maxLength;
  bool vector;
  int64_t threads;              ///< 0: chosen at launch from the length
  int64_t valuesPerThread;      ///< 0: dynamicValuesPerThread(indexBits)
  int64_t rowValuesInRegisters; ///< -1: all of them
};
/// The kernels that keep such a row on chip, in the order the plan tries
/// them; rows none takes are read again per pass by one more kernel.
llvm::SmallVector<DynamicRowKernel> dynamicRowKernels(const InnerFacts &f);

/// An outer (column) kernel's block and whether the reduced extent splits
/// across blocks.
struct OuterBlock {
  int64_t x = kOuterX, y = kOuterY;
  bool split = false;
};
/// What the schedule gives of an outer kernel (`reduction.splits`,
/// `reduction.column_threads`, `reduction.column_rows`), 0 where it leaves
/// the decision to the heuristic.
struct OuterKeys {
  int64_t splits = 0, threads = 0, rows = 0;
};
/// For `columns` kept and `depth` reduced elements (each when static),
/// `lanes` columns a thread; an outer normalization never splits (its block
/// is chosen by planOuterNormalization, which takes the keys too).
OuterBlock chooseOuterBlock(std::optional<int64_t> columns, std::optional<int64_t> depth,
                            unsigned lanes, bool normalization, OuterKeys keys = {});

} // namespace mlir::fuser

#endif
