//===- TransposeScheduler.cpp - tiled transpose for pointwise segments ----===//
//
// When an input is read across its contiguous dim (a permute of the inner
// dims), reading it along the output's inner dim would touch one element per
// 32-byte sector. Instead each block handles a 32x32 tile of (transposed dim,
// inner dim): it first reads the tile of every such input along the input's
// contiguous dim into shared memory (coalesced), synchronizes, then computes
// the outputs along the output's inner dim (coalesced), taking those inputs
// from shared memory. Other inputs are read directly. Tiles are padded to 33
// columns so the transposed reads hit 32 different banks.
//
// Threads are 32x8: each does 4 rows of the tile per phase. Tiles at the
// edges are partial; every access is predicated on the sizes. The tile, the
// threads along it and the grid's cap are schedule keys (transpose.*,
// docs/schedulers.md); every schedule moves the same elements, so gives the
// same bits.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseEmitter.h"
#include "PointwiseScheduler.h"

#include "fuser/Analysis/IndexMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser;

bool PointwiseScheduler::planTranspose() {
  if (numIterDims < 2)
    return false;
  unsigned q = numIterDims;
  // For each input access read across the lane dim, the iteration dim along
  // which it is contiguous.
  SmallVector<unsigned> votes(q, 0);
  SmallVector<SmallVector<std::pair<Value, AffineExpr>>> byDim(q);
  for (auto [k, leaf] : llvm::enumerate(leafOffsets)) {
    auto &[v, off] = leaf;
    // A tile is read whole: an access a pad or concat guards may lie
    // outside its input where it is not picked (seed-135).
    if (leafGuarded[k])
      continue;
    AffineExpr o = toIteration(off);
    auto c = linearCoefficients(o, q);
    if (!c)
      continue;
    auto lane = dyn_cast<AffineConstantExpr>(simplify((*c)[q], 0, numSymbols));
    if (lane && (lane.getValue() == 0 || lane.getValue() == 1))
      continue;
    for (unsigned j = 0; j + 1 < q; ++j) {
      auto cj = dyn_cast<AffineConstantExpr>(simplify((*c)[j + 1], 0, numSymbols));
      if (cj && cj.getValue() == 1) {
        ++votes[j];
        bool seen = llvm::any_of(byDim[j], [&](auto &p) { return p.first == v && p.second == o; });
        if (!seen)
          byDim[j].push_back({v, o});
        break;
      }
    }
  }
  unsigned best = std::max_element(votes.begin(), votes.end()) - votes.begin();
  if (votes[best] == 0)
    return false;
  transposeDim = best;
  for (auto &[v, o] : byDim[best])
    staged.push_back({v, o, Value()});
  return true;
}

int64_t PointwiseScheduler::stagedTileBytes() {
  const int64_t kTile = fe.schedule.valueOr(ScheduleKey::TransposeTile);
  int64_t bytes = 0;
  for (Staged &s : staged)
    bytes += kTile * (kTile + 1) *
             ((KernelBuilder::memoryType(elementTypeOf(s.input)).getIntOrFloatBitWidth() + 7) /
              8);
  return bytes;
}

Value PointwiseScheduler::stagedLoad(Value input, AffineExpr offset) {
  if (transposeDim < 0 || !tileRow)
    return {};
  for (Staged &s : staged) {
    if (s.input != input || s.offset != offset)
      continue;
    Value v = memref::LoadOp::create(kb->b, kb->loc, s.tile,
                                     ValueRange{asIndex(tileRow), asIndex(tileCol)});
    return kb->fromMemory(v, elementTypeOf(input));
  }
  return {};
}

