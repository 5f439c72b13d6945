//===- LowerCollectives.cpp - shard collectives to fuser.collective -------===//
//
// After shard-partition a device's fusion holds the shard dialect's
// collectives, which gather, reduce or slice along any tensor dim. The
// communication library (NCCL) exchanges contiguous parts of a buffer, in
// member order. So each collective becomes a fuser.collective over a new
// leading dim of the group's size, between a permute and reshape that bring
// the split dim to the front or take it back; those fuse into the kernels
// around the collective (a split of dim 0 needs neither).
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_LOWERCOLLECTIVESPASS
#include "fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// The library's name for a shard reduction on `element`, or an error.
FailureOr<StringRef> reductionName(Operation *op, shard::ReductionKind kind, Type element) {
  bool isBool = element.isInteger(1);
  switch (kind) {
  case shard::ReductionKind::Sum: return StringRef("sum");
  case shard::ReductionKind::Product: return StringRef("prod");
  case shard::ReductionKind::Max: return StringRef("max");
  case shard::ReductionKind::Min: return StringRef("min");
  case shard::ReductionKind::Average:
    if (isa<FloatType>(element))
      return StringRef("avg");
    break;
  // On i1 (0 or 1) or is max and and is min; on wider integers the
  // library has no bitwise reduction.
  case shard::ReductionKind::BitwiseOr:
    if (isBool)
      return StringRef("max");
    break;
  case shard::ReductionKind::BitwiseAnd:
    if (isBool)
      return StringRef("min");
    break;
  default: break;
  }
  return op->emitOpError("reduces ") << element << " with '"
                                     << shard::stringifyReductionKind(kind)
                                     << "', which the communication library (NCCL) does "
                                        "not run",
         failure();
}

struct Lowering {
  OpBuilder b;
  SymbolTableCollection symbols;
  explicit Lowering(MLIRContext *ctx) : b(ctx) {}

  /// The number of devices in `op`'s group, or an error.
  template <typename Op> FailureOr<int64_t> groupSize(Op op) {
    shard::GridOp grid = shard::getGridOrNull(op, op.getGridAttr(), symbols);
    if (!grid)
      return op.emitOpError("names grid @") << op.getGrid() << ", which is not defined",
             failure();
    ArrayRef<int64_t> shape = grid.getShape();
    int64_t n = 1;
    for (shard::GridAxis a : op.getGridAxes()) {
      if (a < 0 || a >= (int64_t)shape.size() || ShapedType::isDynamic(shape[a]))
        return op.emitOpError("groups grid @")
                   << op.getGrid() << " by axis " << a
                   << ", which the grid lacks or whose size is known only at launch",
               failure();
      n *= shape[a];
    }
    return n;
  }

  /// Members of a group are ordered by ascending axes (the bundle keeps a
  /// set of axes). A reduction does not care about the order; moving parts
  /// in another order would need the parts permuted.
  template <typename Op> LogicalResult checkAxesOrder(Op op, bool reduces) {
    ArrayRef<shard::GridAxis> axes = op.getGridAxes();
    if (reduces || llvm::is_sorted(axes))
      return success();
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleaveComma(axes, os);
    return op.emitOpError("orders its group by grid axes [")
           << text << "]; fuser orders a group's members by ascending axes (the first "
                      "the outermost): list the axes in ascending order";
  }

  Value collective(Location loc, StringRef kind, Value input, RankedTensorType type,
                   std::optional<StringRef> reduction, ArrayRef<shard::GridAxis> axes,
                   int64_t group) {
    SmallVector<int64_t> gridAxes(axes.begin(), axes.end());
    llvm::sort(gridAxes); // checkAxesOrder: only a reduction may come unsorted
    return CollectiveOp::create(b, loc, type, b.getStringAttr(kind), input,
                                reduction ? b.getStringAttr(*reduction) : StringAttr(),
                                b.getDenseI64ArrayAttr(gridAxes), b.getI64IntegerAttr(group));
  }

