//===- HorizontalPointwise.cpp - independent pointwise segments, one launch ===//
//
// A fusion's pointwise segments whose outputs differ in shape cannot share
// one iteration space, so the segmenter keeps them apart: RoPE on q and on
// k with fewer key heads than query heads (grouped-query attention) is two
// segments. Where none reads what another computes, they need not be two
// launches: one kernel runs them side by side, each on its own blocks.
// Blocks [0, B0) run the first segment's grid-stride loop as its own kernel
// would with a grid of B0, blocks [B0, B0 + B1) the second's, and so on.
// Each segment keeps its whole schedule (lanes, the plan's vector flag,
// units, waves, concat pieces); the plan passes each one's vector flag and
// block count as the kernel's flags (2i and 2i + 1), and launches the sum.
// A segment whose count is 0 (no elements, or its index-width variant not
// chosen) gets no blocks.
//
// Segments join when they take the plain pointwise loop with the same
// block size and index widths; one in the transpose shape keeps its own
// kernel. EmitKernels.cpp offers only light segments (kHorizontalOps):
// LLVM compiles a fusion's kernels in parallel, one kernel it does not.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "PointwiseScheduler.h"

#include "fuser/Analysis/GroupAnalysis.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// Sets the schedule `segment`'s kernels read (as EmitKernels does for a
/// segment of its own).
void enterSegment(FusionEmitter &fe, const Segment &segment) {
  fe.schedule = Schedule::fromAttr(dyn_cast_or_null<ScheduleAttr>(segment.schedule));
}
} // namespace

SmallVector<const Segment *>
PointwiseScheduler::emitHorizontal(FusionEmitter &fe, ArrayRef<const Segment *> segments) {
  // Planning reads each segment's schedule; the caller's (the first
  // segment's) is back on return, so that a first segment left alone is
  // emitted under its own.
  Schedule entry = fe.schedule;
  llvm::scope_exit restore([&] { fe.schedule = entry; });
  std::vector<std::unique_ptr<PointwiseScheduler>> subs;
  SmallVector<const Segment *> joined;
  for (const Segment *s : segments) {
    enterSegment(fe, *s);
    auto p = std::make_unique<PointwiseScheduler>(fe, *s);
    bool plain = succeeded(p->plan()) && !p->transposeShape;
    if (plain)
      p->readSchedule();
    if (!plain || (!subs.empty() && p->block != subs.front()->block)) {
      if (subs.empty())
        return {}; // the first segment takes its own kernel
      continue;
    }
    subs.push_back(std::move(p));
    joined.push_back(s);
  }
  if (subs.size() < 2)
    return {};

  // The index width: segments join only where they need the same widths
  // (a small segment's kernel is not made 64-bit by a large one's), both
  // variants where each may take either (the plan choosing 32 when every
  // segment fits).
  IndexWidths widths;
  for (size_t i = 0; i < subs.size();) {
    PointwiseScheduler &p = *subs[i];
    enterSegment(fe, p.seg);
    IndexWidths w = p.planIndexWidths(p.maxElementsWith(fe.shapes.numElements(p.ref)));
    if (i > 0 && w.widths != widths.widths) {
      subs.erase(subs.begin() + i);
      joined.erase(joined.begin() + i);
      continue;
    }
    widths.widths = w.widths;
    if (w.fits32)
      widths.fits32 = widths.fits32 ? arith::AndIOp::create(fe.planBuilder, fe.loc,
                                                            widths.fits32, w.fits32)
                                          .getResult()
                                    : w.fits32;
    ++i;
  }
  if (subs.size() < 2)
    return {};

  bool reportsIndexErrors = llvm::any_of(joined, [](const Segment *s) {
    return llvm::any_of(s->ops, isIndexingOp);
  });
  PointwiseScheduler &lead = *subs.front();
  lead.forEachIndexWidth(widths, [&](unsigned indexBits) {
    llvm::SetVector<Value> inputs, outputs;
    SmallVector<unsigned> symbols;
    for (const Segment *s : joined) {
      for (Value v : orderedInputs(*s))
        inputs.insert(v);
      outputs.insert(s->outputs.begin(), s->outputs.end());
      for (unsigned k : segmentSymbols(fe.shapes, *s))
        if (!llvm::is_contained(symbols, k))
          symbols.push_back(k);
    }
    llvm::sort(symbols);
    fe.segmentReportsIndexErrors = reportsIndexErrors;
    KernelBuilder k(fe, fe.newKernelName(), indexBits, inputs.getArrayRef(),
                    outputs.getArrayRef(), symbols, /*numFlags=*/2 * subs.size(), {lead.block});
    OpBuilder &b = k.b;
    Location loc = k.loc;
    Value bid = k.blockId(gpu::Dimension::x);
    Value start = k.constant(0);
    for (auto [i, p] : llvm::enumerate(subs)) {
      enterSegment(fe, p->seg);
      p->variantCondition = lead.variantCondition;
      p->kb = &k;
      p->vectorFlag = 2 * i;
      p->indexByIteration(k);
      Value count = k.flag(2 * i + 1);
      if (count.getType() != k.idxTy)
        count = arith::ExtUIOp::create(b, loc, k.idxTy, count);
      Value end = i == 0 ? count : arith::AddIOp::create(b, loc, start, count).getResult();
      Value mine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, bid, end);
      if (i > 0)
        mine = arith::AndIOp::create(
            b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, bid, start), mine);
      auto ifMine = scf::IfOp::create(b, loc, TypeRange{}, mine, false);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&ifMine.getThenRegion().front());
        p->emitBody(i == 0 ? bid : arith::SubIOp::create(b, loc, bid, start).getResult(), count);
      }
      start = end;
    }
    k.finish();

    // The plan: each segment's grid, none where its launch condition fails.
    OpBuilder &pb = fe.planBuilder;
    SmallVector<Value> flags;
    Value total = fe.planConstant(0);
    std::string note = "horizontal, " + std::to_string(subs.size()) + " segments";
    for (auto &p : subs) {
      enterSegment(fe, p->seg);
      Grid g = p->planGrid();
      Value blocks = arith::SelectOp::create(pb, fe.loc, g.cond, g.blocks, fe.planConstant(0));
      flags.push_back(g.flag);
      flags.push_back(blocks);
      total = arith::AddIOp::create(pb, fe.loc, total, blocks);
      if (fe.explain)
        note += "; segment " + std::to_string(p->seg.index) + "'s blocks: " + g.note;
    }
    Value cond = arith::CmpIOp::create(pb, fe.loc, arith::CmpIPredicate::sgt, total,
                                       fe.planConstant(0));
    if (fe.explain)
      fe.kernelNote = note;
    k.launch({total}, {lead.block}, Value(), cond, flags);
    for (auto &p : subs)
      p->kb = nullptr;
  });
  return joined;
}