LogicalResult PointwiseScheduler::emitTransposeKernel(unsigned indexBits) {
  const int64_t kTile = fe.schedule.valueOr(ScheduleKey::TransposeTile);
  const int64_t kRows = fe.schedule.valueOr(ScheduleKey::TransposeRows);
  // The staged tiles are static shared memory: a large tile of several
  // wide inputs may not fit, which is the schedule's error, not a kernel
  // that fails to load.
  int64_t stagedBytes = stagedTileBytes();
  if (stagedBytes > kStaticSharedBytes)
    return fe.fusion.emitError("transpose.tile = ")
           << kTile << " stages " << staged.size() << " input tile"
           << (staged.size() == 1 ? "" : "s") << " of " << kTile << " x " << kTile + 1
           << " elements, " << stagedBytes << " bytes of shared memory, more than a block's "
           << kStaticSharedBytes << ": take a smaller transpose.tile";
  SmallVector<unsigned> symbols = segmentSymbols(fe.shapes, seg);
  SmallVector<Value> inputs = orderedInputs(seg);
  SmallVector<Value> outputs(seg.outputs.begin(), seg.outputs.end());
  KernelBuilder k(fe, fe.newKernelName(), indexBits, inputs, outputs, symbols,
                  /*numFlags=*/1, {kTile, kRows});
  kb = &k;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  indexByIteration(k);
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::GPUDialect::getWorkgroupAddressSpace());
  for (Staged &s : staged) {
    Type elem = KernelBuilder::memoryType(elementTypeOf(s.input));
    auto t = MemRefType::get({kTile, kTile + 1}, elem, MemRefLayoutAttrInterface(), workgroup);
    s.tile = k.func.addWorkgroupAttribution(t, loc);
  }

  unsigned q = numIterDims, t = transposeDim, inner = q - 1;
  auto cst = [&](int64_t v) { return k.constant(v); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y).getResult(); };
  auto mul = [&](Value x, Value y) { return arith::MulIOp::create(b, loc, x, y).getResult(); };
  auto lt = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y).getResult();
  };
  Value tx = k.threadId(gpu::Dimension::x), ty = k.threadId(gpu::Dimension::y);
  Value sizeT = k.expander->expand(iterSizes[t]);
  Value sizeI = k.expander->expand(iterSizes[inner]);
  Value tilesT = arith::CeilDivUIOp::create(b, loc, sizeT, cst(kTile));
  Value tilesI = arith::CeilDivUIOp::create(b, loc, sizeI, cst(kTile));
  SmallVector<unsigned> batchDims;
  AffineExpr batchExpr = getAffineConstantExpr(1, ctx);
  for (unsigned j = 0; j < q; ++j)
    if (j != t && j != inner) {
      batchDims.push_back(j);
      batchExpr = batchExpr * iterSizes[j];
    }
  Value batch = k.expander->expand(simplify(batchExpr, 0, numSymbols));
  Value total = mul(mul(batch, tilesT), tilesI);
  Value bid = k.blockId(gpu::Dimension::x), grid = k.gridDim(gpu::Dimension::x);

  auto tiles = scf::ForOp::create(b, loc, bid, total, grid);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(tiles.getBody());
    ExprScope tileScope(*k.expander);
    Value tile = tiles.getInductionVar();
    Value ti = arith::RemUIOp::create(b, loc, tile, tilesI);
    Value rest = arith::DivUIOp::create(b, loc, tile, tilesI);
    Value tt = arith::RemUIOp::create(b, loc, rest, tilesT);
    Value bIdx = arith::DivUIOp::create(b, loc, rest, tilesT);
    // Batch coordinates, row-major over the batch dims.
    SmallVector<Value> coords(q);
    for (size_t n = batchDims.size(); n-- > 0;) {
      unsigned j = batchDims[n];
      if (n == 0) {
        coords[j] = bIdx;
        break;
      }
      Value size = k.expander->expand(iterSizes[j]);
      coords[j] = arith::RemUIOp::create(b, loc, bIdx, size);
      bIdx = arith::DivUIOp::create(b, loc, bIdx, size);
    }
    Value baseT = mul(tt, cst(kTile)), baseI = mul(ti, cst(kTile));

    // Runs `body` for the 4 rows of this thread, with the iteration dims set
    // to (transposed, inner) and the guard that they are in range.
    auto forRows = [&](function_ref<std::pair<Value, Value>(Value row)> at,
                       function_ref<void(Value row)> body) {
      auto rows = scf::ForOp::create(b, loc, cst(0), cst(kTile / kRows), cst(1));
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(rows.getBody());
      ExprScope rowScope(*k.expander);
      Value row = add(ty, mul(rows.getInductionVar(), cst(kRows)));
      auto [mt, mi] = at(row);
      iterValues = coords;
      iterValues[t] = mt;
      iterValues[inner] = mi;
      Value ok = arith::AndIOp::create(b, loc, lt(mt, sizeT), lt(mi, sizeI));
      auto guard = scf::IfOp::create(b, loc, TypeRange{}, ok, false);
      b.setInsertionPointToStart(&guard.getThenRegion().front());
      ExprScope guardScope(*k.expander);
      body(row);
    };

    // Phase 1: stage the transposed inputs, reading along their contiguous
    // dim (consecutive threads, consecutive addresses).
    forRows([&](Value row) { return std::make_pair(add(baseT, tx), add(baseI, row)); },
            [&](Value row) {
              for (Staged &s : staged) {
                Type elem = elementTypeOf(s.input);
                Value v = k.toMemory(
                    k.load(k.pointer(s.input), elem, k.expander->expand(s.offset), 1));
                // Testing only: a wrong index mapping, the tile transposed.
                bool wrong = fe.plantBug == "wrong-index";
                memref::StoreOp::create(b, loc, v, s.tile,
                                        wrong ? ValueRange{asIndex(tx), asIndex(row)}
                                              : ValueRange{asIndex(row), asIndex(tx)});
              }
            });
    if (fe.plantBug != "missing-barrier")
      gpu::BarrierOp::create(b, loc);
    // Phase 2: compute along the output's inner dim, the staged inputs
    // coming from the tile's transpose.
    forRows([&](Value row) { return std::make_pair(add(baseT, row), add(baseI, tx)); },
            [&](Value row) {
              tileRow = tx;
              tileCol = row;
              memo.clear();
              SmallVector<AffineExpr> dIdx;
              for (unsigned d = 0; d < refRank; ++d)
                dIdx.push_back(getAffineDimExpr(d, ctx));
              // Every piece of a dim a concat split (ConcatPieces.cpp): the
              // tile covers one piece, and each piece's inputs have their
              // own staged tiles.
              for (unsigned p = 0; p < pieces.count; ++p) {
                for (Value out : seg.outputs) {
                  Index idx = pieceIndex(Index{false, dIdx}, p);
                  Lanes v = emit(out, idx, 1);
                  AffineExpr off = toIteration(linearIndex(out, idx));
                  k.store(k.pointer(out), v.value, k.expander->expand(off));
                }
              }
              tileRow = tileCol = Value();
            });
    // The next tile overwrites the staged tiles.
    gpu::BarrierOp::create(b, loc);
  }
  k.finish();

  // The plan: one block per tile, at most transpose.waves full waves.
  AffineExpr tilesExpr = simplify(batchExpr * iterSizes[t].ceilDiv(kTile) *
                                      iterSizes[inner].ceilDiv(kTile),
                                  0, numSymbols);
  AffineExpr totalExpr = getAffineConstantExpr(1, ctx);
  for (AffineExpr s : iterSizes)
    totalExpr = totalExpr * s;
  OpBuilder &pb = fe.planBuilder;
  int64_t maxBlocks = fe.target.smCount *
                      std::max<int64_t>(1, fe.target.maxThreadsPerSM / (kTile * kRows)) *
                      fe.schedule.valueOr(ScheduleKey::TransposeWaves);
  Value blocks = arith::MinUIOp::create(pb, fe.loc, fe.planExpr(tilesExpr),
                                        fe.planConstant(maxBlocks));
  Value cond = arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::sgt,
                                     fe.planExpr(simplify(totalExpr, 0, numSymbols)),
                                     fe.planConstant(0));
  if (variantCondition)
    cond = arith::AndIOp::create(pb, fe.loc, cond, variantCondition);
  if (fe.explain)
    fe.kernelNote = "transpose, " + std::to_string(kTile) + " x " + std::to_string(kTile) +
                    " tiles staged in shared memory (transpose.tile), " + std::to_string(kRows) +
                    " rows of threads (transpose.rows), " +
                    (pieces.count > 1 ? "each tile in " + piecesNote() + ", " : std::string()) +
                    "grid at most " +
                    std::to_string(fe.schedule.valueOr(ScheduleKey::TransposeWaves)) +
                    " waves (transpose.waves)";
  k.launch({blocks}, {kTile, kRows}, Value(), cond, {fe.planConstant(0)});
  kb = nullptr;
  return success();
}
