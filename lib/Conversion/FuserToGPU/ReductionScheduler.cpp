//===- ReductionScheduler.cpp - reductions and normalizations -------------===//

#include "ReductionScheduler.h"

#include "ElementwiseEmitter.h"
#include "IndexMath.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::fuser;

/// Rows of at most this many register values per thread stay in registers
/// (two-byte rows: kPersistentHalfValuesPerThread in 512 threads).
static constexpr int64_t kPersistentValuesPerThread = 32;
static constexpr int64_t kPersistentHalfValuesPerThread = 96;
static constexpr int64_t kPersistentHalfValuesPerThreadBeside = 72;
/// Two-byte rows longer than the registers hold: up to this many values a
/// thread of 512 (rows of up to 65536 elements), of which 32 fewer than
/// the above stay in registers and the rest in shared memory
/// (RowInShared.cpp): reading them back takes registers in every pass; at
/// 8 fewer rms_norm over 65536 spilled 24 bytes, at 24 fewer 12.
static constexpr int64_t kPersistentHalfRowValuesPerThread = 128;
static constexpr int64_t kRowInSharedRegisterRelief = 32;
/// A normalization's row of a length known at launch that is not whole
/// vectors stays on chip in this many scalar slots a thread (each with its
/// own mask and address), 512 threads at most: rows up to 8192 elements.
static constexpr int64_t kScalarValuesPerThread = 16;
/// With a row length known only at launch, per thread: every slot's
/// addresses stay live, and 64-bit ones take twice the registers.
static int64_t dynamicValuesPerThread(unsigned indexBits) {
  return indexBits == 64 ? 16 : 32;
}
/// Inner reductions with fewer rows than two waves of blocks split rows of
/// at least this many elements across blocks of this many threads.
static constexpr int64_t kInnerSplitMinLength = 32768, kInnerSplitThreads = 512;

ReductionScheduler::ReductionScheduler(FusionEmitter &fe, const Segment &seg,
                                       GroupInfo info)
    : GroupEmitter(fe, seg), info(std::move(info)) {}

Index ReductionScheduler::sIndex() {
  SmallVector<AffineExpr> d;
  for (unsigned k = 0; k < refRank; ++k)
    d.push_back(getAffineDimExpr(k, ctx));
  return Index{false, d};
}

Index ReductionScheduler::sOutputIndex(Value out) {
  if (!info.sViews.contains(out))
    return sIndex();
  return Index{true, {linearize(sIndex().exprs, refShape)}};
}

std::optional<Index> ReductionScheduler::viewIndex(Value operand, AffineExpr linear) {
  // A view's operand of shape S at the index of the S element the view
  // was computed for: that element's values are the row's (on chip).
  if (ArrayRef(shapeOf(operand)) != ArrayRef(refShape))
    return std::nullopt;
  Index s = sIndex();
  if (linear != linearize(s.exprs, refShape))
    return std::nullopt;
  return s;
}

/// A reduced-shape value's index: the kept dims, with 0 for the reduced ones
/// when it keeps them.
Index ReductionScheduler::rIndex(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<AffineExpr> e;
  bool keep = (unsigned)t.getRank() == refRank;
  for (unsigned k = 0; k < refRank; ++k) {
    if (!dimClass[k])
      e.push_back(getAffineDimExpr(k, ctx));
    else if (keep)
      e.push_back(getAffineConstantExpr(0, ctx));
  }
  return Index{false, e};
}

void ReductionScheduler::assignIterValues(Value linear, ArrayRef<unsigned> dims,
                                          SmallVector<Value> &out) {
  OpBuilder &b = kb->b;
  Value rest = linear;
  for (size_t n = dims.size(); n-- > 0;) {
    unsigned j = dims[n];
    if (n == 0) {
      out[j] = rest;
      break;
    }
    Value size = kb->expander->expand(iterSizes[j]);
    out[j] = arith::RemUIOp::create(b, kb->loc, rest, size);
    rest = arith::DivUIOp::create(b, kb->loc, rest, size);
  }
}

SmallVector<unsigned> ReductionScheduler::reducersAtLevel(unsigned lvl) const {
  SmallVector<unsigned> rs;
  for (unsigned i = 0; i < reducers.size(); ++i)
    if (level[i] == lvl)
      rs.push_back(i);
  return rs;
}

void ReductionScheduler::withUnit(Unit &u, function_ref<void()> body) {
  std::swap(kb->expander, u.expander);
  std::swap(memo, u.memo);
  if (u.masked)
    loadMask = u.inRange;
  currentUnit = &u;
  body();
  currentUnit = nullptr;
  loadMask = Value();
  std::swap(memo, u.memo);
  std::swap(kb->expander, u.expander);
}

void ReductionScheduler::storeOutput(Value out, const Index &idx, unsigned lanes,
                                     Value guard) {
  OpBuilder &b = kb->b;
  Lanes v = emit(out, idx, lanes);
  Value value = materialize(v, lanes);
  AffineExpr off = toIteration(linearIndex(out, idx));
  if (!guard) {
    kb->store(kb->pointer(out), value, kb->expander->expand(off));
    return;
  }
  Value offset = kb->expander->expand(off);
  auto ifOp = scf::IfOp::create(b, kb->loc, TypeRange{}, guard, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  kb->store(kb->pointer(out), value, offset);
}

int64_t ReductionScheduler::rowsPerBlock(int64_t threads, bool persistent) const {
  if (hasOuter() && (!persistent || outerInShared))
    return 1;
  if (hasOuter()) {
    // Rows of threads stage their rows' values for the column sums
    // (foldStagedRows): where the stage does not fit, one row of threads.
    int64_t rows = rowsPerBlockOf(threads);
    std::optional<int64_t> k = ShapeAnalysis::constantValue(reducedSize);
    int64_t rowValues = 0;
    for (int64_t lanes : {int64_t(1), int64_t(vectorLanes)})
      rowValues = std::max(rowValues,
                           k ? (*k / lanes + threads - 1) / threads * threads * lanes
                             : threads * dynamicValuesPerThread(32));
    return rows > 1 && !outerStageFits(rows * rowValues) ? 1 : rows;
  }
  // An inner kernel's block: `reduction.block` threads (at most 512, so
  // at most 16 rows of 32: the block reductions' scratch is [16][32]).
  return std::max<int64_t>(1, fe.schedule.valueOr(ScheduleKey::ReductionBlock) / threads);
}

SmallVector<Value> ReductionScheduler::blockReduce(const Reducer &r, SmallVector<Value> acc,
                                                   ArrayRef<Value> scratch, Value tx,
                                                   Value ty, Value threadsPerRow,
                                                   int64_t staticThreads) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  auto butterfly = [&](SmallVector<Value> v) {
    for (int32_t off = 16; off >= 1; off /= 2) {
      SmallVector<Value> other;
      for (Value x : v)
        other.push_back(shuffleXor(b, loc, x, off));
      v = r.combine(b, loc, v, other);
    }
    return v;
  };
  acc = butterfly(acc);
  if (staticThreads == 32)
    return acc;
  auto crossWarps = [&]() -> SmallVector<Value> {
    Value lane = arith::AndIOp::create(b, loc, tx, kb->constant(31));
    Value warp = arith::ShRUIOp::create(b, loc, tx, kb->constant(5));
    Value isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                           kb->constant(0));
    {
      auto store = scf::IfOp::create(b, loc, TypeRange{}, isLeader, false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      for (auto [v, s] : llvm::zip(acc, scratch))
        memref::StoreOp::create(b, loc, v, s, ValueRange{asIndex(ty), asIndex(warp)});
    }
    if (fe.plantBug != "missing-barrier")
      gpu::BarrierOp::create(b, loc);
    Value warps = arith::ShRUIOp::create(b, loc, threadsPerRow, kb->constant(5));
    Value have = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, warps);
    SmallVector<Type> types;
    for (Value v : acc)
      types.push_back(v.getType());
    auto load = scf::IfOp::create(b, loc, types, have, true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&load.getThenRegion().front());
      SmallVector<Value> vals;
      for (Value s : scratch)
        vals.push_back(memref::LoadOp::create(b, loc, s, ValueRange{asIndex(ty), asIndex(lane)}));
      scf::YieldOp::create(b, loc, vals);
      b.setInsertionPointToStart(&load.getElseRegion().front());
      scf::YieldOp::create(b, loc, r.identity(b, loc, 1));
    }
    SmallVector<Value> w = butterfly(SmallVector<Value>(load.getResults()));
    // The scratch is rewritten by the next reduction or row.
    gpu::BarrierOp::create(b, loc);
    return w;
  };
  if (staticThreads > 32)
    return crossWarps();
  // Threads per row known at launch: the branch is the same for the block.
  Value many = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, threadsPerRow,
                                     kb->constant(32));
  SmallVector<Type> types;
  for (Value v : acc)
    types.push_back(v.getType());
  auto ifOp = scf::IfOp::create(b, loc, types, many, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  {
    ExprScope scope(*kb->expander);
    scf::YieldOp::create(b, loc, crossWarps());
  }
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scf::YieldOp::create(b, loc, acc);
  return SmallVector<Value>(ifOp.getResults());
}

