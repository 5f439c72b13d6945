//===- PointwiseScheduler.cpp - one kernel for a pointwise segment --------===//
//
// Every output of the segment has the reference shape. The kernel walks
// that iteration space in units of `lanes` consecutive elements along the
// innermost dim, one unit per thread per step of a grid-stride loop, and for
// each unit computes every output from the segment's inputs without writing
// anything in between.
//
// Index math is symbolic: each value is reached with an index (per-dim
// affine expressions over the iteration dims, or its row-major linear index
// after a reshape), and each input's element offset is an expression in the
// iteration dims. From those expressions:
//  - adjacent iteration dims that every access treats alike merge (a pure
//    elementwise fusion becomes one flat dim, so odd inner sizes still get
//    128-bit accesses with a scalar tail);
//  - an input whose offset moves by 1 with the innermost dim is read with
//    vector loads, one that does not move is read once and kept in a
//    register (a broadcast is never materialized), anything else is read
//    lane by lane;
//  - the vector path needs the inner size to divide by the lane count and
//    the vector accesses to be aligned; what cannot be proven at compile time
//    is checked by the launch plan, which passes a flag choosing the vector
//    loop or the scalar loop;
//  - the dim a concat runs along may be split into the pieces it picks
//    from (ConcatPieces.cpp): a unit then computes every piece.
//
//===----------------------------------------------------------------------===//

#include "ComputeEstimate.h"
#include "ElementwiseEmitter.h"
#include "KernelBuilder.h"
#include "PointwiseScheduler.h"

#include "fuser/Analysis/IndexMath.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

void PointwiseScheduler::emitUnit(Value linear, unsigned lanes,
                                  SmallVectorImpl<PendingStore> *pending) {
  OpBuilder &b = kb->b;
  ExprScope scope(*kb->expander);
  // Iteration dims from the linear element index of the unit's first lane.
  iterValues.assign(numIterDims, Value());
  Value rest = linear;
  for (unsigned j = numIterDims; j-- > 0;) {
    if (j == 0) {
      iterValues[0] = rest;
      break;
    }
    Value size = kb->expander->expand(iterSizes[j]);
    iterValues[j] = arith::RemUIOp::create(b, kb->loc, rest, size);
    rest = arith::DivUIOp::create(b, kb->loc, rest, size);
  }
  memo.clear();
  SmallVector<AffineExpr> dIdx;
  for (unsigned k = 0; k < refRank; ++k)
    dIdx.push_back(getAffineDimExpr(k, ctx));
  // Each piece of a dim split by a concat (ConcatPieces.cpp), all under
  // one memo: a piece's reads serve the others.
  for (unsigned p = 0; p < pieces.count; ++p) {
    for (Value out : seg.outputs) {
      Index idx = pieceIndex(Index{false, dIdx}, p);
      Lanes v = emit(out, idx, lanes);
      // Testing only: each piece's values stored at the next piece's place.
      Index at = fe.plantBug == "concat-piece-position"
                     ? pieceIndex(Index{false, dIdx}, (p + 1) % pieces.count)
                     : idx;
      AffineExpr off = toIteration(linearIndex(out, at));
      PendingStore st{kb->pointer(out), materialize(v, lanes), kb->expander->expand(off)};
      if (pending)
        pending->push_back(st);
      else
        kb->store(st.ptr, st.value, st.offset);
    }
  }
}

AffineExpr PointwiseScheduler::iterationCount() {
  AffineExpr total = getAffineConstantExpr(1, ctx);
  for (AffineExpr s : iterSizes)
    total = total * s;
  return simplify(total, 0, numSymbols);
}

void PointwiseScheduler::readSchedule() {
  // The segment's schedule (fuser-schedule), or the heuristic's defaults
  // where it leaves a decision out (Schedule.h).
  block = fe.schedule.valueOr(ScheduleKey::PointwiseBlock);
  unitsPerThread = fe.schedule.valueOr(ScheduleKey::PointwiseUnits);
  gridWaves = fe.schedule.valueOr(ScheduleKey::PointwiseWaves);
}

