//===- InnerOuter.cpp - row and column reductions of one tensor -----------===//
//
// The inner-outer part of ReductionScheduler (GroupAnalysis.h,
// docs/schedulers.md): the row kernel's column accumulators (registers,
// shared memory, or the block's own row of partials when rows are read
// again), the combine of a block's rows of threads, and the choice of
// variants. The row kernel itself is ReductionScheduler::emitInner.
//
//===----------------------------------------------------------------------===//

#include "ReductionScheduler.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fuser;

Index ReductionScheduler::oIndex(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<AffineExpr> e;
  bool keep = (unsigned)t.getRank() == refRank;
  for (unsigned k = 0; k < refRank; ++k) {
    if (dimClass[k])
      e.push_back(getAffineDimExpr(k, ctx));
    else if (keep)
      e.push_back(getAffineConstantExpr(0, ctx));
  }
  return Index{false, e};
}

void ReductionScheduler::accumulateOuter(OuterAccs &accs, unsigned slot, unsigned lanes,
                                         Value valid, Value inRange) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  unsigned perSlot = 0;
  for (const Reducer &r : outerReducers)
    perSlot += r.accTypes.size();
  Value keep = inRange ? arith::AndIOp::create(b, loc, valid, inRange).getResult() : valid;
  unsigned pos = slot * perSlot, value = 0;
  for (const Reducer &r : outerReducers) {
    Lanes x = emit(r.op->getOperand(0), sIndex(), lanes);
    unsigned n = r.accTypes.size();
    SmallVector<Value> cur;
    if (!accs.shared.empty()) {
      for (unsigned i = 0; i < n; ++i)
        cur.push_back(loadThreadSlot(accs.shared[value + i], accs.tx, accs.threads, slot, lanes,
                                     r.accTypes[i]));
    } else {
      cur.assign(accs.values.begin() + pos, accs.values.begin() + pos + n);
    }
    SmallVector<Value> next = r.accumulate(b, loc, cur, materialize(x, lanes));
    for (unsigned i = 0; i < n; ++i) {
      Value v = arith::SelectOp::create(b, loc, keep, next[i], cur[i]);
      if (!accs.shared.empty())
        storeThreadSlot(accs.shared[value + i], accs.tx, accs.threads, slot, lanes, v);
      else
        accs.values[pos + i] = v;
    }
    pos += n;
    value += n;
  }
}

void ReductionScheduler::accumulateOuterInMemory(const OuterAccs &accs, Value unit,
                                                 unsigned lanes, Value valid) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  Value at = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, accs.partialRow, kb->expander->expand(reducedSize)),
      arith::MulIOp::create(b, loc, unit, kb->constant(lanes)));
  unsigned base = 0;
  for (const Reducer &r : outerReducers) {
    Value x = materialize(emit(r.op->getOperand(0), sIndex(), lanes), lanes);
    unsigned n = r.accTypes.size();
    // The block's first row block starts its partials; later ones add to
    // them (only the thread that owns these columns reads and writes them).
    auto first = scf::IfOp::create(b, loc, TypeRange{}, accs.firstRowBlock, true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&first.getThenRegion().front());
      SmallVector<Value> init = r.identity(b, loc, lanes);
      SmallVector<Value> next = r.accumulate(b, loc, init, x);
      for (unsigned i = 0; i < n; ++i)
        kb->store(kb->extraPointer(base + i),
                  arith::SelectOp::create(b, loc, valid, next[i], init[i]), at);
      b.setInsertionPointToStart(&first.getElseRegion().front());
      auto add = scf::IfOp::create(b, loc, TypeRange{}, valid, false);
      b.setInsertionPointToStart(&add.getThenRegion().front());
      SmallVector<Value> prev;
      for (unsigned i = 0; i < n; ++i)
        prev.push_back(kb->load(kb->extraPointer(base + i), r.accTypes[i], at, lanes));
      SmallVector<Value> sum = r.accumulate(b, loc, prev, x);
      for (unsigned i = 0; i < n; ++i)
        kb->store(kb->extraPointer(base + i), sum[i], at);
    }
    base += n;
  }
}