//===----------------------------------------------------------------------===//
// Inner kernels: a block walks rows
//===----------------------------------------------------------------------===//

SmallVector<unsigned> ReductionScheduler::memoryOrder(ArrayRef<int> dimClass) {
  // A plain reduction whose inputs are contiguous along a kept dim (a
  // transposed view, a permute of a dense tensor) rather than along the
  // last reduced one: iterate with that kept dim last, so that it is the
  // lane dim and the outer kernel's threads run along it (coalesced),
  // instead of an inner kernel's threads striding across rows. Decided by
  // the bytes the inputs read: the dim each leaf is contiguous along (a
  // constant coefficient 1) gets its element size; the last live dim keeps
  // its place unless another dim has more.
  if (info.kind != GroupKind::Reduction || refRank < 2)
    return {};
  SmallVector<int64_t> bytes(refRank, 0);
  llvm::DenseSet<std::pair<Value, AffineExpr>> seen;
  for (auto &[v, off] : leafOffsets) {
    if (!seen.insert({v, off}).second)
      continue;
    auto c = linearCoefficients(off, refRank);
    if (!c)
      continue;
    for (unsigned k = 0; k < refRank; ++k) {
      auto one = dyn_cast<AffineConstantExpr>(simplify((*c)[k + 1], 0, numSymbols));
      if (one && one.getValue() == 1) {
        bytes[k] += byteSize(elementTypeOf(v));
        break;
      }
    }
  }
  int last = -1;
  for (unsigned k = 0; k < refRank; ++k) {
    auto c = ShapeAnalysis::constantValue(refShape[k]);
    if (!c || *c != 1)
      last = k;
  }
  if (last < 0 || dimClass[last] == 0)
    return {};
  unsigned best = last;
  for (unsigned k = 0; k < refRank; ++k)
    if (dimClass[k] == 0 && bytes[k] > bytes[best])
      best = k;
  if (best == (unsigned)last)
    return {};
  SmallVector<unsigned> order;
  for (unsigned k = 0; k < refRank; ++k)
    if (k != best)
      order.push_back(k);
  order.push_back(best);
  return order;
}

