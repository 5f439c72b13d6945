//===- DecomposeComposites.cpp - expand composite fuser ops ---------------===//
//
// softmax, log_softmax, layer_norm and rms_norm become reductions,
// pow with a constant exponent PyTorch's special cases (x * x, sqrt, ...),
// broadcasts and elementwise ops; dropout becomes fuser.rand and
// elementwise ops; the fp8 scaling composites (scaled_cast, quantize) an
// amax reduction, the scale's arithmetic and a saturating cast. The expansions compute in f32 for f16/bf16
// inputs (as PyTorch does) and follow PyTorch's order of operations, so the
// result rounds the same way.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

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
    // Over normalized dims of no element, native_layer_norm's mean is its
    // Welford accumulator's start, 0 (its rstd NaN, as here), where the
    // mean of nothing is NaN: where any normalized dim may be 0 (static 0
    // or dynamic), the mean returned is 0 for an empty row.
    Value meanOut = mean;
    if (llvm::any_of(op.getDims(), [&](int64_t d) { return inType.getDimSize(d) == 0 ||
                                                            inType.isDynamicDim(d); })) {
      RankedTensorType scalarType = RankedTensorType::get({}, f);
      Value n = e.scalar(f, 1.0);
      for (int64_t d : op.getDims())
        n = MulOp::create(rewriter, loc, n, SizeOp::create(rewriter, loc, scalarType, x, d));
      Value empty = EqOp::create(rewriter, loc, n, e.scalar(f, 0.0));
      meanOut = WhereOp::create(rewriter, loc, empty, e.scalar(f, 0.0), mean);
    }
    Type statType = op.getMean().getType().getElementType();
    rewriter.replaceOp(op, {e.castTo(y, inType.getElementType()),
                            e.castTo(meanOut, statType), e.castTo(rstd, statType)});
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

/// dropout as torch.native_dropout on the GPU: keep where the f32 uniform of
/// fuser.rand is below 1 - p, y = (x * keep) * scale with scale = 1 / (1 - p),
/// in f32 for halves (f64 for f64), rounded once; at p = 1, y is all +0 (the
/// CUDA kernel's short cut returns zeros_like(x), so an inf or NaN x gives
/// 0 there, not the NaN of inf * 0, and a negative x +0, not -0).
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
    Value kept = MulOp::create(rewriter, loc, x, e.castTo(mask, f));
    Value y = WhereOp::create(rewriter, loc, none, e.scalar(f, 0.0),
                              MulOp::create(rewriter, loc, kept, inverse));
    rewriter.replaceOp(op, {e.castTo(y, inType.getElementType()), mask});
    return success();
  }
};

/// The largest finite magnitude of an fp8 data format, and its largest
/// exponent (448 = 1.75 * 2^8, 57344 = 1.75 * 2^15).
static double fp8Max(Type t) { return isa<Float8E4M3FNType>(t) ? 448.0 : 57344.0; }
static int64_t fp8MaxExponent(Type t) { return isa<Float8E4M3FNType>(t) ? 8 : 15; }

/// An i32 rank-0 constant (elementwise ops broadcast rank-0 operands).
static Value i32Scalar(PatternRewriter &rewriter, Location loc, int64_t v) {
  Type i32 = rewriter.getI32Type();
  return ConstantOp::create(rewriter, loc, RankedTensorType::get({}, i32),
                            rewriter.getIntegerAttr(i32, v));
}

/// max(|x|) over `dims` (none: |x| itself), at least 0: an empty group's
/// max is -inf, the reduction's identity, and its amax is 0 like an
/// all-zero group's; NaN stays NaN.
static Value groupAmax(Expander &e, Location loc, Value x, ArrayRef<int64_t> dims, bool keep) {
  Value amax = AbsOp::create(e.rewriter, loc, x);
  if (!dims.empty())
    amax = MaxOp::create(e.rewriter, loc, amax, dims, keep);
  if (dims.empty())
    return amax;
  return MaximumOp::create(e.rewriter, loc, amax, e.scalar(e.rewriter.getF32Type(), 0.0));
}

/// cast(y) saturate to fp8, with every NaN of y the positive quiet NaN
/// first: a NaN that arithmetic made (inf * 0, NaN * scale) has the GPU's
/// canonical positive bits but the host CPU's own sign in the emulator,
/// and the fp8 code keeps the sign; so the code is 0x7f on every machine.
static Value saturatingCast(Expander &e, Location loc, Value y, RankedTensorType to) {
  Value nan = e.scalar(e.rewriter.getF32Type(), std::numeric_limits<double>::quiet_NaN());
  y = WhereOp::create(e.rewriter, loc, IsNanOp::create(e.rewriter, loc, y), nan, y);
  return CastOp::create(e.rewriter, loc, to, y, /*saturate=*/true);
}

