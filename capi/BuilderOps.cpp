//===- BuilderOps.cpp - one builder function per op of the dialect -------===//
//
// The fuserBuild* functions of fuser-c/Builder.h. Each resolves its handles
// through a Call (BuilderImpl.h), normalizes PyTorch-style dims, computes the
// result type with the op's own inference, and creates and verifies the op;
// a failure at any step is recorded in the builder and gives a null value.
//
//===----------------------------------------------------------------------===//

#include "BuilderImpl.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "mlir/AsmParser/AsmParser.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::capi;

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

template <typename OpTy>
static MlirValue unary(FuserBuilder b, const char *fn, MlirValue x,
                       ArrayRef<NamedAttribute> attrs = {}) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  if (!v)
    return MlirValue{nullptr};
  if constexpr (OpTy::template hasTrait<OpTrait::SameOperandsAndResultType>())
    return c.wrapValue(buildSameType(c, OpTy::getOperationName(), v, attrs));
  else
    return c.wrapValue(buildInferred(c, OpTy::getOperationName(), v, attrs));
}

template <typename OpTy>
static MlirValue nary(FuserBuilder b, const char *fn, ArrayRef<MlirValue> xs,
                      ArrayRef<NamedAttribute> attrs = {}) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  SmallVector<Value, 3> vs;
  if (!c.operands(xs, vs))
    return MlirValue{nullptr};
  return c.wrapValue(buildInferred(c, OpTy::getOperationName(), vs, attrs));
}

#define FUSER_UNARY(NAME, OP)                                                  \
  MlirValue fuserBuild##NAME(FuserBuilder b, MlirValue x) {                    \
    return unary<OP>(b, "fuserBuild" #NAME, x);                                \
  }
FUSER_UNARY(Neg, NegOp)
FUSER_UNARY(Abs, AbsOp)
FUSER_UNARY(Exp, ExpOp)
FUSER_UNARY(Exp2, Exp2Op)
FUSER_UNARY(Expm1, Expm1Op)
FUSER_UNARY(Log, LogOp)
FUSER_UNARY(Log2, Log2Op)
FUSER_UNARY(Log1p, Log1pOp)
FUSER_UNARY(Sqrt, SqrtOp)
FUSER_UNARY(Rsqrt, RsqrtOp)
FUSER_UNARY(Reciprocal, ReciprocalOp)
FUSER_UNARY(Sin, SinOp)
FUSER_UNARY(Cos, CosOp)
FUSER_UNARY(Tanh, TanhOp)
FUSER_UNARY(Sigmoid, SigmoidOp)
FUSER_UNARY(Erf, ErfOp)
FUSER_UNARY(Log10, Log10Op)
FUSER_UNARY(Tan, TanOp)
FUSER_UNARY(Asin, AsinOp)
FUSER_UNARY(Acos, AcosOp)
FUSER_UNARY(Atan, AtanOp)
FUSER_UNARY(Sinh, SinhOp)
FUSER_UNARY(Cosh, CoshOp)
FUSER_UNARY(Asinh, AsinhOp)
FUSER_UNARY(Acosh, AcoshOp)
FUSER_UNARY(Atanh, AtanhOp)
FUSER_UNARY(Relu, ReluOp)
FUSER_UNARY(Silu, SiluOp)
FUSER_UNARY(Floor, FloorOp)
FUSER_UNARY(Ceil, CeilOp)
FUSER_UNARY(Round, RoundOp)
FUSER_UNARY(Trunc, TruncOp)
FUSER_UNARY(Frac, FracOp)
FUSER_UNARY(Sign, SignOp)
FUSER_UNARY(Not, NotOp)
FUSER_UNARY(IsNan, IsNanOp)
FUSER_UNARY(IsInf, IsInfOp)
FUSER_UNARY(IsPosInf, IsPosInfOp)
FUSER_UNARY(IsNegInf, IsNegInfOp)
FUSER_UNARY(Signbit, SignbitOp)
FUSER_UNARY(IsFinite, IsFiniteOp)
#undef FUSER_UNARY

MlirValue fuserBuildGelu(FuserBuilder b, MlirValue x,
                         FuserGeluApproximation approximate) {
  BuilderImpl *impl = lookupBuilder(b);
  if (impl && approximate != FuserGeluNone && approximate != FuserGeluTanh) {
    Call c(b, "fuserBuildGelu");
    c.fail("approximate " + Twine((int)approximate) +
           " is not a FuserGeluApproximation");
    return MlirValue{nullptr};
  }
  if (!impl)
    return MlirValue{nullptr};
  return unary<GeluOp>(
      b, "fuserBuildGelu", x,
      {attr(impl->ctx, "approximate",
            GeluApproximationAttr::get(impl->ctx,
                                       (GeluApproximation)approximate))});
}

#define FUSER_BINARY(NAME, OP)                                                 \
  MlirValue fuserBuild##NAME(FuserBuilder b, MlirValue x, MlirValue y) {       \
    return nary<OP>(b, "fuserBuild" #NAME, {x, y});                            \
  }
FUSER_BINARY(Add, AddOp)
FUSER_BINARY(Sub, SubOp)
FUSER_BINARY(Mul, MulOp)
FUSER_BINARY(Pow, PowOp)
FUSER_BINARY(Maximum, MaximumOp)
FUSER_BINARY(Minimum, MinimumOp)
FUSER_BINARY(Remainder, RemainderOp)
FUSER_BINARY(Fmod, FmodOp)
FUSER_BINARY(Atan2, Atan2Op)
FUSER_BINARY(And, AndOp)
FUSER_BINARY(Or, OrOp)
FUSER_BINARY(Xor, XorOp)
FUSER_BINARY(Shl, ShlOp)
FUSER_BINARY(Shr, ShrOp)
FUSER_BINARY(Eq, EqOp)
FUSER_BINARY(Ne, NeOp)
FUSER_BINARY(Lt, LtOp)
FUSER_BINARY(Le, LeOp)
FUSER_BINARY(Gt, GtOp)
FUSER_BINARY(Ge, GeOp)
#undef FUSER_BINARY

