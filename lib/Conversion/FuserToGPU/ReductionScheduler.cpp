//===- ReductionScheduler.cpp - reductions and normalizations -------------===//
//
// The analysis every reduction kernel shares (the iteration space, the
// passes, the lanes, index widths) and the driver that emits a segment's
// kernels: inner ones (InnerReduction.cpp), outer ones (OuterReduction.cpp,
// OuterNormalization.cpp), inner-outer ones (InnerOuter.cpp), from the
// decisions of ReductionHeuristics.cpp; partials combine in
// CombinePartials.cpp.
//
//===----------------------------------------------------------------------===//

#include "ReductionScheduler.h"

#include "fuser/Analysis/IndexMath.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fuser;

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

Index ReductionScheduler::reducerIndex(const Reducer &r) {
  if (ArrayRef(shapeOf(r.op->getOperand(0))) == ArrayRef(refShape))
    return sIndex();
  return Index{true, {linearize(sIndex().exprs, refShape)}};
}

Index ReductionScheduler::segmentIndex(const Reducer &r) {
  SmallVector<AffineExpr> kept, keptShape;
  for (unsigned k = 0; k < refRank; ++k)
    if (!dimClass[k]) {
      kept.push_back(getAffineDimExpr(k, ctx));
      keptShape.push_back(refShape[k]);
    }
  AffineExpr row = linearize(kept, keptShape);
  return Index{true, {row * r.segments + r.segment}};
}

Value ReductionScheduler::positionInRow() {
  AffineExpr pos = getAffineConstantExpr(0, ctx);
  for (unsigned j : reducedIter)
    pos = pos * iterSizes[j] + getAffineDimExpr(j, ctx);
  return kb->expander->expand(simplify(pos, numIterDims, numSymbols));
}

SmallVector<Value> ReductionScheduler::accumulateSegment(const Reducer &r, ArrayRef<Value> acc,
                                                         Value x, unsigned lanes) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  // The part each lane lies in: its position along the row over the part's
  // length.
  Value partLength = kb->expander->expand(simplify(reducedSize.floorDiv(r.segments), 0, numSymbols));
  Value first = positionInRow();
  Value in;
  if (lanes == 1) {
    Value part = arith::DivUIOp::create(b, loc, first, partLength);
    in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, part,
                               kb->constant(r.segment));
  } else {
    auto vt = VectorType::get({(int64_t)lanes}, first.getType());
    SmallVector<Attribute> steps;
    for (unsigned l = 0; l < lanes; ++l)
      steps.push_back(b.getIntegerAttr(first.getType(), l));
    Value step = arith::ConstantOp::create(b, loc, vt, DenseElementsAttr::get(vt, steps));
    Value pos = arith::AddIOp::create(b, loc, vector::BroadcastOp::create(b, loc, vt, first), step);
    Value part = arith::DivUIOp::create(b, loc, pos,
                                        vector::BroadcastOp::create(b, loc, vt, partLength));
    in = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, part,
        vector::BroadcastOp::create(b, loc, vt, kb->constant(r.segment)));
  }
  SmallVector<Value> none = r.identity(b, loc, lanes);
  SmallVector<Value> mine = r.accumulate(b, loc, none, x);
  for (auto [m, n] : llvm::zip(mine, none))
    m = arith::SelectOp::create(b, loc, in, m, n);
  return r.combine(b, loc, acc, r.reduceLanes(b, loc, mine));
}

