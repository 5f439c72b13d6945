//===- BuilderTorch.cpp - PyTorch's promotion and broadcasting over the builder ===//
//
// The fuserTorch* functions of fuser-c/Builder.h: they compute the dtype
// (torch.result_type plus the op's own rule) and the shape
// (torch.broadcast_shapes) an op computes in, bring every operand there with
// fuser.cast and fuser.broadcast (wrapped numbers become constants of the
// computed type), and build the dialect op. The header lists the rules.
//
//===----------------------------------------------------------------------===//

#include "BuilderImpl.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::capi;

//===----------------------------------------------------------------------===//
// Type promotion
//===----------------------------------------------------------------------===//

namespace {
enum Category { CatNone, CatBool, CatInt, CatFloat };
} // namespace

static Category category(Type t) {
  if (!t)
    return CatNone;
  if (t.isInteger(1))
    return CatBool;
  return isa<IntegerType>(t) ? CatInt : CatFloat;
}

static unsigned width(Type t) { return t.getIntOrFloatBitWidth(); }

/// torch.promote_types; a null type is "undefined" and gives the other.
static Type promoteTypes(Type a, Type b) {
  if (!a)
    return b;
  if (!b || a == b)
    return a;
  Category ca = category(a), cb = category(b);
  if (ca != cb)
    return ca > cb ? a : b;
  if (ca == CatInt)
    return width(a) > width(b) ? a : b;
  // Floats: f16 and bf16 meet in f32; otherwise the wider.
  if (width(a) == 16 && width(b) == 16)
    return Float32Type::get(a.getContext());
  return width(a) > width(b) ? a : b;
}

/// PyTorch's combine_categories: `lower` matters only when its category is
/// higher than `higher`'s.
static Type combineCategories(Type higher, Type lower) {
  if (category(higher) == CatFloat)
    return higher;
  if (category(higher) == CatBool || category(lower) == CatFloat)
    return promoteTypes(higher, lower);
  return higher ? higher : lower;
}

/// The dtype a wrapped number counts as (the default dtype for floats).
static Type wrappedType(MLIRContext *ctx, const WrappedNumber &w) {
  switch (w.kind) {
  case WrappedNumber::Float: return Float32Type::get(ctx);
  case WrappedNumber::Int: return IntegerType::get(ctx, 64);
  case WrappedNumber::Bool: return IntegerType::get(ctx, 1);
  }
  return Type();
}

static const WrappedNumber *wrappedOf(BuilderImpl &B, Value v) {
  auto it = B.wrapped.find(v.getAsOpaquePointer());
  return it == B.wrapped.end() ? nullptr : &it->second;
}

/// torch.result_type of `vs`.
static Type promotedType(BuilderImpl &B, ArrayRef<Value> vs) {
  Type dim, zero, wrapped;
  for (Value v : vs) {
    if (const WrappedNumber *w = wrappedOf(B, v))
      wrapped = promoteTypes(wrapped, wrappedType(B.ctx, *w));
    else if (tensorOf(v).getRank() == 0)
      zero = promoteTypes(zero, tensorOf(v).getElementType());
    else
      dim = promoteTypes(dim, tensorOf(v).getElementType());
  }
  return combineCategories(dim, combineCategories(zero, wrapped));
}

/// torch.result_type of `vs`, or null after failing `c` when one is fp8:
/// PyTorch promotes no Float8 type, and fuser computes on none (docs/fp8.md).
static Type resultType(Call &c, ArrayRef<Value> vs) {
  for (Value v : vs)
    if (isFloat8(tensorOf(v).getElementType()) && !wrappedOf(c.impl(), v)) {
      std::string t;
      llvm::raw_string_ostream(t) << tensorOf(v).getElementType();
      c.fail("an " + t + " operand does not compute: cast fp8 to f32 "
             "(fuserBuildCast) first");
      return Type();
    }
  return promotedType(c.impl(), vs);
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  }
  return s + "]";
}

