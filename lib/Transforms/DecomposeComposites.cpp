//===- DecomposeComposites.cpp - expand composite fuser ops ---------------===//
//
// softmax, log_softmax, layer_norm and rms_norm become reductions,
// broadcasts and elementwise ops; dropout becomes fuser.rand and
// elementwise ops. The expansions compute in f32 for f16/bf16
// inputs (as PyTorch does) and follow PyTorch's order of operations, so the
// result rounds the same way.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_DECOMPOSECOMPOSITESPASS
#include "fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Builds the primitive ops of one expansion at one location.
struct Expander {
  PatternRewriter &rewriter;
  Location loc;

  static bool isHalf(Type t) { return t.isF16() || t.isBF16(); }

  RankedTensorType typeOf(Value v) {
    return cast<RankedTensorType>(v.getType());
  }

  /// Casts `v` to element type `elem` (no-op when it has it).
  Value castTo(Value v, Type elem) {
    RankedTensorType t = typeOf(v);
    if (t.getElementType() == elem)
      return v;
    return CastOp::create(rewriter, loc, t.clone(elem), v);
  }

  /// The f32 compute value of `v`: half types widen, others stay.
  Value widen(Value v) {
    Type e = typeOf(v).getElementType();
    return isHalf(e) ? castTo(v, rewriter.getF32Type()) : v;
  }

  Value scalar(Type elem, double value) {
    auto t = RankedTensorType::get({}, elem);
    return ConstantOp::create(rewriter, loc, t, rewriter.getFloatAttr(elem, value));
  }

  /// Broadcasts the reduction result `r` (reduced over `dims`, keepdim false)
  /// back to `like`'s shape.
  Value broadcastBack(Value r, RankedTensorType like, ArrayRef<int64_t> dims) {
    SmallVector<int64_t> kept;
    for (int64_t i = 0; i < like.getRank(); ++i)
      if (!llvm::is_contained(dims, i))
        kept.push_back(i);
    return BroadcastOp::create(rewriter, loc, like.clone(typeOf(r).getElementType()),
                               r, kept);
  }

  /// Broadcasts a keepdim reduction result (size-1 dims) to `like`'s shape.
  Value expand(Value r, RankedTensorType like) {
    SmallVector<int64_t> all;
    for (int64_t i = 0; i < like.getRank(); ++i)
      all.push_back(i);
    return BroadcastOp::create(rewriter, loc, like.clone(typeOf(r).getElementType()),
                               r, all);
  }

  /// Broadcasts an affine parameter of the trailing shape to `like`'s shape.
  Value broadcastTrailing(Value p, RankedTensorType like) {
    int64_t k = typeOf(p).getRank();
    SmallVector<int64_t> dims;
    for (int64_t i = like.getRank() - k; i < like.getRank(); ++i)
      dims.push_back(i);
    return BroadcastOp::create(rewriter, loc, like.clone(typeOf(p).getElementType()),
                               p, dims);
  }
};

/// softmax and log_softmax: x - max is exact, so both forms stay stable for
/// large inputs.
template <typename OpTy, bool isLog>
struct DecomposeSoftmax : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    Expander e{rewriter, op.getLoc()};
    RankedTensorType inType = op.getInput().getType();
    Value x = e.widen(op.getInput());
    RankedTensorType xType = e.typeOf(x);
    SmallVector<int64_t> dims{op.getDimAttr().getInt()};
    Value max = MaxOp::create(rewriter, op.getLoc(), x, dims, false);
    Value shifted = SubOp::create(rewriter, op.getLoc(), x, e.broadcastBack(max, xType, dims));
    Value exp = ExpOp::create(rewriter, op.getLoc(), shifted);
    Value sum = SumOp::create(rewriter, op.getLoc(), exp, dims, false);
    Value y;
    if (isLog) {
      Value logSum = LogOp::create(rewriter, op.getLoc(), sum);
      y = SubOp::create(rewriter, op.getLoc(), shifted, e.broadcastBack(logSum, xType, dims));
    } else {
      y = DivOp::create(rewriter, op.getLoc(), exp, e.broadcastBack(sum, xType, dims),
                        RoundingMode::none);
    }
    rewriter.replaceOp(op, e.castTo(y, inType.getElementType()));
    return success();
  }
};