MlirValue fuserBuildDiv(FuserBuilder b, MlirValue x, MlirValue y,
                        FuserRoundingMode roundingMode) {
  BuilderImpl *impl = lookupBuilder(b);
  if (!impl)
    return MlirValue{nullptr};
  if (roundingMode != FuserRoundingNone && roundingMode != FuserRoundingTrunc &&
      roundingMode != FuserRoundingFloor) {
    Call c(b, "fuserBuildDiv");
    c.fail("rounding mode " + Twine((int)roundingMode) +
           " is not a FuserRoundingMode");
    return MlirValue{nullptr};
  }
  return nary<DivOp>(
      b, "fuserBuildDiv", {x, y},
      {attr(impl->ctx, "rounding_mode",
            RoundingModeAttr::get(impl->ctx, (RoundingMode)roundingMode))});
}

MlirValue fuserBuildWhere(FuserBuilder b, MlirValue condition, MlirValue x,
                          MlirValue y) {
  return nary<WhereOp>(b, "fuserBuildWhere", {condition, x, y});
}
MlirValue fuserBuildClamp(FuserBuilder b, MlirValue x, MlirValue low,
                          MlirValue high) {
  return nary<ClampOp>(b, "fuserBuildClamp", {x, low, high});
}
MlirValue fuserBuildLerp(FuserBuilder b, MlirValue start, MlirValue end,
                         MlirValue weight) {
  return nary<LerpOp>(b, "fuserBuildLerp", {start, end, weight});
}
MlirValue fuserBuildFma(FuserBuilder b, MlirValue x, MlirValue y, MlirValue z) {
  return nary<FmaOp>(b, "fuserBuildFma", {x, y, z});
}

//===----------------------------------------------------------------------===//
// Cast, constants, iota
//===----------------------------------------------------------------------===//

/// x converted to `dtype` by `build` (a cast or a bitcast): the checks of
/// the operand and the dtype are the same for both.
template <typename Build>
static MlirValue convert(FuserBuilder b, const char *fn, MlirValue x, FuserDType dtype,
                         Build build) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  Type elem = v ? c.elementType(dtype) : Type();
  if (!elem)
    return MlirValue{nullptr};
  return c.wrapValue(build(c, v, elem));
}

MlirValue fuserBuildCast(FuserBuilder b, MlirValue x, FuserDType dtype) {
  return convert(b, "fuserBuildCast", x, dtype,
                 [](Call &c, Value v, Type e) { return buildCast(c, v, e); });
}

MlirValue fuserBuildCastSaturate(FuserBuilder b, MlirValue x, FuserDType dtype) {
  return convert(b, "fuserBuildCastSaturate", x, dtype,
                 [](Call &c, Value v, Type e) { return buildCast(c, v, e, true); });
}

MlirValue fuserBuildBitcast(FuserBuilder b, MlirValue x, FuserDType dtype) {
  return convert(b, "fuserBuildBitcast", x, dtype, [](Call &c, Value v, Type e) {
    return firstResult(c.create(BitcastOp::getOperationName(), v, tensorOf(v).clone(e)));
  });
}

/// An integer attribute of `type` holding `v`, or null when it does not fit.
static TypedAttr intAttr(IntegerType type, int64_t v) {
  unsigned w = type.getWidth();
  if (w == 1) {
    if (v != 0 && v != 1)
      return nullptr;
    return IntegerAttr::get(type, APInt(1, v));
  }
  if (w < 64 && (v < -(int64_t(1) << (w - 1)) || v >= (int64_t(1) << (w - 1))))
    return nullptr;
  return IntegerAttr::get(type, APInt(w, v, /*isSigned=*/true));
}

/// As fuser.cast converts (a half through f32, as c10::Half does).
static TypedAttr floatAttr(FloatType type, const APFloat &v) {
  return FloatAttr::get(type, convertFloatAsTorch(v, type));
}

/// The shortest of %.15g and %.17g that reads back as `f` ("2.5", "inf").
static std::string formatDouble(double f) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.15g", f);
  if (std::isfinite(f) && strtod(buf, nullptr) != f)
    snprintf(buf, sizeof buf, "%.17g", f);
  return buf;
}

namespace {
struct ConstantValue {
  enum { F64, I64, Bool } kind;
  double f;
  int64_t i;
};
} // namespace

static MlirValue constant(FuserBuilder b, const char *fn, FuserDType dtype,
                          ConstantValue value, intptr_t rank,
                          const int64_t *shape) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  Type elem = c.elementType(dtype);
  SmallVector<int64_t> dims;
  if (!elem || !c.shape(rank, shape, dims))
    return MlirValue{nullptr};
  TypedAttr a;
  if (auto ft = dyn_cast<FloatType>(elem)) {
    if (value.kind == ConstantValue::F64) {
      a = floatAttr(ft, APFloat(value.f));
    } else {
      a = FloatAttr::get(
          ft, convertIntegerAsTorch(APInt(64, value.i, /*isSigned=*/true), /*isSigned=*/true, ft));
    }
  } else {
    auto it = cast<IntegerType>(elem);
    if (value.kind == ConstantValue::F64) {
      double f = value.f;
      if (!std::isfinite(f) || std::trunc(f) != f || f < -9223372036854775808.0 ||
          f >= 9223372036854775808.0 || !(a = intAttr(it, (int64_t)f))) {
        c.fail("the value " + formatDouble(f) + " is not an integer that fits in " +
               fuserDTypeGetName(dtype));
        return MlirValue{nullptr};
      }
    } else if (!(a = intAttr(it, value.i))) {
      c.fail("the value " + Twine(value.i) + " does not fit in " +
             fuserDTypeGetName(dtype));
      return MlirValue{nullptr};
    }
  }
  return c.wrapValue(buildConstant(c, elem, dims, a));
}

