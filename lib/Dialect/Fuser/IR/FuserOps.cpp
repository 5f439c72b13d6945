//===- FuserOps.cpp - fuser op verifiers, type inference, syntax ----------===//
//
// Type inference doubles as verification: an op whose operands do not fit
// reports why from inferReturnTypes, both when it is parsed and when it is
// built through the C API.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/Probability.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

#include <cstring>

using namespace mlir;
using namespace mlir::fuser;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Prints a shape as `[4, ?, 8]` for diagnostics.
static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return s;
}

/// Joins two dims that must be equal: a static size wins over `?`.
static std::optional<int64_t> joinDim(int64_t a, int64_t b) {
  if (ShapedType::isDynamic(a))
    return b;
  if (ShapedType::isDynamic(b) || a == b)
    return a;
  return std::nullopt;
}

/// The shape of an elementwise op over `operands`: all non-rank-0 shapes agree
/// (dim by dim, `?` matching anything) and the result has their join.
static FailureOr<SmallVector<int64_t>>
inferElementwiseShape(std::optional<Location> loc, StringRef opName,
                      ValueRange operands) {
  std::optional<SmallVector<int64_t>> shape;
  for (Value v : operands) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return emitOptionalError(loc, "'fuser.", opName,
                               "' op operands must be ranked tensors");
    if (t.getRank() == 0)
      continue;
    if (!shape) {
      shape = llvm::to_vector(t.getShape());
      continue;
    }
    if (t.getRank() != (int64_t)shape->size())
      return emitOptionalError(
          loc, "'fuser.", opName, "' op operand shapes ", shapeStr(*shape),
          " and ", shapeStr(t.getShape()),
          " differ in rank; broadcast explicitly with fuser.broadcast");
    for (auto [i, d] : llvm::enumerate(t.getShape())) {
      std::optional<int64_t> j = joinDim((*shape)[i], d);
      if (!j)
        return emitOptionalError(loc, "'fuser.", opName, "' op operand shapes ",
                                 shapeStr(*shape), " and ",
                                 shapeStr(t.getShape()), " do not match in dim ",
                                 i, "; broadcast explicitly with fuser.broadcast");
      (*shape)[i] = *j;
    }
  }
  return shape ? *shape : SmallVector<int64_t>();
}

/// Checks that `operands` share one element type.
static LogicalResult checkSameElementType(std::optional<Location> loc,
                                          StringRef opName, ValueRange operands,
                                          StringRef what = "operand") {
  Type first;
  for (Value v : operands) {
    Type e = cast<ShapedType>(v.getType()).getElementType();
    if (!first) {
      first = e;
      continue;
    }
    if (e != first)
      return emitOptionalError(loc, "'fuser.", opName, "' op ", what,
                               " element types ", first, " and ", e,
                               " differ; insert a fuser.cast");
  }
  return success();
}

static LogicalResult inferElementwise(std::optional<Location> loc,
                                      StringRef opName, ValueRange operands,
                                      ValueRange sameTypeOperands,
                                      Type resultElementType,
                                      SmallVectorImpl<Type> &results) {
  if (failed(checkSameElementType(loc, opName, sameTypeOperands)))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      inferElementwiseShape(loc, opName, operands);
  if (failed(shape))
    return failure();
  results.push_back(RankedTensorType::get(*shape, resultElementType));
  return success();
}

static Type elementTypeOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

/// Checks a list of dims: unique and in [0, rank).
static LogicalResult checkDimList(std::optional<Location> loc, StringRef opName,
                                  StringRef attrName, ArrayRef<int64_t> dims,
                                  int64_t rank) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return emitOptionalError(loc, "'fuser.", opName, "' op ", attrName,
                               " entry ", d, " is out of range for rank ", rank,
                               " (dims are in [0, rank); negative dims are "
                               "not accepted)");
    if (!seen.insert(d).second)
      return emitOptionalError(loc, "'fuser.", opName, "' op ", attrName,
                               " lists dim ", d, " twice");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Custom directive: ElementwiseTypes
//===----------------------------------------------------------------------===//
//
// One type when every operand has it (`: tensor<8xf32>`), else one type per
// operand (`: tensor<8xf32>, tensor<f32>`).

static ParseResult parseElementwiseTypes(OpAsmParser &parser,
                                         ArrayRef<Type *> types) {
  SmallVector<Type> parsed;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseTypeList(parsed))
    return failure();
  if (parsed.size() == 1) {
    for (Type *t : types)
      *t = parsed[0];
    return success();
  }
  if (parsed.size() != types.size())
    return parser.emitError(loc) << "expected 1 or " << types.size()
                                 << " operand types, got " << parsed.size();
  for (auto [t, p] : llvm::zip(types, parsed))
    *t = p;
  return success();
}
static ParseResult parseElementwiseTypes(OpAsmParser &parser, Type &a,
                                         Type &b) {
  return parseElementwiseTypes(parser, {&a, &b});
}
static ParseResult parseElementwiseTypes(OpAsmParser &parser, Type &a, Type &b,
                                         Type &c) {
  return parseElementwiseTypes(parser, {&a, &b, &c});
}

static void printElementwiseTypes(OpAsmPrinter &p, Operation *,
                                  ArrayRef<Type> types) {
  if (llvm::all_equal(types)) {
    p << types.front();
    return;
  }
  llvm::interleaveComma(types, p);
}
static void printElementwiseTypes(OpAsmPrinter &p, Operation *op, Type a,
                                  Type b) {
  printElementwiseTypes(p, op, ArrayRef<Type>{a, b});
}
static void printElementwiseTypes(OpAsmPrinter &p, Operation *op, Type a,
                                  Type b, Type c) {
  printElementwiseTypes(p, op, ArrayRef<Type>{a, b, c});
}

//===----------------------------------------------------------------------===//
// Elementwise type inference
//===----------------------------------------------------------------------===//

#define FUSER_INFER_SIGNATURE(OP)                                              \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *context, std::optional<Location> loc, ValueRange operands,  \
      DictionaryAttr attributes, OpaqueProperties properties,                  \
      RegionRange regions, SmallVectorImpl<Type> &inferred)

/// The custom parser infers the result type before the operand type
/// constraints are checked, so inference must not assume them: a scalar
/// operand (`: tensor<4xf32>, f32`) crashed it (found by fuzz_ir).
static LogicalResult checkRankedTensors(std::optional<Location> loc,
                                        StringRef opName, ValueRange operands,
                                        size_t atLeast) {
  if (operands.size() < atLeast)
    return emitOptionalError(loc, "'fuser.", opName, "' op takes at least ",
                             atLeast, " operands, got ", operands.size());
  for (auto [i, v] : llvm::enumerate(operands))
    if (!isa<RankedTensorType>(v.getType()))
      return emitOptionalError(loc, "'fuser.", opName, "' op operand #", i,
                               " must be a ranked tensor, got ", v.getType());
  return success();
}

