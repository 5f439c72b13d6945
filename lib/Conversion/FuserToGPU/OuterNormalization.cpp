//===- OuterNormalization.cpp - normalizing along non-trailing dims -------===//
//
// The outer normalization part of ReductionScheduler (GroupAnalysis.h,
// docs/schedulers.md): softmax over dim 0, a batch's statistics applied
// back to it. Threads run along the kept dim as in the outer reduction
// kernel; a block's outerY rows of threads share each column's reduced
// extent (at most kOuterNormalizationMaxDepth elements, known at compile
// time), each thread holding its share on chip between the reductions.
// After each pass the rows of threads meet in shared memory and every
// thread combines all rows' partials in the same fixed order, so each
// thread of a column holds the same reduced value and applies it to its
// own share. One launch, no block waits for another.
//
//===----------------------------------------------------------------------===//

#include "ReductionScheduler.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fuser;

/// A thread holds at most this many values of one input (its share's
/// positions times their lanes): softmax's backward holds y and dy, and at
/// 32 each a block of 512 threads spilled.
static constexpr int64_t kOuterValuesPerThread = 16;
/// Every thread combines all rows of threads' partials, unrolled: at most
/// this many loads per accumulator value and pass (rows of threads times
/// lanes). 64 rows of 8 lanes made 512, a kernel of 87 KB of PTX whose
/// emulation took 20 s to compile.
static constexpr int64_t kOuterCombineLoads = 64;
/// Static shared memory for the rows of threads' partials.
static constexpr int64_t kOuterScratchBytes = 32 * 1024;
/// Fewest threads along the kept dim, and the fewest bytes a row of them
/// reads (one 32-byte sector).
static constexpr int64_t kOuterMinX = 8, kOuterMinRowBytes = 32;

LogicalResult ReductionScheduler::planOuterNormalization(int64_t depth,
                                                        std::optional<int64_t> columns) {
  // A column of no positions is planned as one of one position (its loops
  // then run no times): a block of no rows of threads cannot launch.
  depth = std::max<int64_t>(depth, 1);
  int64_t accBytes = 0;
  for (const Reducer &r : reducers)
    for (Type t : r.accTypes)
      accBytes += byteSize(t);
  // Candidates from the widest (most lanes, 32 threads along the kept dim)
  // down: rows of threads enough that a thread's share fits
  // kOuterValuesPerThread values, no more than the column has positions; a
  // block of at most 1024 threads whose partials fit the scratch and take
  // at most kOuterCombineLoads loads to combine (one lane: 16 rows of
  // threads at the longest column). The first
  // that gives at least one column tile per SM is taken, else the one with
  // the most tiles (a short fusion: narrower loads, more blocks).
  struct Choice {
    int64_t x, y, lanes, tiles;
  };
  // The schedule's threads along the kept dim (reduction.column_threads)
  // are the only ones tried; its rows of threads (reduction.column_rows)
  // must leave a thread at most kOuterValuesPerThread values, with the
  // lanes narrowed until they do.
  OuterKeys keys = outerKeys();
  std::optional<Choice> best;
  for (int64_t lanes = vectorLanes; lanes >= 1; lanes /= 2) {
    int64_t units = columns ? std::max<int64_t>(1, (*columns + lanes - 1) / lanes) : 0;
    int64_t widest = columns ? std::min<int64_t>(kOuterX, (int64_t)llvm::PowerOf2Ceil(units))
                             : kOuterX;
    int64_t fewest = std::max<int64_t>(kOuterMinX, kOuterMinRowBytes / (lanes * narrowestBytes));
    if (keys.threads)
      widest = fewest = keys.threads;
    for (int64_t x = widest; x >= std::min(widest, fewest); x /= 2) {
      int64_t share = (depth * lanes + kOuterValuesPerThread - 1) / kOuterValuesPerThread;
      int64_t y = std::min<int64_t>((int64_t)llvm::PowerOf2Ceil(depth),
                                    std::max<int64_t>(kOuterY, (int64_t)llvm::PowerOf2Ceil(share)));
      // Given threads alone: as many rows of threads as fit 1024 threads
      // beside them, if that still holds the column.
      if (keys.threads && !keys.rows)
        y = std::min<int64_t>(y, std::max<int64_t>(1, 1024 / x));
      if (keys.rows)
        y = keys.rows;
      if ((keys.threads || keys.rows) && (depth + y - 1) / y * lanes > kOuterValuesPerThread)
        continue;
      if (x * y > 1024 || x * y * lanes * accBytes > kOuterScratchBytes ||
          (y * lanes > kOuterCombineLoads && lanes > 1))
        continue;
      int64_t tiles = columns ? (units + x - 1) / x : INT64_MAX;
      if (!best || tiles > best->tiles)
        best = Choice{x, y, lanes, tiles};
      if (tiles >= fe.target.smCount)
        break;
    }
    if (best && best->tiles >= fe.target.smCount)
      break;
  }
  // (a group of at most kMaxReductionsPerKernel reductions of f32 over
  // at most kOuterNormalizationMaxDepth positions always fits one lane)
  if (!best && (keys.threads || keys.rows))
    return reducers.front().op->emitOpError("the schedule's block for this normalization along "
                                        "non-trailing dims (reduction.column_threads = ")
           << (keys.threads ? std::to_string(keys.threads) : "the heuristic's")
           << ", reduction.column_rows = "
           << (keys.rows ? std::to_string(keys.rows) : "the heuristic's") << ") cannot hold its "
           << depth << " positions a column: a thread holds at most " << kOuterValuesPerThread
           << " values (at least " << (depth + kOuterValuesPerThread - 1) / kOuterValuesPerThread
           << " rows of threads), a block at most 1024 threads and " << kOuterScratchBytes
           << " bytes of partials";
  if (!best)
    return seg.ops.front()->emitOpError(
        "the partials of this normalization along non-trailing dims do not fit "
        "a block's shared memory");
  outerX = best->x;
  outerY = best->y;
  vectorLanes = best->lanes;
  for (auto &[v, bytes] : alignment)
    bytes = std::min<unsigned>(bytes, vectorLanes * byteSize(elementTypeOf(v)));
  if (vectorLanes == 1) {
    divisibility.clear();
    alignment.clear();
  }
  return success();
}

