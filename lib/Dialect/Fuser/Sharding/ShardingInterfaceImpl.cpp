//===- ShardingInterfaceImpl.cpp - fuser ops under MLIR's shard dialect ---===//
//
// Upstream's sharding-propagation and shard-partition passes work on any op
// that describes itself as loops over an iteration space: which loops are
// parallel and which reduce (getLoopIteratorTypes), how each operand and
// result is indexed by them (getIndexingMaps), and how to rewrite the op for
// one device (partition). This file gives fuser's ops that description.
//
// - Elementwise ops: one parallel loop per result dim; a rank-0 operand is
//   read whole by every device.
// - broadcast, permute: the operand's dims follow the result dims they map
//   to. An operand dim of size 1 that expands gets a loop of its own, so a
//   split of the result dim never splits it.
// - Reductions: the reduced dims are reduction loops. Split over devices,
//   each device reduces its part and an all_reduce of the matching kind
//   combines them (mean: the average of equal parts, which
//   fuser-check-sharding guarantees). keepdim's size-1 dims get loops of
//   their own, like a broadcast's.
// - matmul, linear: batch and row/column loops are parallel, the contraction
//   is a sum. A split contraction is an all_reduce; linear's bias is then
//   added once, after it.
// - Ops that need a whole line (softmax, log_softmax, layer_norm, rms_norm,
//   var_mean, the scans): their lines are never split. An operand split
//   along one is gathered first: propagation annotates it whole and
//   partition inserts the all_gather (sequence-parallel layer_norm).
//
// - reshape: dims grouped by equal products; a split of a group's first dim
//   passes through (heads out of the hidden dim, a flattened batch).
// - slice, pad, concat: a split passes through the dims they keep whole
//   (concat: every dim but its own).
// - index_select: the looked-up dim follows the index, the others the
//   input; the input's indexed dim is whole.
// - Every other op (gather, the scatters, random numbers, fp8 scaling,
//   constants): all its values whole on every device.
//   Correct, not fast; finer rules can replace it op by op.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Sharding/ShardingInterfaceImpl.h"
#include "fuser/Dialect/Fuser/Sharding/ReshardSteps.h"

#include "fuser/Dialect/Fuser/IR/ElementwiseOps.h"
#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fuser;
using shard::GridAxis;
using shard::ReductionKind;
using shard::Sharding;
using shard::ShardingArray;
using shard::ShardingOption;
using utils::IteratorType;