void ReductionScheduler::emitInnerRow(unsigned lanes, Value row, Value valid, Value tx,
                                      Value ty, Value threadsPerRow, int64_t staticThreads,
                                      bool persistent, ArrayRef<SmallVector<Value>> scratch,
                                      Value split, OuterAccs *outerAccs) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  unsigned q = numIterDims;
  SmallVector<Value> rowValues(q);
  assignIterValues(row, keptIter, rowValues);
  Value k = kb->expander->expand(reducedSize);
  Value lanesV = kb->constant(lanes);
  Value units = arith::DivUIOp::create(b, loc, k, lanesV);
  // A row past the last one (the block's rows overrun the tensor) takes
  // part in the shuffles and barriers but loads nothing.
  rowMask = staticThreads && rowsPerBlock(staticThreads, persistent) == 1 ? Value() : valid;
  // A split row: this block walks units [first, last) of it.
  Value firstUnit = tx, lastUnit = units;
  if (split) {
    Value chunk = arith::CeilDivUIOp::create(b, loc, units,
                                             kb->gridDim(gpu::Dimension::y));
    Value start = arith::MinUIOp::create(b, loc, units,
                                         arith::MulIOp::create(b, loc, split, chunk));
    firstUnit = arith::AddIOp::create(b, loc, start, tx);
    lastUnit = arith::MinUIOp::create(b, loc, units,
                                      arith::AddIOp::create(b, loc, start, chunk));
  }
  known.clear();

  // Persistent rows: each thread's units, built once for the row.
  std::vector<std::unique_ptr<Unit>> unitList;
  auto makeRowUnit = [&](Value u, Value inRange) {
    return makeUnit(rowValues, arith::MulIOp::create(b, loc, u, lanesV), inRange);
  };
  bool staticLength = ShapeAnalysis::constantValue(reducedSize).has_value();
  if (persistent && staticLength) {
    int64_t staticUnits = *ShapeAnalysis::constantValue(reducedSize) / lanes;
    // A row longer than the registers hold: units past the first
    // rowValuesInRegisters values of a thread keep their loads in shared
    // memory (RowInShared.cpp).
    int64_t slots = (staticUnits + staticThreads - 1) / staticThreads;
    int64_t inRegisters = rowValuesInRegisters >= 0 ? rowValuesInRegisters / lanes : slots;
    rowSharedSlots = std::max<int64_t>(0, slots - inRegisters);
    rowThreads = staticThreads;
    rowThreadsValue = threadsPerRow;
    rowTx = tx;
    int64_t j = 0;
    for (int64_t first = 0; first < staticUnits; first += staticThreads, ++j) {
      // Unit j of this thread: tx + j*T; the last may run past the row.
      // Past the row it loads nothing, or, where registers are tightest
      // (64-bit indices, more than 16 values a thread), it loads the row's
      // last unit again: the same sector, which costs no memory traffic
      // but saves the mask's registers.
      Value u = arith::AddIOp::create(b, loc, tx, kb->constant(j * staticThreads));
      Value inRange;
      bool clamp = kb->idxTy.getIntOrFloatBitWidth() == 64 &&
                   (staticUnits + staticThreads - 1) / staticThreads * lanes > 16;
      if (first + staticThreads > staticUnits) {
        inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, u, units);
        if (clamp)
          u = arith::MinUIOp::create(b, loc, u, kb->constant(staticUnits - 1));
      }
      auto unit = makeRowUnit(u, inRange);
      unit->masked = inRange && !clamp;
      unit->slot = j;
      if (j >= inRegisters)
        unit->sharedSlot = j - inRegisters;
      unitList.push_back(std::move(unit));
    }
  } else if (persistent) {
    // Row length and threads known at launch: a fixed number of slots per
    // thread, those past the row masked (the plan picks the threads so
    // that the row fills at least half of them). Masked loads, not clamped
    // units: the slots' addresses then stay one base plus a stride.
    int64_t perThread = valuesPerThread ? valuesPerThread
                                        : dynamicValuesPerThread(kb->idxTy.getIntOrFloatBitWidth());
    int64_t slots = perThread / lanes;
    int64_t inRegisters = rowValuesInRegisters >= 0 ? rowValuesInRegisters / lanes : slots;
    rowSharedSlots = std::max<int64_t>(0, slots - inRegisters);
    rowThreads = staticThreads ? staticThreads : kMaxDynamicThreads;
    rowThreadsValue = threadsPerRow;
    rowTx = tx;
    for (int64_t j = 0; j < slots; ++j) {
      Value u = arith::AddIOp::create(
          b, loc, tx, arith::MulIOp::create(b, loc, threadsPerRow, kb->constant(j)));
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, u, units);
      auto unit = makeRowUnit(u, inRange);
      unit->masked = true;
      unit->slot = j;
      if (j >= inRegisters)
        unit->sharedSlot = j - inRegisters;
      unitList.push_back(std::move(unit));
    }
  }

  auto sGuard = [&](Value inRange) {
    return inRange ? arith::AndIOp::create(b, loc, valid, inRange).getResult() : valid;
  };
  // Outputs of S that no reduction feeds are written in the first pass.
  auto writePrologueOutputs = [&](Value inRange) {
    for (Value out : sOutputs)
      if (!dependsOnReduction.contains(out))
        storeOutput(out, sOutputIndex(out), lanes, sGuard(inRange));
  };

  // Between passes a persistent row of more than 16 values per thread
  // keeps only what it loaded: values computed from the loads are computed
  // again, which keeps the registers held across a pass to the row itself
  // (in the input's own type: a bf16 row takes half the registers). Shorter
  // rows keep everything (softmax's exponentials are not computed twice),
  // unless the registers also hold column accumulators (inner-outer).
  bool keepComputed = unitList.size() * lanes <= 16 && !unitList.empty() && staticLength &&
                      !outerAccs;
  auto forgetComputed = [&] {
    for (auto &u : unitList)
      forgetPass(*u, keepComputed);
  };

  for (unsigned lvl = 0; lvl < numLevels; ++lvl) {
    if (lvl > 0)
      forgetComputed();
    SmallVector<unsigned> rs = reducersAtLevel(lvl);
    SmallVector<SmallVector<Value>> accs;
    for (unsigned i : rs)
      accs.push_back(reducers[i].identity(b, loc, lanes));
    auto accumulateAll = [&](Value inRange) {
      for (auto [n, i] : llvm::enumerate(rs)) {
        Lanes x = emit(reducers[i].op->getOperand(0), sIndex(), lanes);
        SmallVector<Value> next =
            reducers[i].accumulate(b, loc, accs[n], materialize(x, lanes));
        if (inRange) {
          SmallVector<Value> sel;
          for (auto [nv, ov] : llvm::zip(next, accs[n]))
            sel.push_back(arith::SelectOp::create(b, loc, inRange, nv, ov));
          next = sel;
        }
        accs[n] = next;
      }
    };
    if (persistent) {
      for (auto &u : unitList)
        withUnit(*u, [&] {
          accumulateAll(u->inRange);
          if (lvl == 0)
            writePrologueOutputs(u->inRange);
        });
    } else {
      SmallVector<Value> init;
      for (auto &a : accs)
        init.append(a.begin(), a.end());
      auto loop = scf::ForOp::create(b, loc, firstUnit, lastUnit, threadsPerRow, init);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(loop.getBody());
        ExprScope scope(*kb->expander);
        SmallVector<Value> saved = iterValues;
        iterValues = rowValues;
        assignIterValues(arith::MulIOp::create(b, loc, loop.getInductionVar(), lanesV),
                         reducedIter, iterValues);
        memo.clear();
        unsigned pos = 0;
        for (auto &a : accs)
          for (Value &v : a)
            v = loop.getRegionIterArgs()[pos++];
        accumulateAll(Value());
        if (lvl == 0)
          writePrologueOutputs(Value());
        SmallVector<Value> yields;
        for (auto &a : accs)
          yields.append(a.begin(), a.end());
        scf::YieldOp::create(b, loc, yields);
        memo.clear();
        iterValues = saved;
      }
      unsigned pos = 0;
      for (auto &a : accs)
        for (Value &v : a)
          v = loop.getResult(pos++);
    }
    // Combine lanes, then threads, then finish each reduction.
    unsigned partial = 0;
    for (auto [n, i] : llvm::enumerate(rs)) {
      const Reducer &r = reducers[i];
      SmallVector<Value> acc = r.reduceLanes(b, loc, accs[n]);
      acc = blockReduce(r, acc, scratch[i], tx, ty, threadsPerRow, staticThreads);
      if (split) {
        // Partials [split][row] per accumulator value; the last block of
        // the row to arrive finishes the reduction (below).
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tx,
                                            kb->constant(0));
        auto store = scf::IfOp::create(b, loc, TypeRange{},
                                       arith::AndIOp::create(b, loc, first, valid), false);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&store.getThenRegion().front());
        Value at = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, split, kb->expander->expand(keptSize)), row);
        for (Value v : acc)
          kb->store(kb->extraPointer(partial++), v, at, /*crossBlock=*/true);
        continue;
      }
      SmallVector<Value> results = r.finalize(b, loc, acc, k);
      for (auto [res, v] : llvm::zip(r.op->getResults(), results))
        known[res] = Lanes{v, true};
    }
    if (split)
      lastBlockFinishRow(row, rowValues, valid, tx, k);
  }

  // Outputs that depend on the reductions: a last pass over the row.
  // The column reductions of an inner-outer kernel accumulate in it too.
  bool anyLate = outerAccs ||
                 llvm::any_of(sOutputs, [&](Value o) { return dependsOnReduction.contains(o); });
  if (anyLate) {
    auto writeLate = [&](Value inRange) {
      for (Value out : sOutputs)
        if (dependsOnReduction.contains(out))
          storeOutput(out, sOutputIndex(out), lanes, sGuard(inRange));
    };
    if (persistent) {
      forgetComputed();
      for (auto [j, u] : llvm::enumerate(unitList))
        withUnit(*u, [&] {
          writeLate(u->inRange);
          if (outerAccs)
            accumulateOuter(*outerAccs, j, lanes, valid, u->inRange);
        });
    } else {
      auto loop = scf::ForOp::create(b, loc, tx, units, threadsPerRow);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      ExprScope scope(*kb->expander);
      SmallVector<Value> saved = iterValues;
      iterValues = rowValues;
      assignIterValues(arith::MulIOp::create(b, loc, loop.getInductionVar(), lanesV),
                       reducedIter, iterValues);
      memo.clear();
      writeLate(Value());
      if (outerAccs)
        accumulateOuterInMemory(*outerAccs, loop.getInductionVar(), lanes, valid);
      memo.clear();
      iterValues = saved;
    }
  }
  rowMask = Value();
  // Reduced outputs: one thread of the row writes them.
  if (!rOutputs.empty() && !split) {
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tx, kb->constant(0));
    Value guard = arith::AndIOp::create(b, loc, first, valid);
    SmallVector<Value> saved = iterValues;
    iterValues = rowValues;
    memo.clear();
    for (Value out : rOutputs)
      storeOutput(out, rIndex(out), 1, guard);
    memo.clear();
    iterValues = saved;
  }
}

