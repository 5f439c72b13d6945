//===- RecordGrid.cpp - keep a sharded fusion's grid and splits -----------===//
//
// shard-partition rewrites a fusion's signature into one device's types and
// drops its annotations. A caller still has to know how to hand each device
// its part of an argument and how to join the parts of a result, and the
// runtime has to know how many devices the program is for. This pass, run
// just before partition, writes both down: `fuser.grid` (the grid's static
// shape) on the function, `fuser.split` (per dim, the mask of grid axes that
// split it) on every argument and result. The bundle carries them as its
// GRID record (docs/bundle.md).
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include "fuser_bundle_format.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_RECORDGRIDPASS
#include "fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// The sharding an argument is defined with (its `shard.shard` that is not
/// for its users), or none (whole).
shard::ShardOp argumentShard(Value v) {
  for (Operation *user : v.getUsers())
    if (auto s = dyn_cast<shard::ShardOp>(user); s && !s.getAnnotateForUsers())
      return s;
  return {};
}

/// The sharding a result is returned with: the `shard.shard` that makes the
/// returned value, for its users or not (partition reshards the value to
/// it for the return), or none (whole).
shard::ShardOp resultShard(Value v) { return v.getDefiningOp<shard::ShardOp>(); }

struct RecordGridPass : fuser::impl::RecordGridPassBase<RecordGridPass> {
  void runOnOperation() override {
    func::FuncOp f = getOperation();
    SymbolTableCollection symbols;
    shard::GridOp grid;
    WalkResult walk = f.walk([&](shard::ShardOp op) {
      shard::Sharding s(op.getSharding());
      shard::GridOp g = shard::getGridOrNull(op, s.getGridAttr(), symbols);
      if (!g)
        return WalkResult::advance(); // fuser-check-sharding names it
      if (grid && g != grid) {
        op.emitError("sharding over grid @")
            << g.getSymName() << " in a fusion already sharded over @" << grid.getSymName()
            << ": a fusion runs on one grid";
        return WalkResult::interrupt();
      }
      grid = g;
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (!grid)
      return;
    ArrayRef<int64_t> shape = grid.getShape();
    if (shape.size() > FUSER_BUNDLE_GRID_MAX_AXES) {
      grid.emitError("grid @") << grid.getSymName() << " has " << shape.size()
                               << " axes; fuser runs grids of at most "
                               << FUSER_BUNDLE_GRID_MAX_AXES;
      return signalPassFailure();
    }
    if (llvm::any_of(shape, ShapedType::isDynamic)) {
      grid.emitError("grid @") << grid.getSymName()
                               << " has a size known only at launch; fuser needs a static grid";
      return signalPassFailure();
    }
    Builder b(f.getContext());

    // The mask of each dim of `v`'s type, or an error.
    auto splitOf = [&](Value v, shard::ShardOp op, StringRef what) -> FailureOr<DenseI64ArrayAttr> {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type)
        return f.emitError() << what << " is not a ranked tensor", failure();
      SmallVector<int64_t> masks(type.getRank(), 0);
      if (op) {
        shard::Sharding s(op.getSharding());
        for (auto [dim, axesAttr] : llvm::enumerate(s.getSplitAxes())) {
          ArrayRef<shard::GridAxis> axes = axesAttr.asArrayRef();
          if (dim >= masks.size())
            break;
          for (auto [i, axis] : llvm::enumerate(axes)) {
            if (i > 0 && axis <= axes[i - 1])
              return op.emitError() << what << " splits dim " << dim
                                    << " by grid axes in descending order; fuser splits a dim "
                                       "by ascending axes (the first the outermost)",
                     failure();
            masks[dim] |= int64_t(1) << axis;
          }
        }
      }
      return b.getDenseI64ArrayAttr(masks);
    };
    for (BlockArgument arg : f.getArguments()) {
      FailureOr<DenseI64ArrayAttr> m =
          splitOf(arg, argumentShard(arg), "argument " + std::to_string(arg.getArgNumber()));
      if (failed(m))
        return signalPassFailure();
      f.setArgAttr(arg.getArgNumber(), kSplitAttr, *m);
    }
    Operation *ret = f.getBody().front().getTerminator();
    for (OpOperand &result : ret->getOpOperands()) {
      unsigned i = result.getOperandNumber();
      FailureOr<DenseI64ArrayAttr> m =
          splitOf(result.get(), resultShard(result.get()), "result " + std::to_string(i));
      if (failed(m))
        return signalPassFailure();
      f.setResultAttr(i, kSplitAttr, *m);
    }
    f->setAttr(kGridAttr, b.getDenseI64ArrayAttr(shape));
  }
};

} // namespace
