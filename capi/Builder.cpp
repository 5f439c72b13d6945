//===- Builder.cpp - building fusions through the C API -------------------===//
//
// The builder keeps a detached func.func and appends one op per call. Every
// op is checked the way the parser checks it: its result type comes from the
// op's own inference (inferReturnTypes, or the static inferResultType of ops
// that spell their result type), then the created op is verified; the
// diagnostics that produces are captured and recorded in the builder, and an
// op that fails is erased. Handles are checked before they are dereferenced:
// a FuserBuilder is an id into a registry of live builders, and an MlirValue
// must be one the same builder handed out.
//
//===----------------------------------------------------------------------===//

#include "BuilderImpl.h"
#include "Diagnostics.h"

#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/FusionName.h"
#include "fuser_runtime.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::capi;

static_assert((int)FuserDTypeI1 == FUSER_DTYPE_I1 && (int)FuserDTypeI8 == FUSER_DTYPE_I8 &&
                  (int)FuserDTypeI32 == FUSER_DTYPE_I32 &&
                  (int)FuserDTypeI64 == FUSER_DTYPE_I64 &&
                  (int)FuserDTypeF16 == FUSER_DTYPE_F16 &&
                  (int)FuserDTypeBF16 == FUSER_DTYPE_BF16 &&
                  (int)FuserDTypeF32 == FUSER_DTYPE_F32 &&
                  (int)FuserDTypeF64 == FUSER_DTYPE_F64 &&
                  (int)FuserDTypeF8E4M3FN == FUSER_DTYPE_F8E4M3FN &&
                  (int)FuserDTypeF8E5M2 == FUSER_DTYPE_F8E5M2 &&
                  (int)FuserDTypeF8E8M0FNU == FUSER_DTYPE_F8E8M0FNU,
              "FuserDType must number dtypes as the bundle does");
static_assert(FUSER_DYNAMIC == ShapedType::kDynamic,
              "FUSER_DYNAMIC must be MLIR's dynamic size");
static_assert((int)FuserGeluTanh == (int)GeluApproximation::tanh &&
                  (int)FuserRoundingFloor == (int)RoundingMode::floor &&
                  (int)FuserRoundingTrunc == (int)RoundingMode::trunc,
              "enums must match the dialect's");

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

namespace {
/// Live builders by id. Ids are never reused, so a destroyed builder's
/// handle stays recognizably dead. Never destroyed (a builder leaked by the
/// caller must not be torn down at exit, after its context).
struct Registry {
  std::mutex mutex;
  llvm::DenseMap<uintptr_t, BuilderImpl *> live;
  uintptr_t next = 1;
};
Registry &registry() {
  static Registry *r = new Registry;
  return *r;
}
} // namespace

BuilderImpl *mlir::fuser::capi::lookupBuilder(FuserBuilder b) {
  if (!b.ptr)
    return nullptr;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.live.find(reinterpret_cast<uintptr_t>(b.ptr));
  return it == r.live.end() ? nullptr : it->second;
}

bool BuilderImpl::nameTaken(StringRef n) const {
  return llvm::is_contained(inputNames, n) || llvm::is_contained(outputNames, n);
}

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

Type mlir::fuser::capi::elementTypeOf(MLIRContext *ctx, FuserDType dtype) {
  switch (dtype) {
  case FuserDTypeI1: return IntegerType::get(ctx, 1);
  case FuserDTypeI8: return IntegerType::get(ctx, 8);
  case FuserDTypeI32: return IntegerType::get(ctx, 32);
  case FuserDTypeI64: return IntegerType::get(ctx, 64);
  case FuserDTypeF16: return Float16Type::get(ctx);
  case FuserDTypeBF16: return BFloat16Type::get(ctx);
  case FuserDTypeF32: return Float32Type::get(ctx);
  case FuserDTypeF64: return Float64Type::get(ctx);
  case FuserDTypeF8E4M3FN: return Float8E4M3FNType::get(ctx);
  case FuserDTypeF8E5M2: return Float8E5M2Type::get(ctx);
  case FuserDTypeF8E8M0FNU: return Float8E8M0FNUType::get(ctx);
  case FuserDTypeInvalid: break;
  }
  return Type();
}

