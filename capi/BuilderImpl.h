//===- BuilderImpl.h - the fusion builder behind fuser-c/Builder.h -*- C++ -*-===//
//
// Shared by Builder.cpp (the builder and one function per op) and
// BuilderTorch.cpp (the PyTorch promotion and broadcasting layer).
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_CAPI_BUILDERIMPL_H
#define FUSER_CAPI_BUILDERIMPL_H

#include "fuser-c/Builder.h"
#include "fuser_runtime.h" // FUSER_MAX_RANK

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <string>

namespace mlir::fuser::capi {

/// What a wrapped number (fuserTorchScalar*) holds.
struct WrappedNumber {
  enum Kind { Float, Int, Bool } kind;
  double f = 0;
  int64_t i = 0;
};

/// The state behind a FuserBuilder handle.
struct BuilderImpl {
  MLIRContext *ctx = nullptr;
  std::string name;
  /// The fusion under construction; null once it was moved into a module.
  OwningOpRef<func::FuncOp> func;
  bool finished = false;
  std::optional<Location> userLoc;
  std::optional<Location> defaultLoc;
  /// Names of the inputs and outputs, in order ("" for none).
  SmallVector<std::string> inputNames, outputNames;
  /// Per input: its strides when it is a view (fuserBuilderAddStridedInput),
  /// else empty.
  SmallVector<SmallVector<int64_t>> inputStrides;
  SmallVector<Value> outputs;
  /// Every value this builder handed out, by its opaque pointer: handles
  /// are checked here before they are dereferenced.
  llvm::DenseSet<const void *> values;
  llvm::DenseMap<const void *, WrappedNumber> wrapped;
  std::string firstError;
  intptr_t numErrors = 0;

  Block &body() { return func->getBody().front(); }
  Location loc() const { return userLoc ? *userLoc : *defaultLoc; }
  bool nameTaken(StringRef n) const;
  void recordError(std::string text) {
    if (firstError.empty())
      firstError = std::move(text);
    ++numErrors;
  }
};

/// The builder of a handle, or null for a null or destroyed handle.
BuilderImpl *lookupBuilder(FuserBuilder b);

/// One call of the API: resolves the builder, captures the diagnostics ops
/// emit while it runs, and records errors as "LOC: error: FN: message".
class Call {
public:
  Call(FuserBuilder b, const char *fn);
  /// A call that failed and handed out no value takes back the ops it
  /// built (a torch function's casts and broadcasts before the op that
  /// failed): "a failed call builds nothing", and the fusion, and so its
  /// compile-cache key, is what the successful calls made.
  ~Call();
  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;

  /// Whether the builder exists and can still build (recording an error
  /// when it was finished).
  bool ready();
  BuilderImpl &impl() { return *B; }
  MLIRContext *ctx() { return B->ctx; }
  Location loc() { return B->loc(); }
  const char *name() const { return fn; }

  /// Records `msg` as this call's error.
  void fail(const Twine &msg);
  /// Records the diagnostics captured so far (or, if there are none,
  /// "`fallback`") as this call's error, and forgets them.
  void failWithDiagnostics(const Twine &fallback);

  /// The Value behind `v` when it is a value of this builder; otherwise
  /// records "WHAT is null" or "WHAT is not a value of this builder" and
  /// returns a null Value.
  Value operand(MlirValue v, const Twine &what);
  /// As operand() for each of `vs` ("operand 1", "operand 2", ...);
  /// false on the first bad one.
  bool operands(ArrayRef<MlirValue> vs, SmallVectorImpl<Value> &out);

  /// Creates an op at the end of the fusion with these operands, result
  /// types and (inherent) attributes, and verifies it. On failure the op
  /// is erased, the verifier's diagnostics recorded, and null returned.
  Operation *create(StringRef opName, ValueRange operands, TypeRange types,
                    ArrayRef<NamedAttribute> attrs = {});
  /// A value the builder hands out (registered as one of its own).
  MlirValue wrapValue(Value v);

  /// The element type of `dtype`, or null (with an error) when `dtype` is
  /// not a FuserDType.
  Type elementType(FuserDType dtype);
  /// Reads a shape argument: rank >= 0 (at most FUSER_MAX_RANK), sizes >= 0 or
  /// FUSER_DYNAMIC. False (with an error) otherwise.
  bool shape(intptr_t rank, const int64_t *shape, SmallVectorImpl<int64_t> &out,
             StringRef what = "shape");
  /// Reads an array argument of `n` entries (n >= 0, data non-NULL if n > 0).
  bool array(intptr_t n, const int64_t *data, SmallVectorImpl<int64_t> &out,
             StringRef what);
  /// Maps PyTorch-style dims (negative from the end) into [0, rank); false
  /// (with an error naming the accepted range) when one is out of range.
  bool normalizeDims(ArrayRef<int64_t> dims, int64_t rank,
                     SmallVectorImpl<int64_t> &out, StringRef what = "dim");
  /// normalizeDims for the dims an op works along (a reduction, var_mean, a
  /// scan, softmax): of a rank-0 tensor, dim 0 or -1 is dim 0, as PyTorch
  /// reads a scalar's, and no dims at all is [0] (torch.sum(s)).
  bool normalizeAlongDims(ArrayRef<int64_t> dims, int64_t rank,
                          SmallVectorImpl<int64_t> &out, StringRef what = "dim");

private:
  BuilderImpl *B;
  const char *fn;
  /// The fusion's last op when the call began (null: none), whether it
  /// recorded an error, and whether it handed out a value.
  Operation *lastBefore = nullptr;
  bool failedCall = false, handedOut = false;
  std::string captured;
  std::optional<ScopedDiagnosticHandler> handler;
};

inline RankedTensorType tensorOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}
inline NamedAttribute attr(MLIRContext *ctx, StringRef name, Attribute value) {
  return NamedAttribute(StringAttr::get(ctx, name), value);
}
inline Value firstResult(Operation *op) {
  return op ? op->getResult(0) : Value();
}

/// The FuserDType of an element type (FuserDTypeInvalid if none).
FuserDType dtypeOf(Type elementType);
Type elementTypeOf(MLIRContext *ctx, FuserDType dtype);

/// Internal builders shared by the core and the PyTorch layer: they take
/// values already checked by `c` and return null after recording an error.
Value buildCast(Call &c, Value x, Type elementType, bool saturate = false);
Value buildBroadcast(Call &c, Value x, ArrayRef<int64_t> shape,
                     ArrayRef<int64_t> dims);
Value buildReshape(Call &c, Value x, ArrayRef<int64_t> shape);
Value buildConstant(Call &c, Type elementType, ArrayRef<int64_t> shape,
                    TypedAttr value);
/// Elementwise op `opName` whose result type the op infers.
Value buildInferred(Call &c, StringRef opName, ValueRange operands,
                    ArrayRef<NamedAttribute> attrs = {});
/// Unary op whose result has its operand's type.
Value buildSameType(Call &c, StringRef opName, Value x,
                    ArrayRef<NamedAttribute> attrs = {});
/// Reduction `opName` (sum, prod, max, min, mean, any, all) over dims that
/// may be negative.
Value buildReduction(Call &c, StringRef opName, Value x, ArrayRef<int64_t> dims,
                     bool keepdim);

} // namespace mlir::fuser::capi

#endif // FUSER_CAPI_BUILDERIMPL_H
