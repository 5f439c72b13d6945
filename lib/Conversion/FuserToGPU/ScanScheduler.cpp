//===- ScanScheduler.cpp - running sums along one dim --------------------===//
//
// A scan segment is a cumsum, cumprod, cummax or cummin and the ops that
// compute its input (emitted on demand at each element, like any group's
// values); it writes the scan's results only. cummax and cummin carry a
// pair (the running extremum, its position) through the same scan, with a
// combine that is associative: the later operand wins when it is a NaN, or
// when neither is and it ties or beats the earlier one, which is PyTorch's
// sequential rule. The input is seen as lines: [outer, n, inner], n the scanned
// extent, inner the product of the dims after it.
//
//  - inner = 1 (the scan runs along the contiguous dim): a warp per line.
//    The line is read 32 elements at a time, one per lane (coalesced); the
//    32 values are combined by a Hillis-Steele scan over warp shuffles (5
//    steps: lane i combines with lane i - 1, i - 2, i - 4, i - 8, i - 16),
//    the chunks before are combined in, and lane 31's total carries to the
//    next chunk. Blocks of scan.block threads (8 warps by default),
//    grid-strided over the lines.
//  - otherwise: a thread per (outer, inner) line, combining along n in order;
//    consecutive threads take consecutive inner positions, so every step
//    reads and writes coalesced.
//
// Either way the order of the additions depends only on the position, never
// on the launch shape: the same bits on every run and under every
// scan.block and scan.waves (Schedule.h), so `fuserc tune` tries both
// (docs/schedulers.md, "Scans"). 16-bit floats accumulate in f32, as PyTorch does (cummax and
// cummin carry their bits and compare them as f32, which is exact).
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

constexpr int64_t kWarp = 32;

/// The running state of a scan: the accumulated value, and for cummax and
/// cummin the position it came from.
using ScanState = SmallVector<Value, 2>;

class ScanScheduler : public GroupEmitter {
public:
  ScanScheduler(FusionEmitter &fe, const Segment &seg, Operation *scan)
      : GroupEmitter(fe, seg), scan(scan),
        kind(isa<CumsumOp>(scan)    ? Kind::Sum
             : isa<CumprodOp>(scan) ? Kind::Product
             : isa<CummaxOp>(scan)  ? Kind::Max
                                    : Kind::Min),
        dim(cast<IntegerAttr>(scan->getAttr("dim")).getInt()),
        block(fe.schedule.valueOr(ScheduleKey::ScanBlock)) {}
  LogicalResult run();

private:
  void emitKernel(unsigned indexBits);
  /// Sets iterValues for the element (line, j): `line` counts the lines
  /// row-major over the outer then the inner dims.
  void setElement(Value line, Value j);
  /// The state of the scan's input at the current element `j`: its value
  /// in the accumulation type (and `j` for an extremum); the identity
  /// where `valid` is false.
  ScanState inputAt(Value j, Value valid);
  /// `x` (32 or 64 bits) from lane `lane` (mode IDX) or from `lane` lanes
  /// below (mode UP), as 32-bit shuffles.
  Value shuffle(Value x, int32_t lane, gpu::ShuffleMode mode);
  ScanState shuffle(const ScanState &x, int32_t lane, gpu::ShuffleMode mode);
  /// The scan's operation on `a` (earlier positions) and `b` (later ones):
  /// a + b, a * b, or the extremum with PyTorch's ties and NaNs.
  ScanState combine(const ScanState &a, const ScanState &b);
  ScanState select(Value cond, const ScanState &a, const ScanState &b);
  /// 0, 1, or the lowest (highest) value and position 0: what every first
  /// element replaces.
  ScanState identity(Type indexType);
  /// Writes the state at the current element into the scan's results the
  /// segment writes.
  void store(const ScanState &acc);

  enum class Kind { Sum, Product, Max, Min };
  Operation *scan;
  Kind kind;
  int64_t dim;
  /// Threads per block (scan.block).
  int64_t block;
  Type accType;
  /// cummax and cummin of f16 or bf16: the values travel as their bits (in
  /// the low half of an i32) and compare as f32, so that each result is
  /// the input's element bit for bit (a NaN's payload and sign too, which a
  /// round trip through f32 would make the canonical NaN).
  Type halfBits;
  /// `v` as the float it compares as: itself, or the f32 of its 16 bits.
  Value comparable(Value v);
  AffineExpr outerCount, innerCount;
  bool warpPerLine = false;
};

} // namespace

Value ScanScheduler::comparable(Value v) {
  if (!halfBits)
    return v;
  OpBuilder &ob = kb->b;
  Location loc = kb->loc;
  Value h = arith::BitcastOp::create(ob, loc, halfBits,
                                     arith::TruncIOp::create(ob, loc, ob.getI16Type(), v));
  return arith::ExtFOp::create(ob, loc, ob.getF32Type(), h);
}