namespace {

int64_t rankOf(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }

AffineMap mapOf(unsigned numLoops, ArrayRef<unsigned> loops, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (unsigned l : loops)
    exprs.push_back(getAffineDimExpr(l, ctx));
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

SmallVector<unsigned> iota(unsigned n, unsigned from = 0) {
  SmallVector<unsigned> r;
  for (unsigned i = 0; i < n; ++i)
    r.push_back(from + i);
  return r;
}

/// True when operand dim `d` of static size 1 stands for a larger result dim.
bool expands(Value operand, int64_t d, Value result, int64_t resultDim) {
  auto in = cast<RankedTensorType>(operand.getType());
  auto out = cast<RankedTensorType>(result.getType());
  return in.getDimSize(d) == 1 && out.getDimSize(resultDim) != 1;
}

/// The split the value read as operand has before it is resharded for its
/// use: the shard.shard before the one the use reads, of either kind (the
/// partition reshards between any two in a row); none if there is none.
Sharding splitBefore(Value operand) {
  auto use = operand.getDefiningOp<shard::ShardOp>();
  if (!use)
    return Sharding();
  auto own = use.getSrc().getDefiningOp<shard::ShardOp>();
  if (!own)
    return Sharding();
  return Sharding(own.getSharding());
}

/// Why a part is not what `op` needs for operand `i`: upstream's resharding
/// moves a split one grid axis at a time (gathers or slices the last axis
/// of a dim, or moves it between dims on a 1-D grid) and leaves any other
/// change undone or half done.
InFlightDiagnostic cannotReshard(Operation *op, unsigned i, const Sharding &wanted, Value part,
                                 Type local) {
  InFlightDiagnostic d = op->emitOpError("cannot take operand ") << i;
  Sharding before = splitBefore(op->getOperand(i));
  if (before)
    d << " split " << describeSplit(splitAxesOf(before));
  d << " as it needs it split, " << describeSplit(splitAxesOf(wanted));
  if (part)
    d << " (a part of type " << local << "; the partition made " << part.getType() << ")";
  d << ": the partition changes a split one grid axis at a time (gathers the last axis "
       "of a dim, or splits a dim over one more axis), not more at once nor from one axis "
       "to another";
  SmallVector<std::string> steps;
  if (before)
    for (const SplitAxes &step : reshardSteps(splitAxesOf(before), splitAxesOf(wanted)))
      steps.push_back(describeSplit(step));
  if (!steps.empty())
    d << "; reshard it in steps, annotating it " << llvm::join(steps, ", then ")
      << " first (a shard.shard each)";
  else
    d << "; split the value as its use needs it";
  return d;
}

/// Each part the partition hands `op` has its split's local type. Upstream's
/// resharding moves a split between some layouts only: otherwise it leaves
/// the part null (cloning the op crashed), or returns it as it was (an
/// operand split [[1], [0]] asked for as [[0], [1]]: the op was built on
/// parts of different shapes, an internal error after the stage).
LogicalResult checkParts(Operation *op, ArrayRef<Value> parts, ArrayRef<Sharding> wanted,
                         SymbolTableCollection &symbolTable) {
  for (auto [i, v] : llvm::enumerate(parts)) {
    if (!v)
      return cannotReshard(op, i, wanted[i], Value(), Type());
    if (!wanted[i])
      continue;
    shard::GridOp grid = shard::getGrid(op, wanted[i].getGridAttr(), symbolTable);
    if (!grid)
      continue;
    Type local = shard::shardType(op->getOperand(i).getType(), grid, wanted[i]);
    if (v.getType() != local)
      return cannotReshard(op, i, wanted[i], v, local);
  }
  return success();
}

/// An op as upstream's sharding interface sees it: its loops, the indexing
/// map of each operand then each result over them, how each reduction loop
/// combines parts, and the loops a device must see whole.
struct LoopDescription {
  SmallVector<IteratorType> loops;
  SmallVector<AffineMap> maps;
  SmallVector<ReductionKind> kinds; // one per reduction loop, in order
  SmallVector<unsigned> wholeLoops; // loops a device must see entirely
};

/// The grid that any of the op's shardings names.
FlatSymbolRefAttr gridOf(ArrayRef<Sharding> operandShardings,
                         ArrayRef<Sharding> resultShardings) {
  for (const Sharding &s : llvm::concat<const Sharding>(operandShardings, resultShardings))
    if (s)
      return s.getGridAttr();
  return {};
}

/// Result `i`'s sharding: its annotation, or for a result nothing reads
/// (propagation annotates none) the one its loops give.
Sharding resultSharding(Operation *op, const LoopDescription &desc,
                        const ShardingArray &assignment, ArrayRef<Sharding> resultShardings,
                        unsigned i, FlatSymbolRefAttr gridAttr) {
  if (resultShardings[i])
    return resultShardings[i];
  SmallVector<shard::GridAxesAttr> split;
  for (AffineExpr e : desc.maps[op->getNumOperands() + i].getResults())
    split.push_back(shard::GridAxesAttr::get(op->getContext(),
                                             assignment[cast<AffineDimExpr>(e).getPosition()]));
  return Sharding::get(gridAttr, split);
}

/// Partitions `op` as the clone of itself on each device's part; then, when
/// a reduction loop is split, combines the parts of every result with
/// `kind`.
/// A sum, product or mean of f16 or bf16 accumulates in f32 and rounds once
/// (torch, and fuser's kernels). Split over devices, each device's part
/// would round to the half type before the library combines them in it:
/// parts of +-96000 would become +-inf and their sum NaN where torch gives
/// 0. So the device's part stays f32 (the same op on its input cast to f32,
/// an exact cast), the all_reduce runs in f32, and the whole rounds once
/// after it. Fails (and changes nothing) for any other op or type.
LogicalResult combineHalvesInF32(Operation *op, IRMapping &partitionMap,
                                 FlatSymbolRefAttr gridAttr, ArrayRef<GridAxis> axes,
                                 ReductionKind kind, OpBuilder &builder) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (!isa<SumOp, ProdOp, MeanOp>(op) || !(type.getElementType().isF16() ||
                                          type.getElementType().isBF16()))
    return failure();
  Operation *part = partitionMap.lookup(op->getResult(0)).getDefiningOp();
  auto partType = cast<RankedTensorType>(part->getResult(0).getType());
  Location loc = op->getLoc();
  Value input = part->getOperand(0);
  Value wide = CastOp::create(builder, loc,
                              cast<RankedTensorType>(input.getType()).clone(builder.getF32Type()),
                              input);
  OperationState state(loc, part->getName(), ValueRange{wide},
                       TypeRange{partType.clone(builder.getF32Type())}, part->getAttrs());
  Value wholeF32 = shard::AllReduceOp::create(builder, loc, builder.create(state)->getResult(0),
                                              gridAttr.getValue(), axes, kind);
  partitionMap.map(op->getResult(0), CastOp::create(builder, loc, partType, wholeF32));
  part->erase();
  return success();
}

LogicalResult partitionWithReductions(Operation *op, const LoopDescription &desc,
                                      ArrayRef<Value> partitionedOperands,
                                      ArrayRef<Sharding> operandShardings,
                                      ArrayRef<Sharding> resultShardings,
                                      IRMapping &partitionMap,
                                      SymbolTableCollection &symbolTable,
                                      OpBuilder &builder) {
  ShardingArray assignment = shard::getGridAxisAssignmentForLoopIterators(
      operandShardings, resultShardings, desc.loops, desc.maps);
  for (unsigned l : desc.wholeLoops)
    if (!assignment[l].empty())
      return op->emitOpError() << "needs loop " << l
                               << " whole on each device, but it is split";
  FlatSymbolRefAttr gridAttr = gridOf(operandShardings, resultShardings);
  if (!gridAttr) { // nothing about the op is sharded: every device runs it as it is
    builder.clone(*op, partitionMap);
    return success();
  }
  SmallVector<Sharding, 2> results;
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    results.push_back(resultSharding(op, desc, assignment, resultShardings, i, gridAttr));
  shard::partitionTriviallyShardableOperation(*op, partitionedOperands, operandShardings,
                                              results, partitionMap, symbolTable, builder);
  if (!shard::isAtLeastOneReductionIteratorSharded(desc.loops, assignment))
    return success();
  // One kind per op: fuser's reductions combine all their reduced dims alike.
  ReductionKind kind = desc.kinds.empty() ? ReductionKind::Generic : desc.kinds.front();
  if (kind == ReductionKind::Generic)
    return op->emitOpError() << "cannot combine parts reduced on different devices";
  SmallVector<GridAxis> axes = shard::getReductionGridAxes(desc.loops, assignment);
  if (succeeded(combineHalvesInF32(op, partitionMap, gridAttr, axes, kind, builder)))
    return success();
  for (OpResult r : op->getResults()) {
    Value part = partitionMap.lookup(r);
    Value whole = shard::AllReduceOp::create(builder, op->getLoc(), part,
                                             gridAttr.getValue(), axes, kind);
    partitionMap.map(r, whole);
  }
  return success();
}

LogicalResult partitionLinear(LinearOp linear, ArrayRef<Value> partitionedOperands,
                              ArrayRef<Sharding> operandShardings,
                              ArrayRef<Sharding> resultShardings, IRMapping &partitionMap,
                              SymbolTableCollection &symbolTable, OpBuilder &builder);

/// The common model: an op type describes itself through `describe`, and
/// may name loops that must stay whole.
template <typename Op, typename Describe>
struct LoopModel
    : public shard::ShardingInterface::ExternalModel<LoopModel<Op, Describe>, Op> {
  SmallVector<IteratorType> getLoopIteratorTypes(Operation *op) const {
    return Describe()(cast<Op>(op)).loops;
  }
  SmallVector<ReductionKind> getReductionLoopIteratorKinds(Operation *op) const {
    return Describe()(cast<Op>(op)).kinds;
  }
  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    return Describe()(cast<Op>(op)).maps;
  }
  FailureOr<ShardingOption> getShardingOption(Operation *op,
                                              ArrayRef<Sharding> operandShardings,
                                              ArrayRef<Sharding> resultShardings) const {
    FailureOr<ShardingOption> option =
        shard::detail::defaultGetShardingOption(op, operandShardings, resultShardings);
    if (failed(option))
      return failure();
    // A line the op needs whole is never split: the operand annotation that
    // propagation then adds asks partition to gather it.
    for (unsigned l : Describe()(cast<Op>(op)).wholeLoops)
      if (l < option->shardingArray.size())
        option->shardingArray[l].clear();
    return option;
  }
  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings, IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable, OpBuilder &builder) const {
    if (failed(checkParts(op, partitionedOperands, operandShardings, symbolTable)))
      return failure();
    if constexpr (std::is_same_v<Op, LinearOp>)
      return partitionLinear(cast<LinearOp>(op), partitionedOperands, operandShardings,
                             resultShardings, partitionMap, symbolTable, builder);
    if constexpr (std::is_same_v<Op, SliceOp>) {
      if (failed(partitionWithReductions(op, Describe()(cast<Op>(op)), partitionedOperands,
                                         operandShardings, resultShardings, partitionMap,
                                         symbolTable, builder)))
        return failure();
      // A dim the slice keeps whole ends where the device's part does.
      auto part = partitionMap.lookup(op->getResult(0)).template getDefiningOp<SliceOp>();
      if (!part)
        return success();
      SmallVector<int64_t> limit(part.getLimit());
      ArrayRef<int64_t> local = part.getInput().getType().getShape();
      ArrayRef<int64_t> whole = cast<SliceOp>(op).getInput().getType().getShape();
      for (auto [k, l] : llvm::enumerate(limit))
        if (l == whole[k])
          l = local[k];
      part.setLimit(limit);
      return success();
    }
    return partitionWithReductions(op, Describe()(cast<Op>(op)), partitionedOperands,
                                   operandShardings, resultShardings, partitionMap,
                                   symbolTable, builder);
  }
};

