//===- IndexGrowth.cpp - values whose read index grows past a bound -------===//
//
// See IndexGrowth.h.
//
//===----------------------------------------------------------------------===//

#include "fuser/Analysis/IndexGrowth.h"

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Analysis/IndexMath.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::fuser;

/// Where tree sizes saturate (far above any bound, far below overflow).
static constexpr uint64_t kSaturatedTreeNodes = uint64_t(1) << 62;

namespace {
/// Tree sizes of affine expressions, memoized over the DAG (expressions are
/// uniqued), saturating: what a recursive walk of each would visit, at the
/// cost of one visit per distinct node.
class TreeSizes {
public:
  uint64_t of(AffineExpr e) {
    if (auto it = sizes.find(e); it != sizes.end())
      return it->second;
    uint64_t n = 1;
    if (auto bin = dyn_cast<AffineBinaryOpExpr>(e))
      n = std::min<uint64_t>(kSaturatedTreeNodes, 1 + of(bin.getLHS()) + of(bin.getRHS()));
    sizes[e] = n;
    return n;
  }
  uint64_t of(const Index &idx) {
    uint64_t n = 0;
    for (AffineExpr e : idx.exprs)
      n = std::min<uint64_t>(kSaturatedTreeNodes, n + of(e));
    return n;
  }

private:
  DenseMap<AffineExpr, uint64_t> sizes;
};
} // namespace

/// Each element of `v` (a ranked tensor) at its own position.
static Index ownIndex(Value v) {
  Index idx;
  for (int64_t k = 0, rank = cast<RankedTensorType>(v.getType()).getRank(); k < rank; ++k)
    idx.exprs.push_back(getAffineDimExpr(k, v.getContext()));
  return idx;
}

/// Whether a kernel reads operand `i` of `op` at its own positions (from
/// memory or across a reduction's domain) rather than at an index mapped
/// from the index of `op`'s result.
static bool readsWholeOperand(Operation *op, unsigned i) {
  return isReductionOp(op) || isScanOp(op) || isLibraryOp(op) || readsFromMemory(op, i);
}

/// Whether the segmenter can write `v` to memory for its readers: a value
/// some kernel computes element by element (not a constant or an iota,
/// which every kernel computes itself, nor a reduction's or a library
/// call's result, whose readers start from its own index anyway).
static bool canWriteToMemory(Value v) {
  Operation *def = v.getDefiningOp();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return def && type && type.getRank() > 0 && !isa<ConstantOp, IotaOp>(def) &&
         !isReductionOp(def) && !isLibraryOp(def);
}

llvm::MapVector<Value, std::string> mlir::fuser::valuesWithIndexGrowth(func::FuncOp fusion,
                                                                      const ShapeAnalysis &shapes) {
  llvm::MapVector<Value, std::string> written;
  Block &body = fusion.getBody().front();
  TreeSizes sizes;
  // Per value, the distinct indices its readers need it at.
  DenseMap<Value, SmallVector<Index, 1>> needed;
  auto need = [&](Value v, Index idx) {
    SmallVector<Index, 1> &at = needed[v];
    if (!llvm::is_contained(at, idx))
      at.push_back(std::move(idx));
  };
  for (Value r : body.getTerminator()->getOperands())
    if (isa<RankedTensorType>(r.getType()))
      need(r, ownIndex(r));
  // Readers come after what they read: in reverse program order, each
  // value's indices are all known when its op is reached.
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  SmallVector<std::pair<Value, std::string>> found;
  for (Operation *op : llvm::reverse(ops)) {
    // The indices of the op's result (only single-result ops map an index
    // to their operands: var_mean's two results are a reduction's).
    SmallVector<Index, 1> *at = nullptr;
    if (op->getNumResults() == 1 && isa<RankedTensorType>(op->getResult(0).getType()))
      if (auto it = needed.find(op->getResult(0)); it != needed.end())
        at = &it->second;
    if (at && canWriteToMemory(op->getResult(0))) {
      Value v = op->getResult(0);
      uint64_t largest = 0;
      for (const Index &idx : *at)
        largest = std::max(largest, sizes.of(idx));
      std::string why;
      if (largest > kMaxIndexTreeNodes)
        why = "the index at which its readers compute it grew to " +
              (largest >= kSaturatedTreeNodes ? std::string("over 2^62")
                                              : std::to_string(largest)) +
              " nodes (more than " + std::to_string(kMaxIndexTreeNodes) +
              ") through the views between them (a chain of permutes and reshapes)";
      else if (at->size() > kMaxIndicesPerValue)
        why = "its readers compute it at " + std::to_string(at->size()) +
              " distinct indices (more than " + std::to_string(kMaxIndicesPerValue) + ")";
      if (!why.empty()) {
        found.push_back({v, why});
        at->assign(1, ownIndex(v));
      }
    }
    // (A copy: `need` below may grow the map under `at`.)
    SmallVector<Index, 1> resultIndices;
    if (at)
      resultIndices = *at;
    for (unsigned i = 0, n = numOperandsRead(op); i < n; ++i) {
      Value operand = op->getOperand(i);
      if (!isa<RankedTensorType>(operand.getType()))
        continue;
      if (readsWholeOperand(op, i)) {
        need(operand, ownIndex(operand));
        continue;
      }
      for (const Index &idx : resultIndices)
        need(operand, operandIndexOf(op, i, idx, shapes));
    }
  }
  for (auto &[v, why] : llvm::reverse(found))
    written.insert({v, why});
  return written;
}
