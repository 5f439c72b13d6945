//===- GroupAnalysis.h - which scheduler can take a set of ops --*- C++ -*-===//
//
// A group of a fusion's ops becomes one kernel when one scheduler accepts
// it. The segmenter asks this while it merges groups, and the kernel
// emitters ask it again for the structure they need.
//
//  - pointwise: no reductions; every output has the same shape.
//  - reduction: reductions that all reduce the same dims of inputs of one
//    shape S (the reduction domain), computed from pointwise ops of S (a
//    prologue); pointwise ops on the reduced results (an epilogue); outputs
//    are reduced values only.
//  - normalization: as reduction, and values of shape S that depend on the
//    reduced results through a broadcast back along the reduced dims
//    (softmax, layer_norm); outputs of shape S or reduced. A block keeps
//    its rows on chip between the reductions: for inner reductions (the
//    reduced dims are the trailing ones) a row, for outer ones (softmax
//    over dim 0) a tile of columns, whose reduced extent must then be
//    known at compile time and at most kOuterNormalizationMaxDepth.
//    Along the trailing dims, either may also add parts of its rows on
//    their own (row segments: group_norm's per-channel sums).
//  - matmul: one fuser.matmul or fuser.linear: a library call (cuBLASLt)
//    that reads its operands from memory; alone, or with a relu or a tanh
//    gelu of its result that the library applies in its epilogue.
//  - inner-outer: an inner reduction or normalization (the row domain) and
//    reductions of the same shape S over all the other dims (the column
//    domain: a layer_norm backward's dw and db beside its dx). The column
//    reductions' inputs are values of S (they may depend on the row
//    reductions); what is computed from their results is of their reduced
//    shape and is an output. One kernel holds each row on chip, computes
//    the row work and accumulates per-block column partials; a second one
//    combines the partials in a fixed order.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_ANALYSIS_GROUPANALYSIS_H
#define FUSER_ANALYSIS_GROUPANALYSIS_H

#include "fuser/Analysis/ShapeAnalysis.h"
#include "llvm/ADT/DenseSet.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace mlir::fuser {

enum class GroupKind { Pointwise, Reduction, Normalization, InnerOuter, Scan, Matmul, Collective };

/// What a scheduler needs to know about an accepted group.
struct GroupInfo {
  GroupKind kind = GroupKind::Pointwise;
  /// Reduction and normalization: the shape reduced (S) and the reduced
  /// dims, sorted.
  SmallVector<AffineExpr> space;
  SmallVector<int64_t> reducedDims;
  /// The reduced dims are the trailing dims of S (after dims of size 1).
  bool inner = false;
  /// Scan: the scan op (its result is the group's one output).
  Operation *scan = nullptr;
  /// The reductions, in program order (inner-outer: the row domain's).
  SmallVector<Operation *> reductions;
  /// Inner-outer: the column domain's reductions (over every dim of S that
  /// `reducedDims` keeps), in program order.
  SmallVector<Operation *> outerReductions;
  /// Normalization: values computed from the reductions that are S in
  /// another shape (a reshape of an S value, and elementwise ops of those:
  /// group_norm's affine after its groups). The kernel computes them at
  /// the S element of the same row-major index.
  llvm::DenseSet<Value> sViews;
  /// Reduction and normalization along the trailing dims: reductions whose
  /// rows are consecutive parts of the group's rows, each with how many of
  /// its rows make one of the group's (rowSegmentsOf): group_norm's
  /// per-channel sums beside its per-group ones (SplitReductions.cpp). The
  /// kernel computes their input at the S element of the same row-major
  /// index, adds each part of a row on its own, and writes their results,
  /// which nothing in the group reads.
  SmallVector<std::pair<Operation *, int64_t>> rowSegments;
  /// The parts of a row `op` adds on its own (rowSegments), or 0 when it is
  /// not a row segment.
  int64_t rowSegmentsOf(Operation *op) const {
    for (auto &[o, k] : rowSegments)
      if (o == op)
        return k;
    return 0;
  }
};

/// The most parts of a row one reduction adds on their own, and the bytes
/// of block-reduction scratch their parts may take in a kernel: each part
/// is an accumulator per thread and a block reduction with 16 x 32 values
/// of each of its accumulator's types in static shared memory (2 KiB for
/// an f32 sum, 4 KiB in f64, 6 KiB for an f32 var_mean). 32 KiB leaves the
/// row's own reductions room under the 48 KiB a block has statically:
/// group_norm's backward in f32, dw and db of 8 channels a group, fits; in
/// f64 (69632 bytes in all: ptxas refused it) its dw and db take a kernel
/// of their own.
inline constexpr int64_t kMaxRowSegments = 8;
inline constexpr int64_t kMaxRowSegmentScratchBytes = 32 * 1024;

/// How many rows of a reduction of a `shape` tensor over `dims` make one row
/// of a reduction of a `rowShape` tensor over `rowDims`, when both reduce
/// trailing dims (dims of size 1 aside), the tensors have the same element
/// count, and the row's length is a multiple (at most kMaxRowSegments) of
/// the other's: then each row's elements, in row-major order, are those
/// rows' elements in order (group_norm's channels in its groups). Else
/// nullopt.
std::optional<int64_t> rowSegmentsOf(ArrayRef<AffineExpr> rowShape, ArrayRef<int64_t> rowDims,
                                     ArrayRef<AffineExpr> shape, ArrayRef<int64_t> dims);