FuserDType mlir::fuser::capi::dtypeOf(Type t) {
  if (auto i = dyn_cast<IntegerType>(t)) {
    if (!i.isSignless())
      return FuserDTypeInvalid;
    switch (i.getWidth()) {
    case 1: return FuserDTypeI1;
    case 8: return FuserDTypeI8;
    case 32: return FuserDTypeI32;
    case 64: return FuserDTypeI64;
    default: return FuserDTypeInvalid;
    }
  }
  if (t.isF16())
    return FuserDTypeF16;
  if (t.isBF16())
    return FuserDTypeBF16;
  if (t.isF32())
    return FuserDTypeF32;
  if (t.isF64())
    return FuserDTypeF64;
  if (isa<Float8E4M3FNType>(t))
    return FuserDTypeF8E4M3FN;
  if (isa<Float8E5M2Type>(t))
    return FuserDTypeF8E5M2;
  if (isa<Float8E8M0FNUType>(t))
    return FuserDTypeF8E8M0FNU;
  return FuserDTypeInvalid;
}

const char *fuserDTypeGetName(FuserDType dtype) {
  switch (dtype) {
  case FuserDTypeI1: return "i1";
  case FuserDTypeI8: return "i8";
  case FuserDTypeI32: return "i32";
  case FuserDTypeI64: return "i64";
  case FuserDTypeF16: return "f16";
  case FuserDTypeBF16: return "bf16";
  case FuserDTypeF32: return "f32";
  case FuserDTypeF64: return "f64";
  case FuserDTypeF8E4M3FN: return "f8E4M3FN";
  case FuserDTypeF8E5M2: return "f8E5M2";
  case FuserDTypeF8E8M0FNU: return "f8E8M0FNU";
  case FuserDTypeInvalid: break;
  }
  return "invalid";
}

//===----------------------------------------------------------------------===//
// Call
//===----------------------------------------------------------------------===//

static const char *severityName(DiagnosticSeverity s) {
  switch (s) {
  case DiagnosticSeverity::Error: return "error";
  case DiagnosticSeverity::Warning: return "warning";
  case DiagnosticSeverity::Note: return "note";
  case DiagnosticSeverity::Remark: return "remark";
  }
  return "error";
}

Call::Call(FuserBuilder b, const char *fn) : B(lookupBuilder(b)), fn(fn) {
  if (!B)
    return;
  if (B->func && !B->body().empty())
    lastBefore = &B->body().back();
  handler.emplace(B->ctx, [this](Diagnostic &d) {
    auto add = [&](Diagnostic &x) {
      if (StringRef(x.str()).starts_with("see current operation:"))
        return;
      if (!captured.empty())
        captured += "\n";
      captured += formatLocation(x.getLocation()) + ": " +
                  severityName(x.getSeverity()) + ": " + this->fn + ": " + x.str();
    };
    add(d);
    for (Diagnostic &note : d.getNotes())
      add(note);
    return success();
  });
}

Call::~Call() {
  if (!B || !failedCall || handedOut || !B->func)
    return;
  // Newest first, so that each op's users are gone before it; an op whose
  // results something older uses (none should) stays.
  Block &body = B->body();
  while (!body.empty() && &body.back() != lastBefore) {
    Operation *op = &body.back();
    if (!op->use_empty())
      break;
    for (Value r : op->getResults()) {
      B->values.erase(r.getAsOpaquePointer());
      B->wrapped.erase(r.getAsOpaquePointer());
    }
    op->erase();
  }
}

bool Call::ready() {
  if (!B)
    return false;
  if (B->finished) {
    fail("the fusion was already finished; create a new builder");
    return false;
  }
  return true;
}

void Call::fail(const Twine &msg) {
  failedCall = true;
  B->recordError(formatLocation(B->loc()) + ": error: " + fn + ": " + msg.str());
}

void Call::failWithDiagnostics(const Twine &fallback) {
  failedCall = true;
  if (captured.empty())
    fail(fallback);
  else
    B->recordError(captured);
  captured.clear();
}

Value Call::operand(MlirValue v, const Twine &what) {
  if (!v.ptr) {
    fail(what + " is null" +
         (B->numErrors ? " (an earlier call failed: see the first error)" : ""));
    return Value();
  }
  if (!B->values.contains(v.ptr)) {
    fail(what + " is not a value of this builder (a value of another builder, "
                "of a destroyed one, or of another context)");
    return Value();
  }
  return unwrap(v);
}