//===----------------------------------------------------------------------===//
// Descriptions, one per family
//===----------------------------------------------------------------------===//

/// Same-shape operands and results; a rank-0 operand is read whole.
struct DescribeElementwise {
  LoopDescription operator()(Operation *op) const {
    MLIRContext *ctx = op->getContext();
    unsigned rank = rankOf(op->getResult(0));
    LoopDescription d;
    d.loops.assign(rank, IteratorType::parallel);
    for (Value v : op->getOperands())
      d.maps.push_back(rankOf(v) == rank ? mapOf(rank, iota(rank), ctx) : mapOf(rank, {}, ctx));
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      d.maps.push_back(mapOf(rank, iota(rank), ctx));
    return d;
  }
};

struct DescribeBroadcast {
  LoopDescription operator()(BroadcastOp op) const {
    MLIRContext *ctx = op->getContext();
    unsigned rank = rankOf(op.getResult());
    LoopDescription d;
    d.loops.assign(rank, IteratorType::parallel);
    SmallVector<unsigned> in;
    for (auto [i, to] : llvm::enumerate(op.getDims())) {
      if (expands(op.getInput(), i, op.getResult(), to)) {
        in.push_back(d.loops.size());
        d.loops.push_back(IteratorType::parallel);
      } else {
        in.push_back(to);
      }
    }
    d.maps = {mapOf(d.loops.size(), in, ctx), mapOf(d.loops.size(), iota(rank), ctx)};
    return d;
  }
};

