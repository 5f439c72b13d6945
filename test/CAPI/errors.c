/*===- errors.c - every error path of the fusion builder -----------------===*\
|*                                                                            *|
|* Each bad input returns a null value and records the error in the builder,  *|
|* never aborting: null, destroyed and foreign handles, dtype and shape       *|
|* mismatches, dims out of range, bad constants, bad finishes. The messages   *|
|* are checked word for word.                                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* RUN: capi-builder-errors 2>&1 | FileCheck %s
 */

#include "fuser-c/Builder.h"
#include "fuser-c/Dialects.h"
#include "capi_test.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DYN FUSER_DYNAMIC
#define S(str) mlirStringRefCreateFromCString(str)
#define NONE ((MlirValue){NULL})
#define SHAPE(...) (sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}

/* Prints the builder's first error on one line and clears it, so the next
 * failing call of the same builder reports its own error. */
static void printError(FuserBuilder b) {
  MlirStringRef e = fuserBuilderGetError(b);
  fprintf(stderr, "error: %.*s\n", (int)e.length, e.data);
  fuserBuilderClearError(b);
}

/* Expects `v` to be null and prints the error it recorded. */
#define EXPECT_FAIL(b, v)                                                      \
  do {                                                                         \
    EXPECT(mlirValueIsNull(v));                                                \
    EXPECT(fuserBuilderHasError(b));                                           \
    printError(b);                                                             \
  } while (0)

static MlirValue input(FuserBuilder b, FuserDType t, intptr_t rank, const int64_t *shape) {
  MlirValue v = fuserBuilderAddInput(b, t, rank, shape, S(""));
  EXPECT(!mlirValueIsNull(v));
  return v;
}

/*===----------------------------------------------------------------------===*/

static void testNullAndDestroyedBuilders(MlirContext ctx) {
  fprintf(stderr, "@testNullAndDestroyedBuilders\n");
  FuserBuilder none = fuserBuilderCreate((MlirContext){NULL}, S("f"));
  EXPECT(fuserBuilderIsNull(none));
  EXPECT(fuserBuilderIsNull(fuserBuilderCreate(ctx, S(""))));
  EXPECT(fuserBuilderIsNull(fuserBuilderCreate(ctx, (MlirStringRef){NULL, 0})));
  /* Every call with the null builder fails quietly. */
  EXPECT(mlirValueIsNull(fuserBuilderAddInput(none, FuserDTypeF32, 0, NULL, S("x"))));
  EXPECT(mlirValueIsNull(fuserBuildAdd(none, NONE, NONE)));
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderAddOutput(none, NONE, S("y"))));
  EXPECT(mlirModuleIsNull(fuserBuilderFinishNewModule(none)));
  EXPECT(fuserBuilderHasError(none));
  EXPECT(mlirContextIsNull(fuserBuilderGetContext(none)));
  printError(none);
  fuserBuilderDestroy(none);

  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue x = input(b, FuserDTypeF32, SHAPE(4));
  fuserBuilderDestroy(b);
  fuserBuilderDestroy(b); /* twice: a no-op */
  /* A destroyed builder's handle is recognized: nothing touches freed memory. */
  EXPECT(mlirValueIsNull(fuserBuildExp(b, x)));
  EXPECT(mlirValueIsNull(fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("x"))));
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderSetLocation(b, mlirLocationUnknownGet(ctx))));
  EXPECT(fuserBuilderGetNumErrors(b) == 0);
  EXPECT(fuserBuilderGetValueRank(b, x) == -1);
  fuserBuilderClearError(b);
  printError(b);
}
// CHECK-LABEL: @testNullAndDestroyedBuilders
// CHECK-NEXT: error: <api>: error: the builder is null or was destroyed
// CHECK-NEXT: error: <api>: error: the builder is null or was destroyed

static void testNullAndForeignValues(MlirContext ctx) {
  fprintf(stderr, "@testNullAndForeignValues\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  FuserBuilder other = fuserBuilderCreate(ctx, S("g"));
  MlirContext ctx2 = fuserContextCreate();
  FuserBuilder far = fuserBuilderCreate(ctx2, S("h"));
  MlirValue x = input(b, FuserDTypeF32, SHAPE(4));
  MlirValue y = input(other, FuserDTypeF32, SHAPE(4));
  MlirValue z = input(far, FuserDTypeF32, SHAPE(4));

  EXPECT_FAIL(b, fuserBuildAdd(b, x, NONE));
  EXPECT_FAIL(b, fuserBuildAdd(b, x, y));
  EXPECT_FAIL(b, fuserBuildMul(b, z, x));
  MlirValue garbage = {(void *)(uintptr_t)0x1234};
  EXPECT_FAIL(b, fuserBuildExp(b, garbage));
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderAddOutput(b, y, S("y"))));
  printError(b);

  /* A failure propagates: later calls given the null value fail too, the
   * first error stays, and the count grows. */
  MlirValue bad = fuserBuildExp(b, input(b, FuserDTypeI32, SHAPE(4)));
  MlirValue chain = fuserBuildTanh(b, fuserBuildNeg(b, bad));
  EXPECT(mlirValueIsNull(bad) && mlirValueIsNull(chain));
  EXPECT(fuserBuilderGetNumErrors(b) == 3);
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderAddOutput(b, chain, S("out"))));
  EXPECT(fuserBuilderGetNumErrors(b) == 4);
  printError(b);
  /* The second error of a chain names the null operand. */
  EXPECT(mlirValueIsNull(fuserBuildNeg(b, bad)));
  printError(b);
  EXPECT(fuserBuilderGetNumErrors(b) == 0);

  /* Values of the other builders still work there. */
  EXPECT(!mlirValueIsNull(fuserBuildExp(other, y)));
  EXPECT(!fuserBuilderHasError(other));
  fuserBuilderDestroy(b);
  fuserBuilderDestroy(other);
  fuserBuilderDestroy(far);
  mlirContextDestroy(ctx2);
}
// CHECK-LABEL: @testNullAndForeignValues
// CHECK-NEXT: error: f: error: fuserBuildAdd: operand 2 is null
// CHECK-NEXT: error: f: error: fuserBuildAdd: operand 2 is not a value of this builder (a value of another builder, of a destroyed one, or of another context)
// CHECK-NEXT: error: f: error: fuserBuildMul: operand 1 is not a value of this builder
// CHECK-NEXT: error: f: error: fuserBuildExp: the operand is not a value of this builder
// CHECK-NEXT: error: f: error: fuserBuilderAddOutput: the output value is not a value of this builder
// CHECK-NEXT: error: f: error: fuserBuildExp: 'fuser.exp' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 (fp8: cast to f32 first), but got 'tensor<4xi32>'
// CHECK-NEXT: error: f: error: fuserBuildNeg: the operand is null