bool Call::operands(ArrayRef<MlirValue> vs, SmallVectorImpl<Value> &out) {
  for (auto [i, v] : llvm::enumerate(vs)) {
    Value x = operand(v, "operand " + Twine(i + 1));
    if (!x)
      return false;
    out.push_back(x);
  }
  return true;
}

Operation *Call::create(StringRef opName, ValueRange operands, TypeRange types,
                        ArrayRef<NamedAttribute> attrs) {
  OperationState state(loc(), opName);
  state.addOperands(operands);
  state.addTypes(types);
  state.addAttributes(attrs);
  OpBuilder builder(ctx());
  builder.setInsertionPointToEnd(&B->body());
  Operation *op = builder.create(state);
  if (failed(verify(op))) {
    op->erase();
    failWithDiagnostics("'" + opName + "' op failed to verify");
    return nullptr;
  }
  for (Value r : op->getResults())
    B->values.insert(r.getAsOpaquePointer());
  return op;
}

MlirValue Call::wrapValue(Value v) {
  if (!v)
    return MlirValue{nullptr};
  handedOut = true;
  B->values.insert(v.getAsOpaquePointer());
  return wrap(v);
}

Type Call::elementType(FuserDType dtype) {
  Type t = elementTypeOf(ctx(), dtype);
  if (!t)
    fail("dtype " + Twine((int)dtype) + " is not a FuserDType");
  return t;
}

bool Call::shape(intptr_t rank, const int64_t *data, SmallVectorImpl<int64_t> &out,
                 StringRef what) {
  if (rank < 0 || rank > FUSER_MAX_RANK) {
    fail("rank " + Twine((int64_t)rank) + " of the " + what +
         " is out of range (0 to FUSER_MAX_RANK, " + Twine(FUSER_MAX_RANK) + ")");
    return false;
  }
  if (rank > 0 && !data) {
    fail("the " + what + " is NULL with rank " + Twine((int64_t)rank));
    return false;
  }
  for (intptr_t i = 0; i < rank; ++i) {
    if (data[i] < 0 && data[i] != FUSER_DYNAMIC) {
      fail("dim " + Twine((int64_t)i) + " of the " + what + " has size " +
           Twine(data[i]) + "; sizes are >= 0, or FUSER_DYNAMIC for a dynamic dim");
      return false;
    }
    out.push_back(data[i]);
  }
  return true;
}

bool Call::array(intptr_t n, const int64_t *data, SmallVectorImpl<int64_t> &out,
                 StringRef what) {
  if (n < 0 || n > 4096) {
    fail("the number of " + what + " entries, " + Twine((int64_t)n) +
         ", is out of range");
    return false;
  }
  if (n > 0 && !data) {
    fail(what + " is NULL with " + Twine((int64_t)n) + " entries");
    return false;
  }
  out.append(data, data + n);
  return true;
}

bool Call::normalizeDims(ArrayRef<int64_t> dims, int64_t rank,
                         SmallVectorImpl<int64_t> &out, StringRef what) {
  for (int64_t d : dims) {
    if (d < -rank || d >= rank) {
      if (rank == 0)
        fail(what + " " + Twine(d) + " is out of range for rank 0 (no dims)");
      else
        fail(what + " " + Twine(d) + " is out of range for rank " + Twine(rank) +
             " (expected a dim in [" + Twine(-rank) + ", " + Twine(rank - 1) + "])");
      return false;
    }
    out.push_back(d < 0 ? d + rank : d);
  }
  return true;
}

