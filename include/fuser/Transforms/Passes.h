//===- Passes.h - fuser transformation passes -------------------*- C++ -*-===//
#ifndef FUSER_TRANSFORMS_PASSES_H
#define FUSER_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace fuser {

#define GEN_PASS_DECL
#include "fuser/Transforms/Passes.h.inc"

/// Refuses, with a diagnostic, the `shard` IR that upstream's own verifier
/// and passes divide by zero or dereference null on: a grid with an axis of
/// size 0 or more devices than an int counts, and a `shard.shard` whose
/// sharding is not a `shard.sharding` op. Runs before the module is
/// verified (fuserParseSourceString) and in fuser-check-sharding.
LogicalResult checkShardInput(ModuleOp module);

/// Adds the patterns that expand composite ops into primitive ops (and
/// those of populateLiftRankZeroPatterns).
void populateDecomposeCompositesPatterns(RewritePatternSet &patterns);

/// Adds the pattern that rewrites an op along a dim of a rank-0 input (a
/// reduction, var_mean, a scan, softmax, log_softmax) as the op over that
/// input reshaped to [1] (LiftRankZero.cpp).
void populateLiftRankZeroPatterns(RewritePatternSet &patterns);

/// Rewrites each op along a dim of a rank-0 input under `root` as the
/// pattern does, and nothing else (no folding, no dead code removed).
void liftRankZero(Operation *root);

#define GEN_PASS_REGISTRATION
#include "fuser/Transforms/Passes.h.inc"

} // namespace fuser
} // namespace mlir

#endif // FUSER_TRANSFORMS_PASSES_H