static void testElementwiseMismatches(MlirContext ctx) {
  fprintf(stderr, "@testElementwiseMismatches\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue x = input(b, FuserDTypeF32, SHAPE(4, 8));
  MlirValue h = input(b, FuserDTypeBF16, SHAPE(4, 8));
  MlirValue r = input(b, FuserDTypeF32, SHAPE(8));
  MlirValue w = input(b, FuserDTypeF32, SHAPE(4, 7));
  MlirValue i = input(b, FuserDTypeI32, SHAPE(4, 8));
  MlirValue c = input(b, FuserDTypeI32, SHAPE(4, 8));
  EXPECT_FAIL(b, fuserBuildAdd(b, x, h));
  EXPECT_FAIL(b, fuserBuildSub(b, x, r));
  EXPECT_FAIL(b, fuserBuildMaximum(b, x, w));
  EXPECT_FAIL(b, fuserBuildEq(b, x, i));
  EXPECT_FAIL(b, fuserBuildDiv(b, i, i, FuserRoundingNone));
  EXPECT_FAIL(b, fuserBuildDiv(b, x, x, (FuserRoundingMode)9));
  EXPECT_FAIL(b, fuserBuildGelu(b, x, (FuserGeluApproximation)7));
  EXPECT_FAIL(b, fuserBuildNot(b, x));
  EXPECT_FAIL(b, fuserBuildAtan2(b, i, i));
  EXPECT_FAIL(b, fuserBuildAnd(b, x, x));
  EXPECT_FAIL(b, fuserBuildWhere(b, c, x, x));
  EXPECT_FAIL(b, fuserBuildClamp(b, x, x, h));
  EXPECT_FAIL(b, fuserBuildLerp(b, i, i, i));
  EXPECT_FAIL(b, fuserBuildFma(b, x, r, x));
  EXPECT_FAIL(b, fuserBuildCast(b, x, (FuserDType)42));
  EXPECT_FAIL(b, fuserBuildCastSaturate(b, x, FuserDTypeF16));
  EXPECT_FAIL(b, fuserBuildBitcast(b, x, FuserDTypeI64));
  EXPECT_FAIL(b, fuserBuildShl(b, x, x));
  EXPECT_FAIL(b, fuserBuildQuantize(b, x, FuserDTypeF8E4M3FN, (FuserQuantGranularity)5, 0,
                                    FuserDTypeF32, NULL, NULL));
  EXPECT_FAIL(b, fuserBuildQuantize(b, x, FuserDTypeF8E4M3FN, FuserQuantPerBlock, 3,
                                    FuserDTypeF32, NULL, NULL));
  EXPECT_FAIL(b, fuserBuildQuantize(b, x, FuserDTypeF8E4M3FN, FuserQuantPerRow, 4,
                                    FuserDTypeF32, NULL, NULL));
  EXPECT_FAIL(b, fuserBuildQuantize(b, x, FuserDTypeF16, FuserQuantPerRow, 0, FuserDTypeF32,
                                    NULL, NULL));
  EXPECT_FAIL(b, fuserBuildQuantize(b, x, FuserDTypeF8E5M2, FuserQuantPerTensor, 0,
                                    FuserDTypeBF16, NULL, NULL));
  EXPECT_FAIL(b, fuserBuildScaledCast(b, x, r, FuserDTypeF8E4M3FN, NULL));
  EXPECT_FAIL(b, fuserBuildScaledCast(b, x, x, FuserDTypeI8, NULL));
  fuserBuilderDestroy(b);
}
// CHECK-LABEL: @testElementwiseMismatches
// CHECK-NEXT: error: f: error: fuserBuildAdd: 'fuser.add' op operand element types 'f32' and 'bf16' differ; insert a fuser.cast
// CHECK-NEXT: error: f: error: fuserBuildSub: 'fuser.sub' op operand shapes [4, 8] and [8] differ in rank; broadcast explicitly with fuser.broadcast
// CHECK-NEXT: error: f: error: fuserBuildMaximum: 'fuser.maximum' op operand shapes [4, 8] and [4, 7] do not match in dim 1; broadcast explicitly with fuser.broadcast
// CHECK-NEXT: error: f: error: fuserBuildEq: 'fuser.eq' op operand element types 'f32' and 'i32' differ; insert a fuser.cast
// CHECK-NEXT: error: f: error: fuserBuildDiv: 'fuser.div' op integer division needs rounding_mode = trunc or floor; cast to a float type for true division
// CHECK-NEXT: error: f: error: fuserBuildDiv: rounding mode 9 is not a FuserRoundingMode
// CHECK-NEXT: error: f: error: fuserBuildGelu: approximate 7 is not a FuserGeluApproximation
// CHECK-NEXT: error: f: error: fuserBuildNot: 'fuser.not' op operand #0 must be ranked tensor of 1-bit signless integer or 8-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xf32>'
// CHECK-NEXT: error: f: error: fuserBuildAtan2: 'fuser.atan2' op operand #0 must be ranked tensor of f16, bf16
// CHECK-NEXT: error: f: error: fuserBuildAnd: 'fuser.and' op operand #0 must be ranked tensor of 1-bit signless integer
// CHECK-NEXT: error: f: error: fuserBuildWhere: 'fuser.where' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4x8xi32>'
// CHECK-NEXT: error: f: error: fuserBuildClamp: 'fuser.clamp' op operand element types 'f32' and 'bf16' differ; insert a fuser.cast
// CHECK-NEXT: error: f: error: fuserBuildLerp: 'fuser.lerp' op operand #0 must be ranked tensor of f16, bf16
// CHECK-NEXT: error: f: error: fuserBuildFma: 'fuser.fma' op operand shapes [4, 8] and [8] differ in rank
// CHECK-NEXT: error: f: error: fuserBuildCast: dtype 42 is not a FuserDType
// CHECK-NEXT: error: f: error: fuserBuildCastSaturate: 'fuser.cast' op saturate applies to a cast to f8E4M3FN, f8E5M2 or f8E8M0FNU, not to 'f16'; other float casts overflow to infinity as PyTorch's do
// CHECK-NEXT: error: f: error: fuserBuildBitcast: 'fuser.bitcast' op reinterprets 'f32' (32 bits) as 'i64' (64 bits); the widths must match
// CHECK-NEXT: error: f: error: fuserBuildShl: 'fuser.shl' op operand #0 must be ranked tensor of i8, i32 or i64, but got 'tensor<4x8xf32>'
// CHECK-NEXT: error: f: error: fuserBuildQuantize: granularity 5 is not FuserQuantPerTensor, FuserQuantPerRow or FuserQuantPerBlock
// CHECK-NEXT: error: f: error: fuserBuildQuantize: 'fuser.quantize' op the last dim (8) must be static and a multiple of the block size 3
// CHECK-NEXT: error: f: error: fuserBuildQuantize: 'fuser.quantize' op a block size is for block granularity only
// CHECK-NEXT: error: f: error: fuserBuildQuantize: 'fuser.quantize' op result #0 must be ranked tensor of f8E4M3FN or f8E5M2, but got 'tensor<4x8xf16>'
// CHECK-NEXT: error: f: error: fuserBuildQuantize: 'fuser.quantize' op result #1 must be ranked tensor of f32 or f8E8M0FNU, but got 'tensor<bf16>'
// CHECK-NEXT: error: f: error: fuserBuildScaledCast: 'fuser.scaled_cast' op scale has rank 1; it must be rank 0 (one scale) or the input's rank 2
// CHECK-NEXT: error: f: error: fuserBuildScaledCast: 'fuser.scaled_cast' op result #0 must be ranked tensor of f8E4M3FN or f8E5M2, but got 'tensor<4x8xi8>'

static void testShapesAndConstants(MlirContext ctx) {
  fprintf(stderr, "@testShapesAndConstants\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  int64_t neg[] = {4, -3}, minusOne[] = {-1};
  EXPECT_FAIL(b, fuserBuilderAddInput(b, FuserDTypeF32, -1, NULL, S("x")));
  EXPECT_FAIL(b, fuserBuilderAddInput(b, FuserDTypeF32, 65, neg, S("x")));
  /* One more than FUSER_MAX_RANK: bundles, fuserc and .npy stop at 32. */
  int64_t ones[33];
  for (int i = 0; i < 33; ++i)
    ones[i] = 1;
  EXPECT_FAIL(b, fuserBuilderAddInput(b, FuserDTypeF32, 33, ones, S("x")));
  EXPECT(!mlirValueIsNull(fuserBuilderAddInput(b, FuserDTypeF32, 32, ones, S("r32"))));
  EXPECT_FAIL(b, fuserBuilderAddInput(b, FuserDTypeF32, 2, NULL, S("x")));
  EXPECT_FAIL(b, fuserBuilderAddInput(b, FuserDTypeF32, 2, neg, S("x")));
  EXPECT_FAIL(b, fuserBuilderAddInput(b, FuserDTypeF32, 1, minusOne, S("x")));
  EXPECT_FAIL(b, fuserBuilderAddInput(b, FuserDTypeInvalid, 0, NULL, S("x")));
  EXPECT(!mlirValueIsNull(fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("x"))));
  EXPECT_FAIL(b, fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("x")));
  /* Names are identifiers: fuserc run writes DIR/<name>.npy. */
  EXPECT_FAIL(b, fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("../escaped")));
  EXPECT_FAIL(b, fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("1x")));
  EXPECT_FAIL(b, fuserBuildConstantF64(b, FuserDTypeI32, 2.5, 0, NULL));
  EXPECT_FAIL(b, fuserBuildConstantF64(b, FuserDTypeI64, 1e300, 0, NULL));
  EXPECT_FAIL(b, fuserBuildConstantF64(b, FuserDTypeI8, INFINITY, 0, NULL));
  EXPECT_FAIL(b, fuserBuildConstantF64(b, FuserDTypeI1, 2.0, 0, NULL));
  EXPECT_FAIL(b, fuserBuildConstantI64(b, FuserDTypeI8, 300, 0, NULL));
  EXPECT_FAIL(b, fuserBuildConstantI64(b, FuserDTypeI32, -2147483649LL, 0, NULL));
  EXPECT_FAIL(b, fuserBuildConstantI64(b, FuserDTypeI1, -1, 0, NULL));
  EXPECT_FAIL(b, fuserBuildConstantBool(b, (FuserDType)0, true, 0, NULL));
  EXPECT_FAIL(b, fuserBuildConstantF64(b, FuserDTypeF32, 1.0, 1, minusOne));
  EXPECT_FAIL(b, fuserBuildIota(b, FuserDTypeI32, SHAPE(4, 8), 2));
  EXPECT_FAIL(b, fuserBuildIota(b, FuserDTypeI32, SHAPE(4, 8), -3));
  EXPECT_FAIL(b, fuserBuildIota(b, FuserDTypeI1, SHAPE(4, 8), 0));
  EXPECT_FAIL(b, fuserBuildIota(b, FuserDTypeI64, 0, NULL, 0));
  MlirValue x = input(b, FuserDTypeF32, SHAPE(4, 8));
  EXPECT_FAIL(b, fuserBuildSize(b, x, 2, FuserDTypeI64));
  EXPECT_FAIL(b, fuserBuildSize(b, x, 0, FuserDTypeI1));
  EXPECT_FAIL(b, fuserBuildSize(b, x, 0, (FuserDType)0));
  fuserBuilderDestroy(b);
}
// CHECK-LABEL: @testShapesAndConstants
// CHECK-NEXT: error: f: error: fuserBuilderAddInput: rank -1 of the shape is out of range (0 to FUSER_MAX_RANK, 32)
// CHECK-NEXT: error: f: error: fuserBuilderAddInput: rank 65 of the shape is out of range (0 to FUSER_MAX_RANK, 32)
// CHECK-NEXT: error: f: error: fuserBuilderAddInput: rank 33 of the shape is out of range (0 to FUSER_MAX_RANK, 32)
// CHECK-NEXT: error: f: error: fuserBuilderAddInput: the shape is NULL with rank 2
// CHECK-NEXT: error: f: error: fuserBuilderAddInput: dim 1 of the shape has size -3; sizes are >= 0, or FUSER_DYNAMIC for a dynamic dim
// CHECK-NEXT: error: f: error: fuserBuilderAddInput: dim 0 of the shape has size -1; sizes are >= 0, or FUSER_DYNAMIC for a dynamic dim
// CHECK-NEXT: error: f: error: fuserBuilderAddInput: dtype 0 is not a FuserDType
// CHECK-NEXT: error: f: error: fuserBuilderAddInput: the name 'x' is already taken by an input or output
// CHECK-NEXT: error: f: error: fuserBuilderAddInput: the name '../escaped' is not an identifier ([A-Za-z_][A-Za-z0-9_]*); bundles and the tools that read them (fuserc run's files) use it
// CHECK-NEXT: error: f: error: fuserBuilderAddInput: the name '1x' is not an identifier
// CHECK-NEXT: error: f: error: fuserBuildConstantF64: the value 2.5 is not an integer that fits in i32
// CHECK-NEXT: error: f: error: fuserBuildConstantF64: the value 1e+300 is not an integer that fits in i64
// CHECK-NEXT: error: f: error: fuserBuildConstantF64: the value inf is not an integer that fits in i8
// CHECK-NEXT: error: f: error: fuserBuildConstantF64: the value 2 is not an integer that fits in i1
// CHECK-NEXT: error: f: error: fuserBuildConstantI64: the value 300 does not fit in i8
// CHECK-NEXT: error: f: error: fuserBuildConstantI64: the value -2147483649 does not fit in i32
// CHECK-NEXT: error: f: error: fuserBuildConstantI64: the value -1 does not fit in i1
// CHECK-NEXT: error: f: error: fuserBuildConstantBool: dtype 0 is not a FuserDType
// CHECK-NEXT: error: f: error: fuserBuildConstantF64: dim 0 of the shape has size -1
// CHECK-NEXT: error: f: error: fuserBuildIota: dim 2 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserBuildIota: dim -3 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserBuildIota: 'fuser.iota' op result #0 must be ranked tensor of i8, i32, i64, f16, bf16, f32 or f64
// CHECK-NEXT: error: f: error: fuserBuildIota: dim 0 is out of range for rank 0 (no dims)
// CHECK-NEXT: error: f: error: fuserBuildSize: dim 2 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserBuildSize: 'fuser.size' op result #0 must be 0D tensor of 8-bit signless integer
// CHECK-NEXT: error: f: error: fuserBuildSize: dtype 0 is not a FuserDType

