/*===- fuser-c/Builder.h - building fusions from C -----------------*- C -*-===*\
|*                                                                            *|
|* A fusion builder: make a fusion (a `func.func` of `fuser` ops) op by op,   *|
|* with one function per op of the dialect, then add it to an MlirModule for  *|
|* fuserCompile (fuser-c/Compiler.h). A second family, fuserTorch*, applies   *|
|* PyTorch's type promotion and broadcasting by inserting the casts and       *|
|* broadcasts the dialect wants explicit (see "The PyTorch layer" below).     *|
|*                                                                            *|
|* Ownership follows MLIR's C API: fuserBuilderCreate returns a builder the   *|
|* caller owns and frees with fuserBuilderDestroy. Values (MlirValue) are     *|
|* borrowed from the builder: they stay valid until the builder is destroyed  *|
|* or, after a successful finish, until the module holding the fusion is.     *|
|* Strings returned (MlirStringRef) are borrowed from the builder and valid   *|
|* until its next call.                                                       *|
|*                                                                            *|
|* Errors never abort. A builder function given bad input (a null or foreign  *|
|* value, a shape or dtype the op does not accept, a dim out of range, a null *|
|* or destroyed builder) returns a null MlirValue (mlirValueIsNull) and       *|
|* records why in the builder: fuserBuilderGetError gives the first error as  *|
|* "LOCATION: error: FUNCTION: REASON", where REASON is the op's own          *|
|* verifier message (e.g. "'fuser.add' op operand shapes [4, 8] and [8]       *|
|* differ in rank; broadcast explicitly with fuser.broadcast"). A null value  *|
|* passed on to later calls makes them return null too, so a chain of calls   *|
|* can be checked once, at the end: fuserBuilderFinish fails while the        *|
|* builder holds an error. Only values made by the same builder are accepted; *|
|* the builder checks this without dereferencing the handle, so a value of    *|
|* another builder, of a destroyed builder, or of another context is an error *|
|* and not a crash. One limit: a destroyed builder's memory may be reused for *|
|* a later builder's values in the same context, and a stale handle that now  *|
|* names one of them is accepted as that value (a handle is an address; the   *|
|* two cannot be told apart). Do not keep values past their builder.          *|
|*                                                                            *|
|* Diagnostics that the ops emit while a builder function runs go to the      *|
|* builder, not to the context's diagnostic handlers.                         *|
|*                                                                            *|
|* Threads: a builder, like everything in an MlirContext, is used by one      *|
|* thread at a time and not concurrently with other users of its context.     *|
|* Builders of different contexts may be created, used and destroyed          *|
|* concurrently from different threads (their handles live in one             *|
|* process-wide table behind a lock). fuserDTypeGetName is thread safe.       *|
|*                                                                            *|
|* Every op of FuserOps.td has a builder function (a test checks it); the     *|
|* launch-plan ops of FuserPlanOps.td are the compiler's own and have none.   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FUSER_C_BUILDER_H
#define FUSER_C_BUILDER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-- Types ---------------------------------------------------------------===*/

/// Element types, numbered as in the kernel bundle (docs/bundle.md) and the
/// runtime's fuser_dtype, so a value converts to `fuser_dtype` by a cast.
typedef enum FuserDType {
  FuserDTypeInvalid = 0, ///< returned for "no dtype" (a null value)
  FuserDTypeI1 = 1,      ///< bool
  FuserDTypeI8 = 2,
  FuserDTypeI32 = 3,
  FuserDTypeI64 = 4,
  FuserDTypeF16 = 5,
  FuserDTypeBF16 = 6,
  FuserDTypeF32 = 7,
  FuserDTypeF64 = 8,
  FuserDTypeF8E4M3FN = 9, ///< fp8 e4m3 (no infinity); stored and cast only
  FuserDTypeF8E5M2 = 10,  ///< fp8 e5m2; stored and cast only
  FuserDTypeF8E8M0FNU = 11, ///< e8m0 (MX scales, 2^(code-127)); stored and cast only
} FuserDType;

/// The size of a dynamic (`?`) dim in a shape passed to the builder. Equal to
/// mlirShapedTypeGetDynamicSize(). Any other negative size is an error.
#define FUSER_DYNAMIC INT64_MIN

/// `approximate` of fuserBuildGelu (torch.nn.functional.gelu).
typedef enum FuserGeluApproximation {
  FuserGeluNone = 0,
  FuserGeluTanh = 1,
} FuserGeluApproximation;

/// `rounding_mode` of fuserBuildDiv (torch.div).
typedef enum FuserRoundingMode {
  FuserRoundingNone = 0, ///< true division (floats only in the dialect)
  FuserRoundingTrunc = 1,
  FuserRoundingFloor = 2,
} FuserRoundingMode;

/// A fusion under construction. Opaque; the null handle has ptr == NULL.
/// The handle is not a pointer to memory: a destroyed builder's handle is
/// recognized as such (calls with it fail instead of touching freed memory).
typedef struct FuserBuilder {
  void *ptr;
} FuserBuilder;

/*===-- Creating, finishing, destroying --------------------------------------===*/

/// Creates a builder for a fusion named `name` (the function's symbol, the
/// fusion's name in the bundle and its kernels' prefix, so letters, digits,
/// '_' and '$', not starting with a digit: finishing checks it) in
/// `context`, loading the fuser and func
/// dialects into it. Returns a null builder (fuserBuilderIsNull) when
/// `context` is null or `name` is empty. The caller owns the builder
/// (fuserBuilderDestroy), which must be destroyed before its context.
/// Thread safe.
MLIR_CAPI_EXPORTED FuserBuilder fuserBuilderCreate(MlirContext context,
                                                   MlirStringRef name);