  /// `reduced`, the library's float max or min of `input`, NaN wherever a
  /// member's `input` is NaN. NCCL reduces float max and min with fmaxf and
  /// fminf (__hmax and __hmin for halves), which return the other operand
  /// when one is NaN, so a NaN only one member holds would be lost where
  /// torch's max and min give NaN. An any-NaN flag (i1 under max, one byte an
  /// element) goes through the same collective beside the values.
  Value keepNaN(Location loc, StringRef kind, Value input, Value reduced,
                ArrayRef<shard::GridAxis> axes, int64_t group) {
    auto type = cast<RankedTensorType>(reduced.getType());
    auto elem = dyn_cast<FloatType>(type.getElementType());
    if (!elem)
      return reduced;
    Value isNan = IsNanOp::create(b, loc, input);
    Value anyNan = collective(loc, kind, isNan, type.clone(b.getI1Type()), StringRef("max"),
                              axes, group);
    Value nan = ConstantOp::create(b, loc, RankedTensorType::get({}, elem),
                                   b.getFloatAttr(elem, APFloat::getNaN(elem.getFloatSemantics())));
    return WhereOp::create(b, loc, anyNan, nan, reduced);
  }

  static bool dropsNaN(shard::ReductionKind kind) {
    return kind == shard::ReductionKind::Max || kind == shard::ReductionKind::Min;
  }

  /// `x` with its dim `d` of size G*b split into [G, b] and G moved to the
  /// front: the parts the library scatters, in member order.
  Value partsToFront(Location loc, Value x, int64_t d, int64_t group) {
    auto t = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> split(t.getShape());
    split[d] = t.getDimSize(d) / group;
    split.insert(split.begin() + d, group);
    Value v = ReshapeOp::create(b, loc, RankedTensorType::get(split, t.getElementType()), x);
    if (d == 0)
      return v;
    SmallVector<int64_t> perm{d};
    for (int64_t i = 0; i < (int64_t)split.size(); ++i)
      if (i != d)
        perm.push_back(i);
    return PermuteOp::create(b, loc, v, perm);
  }

  /// The inverse: [G, ...] with G moved next to dim `d` and joined with it.
  Value partsFromFront(Location loc, Value y, int64_t d, RankedTensorType type) {
    auto t = cast<RankedTensorType>(y.getType());
    if (d != 0) {
      SmallVector<int64_t> perm;
      for (int64_t i = 1; i <= d; ++i)
        perm.push_back(i);
      perm.push_back(0);
      for (int64_t i = d + 1; i < t.getRank(); ++i)
        perm.push_back(i);
      y = PermuteOp::create(b, loc, y, perm);
    }
    return ReshapeOp::create(b, loc, type, y);
  }

  RankedTensorType withLeading(RankedTensorType t, int64_t group) {
    SmallVector<int64_t> shape{group};
    llvm::append_range(shape, t.getShape());
    return RankedTensorType::get(shape, t.getElementType());
  }