MlirValue fuserBuildConstantF64(FuserBuilder b, FuserDType dtype, double value,
                                intptr_t rank, const int64_t *shape) {
  return constant(b, "fuserBuildConstantF64", dtype,
                  {ConstantValue::F64, value, 0}, rank, shape);
}
MlirValue fuserBuildConstantI64(FuserBuilder b, FuserDType dtype, int64_t value,
                                intptr_t rank, const int64_t *shape) {
  return constant(b, "fuserBuildConstantI64", dtype,
                  {ConstantValue::I64, 0, value}, rank, shape);
}
MlirValue fuserBuildConstantBool(FuserBuilder b, FuserDType dtype, bool value,
                                 intptr_t rank, const int64_t *shape) {
  return constant(b, "fuserBuildConstantBool", dtype,
                  {ConstantValue::I64, 0, value ? 1 : 0}, rank, shape);
}

MlirValue fuserBuildIota(FuserBuilder b, FuserDType dtype, intptr_t rank,
                         const int64_t *shape, int64_t dim) {
  Call c(b, "fuserBuildIota");
  if (!c.ready())
    return MlirValue{nullptr};
  Type elem = c.elementType(dtype);
  SmallVector<int64_t> dims, d;
  if (!elem || !c.shape(rank, shape, dims) ||
      !c.normalizeDims({dim}, rank, d))
    return MlirValue{nullptr};
  return c.wrapValue(firstResult(
      c.create(IotaOp::getOperationName(), {}, RankedTensorType::get(dims, elem),
               {attr(c.ctx(), "dim",
                     IntegerAttr::get(IntegerType::get(c.ctx(), 64), d[0]))})));
}

MlirValue fuserBuildSize(FuserBuilder b, MlirValue x, int64_t dim, FuserDType dtype) {
  Call c(b, "fuserBuildSize");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  Type elem = c.elementType(dtype);
  SmallVector<int64_t> d;
  if (!v || !elem || !c.normalizeDims({dim}, tensorOf(v).getRank(), d))
    return MlirValue{nullptr};
  return c.wrapValue(firstResult(
      c.create(SizeOp::getOperationName(), {v}, RankedTensorType::get({}, elem),
               {attr(c.ctx(), "dim", IntegerAttr::get(IntegerType::get(c.ctx(), 64), d[0]))})));
}

//===----------------------------------------------------------------------===//
// Broadcast, reductions
//===----------------------------------------------------------------------===//

MlirValue fuserBuildBroadcast(FuserBuilder b, MlirValue x, intptr_t rank,
                              const int64_t *shape, const int64_t *dims,
                              intptr_t numDims) {
  Call c(b, "fuserBuildBroadcast");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  SmallVector<int64_t> s, d, norm;
  if (!v || !c.shape(rank, shape, s) || !c.array(numDims, dims, d, "dims") ||
      !c.normalizeDims(d, rank, norm))
    return MlirValue{nullptr};
  return c.wrapValue(buildBroadcast(c, v, s, norm));
}

