//===- InnerReduction.cpp - inner kernels: a block walks rows -------------===//
//
// Reductions and normalizations along the fastest-varying dims: threads of
// a block walk a row with vector loads, warp shuffles then shared memory
// combine their partials, several rows a block when rows are short; a
// normalization keeps its row on chip between its passes. Which kernels a
// segment gets and their shapes come from ReductionHeuristics.h
// (emitInnerKernels); this file builds them.
//
//===----------------------------------------------------------------------===//

#include "ReductionScheduler.h"

#include "ComputeEstimate.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fuser;

InnerFacts ReductionScheduler::innerFacts(unsigned indexBits) {
  InnerFacts f;
  f.normalization = info.kind == GroupKind::Normalization;
  f.reduction = info.kind == GroupKind::Reduction;
  f.indexBits = indexBits;
  f.lanes = vectorLanes;
  f.length = ShapeAnalysis::constantValue(reducedSize);
  f.rows = ShapeAnalysis::constantValue(keptSize);
  f.passes = numLevels;
  // (One input of the row's shape: two would hold twice the values.)
  auto isRow = [&](Value in) { return ArrayRef(shapeOf(in)) == ArrayRef(refShape); };
  f.halfRow = f.normalization && llvm::count_if(seg.inputs, isRow) == 1 &&
              llvm::all_of(seg.inputs, [&](Value in) {
                return !isRow(in) || byteSize(elementTypeOf(in)) <= 2;
              });
  f.inputs = seg.inputs.size();
  for (const Reducer &r : reducers)
    f.reducerValues += r.accTypes.size();
  f.sharedMemoryPerBlock = fe.target.sharedMemoryPerBlock;
  f.instructionsPerElement = estimatedInstructionsPerElement(seg.ops);
  f.threads = fe.schedule.get(ScheduleKey::ReductionThreads).value_or(0);
  f.splits = fe.schedule.get(ScheduleKey::ReductionSplits).value_or(0);
  return f;
}

void ReductionScheduler::planSplitBuffers(Value splits, Value rows, Value splitCond) {
  OpBuilder &pb = fe.planBuilder;
  splitsValue = splits;
  // Partials [split][row] per accumulator value, and one arrival counter
  // per row, zero at launch; none where the split variant is not taken.
  Value size = arith::MulIOp::create(pb, fe.loc, splitsValue, rows);
  if (splitCond)
    size = arith::SelectOp::create(pb, fe.loc, splitCond, size, fe.planConstant(0));
  for (const Reducer &r : reducers)
    for (Type t : r.accTypes)
      partials.push_back(memref::AllocOp::create(
          pb, fe.loc, MemRefType::get({ShapedType::kDynamic}, t), ValueRange{size}));
  Value counterCount =
      splitCond ? arith::SelectOp::create(pb, fe.loc, splitCond, rows, fe.planConstant(0))
                      .getResult()
                : rows;
  auto counters = memref::AllocOp::create(
      pb, fe.loc, MemRefType::get({ShapedType::kDynamic}, pb.getI32Type()),
      ValueRange{counterCount});
  ZeroedOp::create(pb, fe.loc, counters);
  splitCounters = counters;
  innerSplitCond = splitCond;
}

void ReductionScheduler::planInnerSplit() {
  OpBuilder &pb = fe.planBuilder;
  Value rows = fe.planExpr(keptSize);
  if (std::optional<int64_t> forced = fe.schedule.get(ScheduleKey::ReductionSplits)) {
    // The schedule's count (a split kernel is then the only one), at most
    // one split per vector unit of each of a block's threads: more would
    // launch blocks without an element (1024 splits of a row of 100).
    Value work = arith::MaxUIOp::create(
        pb, fe.loc, fe.planConstant(1),
        arith::CeilDivUIOp::create(pb, fe.loc, fe.planExpr(reducedSize),
                                   fe.planConstant(kInnerSplitThreads * vectorLanes)));
    splitsValue = arith::MinUIOp::create(pb, fe.loc, fe.planConstant(*forced), work);
    planSplitBuffers(splitsValue, rows, Value());
    return;
  }
  Value length = fe.planExpr(reducedSize);
  Value splitCond = arith::AndIOp::create(
      pb, fe.loc,
      arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::ult, rows,
                            fe.planConstant(kSplitBlocksTarget / 2)),
      arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::uge, length,
                            fe.planConstant(kInnerSplitMinLength)));
  // Splits: two waves of blocks, each block at least 32 elements per
  // thread; one split (and no partials) when the variant is not taken.
  // (rows may be 0 at launch: the kernels are not launched then, but the
  // plan still computes this)
  Value wanted = arith::CeilDivUIOp::create(
      pb, fe.loc, fe.planConstant(kSplitBlocksTarget),
      arith::MaxUIOp::create(pb, fe.loc, rows, fe.planConstant(1)));
  Value most =
      arith::CeilDivUIOp::create(pb, fe.loc, length, fe.planConstant(kInnerSplitThreads * 32));
  splitsValue = arith::SelectOp::create(pb, fe.loc, splitCond,
                                        arith::MinUIOp::create(pb, fe.loc, wanted, most),
                                        fe.planConstant(1));
  planSplitBuffers(splitsValue, rows, splitCond);
}

