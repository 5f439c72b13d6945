//===- CombinePartials.cpp - partials combined in a fixed order -----------===//
//
// A split reduction's blocks (an inner split's row chunks, an outer split's
// slices of the reduced dims) and an inner-outer kernel's row chunks write
// partial accumulators; they are combined in split order, by the last block
// to arrive (an atomic counter elects it, fences order the partials) or by a
// combine kernel, so that every run and every launch shape gives the same
// bits. No value is accumulated with atomics.
//
//===----------------------------------------------------------------------===//

#include "ReductionScheduler.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser;

/// In the thread that wrote a block's partials: fences them (unless the
/// test bug drops the fence) and adds one to `counters[index]`; whether
/// this block is the last of the `gridDim.y` splits to arrive.
Value ReductionScheduler::arriveIsLast(Value counters, Value index) {
  KernelBuilder &k = *kb;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  // (testing only: without this fence the partials may not be visible to
  // the last block)
  if (fe.plantBug != "last-block-no-fence")
    k.fence();
  Value old = k.atomicAdd(counters, index, arith::ConstantIntOp::create(b, loc, 1, 32));
  Value lastSplit = arith::SubIOp::create(b, loc, k.gridDim(gpu::Dimension::y), k.constant(1));
  if (lastSplit.getType() != b.getI32Type())
    lastSplit = arith::TruncIOp::create(b, loc, b.getI32Type(), lastSplit);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old, lastSplit);
}

/// Accumulates reducer `r`'s partials ([split][stride] per accumulator
/// value, extra buffers from `base`) at `offset`, `lanes` wide, for splits
/// first, first + step, ... below `splits`, in that order.
SmallVector<Value> ReductionScheduler::accumulatePartials(const Reducer &r, unsigned base,
                                                          Value first, Value splits, Value step,
                                                          Value stride, Value offset,
                                                          unsigned lanes, bool crossBlock) {
  KernelBuilder &k = *kb;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto sl = scf::ForOp::create(b, loc, first, splits, step, r.identity(b, loc, lanes));
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(sl.getBody());
  Value at = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, sl.getInductionVar(), stride), offset);
  SmallVector<Value> part;
  for (auto [n, t] : llvm::enumerate(r.accTypes))
    part.push_back(k.load(k.extraPointer(base + n), t, at, lanes, crossBlock));
  scf::YieldOp::create(b, loc, r.combine(b, loc, SmallVector<Value>(sl.getRegionIterArgs()), part));
  return SmallVector<Value>(sl.getResults());
}

/// Records a finished reduction's results in `known`.
void ReductionScheduler::finishReduction(const Reducer &r, ArrayRef<Value> acc, unsigned lanes,
                                         Value depth) {
  if (r.isRowSegment()) {
    // Each part of the row has the row's length over the parts.
    Value count = arith::DivUIOp::create(kb->b, kb->loc, depth, kb->constant(r.segments));
    segmentResults[{r.op, r.segment}] = r.finalize(kb->b, kb->loc, acc, count);
    return;
  }
  SmallVector<Value> results = r.finalize(kb->b, kb->loc, acc, depth);
  for (auto [res, v] : llvm::zip(r.op->getResults(), results))
    known[res] = Lanes{v, lanes == 1};
}

/// Combines each reducer's partials ([split][stride] per accumulator value,
/// extra buffers from `base`) at `offset`, `lanes` wide, in split order,
/// finishes the reductions over `depth` and records their results in
/// `known`.
void ReductionScheduler::combinePartials(ArrayRef<Reducer> rs, Value splits, Value stride,
                                         Value offset, unsigned lanes, Value depth,
                                         bool crossBlock) {
  unsigned base = 0;
  for (const Reducer &r : rs) {
    SmallVector<Value> acc = accumulatePartials(r, base, kb->constant(0), splits, kb->constant(1),
                                                stride, offset, lanes, crossBlock);
    finishReduction(r, acc, lanes, depth);
    base += r.accTypes.size();
  }
}

