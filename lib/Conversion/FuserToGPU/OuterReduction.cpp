//===- OuterReduction.cpp - outer kernels: threads along a kept dim -------===//
//
// Reductions whose fastest-varying dim is kept (column sums): threads run
// along the kept dim (coalesced) and loop over the reduced dims; the rows
// of threads of a block combine through shared memory; when there are few
// columns the reduced dims split across blocks, which write partials that
// the last block of a column tile combines (CombinePartials.cpp). The block
// and the split come from ReductionHeuristics.h (chooseOuterBlock).
//
//===----------------------------------------------------------------------===//

#include "ReductionScheduler.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fuser;

void ReductionScheduler::emitOuterKernels(unsigned w, bool split, bool normalization) {
  OpBuilder &pb = fe.planBuilder;
  // A grid of column tiles, at most the blocks the chip holds at once.
  Value tiles = arith::CeilDivUIOp::create(pb, fe.loc, fe.planExpr(keptSize),
                                           fe.planConstant(outerX * vectorLanes));
  Value planRows = fe.planExpr(keptSize);
  Value maxBlocks =
      fe.planConstant(fe.target.smCount * (fe.target.maxThreadsPerSM / (outerX * outerY)));
  Value gridX = arith::MinUIOp::create(pb, fe.loc, tiles, maxBlocks);
  Value vecOk = planVectorOk();
  Value flag = arith::IndexCastUIOp::create(pb, fe.loc, pb.getIndexType(), vecOk);
  Value cond = arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::sgt, planRows,
                                     fe.planConstant(0));
  if (variantCondition)
    cond = arith::AndIOp::create(pb, fe.loc, cond, variantCondition);
  if (normalization) {
    emitOuterNormalization(w, gridX, flag, cond);
    return;
  }
  if (!split) {
    emitOuter(w, false, gridX, fe.planConstant(1), flag, cond);
    return;
  }
  if (!splitsValue) {
    // Splits: enough blocks for two waves, at least 8 steps of the reduced
    // extent per thread row in each.
    // (gridX is 0 when nothing is kept: no launch, but no division by 0)
    // The schedule's count where it has one (reduction.splits), at most
    // one split per position of each row of threads: more would launch
    // blocks without a position (1024 splits of an extent of 1).
    if (std::optional<int64_t> forced = fe.schedule.get(ScheduleKey::ReductionSplits)) {
      Value work = arith::MaxUIOp::create(
          pb, fe.loc, fe.planConstant(1),
          arith::CeilDivUIOp::create(pb, fe.loc, fe.planExpr(reducedSize),
                                     fe.planConstant(outerY)));
      splitsValue = arith::MinUIOp::create(pb, fe.loc, fe.planConstant(*forced), work);
    } else {
      Value wanted = arith::CeilDivUIOp::create(
          pb, fe.loc, fe.planConstant(kSplitBlocksTarget),
          arith::MaxUIOp::create(pb, fe.loc, gridX, fe.planConstant(1)));
      Value most = arith::MaxUIOp::create(
          pb, fe.loc, fe.planConstant(1),
          arith::CeilDivUIOp::create(pb, fe.loc, fe.planExpr(reducedSize),
                                     fe.planConstant(8 * outerY)));
      splitsValue = arith::MinUIOp::create(pb, fe.loc, wanted, most);
    }
    for (const Reducer &r : reducers)
      for (Type t : r.accTypes) {
        Value size = arith::MulIOp::create(pb, fe.loc, splitsValue, planRows);
        partials.push_back(memref::AllocOp::create(
            pb, fe.loc, MemRefType::get({ShapedType::kDynamic}, t), ValueRange{size}));
      }
    // One counter per column tile of the scalar body (the most tiles), zero
    // at launch (fuser.zeroed): the blocks of a tile count their arrivals on
    // it.
    Value counterTiles = arith::MaxUIOp::create(
        pb, fe.loc, fe.planConstant(1),
        arith::CeilDivUIOp::create(pb, fe.loc, planRows, fe.planConstant(outerX)));
    auto counters = memref::AllocOp::create(
        pb, fe.loc, MemRefType::get({ShapedType::kDynamic}, pb.getI32Type()),
        ValueRange{counterTiles});
    ZeroedOp::create(pb, fe.loc, counters);
    outerCounters = counters;
  }
  emitOuter(w, true, gridX, splitsValue, flag, cond);
}