/// torch.broadcast_shapes of the values' shapes.
static bool broadcastShapes(Call &c, ArrayRef<Value> vs,
                            SmallVectorImpl<int64_t> &out) {
  int64_t rank = 0;
  for (Value v : vs)
    rank = std::max(rank, tensorOf(v).getRank());
  out.assign(rank, 1);
  for (Value v : vs) {
    ArrayRef<int64_t> s = tensorOf(v).getShape();
    SmallVector<int64_t> before(out.begin(), out.end());
    for (int64_t i = 0; i < (int64_t)s.size(); ++i) {
      int64_t &r = out[rank - s.size() + i];
      int64_t d = s[i];
      if (d == 1 || d == r)
        continue;
      if (r == 1 || ShapedType::isDynamic(r)) {
        r = d; // a static size wins over `?`; `?` over a static 1
        continue;
      }
      if (ShapedType::isDynamic(d))
        continue; // a static r > 1 stays; `?` must equal it at run time
      c.fail("the shapes " + shapeString(before) + " and " + shapeString(s) +
             " do not broadcast (sizes " + Twine(r) + " and " + Twine(d) +
             " at dim " + Twine(i - (int64_t)s.size()) + ")");
      return false;
    }
  }
  return true;
}

/// The attribute of `elem` holding wrapped number `w` as fuser.cast would
/// convert it.
static TypedAttr wrappedAttr(Type elem, const WrappedNumber &w) {
  if (auto ft = dyn_cast<FloatType>(elem)) {
    if (w.kind == WrappedNumber::Float)
      return FloatAttr::get(ft, convertFloatAsTorch(APFloat(w.f), ft));
    return FloatAttr::get(
        ft, convertIntegerAsTorch(APInt(64, w.i, /*isSigned=*/true), /*isSigned=*/true, ft));
  }
  auto it = cast<IntegerType>(elem);
  int64_t i = w.i;
  if (w.kind == WrappedNumber::Float) {
    // Truncation toward zero, saturating, NaN to 0 (fuser.cast's rule).
    double f = w.f;
    i = std::isnan(f) ? 0
        : f >= 9223372036854775807.0 ? INT64_MAX
        : f <= -9223372036854775808.0 ? INT64_MIN
                                      : (int64_t)f;
    if (it.getWidth() < 64 && it.getWidth() > 1) {
      int64_t hi = (int64_t(1) << (it.getWidth() - 1)) - 1, lo = -hi - 1;
      i = std::min(std::max(i, lo), hi);
    }
  }
  if (it.getWidth() == 1)
    return IntegerAttr::get(it, APInt(1, (w.kind == WrappedNumber::Float
                                              ? w.f != 0
                                              : i != 0)));
  // Integer narrowing wraps.
  return IntegerAttr::get(it, APInt(64, i, /*isSigned=*/true).trunc(it.getWidth()));
}

/// `v` converted to element type `elem` and broadcast to `shape` (rank-0
/// values stay rank 0). Wrapped numbers become constants of `elem`.
static Value prepare(Call &c, Value v, Type elem, ArrayRef<int64_t> shape) {
  BuilderImpl &B = c.impl();
  if (const WrappedNumber *w = wrappedOf(B, v)) {
    if (tensorOf(v).getElementType() == elem)
      return v;
    return buildConstant(c, elem, {}, wrappedAttr(elem, *w));
  }
  RankedTensorType t = tensorOf(v);
  if (t.getElementType() != elem) {
    v = buildCast(c, v, elem);
    if (!v)
      return v;
  }
  int64_t rank = t.getRank(), target = shape.size();
  if (rank == 0)
    return v;
  bool needed = rank < target;
  for (int64_t i = 0; i < rank && !needed; ++i)
    needed = t.getDimSize(i) == 1 && shape[target - rank + i] != 1;
  if (!needed)
    return v;
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i)
    dims.push_back(target - rank + i);
  return buildBroadcast(c, v, shape, dims);
}

