//===- IndexAddScheduler.cpp - index_add by tiles of rows -----------------===//
//
// A pointwise segment with an index_add whose index is long (an embedding's
// gradient: 8192 token ids added into a 32000-row table). Computed element
// by element (GroupEmitter::emitScatter), every result element reads the
// whole index to find the positions that name its row: rows x ids reads
// per column. Here a block owns a tile of the result instead, R rows by L
// columns of the dims after `dim`, and reads the index once per tile:
//
//  1. Each thread starts the tile's running sums in shared memory from
//     self (emitted like any value of the group, so a zero table or any
//     pointwise expression fuses).
//  2. The block reads the index 1024 positions at a time (kChunk), a few
//     consecutive ones a thread, their loads in flight together. The
//     positions whose id falls in the tile's rows are compacted, in
//     increasing position, into a list in shared memory: a warp prefix sum
//     of the threads' hit counts by shuffles, the warps' totals through
//     shared memory, two barriers a chunk.
//  3. Every thread walks the list: for each hit (row r, position p) the
//     thread of column l in r's row adds source[.., p, .., l] into its sum
//     (consecutive threads, consecutive columns: coalesced).
//  4. The epilogue emits the segment's outputs at each element, with the
//     index_add's value taken from the running sum.
//
// Each element's contributions are added in increasing position, rounded
// to the element type after each addition (scatterAccumulate): the order
// and bits of PyTorch's CPU index_add and of emitScatter, on every launch
// shape, without atomics. The index is read once per tile rather than once
// per element, and the source once.
//
// Threads map to a tile as L columns by G = block / L row groups: thread
// (g, l) owns the rows g, g + G, ... of column l. L is the extent after
// `dim` (C) up to the block; a narrow C (an index_add along the last dim)
// leaves many row groups, each taking the hits of its own rows. R fills
// kAccumulatorBytes of shared memory, less where the sizes are known and
// the tiles would not fill the chip (kTilesPerSM).
//
// An id out of range adds nothing. The first tile lists such positions
// too, as row -1, and its thread 0 reports the first one in index order
// while walking the list: the same report in every thread order.
//
//===----------------------------------------------------------------------===//

#include "GroupEmitter.h"
#include "KernelBuilder.h"

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

constexpr int64_t kWarp = 32;
/// An index of at most this many positions (static) is walked by each
/// element (GroupEmitter::emitScatter): a short walk costs less than the
/// tile's barriers, and keeps the segment's vector accesses.
constexpr int64_t kWalkIndexMax = 32;
/// The shared memory of a tile's running sums; the hit lists take 12 KiB
/// more (kChunk positions and rows), under the 48 KiB of static shared
/// memory.
constexpr int64_t kAccumulatorBytes = 32 * 1024;
/// Index positions a block reads between two barriers (each of its threads
/// kChunk / block consecutive ones: pointwise.block is a power of two up to
/// 1024).
constexpr int64_t kChunk = 1024;
/// Tiles an SM the row count aims at where the sizes are known (two blocks
/// an SM resident, at 44 KiB of shared memory each, and a second wave to
/// even out tiles of uneven hit counts).
constexpr int64_t kTilesPerSM = 4;

class IndexAddScheduler : public GroupEmitter {
public:
  IndexAddScheduler(FusionEmitter &fe, const Segment &seg, Operation *op)
      : GroupEmitter(fe, seg), op(op), dim(cast<IntegerAttr>(op->getAttr("dim")).getInt()) {}
  /// Whether the segment takes the tiled kernel (a long or dynamic index,
  /// and the index_add's value read only at each output element's own
  /// position); chooses the tile when it does.
  bool plan();
  void run();

private:
  void emitKernel(unsigned indexBits);
  /// Sets iterValues for the element at outer position `a`, `v` along dim
  /// and inner position `c` (row-major over the dims before and after dim).
  void setElement(Value a, Value v, Value c);
  SmallVector<AffineExpr> identity() {
    SmallVector<AffineExpr> d;
    for (unsigned k = 0; k < refRank; ++k)
      d.push_back(getAffineDimExpr(k, ctx));
    return d;
  }