bool Call::normalizeAlongDims(ArrayRef<int64_t> dims, int64_t rank,
                              SmallVectorImpl<int64_t> &out, StringRef what) {
  if (rank != 0)
    return normalizeDims(dims, rank, out, what);
  if (dims.empty())
    out.push_back(0);
  if (dims.size() > 1) {
    fail(what + "s name " + Twine((int64_t)dims.size()) +
         " dims of a scalar, which has one (dim 0, or -1)");
    return false;
  }
  for (int64_t d : dims) {
    if (d != 0 && d != -1) {
      fail(what + " " + Twine(d) + " is out of range for rank 0 (a scalar takes dim 0 or -1)");
      return false;
    }
    out.push_back(0);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Internal builders
//===----------------------------------------------------------------------===//

Value mlir::fuser::capi::buildCast(Call &c, Value x, Type elementType, bool saturate) {
  SmallVector<NamedAttribute, 1> attrs;
  if (saturate)
    attrs.push_back(attr(c.ctx(), "saturate", UnitAttr::get(c.ctx())));
  return firstResult(c.create(CastOp::getOperationName(), x,
                              tensorOf(x).clone(elementType), attrs));
}

Value mlir::fuser::capi::buildBroadcast(Call &c, Value x, ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> dims) {
  auto type = RankedTensorType::get(shape, tensorOf(x).getElementType());
  return firstResult(
      c.create(BroadcastOp::getOperationName(), x, type,
               {attr(c.ctx(), "dims", DenseI64ArrayAttr::get(c.ctx(), dims))}));
}

Value mlir::fuser::capi::buildReshape(Call &c, Value x, ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, tensorOf(x).getElementType());
  return firstResult(c.create(ReshapeOp::getOperationName(), x, type));
}

Value mlir::fuser::capi::buildConstant(Call &c, Type elementType,
                                       ArrayRef<int64_t> shape, TypedAttr value) {
  return firstResult(c.create(ConstantOp::getOperationName(), {},
                              RankedTensorType::get(shape, elementType),
                              {attr(c.ctx(), "value", value)}));
}

Value mlir::fuser::capi::buildInferred(Call &c, StringRef opName,
                                       ValueRange operands,
                                       ArrayRef<NamedAttribute> attrs) {
  std::optional<RegisteredOperationName> info =
      RegisteredOperationName::lookup(opName, c.ctx());
  auto *infer = info ? info->getInterface<InferTypeOpInterface>() : nullptr;
  if (!infer) {
    c.fail("'" + opName + "' is not an op with an inferred type");
    return Value();
  }
  SmallVector<Type, 1> types;
  if (failed(infer->inferReturnTypes(c.ctx(), c.loc(), operands,
                                     DictionaryAttr::get(c.ctx(), attrs),
                                     OpaqueProperties(nullptr), RegionRange(),
                                     types))) {
    c.failWithDiagnostics("'" + opName + "' op cannot infer its result type");
    return Value();
  }
  return firstResult(c.create(opName, operands, types, attrs));
}

Value mlir::fuser::capi::buildSameType(Call &c, StringRef opName, Value x,
                                       ArrayRef<NamedAttribute> attrs) {
  return firstResult(c.create(opName, x, x.getType(), attrs));
}

template <typename OpTy>
static FailureOr<RankedTensorType> reductionType(Call &c, Value x,
                                                 ArrayRef<int64_t> dims,
                                                 bool keepdim) {
  return OpTy::inferResultType(c.loc(), tensorOf(x), dims, keepdim);
}

Value mlir::fuser::capi::buildReduction(Call &c, StringRef opName, Value x,
                                        ArrayRef<int64_t> dims, bool keepdim) {
  SmallVector<int64_t> norm;
  if (!c.normalizeAlongDims(dims, tensorOf(x).getRank(), norm))
    return Value();
  using Fn = FailureOr<RankedTensorType> (*)(Call &, Value, ArrayRef<int64_t>, bool);
  Fn infer = llvm::StringSwitch<Fn>(opName)
                 .Case(SumOp::getOperationName(), reductionType<SumOp>)
                 .Case(ProdOp::getOperationName(), reductionType<ProdOp>)
                 .Case(MaxOp::getOperationName(), reductionType<MaxOp>)
                 .Case(MinOp::getOperationName(), reductionType<MinOp>)
                 .Case(MeanOp::getOperationName(), reductionType<MeanOp>)
                 .Case(AnyOp::getOperationName(), reductionType<AnyOp>)
                 .Case(AllOp::getOperationName(), reductionType<AllOp>)
                 .Default(nullptr);
  if (!infer) {
    c.fail("'" + opName + "' is not a reduction");
    return Value();
  }
  FailureOr<RankedTensorType> type = infer(c, x, norm, keepdim);
  if (failed(type)) {
    c.failWithDiagnostics("'" + opName + "' op cannot infer its result type");
    return Value();
  }
  return firstResult(c.create(
      opName, x, *type,
      {attr(c.ctx(), "dims", DenseI64ArrayAttr::get(c.ctx(), norm)),
       attr(c.ctx(), "keepdim", BoolAttr::get(c.ctx(), keepdim))}));
}

//===----------------------------------------------------------------------===//
// Creating, finishing, destroying
//===----------------------------------------------------------------------===//

FuserBuilder fuserBuilderCreate(MlirContext context, MlirStringRef name) {
  if (mlirContextIsNull(context) || !name.data || name.length == 0)
    return FuserBuilder{nullptr};
  MLIRContext *ctx = unwrap(context);
  ctx->getOrLoadDialect<FuserDialect>();
  ctx->getOrLoadDialect<func::FuncDialect>();
  auto impl = std::make_unique<BuilderImpl>();
  impl->ctx = ctx;
  impl->name = unwrap(name).str();
  impl->defaultLoc = NameLoc::get(StringAttr::get(ctx, impl->name));
  impl->func = func::FuncOp::create(*impl->defaultLoc, impl->name,
                                    FunctionType::get(ctx, {}, {}));
  impl->func->addEntryBlock();
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  uintptr_t id = r.next++;
  r.live[id] = impl.release();
  return FuserBuilder{reinterpret_cast<void *>(id)};
}

void fuserBuilderDestroy(FuserBuilder builder) {
  if (!builder.ptr)
    return;
  BuilderImpl *impl;
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.live.find(reinterpret_cast<uintptr_t>(builder.ptr));
    if (it == r.live.end())
      return;
    impl = it->second;
    r.live.erase(it);
  }
  delete impl;
}