void ReductionScheduler::storeRowSegments(Value guard) {
  for (const Reducer &r : reducers) {
    if (!r.isRowSegment())
      continue;
    auto it = segmentResults.find({r.op, r.segment});
    if (it == segmentResults.end())
      continue;
    for (auto [res, v] : llvm::zip(r.op->getResults(), it->second)) {
      if (!llvm::is_contained(seg.outputs, res))
        continue;
      known[res] = Lanes{v, true};
      storeOutput(res, segmentIndex(r), 1, guard);
      known.erase(res);
    }
  }
  segmentResults.clear();
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
/// when it keeps them. A value with another arrangement of size-1 dims
/// (GroupAnalysis accepts those as reduced-shape values too) takes the kept
/// dims not of size 1 in order, and 0 on its size-1 dims.
Index ReductionScheduler::rIndex(Value v) {
  ArrayRef<AffineExpr> shape = shapeOf(v);
  bool keep = shape.size() == refRank;
  bool exact = true;
  unsigned j = 0;
  for (unsigned k = 0; k < refRank && exact; ++k) {
    if (keep)
      exact = dimClass[k] ? ShapeAnalysis::constantValue(shape[k]) == 1 : shape[k] == refShape[k];
    else if (!dimClass[k])
      exact = j < shape.size() && shape[j++] == refShape[k];
  }
  exact &= keep || j == shape.size();
  SmallVector<AffineExpr> e;
  if (exact) {
    for (unsigned k = 0; k < refRank; ++k) {
      if (!dimClass[k])
        e.push_back(getAffineDimExpr(k, ctx));
      else if (keep)
        e.push_back(getAffineConstantExpr(0, ctx));
    }
    return Index{false, e};
  }
  SmallVector<AffineExpr> kept;
  for (unsigned k = 0; k < refRank; ++k)
    if (!dimClass[k] && ShapeAnalysis::constantValue(refShape[k]) != 1)
      kept.push_back(getAffineDimExpr(k, ctx));
  unsigned next = 0;
  for (AffineExpr size : shape)
    e.push_back(ShapeAnalysis::constantValue(size) == 1 || next == kept.size()
                    ? getAffineConstantExpr(0, ctx)
                    : kept[next++]);
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
    storeUnit(out, value, kb->expander->expand(off));
    return;
  }
  Value offset = kb->expander->expand(off);
  auto ifOp = scf::IfOp::create(b, kb->loc, TypeRange{}, guard, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  storeUnit(out, value, offset);
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

SmallVector<unsigned> ReductionScheduler::memoryOrder(ArrayRef<int> dimClass) {
  // A plain reduction whose inputs are contiguous along a kept dim (a
  // transposed view, a permute of a dense tensor) rather than along the
  // last reduced one: iterate with that kept dim last, so that it is the
  // lane dim and the outer kernel's threads run along it (coalesced),
  // instead of an inner kernel's threads striding across rows. Decided by
  // the bytes the inputs read: the dim each leaf is contiguous along (a
  // constant coefficient 1) gets its element size; the last live dim keeps
  // its place unless another dim has more.
  // (Row segments are parts of rows in row-major order: never reordered.)
  if (info.kind != GroupKind::Reduction || refRank < 2 || hasRowSegments())
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

//===----------------------------------------------------------------------===//
// The segment's analysis, then its kernels for each index width
//===----------------------------------------------------------------------===//

LogicalResult ReductionScheduler::run() {
  ref = info.reductions.front()->getOperand(0);
  refShape = info.space;
  refRank = refShape.size();
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
    // Reducers in program order, each with its pass; a row segment is
    // one reducer per part of the row.
    int64_t parts = info.rowSegmentsOf(op);
    if (llvm::is_contained(info.reductions, op) || parts > 0) {
      for (int64_t j = 0; j < std::max<int64_t>(parts, 1); ++j) {
        reducers.emplace_back(op);
        reducers.back().segment = j;
        reducers.back().segments = parts;
        level.push_back(p);
      }
      numLevels = std::max(numLevels, p + 1);
      ++p;
    }
    for (Value r : op->getResults())
      passOf[r] = p;
  }
  for (Value out : seg.outputs)
    if (!info.rowSegmentsOf(out.getDefiningOp()))
      (dependsOnOuter.contains(out)                      ? oOutputs
     : ArrayRef(shapeOf(out)) == ArrayRef(refShape) || info.sViews.contains(out) ? sOutputs
                                                      : rOutputs)
        .push_back(out);

  // Symbolic analysis from everything the kernel evaluates.
  for (const Reducer &r : reducers) {
    analyze(r.op->getOperand(0), reducerIndex(r));
    if (r.isRowSegment() && r.segment + 1 == r.segments)
      for (Value res : r.op->getResults())
        analyze(res, segmentIndex(r));
  }
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
  // Rows without a reduced iteration dim (reduced dims all of size 1) take
  // no lanes. The widest access is reduction.vector_bytes, at most 8 lanes.
  unsigned vectorBytes = fe.schedule.valueOr(ScheduleKey::ReductionVectorBytes);
  planLanes(numIterDims == 0 || reducedIter.empty()
                ? 1
                : std::max(1u, std::min(vectorBytes / narrowest, 8u)),
            /*wholeRows=*/true, contiguous);

  AffineExpr maxElements = maxElementsWith(getAffineConstantExpr(1, ctx) * keptSize * reducedSize);
  // Planned here, before the grid and partials below, so the plan reads
  // in the order the kernels need it.
  IndexWidths widths = planIndexWidths(maxElements);

  std::optional<int64_t> staticK = ShapeAnalysis::constantValue(reducedSize);
  std::optional<int64_t> staticRows = ShapeAnalysis::constantValue(keptSize);
  bool split = false;
  if (!innerStyle) {
    OuterBlock block = chooseOuterBlock(staticRows, staticK, vectorLanes, outerNormalization,
                                        outerKeys());
    outerX = block.x;
    outerY = block.y;
    split = block.split;
    if (!outerNormalization)
      fitOuterScratch(split);
    if (!outerNormalization && failed(checkOuterScratch(split)))
      return failure();
  }
  if (outerNormalization && failed(planOuterNormalization(*staticK, staticRows)))
    return failure();
  if (hasOuter())
    planInnerOuter();
  forEachIndexWidth(widths, [&](unsigned w) {
    rowValuesInRegisters = -1;
    if (hasOuter())
      emitInnerOuter(w);
    else if (innerStyle)
      emitInnerKernels(w);
    else
      emitOuterKernels(w, split, outerNormalization);
  });
  return success();
}

LogicalResult mlir::fuser::emitReductionSegment(FusionEmitter &fe, const Segment &segment,
                                                const GroupInfo &info) {
  return ReductionScheduler(fe, segment, info).run();
}