/// Brings each of `vs` to `elem` and the broadcast shape of all of `vs`.
static bool prepareAll(Call &c, SmallVectorImpl<Value> &vs, Type elem) {
  SmallVector<int64_t> shape;
  if (!broadcastShapes(c, vs, shape))
    return false;
  for (Value &v : vs) {
    v = prepare(c, v, elem, shape);
    if (!v)
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

static MlirValue scalar(FuserBuilder b, const char *fn, WrappedNumber w) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  MLIRContext *ctx = c.ctx();
  TypedAttr a;
  switch (w.kind) {
  case WrappedNumber::Float: a = FloatAttr::get(Float64Type::get(ctx), w.f); break;
  case WrappedNumber::Int:
    a = IntegerAttr::get(IntegerType::get(ctx, 64), APInt(64, w.i, true));
    break;
  case WrappedNumber::Bool:
    a = IntegerAttr::get(IntegerType::get(ctx, 1), APInt(1, w.i != 0));
    break;
  }
  Value v = buildConstant(c, a.getType(), {}, a);
  if (!v)
    return MlirValue{nullptr};
  c.impl().wrapped[v.getAsOpaquePointer()] = w;
  return c.wrapValue(v);
}

MlirValue fuserTorchScalarF64(FuserBuilder b, double value) {
  return scalar(b, "fuserTorchScalarF64", {WrappedNumber::Float, value, 0});
}
MlirValue fuserTorchScalarI64(FuserBuilder b, int64_t value) {
  return scalar(b, "fuserTorchScalarI64", {WrappedNumber::Int, 0, value});
}
MlirValue fuserTorchScalarBool(FuserBuilder b, bool value) {
  return scalar(b, "fuserTorchScalarBool", {WrappedNumber::Bool, 0, value ? 1 : 0});
}

FuserDType fuserTorchResultType(FuserBuilder b, const MlirValue *values,
                                intptr_t n) {
  Call c(b, "fuserTorchResultType");
  if (!c.ready())
    return FuserDTypeInvalid;
  if (n < 1 || !values) {
    c.fail("needs at least one value");
    return FuserDTypeInvalid;
  }
  SmallVector<Value> vs;
  if (!c.operands(ArrayRef<MlirValue>(values, n), vs))
    return FuserDTypeInvalid;
  Type t = resultType(c, vs);
  return t ? dtypeOf(t) : FuserDTypeInvalid;
}

MlirLogicalResult fuserTorchBroadcastShapes(FuserBuilder b, const MlirValue *values,
                                            intptr_t n, intptr_t *rank,
                                            int64_t *shape, intptr_t capacity) {
  Call c(b, "fuserTorchBroadcastShapes");
  if (!c.ready())
    return mlirLogicalResultFailure();
  if (n < 1 || !values || !rank || (capacity > 0 && !shape)) {
    c.fail("needs at least one value, and non-NULL rank (and shape)");
    return mlirLogicalResultFailure();
  }
  SmallVector<Value> vs;
  SmallVector<int64_t> out;
  if (!c.operands(ArrayRef<MlirValue>(values, n), vs) ||
      !broadcastShapes(c, vs, out))
    return mlirLogicalResultFailure();
  *rank = out.size();
  for (intptr_t i = 0; i < capacity && i < (intptr_t)out.size(); ++i)
    shape[i] = out[i];
  return mlirLogicalResultSuccess();
}

MlirValue fuserTorchBroadcastTo(FuserBuilder b, MlirValue x, intptr_t rank,
                                const int64_t *shape) {
  Call c(b, "fuserTorchBroadcastTo");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  if (!v)
    return MlirValue{nullptr};
  if (rank < 0 || rank > FUSER_MAX_RANK || (rank > 0 && !shape)) {
    c.fail("the shape needs a rank in [0, FUSER_MAX_RANK] ([0, " + Twine(FUSER_MAX_RANK) +
           "]) and non-NULL sizes");
    return MlirValue{nullptr};
  }
  RankedTensorType t = tensorOf(v);
  if (rank < t.getRank()) {
    c.fail("cannot broadcast " + shapeString(t.getShape()) + " to the lower rank " +
           Twine((int64_t)rank));
    return MlirValue{nullptr};
  }
  SmallVector<int64_t> target(shape, shape + rank), dims;
  int64_t lead = rank - t.getRank();
  for (int64_t i = 0; i < rank; ++i) {
    if (target[i] == -1) {
      if (i < lead) {
        c.fail("size -1 at dim " + Twine(i) +
               " is a new leading dim, which has no size to keep");
        return MlirValue{nullptr};
      }
      target[i] = t.getDimSize(i - lead);
    } else if (target[i] < 0 && target[i] != FUSER_DYNAMIC) {
      c.fail("size " + Twine(target[i]) + " at dim " + Twine(i) +
             " is negative (use -1 to keep a size, FUSER_DYNAMIC for `?`)");
      return MlirValue{nullptr};
    }
  }
  if (ArrayRef<int64_t>(target) == t.getShape())
    return c.wrapValue(v);
  for (int64_t i = 0; i < t.getRank(); ++i)
    dims.push_back(lead + i);
  return c.wrapValue(buildBroadcast(c, v, target, dims));
}

MlirValue fuserTorchTo(FuserBuilder b, MlirValue x, FuserDType dtype) {
  Call c(b, "fuserTorchTo");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  Type elem = v ? c.elementType(dtype) : Type();
  if (!elem)
    return MlirValue{nullptr};
  return c.wrapValue(prepare(c, v, elem, tensorOf(v).getShape()));
}

MlirValue fuserTorchReshape(FuserBuilder b, MlirValue x, intptr_t rank,
                            const int64_t *shape) {
  Call c(b, "fuserTorchReshape");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  if (!v)
    return MlirValue{nullptr};
  if (rank < 0 || rank > FUSER_MAX_RANK || (rank > 0 && !shape)) {
    c.fail("the shape needs a rank in [0, FUSER_MAX_RANK] ([0, " + Twine(FUSER_MAX_RANK) +
           "]) and non-NULL sizes");
    return MlirValue{nullptr};
  }
  SmallVector<int64_t> target(shape, shape + rank);
  int64_t inferred = -1, known = 1;
  bool dynamic = false;
  for (int64_t i = 0; i < rank; ++i) {
    if (target[i] == -1) {
      if (inferred >= 0) {
        c.fail("only one size can be -1 (dims " + Twine(inferred) + " and " +
               Twine(i) + " are)");
        return MlirValue{nullptr};
      }
      inferred = i;
    } else if (target[i] == FUSER_DYNAMIC) {
      dynamic = true;
    } else if (target[i] < 0) {
      c.fail("size " + Twine(target[i]) + " at dim " + Twine(i) + " is negative");
      return MlirValue{nullptr};
    } else {
      known *= target[i];
    }
  }
  RankedTensorType t = tensorOf(v);
  if (inferred >= 0) {
    if (!t.hasStaticShape() || dynamic) {
      c.fail("cannot infer the -1 size of dim " + Twine(inferred) +
             " with dynamic sizes (give FUSER_DYNAMIC instead)");
      return MlirValue{nullptr};
    }
    if (known == 0 || t.getNumElements() % known != 0) {
      c.fail("shape " + shapeString(target) + " is invalid for " +
             shapeString(t.getShape()) + " (" + Twine(t.getNumElements()) +
             " elements)");
      return MlirValue{nullptr};
    }
    target[inferred] = t.getNumElements() / known;
  }
  return c.wrapValue(buildReshape(c, v, target));
}

namespace {
/// How an op turns the promoted type into the type it computes in.
enum class Rule {
  Promote,    ///< the promoted type
  FloatOnly,  ///< integers and bools compute in f32
};
} // namespace

static Type computeType(MLIRContext *ctx, Type promoted, Rule rule) {
  if (rule == Rule::FloatOnly && category(promoted) != CatFloat)
    return Float32Type::get(ctx);
  return promoted;
}

/// Promotes and broadcasts `xs` to the type `rule` gives and builds
/// `opName` (its result type inferred).
static MlirValue elementwise(FuserBuilder b, const char *fn, StringRef opName,
                             ArrayRef<MlirValue> xs, Rule rule,
                             ArrayRef<NamedAttribute> attrs = {}) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  SmallVector<Value, 3> vs;
  if (!c.operands(xs, vs))
    return MlirValue{nullptr};
  // PyTorch refuses a bool on either side of a subtraction (sub_check),
  // before any promotion: bool - f32 is an error there, not f32.
  if (opName == SubOp::getOperationName()) {
    unsigned bools = llvm::count_if(
        vs, [](Value v) { return getElementTypeOrSelf(v.getType()).isInteger(1); });
    if (bools == vs.size()) {
      c.fail("subtraction of two bools is not supported (as in PyTorch); use fuserBuildXor");
      return MlirValue{nullptr};
    }
    if (bools) {
      c.fail("subtraction with a bool operand is not supported (as in PyTorch); to invert a "
             "mask use fuserBuildNot");
      return MlirValue{nullptr};
    }
  }
  Type promoted = resultType(c, vs);
  if (!promoted)
    return MlirValue{nullptr};
  Type elem = computeType(c.ctx(), promoted, rule);
  // Said in the caller's terms, before the promotion's casts and
  // broadcasts (the op's own verifier would name the promoted operand).
  if (isa<FloatType>(elem) &&
      llvm::is_contained({AndOp::getOperationName(), OrOp::getOperationName(),
                          XorOp::getOperationName(), ShlOp::getOperationName(),
                          ShrOp::getOperationName()},
                         opName)) {
    std::string type;
    llvm::raw_string_ostream os(type);
    os << elem;
    c.fail("the operands promote to " + type +
           ", and bitwise ops take integer or bool tensors (as in PyTorch)");
    return MlirValue{nullptr};
  }
  // PyTorch checks a number exponent of an integer power (pow's
  // Tensor-Scalar overload); a tensor exponent is not checked
  // (docs/dialect.md, fuser.pow).
  if (opName == PowOp::getOperationName() && isa<IntegerType>(elem)) {
    auto w = c.impl().wrapped.find(vs[1].getAsOpaquePointer());
    if (w != c.impl().wrapped.end() && w->second.kind == WrappedNumber::Int && w->second.i < 0) {
      c.fail("integers to negative integer powers are not allowed (as in PyTorch); cast the "
             "base to a float type first");
      return MlirValue{nullptr};
    }
  }
  if (!prepareAll(c, vs, elem))
    return MlirValue{nullptr};
  // PyTorch's add and mul of bools are logical or and and.
  StringRef name = opName;
  if (elem.isInteger(1)) {
    if (opName == AddOp::getOperationName())
      name = OrOp::getOperationName();
    else if (opName == MulOp::getOperationName())
      name = AndOp::getOperationName();
  }
  return c.wrapValue(buildInferred(c, name, vs, attrs));
}

