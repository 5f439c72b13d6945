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

#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser_runtime.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
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
                  (int)FuserDTypeF64 == FUSER_DTYPE_F64,
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

std::string mlir::fuser::capi::describeLocation(Location loc) {
  std::string file, name;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      file = (f.getFilename().getValue() + ":" + Twine(f.getLine()) + ":" +
              Twine(f.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    if (auto n = dyn_cast<NameLoc>(l); n && name.empty())
      name = n.getName().str();
    return WalkResult::advance();
  });
  if (!file.empty())
    return file;
  return name.empty() ? "<unknown>" : name;
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
  handler.emplace(B->ctx, [this](Diagnostic &d) {
    auto add = [&](Diagnostic &x) {
      if (StringRef(x.str()).starts_with("see current operation:"))
        return;
      if (!captured.empty())
        captured += "\n";
      captured += describeLocation(x.getLocation()) + ": " +
                  severityName(x.getSeverity()) + ": " + this->fn + ": " + x.str();
    };
    add(d);
    for (Diagnostic &note : d.getNotes())
      add(note);
    return success();
  });
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
  B->recordError(describeLocation(B->loc()) + ": error: " + fn + ": " + msg.str());
}

void Call::failWithDiagnostics(const Twine &fallback) {
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
  if (rank < 0 || rank > 64) {
    fail("rank " + Twine((int64_t)rank) + " of the " + what +
         " is out of range (0 to 64)");
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

//===----------------------------------------------------------------------===//
// Internal builders
//===----------------------------------------------------------------------===//

static RankedTensorType tensorOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static NamedAttribute attr(MLIRContext *ctx, StringRef name, Attribute value) {
  return NamedAttribute(StringAttr::get(ctx, name), value);
}

static Value firstResult(Operation *op) {
  return op ? op->getResult(0) : Value();
}

Value mlir::fuser::capi::buildCast(Call &c, Value x, Type elementType) {
  return firstResult(c.create(CastOp::getOperationName(), x,
                              tensorOf(x).clone(elementType)));
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
  if (!c.normalizeDims(dims, tensorOf(x).getRank(), norm))
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

MlirValue fuserBuilderAddInput(FuserBuilder builder, FuserDType dtype,
                               intptr_t rank, const int64_t *shape,
                               MlirStringRef name) {
  Call c(builder, "fuserBuilderAddInput");
  if (!c.ready())
    return MlirValue{nullptr};
  Type elem = c.elementType(dtype);
  SmallVector<int64_t> dims;
  if (!elem || !c.shape(rank, shape, dims))
    return MlirValue{nullptr};
  StringRef n = name.data ? unwrap(name) : StringRef();
  BuilderImpl &B = c.impl();
  if (!n.empty() && B.nameTaken(n)) {
    c.fail("the name '" + n + "' is already taken by an input or output");
    return MlirValue{nullptr};
  }
  auto type = RankedTensorType::get(dims, elem);
  BlockArgument arg = B.body().addArgument(type, c.loc());
  B.inputNames.push_back(n.str());
  return c.wrapValue(arg);
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
  // Wrapped numbers nothing used are dropped.
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
  func::FuncOp f = *B.func;
  OpBuilder builder(B.ctx);
  builder.setInsertionPointToEnd(&B.body());
  auto ret = func::ReturnOp::create(builder, B.loc(), B.outputs);
  f.setFunctionType(FunctionType::get(B.ctx, B.body().getArgumentTypes(),
                                      ValueRange(B.outputs).getTypes()));
  for (auto [i, n] : llvm::enumerate(B.inputNames))
    if (!n.empty())
      f.setArgAttr(i, "fuser.name", StringAttr::get(B.ctx, n));
  for (auto [i, n] : llvm::enumerate(B.outputNames))
    if (!n.empty())
      f.setResultAttr(i, "fuser.name", StringAttr::get(B.ctx, n));
  if (failed(verify(f))) {
    ret.erase();
    c.failWithDiagnostics("the fusion failed to verify");
    return nullptr;
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
FUSER_UNARY(Relu, ReluOp)
FUSER_UNARY(Silu, SiluOp)
FUSER_UNARY(Floor, FloorOp)
FUSER_UNARY(Ceil, CeilOp)
FUSER_UNARY(Round, RoundOp)
FUSER_UNARY(Sign, SignOp)
FUSER_UNARY(Not, NotOp)
FUSER_UNARY(IsNan, IsNanOp)
FUSER_UNARY(IsInf, IsInfOp)
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
FUSER_BINARY(Atan2, Atan2Op)
FUSER_BINARY(And, AndOp)
FUSER_BINARY(Or, OrOp)
FUSER_BINARY(Xor, XorOp)
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

MlirValue fuserBuildCast(FuserBuilder b, MlirValue x, FuserDType dtype) {
  Call c(b, "fuserBuildCast");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  Type elem = v ? c.elementType(dtype) : Type();
  if (!elem)
    return MlirValue{nullptr};
  return c.wrapValue(buildCast(c, v, elem));
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

static TypedAttr floatAttr(FloatType type, const APFloat &v) {
  APFloat x = v;
  bool lost;
  x.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return FloatAttr::get(type, x);
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
      APFloat x(ft.getFloatSemantics());
      x.convertFromAPInt(APInt(64, value.i, /*isSigned=*/true), /*IsSigned=*/true,
                         APFloat::rmNearestTiesToEven);
      a = FloatAttr::get(ft, x);
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
      !c.normalizeDims(d, tensorOf(v).getRank(), norm))
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

MlirValue fuserBuildReshape(FuserBuilder b, MlirValue x, intptr_t rank,
                            const int64_t *shape) {
  Call c(b, "fuserBuildReshape");
  if (!c.ready())
    return MlirValue{nullptr};
  Value v = c.operand(x, "the operand");
  SmallVector<int64_t> s;
  if (!v || !c.shape(rank, shape, s))
    return MlirValue{nullptr};
  return c.wrapValue(buildReshape(c, v, s));
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
  if (!v || !c.normalizeDims({dim}, tensorOf(v).getRank(), d))
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
