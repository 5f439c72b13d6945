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

std::pair<Value, Value> ReductionScheduler::outerChunks(OpBuilder &b, Location loc, Value rows,
                                                        Value length,
                                                        function_ref<Value(int64_t)> constant) {
  // Rows a block of 256 threads holds at once at 16 values a thread (1 to
  // 8): a chunk keeps each of them busy.
  Value atOnce = arith::MaxUIOp::create(
      b, loc, constant(1),
      arith::MinUIOp::create(
          b, loc, constant(rowsPerBlockOf(32)),
          arith::DivUIOp::create(b, loc, constant(256 * kInnerOuterValuesPerThread),
                                 arith::MaxUIOp::create(b, loc, length, constant(1)))));
  Value chunkRows = arith::MaxUIOp::create(
      b, loc, atOnce, arith::CeilDivUIOp::create(b, loc, rows, constant(kInnerOuterMaxChunks)));
  return {chunkRows, arith::CeilDivUIOp::create(b, loc, rows, chunkRows)};
}

unsigned ReductionScheduler::outerValuesPerSlot() const {
  unsigned n = 0;
  for (const Reducer &r : outerReducers)
    n += r.accTypes.size();
  return n;
}

bool ReductionScheduler::outerStageFits(int64_t rowValues) const {
  int64_t bytes = 0;
  for (const Reducer &r : outerReducers)
    bytes += alignSharedBytes(rowValues * byteSize(elementTypeOf(r.op->getOperand(0))));
  for (const Reducer &r : reducers)
    for (Type t : r.accTypes)
      bytes += alignSharedBytes(16 * 32 * byteSize(t));
  return bytes <= kStaticSharedBytes;
}

/// Where row of threads `y`'s slot `j`, lane `l`, of thread `tx` sits in a
/// stage buffer ([row of threads][slot][lane][thread], `slots` slots): a
/// warp's threads touch consecutive words, one bank each, where a
/// [thread][lane] layout put 4 or 8 threads on each bank.
static Value stageIndex(KernelBuilder &k, Value y, Value j, Value tx, Value threads,
                        unsigned slots, unsigned lanes, unsigned l) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value slot = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, y, k.constant(slots)), j);
  Value lane = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, slot, k.constant(lanes)),
                                     k.constant(l));
  return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, lane, threads), tx);
}

void ReductionScheduler::accumulateOuter(OuterAccs &accs, unsigned slot, unsigned lanes,
                                         Value valid, Value inRange) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  unsigned perSlot = outerValuesPerSlot();
  Value keep = inRange ? arith::AndIOp::create(b, loc, valid, inRange).getResult() : valid;
  SmallVector<Value> xs;
  for (const Reducer &r : outerReducers)
    xs.push_back(materialize(emit(r.op->getOperand(0), sIndex(), lanes), lanes));
  // Staged: the row's values wait in shared memory for their slot's owner.
  auto stageAll = [&] {
    for (auto [buf, x] : llvm::zip(accs.stage, xs))
      for (unsigned l = 0; l < lanes; ++l) {
        Value e = lanes > 1 ? vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{(int64_t)l})
                                  .getResult()
                            : x;
        memref::StoreOp::create(b, loc, e, buf,
                                ValueRange{asIndex(stageIndex(*kb, accs.ty, kb->constant(slot),
                                                              accs.tx, accs.threads, accs.slots,
                                                              lanes, l))});
      }
  };
  if (accs.staticRows > 1) {
    stageAll();
    return;
  }
  // One row of threads: the thread adds its own row to its own slot.
  auto foldOwn = [&]() -> SmallVector<Value> {
    SmallVector<Value> out;
    unsigned pos = slot * perSlot, value = 0;
    for (auto [r, x] : llvm::zip(outerReducers, xs)) {
      unsigned n = r.accTypes.size();
      SmallVector<Value> cur;
      if (!accs.shared.empty()) {
        for (unsigned i = 0; i < n; ++i)
          cur.push_back(loadThreadSlot(accs.shared[value + i], accs.tx, accs.threads, slot, lanes,
                                       r.accTypes[i]));
      } else {
        cur.assign(accs.values.begin() + pos, accs.values.begin() + pos + n);
      }
      SmallVector<Value> next = r.accumulate(b, loc, cur, x);
      for (unsigned i = 0; i < n; ++i) {
        Value v = arith::SelectOp::create(b, loc, keep, next[i], cur[i]);
        if (!accs.shared.empty())
          storeThreadSlot(accs.shared[value + i], accs.tx, accs.threads, slot, lanes, v);
        else
          out.push_back(v);
      }
      pos += n;
      value += n;
    }
    return out;
  };
  if (!accs.staged) {
    // (Accumulators in shared memory: stored there, nothing to copy.)
    SmallVector<Value> next = foldOwn();
    if (!next.empty())
      llvm::copy(next, accs.values.begin() + slot * perSlot);
    return;
  }
  // Rows of threads known at launch: staged or not, as the block has them.
  ValueRange cur(ArrayRef<Value>(accs.values).slice(slot * perSlot, perSlot));
  auto ifStaged = scf::IfOp::create(b, loc, cur.getTypes(), accs.staged, true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifStaged.getThenRegion().front());
    stageAll();
    scf::YieldOp::create(b, loc, cur);
    b.setInsertionPointToStart(&ifStaged.getElseRegion().front());
    scf::YieldOp::create(b, loc, foldOwn());
  }
  llvm::copy(ifStaged.getResults(), accs.values.begin() + slot * perSlot);
}