#define FUSER_TORCH_BINARY(NAME, OP, RULE)                                     \
  MlirValue fuserTorch##NAME(FuserBuilder b, MlirValue x, MlirValue y) {       \
    return elementwise(b, "fuserTorch" #NAME, OP::getOperationName(), {x, y},  \
                       Rule::RULE);                                            \
  }
FUSER_TORCH_BINARY(Add, AddOp, Promote)
FUSER_TORCH_BINARY(Sub, SubOp, Promote)
FUSER_TORCH_BINARY(Mul, MulOp, Promote)
FUSER_TORCH_BINARY(Pow, PowOp, Promote)
FUSER_TORCH_BINARY(Maximum, MaximumOp, Promote)
FUSER_TORCH_BINARY(Minimum, MinimumOp, Promote)
FUSER_TORCH_BINARY(Remainder, RemainderOp, Promote)
FUSER_TORCH_BINARY(Fmod, FmodOp, Promote)
FUSER_TORCH_BINARY(Atan2, Atan2Op, FloatOnly)
FUSER_TORCH_BINARY(BitwiseAnd, AndOp, Promote)
FUSER_TORCH_BINARY(BitwiseOr, OrOp, Promote)
FUSER_TORCH_BINARY(BitwiseXor, XorOp, Promote)
FUSER_TORCH_BINARY(BitwiseLeftShift, ShlOp, Promote)
FUSER_TORCH_BINARY(BitwiseRightShift, ShrOp, Promote)
FUSER_TORCH_BINARY(Eq, EqOp, Promote)
FUSER_TORCH_BINARY(Ne, NeOp, Promote)
FUSER_TORCH_BINARY(Lt, LtOp, Promote)
FUSER_TORCH_BINARY(Le, LeOp, Promote)
FUSER_TORCH_BINARY(Gt, GtOp, Promote)
FUSER_TORCH_BINARY(Ge, GeOp, Promote)
#undef FUSER_TORCH_BINARY

