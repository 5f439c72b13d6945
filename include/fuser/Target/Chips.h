//===- Chips.h - what fuser knows about each chip it targets ----*- C++ -*-===//
//
// One row per chip fuser compiles for: the only place these facts are
// written. The launch heuristics (FuserToGPU), the pipeline's PTX version
// and every "unknown chip" message read them from here, so adding a chip is
// one row.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TARGET_CHIPS_H
#define FUSER_TARGET_CHIPS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::fuser {

/// The facts of one chip the schedulers and the pipeline use.
struct ChipInfo {
  llvm::StringLiteral name; ///< As --chip spells it: "sm_90".
  unsigned sm;              ///< Compute capability times 10.
  /// Streaming multiprocessors to fill: the data-center part of each
  /// generation (A100, L40S, H100/H200 SXM, B200). A smaller part of the
  /// same generation only runs a few more grid-stride iterations a thread.
  unsigned smCount;
  unsigned maxThreadsPerSM;
  unsigned sharedMemoryPerBlock; ///< Bytes, with the opt-in above 48 KB.
  unsigned registersPerBlock;    ///< 32-bit registers a block may hold.
  unsigned minimumPtx;           ///< The lowest PTX ISA version, times 10.
  /// For `fuserc tune`'s cost model (docs/tuning.md): resident blocks an SM
  /// holds at most, its shared memory in bytes, and the part's DRAM
  /// bandwidth in GB/s as its datasheet gives it (A100 SXM 80 GB, L40S,
  /// H100 SXM, B200).
  unsigned maxBlocksPerSM;
  unsigned sharedMemoryPerSM;
  unsigned dramGBps;
};

inline constexpr ChipInfo kChips[] = {
    {"sm_80", 80, 108, 2048, 163 * 1024, 65536, 70, 32, 164 * 1024, 2039},
    {"sm_89", 89, 142, 1536, 99 * 1024, 65536, 78, 24, 100 * 1024, 864},
    {"sm_90", 90, 132, 2048, 227 * 1024, 65536, 78, 32, 228 * 1024, 3350},
    {"sm_100", 100, 148, 2048, 227 * 1024, 65536, 86, 32, 228 * 1024, 8000},
};

/// The chip named `name`, or null when fuser does not target it.
inline const ChipInfo *lookupChip(llvm::StringRef name) {
  for (const ChipInfo &chip : kChips)
    if (chip.name == name)
      return &chip;
  return nullptr;
}

/// The chips fuser targets, for messages: "sm_80, sm_89, sm_90 or sm_100".
inline std::string knownChipNames() {
  std::string names;
  for (size_t i = 0; i < std::size(kChips); ++i) {
    if (i)
      names += i + 1 == std::size(kChips) ? " or " : ", ";
    names += kChips[i].name.str();
  }
  return names;
}

} // namespace mlir::fuser

#endif // FUSER_TARGET_CHIPS_H
