/*===- builder.c - every builder function of fuser-c/Builder.h -----------===*\
|*                                                                            *|
|* One test per family of ops: each builds a fusion through the builder,      *|
|* prints it, and FileCheck checks the ops, attributes and inferred types.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* RUN: capi-builder %fuser_src/include/fuser/Dialect/Fuser/IR/FuserOps.td 2>&1 | FileCheck %s
 */

#include "fuser-c/Builder.h"
#include "fuser-c/Dialects.h"
#include "capi_test.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DYN FUSER_DYNAMIC
#define S(str) mlirStringRefCreateFromCString(str)
#define NONE ((MlirValue){NULL})

/* Everything printed, kept for testEveryOpBuilt. */
static char *printed = NULL;
static size_t printedLength = 0;

static void printToStderr(MlirStringRef s, void *userData) {
  (void)userData;
  fwrite(s.data, 1, s.length, stderr);
  char *grown = realloc(printed, printedLength + s.length + 1);
  if (!grown)
    return;
  printed = grown;
  memcpy(printed + printedLength, s.data, s.length);
  printedLength += s.length;
  printed[printedLength] = '\0';
}

/* Checks that the builder holds no error (printing it if it does). */
static void expectNoError(FuserBuilder b) {
  if (fuserBuilderHasError(b)) {
    MlirStringRef e = fuserBuilderGetError(b);
    fprintf(stderr, "unexpected builder error: %.*s\n", (int)e.length, e.data);
    ++failures;
  }
}

/* Finishes `b` into a new module, prints it and destroys both. */
static void finishAndPrint(FuserBuilder b) {
  expectNoError(b);
  MlirModule m = fuserBuilderFinishNewModule(b);
  EXPECT(!mlirModuleIsNull(m));
  if (!mlirModuleIsNull(m)) {
    MlirOperation op = mlirModuleGetOperation(m);
    EXPECT(mlirOperationVerify(op));
    mlirOperationPrint(op, printToStderr, NULL);
    fprintf(stderr, "\n");
    mlirModuleDestroy(m);
  }
  fuserBuilderDestroy(b);
}

/*===----------------------------------------------------------------------===*/

static void testInputsOutputs(MlirContext ctx) {
  fprintf(stderr, "@testInputsOutputs\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("io"));
  EXPECT(!fuserBuilderIsNull(b));
  EXPECT(mlirContextEqual(fuserBuilderGetContext(b), ctx));
  int64_t shape[] = {DYN, 16};
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeBF16, 2, shape, S("x"));
  MlirValue s = fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("alpha"));
  MlirValue u = fuserBuilderAddInput(b, FuserDTypeI64, 1, (int64_t[]){3}, S(""));
  EXPECT(fuserBuilderGetValueDType(b, x) == FuserDTypeBF16);
  EXPECT(fuserBuilderGetValueRank(b, x) == 2);
  int64_t got[2] = {0, 0};
  EXPECT(fuserBuilderGetValueShape(b, x, got) == 2);
  EXPECT(got[0] == DYN && got[1] == 16);
  EXPECT(got[0] == mlirShapedTypeGetDynamicSize());
  EXPECT(fuserBuilderGetValueRank(b, s) == 0);
  EXPECT(fuserBuilderGetValueDType(b, NONE) == FuserDTypeInvalid);
  EXPECT(fuserBuilderGetValueRank(b, NONE) == -1);
  fprintf(stderr, "dtypes: %s %s %s %s %s %s %s %s %s %s %s %s\n",
          fuserDTypeGetName(FuserDTypeI1), fuserDTypeGetName(FuserDTypeI8),
          fuserDTypeGetName(FuserDTypeI32), fuserDTypeGetName(FuserDTypeI64),
          fuserDTypeGetName(FuserDTypeF16), fuserDTypeGetName(FuserDTypeBF16),
          fuserDTypeGetName(FuserDTypeF32), fuserDTypeGetName(FuserDTypeF64),
          fuserDTypeGetName(FuserDTypeF8E4M3FN), fuserDTypeGetName(FuserDTypeF8E5M2),
          fuserDTypeGetName(FuserDTypeF8E8M0FNU),
          fuserDTypeGetName((FuserDType)42));
  EXPECT(mlirLogicalResultIsSuccess(fuserBuilderAddOutput(b, x, S("y"))));
  EXPECT(mlirLogicalResultIsSuccess(fuserBuilderAddOutput(b, s, S(""))));
  EXPECT(mlirLogicalResultIsSuccess(fuserBuilderAddOutput(b, u, S("u_out"))));
  EXPECT(mlirLogicalResultIsSuccess(fuserBuilderAddOutput(b, x, S("y_again"))));
  finishAndPrint(b);
}
// CHECK-LABEL: @testInputsOutputs
// CHECK: dtypes: i1 i8 i32 i64 f16 bf16 f32 f64 f8E4M3FN f8E5M2 f8E8M0FNU invalid
// CHECK: func.func @io(%[[X:.*]]: tensor<?x16xbf16> {fuser.name = "x"}, %[[A:.*]]: tensor<f32> {fuser.name = "alpha"}, %[[U:.*]]: tensor<3xi64>)
// CHECK-SAME: -> (tensor<?x16xbf16> {fuser.name = "y"}, tensor<f32>, tensor<3xi64> {fuser.name = "u_out"}, tensor<?x16xbf16> {fuser.name = "y_again"})
// CHECK: return %[[X]], %[[A]], %[[U]], %[[X]]

/* Inputs that are views: the fuser.strides argument attribute, `?` for a
 * stride passed at run time; a negative stride and missing strides are
 * errors that name the input's function. */