static MlirValue division(FuserBuilder b, const char *fn, MlirValue x, MlirValue y,
                          FuserRoundingMode mode) {
  BuilderImpl *impl = lookupBuilder(b);
  if (!impl)
    return MlirValue{nullptr};
  if (mode != FuserRoundingNone && mode != FuserRoundingTrunc &&
      mode != FuserRoundingFloor) {
    Call c(b, fn);
    c.fail("rounding mode " + Twine((int)mode) + " is not a FuserRoundingMode");
    return MlirValue{nullptr};
  }
  return elementwise(
      b, fn, DivOp::getOperationName(), {x, y},
      mode == FuserRoundingNone ? Rule::FloatOnly : Rule::Promote,
      {NamedAttribute(StringAttr::get(impl->ctx, "rounding_mode"),
                      RoundingModeAttr::get(impl->ctx, (RoundingMode)mode))});
}

MlirValue fuserTorchDiv(FuserBuilder b, MlirValue x, MlirValue y) {
  return division(b, "fuserTorchDiv", x, y, FuserRoundingNone);
}
MlirValue fuserTorchDivMode(FuserBuilder b, MlirValue x, MlirValue y,
                            FuserRoundingMode roundingMode) {
  return division(b, "fuserTorchDivMode", x, y, roundingMode);
}