static void testBroadcastAndReductions(MlirContext ctx) {
  fprintf(stderr, "@testBroadcastAndReductions\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue x = input(b, FuserDTypeF32, SHAPE(4, 8));
  MlirValue v = input(b, FuserDTypeF32, SHAPE(3));
  MlirValue i = input(b, FuserDTypeI32, SHAPE(4, 8));
  int64_t d01[] = {0, 1}, d10[] = {1, 0}, d1[] = {1}, d00[] = {0, 0}, d5[] = {5};
  EXPECT_FAIL(b, fuserBuildBroadcast(b, x, SHAPE(2, 4, 8), d1, 1));
  EXPECT_FAIL(b, fuserBuildBroadcast(b, x, SHAPE(2, 4, 8), d10, 2));
  EXPECT_FAIL(b, fuserBuildBroadcast(b, v, SHAPE(4, 8), d1, 1));
  EXPECT_FAIL(b, fuserBuildBroadcast(b, x, SHAPE(4, 8), d5, 1));
  EXPECT_FAIL(b, fuserBuildBroadcast(b, x, SHAPE(4, 8), NULL, 2));
  EXPECT_FAIL(b, fuserBuildSum(b, x, d5, 1, false));
  EXPECT_FAIL(b, fuserBuildProd(b, x, d00, 2, false));
  EXPECT_FAIL(b, fuserBuildMax(b, x, NULL, 0, false));
  EXPECT_FAIL(b, fuserBuildMin(b, x, d01, -1, false));
  EXPECT_FAIL(b, fuserBuildMean(b, i, d1, 1, false));
  EXPECT_FAIL(b, fuserBuildAny(b, x, NULL, 1, false));
  EXPECT_FAIL(b, fuserBuildAll(b, x, (int64_t[]){-3}, 1, false));
  MlirValue var = {(void *)1}, mean = {(void *)1};
  EXPECT(!fuserBuildVarMean(b, x, d1, 1, -1, false, &var, &mean));
  EXPECT(mlirValueIsNull(var) && mlirValueIsNull(mean));
  printError(b);
  EXPECT(!fuserBuildVarMean(b, i, d1, 1, 1, false, &var, &mean));
  printError(b);
  EXPECT(!fuserBuildVarMean(b, x, d00, 2, 1, false, &var, NULL));
  printError(b);
  fuserBuilderDestroy(b);
}
// CHECK-LABEL: @testBroadcastAndReductions
// CHECK-NEXT: error: f: error: fuserBuildBroadcast: 'fuser.broadcast' op dims has 1 entries for an operand of rank 2
// CHECK-NEXT: error: f: error: fuserBuildBroadcast: 'fuser.broadcast' op dims must be strictly increasing; use fuser.permute to reorder dims
// CHECK-NEXT: error: f: error: fuserBuildBroadcast: 'fuser.broadcast' op operand dim 0 of size 3 cannot broadcast to result dim 1 of size 8 (sizes must match or be 1)
// CHECK-NEXT: error: f: error: fuserBuildBroadcast: dim 5 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserBuildBroadcast: dims is NULL with 2 entries
// CHECK-NEXT: error: f: error: fuserBuildSum: dim 5 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserBuildProd: 'fuser.prod' op dims lists dim 0 twice
// CHECK-NEXT: error: f: error: fuserBuildMax: 'fuser.max' op dims must not be empty; list every dim to reduce all of them
// CHECK-NEXT: error: f: error: fuserBuildMin: the number of dims entries, -1, is out of range
// CHECK-NEXT: error: f: error: fuserBuildMean: 'fuser.mean' op operand #0 must be ranked tensor of f16, bf16
// CHECK-NEXT: error: f: error: fuserBuildAny: dims is NULL with 1 entries
// CHECK-NEXT: error: f: error: fuserBuildAll: dim -3 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserBuildVarMean: 'fuser.var_mean' op correction must be non-negative, got -1
// CHECK-NEXT: error: f: error: fuserBuildVarMean: 'fuser.var_mean' op operand #0 must be ranked tensor of f16, bf16
// CHECK-NEXT: error: f: error: fuserBuildVarMean: 'fuser.var_mean' op dims lists dim 0 twice

static void testShapeOps(MlirContext ctx) {
  fprintf(stderr, "@testShapeOps\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue x = input(b, FuserDTypeF32, SHAPE(4, 8));
  MlirValue d = input(b, FuserDTypeF32, SHAPE(DYN, 8));
  MlirValue z = input(b, FuserDTypeF32, 0, NULL);
  MlirValue zi = input(b, FuserDTypeI32, 0, NULL);
  MlirValue y = input(b, FuserDTypeF32, SHAPE(4, 3));
  MlirValue i = input(b, FuserDTypeI32, SHAPE(4, 8));
  MlirValue r3 = input(b, FuserDTypeF32, SHAPE(4, 8, 1));
  EXPECT_FAIL(b, fuserBuildReshape(b, x, SHAPE(5, 7)));
  EXPECT_FAIL(b, fuserBuildPermute(b, x, (int64_t[]){0}, 1));
  EXPECT_FAIL(b, fuserBuildPermute(b, x, (int64_t[]){1, -1}, 2));
  EXPECT_FAIL(b, fuserBuildSlice(b, x, 1, (int64_t[]){0}, (int64_t[]){1}, NULL));
  EXPECT_FAIL(b, fuserBuildSlice(b, x, 2, (int64_t[]){3, 0}, (int64_t[]){2, 8}, NULL));
  EXPECT_FAIL(b, fuserBuildSlice(b, x, 2, (int64_t[]){0, 0}, (int64_t[]){4, 8}, (int64_t[]){1, 0}));
  EXPECT_FAIL(b, fuserBuildSlice(b, x, 2, (int64_t[]){0, 0}, (int64_t[]){4, 9}, NULL));
  EXPECT_FAIL(b, fuserBuildSlice(b, d, 2, (int64_t[]){-2, 0}, (int64_t[]){4, 8}, NULL));
  EXPECT_FAIL(b, fuserBuildSlice(b, x, 2, NULL, (int64_t[]){4, 8}, NULL));
  EXPECT_FAIL(b, fuserBuildPad(b, x, x, 2, (int64_t[]){0, 0}, (int64_t[]){0, 0}));
  EXPECT_FAIL(b, fuserBuildPad(b, x, zi, 2, (int64_t[]){0, 0}, (int64_t[]){0, 0}));
  EXPECT_FAIL(b, fuserBuildPad(b, x, z, 2, (int64_t[]){0, -9}, (int64_t[]){0, 0}));
  EXPECT_FAIL(b, fuserBuildPad(b, x, z, 1, (int64_t[]){0}, (int64_t[]){0}));
  EXPECT_FAIL(b, fuserBuildPad(b, x, z, 2, (int64_t[]){INT64_MAX, 0}, (int64_t[]){INT64_MAX, 0}));
  EXPECT_FAIL(b, fuserBuildConcat(b, NULL, 0, 0));
  EXPECT_FAIL(b, fuserBuildConcat(b, (MlirValue[]){x, i}, 2, 0));
  EXPECT_FAIL(b, fuserBuildConcat(b, (MlirValue[]){x, r3}, 2, 0));
  EXPECT_FAIL(b, fuserBuildConcat(b, (MlirValue[]){x, y}, 2, 0));
  EXPECT_FAIL(b, fuserBuildConcat(b, (MlirValue[]){x, y}, 2, 2));
  EXPECT_FAIL(b, fuserBuildConcat(b, (MlirValue[]){x, NONE}, 2, 1));
  MlirValue ids = input(b, FuserDTypeI64, SHAPE(3));
  EXPECT_FAIL(b, fuserBuildGather(b, x, 1, y));
  EXPECT_FAIL(b, fuserBuildGather(b, x, 1, ids));
  EXPECT_FAIL(b, fuserBuildGather(b, x, 2, i));
  EXPECT_FAIL(b, fuserBuildIndexSelect(b, x, 0, i));
  EXPECT_FAIL(b, fuserBuildIndexSelect(b, x, 0, NONE));
  EXPECT_FAIL(b, fuserBuildCumsum(b, i, 1));
  EXPECT_FAIL(b, fuserBuildCumsum(b, x, 2));
  MlirValue cv = x, ci = x;
  EXPECT_FAIL(b, fuserBuildCummax(b, x, -3, &cv, &ci) ? cv : (MlirValue){NULL});
  if (!mlirValueIsNull(cv) || !mlirValueIsNull(ci))
    fprintf(stderr, "fuserBuildCummax left a value on error\n");
  EXPECT_FAIL(b, fuserBuildCummin(b, NONE, 0, NULL, NULL) ? x : (MlirValue){NULL});
  EXPECT_FAIL(b, fuserBuildScatterAdd(b, x, 1, y, x));
  EXPECT_FAIL(b, fuserBuildScatterAdd(b, x, 1, ids, x));
  EXPECT_FAIL(b, fuserBuildIndexAdd(b, x, 0, ids, x));
  EXPECT_FAIL(b, fuserBuildIndexAdd(b, x, 2, ids, x));
  EXPECT_FAIL(b, fuserBuildMatmul(b, x, x));
  EXPECT_FAIL(b, fuserBuildMatmul(b, i, i));
  EXPECT_FAIL(b, fuserBuildMatmul(b, x, NONE));
  EXPECT_FAIL(b, fuserBuildLinear(b, x, ids, NONE));
  EXPECT_FAIL(b, fuserBuildLinear(b, x, y, NONE));
  EXPECT_FAIL(b, fuserBuildLinear(b, x, x, ids));
  fuserBuilderDestroy(b);
}
// CHECK-LABEL: @testShapeOps
// CHECK-NEXT: error: f: error: fuserBuildReshape: 'fuser.reshape' op cannot reshape [4, 8] (32 elements) into [5, 7] (35 elements)
// CHECK-NEXT: error: f: error: fuserBuildPermute: 'fuser.permute' op perm has 1 entries for an operand of rank 2
// CHECK-NEXT: error: f: error: fuserBuildPermute: 'fuser.permute' op perm lists dim 1 twice
// CHECK-NEXT: error: f: error: fuserBuildSlice: 'fuser.slice' op start, limit and step need 2 entries each (the operand rank)
// CHECK-NEXT: error: f: error: fuserBuildSlice: 'fuser.slice' op dim 0 needs 0 <= start <= limit, got start 3 limit 2
// CHECK-NEXT: error: f: error: fuserBuildSlice: 'fuser.slice' op dim 1 needs step >= 1, got 0
// CHECK-NEXT: error: f: error: fuserBuildSlice: 'fuser.slice' op dim 1 limit 9 exceeds the dim size 8
// CHECK-NEXT: error: f: error: fuserBuildSlice: dim 0 is dynamic: a negative start or limit (-2) cannot count from its end
// CHECK-NEXT: error: f: error: fuserBuildSlice: start is NULL with 2 entries
// CHECK-NEXT: error: f: error: fuserBuildPad: 'fuser.pad' op padding value must have rank 0, got 'tensor<4x8xf32>'
// CHECK-NEXT: error: f: error: fuserBuildPad: 'fuser.pad' op padding value element type 'i32' differs from the input's 'f32'; insert a fuser.cast
// CHECK-NEXT: error: f: error: fuserBuildPad: 'fuser.pad' op dim 1 of size 8 cannot be cropped by 9 (low -9, high 0)
// CHECK-NEXT: error: f: error: fuserBuildPad: 'fuser.pad' op low and high need 2 entries each (the operand rank)
// CHECK-NEXT: error: f: error: fuserBuildPad: 'fuser.pad' op dim 0: 4 + 9223372036854775807 + 9223372036854775807 overflows 64 bits
// CHECK-NEXT: error: f: error: fuserBuildConcat: needs at least one input (inputs is NULL, numInputs 0)
// CHECK-NEXT: error: f: error: fuserBuildConcat: 'fuser.concat' op operand element types 'f32' and 'i32' differ; insert a fuser.cast
// CHECK-NEXT: error: f: error: fuserBuildConcat: 'fuser.concat' op operands differ in rank: [4, 8] and [4, 8, 1]
// CHECK-NEXT: error: f: error: fuserBuildConcat: 'fuser.concat' op operand shapes [4, 8] and [4, 3] differ in dim 1, which is not the concat dim
// CHECK-NEXT: error: f: error: fuserBuildConcat: dim 2 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserBuildConcat: operand 2 is null
// CHECK-NEXT: error: f: error: fuserBuildGather: the index must be a tensor of i32 or i64, got f32
// CHECK-NEXT: error: f: error: fuserBuildGather: 'fuser.gather' op index [3] and input [4, 8] differ in rank (torch.gather needs the same rank)
// CHECK-NEXT: error: f: error: fuserBuildGather: dim 2 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserBuildIndexSelect: 'fuser.index_select' op index must have rank 1, got [4, 8]
// CHECK-NEXT: error: f: error: fuserBuildIndexSelect: operand 2 is null
// CHECK-NEXT: error: f: error: fuserBuildCumsum: 'fuser.cumsum' op accumulates 'i32' as PyTorch does, in int64: cast the input to i64 first
// CHECK-NEXT: error: f: error: fuserBuildCumsum: dim 2 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserBuildCummax: dim -3 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserBuildCummin: operand 1 is null
// CHECK-NEXT: error: f: error: fuserBuildScatterAdd: the index must be a tensor of i32 or i64, got f32
// CHECK-NEXT: error: f: error: fuserBuildScatterAdd: 'fuser.scatter_add' op self [4, 8], index [3] and source [4, 8] differ in rank (torch.scatter_add needs the same rank)
// CHECK-NEXT: error: f: error: fuserBuildIndexAdd: 'fuser.index_add' op source must have shape [3, 8] (self's, with the index's length at dim 0), got [4, 8]
// CHECK-NEXT: error: f: error: fuserBuildIndexAdd: dim 2 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserBuildMatmul: 'fuser.matmul' op contracts [4, 8] with [4, 8]: the lhs's last dim (8) differs from the rhs's second to last dim (4)
// CHECK-NEXT: error: f: error: fuserBuildMatmul: the lhs must be a tensor of f16, bf16, f32 or f64, got i32
// CHECK-NEXT: error: f: error: fuserBuildMatmul: operand 2 is null
// CHECK-NEXT: error: f: error: fuserBuildLinear: the weight must be a tensor of f16, bf16, f32 or f64, got i64
// CHECK-NEXT: error: f: error: fuserBuildLinear: 'fuser.linear' op input [4, 8] has 8 features but weight [4, 3] takes 3
// CHECK-NEXT: error: f: error: fuserBuildLinear: 'fuser.linear' op bias element type 'i64' differs from the input's 'f32'; insert a fuser.cast

static void testRandom(MlirContext ctx) {
  fprintf(stderr, "@testRandom\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue x = input(b, FuserDTypeF32, SHAPE(4, 8));
  MlirValue s = input(b, FuserDTypeI64, 0, NULL);
  MlirValue si = input(b, FuserDTypeI32, 0, NULL);
  MlirValue pi = input(b, FuserDTypeI32, 0, NULL);
  EXPECT_FAIL(b, fuserBuildRand(b, s, s, FuserDTypeF32, SHAPE(DYN, 8), NONE));
  EXPECT_FAIL(b, fuserBuildRand(b, si, s, FuserDTypeF32, SHAPE(4, 8), NONE));
  EXPECT_FAIL(b, fuserBuildRand(b, s, s, FuserDTypeI1, SHAPE(4, 8), NONE));
  EXPECT_FAIL(b, fuserBuildRandn(b, s, s, FuserDTypeF32, SHAPE(4, 9), x));
  EXPECT_FAIL(b, fuserBuildRandn(b, s, s, FuserDTypeI32, SHAPE(4, 8), NONE));
  EXPECT_FAIL(b, fuserBuildBernoulli(b, si, s, s));
  MlirValue c = fuserBuildConstantF64(b, FuserDTypeF32, 1.5, 0, NULL);
  EXPECT_FAIL(b, fuserBuildDropout(b, x, c, s, s, NULL));
  EXPECT_FAIL(b, fuserBuildDropout(b, x, pi, s, s, NULL));
  fuserBuilderDestroy(b);
}
// CHECK-LABEL: @testRandom
// CHECK-NEXT: error: f: error: fuserBuildRand: the shape has dynamic sizes: pass `like`, a value of that shape, to take them from
// CHECK-NEXT: error: f: error: fuserBuildRand: 'fuser.rand' op operand #0 must be 0D tensor of 64-bit signless integer values, but got 'tensor<i32>'
// CHECK-NEXT: error: f: error: fuserBuildRand: 'fuser.rand' op result #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer or 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4x8xi1>'
// CHECK-NEXT: error: f: error: fuserBuildRandn: 'fuser.randn' op like's shape [4, 8] differs from the result's [4, 9] in dim 1
// CHECK-NEXT: error: f: error: fuserBuildRandn: 'fuser.randn' op result #0 must be ranked tensor of f16, bf16, f32 or f64 (fp8: cast to f32 first), but got 'tensor<4x8xi32>'
// CHECK-NEXT: error: f: error: fuserBuildBernoulli: 'fuser.bernoulli' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 (fp8: cast to f32 first), but got 'tensor<i32>'
// CHECK-NEXT: error: f: error: fuserBuildDropout: 'fuser.dropout' op p must be in [0, 1], got 1.5
// CHECK-NEXT: error: f: error: fuserBuildDropout: 'fuser.dropout' op operand #1 must be ranked tensor of f16, bf16, f32 or f64 (fp8: cast to f32 first), but got 'tensor<i32>'

static void testComposites(MlirContext ctx) {
  fprintf(stderr, "@testComposites\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue x = input(b, FuserDTypeF32, SHAPE(4, 8, 16));
  MlirValue i = input(b, FuserDTypeI32, SHAPE(4, 8));
  MlirValue w = input(b, FuserDTypeF32, SHAPE(8));
  MlirValue wh = input(b, FuserDTypeF16, SHAPE(16));
  MlirValue mean = {(void *)1};
  EXPECT_FAIL(b, fuserBuildSoftmax(b, i, 1));
  EXPECT_FAIL(b, fuserBuildSoftmax(b, x, 3));
  EXPECT_FAIL(b, fuserBuildLogSoftmax(b, x, -4));
  MlirValue scalar = input(b, FuserDTypeF32, 0, NULL);
  EXPECT_FAIL(b, fuserBuildSoftmax(b, scalar, 1));
  EXPECT_FAIL(b, fuserBuildSum(b, scalar, (int64_t[]){-2}, 1, false));
  EXPECT_FAIL(b, fuserBuildSum(b, scalar, (int64_t[]){0, -1}, 2, false));
  EXPECT_FAIL(b, fuserBuildLayerNorm(b, x, NONE, NONE, (int64_t[]){1}, 1, 1e-5, &mean, NULL));
  EXPECT(mlirValueIsNull(mean));
  EXPECT_FAIL(b, fuserBuildLayerNorm(b, x, w, NONE, (int64_t[]){2}, 1, 1e-5, NULL, NULL));
  EXPECT_FAIL(b, fuserBuildLayerNorm(b, x, NONE, wh, (int64_t[]){2}, 1, 1e-5, NULL, NULL));
  EXPECT_FAIL(b, fuserBuildLayerNorm(b, x, NONE, NONE, NULL, 0, 1e-5, NULL, NULL));
  EXPECT_FAIL(b, fuserBuildRmsNorm(b, x, w, (int64_t[]){-1}, 1, 1e-6));
  EXPECT_FAIL(b, fuserBuildRmsNorm(b, i, NONE, (int64_t[]){1}, 1, 1e-6));
  EXPECT_FAIL(b, fuserBuildRmsNorm(b, x, NONE, (int64_t[]){0, 2}, 2, 1e-6));
  fuserBuilderDestroy(b);
}
// CHECK-LABEL: @testComposites
// CHECK-NEXT: error: f: error: fuserBuildSoftmax: 'fuser.softmax' op operand #0 must be ranked tensor of f16, bf16
// CHECK-NEXT: error: f: error: fuserBuildSoftmax: dim 3 is out of range for rank 3 (expected a dim in [-3, 2])
// CHECK-NEXT: error: f: error: fuserBuildLogSoftmax: dim -4 is out of range for rank 3 (expected a dim in [-3, 2])
// CHECK-NEXT: error: f: error: fuserBuildSoftmax: dim 1 is out of range for rank 0 (a scalar takes dim 0 or -1)
// CHECK-NEXT: error: f: error: fuserBuildSum: dim -2 is out of range for rank 0 (a scalar takes dim 0 or -1)
// CHECK-NEXT: error: f: error: fuserBuildSum: dims name 2 dims of a scalar, which has one (dim 0, or -1)
// CHECK-NEXT: error: f: error: fuserBuildLayerNorm: 'fuser.layer_norm' op dims must be the trailing dims in order, e.g. [2] for rank 3, got [1]
// CHECK-NEXT: error: f: error: fuserBuildLayerNorm: 'fuser.layer_norm' op the weight must have the normalized shape [16], got [8]
// CHECK-NEXT: error: f: error: fuserBuildLayerNorm: 'fuser.layer_norm' op the bias's element type 'f16' differs from the input's 'f32'; insert a fuser.cast (as PyTorch computes a mixed-type normalization, cast the input to the wider type and the result back: one rounding)
// CHECK-NEXT: error: f: error: fuserBuildLayerNorm: 'fuser.layer_norm' op dims must list the normalized trailing dims
// CHECK-NEXT: error: f: error: fuserBuildRmsNorm: 'fuser.rms_norm' op the weight must have the normalized shape [16], got [8]
// CHECK-NEXT: error: f: error: fuserBuildRmsNorm: 'fuser.rms_norm' op operand #0 must be ranked tensor of f16, bf16
// CHECK-NEXT: error: f: error: fuserBuildRmsNorm: 'fuser.rms_norm' op dims must be the trailing dims in order, e.g. [2] for rank 3, got [0, 2]

static void testFinish(MlirContext ctx) {
  fprintf(stderr, "@testFinish\n");
  /* A builder holding an error does not finish; its first error stays. */
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue x = input(b, FuserDTypeF32, SHAPE(4));
  fuserBuilderAddOutput(b, x, S("x_out"));
  EXPECT(mlirValueIsNull(fuserBuildNot(b, x)));
  MlirModule m = mlirModuleCreateEmpty(mlirLocationUnknownGet(ctx));
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderFinish(b, m)));
  EXPECT(mlirModuleIsNull(fuserBuilderFinishNewModule(b)));
  EXPECT(fuserBuilderGetNumErrors(b) == 3);
  printError(b);
  /* Once cleared (the failed call built nothing), it finishes. */
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderFinish(b, (MlirModule){NULL})));
  printError(b);
  MlirContext ctx2 = fuserContextCreate();
  MlirModule far = mlirModuleCreateEmpty(mlirLocationUnknownGet(ctx2));
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderFinish(b, far)));
  printError(b);
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderSetLocation(b, mlirLocationUnknownGet(ctx2))));
  printError(b);
  mlirModuleDestroy(far);
  mlirContextDestroy(ctx2);
  EXPECT(mlirLogicalResultIsSuccess(fuserBuilderFinish(b, m)));
  /* Finished: nothing more to build, nor to finish. */
  EXPECT(mlirValueIsNull(fuserBuildExp(b, x)));
  printError(b);
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderFinish(b, m)));
  printError(b);
  fuserBuilderDestroy(b);

  /* A second fusion of the same name does not go into the module. */
  b = fuserBuilderCreate(ctx, S("f"));
  fuserBuilderAddOutput(b, input(b, FuserDTypeF32, SHAPE(4)), S("y"));
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderFinish(b, m)));
  printError(b);
  fuserBuilderDestroy(b);

  /* No outputs; duplicate output names; null output. */
  b = fuserBuilderCreate(ctx, S("g"));
  x = input(b, FuserDTypeF32, SHAPE(4));
  EXPECT(mlirModuleIsNull(fuserBuilderFinishNewModule(b)));
  printError(b);
  EXPECT(mlirLogicalResultIsSuccess(fuserBuilderAddOutput(b, x, S("y"))));
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderAddOutput(b, x, S("y"))));
  printError(b);
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderAddOutput(b, x, S("a/b"))));
  printError(b);
  EXPECT(mlirLogicalResultIsFailure(fuserBuilderAddOutput(b, NONE, S("z"))));
  printError(b);
  /* Destroying an unfinished builder frees its fusion (valgrind checks). */
  fuserBuilderDestroy(b);

  /* An explicit name that is an unnamed input's or output's default (argN,
     resultN): the bundle renamed the default to arg1_ and result0_. */
  b = fuserBuilderCreate(ctx, S("h"));
  x = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(4), S("arg1"));
  MlirValue second = input(b, FuserDTypeF32, SHAPE(4));
  fuserBuilderAddOutput(b, fuserBuildAdd(b, x, second), S(""));
  EXPECT(mlirModuleIsNull(fuserBuilderFinishNewModule(b)));
  printError(b);
  fuserBuilderDestroy(b);
  b = fuserBuilderCreate(ctx, S("h"));
  x = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(4), S("result0"));
  fuserBuilderAddOutput(b, fuserBuildExp(b, x), S(""));
  EXPECT(mlirModuleIsNull(fuserBuilderFinishNewModule(b)));
  printError(b);
  fuserBuilderDestroy(b);
  /* Its own default is its name: fine. */
  b = fuserBuilderCreate(ctx, S("h"));
  x = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(4), S("arg0"));
  fuserBuilderAddOutput(b, fuserBuildExp(b, x), S("result0"));
  MlirModule ok = fuserBuilderFinishNewModule(b);
  EXPECT(!mlirModuleIsNull(ok));
  mlirModuleDestroy(ok);
  fuserBuilderDestroy(b);
  /* A fusion name that is no PTX identifier (a tracer's qualified name):
   * refused when finished, not first at the compile. */
  const char *badNames[] = {"fwd.inner", "0fwd", "a-b"};
  for (int i = 0; i < 3; ++i) {
    b = fuserBuilderCreate(ctx, S(badNames[i]));
    x = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(4), S("x"));
    fuserBuilderAddOutput(b, fuserBuildExp(b, x), S("y"));
    EXPECT(mlirModuleIsNull(fuserBuilderFinishNewModule(b)));
    printError(b);
    fuserBuilderDestroy(b);
  }

  MlirOperation op = mlirModuleGetOperation(m);
  EXPECT(mlirOperationVerify(op));
  mlirModuleDestroy(m);
}
// CHECK-LABEL: @testFinish
// CHECK-NEXT: error: f: error: fuserBuildNot: 'fuser.not' op operand #0 must be ranked tensor of 1-bit signless integer
// CHECK-NEXT: error: f: error: fuserBuilderFinish: the module is null
// CHECK-NEXT: error: f: error: fuserBuilderFinish: the module is of another context
// CHECK-NEXT: error: f: error: fuserBuilderSetLocation: the location is of another context
// CHECK-NEXT: error: f: error: fuserBuildExp: the fusion was already finished; create a new builder
// CHECK-NEXT: error: f: error: fuserBuilderFinish: the fusion was already finished; create a new builder
// CHECK-NEXT: error: f: error: fuserBuilderFinish: the module already has a symbol named 'f'
// CHECK-NEXT: error: g: error: fuserBuilderFinishNewModule: the fusion has no outputs (fuserBuilderAddOutput)
// CHECK-NEXT: error: g: error: fuserBuilderAddOutput: the name 'y' is already taken by an input or output
// CHECK-NEXT: error: g: error: fuserBuilderAddOutput: the name 'a/b' is not an identifier
// CHECK-NEXT: error: g: error: fuserBuilderAddOutput: the output value is null
// CHECK-NEXT: error: h: error: fuserBuilderFinishNewModule: the name 'arg1' is taken, and is the default name of input 1, which has none: name input 1, or choose another name
// CHECK-NEXT: error: h: error: fuserBuilderFinishNewModule: the name 'result0' is taken, and is the default name of output 0, which has none: name output 0, or choose another name
// CHECK-NEXT: error: fwd.inner: error: fuserBuilderFinishNewModule: fusion name 'fwd.inner' is not a PTX identifier: use letters, digits, '_' and '$', not starting with a digit
// CHECK-NEXT: error: 0fwd: error: fuserBuilderFinishNewModule: fusion name '0fwd' is not a PTX identifier
// CHECK-NEXT: error: a-b: error: fuserBuilderFinishNewModule: fusion name 'a-b' is not a PTX identifier