ReductionScheduler::OwnedSlot ReductionScheduler::ownedSlot(const OuterAccs &accs, unsigned k,
                                                            Value units) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  Value j = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, kb->constant(k), accs.rowsInBlock), accs.ty);
  Value unit =
      arith::AddIOp::create(b, loc, accs.tx, arith::MulIOp::create(b, loc, j, accs.threads));
  Value owns = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, kb->constant(accs.slots)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, unit, units));
  return {j, unit, owns};
}

void ReductionScheduler::foldStagedRows(OuterAccs &accs, unsigned lanes, Value first,
                                        Value end) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  unsigned perSlot = outerValuesPerSlot();
  Value rowsInBlock = accs.rowsInBlock;
  Value units = arith::DivUIOp::create(b, loc, kb->expander->expand(reducedSize),
                                       kb->constant(lanes));
  auto fold = [&]() -> SmallVector<Value> {
    // Every row of threads has staged its row.
    gpu::BarrierOp::create(b, loc);
    SmallVector<Value> values(accs.values);
    unsigned owned = values.size() / perSlot;
    for (unsigned k = 0; k < owned; ++k) {
      auto [j, unit, owns] = ownedSlot(accs, k, units);
      ValueRange cur(ArrayRef<Value>(values).slice(k * perSlot, perSlot));
      auto ifOwns = scf::IfOp::create(b, loc, cur.getTypes(), owns, true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOwns.getThenRegion().front());
      // Row of threads y's value, added where its row is one of the chunk's.
      auto addRow = [&](Value y, SmallVector<Value> acc) {
        Value inChunk = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult, arith::AddIOp::create(b, loc, first, y), end);
        unsigned pos = 0;
        for (auto [r, buf] : llvm::zip(outerReducers, accs.stage)) {
          Type t = cast<MemRefType>(buf.getType()).getElementType();
          SmallVector<Value> elems;
          for (unsigned l = 0; l < lanes; ++l)
            elems.push_back(memref::LoadOp::create(
                b, loc, buf,
                ValueRange{asIndex(stageIndex(*kb, y, j, accs.tx, accs.threads, accs.slots, lanes, l))}));
          Value x = lanes > 1 ? vector::FromElementsOp::create(b, loc, VectorType::get({lanes}, t),
                                                               elems)
                                    .getResult()
                              : elems[0];
          unsigned n = r.accTypes.size();
          SmallVector<Value> own(acc.begin() + pos, acc.begin() + pos + n);
          SmallVector<Value> next = r.accumulate(b, loc, own, x);
          for (unsigned i = 0; i < n; ++i)
            acc[pos + i] = arith::SelectOp::create(b, loc, inChunk, next[i], own[i]);
          pos += n;
        }
        return acc;
      };
      SmallVector<Value> acc(cur);
      if (accs.staticRows > 1) {
        for (int64_t y = 0; y < accs.staticRows; ++y)
          acc = addRow(kb->constant(y), acc);
      } else {
        auto rowsLoop = scf::ForOp::create(b, loc, kb->constant(0), rowsInBlock, kb->constant(1),
                                           acc);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(rowsLoop.getBody());
        ExprScope scope(*kb->expander);
        scf::YieldOp::create(
            b, loc,
            addRow(rowsLoop.getInductionVar(), SmallVector<Value>(rowsLoop.getRegionIterArgs())));
        acc.assign(rowsLoop.getResults().begin(), rowsLoop.getResults().end());
      }
      scf::YieldOp::create(b, loc, acc);
      b.setInsertionPointToStart(&ifOwns.getElseRegion().front());
      scf::YieldOp::create(b, loc, cur);
      b.setInsertionPointAfter(ifOwns);
      llvm::copy(ifOwns.getResults(), values.begin() + k * perSlot);
    }
    return values;
  };
  if (accs.staticRows > 1) {
    accs.values = fold();
    return;
  }
  auto ifStaged = scf::IfOp::create(b, loc, ValueRange(accs.values).getTypes(), accs.staged, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifStaged.getThenRegion().front());
  {
    ExprScope scope(*kb->expander);
    scf::YieldOp::create(b, loc, fold());
  }
  b.setInsertionPointToStart(&ifStaged.getElseRegion().front());
  scf::YieldOp::create(b, loc, accs.values);
  accs.values.assign(ifStaged.getResults().begin(), ifStaged.getResults().end());
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
    // The chunk's first row starts its partials; later ones add to them
    // (only the thread that owns these columns reads and writes them).
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