void ReductionScheduler::emitOuterNormalization(unsigned indexBits, Value gridPlan,
                                                Value flagPlan, Value condPlan) {
  SmallVector<unsigned> symbols = segmentSymbols(fe.shapes, seg);
  SmallVector<Value> inputs = orderedInputs(seg);
  SmallVector<Value> outputs(seg.outputs.begin(), seg.outputs.end());
  KernelBuilder k(fe, fe.newKernelName(), indexBits, inputs, outputs, symbols,
                  /*numFlags=*/1, /*blockSize=*/{}, /*extras=*/{});
  k.setMaxThreadsPerBlock(outerX * outerY);
  kb = &k;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  indexByIteration(k);
  iterValues.assign(numIterDims, Value());
  SmallVector<SmallVector<Value>> scratch = outerScratch();
  Value tx = k.threadId(gpu::Dimension::x), ty = k.threadId(gpu::Dimension::y);
  Value columns = k.expander->expand(keptSize), depth = k.expander->expand(reducedSize);
  int64_t staticDepth = *ShapeAnalysis::constantValue(reducedSize);
  Value bx = k.blockId(gpu::Dimension::x), gx = k.gridDim(gpu::Dimension::x);

  auto body = [&](unsigned lanes) {
    Value lanesV = k.constant(lanes);
    forEachColumnTile(lanesV, columns, tx, bx, gx, [&](Value, Value, Value valid,
                                                       ArrayRef<Value> colValues) {
      known.clear();

      // The thread's share of the column: reduced positions ty + j*outerY.
      // Past the end (the last share may run over) it reads the last
      // position again and neither accumulates nor stores.
      std::vector<std::unique_ptr<Unit>> unitList;
      for (int64_t first = 0; first < staticDepth; first += outerY) {
        Value r = arith::AddIOp::create(b, loc, ty, k.constant(first));
        Value inRange;
        if (first + outerY > staticDepth) {
          inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, r, depth);
          r = arith::MinUIOp::create(b, loc, r, k.constant(staticDepth - 1));
        }
        unitList.push_back(makeUnit(colValues, r, inRange));
      }
      auto guard = [&](Value inRange) {
        return inRange ? arith::AndIOp::create(b, loc, valid, inRange).getResult() : valid;
      };
      // As an inner persistent row: a share of more than 16 values keeps only
      // what it loaded between passes.
      bool keepComputed = unitList.size() * lanes <= 16;
      auto forgetComputed = [&] {
        for (auto &u : unitList)
          forgetPass(*u, keepComputed);
      };
      Value slot = arith::MulIOp::create(b, loc, tx, lanesV);

      for (unsigned lvl = 0; lvl < numLevels; ++lvl) {
        if (lvl > 0)
          forgetComputed();
        SmallVector<unsigned> rs = reducersAtLevel(lvl);
        SmallVector<SmallVector<Value>> accs;
        for (unsigned i : rs)
          accs.push_back(reducers[i].identity(b, loc, lanes));
        for (auto &u : unitList)
          withUnit(*u, [&] {
            for (auto [n, i] : llvm::enumerate(rs)) {
              Lanes x = emit(reducers[i].op->getOperand(0), sIndex(), lanes);
              SmallVector<Value> next =
                  reducers[i].accumulate(b, loc, accs[n], materialize(x, lanes));
              if (u->inRange)
                for (size_t m = 0; m < next.size(); ++m)
                  next[m] = arith::SelectOp::create(b, loc, u->inRange, next[m], accs[n][m]);
              accs[n] = next;
            }
            if (lvl == 0)
              for (Value out : sOutputs)
                if (!dependsOnReduction.contains(out))
                  storeOutput(out, sOutputIndex(out), lanes, guard(u->inRange));
          });
        // The rows of threads meet in shared memory; every thread combines
        // all rows in row order, so the threads of a column agree bit for bit.
        for (auto [n, i] : llvm::enumerate(rs))
          storeRowPartials(accs[n], scratch[i], ty, slot, lanes);
        // (testing only: without it a thread reads rows not yet written)
        if (fe.plantBug != "missing-barrier")
          gpu::BarrierOp::create(b, loc);
        for (unsigned i : rs) {
          const Reducer &r = reducers[i];
          SmallVector<Value> total = combineRowPartials(r, scratch[i], slot, lanes);
          SmallVector<Value> results = r.finalize(b, loc, total, depth);
          for (auto [res, v] : llvm::zip(r.op->getResults(), results))
            known[res] = Lanes{v, lanes == 1};
        }
        // The scratch is rewritten by the next pass or tile.
        gpu::BarrierOp::create(b, loc);
      }

      // Outputs computed from the reductions: each thread's share again.
      forgetComputed();
      for (auto &u : unitList)
        withUnit(*u, [&] {
          for (Value out : sOutputs)
            if (dependsOnReduction.contains(out))
              storeOutput(out, sOutputIndex(out), lanes, guard(u->inRange));
        });
      // Reduced outputs: the first row of threads writes them.
      if (!rOutputs.empty()) {
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ty, k.constant(0));
        Value writes = arith::AndIOp::create(b, loc, first, valid);
        iterValues.assign(colValues.begin(), colValues.end());
        memo.clear();
        for (Value out : rOutputs)
          storeOutput(out, rIndex(out), lanes, writes);
        memo.clear();
      }
    });
  };
  emitVectorOrScalar(body);
  k.finish();
  if (fe.explain) {
    OuterKeys keys = outerKeys();
    fe.kernelNote =
        "outer normalization, columns of " + std::to_string(staticDepth) + ", " +
        std::to_string(vectorLanes) + (vectorLanes == 1 ? " lane" : " lanes") + ", " +
        std::to_string(outerX) + " threads along the kept dim" +
        (keys.threads ? " (reduction.column_threads)" : "") + ", " + std::to_string(outerY) +
        " rows of threads" + (keys.rows ? " (reduction.column_rows)" : "") + ", each thread " +
        "holding " + std::to_string((staticDepth + outerY - 1) / outerY * vectorLanes) +
        " values of its column on chip (at most " + std::to_string(kOuterValuesPerThread) +
        "; the heuristic: the most lanes and threads that still give a column tile per SM)";
  }
  k.launch({gridPlan}, {outerX, outerY}, Value(), condPlan, {flagPlan});
  kb = nullptr;
}
