//===- FuserFolds.cpp - fuser folds and canonicalizations -----------------===//
//
// Constant folding works on splats: a fuser.constant folds to its scalar
// value and every folder here returns a scalar that the dialect materializes
// as a new fuser.constant. Identities only fold when they are exact for every
// input, including -0.0 and NaN: `x + 0.0` is not `x` when x is -0.0, so floats
// fold `x + -0.0` and `x - 0.0` instead.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/ElementwiseOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/APSInt.h"

using namespace mlir;
using namespace mlir::fuser;

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

static Type elementTypeOf(Type t) { return cast<ShapedType>(t).getElementType(); }

/// True when the scalar constant `a` is the integer `value` or the float
/// `value` (with that exact sign for zero).
static bool isScalar(Attribute a, int64_t value, bool negativeZero = false) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getValue().getSExtValue() == value ||
           (i.getType().isInteger(1) && value == 1 && i.getValue().isOne());
  if (auto f = dyn_cast_or_null<FloatAttr>(a)) {
    const llvm::APFloat &v = f.getValue();
    if (value == 0)
      return v.isZero() && v.isNegative() == negativeZero;
    return v.compare(llvm::APFloat(v.getSemantics(), value)) ==
           llvm::APFloat::cmpEqual;
  }
  return false;
}

/// Folds a binary op over two scalar constants.
template <typename FloatFn, typename IntFn>
static Attribute foldBinary(Attribute lhs, Attribute rhs, FloatFn floatFn,
                            IntFn intFn) {
  if (auto a = dyn_cast_or_null<FloatAttr>(lhs))
    if (auto b = dyn_cast_or_null<FloatAttr>(rhs)) {
      std::optional<llvm::APFloat> r = floatFn(a.getValue(), b.getValue());
      return r ? FloatAttr::get(a.getType(), *r) : Attribute();
    }
  if (auto a = dyn_cast_or_null<IntegerAttr>(lhs))
    if (auto b = dyn_cast_or_null<IntegerAttr>(rhs)) {
      std::optional<llvm::APInt> r = intFn(a.getValue(), b.getValue());
      return r ? IntegerAttr::get(a.getType(), *r) : Attribute();
    }
  return {};
}

/// The operand that an identity fold may return: only when it already has
/// the result type (a rank-0 operand of a ranked result does not).
static OpFoldResult sameTypeOrNull(Value v, Type resultType) {
  return v.getType() == resultType ? OpFoldResult(v) : OpFoldResult();
}

