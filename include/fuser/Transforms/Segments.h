//===- Segments.h - reading fuser-segment's annotations ---------*- C++ -*-===//
#ifndef FUSER_TRANSFORMS_SEGMENTS_H
#define FUSER_TRANSFORMS_SEGMENTS_H

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Dialect/Fuser/IR/Schedule.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
namespace func {
class FuncOp;
}
namespace fuser {

/// Attribute names written by fuser-segment.
inline constexpr llvm::StringLiteral kSegmentAttr = "fuser.segment";
inline constexpr llvm::StringLiteral kSchedulersAttr = "fuser.schedulers";
/// On a fuser.reshape that is a fusion result and reshapes a value a kernel
/// computes: in no segment; the kernel writes the value into the result's
/// buffer (a reshape of a row-major value is the same bytes), so reshaping
/// a result never costs a copy kernel.
inline constexpr llvm::StringLiteral kResultViewAttr = "fuser.result_view";
/// On a fuser.permute that swaps the last two dims and that only matmuls
/// read: in no segment; each GEMM reads the permute's input, transposed
/// (its trans_a or trans_b), so transposing an operand costs no kernel.
inline constexpr llvm::StringLiteral kTransposedOperandAttr = "fuser.transposed_operand";
/// On a fuser.reshape of a dense fusion argument that only library calls
/// read (directly or through a transposed operand): in no segment; the
/// GEMM reads the argument's bytes with the reshape's shape (a reshape of a
/// row-major tensor is the same bytes), so a [B, S, H] operand read as
/// [B*S, H] rows costs no copy kernel.
inline constexpr llvm::StringLiteral kOperandViewAttr = "fuser.operand_view";

/// One group of a segmented fusion: the ops one kernel computes.
struct Segment {
  unsigned index;
  /// The scheduler that takes the group (the fusion's `fuser.schedulers`).
  GroupKind scheduler;
  /// The segment's entry of the fusion's `fuser.schedules` (fuser-schedule),
  /// a #fuser.schedule, or null where the fusion has none: its kernels take
  /// the heuristic's decisions wherever this leaves one out
  /// (Schedule::fromAttr).
  Attribute schedule;
  /// The ops, in program order.
  SmallVector<Operation *> ops;
  /// Values the group reads that it does not compute (fusion arguments or
  /// results of earlier groups), in first-use order.
  llvm::SetVector<Value> inputs;
  /// Values the group computes that the fusion returns or later groups
  /// read, in program order.
  llvm::SetVector<Value> outputs;
};

/// Whether `key` is a decision of every scheduler that emits kernels
/// (`kernel.*`), not of one.
inline bool isKernelKey(ScheduleKey key) { return key == ScheduleKey::KernelIndexBits; }

/// Whether a segment of `kind` takes `key`: its scheduler's keys; the
/// reduction scheduler's for a normalization too (the same scheduler, the
/// row held on chip); the `kernel.*` keys for every segment fuser emits
/// kernels for (a matmul or collective segment is a library call).
inline GroupKind schedulerOfKey(ScheduleKey key);
inline bool keyAppliesTo(ScheduleKey key, GroupKind kind) {
  if (isKernelKey(key))
    return kind != GroupKind::Matmul && kind != GroupKind::Collective;
  GroupKind owner = schedulerOfKey(key);
  return owner == kind || (owner == GroupKind::Reduction && kind == GroupKind::Normalization);
}

/// Who decides `key`, for a message: "the pointwise scheduler", or "every
/// scheduler that emits kernels".
std::string keyOwnerText(ScheduleKey key);
/// A segment kind with its article, for a message: "a pointwise", "an
/// inner-outer".
std::string groupKindWithArticle(GroupKind kind);

/// The scheduler whose decision `key` is (for a `kernel.*` key, which every
/// kernel-emitting scheduler takes, the pointwise one).
inline GroupKind schedulerOfKey(ScheduleKey key) {
  switch (key) {
  case ScheduleKey::PointwiseBlock:
  case ScheduleKey::PointwiseUnits:
  case ScheduleKey::PointwiseWaves:
  case ScheduleKey::PointwiseVectorBytes:
  // A pointwise segment that reads an input across its contiguous dim is
  // emitted as a transpose: its segment carries both sets of keys.
  case ScheduleKey::TransposeTile:
  case ScheduleKey::TransposeRows:
  case ScheduleKey::TransposeWaves:
    return GroupKind::Pointwise;
  case ScheduleKey::ReductionBlock:
  case ScheduleKey::ReductionWaves:
  case ScheduleKey::ReductionThreads:
  case ScheduleKey::ReductionSplits:
  case ScheduleKey::ReductionColumnThreads:
  case ScheduleKey::ReductionColumnRows:
  case ScheduleKey::ReductionVectorBytes:
    return GroupKind::Reduction;
  case ScheduleKey::InnerOuterRows:
  case ScheduleKey::InnerOuterMinBlocksPerSM:
  case ScheduleKey::InnerOuterMaxBlocksPerSM:
  case ScheduleKey::InnerOuterMinThreads:
  case ScheduleKey::InnerOuterMaxRegisters:
    return GroupKind::InnerOuter;
  case ScheduleKey::ScanBlock:
  case ScheduleKey::ScanWaves:
    return GroupKind::Scan;
  case ScheduleKey::KernelIndexBits:
    return GroupKind::Pointwise;
  }
  return GroupKind::Pointwise;
}

/// Reads the segments of an annotated fusion, in an order where every group
/// comes after the groups it reads from. Fails (with a diagnostic) when the
/// annotations are missing or inconsistent.
FailureOr<SmallVector<Segment>> getSegments(func::FuncOp fusion);

} // namespace fuser
} // namespace mlir

#endif // FUSER_TRANSFORMS_SEGMENTS_H