MlirValue fuserTorchWhere(FuserBuilder b, MlirValue condition, MlirValue x,
                          MlirValue y) {
  Call c(b, "fuserTorchWhere");
  if (!c.ready())
    return MlirValue{nullptr};
  SmallVector<Value, 3> vs;
  if (!c.operands({condition, x, y}, vs))
    return MlirValue{nullptr};
  Type condElem = tensorOf(vs[0]).getElementType();
  if (!condElem.isInteger(1)) {
    std::string s;
    llvm::raw_string_ostream(s) << condElem;
    c.fail("the condition must be i1 (bool), got " + s);
    return MlirValue{nullptr};
  }
  Type elem = resultType(c, {vs[1], vs[2]});
  if (!elem)
    return MlirValue{nullptr};
  SmallVector<int64_t> shape;
  if (!broadcastShapes(c, vs, shape))
    return MlirValue{nullptr};
  for (size_t i = 0; i < vs.size(); ++i) {
    vs[i] = prepare(c, vs[i], i == 0 ? condElem : elem, shape);
    if (!vs[i])
      return MlirValue{nullptr};
  }
  return c.wrapValue(buildInferred(c, WhereOp::getOperationName(), vs));
}

MlirValue fuserTorchClamp(FuserBuilder b, MlirValue x, MlirValue low,
                          MlirValue high) {
  if (!low.ptr && !high.ptr) {
    Call c(b, "fuserTorchClamp");
    if (c.ready())
      c.fail("needs a low or a high bound (both are null)");
    return MlirValue{nullptr};
  }
  if (low.ptr && high.ptr)
    return elementwise(b, "fuserTorchClamp", ClampOp::getOperationName(),
                       {x, low, high}, Rule::Promote);
  // One bound. torch.clamp keeps x where it equals the bound, so
  // clamp(-0.0, min=0.0) is -0.0; fuser.maximum and fuser.minimum order
  // -0.0 below +0.0. Floats take fuser.clamp with the infinity on the
  // missing side (a wrapped number: it leaves the promotion alone);
  // integers and bools, which have neither signed zeros nor infinities,
  // maximum or minimum.
  MlirValue bound = low.ptr ? low : high;
  bool floating = false;
  {
    Call c(b, "fuserTorchClamp");
    if (!c.ready())
      return MlirValue{nullptr};
    SmallVector<Value, 2> vs;
    if (!c.operands({x, bound}, vs))
      return MlirValue{nullptr};
    Type promoted = resultType(c, vs);
    if (!promoted)
      return MlirValue{nullptr};
    floating = isa<FloatType>(getElementTypeOrSelf(promoted));
  }
  if (!floating)
    return elementwise(b, "fuserTorchClamp",
                       low.ptr ? MaximumOp::getOperationName() : MinimumOp::getOperationName(),
                       {x, bound}, Rule::Promote);
  double inf = std::numeric_limits<double>::infinity();
  MlirValue other = fuserTorchScalarF64(b, low.ptr ? inf : -inf);
  return elementwise(b, "fuserTorchClamp", ClampOp::getOperationName(),
                     low.ptr ? SmallVector<MlirValue>{x, low, other}
                             : SmallVector<MlirValue>{x, other, high},
                     Rule::Promote);
}