void ReductionScheduler::writeOuterPartials(ArrayRef<Value> accsIn, unsigned lanes,
                                            unsigned slots, Value tx, Value ty, Value threads,
                                            Value rowsInBlock, int64_t staticRows,
                                            ArrayRef<Value> stage) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  SmallVector<Value> accs(accsIn);
  unsigned perSlot = 0;
  for (const Reducer &r : outerReducers)
    perSlot += r.accTypes.size();
  Value lanesV = kb->constant(lanes);
  Value isFirstRow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ty, kb->constant(0));
  auto laneValue = [&](Value v, unsigned l) {
    return lanes > 1 ? vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{(int64_t)l})
                           .getResult()
                     : v;
  };
  // Slot j's lane l sits at column (tx + j*T)*lanes + l of the stage.
  auto stageIndex = [&](unsigned j, unsigned l) {
    Value u = arith::AddIOp::create(
        b, loc, tx, arith::MulIOp::create(b, loc, threads, kb->constant(j)));
    return asIndex(arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, u, lanesV),
                                         kb->constant(l)));
  };
  // Rows of threads 1, 2, ... hand their slots to row 0 in turn, through
  // shared memory: row 0 combines them in row order.
  int64_t maxRows = staticRows ? staticRows : 8;
  for (int64_t round = 1; round < maxRows; ++round) {
    Value roundRuns = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            kb->constant(round), rowsInBlock);
    auto ifRound = scf::IfOp::create(b, loc, TypeRange(ValueRange(accs)), roundRuns, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifRound.getThenRegion().front());
    ExprScope scope(*kb->expander);
    Value isSender =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ty, kb->constant(round));
    SmallVector<Value> next(accs);
    unsigned pos = 0;
    for (const Reducer &r : outerReducers) {
      unsigned n = r.accTypes.size();
      // part[j][i]: the sender's value i of slot j.
      SmallVector<SmallVector<Value>> part(slots);
      for (unsigned i = 0; i < n; ++i) {
        // One stage buffer per accumulator type.
        Value buf;
        for (Value sbuf : stage)
          if (cast<MemRefType>(sbuf.getType()).getElementType() == r.accTypes[i])
            buf = sbuf;
        gpu::BarrierOp::create(b, loc);
        auto send = scf::IfOp::create(b, loc, TypeRange{}, isSender, false);
        {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(&send.getThenRegion().front());
          ExprScope scope2(*kb->expander);
          for (unsigned j = 0; j < slots; ++j)
            for (unsigned l = 0; l < lanes; ++l)
              memref::StoreOp::create(b, loc, laneValue(accs[j * perSlot + pos + i], l), buf,
                                      ValueRange{stageIndex(j, l)});
        }
        gpu::BarrierOp::create(b, loc);
        for (unsigned j = 0; j < slots; ++j) {
          SmallVector<Value> elems;
          for (unsigned l = 0; l < lanes; ++l)
            elems.push_back(memref::LoadOp::create(b, loc, buf, ValueRange{stageIndex(j, l)}));
          part[j].push_back(lanes > 1 ? vector::FromElementsOp::create(
                                            b, loc, VectorType::get({lanes}, r.accTypes[i]), elems)
                                            .getResult()
                                      : elems[0]);
        }
      }
      for (unsigned j = 0; j < slots; ++j) {
        SmallVector<Value> own(accs.begin() + j * perSlot + pos,
                               accs.begin() + j * perSlot + pos + n);
        SmallVector<Value> sum = r.combine(b, loc, own, part[j]);
        for (unsigned i = 0; i < n; ++i)
          next[j * perSlot + pos + i] =
              arith::SelectOp::create(b, loc, isFirstRow, sum[i], own[i]);
      }
      pos += n;
    }
    scf::YieldOp::create(b, loc, next);
    b.setInsertionPointToStart(&ifRound.getElseRegion().front());
    scf::YieldOp::create(b, loc, accs);
    b.setInsertionPointAfter(ifRound);
    accs.assign(ifRound.getResults().begin(), ifRound.getResults().end());
  }
  // Row 0 writes the block's partials: [block][column].
  Value units = arith::DivUIOp::create(b, loc, kb->expander->expand(reducedSize), lanesV);
  Value at0 = arith::MulIOp::create(b, loc, kb->blockId(gpu::Dimension::x),
                                    kb->expander->expand(reducedSize));
  for (unsigned j = 0; j < slots; ++j) {
    Value u = arith::AddIOp::create(b, loc, tx,
                                    arith::MulIOp::create(b, loc, threads, kb->constant(j)));
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, u, units);
    Value guard = arith::AndIOp::create(b, loc, isFirstRow, inRange);
    Value at = arith::AddIOp::create(b, loc, at0, arith::MulIOp::create(b, loc, u, lanesV));
    auto store = scf::IfOp::create(b, loc, TypeRange{}, guard, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&store.getThenRegion().front());
    for (unsigned v = 0; v < perSlot; ++v)
      kb->store(kb->extraPointer(v), accs[j * perSlot + v], at);
  }
}

