//===- ScanScheduler.cpp - running sums along one dim --------------------===//
//
// A scan segment is a cumsum or cumprod and the ops that compute its input
// (emitted on
// demand at each element, like any group's values); it writes the scan's
// result only. The input is seen as lines: [outer, n, inner], n the scanned
// extent, inner the product of the dims after it.
//
//  - inner = 1 (the scan runs along the contiguous dim): a warp per line.
//    The line is read 32 elements at a time, one per lane (coalesced); the
//    32 values are combined by a Hillis-Steele scan over warp shuffles (5
//    steps: lane i combines with lane i - 1, i - 2, i - 4, i - 8, i - 16),
//    the chunks before are combined in, and lane 31's total carries to the
//    next chunk. 8 warps a block, blocks grid-strided over the lines.
//  - otherwise: a thread per (outer, inner) line, combining along n in order;
//    consecutive threads take consecutive inner positions, so every step
//    reads and writes coalesced.
//
// Either way the order of the additions depends only on the position, never
// on the launch shape: the same bits on every run (docs/schedulers.md,
// "Scans"). 16-bit floats accumulate in f32, as PyTorch does.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseEmitter.h"
#include "GroupEmitter.h"
#include "KernelBuilder.h"

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

constexpr int64_t kScanBlock = 256;
constexpr int64_t kWarp = 32;

class ScanScheduler : public GroupEmitter {
public:
  ScanScheduler(FusionEmitter &fe, const Segment &seg, Operation *scan)
      : GroupEmitter(fe, seg), scan(scan), product(isa<CumprodOp>(scan)),
        dim(cast<IntegerAttr>(scan->getAttr("dim")).getInt()) {}
  LogicalResult run();

private:
  void emitKernel(unsigned indexBits);
  /// Sets iterValues for the element (line, j): `line` counts the lines
  /// row-major over the outer then the inner dims.
  void setElement(Value line, Value j);
  /// The value of the scan's input at the current element, in the
  /// accumulation type; the identity where `valid` is false.
  Value inputAt(Value valid);
  /// `x` (32 or 64 bits) from lane `lane` (mode IDX) or from `lane` lanes
  /// below (mode UP), as 32-bit shuffles.
  Value shuffle(Value x, int32_t lane, gpu::ShuffleMode mode);
  /// The scan's operation: a + b, or a * b for a product.
  Value combine(Value a, Value b);
  /// 0, or 1 for a product, in the accumulation type.
  Value identity();

  Operation *scan;
  bool product;
  int64_t dim;
  Type accType;
  AffineExpr outerCount, innerCount;
  bool warpPerLine = false;
};

} // namespace

Value ScanScheduler::combine(Value a, Value b) {
  OpBuilder &ob = kb->b;
  if (isa<FloatType>(a.getType()))
    return product ? arith::MulFOp::create(ob, kb->loc, a, b).getResult()
                   : arith::AddFOp::create(ob, kb->loc, a, b).getResult();
  return product ? arith::MulIOp::create(ob, kb->loc, a, b).getResult()
                 : arith::AddIOp::create(ob, kb->loc, a, b).getResult();
}

Value ScanScheduler::identity() {
  OpBuilder &ob = kb->b;
  TypedAttr v = isa<FloatType>(accType) ? TypedAttr(ob.getFloatAttr(accType, product ? 1.0 : 0.0))
                                        : TypedAttr(ob.getIntegerAttr(accType, product ? 1 : 0));
  return arith::ConstantOp::create(ob, kb->loc, accType, v);
}

void ScanScheduler::setElement(Value line, Value j) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  iterValues.assign(numIterDims, Value());
  // Row-major over the dims other than `dim`: the inner ones vary fastest.
  Value rest = line;
  for (unsigned k = refRank; k-- > 0;) {
    auto it = dyn_cast<AffineDimExpr>(dimSubstitution[k]);
    if (!it)
      continue; // a dim of size 1: index 0
    if ((int64_t)k == dim) {
      iterValues[it.getPosition()] = j;
      continue;
    }
    Value size = kb->expander->expand(iterSizes[it.getPosition()]);
    iterValues[it.getPosition()] = arith::RemUIOp::create(b, loc, rest, size);
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
}