  LogicalResult lower(Operation *op) {
    b.setInsertionPoint(op);
    Location loc = op->getLoc();
    Value result;
    if (auto r = dyn_cast<shard::AllReduceOp>(op)) {
      auto type = cast<RankedTensorType>(r.getType());
      FailureOr<int64_t> g = groupSize(r);
      FailureOr<StringRef> red = reductionName(op, r.getReduction(), type.getElementType());
      if (failed(g) || failed(red))
        return failure();
      result = collective(loc, "all_reduce", r.getInput(), type, *red, r.getGridAxes(), *g);
      if (dropsNaN(r.getReduction()))
        result = keepNaN(loc, "all_reduce", r.getInput(), result, r.getGridAxes(), *g);
    } else if (auto a = dyn_cast<shard::AllGatherOp>(op)) {
      FailureOr<int64_t> g = groupSize(a);
      if (failed(g) || failed(checkAxesOrder(a, false)))
        return failure();
      auto in = cast<RankedTensorType>(a.getInput().getType());
      Value parts = collective(loc, "all_gather", a.getInput(), withLeading(in, *g),
                               std::nullopt, a.getGridAxes(), *g);
      result = partsFromFront(loc, parts, a.getGatherAxis().getSExtValue(),
                              cast<RankedTensorType>(a.getType()));
    } else if (auto s = dyn_cast<shard::ReduceScatterOp>(op)) {
      auto type = cast<RankedTensorType>(s.getType());
      FailureOr<int64_t> g = groupSize(s);
      FailureOr<StringRef> red = reductionName(op, s.getReduction(), type.getElementType());
      if (failed(g) || failed(red) || failed(checkAxesOrder(s, false)))
        return failure();
      Value parts = partsToFront(loc, s.getInput(), s.getScatterAxis().getSExtValue(), *g);
      result = collective(loc, "reduce_scatter", parts, type, *red, s.getGridAxes(), *g);
      if (dropsNaN(s.getReduction()))
        result = keepNaN(loc, "reduce_scatter", parts, result, s.getGridAxes(), *g);
    } else if (auto s = dyn_cast<shard::AllSliceOp>(op)) {
      auto type = cast<RankedTensorType>(s.getType());
      FailureOr<int64_t> g = groupSize(s);
      if (failed(g) || failed(checkAxesOrder(s, false)))
        return failure();
      Value parts = partsToFront(loc, s.getInput(), s.getSliceAxis().getSExtValue(), *g);
      result = collective(loc, "slice", parts, type, std::nullopt, s.getGridAxes(), *g);
    } else if (auto a = dyn_cast<shard::AllToAllOp>(op)) {
      // Split along split_axis into the parts each member gets, exchange,
      // join the parts received along concat_axis.
      FailureOr<int64_t> g = groupSize(a);
      if (failed(g) || failed(checkAxesOrder(a, false)))
        return failure();
      Value parts = partsToFront(loc, a.getInput(), a.getSplitAxis().getSExtValue(), *g);
      Value received = collective(loc, "all_to_all", parts,
                                  cast<RankedTensorType>(parts.getType()), std::nullopt,
                                  a.getGridAxes(), *g);
      result = partsFromFront(loc, received, a.getConcatAxis().getSExtValue(),
                              cast<RankedTensorType>(a.getType()));
    } else {
      return op->emitOpError("is not supported: fuser runs all_reduce, all_gather, "
                             "reduce_scatter, all_slice and all_to_all (docs/sharding.md)");
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    return success();
  }
};

/// An all_reduce whose only user slices it among the same devices is a
/// reduce_scatter: each device receives only its part of the sum, half the
/// traffic of the pair (partition makes the pair for a row-parallel
/// linear whose output is split along the sequence: Megatron's sequence
/// parallelism).
void fuseReduceScatters(func::FuncOp f) {
  SmallVector<shard::AllSliceOp> slices;
  f.walk([&](shard::AllSliceOp s) { slices.push_back(s); });
  for (shard::AllSliceOp slice : slices) {
    // A half-precision sum combines in f32 and rounds after the all_reduce
    // (ShardingInterfaceImpl.cpp): the cast between is an elementwise op,
    // which may as well round only the device's part.
    auto round = slice.getInput().getDefiningOp<CastOp>();
    Value reduced = round ? round.getInput() : slice.getInput();
    auto reduce = reduced.getDefiningOp<shard::AllReduceOp>();
    if (!reduce || !reduce->hasOneUse() || (round && !round->hasOneUse()) ||
        reduce.getGridAttr() != slice.getGridAttr() ||
        reduce.getGridAxes() != slice.getGridAxes())
      continue;
    OpBuilder b(slice);
    auto type = cast<RankedTensorType>(slice.getType());
    Value scattered = shard::ReduceScatterOp::create(
        b, slice.getLoc(),
        type.clone(cast<RankedTensorType>(reduce.getType()).getElementType()),
        reduce.getGridAttr(), reduce.getGridAxesAttr(), reduce.getInput(),
        reduce.getReductionAttr(), slice.getSliceAxisAttr());
    if (round)
      scattered = CastOp::create(b, round.getLoc(), type, scattered, round.getSaturate());
    slice.getResult().replaceAllUsesWith(scattered);
    slice.erase();
    if (round)
      round.erase();
    reduce.erase();
  }
}

struct LowerCollectivesPass : fuser::impl::LowerCollectivesPassBase<LowerCollectivesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Lowering lowering(&getContext());
    for (auto f : module.getOps<func::FuncOp>()) {
      fuseReduceScatters(f);
      SmallVector<Operation *> shardOps;
      f.walk([&](Operation *op) {
        if (isa<shard::ShardDialect>(op->getDialect()))
          shardOps.push_back(op);
      });
      for (Operation *op : shardOps)
        if (failed(lowering.lower(op)))
          return signalPassFailure();
    }
    // Grids nothing names any more.
    for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      if (SymbolTable::symbolKnownUseEmpty(grid, module))
        grid.erase();
  }
};

} // namespace