struct DescribePermute {
  LoopDescription operator()(PermuteOp op) const {
    MLIRContext *ctx = op->getContext();
    unsigned rank = rankOf(op.getResult());
    LoopDescription d;
    d.loops.assign(rank, IteratorType::parallel);
    SmallVector<unsigned> in(rank);
    for (auto [i, from] : llvm::enumerate(op.getPerm()))
      in[from] = i;
    d.maps = {mapOf(rank, in, ctx), mapOf(rank, iota(rank), ctx)};
    return d;
  }
};

/// An op whose result dim k is its operands' dim k where `passes[k]`
/// (slice and pad where they keep a dim whole, concat off its dim): a split
/// of such a dim passes through. Every other dim is whole; a rank-0 operand
/// (pad's value) is read whole.
LoopDescription describePassingDims(Operation *op, ArrayRef<bool> passes) {
  MLIRContext *ctx = op->getContext();
  unsigned rank = passes.size();
  LoopDescription d;
  d.loops.assign(rank, IteratorType::parallel);
  for (unsigned k = 0; k < rank; ++k)
    if (!passes[k])
      d.wholeLoops.push_back(k);
  SmallVector<SmallVector<unsigned>> operandLoops;
  for (Value v : op->getOperands()) {
    SmallVector<unsigned> loops;
    if (rankOf(v) == rank)
      for (unsigned k = 0; k < rank; ++k) {
        if (passes[k]) {
          loops.push_back(k);
        } else {
          loops.push_back(d.loops.size());
          d.wholeLoops.push_back(d.loops.size());
          d.loops.push_back(IteratorType::parallel);
        }
      }
    operandLoops.push_back(loops);
  }
  for (ArrayRef<unsigned> loops : operandLoops)
    d.maps.push_back(mapOf(d.loops.size(), loops, ctx));
  d.maps.push_back(mapOf(d.loops.size(), iota(rank), ctx));
  return d;
}

struct DescribeSlice {
  LoopDescription operator()(SliceOp op) const {
    ArrayRef<int64_t> in = op.getInput().getType().getShape();
    SmallVector<bool> passes;
    for (auto [k, size] : llvm::enumerate(in))
      passes.push_back(!ShapedType::isDynamic(size) && op.getStart()[k] == 0 &&
                       op.getLimit()[k] == size && op.getStep()[k] == 1);
    return describePassingDims(op, passes);
  }
};

struct DescribePad {
  LoopDescription operator()(PadOp op) const {
    SmallVector<bool> passes;
    for (auto [lo, hi] : llvm::zip_equal(op.getLow(), op.getHigh()))
      passes.push_back(lo == 0 && hi == 0);
    return describePassingDims(op, passes);
  }
};