// Unary predicates: i1 of the operand's shape.
#define FUSER_INFER_PREDICATE(OP)                                              \
  FUSER_INFER_SIGNATURE(OP) {                                                  \
    if (failed(checkRankedTensors(loc, getOperationName().drop_front(6),       \
                                  operands, 1)))                               \
      return failure();                                                        \
    auto t = cast<RankedTensorType>(operands[0].getType());                   \
    inferred.push_back(t.clone(IntegerType::get(context, 1)));                \
    return success();                                                          \
  }
FUSER_INFER_PREDICATE(IsNanOp)
FUSER_INFER_PREDICATE(IsInfOp)
FUSER_INFER_PREDICATE(IsPosInfOp)
FUSER_INFER_PREDICATE(IsNegInfOp)
FUSER_INFER_PREDICATE(SignbitOp)
FUSER_INFER_PREDICATE(IsFiniteOp)

// Binary ops whose result has the operand element type.
#define FUSER_INFER_BINARY(OP)                                                 \
  FUSER_INFER_SIGNATURE(OP) {                                                  \
    if (failed(checkRankedTensors(loc, getOperationName().drop_front(6),       \
                                  operands, 2)))                               \
      return failure();                                                        \
    return inferElementwise(loc, getOperationName().drop_front(6), operands,   \
                            operands, elementTypeOf(operands[0]), inferred);  \
  }
FUSER_INFER_BINARY(AddOp)
FUSER_INFER_BINARY(SubOp)
FUSER_INFER_BINARY(MulOp)
FUSER_INFER_BINARY(DivOp)
FUSER_INFER_BINARY(PowOp)
FUSER_INFER_BINARY(MaximumOp)
FUSER_INFER_BINARY(MinimumOp)
FUSER_INFER_BINARY(RemainderOp)
FUSER_INFER_BINARY(FmodOp)
FUSER_INFER_BINARY(Atan2Op)
FUSER_INFER_BINARY(AndOp)
FUSER_INFER_BINARY(OrOp)
FUSER_INFER_BINARY(XorOp)
FUSER_INFER_BINARY(ShlOp)
FUSER_INFER_BINARY(ShrOp)
FUSER_INFER_BINARY(ClampOp)
FUSER_INFER_BINARY(LerpOp)
FUSER_INFER_BINARY(FmaOp)

// Comparisons: i1 result.
#define FUSER_INFER_COMPARE(OP)                                                \
  FUSER_INFER_SIGNATURE(OP) {                                                  \
    if (failed(checkRankedTensors(loc, getOperationName().drop_front(6),       \
                                  operands, 2)))                               \
      return failure();                                                        \
    return inferElementwise(loc, getOperationName().drop_front(6), operands,   \
                            operands, IntegerType::get(context, 1), inferred); \
  }
FUSER_INFER_COMPARE(EqOp)
FUSER_INFER_COMPARE(NeOp)
FUSER_INFER_COMPARE(LtOp)
FUSER_INFER_COMPARE(LeOp)
FUSER_INFER_COMPARE(GtOp)
FUSER_INFER_COMPARE(GeOp)

FUSER_INFER_SIGNATURE(WhereOp) {
  if (failed(checkRankedTensors(loc, "where", operands, 3)))
    return failure();
  return inferElementwise(loc, "where", operands, operands.drop_front(),
                          elementTypeOf(operands[1]), inferred);
}

LogicalResult DivOp::verify() {
  if (isa<IntegerType>(elementTypeOf(getLhs())) &&
      getRoundingMode() == RoundingMode::none)
    return emitOpError("integer division needs rounding_mode = trunc or "
                       "floor; cast to a float type for true division");
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError("changes the shape from ")
           << shapeStr(in.getShape()) << " to " << shapeStr(out.getShape())
           << "; a cast only converts elements";
  if (getSaturate() && !isFloat8(out.getElementType()))
    return emitOpError("saturate applies to a cast to f8E4M3FN, f8E5M2 or f8E8M0FNU, not to ")
           << out.getElementType()
           << "; other float casts overflow to infinity as PyTorch's do";
  return success();
}

//===----------------------------------------------------------------------===//
// BitcastOp
//===----------------------------------------------------------------------===//

LogicalResult BitcastOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError("changes the shape from ")
           << shapeStr(in.getShape()) << " to " << shapeStr(out.getShape())
           << "; a bitcast only reinterprets elements";
  Type a = in.getElementType(), b = out.getElementType();
  if (a.isInteger(1) || b.isInteger(1))
    return emitOpError("cannot reinterpret i1: a bool has no bit pattern (cast it)");
  if (a.getIntOrFloatBitWidth() != b.getIntOrFloatBitWidth())
    return emitOpError("reinterprets ")
           << a << " (" << a.getIntOrFloatBitWidth() << " bits) as " << b << " ("
           << b.getIntOrFloatBitWidth() << " bits); the widths must match";
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  Type elem = getResult().getType().getElementType();
  if (!isa<IntegerAttr, FloatAttr>(getValue()))
    return emitOpError("value must be an integer or float scalar");
  if (getValue().getType() != elem)
    return emitOpError("value of type ")
           << getValue().getType() << " does not match element type " << elem;
  return success();
}

/// How the literal at `p` is spelled; the generic attribute parser would take
/// the `: type` that follows as the literal's own type, so the literal is
/// parsed by kind instead.
enum class LiteralKind { Integer, Hex, Float };
static LiteralKind classifyLiteral(const char *p) {
  if (*p == '-')
    ++p;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    return LiteralKind::Hex;
  while (*p >= '0' && *p <= '9')
    ++p;
  return (*p == '.' || *p == 'e' || *p == 'E') ? LiteralKind::Float
                                               : LiteralKind::Integer;
}