MlirValue fuserTorchLerp(FuserBuilder b, MlirValue start, MlirValue end,
                         MlirValue weight) {
  return elementwise(b, "fuserTorchLerp", LerpOp::getOperationName(),
                     {start, end, weight}, Rule::FloatOnly);
}

static MlirValue floatUnary(FuserBuilder b, const char *fn, StringRef opName,
                            MlirValue x) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  if (!v)
    return MlirValue{nullptr};
  Type promoted = resultType(c, v);
  if (!promoted)
    return MlirValue{nullptr};
  Type elem = computeType(c.ctx(), promoted, Rule::FloatOnly);
  v = prepare(c, v, elem, tensorOf(v).getShape());
  if (!v)
    return MlirValue{nullptr};
  return c.wrapValue(buildSameType(c, opName, v));
}

#define FUSER_TORCH_UNARY(NAME, OP)                                            \
  MlirValue fuserTorch##NAME(FuserBuilder b, MlirValue x) {                    \
    return floatUnary(b, "fuserTorch" #NAME, OP::getOperationName(), x);       \
  }
FUSER_TORCH_UNARY(Exp, ExpOp)
FUSER_TORCH_UNARY(Exp2, Exp2Op)
FUSER_TORCH_UNARY(Expm1, Expm1Op)
FUSER_TORCH_UNARY(Log, LogOp)
FUSER_TORCH_UNARY(Log2, Log2Op)
FUSER_TORCH_UNARY(Log1p, Log1pOp)
FUSER_TORCH_UNARY(Sqrt, SqrtOp)
FUSER_TORCH_UNARY(Rsqrt, RsqrtOp)
FUSER_TORCH_UNARY(Reciprocal, ReciprocalOp)
FUSER_TORCH_UNARY(Sin, SinOp)
FUSER_TORCH_UNARY(Cos, CosOp)
FUSER_TORCH_UNARY(Tanh, TanhOp)
FUSER_TORCH_UNARY(Sigmoid, SigmoidOp)
FUSER_TORCH_UNARY(Erf, ErfOp)
FUSER_TORCH_UNARY(Log10, Log10Op)
FUSER_TORCH_UNARY(Tan, TanOp)
FUSER_TORCH_UNARY(Asin, AsinOp)
FUSER_TORCH_UNARY(Acos, AcosOp)
FUSER_TORCH_UNARY(Atan, AtanOp)
FUSER_TORCH_UNARY(Sinh, SinhOp)
FUSER_TORCH_UNARY(Cosh, CoshOp)
FUSER_TORCH_UNARY(Asinh, AsinhOp)
FUSER_TORCH_UNARY(Acosh, AcoshOp)
FUSER_TORCH_UNARY(Atanh, AtanhOp)
#undef FUSER_TORCH_UNARY

