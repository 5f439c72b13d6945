//===- ReshardSteps.h - split changes the partition makes, one axis each -*- C++ -*-===//
//
// Upstream's shard-partition changes a value's split one grid axis at a
// time: it gathers the last axis of a dim, or splits a dim over one more
// axis. Any other change (two axes at once, a split moved to another axis)
// it leaves undone or half done. fuser-reshard-in-steps writes such a change
// as a chain of one-axis changes, and the partition's checks name them where
// one is still met (docs/sharding.md).
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_FUSER_SHARDING_RESHARDSTEPS_H
#define FUSER_DIALECT_FUSER_SHARDING_RESHARDSTEPS_H

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace mlir {
namespace fuser {

/// Each dim's grid axes, trailing whole dims dropped (`[]`: whole).
using SplitAxes = SmallVector<SmallVector<int16_t>>;
SplitAxes splitAxesOf(const shard::Sharding &sharding);

/// `[[0], [1]]` as written in split_axes; `[[]]` for whole.
std::string describeSplit(const SplitAxes &axes);

/// The splits between `from` and `to`, both excluded, each one grid axis
/// from the one before: the axes `to` does not keep are gathered first (the
/// last of a dim first), then `to`'s are added. Empty when `to` is one step
/// from `from` (or the same), a move of a dim's last axis to the end of
/// another dim's (an all_to_all) included.
SmallVector<SplitAxes> reshardSteps(SplitAxes from, SplitAxes to);

/// fuser-reshard-in-steps (a func pass, in fuser-partition after
/// propagation): a shard.shard whose split is more than one step from the
/// split of the shard.shard it reads gets the steps between, each a
/// shard.shard of its own.
std::unique_ptr<Pass> createReshardInStepsPass();

} // namespace fuser
} // namespace mlir

#endif // FUSER_DIALECT_FUSER_SHARDING_RESHARDSTEPS_H