ScanState ScanScheduler::combine(const ScanState &a, const ScanState &b) {
  OpBuilder &ob = kb->b;
  Location loc = kb->loc;
  bool isFloat = isa<FloatType>(a[0].getType()) || halfBits;
  switch (kind) {
  case Kind::Sum:
    return {isFloat ? arith::AddFOp::create(ob, loc, a[0], b[0]).getResult()
                    : arith::AddIOp::create(ob, loc, a[0], b[0]).getResult()};
  case Kind::Product:
    return {isFloat ? arith::MulFOp::create(ob, loc, a[0], b[0]).getResult()
                    : arith::MulIOp::create(ob, loc, a[0], b[0]).getResult()};
  case Kind::Max:
  case Kind::Min:
    break;
  }
  // The later operand wins when it is NaN, or when it ties or beats the
  // earlier one (an ordered comparison: false against an earlier NaN, which
  // then stays).
  bool max = kind == Kind::Max;
  Value takeLater;
  if (isFloat) {
    Value x = comparable(a[0]), y = comparable(b[0]);
    takeLater = arith::OrIOp::create(
        ob, loc, arith::CmpFOp::create(ob, loc, arith::CmpFPredicate::UNO, y, y),
        arith::CmpFOp::create(ob, loc, max ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OLE,
                              y, x));
  }
  else
    takeLater = arith::CmpIOp::create(
        ob, loc, max ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle, b[0], a[0]);
  return select(takeLater, b, a);
}

ScanState ScanScheduler::select(Value cond, const ScanState &a, const ScanState &b) {
  ScanState r;
  for (auto [x, y] : llvm::zip_equal(a, b))
    r.push_back(arith::SelectOp::create(kb->b, kb->loc, cond, x, y));
  return r;
}

ScanState ScanScheduler::identity(Type indexType) {
  OpBuilder &ob = kb->b;
  Location loc = kb->loc;
  auto constant = [&](TypedAttr v) -> Value {
    return arith::ConstantOp::create(ob, loc, v.getType(), v);
  };
  if (kind == Kind::Sum || kind == Kind::Product) {
    double v = kind == Kind::Product ? 1.0 : 0.0;
    return {constant(isa<FloatType>(accType) ? TypedAttr(ob.getFloatAttr(accType, v))
                                             : TypedAttr(ob.getIntegerAttr(accType, (int64_t)v)))};
  }
  bool max = kind == Kind::Max;
  TypedAttr v;
  if (halfBits) {
    APInt inf = APFloat::getInf(cast<FloatType>(halfBits).getFloatSemantics(), /*Negative=*/max)
                    .bitcastToAPInt();
    v = ob.getIntegerAttr(accType, inf.zext(32));
  } else if (auto ft = dyn_cast<FloatType>(accType))
    v = ob.getFloatAttr(accType, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/max));
  else {
    unsigned w = accType.getIntOrFloatBitWidth();
    v = ob.getIntegerAttr(accType, max ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w));
  }
  return {constant(v), constant(ob.getIntegerAttr(indexType, 0))};
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

ScanState ScanScheduler::inputAt(Value j, Value valid) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  memo.clear();
  SmallVector<AffineExpr> dIdx;
  for (unsigned k = 0; k < refRank; ++k)
    dIdx.push_back(getAffineDimExpr(k, ctx));
  loadMask = valid;
  Value x = emit(scan->getOperand(0), Index{false, dIdx}, 1).value;
  loadMask = Value();
  if (halfBits)
    x = arith::ExtUIOp::create(
        b, loc, accType, arith::BitcastOp::create(b, loc, b.getI16Type(), x).getResult());
  else
    x = emitCast(b, loc, x, accType);
  ScanState state{x};
  if (kind == Kind::Max || kind == Kind::Min)
    state.push_back(j);
  if (!valid)
    return state;
  // Values computed from masked loads need not be the identity (exp(0) is
  // 1, and a product's identity is 1).
  return select(valid, state, identity(j.getType()));
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

ScanState ScanScheduler::shuffle(const ScanState &x, int32_t lane, gpu::ShuffleMode mode) {
  ScanState r;
  for (Value v : x)
    r.push_back(shuffle(v, lane, mode));
  return r;
}

void ScanScheduler::store(const ScanState &acc) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  SmallVector<AffineExpr> dIdx;
  for (unsigned d = 0; d < refRank; ++d)
    dIdx.push_back(getAffineDimExpr(d, ctx));
  for (auto [result, state] : llvm::zip(scan->getResults(), acc)) {
    Value v = state;
    if (!llvm::is_contained(seg.outputs, result))
      continue;
    Value off = kb->expander->expand(toIteration(linearIndex(result, Index{false, dIdx})));
    Type t = elementTypeOf(result);
    if (halfBits && t == halfBits)
      v = arith::BitcastOp::create(b, loc, t,
                                   arith::TruncIOp::create(b, loc, b.getI16Type(), v));
    kb->store(kb->pointer(result), emitCast(b, loc, v, t), off);
  }
}

