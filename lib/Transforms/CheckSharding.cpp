//===- CheckSharding.cpp - shardings that partition would get wrong -------===//
//
// Upstream's shard-partition trusts its input: a split dim that the devices
// do not divide gets `size / devices` elements per device, and the rest are
// lost. fuser's rules also assume equal parts (a mean combines the parts'
// means). This pass, run after sharding-propagation, makes every split that
// is not into equal, static parts an error that says which value, which dim
// and why.
//
//===----------------------------------------------------------------------===//

#include "fuser/Transforms/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace mlir::fuser {
#define GEN_PASS_DEF_CHECKSHARDINGPASS
#include "fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// "grid @NAME axes [a, b]", for messages.
std::string describeAxes(ArrayRef<shard::GridAxis> axes, StringRef grid) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "grid @" << grid << " axes [";
  llvm::interleaveComma(axes, os);
  os << "]";
  return text;
}

/// The most devices a grid may hold: NCCL's ranks are ints.
constexpr int64_t kMaxDevices = std::numeric_limits<int32_t>::max();

/// An axis of no devices would make every size check (ours, and upstream's
/// verifier and partition) divide by zero, and a product of sizes that
/// overflows would be 0 again.
LogicalResult checkGrid(shard::GridOp grid) {
  std::string shape;
  for (auto [i, n] : llvm::enumerate(grid.getShape()))
    shape += (i ? "x" : "") + (ShapedType::isDynamic(n) ? std::string("?") : std::to_string(n));
  if (llvm::is_contained(grid.getShape(), 0))
    return grid.emitError("grid @") << grid.getSymName() << " has an axis of size 0 (shape "
                                    << shape << "): every axis of a grid holds at least one device";
  int64_t devices = 1;
  for (int64_t n : grid.getShape())
    if (!ShapedType::isDynamic(n) && (llvm::MulOverflow(devices, n, devices) || devices > kMaxDevices))
      return grid.emitError("grid @")
             << grid.getSymName() << " (shape " << shape << ") holds more than " << kMaxDevices
             << " devices, the most NCCL ranks";
  return success();
}

/// A shard.shard whose sharding is not a shard.sharding op (an argument,
/// shard.get_sharding, a select) is what upstream's propagation and
/// partition read through without a check (a null dereference).
LogicalResult checkShardingSource(shard::ShardOp op) {
  if (op.getSharding().getDefiningOp<shard::ShardingOp>())
    return success();
  return op.emitError("the sharding of a shard.shard must be a shard.sharding op of the same "
                      "function (fuser reads annotations as written)");
}

LogicalResult checkShardOp(shard::ShardOp op, SymbolTableCollection &symbols) {
  if (failed(checkShardingSource(op)))
    return failure();
  shard::Sharding s(op.getSharding());
  if (!s)
    return success();
  shard::GridOp grid = shard::getGridOrNull(op, s.getGridAttr(), symbols);
  if (!grid)
    return op.emitError("sharding names grid @") << s.getGrid() << ", which is not defined";
  if (failed(checkGrid(grid)))
    return failure();
  if (!s.getStaticShardedDimsOffsets().empty() || !s.getDynamicShardedDimsOffsets().empty())
    return op.emitError("uneven parts (sharded_dims_offsets) are not supported: "
                        "fuser splits a dim into equal parts");
  if (!s.getStaticHaloSizes().empty() || !s.getDynamicHaloSizes().empty())
    return op.emitError("halos (halo_sizes) are not supported");
  auto type = dyn_cast<RankedTensorType>(op.getSrc().getType());
  if (!type)
    return success();
  for (auto [dim, axesAttr] : llvm::enumerate(s.getSplitAxes())) {
    ArrayRef<shard::GridAxis> axes = axesAttr.asArrayRef();
    if (axes.empty())
      continue;
    if (dim >= (size_t)type.getRank())
      return op.emitError("sharding splits dim ")
             << dim << " of " << type << ", which has " << type.getRank() << " dims";
    int64_t devices = 1;
    for (shard::GridAxis a : axes) {
      if (a < 0 || a >= grid.getRank())
        return op.emitError("sharding uses axis ")
               << a << " of grid @" << s.getGrid() << ", which has " << grid.getRank()
               << " axes";
      int64_t n = grid.getShape()[a];
      if (ShapedType::isDynamic(n))
        return op.emitError("dim ")
               << dim << " of " << type << " is split over " << describeAxes(axes, s.getGrid())
               << ", whose size is known only at launch: fuser needs grid sizes in the IR";
      devices *= n; // checkGrid bounds the product
    }
    int64_t size = type.getDimSize(dim);
    if (ShapedType::isDynamic(size))
      return op.emitError("dim ")
             << dim << " of " << type << " is split over " << describeAxes(axes, s.getGrid())
             << " but its size is known only at launch: a split dim must be static, so that "
                "every device gets an equal part";
    if (size % devices != 0)
      return op.emitError("dim ")
             << dim << " of " << type << " (size " << size << ") is split over "
             << describeAxes(axes, s.getGrid()) << " (" << devices
             << " devices), which does not divide it: every device must get an equal part";
  }
  return success();
}