#define FUSER_REDUCTION(NAME, OP)                                              \
  MlirValue fuserBuild##NAME(FuserBuilder b, MlirValue x, const int64_t *dims, \
                             intptr_t numDims, bool keepdim) {                 \
    Call c(b, "fuserBuild" #NAME);                                             \
    if (!c.ready())                                                            \
      return MlirValue{nullptr};                                               \
    Value v = c.operand(x, "the operand");                                     \
    SmallVector<int64_t> d;                                                    \
    if (!v || !c.array(numDims, dims, d, "dims"))                              \
      return MlirValue{nullptr};                                               \
    return c.wrapValue(buildReduction(c, OP::getOperationName(), v, d, keepdim)); \
  }
FUSER_REDUCTION(Sum, SumOp)
FUSER_REDUCTION(Prod, ProdOp)
FUSER_REDUCTION(Max, MaxOp)
FUSER_REDUCTION(Min, MinOp)
FUSER_REDUCTION(Mean, MeanOp)
FUSER_REDUCTION(Any, AnyOp)
FUSER_REDUCTION(All, AllOp)
#undef FUSER_REDUCTION

bool fuserBuildVarMean(FuserBuilder b, MlirValue x, const int64_t *dims,
                       intptr_t numDims, int64_t correction, bool keepdim,
                       MlirValue *var, MlirValue *mean) {
  if (var)
    *var = MlirValue{nullptr};
  if (mean)
    *mean = MlirValue{nullptr};
  Call c(b, "fuserBuildVarMean");
  if (!c.ready())
    return false;
  Value v = c.operand(x, "the operand");
  SmallVector<int64_t> d, norm;
  if (!v || !c.array(numDims, dims, d, "dims") ||
      !c.normalizeAlongDims(d, tensorOf(v).getRank(), norm))
    return false;
  // The result type when the dims are valid; otherwise the input's, and the
  // op's verifier says what is wrong with the dims.
  FailureOr<RankedTensorType> t =
      SumOp::inferResultType(std::nullopt, tensorOf(v), norm, keepdim);
  Type type = succeeded(t) ? Type(*t) : v.getType();
  Operation *op = c.create(
      VarMeanOp::getOperationName(), v, {type, type},
      {attr(c.ctx(), "dims", DenseI64ArrayAttr::get(c.ctx(), norm)),
       attr(c.ctx(), "correction",
            IntegerAttr::get(IntegerType::get(c.ctx(), 64), correction)),
       attr(c.ctx(), "keepdim", BoolAttr::get(c.ctx(), keepdim))});
  if (!op)
    return false;
  if (var)
    *var = c.wrapValue(op->getResult(0));
  if (mean)
    *mean = c.wrapValue(op->getResult(1));
  return true;
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// fuserBuildReshape and fuserBuildReshapeSized: `sizes` is the stated
/// map's text, or null for none (`stated` says whether one must be given).
static MlirValue reshapeCall(FuserBuilder b, const char *fn, MlirValue x, intptr_t rank,
                             const int64_t *shape, bool stated, const char *sizes) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  SmallVector<int64_t> s;
  if (!v || !c.shape(rank, shape, s))
    return MlirValue{nullptr};
  if (!stated)
    return c.wrapValue(buildReshape(c, v, s));
  if (!sizes) {
    c.fail("sizes is null");
    return MlirValue{nullptr};
  }
  auto map = dyn_cast_or_null<AffineMapAttr>(
      parseAttribute((Twine("affine_map<") + sizes + ">").str(), c.ctx()));
  if (!map || map.getValue().getNumDims() != 0 ||
      map.getValue().getNumResults() != (unsigned)rank) {
    c.fail(Twine("sizes '") + sizes + "' is not an affine map of no dims and " +
           Twine(rank) + " results over the fusion's dynamic input dims, as '()[s0, s1] "
           "-> (s0 * s1)'");
    return MlirValue{nullptr};
  }
  auto type = RankedTensorType::get(s, tensorOf(v).getElementType());
  return c.wrapValue(firstResult(c.create(ReshapeOp::getOperationName(), v, type,
                                          {attr(c.ctx(), kSizesAttr, map)})));
}

MlirValue fuserBuildReshape(FuserBuilder b, MlirValue x, intptr_t rank,
                            const int64_t *shape) {
  return reshapeCall(b, "fuserBuildReshape", x, rank, shape, /*stated=*/false, nullptr);
}

MlirValue fuserBuildReshapeSized(FuserBuilder b, MlirValue x, intptr_t rank,
                                 const int64_t *shape, const char *sizes) {
  return reshapeCall(b, "fuserBuildReshapeSized", x, rank, shape, /*stated=*/true, sizes);
}

MlirValue fuserBuildPermute(FuserBuilder b, MlirValue x, const int64_t *perm,
                            intptr_t numPerm) {
  Call c(b, "fuserBuildPermute");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  SmallVector<int64_t> p, norm;
  if (!v || !c.array(numPerm, perm, p, "perm") ||
      !c.normalizeDims(p, tensorOf(v).getRank(), norm))
    return MlirValue{nullptr};
  FailureOr<RankedTensorType> t = PermuteOp::inferResultType(c.loc(), tensorOf(v), norm);
  if (failed(t)) {
    c.failWithDiagnostics("'fuser.permute' op cannot infer its result type");
    return MlirValue{nullptr};
  }
  return c.wrapValue(firstResult(
      c.create(PermuteOp::getOperationName(), v, *t,
               {attr(c.ctx(), "perm", DenseI64ArrayAttr::get(c.ctx(), norm))})));
}

MlirValue fuserBuildSlice(FuserBuilder b, MlirValue x, intptr_t rank,
                          const int64_t *start, const int64_t *limit,
                          const int64_t *step) {
  Call c(b, "fuserBuildSlice");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  SmallVector<int64_t> st, li, sp;
  if (!v || !c.array(rank, start, st, "start") || !c.array(rank, limit, li, "limit"))
    return MlirValue{nullptr};
  if (step) {
    if (!c.array(rank, step, sp, "step"))
      return MlirValue{nullptr};
  } else {
    sp.assign(st.size(), 1);
  }
  RankedTensorType in = tensorOf(v);
  // Python's negative indices, against static sizes.
  if (rank == in.getRank()) {
    for (int64_t i = 0; i < rank; ++i) {
      for (int64_t *e : {&st[i], &li[i]}) {
        if (*e >= 0)
          continue;
        if (in.isDynamicDim(i)) {
          c.fail("dim " + Twine(i) + " is dynamic: a negative start or limit (" +
                 Twine(*e) + ") cannot count from its end");
          return MlirValue{nullptr};
        }
        *e += in.getDimSize(i);
      }
    }
  }
  FailureOr<RankedTensorType> t = SliceOp::inferResultType(c.loc(), in, st, li, sp);
  if (failed(t)) {
    c.failWithDiagnostics("'fuser.slice' op cannot infer its result type");
    return MlirValue{nullptr};
  }
  return c.wrapValue(firstResult(
      c.create(SliceOp::getOperationName(), v, *t,
               {attr(c.ctx(), "start", DenseI64ArrayAttr::get(c.ctx(), st)),
                attr(c.ctx(), "limit", DenseI64ArrayAttr::get(c.ctx(), li)),
                attr(c.ctx(), "step", DenseI64ArrayAttr::get(c.ctx(), sp))})));
}

MlirValue fuserBuildPad(FuserBuilder b, MlirValue x, MlirValue value,
                        intptr_t rank, const int64_t *low, const int64_t *high) {
  Call c(b, "fuserBuildPad");
  if (!c.ready())
    return MlirValue{nullptr};
  SmallVector<Value, 2> vs;
  SmallVector<int64_t> lo, hi;
  if (!c.operands({x, value}, vs) || !c.array(rank, low, lo, "low") ||
      !c.array(rank, high, hi, "high"))
    return MlirValue{nullptr};
  FailureOr<RankedTensorType> t = PadOp::inferResultType(
      c.loc(), tensorOf(vs[0]), tensorOf(vs[1]), lo, hi);
  if (failed(t)) {
    c.failWithDiagnostics("'fuser.pad' op cannot infer its result type");
    return MlirValue{nullptr};
  }
  return c.wrapValue(firstResult(
      c.create(PadOp::getOperationName(), vs, *t,
               {attr(c.ctx(), "low", DenseI64ArrayAttr::get(c.ctx(), lo)),
                attr(c.ctx(), "high", DenseI64ArrayAttr::get(c.ctx(), hi))})));
}

MlirValue fuserBuildConcat(FuserBuilder b, const MlirValue *inputs,
                           intptr_t numInputs, int64_t dim) {
  Call c(b, "fuserBuildConcat");
  if (!c.ready())
    return MlirValue{nullptr};
  if (numInputs < 1 || !inputs) {
    c.fail("needs at least one input (inputs is " +
           Twine(inputs ? "non-NULL" : "NULL") + ", numInputs " +
           Twine((int64_t)numInputs) + ")");
    return MlirValue{nullptr};
  }
  SmallVector<Value> vs;
  SmallVector<int64_t> d;
  if (!c.operands(ArrayRef<MlirValue>(inputs, numInputs), vs) ||
      !c.normalizeDims({dim}, tensorOf(vs[0]).getRank(), d))
    return MlirValue{nullptr};
  FailureOr<RankedTensorType> t =
      ConcatOp::inferResultType(c.loc(), ValueRange(vs).getTypes(), d[0]);
  if (failed(t)) {
    c.failWithDiagnostics("'fuser.concat' op cannot infer its result type");
    return MlirValue{nullptr};
  }
  return c.wrapValue(firstResult(c.create(
      ConcatOp::getOperationName(), vs, *t,
      {attr(c.ctx(), "dim", IntegerAttr::get(IntegerType::get(c.ctx(), 64), d[0]))})));
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

/// Whether `index` is a tensor of i32 or i64; records the error if not.
static bool indexTypeOk(Call &c, Value index) {
  Type it = tensorOf(index).getElementType();
  if (it.isInteger(32) || it.isInteger(64))
    return true;
  std::string got;
  llvm::raw_string_ostream os(got);
  os << it;
  c.fail("the index must be a tensor of i32 or i64, got " + Twine(got));
  return false;
}

template <typename OpTy>
static MlirValue indexing(FuserBuilder b, const char *fn, MlirValue x, int64_t dim,
                          MlirValue index) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  SmallVector<Value, 2> vs;
  SmallVector<int64_t> d;
  if (!c.operands({x, index}, vs) || !c.normalizeDims({dim}, tensorOf(vs[0]).getRank(), d))
    return MlirValue{nullptr};
  if (!indexTypeOk(c, vs[1]))
    return MlirValue{nullptr};
  FailureOr<RankedTensorType> t =
      OpTy::inferResultType(c.loc(), tensorOf(vs[0]), tensorOf(vs[1]), d[0]);
  if (failed(t)) {
    c.failWithDiagnostics(("'" + OpTy::getOperationName() + "' op cannot infer its result type")
                              .str());
    return MlirValue{nullptr};
  }
  return c.wrapValue(firstResult(c.create(
      OpTy::getOperationName(), vs, *t,
      {attr(c.ctx(), "dim", IntegerAttr::get(IntegerType::get(c.ctx(), 64), d[0]))})));
}

MlirValue fuserBuildGather(FuserBuilder b, MlirValue x, int64_t dim, MlirValue index) {
  return indexing<GatherOp>(b, "fuserBuildGather", x, dim, index);
}

MlirValue fuserBuildIndexSelect(FuserBuilder b, MlirValue x, int64_t dim, MlirValue index) {
  return indexing<IndexSelectOp>(b, "fuserBuildIndexSelect", x, dim, index);
}

template <typename OpTy>
static MlirValue scatter(FuserBuilder b, const char *fn, MlirValue self, int64_t dim,
                         MlirValue index, MlirValue source) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  SmallVector<Value, 3> vs;
  SmallVector<int64_t> d;
  if (!c.operands({self, index, source}, vs) ||
      !c.normalizeDims({dim}, tensorOf(vs[0]).getRank(), d))
    return MlirValue{nullptr};
  if (!indexTypeOk(c, vs[1]))
    return MlirValue{nullptr};
  return c.wrapValue(firstResult(c.create(
      OpTy::getOperationName(), vs, vs[0].getType(),
      {attr(c.ctx(), "dim", IntegerAttr::get(IntegerType::get(c.ctx(), 64), d[0]))})));
}