struct DescribeConcat {
  LoopDescription operator()(ConcatOp op) const {
    SmallVector<bool> passes(rankOf(op.getResult()), true);
    passes[op.getDim()] = false;
    return describePassingDims(op, passes);
  }
};

/// index_select (an embedding lookup): the result's dim `dim` follows the
/// index (tokens split over the devices look up their own rows), every
/// other dim follows the input (a table split by columns gives columns);
/// the input's `dim` (the vocabulary) is whole.
struct DescribeIndexSelect {
  LoopDescription operator()(IndexSelectOp op) const {
    MLIRContext *ctx = op->getContext();
    unsigned rank = rankOf(op.getResult());
    unsigned dim = op.getDim();
    LoopDescription d;
    d.loops.assign(rank, IteratorType::parallel);
    SmallVector<unsigned> in = iota(rank);
    in[dim] = rank;
    d.loops.push_back(IteratorType::parallel);
    d.wholeLoops.push_back(rank);
    d.maps = {mapOf(rank + 1, in, ctx), mapOf(rank + 1, {dim}, ctx),
              mapOf(rank + 1, iota(rank), ctx)};
    return d;
  }
};

/// reshape: the dims of operand and result fall into groups of equal
/// product (`[B, S, H*D] -> [B, S, H, D]`: {B}, {S}, {H*D} and {H, D}). The
/// first dim of a group on each side shares one loop: n equal parts of
/// `H*D` are n equal parts of `H` with all of `D`, so a split passes
/// through (fuser-check-sharding sees that n divides `H`). Every other dim,
/// size-1 dims, and everything from the first dim known only at launch on,
/// are whole.
struct DescribeReshape {
  LoopDescription operator()(ReshapeOp op) const {
    MLIRContext *ctx = op->getContext();
    ArrayRef<int64_t> in = op.getInput().getType().getShape();
    ArrayRef<int64_t> out = op.getType().getShape();
    LoopDescription d;
    SmallVector<unsigned> inLoops(in.size()), outLoops(out.size());
    auto wholeLoop = [&] {
      d.loops.push_back(IteratorType::parallel);
      d.wholeLoops.push_back(d.loops.size() - 1);
      return d.loops.size() - 1;
    };
    auto skipOnes = [&](ArrayRef<int64_t> shape, SmallVector<unsigned> &loops, size_t &k) {
      while (k < shape.size() && shape[k] == 1)
        loops[k++] = wholeLoop();
    };
    size_t i = 0, j = 0;
    bool grouped = true;
    while (grouped) {
      skipOnes(in, inLoops, i);
      skipOnes(out, outLoops, j);
      if (i == in.size() || j == out.size() || ShapedType::isDynamic(in[i]) ||
          ShapedType::isDynamic(out[j]) || in[i] == 0 || out[j] == 0)
        break;
      unsigned lead = d.loops.size();
      d.loops.push_back(IteratorType::parallel);
      inLoops[i] = outLoops[j] = lead;
      int64_t pi = in[i++], pj = out[j++];
      while (pi != pj) {
        SmallVector<unsigned> &loops = pi < pj ? inLoops : outLoops;
        ArrayRef<int64_t> shape = pi < pj ? in : out;
        size_t &k = pi < pj ? i : j;
        if (k == shape.size() || ShapedType::isDynamic(shape[k]) || shape[k] == 0) {
          grouped = false; // the group never closes: its lead loop is whole too
          d.wholeLoops.push_back(lead);
          break;
        }
        (pi < pj ? pi : pj) *= shape[k];
        loops[k++] = wholeLoop();
      }
    }
    for (; i < in.size(); ++i)
      inLoops[i] = wholeLoop();
    for (; j < out.size(); ++j)
      outLoops[j] = wholeLoop();
    d.maps = {mapOf(d.loops.size(), inLoops, ctx), mapOf(d.loops.size(), outLoops, ctx)};
    return d;
  }
};

/// Loops: the input's dims (the reduced ones reduce), then one per dim that
/// keepdim keeps as size 1.
template <typename Op>
LoopDescription describeReduction(Op op, ReductionKind kind, bool whole) {
  MLIRContext *ctx = op->getContext();
  unsigned rank = rankOf(op.getInput());
  ArrayRef<int64_t> dims = op.getDims();
  LoopDescription d;
  for (unsigned i = 0; i < rank; ++i) {
    bool reduced = llvm::is_contained(dims, (int64_t)i);
    d.loops.push_back(reduced ? IteratorType::reduction : IteratorType::parallel);
    if (reduced) {
      d.kinds.push_back(kind);
      if (whole)
        d.wholeLoops.push_back(i);
    }
  }
  SmallVector<unsigned> out;
  for (unsigned i = 0; i < rank; ++i) {
    if (!llvm::is_contained(dims, (int64_t)i)) {
      out.push_back(i);
    } else if (op.getKeepdim()) {
      out.push_back(d.loops.size());
      d.loops.push_back(IteratorType::parallel);
    }
  }
  unsigned n = d.loops.size();
  d.maps.push_back(mapOf(n, iota(rank), ctx));
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    d.maps.push_back(mapOf(n, out, ctx));
  return d;
}