/// scaled_cast: amax over the dims the scale is shared along, and
/// cast(x * scale) saturate.
struct DecomposeScaledCast : OpRewritePattern<ScaledCastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScaledCastOp op, PatternRewriter &rewriter) const override {
    Expander e{rewriter, op.getLoc()};
    Location loc = op.getLoc();
    Value x = e.castTo(op.getInput(), rewriter.getF32Type());
    RankedTensorType xType = e.typeOf(x);
    RankedTensorType scaleType = op.getScale().getType();
    SmallVector<int64_t> shared;
    for (int64_t d = 0; d < xType.getRank(); ++d)
      if (scaleType.getRank() == 0 || (scaleType.getDimSize(d) == 1 && xType.getDimSize(d) != 1))
        shared.push_back(d);
    Value amax = groupAmax(e, loc, x, shared, /*keep=*/scaleType.getRank() != 0);
    if (e.typeOf(amax) != scaleType) // a dim of size 1 on both sides
      amax = ReshapeOp::create(rewriter, loc, scaleType, amax);
    Value scale = op.getScale();
    if (scaleType.getRank() != 0)
      scale = e.expand(scale, xType);
    Value y = MulOp::create(rewriter, loc, x, scale);
    Value q = saturatingCast(e, loc, y, op.getResult().getType());
    rewriter.replaceOp(op, {q, amax});
    return success();
  }
};

/// quantize: x in groups (a block granularity reshapes [..., H] to
/// [..., H / N, N]), each group's amax, its scale by the recipe that the
/// scale's element type names, cast(x * multiplier) saturate, and the
/// results reshaped back.
struct DecomposeQuantize : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op, PatternRewriter &rewriter) const override {
    Expander e{rewriter, op.getLoc()};
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type(), f64 = rewriter.getF64Type();
    Type i32 = rewriter.getI32Type();
    Type fp8 = op.getResult().getType().getElementType();
    Value x = e.castTo(op.getInput(), f32);
    RankedTensorType xType = e.typeOf(x);
    QuantGranularity g = op.getGranularity();
    if (g == QuantGranularity::block) {
      SmallVector<int64_t> shape(xType.getShape());
      int64_t n = *op.getBlockSize();
      shape.back() /= n;
      shape.push_back(n);
      x = ReshapeOp::create(rewriter, loc, RankedTensorType::get(shape, f32), x);
    }
    RankedTensorType groups = e.typeOf(x);
    SmallVector<int64_t> dims;
    if (g == QuantGranularity::tensor)
      for (int64_t d = 0; d < groups.getRank(); ++d)
        dims.push_back(d);
    else
      dims.push_back(groups.getRank() - 1);
    bool keep = g != QuantGranularity::tensor;
    Value amax = groupAmax(e, loc, x, dims, keep); // rank 0: |x|
    Value multiplier, scale;
    if (op.getScale().getType().getElementType().isF32()) {
      // torchao: fmax / clamp(amax, min=1e-12) in f64, rounded to f32.
      Value a = e.castTo(amax, f64);
      Value clamped = MaximumOp::create(rewriter, loc, a, e.scalar(f64, 1e-12));
      Value s = DivOp::create(rewriter, loc, e.scalar(f64, fp8Max(fp8)), clamped,
                              RoundingMode::none);
      multiplier = scale = e.castTo(s, f32);
    } else {
      // OCP MX: the shared exponent from amax's exponent field, minus the
      // format's largest exponent, as an e8m0 code clamped to [0, 254];
      // 2^-exponent exactly (an f32 exponent field of 254 - code); the
      // scale 2^(code - 127), NaN where amax is NaN.
      RankedTensorType intType = e.typeOf(amax).clone(i32);
      Value bits = BitcastOp::create(rewriter, loc, intType, amax);
      Value field = AndOp::create(rewriter, loc,
                                  ShrOp::create(rewriter, loc, bits, i32Scalar(rewriter, loc, 23)),
                                  i32Scalar(rewriter, loc, 255));
      Value code = ClampOp::create(
          rewriter, loc,
          SubOp::create(rewriter, loc, field, i32Scalar(rewriter, loc, fp8MaxExponent(fp8))),
          i32Scalar(rewriter, loc, 0), i32Scalar(rewriter, loc, 254));
      Value inverse = ShlOp::create(
          rewriter, loc, SubOp::create(rewriter, loc, i32Scalar(rewriter, loc, 254), code),
          i32Scalar(rewriter, loc, 23));
      RankedTensorType amaxType = e.typeOf(amax);
      multiplier = BitcastOp::create(rewriter, loc, amaxType, inverse);
      Value pow2 = BitcastOp::create(
          rewriter, loc, amaxType,
          ShlOp::create(rewriter, loc, code, i32Scalar(rewriter, loc, 23)));
      Value nan = e.scalar(f32, std::numeric_limits<double>::quiet_NaN());
      pow2 = WhereOp::create(rewriter, loc, IsNanOp::create(rewriter, loc, amax), nan, pow2);
      scale = e.castTo(pow2, op.getScale().getType().getElementType());
    }
    if (keep)
      multiplier = e.expand(multiplier, groups);
    Value y = MulOp::create(rewriter, loc, x, multiplier);
    Value q = saturatingCast(e, loc, y, groups.clone(fp8));
    auto shapeAs = [&](Value v, RankedTensorType t) -> Value {
      return e.typeOf(v) == t ? v : ReshapeOp::create(rewriter, loc, t, v).getResult();
    };
    rewriter.replaceOp(op, {shapeAs(q, op.getResult().getType()),
                            shapeAs(scale, op.getScale().getType()),
                            shapeAs(amax, op.getAmax().getType())});
    return success();
  }
};