void PointwiseScheduler::emitKernel(unsigned indexBits) {
  SmallVector<unsigned> symbols = segmentSymbols(fe.shapes, seg);
  SmallVector<Value> inputs = orderedInputs(seg);
  SmallVector<Value> outputs(seg.outputs.begin(), seg.outputs.end());
  KernelBuilder k(fe, fe.newKernelName(), indexBits, inputs, outputs, symbols,
                  /*numFlags=*/1, {block});
  kb = &k;
  indexByIteration(k);
  emitBody(Value(), Value());
  k.finish();
  Grid grid = planGrid();
  if (fe.explain)
    fe.kernelNote = grid.note;
  k.launch({grid.blocks}, {block}, Value(), grid.cond, {grid.flag});
  kb = nullptr;
}

void PointwiseScheduler::emitBody(Value bid, Value gdim) {
  KernelBuilder &k = *kb;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  AffineExpr total = iterationCount();
  Value n = k.expander->expand(total);
  Value tid = k.threadId(gpu::Dimension::x);
  if (!bid) {
    bid = k.blockId(gpu::Dimension::x);
    gdim = k.gridDim(gpu::Dimension::x);
  }
  Value blockV = k.constant(block);
  Value first = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, bid, blockV), tid);
  Value stride = arith::MulIOp::create(b, loc, gdim, blockV);

  auto scalarLoop = [&](Value from, Value to) {
    auto loop = scf::ForOp::create(b, loc, from, to, stride);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    emitUnit(loop.getInductionVar(), 1);
  };

  // One scalar loop serves both the vector path's tail (the last fewer
  // than `lanes` elements of a flat space) and the whole space when the
  // plan's flag says the vector accesses cannot be used (a misaligned
  // buffer, an inner size the lanes do not divide): a second copy of the
  // segment's scalar code would double the scalar part of LLVM's work
  // for code that almost never runs (docs/compile-speed.md).
  if (vectorLanes > 1) {
    Value isVector = vectorFlagSet(k);
    Value lanesV = k.constant(vectorLanes);
    Value units = arith::DivUIOp::create(b, loc, n, lanesV);
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, isVector, false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      ExprScope scope(*k.expander);
      // Whole chunks of unitsPerThread * block units: each thread computes
      // units c, c + block, ... of its block's chunk, every value before
      // any store, so that all their loads are issued before the first
      // result is computed (more bytes in flight while the arithmetic of
      // a transcendental runs). The units past the last whole chunk take
      // the one-unit loop.
      Value remainderStart = first;
      if (unitsPerThread > 1) {
        Value chunk = k.constant(unitsPerThread * block);
        Value chunks = arith::DivUIOp::create(b, loc, units, chunk);
        auto loop = scf::ForOp::create(b, loc, bid, chunks, gdim);
        {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(loop.getBody());
          Value base = arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, loop.getInductionVar(), chunk), tid);
          SmallVector<PendingStore> pending;
          for (int64_t j = 0; j < unitsPerThread; ++j) {
            Value unit = arith::AddIOp::create(b, loc, base, k.constant(j * block));
            emitUnit(arith::MulIOp::create(b, loc, unit, lanesV), vectorLanes, &pending);
          }
          for (PendingStore &st : pending)
            k.store(st.ptr, st.value, st.offset);
        }
        remainderStart = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, chunks, chunk), first);
      }
      auto loop = scf::ForOp::create(b, loc, remainderStart, units, stride);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(loop.getBody());
      emitUnit(arith::MulIOp::create(b, loc, loop.getInductionVar(), lanesV), vectorLanes);
    }
    // Where the scalar loop starts: after the vector units for a flat space
    // (its tail), past the end for one with an inner dim the lanes divide
    // (no tail), at the thread's first element without the vector path.
    Value vectorDone =
        numIterDims <= 1
            ? arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, units, lanesV), first)
                  .getResult()
            : n;
    Value from = arith::SelectOp::create(b, loc, isVector, vectorDone, first);
    // Testing only: a wrong tail bound that drops the last element.
    Value end = n;
    if (fe.plantBug == "wrong-tail" && numIterDims <= 1)
      end = arith::SelectOp::create(b, loc, isVector,
                                    arith::SubIOp::create(b, loc, n, k.constant(1)), n);
    scalarLoop(from, end);
  } else {
    scalarLoop(first, n);
  }
}