// Syntax: `fuser.constant 1.5 : tensor<4xf32>`; also `nan`, `inf`, `-inf`,
// `true`, `false`, and hexadecimal bit patterns for floats.
ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  llvm::SMLoc valueLoc = parser.getCurrentLocation();
  enum { kNumber, kNan, kInf, kNegInf } special = kNumber;
  LiteralKind kind = classifyLiteral(valueLoc.getPointer());
  double floatValue = 0;
  llvm::APInt intValue;
  if (succeeded(parser.parseOptionalKeyword("nan"))) {
    special = kNan;
  } else if (succeeded(parser.parseOptionalKeyword("inf"))) {
    special = kInf;
  } else if (kind == LiteralKind::Float) {
    if (parser.parseFloat(floatValue))
      return failure();
  } else {
    bool negative = succeeded(parser.parseOptionalMinus());
    if (negative && succeeded(parser.parseOptionalKeyword("inf"))) {
      special = kNegInf;
    } else {
      OptionalParseResult r = parser.parseOptionalInteger(intValue);
      if (!r.has_value() || failed(*r))
        return parser.emitError(valueLoc,
                                "expected a number, true, false, nan or inf");
      if (intValue.getBitWidth() == 1) // `true` and `false`
        intValue = intValue.zext(64);
      if (negative) {
        intValue = intValue.zext(intValue.getBitWidth() + 1);
        intValue.negate();
      }
    }
  }
  RankedTensorType type;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(type))
    return failure();
  Type elem = type.getElementType();
  TypedAttr value;
  if (auto ft = dyn_cast<FloatType>(elem)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    llvm::APFloat v(sem);
    if (special == kNan) {
      v = llvm::APFloat::getQNaN(sem);
    } else if (special != kNumber) {
      v = llvm::APFloat::getInf(sem, special == kNegInf);
    } else if (kind == LiteralKind::Float) {
      // The literal is a double, as a Python number is (a half through f32).
      v = convertFloatAsTorch(llvm::APFloat(floatValue), ft);
    } else if (kind == LiteralKind::Hex) {
      if (intValue.getActiveBits() > ft.getWidth())
        return parser.emitError(valueLoc, "hexadecimal constant does not fit ")
               << ft;
      v = llvm::APFloat(sem, intValue.zextOrTrunc(ft.getWidth()));
    } else {
      v = convertIntegerAsTorch(intValue, /*isSigned=*/true, ft);
    }
    value = FloatAttr::get(ft, v);
  } else if (auto it = dyn_cast<IntegerType>(elem)) {
    if (special != kNumber || kind == LiteralKind::Float)
      return parser.emitError(valueLoc, "expected an integer for type ") << it;
    unsigned w = it.getWidth();
    bool fits = w == 1 ? (intValue.isZero() || intValue.isOne())
                       : (intValue.getSignificantBits() <= w ||
                          (kind == LiteralKind::Hex && intValue.getActiveBits() <= w));
    if (!fits)
      return parser.emitError(valueLoc, "value does not fit in ") << it;
    value = IntegerAttr::get(it, w == 1 ? intValue.zextOrTrunc(1)
                                        : intValue.sextOrTrunc(w));
  } else {
    return parser.emitError(valueLoc, "unsupported element type ") << elem;
  }
  result.getOrAddProperties<Properties>().value = value;
  result.addTypes(type);
  return success();
}

void ConstantOp::print(OpAsmPrinter &p) {
  p << ' ';
  if (auto f = dyn_cast<FloatAttr>(getValue())) {
    const llvm::APFloat &v = f.getValue();
    if (v.bitwiseIsEqual(llvm::APFloat::getQNaN(v.getSemantics())))
      p << "nan"; // other NaNs print as hex bit patterns
    else if (v.isInfinity())
      p << (v.isNegative() ? "-inf" : "inf");
    else
      p.printAttributeWithoutType(f);
  } else {
    auto i = cast<IntegerAttr>(getValue());
    if (i.getType().isInteger(1))
      p << (i.getValue().isOne() ? "true" : "false");
    else
      p << i.getValue().getSExtValue();
  }
  p.printOptionalAttrDict((*this)->getAttrs(), {"value"});
  p << " : " << getResult().getType();
}

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  int64_t rank = getResult().getType().getRank(), dim = getDimAttr().getInt();
  if (dim < 0 || dim >= rank)
    return emitOpError("dim ") << dim << " is out of range for rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// SizeOp
//===----------------------------------------------------------------------===//

LogicalResult SizeOp::verify() {
  int64_t rank = getInput().getType().getRank(), dim = getDim();
  if (dim < 0 || dim >= rank)
    return emitOpError("dim ") << dim << " is out of range for rank " << rank;
  int64_t extent = getInput().getType().getDimSize(dim);
  Type t = getResult().getType().getElementType();
  if (!ShapedType::isDynamic(extent) && t.isInteger() &&
      extent > (int64_t)APInt::getSignedMaxValue(t.getIntOrFloatBitWidth()).getSExtValue())
    return emitOpError("extent ") << extent << " does not fit in " << t;
  return success();
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("changes the element type from ")
           << in.getElementType() << " to " << out.getElementType();
  ArrayRef<int64_t> dims = getDims();
  if ((int64_t)dims.size() != in.getRank())
    return emitOpError("dims has ") << dims.size() << " entries for an operand "
                                    << "of rank " << in.getRank();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= out.getRank())
      return emitOpError("dims entry ")
             << d << " is out of range for result rank " << out.getRank();
    if (i > 0 && d <= dims[i - 1])
      return emitOpError("dims must be strictly increasing; use fuser.permute "
                         "to reorder dims");
    int64_t s = in.getDimSize(i), r = out.getDimSize(d);
    if (s != 1 && !joinDim(s, r))
      return emitOpError("operand dim ")
               << i << " of size " << s << " cannot broadcast to result dim "
               << d << " of size " << r << " (sizes must match or be 1)";
  }
  return success();
}