template <typename Op, ReductionKind Kind>
struct DescribeReduction {
  LoopDescription operator()(Op op) const { return describeReduction(op, Kind, false); }
};

struct DescribeVarMean {
  LoopDescription operator()(VarMeanOp op) const {
    return describeReduction(op, ReductionKind::Generic, true);
  }
};

/// An op over whole lines along `wholeDims` of its first operand; every
/// other operand is indexed by the trailing dims (layer_norm's weight and
/// bias), every result by all dims (a kept size-1 dim follows its line,
/// which is never split).
LoopDescription describeLines(Operation *op, ArrayRef<int64_t> wholeDims) {
  MLIRContext *ctx = op->getContext();
  unsigned rank = rankOf(op->getOperand(0));
  LoopDescription d;
  for (unsigned i = 0; i < rank; ++i) {
    bool whole = llvm::is_contained(wholeDims, (int64_t)i);
    d.loops.push_back(whole ? IteratorType::reduction : IteratorType::parallel);
    if (whole) {
      d.kinds.push_back(ReductionKind::Generic);
      d.wholeLoops.push_back(i);
    }
  }
  d.maps.push_back(mapOf(rank, iota(rank), ctx));
  for (Value v : op->getOperands().drop_front()) {
    unsigned r = rankOf(v);
    d.maps.push_back(mapOf(rank, iota(r, rank - r), ctx));
  }
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    d.maps.push_back(mapOf(rank, iota(rank), ctx));
  return d;
}

template <typename Op> struct DescribeOneDimLines {
  LoopDescription operator()(Op op) const {
    int64_t dim = op.getDim();
    return describeLines(op, {dim});
  }
};

template <typename Op> struct DescribeNormalization {
  LoopDescription operator()(Op op) const { return describeLines(op, op.getDims()); }
};

/// torch.matmul: loops are the result's dims, then the contraction (a sum).
/// Batch dims align from the right; a batch dim of size 1 that broadcasts
/// gets a loop of its own.
struct DescribeMatmul {
  LoopDescription operator()(MatmulOp op) const {
    MLIRContext *ctx = op->getContext();
    Value lhs = op.getLhs(), rhs = op.getRhs(), res = op.getResult();
    unsigned la = rankOf(lhs), lb = rankOf(rhs), r = rankOf(res);
    LoopDescription d;
    d.loops.assign(r, IteratorType::parallel);
    unsigned k = r;
    d.loops.push_back(IteratorType::reduction);
    d.kinds.push_back(ReductionKind::Sum);
    // Result dims: batch (r - 2, or fewer when an operand is 1-D), then m
    // when lhs is at least 2-D, then n when rhs is.
    unsigned batch = r - (la >= 2) - (lb >= 2);
    unsigned m = batch, n = batch + (la >= 2);
    auto operandLoops = [&](Value v, unsigned rank, bool isLhs) {
      SmallVector<unsigned> loops;
      if (rank == 1)
        return SmallVector<unsigned>{k};
      unsigned vb = rank - 2;
      for (unsigned i = 0; i < vb; ++i) {
        unsigned to = batch - vb + i;
        if (expands(v, i, res, to)) {
          loops.push_back(d.loops.size());
          d.loops.push_back(IteratorType::parallel);
        } else {
          loops.push_back(to);
        }
      }
      if (isLhs)
        loops.append({m, k});
      else
        loops.append({k, n});
      return loops;
    };
    SmallVector<unsigned> a = operandLoops(lhs, la, true);
    SmallVector<unsigned> b = operandLoops(rhs, lb, false);
    unsigned total = d.loops.size();
    d.maps = {mapOf(total, a, ctx), mapOf(total, b, ctx), mapOf(total, iota(r), ctx)};
    return d;
  }
};