void ReductionScheduler::emitInnerKernels(unsigned w) {
  OpBuilder &pb = fe.planBuilder;
  InnerFacts facts = innerFacts(w);
  InnerRow row = facts.length ? chooseInnerRow(facts) : InnerRow{};
  rowValuesInRegisters = row.rowValuesInRegisters;
  InnerSplit split = chooseInnerSplit(facts);
  if (split.may && !splitsValue)
    planInnerSplit();
  Value widthCond = variantCondition;
  auto withCond = [&](Value c) {
    return widthCond ? arith::AndIOp::create(pb, fe.loc, widthCond, c).getResult() : c;
  };
  auto negate = [&](Value c) {
    return arith::XOrIOp::create(pb, fe.loc, c, arith::ConstantIntOp::create(pb, fe.loc, 1, 1))
        .getResult();
  };
  if (!facts.length && facts.normalization) {
    // Row length known at launch: the kernels that keep the row on chip,
    // each for the lengths (and alignment) its launch condition says, then
    // one that reads the row again per pass for the rest.
    Value length = fe.planExpr(reducedSize);
    auto between = [&](int64_t lo, int64_t hi) {
      return arith::AndIOp::create(
                 pb, fe.loc,
                 arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::uge, length,
                                       fe.planConstant(lo)),
                 arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::ule, length,
                                       fe.planConstant(hi)))
          .getResult();
    };
    Value keep, vecOk;
    for (const DynamicRowKernel &kernel : dynamicRowKernels(facts)) {
      Value cond;
      if (kernel.vector) {
        if (!vecOk)
          vecOk = planVectorOk();
        cond = arith::AndIOp::create(pb, fe.loc, vecOk, between(kernel.minLength, kernel.maxLength));
      } else {
        cond = between(kernel.minLength, kernel.maxLength);
        if (keep)
          cond = arith::AndIOp::create(pb, fe.loc, negate(keep), cond);
      }
      variantCondition = withCond(cond);
      valuesPerThread = kernel.valuesPerThread;
      rowValuesInRegisters = kernel.rowValuesInRegisters;
      emitInner(w, kernel.threads, /*persistent=*/true, /*split=*/false,
                kernel.vector ? Bodies::VectorOnly : Bodies::ScalarOnly);
      valuesPerThread = 0;
      rowValuesInRegisters = -1;
      keep = keep ? arith::OrIOp::create(pb, fe.loc, keep, cond).getResult() : cond;
    }
    variantCondition = keep ? withCond(negate(keep)) : widthCond;
    emitInner(w, 0, /*persistent=*/false);
    return;
  }
  if (split.may) {
    variantCondition = split.must ? widthCond : withCond(innerSplitCond);
    emitInner(w, kInnerSplitThreads, /*persistent=*/false, /*split=*/true);
    if (split.must)
      return;
    variantCondition = withCond(negate(innerSplitCond));
  }
  // A row of a static length is whole vector units (planLanes). A call
  // whose buffers fail the plan's checks (a misaligned view) takes the
  // same body, its units read and written lane by lane: one copy of the
  // row's arithmetic to compile (it was a second, scalar kernel or body,
  // up to half of a normalization's compile time), and the same threads,
  // units and order of additions, so the same bits, aligned or not.
  bool units = facts.length && vectorLanes > 1 && !vectorsAlwaysOk();
  emitInner(w, row.threads, row.persistent, /*split=*/false,
            units ? Bodies::VectorUnits : Bodies::Both);
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
    // A row segment adds the lanes in its part of the row to one lane.
    for (unsigned i : rs)
      accs.push_back(reducers[i].identity(b, loc, reducers[i].segments > 1 ? 1 : lanes));
    auto accumulateAll = [&](Value inRange) {
      for (auto [n, i] : llvm::enumerate(rs)) {
        const Reducer &r = reducers[i];
        Value x = materialize(emit(r.op->getOperand(0), reducerIndex(r), lanes), lanes);
        SmallVector<Value> next = r.segments > 1 ? accumulateSegment(r, accs[n], x, lanes)
                                                 : r.accumulate(b, loc, accs[n], x);
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
      finishReduction(r, acc, 1, k);
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
  if ((!rOutputs.empty() || hasRowSegments()) && !split) {
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tx, kb->constant(0));
    Value guard = arith::AndIOp::create(b, loc, first, valid);
    SmallVector<Value> saved = iterValues;
    iterValues = rowValues;
    memo.clear();
    for (Value out : rOutputs)
      storeOutput(out, rIndex(out), 1, guard);
    storeRowSegments(guard);
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
  if (bodies == Bodies::VectorOnly) {
    body(vectorLanes);
  } else if (bodies == Bodies::VectorUnits) {
    unitAccessesAligned = vectorFlagSet(k);
    body(vectorLanes);
    unitAccessesAligned = Value();
  } else if (bodies == Bodies::ScalarOnly)
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
  if (fe.explain)
    fe.kernelNote = describeInner(indexBits, staticThreads, persistent, split, bodies);
  if (split)
    k.launch({blocks, splitsValue}, {threadsPlan, rowsPlan}, Value(), cond, {flag});
  else
    k.launch({blocks}, {threadsPlan, rowsPlan}, Value(), cond, {flag});
  kb = nullptr;
}

std::string ReductionScheduler::describeInner(unsigned indexBits, int64_t staticThreads,
                                              bool persistent, bool split, Bodies bodies) {
  InnerFacts facts = innerFacts(indexBits);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << (hasOuter()              ? "inner-outer row kernel (column partials combined after)"
         : facts.normalization ? "inner normalization"
                               : "inner reduction")
     << ", rows of ";
  if (facts.length)
    os << *facts.length;
  else
    os << "a length known at launch";
  os << ", " << vectorLanes << (vectorLanes == 1 ? " lane" : " lanes") << "; ";
  if (split)
    os << staticThreads << " threads a row, the row split across blocks ("
       << (fe.schedule.get(ScheduleKey::ReductionSplits) ? "reduction.splits"
                                                          : "the split count chosen in the plan")
       << "), the last block of a row adding the partials in split order";
  else if (staticThreads && facts.length && !hasOuter())
    os << staticThreads << " threads a row ("
       << (fe.schedule.get(ScheduleKey::ReductionThreads) ? "reduction.threads"
           : facts.normalization &&
                   facts.instructionsPerElement >= kComputeBoundRowInstructions
               ? "the heuristic: the element's arithmetic, estimated at " +
                     std::to_string(kComputeBoundRowInstructions) +
                     " instructions or more, is compute-bound: one vector unit a thread, up "
                     "to " +
                     std::to_string(kComputeBoundRowThreads) + " threads"
               : "the heuristic: the fewest that leave a thread 4 vector units, more until a "
                 "normalization's row fits the registers")
       << ")";
  else if (staticThreads)
    os << staticThreads << " threads a row";
  else
    os << "threads a row chosen at launch from the length";
  if (facts.normalization || hasOuter()) {
    if (!persistent)
      os << "; the row read again per pass";
    else if (rowValuesInRegisters >= 0)
      os << "; " << rowValuesInRegisters
         << " of a thread's row values in registers, the rest in shared memory";
    else if (valuesPerThread || !facts.length)
      os << "; the row on chip, up to "
         << (valuesPerThread ? valuesPerThread : dynamicValuesPerThread(indexBits))
         << " values a thread";
    else
      os << "; the row in registers between passes";
  }
  if (vectorLanes > 1)
    os << (bodies == Bodies::VectorOnly   ? "; vector accesses only"
           : bodies == Bodies::ScalarOnly ? "; scalar accesses only"
           : bodies == Bodies::VectorUnits
               ? "; vector units, each access one vector where the plan's checks hold, "
                 "else lane by lane"
               : "; vector accesses where the plan's checks hold, else scalar");
  return text;
}