/// The end of a split outer kernel's column tile: the block's partials are
/// written (and a barrier passed). Thread (0, 0) fences them and adds one
/// to the tile's counter; the block that brings it to the number of splits
/// is the last: its first row of threads fences again, combines the tile's
/// partials in split order, finishes the reductions and writes the reduced
/// outputs. One launch, the same bits on every run (the order of the
/// combine does not depend on which block is last).
void ReductionScheduler::lastBlockCombine(unsigned lanes, Value tile, Value cu, Value valid,
                                          ArrayRef<Value> colValues, Value columns,
                                          Value depth, Value lastFlag, Value tx, Value ty) {
  KernelBuilder &k = *kb;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value splits = k.gridDim(gpu::Dimension::y);
  Value counters = k.extraPointer(partials.size());
  Value zero = k.constant(0);
  Value first = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tx, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ty, zero));
  {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, first, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value isLast = arith::ExtUIOp::create(b, loc, b.getI32Type(), arriveIsLast(counters, tile));
    memref::StoreOp::create(b, loc, isLast, lastFlag, ValueRange{asIndex(zero)});
  }
  gpu::BarrierOp::create(b, loc);
  Value flag = memref::LoadOp::create(b, loc, lastFlag, ValueRange{asIndex(zero)});
  Value combines = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, flag,
                            arith::ConstantIntOp::create(b, loc, 0, 32)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ty, zero));
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, combines, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  ExprScope scope(*k.expander);
  // The other blocks' partials became visible at their arrivals; this
  // thread's reads must come after its block's.
  k.fence();
  iterValues.assign(colValues.begin(), colValues.end());
  memo.clear();
  known.clear();
  Value col = arith::MulIOp::create(b, loc, cu, k.constant(lanes));
  combinePartials(reducers, splits, columns, col, lanes, depth, /*crossBlock=*/true);
  for (Value out : rOutputs)
    storeOutput(out, rIndex(out), lanes, valid);
  memo.clear();
}

/// The end of a split row (inner split): thread 0 of the row has written
/// this block's partials; it fences them and adds one to the row's
/// counter. The block that brings it to the number of splits fences again,
/// combines the row's partials in split order, finishes the reductions and
/// writes the row's reduced outputs.
void ReductionScheduler::lastBlockFinishRow(Value row, ArrayRef<Value> rowValues, Value valid,
                                            Value tx, Value depth) {
  KernelBuilder &k = *kb;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value splits = k.gridDim(gpu::Dimension::y);
  Value rows = k.expander->expand(keptSize);
  Value counters = k.extraPointer(partials.size());
  Value first = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tx, k.constant(0)), valid);
  auto arrive = scf::IfOp::create(b, loc, TypeRange{}, first, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&arrive.getThenRegion().front());
  auto ifLast = scf::IfOp::create(b, loc, TypeRange{}, arriveIsLast(counters, row), false);
  b.setInsertionPointToStart(&ifLast.getThenRegion().front());
  ExprScope scope(*k.expander);
  k.fence();
  SmallVector<Value> saved = iterValues;
  iterValues.assign(rowValues.begin(), rowValues.end());
  memo.clear();
  combinePartials(reducers, splits, rows, row, 1, depth, /*crossBlock=*/true);
  for (Value out : rOutputs)
    storeOutput(out, rIndex(out), 1, Value());
  storeRowSegments(Value());
  memo.clear();
  iterValues = saved;
}