/// What only the annotations as written (before propagation) must satisfy.
/// A sharding lists split axes for at most the tensor's dims (upstream's
/// propagation built a sharding without a grid from `[[]]` on a rank-0
/// tensor; it writes that itself, and partitions it, but not from the
/// input). A value whose definition a shard.shard annotates split is read
/// through the annotation: a direct read was partitioned as the whole
/// tensor with the part's type (invalid IR).
LogicalResult checkAsWritten(shard::ShardOp op) {
  shard::Sharding s(op.getSharding());
  auto type = dyn_cast<RankedTensorType>(op.getSrc().getType());
  if (s && type && s.getSplitAxes().size() > (size_t)type.getRank())
    return op.emitError("sharding lists split axes for ")
           << s.getSplitAxes().size() << " dims of " << type << ", which has " << type.getRank()
           << (type.getRank() == 0 ? " (a rank-0 tensor is whole on every device: leave it "
                                     "unannotated)"
                                   : "");
  if (op.getAnnotateForUsers())
    return success();
  if (!s || llvm::all_of(s.getSplitAxes(), [](shard::GridAxesAttr a) { return a.empty(); }))
    return success();
  for (OpOperand &use : op.getSrc().getUses()) {
    Operation *user = use.getOwner();
    if (isa<shard::ShardOp>(user))
      continue;
    return user->emitOpError("reads ")
           << op.getSrc().getType()
           << " directly, though a shard.shard annotates it split: read the annotation's "
              "result, or give this use its own annotation (annotate_for_users)";
  }
  return success();
}

/// A value annotated whole and also read directly: the direct reads read
/// the annotation instead (the same value), the annotation moved up to the
/// value's definition so that it comes before them. Left as written,
/// upstream's propagation annotated the direct reads after their users (IR
/// that broke dominance, and a crash in the stages after it).
void readWholeAnnotations(func::FuncOp f) {
  SmallVector<shard::ShardOp> whole;
  f.walk([&](shard::ShardOp op) {
    shard::Sharding s(op.getSharding());
    if (!op.getAnnotateForUsers() && s &&
        llvm::all_of(s.getSplitAxes(), [](shard::GridAxesAttr a) { return a.empty(); }))
      whole.push_back(op);
  });
  for (shard::ShardOp op : whole) {
    Value src = op.getSrc();
    bool direct = llvm::any_of(src.getUsers(), [](Operation *u) { return !isa<shard::ShardOp>(u); });
    auto sharding = op.getSharding().getDefiningOp<shard::ShardingOp>();
    if (!direct || !sharding || sharding->getBlock() != op->getBlock() ||
        src.getParentBlock() != op->getBlock())
      continue;
    // Both only move up: the sharding may annotate other values before.
    Operation *def = src.getDefiningOp();
    if (!def)
      sharding->moveBefore(&op->getBlock()->front());
    else if (def->isBeforeInBlock(sharding))
      sharding->moveAfter(def);
    op->moveAfter(def && sharding->isBeforeInBlock(def) ? def : sharding.getOperation());
    src.replaceUsesWithIf(op.getResult(), [&](OpOperand &use) {
      return !isa<shard::ShardOp>(use.getOwner());
    });
  }
}

/// The grid the function's annotations name (the first one), or null.
FlatSymbolRefAttr gridOf(func::FuncOp f) {
  FlatSymbolRefAttr grid;
  f.walk([&](shard::ShardingOp s) {
    if (!grid)
      grid = s.getGridAttr();
  });
  return grid;
}