MlirValue fuserBuildScatterAdd(FuserBuilder b, MlirValue self, int64_t dim, MlirValue index,
                               MlirValue source) {
  return scatter<ScatterAddOp>(b, "fuserBuildScatterAdd", self, dim, index, source);
}

MlirValue fuserBuildIndexAdd(FuserBuilder b, MlirValue self, int64_t dim, MlirValue index,
                             MlirValue source) {
  return scatter<IndexAddOp>(b, "fuserBuildIndexAdd", self, dim, index, source);
}

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

template <typename OpTy>
static MlirValue scanOp(FuserBuilder b, const char *fn, MlirValue x, int64_t dim) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  SmallVector<Value, 1> vs;
  SmallVector<int64_t> d;
  if (!c.operands({x}, vs) || !c.normalizeAlongDims({dim}, tensorOf(vs[0]).getRank(), d))
    return MlirValue{nullptr};
  return c.wrapValue(firstResult(c.create(
      OpTy::getOperationName(), vs, vs[0].getType(),
      {attr(c.ctx(), "dim", IntegerAttr::get(IntegerType::get(c.ctx(), 64), d[0]))})));
}

MlirValue fuserBuildCumsum(FuserBuilder b, MlirValue x, int64_t dim) {
  return scanOp<CumsumOp>(b, "fuserBuildCumsum", x, dim);
}

