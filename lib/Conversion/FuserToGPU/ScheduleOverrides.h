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

struct ScheduleOverrides {
  /// Threads per block of a pointwise kernel (default 256).
  std::optional<int64_t> pointwiseBlock;
  /// Vector units each thread computes per step of a pointwise kernel's
  /// grid-stride loop, all loads before the first store (default 1).
  std::optional<int64_t> pointwiseUnits;
  /// A pointwise kernel's grid cap in full waves at full occupancy; 0: a
  /// block per block-sized chunk of units, no cap (default 1).
  std::optional<int64_t> pointwiseWaves;

  /// Parses `text`; on a bad entry returns nullopt and sets `error`.
  static std::optional<ScheduleOverrides> parse(llvm::StringRef text, std::string &error);
};

} // namespace mlir::fuser

#endif