OuterKeys ReductionScheduler::outerKeys() const {
  return {fe.schedule.get(ScheduleKey::ReductionSplits).value_or(0),
          fe.schedule.get(ScheduleKey::ReductionColumnThreads).value_or(0),
          fe.schedule.get(ScheduleKey::ReductionColumnRows).value_or(0)};
}

int64_t ReductionScheduler::outerScratchBytes(int64_t x, int64_t y, bool split) const {
  // A split kernel also holds its last-block flag (an i32).
  int64_t bytes = split ? 4 : 0;
  for (const Reducer &r : reducers)
    for (Type t : r.accTypes)
      bytes += y * x * (int64_t)vectorLanes * byteSize(t);
  return bytes;
}

void ReductionScheduler::fitOuterScratch(bool split) {
  OuterKeys keys = outerKeys();
  if (keys.threads || keys.rows)
    return; // the schedule's block: checkOuterScratch says if it does not fit
  while (outerY > 1 && outerScratchBytes(outerX, outerY, split) > kStaticSharedBytes)
    outerY /= 2;
  while (outerX > 1 && outerScratchBytes(outerX, outerY, split) > kStaticSharedBytes)
    outerX /= 2;
}

LogicalResult ReductionScheduler::checkOuterScratch(bool split) {
  int64_t bytes = outerScratchBytes(outerX, outerY, split);
  // 48 KiB: what a block may declare statically on every chip. The
  // heuristic's block is fitted to it (fitOuterScratch); a schedule's block
  // of 1024 threads with wide lanes may not fit.
  if (bytes <= kStaticSharedBytes)
    return success();
  return reducers.front().op->emitOpError("the outer (column) kernel's block of ")
         << outerX << " x " << outerY << " threads (reduction.column_threads x "
         << "reduction.column_rows) and " << vectorLanes << " lanes needs " << bytes
         << " bytes of shared memory (the rows' partials"
         << (split ? " and the split's flag" : "") << "), over the " << kStaticSharedBytes
         << " a block may declare: fewer threads";
}

SmallVector<SmallVector<Value>> ReductionScheduler::outerScratch() {
  KernelBuilder &k = *kb;
  auto workgroup = gpu::AddressSpaceAttr::get(k.b.getContext(),
                                              gpu::GPUDialect::getWorkgroupAddressSpace());
  SmallVector<SmallVector<Value>> scratch;
  for (const Reducer &r : reducers) {
    SmallVector<Value> s;
    for (Type t : r.accTypes)
      s.push_back(k.func.addWorkgroupAttribution(
          MemRefType::get({outerY, outerX * (int64_t)vectorLanes}, t,
                          MemRefLayoutAttrInterface(), workgroup),
          k.loc));
    scratch.push_back(s);
  }
  return scratch;
}

void ReductionScheduler::storeRowPartials(ArrayRef<Value> acc, ArrayRef<Value> scratch,
                                          Value ty, Value slot, unsigned lanes) {
  KernelBuilder &k = *kb;
  OpBuilder &b = k.b;
  for (auto [v, s] : llvm::zip(acc, scratch))
    for (unsigned l = 0; l < lanes; ++l) {
      Value lane = lanes > 1 ? vector::ExtractOp::create(b, k.loc, v, ArrayRef<int64_t>{(int64_t)l})
                                   .getResult()
                             : v;
      memref::StoreOp::create(
          b, k.loc, lane, s,
          ValueRange{asIndex(ty), asIndex(arith::AddIOp::create(b, k.loc, slot, k.constant(l)))});
    }
}

SmallVector<Value> ReductionScheduler::combineRowPartials(const Reducer &r,
                                                          ArrayRef<Value> scratch, Value slot,
                                                          unsigned lanes) {
  KernelBuilder &k = *kb;
  OpBuilder &b = k.b;
  SmallVector<Value> total;
  for (int64_t t = 0; t < outerY; ++t) {
    SmallVector<Value> part;
    for (Value s : scratch) {
      SmallVector<Value> elems;
      for (unsigned l = 0; l < lanes; ++l)
        elems.push_back(memref::LoadOp::create(
            b, k.loc, s,
            ValueRange{asIndex(k.constant(t)),
                       asIndex(arith::AddIOp::create(b, k.loc, slot, k.constant(l)))}));
      part.push_back(lanes > 1 ? vector::FromElementsOp::create(
                                     b, k.loc, VectorType::get({lanes}, elems[0].getType()), elems)
                                     .getResult()
                               : elems[0]);
    }
    total = t == 0 ? part : r.combine(b, k.loc, total, part);
  }
  return total;
}