//===----------------------------------------------------------------------===//
// Elementwise folds
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  if (auto f = dyn_cast_or_null<FloatAttr>(adaptor.getInput()))
    return FloatAttr::get(f.getType(), -f.getValue());
  if (auto i = dyn_cast_or_null<IntegerAttr>(adaptor.getInput()))
    return IntegerAttr::get(i.getType(), -i.getValue());
  return {};
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  if (getInput().getDefiningOp<AbsOp>())
    return getInput();
  if (auto f = dyn_cast_or_null<FloatAttr>(adaptor.getInput()))
    return FloatAttr::get(f.getType(), llvm::abs(f.getValue()));
  if (auto i = dyn_cast_or_null<IntegerAttr>(adaptor.getInput()))
    return IntegerAttr::get(i.getType(), i.getValue().abs());
  return {};
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  bool isFloat = isa<FloatType>(elementTypeOf(getType()));
  // x + -0.0 == x for every float x; x + 0 == x for integers.
  if (isScalar(adaptor.getRhs(), 0, /*negativeZero=*/isFloat))
    if (OpFoldResult r = sameTypeOrNull(getLhs(), getType()))
      return r;
  if (isScalar(adaptor.getLhs(), 0, /*negativeZero=*/isFloat))
    if (OpFoldResult r = sameTypeOrNull(getRhs(), getType()))
      return r;
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(),
      [](llvm::APFloat a, const llvm::APFloat &b) -> std::optional<llvm::APFloat> {
        a.add(b, llvm::APFloat::rmNearestTiesToEven);
        return a;
      },
      [](const llvm::APInt &a, const llvm::APInt &b) -> std::optional<llvm::APInt> {
        return a + b;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  // x - 0.0 == x for every float x (including -0.0).
  if (isScalar(adaptor.getRhs(), 0))
    if (OpFoldResult r = sameTypeOrNull(getLhs(), getType()))
      return r;
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(),
      [](llvm::APFloat a, const llvm::APFloat &b) -> std::optional<llvm::APFloat> {
        a.subtract(b, llvm::APFloat::rmNearestTiesToEven);
        return a;
      },
      [](const llvm::APInt &a, const llvm::APInt &b) -> std::optional<llvm::APInt> {
        return a - b;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isScalar(adaptor.getRhs(), 1))
    if (OpFoldResult r = sameTypeOrNull(getLhs(), getType()))
      return r;
  if (isScalar(adaptor.getLhs(), 1))
    if (OpFoldResult r = sameTypeOrNull(getRhs(), getType()))
      return r;
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(),
      [](llvm::APFloat a, const llvm::APFloat &b) -> std::optional<llvm::APFloat> {
        a.multiply(b, llvm::APFloat::rmNearestTiesToEven);
        return a;
      },
      [](const llvm::APInt &a, const llvm::APInt &b) -> std::optional<llvm::APInt> {
        return a * b;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  RoundingMode mode = getRoundingMode();
  // x / 1 == x, except for a float quotient that is rounded: trunc(x), floor(x).
  bool isFloat = isa<FloatType>(elementTypeOf(getType()));
  if (isScalar(adaptor.getRhs(), 1) && (!isFloat || mode == RoundingMode::none))
    if (OpFoldResult r = sameTypeOrNull(getLhs(), getType()))
      return r;
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(),
      [&](llvm::APFloat a, const llvm::APFloat &b) -> std::optional<llvm::APFloat> {
        if (mode != RoundingMode::none)
          return std::nullopt; // trunc/floor of a float quotient: leave to the kernel
        a.divide(b, llvm::APFloat::rmNearestTiesToEven);
        return a;
      },
      [&](const llvm::APInt &a, const llvm::APInt &b) -> std::optional<llvm::APInt> {
        if (b.isZero())
          return llvm::APInt::getZero(a.getBitWidth());
        if (b.isAllOnes()) // x / -1 wraps, INT_MIN / -1 == INT_MIN
          return -a;
        llvm::APInt q = a.sdiv(b);
        if (mode == RoundingMode::floor && !a.srem(b).isZero() &&
            (a.isNegative() != b.isNegative()))
          q -= 1;
        return q;
      });
}

static bool isUnsignedCompare(const llvm::APInt &a) { return a.getBitWidth() == 1; }

OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(),
      [](const llvm::APFloat &a, const llvm::APFloat &b)
          -> std::optional<llvm::APFloat> { return llvm::maximum(a, b); },
      [](const llvm::APInt &a, const llvm::APInt &b) -> std::optional<llvm::APInt> {
        bool aWins = isUnsignedCompare(a) ? a.uge(b) : a.sge(b);
        return aWins ? a : b;
      });
}

OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(),
      [](const llvm::APFloat &a, const llvm::APFloat &b)
          -> std::optional<llvm::APFloat> { return llvm::minimum(a, b); },
      [](const llvm::APInt &a, const llvm::APInt &b) -> std::optional<llvm::APInt> {
        bool aWins = isUnsignedCompare(a) ? a.ule(b) : a.sle(b);
        return aWins ? a : b;
      });
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

/// Significand bits (with the implicit one) of a float type.
static unsigned precisionOf(FloatType t) {
  return llvm::APFloat::semanticsPrecision(t.getFloatSemantics());
}

/// True when every value of `from` is exactly representable in `to`, so a
/// cast through `to` changes nothing.
static bool isLossless(Type from, Type to) {
  if (from == to || from.isInteger(1))
    return true;
  if (auto fi = dyn_cast<IntegerType>(from)) {
    if (auto ti = dyn_cast<IntegerType>(to))
      return ti.getWidth() >= fi.getWidth();
    auto tf = cast<FloatType>(to);
    // A signed N-bit integer has N-1 magnitude bits; all types here have the
    // exponent range for the integers their precision covers.
    return precisionOf(tf) >= fi.getWidth() - 1 &&
           (tf.getWidth() > 16 || fi.getWidth() <= 8);
  }
  auto ff = cast<FloatType>(from);
  auto tf = dyn_cast<FloatType>(to);
  return tf && tf.getWidth() > ff.getWidth() &&
         precisionOf(tf) >= precisionOf(ff);
}