static int handlerCalls = 0;
static MlirLogicalResult countingHandler(MlirDiagnostic d, void *userData) {
  (void)d;
  (void)userData;
  ++handlerCalls;
  return mlirLogicalResultSuccess();
}

static void testLocationsAndHandlers(MlirContext ctx) {
  fprintf(stderr, "@testLocationsAndHandlers\n");
  /* The builder's errors go to the builder, not the context's handlers. */
  MlirDiagnosticHandlerID id =
      mlirContextAttachDiagnosticHandler(ctx, countingHandler, NULL, NULL);
  FuserBuilder b = fuserBuilderCreate(ctx, S("located"));
  MlirValue x = input(b, FuserDTypeF32, SHAPE(4));
  MlirValue y = input(b, FuserDTypeF32, SHAPE(5));
  fuserBuilderSetLocation(b, mlirLocationFileLineColGet(ctx, S("model.py"), 3, 7));
  EXPECT_FAIL(b, fuserBuildAdd(b, x, y));
  MlirLocation callsite = mlirLocationCallSiteGet(
      mlirLocationNameGet(ctx, S("inner"), mlirLocationUnknownGet(ctx)),
      mlirLocationFileLineColGet(ctx, S("caller.py"), 9, 1));
  fuserBuilderSetLocation(b, callsite);
  EXPECT_FAIL(b, fuserBuildSub(b, x, y));
  fuserBuilderSetLocation(b, mlirLocationNameGet(ctx, S("layer1.add"), mlirLocationUnknownGet(ctx)));
  EXPECT_FAIL(b, fuserBuildMul(b, x, y));
  fuserBuilderSetLocation(b, mlirLocationUnknownGet(ctx));
  EXPECT_FAIL(b, fuserBuildDiv(b, x, y, FuserRoundingNone));
  fuserBuilderDestroy(b);
  mlirContextDetachDiagnosticHandler(ctx, id);
  fprintf(stderr, "handler calls: %d\n", handlerCalls);
}
// CHECK-LABEL: @testLocationsAndHandlers
// CHECK-NEXT: error: model.py:3:7: error: fuserBuildAdd: 'fuser.add' op operand shapes [4] and [5] do not match in dim 0
// CHECK-NEXT: error: caller.py:9:1: error: fuserBuildSub:
// CHECK-NEXT: error: layer1.add: error: fuserBuildMul:
// CHECK-NEXT: error: <unknown>: error: fuserBuildDiv:
// CHECK-NEXT: handler calls: 0

int main(void) {
  MlirContext ctx = fuserContextCreate();
  testNullAndDestroyedBuilders(ctx);
  testNullAndForeignValues(ctx);
  testElementwiseMismatches(ctx);
  testShapesAndConstants(ctx);
  testBroadcastAndReductions(ctx);
  testShapeOps(ctx);
  testRandom(ctx);
  testComposites(ctx);
  testFinish(ctx);
  testLocationsAndHandlers(ctx);
  mlirContextDestroy(ctx);
  fprintf(stderr, "@done: %d failures\n", failures);
  return failures ? 1 : 0;
}
// CHECK-LABEL: @done: 0 failures