void ReductionScheduler::emitInner(unsigned indexBits, int64_t staticThreads,
                                   bool persistent, bool split, Bodies bodies) {
  SmallVector<unsigned> symbols = segmentSymbols(fe.shapes, seg);
  SmallVector<Value> inputs = orderedInputs(seg);
  // A split kernel's blocks write partials; the last block of a row to
  // finish writes its reduced outputs. An inner-outer kernel writes its
  // column partials; the combine kernel writes the column outputs.
  SmallVector<Value> outputs;
  for (Value o : seg.outputs)
    if (!llvm::is_contained(oOutputs, o))
      outputs.push_back(o);
  int64_t blockRows = staticThreads ? rowsPerBlock(staticThreads, persistent) : 0;
  SmallVector<Value> extras;
  if (hasOuter()) {
    extras.assign(outerPartials.begin(), outerPartials.end());
  } else if (split) {
    extras.assign(partials.begin(), partials.end());
    extras.push_back(splitCounters);
  }
  KernelBuilder k(fe, fe.newKernelName(), indexBits, inputs, outputs, symbols,
                  /*numFlags=*/1, /*blockSize=*/{}, extras);
  rowBuffers.clear();
  invariantBuffers.clear();
  if (hasOuter() && persistent && outerInShared) {
    // An input the rows share (layer_norm's weight: no kept dim in any of
    // its offsets) is not marked noalias: the row loop's barriers may then
    // write it, so LLVM does not hoist its loads and their f32 conversions
    // out of the loop, where they held 32 registers a thread across every
    // row (H = 16384 bf16 spilled 92 bytes). A static row keeps it in
    // shared memory across rows instead (keepInvariantsInShared); at a
    // length known at launch every row reads it again (L1 and L2 hits; the
    // emulator's traffic count, which counts requests, shows them).
    for (auto [i, in] : llvm::enumerate(inputs)) {
      if (sharedByRows(in, /*movesAlongRow=*/false)) {
        k.func.removeArgAttr(i, "llvm.noalias");
        k.func.removeArgAttr(i, "llvm.readonly");
      }
    }
  }
  // Threads per row times rows per block when the plan chooses them: up to
  // 1024 to hold a row in registers, else up to 512 (leaving a thread up to
  // 128 registers for its accumulators).
  int64_t maxDynamicThreads = outerInShared     ? kInnerOuterSharedThreads
                              : outerBlockLimit ? outerBlockLimit
                                                : kMaxDynamicThreads;
  k.setMaxThreadsPerBlock(staticThreads ? staticThreads * blockRows : maxDynamicThreads);
  if (hasOuter() && persistent && fe.schedule.get(ScheduleKey::InnerOuterMaxRegisters))
    k.capRegisters(*fe.schedule.get(ScheduleKey::InnerOuterMaxRegisters));
  kb = &k;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  indexByIteration(k);
  iterValues.assign(numIterDims, Value());
  Value splitIndex = split ? k.blockId(gpu::Dimension::y) : Value();
  // Scratch of the block reductions: [rows of the block][warps] per value.
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::GPUDialect::getWorkgroupAddressSpace());
  SmallVector<SmallVector<Value>> scratch;
  for (const Reducer &r : reducers) {
    SmallVector<Value> s;
    if (staticThreads != 32)
      for (Type t : r.accTypes)
        s.push_back(k.func.addWorkgroupAttribution(
            MemRefType::get({16, 32}, t, MemRefLayoutAttrInterface(), workgroup), loc));
    scratch.push_back(s);
  }
  // Inner-outer, rows on chip: each thread's column slots, and where a
  // block's rows of threads meet (one buffer per accumulator type, a slot
  // per column of the row).
  int64_t perThread = valuesPerThread ? valuesPerThread : dynamicValuesPerThread(indexBits);
  auto slotsOf = [&](unsigned lanes) -> unsigned {
    if (auto c = ShapeAnalysis::constantValue(reducedSize))
      return (*c / lanes + staticThreads - 1) / staticThreads;
    return perThread / lanes;
  };
  SmallVector<Value> stage, sharedAccs;
  if (hasOuter() && persistent && outerInShared) {
    // The column accumulators in shared memory, one buffer per value (one
    // row of threads a block: each thread owns its slots, no barriers).
    int64_t columns = staticThreads ? slotsOf(vectorLanes) * staticThreads * vectorLanes
                                    : perThread * kInnerOuterSharedThreads;
    for (const Reducer &r : outerReducers)
      for (Type t : r.accTypes)
        sharedAccs.push_back(k.func.addWorkgroupAttribution(
            MemRefType::get({columns}, t, MemRefLayoutAttrInterface(), workgroup), loc));
    k.func->setAttr(kDynamicSharedAttr, UnitAttr::get(ctx));
  } else if (hasOuter() && persistent && blockRows != 1 && !outerNoStage &&
             (blockRows || outerStageFits(rowsPerBlockOf(32) * 32 * perThread))) {
    // Where a block's rows of threads meet (foldStagedRows): a buffer per
    // outer reducer, [row of threads][slot][lane][thread]. At a length
    // known at launch a block has R rows of T threads, R*T = 256, when
    // R > 1.
    int64_t values = 0;
    if (staticThreads) {
      for (unsigned lanes : {1u, vectorLanes})
        values = std::max<int64_t>(values, blockRows * slotsOf(lanes) * staticThreads * lanes);
    } else {
      values = rowsPerBlockOf(32) * 32 * perThread;
    }
    for (const Reducer &r : outerReducers)
      stage.push_back(k.func.addWorkgroupAttribution(
          MemRefType::get({values}, elementTypeOf(r.op->getOperand(0)),
                          MemRefLayoutAttrInterface(), workgroup),
          loc));
  }
  Value tx = k.threadId(gpu::Dimension::x), ty = k.threadId(gpu::Dimension::y);
  Value threads = staticThreads ? k.constant(staticThreads)
                                : arith::IndexCastUIOp::create(
                                      b, loc, k.idxTy, gpu::BlockDimOp::create(b, loc, gpu::Dimension::x))
                                      .getResult();
  Value rowsInBlock = staticThreads ? k.constant(blockRows)
                                    : arith::IndexCastUIOp::create(
                                          b, loc, k.idxTy,
                                          gpu::BlockDimOp::create(b, loc, gpu::Dimension::y))
                                          .getResult();
  Value rows = k.expander->expand(keptSize);
  Value bid = k.blockId(gpu::Dimension::x), grid = k.gridDim(gpu::Dimension::x);
  Value start = bid;
  // Testing only: blocks 2k and 2k+1 both walk block 2k's rows.
  if (hasOuter() && fe.plantBug == "inner-outer-row-map")
    start = arith::AndIOp::create(b, loc, bid, k.constant(~int64_t(1)));
  // A step: the block's rows `first` + ty, those below `end`.
  auto emitRows = [&](unsigned lanes, Value first, Value end, OuterAccs *accs) {
    Value row = arith::AddIOp::create(b, loc, first, ty);
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, end);
    // Rows past the end compute on the last row and store nothing: every
    // thread takes part in the shuffles and barriers.
    row = arith::MinUIOp::create(b, loc, row, arith::SubIOp::create(b, loc, rows, k.constant(1)));
    emitInnerRow(lanes, row, valid, tx, ty, threads, staticThreads, persistent, scratch,
                 splitIndex, accs);
  };

  auto body = [&](unsigned lanes) {
    if (!hasOuter()) {
      Value rowBlocks = arith::CeilDivUIOp::create(b, loc, rows, rowsInBlock);
      auto loop = scf::ForOp::create(b, loc, start, rowBlocks, grid);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      ExprScope scope(*k.expander);
      emitRows(lanes, arith::MulIOp::create(b, loc, loop.getInductionVar(), rowsInBlock), rows,
               nullptr);
      return;
    }
    // Inner-outer: the rows in chunks of consecutive rows (outerChunks), a
    // block's chunks one after another; each chunk's column partials add its
    // rows in row order, so they are the same for every launch shape.
    unsigned slots = persistent ? slotsOf(lanes) : 0;
    OuterAccs state;
    state.shared = sharedAccs;
    state.tx = tx;
    state.ty = ty;
    state.threads = threads;
    state.slots = slots;
    state.stage = stage;
    state.rowsInBlock = rowsInBlock;
    state.staticRows = stage.empty() ? 1 : blockRows;
    if (!stage.empty() && !blockRows)
      state.staged = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, rowsInBlock,
                                           k.constant(1));
    // Accumulators in registers: with staged rows, those of the slots a
    // thread owns (k*R + ty).
    unsigned ownedSlots = outerInShared ? 0
                          : state.staticRows > 1
                              ? (slots + state.staticRows - 1) / state.staticRows
                              : slots;
    auto [chunkRows, chunks] = outerChunks(b, loc, rows, k.expander->expand(reducedSize),
                                           [&](int64_t c) { return k.constant(c); });
    auto chunkLoop = scf::ForOp::create(b, loc, start, chunks, grid);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(chunkLoop.getBody());
    ExprScope scope(*k.expander);
    Value chunk = chunkLoop.getInductionVar();
    Value chunkFirst = arith::MulIOp::create(b, loc, chunk, chunkRows);
    Value chunkEnd =
        arith::MinUIOp::create(b, loc, rows, arith::AddIOp::create(b, loc, chunkFirst, chunkRows));
    // Every chunk's accumulators start from the reductions' identities.
    // (In shared memory: a loop over the slots, as the chunk's partials
    // below, not one unrolled per slot, whose addresses LLVM hoisted out of
    // the chunk loop: the scalar kernel spilled 60 bytes.)
    auto sharedSlotIndex = [&](Value j, unsigned l) {
      return asIndex(threadSlotIndex(k, tx, threads, j, lanes, l));
    };
    auto forEachSharedSlot = [&](function_ref<void(Value)> fn) {
      auto slotLoop = scf::ForOp::create(b, loc, k.constant(0), k.constant(slots), k.constant(1));
      OpBuilder::InsertionGuard gs(b);
      b.setInsertionPointToStart(slotLoop.getBody());
      ExprScope scopeS(*k.expander);
      fn(slotLoop.getInductionVar());
    };
    SmallVector<Value> init;
    if (outerInShared && slots) {
      forEachSharedSlot([&](Value j) {
        unsigned value = 0;
        for (const Reducer &r : outerReducers)
          for (Value v : r.identity(b, loc, lanes)) {
            for (unsigned l = 0; l < lanes; ++l)
              memref::StoreOp::create(
                  b, loc,
                  lanes > 1 ? vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{(int64_t)l})
                                  .getResult()
                            : v,
                  sharedAccs[value], ValueRange{sharedSlotIndex(j, l)});
            ++value;
          }
      });
    }
    for (unsigned j = 0; j < ownedSlots; ++j)
      for (const Reducer &r : outerReducers)
        for (Value v : r.identity(b, loc, lanes))
          init.push_back(v);
    // (A step's first row is the loop's value: fewer live registers than a
    // step count and a multiply, which the kernels at 128 registers felt.)
    auto stepLoop = scf::ForOp::create(b, loc, chunkFirst, chunkEnd, rowsInBlock, init);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(stepLoop.getBody());
      ExprScope scope2(*k.expander);
      Value first = stepLoop.getInductionVar();
      Value firstStep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, first,
                                              chunkFirst);
      OuterAccs accs = state;
      accs.values.assign(stepLoop.getRegionIterArgs().begin(), stepLoop.getRegionIterArgs().end());
      // The stage is free again: every owner has added the last step's.
      if (state.staticRows > 1) {
        gpu::BarrierOp::create(b, loc);
      } else if (state.staged) {
        auto ifStaged = scf::IfOp::create(b, loc, TypeRange{}, state.staged, false);
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(&ifStaged.getThenRegion().front());
        gpu::BarrierOp::create(b, loc);
      }
      // The rows' shared inputs in shared memory: the block's first row
      // loads them.
      if (keepInvariantsInShared && outerInShared && persistent) {
        invariantFirstRow = arith::AndIOp::create(
            b, loc, firstStep,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, chunk, start));
        invariantSlots = slots;
      }
      if (!persistent) {
        accs.firstRowBlock = firstStep;
        accs.partialRow = chunk;
      }
      emitRows(lanes, first, chunkEnd, &accs);
      invariantFirstRow = Value();
      if (!stage.empty())
        foldStagedRows(accs, lanes, first, chunkEnd);
      if (!init.empty())
        scf::YieldOp::create(b, loc, accs.values);
    }
    if (!slots)
      return;
    if (!outerInShared) {
      writeChunkPartials(state, SmallVector<Value>(stepLoop.getResults()), lanes, chunk);
      return;
    }
    // The chunk's partials from shared memory: each thread its own slots.
    Value length = k.expander->expand(reducedSize);
    Value units = arith::DivUIOp::create(b, loc, length, k.constant(lanes));
    Value at0 = arith::MulIOp::create(b, loc, chunk, length);
    forEachSharedSlot([&](Value j) {
      Value unit = arith::AddIOp::create(b, loc, tx, arith::MulIOp::create(b, loc, j, threads));
      auto store = scf::IfOp::create(
          b, loc, TypeRange{},
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, unit, units), false);
      OpBuilder::InsertionGuard gw(b);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      Value at = arith::AddIOp::create(b, loc, at0,
                                       arith::MulIOp::create(b, loc, unit, k.constant(lanes)));
      unsigned value = 0;
      for (const Reducer &r : outerReducers)
        for (Type t : r.accTypes) {
          SmallVector<Value> elems;
          for (unsigned l = 0; l < lanes; ++l)
            elems.push_back(memref::LoadOp::create(b, loc, sharedAccs[value],
                                                   ValueRange{sharedSlotIndex(j, l)}));
          Value v = lanes > 1 ? vector::FromElementsOp::create(
                                    b, loc, VectorType::get({lanes}, t), elems)
                                    .getResult()
                              : elems[0];
          k.store(k.extraPointer(value++), v, at);
        }
    });
  };
  // Vectors on every call: the scalar body would be dead code.
  if (bodies == Bodies::Both && vectorLanes > 1 && vectorsAlwaysOk())
    bodies = Bodies::VectorOnly;
  if (bodies == Bodies::VectorOnly)
    body(vectorLanes);
  else if (bodies == Bodies::ScalarOnly)
    body(1);
  else
    emitVectorOrScalar(body);
  k.finish();

  // The plan.
  OpBuilder &pb = fe.planBuilder;
  Location ploc = fe.loc;
  Value planRows = fe.planExpr(keptSize);
  Value vecOk = planVectorOk();
  Value threadsPlan, rowsPlan;
  // Threads a block aims at when rows take fewer (rowsPerBlock): the
  // `reduction.block` key for an inner kernel; 256 beside column sums.
  const int64_t innerBlock =
      hasOuter() ? 256 : fe.schedule.valueOr(ScheduleKey::ReductionBlock);
  if (staticThreads) {
    threadsPlan = fe.planConstant(staticThreads);
    rowsPlan = fe.planConstant(blockRows);
  } else if (persistent) {
    // The fewest threads (a power of two, at least 32) whose registers hold
    // the row.
    Value need = arith::CeilDivUIOp::create(pb, ploc, fe.planExpr(reducedSize),
                                            fe.planConstant(valuesPerThread ? valuesPerThread
                                                                       : dynamicValuesPerThread(indexBits)));
    // (An inner-outer kernel's rows in registers: at least
    // `innerouter.min_threads`.)
    int64_t fewest = hasOuter() && !outerInShared
                         ? std::min(maxDynamicThreads, fe.schedule.get(ScheduleKey::InnerOuterMinThreads).value_or(32))
                         : 32;
    threadsPlan = fe.planConstant(fewest);
    for (int64_t t = 2 * fewest; t <= maxDynamicThreads; t *= 2) {
      Value more = arith::CmpIOp::create(pb, ploc, arith::CmpIPredicate::ugt, need,
                                         fe.planConstant(t / 2));
      threadsPlan = arith::SelectOp::create(pb, ploc, more, fe.planConstant(t), threadsPlan);
    }
    rowsPlan = arith::MaxUIOp::create(
        pb, ploc, fe.planConstant(1),
        arith::DivUIOp::create(pb, ploc, fe.planConstant(innerBlock), threadsPlan));
  } else {
    // At least 4 units per thread: the smallest power of two >= units/4,
    // between 32 and 1024; enough rows per block for 256 threads.
    Value units = arith::CeilDivUIOp::create(pb, ploc, fe.planExpr(reducedSize),
                                             fe.planConstant(4 * vectorLanes));
    threadsPlan = fe.planConstant(32);
    for (int64_t t = 64; t <= kMaxDynamicThreads; t *= 2) {
      Value more = arith::CmpIOp::create(pb, ploc, arith::CmpIPredicate::ugt, units,
                                         fe.planConstant(t / 2));
      threadsPlan = arith::SelectOp::create(pb, ploc, more, fe.planConstant(t), threadsPlan);
    }
    rowsPlan = arith::MaxUIOp::create(
        pb, ploc, fe.planConstant(1),
        arith::DivUIOp::create(pb, ploc, fe.planConstant(innerBlock), threadsPlan));
  }
  // (One row of threads where the kernel has no stage for more.)
  if (hasOuter() && (!persistent || outerInShared || outerNoStage ||
                     (!staticThreads && !outerStageFits(rowsPerBlockOf(32) * 32 * perThread))))
    rowsPlan = fe.planConstant(1);
  Value blockThreads = arith::MulIOp::create(pb, ploc, threadsPlan, rowsPlan);
  // At most `reduction.waves` full waves; blocks loop over the rows.
  Value maxBlocks = arith::MulIOp::create(
      pb, ploc,
      fe.planConstant(fe.target.smCount *
                      (hasOuter() ? 1 : fe.schedule.valueOr(ScheduleKey::ReductionWaves))),
      arith::DivUIOp::create(pb, ploc, fe.planConstant(fe.target.maxThreadsPerSM), blockThreads));
  Value blocks = hasOuter() ? outerGrid
                            : arith::MinUIOp::create(
                                  pb, ploc, arith::CeilDivUIOp::create(pb, ploc, planRows, rowsPlan),
                                  maxBlocks)
                                  .getResult();
  Value cond = arith::CmpIOp::create(pb, ploc, arith::CmpIPredicate::sgt, planRows,
                                     fe.planConstant(0));
  if (variantCondition)
    cond = arith::AndIOp::create(pb, ploc, cond, variantCondition);
  Value flag = arith::IndexCastUIOp::create(pb, ploc, pb.getIndexType(), vecOk);
  if (split)
    k.launch({blocks, splitsValue}, {threadsPlan, rowsPlan}, Value(), cond, {flag});
  else
    k.launch({blocks}, {threadsPlan, rowsPlan}, Value(), cond, {flag});
  kb = nullptr;
}

