/*===- torch.c - the PyTorch promotion and broadcasting layer ------------===*\
|*                                                                            *|
|* torch.result_type over every pair of dtypes and every kind of operand      *|
|* (ranked tensors, rank-0 tensors, wrapped numbers), torch.broadcast_shapes, *|
|* and the IR the fuserTorch* functions build: casts, broadcasts, wrapped     *|
|* numbers as constants, the op-specific rules, and their errors.             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* RUN: capi-torch 2>&1 | FileCheck %s
 */

#include "fuser-c/Builder.h"
#include "fuser-c/Dialects.h"
#include "capi_test.h"

#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DYN FUSER_DYNAMIC
#define S(str) mlirStringRefCreateFromCString(str)
#define NONE ((MlirValue){NULL})
#define SHAPE(...) (sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}

static void printToStderr(MlirStringRef s, void *userData) {
  (void)userData;
  fwrite(s.data, 1, s.length, stderr);
}

static void printError(FuserBuilder b) {
  MlirStringRef e = fuserBuilderGetError(b);
  fprintf(stderr, "error: %.*s\n", (int)e.length, e.data);
  fuserBuilderClearError(b);
}

#define EXPECT_FAIL(b, v)                                                      \
  do {                                                                         \
    EXPECT(mlirValueIsNull(v));                                                \
    printError(b);                                                             \
  } while (0)

static void finishAndPrint(FuserBuilder b) {
  if (fuserBuilderHasError(b)) {
    printError(b);
    ++failures;
  }
  MlirModule m = fuserBuilderFinishNewModule(b);
  EXPECT(!mlirModuleIsNull(m));
  if (!mlirModuleIsNull(m)) {
    EXPECT(mlirOperationVerify(mlirModuleGetOperation(m)));
    mlirOperationPrint(mlirModuleGetOperation(m), printToStderr, NULL);
    fprintf(stderr, "\n");
    mlirModuleDestroy(m);
  }
  fuserBuilderDestroy(b);
}

/*===----------------------------------------------------------------------===*/

static const FuserDType kAll[] = {FuserDTypeI1,  FuserDTypeI8,   FuserDTypeI32,
                                  FuserDTypeI64, FuserDTypeF16,  FuserDTypeBF16,
                                  FuserDTypeF32, FuserDTypeF64};
enum { kNum = sizeof(kAll) / sizeof(kAll[0]) };

