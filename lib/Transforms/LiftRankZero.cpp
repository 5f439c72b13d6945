//===- LiftRankZero.cpp - ops along a dim of a scalar, as of a [1] tensor -===//
//
// PyTorch reads a rank-0 tensor's dim 0 or -1 as the dim of its one element:
// torch.sum(s, 0), s.cumsum(0), s.cummax(-1), torch.softmax(s, 0) and
// torch.var_mean(s, 0) all run, and give what the same op gives on the
// one-element tensor s.reshape(1), reshaped back, except that cumsum,
// cumprod and prod copy the scalar. fuser's ops along a dim take a rank-0 input
// with dim 0 (the verifiers), and these patterns make them exactly that: a
// reshape to tensor<1xT>, the op over dim 0, a reshape back to rank 0, or
// the input itself for cumsum, cumprod and prod. No scheduler, shape rule,
// gradient rule or sharding model then meets a dim a tensor does not have.
// fuser-decompose runs the pattern first; fuser-partition runs the pass
// (fuser-lift-rank-zero) before its propagation; fuser-vjp lifts a copy of
// the forward before its rules.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_LIFTRANKZEROPASS
#include "fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Whether `op` reduces over `dims` (and so has a `keepdim`); the others
/// keep their input's shape (scans, softmax, log_softmax).
bool isReduction(Operation *op) {
  return isa<SumOp, ProdOp, MaxOp, MinOp, MeanOp, AnyOp, AllOp, VarMeanOp>(op);
}

/// `op`, an op along a dim of a rank-0 input, rebuilt over that input
/// reshaped to [1]: a reduction without keepdim (its results are rank 0
/// either way), a shape-keeping op with [1] results reshaped back.
/// PyTorch's cumsum, cumprod and prod of a scalar copy it (a -0.0 stays
/// -0.0, where a [1] tensor's cumsum adds it to +0.0; the gradient of its
/// prod is the cotangent, also at an inf or NaN, where a [1] tensor's is
/// NaN): those become the input.
void lift(Operation *op, RewriterBase &rewriter) {
  rewriter.setInsertionPoint(op);
  if (isa<CumsumOp, CumprodOp, ProdOp>(op)) {
    rewriter.replaceOp(op, op->getOperand(0));
    return;
  }
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  Location loc = op->getLoc();
  Value lifted = ReshapeOp::create(rewriter, loc, RankedTensorType::get({1}, in.getElementType()),
                                   op->getOperand(0));
  bool reduction = isReduction(op);
  SmallVector<Type> types;
  for (Type t : op->getResultTypes())
    types.push_back(reduction ? t
                              : RankedTensorType::get({1}, cast<ShapedType>(t).getElementType()));
  NamedAttrList attrs(op->getAttrs());
  if (reduction)
    attrs.set("keepdim", rewriter.getBoolAttr(false));
  OperationState state(loc, op->getName());
  state.addOperands(lifted);
  state.addTypes(types);
  state.addAttributes(attrs);
  Operation *made = rewriter.create(state);
  SmallVector<Value> results;
  for (auto [r, old] : llvm::zip(made->getResults(), op->getResults()))
    results.push_back(r.getType() == old.getType()
                          ? Value(r)
                          : ReshapeOp::create(rewriter, loc, old.getType(), r).getResult());
  rewriter.replaceOp(op, results);
}

/// lift() as a pattern, for fuser-decompose's greedy rewrite: ahead of the
/// expansions (a higher benefit), which assume the dims they reduce exist.
struct LiftRankZero : RewritePattern {
  LiftRankZero(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/10, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isAlongDimOfScalar(op))
      return rewriter.notifyMatchFailure(op, "not an op along a dim of a rank-0 input");
    lift(op, rewriter);
    return success();
  }
};

struct LiftRankZeroPass : fuser::impl::LiftRankZeroPassBase<LiftRankZeroPass> {
  void runOnOperation() override { liftRankZero(getOperation()); }
};

} // namespace

void mlir::fuser::populateLiftRankZeroPatterns(RewritePatternSet &patterns) {
  patterns.add<LiftRankZero>(patterns.getContext());
}

void mlir::fuser::liftRankZero(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isAlongDimOfScalar(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (Operation *op : ops)
    lift(op, rewriter);
}