void ReductionScheduler::forEachColumnTile(
    Value lanesV, Value columns, Value tx, Value bx, Value gx,
    function_ref<void(Value, Value, Value, ArrayRef<Value>)> body) {
  KernelBuilder &k = *kb;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value colUnits = arith::DivUIOp::create(b, loc, columns, lanesV);
  Value tiles = arith::CeilDivUIOp::create(b, loc, colUnits, k.constant(outerX));
  auto loop = scf::ForOp::create(b, loc, bx, tiles, gx);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  ExprScope tileScope(*k.expander);
  Value cu = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, loop.getInductionVar(), k.constant(outerX)), tx);
  // A thread past the last column computes the last column again (its
  // loads stay in bounds) and stores nothing.
  Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, cu, colUnits);
  cu = arith::MinUIOp::create(b, loc, cu, arith::SubIOp::create(b, loc, colUnits, k.constant(1)));
  SmallVector<Value> colValues(numIterDims);
  assignIterValues(arith::MulIOp::create(b, loc, cu, lanesV), keptIter, colValues);
  body(loop.getInductionVar(), cu, valid, colValues);
}

void ReductionScheduler::emitOuter(unsigned indexBits, bool split, Value gridPlan,
                                   Value splitsPlan, Value flagPlan, Value condPlan) {
  SmallVector<unsigned> symbols = segmentSymbols(fe.shapes, seg);
  SmallVector<Value> inputs = orderedInputs(seg);
  // A split kernel's blocks write partials; the last block of each column
  // tile to finish combines them and writes the reduced outputs.
  SmallVector<Value> outputs(seg.outputs.begin(), seg.outputs.end());
  SmallVector<Value> extras;
  if (split) {
    extras.assign(partials.begin(), partials.end());
    extras.push_back(outerCounters);
  }
  KernelBuilder k(fe, fe.newKernelName(), indexBits, inputs, outputs, symbols,
                  /*numFlags=*/1, /*blockSize=*/{}, extras);
  k.setMaxThreadsPerBlock(outerX * outerY);
  kb = &k;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  indexByIteration(k);
  iterValues.assign(numIterDims, Value());
  SmallVector<SmallVector<Value>> scratch = outerScratch();
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::GPUDialect::getWorkgroupAddressSpace());
  // Split: whether this block is the last of its tile's to arrive.
  Value lastFlag;
  if (split)
    lastFlag = k.func.addWorkgroupAttribution(
        MemRefType::get({1}, b.getI32Type(), MemRefLayoutAttrInterface(), workgroup), loc);
  Value tx = k.threadId(gpu::Dimension::x), ty = k.threadId(gpu::Dimension::y);
  Value columns = k.expander->expand(keptSize), depth = k.expander->expand(reducedSize);
  Value bx = k.blockId(gpu::Dimension::x), gx = k.gridDim(gpu::Dimension::x);
  Value first = k.constant(0), last = depth;
  if (split) {
    // Block row `by` of `gy` takes one chunk of the reduced extent.
    Value by = k.blockId(gpu::Dimension::y), gy = k.gridDim(gpu::Dimension::y);
    Value chunk = arith::CeilDivUIOp::create(b, loc, depth, gy);
    first = arith::MulIOp::create(b, loc, by, chunk);
    last = arith::MinUIOp::create(b, loc, depth, arith::AddIOp::create(b, loc, first, chunk));
  }

  auto body = [&](unsigned lanes) {
    Value lanesV = k.constant(lanes);
    forEachColumnTile(lanesV, columns, tx, bx, gx, [&](Value tile, Value cu, Value valid,
                                                       ArrayRef<Value> colValues) {
      SmallVector<Value> init;
      SmallVector<SmallVector<Value>> accs;
      for (const Reducer &r : reducers) {
        accs.push_back(r.identity(b, loc, lanes));
        init.append(accs.back().begin(), accs.back().end());
      }
      auto red = scf::ForOp::create(b, loc, arith::AddIOp::create(b, loc, first, ty), last,
                                    k.constant(outerY), init);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(red.getBody());
        ExprScope scope(*k.expander);
        iterValues.assign(colValues.begin(), colValues.end());
        assignIterValues(red.getInductionVar(), reducedIter, iterValues);
        memo.clear();
        unsigned pos = 0;
        for (auto &a : accs)
          for (Value &v : a)
            v = red.getRegionIterArgs()[pos++];
        SmallVector<Value> yields;
        for (auto [i, r] : llvm::enumerate(reducers)) {
          Lanes x = emit(r.op->getOperand(0), sIndex(), lanes);
          SmallVector<Value> next = r.accumulate(b, loc, accs[i], materialize(x, lanes));
          yields.append(next.begin(), next.end());
        }
        for (Value out : sOutputs)
          storeOutput(out, sOutputIndex(out), lanes, valid);
        scf::YieldOp::create(b, loc, yields);
        memo.clear();
      }
      unsigned pos = 0;
      for (auto &a : accs)
        for (Value &v : a)
          v = red.getResult(pos++);
      // The rows of threads meet in shared memory.
      Value slot = arith::MulIOp::create(b, loc, tx, lanesV);
      for (auto [i, r] : llvm::enumerate(reducers))
        storeRowPartials(accs[i], scratch[i], ty, slot, lanes);
      gpu::BarrierOp::create(b, loc);
      Value isFirstRow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ty, k.constant(0));
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, isFirstRow, false);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        ExprScope scope(*k.expander);
        iterValues.assign(colValues.begin(), colValues.end());
        memo.clear();
        known.clear();
        for (auto [i, r] : llvm::enumerate(reducers)) {
          SmallVector<Value> total = combineRowPartials(r, scratch[i], slot, lanes);
          if (split) {
            // Partials [split][column] per accumulator value.
            Value by = k.blockId(gpu::Dimension::y);
            Value at = arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, by, columns),
                arith::MulIOp::create(b, loc, cu, lanesV));
            unsigned base = 0;
            for (unsigned j = 0; j < i; ++j)
              base += reducers[j].accTypes.size();
            auto store = scf::IfOp::create(b, loc, TypeRange{}, valid, false);
            OpBuilder::InsertionGuard g4(b);
            b.setInsertionPointToStart(&store.getThenRegion().front());
            for (auto [n, v] : llvm::enumerate(total))
              k.store(k.extraPointer(base + n), v, at, /*crossBlock=*/true);
            continue;
          }
          SmallVector<Value> results = r.finalize(b, loc, total, depth);
          for (auto [res, v] : llvm::zip(r.op->getResults(), results))
            known[res] = Lanes{v, lanes == 1};
        }
        if (!split)
          for (Value out : rOutputs)
            storeOutput(out, rIndex(out), lanes, valid);
        memo.clear();
      }
      // The scratch is rewritten by the next tile.
      gpu::BarrierOp::create(b, loc);
      if (split)
        lastBlockCombine(lanes, tile, cu, valid, colValues, columns, depth, lastFlag, tx, ty);
    });
  };
  emitVectorOrScalar(body);
  k.finish();
  if (fe.explain) {
    OuterKeys keys = outerKeys();
    fe.kernelNote =
        "outer reduction, " + std::to_string(vectorLanes) +
        (vectorLanes == 1 ? " lane" : " lanes") + ", " + std::to_string(outerX) +
        " threads along the kept dim (" +
        (keys.threads ? "reduction.column_threads" : "the heuristic: its units, at most 32") +
        "), " + std::to_string(outerY) + " rows of threads (" +
        (keys.rows ? "reduction.column_rows" : "the heuristic: 256 threads, at most 32 rows") +
        ") adding positions in row order" +
        (split ? std::string("; the reduced extent split across blocks (") +
                     (keys.splits ? "reduction.splits" : "the count chosen in the plan") +
                     "), the last block of a column tile adding the partials in split order"
               : std::string("; no split"));
  }
  k.launch({gridPlan, splitsPlan}, {outerX, outerY}, Value(), condPlan, {flagPlan});
  kb = nullptr;
}