static bool isHalfFloat(Type t) { return isa<Float16Type, BFloat16Type>(t); }

llvm::APFloat mlir::fuser::convertFloatAsTorch(llvm::APFloat v, FloatType to) {
  bool lost;
  if (isHalfFloat(to) && llvm::APFloat::getSizeInBits(v.getSemantics()) == 64)
    v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);
  v.convert(to.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return v;
}

llvm::APFloat mlir::fuser::convertIntegerAsTorch(const llvm::APInt &v, bool isSigned,
                                                 FloatType to) {
  bool half = isHalfFloat(to);
  llvm::APFloat r(half ? llvm::APFloat::IEEEsingle() : to.getFloatSemantics());
  r.convertFromAPInt(v, isSigned, llvm::APFloat::rmNearestTiesToEven);
  if (half) {
    bool lost;
    r.convert(to.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
  }
  return r;
}

/// Converts one scalar with fuser's cast semantics (see CastOp).
static Attribute castScalar(Attribute value, Type to) {
  // fp8 has no constants (fuser.constant computes): such a cast stays a cast.
  if (isFloat8(to))
    return {};
  if (auto f = dyn_cast_or_null<FloatAttr>(value)) {
    llvm::APFloat v = f.getValue();
    if (auto tf = dyn_cast<FloatType>(to))
      return FloatAttr::get(tf, convertFloatAsTorch(v, tf));
    auto ti = cast<IntegerType>(to);
    unsigned w = ti.getWidth();
    if (w == 1)
      return IntegerAttr::get(ti, v.isZero() ? 0 : 1);
    if (v.isNaN())
      return IntegerAttr::get(ti, 0);
    llvm::APSInt r(w, /*isUnsigned=*/false);
    bool exact;
    // Out of range saturates: convertToInteger leaves the clamped value.
    v.convertToInteger(r, llvm::APFloat::rmTowardZero, &exact);
    return IntegerAttr::get(ti, r);
  }
  if (auto i = dyn_cast_or_null<IntegerAttr>(value)) {
    llvm::APInt v = i.getValue();
    bool isSigned = v.getBitWidth() != 1;
    if (auto tf = dyn_cast<FloatType>(to))
      return FloatAttr::get(tf, convertIntegerAsTorch(v, isSigned, tf));
    auto ti = cast<IntegerType>(to);
    if (ti.getWidth() == 1)
      return IntegerAttr::get(ti, v.isZero() ? 0 : 1);
    return IntegerAttr::get(ti, isSigned ? v.sextOrTrunc(ti.getWidth())
                                         : v.zextOrTrunc(ti.getWidth()));
  }
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  Type to = elementTypeOf(getType());
  // A saturating cast to fp8 changes infinities even to the same type.
  if (getInput().getType() == getType() && !getSaturate())
    return getInput();
  if (Attribute c = castScalar(adaptor.getInput(), to))
    return c;
  // cast(cast(x : A -> B) : B -> C) == cast(x : A -> C) when A -> B is exact;
  // not when C is fp8: its conversion makes every NaN the format's NaN, so
  // that fp8 -> f32 -> the same fp8 is not the identity (docs/fp8.md).
  if (isFloat8(to))
    return {};
  if (auto inner = getInput().getDefiningOp<CastOp>()) {
    Value x = inner.getInput();
    Type from = elementTypeOf(x.getType()), mid = elementTypeOf(inner.getType());
    // Not integer -> float -> a narrower integer: the float's cast
    // saturates, an integer's wraps (i32 300 -> f64 -> i8 is 127, i32 300
    // -> i8 is 44).
    bool wrapsInstead = isa<IntegerType>(from) && isa<FloatType>(mid) && isa<IntegerType>(to) &&
                        !to.isInteger(1) &&
                        to.getIntOrFloatBitWidth() < from.getIntOrFloatBitWidth();
    if (!wrapsInstead && isLossless(from, mid)) {
      if (x.getType() == getType())
        return x;
      getInputMutable().assign(x);
      return getResult();
    }
  }
  return {};
}

OpFoldResult BitcastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // bitcast(bitcast(x : A -> B) : B -> A) == x
  if (auto inner = getInput().getDefiningOp<BitcastOp>())
    if (inner.getInput().getType() == getType())
      return inner.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Shape folds
//===----------------------------------------------------------------------===//

OpFoldResult SizeOp::fold(FoldAdaptor) {
  int64_t extent = getInput().getType().getDimSize(getDim());
  if (ShapedType::isDynamic(extent))
    return {};
  Type t = getResult().getType().getElementType();
  if (auto f = dyn_cast<FloatType>(t)) // as the kernels convert a dynamic size
    return FloatAttr::get(t, convertIntegerAsTorch(APInt(64, extent), /*isSigned=*/true, f));
  return IntegerAttr::get(t, APInt(t.getIntOrFloatBitWidth(), extent, /*isSigned=*/true));
}

/// The dims of `t` that are not of static size 1.
static SmallVector<int64_t> dimsNotStaticOne(RankedTensorType t) {
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (t.getDimSize(d) != 1)
      dims.push_back(d);
  return dims;
}

/// True when `reshape` only adds or drops dims of static size 1: every
/// element keeps its place among the other dims, so a reshape of the
/// reshape's operand is index arithmetic on one side or the other. A
/// reshape that refines a dynamic dim to a static size is not: its
/// launch-time check must stay.
static bool isUnitDimReshape(ReshapeOp reshape) {
  if (reshape->hasAttr(kRefinesShapeAttr))
    return false;
  RankedTensorType from = reshape.getInput().getType();
  RankedTensorType to = reshape.getType();
  SmallVector<int64_t> fromDims = dimsNotStaticOne(from), toDims = dimsNotStaticOne(to);
  if (fromDims.size() != toDims.size())
    return false;
  for (auto [f, t] : llvm::zip(fromDims, toDims)) {
    int64_t fs = from.getDimSize(f), ts = to.getDimSize(t);
    // Two dynamic dims are the same dim only when each side has one dim
    // that is not 1: [?, ?] -> [?, ?] may move elements between them.
    bool same = ShapedType::isDynamic(fs) ? ShapedType::isDynamic(ts) && fromDims.size() == 1
                                          : fs == ts;
    if (!same)
      return false;
  }
  return true;
}

/// The broadcast dims for the operand of `reshape`, a unit-dim reshape
/// (above), when `dims` are the broadcast's dims for the reshape's result:
/// each dim not of size 1 keeps its result dim, and each size-1 dim takes
/// the first free result dim after the dim before it (a size-1 dim expands
/// into any result dim). None when a size-1 dim finds no free result dim.
static std::optional<SmallVector<int64_t>>
broadcastDimsThroughUnitReshape(ReshapeOp reshape, ArrayRef<int64_t> dims, int64_t resultRank) {
  if (!isUnitDimReshape(reshape))
    return std::nullopt;
  RankedTensorType from = reshape.getInput().getType();
  SmallVector<int64_t> fromDims = dimsNotStaticOne(from),
                       toDims = dimsNotStaticOne(reshape.getType());
  SmallVector<int64_t> mapped;
  int64_t next = 0; // the first result dim the next source dim may take
  size_t kept = 0;  // how many of fromDims are placed
  for (int64_t d = 0; d < from.getRank(); ++d) {
    int64_t limit = kept < fromDims.size() ? dims[toDims[kept]] : resultRank;
    int64_t r = next;
    if (kept < fromDims.size() && fromDims[kept] == d)
      r = dims[toDims[kept++]];
    else if (r >= limit)
      return std::nullopt; // no free result dim left before the next kept one
    mapped.push_back(r);
    next = r + 1;
  }
  return mapped;
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  // Sizes the fusion states (kSizesAttr) are kept with the op: an identity
  // or a splat in its place would not have them.
  bool stated = (*this)->hasAttr(kSizesAttr);
  if (getInput().getType() == getType() && !stated)
    return getInput(); // equal ranks and strictly increasing dims: identity
  // A splat stays a splat, unless the fusion states the broadcast's sizes
  // (kSizesAttr), which a folded constant would not keep.
  if (adaptor.getInput() && !stated)
    return adaptor.getInput();
  if (auto inner = getInput().getDefiningOp<BroadcastOp>();
      inner && !inner->hasAttr(kSizesAttr)) {
    SmallVector<int64_t> dims;
    for (int64_t d : inner.getDims())
      dims.push_back(getDims()[d]);
    getInputMutable().assign(inner.getInput());
    setDims(dims);
    return getResult();
  }
  // A broadcast of a reshape that only adds or drops size-1 dims broadcasts
  // the reshape's operand: the segmenter then sees a statistic broadcast
  // back (`mean.reshape(1, C, 1, 1)` or a keepdim=false mean is batch_norm's
  // normalization) rather than a reshaped value.
  if (auto reshape = getInput().getDefiningOp<ReshapeOp>()) {
    if (std::optional<SmallVector<int64_t>> dims =
            broadcastDimsThroughUnitReshape(reshape, getDims(), cast<RankedTensorType>(getType()).getRank())) {
      getInputMutable().assign(reshape.getInput());
      setDims(*dims);
      return getResult();
    }
  }
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // A reshape whose sizes the fusion states (kSizesAttr) stays: its type
  // may equal its input's while its sizes do not (x.view(n, m) of [m, n]).
  bool stated = (*this)->hasAttr(kSizesAttr);
  if (getInput().getType() == getType() && !stated)
    return getInput();
  if (adaptor.getInput() && !stated)
    return adaptor.getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    // With two or more dynamic result dims a reshape's sizes pair with its
    // input's dims (docs/dialect.md), so they depend on the shape it
    // reshapes: [?, ?] -> [?] -> [?, ?] gives (n, 1), reshaping straight
    // from [?, ?] would keep both dims. One dynamic dim or none is the
    // element count's alone, the same through either; two refinements
    // keep every dim, one for one; a reshape sized by its uses
    // (dims_from_uses, or the sizes fuser-segment wrote for them) takes
    // none from its input.
    bool sizesFromCount = llvm::count_if(getType().getShape(), ShapedType::isDynamic) <= 1;
    bool refinements = inner->hasAttr(kRefinesShapeAttr) && (*this)->hasAttr(kRefinesShapeAttr);
    bool sizedByUses = (*this)->hasAttr(kDimsFromUsesAttr) || (*this)->hasAttr(kSizesAttr);
    if (!sizesFromCount && !refinements && !sizedByUses)
      return {};
    if (inner.getInput().getType() == getType() && !stated)
      return inner.getInput();
    // Two refinements make one; anything else is a reshape.
    if (!inner->hasAttr(kRefinesShapeAttr))
      (*this)->removeAttr(kRefinesShapeAttr);
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult PermuteOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perm))
    identity &= (int64_t)i == p;
  if (identity)
    return getInput();
  if (adaptor.getInput())
    return adaptor.getInput();
  if (auto inner = getInput().getDefiningOp<PermuteOp>()) {
    // Result dim i is inner-result dim perm[i], which is input dim inner[perm[i]].
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner.getPerm()[p]);
    getInputMutable().assign(inner.getInput());
    setPerm(composed);
    bool nowIdentity = true;
    for (auto [i, p] : llvm::enumerate(composed))
      nowIdentity &= (int64_t)i == p;
    return nowIdentity ? getInput() : getResult();
  }
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  // A slice of everything, one by one, is the operand (a dynamic dim is
  // whole only to its end: a static limit is checked at launch).
  RankedTensorType in = getInput().getType();
  bool whole = in == getType() &&
               llvm::all_of(getStart(), [](int64_t s) { return s == 0; }) &&
               llvm::all_of(getStep(), [](int64_t s) { return s == 1; });
  for (int64_t d = 0; whole && d < in.getRank(); ++d)
    whole = !in.isDynamicDim(d) || getLimit()[d] == kToEnd;
  if (whole)
    return getInput();
  if (adaptor.getInput())
    return adaptor.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Reductions over size-1 dims