MlirValue fuserBuildCumprod(FuserBuilder b, MlirValue x, int64_t dim) {
  return scanOp<CumprodOp>(b, "fuserBuildCumprod", x, dim);
}

template <typename OpTy>
static bool scanExtremum(FuserBuilder b, const char *fn, MlirValue x, int64_t dim,
                         MlirValue *values, MlirValue *indices) {
  if (values)
    *values = MlirValue{nullptr};
  if (indices)
    *indices = MlirValue{nullptr};
  Call c(b, fn);
  if (!c.ready())
    return false;
  SmallVector<Value, 1> vs;
  SmallVector<int64_t> d;
  if (!c.operands({x}, vs) || !c.normalizeAlongDims({dim}, tensorOf(vs[0]).getRank(), d))
    return false;
  Value v = vs[0];
  Operation *op = c.create(
      OpTy::getOperationName(), v,
      {v.getType(), tensorOf(v).clone(IntegerType::get(c.ctx(), 64))},
      {attr(c.ctx(), "dim", IntegerAttr::get(IntegerType::get(c.ctx(), 64), d[0]))});
  if (!op)
    return false;
  if (values)
    *values = c.wrapValue(op->getResult(0));
  if (indices)
    *indices = c.wrapValue(op->getResult(1));
  return true;
}

bool fuserBuildCummax(FuserBuilder b, MlirValue x, int64_t dim, MlirValue *values,
                      MlirValue *indices) {
  return scanExtremum<CummaxOp>(b, "fuserBuildCummax", x, dim, values, indices);
}

bool fuserBuildCummin(FuserBuilder b, MlirValue x, int64_t dim, MlirValue *values,
                      MlirValue *indices) {
  return scanExtremum<CumminOp>(b, "fuserBuildCummin", x, dim, values, indices);
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

template <typename OpTy>
static MlirValue softmaxLike(FuserBuilder b, const char *fn, MlirValue x,
                             int64_t dim) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  SmallVector<int64_t> d;
  if (!v || !c.normalizeAlongDims({dim}, tensorOf(v).getRank(), d))
    return MlirValue{nullptr};
  return c.wrapValue(buildSameType(
      c, OpTy::getOperationName(), v,
      {attr(c.ctx(), "dim", IntegerAttr::get(IntegerType::get(c.ctx(), 64), d[0]))}));
}

MlirValue fuserBuildSoftmax(FuserBuilder b, MlirValue x, int64_t dim) {
  return softmaxLike<SoftmaxOp>(b, "fuserBuildSoftmax", x, dim);
}
MlirValue fuserBuildLogSoftmax(FuserBuilder b, MlirValue x, int64_t dim) {
  return softmaxLike<LogSoftmaxOp>(b, "fuserBuildLogSoftmax", x, dim);
}

/// Reads the optional operand `v` (null: absent). False on a foreign one.
static bool optionalOperand(Call &c, MlirValue v, const char *what, Value &out) {
  if (!v.ptr)
    return true;
  out = c.operand(v, what);
  return (bool)out;
}

//===----------------------------------------------------------------------===//
// Matrix multiplication
//===----------------------------------------------------------------------===//

/// Whether `v` is a float tensor, as torch.matmul needs on a GPU; records
/// the error if not.
static bool matmulTypeOk(Call &c, Value v, const char *what) {
  Type t = tensorOf(v).getElementType();
  if (t.isF16() || t.isBF16() || t.isF32() || t.isF64())
    return true;
  std::string got;
  llvm::raw_string_ostream os(got);
  os << t;
  c.fail(Twine(what) + " must be a tensor of f16, bf16, f32 or f64, got " + got);
  return false;
}

MlirValue fuserBuildCollective(FuserBuilder b, const char *kind, MlirValue x,
                               const char *reduction, const int64_t *gridAxes,
                               intptr_t numGridAxes, int64_t groupSize) {
  Call c(b, "fuserBuildCollective");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the input");
  if (!v)
    return MlirValue{nullptr};
  if (!kind || (numGridAxes > 0 && !gridAxes) || numGridAxes < 0) {
    c.fail(!kind ? "kind is NULL" : "gridAxes is NULL or numGridAxes negative");
    return MlirValue{nullptr};
  }
  RankedTensorType t = tensorOf(v);
  StringRef k(kind);
  SmallVector<int64_t> shape(t.getShape());
  if (k == "all_gather") {
    shape.insert(shape.begin(), groupSize);
  } else if (k == "reduce_scatter" || k == "slice") {
    if (shape.empty()) {
      c.fail("'" + k + "' takes an input [groupSize, ...], got a rank-0 tensor");
      return MlirValue{nullptr};
    }
    shape.erase(shape.begin());
  }
  SmallVector<NamedAttribute> attrs = {
      attr(c.ctx(), "kind", StringAttr::get(c.ctx(), k)),
      attr(c.ctx(), "grid_axes",
           DenseI64ArrayAttr::get(c.ctx(), ArrayRef<int64_t>(gridAxes, numGridAxes))),
      attr(c.ctx(), "group_size", IntegerAttr::get(IntegerType::get(c.ctx(), 64), groupSize))};
  if (reduction)
    attrs.push_back(attr(c.ctx(), "reduction", StringAttr::get(c.ctx(), reduction)));
  return c.wrapValue(firstResult(c.create(CollectiveOp::getOperationName(), {v},
                                          RankedTensorType::get(shape, t.getElementType()),
                                          attrs)));
}