void ReductionScheduler::writeChunkPartials(const OuterAccs &accs, ArrayRef<Value> values,
                                            unsigned lanes, Value chunk) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  unsigned perSlot = outerValuesPerSlot();
  Value lanesV = kb->constant(lanes);
  Value units = arith::DivUIOp::create(b, loc, kb->expander->expand(reducedSize), lanesV);
  Value at0 = arith::MulIOp::create(b, loc, chunk, kb->expander->expand(reducedSize));
  for (unsigned k = 0, owned = values.size() / perSlot; k < owned; ++k) {
    auto [j, unit, guard] = ownedSlot(accs, k, units);
    Value at = arith::AddIOp::create(b, loc, at0, arith::MulIOp::create(b, loc, unit, lanesV));
    auto store = scf::IfOp::create(b, loc, TypeRange{}, guard, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&store.getThenRegion().front());
    for (unsigned v = 0; v < perSlot; ++v)
      kb->store(kb->extraPointer(v), values[k * perSlot + v], at);
  }
}

void ReductionScheduler::planInnerOuter() {
  OpBuilder &pb = fe.planBuilder;
  // Blocks of an inner-outer kernel: one per 8 rows, so that a block's
  // row of partials (written once, read once) stays small beside the
  // rows it reads; at most two per SM (the register-held rows allow no
  // more resident). But at least one per SM while there are rows for
  // them: with fewer, a block walks its rows one after another while SMs
  // idle (41 rows of 4096 in 2 blocks took 32 us on an H200, 2.8x the
  // floor's time), and the extra partials cost at most SMs x columns x
  // accumulators, read once and written once. "Rows for them": a block
  // of the register variant holds 256 x 16 values, so as many rows at
  // once as fit (1 to 8); the floor leaves none of its blocks without a
  // row. The same grid for every variant, so the partials and their
  // combine are too. The defaults (Schedule.h) are measured;
  // `innerouter.*` schedule keys override each.
  int64_t perBlock = fe.schedule.valueOr(ScheduleKey::InnerOuterRows);
  int64_t floorBlocks =
      fe.target.smCount * fe.schedule.valueOr(ScheduleKey::InnerOuterMinBlocksPerSM);
  int64_t capBlocks =
      fe.target.smCount * fe.schedule.valueOr(ScheduleKey::InnerOuterMaxBlocksPerSM);
  Value rows = fe.planExpr(keptSize);
  Value byRows = arith::CeilDivUIOp::create(pb, fe.loc, rows, fe.planConstant(perBlock));
  Value rowsAtOnce = arith::MaxUIOp::create(
      pb, fe.loc, fe.planConstant(1),
      arith::MinUIOp::create(
          pb, fe.loc, fe.planConstant(rowsPerBlockOf(32)),
          arith::DivUIOp::create(
              pb, fe.loc, fe.planConstant(256 * kInnerOuterValuesPerThread),
              arith::MaxUIOp::create(pb, fe.loc, fe.planExpr(reducedSize), fe.planConstant(1)))));
  Value floor = arith::MinUIOp::create(
      pb, fe.loc, arith::CeilDivUIOp::create(pb, fe.loc, rows, rowsAtOnce),
      fe.planConstant(floorBlocks));
  // No more blocks than chunks (outerChunks: the partials are a chunk's,
  // whichever block adds it, so the grid changes no bit of the sums).
  outerChunkCount = outerChunks(pb, fe.loc, rows, fe.planExpr(reducedSize),
                                [&](int64_t c) { return fe.planConstant(c); })
                        .second;
  outerGrid = arith::MaxUIOp::create(
      pb, fe.loc, fe.planConstant(1),
      arith::MinUIOp::create(
          pb, fe.loc,
          arith::MinUIOp::create(pb, fe.loc, arith::MaxUIOp::create(pb, fe.loc, byRows, floor),
                                 fe.planConstant(capBlocks)),
          outerChunkCount));
  Value size = arith::MulIOp::create(
      pb, fe.loc, arith::MaxUIOp::create(pb, fe.loc, outerChunkCount, fe.planConstant(1)),
      fe.planExpr(reducedSize));
  for (const Reducer &r : outerReducers)
    for (Type t : r.accTypes)
      outerPartials.push_back(memref::AllocOp::create(
          pb, fe.loc, MemRefType::get({ShapedType::kDynamic}, t), ValueRange{size}));
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
    if (persistent && vectorLanes > 1 && !vectorsAlwaysOk() && !inShared) {
      // Misaligned buffers take the same kernel, their units read and
      // written lane by lane (ReductionScheduler::Bodies::VectorUnits): one
      // copy of the row's arithmetic to compile, the same bits either way.
      variantCondition = widthCond;
      emitOnChip(threads, /*inShared=*/false, Bodies::VectorUnits);
    } else if (persistent && vectorLanes > 1 && !vectorsAlwaysOk()) {
      // With the accumulators in shared memory (rows over 8192), the
      // lane-by-lane branches cost registers the kernel does not have
      // (layer_norm backward f32 at 16384 spilled 28 bytes): misaligned
      // buffers take a kernel of their own, in scalars, where 512 threads'
      // registers hold the row, else the row read again.
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
      // Rows of up to 128 threads' values: rows of threads staged, blocks of
      // 256 threads; longer ones: one row of threads a block, no stage.
      Value isShort = arith::CmpIOp::create(
          pb, ploc, arith::CmpIPredicate::ule, length,
          fe.planConstant(128 * capacity));
      variantCondition = withCond(arith::AndIOp::create(pb, ploc, keep, isShort));
      outerBlockLimit = 256;
      emitOnChip(0, /*inShared=*/false, Bodies::VectorOnly);
      outerBlockLimit = 0;
      variantCondition = withCond(arith::AndIOp::create(pb, ploc, keep, negate(isShort)));
      outerNoStage = true;
      emitOnChip(0, /*inShared=*/false, Bodies::VectorOnly);
      outerNoStage = false;
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
  // The combine: 32 columns a block, each added by 8 groups of the chunks'
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
      outerChunkCount, fe.planConstant(0));
  Value grid = arith::MinUIOp::create(
      pb, ploc, arith::CeilDivUIOp::create(pb, ploc, columns, fe.planConstant(kCombineColumns)),
      fe.planConstant(fe.target.smCount * 8));
  CombineSpec spec{&outerReducers, outerPartials, oOutputs, reducedSize, keptSize, reducedIter,
                   [this](Value v) { return oIndex(v); }};
  emitCombine(spec, w, grid, splits, cond);
}