Value ScanScheduler::inputAt(Value valid) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  memo.clear();
  SmallVector<AffineExpr> dIdx;
  for (unsigned k = 0; k < refRank; ++k)
    dIdx.push_back(getAffineDimExpr(k, ctx));
  loadMask = valid;
  Value x = emit(scan->getOperand(0), Index{false, dIdx}, 1).value;
  loadMask = Value();
  x = emitCast(b, loc, x, accType);
  if (!valid)
    return x;
  // Values computed from masked loads need not be the identity (exp(0) is
  // 1, and a product's identity is 1).
  return arith::SelectOp::create(b, loc, valid, x, identity());
}

Value ScanScheduler::shuffle(Value x, int32_t offset, gpu::ShuffleMode mode) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  Type i32 = b.getI32Type();
  Value off = arith::ConstantIntOp::create(b, loc, offset, 32);
  Value width = arith::ConstantIntOp::create(b, loc, kWarp, 32);
  if (x.getType().getIntOrFloatBitWidth() == 32)
    return gpu::ShuffleOp::create(b, loc, x, off, width, mode).getShuffleResult();
  // 64 bits: the two halves, each a 32-bit shuffle.
  Type i64 = b.getI64Type();
  Value bits = x.getType() == i64 ? x : arith::BitcastOp::create(b, loc, i64, x).getResult();
  Value lo = arith::TruncIOp::create(b, loc, i32, bits);
  Value hi = arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, bits, arith::ConstantIntOp::create(b, loc, 32, 64)));
  lo = gpu::ShuffleOp::create(b, loc, lo, off, width, mode).getShuffleResult();
  hi = gpu::ShuffleOp::create(b, loc, hi, off, width, mode).getShuffleResult();
  Value joined = arith::OrIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, i64, lo),
      arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, hi),
                            arith::ConstantIntOp::create(b, loc, 32, 64)));
  return x.getType() == i64 ? joined : arith::BitcastOp::create(b, loc, x.getType(), joined);
}