/// Destroys the builder and, unless it was finished, the fusion it built
/// (every value it returned becomes invalid). A null builder, and a builder
/// destroyed before, are no-ops: destroying twice is safe. Thread safe.
MLIR_CAPI_EXPORTED void fuserBuilderDestroy(FuserBuilder builder);

/// True for the null handle (a failed fuserBuilderCreate).
static inline bool fuserBuilderIsNull(FuserBuilder builder) {
  return builder.ptr == NULL;
}

/// The builder's context; null for a null or destroyed builder.
MLIR_CAPI_EXPORTED MlirContext fuserBuilderGetContext(FuserBuilder builder);

/// Sets the location given to the ops built from now on (and to inputs), so
/// that the builder's errors and the compiler's diagnostics point into the
/// caller's source, e.g. mlirLocationFileLineColGet(ctx, "model.py", 12, 3).
/// A null location restores the default, a NameLoc named after the fusion.
/// Fails (recording an error) when the location is of another context.
MLIR_CAPI_EXPORTED MlirLogicalResult
fuserBuilderSetLocation(FuserBuilder builder, MlirLocation location);

/// Adds an input (a function argument) of element type `dtype` and shape
/// `shape[0 .. rank)` (FUSER_DYNAMIC for `?`), named `name` in the bundle
/// (an empty name gives the default `argN`). Names of inputs and outputs are
/// identifiers ([A-Za-z_][A-Za-z0-9_]*), unique within a fusion. The rank is
/// at most FUSER_MAX_RANK (32). Returns the input's value, or null on error.
/// `shape` may be NULL when `rank` is 0.
MLIR_CAPI_EXPORTED MlirValue fuserBuilderAddInput(FuserBuilder builder,
                                                  FuserDType dtype,
                                                  intptr_t rank,
                                                  const int64_t *shape,
                                                  MlirStringRef name);

/// As fuserBuilderAddInput, for an input that is a view of memory (a
/// transposed, sliced or expanded tensor, passed without a copy): element
/// (i0, i1, ...) is at element i0*strides[0] + i1*strides[1] + ... from the
/// address the caller passes. A stride is >= 0 (0: an expanded dim), or
/// FUSER_DYNAMIC when the caller passes it at run time
/// (fuser_run_options.arg_strides). Static strides let the schedulers see
/// which dim is contiguous (a stride of 1): a transposed view is then read
/// through shared-memory tiles, coalesced on both sides. The fusion gets the
/// argument attribute `fuser.strides = strided<[...]>` (docs/dialect.md).
/// With static sizes and strides, a view whose last element lies 2^63
/// elements or more from its first is an error.
MLIR_CAPI_EXPORTED MlirValue fuserBuilderAddStridedInput(FuserBuilder builder,
                                                         FuserDType dtype,
                                                         intptr_t rank,
                                                         const int64_t *shape,
                                                         const int64_t *strides,
                                                         MlirStringRef name);

/// Marks `value` as the next output (function result) of the fusion, named
/// `name` in the bundle (empty: the default `resultN`; else an identifier,
/// unique among inputs and outputs). A value may be output more than once
/// under different names.
MLIR_CAPI_EXPORTED MlirLogicalResult fuserBuilderAddOutput(FuserBuilder builder,
                                                           MlirValue value,
                                                           MlirStringRef name);

/// Finishes the fusion and appends it to `module` (which takes ownership of
/// it); the builder can build nothing more, and is still to be destroyed.
/// Fails, leaving `module` unchanged, when the builder holds an error (its
/// first error stays the reason: fuserBuilderGetError), has no output, was
/// finished before, when `module` is null or of another context, when the
/// fusion's name is no PTX identifier, or when the module already has a
/// symbol of the fusion's name. Inputs get the
/// `fuser.name` argument attribute and outputs the `fuser.name` result
/// attribute; wrapped numbers (fuserTorchScalar*) left unused are removed.
MLIR_CAPI_EXPORTED MlirLogicalResult fuserBuilderFinish(FuserBuilder builder,
                                                        MlirModule module);

/// As fuserBuilderFinish, into a new module holding only this fusion, which
/// the caller owns (mlirModuleDestroy). Null on failure.
MLIR_CAPI_EXPORTED MlirModule fuserBuilderFinishNewModule(FuserBuilder builder);

/// Whether the builder holds an error. True for a null or destroyed builder.
MLIR_CAPI_EXPORTED bool fuserBuilderHasError(FuserBuilder builder);

/// The first error recorded, "LOCATION: error: FUNCTION: REASON" (several
/// lines when the op also attached notes); empty when there is none, and a
/// fixed message for a null or destroyed builder. Borrowed: valid until the
/// builder's next call.
MLIR_CAPI_EXPORTED MlirStringRef fuserBuilderGetError(FuserBuilder builder);

/// How many errors were recorded since creation or the last clear (the
/// first is kept as the message).
MLIR_CAPI_EXPORTED intptr_t fuserBuilderGetNumErrors(FuserBuilder builder);

/// Forgets the recorded errors, so that the builder can be finished after
/// the caller has dealt with a failed call (the ops built so far are all
/// valid: a failed call builds nothing).
MLIR_CAPI_EXPORTED void fuserBuilderClearError(FuserBuilder builder);

/// Element type, rank and shape of a value of this builder. For a null or
/// foreign value (or builder) the dtype is FuserDTypeInvalid and the rank
/// -1; these record no error. fuserBuilderGetValueShape writes `rank`
/// entries (FUSER_DYNAMIC for `?`) to `shape` and returns the rank.
MLIR_CAPI_EXPORTED FuserDType fuserBuilderGetValueDType(FuserBuilder builder,
                                                        MlirValue value);