  Operation *op;
  int64_t dim;
  int64_t block = 256;
  /// Columns (L), row groups (G) and rows (R) of a tile.
  int64_t columns = 1, groups = 1, rows = 1;
  AffineExpr outerCount, innerCount;
};

} // namespace

bool IndexAddScheduler::plan() {
  Value result = op->getResult(0), index = op->getOperand(1);
  ref = seg.outputs.front();
  refShape = llvm::to_vector(shapeOf(ref));
  refRank = refShape.size();
  if (ArrayRef<AffineExpr>(shapeOf(result)) != ArrayRef<AffineExpr>(refShape))
    return false;
  std::optional<int64_t> indexLength = ShapeAnalysis::constantValue(shapeOf(index)[0]);
  if (indexLength && *indexLength <= kWalkIndexMax)
    return false;
  SmallVector<AffineExpr> d = identity();
  for (Value out : seg.outputs) {
    if (ArrayRef<AffineExpr>(shapeOf(out)) != ArrayRef<AffineExpr>(refShape))
      return false;
    analyze(out, Index{false, d});
  }
  // The running sums hold the tile's own elements: a consumer that reads
  // the index_add elsewhere (a permute, a slice, a shift) cannot take them.
  for (const MemoKey &k : visited)
    if (k.v == result && !(k.idx == Index{false, d}))
      return false;
  // Each dim its own iteration dim (size-1 dims dropped): elements are
  // reached from (outer, row, inner) positions.
  SmallVector<int> ownClass;
  for (unsigned k = 0; k < refRank; ++k)
    ownClass.push_back(k);
  planIterationSpace(ownClass);

  block = fe.schedule.valueOr(ScheduleKey::PointwiseBlock);
  outerCount = innerCount = getAffineConstantExpr(1, ctx);
  for (unsigned k = 0; k < refRank; ++k) {
    if ((int64_t)k < dim)
      outerCount = outerCount * refShape[k];
    else if ((int64_t)k > dim)
      innerCount = innerCount * refShape[k];
  }
  outerCount = simplify(outerCount, 0, numSymbols);
  innerCount = simplify(innerCount, 0, numSymbols);
  std::optional<int64_t> inner = ShapeAnalysis::constantValue(innerCount);
  columns = inner ? std::clamp<int64_t>(*inner, 1, block) : block;
  groups = block / columns;
  int64_t bytes = byteSize(KernelBuilder::memoryType(elementTypeOf(result)));
  rows = std::max(groups, kAccumulatorBytes / (columns * bytes) / groups * groups);
  // Fewer rows where the tiles would not fill the chip: at least
  // kTilesPerSM tiles an SM where the sizes are known, each still a whole
  // number of row groups. (More tiles read the index more often: `tiles`
  // x its length in all.)
  std::optional<int64_t> extent = ShapeAnalysis::constantValue(refShape[dim]);
  std::optional<int64_t> outer = ShapeAnalysis::constantValue(outerCount);
  if (extent)
    rows = std::min(rows, std::max<int64_t>(groups, llvm::divideCeil(*extent, groups) * groups));
  if (extent && outer && inner) {
    int64_t lines = *outer * llvm::divideCeil(*inner, columns);
    int64_t wanted = llvm::divideCeil(*extent * lines, kTilesPerSM * fe.target.smCount);
    rows = std::min(rows, std::max<int64_t>(groups, llvm::divideCeil(wanted, groups) * groups));
  }
  return true;
}