/// A GEMM reads each operand's batch of matrices with one stride: every
/// matrix once (the operand has all the result's batch dims) or one matrix
/// for all (it has none of them). An operand that broadcasts along some
/// batch dims but not others (`[2,1,m,k]` against `[1,3,k,n]`) is broadcast
/// to all of them first: a kernel writes it, and the library reads it.
struct MaterializeMatmulBatchBroadcast : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp mm, PatternRewriter &rewriter) const override {
    RankedTensorType r = mm.getType();
    int64_t ra = mm.getLhs().getType().getRank(), rb = mm.getRhs().getType().getRank();
    int64_t nb = r.getRank() - (ra >= 2) - (rb >= 2);
    bool changed = false;
    for (unsigned operand = 0; operand < 2; ++operand) {
      Value x = mm->getOperand(operand);
      auto t = cast<RankedTensorType>(x.getType());
      int64_t xb = t.getRank() > 2 ? t.getRank() - 2 : 0;
      // Which of the result's batch dims (those not of size 1) x has.
      unsigned has = 0, relevant = 0;
      for (int64_t i = 0; i < nb; ++i) {
        if (r.getDimSize(i) == 1)
          continue;
        ++relevant;
        int64_t xi = i - (nb - xb);
        if (xi >= 0 && t.getDimSize(xi) != 1)
          ++has;
      }
      if (has == 0 || has == relevant)
        continue;
      SmallVector<int64_t> shape(r.getShape().take_front(nb));
      shape.append(t.getShape().end() - 2, t.getShape().end());
      SmallVector<int64_t> dims;
      for (int64_t i = 0; i < t.getRank(); ++i)
        dims.push_back(i + (nb - xb));
      Value full = BroadcastOp::create(rewriter, mm.getLoc(), t.clone(shape), x, dims);
      rewriter.modifyOpInPlace(mm, [&] { mm->setOperand(operand, full); });
      changed = true;
    }
    return success(changed);
  }
};

/// pow with a constant float exponent as PyTorch's pow(Tensor, Scalar)
/// computes it (aten's pow_tensor_scalar special cases: on the GPU for
/// every float type, on the CPU for f32, f64 and bf16; its CPU f16 kernel
/// calls std::pow): x ** 2 is x * x, ** 3 is x * x * x, ** -2 is
/// 1 / (x * x), ** 0.5 sqrt, ** -0.5 rsqrt, ** -1 reciprocal and ** 1 x
/// (** 0, one everywhere, NaN included, is the general pow's already).
/// Multiplies, divisions and sqrt round once where the general pow is
/// within 2 ulp (x ** 2 differed from x * x in 9% of f32 inputs), and the
/// special values are PyTorch's: (-inf) ** 0.5 is NaN, (-0) ** -0.5 is
/// -inf. f16 and bf16 round after each multiply, as c10::Half's operators
/// do. Here, after autodiff (fuser-vjp), which keeps pow_backward's
/// formula.
struct DecomposeConstantPow : OpRewritePattern<PowOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowOp op, PatternRewriter &rewriter) const override {
    Value x = op.getLhs();
    if (x.getType() != op.getType() || !isa<FloatType>(op.getType().getElementType()))
      return failure();
    auto c = op.getRhs().getDefiningOp<ConstantOp>();
    auto attr = c ? dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
    if (!attr)
      return failure();
    double e = attr.getValueAsDouble();
    Location loc = op.getLoc();
    auto square = [&] { return MulOp::create(rewriter, loc, x, x).getResult(); };
    auto one = [&] {
      Type elem = op.getType().getElementType();
      return ConstantOp::create(rewriter, loc, RankedTensorType::get({}, elem),
                                rewriter.getFloatAttr(elem, 1.0))
          .getResult();
    };
    Value y;
    if (e == 2.0)
      y = square();
    else if (e == 3.0)
      y = MulOp::create(rewriter, loc, square(), x);
    else if (e == -2.0)
      y = DivOp::create(rewriter, loc, one(), square(), RoundingMode::none);
    else if (e == 0.5)
      y = SqrtOp::create(rewriter, loc, x);
    else if (e == -0.5)
      y = RsqrtOp::create(rewriter, loc, x);
    else if (e == -1.0)
      y = ReciprocalOp::create(rewriter, loc, x);
    else if (e == 1.0)
      y = x;
    else
      return failure();
    rewriter.replaceOp(op, y);
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
               DecomposeLayerNorm, DecomposeRmsNorm, DecomposeDropout, DecomposeScaledCast,
               DecomposeQuantize, MaterializeMatmulBatchBroadcast, DecomposeConstantPow>(
      patterns.getContext());
  // Ops along a dim of a scalar first (a higher benefit): the expansions
  // assume the dims they reduce exist.
  populateLiftRankZeroPatterns(patterns);
}