static void testStridedInputs(MlirContext ctx) {
  fprintf(stderr, "@testStridedInputs\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("views"));
  MlirValue t = fuserBuilderAddStridedInput(b, FuserDTypeF32, 2, (int64_t[]){64, 48},
                                            (int64_t[]){1, 64}, S("xt"));
  MlirValue e = fuserBuilderAddStridedInput(b, FuserDTypeF32, 2, (int64_t[]){64, 48},
                                            (int64_t[]){0, 1}, S("row"));
  MlirValue d = fuserBuilderAddStridedInput(b, FuserDTypeF32, 2, (int64_t[]){64, DYN},
                                            (int64_t[]){DYN, 1}, S("s"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 2, (int64_t[]){64, 48}, S("dense"));
  EXPECT(!mlirValueIsNull(t) && !mlirValueIsNull(e) && !mlirValueIsNull(d));
  MlirValue sum = fuserBuildAdd(b, fuserBuildAdd(b, t, e), x);
  EXPECT(mlirLogicalResultIsSuccess(fuserBuilderAddOutput(b, sum, S("y"))));
  EXPECT(mlirLogicalResultIsSuccess(fuserBuilderAddOutput(b, d, S("s_out"))));
  finishAndPrint(b);

  b = fuserBuilderCreate(ctx, S("bad_views"));
  EXPECT(mlirValueIsNull(fuserBuilderAddStridedInput(b, FuserDTypeF32, 2, (int64_t[]){4, 4},
                                                     (int64_t[]){-4, 1}, S("x"))));
  MlirStringRef err = fuserBuilderGetError(b);
  fprintf(stderr, "error: %.*s\n", (int)err.length, err.data);
  fuserBuilderClearError(b);
  EXPECT(mlirValueIsNull(
      fuserBuilderAddStridedInput(b, FuserDTypeF32, 2, (int64_t[]){4, 4}, NULL, S("x"))));
  err = fuserBuilderGetError(b);
  fprintf(stderr, "error: %.*s\n", (int)err.length, err.data);
  fuserBuilderClearError(b);
  EXPECT(mlirValueIsNull(fuserBuilderAddStridedInput(b, FuserDTypeF32, 2, (int64_t[]){-3, 4},
                                                     (int64_t[]){4, 1}, S("x"))));
  err = fuserBuilderGetError(b);
  fprintf(stderr, "error: %.*s\n", (int)err.length, err.data);
  fuserBuilderClearError(b);
  /* A view that reaches 2^63 elements or more: refused when added (it was
   * first refused at finish, whose undo then erased the whole fusion when
   * an unused number was the last op), also where the element count itself
   * overflows (2^40 x 2^30, which the check skipped). */
  EXPECT(mlirValueIsNull(fuserBuilderAddStridedInput(
      b, FuserDTypeF32, 2, (int64_t[]){(int64_t)1 << 31, 2},
      (int64_t[]){(int64_t)1 << 40, (int64_t)1 << 40}, S("x"))));
  err = fuserBuilderGetError(b);
  fprintf(stderr, "error: %.*s\n", (int)err.length, err.data);
  fuserBuilderClearError(b);
  EXPECT(mlirValueIsNull(fuserBuilderAddStridedInput(
      b, FuserDTypeF32, 2, (int64_t[]){(int64_t)1 << 40, (int64_t)1 << 30},
      (int64_t[]){(int64_t)1 << 30, 1}, S("x"))));
  fuserBuilderClearError(b);
  /* An unused number last, then finish: the fusion is whole. */
  MlirValue ok = fuserBuilderAddStridedInput(b, FuserDTypeF32, 2, (int64_t[]){4, 4},
                                             (int64_t[]){1, 4}, S("ok"));
  MlirValue y = fuserTorchMul(b, fuserTorchExp(b, ok), fuserTorchScalarF64(b, 2));
  fuserBuilderAddOutput(b, y, S("y"));
  EXPECT(!mlirValueIsNull(fuserTorchScalarF64(b, 7)));
  MlirModule m = fuserBuilderFinishNewModule(b);
  EXPECT(!mlirModuleIsNull(m));
  if (!mlirModuleIsNull(m))
    mlirModuleDestroy(m);
  fuserBuilderDestroy(b);
}
// CHECK-LABEL: @testStridedInputs
// CHECK: func.func @views(%{{.*}}: tensor<64x48xf32> {fuser.name = "xt", fuser.strides = strided<[1, 64]>}, %{{.*}}: tensor<64x48xf32> {fuser.name = "row", fuser.strides = strided<[0, 1]>}, %{{.*}}: tensor<64x?xf32> {fuser.name = "s", fuser.strides = strided<[?, 1]>}, %{{.*}}: tensor<64x48xf32> {fuser.name = "dense"})
// CHECK: error: fuserBuilderAddStridedInput: stride -4 of dim 0 is negative; strides are >= 0 (0: an expanded dim) or FUSER_DYNAMIC
// CHECK: error: fuserBuilderAddStridedInput: strides is NULL for an input of rank 2
// CHECK: error: {{.*}}fuserBuilderAddStridedInput: dim 0 of the shape has size -3
// CHECK: error: {{.*}}fuserBuilderAddStridedInput: the view reaches 2^63 elements or more from its start (1 + the sum of (size - 1) * stride over its dims): no buffer holds it

static void testUnary(MlirContext ctx) {
  fprintf(stderr, "@testUnary\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("unary"));
  int64_t shape[] = {4, DYN};
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 2, shape, S("x"));
  MlirValue i = fuserBuilderAddInput(b, FuserDTypeI32, 2, shape, S("i"));
  MlirValue (*floatOps[])(FuserBuilder, MlirValue) = {
      fuserBuildNeg,     fuserBuildAbs,   fuserBuildExp,  fuserBuildExp2,
      fuserBuildExpm1,   fuserBuildLog,   fuserBuildLog2, fuserBuildLog1p,
      fuserBuildSqrt,    fuserBuildRsqrt, fuserBuildReciprocal,
      fuserBuildSin,     fuserBuildCos,   fuserBuildTanh, fuserBuildSigmoid,
      fuserBuildErf,     fuserBuildRelu,  fuserBuildSilu, fuserBuildFloor,
      fuserBuildCeil,    fuserBuildRound, fuserBuildSign,
      fuserBuildLog10,   fuserBuildTan,   fuserBuildAsin, fuserBuildAcos,
      fuserBuildAtan,    fuserBuildSinh,  fuserBuildCosh, fuserBuildAsinh,
      fuserBuildAcosh,   fuserBuildAtanh, fuserBuildTrunc, fuserBuildFrac};
  MlirValue v = x;
  for (size_t k = 0; k < sizeof(floatOps) / sizeof(floatOps[0]); ++k)
    v = floatOps[k](b, v);
  v = fuserBuildGelu(b, v, FuserGeluNone);
  v = fuserBuildGelu(b, v, FuserGeluTanh);
  fuserBuilderAddOutput(b, v, S("y"));
  fuserBuilderAddOutput(b, fuserBuildNot(b, i), S("not"));
  fuserBuilderAddOutput(b, fuserBuildIsNan(b, x), S("nan"));
  fuserBuilderAddOutput(b, fuserBuildIsInf(b, x), S("inf"));
  fuserBuilderAddOutput(b, fuserBuildIsFinite(b, x), S("finite"));
  fuserBuilderAddOutput(b, fuserBuildIsPosInf(b, x), S("posinf"));
  fuserBuilderAddOutput(b, fuserBuildIsNegInf(b, x), S("neginf"));
  fuserBuilderAddOutput(b, fuserBuildSignbit(b, i), S("signbit"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testUnary
// CHECK: func.func @unary(%[[X:.*]]: tensor<4x?xf32> {fuser.name = "x"}, %[[I:.*]]: tensor<4x?xi32> {fuser.name = "i"})
// CHECK: %[[V0:.*]] = fuser.neg %[[X]] : tensor<4x?xf32>
// CHECK-NEXT: %[[V1:.*]] = fuser.abs %[[V0]] : tensor<4x?xf32>
// CHECK-NEXT: fuser.exp %[[V1]] : tensor<4x?xf32>
// CHECK-NEXT: fuser.exp2
// CHECK-NEXT: fuser.expm1
// CHECK-NEXT: fuser.log
// CHECK-NEXT: fuser.log2
// CHECK-NEXT: fuser.log1p
// CHECK-NEXT: fuser.sqrt
// CHECK-NEXT: fuser.rsqrt
// CHECK-NEXT: fuser.reciprocal
// CHECK-NEXT: fuser.sin
// CHECK-NEXT: fuser.cos
// CHECK-NEXT: fuser.tanh
// CHECK-NEXT: fuser.sigmoid
// CHECK-NEXT: fuser.erf
// CHECK-NEXT: fuser.relu
// CHECK-NEXT: fuser.silu
// CHECK-NEXT: fuser.floor
// CHECK-NEXT: fuser.ceil
// CHECK-NEXT: fuser.round
// CHECK-NEXT: fuser.sign
// CHECK-NEXT: fuser.log10
// CHECK-NEXT: fuser.tan
// CHECK-NEXT: fuser.asin
// CHECK-NEXT: fuser.acos
// CHECK-NEXT: fuser.atan
// CHECK-NEXT: fuser.sinh
// CHECK-NEXT: fuser.cosh
// CHECK-NEXT: fuser.asinh
// CHECK-NEXT: fuser.acosh
// CHECK-NEXT: fuser.atanh
// CHECK-NEXT: fuser.trunc
// CHECK-NEXT: fuser.frac
// CHECK-NEXT: %[[G0:.*]] = fuser.gelu %{{.*}} : tensor<4x?xf32>
// CHECK-NEXT: %[[G1:.*]] = fuser.gelu %[[G0]] approximate = tanh : tensor<4x?xf32>
// CHECK-NEXT: %[[N:.*]] = fuser.not %[[I]] : tensor<4x?xi32>
// CHECK-NEXT: %[[P0:.*]] = fuser.isnan %[[X]] : tensor<4x?xf32>
// CHECK-NEXT: %[[P1:.*]] = fuser.isinf %[[X]] : tensor<4x?xf32>
// CHECK-NEXT: %[[P2:.*]] = fuser.isfinite %[[X]] : tensor<4x?xf32>
// CHECK-NEXT: %[[P3:.*]] = fuser.isposinf %[[X]] : tensor<4x?xf32>
// CHECK-NEXT: %[[P4:.*]] = fuser.isneginf %[[X]] : tensor<4x?xf32>
// CHECK-NEXT: %[[P5:.*]] = fuser.signbit %[[I]] : tensor<4x?xi32>
// CHECK-NEXT: return %[[G1]], %[[N]], %[[P0]], %[[P1]], %[[P2]], %[[P3]], %[[P4]], %[[P5]] : tensor<4x?xf32>, tensor<4x?xi32>, tensor<4x?xi1>, tensor<4x?xi1>, tensor<4x?xi1>, tensor<4x?xi1>, tensor<4x?xi1>, tensor<4x?xi1>

static void testBinary(MlirContext ctx) {
  fprintf(stderr, "@testBinary\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("binary"));
  int64_t shape[] = {DYN, 8};
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF16, 2, shape, S("x"));
  MlirValue y = fuserBuilderAddInput(b, FuserDTypeF16, 2, (int64_t[]){3, DYN}, S("y"));
  MlirValue s = fuserBuilderAddInput(b, FuserDTypeF16, 0, NULL, S("s"));
  MlirValue i = fuserBuilderAddInput(b, FuserDTypeI8, 1, (int64_t[]){5}, S("i"));
  MlirValue j = fuserBuilderAddInput(b, FuserDTypeI8, 0, NULL, S("j"));
  MlirValue (*ops[])(FuserBuilder, MlirValue, MlirValue) = {
      fuserBuildAdd,     fuserBuildSub,     fuserBuildMul,
      fuserBuildPow,     fuserBuildMaximum, fuserBuildMinimum,
      fuserBuildRemainder, fuserBuildAtan2,   fuserBuildFmod};
  MlirValue v = x;
  for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); ++k)
    v = ops[k](b, v, k % 2 ? s : y); /* rank-0 operands mix with any shape */
  v = fuserBuildDiv(b, v, y, FuserRoundingNone);
  fuserBuilderAddOutput(b, v, S("v"));
  fuserBuilderAddOutput(b, fuserBuildDiv(b, i, j, FuserRoundingTrunc), S("q"));
  fuserBuilderAddOutput(b, fuserBuildDiv(b, j, i, FuserRoundingFloor), S("q2"));
  fuserBuilderAddOutput(b, fuserBuildAnd(b, i, j), S("and"));
  fuserBuilderAddOutput(b, fuserBuildOr(b, i, i), S("or"));
  fuserBuilderAddOutput(b, fuserBuildXor(b, j, i), S("xor"));
  MlirValue (*cmps[])(FuserBuilder, MlirValue, MlirValue) = {
      fuserBuildEq, fuserBuildNe, fuserBuildLt,
      fuserBuildLe, fuserBuildGt, fuserBuildGe};
  for (size_t k = 0; k < sizeof(cmps) / sizeof(cmps[0]); ++k)
    fuserBuilderAddOutput(b, cmps[k](b, x, y), S(""));
  finishAndPrint(b);
}
// CHECK-LABEL: @testBinary
// CHECK: func.func @binary(%[[X:.*]]: tensor<?x8xf16> {{.*}}, %[[Y:.*]]: tensor<3x?xf16> {{.*}}, %[[S:.*]]: tensor<f16> {{.*}}, %[[I:.*]]: tensor<5xi8> {{.*}}, %[[J:.*]]: tensor<i8> {{.*}})
// CHECK: %[[A:.*]] = fuser.add %[[X]], %[[Y]] : tensor<?x8xf16>, tensor<3x?xf16>
// CHECK-NEXT: %[[B:.*]] = fuser.sub %[[A]], %[[S]] : tensor<3x8xf16>, tensor<f16>
// CHECK-NEXT: fuser.mul %[[B]], %[[Y]] : tensor<3x8xf16>, tensor<3x?xf16>
// CHECK-NEXT: fuser.pow %{{.*}}, %[[S]] : tensor<3x8xf16>, tensor<f16>
// CHECK-NEXT: fuser.maximum
// CHECK-NEXT: fuser.minimum
// CHECK-NEXT: fuser.remainder
// CHECK-NEXT: fuser.atan2
// CHECK-NEXT: fuser.fmod %{{.*}}, %[[Y]] : tensor<3x8xf16>, tensor<3x?xf16>
// CHECK-NEXT: %[[D:.*]] = fuser.div %{{.*}}, %[[Y]] : tensor<3x8xf16>, tensor<3x?xf16>
// CHECK-NEXT: fuser.div %[[I]], %[[J]] rounding_mode = trunc : tensor<5xi8>, tensor<i8>
// CHECK-NEXT: fuser.div %[[J]], %[[I]] rounding_mode = floor : tensor<i8>, tensor<5xi8>
// CHECK-NEXT: fuser.and %[[I]], %[[J]] : tensor<5xi8>, tensor<i8>
// CHECK-NEXT: fuser.or %[[I]], %[[I]] : tensor<5xi8>
// CHECK-NEXT: fuser.xor %[[J]], %[[I]] : tensor<i8>, tensor<5xi8>
// CHECK-NEXT: fuser.eq %[[X]], %[[Y]] : tensor<?x8xf16>, tensor<3x?xf16>
// CHECK-NEXT: fuser.ne
// CHECK-NEXT: fuser.lt
// CHECK-NEXT: fuser.le
// CHECK-NEXT: fuser.gt
// CHECK-NEXT: fuser.ge
// CHECK-NEXT: return %[[D]], {{.*}} : tensor<3x8xf16>, tensor<5xi8>, tensor<5xi8>, tensor<5xi8>, tensor<5xi8>, tensor<5xi8>, tensor<3x8xi1>, tensor<3x8xi1>, tensor<3x8xi1>, tensor<3x8xi1>, tensor<3x8xi1>, tensor<3x8xi1>

static void testTernary(MlirContext ctx) {
  fprintf(stderr, "@testTernary\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("ternary"));
  int64_t shape[] = {8};
  MlirValue c = fuserBuilderAddInput(b, FuserDTypeI1, 1, shape, S("c"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF64, 1, shape, S("x"));
  MlirValue lo = fuserBuilderAddInput(b, FuserDTypeF64, 0, NULL, S("lo"));
  MlirValue hi = fuserBuilderAddInput(b, FuserDTypeF64, 0, NULL, S("hi"));
  MlirValue w = fuserBuildWhere(b, c, x, lo);
  MlirValue k = fuserBuildClamp(b, w, lo, hi);
  MlirValue l = fuserBuildLerp(b, k, x, hi);
  MlirValue f = fuserBuildFma(b, l, x, lo);
  fuserBuilderAddOutput(b, f, S("y"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testTernary
// CHECK: %[[W:.*]] = fuser.where %[[C:.*]], %[[X:.*]], %[[LO:.*]] : tensor<8xi1>, tensor<8xf64>, tensor<f64>
// CHECK-NEXT: %[[K:.*]] = fuser.clamp %[[W]], %[[LO]], %[[HI:.*]] : tensor<8xf64>, tensor<f64>, tensor<f64>
// CHECK-NEXT: %[[L:.*]] = fuser.lerp %[[K]], %[[X]], %[[HI]] : tensor<8xf64>, tensor<8xf64>, tensor<f64>
// CHECK-NEXT: %[[F:.*]] = fuser.fma %[[L]], %[[X]], %[[LO]] : tensor<8xf64>, tensor<8xf64>, tensor<f64>
// CHECK-NEXT: return %[[F]] : tensor<8xf64>

static void testCastConstantIota(MlirContext ctx) {
  fprintf(stderr, "@testCastConstantIota\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("constants"));
  int64_t shape[] = {4, DYN};
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeBF16, 2, shape, S("x"));
  fuserBuilderAddOutput(b, fuserBuildCast(b, x, FuserDTypeF32), S("c"));
  fuserBuilderAddOutput(b, fuserBuildConstantF64(b, FuserDTypeF32, 1e-5, 0, NULL), S(""));
  fuserBuilderAddOutput(b, fuserBuildConstantF64(b, FuserDTypeF16, -INFINITY, 2, shape), S(""));
  fuserBuilderAddOutput(b, fuserBuildConstantF64(b, FuserDTypeBF16, NAN, 0, NULL), S(""));
  fuserBuilderAddOutput(b, fuserBuildConstantF64(b, FuserDTypeI32, -7.0, 1, (int64_t[]){3}), S(""));
  fuserBuilderAddOutput(b, fuserBuildConstantI64(b, FuserDTypeI64, INT64_MIN, 0, NULL), S(""));
  fuserBuilderAddOutput(b, fuserBuildConstantI64(b, FuserDTypeI8, -128, 0, NULL), S(""));
  fuserBuilderAddOutput(b, fuserBuildConstantI64(b, FuserDTypeF64, 3, 0, NULL), S(""));
  fuserBuilderAddOutput(b, fuserBuildConstantBool(b, FuserDTypeI1, true, 1, (int64_t[]){DYN}), S(""));
  fuserBuilderAddOutput(b, fuserBuildConstantBool(b, FuserDTypeF32, true, 0, NULL), S(""));
  fuserBuilderAddOutput(b, fuserBuildIota(b, FuserDTypeI64, 2, (int64_t[]){4, 8}, -1), S("iota"));
  fuserBuilderAddOutput(b, fuserBuildIota(b, FuserDTypeF32, 2, shape, 0), S("iota0"));
  fuserBuilderAddOutput(b, fuserBuildSize(b, x, -1, FuserDTypeF32), S("n"));
  fuserBuilderAddOutput(b, fuserBuildSize(b, x, 0, FuserDTypeI64), S("rows"));
  /* fp8: a quantize, saturating and not, and its dequantize. */
  MlirValue q = fuserBuildCastSaturate(b, x, FuserDTypeF8E4M3FN);
  EXPECT(fuserBuilderGetValueDType(b, q) == FuserDTypeF8E4M3FN);
  fuserBuilderAddOutput(b, q, S("q"));
  fuserBuilderAddOutput(b, fuserBuildCast(b, x, FuserDTypeF8E5M2), S("q5"));
  fuserBuilderAddOutput(b, fuserBuildCast(b, q, FuserDTypeF32), S("dq"));
  /* bits: the exponent field of x as f32 bits, and back */
  MlirValue bits = fuserBuildBitcast(b, fuserBuildCast(b, x, FuserDTypeF32), FuserDTypeI32);
  MlirValue e = fuserBuildShr(b, bits, fuserBuildConstantI64(b, FuserDTypeI32, 23, 0, NULL));
  MlirValue back = fuserBuildShl(b, e, fuserBuildConstantI64(b, FuserDTypeI32, 23, 0, NULL));
  fuserBuilderAddOutput(b, fuserBuildBitcast(b, back, FuserDTypeF32), S("pow2"));
  /* fp8 scaling: per-row current scaling, MX blocks, delayed scaling. */
  MlirValue rowScale, rowAmax, mxScale;
  MlirValue qr = fuserBuildQuantize(b, x, FuserDTypeF8E4M3FN, FuserQuantPerRow, 0, FuserDTypeF32,
                                    &rowScale, &rowAmax);
  EXPECT(fuserBuilderGetValueDType(b, rowScale) == FuserDTypeF32);
  fuserBuilderAddOutput(b, qr, S("qr"));
  fuserBuilderAddOutput(b, rowScale, S("qr_scale"));
  fuserBuilderAddOutput(b, rowAmax, S("qr_amax"));
  MlirValue fixedRows = fuserBuildCast(
      b, fuserBuilderAddInput(b, FuserDTypeF32, 2, (int64_t[]){4, 64}, S("y")), FuserDTypeBF16);
  MlirValue mx = fuserBuildQuantize(b, fixedRows, FuserDTypeF8E5M2, FuserQuantPerBlock, 32,
                                    FuserDTypeF8E8M0FNU, &mxScale, NULL);
  EXPECT(fuserBuilderGetValueDType(b, mxScale) == FuserDTypeF8E8M0FNU);
  fuserBuilderAddOutput(b, mx, S("mx"));
  fuserBuilderAddOutput(b, mxScale, S("mx_scale"));
  MlirValue delayedAmax;
  MlirValue scale = fuserBuildConstantF64(b, FuserDTypeF32, 4.0, 0, NULL);
  fuserBuilderAddOutput(b, fuserBuildScaledCast(b, x, scale, FuserDTypeF8E4M3FN, &delayedAmax),
                        S("ds"));
  fuserBuilderAddOutput(b, delayedAmax, S("ds_amax"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testCastConstantIota
// CHECK: fuser.cast %{{.*}} : tensor<4x?xbf16> to tensor<4x?xf32>
// CHECK-NEXT: fuser.constant 9.99999974E-6 : tensor<f32>
// CHECK-NEXT: fuser.constant -inf : tensor<4x?xf16>
// CHECK-NEXT: fuser.constant nan : tensor<bf16>
// CHECK-NEXT: fuser.constant -7 : tensor<3xi32>
// CHECK-NEXT: fuser.constant -9223372036854775808 : tensor<i64>
// CHECK-NEXT: fuser.constant -128 : tensor<i8>
// CHECK-NEXT: fuser.constant 3.000000e+00 : tensor<f64>
// CHECK-NEXT: fuser.constant true : tensor<?xi1>
// CHECK-NEXT: fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: fuser.iota dim = 1 : tensor<4x8xi64>
// CHECK-NEXT: fuser.iota dim = 0 : tensor<4x?xf32>
// CHECK-NEXT: fuser.size %{{.*}} dim = 1 : tensor<4x?xbf16> -> tensor<f32>
// CHECK-NEXT: fuser.size %{{.*}} dim = 0 : tensor<4x?xbf16> -> tensor<i64>
// CHECK-NEXT: %[[Q:.*]] = fuser.cast %{{.*}} saturate : tensor<4x?xbf16> to tensor<4x?xf8E4M3FN>
// CHECK-NEXT: fuser.cast %{{.*}} : tensor<4x?xbf16> to tensor<4x?xf8E5M2>
// CHECK-NEXT: fuser.cast %[[Q]] : tensor<4x?xf8E4M3FN> to tensor<4x?xf32>
// CHECK: fuser.bitcast %{{.*}} : tensor<4x?xf32> to tensor<4x?xi32>
// CHECK: fuser.shr %{{.*}}, %{{.*}} : tensor<4x?xi32>, tensor<i32>
// CHECK: fuser.shl %{{.*}}, %{{.*}} : tensor<4x?xi32>, tensor<i32>
// CHECK: fuser.bitcast %{{.*}} : tensor<4x?xi32> to tensor<4x?xf32>
// CHECK: fuser.quantize %{{.*}} row : tensor<4x?xbf16> -> (tensor<4x?xf8E4M3FN>, tensor<4x1xf32>, tensor<4x1xf32>)
// CHECK: fuser.quantize %{{.*}} block 32 : tensor<4x64xbf16> -> (tensor<4x64xf8E5M2>, tensor<4x2xf8E8M0FNU>, tensor<4x2xf32>)
// CHECK: fuser.scaled_cast %{{.*}}, %{{.*}} : (tensor<4x?xbf16>, tensor<f32>) -> (tensor<4x?xf8E4M3FN>, tensor<f32>)

static void testBroadcastAndReductions(MlirContext ctx) {
  fprintf(stderr, "@testBroadcastAndReductions\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("reductions"));
  MlirValue bias = fuserBuilderAddInput(b, FuserDTypeF32, 1, (int64_t[]){16}, S("bias"));
  MlirValue col = fuserBuilderAddInput(b, FuserDTypeF32, 2, (int64_t[]){DYN, 1}, S("col"));
  MlirValue m = fuserBuilderAddInput(b, FuserDTypeI32, 3, (int64_t[]){2, 3, 4}, S("m"));
  fuserBuilderAddOutput(b, fuserBuildBroadcast(b, bias, 2, (int64_t[]){DYN, 16}, (int64_t[]){-1}, 1), S(""));
  fuserBuilderAddOutput(b, fuserBuildBroadcast(b, col, 2, (int64_t[]){DYN, 16}, (int64_t[]){0, 1}, 2), S(""));
  int64_t last[] = {-1}, two[] = {0, 2};
  fuserBuilderAddOutput(b, fuserBuildSum(b, m, last, 1, false), S(""));
  fuserBuilderAddOutput(b, fuserBuildProd(b, m, two, 2, true), S(""));
  fuserBuilderAddOutput(b, fuserBuildMax(b, m, (int64_t[]){1, 0, 2}, 3, false), S(""));
  fuserBuilderAddOutput(b, fuserBuildMin(b, col, (int64_t[]){0}, 1, false), S(""));
  fuserBuilderAddOutput(b, fuserBuildMean(b, col, (int64_t[]){-2, -1}, 2, true), S(""));
  fuserBuilderAddOutput(b, fuserBuildAny(b, m, last, 1, false), S(""));
  fuserBuilderAddOutput(b, fuserBuildAll(b, m, two, 2, false), S(""));
  MlirValue var, mean;
  EXPECT(fuserBuildVarMean(b, col, (int64_t[]){0}, 1, 0, true, &var, &mean));
  fuserBuilderAddOutput(b, var, S("var"));
  fuserBuilderAddOutput(b, mean, S("mean"));
  EXPECT(fuserBuildVarMean(b, col, (int64_t[]){1}, 1, 1, false, NULL, &mean));
  fuserBuilderAddOutput(b, mean, S("mean1"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testBroadcastAndReductions
// CHECK: fuser.broadcast %{{.*}} dims = [1] : tensor<16xf32> -> tensor<?x16xf32>
// CHECK-NEXT: fuser.broadcast %{{.*}} dims = [0, 1] : tensor<?x1xf32> -> tensor<?x16xf32>
// CHECK-NEXT: fuser.sum %{{.*}} dims = [2] : tensor<2x3x4xi32> -> tensor<2x3xi32>
// CHECK-NEXT: fuser.prod %{{.*}} dims = [0, 2] keepdim = true : tensor<2x3x4xi32> -> tensor<1x3x1xi32>
// CHECK-NEXT: fuser.max %{{.*}} dims = [1, 0, 2] : tensor<2x3x4xi32> -> tensor<i32>
// CHECK-NEXT: fuser.min %{{.*}} dims = [0] : tensor<?x1xf32> -> tensor<1xf32>
// CHECK-NEXT: fuser.mean %{{.*}} dims = [0, 1] keepdim = true : tensor<?x1xf32> -> tensor<1x1xf32>
// CHECK-NEXT: fuser.any %{{.*}} dims = [2] : tensor<2x3x4xi32> -> tensor<2x3xi1>
// CHECK-NEXT: fuser.all %{{.*}} dims = [0, 2] : tensor<2x3x4xi32> -> tensor<3xi1>
// CHECK-NEXT: fuser.var_mean %{{.*}} dims = [0] correction = 0 keepdim = true : tensor<?x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
// CHECK-NEXT: fuser.var_mean %{{.*}} dims = [1] : tensor<?x1xf32> -> tensor<?xf32>, tensor<?xf32>

static void testShapeOps(MlirContext ctx) {
  fprintf(stderr, "@testShapeOps\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("shapes"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeI64, 2, (int64_t[]){8, 16}, S("x"));
  MlirValue d = fuserBuilderAddInput(b, FuserDTypeF32, 2, (int64_t[]){DYN, 6}, S("d"));
  MlirValue z = fuserBuilderAddInput(b, FuserDTypeI64, 0, NULL, S("zero"));
  fuserBuilderAddOutput(b, fuserBuildReshape(b, x, 3, (int64_t[]){2, 4, 16}), S(""));
  fuserBuilderAddOutput(b, fuserBuildReshape(b, d, 1, (int64_t[]){DYN}), S(""));
  fuserBuilderAddOutput(b, fuserBuildPermute(b, x, (int64_t[]){-1, 0}, 2), S(""));
  fuserBuilderAddOutput(b, fuserBuildSlice(b, x, 2, (int64_t[]){0, 1}, (int64_t[]){4, -1},
                                           (int64_t[]){1, 2}), S(""));
  fuserBuilderAddOutput(b, fuserBuildSlice(b, d, 2, (int64_t[]){1, -3}, (int64_t[]){2, 6},
                                           NULL), S(""));
  fuserBuilderAddOutput(b, fuserBuildPad(b, x, z, 2, (int64_t[]){0, 1}, (int64_t[]){2, 0}), S(""));
  MlirValue parts[] = {x, x, x};
  fuserBuilderAddOutput(b, fuserBuildConcat(b, parts, 3, -1), S(""));
  MlirValue dparts[] = {d, d};
  fuserBuilderAddOutput(b, fuserBuildConcat(b, dparts, 2, 0), S(""));
  MlirValue gi = fuserBuilderAddInput(b, FuserDTypeI64, 2, (int64_t[]){8, 3}, S("gi"));
  MlirValue ids = fuserBuilderAddInput(b, FuserDTypeI32, 1, (int64_t[]){DYN}, S("ids"));
  fuserBuilderAddOutput(b, fuserBuildGather(b, x, -1, gi), S(""));
  fuserBuilderAddOutput(b, fuserBuildIndexSelect(b, d, 0, ids), S(""));
  fuserBuilderAddOutput(b, fuserBuildCumsum(b, d, -1), S(""));
  fuserBuilderAddOutput(b, fuserBuildCumprod(b, x, 0), S(""));
  MlirValue cv, ci;
  if (fuserBuildCummax(b, d, -1, &cv, &ci)) {
    fuserBuilderAddOutput(b, cv, S(""));
    fuserBuilderAddOutput(b, ci, S(""));
  }
  if (fuserBuildCummin(b, x, 0, NULL, &ci))
    fuserBuilderAddOutput(b, ci, S(""));
  MlirValue src = fuserBuilderAddInput(b, FuserDTypeI64, 2, (int64_t[]){8, 5}, S("src"));
  fuserBuilderAddOutput(b, fuserBuildScatterAdd(b, x, -1, gi, src), S(""));
  MlirValue rows = fuserBuilderAddInput(b, FuserDTypeF32, 2, (int64_t[]){DYN, 6}, S("rows"));
  fuserBuilderAddOutput(b, fuserBuildIndexAdd(b, d, 0, ids, rows), S(""));
  finishAndPrint(b);
}
// CHECK-LABEL: @testShapeOps
// CHECK: fuser.reshape %{{.*}} : tensor<8x16xi64> -> tensor<2x4x16xi64>
// CHECK-NEXT: fuser.reshape %{{.*}} : tensor<?x6xf32> -> tensor<?xf32>
// CHECK-NEXT: fuser.permute %{{.*}} perm = [1, 0] : tensor<8x16xi64> -> tensor<16x8xi64>
// CHECK-NEXT: fuser.slice %{{.*}} start = [0, 1] limit = [4, 15] step = [1, 2] : tensor<8x16xi64> -> tensor<4x7xi64>
// CHECK-NEXT: fuser.slice %{{.*}} start = [1, 3] limit = [2, 6] step = [1, 1] : tensor<?x6xf32> -> tensor<1x3xf32>
// CHECK-NEXT: fuser.pad %{{.*}}, %{{.*}} low = [0, 1] high = [2, 0] : tensor<8x16xi64>, tensor<i64> -> tensor<10x17xi64>
// CHECK-NEXT: fuser.concat %{{.*}}, %{{.*}}, %{{.*}} dim = 1 : tensor<8x16xi64>, tensor<8x16xi64>, tensor<8x16xi64> -> tensor<8x48xi64>
// CHECK-NEXT: fuser.concat %{{.*}}, %{{.*}} dim = 0 : tensor<?x6xf32>, tensor<?x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: fuser.gather %{{.*}}, %{{.*}} dim = 1 : tensor<8x16xi64>, tensor<8x3xi64> -> tensor<8x3xi64>
// CHECK-NEXT: fuser.index_select %{{.*}}, %{{.*}} dim = 0 : tensor<?x6xf32>, tensor<?xi32> -> tensor<?x6xf32>
// CHECK-NEXT: fuser.cumsum %{{.*}} dim = 1 : tensor<?x6xf32>
// CHECK-NEXT: fuser.cumprod %{{.*}} dim = 0 : tensor<8x16xi64>
// CHECK-NEXT: fuser.cummax %{{.*}} dim = 1 : tensor<?x6xf32> -> tensor<?x6xi64>
// CHECK-NEXT: fuser.cummin %{{.*}} dim = 0 : tensor<8x16xi64> -> tensor<8x16xi64>
// CHECK-NEXT: fuser.scatter_add %{{.*}}, %{{.*}}, %{{.*}} dim = 1 : tensor<8x16xi64>, tensor<8x3xi64>, tensor<8x5xi64>
// CHECK-NEXT: fuser.index_add %{{.*}}, %{{.*}}, %{{.*}} dim = 0 : tensor<?x6xf32>, tensor<?xi32>, tensor<?x6xf32>

/* A reshape whose sizes the caller states (x.view(B * T, C) of [?, ?, ?]),
 * and a map that is not one. */
static void testReshapeSized(MlirContext ctx) {
  fprintf(stderr, "@testReshapeSized\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("sized"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 3, (int64_t[]){DYN, DYN, DYN}, S("x"));
  fuserBuilderAddOutput(b, fuserBuildReshapeSized(b, x, 2, (int64_t[]){DYN, DYN},
                                                  "()[s0, s1, s2] -> (s0 * s1, s2)"),
                        S(""));
  finishAndPrint(b);
  FuserBuilder e = fuserBuilderCreate(ctx, S("unsized"));
  x = fuserBuilderAddInput(e, FuserDTypeF32, 3, (int64_t[]){DYN, DYN, DYN}, S("x"));
  EXPECT(mlirValueIsNull(fuserBuildReshapeSized(e, x, 2, (int64_t[]){DYN, DYN}, "(d0) -> (d0)")));
  MlirStringRef why = fuserBuilderGetError(e);
  fprintf(stderr, "error: %.*s\n", (int)why.length, why.data);
  fuserBuilderDestroy(e);
  FuserBuilder n = fuserBuilderCreate(ctx, S("no_sizes"));
  x = fuserBuilderAddInput(n, FuserDTypeF32, 3, (int64_t[]){DYN, DYN, DYN}, S("x"));
  EXPECT(mlirValueIsNull(fuserBuildReshapeSized(n, x, 2, (int64_t[]){DYN, DYN}, NULL)));
  why = fuserBuilderGetError(n);
  fprintf(stderr, "error: %.*s\n", (int)why.length, why.data);
  fuserBuilderDestroy(n);
}
// CHECK-LABEL: @testReshapeSized
// CHECK: fuser.reshape %{{.*}} {fuser.sizes = #map} : tensor<?x?x?xf32> -> tensor<?x?xf32>
// CHECK: error: {{.*}}fuserBuildReshapeSized: sizes '(d0) -> (d0)' is not an affine map of no dims and 2 results over the fusion's dynamic input dims, as '()[s0, s1] -> (s0 * s1)'
// CHECK: error: {{.*}}fuserBuildReshapeSized: sizes is null

static void testMatmul(MlirContext ctx) {
  fprintf(stderr, "@testMatmul\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("matmul"));
  MlirValue a = fuserBuilderAddInput(b, FuserDTypeBF16, 3, (int64_t[]){DYN, 8, 64}, S("a"));
  MlirValue m = fuserBuilderAddInput(b, FuserDTypeBF16, 2, (int64_t[]){64, 16}, S("m"));
  MlirValue v = fuserBuilderAddInput(b, FuserDTypeBF16, 1, (int64_t[]){64}, S("v"));
  MlirValue w = fuserBuilderAddInput(b, FuserDTypeBF16, 2, (int64_t[]){32, 64}, S("w"));
  MlirValue bias = fuserBuilderAddInput(b, FuserDTypeBF16, 1, (int64_t[]){32}, S("bias"));
  fuserBuilderAddOutput(b, fuserBuildMatmul(b, a, m), S(""));
  fuserBuilderAddOutput(b, fuserBuildMatmul(b, a, v), S(""));
  fuserBuilderAddOutput(b, fuserBuildMatmul(b, v, v), S(""));
  fuserBuilderAddOutput(b, fuserBuildLinear(b, a, w, bias), S(""));
  fuserBuilderAddOutput(b, fuserBuildLinear(b, v, w, NONE), S(""));
  finishAndPrint(b);
}
// CHECK-LABEL: @testMatmul
// CHECK: fuser.matmul %{{.*}}, %{{.*}} : (tensor<?x8x64xbf16>, tensor<64x16xbf16>) -> tensor<?x8x16xbf16>
// CHECK-NEXT: fuser.matmul %{{.*}}, %{{.*}} : (tensor<?x8x64xbf16>, tensor<64xbf16>) -> tensor<?x8xbf16>
// CHECK-NEXT: fuser.matmul %{{.*}}, %{{.*}} : (tensor<64xbf16>, tensor<64xbf16>) -> tensor<bf16>
// CHECK-NEXT: fuser.linear %{{.*}}, %{{.*}} bias %{{.*}} : (tensor<?x8x64xbf16>, tensor<32x64xbf16>, tensor<32xbf16>) -> tensor<?x8x32xbf16>
// CHECK-NEXT: fuser.linear %{{.*}}, %{{.*}} : (tensor<64xbf16>, tensor<32x64xbf16>) -> tensor<32xbf16>

static void testCollective(MlirContext ctx) {
  fprintf(stderr, "@testCollective\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("collective"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 2, (int64_t[]){4, DYN}, S("x"));
  const int64_t axes[] = {0};
  MlirValue sum = fuserBuildCollective(b, "all_reduce", x, "sum", axes, 1, 2);
  MlirValue all = fuserBuildCollective(b, "all_gather", sum, NULL, axes, 1, 2);
  MlirValue part = fuserBuildCollective(b, "slice", all, NULL, axes, 1, 2);
  fuserBuilderAddOutput(b, part, S("y"));
  fuserBuilderAddOutput(b, fuserBuildCollective(b, "reduce_scatter", all, "max", axes, 1, 2), S(""));
  finishAndPrint(b);

  b = fuserBuilderCreate(ctx, S("bad_collective"));
  x = fuserBuilderAddInput(b, FuserDTypeI32, 1, (int64_t[]){4}, S("x"));
  EXPECT(mlirValueIsNull(fuserBuildCollective(b, "all_reduce", x, "avg", axes, 1, 2)));
  MlirStringRef err = fuserBuilderGetError(b);
  fprintf(stderr, "error: %.*s\n", (int)err.length, err.data);
  fuserBuilderClearError(b);
  EXPECT(mlirValueIsNull(fuserBuildCollective(b, "slice", fuserBuildSum(b, x, (int64_t[]){0}, 1, false),
                                              NULL, axes, 1, 2)));
  err = fuserBuilderGetError(b);
  fprintf(stderr, "error: %.*s\n", (int)err.length, err.data);
  fuserBuilderDestroy(b);
}
// CHECK-LABEL: @testCollective
// CHECK: %[[S:.*]] = fuser.collective "all_reduce" %{{.*}} reduction = "sum" grid_axes = [0] group_size = 2 : tensor<4x?xf32> -> tensor<4x?xf32>
// CHECK-NEXT: %[[A:.*]] = fuser.collective "all_gather" %[[S]] grid_axes = [0] group_size = 2 : tensor<4x?xf32> -> tensor<2x4x?xf32>
// CHECK-NEXT: fuser.collective "slice" %[[A]] grid_axes = [0] group_size = 2 : tensor<2x4x?xf32> -> tensor<4x?xf32>
// CHECK-NEXT: fuser.collective "reduce_scatter" %[[A]] reduction = "max"
// CHECK: error: {{.*}}reduction 'avg' needs a float type, got 'i32'
// CHECK: error: {{.*}}fuserBuildCollective: 'slice' takes an input [groupSize, ...], got a rank-0 tensor

static void testComposites(MlirContext ctx) {
  fprintf(stderr, "@testComposites\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("composites"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeBF16, 3, (int64_t[]){DYN, 4, 64}, S("x"));
  MlirValue w = fuserBuilderAddInput(b, FuserDTypeBF16, 1, (int64_t[]){64}, S("w"));
  MlirValue bias = fuserBuilderAddInput(b, FuserDTypeBF16, 1, (int64_t[]){64}, S("b"));
  MlirValue w2 = fuserBuilderAddInput(b, FuserDTypeBF16, 2, (int64_t[]){4, 64}, S("w2"));
  fuserBuilderAddOutput(b, fuserBuildSoftmax(b, x, -1), S("softmax"));
  fuserBuilderAddOutput(b, fuserBuildLogSoftmax(b, x, 1), S("log_softmax"));
  MlirValue mean, rstd;
  MlirValue y = fuserBuildLayerNorm(b, x, w, bias, (int64_t[]){-1}, 1, 1e-5, &mean, &rstd);
  fuserBuilderAddOutput(b, y, S("ln"));
  fuserBuilderAddOutput(b, mean, S("ln_mean"));
  fuserBuilderAddOutput(b, rstd, S("ln_rstd"));
  fuserBuilderAddOutput(b, fuserBuildLayerNorm(b, x, NONE, NONE, (int64_t[]){1, 2}, 2, 1e-6,
                                               NULL, NULL), S("ln_plain"));
  fuserBuilderAddOutput(b, fuserBuildLayerNorm(b, x, w2, NONE, (int64_t[]){1, 2}, 2, 1e-6,
                                               NULL, &rstd), S("ln_weight"));
  fuserBuilderAddOutput(b, rstd, S("ln_weight_rstd"));
  fuserBuilderAddOutput(b, fuserBuildRmsNorm(b, x, w, (int64_t[]){2}, 1, 1e-6), S("rms"));
  fuserBuilderAddOutput(b, fuserBuildRmsNorm(b, x, NONE, (int64_t[]){-2, -1}, 2, 1e-6), S("rms2"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testComposites
// CHECK: fuser.softmax %{{.*}} dim = 2 : tensor<?x4x64xbf16>
// CHECK-NEXT: fuser.log_softmax %{{.*}} dim = 1 : tensor<?x4x64xbf16>
// CHECK-NEXT: fuser.layer_norm %{{.*}} weight %{{.*}} bias %{{.*}} dims = [2] eps = 1.000000e-05 : (tensor<?x4x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> (tensor<?x4x64xbf16>, tensor<?x4x1xf32>, tensor<?x4x1xf32>)
// CHECK-NEXT: fuser.layer_norm %{{[^ ]*}} dims = [1, 2] eps = 9.9999999999999995E-7 : (tensor<?x4x64xbf16>) -> (tensor<?x4x64xbf16>, tensor<?x1x1xf32>, tensor<?x1x1xf32>)
// CHECK-NEXT: fuser.layer_norm %{{.*}} weight %{{[^ ]*}} dims = [1, 2] eps = 9.9999999999999995E-7 : (tensor<?x4x64xbf16>, tensor<4x64xbf16>) -> (tensor<?x4x64xbf16>, tensor<?x1x1xf32>, tensor<?x1x1xf32>)
// CHECK-NEXT: fuser.rms_norm %{{.*}} weight %{{.*}} dims = [2] eps = 9.9999999999999995E-7 : (tensor<?x4x64xbf16>, tensor<64xbf16>) -> tensor<?x4x64xbf16>
// CHECK-NEXT: fuser.rms_norm %{{[^ ]*}} dims = [1, 2] eps = 9.9999999999999995E-7 : (tensor<?x4x64xbf16>) -> tensor<?x4x64xbf16>

static void testRandom(MlirContext ctx) {
  fprintf(stderr, "@testRandom\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("random"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeBF16, 2, (int64_t[]){DYN, 64}, S("x"));
  MlirValue p = fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("p"));
  MlirValue seed = fuserBuilderAddInput(b, FuserDTypeI64, 0, NULL, S("seed"));
  MlirValue offset = fuserBuilderAddInput(b, FuserDTypeI64, 0, NULL, S("offset"));
  MlirValue u = fuserBuildRand(b, seed, offset, FuserDTypeF32, 2, (int64_t[]){DYN, 64}, x);
  fuserBuilderAddOutput(b, u, S("u"));
  fuserBuilderAddOutput(b, fuserBuildRandn(b, seed, offset, FuserDTypeF64, 1, (int64_t[]){8}, NONE),
                        S("z"));
  fuserBuilderAddOutput(b, fuserBuildRand(b, seed, offset, FuserDTypeI32, 1, (int64_t[]){8}, NONE),
                        S("bits"));
  fuserBuilderAddOutput(b, fuserBuildBernoulli(b, u, seed, offset), S("b"));
  MlirValue mask;
  fuserBuilderAddOutput(b, fuserBuildDropout(b, x, p, seed, offset, &mask), S("y"));
  fuserBuilderAddOutput(b, mask, S("mask"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testRandom
// CHECK: %[[U:.*]] = fuser.rand %arg2, %arg3 like %arg0 : tensor<?x64xbf16> : tensor<?x64xf32>
// CHECK-NEXT: fuser.randn %arg2, %arg3 : tensor<8xf64>
// CHECK-NEXT: fuser.rand %arg2, %arg3 : tensor<8xi32>
// CHECK-NEXT: fuser.bernoulli %[[U]], %arg2, %arg3 : tensor<?x64xf32>
// CHECK-NEXT: fuser.dropout %arg0, %arg1, %arg2, %arg3 : tensor<?x64xbf16>, tensor<f32> -> tensor<?x64xbf16>, tensor<?x64xi1>

/* A rank-0 tensor's dim 0 or -1, or no dims, as PyTorch reads a scalar's:
 * torch.sum(s), s.cumsum(-1), torch.softmax(s, 0). */
static void testScalarAlongDims(MlirContext ctx) {
  fprintf(stderr, "@testScalarAlongDims\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("scalar"));
  MlirValue s = fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("s"));
  fuserBuilderAddOutput(b, fuserBuildSum(b, s, NULL, 0, false), S(""));
  fuserBuilderAddOutput(b, fuserBuildMax(b, s, (int64_t[]){-1}, 1, true), S(""));
  MlirValue var, mean;
  if (fuserBuildVarMean(b, s, (int64_t[]){0}, 1, 1, false, &var, &mean)) {
    fuserBuilderAddOutput(b, var, S(""));
    fuserBuilderAddOutput(b, mean, S(""));
  }
  fuserBuilderAddOutput(b, fuserBuildCumsum(b, s, -1), S(""));
  MlirValue cv, ci;
  if (fuserBuildCummax(b, s, 0, &cv, &ci))
    fuserBuilderAddOutput(b, ci, S(""));
  fuserBuilderAddOutput(b, fuserBuildSoftmax(b, s, -1), S(""));
  fuserBuilderAddOutput(b, fuserBuildLogSoftmax(b, s, 0), S(""));
  finishAndPrint(b);
}
// CHECK-LABEL: @testScalarAlongDims
// CHECK: fuser.sum %arg0 dims = [0] : tensor<f32> -> tensor<f32>
// CHECK-NEXT: fuser.max %arg0 dims = [0] keepdim = true : tensor<f32> -> tensor<f32>
// CHECK-NEXT: fuser.var_mean %arg0 dims = [0] : tensor<f32> -> tensor<f32>, tensor<f32>
// CHECK-NEXT: fuser.cumsum %arg0 dim = 0 : tensor<f32>
// CHECK-NEXT: fuser.cummax %arg0 dim = 0 : tensor<f32> -> tensor<i64>
// CHECK-NEXT: fuser.softmax %arg0 dim = 0 : tensor<f32>
// CHECK-NEXT: fuser.log_softmax %arg0 dim = 0 : tensor<f32>

static void testFinishIntoModule(MlirContext ctx) {
  fprintf(stderr, "@testFinishIntoModule\n");
  MlirModule module = mlirModuleCreateEmpty(mlirLocationUnknownGet(ctx));
  const char *names[] = {"first", "second"};
  for (int k = 0; k < 2; ++k) {
    FuserBuilder b = fuserBuilderCreate(ctx, S(names[k]));
    MlirLocation loc = mlirLocationFileLineColGet(ctx, S("model.py"), 10 + k, 3);
    EXPECT(mlirLogicalResultIsSuccess(fuserBuilderSetLocation(b, loc)));
    MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 1, (int64_t[]){4}, S("x"));
    fuserBuilderAddOutput(b, fuserBuildTanh(b, x), S("y"));
    EXPECT(mlirLogicalResultIsSuccess(fuserBuilderSetLocation(b, (MlirLocation){NULL})));
    fuserBuilderAddOutput(b, fuserBuildExp(b, x), S("z"));
    EXPECT(mlirLogicalResultIsSuccess(fuserBuilderFinish(b, module)));
    expectNoError(b);
    fuserBuilderDestroy(b);
  }
  MlirOperation op = mlirModuleGetOperation(module);
  EXPECT(mlirOperationVerify(op));
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
  mlirOperationPrintWithFlags(op, flags, printToStderr, NULL);
  mlirOpPrintingFlagsDestroy(flags);
  fprintf(stderr, "\n");
  mlirModuleDestroy(module);
}
// CHECK-LABEL: @testFinishIntoModule
// CHECK-DAG: #[[L10:.*]] = loc("model.py":10:3)
// CHECK-DAG: #[[L11:.*]] = loc("model.py":11:3)
// CHECK: func.func @first(%arg0: tensor<4xf32> {fuser.name = "x"} loc("model.py":10:3))
// CHECK-NEXT: fuser.tanh %arg0 : tensor<4xf32> loc(#[[L10]])
// CHECK-NEXT: fuser.exp %arg0 : tensor<4xf32> loc(#[[N1:.*]])
// CHECK: func.func @second(%arg0: tensor<4xf32> {fuser.name = "x"} loc("model.py":11:3))
// CHECK-NEXT: fuser.tanh %arg0 : tensor<4xf32> loc(#[[L11]])
// CHECK-NEXT: fuser.exp %arg0 : tensor<4xf32> loc(#[[N2:.*]])
// CHECK-DAG: #[[N1]] = loc("first")
// CHECK-DAG: #[[N2]] = loc("second")

/* Every op that FuserOps.td defines (`def Fuser_XOp : ...<"mnemonic"`) was
 * built by the tests above: a new op without a builder function fails here. */
static void testEveryOpBuilt(const char *opsTd) {
  fprintf(stderr, "@testEveryOpBuilt\n");
  FILE *f = fopen(opsTd, "r");
  EXPECT(f != NULL);
  if (!f)
    return;
  char line[512];
  int ops = 0, missing = 0;
  while (fgets(line, sizeof line, f)) {
    const char *open = strstr(line, "<\"");
    if (strncmp(line, "def Fuser_", 10) != 0 || !open)
      continue;
    char name[64];
    const char *end = strchr(open + 2, '"');
    size_t n = end ? (size_t)(end - open - 2) : 0;
    if (!n || n >= sizeof name - 8)
      continue;
    snprintf(name, sizeof name, "fuser.%.*s ", (int)n, open + 2);
    ++ops;
    if (!printed || !strstr(printed, name)) {
      fprintf(stderr, "not built by any test: %s\n", name);
      ++missing;
    }
  }
  fclose(f);
  fprintf(stderr, "%d ops in FuserOps.td, %d not built\n", ops, missing);
  EXPECT(ops > 60 && missing == 0);
}

int main(int argc, char **argv) {
  MlirContext ctx = fuserContextCreate();
  testInputsOutputs(ctx);
  testStridedInputs(ctx);
  testUnary(ctx);
  testBinary(ctx);
  testTernary(ctx);
  testCastConstantIota(ctx);
  testBroadcastAndReductions(ctx);
  testShapeOps(ctx);
  testReshapeSized(ctx);
  testMatmul(ctx);
  testCollective(ctx);
  testComposites(ctx);
  testRandom(ctx);
  testScalarAlongDims(ctx);
  testFinishIntoModule(ctx);
  mlirContextDestroy(ctx);
  if (argc > 1)
    testEveryOpBuilt(argv[1]);
  free(printed);
  fprintf(stderr, "@done: %d failures\n", failures);
  return failures ? 1 : 0;
}
// CHECK-LABEL: @testEveryOpBuilt
// CHECK-NOT: not built
// CHECK: ops in FuserOps.td, 0 not built
// CHECK-LABEL: @done: 0 failures
