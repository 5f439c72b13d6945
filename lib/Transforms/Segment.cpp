//===- Segment.cpp - partition fusions into kernel groups -----------------===//
//
// A group is a set of ops one scheduler turns into one kernel. Pointwise-class
// ops (elementwise, casts, constants, iota, broadcast and the shape ops) all
// meet in one group over one iteration space; a fusion whose ops are all of
// that class is one kernel.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Passes.h"
#include "fuser/Transforms/Segments.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_SEGMENTPASS
#include "fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

static bool isReduction(Operation *op) {
  return isa<SumOp, ProdOp, MaxOp, MinOp, MeanOp, AnyOp, AllOp, VarMeanOp>(op);
}

/// Whether every op a pointwise kernel can compute.
static bool isPointwiseClass(Operation *op) {
  return isa<FuserDialect>(op->getDialect()) && !isReduction(op) &&
         !isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp, LaunchOp,
              CheckOp, IsAlignedOp>(op);
}

namespace {
struct SegmentPass : fuser::impl::SegmentPassBase<SegmentPass> {
  using SegmentPassBase::SegmentPassBase;

  LogicalResult segment(func::FuncOp fusion) {
    Block &body = fusion.getBody().front();
    Builder b(fusion.getContext());
    for (Operation &op : body.without_terminator()) {
      if (isReduction(&op))
        return op.emitOpError("needs the reduction scheduler, which this "
                              "build of fuser does not have yet");
      if (!isPointwiseClass(&op))
        return op.emitOpError("cannot be placed in a kernel");
      op.setAttr(kSegmentAttr, b.getI64IntegerAttr(0));
    }
    fusion->setAttr(kSchedulersAttr, b.getStrArrayAttr({"pointwise"}));
    if (dump)
      llvm::errs() << "fusion @" << fusion.getSymName()
                   << ": 1 segment\n  segment 0: pointwise, "
                   << std::distance(body.begin(), body.end()) - 1 << " ops\n";
    return success();
  }

  void runOnOperation() override {
    for (auto fusion : getOperation().getOps<func::FuncOp>()) {
      if (fusion.isExternal() || fusion->hasAttr("fuser.plan"))
        continue;
      if (failed(segment(fusion)))
        return signalPassFailure();
    }
  }
};
} // namespace

FailureOr<SmallVector<Segment>> mlir::fuser::getSegments(func::FuncOp fusion) {
  auto names = fusion->getAttrOfType<ArrayAttr>(kSchedulersAttr);
  if (!names)
    return fusion.emitError("fusion is not segmented; run fuser-segment first");
  SmallVector<Segment> segments(names.size());
  for (auto [i, n] : llvm::enumerate(names)) {
    segments[i].index = i;
    segments[i].scheduler = cast<StringAttr>(n).str();
  }
  Block &body = fusion.getBody().front();
  DenseMap<Operation *, unsigned> segmentOf;
  for (Operation &op : body.without_terminator()) {
    auto attr = op.getAttrOfType<IntegerAttr>(kSegmentAttr);
    if (!attr || attr.getInt() < 0 || attr.getInt() >= (int64_t)names.size())
      return op.emitOpError("has no valid ") << kSegmentAttr << " annotation";
    segmentOf[&op] = attr.getInt();
    segments[attr.getInt()].ops.push_back(&op);
  }
  Operation *ret = body.getTerminator();
  for (Segment &s : segments) {
    for (Operation *op : s.ops) {
      for (Value in : op->getOperands()) {
        Operation *def = in.getDefiningOp();
        if (!def || segmentOf[def] != s.index)
          s.inputs.insert(in);
      }
      for (Value r : op->getResults())
        for (OpOperand &use : r.getUses())
          if (use.getOwner() == ret || segmentOf[use.getOwner()] != s.index)
            s.outputs.insert(r);
    }
  }
  return segments;
}