void ScanScheduler::emitKernel(unsigned indexBits) {
  SmallVector<unsigned> symbols = segmentSymbols(fe.shapes, seg);
  SmallVector<Value> inputs = orderedInputs(seg);
  SmallVector<Value> outputs(seg.outputs.begin(), seg.outputs.end());
  KernelBuilder k(fe, fe.newKernelName(), indexBits, inputs, outputs, symbols,
                  /*numFlags=*/0, {block});
  kb = &k;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  indexByIteration(k);
  Value n = k.expander->expand(refShape[dim]);
  Value lines = k.expander->expand(simplify(outerCount * innerCount, 0, numSymbols));
  Value tid = k.threadId(gpu::Dimension::x);
  Value bid = k.blockId(gpu::Dimension::x);
  Value gdim = k.gridDim(gpu::Dimension::x);
  Value zero = k.constant(0), one = k.constant(1);
  ScanState start = identity(zero.getType());

  if (warpPerLine) {
    // Lines grid-strided by warps; within a line, chunks of 32.
    Value warpsPerBlock = k.constant(block / kWarp);
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
    auto chunkLoop = scf::ForOp::create(b, loc, zero, chunks, one, ValueRange(start));
    b.setInsertionPointToStart(chunkLoop.getBody());
    ExprScope scope(*k.expander);
    ScanState carry(chunkLoop.getRegionIterArgs());
    Value j = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, chunkLoop.getInductionVar(), k.constant(kWarp)),
        lane);
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, n);
    setElement(line, j);
    ScanState acc = inputAt(j, valid);
    // Inclusive scan of the chunk: lane i combines lanes i-1, i-2, i-4, ...
    // (the lanes below first: a + b, a * b as the sequential order has
    // them). Lanes past the end of the line only ever combine into lanes
    // past it, so what they hold never reaches a stored element.
    for (int32_t d = 1; d < kWarp; d *= 2) {
      ScanState below = shuffle(acc, d, gpu::ShuffleMode::UP);
      Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, lane, k.constant(d));
      acc = select(has, combine(below, acc), acc);
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
    scf::YieldOp::create(b, loc, ValueRange(shuffle(acc, kWarp - 1, gpu::ShuffleMode::IDX)));
  } else {
    // A thread per line, in order along n.
    Value first = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bid, k.constant(block)), tid);
    Value stride = arith::MulIOp::create(b, loc, gdim, k.constant(block));
    auto lineLoop = scf::ForOp::create(b, loc, first, lines, stride);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(lineLoop.getBody());
    Value line = lineLoop.getInductionVar();
    auto stepLoop = scf::ForOp::create(b, loc, zero, n, one, ValueRange(start));
    b.setInsertionPointToStart(stepLoop.getBody());
    ExprScope scope(*k.expander);
    Value j = stepLoop.getInductionVar();
    setElement(line, j);
    ScanState acc = combine(ScanState(stepLoop.getRegionIterArgs()), inputAt(j, Value()));
    store(acc);
    scf::YieldOp::create(b, loc, ValueRange(acc));
  }
  k.finish();

  // The plan: enough blocks for every line (a warp or a thread each), at
  // most scan.waves full waves; none when there is nothing to scan.
  OpBuilder &pb = fe.planBuilder;
  Value planLines = fe.planExpr(simplify(outerCount * innerCount, 0, numSymbols));
  Value perBlock = fe.planConstant(warpPerLine ? block / kWarp : block);
  int64_t maxBlocks = fe.schedule.valueOr(ScheduleKey::ScanWaves) * fe.target.smCount *
                      std::max<int64_t>(1, fe.target.maxThreadsPerSM / block);
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
  if (fe.explain)
    fe.kernelNote = std::string(warpPerLine ? "scan, a warp a line (the scanned dim is the "
                                              "contiguous one)"
                                            : "scan, a thread a line (the scanned dim is not "
                                              "the contiguous one)") +
                    ", grid at most " + std::to_string(fe.schedule.valueOr(ScheduleKey::ScanWaves)) +
                    " waves (scan.block, scan.waves)";
  k.launch({blocks}, {block}, Value(), cond, {});
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
  // 16-bit floats in f32; bools and i8 in i32 for cummax and cummin (the
  // shuffles move 32 bits; the casts keep the order: false < true, i8
  // signed).
  accType = elem.isF16() || elem.isBF16() ? Float32Type::get(ctx) : elem;
  if (elem.isInteger() && elem.getIntOrFloatBitWidth() < 32)
    accType = IntegerType::get(ctx, 32);
  if ((kind == Kind::Max || kind == Kind::Min) && (elem.isF16() || elem.isBF16())) {
    halfBits = elem;
    accType = IntegerType::get(ctx, 32);
  }
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