MLIR_CAPI_EXPORTED intptr_t fuserBuilderGetValueRank(FuserBuilder builder,
                                                     MlirValue value);
MLIR_CAPI_EXPORTED intptr_t fuserBuilderGetValueShape(FuserBuilder builder,
                                                      MlirValue value,
                                                      int64_t *shape);

/// "f32", "bf16", ...; "invalid" for anything else. Static storage.
MLIR_CAPI_EXPORTED const char *fuserDTypeGetName(FuserDType dtype);

/*===-- Elementwise ops ------------------------------------------------------===*
 * Operands share an element type and a shape, except that a rank-0 operand
 * combines with any shape (docs/dialect.md); use the fuserTorch* functions
 * for implicit promotion and broadcasting. Each returns the op's result, or
 * null (with the error recorded) when the op rejects its operands.
 *===--------------------------------------------------------------------------===*/

/// Unary ops; the result has the operand's type. `neg abs relu floor ceil
/// round trunc sign` take numeric tensors (not i1), `not` integers and i1, the
/// others float tensors.
MLIR_CAPI_EXPORTED MlirValue fuserBuildNeg(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildAbs(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildExp(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildExp2(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildExpm1(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildLog(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildLog2(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildLog1p(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildSqrt(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildRsqrt(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildReciprocal(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildSin(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildCos(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildTanh(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildSigmoid(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildErf(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildLog10(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildTan(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildAsin(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildAcos(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildAtan(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildSinh(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildCosh(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildAsinh(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildAcosh(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildAtanh(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildRelu(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildSilu(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildFloor(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildCeil(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildRound(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildTrunc(FuserBuilder b, MlirValue x);
/// torch.frac: x - trunc(x); float tensors.
MLIR_CAPI_EXPORTED MlirValue fuserBuildFrac(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildSign(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildNot(FuserBuilder b, MlirValue x);
/// torch.nn.functional.gelu(x, approximate=...); float tensors.
MLIR_CAPI_EXPORTED MlirValue fuserBuildGelu(FuserBuilder b, MlirValue x,
                                            FuserGeluApproximation approximate);

/// Predicates: an i1 tensor of x's shape.
MLIR_CAPI_EXPORTED MlirValue fuserBuildIsNan(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildIsInf(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildIsFinite(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildIsPosInf(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildIsNegInf(FuserBuilder b, MlirValue x);
/// torch.signbit: the sign bit (-0.0 and negative NaNs count); false for bools.
MLIR_CAPI_EXPORTED MlirValue fuserBuildSignbit(FuserBuilder b, MlirValue x);

/// Binary ops; the result has the operands' element type (`add sub mul pow
/// remainder fmod`: numeric, `atan2`: float, `maximum minimum`: any, `and or
/// xor`: integers and i1).
MLIR_CAPI_EXPORTED MlirValue fuserBuildAdd(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildSub(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildMul(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildPow(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildMaximum(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildMinimum(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildRemainder(FuserBuilder b, MlirValue x, MlirValue y);
/// torch.fmod: the sign of x (C's fmod); integer fmod by zero gives 0.
MLIR_CAPI_EXPORTED MlirValue fuserBuildFmod(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildAtan2(FuserBuilder b, MlirValue y, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserBuildAnd(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildOr(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildXor(FuserBuilder b, MlirValue x, MlirValue y);
/// x << y and x >> y (arithmetic) on i8, i32, i64: torch.bitwise_left_shift
/// and bitwise_right_shift; a shift below 0 or of the width or more gives 0
/// (or, for >>, -1 when x is negative).
MLIR_CAPI_EXPORTED MlirValue fuserBuildShl(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildShr(FuserBuilder b, MlirValue x, MlirValue y);
/// torch.div(x, y, rounding_mode=...); integers need trunc or floor.
MLIR_CAPI_EXPORTED MlirValue fuserBuildDiv(FuserBuilder b, MlirValue x, MlirValue y,
                                           FuserRoundingMode roundingMode);

/// Comparisons: an i1 result.
MLIR_CAPI_EXPORTED MlirValue fuserBuildEq(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildNe(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildLt(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildLe(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildGt(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildGe(FuserBuilder b, MlirValue x, MlirValue y);

/// Ternary ops. where: `condition` is i1, `x` and `y` share a type;
/// clamp: min(max(x, low), high); lerp: start + weight * (end - start) on
/// floats; fma: x * y + z with one rounding.
MLIR_CAPI_EXPORTED MlirValue fuserBuildWhere(FuserBuilder b, MlirValue condition,
                                             MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserBuildClamp(FuserBuilder b, MlirValue x,
                                             MlirValue low, MlirValue high);
MLIR_CAPI_EXPORTED MlirValue fuserBuildLerp(FuserBuilder b, MlirValue start,
                                            MlirValue end, MlirValue weight);
MLIR_CAPI_EXPORTED MlirValue fuserBuildFma(FuserBuilder b, MlirValue x,
                                           MlirValue y, MlirValue z);

/*===-- Cast, constants, iota --------------------------------------------------===*/

/// x converted to `dtype` (Tensor.to(dtype)); the shape stays. To an fp8
/// dtype, overflow becomes NaN (e4m3) or infinity (e5m2), as in PyTorch.
MLIR_CAPI_EXPORTED MlirValue fuserBuildCast(FuserBuilder b, MlirValue x,
                                            FuserDType dtype);
/// x converted to an fp8 `dtype` (FuserDTypeF8E4M3FN, FuserDTypeF8E5M2,
/// FuserDTypeF8E8M0FNU) with overflow and infinities clamped to the largest
/// finite value of their sign (`fuser.cast ... saturate`, docs/fp8.md; e8m0
/// as fp8.md says); NaN stays NaN. Any other dtype is an error.
MLIR_CAPI_EXPORTED MlirValue fuserBuildCastSaturate(FuserBuilder b, MlirValue x,
                                                    FuserDType dtype);
/// x's bits read as `dtype` of the same width (Tensor.view(dtype)): f32 and
/// i32, f64 and i64, f16 and bf16, fp8 and i8. No value is converted.
MLIR_CAPI_EXPORTED MlirValue fuserBuildBitcast(FuserBuilder b, MlirValue x,
                                               FuserDType dtype);

/// A tensor of `dtype` and `shape[0 .. rank)` (FUSER_DYNAMIC dims take the
/// size of what the constant combines with) filled with `value`.
/// F64: float dtypes round to nearest even (NaN and infinities allowed);
///      integer dtypes need an integral value that fits (0 or 1 for i1).
/// I64: float dtypes round to nearest even; integers must fit.
/// Bool: 1 or 0 in any dtype.
MLIR_CAPI_EXPORTED MlirValue fuserBuildConstantF64(FuserBuilder b, FuserDType dtype,
                                                   double value, intptr_t rank,
                                                   const int64_t *shape);
MLIR_CAPI_EXPORTED MlirValue fuserBuildConstantI64(FuserBuilder b, FuserDType dtype,
                                                   int64_t value, intptr_t rank,
                                                   const int64_t *shape);
MLIR_CAPI_EXPORTED MlirValue fuserBuildConstantBool(FuserBuilder b, FuserDType dtype,
                                                    bool value, intptr_t rank,
                                                    const int64_t *shape);

/// A numeric tensor of `dtype` and `shape` whose elements hold their index
/// along `dim` (negative: counted from the end).
MLIR_CAPI_EXPORTED MlirValue fuserBuildIota(FuserBuilder b, FuserDType dtype,
                                            intptr_t rank, const int64_t *shape,
                                            int64_t dim);

/// The extent of `dim` of x (negative: counted from the end) as a rank-0
/// tensor of `dtype` (an integer or float type, not bool): `x.size(dim)`
/// for formulas such as 1 / N that must hold for every dynamic size.
MLIR_CAPI_EXPORTED MlirValue fuserBuildSize(FuserBuilder b, MlirValue x, int64_t dim,
                                            FuserDType dtype);

/*===-- Broadcast -------------------------------------------------------------===*/

/// x broadcast to `shape[0 .. rank)` (StableHLO broadcast_in_dim): operand
/// dim i maps to result dim dims[i] (negative: counted from the end of the
/// result), strictly increasing; a mapped dim equals its result dim or is 1.
MLIR_CAPI_EXPORTED MlirValue fuserBuildBroadcast(FuserBuilder b, MlirValue x,
                                                 intptr_t rank, const int64_t *shape,
                                                 const int64_t *dims, intptr_t numDims);

/*===-- Reductions --------------------------------------------------------------===*
 * Over dims[0 .. numDims) (any order, unique, non-empty; negative dims count
 * from the end as in PyTorch); with keepdim the reduced dims stay as size 1.
 * A rank-0 x takes dim 0 or -1, or no dims, as PyTorch's scalar does: the
 * reduction of its one element, rank 0 with or without keepdim. So do
 * var_mean, the scans and softmax/log_softmax (dim 0 or -1).
 *===-----------------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED MlirValue fuserBuildSum(FuserBuilder b, MlirValue x, const int64_t *dims,
                                           intptr_t numDims, bool keepdim);
MLIR_CAPI_EXPORTED MlirValue fuserBuildProd(FuserBuilder b, MlirValue x, const int64_t *dims,
                                            intptr_t numDims, bool keepdim);
MLIR_CAPI_EXPORTED MlirValue fuserBuildMax(FuserBuilder b, MlirValue x, const int64_t *dims,
                                           intptr_t numDims, bool keepdim);
MLIR_CAPI_EXPORTED MlirValue fuserBuildMin(FuserBuilder b, MlirValue x, const int64_t *dims,
                                           intptr_t numDims, bool keepdim);
/// Floats only.
MLIR_CAPI_EXPORTED MlirValue fuserBuildMean(FuserBuilder b, MlirValue x, const int64_t *dims,
                                            intptr_t numDims, bool keepdim);
/// i1 results.
MLIR_CAPI_EXPORTED MlirValue fuserBuildAny(FuserBuilder b, MlirValue x, const int64_t *dims,
                                           intptr_t numDims, bool keepdim);
MLIR_CAPI_EXPORTED MlirValue fuserBuildAll(FuserBuilder b, MlirValue x, const int64_t *dims,
                                           intptr_t numDims, bool keepdim);
/// torch.var_mean: writes the variance (divided by N - correction) and the
/// mean to *var and *mean (either may be NULL). Returns false, and writes
/// null values, on error.
MLIR_CAPI_EXPORTED bool fuserBuildVarMean(FuserBuilder b, MlirValue x, const int64_t *dims,
                                          intptr_t numDims, int64_t correction,
                                          bool keepdim, MlirValue *var,
                                          MlirValue *mean);

/*===-- Shape ops -------------------------------------------------------------===*/

/// x's elements in row-major order, as `shape[0 .. rank)`. Static element
/// counts must match; dynamic ones are checked when the fusion runs.
MLIR_CAPI_EXPORTED MlirValue fuserBuildReshape(FuserBuilder b, MlirValue x,
                                               intptr_t rank, const int64_t *shape);
/// As fuserBuildReshape, with the result's sizes stated: `sizes` is an
/// affine map, as text, of no dims and `rank` results whose symbol i is the
/// i-th dynamic dim among the fusion's inputs, in order (a static result
/// dim gives its own size). A tracer that knows x.view(B * T, C) of a
/// [?, ?, ?] input says "()[s0, s1, s2] -> (s0 * s1, s2)"; without it a
/// reshape with two or more dynamic result dims takes what other ops give
/// them, then a rule (docs/dialect.md). A map of another symbol count is a
/// compile error; element counts are checked when the fusion runs.
MLIR_CAPI_EXPORTED MlirValue fuserBuildReshapeSized(FuserBuilder b, MlirValue x,
                                                    intptr_t rank, const int64_t *shape,
                                                    const char *sizes);
/// Result dim i is x's dim perm[i] (negative: from the end).
MLIR_CAPI_EXPORTED MlirValue fuserBuildPermute(FuserBuilder b, MlirValue x,
                                               const int64_t *perm, intptr_t numPerm);
/// x[start:limit:step] per dim, `rank` entries each (x's rank). `step` may
/// be NULL for all 1. A negative start or limit counts from the end of a
/// static dim, as in Python; sizes are not clamped. A limit of INT64_MAX
/// is the end of the dim (ATen's default end), also of a dynamic dim, whose
/// result dim is then dynamic: x[:, :4] of an [?, 8] x is start {0, 0},
/// limit {INT64_MAX, 4}.
MLIR_CAPI_EXPORTED MlirValue fuserBuildSlice(FuserBuilder b, MlirValue x, intptr_t rank,
                                             const int64_t *start, const int64_t *limit,
                                             const int64_t *step);
/// x with low[i] elements before and high[i] after dim i, filled with the
/// rank-0 `value` of x's element type; a negative amount crops instead, as
/// torch.nn.functional.pad does.
MLIR_CAPI_EXPORTED MlirValue fuserBuildPad(FuserBuilder b, MlirValue x, MlirValue value,
                                           intptr_t rank, const int64_t *low,
                                           const int64_t *high);
/// torch.cat(inputs[0 .. numInputs), dim) (negative dim: from the end).
MLIR_CAPI_EXPORTED MlirValue fuserBuildConcat(FuserBuilder b, const MlirValue *inputs,
                                              intptr_t numInputs, int64_t dim);

/*===-- Communication among devices ---------------------------------------------===*/

/// fuser.collective: one device's part of a collective among the
/// `groupSize` devices that `gridAxes` (ascending) of the fusion's grid
/// group (docs/sharding.md). `kind` is "all_reduce" (result: x's shape),
/// "all_gather" (result [groupSize, ...x]), "reduce_scatter" and "slice"
/// (x is [groupSize, ...], the result drops that dim) or "all_to_all" (x
/// and result [groupSize, ...]). `reduction` ("sum", "prod", "max", "min",
/// "avg") for all_reduce and reduce_scatter only, else NULL. The finished
/// fusion needs its grid: the function attribute `fuser.grid` =
/// array<i64: sizes> (mlirOperationSetAttributeByName), and may give its
/// inputs and outputs `fuser.split` (docs/sharding.md). Most callers shard
/// with the shard dialect instead and let the compiler place the
/// collectives.
MLIR_CAPI_EXPORTED MlirValue fuserBuildCollective(FuserBuilder b, const char *kind,
                                                  MlirValue x, const char *reduction,
                                                  const int64_t *gridAxes,
                                                  intptr_t numGridAxes, int64_t groupSize);

/*===-- Indexing ----------------------------------------------------------------===*/

/// torch.gather(x, dim, index): the index (i32 or i64, x's rank, no larger
/// than x in the other dims) picks along `dim` (negative: from the end).
/// Indices outside [0, x.size(dim)) fail the run (docs/runtime.md).
MLIR_CAPI_EXPORTED MlirValue fuserBuildGather(FuserBuilder b, MlirValue x, int64_t dim,
                                              MlirValue index);
/// torch.index_select(x, dim, index): a 1-D i32 or i64 index picks slices
/// along `dim` (an embedding lookup is dim 0 of the table).
MLIR_CAPI_EXPORTED MlirValue fuserBuildIndexSelect(FuserBuilder b, MlirValue x, int64_t dim,
                                                   MlirValue index);
/// torch.scatter_add(self, dim, index, source): self plus, for every
/// position p of the index (i32 or i64, self's rank, no larger than source,
/// nor than self but at dim), source[p] added at p with p[dim] := index[p].
/// Deterministic: PyTorch's CPU order and rounding. Indices outside
/// [0, self.size(dim)) fail the run.
MLIR_CAPI_EXPORTED MlirValue fuserBuildScatterAdd(FuserBuilder b, MlirValue self, int64_t dim,
                                                  MlirValue index, MlirValue source);
/// torch.index_add(self, dim, index, source): self plus source's slice k
/// added at position index[k] along dim (a 1-D i32 or i64 index; source has
/// self's shape but the index's length at dim). alpha: multiply the source
/// first. As fuserBuildScatterAdd for order and errors.
MLIR_CAPI_EXPORTED MlirValue fuserBuildIndexAdd(FuserBuilder b, MlirValue self, int64_t dim,
                                                MlirValue index, MlirValue source);

/*===-- Scans -------------------------------------------------------------------===*/

/// torch.cumsum(x, dim) for float and i64 tensors (negative dim: from the
/// end). PyTorch sums narrower integers and bools in int64: cast them to
/// i64 first.
MLIR_CAPI_EXPORTED MlirValue fuserBuildCumsum(FuserBuilder b, MlirValue x, int64_t dim);
/// torch.cumprod(x, dim), with the same types as fuserBuildCumsum.
MLIR_CAPI_EXPORTED MlirValue fuserBuildCumprod(FuserBuilder b, MlirValue x, int64_t dim);
/// torch.cummax(x, dim): writes the running maximum (x's type) to *values
/// and its position along dim (i64) to *indices (either may be NULL); ties
/// go to the later position, and a NaN, once seen, stays, as in PyTorch.
/// Every element type. Returns false, and writes null values, on error.
MLIR_CAPI_EXPORTED bool fuserBuildCummax(FuserBuilder b, MlirValue x, int64_t dim,
                                         MlirValue *values, MlirValue *indices);
/// torch.cummin(x, dim), as fuserBuildCummax.
MLIR_CAPI_EXPORTED bool fuserBuildCummin(FuserBuilder b, MlirValue x, int64_t dim,
                                         MlirValue *values, MlirValue *indices);

/*===-- Matrix multiplication (library calls: docs/matmul.md) ------------------===*/

/// torch.matmul(x, y): dot product, matrix-vector, matrix product, or
/// batched with batch dims broadcast (a dim of size 1 broadcasts; sizes
/// known only at launch must be equal). Both f16, bf16, f32 or f64 of one
/// dtype (PyTorch refuses mixed dtypes, and so does this); f32
/// accumulation (f64 for f64), one rounding. Runs through cuBLASLt.
MLIR_CAPI_EXPORTED MlirValue fuserBuildMatmul(FuserBuilder b, MlirValue x, MlirValue y);
/// torch.nn.functional.linear(x, weight, bias): x [..., in] @ weight^T
/// ([out, in]) + bias ([out]; a null MlirValue for none), all one float
/// dtype. The bias is added before the one rounding, as cuBLASLt's bias
/// epilogue does.
MLIR_CAPI_EXPORTED MlirValue fuserBuildLinear(FuserBuilder b, MlirValue x, MlirValue weight,
                                              MlirValue bias);

/*===-- Composites (expanded by fuser-decompose) -----------------------------===*/

MLIR_CAPI_EXPORTED MlirValue fuserBuildSoftmax(FuserBuilder b, MlirValue x, int64_t dim);
MLIR_CAPI_EXPORTED MlirValue fuserBuildLogSoftmax(FuserBuilder b, MlirValue x,
                                                  int64_t dim);
/// torch.native_layer_norm over the trailing dims[0 .. numDims) (in order;
/// negative allowed). `weight` and `bias` are optional: pass a null
/// MlirValue (`(MlirValue){NULL}`) for none. Returns the output and writes
/// the mean and reciprocal standard deviation (normalized dims kept as 1,
/// f32 for f16/bf16 input) to *mean and *rstd (either may be NULL; null
/// values on error).
MLIR_CAPI_EXPORTED MlirValue fuserBuildLayerNorm(FuserBuilder b, MlirValue x,
                                                 MlirValue weight, MlirValue bias,
                                                 const int64_t *dims, intptr_t numDims,
                                                 double eps, MlirValue *mean,
                                                 MlirValue *rstd);
/// torch.nn.functional.rms_norm over the trailing dims; `weight` optional.
MLIR_CAPI_EXPORTED MlirValue fuserBuildRmsNorm(FuserBuilder b, MlirValue x,
                                               MlirValue weight, const int64_t *dims,
                                               intptr_t numDims, double eps);

/*===-- fp8 scaling (docs/fp8.md) ---------------------------------------------===*/

/// Which elements of fuserBuildQuantize's input share one scale.
typedef enum FuserQuantGranularity {
  FuserQuantPerTensor = 0, ///< scale and amax of rank 0
  FuserQuantPerRow = 1,    ///< [..., 1]: every dim but the last kept
  FuserQuantPerBlock = 2,  ///< [..., H / blockSize]: blockSize contiguous elements
} FuserQuantGranularity;

/// fuser.quantize: current scaling of float `x` to `dtype` (F8E4M3FN or
/// F8E5M2), one scale per group of `granularity` (`blockSize` for
/// FuserQuantPerBlock, else 0). `scaleDType` picks the recipe: F32
/// (torchao: scale = fmax / max(amax, 1e-12), result = cast(x * scale)
/// saturating) or F8E8M0FNU (OCP MX: scale 2^(floor(log2 amax) - emax)).
/// Returns the fp8 tensor and writes the scales and the f32 amax to *scale
/// and *amax (either may be NULL; null values on error).
MLIR_CAPI_EXPORTED MlirValue fuserBuildQuantize(FuserBuilder b, MlirValue x, FuserDType dtype,
                                                FuserQuantGranularity granularity,
                                                int64_t blockSize, FuserDType scaleDType,
                                                MlirValue *scale, MlirValue *amax);
/// fuser.scaled_cast: delayed scaling of float `x` to `dtype` (F8E4M3FN or
/// F8E5M2) by the f32 `scale` (rank 0, or x's rank with dims 1 where
/// shared): returns cast(x * scale) saturating and writes max |x| over each
/// scale's group (scale's shape) to *amax (may be NULL).
MLIR_CAPI_EXPORTED MlirValue fuserBuildScaledCast(FuserBuilder b, MlirValue x, MlirValue scale,
                                                  FuserDType dtype, MlirValue *amax);

/*===-- Random numbers (docs/random.md) ----------------------------------------===*
 *
 * Element i of a result is a function of (seed, offset, i) alone: Philox4x32-10
 * keyed by `seed` at counter (i / 4, offset). `seed` and `offset` are rank-0
 * i64 values (usually fusion inputs, so that a training loop changes them
 * every step without recompiling).
 */

/// torch.rand: uniform in [0, 1) of `dtype` (f16, bf16, f32, f64), or the raw
/// Philox words (i32, i64), of `shape[0 .. rank)`; FUSER_DYNAMIC sizes are
/// taken from `like` (a value of that shape; a null MlirValue when the shape
/// is static).
MLIR_CAPI_EXPORTED MlirValue fuserBuildRand(FuserBuilder b, MlirValue seed, MlirValue offset,
                                            FuserDType dtype, intptr_t rank,
                                            const int64_t *shape, MlirValue like);
/// torch.randn: standard normal numbers of a float `dtype` (Box-Muller).
MLIR_CAPI_EXPORTED MlirValue fuserBuildRandn(FuserBuilder b, MlirValue seed, MlirValue offset,
                                             FuserDType dtype, intptr_t rank,
                                             const int64_t *shape, MlirValue like);
/// torch.bernoulli(p): 1 with probability p[i], else 0, in p's float type.
MLIR_CAPI_EXPORTED MlirValue fuserBuildBernoulli(FuserBuilder b, MlirValue p, MlirValue seed,
                                                 MlirValue offset);
/// torch.native_dropout(x, p, train=True): returns y and writes the i1 mask to
/// *mask (may be NULL). `p` is a rank-0 float value; a constant outside
/// [0, 1] is an error.
MLIR_CAPI_EXPORTED MlirValue fuserBuildDropout(FuserBuilder b, MlirValue x, MlirValue p,
                                               MlirValue seed, MlirValue offset,
                                               MlirValue *mask);

/*===-- The PyTorch layer --------------------------------------------------------===*
 *
 * fuserTorch* take operands of any dtypes and broadcastable shapes and
 * insert the fuser.cast and fuser.broadcast ops that make them what the
 * dialect op wants, following PyTorch. Implemented rules, exactly:
 *
 * - Promotion (torch.promote_types) over i1 < i8 < i32 < i64 < floats: bool
 *   with anything gives the other; integers give the wider; an integer with
 *   a float gives the float; f16 with bf16 gives f32; floats give the wider.
 * - Result type (torch.result_type): operands fall in three groups, tensors
 *   of rank >= 1, rank-0 tensors (any rank-0 value other than a wrapped
 *   number), and wrapped numbers (fuserTorchScalar*, PyTorch's Python
 *   scalars; a float one counts as f32, the default dtype, an integer one as
 *   i64, a bool one as i1). Each group is promoted on its own; then a group
 *   only matters if it is of a higher category (bool < integer < float)
 *   than the groups before it: the result is the ranked tensors' type unless
 *   a rank-0 tensor or wrapped number is of a higher category, in which case
 *   the two promote (so i32 tensor + wrapped float is f32, i32 tensor +
 *   rank-0 f64 tensor is f64, bf16 tensor + rank-0 f32 tensor is bf16, i8
 *   tensor + wrapped int is i8, bool tensor + wrapped int is i64).
 * - Operation-specific rules: true division (fuserTorchDiv), atan2 and the
 *   float functions (exp, log, sqrt, sin, ..., sigmoid, erf) of an integer or
 *   bool result type compute in f32; comparisons compute in the result type
 *   and give i1; add and mul of two bools are logical or and and (as
 *   PyTorch's bool add/mul); sum and prod of integers and bools accumulate
 *   and return i64; where promotes x and y only (the condition must be i1).
 * - Broadcasting (torch.broadcast_shapes): shapes align to the right, a
 *   static 1 expands, equal sizes stay; a `?` against a static size s > 1
 *   becomes s and a `?` against a `?` stays `?`, both checked to be equal
 *   when the fusion runs (a `?` is never taken to be a broadcastable 1).
 *   Rank-0 operands are not broadcast (the dialect takes them as they are).
 * - Wrapped numbers become constants of the computed type (not casts).
 *
 * Not implemented: complex and unsigned types; PyTorch's overflow checks of
 * wrapped numbers (an integer wrapped number casts with wrapping).
 *===------------------------------------------------------------------------------===*/

/// A wrapped number (a PyTorch Python scalar): a rank-0 constant (f64, i64
/// or i1) that the fuserTorch* functions promote as PyTorch promotes Python
/// scalars. The core builder functions take it as a rank-0 tensor.
MLIR_CAPI_EXPORTED MlirValue fuserTorchScalarF64(FuserBuilder b, double value);
MLIR_CAPI_EXPORTED MlirValue fuserTorchScalarI64(FuserBuilder b, int64_t value);
MLIR_CAPI_EXPORTED MlirValue fuserTorchScalarBool(FuserBuilder b, bool value);

/// torch.result_type of values[0 .. n); FuserDTypeInvalid (with the error
/// recorded) for a null or foreign value or n == 0.
MLIR_CAPI_EXPORTED FuserDType fuserTorchResultType(FuserBuilder b, const MlirValue *values,
                                                   intptr_t n);
/// torch.broadcast_shapes of the values' shapes: writes the rank to *rank
/// and up to `capacity` dims to `shape`. Fails on shapes that do not
/// broadcast, recording the error.
MLIR_CAPI_EXPORTED MlirLogicalResult fuserTorchBroadcastShapes(FuserBuilder b,
                                                               const MlirValue *values,
                                                               intptr_t n, intptr_t *rank,
                                                               int64_t *shape,
                                                               intptr_t capacity);
/// torch.broadcast_to(x, shape): right-aligned; -1 keeps x's size for an
/// existing dim, FUSER_DYNAMIC is a size known at run time (`?`: a dim of
/// size 1 expands to it, as it would to a static size; a `?` dim keeps its
/// size). Returns x itself when nothing changes.
MLIR_CAPI_EXPORTED MlirValue fuserTorchBroadcastTo(FuserBuilder b, MlirValue x,
                                                   intptr_t rank, const int64_t *shape);
/// x.to(dtype); x itself when it already has `dtype`.
MLIR_CAPI_EXPORTED MlirValue fuserTorchTo(FuserBuilder b, MlirValue x, FuserDType dtype);
/// torch.reshape: one entry may be -1, inferred from the static element
/// counts (an error when x or the other entries are dynamic).
MLIR_CAPI_EXPORTED MlirValue fuserTorchReshape(FuserBuilder b, MlirValue x, intptr_t rank,
                                               const int64_t *shape);

/// Binary ops with promotion and broadcasting. As in PyTorch, add and mul
/// of bools are logical or and and, and a subtraction with a bool on either
/// side is an error.
MLIR_CAPI_EXPORTED MlirValue fuserTorchAdd(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchSub(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchMul(FuserBuilder b, MlirValue x, MlirValue y);
/// True division: integer and bool operands compute in f32.
MLIR_CAPI_EXPORTED MlirValue fuserTorchDiv(FuserBuilder b, MlirValue x, MlirValue y);
/// torch.div with rounding_mode trunc or floor (none: as fuserTorchDiv).
MLIR_CAPI_EXPORTED MlirValue fuserTorchDivMode(FuserBuilder b, MlirValue x, MlirValue y,
                                               FuserRoundingMode roundingMode);
/// An integer base with a negative integer number exponent
/// (fuserTorchScalarI64) is an error, as in PyTorch.
MLIR_CAPI_EXPORTED MlirValue fuserTorchPow(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchMaximum(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchMinimum(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchRemainder(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchFmod(FuserBuilder b, MlirValue x, MlirValue y);
/// Integer and bool operands compute in f32.
MLIR_CAPI_EXPORTED MlirValue fuserTorchAtan2(FuserBuilder b, MlirValue y, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchBitwiseAnd(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchBitwiseOr(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchBitwiseXor(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchBitwiseLeftShift(FuserBuilder b, MlirValue x,
                                                        MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchBitwiseRightShift(FuserBuilder b, MlirValue x,
                                                         MlirValue y);
/// Comparisons in the promoted type; i1 results.
MLIR_CAPI_EXPORTED MlirValue fuserTorchEq(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchNe(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchLt(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchLe(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchGt(FuserBuilder b, MlirValue x, MlirValue y);
MLIR_CAPI_EXPORTED MlirValue fuserTorchGe(FuserBuilder b, MlirValue x, MlirValue y);

/// torch.where(condition, x, y): condition i1; x and y promoted; all three
/// broadcast.
MLIR_CAPI_EXPORTED MlirValue fuserTorchWhere(FuserBuilder b, MlirValue condition,
                                             MlirValue x, MlirValue y);
/// torch.clamp(x, low, high): either bound may be null (absent), not both.
MLIR_CAPI_EXPORTED MlirValue fuserTorchClamp(FuserBuilder b, MlirValue x, MlirValue low,
                                             MlirValue high);
/// torch.lerp(start, end, weight), promoted (to f32 for integers) and
/// broadcast.
MLIR_CAPI_EXPORTED MlirValue fuserTorchLerp(FuserBuilder b, MlirValue start, MlirValue end,
                                            MlirValue weight);

/// Float functions: an integer or bool x is cast to f32 first.
MLIR_CAPI_EXPORTED MlirValue fuserTorchExp(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchExp2(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchExpm1(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchLog(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchLog2(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchLog1p(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchSqrt(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchRsqrt(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchReciprocal(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchSin(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchCos(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchTanh(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchSigmoid(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchErf(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchLog10(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchTan(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchAsin(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchAcos(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchAtan(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchSinh(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchCosh(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchAsinh(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchAcosh(FuserBuilder b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue fuserTorchAtanh(FuserBuilder b, MlirValue x);

/// Reductions as torch.sum(x, dims, keepdim) etc.; numDims == 0 reduces
/// every dim (dims may then be NULL). sum and prod of integers and bools
/// accumulate in, and return, i64. A 0-dim tensor takes dim 0 or -1, as in
/// PyTorch, and its reduction is itself.
MLIR_CAPI_EXPORTED MlirValue fuserTorchSum(FuserBuilder b, MlirValue x, const int64_t *dims,
                                           intptr_t numDims, bool keepdim);
MLIR_CAPI_EXPORTED MlirValue fuserTorchProd(FuserBuilder b, MlirValue x, const int64_t *dims,
                                            intptr_t numDims, bool keepdim);
MLIR_CAPI_EXPORTED MlirValue fuserTorchMean(FuserBuilder b, MlirValue x, const int64_t *dims,
                                            intptr_t numDims, bool keepdim);
MLIR_CAPI_EXPORTED MlirValue fuserTorchAmax(FuserBuilder b, MlirValue x, const int64_t *dims,
                                            intptr_t numDims, bool keepdim);
MLIR_CAPI_EXPORTED MlirValue fuserTorchAmin(FuserBuilder b, MlirValue x, const int64_t *dims,
                                            intptr_t numDims, bool keepdim);

#ifdef __cplusplus
}
#endif

#endif /* FUSER_C_BUILDER_H */