/// layer_norm: mean, then the mean of the squared deviations from it (two
/// passes over the row, which the normalization scheduler keeps in
/// registers: more exact than Welford's one pass, and a plain sum per lane
/// instead of Welford's three accumulators), rstd = rsqrt(var + eps),
/// y = (x - mean) * rstd [* weight] [+ bias].
struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op, PatternRewriter &rewriter) const override {
    Expander e{rewriter, op.getLoc()};
    Location loc = op.getLoc();
    RankedTensorType inType = op.getInput().getType();
    Value x = e.widen(op.getInput());
    RankedTensorType xType = e.typeOf(x);
    Type f = xType.getElementType();
    Value mean = MeanOp::create(rewriter, loc, x, op.getDims(), /*keepdim=*/true);
    Value centered = SubOp::create(rewriter, loc, x, e.expand(mean, xType));
    Value squares = MulOp::create(rewriter, loc, centered, centered);
    Value var = MeanOp::create(rewriter, loc, squares, op.getDims(), /*keepdim=*/true);
    Value varEps = AddOp::create(rewriter, loc, var, e.scalar(f, op.getEps().convertToDouble()));
    Value rstd = RsqrtOp::create(rewriter, loc, varEps);
    Value y = MulOp::create(rewriter, loc, centered, e.expand(rstd, xType));
    if (Value w = op.getWeight())
      y = MulOp::create(rewriter, loc, y, e.broadcastTrailing(e.widen(w), xType));
    if (Value b = op.getBias())
      y = AddOp::create(rewriter, loc, y, e.broadcastTrailing(e.widen(b), xType));
    Type statType = op.getMean().getType().getElementType();
    rewriter.replaceOp(op, {e.castTo(y, inType.getElementType()),
                            e.castTo(mean, statType), e.castTo(rstd, statType)});
    return success();
  }
};

/// rms_norm as PyTorch computes it: the normalized value is rounded to the
/// input type before the weight multiplies it.
struct DecomposeRmsNorm : OpRewritePattern<RmsNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RmsNormOp op, PatternRewriter &rewriter) const override {
    Expander e{rewriter, op.getLoc()};
    Location loc = op.getLoc();
    RankedTensorType inType = op.getInput().getType();
    Value x = e.widen(op.getInput());
    RankedTensorType xType = e.typeOf(x);
    Type f = xType.getElementType();
    Value sq = MulOp::create(rewriter, loc, x, x);
    Value ms = MeanOp::create(rewriter, loc, sq, op.getDims(), /*keepdim=*/true);
    Value msEps = AddOp::create(rewriter, loc, ms, e.scalar(f, op.getEps().convertToDouble()));
    Value rstd = RsqrtOp::create(rewriter, loc, msEps);
    Value y = MulOp::create(rewriter, loc, x, e.expand(rstd, xType));
    // The weight in f32 too, then one rounding to the input type, as
    // PyTorch's fused rms_norm (rounding x * rstd first would turn an
    // underflowed product times an inf weight into NaN; random-fusion seed
    // 695318108).
    if (Value w = op.getWeight())
      y = MulOp::create(rewriter, loc, y, e.broadcastTrailing(e.widen(w), xType));
    y = e.castTo(y, inType.getElementType());
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// dropout as torch.native_dropout: keep where the f32 uniform of
/// fuser.rand is below 1 - p, y = (x * keep) * scale with scale = 1 / (1 - p)
/// (0 when p is 1), in f32 for halves (f64 for f64), rounded once.
struct DecomposeDropout : OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DropoutOp op, PatternRewriter &rewriter) const override {
    Expander e{rewriter, op.getLoc()};
    Location loc = op.getLoc();
    RankedTensorType inType = op.getInput().getType();
    Value x = e.widen(op.getInput());
    Type f = e.typeOf(x).getElementType();
    RankedTensorType uType = inType.clone(rewriter.getF32Type());
    Value u = RandOp::create(rewriter, loc, uType, op.getSeed(), op.getOffset(), op.getInput());
    Value keepP = SubOp::create(rewriter, loc, e.scalar(f, 1.0), e.castTo(op.getP(), f));
    Value mask = LtOp::create(rewriter, loc, e.castTo(u, f), keepP);
    Value inverse = DivOp::create(rewriter, loc, e.scalar(f, 1.0), keepP, RoundingMode::none);
    Value none = EqOp::create(rewriter, loc, keepP, e.scalar(f, 0.0));
    Value scale = WhereOp::create(rewriter, loc, none, e.scalar(f, 0.0), inverse);
    Value kept = MulOp::create(rewriter, loc, x, e.castTo(mask, f));
    Value y = MulOp::create(rewriter, loc, kept, scale);
    rewriter.replaceOp(op, {e.castTo(y, inType.getElementType()), mask});
    return success();
  }
};

struct DecomposeCompositesPass
    : fuser::impl::DecomposeCompositesPassBase<DecomposeCompositesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateDecomposeCompositesPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::fuser::populateDecomposeCompositesPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeSoftmax<SoftmaxOp, false>, DecomposeSoftmax<LogSoftmaxOp, true>,
               DecomposeLayerNorm, DecomposeRmsNorm, DecomposeDropout>(patterns.getContext());
}