/// torch.sum and friends: no dims means all dims; `accumulateI64` casts
/// integer and bool inputs to i64 first.
static MlirValue reduction(FuserBuilder b, const char *fn, StringRef opName,
                           MlirValue x, const int64_t *dims, intptr_t numDims,
                           bool keepdim, bool accumulateI64) {
  Call c(b, fn);
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  SmallVector<int64_t> d;
  if (!v || !c.array(numDims, dims, d, "dims"))
    return MlirValue{nullptr};
  Type elem = resultType(c, v);
  if (!elem)
    return MlirValue{nullptr};
  if (accumulateI64 && category(elem) != CatFloat)
    elem = IntegerType::get(c.ctx(), 64);
  v = prepare(c, v, elem, tensorOf(v).getShape());
  if (!v)
    return MlirValue{nullptr};
  int64_t rank = tensorOf(v).getRank();
  if (rank == 0 && !d.empty()) {
    // PyTorch wraps a 0-dim tensor's dims as if it had one: 0 and -1 name
    // it (the builder's rule, Call::normalizeAlongDims), and reducing over
    // it is the tensor itself (keepdim or not).
    SmallVector<int64_t> checked;
    if (!c.normalizeAlongDims(d, 0, checked))
      return MlirValue{nullptr};
    d.clear();
  }
  if (d.empty()) {
    // A rank-0 tensor reduced over no dims is itself, but mean's type rule
    // holds still: torch.mean of an integer tensor of any rank is an error.
    if (rank == 0 && opName == MeanOp::getOperationName() && category(elem) != CatFloat) {
      c.fail("mean of an integer or bool tensor is not supported (as in PyTorch: it cannot "
             "infer the result's type); cast to a float type first");
      return MlirValue{nullptr};
    }
    if (rank == 0)
      return c.wrapValue(v);
    for (int64_t i = 0; i < rank; ++i)
      d.push_back(i);
  }
  return c.wrapValue(buildReduction(c, opName, v, d, keepdim));
}

MlirValue fuserTorchSum(FuserBuilder b, MlirValue x, const int64_t *dims,
                        intptr_t numDims, bool keepdim) {
  return reduction(b, "fuserTorchSum", SumOp::getOperationName(), x, dims, numDims,
                   keepdim, true);
}
MlirValue fuserTorchProd(FuserBuilder b, MlirValue x, const int64_t *dims,
                         intptr_t numDims, bool keepdim) {
  return reduction(b, "fuserTorchProd", ProdOp::getOperationName(), x, dims,
                   numDims, keepdim, true);
}
MlirValue fuserTorchMean(FuserBuilder b, MlirValue x, const int64_t *dims,
                         intptr_t numDims, bool keepdim) {
  return reduction(b, "fuserTorchMean", MeanOp::getOperationName(), x, dims,
                   numDims, keepdim, false);
}
MlirValue fuserTorchAmax(FuserBuilder b, MlirValue x, const int64_t *dims,
                         intptr_t numDims, bool keepdim) {
  return reduction(b, "fuserTorchAmax", MaxOp::getOperationName(), x, dims,
                   numDims, keepdim, false);
}
MlirValue fuserTorchAmin(FuserBuilder b, MlirValue x, const int64_t *dims,
                         intptr_t numDims, bool keepdim) {
  return reduction(b, "fuserTorchAmin", MinOp::getOperationName(), x, dims,
                   numDims, keepdim, false);
}