/// A combine kernel: each thread takes one column, combines its partials in
/// split order, finishes the reductions and writes the reduced outputs.
void ReductionScheduler::emitCombine(const CombineSpec &spec, unsigned indexBits,
                                     Value gridPlan, Value splitsPlan, Value condPlan) {
  SmallVector<unsigned> symbols = segmentSymbols(fe.shapes, seg);
  SmallVector<Value> inputs = orderedInputs(seg);
  SmallVector<Value> outputs(spec.outputs.begin(), spec.outputs.end());
  KernelBuilder k(fe, fe.newKernelName(), indexBits, inputs, outputs, symbols,
                  /*numFlags=*/1, {kCombineColumns, kCombineGroups}, spec.partials);
  kb = &k;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  indexByIteration(k);
  iterValues.assign(numIterDims, Value());
  Value columns = k.expander->expand(spec.columns), depth = k.expander->expand(spec.depth);
  Value splits = k.idxTy == k.flag(0).getType()
                     ? k.flag(0)
                     : arith::ExtUIOp::create(b, loc, k.idxTy, k.flag(0)).getResult();
  // Testing only: the last block's partials are lost.
  if (spec.reducers == &outerReducers && fe.plantBug == "inner-outer-drop-partial")
    splits = arith::SubIOp::create(
        b, loc, splits,
        arith::MinUIOp::create(b, loc, splits, k.constant(1)));
  // Where the groups of a column meet: [group][column of the tile] per
  // accumulator value.
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::GPUDialect::getWorkgroupAddressSpace());
  SmallVector<SmallVector<Value>> scratch;
  for (const Reducer &r : *spec.reducers) {
    SmallVector<Value> sr;
    for (Type t : r.accTypes)
      sr.push_back(k.func.addWorkgroupAttribution(
          MemRefType::get({kCombineGroups, kCombineColumns}, t, MemRefLayoutAttrInterface(),
                          workgroup),
          loc));
    scratch.push_back(sr);
  }
  Value tx = k.threadId(gpu::Dimension::x), ty = k.threadId(gpu::Dimension::y);
  Value tile = arith::MulIOp::create(b, loc, k.blockId(gpu::Dimension::x),
                                     k.constant(kCombineColumns));
  Value stride = arith::MulIOp::create(b, loc, k.gridDim(gpu::Dimension::x),
                                       k.constant(kCombineColumns));
  // Every thread of the block takes every tile (the barriers), whether or
  // not its column is inside.
  auto loop = scf::ForOp::create(b, loc, tile, columns, stride);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value col = arith::AddIOp::create(b, loc, loop.getInductionVar(), tx);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, columns);
    // Group ty adds splits ty, ty + groups, ... (none past the columns).
    Value groupSplits = arith::SelectOp::create(b, loc, inside, splits, k.constant(0));
    unsigned base = 0;
    for (auto [r, sr] : llvm::zip(*spec.reducers, scratch)) {
      SmallVector<Value> acc =
          accumulatePartials(r, base, ty, groupSplits, k.constant(kCombineGroups), columns, col,
                             1, /*crossBlock=*/false);
      for (auto [v, buf] : llvm::zip(acc, sr))
        memref::StoreOp::create(b, loc, v, buf, ValueRange{asIndex(ty), asIndex(tx)});
      base += r.accTypes.size();
    }
    gpu::BarrierOp::create(b, loc);
    // Group 0 adds the groups in group order and finishes the column.
    Value finisher = arith::AndIOp::create(
        b, loc, inside,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ty, k.constant(0)));
    {
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, finisher, false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      ExprScope scope(*k.expander);
      assignIterValues(col, spec.columnIter, iterValues);
      memo.clear();
      known.clear();
      for (auto [r, sr] : llvm::zip(*spec.reducers, scratch)) {
        SmallVector<Value> acc = r.identity(b, loc, 1);
        for (int64_t gidx = 0; gidx < kCombineGroups; ++gidx) {
          SmallVector<Value> part;
          for (Value buf : sr)
            part.push_back(memref::LoadOp::create(
                b, loc, buf, ValueRange{asIndex(k.constant(gidx)), asIndex(tx)}));
          acc = r.combine(b, loc, acc, part);
        }
        finishReduction(r, acc, 1, depth);
      }
      for (Value out : spec.outputs)
        storeOutput(out, spec.index(out), 1, Value());
      memo.clear();
    }
    // (The next tile writes the scratch again.)
    gpu::BarrierOp::create(b, loc);
  }
  k.finish();
  if (fe.explain)
    fe.kernelNote = "combine kernel: adds the column partials of every block in a fixed "
                    "order, " +
                    std::to_string(kCombineGroups) + " groups of rows a column tile of " +
                    std::to_string(kCombineColumns);
  k.launch({gridPlan}, {kCombineColumns, kCombineGroups}, Value(), condPlan, {splitsPlan});
  kb = nullptr;
}