void IndexAddScheduler::setElement(Value a, Value v, Value c) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  iterValues.assign(numIterDims, Value());
  auto place = [&](Value rest, int64_t from, int64_t to) {
    for (int64_t k = from; k-- > to;) {
      auto it = dyn_cast<AffineDimExpr>(dimSubstitution[k]);
      if (!it)
        continue; // a dim of size 1: index 0
      Value size = kb->expander->expand(iterSizes[it.getPosition()]);
      iterValues[it.getPosition()] = arith::RemUIOp::create(b, loc, rest, size);
      rest = arith::DivUIOp::create(b, loc, rest, size);
    }
  };
  place(c, refRank, dim + 1);
  if (auto it = dyn_cast<AffineDimExpr>(dimSubstitution[dim]))
    iterValues[it.getPosition()] = v;
  place(a, dim, 0);
}

void IndexAddScheduler::emitKernel(unsigned indexBits) {
  SmallVector<unsigned> symbols = segmentSymbols(fe.shapes, seg);
  SmallVector<Value> inputs = orderedInputs(seg);
  SmallVector<Value> outputs(seg.outputs.begin(), seg.outputs.end());
  KernelBuilder k(fe, fe.newKernelName(), indexBits, inputs, outputs, symbols,
                  /*numFlags=*/0, {block});
  kb = &k;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  indexByIteration(k);
  Value result = op->getResult(0), index = op->getOperand(1), source = op->getOperand(2);
  Type elem = elementTypeOf(result), indexElem = elementTypeOf(index);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();

  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::GPUDialect::getWorkgroupAddressSpace());
  auto shared = [&](int64_t n, Type t) {
    return k.func.addWorkgroupAttribution(
        MemRefType::get({n}, t, MemRefLayoutAttrInterface(), workgroup), loc);
  };
  // The running sums, row-major [rows][columns]; the hits of a chunk of
  // the index (position, row in the tile); each warp's count of hits.
  Value sums = shared(rows * columns, KernelBuilder::memoryType(elem));
  Value hitPos = shared(kChunk, k.idxTy);
  Value hitRow = shared(kChunk, i32);
  Value warpHits = shared(block / kWarp, i32);

  auto cst = [&](int64_t v) { return k.constant(v); };
  auto c32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32).getResult(); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y).getResult(); };
  auto mul = [&](Value x, Value y) { return arith::MulIOp::create(b, loc, x, y).getResult(); };
  auto lt = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y).getResult();
  };
  auto both = [&](Value x, Value y) -> Value {
    if (!x)
      return y;
    return arith::AndIOp::create(b, loc, x, y);
  };
  auto toI64 = [&](Value v, bool isSigned) -> Value {
    if (v.getType() == i64)
      return v;
    return isSigned ? arith::ExtSIOp::create(b, loc, i64, v).getResult()
                    : arith::ExtUIOp::create(b, loc, i64, v).getResult();
  };
  auto toIdx = [&](Value v) -> Value { // an i32 count as idxTy
    return k.idxTy == i32 ? v : arith::ExtUIOp::create(b, loc, k.idxTy, v).getResult();
  };

  Value tid = k.threadId(gpu::Dimension::x);
  Value bid = k.blockId(gpu::Dimension::x);
  Value gdim = k.gridDim(gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(b, loc, tid, cst(kWarp));
  Value warp = arith::DivUIOp::create(b, loc, tid, cst(kWarp));
  Value column = arith::RemUIOp::create(b, loc, tid, cst(columns));
  Value group = arith::DivUIOp::create(b, loc, tid, cst(columns));
  // Threads past the last whole row group own no element.
  Value owner = groups * columns == block ? Value() : lt(tid, cst(groups * columns));

  Value extent = k.expander->expand(refShape[dim]);
  Value innerSize = k.expander->expand(innerCount);
  Value indexLength = k.expander->expand(shapeOf(index)[0]);
  Value indexStride = k.expander->expand(memoryStride(index, 0));
  Value sourceStride = k.expander->expand(memoryStride(source, dim));
  Value rowTiles = arith::CeilDivUIOp::create(b, loc, extent, cst(rows));
  Value columnTiles = arith::CeilDivUIOp::create(b, loc, innerSize, cst(columns));
  Value tiles = mul(mul(k.expander->expand(outerCount), rowTiles), columnTiles);
  Value extent64 = toI64(extent, false);
  SmallVector<AffineExpr> d = identity();

  auto tileLoop = scf::ForOp::create(b, loc, bid, tiles, gdim);
  OpBuilder::InsertionGuard tileGuard(b);
  b.setInsertionPointToStart(tileLoop.getBody());
  ExprScope tileScope(*k.expander);
  Value tile = tileLoop.getInductionVar();
  Value columnTile = arith::RemUIOp::create(b, loc, tile, columnTiles);
  Value rest = arith::DivUIOp::create(b, loc, tile, columnTiles);
  Value rowTile = arith::RemUIOp::create(b, loc, rest, rowTiles);
  Value outer = arith::DivUIOp::create(b, loc, rest, rowTiles);
  Value firstRow = mul(rowTile, cst(rows));
  Value c = add(mul(columnTile, cst(columns)), column);
  Value columnOk = both(owner, lt(c, innerSize));
  // The source's offset at position 0 along dim in this thread's column.
  Value sourceBase;
  {
    ExprScope scope(*k.expander);
    setElement(outer, cst(0), c);
    SmallVector<AffineExpr> at(d);
    at[dim] = getAffineConstantExpr(0, ctx);
    sourceBase = k.expander->expand(toIteration(memoryOffset(source, Index{false, at})));
  }

  // Runs `body(cell)` for each element of the tile this thread owns: rows
  // group, group + G, ... of its column, inside the tensor.
  auto forOwnElements = [&](function_ref<void(Value cell)> body) {
    auto loop = scf::ForOp::create(b, loc, cst(0), cst(rows / groups), cst(1));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    ExprScope scope(*k.expander);
    Value r = add(group, mul(loop.getInductionVar(), cst(groups)));
    Value v = add(firstRow, r);
    auto inside = scf::IfOp::create(b, loc, TypeRange{}, both(columnOk, lt(v, extent)), false);
    b.setInsertionPointToStart(&inside.getThenRegion().front());
    ExprScope elementScope(*k.expander);
    setElement(outer, v, c);
    memo.clear();
    body(asIndex(add(mul(r, cst(columns)), column)));
  };

  // 1. The running sums start from self.
  forOwnElements([&](Value cell) {
    Value self = emit(op->getOperand(0), operandIndex(op, 0, Index{false, d}), 1).value;
    memref::StoreOp::create(b, loc, k.toMemory(self), sums, ValueRange{cell});
  });

  // 2. and 3. The index a chunk of kChunk positions at a time, `perThread`
  // consecutive positions a thread: their loads in flight together, and a
  // chunk's two barriers shared by all of them.
  const int64_t perThread = kChunk / block;
  Value chunks = arith::CeilDivUIOp::create(b, loc, indexLength, cst(kChunk));
  auto chunkLoop = scf::ForOp::create(b, loc, cst(0), chunks, cst(1));
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(chunkLoop.getBody());
    ExprScope scope(*k.expander);
    Value firstPos = add(mul(chunkLoop.getInductionVar(), cst(kChunk)), mul(tid, cst(perThread)));
    Value isFirstTile = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tile, cst(0));
    Value trueV = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value rowsV = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(rows));
    SmallVector<Value> positions, hits, rowsInTile;
    for (int64_t j = 0; j < perThread; ++j) {
      Value pos = add(firstPos, cst(j));
      Value valid = lt(pos, indexLength);
      // The id at `pos`, or -1 past the index's end (out of range too).
      auto load = scf::IfOp::create(b, loc, TypeRange{i64}, valid, true);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&load.getThenRegion().front());
        Value id = k.load(k.pointer(index), indexElem, mul(pos, indexStride), 1);
        scf::YieldOp::create(b, loc, toI64(id, true));
        b.setInsertionPointToStart(&load.getElseRegion().front());
        scf::YieldOp::create(b, loc,
                             Value(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(-1))));
      }
      Value id = load.getResult(0);
      // Unsigned: a negative id is out of range too.
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, id, extent64);
      Value rowInTile = arith::SubIOp::create(b, loc, id, toI64(firstRow, false));
      positions.push_back(pos);
      rowsInTile.push_back(rowInTile);
      Value hit = both(inRange, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                                      rowInTile, rowsV));
      // Out of range: nothing added. The first tile lists such positions
      // too, as row -1, so that the first one in index order is reported
      // (by its thread 0, walking the list), whatever order threads run in.
      Value bad = both(both(valid, arith::XOrIOp::create(b, loc, inRange, trueV)), isFirstTile);
      hits.push_back(arith::OrIOp::create(b, loc, hit, bad));
      rowsInTile.back() = arith::SelectOp::create(
          b, loc, bad, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(-1)),
          rowsInTile.back());
    }
    // The thread's hits, then those up to its own in its warp (an inclusive
    // prefix sum over shuffles), then the warps before it.
    Value mine = c32(0);
    for (Value hit : hits)
      mine = add(mine, arith::ExtUIOp::create(b, loc, i32, hit));
    Value count = mine;
    for (int32_t step = 1; step < kWarp; step *= 2) {
      Value below = gpu::ShuffleOp::create(b, loc, count, c32(step), c32(kWarp),
                                           gpu::ShuffleMode::UP)
                        .getShuffleResult();
      count = arith::SelectOp::create(b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                                                    lane, cst(step)),
                                      add(count, below), count);
    }
    auto last = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, cst(kWarp - 1)),
        false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&last.getThenRegion().front());
      memref::StoreOp::create(b, loc, count, warpHits, ValueRange{asIndex(warp)});
    }
    gpu::BarrierOp::create(b, loc);
    Value before = c32(0), total = c32(0);
    for (int64_t w = 0; w < block / kWarp; ++w) {
      Value n = memref::LoadOp::create(b, loc, warpHits,
                                       ValueRange{arith::ConstantIndexOp::create(b, loc, w)});
      total = add(total, n);
      before = add(before, arith::SelectOp::create(b, loc, lt(cst(w), warp), n, c32(0)));
    }
    // The thread's hits in order from its first slot.
    Value slot = arith::SubIOp::create(b, loc, add(before, count), mine);
    for (int64_t j = 0; j < perThread; ++j) {
      auto place = scf::IfOp::create(b, loc, hits[j], false);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&place.getThenRegion().front());
        Value at = asIndex(toIdx(slot));
        memref::StoreOp::create(b, loc, positions[j], hitPos, ValueRange{at});
        memref::StoreOp::create(b, loc, arith::TruncIOp::create(b, loc, i32, rowsInTile[j]),
                                hitRow, ValueRange{at});
      }
      if (j + 1 < perThread)
        slot = add(slot, arith::ExtUIOp::create(b, loc, i32, hits[j]));
    }
    // The list is complete; the next chunk rewrites it only after every
    // thread has walked it (its first barrier).
    gpu::BarrierOp::create(b, loc);
    auto walk = scf::ForOp::create(b, loc, cst(0), toIdx(total), cst(1));
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(walk.getBody());
      ExprScope walkScope(*k.expander);
      Value h = asIndex(walk.getInductionVar());
      Value row = memref::LoadOp::create(b, loc, hitRow, ValueRange{h});
      auto ifBad = scf::IfOp::create(
          b, loc, TypeRange{},
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, row, c32(-1)), true);
      b.setInsertionPointToStart(&ifBad.getThenRegion().front());
      auto ifReporter = scf::IfOp::create(
          b, loc, TypeRange{}, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, cst(0)),
          false);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(&ifReporter.getThenRegion().front());
        Value p = memref::LoadOp::create(b, loc, hitPos, ValueRange{h});
        Value id = k.load(k.pointer(index), indexElem, mul(p, indexStride), 1);
        k.recordIndexError(fe.indexSite(op), p, toI64(id, true), extent);
      }
      b.setInsertionPointToStart(&ifBad.getElseRegion().front());
      Value r = toIdx(row);
      Value mine = columnOk;
      if (groups > 1)
        mine = both(mine, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                                arith::RemUIOp::create(b, loc, r, cst(groups)),
                                                group));
      auto ifMine = scf::IfOp::create(b, loc, TypeRange{}, mine, false);
      b.setInsertionPointToStart(&ifMine.getThenRegion().front());
      Value p = memref::LoadOp::create(b, loc, hitPos, ValueRange{h});
      Value s = k.load(k.pointer(source), elem, add(sourceBase, mul(p, sourceStride)), 1);
      Value cell = asIndex(add(mul(r, cst(columns)), column));
      Value sum = k.fromMemory(memref::LoadOp::create(b, loc, sums, ValueRange{cell}), elem);
      memref::StoreOp::create(b, loc, k.toMemory(scatterAccumulate(b, loc, sum, s)), sums,
                              ValueRange{cell});
    }
  }

  // 4. The outputs, with the index_add's value from the running sums.
  forOwnElements([&](Value cell) {
    known[result] = Lanes{k.fromMemory(memref::LoadOp::create(b, loc, sums, ValueRange{cell}), elem),
                          true};
    for (Value out : seg.outputs) {
      Lanes v = emit(out, Index{false, d}, 1);
      Value off = k.expander->expand(toIteration(linearIndex(out, Index{false, d})));
      k.store(k.pointer(out), v.value, off);
    }
    known.erase(result);
  });
  b.setInsertionPointAfter(tileLoop);
  k.finish();

  // The plan: a block per tile, at most pointwise.waves full waves.
  OpBuilder &pb = fe.planBuilder;
  AffineExpr tilesExpr = simplify(outerCount * refShape[dim].ceilDiv(rows) *
                                      innerCount.ceilDiv(columns),
                                  0, numSymbols);
  Value planTiles = fe.planExpr(tilesExpr);
  int64_t waves = fe.schedule.valueOr(ScheduleKey::PointwiseWaves);
  Value blocks = planTiles;
  if (waves > 0)
    blocks = arith::MinUIOp::create(
        pb, fe.loc, blocks,
        fe.planConstant(fe.target.smCount * std::max<int64_t>(1, fe.target.maxThreadsPerSM / block) *
                        waves));
  Value cond = arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::sgt, planTiles,
                                     fe.planConstant(0));
  if (variantCondition)
    cond = arith::AndIOp::create(pb, fe.loc, cond, variantCondition);
  if (fe.explain)
    fe.kernelNote = "index_add by tiles of " + std::to_string(rows) + " rows x " +
                    std::to_string(columns) + (columns == 1 ? " column" : " columns") +
                    ", the index (more than " + std::to_string(kWalkIndexMax) +
                    " positions) read once a tile and its hits added in order from shared "
                    "memory, grid at most " +
                    (waves > 0 ? std::to_string(waves) + " waves" : "uncapped") +
                    " (pointwise.block, pointwise.waves)";
  k.launch({blocks}, {block}, Value(), cond, {});
  kb = nullptr;
}

void IndexAddScheduler::run() {
  forEachIndexWidth(maxElementsWith(fe.shapes.numElements(ref)),
                    [&](unsigned w) { emitKernel(w); });
}

bool mlir::fuser::emitIndexAddSegment(FusionEmitter &fe, const Segment &segment) {
  Operation *indexAdd = nullptr;
  for (Operation *op : segment.ops) {
    if (!isa<IndexAddOp>(op))
      continue;
    if (indexAdd)
      return false; // two: each walks its own index
    indexAdd = op;
  }
  if (!indexAdd)
    return false;
  IndexAddScheduler scheduler(fe, segment, indexAdd);
  if (!scheduler.plan())
    return false;
  scheduler.run();
  return true;
}