MlirValue fuserBuildMatmul(FuserBuilder b, MlirValue x, MlirValue y) {
  Call c(b, "fuserBuildMatmul");
  if (!c.ready())
    return MlirValue{nullptr};
  SmallVector<Value, 2> vs;
  if (!c.operands({x, y}, vs) || !matmulTypeOk(c, vs[0], "the lhs") ||
      !matmulTypeOk(c, vs[1], "the rhs"))
    return MlirValue{nullptr};
  FailureOr<RankedTensorType> t = MatmulOp::inferResultType(c.loc(), tensorOf(vs[0]), tensorOf(vs[1]));
  if (failed(t)) {
    c.failWithDiagnostics("'fuser.matmul' op cannot infer its result type");
    return MlirValue{nullptr};
  }
  return c.wrapValue(firstResult(c.create(MatmulOp::getOperationName(), vs, *t, {})));
}

MlirValue fuserBuildLinear(FuserBuilder b, MlirValue x, MlirValue weight, MlirValue bias) {
  Call c(b, "fuserBuildLinear");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the input"), w = c.operand(weight, "the weight"), bi;
  if (!v || !w || !optionalOperand(c, bias, "the bias", bi) ||
      !matmulTypeOk(c, v, "the input") || !matmulTypeOk(c, w, "the weight"))
    return MlirValue{nullptr};
  std::optional<RankedTensorType> biasType;
  if (bi)
    biasType = tensorOf(bi);
  FailureOr<RankedTensorType> t =
      LinearOp::inferResultType(c.loc(), tensorOf(v), tensorOf(w), biasType);
  if (failed(t)) {
    c.failWithDiagnostics("'fuser.linear' op cannot infer its result type");
    return MlirValue{nullptr};
  }
  SmallVector<Value, 3> operands = {v, w};
  if (bi)
    operands.push_back(bi);
  return c.wrapValue(firstResult(c.create(LinearOp::getOperationName(), operands, *t, {})));
}

MlirValue fuserBuildLayerNorm(FuserBuilder b, MlirValue x, MlirValue weight,
                              MlirValue bias, const int64_t *dims,
                              intptr_t numDims, double eps, MlirValue *mean,
                              MlirValue *rstd) {
  if (mean)
    *mean = MlirValue{nullptr};
  if (rstd)
    *rstd = MlirValue{nullptr};
  Call c(b, "fuserBuildLayerNorm");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the input"), w, bi;
  SmallVector<int64_t> d, norm;
  if (!v || !optionalOperand(c, weight, "the weight", w) ||
      !optionalOperand(c, bias, "the bias", bi) ||
      !c.array(numDims, dims, d, "dims") ||
      !c.normalizeDims(d, tensorOf(v).getRank(), norm))
    return MlirValue{nullptr};
  RankedTensorType in = tensorOf(v);
  SmallVector<int64_t> statShape = llvm::to_vector(in.getShape());
  for (int64_t i : norm)
    statShape[i] = 1;
  Type elem = in.getElementType();
  Type statElem =
      (elem.isF16() || elem.isBF16()) ? Float32Type::get(c.ctx()) : elem;
  auto statType = RankedTensorType::get(statShape, statElem);
  SmallVector<Value, 3> operands = {v};
  if (w)
    operands.push_back(w);
  if (bi)
    operands.push_back(bi);
  Operation *op = c.create(
      LayerNormOp::getOperationName(), operands, {in, statType, statType},
      {attr(c.ctx(), "dims", DenseI64ArrayAttr::get(c.ctx(), norm)),
       attr(c.ctx(), "eps", FloatAttr::get(Float64Type::get(c.ctx()), eps)),
       attr(c.ctx(), "operandSegmentSizes",
            DenseI32ArrayAttr::get(c.ctx(), {1, w ? 1 : 0, bi ? 1 : 0}))});
  if (!op)
    return MlirValue{nullptr};
  if (mean)
    *mean = c.wrapValue(op->getResult(1));
  if (rstd)
    *rstd = c.wrapValue(op->getResult(2));
  return c.wrapValue(op->getResult(0));
}

MlirValue fuserBuildRmsNorm(FuserBuilder b, MlirValue x, MlirValue weight,
                            const int64_t *dims, intptr_t numDims, double eps) {
  Call c(b, "fuserBuildRmsNorm");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the input"), w;
  SmallVector<int64_t> d, norm;
  if (!v || !optionalOperand(c, weight, "the weight", w) ||
      !c.array(numDims, dims, d, "dims") ||
      !c.normalizeDims(d, tensorOf(v).getRank(), norm))
    return MlirValue{nullptr};
  SmallVector<Value, 2> operands = {v};
  if (w)
    operands.push_back(w);
  return c.wrapValue(firstResult(c.create(
      RmsNormOp::getOperationName(), operands, v.getType(),
      {attr(c.ctx(), "dims", DenseI64ArrayAttr::get(c.ctx(), norm)),
       attr(c.ctx(), "eps", FloatAttr::get(Float64Type::get(c.ctx()), eps))})));
}

//===----------------------------------------------------------------------===//
// fp8 scaling
//===----------------------------------------------------------------------===//