PointwiseScheduler::Grid PointwiseScheduler::planGrid() {
  // The plan: vector flag, grid size, launch condition.
  AffineExpr total = iterationCount();
  OpBuilder &pb = fe.planBuilder;
  Value planN = fe.planExpr(total);
  Value vecOk = vectorLanes > 1 ? planVectorOk() : Value();
  Value units = planN;
  if (vecOk)
    units = arith::SelectOp::create(
        pb, fe.loc, vecOk,
        arith::CeilDivUIOp::create(pb, fe.loc, planN, fe.planConstant(vectorLanes)),
        planN);
  // A block per unitsPerThread * block units, capped at gridWaves full
  // waves at full occupancy (no cap for 0); the grid-stride loops cover
  // the rest.
  int64_t maxBlocks = fe.target.smCount * (fe.target.maxThreadsPerSM / block) * gridWaves;
  Value blocks = arith::CeilDivUIOp::create(pb, fe.loc, units,
                                            fe.planConstant(block * unitsPerThread));
  if (gridWaves > 0)
    blocks = arith::MinUIOp::create(pb, fe.loc, blocks, fe.planConstant(maxBlocks));
  Value cond = arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::sgt, planN,
                                     fe.planConstant(0));
  if (variantCondition)
    cond = arith::AndIOp::create(pb, fe.loc, cond, variantCondition);
  Value flag = vecOk ? arith::IndexCastUIOp::create(pb, fe.loc, pb.getIndexType(), vecOk).getResult()
                     : fe.planConstant(0);
  std::string note;
  if (fe.explain)
    note = "pointwise, " + std::to_string(vectorLanes) +
           (vectorLanes == 1 ? " lane" : " lanes") +
           (vecOk ? " where the plan's size and alignment checks hold, else 1" : "") +
           (computeBound ? " (the element's arithmetic, estimated at " +
                               std::to_string(kComputeBoundInstructions) +
                               " instructions or more, is compute-bound: one lane, one copy "
                               "of the code; pointwise.vector_bytes overrides), "
                         : " (pointwise.vector_bytes / the narrowest element that moves with "
                           "the innermost dim), ") +
           std::to_string(unitsPerThread) + " unit(s) a thread a step" +
           (pieces.count > 1 ? ", each in " + piecesNote() : std::string()) +
           ", grid at most " +
           (gridWaves > 0 ? std::to_string(gridWaves) + " waves" : "uncapped");
  return {blocks, cond, flag, note};
}

LogicalResult PointwiseScheduler::run() {
  if (failed(plan()))
    return failure();
  readSchedule();
  LogicalResult result = success();
  forEachIndexWidth(maxElementsWith(fe.shapes.numElements(ref)), [&](unsigned w) {
    if (!transposeShape)
      emitKernel(w);
    else if (succeeded(result))
      result = emitTransposeKernel(w);
  });
  return result;
}

LogicalResult PointwiseScheduler::plan() {
  ref = seg.outputs.front();
  refShape = llvm::to_vector(shapeOf(ref));
  refRank = refShape.size();
  for (Value out : seg.outputs)
    if (ArrayRef<AffineExpr>(shapeOf(out)) != ArrayRef<AffineExpr>(refShape))
      return out.getDefiningOp()->emitOpError(
          "is an output of a pointwise segment whose outputs differ in shape");
  planSpaceAndLanes();
  bool transpose = planTranspose();
  // A concat along a ref dim: split the dim into the pieces the concat
  // picks from and plan again (ConcatPieces.cpp). The pieces' operands are
  // read unguarded, so a permute of a concat now finds its inputs read
  // across their contiguous dim and takes the transpose shape, whose tiles
  // then cover one piece and compute every piece.
  if (!transpose && planConcatPieces(widestLanes, vectorLanes)) {
    resetAnalysis();
    planSpaceAndLanes();
    transpose = planTranspose();
    // Every piece's operands staged at once must fit a block's shared
    // memory; where they do not, the pieces take the plain pointwise shape
    // (as the fusion did without them) rather than become an error.
    if (transpose && stagedTileBytes() > kStaticSharedBytes) {
      transpose = false;
      staged.clear();
      transposeDim = -1;
    }
  }
  transposeShape = transpose;
  return success();
}