//===----------------------------------------------------------------------===//

namespace {
/// `v + 0.0` (a rank-0 +0.0 of float type `f`): a sum's or cumsum's start,
/// which turns -0.0 into +0.0 and keeps every other value.
Value plusZero(PatternRewriter &rewriter, Location loc, Value v, FloatType f) {
  Value zero = ConstantOp::create(rewriter, loc, RankedTensorType::get({}, f),
                                  rewriter.getFloatAttr(f, 0.0));
  return AddOp::create(rewriter, loc, v, zero);
}

/// A sum, prod, max, min, mean, any or all over dims that all have static
/// size 1 reduces one element per output: the result is its input,
/// reshaped (the reduced dims dropped, or kept as the same size 1). Exact
/// for every value: f16/bf16 accumulate in f32 and round back to the same
/// value, mean divides by 1, NaN stays NaN; but a float sum or mean starts
/// from +0.0 (PyTorch's too), so -0.0 sums to +0.0: the input plus +0.0,
/// which is every other value unchanged, where the input is computed by a
/// kernel the add joins. Of an argument, a view of one or a GEMM's result
/// the add would be a kernel of its own where the reshape is none, so there
/// -0.0 stays -0.0 (docs/dialect.md). any/all of non-i1 inputs compare with
/// zero and are left alone. Not over an empty tensor with a dynamic dim:
/// the reshape could not infer that dim beside the static 0.
template <typename OpTy>
struct ReductionOverUnitDims : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    RankedTensorType in = op.getInput().getType();
    auto out = cast<RankedTensorType>(op.getType());
    if (in.getElementType() != out.getElementType())
      return rewriter.notifyMatchFailure(op, "the result's element type differs");
    if (in.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "a rank-0 input (LiftRankZero lifts it)");
    for (int64_t d : op.getDims())
      if (in.getDimSize(d) != 1)
        return rewriter.notifyMatchFailure(op, "a reduced dim is not of static size 1");
    if (llvm::is_contained(in.getShape(), 0) && !in.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "an empty tensor with a dynamic dim");
    Value v = op.getInput();
    if (in != out)
      v = ReshapeOp::create(rewriter, op.getLoc(), out, v);
    // Through views to the value they show: a reshape of a value a kernel
    // computes (fuser-lift-rank-zero's, a keepdim's) is computed too.
    Value source = op.getInput();
    while (Operation *view = source.getDefiningOp()) {
      if (!isa<ReshapeOp, PermuteOp, SliceOp, BroadcastOp>(view))
        break;
      source = view->getOperand(0);
    }
    Operation *producer = source.getDefiningOp();
    bool computed = producer && !isa<MatmulOp, LinearOp, CollectiveOp>(producer);
    if (auto f = dyn_cast<FloatType>(out.getElementType());
        f && computed && isa<SumOp, MeanOp>(op.getOperation())) {
      v = plusZero(rewriter, op.getLoc(), v, f);
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// A reduction over some dims of static size 1 and others reduces the same
/// elements over the others alone: those size-1 dims move nothing and only
/// hide the reduction's shape from the segmenter (a mean over [0, 2, 3] of
/// a [1, C, 1, W] tensor is a row reduction over W, not a column reduction
/// over three dims). With keepdim the result type stays the same; without
/// it the size-1 dims stay in the new result and a reshape drops them,
/// which the broadcast fold above looks through when the statistic is
/// broadcast back. The same elements in the same order: exact for every op
/// and type.
/// The dims of a reduction `op` (a sum ... all, or var_mean) left once its
/// reduced dims of static size 1 drop out, sorted; none when it drops
/// nothing or drops them all (ReductionOverUnitDims' case).
/// `in` without its `dims` (a keepdim=false reduction's result shape), of
/// `like`'s element type and encoding.
static RankedTensorType reducedType(RankedTensorType in, ArrayRef<int64_t> dims,
                                    RankedTensorType like) {
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (!llvm::is_contained(dims, d))
      shape.push_back(in.getDimSize(d));
  return RankedTensorType::get(shape, like.getElementType(), like.getEncoding());
}

template <typename OpTy>
static std::optional<SmallVector<int64_t>> dimsWithoutUnitDims(OpTy op) {
  RankedTensorType in = op.getInput().getType();
  if (in.getRank() == 0)
    return std::nullopt;
  SmallVector<int64_t> kept;
  for (int64_t d : op.getDims())
    if (in.getDimSize(d) != 1)
      kept.push_back(d);
  if (kept.empty() || kept.size() == op.getDims().size())
    return std::nullopt;
  llvm::sort(kept);
  return kept;
}

template <typename OpTy>
struct ReductionDropUnitDims : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> kept = dimsWithoutUnitDims(op);
    if (!kept)
      return rewriter.notifyMatchFailure(op, "no keepdim reduced dim of size 1 beside others");
    if (op.getKeepdim()) {
      rewriter.replaceOpWithNewOp<OpTy>(op, op.getType(), op.getInput(),
                                        rewriter.getDenseI64ArrayAttr(*kept), op.getKeepdimAttr());
      return success();
    }
    auto out = cast<RankedTensorType>(op.getType());
    RankedTensorType withUnitDims = reducedType(op.getInput().getType(), *kept, out);
    Value reduced = rewriter.create<OpTy>(op.getLoc(), withUnitDims, op.getInput(),
                                          rewriter.getDenseI64ArrayAttr(*kept),
                                          op.getKeepdimAttr());
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, out, reduced);
    return success();
  }
};

