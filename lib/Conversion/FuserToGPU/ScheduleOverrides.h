//===- ScheduleOverrides.h - schedule decisions forced by the caller -*- C++ -*-===//
//
// A caller can force some of a scheduler's decisions instead of taking its
// heuristic's: fuser-emit-kernels' `schedule` option, `fuserc --schedule`,
// fuserCompileOptionsSetSchedule. The text is a comma-separated list of
// KEY=VALUE; every key is checked here, and a bad one is an error that names
// it and says what it accepts, never a kernel built from it. Each override
// changes where values are computed, never how: the results are the same
// bits (docs/schedulers.md, "Overriding a schedule").
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_FUSERTOGPU_SCHEDULEOVERRIDES_H
#define FUSER_CONVERSION_FUSERTOGPU_SCHEDULEOVERRIDES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::fuser {

/// The heuristics' defaults for the overridable decisions, chosen from the
/// H200 runs of bench/gpu/variants.py (bench/results/variants.md and
/// variants-io.md). One wave capped the pointwise grid until 8 measured
/// 3-15% faster on every transcendental fusion from 256 MB (the first
/// wave's tail: a kernel using more than 32 registers fits fewer than 8
/// blocks an SM).
inline constexpr int64_t kDefaultPointwiseBlock = 256;
inline constexpr int64_t kDefaultPointwiseUnits = 1;
inline constexpr int64_t kDefaultPointwiseWaves = 8;
/// A block per 8 rows (it was 32: 13-20% slower at 2603 rows of 4096),
/// at least one per SM while each has rows (2-3x faster below 1000 rows),
/// at most two (4 was 4-40% slower from 256 MB).
inline constexpr int64_t kDefaultInnerOuterRows = 8;
inline constexpr int64_t kDefaultInnerOuterMinBlocksPerSM = 1;
inline constexpr int64_t kDefaultInnerOuterMaxBlocksPerSM = 2;

struct ScheduleOverrides {
  /// Threads per block of a pointwise kernel.
  std::optional<int64_t> pointwiseBlock;
  /// Vector units each thread computes per step of a pointwise kernel's
  /// grid-stride loop, all loads before the first store.
  std::optional<int64_t> pointwiseUnits;
  /// A pointwise kernel's grid cap in full waves at full occupancy; 0: a
  /// block per block-sized chunk of units, no cap.
  std::optional<int64_t> pointwiseWaves;
  /// Rows each block of an inner-outer kernel (row and column reductions of
  /// one tensor) walks before the grid grows.
  std::optional<int64_t> innerOuterRows;
  /// An inner-outer kernel's grid floor, in blocks per SM, when there are
  /// that many rows.
  std::optional<int64_t> innerOuterMinBlocksPerSM;
  /// An inner-outer kernel's grid cap, in blocks per SM.
  std::optional<int64_t> innerOuterMaxBlocksPerSM;
  /// Threads along each row of an inner-outer kernel whose rows stay in
  /// registers, at least: fewer values a thread (the heuristic takes the
  /// fewest threads that hold the row at 16 values each).
  std::optional<int64_t> innerOuterMinThreads;
  /// Registers a thread of an inner-outer row kernel may use, at most
  /// (`.maxnreg`): more blocks resident an SM, at the price of spills.
  std::optional<int64_t> innerOuterMaxRegisters;

  /// Parses `text`; on a bad entry returns nullopt and sets `error`.
  static std::optional<ScheduleOverrides> parse(llvm::StringRef text, std::string &error);
};

} // namespace mlir::fuser

#endif