void PointwiseScheduler::planSpaceAndLanes() {
  SmallVector<AffineExpr> dIdx;
  for (unsigned k = 0; k < refRank; ++k)
    dIdx.push_back(getAffineDimExpr(k, ctx));
  for (unsigned p = 0; p < pieces.count; ++p)
    for (Value out : seg.outputs)
      analyze(out, pieceIndex(Index{false, dIdx}, p));
  planIterationSpace();

  // Lanes: pointwise.vector_bytes (16 by default) of the narrowest type
  // accessed contiguously.
  unsigned narrowest = 16;
  SmallVector<std::pair<Value, AffineExpr>> contiguous;
  for (unsigned p = 0; p < pieces.count; ++p) {
    for (Value out : seg.outputs) {
      narrowest = std::min(narrowest, byteSize(elementTypeOf(out)));
      contiguous.push_back({out, toIteration(linearIndex(out, pieceIndex(Index{false, dIdx}, p)))});
    }
  }
  for (auto &[v, off] : leafOffsets) {
    AffineExpr o = toIteration(off);
    if (laneStride(o) == std::optional<int64_t>(1)) {
      narrowest = std::min(narrowest, byteSize(elementTypeOf(v)));
      contiguous.push_back({v, o});
    }
  }
  // index_select rows read whole (an embedding lookup): the table is one
  // more contiguous access, whose unit offsets also hold a multiple of its
  // stride along dim (the index times it).
  SmallVector<AffineExpr> tableStrides;
  for (const TableRead &r : tableReads) {
    AffineExpr o = toIteration(r.base);
    if (laneStride(o) != std::optional<int64_t>(1))
      continue;
    Value table = r.op->getOperand(0);
    narrowest = std::min(narrowest, byteSize(elementTypeOf(table)));
    contiguous.push_back({table, o});
    tableStrides.push_back(r.stride);
  }
  // As wide as the schedule allows, in lanes of the narrowest contiguous
  // element; rows of a multi-dim space hold whole units (a flat space's tail
  // takes the scalar loop). Without a schedule: 16 bytes, or one lane where
  // an element's arithmetic makes the kernel compute-bound many times over.
  // There a wide access saves a load instruction in hundreds, while each
  // lane is one more copy of the whole arithmetic for LLVM to compile (the
  // vector body beside the scalar loop: 5 copies of every op at 4 lanes, 1
  // at one; a chain of 100 sins compiled 3.4x faster, docs/compile-speed.md)
  // and more registers. At 512 instructions an f32 element's arithmetic
  // takes about 9 times its 8 bytes' time on an H200 (33 T lane
  // instructions/s against 4.8 TB/s).
  std::optional<int64_t> vectorBytes = fe.schedule.get(ScheduleKey::PointwiseVectorBytes);
  computeBound =
      !vectorBytes && estimatedInstructionsPerElement(seg.ops) >= kComputeBoundInstructions;
  if (!vectorBytes)
    vectorBytes = computeBound ? narrowest : 16;
  widestLanes = numIterDims == 0 ? 1 : std::max<int64_t>(1, *vectorBytes / narrowest);
  // Interleaved pieces along the lane dim: a unit's elements are count
  // apart, never one vector.
  if (pieces.interleaved && pieces.dim == laneDim)
    widestLanes = 1;
  planLanes(widestLanes, /*wholeRows=*/numIterDims > 1, contiguous, tableStrides);
  vectorTables = vectorLanes > 1 && !tableStrides.empty();
}

LogicalResult mlir::fuser::emitPointwiseSegment(FusionEmitter &fe,
                                                const Segment &segment) {
  if (emitIndexAddSegment(fe, segment))
    return success();
  return PointwiseScheduler(fe, segment).run();
}