/// var_mean's form of ReductionDropUnitDims: the same elements in the same
/// order, so the same Welford steps, and the same count N for `N -
/// correction`.
struct VarMeanDropUnitDims : OpRewritePattern<VarMeanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VarMeanOp op, PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> kept = dimsWithoutUnitDims(op);
    if (!kept)
      return rewriter.notifyMatchFailure(op, "no keepdim reduced dim of size 1 beside others");
    if (op.getKeepdim()) {
      rewriter.replaceOpWithNewOp<VarMeanOp>(op, op.getVar().getType(), op.getMean().getType(),
                                             op.getInput(), rewriter.getDenseI64ArrayAttr(*kept),
                                             op.getCorrectionAttr(), op.getKeepdimAttr());
      return success();
    }
    auto varType = cast<RankedTensorType>(op.getVar().getType());
    auto meanType = cast<RankedTensorType>(op.getMean().getType());
    RankedTensorType in = op.getInput().getType();
    auto reduced = rewriter.create<VarMeanOp>(
        op.getLoc(), reducedType(in, *kept, varType), reducedType(in, *kept, meanType),
        op.getInput(), rewriter.getDenseI64ArrayAttr(*kept), op.getCorrectionAttr(),
        op.getKeepdimAttr());
    Value var = rewriter.create<ReshapeOp>(op.getLoc(), varType, reduced.getVar());
    Value mean = rewriter.create<ReshapeOp>(op.getLoc(), meanType, reduced.getMean());
    rewriter.replaceOp(op, {var, mean});
    return success();
  }
};
} // namespace

void VarMeanOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<VarMeanDropUnitDims>(context);
}

#define FUSER_UNIT_REDUCTION_CANONICALIZER(Op)                                             \
  void Op::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) { \
    results.add<ReductionOverUnitDims<Op>, ReductionDropUnitDims<Op>>(context);            \
  }
FUSER_UNIT_REDUCTION_CANONICALIZER(SumOp)
FUSER_UNIT_REDUCTION_CANONICALIZER(ProdOp)
FUSER_UNIT_REDUCTION_CANONICALIZER(MaxOp)
FUSER_UNIT_REDUCTION_CANONICALIZER(MinOp)
FUSER_UNIT_REDUCTION_CANONICALIZER(MeanOp)
FUSER_UNIT_REDUCTION_CANONICALIZER(AnyOp)
FUSER_UNIT_REDUCTION_CANONICALIZER(AllOp)
#undef FUSER_UNIT_REDUCTION_CANONICALIZER

//===----------------------------------------------------------------------===//
// Scans along a size-1 dim
//===----------------------------------------------------------------------===//

namespace {
/// cumsum and cumprod along a dim of static size 1: each element combines
/// itself alone. cumprod is the input (1 * x, exact for every value); a
/// float cumsum starts from +0.0 as PyTorch's does (its CPU kernel, and its
/// GPU kernel for more than one line; a GPU scan of one line, numel equal
/// to the dim's size, skips the start), so it is x + 0.0
/// (-0.0 becomes +0.0, every other value stays), an elementwise op that
/// joins its neighbours' kernel; an i64 cumsum is the input.
template <typename OpTy>
struct ScanAlongUnitDim : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    RankedTensorType t = op.getInput().getType();
    int64_t dim = op.getDimAttr().getInt();
    if (t.getRank() == 0 || t.getDimSize(dim) != 1)
      return rewriter.notifyMatchFailure(op, "not along a dim of static size 1");
    Value v = op.getInput();
    if (auto f = dyn_cast<FloatType>(t.getElementType()); f && isa<CumsumOp>(op.getOperation())) {
      v = plusZero(rewriter, op.getLoc(), v, f);
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// cummax and cummin along a dim of static size 1, of a static shape: the
/// values are the input, the indices all 0. (A `?` dim beside it would
/// need the zeros' size from the input, which a constant does not take.)
template <typename OpTy>
struct ScanExtremumAlongUnitDim : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    RankedTensorType t = op.getInput().getType();
    int64_t dim = op.getDimAttr().getInt();
    if (t.getRank() == 0 || t.getDimSize(dim) != 1 || !t.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not along a size-1 dim of a static shape");
    auto indexType = cast<RankedTensorType>(op.getIndices().getType());
    Value zeros = ConstantOp::create(rewriter, op.getLoc(), indexType,
                                     rewriter.getIntegerAttr(indexType.getElementType(), 0));
    rewriter.replaceOp(op, {op.getInput(), zeros});
    return success();
  }
};
} // namespace

void CumsumOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<ScanAlongUnitDim<CumsumOp>>(context);
}
void CumprodOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<ScanAlongUnitDim<CumprodOp>>(context);
}
void CummaxOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<ScanExtremumAlongUnitDim<CummaxOp>>(context);
}
void CumminOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<ScanExtremumAlongUnitDim<CumminOp>>(context);
}

//===----------------------------------------------------------------------===//
// Unit-dim reshapes sink below elementwise ops
//===----------------------------------------------------------------------===//

namespace {
/// An elementwise op whose operands are unit-dim reshapes of values of one
/// shape (or rank-0 scalars) computes on those values and reshapes once,
/// after it. A keepdim=false statistic whose size-1 dims the reduction
/// kept (ReductionDropUnitDims) thus reaches its broadcast, which folds the
/// reshape away: batch_norm's `rsqrt(var + eps)` of a batch of one,
/// broadcast back, stays one normalization kernel. Rooted at the reshape,
/// so the canonicalizer tries it only where a reshape is; each step moves a
/// reshape one op down, so it ends.
struct SinkUnitDimReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp reshape, PatternRewriter &rewriter) const override {
    // (A reshape to rank 0 stays: a rank-0 operand is a scalar to every
    // elementwise op already, and would be taken for one below.)
    if (!isUnitDimReshape(reshape) || reshape.getType().getRank() == 0)
      return rewriter.notifyMatchFailure(reshape, "not a reshape of size-1 dims alone");
    RankedTensorType from = reshape.getInput().getType();
    for (Operation *user : reshape->getUsers()) {
      if (!isa<FUSER_ELEMENTWISE_OPS>(user) || user->getNumResults() != 1)
        continue;
      SmallVector<Value> operands;
      for (Value operand : user->getOperands()) {
        auto type = cast<RankedTensorType>(operand.getType());
        auto other = operand.getDefiningOp<ReshapeOp>();
        if (type.getRank() == 0)
          operands.push_back(operand);
        else if (other && isUnitDimReshape(other) &&
                 other.getInput().getType().getShape() == from.getShape())
          operands.push_back(other.getInput());
        else
          break;
      }
      if (operands.size() != user->getNumOperands())
        continue;
      auto out = cast<RankedTensorType>(user->getResult(0).getType());
      // At the user, where its other operands are defined (the driver's
      // insertion point is at the reshape, which may come before them).
      rewriter.setInsertionPoint(user);
      Operation *moved = rewriter.clone(*user);
      moved->setOperands(operands);
      moved->getResult(0).setType(
          RankedTensorType::get(from.getShape(), out.getElementType(), out.getEncoding()));
      rewriter.replaceOpWithNewOp<ReshapeOp>(user, out, moved->getResult(0));
      return success();
    }
    return rewriter.notifyMatchFailure(reshape, "no elementwise user of reshapes alone");
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<SinkUnitDimReshape>(context);
}