/// The sharding of a value whose dim d is split over `splits[d]` (none
/// past the dims listed; no dims: whole), at `b`.
Value shardingOf(OpBuilder &b, Location loc, FlatSymbolRefAttr grid,
                 ArrayRef<SmallVector<int16_t>> splits) {
  SmallVector<shard::GridAxesAttr> axes;
  for (ArrayRef<int16_t> a : splits)
    axes.push_back(shard::GridAxesAttr::get(b.getContext(), a));
  while (axes.size() > 1 && axes.back().empty())
    axes.pop_back();
  if (axes.empty())
    axes.push_back(shard::GridAxesAttr::get(b.getContext(), {}));
  return shard::ShardingOp::create(b, loc, grid, axes);
}

/// `v` annotated whole (split along no dim) on `grid`, at `b`.
Value annotateWhole(OpBuilder &b, Value v, FlatSymbolRefAttr grid) {
  return shard::ShardOp::create(b, v.getLoc(), v, shardingOf(b, v.getLoc(), grid, {}), false);
}

/// Propagation leaves a value that no rule split (an argument nobody
/// annotated, an op whose operands are whole) with annotations for its
/// users only, and one computed from rank-0 values alone (a scalar
/// reshaped to [1], broadcast, or read by an iota's neighbours) with none:
/// no annotated value reaches it. Partition needs to know how the value
/// itself is held (it crashes otherwise): whole, on the grid its users
/// name, else on the fusion's grid. A rank-0 value nothing annotated is
/// whole to partition as it is.
void annotateWholeDefinitions(func::FuncOp f) {
  FlatSymbolRefAttr fusionGrid = gridOf(f);
  SmallVector<Value> values(f.getArguments());
  f.walk([&](Operation *op) {
    if (!isa<shard::ShardOp, shard::ShardingOp>(op))
      llvm::append_range(values, op->getResults());
  });
  for (Value v : values) {
    if (!isa<RankedTensorType>(v.getType()))
      continue;
    shard::ShardOp forUsers;
    bool defined = false;
    for (Operation *user : v.getUsers())
      if (auto s = dyn_cast<shard::ShardOp>(user)) {
        if (s.getAnnotateForUsers())
          forUsers = s;
        else
          defined = true;
      }
    if (defined || v.use_empty())
      continue;
    if (!forUsers && (!fusionGrid || cast<RankedTensorType>(v.getType()).getRank() == 0))
      continue;
    OpBuilder b(f.getContext());
    if (Operation *def = v.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(&f.getBody().front());
    FlatSymbolRefAttr grid =
        forUsers ? shard::Sharding(forUsers.getSharding()).getGridAttr() : fusionGrid;
    Value annotated = annotateWhole(b, v, grid);
    v.replaceAllUsesExcept(annotated, annotated.getDefiningOp());
  }
}

/// A returned value nothing annotated (an argument returned as it is, a
/// value computed from whole ones) crashes partition too: the return gets
/// it annotated as it is held, its own annotation where it has one, else
/// whole, on the grid the fusion's annotations name.
void annotateReturns(func::FuncOp f) {
  FlatSymbolRefAttr grid = gridOf(f);
  if (!grid)
    return;
  Operation *ret = f.getBody().front().getTerminator();
  for (OpOperand &operand : ret->getOpOperands()) {
    Value v = operand.get();
    if (!isa<RankedTensorType>(v.getType()) || v.getDefiningOp<shard::ShardOp>())
      continue;
    Value annotated;
    for (Operation *user : v.getUsers())
      if (auto s = dyn_cast<shard::ShardOp>(user); s && !s.getAnnotateForUsers())
        annotated = s.getResult();
    if (!annotated) {
      OpBuilder b(ret);
      annotated = annotateWhole(b, v, grid);
    }
    operand.set(annotated);
  }
}

/// An argument nobody reads (after the canonicalizer dropped the dead ops
/// that read it) has no annotation, and upstream's partition crashes on it:
/// it is annotated whole, on the function's grid, as the caller passes it.
void annotateUnusedArguments(func::FuncOp f) {
  FlatSymbolRefAttr grid = gridOf(f);
  if (!grid)
    return;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  for (BlockArgument arg : f.getArguments()) {
    if (!arg.use_empty() || !isa<RankedTensorType>(arg.getType()))
      continue;
    annotateWhole(b, arg, grid);
  }
}

/// The grid axes dim `d` of a value is split over under `s` (none past the
/// dims `s` lists).
ArrayRef<int16_t> axesOf(const shard::Sharding &s, unsigned d) {
  ArrayRef<shard::GridAxesAttr> split = s.getSplitAxes();
  return d < split.size() ? split[d].asArrayRef() : ArrayRef<int16_t>();
}

/// An op whose operands are annotated for it (annotate_for_users, as
/// written: propagation keeps it) with splits that disagree with its
/// result's, or with each other's, would be partitioned into parts of
/// different shapes (invalid IR). Each such operand is resharded instead to
/// the split the op computes with: the results' splits decide the loops
/// they index, then the operands' in order decide the loops only operands
/// index (a sum's reduced dims, a matmul's contraction), a grid axis taken
/// by one loop leaving the others whole. Operands that agree are left as
/// they are, so a consistent fusion's plan does not change.
bool reconcileOperands(func::FuncOp f) {
  bool changed = false;
  SmallVector<Operation *> ops;
  f.walk([&](Operation *op) {
    if (!isa<shard::ShardOp, shard::ShardingOp>(op) && isa<shard::ShardingInterface>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    auto iface = cast<shard::ShardingInterface>(op);
    SmallVector<AffineMap> maps = iface.getIndexingMaps();
    unsigned numLoops = iface.getLoopIteratorTypes().size();
    if (maps.size() != op->getNumOperands() + op->getNumResults())
      continue;
    // Each value's annotation: an operand's for this op, a result's own.
    std::vector<std::optional<shard::Sharding>> given;
    SmallVector<shard::ShardOp> forUsers;
    FlatSymbolRefAttr grid;
    bool readable = true;
    for (Value v : op->getOperands()) {
      auto s = v.getDefiningOp<shard::ShardOp>();
      forUsers.push_back(s && s.getAnnotateForUsers() ? s : shard::ShardOp());
      given.push_back(forUsers.back() ? std::optional(shard::Sharding(s.getSharding()))
                                      : std::nullopt);
    }
    for (Value v : op->getResults()) {
      given.push_back(std::nullopt);
      for (Operation *user : v.getUsers())
        if (auto s = dyn_cast<shard::ShardOp>(user); s && !s.getAnnotateForUsers())
          given.back() = shard::Sharding(s.getSharding());
    }
    for (const std::optional<shard::Sharding> &s : given)
      if (s && s->getGridAttr()) {
        readable &= !grid || grid == s->getGridAttr();
        grid = s->getGridAttr();
      }
    if (!readable || !grid)
      continue;
    // The loops' splits: results first, then operands.
    SmallVector<std::optional<SmallVector<int16_t>>> loops(numLoops);
    llvm::SmallDenseSet<int16_t> taken;
    auto decide = [&](unsigned i, bool fromResult) {
      if (!given[i])
        return true;
      for (auto [d, e] : llvm::enumerate(maps[i].getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        if (!dim)
          continue;
        std::optional<SmallVector<int16_t>> &loop = loops[dim.getPosition()];
        ArrayRef<int16_t> axes = axesOf(*given[i], d);
        if (loop) {
          if (fromResult && ArrayRef<int16_t>(*loop) != axes)
            return false; // results disagree (below)
          continue;
        }
        if (llvm::any_of(axes, [&](int16_t a) { return taken.contains(a); })) {
          if (fromResult)
            return false; // an axis another loop holds: not what the op computes
          axes = {};
        }
        loop = SmallVector<int16_t>(axes);
        taken.insert(axes.begin(), axes.end());
      }
      return true;
    };
    unsigned numOperands = op->getNumOperands();
    // Results annotated with splits their op cannot compute together (a
    // layer_norm's y split by rows, its mean whole): the first result's
    // decide the loops, and a result that disagrees is held as the op
    // computes it, its annotation then a reshard from there. Partitioned
    // as they were, the op was built on one result's split and the others'
    // types were wrong (an internal error, a crash, or a plan whose ranks
    // disagreed).
    SmallVector<unsigned> disagreeing;
    for (unsigned r = 0; r < op->getNumResults(); ++r) {
      // A result that disagrees decides nothing, not even the loops it
      // reached before the disagreement.
      auto loopsBefore = loops;
      auto takenBefore = taken;
      if (!decide(numOperands + r, true)) {
        loops = std::move(loopsBefore);
        taken = std::move(takenBefore);
        disagreeing.push_back(r);
      }
    }
    for (unsigned i = 0; i < numOperands; ++i)
      decide(i, false);
    // The split of value `i` (an operand, then the results) the loops give.
    // A dim of size 1 (a statistic's keepdim) is whole whatever loop
    // indexes it (the loop may be one the op splits elsewhere).
    auto wantedOf = [&](unsigned i) {
      SmallVector<SmallVector<int16_t>> wanted;
      Value v = i < numOperands ? op->getOperand(i) : op->getResult(i - numOperands);
      auto type = cast<RankedTensorType>(v.getType());
      for (auto [d, e] : llvm::enumerate(maps[i].getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        wanted.push_back(dim && loops[dim.getPosition()] && type.getDimSize(d) != 1
                             ? *loops[dim.getPosition()]
                             : SmallVector<int16_t>());
      }
      return wanted;
    };
    // Annotates result `r` with the split the op computes it with, before
    // its other uses.
    auto hold = [&](unsigned r) {
      Value res = op->getResult(r);
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(op);
      Value sharding = shardingOf(b, op->getLoc(), grid, wantedOf(numOperands + r));
      Value held = shard::ShardOp::create(b, op->getLoc(), res, sharding, false);
      res.replaceAllUsesExcept(held, held.getDefiningOp());
      return sharding;
    };
    for (unsigned r : disagreeing) {
      given[numOperands + r] = shard::Sharding(hold(r));
      changed = true;
    }
    bool resharded = false;
    for (unsigned i = 0; i < numOperands; ++i) {
      if (!forUsers[i])
        continue;
      SmallVector<SmallVector<int16_t>> wanted = wantedOf(i);
      if (llvm::all_of(llvm::enumerate(wanted), [&](auto w) {
            return ArrayRef<int16_t>(w.value()) == axesOf(*given[i], w.index());
          }))
        continue;
      OpBuilder b(op);
      Value sharding = shardingOf(b, op->getLoc(), grid, wanted);
      Value to = shard::ShardOp::create(b, op->getLoc(), forUsers[i].getSrc(), sharding,
                                        /*annotate_for_users=*/true);
      op->setOperand(i, to);
      if (forUsers[i]->use_empty())
        forUsers[i]->erase();
      resharded = true;
    }
    if (!resharded)
      continue;
    changed = true;
    // A result propagation left unannotated (it stops at a conflict) is
    // held as the op computes it; propagation, run again, carries that on
    // to its users.
    for (unsigned r = 0; r < op->getNumResults(); ++r)
      if (!given[numOperands + r])
        hold(r);
  }
  return changed;
}

struct CheckShardingPass : public fuser::impl::CheckShardingPassBase<CheckShardingPass> {
  using CheckShardingPassBase::CheckShardingPassBase;
  void runOnOperation() override {
    if (beforePropagation) {
      SymbolTableCollection symbols;
      WalkResult walk = getOperation().walk([&](shard::ShardOp op) {
        return failed(checkShardOp(op, symbols)) || failed(checkAsWritten(op))
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
      readWholeAnnotations(getOperation());
      return;
    }
    annotateUnusedArguments(getOperation());
    // Before the whole annotations below: a result only they annotate says
    // nothing about how its op computes. Propagation stopped at the
    // conflict: run again from what was resolved.
    if (reconcileOperands(getOperation())) {
      OpPassManager again(func::FuncOp::getOperationName());
      shard::ShardingPropagationOptions options;
      options.traversal = shard::TraversalOrder::ForwardBackward;
      again.addPass(shard::createShardingPropagation(options));
      if (failed(runPipeline(again, getOperation())))
        return signalPassFailure();
    }
    annotateWholeDefinitions(getOperation());
    annotateReturns(getOperation());
    SymbolTableCollection symbols;
    WalkResult walk = getOperation().walk([&](Operation *op) {
      if (auto shardOp = dyn_cast<shard::ShardOp>(op))
        return failed(checkShardOp(shardOp, symbols)) ? WalkResult::interrupt()
                                                      : WalkResult::advance();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

LogicalResult mlir::fuser::checkShardInput(ModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    if (auto grid = dyn_cast<shard::GridOp>(op))
      ok &= succeeded(checkGrid(grid));
    else if (auto shard = dyn_cast<shard::ShardOp>(op))
      ok &= succeeded(checkShardingSource(shard));
  });
  return success(ok);
}