/// Verifies that `op`'s single result has the type its operands imply.
static LogicalResult verifyResultType(Operation *op,
                                      FailureOr<RankedTensorType> expected) {
  if (failed(expected))
    return failure();
  for (Type t : op->getResultTypes()) {
    if (t == *expected)
      continue;
    InFlightDiagnostic d = op->emitOpError("result type ")
                           << t << " does not match the expected " << *expected;
    // A port of torch.sum or torch.prod of an integer tensor writes its
    // int64 result; dropping the i64 would wrap in the narrower type.
    Type want = expected->getElementType(), got = cast<ShapedType>(t).getElementType();
    if (isa<SumOp, ProdOp>(op) && want.isInteger() && !want.isInteger(64) && got.isInteger(64))
      d << " (a sum or prod keeps its input's element type; PyTorch's of an integer tensor is "
           "int64: cast the input to i64 first)";
    return d;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The shape of a reduction of `in` over `dims`.
static FailureOr<RankedTensorType>
inferReductionType(std::optional<Location> loc, StringRef opName,
                   RankedTensorType in, ArrayRef<int64_t> dims, bool keepdim,
                   Type resultElementType) {
  // A rank-0 tensor takes dims = [0], as PyTorch reads a scalar's dim 0 or
  // -1: the reduction of its one element, a rank-0 result with or without
  // keepdim (DecomposeComposites lifts it to a [1] tensor, LiftRankZero.cpp).
  if (in.getRank() == 0) {
    if (dims.size() == 1 && dims[0] == 0)
      return RankedTensorType::get({}, resultElementType);
    return emitOptionalError(loc, "'fuser.", opName, "' op dims of a rank-0 input must be [0] ",
                             "(PyTorch's dim 0 or -1 of a scalar), got ", shapeStr(dims));
  }
  if (dims.empty())
    return emitOptionalError(loc, "'fuser.", opName,
                             "' op dims must not be empty; list every dim to "
                             "reduce all of them");
  if (failed(checkDimList(loc, opName, "dims", dims, in.getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    if (!llvm::is_contained(dims, i))
      shape.push_back(in.getDimSize(i));
    else if (keepdim)
      shape.push_back(1);
  }
  return RankedTensorType::get(shape, resultElementType);
}

#define FUSER_REDUCTION(OP, ELEM)                                              \
  FailureOr<RankedTensorType> OP::inferResultType(                             \
      std::optional<Location> loc, RankedTensorType in,                        \
      ArrayRef<int64_t> dims, bool keepdim) {                                  \
    return inferReductionType(loc, getOperationName().drop_front(6), in, dims, \
                              keepdim, ELEM);                                  \
  }                                                                            \
  LogicalResult OP::verify() {                                                 \
    return verifyResultType(*this,                                             \
                            inferResultType(getLoc(), getInput().getType(),    \
                                            getDims(), getKeepdim()));         \
  }
FUSER_REDUCTION(SumOp, in.getElementType())
FUSER_REDUCTION(ProdOp, in.getElementType())
FUSER_REDUCTION(MaxOp, in.getElementType())
FUSER_REDUCTION(MinOp, in.getElementType())
FUSER_REDUCTION(MeanOp, in.getElementType())
FUSER_REDUCTION(AnyOp, IntegerType::get(in.getContext(), 1))
FUSER_REDUCTION(AllOp, IntegerType::get(in.getContext(), 1))

LogicalResult VarMeanOp::verify() {
  if ((int64_t)getCorrection() < 0)
    return emitOpError("correction must be non-negative, got ")
           << (int64_t)getCorrection();
  RankedTensorType in = getInput().getType();
  return verifyResultType(*this,
                          inferReductionType(getLoc(), "var_mean", in, getDims(),
                                             getKeepdim(), in.getElementType()));
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// The element count of a static shape, or nullopt when it is 2^63 or more
/// (ShapedType::getNumElements wraps).
static std::optional<int64_t> checkedNumElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      return std::nullopt;
  return n;
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("changes the element type from ")
           << in.getElementType() << " to " << out.getElementType();
  if (!in.hasStaticShape() || !out.hasStaticShape())
    return success();
  std::optional<int64_t> n = checkedNumElements(in.getShape()),
                         m = checkedNumElements(out.getShape());
  if (!n || !m)
    return emitOpError("cannot reshape ")
           << shapeStr(in.getShape()) << " into " << shapeStr(out.getShape())
           << ": one of them has 2^63 elements or more";
  if (*n != *m)
    return emitOpError("cannot reshape ")
           << shapeStr(in.getShape()) << " (" << *n << " elements) into "
           << shapeStr(out.getShape()) << " (" << *m << " elements)";
  return success();
}

FailureOr<RankedTensorType>
PermuteOp::inferResultType(std::optional<Location> loc, RankedTensorType in,
                           ArrayRef<int64_t> perm) {
  if ((int64_t)perm.size() != in.getRank())
    return emitOptionalError(loc, "'fuser.permute' op perm has ", perm.size(),
                             " entries for an operand of rank ", in.getRank());
  if (failed(checkDimList(loc, "permute", "perm", perm, in.getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(in.getDimSize(p));
  return in.clone(shape);
}

LogicalResult PermuteOp::verify() {
  return verifyResultType(
      *this, inferResultType(getLoc(), getInput().getType(), getPerm()));
}

FailureOr<RankedTensorType>
SliceOp::inferResultType(std::optional<Location> loc, RankedTensorType in,
                         ArrayRef<int64_t> start, ArrayRef<int64_t> limit,
                         ArrayRef<int64_t> step) {
  int64_t rank = in.getRank();
  if ((int64_t)start.size() != rank || (int64_t)limit.size() != rank ||
      (int64_t)step.size() != rank)
    return emitOptionalError(loc, "'fuser.slice' op start, limit and step need ",
                             rank, " entries each (the operand rank)");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (start[i] < 0 || limit[i] < start[i])
      return emitOptionalError(loc, "'fuser.slice' op dim ", i,
                               " needs 0 <= start <= limit, got start ",
                               start[i], " limit ", limit[i]);
    if (step[i] < 1)
      return emitOptionalError(loc, "'fuser.slice' op dim ", i,
                               " needs step >= 1, got ", step[i]);
    int64_t size = in.getDimSize(i), end = limit[i];
    // kToEnd: to the end of the dim, as ATen's slice takes its default
    // end; a dynamic dim's result is then dynamic too.
    if (end == SliceOp::kToEnd) {
      if (ShapedType::isDynamic(size)) {
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      if (start[i] > size)
        return emitOptionalError(loc, "'fuser.slice' op dim ", i, " start ", start[i],
                                 " exceeds the dim size ", size);
      end = size;
    }
    if (!ShapedType::isDynamic(size) && end > size)
      return emitOptionalError(loc, "'fuser.slice' op dim ", i, " limit ",
                               end, " exceeds the dim size ", size);
    // ceil((limit - start) / step), which cannot overflow as
    // limit - start + step - 1 could.
    int64_t span = end - start[i];
    shape.push_back(span / step[i] + (span % step[i] != 0));
  }
  return in.clone(shape);
}

LogicalResult SliceOp::verify() {
  return verifyResultType(*this,
                          inferResultType(getLoc(), getInput().getType(),
                                          getStart(), getLimit(), getStep()));
}

FailureOr<RankedTensorType>
PadOp::inferResultType(std::optional<Location> loc, RankedTensorType in,
                       RankedTensorType value, ArrayRef<int64_t> low,
                       ArrayRef<int64_t> high) {
  if (value.getRank() != 0)
    return emitOptionalError(loc, "'fuser.pad' op padding value must have rank "
                                  "0, got ",
                             value);
  if (value.getElementType() != in.getElementType())
    return emitOptionalError(loc, "'fuser.pad' op padding value element type ",
                             value.getElementType(), " differs from the input's ",
                             in.getElementType(), "; insert a fuser.cast");
  int64_t rank = in.getRank();
  if ((int64_t)low.size() != rank || (int64_t)high.size() != rank)
    return emitOptionalError(loc, "'fuser.pad' op low and high need ", rank,
                             " entries each (the operand rank)");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = in.getDimSize(i), padded;
    if (low[i] == INT64_MIN || high[i] == INT64_MIN)
      return emitOptionalError(loc, "'fuser.pad' op dim ", i, ": padding ", INT64_MIN,
                               " cannot be cropped");
    // Negative amounts crop (torch.nn.functional.pad): the dim must hold
    // what both ends crop.
    int64_t crop = std::max<int64_t>(0, -low[i]), cropHigh = std::max<int64_t>(0, -high[i]);
    if (__builtin_add_overflow(crop, cropHigh, &crop))
      return emitOptionalError(loc, "'fuser.pad' op dim ", i, ": cropping ", -low[i], " and ",
                               -high[i], " overflows 64 bits");
    if (ShapedType::isDynamic(size)) {
      shape.push_back(size);
      continue;
    }
    if (crop > size)
      return emitOptionalError(loc, "'fuser.pad' op dim ", i, " of size ", size,
                               " cannot be cropped by ", crop, " (low ", low[i], ", high ",
                               high[i], ")");
    if (__builtin_add_overflow(size, low[i], &padded) ||
        __builtin_add_overflow(padded, high[i], &padded))
      return emitOptionalError(loc, "'fuser.pad' op dim ", i, ": ", size, " + ", low[i],
                               " + ", high[i], " overflows 64 bits");
    shape.push_back(padded);
  }
  return in.clone(shape);
}

LogicalResult PadOp::verify() {
  return verifyResultType(*this, inferResultType(getLoc(), getInput().getType(),
                                                 getValue().getType(), getLow(),
                                                 getHigh()));
}

FailureOr<RankedTensorType>
ConcatOp::inferResultType(std::optional<Location> loc, TypeRange inputs,
                          int64_t dim) {
  if (inputs.empty())
    return emitOptionalError(loc, "'fuser.concat' op needs at least one operand");
  auto first = cast<RankedTensorType>(inputs[0]);
  int64_t rank = first.getRank();
  if (dim < 0 || dim >= rank)
    return emitOptionalError(loc, "'fuser.concat' op dim ", dim,
                             " is out of range for rank ", rank);
  SmallVector<int64_t> shape = llvm::to_vector(first.getShape());
  shape[dim] = 0;
  for (Type type : inputs) {
    auto t = cast<RankedTensorType>(type);
    if (t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "'fuser.concat' op operand element types ",
                               first.getElementType(), " and ", t.getElementType(),
                               " differ; insert a fuser.cast");
    if (t.getRank() != rank)
      return emitOptionalError(loc, "'fuser.concat' op operands differ in rank: ",
                               shapeStr(first.getShape()), " and ",
                               shapeStr(t.getShape()));
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = t.getDimSize(i);
      if (i == dim) {
        if (ShapedType::isDynamic(d) || ShapedType::isDynamic(shape[i]))
          shape[i] = ShapedType::kDynamic;
        else if (__builtin_add_overflow(shape[i], d, &shape[i]))
          return emitOptionalError(loc, "'fuser.concat' op the sizes of dim ", dim,
                                   " add up past 64 bits");
        continue;
      }
      std::optional<int64_t> j = joinDim(shape[i], d);
      if (!j)
        return emitOptionalError(loc, "'fuser.concat' op operand shapes ",
                                 shapeStr(first.getShape()), " and ",
                                 shapeStr(t.getShape()), " differ in dim ", i,
                                 ", which is not the concat dim");
      shape[i] = *j;
    }
  }
  return first.clone(shape);
}

LogicalResult ConcatOp::verify() {
  return verifyResultType(*this,
                          inferResultType(getLoc(), getInputs().getTypes(),
                                          getDimAttr().getInt()));
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

FailureOr<RankedTensorType> GatherOp::inferResultType(std::optional<Location> loc,
                                                      RankedTensorType input,
                                                      RankedTensorType index, int64_t dim) {
  int64_t rank = input.getRank();
  if (dim < 0 || dim >= rank)
    return emitOptionalError(loc, "'fuser.gather' op dim ", dim, " is out of range for rank ",
                             rank);
  if (index.getRank() != rank)
    return emitOptionalError(loc, "'fuser.gather' op index ", shapeStr(index.getShape()),
                             " and input ", shapeStr(input.getShape()),
                             " differ in rank (torch.gather needs the same rank)");
  for (int64_t i = 0; i < rank; ++i) {
    int64_t n = index.getDimSize(i), m = input.getDimSize(i);
    if (i != dim && !ShapedType::isDynamic(n) && !ShapedType::isDynamic(m) && n > m)
      return emitOptionalError(loc, "'fuser.gather' op index size ", n, " of dim ", i,
                               " exceeds the input's ", m,
                               " (only dim ", dim, ", the gathered one, may be larger)");
  }
  return RankedTensorType::get(index.getShape(), input.getElementType());
}

LogicalResult GatherOp::verify() {
  return verifyResultType(*this, inferResultType(getLoc(), getInput().getType(),
                                                 getIndex().getType(),
                                                 getDimAttr().getInt()));
}

FailureOr<RankedTensorType> IndexSelectOp::inferResultType(std::optional<Location> loc,
                                                           RankedTensorType input,
                                                           RankedTensorType index,
                                                           int64_t dim) {
  int64_t rank = input.getRank();
  if (dim < 0 || dim >= rank)
    return emitOptionalError(loc, "'fuser.index_select' op dim ", dim,
                             " is out of range for rank ", rank);
  if (index.getRank() != 1)
    return emitOptionalError(loc, "'fuser.index_select' op index must have rank 1, got ",
                             shapeStr(index.getShape()));
  SmallVector<int64_t> shape = llvm::to_vector(input.getShape());
  shape[dim] = index.getDimSize(0);
  return input.clone(shape);
}

LogicalResult IndexSelectOp::verify() {
  return verifyResultType(*this, inferResultType(getLoc(), getInput().getType(),
                                                 getIndex().getType(),
                                                 getDimAttr().getInt()));
}

/// Whether static sizes `n` and `m` show n > m (dynamic ones are checked
/// when the fusion runs).
static bool staticallyLarger(int64_t n, int64_t m) {
  return !ShapedType::isDynamic(n) && !ShapedType::isDynamic(m) && n > m;
}

/// A non-empty static index into a static empty dim of self: every index
/// is out of range (ShapeAnalysis checks dynamic sizes when the fusion
/// runs).
static LogicalResult verifyNotIntoEmpty(Operation *op, RankedTensorType self,
                                        RankedTensorType index, int64_t dim) {
  if (self.getDimSize(dim) == 0 && index.hasStaticShape() && index.getNumElements() > 0)
    return op->emitOpError("adds an index of ")
           << index.getNumElements() << " elements into dim " << dim
           << " of self, which is empty: every index is out of range";
  return success();
}

LogicalResult ScatterAddOp::verify() {
  RankedTensorType self = getSelf().getType(), index = getIndex().getType(),
                   source = getSource().getType();
  int64_t rank = self.getRank(), dim = getDimAttr().getInt();
  if (dim < 0 || dim >= rank)
    return emitOpError("dim ") << dim << " is out of range for rank " << rank;
  if (index.getRank() != rank || source.getRank() != rank)
    return emitOpError("self ") << shapeStr(self.getShape()) << ", index "
                                << shapeStr(index.getShape()) << " and source "
                                << shapeStr(source.getShape())
                                << " differ in rank (torch.scatter_add needs the same rank)";
  if (source.getElementType() != self.getElementType())
    return emitOpError("source element type ")
           << source.getElementType() << " differs from self's " << self.getElementType()
           << "; insert a fuser.cast";
  for (int64_t i = 0; i < rank; ++i) {
    if (staticallyLarger(index.getDimSize(i), source.getDimSize(i)))
      return emitOpError("index size ") << index.getDimSize(i) << " of dim " << i
                                        << " exceeds the source's " << source.getDimSize(i);
    if (i != dim && staticallyLarger(index.getDimSize(i), self.getDimSize(i)))
      return emitOpError("index size ")
             << index.getDimSize(i) << " of dim " << i << " exceeds self's "
             << self.getDimSize(i) << " (only dim " << dim << ", the scattered one, may be larger)";
  }
  return verifyNotIntoEmpty(*this, self, index, dim);
}

LogicalResult IndexAddOp::verify() {
  RankedTensorType self = getSelf().getType(), index = getIndex().getType(),
                   source = getSource().getType();
  int64_t rank = self.getRank(), dim = getDimAttr().getInt();
  if (dim < 0 || dim >= rank)
    return emitOpError("dim ") << dim << " is out of range for rank " << rank;
  if (index.getRank() != 1)
    return emitOpError("index must have rank 1, got ") << shapeStr(index.getShape());
  if (source.getElementType() != self.getElementType())
    return emitOpError("source element type ")
           << source.getElementType() << " differs from self's " << self.getElementType()
           << "; insert a fuser.cast";
  SmallVector<int64_t> want = llvm::to_vector(self.getShape());
  want[dim] = index.getDimSize(0);
  bool ok = source.getRank() == rank;
  for (int64_t i = 0; ok && i < rank; ++i)
    ok = ShapedType::isDynamic(want[i]) || ShapedType::isDynamic(source.getDimSize(i)) ||
         want[i] == source.getDimSize(i);
  if (!ok)
    return emitOpError("source must have shape ")
           << shapeStr(want) << " (self's, with the index's length at dim " << dim << "), got "
           << shapeStr(source.getShape());
  return verifyNotIntoEmpty(*this, self, index, dim);
}

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

bool mlir::fuser::isAlongDimOfScalar(Operation *op) {
  if (!isa<SumOp, ProdOp, MaxOp, MinOp, MeanOp, AnyOp, AllOp, VarMeanOp, CumsumOp, CumprodOp,
           CummaxOp, CumminOp, SoftmaxOp, LogSoftmaxOp>(op))
    return false;
  auto t = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  return t && t.getRank() == 0;
}

/// Checks the dim of a scan, softmax or log_softmax of `t`: in [0, rank),
/// and 0 for a rank-0 `t` (PyTorch's dim 0 or -1 of a scalar: the op over
/// its one element, lifted to a [1] tensor by LiftRankZero.cpp).
static LogicalResult verifyAlongDim(Operation *op, RankedTensorType t, int64_t dim) {
  int64_t rank = t.getRank();
  if (rank == 0 && dim != 0)
    return op->emitOpError("dim ")
           << dim << " is out of range for rank 0 (a scalar takes dim 0, PyTorch's 0 or -1)";
  if (rank > 0 && (dim < 0 || dim >= rank))
    return op->emitOpError("dim ") << dim << " is out of range for rank " << rank;
  return success();
}

static LogicalResult verifyScan(Operation *op, RankedTensorType t, int64_t dim) {
  if (failed(verifyAlongDim(op, t, dim)))
    return failure();
  Type e = t.getElementType();
  if (e.isInteger() && !e.isInteger(64))
    return op->emitOpError("accumulates ")
           << e << " as PyTorch does, in int64: cast the input to i64 first";
  return success();
}

LogicalResult CumsumOp::verify() {
  return verifyScan(*this, getInput().getType(), getDimAttr().getInt());
}

LogicalResult CumprodOp::verify() {
  return verifyScan(*this, getInput().getType(), getDimAttr().getInt());
}

/// cummax, cummin: any element type (they pick, never compute); the
/// indices have the input's shape.
static LogicalResult verifyScanExtremum(Operation *op, RankedTensorType in,
                                        RankedTensorType indices, int64_t dim) {
  if (failed(verifyAlongDim(op, in, dim)))
    return failure();
  if (indices.getShape() != in.getShape())
    return op->emitOpError("indices must have the input's shape ")
           << in.clone(indices.getElementType()) << ", not " << indices;
  return success();
}

LogicalResult CummaxOp::verify() {
  return verifyScanExtremum(*this, getInput().getType(), getIndices().getType(),
                            getDimAttr().getInt());
}

LogicalResult CumminOp::verify() {
  return verifyScanExtremum(*this, getInput().getType(), getIndices().getType(),
                            getDimAttr().getInt());
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return verifyAlongDim(*this, getInput().getType(), getDimAttr().getInt());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyAlongDim(*this, getInput().getType(), getDimAttr().getInt());
}

/// Checks the normalized `dims` of layer_norm/rms_norm (the trailing dims, in
/// order) and an optional affine parameter of their shape.
static LogicalResult verifyNormalization(Operation *op, RankedTensorType in,
                                         ArrayRef<int64_t> dims,
                                         ArrayRef<Value> params) {
  int64_t rank = in.getRank();
  if (dims.empty())
    return op->emitOpError("dims must list the normalized trailing dims");
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != rank - (int64_t)dims.size() + (int64_t)i)
      return op->emitOpError("dims must be the trailing dims in order, e.g. [")
             << rank - 1 << "] for rank " << rank << ", got ["
             << llvm::make_range(dims.begin(), dims.end()) << "]";
  ArrayRef<int64_t> normShape = in.getShape().take_back(dims.size());
  for (auto [k, p] : llvm::enumerate(params)) {
    if (!p)
      continue;
    // params: the weight, then (layer_norm) the bias.
    StringRef what = k == 0 ? "weight" : "bias";
    auto t = cast<RankedTensorType>(p.getType());
    if (t.getElementType() != in.getElementType())
      return op->emitOpError("the ")
             << what << "'s element type " << t.getElementType() << " differs from the input's "
             << in.getElementType()
             << "; insert a fuser.cast (as PyTorch computes a mixed-type normalization, "
                "cast the input to the wider type and the result back: one rounding)";
    bool ok = t.getRank() == (int64_t)normShape.size();
    for (int64_t i = 0; ok && i < t.getRank(); ++i)
      ok = joinDim(t.getDimSize(i), normShape[i]).has_value();
    if (!ok)
      return op->emitOpError("the ")
             << what << " must have the normalized shape " << shapeStr(normShape) << ", got "
             << shapeStr(t.getShape());
  }
  return success();
}

/// f32 statistics for half inputs, as PyTorch returns them.
static Type statisticsType(Type elem) {
  if (elem.isF16() || elem.isBF16())
    return Float32Type::get(elem.getContext());
  return elem;
}

LogicalResult LayerNormOp::verify() {
  RankedTensorType in = getInput().getType();
  if (failed(verifyNormalization(*this, in, getDims(),
                                 {getWeight(), getBias()})))
    return failure();
  if (getResult().getType() != in)
    return emitOpError("result type ")
           << getResult().getType() << " must equal the input type " << in;
  SmallVector<int64_t> statShape = llvm::to_vector(in.getShape());
  for (int64_t d : getDims())
    statShape[d] = 1;
  auto statType =
      RankedTensorType::get(statShape, statisticsType(in.getElementType()));
  if (getMean().getType() != statType || getRstd().getType() != statType)
    return emitOpError("mean and rstd must have type ")
           << statType << " (the input shape with normalized dims of size 1)";
  return success();
}

LogicalResult RmsNormOp::verify() {
  RankedTensorType in = getInput().getType();
  if (failed(verifyNormalization(*this, in, getDims(), {getWeight()})))
    return failure();
  if (getResult().getType() != in)
    return emitOpError("result type ")
           << getResult().getType() << " must equal the input type " << in;
  return success();
}

//===----------------------------------------------------------------------===//
// fp8 scaling composites
//===----------------------------------------------------------------------===//

LogicalResult ScaledCastOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  RankedTensorType scale = getScale().getType();
  if (out.getShape() != in.getShape())
    return emitOpError("result shape ") << shapeStr(out.getShape())
                                        << " must equal the input's " << shapeStr(in.getShape());
  if (scale.getRank() != 0) {
    if (scale.getRank() != in.getRank())
      return emitOpError("scale has rank ")
             << scale.getRank() << "; it must be rank 0 (one scale) or the input's rank "
             << in.getRank();
    for (int64_t d = 0; d < in.getRank(); ++d)
      if (scale.getDimSize(d) != 1 && !joinDim(scale.getDimSize(d), in.getDimSize(d)))
        return emitOpError("scale shape ")
               << shapeStr(scale.getShape()) << " does not broadcast to the input's "
               << shapeStr(in.getShape()) << " in dim " << d
               << " (each dim is 1 or the input's size; a '?' matches any, checked when it runs)";
  }
  if (getAmax().getType() != scale)
    return emitOpError("amax type ") << getAmax().getType() << " must equal the scale type "
                                     << scale;
  return success();
}

LogicalResult QuantizeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  RankedTensorType scale = getScale().getType(), amax = getAmax().getType();
  if (out.getShape() != in.getShape())
    return emitOpError("result shape ") << shapeStr(out.getShape())
                                        << " must equal the input's " << shapeStr(in.getShape());
  QuantGranularity g = getGranularity();
  std::optional<int64_t> block = getBlockSize();
  if (g != QuantGranularity::block && block)
    return emitOpError("a block size is for block granularity only");
  SmallVector<int64_t> want;
  if (g != QuantGranularity::tensor) {
    if (in.getRank() == 0)
      return emitOpError("row and block granularity need an input of rank 1 or more");
    want.assign(in.getShape().begin(), in.getShape().end());
    int64_t h = want.back();
    if (g == QuantGranularity::row) {
      want.back() = 1;
    } else {
      if (!block)
        return emitOpError("block granularity needs a block size (block 32)");
      if (*block <= 0)
        return emitOpError("block size ") << *block << " must be positive";
      if (ShapedType::isDynamic(h) || h % *block)
        return emitOpError("the last dim (")
               << (ShapedType::isDynamic(h) ? std::string("?") : std::to_string(h))
               << ") must be static and a multiple of the block size " << *block;
      want.back() = h / *block;
    }
  }
  if (scale.getShape() != ArrayRef<int64_t>(want))
    return emitOpError("scale shape ") << shapeStr(scale.getShape()) << " must be "
                                       << shapeStr(want) << " for " << stringifyQuantGranularity(g)
                                       << " granularity";
  if (amax.getShape() != scale.getShape())
    return emitOpError("amax shape ") << shapeStr(amax.getShape())
                                      << " must equal the scale's " << shapeStr(scale.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

/// `like` gives a random op's shape: the same rank, and equal sizes where
/// both are static.
static LogicalResult verifyLike(Operation *op, Value like, RankedTensorType result) {
  if (!like)
    return success();
  auto t = cast<RankedTensorType>(like.getType());
  if (t.getRank() != result.getRank())
    return op->emitOpError("like has rank ")
           << t.getRank() << ", the result " << result.getRank();
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (!t.isDynamicDim(d) && !result.isDynamicDim(d) &&
        t.getDimSize(d) != result.getDimSize(d))
      return op->emitOpError("like's shape ")
             << shapeStr(t.getShape()) << " differs from the result's "
             << shapeStr(result.getShape()) << " in dim " << d;
  return success();
}

LogicalResult RandOp::verify() { return verifyLike(*this, getLike(), getType()); }
LogicalResult RandnOp::verify() { return verifyLike(*this, getLike(), getType()); }

std::optional<double> mlir::fuser::probabilityOutOfRange(Attribute constant) {
  auto bad = [](double v) { return !(v >= 0.0 && v <= 1.0); };
  if (auto f = dyn_cast_if_present<FloatAttr>(constant))
    return bad(f.getValueAsDouble()) ? std::optional(f.getValueAsDouble()) : std::nullopt;
  if (auto dense = dyn_cast_if_present<DenseFPElementsAttr>(constant)) {
    if (dense.isSplat()) {
      double v = dense.getSplatValue<APFloat>().convertToDouble();
      return bad(v) ? std::optional(v) : std::nullopt;
    }
    for (const APFloat &f : dense.getValues<APFloat>())
      if (bad(f.convertToDouble()))
        return f.convertToDouble();
  }
  return std::nullopt;
}

std::string mlir::fuser::probabilityText(double v) {
  char text[32];
  snprintf(text, sizeof text, "%.9g", v);
  return text;
}

/// A constant probability (or a broadcast of one) out of range, as
/// written; a probability passed in is the caller's to check.
static std::optional<double> writtenProbabilityOutOfRange(Value p) {
  while (auto b = p.getDefiningOp<BroadcastOp>())
    p = b.getInput();
  auto c = p.getDefiningOp<ConstantOp>();
  return c ? mlir::fuser::probabilityOutOfRange(c.getValue()) : std::nullopt;
}

LogicalResult DropoutOp::verify() {
  RankedTensorType in = getInput().getType();
  if (getResult().getType() != in)
    return emitOpError("result type ")
           << getResult().getType() << " must equal the input type " << in;
  if (getMask().getType() != RankedTensorType::get(in.getShape(), IntegerType::get(getContext(), 1)))
    return emitOpError("mask type ")
           << getMask().getType() << " must be the input's shape of i1";
  auto p = cast<RankedTensorType>(getP().getType());
  if (p.getRank() != 0)
    return emitOpError("p must have rank 0, got ") << p;
  if (std::optional<double> v = writtenProbabilityOutOfRange(getP()))
    return emitOpError("p must be in [0, 1], got ") << probabilityText(*v);
  return success();
}

LogicalResult BernoulliOp::verify() {
  if (std::optional<double> v = writtenProbabilityOutOfRange(getP()))
    return emitOpError("p must be in [0, 1], got ") << probabilityText(*v);
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix multiplication
//===----------------------------------------------------------------------===//

/// A size for diagnostics: `?` or the number.
static std::string sizeStr(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

FailureOr<RankedTensorType> MatmulOp::inferResultType(std::optional<Location> loc,
                                                      RankedTensorType lhs,
                                                      RankedTensorType rhs) {
  if (lhs.getRank() == 0 || rhs.getRank() == 0)
    return emitOptionalError(loc, "'fuser.matmul' op operands must be at least 1-D, got ",
                             shapeStr(lhs.getShape()), " and ", shapeStr(rhs.getShape()),
                             " (torch.matmul; a scalar product is fuser.mul)");
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "'fuser.matmul' op operand element types ",
                             lhs.getElementType(), " and ", rhs.getElementType(),
                             " differ; insert a fuser.cast (torch.matmul needs one dtype)");
  ArrayRef<int64_t> a = lhs.getShape(), b = rhs.getShape();
  int64_t k = a.back();
  int64_t kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  if (!joinDim(k, kb))
    return emitOptionalError(loc, "'fuser.matmul' op contracts ", shapeStr(a), " with ",
                             shapeStr(b), ": the lhs's last dim (", k, ") differs from the rhs's ",
                             b.size() == 1 ? "only" : "second to last", " dim (", kb, ")");
  // Batch dims, broadcast right-aligned: a static 1 takes the other's size.
  ArrayRef<int64_t> ba = a.size() > 2 ? a.drop_back(2) : ArrayRef<int64_t>();
  ArrayRef<int64_t> bb = b.size() > 2 ? b.drop_back(2) : ArrayRef<int64_t>();
  size_t n = std::max(ba.size(), bb.size());
  SmallVector<int64_t> shape(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i + ba.size() >= n ? ba[i + ba.size() - n] : 1;
    int64_t y = i + bb.size() >= n ? bb[i + bb.size() - n] : 1;
    if (x == 1 || y == 1) {
      shape[i] = x == 1 ? y : x;
      continue;
    }
    std::optional<int64_t> j = joinDim(x, y);
    if (!j)
      return emitOptionalError(loc, "'fuser.matmul' op batch dims of ", shapeStr(a), " and ",
                               shapeStr(b), " do not broadcast: ", x, " against ", y);
    shape[i] = *j;
  }
  if (a.size() >= 2)
    shape.push_back(a[a.size() - 2]);
  if (b.size() >= 2)
    shape.push_back(b.back());
  return RankedTensorType::get(shape, lhs.getElementType());
}

LogicalResult MatmulOp::verify() {
  return verifyResultType(*this,
                          inferResultType(getLoc(), getLhs().getType(), getRhs().getType()));
}

FailureOr<RankedTensorType> LinearOp::inferResultType(std::optional<Location> loc,
                                                      RankedTensorType input,
                                                      RankedTensorType weight,
                                                      std::optional<RankedTensorType> bias) {
  if (input.getRank() == 0)
    return emitOptionalError(loc, "'fuser.linear' op input must be at least 1-D ([..., in])");
  if (weight.getRank() != 2)
    return emitOptionalError(loc, "'fuser.linear' op weight must be 2-D ([out, in]), got ",
                             shapeStr(weight.getShape()),
                             " (a 1-D weight is fuser.matmul of the input and it)");
  Type e = input.getElementType();
  if (weight.getElementType() != e)
    return emitOptionalError(loc, "'fuser.linear' op input and weight element types ", e,
                             " and ", weight.getElementType(), " differ; insert a fuser.cast");
  if (bias && bias->getElementType() != e)
    return emitOptionalError(loc, "'fuser.linear' op bias element type ",
                             bias->getElementType(), " differs from the input's ", e,
                             "; insert a fuser.cast");
  int64_t in = input.getShape().back(), out = weight.getDimSize(0);
  if (!joinDim(in, weight.getDimSize(1)))
    return emitOptionalError(loc, "'fuser.linear' op input ", shapeStr(input.getShape()),
                             " has ", sizeStr(in), " features but weight ",
                             shapeStr(weight.getShape()), " takes ",
                             sizeStr(weight.getDimSize(1)));
  if (bias && (bias->getRank() != 1 || !joinDim(bias->getDimSize(0), out)))
    return emitOptionalError(loc, "'fuser.linear' op bias must be 1-D of the weight's ",
                             sizeStr(out), " outputs, got ", shapeStr(bias->getShape()),
                             " (F.linear's bias that broadcasts, [1] or a scalar: "
                             "fuser.broadcast it to the outputs first)");
  SmallVector<int64_t> shape(input.getShape().drop_back());
  shape.push_back(ShapedType::isDynamic(out) && bias ? bias->getDimSize(0) : out);
  return RankedTensorType::get(shape, e);
}

LogicalResult LinearOp::verify() {
  std::optional<RankedTensorType> bias;
  if (getBias())
    bias = getBias().getType();
  return verifyResultType(*this, inferResultType(getLoc(), getInput().getType(),
                                                 getWeight().getType(), bias));
}

LogicalResult mlir::fuser::verifyCollective(Operation *op, StringRef kind,
                                           std::optional<StringRef> reduction, Type element,
                                           ArrayRef<int64_t> gridAxes) {
  bool reduces = kind == "all_reduce" || kind == "reduce_scatter";
  if (!reduces && kind != "all_gather" && kind != "slice" && kind != "all_to_all")
    return op->emitOpError(
               "kind must be all_reduce, all_gather, reduce_scatter, slice or all_to_all, got '")
           << kind << "'";
  if (reduces != reduction.has_value())
    return op->emitOpError(reduces ? "'" + kind.str() + "' needs a reduction"
                                   : "'" + kind.str() + "' takes no reduction");
  if (reduction) {
    StringRef r = *reduction;
    if (r != "sum" && r != "prod" && r != "max" && r != "min" && r != "avg")
      return op->emitOpError("reduction must be sum, prod, max, min or avg, got '") << r << "'";
    if (isFloat8(element))
      return op->emitOpError("cannot reduce ") << element
                                               << ": the communication library does not "
                                                  "compute on fp8 (cast to f32 first)";
    if (r == "avg" && !isa<FloatType>(element))
      return op->emitOpError("reduction 'avg' needs a float type, got ") << element;
    if (element.isInteger(1) && r != "max" && r != "min")
      return op->emitOpError("reduces i1 with '")
             << r << "': i1 takes max (any) or min (all)";
  }
  if (gridAxes.empty())
    return op->emitOpError("needs at least one grid axis");
  for (auto [i, a] : llvm::enumerate(gridAxes))
    if (a < 0 || a >= 8 || (i > 0 && a <= gridAxes[i - 1]))
      return op->emitOpError("grid axes must be ascending, distinct and below 8, got [")
             << gridAxes << "]";
  return success();
}

LogicalResult CollectiveOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("result element type ")
           << out.getElementType() << " differs from the input's " << in.getElementType();
  if (failed(verifyCollective(*this, getKind(), getReduction(), in.getElementType(),
                              getGridAxes())))
    return failure();
  int64_t g = getGroupSize();
  if (g < 1)
    return emitOpError("group_size must be at least 1, got ") << g;
  // The parts are along a leading dim of the group's size.
  ArrayRef<int64_t> whole = in.getShape(), part = out.getShape();
  StringRef kind = getKind();
  if (kind == "all_gather")
    std::swap(whole, part);
  if (kind == "all_reduce" || kind == "all_to_all") {
    if (whole != part)
      return emitOpError("'") << kind << "' keeps the shape: result " << shapeStr(out.getShape())
                              << " differs from the input " << shapeStr(in.getShape());
    if (kind == "all_to_all" && (in.getRank() == 0 || in.getDimSize(0) != g))
      return emitOpError("'all_to_all' over ")
             << g << " devices takes parts along a leading dim of " << g << ", got "
             << shapeStr(in.getShape());
    return success();
  }
  if (whole.size() != part.size() + 1 || whole.front() != g || whole.drop_front() != part)
    return emitOpError("'") << kind << "' over " << g << " devices takes "
                            << (kind == "all_gather" ? "an input [...] to a result [" : "an input [")
                            << g << ", ...] " << (kind == "all_gather" ? "" : "to a result [...] ")
                            << "with the same other dims; got " << shapeStr(in.getShape())
                            << " -> " << shapeStr(out.getShape());
  return success();
}

#define GET_OP_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserOps.cpp.inc"