/* torch.promote_types over every pair, as a table of ranked tensors. */
static void testPromoteTypes(MlirContext ctx) {
  fprintf(stderr, "@testPromoteTypes\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue t[kNum];
  for (int i = 0; i < kNum; ++i)
    t[i] = fuserBuilderAddInput(b, kAll[i], SHAPE(2), S(""));
  fprintf(stderr, "     ");
  for (int j = 0; j < kNum; ++j)
    fprintf(stderr, " %4s", fuserDTypeGetName(kAll[j]));
  fprintf(stderr, "\n");
  for (int i = 0; i < kNum; ++i) {
    fprintf(stderr, "%4s:", fuserDTypeGetName(kAll[i]));
    for (int j = 0; j < kNum; ++j) {
      MlirValue pair[2] = {t[i], t[j]};
      fprintf(stderr, " %4s", fuserDTypeGetName(fuserTorchResultType(b, pair, 2)));
    }
    fprintf(stderr, "\n");
  }
  fuserBuilderDestroy(b);
}
// CHECK-LABEL: @testPromoteTypes
// CHECK-NEXT:        i1   i8  i32  i64  f16 bf16  f32  f64
// CHECK-NEXT:   i1:   i1   i8  i32  i64  f16 bf16  f32  f64
// CHECK-NEXT:   i8:   i8   i8  i32  i64  f16 bf16  f32  f64
// CHECK-NEXT:  i32:  i32  i32  i32  i64  f16 bf16  f32  f64
// CHECK-NEXT:  i64:  i64  i64  i64  i64  f16 bf16  f32  f64
// CHECK-NEXT:  f16:  f16  f16  f16  f16  f16  f32  f32  f64
// CHECK-NEXT: bf16: bf16 bf16 bf16 bf16  f32 bf16  f32  f64
// CHECK-NEXT:  f32:  f32  f32  f32  f32  f32  f32  f32  f64
// CHECK-NEXT:  f64:  f64  f64  f64  f64  f64  f64  f64  f64

/* torch.result_type with rank-0 tensors and wrapped numbers. */
static void testResultType(MlirContext ctx) {
  fprintf(stderr, "@testResultType\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue i8 = fuserBuilderAddInput(b, FuserDTypeI8, SHAPE(2), S(""));
  MlirValue i32 = fuserBuilderAddInput(b, FuserDTypeI32, SHAPE(2), S(""));
  MlirValue bo = fuserBuilderAddInput(b, FuserDTypeI1, SHAPE(2), S(""));
  MlirValue bf = fuserBuilderAddInput(b, FuserDTypeBF16, SHAPE(2), S(""));
  MlirValue f16 = fuserBuilderAddInput(b, FuserDTypeF16, SHAPE(2), S(""));
  MlirValue z64 = fuserBuilderAddInput(b, FuserDTypeF64, 0, NULL, S(""));
  MlirValue z32 = fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S(""));
  MlirValue zi64 = fuserBuilderAddInput(b, FuserDTypeI64, 0, NULL, S(""));
  MlirValue zb = fuserBuilderAddInput(b, FuserDTypeI1, 0, NULL, S(""));
  MlirValue wf = fuserTorchScalarF64(b, 2.5);
  MlirValue wi = fuserTorchScalarI64(b, 3);
  MlirValue wb = fuserTorchScalarBool(b, true);
  struct {
    const char *what;
    MlirValue v[3];
    int n;
  } cases[] = {
      {"i32 tensor + wrapped float", {i32, wf}, 2},
      {"i32 tensor + rank-0 f64", {i32, z64}, 2},
      {"bf16 tensor + rank-0 f32", {bf, z32}, 2},
      {"bf16 tensor + wrapped float", {bf, wf}, 2},
      {"i8 tensor + wrapped int", {i8, wi}, 2},
      {"i8 tensor + rank-0 i64", {i8, zi64}, 2},
      {"bool tensor + wrapped int", {bo, wi}, 2},
      {"bool tensor + wrapped bool", {bo, wb}, 2},
      {"bool tensor + rank-0 bool", {bo, zb}, 2},
      {"i8 tensor + wrapped bool", {i8, wb}, 2},
      {"f16 tensor + bf16 tensor", {f16, bf}, 2},
      {"rank-0 f64 + wrapped int", {z64, wi}, 2},
      {"rank-0 i64 + wrapped float", {zi64, wf}, 2},
      {"rank-0 bool + wrapped float", {zb, wf}, 2},
      {"wrapped int + wrapped float", {wi, wf}, 2},
      {"wrapped bool", {wb}, 1},
      {"wrapped float", {wf}, 1},
      {"i32 + rank-0 i64 + wrapped float", {i32, zi64, wf}, 3},
      {"bool + rank-0 bool + wrapped int", {bo, zb, wi}, 3},
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); ++k)
    fprintf(stderr, "%s: %s\n", cases[k].what,
            fuserDTypeGetName(fuserTorchResultType(b, cases[k].v, cases[k].n)));
  EXPECT(!fuserBuilderHasError(b));
  EXPECT(fuserTorchResultType(b, NULL, 0) == FuserDTypeInvalid);
  printError(b);
  MlirValue withNull[] = {i32, NONE};
  EXPECT(fuserTorchResultType(b, withNull, 2) == FuserDTypeInvalid);
  printError(b);
  fuserBuilderDestroy(b);
}
// CHECK-LABEL: @testResultType
// CHECK-NEXT: i32 tensor + wrapped float: f32
// CHECK-NEXT: i32 tensor + rank-0 f64: f64
// CHECK-NEXT: bf16 tensor + rank-0 f32: bf16
// CHECK-NEXT: bf16 tensor + wrapped float: bf16
// CHECK-NEXT: i8 tensor + wrapped int: i8
// CHECK-NEXT: i8 tensor + rank-0 i64: i8
// CHECK-NEXT: bool tensor + wrapped int: i64
// CHECK-NEXT: bool tensor + wrapped bool: i1
// CHECK-NEXT: bool tensor + rank-0 bool: i1
// CHECK-NEXT: i8 tensor + wrapped bool: i8
// CHECK-NEXT: f16 tensor + bf16 tensor: f32
// CHECK-NEXT: rank-0 f64 + wrapped int: f64
// CHECK-NEXT: rank-0 i64 + wrapped float: f32
// CHECK-NEXT: rank-0 bool + wrapped float: f32
// CHECK-NEXT: wrapped int + wrapped float: f32
// CHECK-NEXT: wrapped bool: i1
// CHECK-NEXT: wrapped float: f32
// CHECK-NEXT: i32 + rank-0 i64 + wrapped float: f32
// CHECK-NEXT: bool + rank-0 bool + wrapped int: i64
// CHECK-NEXT: error: f: error: fuserTorchResultType: needs at least one value
// CHECK-NEXT: error: f: error: fuserTorchResultType: operand 2 is null

static void printShape(intptr_t rank, const int64_t *shape) {
  fprintf(stderr, "[");
  for (intptr_t i = 0; i < rank; ++i)
    shape[i] == DYN ? fprintf(stderr, "%s?", i ? ", " : "")
                    : fprintf(stderr, "%s%lld", i ? ", " : "", (long long)shape[i]);
  fprintf(stderr, "]\n");
}

static void testBroadcastShapes(MlirContext ctx) {
  fprintf(stderr, "@testBroadcastShapes\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue a = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(4, 1, 8), S(""));
  MlirValue c = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(3, 1), S(""));
  MlirValue d = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(DYN, 1), S(""));
  MlirValue e = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(1, DYN), S(""));
  MlirValue s = fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S(""));
  MlirValue g = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(5), S(""));
  struct {
    MlirValue v[3];
    int n;
  } cases[] = {{{a, c}, 2}, {{a, d}, 2}, {{d, e}, 2}, {{c, e}, 2},
               {{s, s}, 2}, {{a, s, c}, 3}, {{e, e}, 2}, {{a, g}, 2}};
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); ++k) {
    intptr_t rank = -1;
    int64_t shape[8];
    if (mlirLogicalResultIsSuccess(
            fuserTorchBroadcastShapes(b, cases[k].v, cases[k].n, &rank, shape, 8)))
      printShape(rank, shape);
    else
      printError(b);
  }
  fuserBuilderDestroy(b);
}
// CHECK-LABEL: @testBroadcastShapes
// CHECK-NEXT: [4, 3, 8]
// CHECK-NEXT: [4, ?, 8]
// CHECK-NEXT: [?, ?]
// CHECK-NEXT: [3, ?]
// CHECK-NEXT: []
// CHECK-NEXT: [4, 3, 8]
// CHECK-NEXT: [1, ?]
// CHECK-NEXT: error: f: error: fuserTorchBroadcastShapes: the shapes [4, 1, 8] and [5] do not broadcast (sizes 8 and 5 at dim -1)

