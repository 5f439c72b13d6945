//===- ShardingInterfaceImpl.h - fuser ops under MLIR's shard dialect -*- C++ -*-===//
//
// Attaches upstream's shard::ShardingInterface to fuser's ops, so that
// sharding-propagation spreads `shard.shard` annotations through a fusion and
// shard-partition turns it into the program of one device with the
// collectives it needs (docs/sharding.md).
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_FUSER_SHARDING_SHARDINGINTERFACEIMPL_H
#define FUSER_DIALECT_FUSER_SHARDING_SHARDINGINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace fuser {

/// Registers the sharding models of fuser's ops (elementwise, broadcast,
/// permute, reductions, scans, the normalizations, matmul and linear).
void registerShardingInterfaceExternalModels(DialectRegistry &registry);

} // namespace fuser
} // namespace mlir

#endif // FUSER_DIALECT_FUSER_SHARDING_SHARDINGINTERFACEIMPL_H
