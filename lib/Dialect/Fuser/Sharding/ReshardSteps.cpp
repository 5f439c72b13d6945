//===- ReshardSteps.cpp - split changes of one grid axis each ------------===//
//
// Upstream's partition reshards a value between the splits of two
// shard.shard ops in a row, one grid axis at a time (ReshardSteps.h). A
// change of more (`[[]]` to `[[0], [1]]`, `[[0]]` to `[[1]]`, swapped axes)
// became a diagnostic at best; written as a chain of one-axis changes, each
// is a collective the partition makes (all_gather, all_slice), and the
// value reaches its split. The price is what the steps move: a split moved
// from one axis to another is gathered whole first.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Sharding/ReshardSteps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::fuser;

SplitAxes mlir::fuser::splitAxesOf(const shard::Sharding &sharding) {
  SplitAxes axes;
  for (shard::GridAxesAttr a : sharding.getSplitAxes())
    axes.emplace_back(a.asArrayRef());
  while (!axes.empty() && axes.back().empty())
    axes.pop_back();
  return axes;
}

std::string mlir::fuser::describeSplit(const SplitAxes &axes) {
  if (axes.empty())
    return "[[]]";
  std::string text = "[";
  for (auto [d, dim] : llvm::enumerate(axes)) {
    text += d ? ", [" : "[";
    for (auto [k, a] : llvm::enumerate(dim))
      text += (k ? ", " : "") + std::to_string(a);
    text += "]";
  }
  return text + "]";
}

/// True when the partition moves `from` to `to` in one step (an
/// all_to_all): the last axis of dim a moved to the end of dim b, where the
/// axes before it in a are those before it in b (upstream's
/// detectMoveLastSplitAxisInResharding asks that too: [[0], [1]] to
/// [[0, 1]] is not one move).
static bool isOneMove(const SplitAxes &from, const SplitAxes &to) {
  for (size_t a = 0; a < from.size(); ++a) {
    if (from[a].empty())
      continue;
    for (size_t b = 0; b < to.size(); ++b) {
      if (a == b || to[b].empty() || to[b].back() != from[a].back())
        continue;
      if (ArrayRef<int16_t>(from[a]).drop_back() != ArrayRef<int16_t>(to[b]).drop_back())
        continue;
      SplitAxes moved = from;
      moved.resize(std::max(moved.size(), b + 1));
      moved[b].push_back(moved[a].back());
      moved[a].pop_back();
      if (moved == to)
        return true;
    }
  }
  return false;
}

SmallVector<SplitAxes> mlir::fuser::reshardSteps(SplitAxes from, SplitAxes to) {
  size_t rank = std::max(from.size(), to.size());
  from.resize(rank);
  to.resize(rank);
  if (isOneMove(from, to))
    return {};
  SmallVector<SplitAxes> steps;
  auto step = [&] {
    SplitAxes trimmed = from;
    while (!trimmed.empty() && trimmed.back().empty())
      trimmed.pop_back();
    steps.push_back(trimmed);
  };
  // Gather what `to` does not keep: a dim's axes past the prefix it shares
  // with `to`'s, the last first.
  for (size_t d = 0; d < rank; ++d) {
    size_t keep = 0;
    while (keep < from[d].size() && keep < to[d].size() && from[d][keep] == to[d][keep])
      ++keep;
    while (from[d].size() > keep) {
      from[d].pop_back();
      step();
    }
  }
  // Then split over `to`'s axes, one at a time.
  for (size_t d = 0; d < rank; ++d)
    while (from[d].size() < to[d].size()) {
      from[d].push_back(to[d][from[d].size()]);
      step();
    }
  if (!steps.empty())
    steps.pop_back(); // `to` itself
  return steps;
}

namespace {

struct ReshardInSteps : public PassWrapper<ReshardInSteps, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ReshardInSteps)
  StringRef getArgument() const override { return "fuser-reshard-in-steps"; }
  StringRef getDescription() const override {
    return "Write a shard.shard's change of split that is more than one grid axis as "
           "a chain of one-axis changes, each a reshard the partition makes";
  }
  void runOnOperation() override {
    SmallVector<shard::ShardOp> annotations;
    getOperation().walk([&](shard::ShardOp op) { annotations.push_back(op); });
    for (shard::ShardOp use : annotations) {
      auto toOp = use.getSharding().getDefiningOp<shard::ShardingOp>();
      if (!toOp)
        continue;
      // The split the value has: the annotation it reads (the partition
      // reshards between two in a row, whichever kinds), or whole where it
      // reads none and is read for users (an argument or a value no
      // annotation reached). Halos and offsets are not fuser's
      // (CheckSharding).
      auto own = use.getSrc().getDefiningOp<shard::ShardOp>();
      if (!own && !use.getAnnotateForUsers())
        continue; // the value's own annotation: nothing to reshard from
      SplitAxes from;
      if (own) {
        auto fromOp = own.getSharding().getDefiningOp<shard::ShardingOp>();
        if (!fromOp || fromOp.getGridAttr() != toOp.getGridAttr())
          continue;
        from = splitAxesOf(shard::Sharding(own.getSharding()));
      }
      SmallVector<SplitAxes> steps =
          reshardSteps(from, splitAxesOf(shard::Sharding(use.getSharding())));
      if (steps.empty())
        continue;
      OpBuilder b(use);
      Value value = use.getSrc();
      // A value with no annotation is declared whole first, so that the
      // steps reshard it rather than declare it split (an argument so
      // annotated would become the caller's part).
      if (!own)
        steps.insert(steps.begin(), SplitAxes());
      for (const SplitAxes &axes : steps) {
        SmallVector<shard::GridAxesAttr> attrs;
        for (const SmallVector<int16_t> &dim : axes)
          attrs.push_back(shard::GridAxesAttr::get(b.getContext(), dim));
        if (attrs.empty())
          attrs.push_back(shard::GridAxesAttr::get(b.getContext(), ArrayRef<int16_t>{}));
        Value sharding = shard::ShardingOp::create(b, use.getLoc(), toOp.getGridAttr(), attrs)
                             .getResult();
        value = shard::ShardOp::create(b, use.getLoc(), value, sharding).getResult();
      }
      use.getSrcMutable().assign(value);
    }
  }
};

} // namespace

std::unique_ptr<Pass> mlir::fuser::createReshardInStepsPass() {
  return std::make_unique<ReshardInSteps>();
}