static void testBinaryIR(MlirContext ctx) {
  fprintf(stderr, "@testBinaryIR\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("binary"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeBF16, SHAPE(4, 8), S("x"));
  MlirValue i = fuserBuilderAddInput(b, FuserDTypeI32, SHAPE(4, 1), S("i"));
  MlirValue f = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(8), S("f"));
  /* add(bf16 tensor, 2.5) stays bf16: the wrapped number becomes a bf16
   * constant. */
  fuserBuilderAddOutput(b, fuserTorchAdd(b, x, fuserTorchScalarF64(b, 2.5)), S("a"));
  /* i32[4,1] * f32[8]: cast to f32, both broadcast to [4, 8]. */
  fuserBuilderAddOutput(b, fuserTorchMul(b, i, f), S("m"));
  /* True division of integers computes in f32. */
  fuserBuilderAddOutput(b, fuserTorchDiv(b, i, fuserTorchScalarI64(b, 2)), S("d"));
  /* Floor division stays in the integer type. */
  fuserBuilderAddOutput(b, fuserTorchDivMode(b, i, fuserTorchScalarI64(b, 2),
                                             FuserRoundingFloor), S("fd"));
  /* Comparisons promote, then give i1. */
  fuserBuilderAddOutput(b, fuserTorchLt(b, i, fuserTorchScalarF64(b, 0.5)), S("lt"));
  /* atan2 of integers computes in f32. */
  fuserBuilderAddOutput(b, fuserTorchAtan2(b, i, i), S("at"));
  /* Shifts promote like the other bitwise ops: i32 << 3 stays i32. */
  fuserBuilderAddOutput(b, fuserTorchBitwiseLeftShift(b, i, fuserTorchScalarI64(b, 3)), S("sl"));
  fuserBuilderAddOutput(b, fuserTorchBitwiseRightShift(b, i, i), S("sr"));
  /* fmod promotes: i32 with a float scalar computes in f32. */
  fuserBuilderAddOutput(b, fuserTorchFmod(b, i, fuserTorchScalarF64(b, 1.5)), S("fm"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testBinaryIR
// CHECK: func.func @binary(%[[X:.*]]: tensor<4x8xbf16> {fuser.name = "x"}, %[[I:.*]]: tensor<4x1xi32> {fuser.name = "i"}, %[[F:.*]]: tensor<8xf32> {fuser.name = "f"})
// CHECK-NEXT: %[[C0:.*]] = fuser.constant 2.500000e+00 : tensor<bf16>
// CHECK-NEXT: %[[A:.*]] = fuser.add %[[X]], %[[C0]] : tensor<4x8xbf16>, tensor<bf16>
// CHECK-NEXT: %[[IF:.*]] = fuser.cast %[[I]] : tensor<4x1xi32> to tensor<4x1xf32>
// CHECK-NEXT: %[[IB:.*]] = fuser.broadcast %[[IF]] dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[FB:.*]] = fuser.broadcast %[[F]] dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[M:.*]] = fuser.mul %[[IB]], %[[FB]] : tensor<4x8xf32>
// CHECK-NEXT: %[[IF2:.*]] = fuser.cast %[[I]] : tensor<4x1xi32> to tensor<4x1xf32>
// CHECK-NEXT: %[[C2:.*]] = fuser.constant 2.000000e+00 : tensor<f32>
// CHECK-NEXT: %[[D:.*]] = fuser.div %[[IF2]], %[[C2]] : tensor<4x1xf32>, tensor<f32>
// CHECK-NEXT: %[[C2I:.*]] = fuser.constant 2 : tensor<i32>
// CHECK-NEXT: %[[FD:.*]] = fuser.div %[[I]], %[[C2I]] rounding_mode = floor : tensor<4x1xi32>, tensor<i32>
// CHECK-NEXT: %[[IF3:.*]] = fuser.cast %[[I]] : tensor<4x1xi32> to tensor<4x1xf32>
// CHECK-NEXT: %[[CH:.*]] = fuser.constant 5.000000e-01 : tensor<f32>
// CHECK-NEXT: %[[LT:.*]] = fuser.lt %[[IF3]], %[[CH]] : tensor<4x1xf32>, tensor<f32>
// CHECK-NEXT: %[[A1:.*]] = fuser.cast %[[I]] : tensor<4x1xi32> to tensor<4x1xf32>
// CHECK-NEXT: %[[A2:.*]] = fuser.cast %[[I]] : tensor<4x1xi32> to tensor<4x1xf32>
// CHECK-NEXT: %[[AT:.*]] = fuser.atan2 %[[A1]], %[[A2]] : tensor<4x1xf32>
// CHECK-NEXT: %[[C3:.*]] = fuser.constant 3 : tensor<i32>
// CHECK-NEXT: %[[SL:.*]] = fuser.shl %[[I]], %[[C3]] : tensor<4x1xi32>, tensor<i32>
// CHECK-NEXT: %[[SR:.*]] = fuser.shr %[[I]], %[[I]] : tensor<4x1xi32>
// CHECK-NEXT: %[[F4:.*]] = fuser.cast %[[I]] : tensor<4x1xi32> to tensor<4x1xf32>
// CHECK-NEXT: %[[C15:.*]] = fuser.constant 1.500000e+00 : tensor<f32>
// CHECK-NEXT: %[[FM:.*]] = fuser.fmod %[[F4]], %[[C15]] : tensor<4x1xf32>, tensor<f32>
// CHECK-NEXT: return %[[A]], %[[M]], %[[D]], %[[FD]], %[[LT]], %[[AT]], %[[SL]], %[[SR]], %[[FM]] : tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xi32>, tensor<4x1xi1>, tensor<4x1xf32>, tensor<4x1xi32>, tensor<4x1xi32>, tensor<4x1xf32>

/* A wrapped number becomes a half constant through f32, as PyTorch's
 * scalar.to<BFloat16>() does (c10::BFloat16 is built from a float):
 * 1.0039062509313226 is 1 + 2^-8 in f32, a midpoint of bf16 that rounds to
 * even, 1.0 (rounded once it would be 1 + 2^-7); 1.0004882812509095 is
 * 1 + 2^-11 in f32, the same for f16; an integer 16842753 is 2^24 + 2^16
 * in f32, then 2^24. (The same cast in a kernel gives these values.) */
static void testHalfScalars(MlirContext ctx) {
  fprintf(stderr, "@testHalfScalars\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("halves"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeBF16, SHAPE(4), S("x"));
  MlirValue h = fuserBuilderAddInput(b, FuserDTypeF16, SHAPE(4), S("h"));
  fuserBuilderAddOutput(b, fuserTorchMul(b, x, fuserTorchScalarF64(b, 1.0039062509313226)),
                        S("m"));
  fuserBuilderAddOutput(b, fuserTorchAdd(b, h, fuserTorchScalarF64(b, 1.0004882812509095)),
                        S("a"));
  fuserBuilderAddOutput(b, fuserTorchSub(b, x, fuserTorchScalarI64(b, 16842753)), S("s"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testHalfScalars
// CHECK: fuser.constant 1.000000e+00 : tensor<bf16>
// CHECK: fuser.constant 1.000000e+00 : tensor<f16>
// CHECK: fuser.constant 1.677720e+07 : tensor<bf16>

static void testIntegerClamp(MlirContext ctx) {
  fprintf(stderr, "@testIntegerClamp\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("iclamp"));
  MlirValue n = fuserBuilderAddInput(b, FuserDTypeI32, SHAPE(8), S("n"));
  /* Integers have no signed zero: maximum and minimum; a float bound
   * promotes to f32, and a clamp with an infinity. */
  fuserBuilderAddOutput(b, fuserTorchClamp(b, n, fuserTorchScalarI64(b, 0), NONE), S("lo"));
  fuserBuilderAddOutput(b, fuserTorchClamp(b, n, NONE, fuserTorchScalarI64(b, 9)), S("hi"));
  fuserBuilderAddOutput(b, fuserTorchClamp(b, n, fuserTorchScalarF64(b, 0.5), NONE), S("f"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testIntegerClamp
// CHECK: %[[Z:.*]] = fuser.constant 0 : tensor<i32>
// CHECK-NEXT: fuser.maximum %arg0, %[[Z]] : tensor<8xi32>, tensor<i32>
// CHECK: %[[NINE:.*]] = fuser.constant 9 : tensor<i32>
// CHECK-NEXT: fuser.minimum %arg0, %[[NINE]] : tensor<8xi32>, tensor<i32>
// CHECK: %[[NF:.*]] = fuser.cast %arg0 : tensor<8xi32> to tensor<8xf32>
// CHECK: fuser.clamp %[[NF]], %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<f32>, tensor<f32>

static void testBoolsAndTernaries(MlirContext ctx) {
  fprintf(stderr, "@testBoolsAndTernaries\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("bools"));
  MlirValue p = fuserBuilderAddInput(b, FuserDTypeI1, SHAPE(4, 1), S("p"));
  MlirValue q = fuserBuilderAddInput(b, FuserDTypeI1, SHAPE(8), S("q"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF16, SHAPE(8), S("x"));
  MlirValue lo = fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("lo"));
  /* PyTorch's add and mul of bools are logical or and and. */
  fuserBuilderAddOutput(b, fuserTorchAdd(b, p, q), S("or"));
  fuserBuilderAddOutput(b, fuserTorchMul(b, p, fuserTorchScalarBool(b, true)), S("and"));
  /* where promotes x and the wrapped 0 (to f16) and broadcasts all three. */
  fuserBuilderAddOutput(b, fuserTorchWhere(b, p, x, fuserTorchScalarF64(b, 0.0)), S("w"));
  /* clamp with one bound of a float is a clamp with the infinity on the
   * other side: torch.clamp keeps x where it equals the bound (-0.0 under
   * min=0.0 stays -0.0), where fuser.maximum orders -0.0 below +0.0. A
   * rank-0 f32 bound keeps f16. */
  fuserBuilderAddOutput(b, fuserTorchClamp(b, x, lo, NONE), S("cl"));
  fuserBuilderAddOutput(b, fuserTorchClamp(b, x, NONE, fuserTorchScalarI64(b, 6)), S("ch"));
  fuserBuilderAddOutput(b, fuserTorchClamp(b, x, lo, fuserTorchScalarF64(b, 6.0)), S("c"));
  /* lerp of f16 with a wrapped weight. */
  fuserBuilderAddOutput(b, fuserTorchLerp(b, x, x, fuserTorchScalarF64(b, 0.25)), S("l"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testBoolsAndTernaries
// CHECK: func.func @bools(%[[P:.*]]: tensor<4x1xi1> {fuser.name = "p"}, %[[Q:.*]]: tensor<8xi1> {fuser.name = "q"}, %[[X:.*]]: tensor<8xf16> {fuser.name = "x"}, %[[LO:.*]]: tensor<f32> {fuser.name = "lo"})
// CHECK-NEXT: %[[PB:.*]] = fuser.broadcast %[[P]] dims = [0, 1] : tensor<4x1xi1> -> tensor<4x8xi1>
// CHECK-NEXT: %[[QB:.*]] = fuser.broadcast %[[Q]] dims = [1] : tensor<8xi1> -> tensor<4x8xi1>
// CHECK-NEXT: %[[OR:.*]] = fuser.or %[[PB]], %[[QB]] : tensor<4x8xi1>
// CHECK-NEXT: %[[T:.*]] = fuser.constant true : tensor<i1>
// CHECK-NEXT: %[[AND:.*]] = fuser.and %[[P]], %[[T]] : tensor<4x1xi1>, tensor<i1>
// CHECK-NEXT: %[[PB2:.*]] = fuser.broadcast %[[P]] dims = [0, 1] : tensor<4x1xi1> -> tensor<4x8xi1>
// CHECK-NEXT: %[[XB:.*]] = fuser.broadcast %[[X]] dims = [1] : tensor<8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[Z:.*]] = fuser.constant 0.000000e+00 : tensor<f16>
// CHECK-NEXT: %[[W:.*]] = fuser.where %[[PB2]], %[[XB]], %[[Z]] : tensor<4x8xi1>, tensor<4x8xf16>, tensor<f16>
// CHECK-NEXT: %[[LOH:.*]] = fuser.cast %[[LO]] : tensor<f32> to tensor<f16>
// CHECK-NEXT: %[[INF:.*]] = fuser.constant inf : tensor<f16>
// CHECK-NEXT: %[[CL:.*]] = fuser.clamp %[[X]], %[[LOH]], %[[INF]] : tensor<8xf16>, tensor<f16>, tensor<f16>
// CHECK-NEXT: %[[NINF:.*]] = fuser.constant -inf : tensor<f16>
// CHECK-NEXT: %[[SIX:.*]] = fuser.constant 6.000000e+00 : tensor<f16>
// CHECK-NEXT: %[[CH:.*]] = fuser.clamp %[[X]], %[[NINF]], %[[SIX]] : tensor<8xf16>, tensor<f16>, tensor<f16>
// CHECK-NEXT: %[[LOH2:.*]] = fuser.cast %[[LO]] : tensor<f32> to tensor<f16>
// CHECK-NEXT: %[[SIX2:.*]] = fuser.constant 6.000000e+00 : tensor<f16>
// CHECK-NEXT: %[[C:.*]] = fuser.clamp %[[X]], %[[LOH2]], %[[SIX2]] : tensor<8xf16>, tensor<f16>, tensor<f16>
// CHECK-NEXT: %[[Q4:.*]] = fuser.constant 2.500000e-01 : tensor<f16>
// CHECK-NEXT: %[[L:.*]] = fuser.lerp %[[X]], %[[X]], %[[Q4]] : tensor<8xf16>, tensor<8xf16>, tensor<f16>
// CHECK-NEXT: return %[[OR]], %[[AND]], %[[W]], %[[CL]], %[[CH]], %[[C]], %[[L]]

static void testUnaryAndReductions(MlirContext ctx) {
  fprintf(stderr, "@testUnaryAndReductions\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("reductions"));
  MlirValue i = fuserBuilderAddInput(b, FuserDTypeI32, SHAPE(4, 8), S("i"));
  MlirValue m = fuserBuilderAddInput(b, FuserDTypeI1, SHAPE(4, 8), S("m"));
  MlirValue h = fuserBuilderAddInput(b, FuserDTypeBF16, SHAPE(4, 8), S("h"));
  MlirValue (*floatFns[])(FuserBuilder, MlirValue) = {
      fuserTorchExp,  fuserTorchExp2,  fuserTorchExpm1, fuserTorchLog,
      fuserTorchLog2, fuserTorchLog1p, fuserTorchSqrt,  fuserTorchRsqrt,
      fuserTorchReciprocal, fuserTorchSin, fuserTorchCos, fuserTorchTanh,
      fuserTorchSigmoid, fuserTorchErf, fuserTorchLog10, fuserTorchTan, fuserTorchAsin,
      fuserTorchAcos, fuserTorchAtan, fuserTorchSinh, fuserTorchCosh, fuserTorchAsinh,
      fuserTorchAcosh, fuserTorchAtanh};
  MlirValue v = fuserTorchExp(b, i); /* i32 -> f32 first */
  for (size_t k = 1; k < sizeof(floatFns) / sizeof(floatFns[0]); ++k)
    v = floatFns[k](b, v);
  fuserBuilderAddOutput(b, v, S("chain"));
  fuserBuilderAddOutput(b, fuserTorchSigmoid(b, h), S("sig_h"));
  /* Integer and bool sums accumulate in i64; no dims means all dims. */
  fuserBuilderAddOutput(b, fuserTorchSum(b, i, (int64_t[]){-1}, 1, false), S("sum_i"));
  fuserBuilderAddOutput(b, fuserTorchSum(b, m, NULL, 0, false), S("count"));
  fuserBuilderAddOutput(b, fuserTorchProd(b, i, NULL, 0, true), S("prod"));
  fuserBuilderAddOutput(b, fuserTorchSum(b, h, (int64_t[]){0}, 1, false), S("sum_h"));
  fuserBuilderAddOutput(b, fuserTorchMean(b, h, NULL, 0, false), S("mean"));
  fuserBuilderAddOutput(b, fuserTorchAmax(b, i, (int64_t[]){1}, 1, true), S("amax"));
  fuserBuilderAddOutput(b, fuserTorchAmin(b, h, NULL, 0, false), S("amin"));
  /* A rank-0 value reduced over no dims is itself (cast to i64 for sum). */
  fuserBuilderAddOutput(b, fuserTorchSum(b, fuserTorchScalarI64(b, 5), NULL, 0, false), S("s0"));
  /* As over dim 0 or -1: PyTorch wraps a 0-dim tensor's dims as one dim's. */
  MlirValue z = fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("z"));
  fuserBuilderAddOutput(b, fuserTorchSum(b, z, (int64_t[]){0}, 1, false), S("s0_dim0"));
  fuserBuilderAddOutput(b, fuserTorchAmax(b, z, (int64_t[]){-1}, 1, true), S("m0_dim_1"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testUnaryAndReductions
// CHECK: %[[F:.*]] = fuser.cast %{{.*}} : tensor<4x8xi32> to tensor<4x8xf32>
// CHECK-NEXT: fuser.exp %[[F]] : tensor<4x8xf32>
// CHECK-NEXT: fuser.exp2 {{.*}} : tensor<4x8xf32>
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
// CHECK-NEXT: fuser.sigmoid %{{.*}} : tensor<4x8xbf16>
// CHECK-NEXT: %[[I64:.*]] = fuser.cast %{{.*}} : tensor<4x8xi32> to tensor<4x8xi64>
// CHECK-NEXT: fuser.sum %[[I64]] dims = [1] : tensor<4x8xi64> -> tensor<4xi64>
// CHECK-NEXT: %[[M64:.*]] = fuser.cast %{{.*}} : tensor<4x8xi1> to tensor<4x8xi64>
// CHECK-NEXT: fuser.sum %[[M64]] dims = [0, 1] : tensor<4x8xi64> -> tensor<i64>
// CHECK-NEXT: %[[P64:.*]] = fuser.cast %{{.*}} : tensor<4x8xi32> to tensor<4x8xi64>
// CHECK-NEXT: fuser.prod %[[P64]] dims = [0, 1] keepdim = true : tensor<4x8xi64> -> tensor<1x1xi64>
// CHECK-NEXT: fuser.sum %{{.*}} dims = [0] : tensor<4x8xbf16> -> tensor<8xbf16>
// CHECK-NEXT: fuser.mean %{{.*}} dims = [0, 1] : tensor<4x8xbf16> -> tensor<bf16>
// CHECK-NEXT: fuser.max %{{.*}} dims = [1] keepdim = true : tensor<4x8xi32> -> tensor<4x1xi32>
// CHECK-NEXT: fuser.min %{{.*}} dims = [0, 1] : tensor<4x8xbf16> -> tensor<bf16>
// CHECK-NEXT: %[[FIVE:.*]] = fuser.constant 5 : tensor<i64>
// CHECK-NEXT: return {{.*}}, %[[FIVE]], %[[Z:[a-z0-9]+]], %[[Z]] :

static void testShapeHelpers(MlirContext ctx) {
  fprintf(stderr, "@testShapeHelpers\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("shapes"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(3, 1), S("x"));
  MlirValue d = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(DYN, 4), S("d"));
  MlirValue t = fuserTorchBroadcastTo(b, x, SHAPE(2, 3, 5));
  fuserBuilderAddOutput(b, t, S("bt"));
  EXPECT(fuserTorchBroadcastTo(b, x, SHAPE(-1, 1)).ptr == x.ptr);
  fuserBuilderAddOutput(b, fuserTorchBroadcastTo(b, d, SHAPE(-1, 4)), S("same"));
  fuserBuilderAddOutput(b, fuserTorchBroadcastTo(b, x, SHAPE(DYN, -1, DYN)), S("dyn"));
  EXPECT(fuserTorchTo(b, x, FuserDTypeF32).ptr == x.ptr);
  fuserBuilderAddOutput(b, fuserTorchTo(b, x, FuserDTypeF16), S("to"));
  fuserBuilderAddOutput(b, fuserTorchTo(b, fuserTorchScalarF64(b, 1.5), FuserDTypeI32), S("to_w"));
  fuserBuilderAddOutput(b, fuserTorchReshape(b, t, SHAPE(-1, 5)), S("r"));
  fuserBuilderAddOutput(b, fuserTorchReshape(b, d, SHAPE(DYN, 2, 2)), S("rd"));
  /* A wrapped number nothing uses is dropped when the fusion finishes. */
  (void)fuserTorchScalarF64(b, 42.0);
  finishAndPrint(b);
}
// CHECK-LABEL: @testShapeHelpers
// CHECK: fuser.broadcast %arg0 dims = [1, 2] : tensor<3x1xf32> -> tensor<2x3x5xf32>
// CHECK-NEXT: fuser.broadcast %arg0 dims = [1, 2] : tensor<3x1xf32> -> tensor<?x3x?xf32>
// CHECK-NEXT: fuser.cast %arg0 : tensor<3x1xf32> to tensor<3x1xf16>
// CHECK-NEXT: fuser.constant 1 : tensor<i32>
// CHECK-NEXT: fuser.reshape %{{.*}} : tensor<2x3x5xf32> -> tensor<6x5xf32>
// CHECK-NEXT: fuser.reshape %arg1 : tensor<?x4xf32> -> tensor<?x2x2xf32>
// CHECK-NOT: 4.2
// CHECK: return

static void testTorchErrors(MlirContext ctx) {
  fprintf(stderr, "@testTorchErrors\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(4, 8), S("x"));
  MlirValue y = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(3), S("y"));
  MlirValue p = fuserBuilderAddInput(b, FuserDTypeI1, SHAPE(4, 8), S("p"));
  MlirValue i = fuserBuilderAddInput(b, FuserDTypeI32, SHAPE(4, 8), S("i"));
  MlirValue d = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(DYN, 8), S("d"));
  EXPECT_FAIL(b, fuserTorchAdd(b, x, y));
  EXPECT_FAIL(b, fuserTorchSub(b, p, p));
  /* PyTorch refuses a bool on either side of a subtraction. */
  EXPECT_FAIL(b, fuserTorchSub(b, p, x));
  EXPECT_FAIL(b, fuserTorchSub(b, i, p));
  EXPECT_FAIL(b, fuserTorchSub(b, x, fuserTorchScalarBool(b, true)));
  EXPECT_FAIL(b, fuserTorchWhere(b, i, x, x));
  EXPECT_FAIL(b, fuserTorchClamp(b, x, NONE, NONE));
  EXPECT_FAIL(b, fuserTorchBitwiseAnd(b, x, i));
  EXPECT_FAIL(b, fuserTorchBitwiseOr(b, x, x));
  EXPECT_FAIL(b, fuserTorchBitwiseXor(b, x, x));
  EXPECT_FAIL(b, fuserTorchRemainder(b, p, p));
  EXPECT_FAIL(b, fuserTorchDivMode(b, x, x, (FuserRoundingMode)5));
  EXPECT_FAIL(b, fuserTorchMean(b, i, NULL, 0, false));
  /* Of rank 0 too, where a reduction over no dims is the operand itself. */
  MlirValue i0 = fuserBuilderAddInput(b, FuserDTypeI32, 0, NULL, S("i0"));
  EXPECT_FAIL(b, fuserTorchMean(b, i0, NULL, 0, false));
  EXPECT_FAIL(b, fuserTorchSum(b, x, (int64_t[]){2}, 1, false));
  EXPECT_FAIL(b, fuserTorchSum(b, i0, (int64_t[]){1}, 1, false));
  EXPECT_FAIL(b, fuserTorchSum(b, i0, (int64_t[]){0, -1}, 2, false));
  /* PyTorch refuses an integer base with a negative number exponent. */
  EXPECT_FAIL(b, fuserTorchPow(b, i, fuserTorchScalarI64(b, -1)));
  EXPECT_FAIL(b, fuserTorchReshape(b, x, SHAPE(-1, -1)));
  EXPECT_FAIL(b, fuserTorchReshape(b, d, SHAPE(-1, 8)));
  EXPECT_FAIL(b, fuserTorchReshape(b, x, SHAPE(-1, 5)));
  EXPECT_FAIL(b, fuserTorchReshape(b, x, SHAPE(-2, 5)));
  EXPECT_FAIL(b, fuserTorchBroadcastTo(b, x, SHAPE(8)));
  EXPECT_FAIL(b, fuserTorchBroadcastTo(b, x, SHAPE(-1, 4, 8)));
  EXPECT_FAIL(b, fuserTorchBroadcastTo(b, x, SHAPE(4, 9)));
  EXPECT_FAIL(b, fuserTorchTo(b, x, (FuserDType)12));
  EXPECT_FAIL(b, fuserTorchMaximum(b, x, NONE));
  /* fp8 does not compute (PyTorch promotes no Float8 type). */
  MlirValue q = fuserBuilderAddInput(b, FuserDTypeF8E4M3FN, SHAPE(4, 8), S("q"));
  EXPECT_FAIL(b, fuserTorchAdd(b, q, x));
  EXPECT_FAIL(b, fuserTorchExp(b, q));
  EXPECT(fuserTorchResultType(b, &q, 1) == FuserDTypeInvalid);
  printError(b);
  EXPECT(!fuserBuilderHasError(b));
  fuserBuilderDestroy(b);
  /* And with no builder at all. */
  EXPECT(mlirValueIsNull(fuserTorchAdd((FuserBuilder){NULL}, x, y)));
  EXPECT(mlirValueIsNull(fuserTorchScalarF64(b, 1.0)));
  EXPECT(fuserTorchResultType(b, &x, 1) == FuserDTypeInvalid);
}
// CHECK-LABEL: @testTorchErrors
// CHECK-NEXT: error: f: error: fuserTorchAdd: the shapes [4, 8] and [3] do not broadcast (sizes 8 and 3 at dim -1)
// CHECK-NEXT: error: f: error: fuserTorchSub: subtraction of two bools is not supported (as in PyTorch); use fuserBuildXor
// CHECK-NEXT: error: f: error: fuserTorchSub: subtraction with a bool operand is not supported (as in PyTorch); to invert a mask use fuserBuildNot
// CHECK-NEXT: error: f: error: fuserTorchSub: subtraction with a bool operand is not supported (as in PyTorch); to invert a mask use fuserBuildNot
// CHECK-NEXT: error: f: error: fuserTorchSub: subtraction with a bool operand is not supported (as in PyTorch); to invert a mask use fuserBuildNot
// CHECK-NEXT: error: f: error: fuserTorchWhere: the condition must be i1 (bool), got i32
// CHECK-NEXT: error: f: error: fuserTorchClamp: needs a low or a high bound (both are null)
// CHECK-NEXT: error: f: error: fuserTorchBitwiseAnd: the operands promote to f32, and bitwise ops take integer or bool tensors (as in PyTorch)
// CHECK-NEXT: error: f: error: fuserTorchBitwiseOr: the operands promote to f32, and bitwise ops take integer or bool tensors (as in PyTorch)
// CHECK-NEXT: error: f: error: fuserTorchBitwiseXor: the operands promote to f32
// CHECK-NEXT: error: f: error: fuserTorchRemainder: 'fuser.remainder' op operand #0 must be ranked tensor of i8, i32
// CHECK-NEXT: error: f: error: fuserTorchDivMode: rounding mode 5 is not a FuserRoundingMode
// CHECK-NEXT: error: f: error: fuserTorchMean: 'fuser.mean' op operand #0 must be ranked tensor of f16, bf16
// CHECK-NEXT: error: f: error: fuserTorchMean: mean of an integer or bool tensor is not supported (as in PyTorch: it cannot infer the result's type); cast to a float type first
// CHECK-NEXT: error: f: error: fuserTorchSum: dim 2 is out of range for rank 2 (expected a dim in [-2, 1])
// CHECK-NEXT: error: f: error: fuserTorchSum: dim 1 is out of range for rank 0 (a scalar takes dim 0 or -1)
// CHECK-NEXT: error: f: error: fuserTorchSum: dims name 2 dims of a scalar, which has one (dim 0, or -1)
// CHECK-NEXT: error: f: error: fuserTorchPow: integers to negative integer powers are not allowed (as in PyTorch); cast the base to a float type first
// CHECK-NEXT: error: f: error: fuserTorchReshape: only one size can be -1 (dims 0 and 1 are)
// CHECK-NEXT: error: f: error: fuserTorchReshape: cannot infer the -1 size of dim 0 with dynamic sizes (give FUSER_DYNAMIC instead)
// CHECK-NEXT: error: f: error: fuserTorchReshape: shape [-1, 5] is invalid for [4, 8] (32 elements)
// CHECK-NEXT: error: f: error: fuserTorchReshape: size -2 at dim 0 is negative
// CHECK-NEXT: error: f: error: fuserTorchBroadcastTo: cannot broadcast [4, 8] to the lower rank 1
// CHECK-NEXT: error: f: error: fuserTorchBroadcastTo: size -1 at dim 0 is a new leading dim, which has no size to keep
// CHECK-NEXT: error: f: error: fuserTorchBroadcastTo: 'fuser.broadcast' op operand dim 1 of size 8 cannot broadcast to result dim 1 of size 9 (sizes must match or be 1)
// CHECK-NEXT: error: f: error: fuserTorchTo: dtype 12 is not a FuserDType
// CHECK-NEXT: error: f: error: fuserTorchMaximum: operand 2 is null
// CHECK-NEXT: error: f: error: fuserTorchAdd: an f8E4M3FN operand does not compute: cast fp8 to f32 (fuserBuildCast) first
// CHECK-NEXT: error: f: error: fuserTorchExp: an f8E4M3FN operand does not compute
// CHECK-NEXT: error: f: error: fuserTorchResultType: an f8E4M3FN operand does not compute

/* A call that fails takes back what it built before failing: the casts
 * and broadcasts of promotion stayed in the fusion (found by an adversarial
 * test), changing its compile-cache key. */
static void testFailedCallsBuildNothing(MlirContext ctx) {
  fprintf(stderr, "@testFailedCallsBuildNothing\n");
  FuserBuilder b = fuserBuilderCreate(ctx, S("failed"));
  MlirValue i = fuserBuilderAddInput(b, FuserDTypeI32, SHAPE(4), S("i"));
  MlirValue f = fuserBuilderAddInput(b, FuserDTypeF32, SHAPE(3, 4), S("f"));
  MlirValue m = fuserBuilderAddInput(b, FuserDTypeI1, SHAPE(4), S("m"));
  /* i32[4] & f32[3, 4]: promoted to f32 and broadcast, then and refuses f32. */
  EXPECT_FAIL(b, fuserTorchBitwiseAnd(b, i, f));
  /* bool ** bool: both cast, then pow refuses. */
  EXPECT_FAIL(b, fuserTorchPow(b, m, m));
  /* floor division of bools: both cast, then div refuses. */
  EXPECT_FAIL(b, fuserTorchDivMode(b, m, m, FuserRoundingFloor));
  fuserBuilderAddOutput(b, fuserTorchExp(b, f), S("y"));
  finishAndPrint(b);
}
// CHECK-LABEL: @testFailedCallsBuildNothing
// CHECK: func.func @failed(
// CHECK-NEXT: fuser.exp
// CHECK-NEXT: return

int main(void) {
  MlirContext ctx = fuserContextCreate();
  testPromoteTypes(ctx);
  testResultType(ctx);
  testBroadcastShapes(ctx);
  testBinaryIR(ctx);
  testHalfScalars(ctx);
  testIntegerClamp(ctx);
  testBoolsAndTernaries(ctx);
  testUnaryAndReductions(ctx);
  testShapeHelpers(ctx);
  testTorchErrors(ctx);
  testFailedCallsBuildNothing(ctx);
  mlirContextDestroy(ctx);
  fprintf(stderr, "@done: %d failures\n", failures);
  return failures ? 1 : 0;
}
// CHECK-LABEL: @done: 0 failures