MlirContext fuserBuilderGetContext(FuserBuilder builder) {
  BuilderImpl *impl = lookupBuilder(builder);
  return wrap(impl ? impl->ctx : nullptr);
}

MlirLogicalResult fuserBuilderSetLocation(FuserBuilder builder,
                                          MlirLocation location) {
  Call c(builder, "fuserBuilderSetLocation");
  if (!c.ready())
    return mlirLogicalResultFailure();
  if (mlirLocationIsNull(location)) {
    c.impl().userLoc.reset();
    return mlirLogicalResultSuccess();
  }
  Location loc = unwrap(location);
  if (loc.getContext() != c.ctx()) {
    c.fail("the location is of another context");
    return mlirLogicalResultFailure();
  }
  c.impl().userLoc = loc;
  return mlirLogicalResultSuccess();
}

/// Names of inputs and outputs as bundles take them (the bundle writer
/// checks the same): [A-Za-z_][A-Za-z0-9_]*.
static bool isTensorName(StringRef s) {
  auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  return !s.empty() && letter(s[0]) &&
         llvm::all_of(s, [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

/// An input of the fusion under construction, with the errors reported as
/// `c`'s function's; `strides` (rank entries, FUSER_DYNAMIC for ?) makes it
/// a view.
static MlirValue addInput(Call &c, FuserDType dtype, intptr_t rank, const int64_t *shape,
                          const int64_t *strides, MlirStringRef name) {
  if (!c.ready())
    return MlirValue{nullptr};
  Type elem = c.elementType(dtype);
  SmallVector<int64_t> dims;
  if (!elem || !c.shape(rank, shape, dims))
    return MlirValue{nullptr};
  SmallVector<int64_t> layout;
  if (strides) {
    for (intptr_t d = 0; d < rank; ++d) {
      if (strides[d] != FUSER_DYNAMIC && strides[d] < 0) {
        c.fail("stride " + std::to_string(strides[d]) + " of dim " + std::to_string(d) +
               " is negative; strides are >= 0 (0: an expanded dim) or FUSER_DYNAMIC");
        return MlirValue{nullptr};
      }
      layout.push_back(strides[d] == FUSER_DYNAMIC ? ShapedType::kDynamic : strides[d]);
    }
    // Refused here, where the caller can tell which input, not first at
    // finish.
    if (!llvm::is_contained(dims, ShapedType::kDynamic) &&
        !llvm::is_contained(layout, ShapedType::kDynamic) && viewSpanOverflows(dims, layout)) {
      c.fail("the view reaches 2^63 elements or more from its start (1 + the sum of (size - "
             "1) * stride over its dims): no buffer holds it");
      return MlirValue{nullptr};
    }
  }
  StringRef n = name.data ? unwrap(name) : StringRef();
  BuilderImpl &B = c.impl();
  if (!n.empty() && !isTensorName(n)) {
    c.fail("the name '" + n + "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*); "
           "bundles and the tools that read them (fuserc run's files) use it");
    return MlirValue{nullptr};
  }
  if (!n.empty() && B.nameTaken(n)) {
    c.fail("the name '" + n + "' is already taken by an input or output");
    return MlirValue{nullptr};
  }
  auto type = RankedTensorType::get(dims, elem);
  BlockArgument arg = B.body().addArgument(type, c.loc());
  B.inputNames.push_back(n.str());
  B.inputStrides.push_back(std::move(layout));
  return c.wrapValue(arg);
}

MlirValue fuserBuilderAddInput(FuserBuilder builder, FuserDType dtype,
                               intptr_t rank, const int64_t *shape,
                               MlirStringRef name) {
  Call c(builder, "fuserBuilderAddInput");
  return addInput(c, dtype, rank, shape, nullptr, name);
}

MlirValue fuserBuilderAddStridedInput(FuserBuilder builder, FuserDType dtype, intptr_t rank,
                                      const int64_t *shape, const int64_t *strides,
                                      MlirStringRef name) {
  Call c(builder, "fuserBuilderAddStridedInput");
  if (c.ready() && rank > 0 && !strides) {
    c.fail("strides is NULL for an input of rank " + std::to_string(rank));
    return MlirValue{nullptr};
  }
  return addInput(c, dtype, rank, shape, strides, name);
}

MlirLogicalResult fuserBuilderAddOutput(FuserBuilder builder, MlirValue value,
                                        MlirStringRef name) {
  Call c(builder, "fuserBuilderAddOutput");
  if (!c.ready())
    return mlirLogicalResultFailure();
  Value v = c.operand(value, "the output value");
  if (!v)
    return mlirLogicalResultFailure();
  StringRef n = name.data ? unwrap(name) : StringRef();
  BuilderImpl &B = c.impl();
  if (!n.empty() && !isTensorName(n)) {
    c.fail("the name '" + n + "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*); "
           "bundles and the tools that read them (fuserc run's files) use it");
    return mlirLogicalResultFailure();
  }
  if (!n.empty() && B.nameTaken(n)) {
    c.fail("the name '" + n + "' is already taken by an input or output");
    return mlirLogicalResultFailure();
  }
  B.outputs.push_back(v);
  B.outputNames.push_back(n.str());
  return mlirLogicalResultSuccess();
}

/// Completes the function: return op, signature, names. Null on failure.
static func::FuncOp finish(Call &c) {
  BuilderImpl &B = c.impl();
  if (B.numErrors) {
    // The first error stays the one reported; this one says why finishing
    // failed, for a caller that only looks at the count.
    c.fail("the builder holds an error");
    return nullptr;
  }
  if (B.outputs.empty()) {
    c.fail("the fusion has no outputs (fuserBuilderAddOutput)");
    return nullptr;
  }
  // Refused here rather than at the compile, where it was found before.
  if (!isValidFusionName(B.name)) {
    c.fail(invalidFusionNameMessage(B.name));
    return nullptr;
  }
  // An unnamed input or output is `argN` or `resultN` in the bundle. An
  // explicit name that is another's default would make the bundle rename
  // the default (`arg1_`), and a caller binding by it would get the wrong
  // tensor.
  auto defaultTaken = [&](ArrayRef<std::string> names, StringRef prefix, StringRef what) {
    for (auto [i, n] : llvm::enumerate(names)) {
      std::string d = (prefix + Twine(i)).str();
      if (n.empty() && B.nameTaken(d)) {
        c.fail("the name '" + d + "' is taken, and is the default name of " + what + " " +
               Twine(i) + ", which has none: name " + what + " " + Twine(i) +
               ", or choose another name");
        return true;
      }
    }
    return false;
  };
  if (defaultTaken(B.inputNames, "arg", "input") ||
      defaultTaken(B.outputNames, "result", "output"))
    return nullptr;
  func::FuncOp f = *B.func;
  OpBuilder builder(B.ctx);
  builder.setInsertionPointToEnd(&B.body());
  auto ret = func::ReturnOp::create(builder, B.loc(), B.outputs);
  f.setFunctionType(FunctionType::get(B.ctx, B.body().getArgumentTypes(),
                                      ValueRange(B.outputs).getTypes()));
  for (auto [i, n] : llvm::enumerate(B.inputNames))
    if (!n.empty())
      f.setArgAttr(i, "fuser.name", StringAttr::get(B.ctx, n));
  for (auto [i, s] : llvm::enumerate(B.inputStrides))
    if (!s.empty())
      f.setArgAttr(i, kStridesAttr, StridedLayoutAttr::get(B.ctx, 0, s));
  for (auto [i, n] : llvm::enumerate(B.outputNames))
    if (!n.empty())
      f.setResultAttr(i, "fuser.name", StringAttr::get(B.ctx, n));
  if (failed(verify(f))) {
    // The fusion stays as it was, for a caller that fixes what the message
    // names and finishes again: nothing but the return is taken back (the
    // failed call's undo stops at the op that was last before it).
    ret.erase();
    c.failWithDiagnostics("the fusion failed to verify");
    return nullptr;
  }
  // Wrapped numbers nothing used are dropped, only now: dropping one before
  // a failed verify could remove the op the undo stops at, and the undo
  // then erased the whole fusion.
  for (Operation &op : llvm::make_early_inc_range(B.body())) {
    if (op.getNumResults() != 1 || !op.use_empty() ||
        llvm::is_contained(B.outputs, op.getResult(0)))
      continue;
    const void *key = op.getResult(0).getAsOpaquePointer();
    if (!B.wrapped.count(key))
      continue;
    B.wrapped.erase(key);
    B.values.erase(key);
    op.erase();
  }
  return f;
}

MlirLogicalResult fuserBuilderFinish(FuserBuilder builder, MlirModule module) {
  Call c(builder, "fuserBuilderFinish");
  if (!c.ready())
    return mlirLogicalResultFailure();
  if (mlirModuleIsNull(module)) {
    c.fail("the module is null");
    return mlirLogicalResultFailure();
  }
  ModuleOp m = unwrap(module);
  BuilderImpl &B = c.impl();
  if (m.getContext() != B.ctx) {
    c.fail("the module is of another context");
    return mlirLogicalResultFailure();
  }
  if (SymbolTable::lookupSymbolIn(m, B.name)) {
    c.fail("the module already has a symbol named '" + B.name + "'");
    return mlirLogicalResultFailure();
  }
  func::FuncOp f = finish(c);
  if (!f)
    return mlirLogicalResultFailure();
  m.getBody()->push_back(B.func.release());
  B.finished = true;
  return mlirLogicalResultSuccess();
}

MlirModule fuserBuilderFinishNewModule(FuserBuilder builder) {
  Call c(builder, "fuserBuilderFinishNewModule");
  if (!c.ready())
    return MlirModule{nullptr};
  BuilderImpl &B = c.impl();
  func::FuncOp f = finish(c);
  if (!f)
    return MlirModule{nullptr};
  ModuleOp m = ModuleOp::create(*B.defaultLoc);
  m.getBody()->push_back(B.func.release());
  B.finished = true;
  return wrap(m);
}

bool fuserBuilderHasError(FuserBuilder builder) {
  BuilderImpl *impl = lookupBuilder(builder);
  return !impl || impl->numErrors > 0;
}

MlirStringRef fuserBuilderGetError(FuserBuilder builder) {
  BuilderImpl *impl = lookupBuilder(builder);
  if (!impl)
    return mlirStringRefCreateFromCString(
        "<api>: error: the builder is null or was destroyed");
  return wrap(StringRef(impl->firstError));
}

intptr_t fuserBuilderGetNumErrors(FuserBuilder builder) {
  BuilderImpl *impl = lookupBuilder(builder);
  return impl ? impl->numErrors : 0;
}

void fuserBuilderClearError(FuserBuilder builder) {
  if (BuilderImpl *impl = lookupBuilder(builder)) {
    impl->firstError.clear();
    impl->numErrors = 0;
  }
}

static RankedTensorType knownTensor(FuserBuilder builder, MlirValue value) {
  BuilderImpl *impl = lookupBuilder(builder);
  if (!impl || !value.ptr || !impl->values.contains(value.ptr))
    return nullptr;
  return dyn_cast<RankedTensorType>(unwrap(value).getType());
}

FuserDType fuserBuilderGetValueDType(FuserBuilder builder, MlirValue value) {
  RankedTensorType t = knownTensor(builder, value);
  return t ? dtypeOf(t.getElementType()) : FuserDTypeInvalid;
}

intptr_t fuserBuilderGetValueRank(FuserBuilder builder, MlirValue value) {
  RankedTensorType t = knownTensor(builder, value);
  return t ? t.getRank() : -1;
}

intptr_t fuserBuilderGetValueShape(FuserBuilder builder, MlirValue value,
                                   int64_t *shape) {
  RankedTensorType t = knownTensor(builder, value);
  if (!t)
    return -1;
  if (shape)
    llvm::copy(t.getShape(), shape);
  return t.getRank();
}