void ScanScheduler::emitKernel(unsigned indexBits) {
  SmallVector<unsigned> symbols = segmentSymbols(fe.shapes, seg);
  SmallVector<Value> inputs = orderedInputs(seg);
  SmallVector<Value> outputs(seg.outputs.begin(), seg.outputs.end());
  KernelBuilder k(fe, fe.newKernelName(), indexBits, inputs, outputs, symbols,
                  /*numFlags=*/0, {kScanBlock});
  kb = &k;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  indexByIteration(k);
  Value result = scan->getResult(0);
  Value n = k.expander->expand(refShape[dim]);
  Value lines = k.expander->expand(simplify(outerCount * innerCount, 0, numSymbols));
  Value tid = k.threadId(gpu::Dimension::x);
  Value bid = k.blockId(gpu::Dimension::x);
  Value gdim = k.gridDim(gpu::Dimension::x);
  Value zero = k.constant(0), one = k.constant(1);
  Value start = identity();
  auto store = [&](Value acc) {
    SmallVector<AffineExpr> dIdx;
    for (unsigned d = 0; d < refRank; ++d)
      dIdx.push_back(getAffineDimExpr(d, ctx));
    Value off = k.expander->expand(toIteration(linearIndex(result, Index{false, dIdx})));
    k.store(k.pointer(result), emitCast(b, loc, acc, elementTypeOf(result)), off);
  };

  if (warpPerLine) {
    // Lines grid-strided by warps; within a line, chunks of 32.
    Value warpsPerBlock = k.constant(kScanBlock / kWarp);
    Value lane = arith::RemUIOp::create(b, loc, tid, k.constant(kWarp));
    Value warp = arith::DivUIOp::create(b, loc, tid, k.constant(kWarp));
    Value first = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, bid, warpsPerBlock),
                                        warp);
    Value stride = arith::MulIOp::create(b, loc, gdim, warpsPerBlock);
    auto lineLoop = scf::ForOp::create(b, loc, first, lines, stride);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(lineLoop.getBody());
    Value line = lineLoop.getInductionVar();
    Value chunks = arith::CeilDivUIOp::create(b, loc, n, k.constant(kWarp));
    auto chunkLoop = scf::ForOp::create(b, loc, zero, chunks, one, ValueRange{start});
    b.setInsertionPointToStart(chunkLoop.getBody());
    ExprScope scope(*k.expander);
    Value carry = chunkLoop.getRegionIterArgs()[0];
    Value j = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, chunkLoop.getInductionVar(), k.constant(kWarp)),
        lane);
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, n);
    setElement(line, j);
    Value acc = inputAt(valid);
    // Inclusive scan of the chunk: lane i combines lanes i-1, i-2, i-4, ...
    // (the lanes below first: a + b, a * b as the sequential order has them)
    for (int32_t d = 1; d < kWarp; d *= 2) {
      Value below = shuffle(acc, d, gpu::ShuffleMode::UP);
      Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, lane, k.constant(d));
      acc = arith::SelectOp::create(b, loc, has, combine(below, acc), acc);
    }
    acc = combine(carry, acc);
    auto ifValid = scf::IfOp::create(b, loc, valid, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifValid.getThenRegion().front());
      ExprScope inner(*k.expander);
      store(acc);
    }
    // Lane 31 holds the line's total so far (past the end, lanes hold the
    // identity).
    scf::YieldOp::create(b, loc, shuffle(acc, kWarp - 1, gpu::ShuffleMode::IDX));
  } else {
    // A thread per line, in order along n.
    Value first = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bid, k.constant(kScanBlock)), tid);
    Value stride = arith::MulIOp::create(b, loc, gdim, k.constant(kScanBlock));
    auto lineLoop = scf::ForOp::create(b, loc, first, lines, stride);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(lineLoop.getBody());
    Value line = lineLoop.getInductionVar();
    auto stepLoop = scf::ForOp::create(b, loc, zero, n, one, ValueRange{start});
    b.setInsertionPointToStart(stepLoop.getBody());
    ExprScope scope(*k.expander);
    setElement(line, stepLoop.getInductionVar());
    Value acc = combine(stepLoop.getRegionIterArgs()[0], inputAt(Value()));
    store(acc);
    scf::YieldOp::create(b, loc, acc);
  }
  k.finish();

  // The plan: enough blocks for every line (a warp or a thread each), at
  // most one full wave; none when there is nothing to scan.
  OpBuilder &pb = fe.planBuilder;
  Value planLines = fe.planExpr(simplify(outerCount * innerCount, 0, numSymbols));
  Value perBlock = fe.planConstant(warpPerLine ? kScanBlock / kWarp : kScanBlock);
  int64_t maxBlocks = fe.target.smCount * (fe.target.maxThreadsPerSM / kScanBlock);
  Value blocks = arith::MinUIOp::create(
      pb, fe.loc, arith::CeilDivUIOp::create(pb, fe.loc, planLines, perBlock),
      fe.planConstant(maxBlocks));
  Value cond = arith::AndIOp::create(
      pb, fe.loc,
      arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::sgt, planLines, fe.planConstant(0)),
      arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::sgt,
                            fe.planExpr(refShape[dim]), fe.planConstant(0)));
  if (variantCondition)
    cond = arith::AndIOp::create(pb, fe.loc, cond, variantCondition);
  k.launch({blocks}, {kScanBlock}, Value(), cond, {});
  kb = nullptr;
}

LogicalResult ScanScheduler::run() {
  ref = scan->getOperand(0);
  refShape = llvm::to_vector(shapeOf(ref));
  refRank = refShape.size();
  SmallVector<AffineExpr> dIdx;
  for (unsigned d = 0; d < refRank; ++d)
    dIdx.push_back(getAffineDimExpr(d, ctx));
  analyze(ref, Index{false, dIdx});
  // Each dim its own iteration dim (size-1 dims dropped): the line and the
  // position along it are computed per element.
  SmallVector<int> ownClass;
  for (unsigned d = 0; d < refRank; ++d)
    ownClass.push_back(d);
  planIterationSpace(ownClass);
  Type elem = elementTypeOf(scan->getResult(0));
  accType = elem.isF16() || elem.isBF16() ? Float32Type::get(ctx) : elem;
  outerCount = innerCount = getAffineConstantExpr(1, ctx);
  for (unsigned d = 0; d < refRank; ++d) {
    if ((int64_t)d < dim)
      outerCount = outerCount * refShape[d];
    else if ((int64_t)d > dim)
      innerCount = innerCount * refShape[d];
  }
  innerCount = simplify(innerCount, 0, numSymbols);
  outerCount = simplify(outerCount, 0, numSymbols);
  warpPerLine = ShapeAnalysis::constantValue(innerCount) == std::optional<int64_t>(1);

  forEachIndexWidth(maxElementsWith(fe.shapes.numElements(ref)),
                    [&](unsigned w) { emitKernel(w); });
  return success();
}

LogicalResult mlir::fuser::emitScanSegment(FusionEmitter &fe, const Segment &segment,
                                           Operation *scan) {
  return ScanScheduler(fe, segment, scan).run();
}