//===----------------------------------------------------------------------===//
// Outer kernels: threads along a kept dim
//===----------------------------------------------------------------------===//

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

void ReductionScheduler::emitVectorOrScalar(function_ref<void(unsigned)> body) {
  KernelBuilder &k = *kb;
  OpBuilder &b = k.b;
  if (vectorLanes == 1) {
    body(1);
    return;
  }
  Value isVector = arith::CmpIOp::create(b, k.loc, arith::CmpIPredicate::ne, k.flag(0),
                                         arith::ConstantIntOp::create(b, k.loc, 0, 32));
  auto ifOp = scf::IfOp::create(b, k.loc, TypeRange{}, isVector, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  {
    ExprScope scope(*k.expander);
    body(vectorLanes);
  }
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  {
    ExprScope scope(*k.expander);
    body(1);
  }
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

std::unique_ptr<ReductionScheduler::Unit>
ReductionScheduler::makeUnit(ArrayRef<Value> base, Value reducedLinear, Value inRange) {
  auto unit = std::make_unique<Unit>();
  unit->values.assign(base.begin(), base.end());
  unit->inRange = inRange;
  Unit *raw = unit.get();
  unit->expander = std::make_unique<ExprExpander>(
      kb->b, kb->loc, kb->idxTy, [raw](unsigned j) { return raw->values[j]; },
      [this](unsigned s) { return kb->symbol(s); }, /*hoistSymbolic=*/true);
  std::swap(kb->expander, unit->expander);
  assignIterValues(reducedLinear, reducedIter, unit->values);
  std::swap(kb->expander, unit->expander);
  return unit;
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
  k.launch({gridPlan, splitsPlan}, {outerX, outerY}, Value(), condPlan, {flagPlan});
  kb = nullptr;
}

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
  k.launch({gridPlan}, {kCombineColumns, kCombineGroups}, Value(), condPlan, {splitsPlan});
  kb = nullptr;
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

bool ReductionScheduler::vectorsAlwaysOk() const {
  for (auto &[buf, bytes] : alignment)
    if (!fe.alignmentPromised(fe.buffers.lookup(buf)))
      return false;
  for (AffineExpr e : divisibility) {
    std::optional<int64_t> n = ShapeAnalysis::constantValue(e);
    if (!n || *n % vectorLanes != 0)
      return false;
  }
  return true;
}

Value ReductionScheduler::planVectorOk() {
  OpBuilder &pb = fe.planBuilder;
  Value ok = arith::ConstantIntOp::create(pb, fe.loc, 1, 1);
  if (vectorLanes == 1)
    return ok;
  for (AffineExpr e : divisibility) {
    Value rem = arith::RemUIOp::create(pb, fe.loc, fe.planExpr(e), fe.planConstant(vectorLanes));
    ok = arith::AndIOp::create(
        pb, fe.loc, ok,
        arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::eq, rem, fe.planConstant(0)));
  }
  for (auto &[buf, bytes] : alignment)
    ok = arith::AndIOp::create(pb, fe.loc, ok,
                               fe.planAligned(fe.buffers.lookup(buf), bytes));
  return ok;
}

LogicalResult ReductionScheduler::run() {
  ref = info.reductions.front()->getOperand(0);
  refShape = info.space;
  refRank = refShape.size();
  for (Operation *r : info.reductions)
    reducers.emplace_back(r);
  for (Operation *r : info.outerReductions)
    outerReducers.emplace_back(r);
  dimClass.assign(refRank, 0);
  for (int64_t d : info.reducedDims)
    dimClass[d] = 1;

  // Which values depend on a reduction, and each reduction's pass: one more
  // than the passes of the reductions its input needs.
  for (Operation *op : seg.ops) {
    bool dep = isReductionOp(op) ||
               llvm::any_of(op->getOperands(), [&](Value v) { return dependsOnReduction.contains(v); });
    if (dep)
      for (Value r : op->getResults())
        dependsOnReduction.insert(r);
  }
  // (The column reductions of an inner-outer group accumulate in the last
  // pass, after every row reduction.)
  llvm::DenseSet<Value> dependsOnOuter;
  for (Operation *op : seg.ops) {
    bool dep = llvm::is_contained(info.outerReductions, op) ||
               llvm::any_of(op->getOperands(), [&](Value v) { return dependsOnOuter.contains(v); });
    if (dep)
      for (Value r : op->getResults())
        dependsOnOuter.insert(r);
  }
  DenseMap<Value, unsigned> passOf; // of values: the pass after which they exist
  for (Operation *op : seg.ops) {
    unsigned p = 0;
    for (Value v : op->getOperands())
      p = std::max(p, passOf.lookup(v));
    if (llvm::is_contained(info.reductions, op)) {
      level.push_back(p);
      numLevels = std::max(numLevels, p + 1);
      ++p;
    }
    for (Value r : op->getResults())
      passOf[r] = p;
  }
  for (Value out : seg.outputs)
    (dependsOnOuter.contains(out)                      ? oOutputs
     : ArrayRef(shapeOf(out)) == ArrayRef(refShape) || info.sViews.contains(out) ? sOutputs
                                                      : rOutputs)
        .push_back(out);

  // Symbolic analysis from everything the kernel evaluates.
  for (const Reducer &r : reducers)
    analyze(r.op->getOperand(0), sIndex());
  for (Value out : sOutputs)
    analyze(out, sOutputIndex(out));
  for (Value out : rOutputs)
    analyze(out, rIndex(out));
  for (const Reducer &r : outerReducers)
    analyze(r.op->getOperand(0), sIndex());
  for (Value out : oOutputs)
    analyze(out, oIndex(out));
  planIterationSpace(dimClass, memoryOrder(dimClass));
  // Classes of the iteration dims.
  SmallVector<int> iterClass(numIterDims, 0);
  for (unsigned d = 0; d < refRank; ++d)
    if (auto m = dyn_cast<AffineDimExpr>(dimSubstitution[d]))
      iterClass[m.getPosition()] = dimClass[d];
  keptSize = getAffineConstantExpr(1, ctx);
  reducedSize = getAffineConstantExpr(1, ctx);
  for (unsigned j = 0; j < numIterDims; ++j) {
    if (iterClass[j]) {
      reducedIter.push_back(j);
      reducedSize = reducedSize * iterSizes[j];
    } else {
      keptIter.push_back(j);
      keptSize = keptSize * iterSizes[j];
    }
  }
  keptSize = simplify(keptSize, 0, numSymbols);
  reducedSize = simplify(reducedSize, 0, numSymbols);
  // Reduced dims all of size 1 leave no reduced iteration dim: each row is
  // one element, an inner kernel without lanes handles it.
  innerStyle = numIterDims == 0 || iterClass.back() == 1 || reducedIter.empty();
  if (info.kind == GroupKind::InnerOuter && !innerStyle)
    return seg.ops.front()->emitOpError(
        "row reductions along a dim that is not the fastest-varying one beside "
        "column reductions are not supported by the kernel emitter");
  bool outerNormalization = info.kind == GroupKind::Normalization && !innerStyle;
  if (outerNormalization && !ShapeAnalysis::constantValue(reducedSize))
    return seg.ops.front()->emitOpError(
        "normalization along non-trailing dims needs a reduced extent known at compile time");

  // Lanes along the fastest-varying dim: 16 bytes of the narrowest type
  // accessed contiguously; every other term of a contiguous access must be a
  // multiple of the lanes, and rows of the lane dim whole units.
  unsigned narrowest = 16;
  SmallVector<std::pair<Value, AffineExpr>> contiguous;
  if (numIterDims > 0) {
    for (Value out : sOutputs)
      contiguous.push_back({out, toIteration(linearIndex(out, sOutputIndex(out)))});
    if (!innerStyle)
      for (Value out : rOutputs)
        contiguous.push_back({out, toIteration(linearIndex(out, rIndex(out)))});
    for (auto &[v, off] : leafOffsets) {
      AffineExpr o = toIteration(off);
      if (laneStride(o) == std::optional<int64_t>(1))
        contiguous.push_back({v, o});
    }
  }
  for (auto &[v, o] : contiguous)
    narrowest = std::min(narrowest, byteSize(elementTypeOf(v)));
  narrowestBytes = narrowest;
  vectorLanes = numIterDims == 0 ? 1 : std::min(16u / narrowest, 8u);
  if (numIterDims > 0) {
    AffineExpr inner = iterSizes.back();
    if (auto c = ShapeAnalysis::constantValue(inner)) {
      while (vectorLanes > 1 && *c % vectorLanes)
        vectorLanes /= 2;
    } else {
      divisibility.push_back(inner);
    }
  }
  for (auto &[v, off] : contiguous) {
    auto c = linearCoefficients(off, numIterDims);
    if (!c) {
      vectorLanes = 1;
      break;
    }
    for (unsigned j = 0; j < numIterDims; ++j) {
      AffineExpr term = simplify((*c)[j], 0, numSymbols);
      if (!isMultipleOf(term, vectorLanes))
        divisibility.push_back(term);
    }
    alignment.push_back({v, std::min(16u, vectorLanes * byteSize(elementTypeOf(v)))});
  }
  for (AffineExpr e : divisibility)
    if (ShapeAnalysis::constantValue(e))
      vectorLanes = 1;
  if (reducedIter.empty())
    vectorLanes = 1;
  if (vectorLanes == 1) {
    divisibility.clear();
    alignment.clear();
  }
  llvm::MapVector<Value, unsigned> align;
  for (auto &[v, bytes] : alignment)
    align[v] = std::max(align[v], bytes);
  alignment.assign(align.begin(), align.end());

  AffineExpr maxElements = maxElementsWith(getAffineConstantExpr(1, ctx) * keptSize * reducedSize);
  SmallVector<unsigned> widths = fe.indexWidths(maxElements);
  Value fits32 = widths.size() > 1 ? fe.planFitsIn32Bits(maxElements) : Value();

  std::optional<int64_t> staticK = ShapeAnalysis::constantValue(reducedSize);
  std::optional<int64_t> staticRows = ShapeAnalysis::constantValue(keptSize);
  OpBuilder &pb = fe.planBuilder;
  // Blocks a split reduction aims at, and the rows below which an inner one
  // splits: constants, not the chip's SM count (2 x 132 on sm_90 before),
  // so that a split sum adds its partials in the same order on every chip.
  int64_t tilesTarget = kSplitBlocksTarget;
  // A narrow kept dim (a channels-last norm's 32 channels are 4 units of 8
  // bf16) would leave most of 32 threads along it without a column: they
  // would repeat the last column's loads. The block then has as many
  // threads along it as it has units (a power of two), and the rest of 256
  // (at most 32) along the reduced dims.
  if (!innerStyle && staticRows) {
    int64_t units = std::max<int64_t>(1, (*staticRows + vectorLanes - 1) / vectorLanes);
    outerX = std::min<int64_t>(kOuterX, (int64_t)llvm::PowerOf2Ceil(units));
    outerY = std::min<int64_t>(32, kOuterX * kOuterY / outerX);
  }
  if (outerNormalization && failed(planOuterNormalization(*staticK, staticRows)))
    return failure();
  bool split = !innerStyle && !outerNormalization &&
               (!staticRows || !staticK ||
                ((*staticRows / vectorLanes + outerX - 1) / outerX < tilesTarget &&
                 *staticK >= 8 * outerY));
  if (hasOuter()) {
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
  for (unsigned w : widths) {
    variantCondition = Value();
    rowValuesInRegisters = -1;
    if (fits32)
      variantCondition = w == 32 ? fits32
                                 : arith::XOrIOp::create(pb, fe.loc, fits32,
                                                         arith::ConstantIntOp::create(pb, fe.loc, 1, 1))
                                       .getResult();
    if (hasOuter()) {
      emitInnerOuter(w);
      continue;
    }
    if (innerStyle) {
      int64_t threads = 0;
      bool persistent = false;
      // Rows whose held inputs are all two bytes wide (bf16, f16): a
      // thread's loads pack two values to a register, so 512 threads (128
      // registers each) hold up to 96 values, 72 beside more than one other
      // operand (layer_norm's weight and bias): rows of up to 49152 and
      // 36864 elements, 32-bit indices (test/examples/norm-sizes-ptxas.test).
      // At 104 values rms_norm spilled 4 bytes, at 80 layer_norm 20; 1024
      // threads of 64 values (64 registers each) spilled 236 in softmax.
      // (One input of the row's shape: two would hold twice the values.)
      auto isRow = [&](Value in) { return ArrayRef(shapeOf(in)) == ArrayRef(refShape); };
      bool halfRow = info.kind == GroupKind::Normalization &&
                     llvm::count_if(seg.inputs, isRow) == 1 &&
                     llvm::all_of(seg.inputs, [&](Value in) {
                       return !isRow(in) || byteSize(elementTypeOf(in)) <= 2;
                     });
      int64_t halfLimit = seg.inputs.size() <= 2 ? kPersistentHalfValuesPerThread
                                                 : kPersistentHalfValuesPerThreadBeside;
      if (staticK) {
        // Threads per row: at least 4 units each, a power of two in
        // [32, 1024]; a normalization keeps the row in registers when each
        // thread's share fits, raising the thread count if needed.
        int64_t units = std::max<int64_t>(1, *staticK / vectorLanes);
        threads = 32;
        while (threads < 1024 && threads * 4 < units)
          threads *= 2;
        if (info.kind == GroupKind::Normalization) {
          int64_t perThread = (units + threads - 1) / threads * vectorLanes;
          while (threads < 1024 && perThread > kPersistentValuesPerThread) {
            threads *= 2;
            perThread = (units + threads - 1) / threads * vectorLanes;
          }
          persistent = perThread <= kPersistentValuesPerThread;
          int64_t halfPerThread = (units + 511) / 512 * vectorLanes;
          if (!persistent && halfRow && w == 32 && halfPerThread <= halfLimit) {
            threads = 512;
            perThread = halfPerThread;
            persistent = true;
          }
          // Longer ones, up to 65536 elements: the values past 64 a thread
          // (40 beside a weight and a bias) in shared memory, 64 KB for
          // softmax's 65536 (88 KB for layer_norm's), stored by the first
          // pass and read by the later ones (RowInShared.cpp).
          int64_t inRegisters = halfLimit - kRowInSharedRegisterRelief;
          int64_t sharedBytes = 512 * (halfPerThread - inRegisters) * 2;
          for (const Reducer &r : reducers)
            sharedBytes += 16 * 32 * 4 * r.accTypes.size();
          if (!persistent && halfRow && w == 32 &&
              halfPerThread <= kPersistentHalfRowValuesPerThread &&
              sharedBytes <= (int64_t)fe.target.sharedMemoryPerBlock) {
            threads = 512;
            perThread = halfPerThread;
            persistent = true;
            rowValuesInRegisters = inRegisters;
          }
          // 64-bit indices leave a thread of 1024 (64 registers) too few
          // for more than 16 values: the row is read again per pass (a
          // tensor of 2^31 elements and more; 12 bytes of spills otherwise,
          // test/examples/examples-ptxas.test).
          if (w == 64 && threads == 1024 && perThread > 16)
            persistent = false;
        }
      }
      // Fewer rows than SMs (a block of 1024 threads per row would leave
      // SMs idle): each row splits across blocks; the last block of a row
      // to finish combines the partials in split order.
      int64_t fewRows = kSplitBlocksTarget / 2;
      bool maySplit = info.kind == GroupKind::Reduction && numLevels == 1 &&
                      (!staticRows || *staticRows < fewRows) &&
                      (!staticK || *staticK >= kInnerSplitMinLength);
      bool mustSplit = maySplit && staticRows && staticK;
      Value splitCond;
      if (maySplit && !splitsValue) {
        Value rows = fe.planExpr(keptSize), length = fe.planExpr(reducedSize);
        splitCond = arith::AndIOp::create(
            pb, fe.loc,
            arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::ult, rows,
                                  fe.planConstant(fewRows)),
            arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::uge, length,
                                  fe.planConstant(kInnerSplitMinLength)));
        // Splits: two waves of blocks, each block at least 32 elements per
        // thread; one split (and no partials) when the variant is not taken.
        // (rows may be 0 at launch: the kernels are not launched then, but
        // the plan still computes this)
        Value wanted = arith::CeilDivUIOp::create(
            pb, fe.loc, fe.planConstant(tilesTarget),
            arith::MaxUIOp::create(pb, fe.loc, rows, fe.planConstant(1)));
        Value most = arith::CeilDivUIOp::create(
            pb, fe.loc, length, fe.planConstant(kInnerSplitThreads * 32));
        splitsValue = arith::SelectOp::create(
            pb, fe.loc, splitCond, arith::MinUIOp::create(pb, fe.loc, wanted, most),
            fe.planConstant(1));
        Value size = arith::SelectOp::create(
            pb, fe.loc, splitCond, arith::MulIOp::create(pb, fe.loc, splitsValue, rows),
            fe.planConstant(0));
        for (const Reducer &r : reducers)
          for (Type t : r.accTypes)
            partials.push_back(memref::AllocOp::create(
                pb, fe.loc, MemRefType::get({ShapedType::kDynamic}, t), ValueRange{size}));
        // One arrival counter per row, zero at launch.
        Value counterCount =
            arith::SelectOp::create(pb, fe.loc, splitCond, rows, fe.planConstant(0));
        auto counters = memref::AllocOp::create(
            pb, fe.loc, MemRefType::get({ShapedType::kDynamic}, pb.getI32Type()),
            ValueRange{counterCount});
        ZeroedOp::create(pb, fe.loc, counters);
        splitCounters = counters;
        innerSplitCond = splitCond;
      }
      Value widthCond = variantCondition;
      auto withCond = [&](Value c) {
        return widthCond ? arith::AndIOp::create(pb, fe.loc, widthCond, c).getResult() : c;
      };
      auto negate = [&](Value c) {
        return arith::XOrIOp::create(pb, fe.loc, c, arith::ConstantIntOp::create(pb, fe.loc, 1, 1))
            .getResult();
      };
      if (!staticK && info.kind == GroupKind::Normalization) {
        // Row length known at launch: rows of whole vectors stay in
        // registers, in blocks of up to 512 threads (128 registers each),
        // or with 32-bit indices and at most one other operand of 1024 (64
        // registers: rows up to 32768 elements). Other rows (not whole
        // vectors, or a misaligned buffer) stay in scalar slots with 32-bit
        // indices, kScalarValuesPerThread a thread (each slot has its own
        // mask and address). Longer rows are read again for each pass.
        Value length = fe.planExpr(reducedSize);
        int64_t perThread = dynamicValuesPerThread(w);
        auto between = [&](int64_t lo, int64_t hi) {
          return arith::AndIOp::create(
                     pb, fe.loc,
                     arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::uge, length,
                                           fe.planConstant(lo)),
                     arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::ule, length,
                                           fe.planConstant(hi)))
              .getResult();
        };
        Value keep;
        if (vectorLanes > 1) {
          Value vecOk = planVectorOk();
          int64_t small = kMaxDynamicThreads * perThread;
          Value keepSmall = arith::AndIOp::create(pb, fe.loc, vecOk, between(1, small));
          variantCondition = withCond(keepSmall);
          emitInner(w, 0, /*persistent=*/true, /*split=*/false, Bodies::VectorOnly);
          keep = keepSmall;
          if (w == 32 && seg.inputs.size() <= 2 && !halfRow) {
            // Longer rows, up to 32768 elements: 1024 threads, 64
            // registers each; not for a group with more than one operand
            // beside the row (layer_norm's weight and bias): loading both
            // for every slot of the last pass spills at 64 registers
            // (test/examples/norm-sizes-ptxas.test); not for two-byte rows
            // (below: log_softmax over f16 spilled 16 bytes here).
            Value keepLarge = arith::AndIOp::create(
                pb, fe.loc, vecOk, between(small + 1, 1024 * perThread));
            variantCondition = withCond(keepLarge);
            emitInner(w, 1024, /*persistent=*/true, /*split=*/false, Bodies::VectorOnly);
            keep = arith::OrIOp::create(pb, fe.loc, keepSmall, keepLarge);
          }
          if (w == 32 && halfRow) {
            // Longer two-byte rows, up to 65536 elements: 512 threads of
            // 128 masked values, those past 64 (40 beside a weight and a
            // bias) kept in shared memory between the passes
            // (RowInShared.cpp), as for a static length.
            Value keepLong = arith::AndIOp::create(
                pb, fe.loc, vecOk, between(small + 1, 512 * kPersistentHalfRowValuesPerThread));
            variantCondition = withCond(keepLong);
            valuesPerThread = kPersistentHalfRowValuesPerThread;
            rowValuesInRegisters = halfLimit - kRowInSharedRegisterRelief;
            emitInner(w, 512, /*persistent=*/true, /*split=*/false, Bodies::VectorOnly);
            valuesPerThread = 0;
            rowValuesInRegisters = -1;
            keep = arith::OrIOp::create(pb, fe.loc, keep, keepLong);
          }
        }
        if (w == 32) {
          Value scalars = between(1, kMaxDynamicThreads * kScalarValuesPerThread);
          if (keep)
            scalars = arith::AndIOp::create(pb, fe.loc, negate(keep), scalars);
          variantCondition = withCond(scalars);
          valuesPerThread = kScalarValuesPerThread;
          emitInner(w, 0, /*persistent=*/true, /*split=*/false, Bodies::ScalarOnly);
          valuesPerThread = 0;
          keep = keep ? arith::OrIOp::create(pb, fe.loc, keep, scalars).getResult() : scalars;
        }
        variantCondition = keep ? withCond(negate(keep)) : widthCond;
        emitInner(w, 0, /*persistent=*/false);
        continue;
      }
      if (maySplit) {
        variantCondition = mustSplit ? widthCond : withCond(innerSplitCond);
        emitInner(w, kInnerSplitThreads, /*persistent=*/false, /*split=*/true);
        if (mustSplit)
          continue;
        variantCondition = withCond(negate(innerSplitCond));
      }
      if (persistent && vectorLanes > 1 && !vectorsAlwaysOk()) {
        // The row in registers as vectors; the rare misaligned buffer reads
        // the row again per pass, in scalars (a persistent scalar body would
        // unroll four times the slots for the same registers).
        Value vecOk = planVectorOk();
        variantCondition = withCond(vecOk);
        emitInner(w, threads, /*persistent=*/true, /*split=*/false, Bodies::VectorOnly);
        variantCondition = withCond(negate(vecOk));
        emitInner(w, std::min<int64_t>(threads, kMaxDynamicThreads), /*persistent=*/false,
                  /*split=*/false, Bodies::ScalarOnly);
        continue;
      }
      emitInner(w, threads, persistent);
      continue;
    }
    // Outer: split the reduced extent across blocks when the column tiles
    // alone would leave most SMs idle and each split still has work.
    Value tiles = arith::CeilDivUIOp::create(
        pb, fe.loc, fe.planExpr(keptSize), fe.planConstant(outerX * vectorLanes));
    Value planRows = fe.planExpr(keptSize);
    Value maxBlocks = fe.planConstant(fe.target.smCount * (fe.target.maxThreadsPerSM / (outerX * outerY)));
    Value gridX = arith::MinUIOp::create(pb, fe.loc, tiles, maxBlocks);
    Value vecOk = planVectorOk();
    Value flag = arith::IndexCastUIOp::create(pb, fe.loc, pb.getIndexType(), vecOk);
    Value cond = arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::sgt, planRows,
                                       fe.planConstant(0));
    if (variantCondition)
      cond = arith::AndIOp::create(pb, fe.loc, cond, variantCondition);
    if (outerNormalization) {
      emitOuterNormalization(w, gridX, flag, cond);
      continue;
    }
    if (!split) {
      emitOuter(w, false, gridX, fe.planConstant(1), flag, cond);
      continue;
    }
    if (!splitsValue) {
      // Splits: enough blocks for two waves, at least 8 steps of the
      // reduced extent per thread row in each.
      // (gridX is 0 when nothing is kept: no launch, but no division by 0)
      Value wanted = arith::CeilDivUIOp::create(
          pb, fe.loc, fe.planConstant(tilesTarget),
          arith::MaxUIOp::create(pb, fe.loc, gridX, fe.planConstant(1)));
      Value most = arith::MaxUIOp::create(
          pb, fe.loc, fe.planConstant(1),
          arith::CeilDivUIOp::create(pb, fe.loc, fe.planExpr(reducedSize),
                                     fe.planConstant(8 * outerY)));
      splitsValue = arith::MinUIOp::create(pb, fe.loc, wanted, most);
      for (const Reducer &r : reducers)
        for (Type t : r.accTypes) {
          Value size = arith::MulIOp::create(pb, fe.loc, splitsValue, planRows);
          partials.push_back(memref::AllocOp::create(
              pb, fe.loc, MemRefType::get({ShapedType::kDynamic}, t), ValueRange{size}));
        }
      // One counter per column tile of the scalar body (the most tiles),
      // zero at launch (fuser.zeroed): the blocks of a tile count their
      // arrivals on it.
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
  return success();
}

LogicalResult mlir::fuser::emitReductionSegment(FusionEmitter &fe, const Segment &segment,
                                                const GroupInfo &info) {
  return ReductionScheduler(fe, segment, info).run();
}
