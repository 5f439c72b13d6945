//===- Schedule.h - a segment's schedule decisions --------------*- C++ -*-===//
//
// The decisions a scheduler takes that a caller can read and force: one
// table of keys (name, legal values, the heuristic's default, meaning) used
// by the `#fuser.schedule` attribute's parser and verifier, the `schedule`
// option of fuser-schedule (`fuserc --schedule`,
// fuserCompileOptionsSetSchedule), fuser-schedule's `explain` and the
// emitters. docs/schedulers.md, "Schedules as IR".
//
// Each decision changes where values are computed, never how: every
// pointwise schedule gives the default's bits; the inner-outer keys move
// which block adds which rows of a column sum (the same bits on every run of
// one schedule).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_SCHEDULE_H
#define FUSER_DIALECT_FUSER_IR_SCHEDULE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
namespace fuser {
class ScheduleAttr;

enum class ScheduleKey : unsigned {
  PointwiseBlock,
  PointwiseUnits,
  PointwiseWaves,
  PointwiseVectorBytes,
  TransposeTile,
  TransposeRows,
  TransposeWaves,
  ReductionBlock,
  ReductionWaves,
  ReductionThreads,
  ReductionSplits,
  ReductionColumnThreads,
  ReductionColumnRows,
  ReductionVectorBytes,
  InnerOuterRows,
  InnerOuterMinBlocksPerSM,
  InnerOuterMaxBlocksPerSM,
  InnerOuterMinThreads,
  InnerOuterMaxRegisters,
  ScanBlock,
  ScanWaves,
  KernelIndexBits,
};
inline constexpr unsigned kNumScheduleKeys = 22;

struct ScheduleKeyInfo {
  ScheduleKey key;
  /// `<scheduler>.<decision>`; the prefix names the scheduler that reads it
  /// (`pointwise`, `transpose`, `reduction`, `innerouter`, `scan`), or
  /// `kernel` for every scheduler that emits kernels (not a library call).
  const char *name;
  int64_t lo, hi;
  bool powerOfTwo;
  /// The heuristic's value when nothing forces one; none where the
  /// heuristic computes it from the segment (`whenAbsent` says how).
  std::optional<int64_t> defaultValue;
  const char *meaning;
  /// Why the default is what it is, or what the heuristic does without one.
  const char *whenAbsent;
  /// What `fuserc tune` tries besides the default, one key at a time: a few
  /// steps either side of it, within [lo, hi] (docs/tuning.md).
  llvm::ArrayRef<int64_t> tryValues;
};

/// Every key, in the order of ScheduleKey.
llvm::ArrayRef<ScheduleKeyInfo> scheduleKeys();
const ScheduleKeyInfo &scheduleKeyInfo(ScheduleKey key);
/// The key named `name`, or null.
const ScheduleKeyInfo *lookupScheduleKey(llvm::StringRef name);
/// "pointwise.block, pointwise.units, ... or innerouter.max_registers".
std::string scheduleKeyNames();
/// Empty when `value` is legal for `key`; otherwise what it must be
/// ("a power of two from 32 to 1024").
std::string checkScheduleValue(const ScheduleKeyInfo &key, int64_t value);
/// The largest segment index a decision may name (`KEY[SEGMENT]`).
inline constexpr unsigned kMaxScheduleSegment = 65535;

/// A key's name with the segment it is for: "reduction.block" (every
/// segment) or "reduction.block[1]" (segment 1 alone). Null `key` and
/// `error` set when `text` is neither.
struct ScheduleKeyName {
  const ScheduleKeyInfo *key = nullptr;
  std::optional<unsigned> segment;
};
ScheduleKeyName parseScheduleKeyName(llvm::StringRef text, std::string &error);

/// A set of decisions, each present or left to the heuristic: for every
/// segment of a fusion (`values`) and for one segment alone (`segments`,
/// written `KEY[SEGMENT]=VALUE`), the latter winning for its segment.
struct Schedule {
  std::optional<int64_t> values[kNumScheduleKeys];

  struct OfSegment {
    unsigned segment;
    std::optional<int64_t> values[kNumScheduleKeys];
  };
  /// Sorted by segment, one entry a segment.
  std::vector<OfSegment> segments;

  std::optional<int64_t> get(ScheduleKey key) const { return values[unsigned(key)]; }
  void set(ScheduleKey key, int64_t value) { values[unsigned(key)] = value; }
  /// The value if present, else the key's default (the key must have one).
  int64_t valueOr(ScheduleKey key) const;
  /// The entry of segment `segment`, made empty where there is none.
  OfSegment &ofSegment(unsigned segment);
  /// Where `key`'s value for `segment` (every segment: nullopt) is kept.
  std::optional<int64_t> &at(ScheduleKey key, std::optional<unsigned> segment) {
    return segment ? ofSegment(*segment).values[unsigned(key)] : values[unsigned(key)];
  }
  /// What segment `segment` takes: `values`, its own entries over them;
  /// no per-segment entries.
  Schedule forSegment(unsigned segment) const;

  /// Parses the `schedule` option's text, comma-separated KEY=VALUE or
  /// KEY[SEGMENT]=VALUE; on a bad entry returns nullopt and sets `error` to
  /// a message naming it and what it accepts.
  static std::optional<Schedule> parse(llvm::StringRef text, std::string &error);
  static Schedule fromAttr(ScheduleAttr attr);
  ScheduleAttr toAttr(MLIRContext *context) const;
};

/// Empty when the values, each legal, also agree with each other and with
/// the defaults of the keys `schedule` leaves out, for every segment and
/// for each segment an entry names; otherwise which keys disagree and why
/// (and for which segment).
std::string checkScheduleConsistency(const Schedule &schedule);

} // namespace fuser
} // namespace mlir

#endif // FUSER_DIALECT_FUSER_IR_SCHEDULE_H