/// linear: x [..., in], weight [out, in], bias [out]; loops are the result's
/// dims (the last is `out`), then `in` (a sum).
struct DescribeLinear {
  LoopDescription operator()(LinearOp op) const {
    MLIRContext *ctx = op->getContext();
    unsigned r = rankOf(op.getResult());
    unsigned x = rankOf(op.getInput());
    LoopDescription d;
    d.loops.assign(r, IteratorType::parallel);
    unsigned k = r, out = r - 1;
    d.loops.push_back(IteratorType::reduction);
    d.kinds.push_back(ReductionKind::Sum);
    SmallVector<unsigned> in = iota(x - 1);
    in.push_back(k);
    d.maps = {mapOf(r + 1, in, ctx), mapOf(r + 1, {out, k}, ctx)};
    if (op.getBias())
      d.maps.push_back(mapOf(r + 1, {out}, ctx));
    d.maps.push_back(mapOf(r + 1, iota(r), ctx));
    return d;
  }
};

/// linear with its contraction split: the bias must be added once, after
/// the parts are summed, so the device program is a linear without bias,
/// the all_reduce, and the bias broadcast and added.
LogicalResult partitionLinear(LinearOp linear, ArrayRef<Value> partitionedOperands,
                              ArrayRef<Sharding> operandShardings,
                              ArrayRef<Sharding> resultShardings, IRMapping &partitionMap,
                              SymbolTableCollection &symbolTable, OpBuilder &builder) {
  Operation *op = linear;
  LoopDescription desc = DescribeLinear()(linear);
  ShardingArray assignment = shard::getGridAxisAssignmentForLoopIterators(
      operandShardings, resultShardings, desc.loops, desc.maps);
  if (!linear.getBias() || !shard::isAtLeastOneReductionIteratorSharded(desc.loops, assignment))
    return partitionWithReductions(op, desc, partitionedOperands, operandShardings,
                                   resultShardings, partitionMap, symbolTable, builder);
  Location loc = op->getLoc();
  Value x = partitionMap.lookup(linear.getInput());
  Value w = partitionMap.lookup(linear.getWeight());
  Value bias = partitionMap.lookup(linear.getBias());
  FlatSymbolRefAttr gridAttr = gridOf(operandShardings, resultShardings);
  Sharding result = resultSharding(op, desc, assignment, resultShardings, 0, gridAttr);
  Type partType = shard::shardType(linear.getType(), shard::getGrid(op, gridAttr, symbolTable),
                                   result);
  Value part = LinearOp::create(builder, loc, partType, x, w, Value());
  SmallVector<GridAxis> axes = shard::getReductionGridAxes(desc.loops, assignment);
  Value sum = shard::AllReduceOp::create(builder, loc, part, gridAttr.getValue(), axes,
                                         ReductionKind::Sum);
  int64_t last = cast<RankedTensorType>(partType).getRank() - 1;
  Value wide = BroadcastOp::create(builder, loc, partType, bias,
                                   builder.getDenseI64ArrayAttr({last}));
  partitionMap.map(linear.getResult(), AddOp::create(builder, loc, sum, wide).getResult());
  return success();
}

/// An op with no finer rule: every operand and result dim is a loop of its
/// own that must stay whole, so each device gets its operands whole
/// (partition gathers them) and computes the whole result (the users slice
/// it). Correct for any op, random numbers included (each device draws the
/// same numbers for the same elements); the cost is the gather and the
/// repeated work.
struct DescribeWhole {
  LoopDescription operator()(Operation *op) const {
    MLIRContext *ctx = op->getContext();
    LoopDescription d;
    SmallVector<SmallVector<unsigned>> loops;
    for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults())) {
      loops.push_back(iota(rankOf(v), d.loops.size()));
      for (unsigned l : loops.back()) {
        d.loops.push_back(IteratorType::parallel);
        d.wholeLoops.push_back(l);
      }
    }
    for (ArrayRef<unsigned> l : loops)
      d.maps.push_back(mapOf(d.loops.size(), l, ctx));
    return d;
  }
};

/// func.return under the partition: upstream's model (every dim a parallel
/// loop) clones the op on whatever parts the resharding made, so a result
/// annotated with a split it cannot reach came back as a part of the wrong
/// shape (a wrong result that ran) or null (a crash cloning the op). This
/// one checks each part first, as LoopModel does for fuser's ops.
struct ReturnModel : public shard::ShardingInterface::ExternalModel<ReturnModel, func::ReturnOp> {
  SmallVector<IteratorType> getLoopIteratorTypes(Operation *op) const {
    SmallVector<IteratorType> loops;
    for (Type t : op->getOperandTypes())
      if (auto r = dyn_cast<RankedTensorType>(t))
        loops.append(r.getRank(), IteratorType::parallel);
    return loops;
  }
  SmallVector<AffineMap> getIndexingMaps(Operation *) const { return {}; }
  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings, IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable, OpBuilder &builder) const {
    if (failed(checkParts(op, partitionedOperands, operandShardings, symbolTable)))
      return failure();
    shard::partitionTriviallyShardableOperation(*op, partitionedOperands, operandShardings,
                                                resultShardings, partitionMap, symbolTable,
                                                builder);
    return success();
  }
};