/// Inner-outer groups whose rows (the product of the reduced dims, when
/// known at compile time) are longer than this keep their column
/// reductions in a kernel of their own: a thread's share of the row would
/// not fit its registers beside the column accumulators (registers up to
/// 8192, shared memory up to 16384: docs/schedulers.md).
inline constexpr int64_t kInnerOuterMaxRow = 16384;

/// Normalizations along non-trailing dims stay in one kernel when the
/// reduced extent (the product of the reduced dims) is known at compile
/// time and at most this: a block holds whole columns on chip, so no block
/// needs another's results. Longer columns, or columns whose length is
/// known only at launch, would need every block of a column to meet (a
/// grid-wide barrier): a reduction kernel and a pointwise kernel instead.
inline constexpr int64_t kOuterNormalizationMaxDepth = 256;

/// Whether `op` is a reduction op (sum, prod, max, min, mean, any, all,
/// var_mean).
/// The most reductions one kernel computes (a chain of normalizations
/// beyond it splits into several kernels; see classifyGroup).
inline constexpr unsigned kMaxReductionsPerKernel = 16;

/// How many of `op`'s leading operands a kernel reads element by element:
/// the rest only lend their shape (fuser.rand's `like`, fuser.size's input).
unsigned numOperandsRead(Operation *op);
bool isReductionOp(Operation *op);
/// Whether `op` reads or adds at positions computed from data (gather,
/// index_select, scatter_add, index_add): some of its operands
/// (readsFromMemory) are never computed in the same kernel, nor recomputed
/// by it.
bool isIndexingOp(Operation *op);
/// Whether `op` runs as a library call (fuser.matmul, fuser.linear through
/// cuBLASLt; fuser.collective through NCCL): a segment of its own that
/// reads every operand from memory.
bool isLibraryOp(Operation *op);
/// Whether `op` is an activation the library applies in `library`'s
/// epilogue (before its one rounding): fuser.relu, or fuser.gelu with tanh's
/// approximation (cuBLASLt's GELU), of `library`'s result, its only use;
/// or such a gelu of a result other ops read too, which the library then
/// also writes (epilogueKeepsInput).
bool isEpilogueOf(Operation *op, Operation *library);
/// Whether the epilogue `op` of `library` also has the library write the
/// activation's input (cuBLASLt's GELU_AUX): a gelu (tanh) of a result that
/// other ops read too (a training forward's pre-activation), in f16, bf16
/// or f32, with rows of a static multiple of 8 elements (the library's
/// rule for that buffer's strides).
bool epilogueKeepsInput(Operation *op, Operation *library);
/// The op whose result is a bias gradient that cuBLASLt writes beside
/// `library`'s product (its BGRAD epilogue), when `ops` compute exactly
/// that, else null. The form is a linear layer's backward,
/// `dW = g2^T @ x` beside `db = sum(g)` over every dim of g but the last,
/// where g2 is g or its reshape to rows: the sum is over the GEMM's
/// contracted dim of its (transposed) lhs. `ops` are the sum, optionally
/// with a cast of g to f32 before it and a cast back after it (fuser-vjp's
/// f32 accumulation for halves, which the library does too), in the GEMM's
/// type (f16, bf16, f32); g is dense (not a view argument: the GEMM reads
/// it with TRANS_A); the GEMM is one 2-D matmul whose result has a
/// static number of columns (cuBLASLt writes no bias gradient beside an
/// empty product). A sum that shares a kernel with other work (g computed
/// in the fusion) stays in that kernel.
Operation *biasGradientOf(ArrayRef<Operation *> ops, Operation *library,
                          const ShapeAnalysis &shapes);
/// scatter_add and index_add: each result element adds the source elements
/// whose index names it.
bool isScatterOp(Operation *op);
/// Whether an indexing op reads operand `operand` from memory: a gather's
/// table (at positions computed from data), a scatter's index and source
/// (every element of a line, for each result element); a library op, every
/// operand.
bool readsFromMemory(Operation *op, unsigned operand);
/// Whether `op` is a scan (cumsum, cumprod, cummax, cummin): each result element depends on the
/// elements before it along a dim, so its kernel walks whole lines.
bool isScanOp(Operation *op);
/// Why `op`'s operands that it reads from memory cannot be computed in its
/// kernel (for segmentation's messages).
std::string whyInMemory(Operation *op);
/// An indexing op of `group` with an operand it reads from memory that
/// `group` computes, or null.
Operation *gatherOfOwnValue(ArrayRef<Operation *> group);

/// The scheduler that accepts the ops `group` (a set of ops of one fusion)
/// whose results `outputs` are used outside it, or failure with the reason
/// in `whyNot`.
FailureOr<GroupInfo> classifyGroup(ArrayRef<Operation *> group,
                                   ArrayRef<Value> outputs,
                                   const ShapeAnalysis &shapes,
                                   std::string *whyNot = nullptr);

/// The kind's name, as the `fuser.schedulers` attribute of a segmented
/// fusion spells it: "pointwise", "reduction", "normalization",
/// "inner-outer", "scan", "matmul", "collective".
StringRef groupKindName(GroupKind kind);
/// The kind named `name`, or nullopt for a name no scheduler has.
std::optional<GroupKind> parseGroupKind(StringRef name);
/// Every kind's name, for messages: "pointwise, reduction, ... or collective".
std::string groupKindNames();

} // namespace mlir::fuser

#endif