MlirValue fuserBuildQuantize(FuserBuilder b, MlirValue x, FuserDType dtype,
                             FuserQuantGranularity granularity, int64_t blockSize,
                             FuserDType scaleDType, MlirValue *scale, MlirValue *amax) {
  if (scale)
    *scale = MlirValue{nullptr};
  if (amax)
    *amax = MlirValue{nullptr};
  Call c(b, "fuserBuildQuantize");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the input");
  if (!v)
    return MlirValue{nullptr};
  Type elem = c.elementType(dtype);
  if (!elem)
    return MlirValue{nullptr};
  Type scaleElem = c.elementType(scaleDType);
  if (!scaleElem)
    return MlirValue{nullptr};
  std::optional<QuantGranularity> g =
      symbolizeQuantGranularity(static_cast<uint32_t>(granularity));
  if (!g) {
    c.fail("granularity " + Twine(static_cast<int64_t>(granularity)) +
           " is not FuserQuantPerTensor, FuserQuantPerRow or FuserQuantPerBlock");
    return MlirValue{nullptr};
  }
  // The scales' shape; where the arguments cannot give one, the verifier
  // names what is wrong.
  RankedTensorType in = tensorOf(v);
  SmallVector<int64_t> shape;
  if (*g != QuantGranularity::tensor && in.getRank() > 0) {
    shape.assign(in.getShape().begin(), in.getShape().end());
    int64_t h = shape.back();
    if (*g == QuantGranularity::row)
      shape.back() = 1;
    else
      shape.back() = blockSize > 0 && !ShapedType::isDynamic(h) && h % blockSize == 0
                         ? h / blockSize
                         : ShapedType::kDynamic;
  }
  SmallVector<NamedAttribute, 2> attrs = {
      attr(c.ctx(), "granularity", QuantGranularityAttr::get(c.ctx(), *g))};
  if (blockSize || *g == QuantGranularity::block)
    attrs.push_back(attr(c.ctx(), "block_size",
                         IntegerAttr::get(IntegerType::get(c.ctx(), 64), blockSize)));
  Operation *op = c.create(QuantizeOp::getOperationName(), v,
                           {in.clone(elem), RankedTensorType::get(shape, scaleElem),
                            RankedTensorType::get(shape, Float32Type::get(c.ctx()))},
                           attrs);
  if (!op)
    return MlirValue{nullptr};
  if (scale)
    *scale = c.wrapValue(op->getResult(1));
  if (amax)
    *amax = c.wrapValue(op->getResult(2));
  return c.wrapValue(op->getResult(0));
}

MlirValue fuserBuildScaledCast(FuserBuilder b, MlirValue x, MlirValue scale, FuserDType dtype,
                               MlirValue *amax) {
  if (amax)
    *amax = MlirValue{nullptr};
  Call c(b, "fuserBuildScaledCast");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the input"), s = c.operand(scale, "the scale");
  if (!v || !s)
    return MlirValue{nullptr};
  Type elem = c.elementType(dtype);
  if (!elem)
    return MlirValue{nullptr};
  Operation *op = c.create(ScaledCastOp::getOperationName(), {v, s},
                           {tensorOf(v).clone(elem), s.getType()});
  if (!op)
    return MlirValue{nullptr};
  if (amax)
    *amax = c.wrapValue(op->getResult(1));
  return c.wrapValue(op->getResult(0));
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

/// rand or randn of `dtype` and `shape`, sizes from `like` where dynamic.
static MlirValue buildRandom(FuserBuilder b, const char *fn, StringRef opName,
                             MlirValue seed, MlirValue offset, FuserDType dtype,
                             intptr_t rank, const int64_t *shape, MlirValue like) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  SmallVector<Value, 3> operands;
  SmallVector<int64_t> dims;
  Type elem = c.elementType(dtype);
  if (!c.operands({seed, offset}, operands) || !elem || !c.shape(rank, shape, dims))
    return MlirValue{nullptr};
  if (like.ptr) {
    Value l = c.operand(like, "like");
    if (!l)
      return MlirValue{nullptr};
    operands.push_back(l);
  } else if (llvm::is_contained(dims, ShapedType::kDynamic)) {
    c.fail("the shape has dynamic sizes: pass `like`, a value of that shape, to take "
           "them from");
    return MlirValue{nullptr};
  }
  return c.wrapValue(firstResult(c.create(opName, operands, RankedTensorType::get(dims, elem))));
}

MlirValue fuserBuildRand(FuserBuilder b, MlirValue seed, MlirValue offset, FuserDType dtype,
                         intptr_t rank, const int64_t *shape, MlirValue like) {
  return buildRandom(b, "fuserBuildRand", RandOp::getOperationName(), seed, offset, dtype,
                     rank, shape, like);
}

MlirValue fuserBuildRandn(FuserBuilder b, MlirValue seed, MlirValue offset, FuserDType dtype,
                          intptr_t rank, const int64_t *shape, MlirValue like) {
  return buildRandom(b, "fuserBuildRandn", RandnOp::getOperationName(), seed, offset, dtype,
                     rank, shape, like);
}

MlirValue fuserBuildBernoulli(FuserBuilder b, MlirValue p, MlirValue seed, MlirValue offset) {
  Call c(b, "fuserBuildBernoulli");
  if (!c.ready())
    return MlirValue{nullptr};
  SmallVector<Value, 3> operands;
  if (!c.operands({p, seed, offset}, operands))
    return MlirValue{nullptr};
  return c.wrapValue(firstResult(
      c.create(BernoulliOp::getOperationName(), operands, operands[0].getType())));
}

MlirValue fuserBuildDropout(FuserBuilder b, MlirValue x, MlirValue p, MlirValue seed,
                            MlirValue offset, MlirValue *mask) {
  if (mask)
    *mask = MlirValue{nullptr};
  Call c(b, "fuserBuildDropout");
  if (!c.ready())
    return MlirValue{nullptr};
  SmallVector<Value, 4> operands;
  if (!c.operands({x, p, seed, offset}, operands))
    return MlirValue{nullptr};
  RankedTensorType in = tensorOf(operands[0]);
  Operation *op = c.create(
      DropoutOp::getOperationName(), operands,
      {in, RankedTensorType::get(in.getShape(), IntegerType::get(c.ctx(), 1))});
  if (!op)
    return MlirValue{nullptr};
  if (mask)
    *mask = c.wrapValue(op->getResult(1));
  return c.wrapValue(op->getResult(0));
}