template <typename... Ops> void attachElementwise(MLIRContext *ctx) {
  (Ops::template attachInterface<LoopModel<Ops, DescribeElementwise>>(*ctx), ...);
}

template <typename... Ops> void attachWhole(MLIRContext *ctx) {
  (Ops::template attachInterface<LoopModel<Ops, DescribeWhole>>(*ctx), ...);
}

} // namespace

void mlir::fuser::registerShardingInterfaceExternalModels(DialectRegistry &registry) {
  // Before upstream's func extension (registerAllExtensions), whose model of
  // func.return is then ignored as a repeated registration.
  registry.addExtension(+[](MLIRContext *ctx, func::FuncDialect *) {
    func::ReturnOp::attachInterface<ReturnModel>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, FuserDialect *) {
    ctx->getOrLoadDialect<shard::ShardDialect>();
    attachElementwise<FUSER_ELEMENTWISE_OPS>(ctx);
    BroadcastOp::attachInterface<LoopModel<BroadcastOp, DescribeBroadcast>>(*ctx);
    PermuteOp::attachInterface<LoopModel<PermuteOp, DescribePermute>>(*ctx);
    SumOp::attachInterface<LoopModel<SumOp, DescribeReduction<SumOp, ReductionKind::Sum>>>(*ctx);
    ProdOp::attachInterface<
        LoopModel<ProdOp, DescribeReduction<ProdOp, ReductionKind::Product>>>(*ctx);
    MaxOp::attachInterface<LoopModel<MaxOp, DescribeReduction<MaxOp, ReductionKind::Max>>>(*ctx);
    MinOp::attachInterface<LoopModel<MinOp, DescribeReduction<MinOp, ReductionKind::Min>>>(*ctx);
    MeanOp::attachInterface<
        LoopModel<MeanOp, DescribeReduction<MeanOp, ReductionKind::Average>>>(*ctx);
    AnyOp::attachInterface<
        LoopModel<AnyOp, DescribeReduction<AnyOp, ReductionKind::BitwiseOr>>>(*ctx);
    AllOp::attachInterface<
        LoopModel<AllOp, DescribeReduction<AllOp, ReductionKind::BitwiseAnd>>>(*ctx);
    VarMeanOp::attachInterface<LoopModel<VarMeanOp, DescribeVarMean>>(*ctx);
    SoftmaxOp::attachInterface<LoopModel<SoftmaxOp, DescribeOneDimLines<SoftmaxOp>>>(*ctx);
    LogSoftmaxOp::attachInterface<
        LoopModel<LogSoftmaxOp, DescribeOneDimLines<LogSoftmaxOp>>>(*ctx);
    CumsumOp::attachInterface<LoopModel<CumsumOp, DescribeOneDimLines<CumsumOp>>>(*ctx);
    CumprodOp::attachInterface<LoopModel<CumprodOp, DescribeOneDimLines<CumprodOp>>>(*ctx);
    CummaxOp::attachInterface<LoopModel<CummaxOp, DescribeOneDimLines<CummaxOp>>>(*ctx);
    CumminOp::attachInterface<LoopModel<CumminOp, DescribeOneDimLines<CumminOp>>>(*ctx);
    LayerNormOp::attachInterface<
        LoopModel<LayerNormOp, DescribeNormalization<LayerNormOp>>>(*ctx);
    RmsNormOp::attachInterface<LoopModel<RmsNormOp, DescribeNormalization<RmsNormOp>>>(*ctx);
    MatmulOp::attachInterface<LoopModel<MatmulOp, DescribeMatmul>>(*ctx);
    LinearOp::attachInterface<LoopModel<LinearOp, DescribeLinear>>(*ctx);
    ReshapeOp::attachInterface<LoopModel<ReshapeOp, DescribeReshape>>(*ctx);
    SliceOp::attachInterface<LoopModel<SliceOp, DescribeSlice>>(*ctx);
    PadOp::attachInterface<LoopModel<PadOp, DescribePad>>(*ctx);
    ConcatOp::attachInterface<LoopModel<ConcatOp, DescribeConcat>>(*ctx);
    IndexSelectOp::attachInterface<LoopModel<IndexSelectOp, DescribeIndexSelect>>(*ctx);
    attachWhole<ConstantOp, IotaOp, SizeOp, GatherOp, ScatterAddOp, IndexAddOp, ScaledCastOp,
                QuantizeOp, RandOp, RandnOp, BernoulliOp, DropoutOp>(ctx);
  });
}