void ReductionScheduler::emitInnerOuter(unsigned w) {
  OpBuilder &pb = fe.planBuilder;
  Location ploc = fe.loc;
  Value widthCond = variantCondition;
  auto withCond = [&](Value c) {
    return widthCond ? arith::AndIOp::create(pb, ploc, widthCond, c).getResult() : c;
  };
  auto negate = [&](Value c) {
    return arith::XOrIOp::create(pb, ploc, c, arith::ConstantIntOp::create(pb, ploc, 1, 1))
        .getResult();
  };
  int64_t capacity = kInnerOuterValuesPerThread;
  // Whether 512 threads holding `values` values of the row each may keep
  // their column accumulators in shared memory: 32-bit indices (64-bit ones
  // take the registers the row needs), and the target's shared memory holds
  // them beside the row reductions' scratch.
  // (`rowValues`: those of the row a thread keeps in shared memory too;
  // `invariantValues`: those of the inputs the rows share.)
  auto sharedFits = [&](int64_t values, int64_t rowValues = 0, int64_t invariantValues = 0) {
    if (w != 32)
      return false;
    int64_t bytes = 0;
    for (const Reducer &r : outerReducers)
      for (Type t : r.accTypes)
        bytes += alignSharedBytes(kInnerOuterSharedThreads * values * byteSize(t));
    for (const Reducer &r : reducers)
      for (Type t : r.accTypes)
        bytes += alignSharedBytes(16 * 32 * byteSize(t));
    for (Value in : seg.inputs) {
      int64_t n = ArrayRef(shapeOf(in)) == ArrayRef(refShape) ? rowValues
                  : sharedByRows(in, /*movesAlongRow=*/true)  ? invariantValues
                                                              : 0;
      bytes += alignSharedBytes(kInnerOuterSharedThreads * n * byteSize(elementTypeOf(in)));
    }
    return bytes <= (int64_t)fe.target.sharedMemoryPerBlock;
  };
  auto emitOnChip = [&](int64_t threads, bool inShared, Bodies bodies) {
    outerInShared = inShared;
    valuesPerThread = bodies == Bodies::ScalarOnly ? (inShared ? kInnerOuterSharedScalarValuesPerThread
                                                               : kInnerOuterScalarValuesPerThread)
                      : inShared ? kInnerOuterSharedValuesPerThread
                                 : capacity;
    // With the accumulators in shared memory, the rows' loads past the
    // first kInnerOuterRowValuesInRegisters values of a thread go there
    // too, where it still has room, else past twice that; and, for a
    // static row, the inputs the rows share (the weight), loaded by the
    // block's first row, where there is room for them too: else every row
    // reads them again (RowInShared.cpp; at a length known at launch the
    // first row's branch spilled 124 bytes in layer_norm backward bf16).
    for (bool invariants : {threads != 0, false}) {
      for (int64_t held = kInnerOuterRowValuesInRegisters;
           inShared && rowValuesInRegisters < 0 && held <= 2 * kInnerOuterRowValuesInRegisters;
           held *= 2)
        if (sharedFits(valuesPerThread, valuesPerThread - held,
                       invariants ? valuesPerThread : 0)) {
          rowValuesInRegisters = held;
          keepInvariantsInShared = invariants;
        }
    }
    emitInner(w, threads, /*persistent=*/true, /*split=*/false, bodies);
    rowValuesInRegisters = -1;
    keepInvariantsInShared = false;
    outerInShared = false;
    valuesPerThread = 0;
  };
  std::optional<int64_t> staticK = ShapeAnalysis::constantValue(reducedSize);
  if (staticK) {
    // On chip: the fewest threads (a power of two, 32 to 512) that leave
    // each at most the capacity, with the accumulators in shared memory
    // for rows of up to twice that. Read again: at least 4 units a thread.
    int64_t units = std::max<int64_t>(1, *staticK / vectorLanes);
    auto perThread = [&](int64_t t) { return (units + t - 1) / t * vectorLanes; };
    int64_t threads = 32;
    while (threads < kMaxDynamicThreads && perThread(threads) > capacity)
      threads *= 2;
    bool inRegisters = perThread(threads) <= capacity;
    if (inRegisters)
      threads = std::max(threads, fe.schedule.get(ScheduleKey::InnerOuterMinThreads).value_or(32));
    bool inShared = !inRegisters &&
                    perThread(kInnerOuterSharedThreads) <= kInnerOuterSharedValuesPerThread &&
                    sharedFits(kInnerOuterSharedValuesPerThread);
    if (inShared)
      threads = kInnerOuterSharedThreads;
    bool persistent = inRegisters || inShared;
    int64_t rereadThreads = 32;
    while (rereadThreads < kMaxDynamicThreads && rereadThreads * 4 < units)
      rereadThreads *= 2;
    if (persistent && vectorLanes > 1 && !vectorsAlwaysOk()) {
      // Misaligned buffers: the rows stay on chip in scalars where 512
      // threads' registers hold them, else they are read again.
      Value vecOk = planVectorOk();
      variantCondition = withCond(vecOk);
      emitOnChip(threads, inShared, Bodies::VectorOnly);
      variantCondition = withCond(negate(vecOk));
      int64_t scalarThreads = 32, perScalar = kInnerOuterScalarValuesPerThread;
      while (scalarThreads < kMaxDynamicThreads && scalarThreads * perScalar < *staticK)
        scalarThreads *= 2;
      if (w == 32 && scalarThreads * perScalar >= *staticK)
        emitOnChip(scalarThreads, /*inShared=*/false, Bodies::ScalarOnly);
      else if (*staticK <= kInnerOuterSharedThreads * kInnerOuterSharedScalarValuesPerThread &&
               sharedFits(kInnerOuterSharedScalarValuesPerThread))
        emitOnChip(kInnerOuterSharedThreads, /*inShared=*/true, Bodies::ScalarOnly);
      else
        emitInner(w, rereadThreads, /*persistent=*/false, /*split=*/false, Bodies::ScalarOnly);
    } else if (persistent) {
      variantCondition = widthCond;
      emitOnChip(threads, inShared, Bodies::Both);
    } else {
      variantCondition = widthCond;
      emitInner(w, rereadThreads, /*persistent=*/false);
    }
  } else {
    // Row length known at launch: rows of whole, aligned vectors of up to
    // 512 threads' capacity stay on chip, twice that with the accumulators
    // in shared memory; other rows of up to 512 threads' capacity stay on
    // chip in scalars (a slot per element, past the row masked); longer
    // ones are read again.
    Value length = fe.planExpr(reducedSize);
    Value keep;
    if (vectorLanes > 1) {
      Value vecOk = planVectorOk();
      int64_t inRegisters = kMaxDynamicThreads * capacity;
      keep = arith::AndIOp::create(
          pb, ploc, vecOk,
          arith::CmpIOp::create(pb, ploc, arith::CmpIPredicate::ule, length,
                                fe.planConstant(inRegisters)));
      variantCondition = withCond(keep);
      emitOnChip(0, /*inShared=*/false, Bodies::VectorOnly);
      if (sharedFits(kInnerOuterSharedValuesPerThread)) {
        Value longer = arith::AndIOp::create(
            pb, ploc, vecOk,
            arith::AndIOp::create(
                pb, ploc,
                arith::CmpIOp::create(pb, ploc, arith::CmpIPredicate::ugt, length,
                                      fe.planConstant(inRegisters)),
                arith::CmpIOp::create(
                    pb, ploc, arith::CmpIPredicate::ule, length,
                    fe.planConstant(kInnerOuterSharedThreads * kInnerOuterSharedValuesPerThread))));
        variantCondition = withCond(longer);
        emitOnChip(0, /*inShared=*/true, Bodies::VectorOnly);
        keep = arith::OrIOp::create(pb, ploc, keep, longer);
      }
    }
    // (Not with 64-bit indices: each slot's address takes two registers,
    // and the kernel spilled 620 bytes.)
    Value reread = keep ? negate(keep) : Value();
    if (w == 32) {
      auto atMost = [&](int64_t n) {
        return arith::CmpIOp::create(pb, ploc, arith::CmpIPredicate::ule, length,
                                     fe.planConstant(n))
            .getResult();
      };
      int64_t inRegisters = kMaxDynamicThreads * kInnerOuterScalarValuesPerThread;
      int64_t inShared = kInnerOuterSharedThreads * kInnerOuterSharedScalarValuesPerThread;
      Value scalars = atMost(inRegisters);
      // Up to twice as long with the accumulators and the rows' later
      // values in shared memory.
      bool longer = sharedFits(kInnerOuterSharedScalarValuesPerThread);
      Value longScalars =
          longer ? arith::AndIOp::create(pb, ploc, negate(scalars), atMost(inShared)).getResult()
                 : Value();
      reread = negate(longer ? atMost(inShared) : scalars);
      if (keep) {
        scalars = arith::AndIOp::create(pb, ploc, negate(keep), scalars);
        if (longer)
          longScalars = arith::AndIOp::create(pb, ploc, negate(keep), longScalars);
        reread = arith::AndIOp::create(pb, ploc, negate(keep), reread);
      }
      variantCondition = withCond(scalars);
      emitOnChip(0, /*inShared=*/false, Bodies::ScalarOnly);
      if (longer) {
        variantCondition = withCond(longScalars);
        emitOnChip(0, /*inShared=*/true, Bodies::ScalarOnly);
      }
    }
    variantCondition = reread ? withCond(reread) : widthCond;
    emitInner(w, 0, /*persistent=*/false);
  }
  // The combine: 32 columns a block, each added by 8 groups of the blocks'
  // partials (every 8th), then the groups in order (none when there are no
  // rows: the reductions' identities).
  variantCondition = widthCond;
  Value columns = fe.planExpr(reducedSize);
  Value cond = withCond(arith::CmpIOp::create(pb, ploc, arith::CmpIPredicate::sgt, columns,
                                              fe.planConstant(0)));
  Value splits = arith::SelectOp::create(
      pb, ploc,
      arith::CmpIOp::create(pb, ploc, arith::CmpIPredicate::sgt, fe.planExpr(keptSize),
                            fe.planConstant(0)),
      outerGrid, fe.planConstant(0));
  Value grid = arith::MinUIOp::create(
      pb, ploc, arith::CeilDivUIOp::create(pb, ploc, columns, fe.planConstant(kCombineColumns)),
      fe.planConstant(fe.target.smCount * 8));
  CombineSpec spec{&outerReducers, outerPartials, oOutputs, reducedSize, keptSize, reducedIter,
                   [this](Value v) { return oIndex(v); }};
  emitCombine(spec, w, grid, splits, cond);
}

