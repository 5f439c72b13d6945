//===- LowerIfs.cpp - scf.if and scf.for to cf branches, back to front ----===//
//
// Upstream's scf.if and scf.for lowerings, applied in the reverse of
// program order so that the block splits they need move each op once (see
// the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_LOWERIFSPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

/// Replaces `ifOp` by
///
///   ^before: ...  cf.cond_br %cond, ^then, ^else
///   ^then: ...    cf.br ^continue(%yielded...)
///   ^else: ...    cf.br ^continue(%yielded...)   (or straight to ^continue)
///   ^continue(%results...): cf.br ^after
///   ^after: the ops that followed the if
///
/// as upstream's IfLowering does. Only the ops after `ifOp` in its block
/// move.
void lowerIf(scf::IfOp ifOp) {
  OpBuilder b(ifOp);
  Location loc = ifOp.getLoc();
  Block *before = ifOp->getBlock();
  Block *after = before->splitBlock(std::next(Block::iterator(ifOp)));
  Region *region = before->getParent();
  // The results arrive as the continuation's arguments.
  Block *cont = after;
  if (ifOp.getNumResults() != 0) {
    SmallVector<Location> locs(ifOp.getNumResults(), loc);
    cont = b.createBlock(after, ifOp.getResultTypes(), locs);
    cf::BranchOp::create(b, loc, after);
  }
  // Each region's blocks move before the continuation; its scf.yield
  // becomes a branch there.
  auto inlineRegion = [&](Region &r) -> Block * {
    Block *entry = &r.front();
    Operation *yield = r.back().getTerminator();
    OpBuilder y(yield);
    cf::BranchOp::create(y, loc, cont, yield->getOperands());
    yield->erase();
    region->getBlocks().splice(Region::iterator(cont), r.getBlocks());
    return entry;
  };
  Block *thenBlock = inlineRegion(ifOp.getThenRegion());
  Block *elseBlock = ifOp.getElseRegion().empty() ? cont : inlineRegion(ifOp.getElseRegion());
  b.setInsertionPointToEnd(before);
  cf::CondBranchOp::create(b, loc, ifOp.getCondition(), thenBlock, ValueRange{}, elseBlock,
                           ValueRange{});
  ifOp.replaceAllUsesWith(cont->getArguments());
  ifOp.erase();
}

/// Replaces `forOp` by
///
///   ^before: ...  cf.br ^cond(%lb, %init...)
///   ^cond(%iv, %carried...): %c = cmpi slt (ult), %iv, %ub
///                 cf.cond_br %c, ^body, ^after
///   ^body: ...    cf.br ^cond(%iv + %step, %yielded...)
///   ^after: the ops that followed the loop, %carried... as its results
///
/// as upstream's ForLowering does (the LLVM attributes of the loop, such as
/// a loop annotation, go to the back edge). The body's ops move once, into
/// ^body; the ops after the loop once, into ^after.
void lowerFor(scf::ForOp forOp) {
  Location loc = forOp.getLoc();
  Block *before = forOp->getBlock();
  Block *after = before->splitBlock(std::next(Block::iterator(forOp)));
  Block *cond = &forOp.getRegion().front();
  Block *body = cond->splitBlock(cond->begin());
  Block *last = &forOp.getRegion().back();
  before->getParent()->getBlocks().splice(Region::iterator(after),
                                          forOp.getRegion().getBlocks());
  Value iv = cond->getArgument(0);
  Operation *yield = last->getTerminator();
  OpBuilder b = OpBuilder::atBlockEnd(last);
  SmallVector<Value> carried{arith::AddIOp::create(b, loc, iv, forOp.getStep())};
  llvm::append_range(carried, yield->getOperands());
  auto backEdge = cf::BranchOp::create(b, loc, cond, carried);
  SmallVector<NamedAttribute> llvmAttrs;
  llvm::copy_if(forOp->getDiscardableAttrs(), std::back_inserter(llvmAttrs),
                [](NamedAttribute a) { return isa<LLVM::LLVMDialect>(a.getValue().getDialect()); });
  backEdge->setDiscardableAttrs(llvmAttrs);
  yield->erase();
  b.setInsertionPointToEnd(before);
  SmallVector<Value> init{forOp.getLowerBound()};
  llvm::append_range(init, forOp.getInitArgs());
  cf::BranchOp::create(b, loc, cond, init);
  b.setInsertionPointToEnd(cond);
  auto predicate = forOp.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
  Value more = arith::CmpIOp::create(b, loc, predicate, iv, forOp.getUpperBound());
  cf::CondBranchOp::create(b, loc, more, body, ValueRange{}, after, ValueRange{});
  forOp.replaceAllUsesWith(cond->getArguments().drop_front());
  forOp.erase();
}

/// Whether every op between `op` and the function around it is an scf.if
/// or scf.for, which are lowered before `op`: then `op`'s block may become
/// several. Inside anything else (scf.while, scf.parallel, ...), whose
/// regions must stay one block, upstream's convert-scf-to-cf lowers it.
bool onlyIfsAndForsAround(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
    if (isa<FunctionOpInterface>(p))
      return true;
    if (!isa<scf::IfOp, scf::ForOp>(p))
      return false;
  }
  return false;
}

struct LowerIfsPass : fuser::impl::LowerIfsPassBase<LowerIfsPass> {
  void runOnOperation() override {
    // Post-order lists an op after the ops inside it and after the ops
    // before it in its block; back to front then lowers each block's last
    // if or loop first, and an outer one before those its regions hold.
    SmallVector<Operation *> ops;
    getOperation()->walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (isa<scf::IfOp, scf::ForOp>(op) && onlyIfsAndForsAround(op))
        ops.push_back(op);
    });
    for (Operation *op : llvm::reverse(ops)) {
      if (auto ifOp = dyn_cast<scf::IfOp>(op))
        lowerIf(ifOp);
      else
        lowerFor(cast<scf::ForOp>(op));
    }
  }
};

} // namespace
