/*===- compile.c - registration, passes, parsing, compiling, running -----===*\
|*                                                                            *|
|* The rest of the C API around the builder: the dialect handle and version,  *|
|* the generated pass C API, parsing with diagnostics, compiling a built      *|
|* fusion and reading back PTX, kernel IR and stages, running the bundle on   *|
|* the CPU emulator against a reference computed here, and the failures:      *|
|* null handles, bad options, unsupported constructs.                         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* RUN: capi-compile 2>&1 | FileCheck %s
 */

#include "fuser-c/Autodiff.h"
#include "fuser-c/Builder.h"
#include "fuser-c/Compiler.h"
#include "fuser-c/Dialects.h"
#include "fuser-c/Emulator.h"
#include "fuser-c/Passes.h"
#include "fuser-c/Tuning.h"
#include "fuser_runtime.h"
#include "capi_test.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DYN FUSER_DYNAMIC
#define S(str) mlirStringRefCreateFromCString(str)
#define NONE ((MlirValue){NULL})

static void printToStderr(MlirStringRef s, void *userData) {
  (void)userData;
  fwrite(s.data, 1, s.length, stderr);
}

static void printDiagnostics(FuserCompileResult r) {
  MlirStringRef d = fuserCompileResultGetDiagnostics(r);
  fprintf(stderr, "%.*s", (int)d.length, d.data);
}

static bool contains(MlirStringRef s, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= s.length; ++i)
    if (!memcmp(s.data + i, needle, n))
      return true;
  return false;
}

/*===----------------------------------------------------------------------===*/

static void testRegistration(void) {
  fprintf(stderr, "@testRegistration\n");
  EXPECT(fuserGetCAPIVersion() == FUSER_CAPI_VERSION);
  MlirDialectHandle h = mlirGetDialectHandle__fuser__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(h);
  fprintf(stderr, "namespace: %.*s\n", (int)ns.length, ns.data);
  /* A plain upstream context with the dialect registered through its handle
   * and through fuserRegisterAllDialects. */
  MlirContext ctx = mlirContextCreate();
  mlirDialectHandleRegisterDialect(h, ctx);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  fuserRegisterAllDialects(registry);
  fuserRegisterAllDialects((MlirDialectRegistry){NULL}); /* a no-op */
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  MlirDialect d = mlirContextGetOrLoadDialect(ctx, S("fuser"));
  EXPECT(!mlirDialectIsNull(d));
  /* The builder loads what it needs into any context. */
  FuserBuilder b = fuserBuilderCreate(ctx, S("f"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("x"));
  fuserBuilderAddOutput(b, fuserBuildNeg(b, x), S("y"));
  MlirModule m = fuserBuilderFinishNewModule(b);
  EXPECT(!mlirModuleIsNull(m));
  fuserBuilderDestroy(b);
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
}
// CHECK-LABEL: @testRegistration
// CHECK-NEXT: namespace: fuser

/* A fusion with composites, for the passes. */
static MlirModule buildNorms(MlirContext ctx) {
  FuserBuilder b = fuserBuilderCreate(ctx, S("norms"));
  int64_t shape[] = {DYN, 32};
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 2, shape, S("x"));
  fuserBuilderAddOutput(b, fuserBuildSoftmax(b, x, -1), S("y"));
  MlirModule m = fuserBuilderFinishNewModule(b);
  EXPECT(!mlirModuleIsNull(m));
  fuserBuilderDestroy(b);
  return m;
}

static void testPasses(MlirContext ctx) {
  fprintf(stderr, "@testPasses\n");
  /* The generated C API: create a pass and run it. */
  MlirModule m = buildNorms(ctx);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager fpm = mlirPassManagerGetNestedUnder(pm, S("func.func"));
  mlirOpPassManagerAddOwnedPass(fpm, mlirCreateFuserTransformsDecomposeCompositesPass());
  EXPECT(mlirLogicalResultIsSuccess(
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m))));
  mlirOperationPrint(mlirModuleGetOperation(m), printToStderr, NULL);
  fprintf(stderr, "\n");
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(m);

  /* Registered passes and pipelines parse from text. */
  mlirRegisterFuserTransformsPasses();
  mlirRegisterFuserConversionPasses();
  fuserRegisterAllPasses();
  fuserRegisterAllPasses(); /* more than once is fine */
  m = buildNorms(ctx);
  pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  EXPECT(mlirLogicalResultIsSuccess(mlirParsePassPipeline(
      opm, S("builtin.module(func.func(fuser-decompose),canonicalize,cse)"),
      printToStderr, NULL)));
  mlirPrintPassPipeline(opm, printToStderr, NULL);
  fprintf(stderr, "\n");
  EXPECT(mlirLogicalResultIsSuccess(
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m))));
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(m);
  /* Every generated constructor makes a pass (freed here, never added). */
  MlirPass passes[] = {mlirCreateFuserTransformsDecomposeCompositesPass(),
                       mlirCreateFuserTransformsSegmentPass(),
                       mlirCreateFuserConversionEmitKernelsPass(),
                       mlirCreateFuserConversionLowerKernelsToNVVMPass()};
  pm = mlirPassManagerCreate(ctx);
  for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); ++i) {
    EXPECT(passes[i].ptr != NULL);
    if (i < 2)
      mlirOpPassManagerAddOwnedPass(mlirPassManagerGetNestedUnder(pm, S(i ? "builtin.module" : "func.func")), passes[i]);
    else
      mlirPassManagerAddOwnedPass(pm, passes[i]);
  }
  mlirPassManagerDestroy(pm);
}
// CHECK-LABEL: @testPasses
// CHECK: func.func @norms
// CHECK-NOT: fuser.softmax
// CHECK: fuser.max %{{.*}} dims = [1] :
// CHECK: fuser.exp
// CHECK: fuser.sum
// CHECK: fuser.div
// CHECK: builtin.module(func.func(fuser-decompose),canonicalize{{.*}},cse)

static void testParse(MlirContext ctx) {
  fprintf(stderr, "@testParse\n");
  const char *good = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                     "  %0 = fuser.exp %x : tensor<4xf32>\n"
                     "  return %0 : tensor<4xf32>\n"
                     "}\n";
  MlirModule m = fuserParseSourceString(ctx, S(good), S("good.mlir"), printToStderr, NULL);
  EXPECT(!mlirModuleIsNull(m));
  mlirModuleDestroy(m);
  const char *bad = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %0 = fuser.exp %x : tensor<4xi32>\n"
                    "  return %0 : tensor<4xf32>\n"
                    "}\n";
  m = fuserParseSourceString(ctx, S(bad), S("bad.mlir"), printToStderr, NULL);
  EXPECT(mlirModuleIsNull(m));
  m = fuserParseSourceString((MlirContext){NULL}, S(good), S("x"), printToStderr, NULL);
  EXPECT(mlirModuleIsNull(m));
  m = fuserParseSourceFile(ctx, S("/nonexistent/fusion.mlir"), printToStderr, NULL);
  EXPECT(mlirModuleIsNull(m));
}
// CHECK-LABEL: @testParse
// CHECK-NEXT: bad.mlir:2:18: error: use of value '%x' expects different type than prior uses: 'tensor<4xi32>' vs 'tensor<4xf32>'
// CHECK: <api>: error: the context is null
// CHECK-NEXT: /nonexistent/fusion.mlir: error: cannot read the file: No such file or directory

/* fuserDifferentiate: @f_vjp added, compiled with @f; each error leaves the
 * module as it was. */
static void testDifferentiate(MlirContext ctx) {
  fprintf(stderr, "@testDifferentiate\n");
  const char *src = "func.func @f(%x: tensor<?xf32>, %i: tensor<?xi32>) -> tensor<?xf32> {\n"
                    "  %0 = fuser.sin %x : tensor<?xf32>\n"
                    "  return %0 : tensor<?xf32>\n"
                    "}\n"
                    "func.func @p(%x: tensor<8xbf16>) -> tensor<8xf16> {\n"
                    "  %0 = fuser.bitcast %x : tensor<8xbf16> to tensor<8xf16>\n"
                    "  return %0 : tensor<8xf16>\n"
                    "}\n";
  MlirModule m = fuserParseSourceString(ctx, S(src), S("vjp.mlir"), printToStderr, NULL);
  EXPECT(!mlirModuleIsNull(m));
  int64_t wrt[] = {1};
  EXPECT(!fuserDifferentiate(m, S("f"), wrt, 1, NULL, 0, false, printToStderr, NULL));
  EXPECT(!fuserDifferentiate(m, S("p"), NULL, 0, NULL, 0, false, printToStderr, NULL));
  EXPECT(!fuserDifferentiate(m, S("nothere"), NULL, 0, NULL, 0, false, printToStderr, NULL));
  EXPECT(!fuserDifferentiate(m, S(""), NULL, 0, NULL, 0, false, printToStderr, NULL));
  EXPECT(!fuserDifferentiate(m, S("f"), NULL, -1, NULL, 0, false, printToStderr, NULL));
  EXPECT(!fuserDifferentiate((MlirModule){NULL}, S("f"), NULL, 0, NULL, 0, false, printToStderr, NULL));
  EXPECT(fuserDifferentiate(m, S("f"), NULL, 0, NULL, 0, false, printToStderr, NULL));
  EXPECT(!fuserDifferentiate(m, S("f"), NULL, 0, NULL, 0, false, printToStderr, NULL));
  mlirOperationPrint(mlirModuleGetOperation(m), printToStderr, NULL);
  fprintf(stderr, "\n");
  mlirModuleDestroy(m);
}
// CHECK-LABEL: @testDifferentiate
// CHECK-NEXT: error: fuser-vjp: input 1 ('i') is 'i32'; only f16, bf16, f32 and f64 values have gradients
// CHECK: vjp.mlir:6:8: error: 'fuser.bitcast' op has no gradient rule in fuser-vjp
// CHECK: error: fuser-vjp: no fusion named 'nothere'
// CHECK: error: fuserDifferentiate: name the fusion to differentiate
// CHECK: error: fuserDifferentiate: a position list is NULL or has a negative length
// CHECK: error: fuserDifferentiate: the module is null
// CHECK: error: fuser-vjp: 'f_vjp' exists already
// CHECK: func.func @f_vjp(%{{.*}}: tensor<?xf32> {fuser.name = "x"}, %{{.*}}: tensor<?xi32> {fuser.name = "i"}, %{{.*}}: tensor<?xf32> {fuser.cotangent, fuser.name = "grad_result0"}) -> (tensor<?xf32> {fuser.name = "grad_x", fuser.same_shape_as = 0 : i64})
// CHECK: fuser.cos
// CHECK-NOT: func.func @p_vjp

/* gelu(x + bias, tanh) and its sign, over x: f32[?, 16]. */
static MlirModule buildBiasGelu(MlirContext ctx) {
  FuserBuilder b = fuserBuilderCreate(ctx, S("bias_gelu"));
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 2, (int64_t[]){DYN, 16}, S("x"));
  MlirValue bias = fuserBuilderAddInput(b, FuserDTypeF32, 1, (int64_t[]){16}, S("bias"));
  MlirValue y = fuserBuildGelu(b, fuserTorchAdd(b, x, bias), FuserGeluTanh);
  fuserBuilderAddOutput(b, y, S("y"));
  fuserBuilderAddOutput(b, fuserTorchGt(b, y, fuserTorchScalarI64(b, 0)), S("positive"));
  MlirModule m = fuserBuilderFinishNewModule(b);
  EXPECT(!mlirModuleIsNull(m));
  fuserBuilderDestroy(b);
  return m;
}

static double geluTanh(double x) {
  return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

static bool check(fuser_error *e, const char *what) {
  if (!e)
    return true;
  fprintf(stderr, "%s: %s\n", what, fuser_error_message(e));
  fuser_error_destroy(e);
  ++failures;
  return false;
}

static void runOnEmulator(MlirStringRef bundleBytes) {
  fuser_rt *rt = NULL;
  if (!check(fuserEmulatorRuntimeCreate(NULL, &rt), "emulator"))
    return;
  fuser_bundle *bundle = NULL;
  if (!check(fuser_bundle_load(rt, bundleBytes.data, bundleBytes.length, &bundle), "load")) {
    fuser_rt_destroy(rt);
    return;
  }
  const fuser_fusion *f = fuser_bundle_find_fusion(bundle, "bias_gelu");
  EXPECT(f && fuser_fusion_num_args(f) == 2 && fuser_fusion_num_results(f) == 2);
  if (f) {
    fprintf(stderr, "signature: %s %s -> %s %s\n", fuser_fusion_arg(f, 0)->name,
            fuser_fusion_arg(f, 1)->name, fuser_fusion_result(f, 0)->name,
            fuser_fusion_result(f, 1)->name);
    enum { rows = 3, cols = 16, n = rows * cols };
    float x[n], bias[cols], y[n];
    unsigned char pos[n];
    for (int i = 0; i < n; ++i)
      x[i] = (float)(i % 7) * 0.5f - 1.75f;
    for (int j = 0; j < cols; ++j)
      bias[j] = 0.125f * (float)j - 1.0f;
    size_t numDims = fuser_fusion_num_dyn_dims(f);
    int64_t dims[3] = {rows, 0, 0};
    EXPECT(numDims == 3);
    check(fuser_fusion_infer_dims(f, dims, numDims, dims), "infer dims");
    EXPECT(dims[1] == rows && dims[2] == rows);
    uint64_t buf[4] = {0, 0, 0, 0};
    size_t bytes[4] = {sizeof x, sizeof bias, sizeof y, sizeof pos};
    bool ok = true;
    for (int i = 0; i < 4 && ok; ++i)
      ok = check(fuser_mem_alloc(rt, bytes[i], &buf[i]), "alloc");
    ok = ok && check(fuser_mem_copy_h2d(rt, buf[0], x, sizeof x), "copy") &&
         check(fuser_mem_copy_h2d(rt, buf[1], bias, sizeof bias), "copy") &&
         check(fuser_run(f, buf, buf + 2, dims, numDims, NULL, NULL), "run") &&
         check(fuser_device_synchronize(rt), "sync") &&
         check(fuser_mem_copy_d2h(rt, y, buf[2], sizeof y), "copy") &&
         check(fuser_mem_copy_d2h(rt, pos, buf[3], sizeof pos), "copy");
    if (ok) {
      double worst = 0;
      int mismatches = 0;
      for (int i = 0; i < n; ++i) {
        double ref = geluTanh((double)x[i] + (double)bias[i % cols]);
        double err = fabs((double)y[i] - ref) / (1.0 + fabs(ref));
        worst = err > worst ? err : worst;
        mismatches += (pos[i] != 0) != (y[i] > 0);
      }
      fprintf(stderr, "emulator run: %s (worst relative error %s 1e-5), %d sign mismatches\n",
              worst <= 1e-5 ? "matches" : "differs", worst <= 1e-5 ? "<=" : ">", mismatches);
      EXPECT(worst <= 1e-5 && mismatches == 0);
    }
    /* A size the plan rejects is an error value, not a crash. */
    int64_t wrong[3] = {rows, rows + 1, rows};
    fuser_error *e = fuser_run(f, buf, buf + 2, wrong, numDims, NULL, NULL);
    EXPECT(e != NULL);
    fuser_error_destroy(e);
    for (int i = 0; i < 4; ++i)
      fuser_error_destroy(fuser_mem_free(rt, buf[i]));
  }
  fuser_bundle_destroy(bundle);
  fuser_rt_destroy(rt);
}

static void testCompileAndRun(MlirContext ctx) {
  fprintf(stderr, "@testCompileAndRun\n");
  MlirModule m = buildBiasGelu(ctx);
  FuserCompileOptions o = fuserCompileOptionsCreate();
  fuserCompileOptionsSetChip(o, S("sm_80"));
  fuserCompileOptionsSetKeepStages(o, true);
  fuserCompileOptionsSetOptLevel(o, 2);
  FuserCompileResult r = fuserCompile(m, o);
  fuserCompileOptionsDestroy(o);
  printDiagnostics(r);
  EXPECT(fuserCompileResultIsSuccess(r));
  EXPECT(fuserCompileResultGetNumFusions(r) == 1);
  MlirStringRef name = fuserCompileResultGetFusionName(r, 0);
  fprintf(stderr, "fusion: %.*s\n", (int)name.length, name.data);
  EXPECT(contains(fuserCompileResultGetFusionPtx(r, 0), ".visible .entry"));
  EXPECT(contains(fuserCompileResultGetFusionPtx(r, 0), ".target sm_80"));
  EXPECT(contains(fuserCompileResultGetFusionKernelIR(r, 0), "gpu.func"));
  EXPECT(fuserCompileResultGetFusionPtx(r, 1).length == 0); /* out of range */
  for (intptr_t i = 0; i < fuserCompileResultGetNumStages(r); ++i) {
    MlirStringRef s = fuserCompileResultGetStageName(r, i);
    fprintf(stderr, "stage: %.*s\n", (int)s.length, s.data);
    EXPECT(fuserCompileResultGetStageIR(r, i).length > 0);
  }
  /* Where the time went: every step, each a time, LLVM's back end busy. */
  double backEnd = 0;
  for (intptr_t i = 0; i < fuserCompileResultGetNumTimings(r); ++i) {
    MlirStringRef s = fuserCompileResultGetTimingName(r, i);
    double ms = fuserCompileResultGetTimingMs(r, i);
    fprintf(stderr, "timing: %.*s\n", (int)s.length, s.data);
    EXPECT(ms >= 0 && ms < 60000);
    if (s.length == 14 && !memcmp(s.data, "nvptx-back-end", 14))
      backEnd = ms;
  }
  EXPECT(backEnd > 0);
  EXPECT(fuserCompileResultGetTimingMs(r, fuserCompileResultGetNumTimings(r)) == -1);
  MlirStringRef bundle = fuserCompileResultGetBundle(r);
  EXPECT(bundle.length > 64 && !memcmp(bundle.data, "FUSERBND", 8));
  runOnEmulator(bundle);
  fuserCompileResultDestroy(r);
  /* The module is unchanged by compiling and compiles again. */
  EXPECT(mlirOperationVerify(mlirModuleGetOperation(m)));
  mlirModuleDestroy(m);
}
// CHECK-LABEL: @testCompileAndRun
// CHECK-NEXT: fusion: bias_gelu
// CHECK-NEXT: stage: input
// CHECK: stage: ptx
// CHECK-NEXT: timing: check
// CHECK-NEXT: timing: decompose
// CHECK-NEXT: timing: segment
// CHECK-NEXT: timing: kernels
// CHECK-NEXT: timing: kernel-ir-text
// CHECK-NEXT: timing: nvvm
// CHECK-NEXT: timing: ptx
// CHECK-NEXT: timing: llvm-translate
// CHECK-NEXT: timing: llvm-middle-end
// CHECK-NEXT: timing: nvptx-back-end
// CHECK-NEXT: timing: bundle
// CHECK: signature: x bias -> y positive
// CHECK-NEXT: emulator run: matches (worst relative error <= 1e-5), 0 sign mismatches

/* fuserCompileOptionsSetExplainSchedule: the decisions come back as
   remarks in the diagnostics of a successful compile, every time (such a
   compile bypasses the cache). */
static void testExplainSchedule(MlirContext ctx) {
  fprintf(stderr, "@testExplainSchedule\n");
  MlirModule m = buildBiasGelu(ctx);
  FuserCompileOptions o = fuserCompileOptionsCreate();
  fuserCompileOptionsSetEmulation(o, false);
  fuserCompileOptionsSetSchedule(o, S("pointwise.units=2"));
  fuserCompileOptionsSetExplainSchedule(o, true);
  for (int i = 0; i < 2; ++i) {
    FuserCompileResult r = fuserCompile(m, o);
    MlirStringRef d = fuserCompileResultGetDiagnostics(r);
    EXPECT(fuserCompileResultIsSuccess(r));
    EXPECT(!fuserCompileResultIsCacheHit(r));
    EXPECT(contains(d, "remark: schedule of @"));
    EXPECT(contains(d, "pointwise.block = 256: threads per block of a pointwise kernel; the "
                       "heuristic's default"));
    EXPECT(contains(d, "pointwise.units = 2: vector units per thread per loop step of a "
                       "pointwise kernel; from the schedule option"));
    /* Then the kernels, with what was decided at emission. */
    EXPECT(contains(d, "remark: kernels of @"));
    EXPECT(contains(d, "32-bit index, block 256 x 1 x 1; pointwise, "));
    EXPECT(contains(d, "2 unit(s) a thread a step"));
    fuserCompileResultDestroy(r);
  }
  /* A schedule for one named fusion: MLIR's own C API puts a
     #fuser.schedule on its func.func, and it wins over the option. */
  MlirOperation fusion = mlirBlockGetFirstOperation(mlirModuleGetBody(m));
  MlirAttribute schedule =
      mlirAttributeParseGet(ctx, S("#fuser.schedule<pointwise.units = 3, pointwise.block = 128>"));
  EXPECT(!mlirAttributeIsNull(schedule));
  mlirOperationSetDiscardableAttributeByName(fusion, S("fuser.schedule"), schedule);
  FuserCompileResult r = fuserCompile(m, o);
  MlirStringRef d = fuserCompileResultGetDiagnostics(r);
  EXPECT(fuserCompileResultIsSuccess(r));
  EXPECT(contains(d, "pointwise.block = 128: threads per block of a pointwise kernel; from the "
                     "fusion's fuser.schedule"));
  EXPECT(contains(d, "pointwise.units = 3: vector units per thread per loop step of a "
                     "pointwise kernel; from the fusion's fuser.schedule"));
  fuserCompileResultDestroy(r);
  /* One the verifier rejects never reaches a kernel: the attribute is
     null, with a message naming the key. */
  EXPECT(mlirAttributeIsNull(
      mlirAttributeParseGet(ctx, S("#fuser.schedule<pointwise.block = 100>"))));
  mlirOperationRemoveDiscardableAttributeByName(fusion, S("fuser.schedule"));
  /* Without explain: no remark. */
  fuserCompileOptionsSetExplainSchedule(o, false);
  r = fuserCompile(m, o);
  EXPECT(fuserCompileResultIsSuccess(r));
  EXPECT(!contains(fuserCompileResultGetDiagnostics(r), "remark"));
  fuserCompileResultDestroy(r);
  fuserCompileOptionsDestroy(o);
  mlirModuleDestroy(m);
}
// CHECK-LABEL: @testExplainSchedule

static void appendString(MlirStringRef s, void *userData) {
  strncat((char *)userData, s.data, s.length);
}

/* What a tuner reads (fuser-c/Tuning.h), and a tuning file's text applied
 * through the compile options. */
static void testTuning(MlirContext ctx) {
  fprintf(stderr, "@testTuning\n");
  /* Every key's values to try are legal, and none is its default; every
   * key has some but innerouter.min_threads, which reorders the row sums. */
  unsigned numKeys = fuserGetNumScheduleKeys();
  EXPECT(numKeys >= 9);
  for (unsigned k = 0; k < numKeys; ++k) {
    FuserScheduleKeyInfo key;
    EXPECT(fuserGetScheduleKey(k, &key));
    EXPECT((key.numTryValues > 0) == (strcmp(key.name, "innerouter.min_threads") != 0 &&
                                     strcmp(key.name, "reduction.threads") != 0 &&
                                     strcmp(key.name, "reduction.splits") != 0 &&
                                     strcmp(key.name, "reduction.column_threads") != 0 &&
                                     strcmp(key.name, "reduction.column_rows") != 0 &&
                                     strcmp(key.name, "reduction.vector_bytes") != 0 &&
                                     strcmp(key.name, "kernel.index_bits") != 0));
    for (unsigned v = 0; v < key.numTryValues; ++v) {
      int64_t x = key.tryValues[v];
      EXPECT(x >= key.lo && x <= key.hi);
      EXPECT(!key.powerOfTwo || (x > 0 && (x & (x - 1)) == 0));
      EXPECT(!key.hasDefault || x != key.defaultValue);
    }
  }
  FuserScheduleKeyInfo key;
  EXPECT(!fuserGetScheduleKey(numKeys, &key));
  EXPECT(!fuserGetScheduleKey(0, NULL));
  EXPECT(fuserGetScheduleKey(0, &key) && !strcmp(key.name, "pointwise.block"));
  FuserChipInfo chip;
  EXPECT(fuserGetChipInfo(S("sm_90"), &chip) && chip.smCount == 132 && chip.sm == 90);
  EXPECT(!fuserGetChipInfo(S("sm_70"), &chip));

  /* The hash: the same for a renamed copy, another for another op. */
  const char *src = "func.func @a(%x: tensor<8xf32>) -> tensor<8xf32> {\n"
                    "  %0 = fuser.exp %x : tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n"
                    "func.func @b(%y: tensor<8xf32>) -> tensor<8xf32> {\n"
                    "  %r = fuser.exp %y : tensor<8xf32>\n  return %r : tensor<8xf32>\n}\n"
                    "func.func @c(%x: tensor<8xf32>) -> tensor<8xf32> {\n"
                    "  %0 = fuser.tanh %x : tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n";
  MlirModule m = fuserParseSourceString(ctx, S(src), S("tuning.mlir"), NULL, NULL);
  EXPECT(!mlirModuleIsNull(m));
  char a[64] = "", b[64] = "", c[64] = "";
  EXPECT(fuserPrintFusionTuningHash(m, S("a"), appendString, a));
  EXPECT(fuserPrintFusionTuningHash(m, S("b"), appendString, b));
  EXPECT(fuserPrintFusionTuningHash(m, S("c"), appendString, c));
  EXPECT(strlen(a) == 16 && !strcmp(a, b) && strcmp(a, c));
  EXPECT(!fuserPrintFusionTuningHash(m, S("nope"), appendString, c));

  /* An entry moves the launch of @a and @b (their kernels' reqntid), not
   * @c; the compile cache keys on the text. */
  FuserCompileOptions o = fuserCompileOptionsCreate();
  fuserCompileOptionsSetEmulation(o, false);
  FuserCompileResult plain = fuserCompile(m, o);
  EXPECT(fuserCompileResultIsSuccess(plain));
  char text[160];
  snprintf(text, sizeof text, "# a comment\n%s sm_90 pointwise.block=64\n", a);
  fuserCompileOptionsSetTuning(o, S(text), S("my.tuning"));
  FuserCompileResult tuned = fuserCompile(m, o);
  EXPECT(fuserCompileResultIsSuccess(tuned));
  EXPECT(!fuserCompileResultIsCacheHit(tuned));
  for (intptr_t i = 0; i < 3; ++i) {
    MlirStringRef name = fuserCompileResultGetFusionName(tuned, i);
    bool moved = !(name.length == 1 && name.data[0] == 'c');
    EXPECT(contains(fuserCompileResultGetFusionPtx(tuned, i), ".maxntid 64,") == moved);
    EXPECT(contains(fuserCompileResultGetFusionPtx(plain, i), ".maxntid 256,"));
  }
  fuserCompileResultDestroy(tuned);
  fuserCompileResultDestroy(plain);
  /* A bad entry: the source and line. */
  fuserCompileOptionsSetTuning(o, S("\nnot-a-hash sm_90 pointwise.block=64\n"), S("my.tuning"));
  FuserCompileResult bad = fuserCompile(m, o);
  EXPECT(!fuserCompileResultIsSuccess(bad));
  printDiagnostics(bad);
  fuserCompileResultDestroy(bad);
  fuserCompileOptionsSetTuning(o, S("x y"), (MlirStringRef){NULL, 0});
  bad = fuserCompile(m, o);
  printDiagnostics(bad);
  fuserCompileResultDestroy(bad);
  mlirModuleDestroy(m);

  /* Segments: their schedulers, the keys each reads, and a decision for
   * one of them alone (KEY[SEGMENT]). */
  const char *two =
      "func.func @two(%x: tensor<64x512xf32>, %y: tensor<512x100xf32>) -> (tensor<64xf32>, "
      "tensor<512xf32>) {\n"
      "  %e = fuser.exp %x : tensor<64x512xf32>\n"
      "  %s = fuser.sum %e dims = [1] : tensor<64x512xf32> -> tensor<64xf32>\n"
      "  %t = fuser.sum %y dims = [1] : tensor<512x100xf32> -> tensor<512xf32>\n"
      "  return %s, %t : tensor<64xf32>, tensor<512xf32>\n}\n";
  m = fuserParseSourceString(ctx, S(two), S("two.mlir"), NULL, NULL);
  EXPECT(!mlirModuleIsNull(m));
  char schedulers[128] = "";
  EXPECT(fuserPrintFusionSegments(m, S("two"), appendString, schedulers) == 2);
  EXPECT(!strcmp(schedulers, "reductionreduction"));
  EXPECT(fuserPrintFusionSegments(m, S("nope"), appendString, schedulers) == -1);
  EXPECT(fuserPrintFusionSegments((MlirModule){NULL}, S("two"), appendString, NULL) == -1);
  for (unsigned k = 0; k < numKeys; ++k) {
    fuserGetScheduleKey(k, &key);
    bool everyKernel = !strncmp(key.name, "kernel.", 7);
    EXPECT(fuserScheduleKeyAppliesTo(k, S("reduction")) ==
           (everyKernel || !strncmp(key.name, "reduction.", 10)));
    EXPECT(fuserScheduleKeyAppliesTo(k, S("normalization")) ==
           (everyKernel || !strncmp(key.name, "reduction.", 10)));
    EXPECT(fuserScheduleKeyAppliesTo(k, S("matmul")) == false);
    EXPECT(!fuserScheduleKeyAppliesTo(k, S("nonsense")));
  }
  EXPECT(!fuserScheduleKeyAppliesTo(numKeys, S("reduction")));
  /* reduction.block[1]: the default's value (256) gives the plain bundle,
   * another one another bundle (segment 1's blocks: fuserc's
   * segment-schedule.test shows the launch). */
  fuserCompileOptionsSetTuning(o, S(""), S("my.tuning"));
  plain = fuserCompile(m, o);
  fuserCompileOptionsSetSchedule(o, S("reduction.block[1]=256"));
  FuserCompileResult same = fuserCompile(m, o);
  fuserCompileOptionsSetSchedule(o, S("reduction.block[1]=512"));
  FuserCompileResult other = fuserCompile(m, o);
  EXPECT(fuserCompileResultIsSuccess(plain) && fuserCompileResultIsSuccess(same) &&
         fuserCompileResultIsSuccess(other));
  MlirStringRef p = fuserCompileResultGetBundle(plain), q = fuserCompileResultGetBundle(same),
                r = fuserCompileResultGetBundle(other);
  EXPECT(p.length == q.length && !memcmp(p.data, q.data, p.length));
  EXPECT(p.length != r.length || memcmp(p.data, r.data, p.length));
  fuserCompileResultDestroy(plain);
  fuserCompileResultDestroy(same);
  fuserCompileResultDestroy(other);
  fuserCompileOptionsSetSchedule(o, S("reduction.block[2]=512"));
  bad = fuserCompile(m, o);
  EXPECT(!fuserCompileResultIsSuccess(bad));
  printDiagnostics(bad);
  fuserCompileResultDestroy(bad);
  fuserCompileOptionsDestroy(o);
  mlirModuleDestroy(m);
}
// CHECK-LABEL: @testTuning
// CHECK-NEXT: my.tuning:2:1: error: the fusion hash must be 16 hex digits, got 'not-a-hash'
// CHECK-NEXT: tuning:1:1: error: a tuning entry is 'HASH CHIP SCHEDULE' (three fields separated by spaces), got 'x y'
// CHECK-NEXT: two.mlir:1:1: error: the schedule option sets reduction.block[2], but @two has 2 segments (--fuser-segment=dump lists them)

static void testCompileFailures(MlirContext ctx) {
  fprintf(stderr, "@testCompileFailures\n");
  FuserCompileOptions o = fuserCompileOptionsCreate();
  /* Null module, null options. */
  FuserCompileResult r = fuserCompile((MlirModule){NULL}, o);
  EXPECT(!fuserCompileResultIsSuccess(r));
  EXPECT(fuserCompileResultGetBundle(r).length == 0);
  printDiagnostics(r);
  fuserCompileResultDestroy(r);
  MlirModule m = buildBiasGelu(ctx);
  r = fuserCompile(m, (FuserCompileOptions){NULL});
  printDiagnostics(r);
  fuserCompileResultDestroy(r);
  /* A module in a context without fuser's dialects (mlirContextCreate's,
     which a builder accepts): the error said "expected exactly one GPU
     target attribute (nvvm-attach-target)". */
  MlirContext plain = mlirContextCreate();
  MlirModule pm = mlirModuleCreateEmpty(mlirLocationUnknownGet(plain));
  r = fuserCompile(pm, o);
  EXPECT(!fuserCompileResultIsSuccess(r));
  printDiagnostics(r);
  fuserCompileResultDestroy(r);
  mlirModuleDestroy(pm);
  mlirContextDestroy(plain);
  /* A bad option. */
  fuserCompileOptionsSetChip(o, S("sm_12"));
  r = fuserCompile(m, o);
  EXPECT(!fuserCompileResultIsSuccess(r));
  EXPECT(fuserCompileResultGetNumFusions(r) == 0);
  printDiagnostics(r);
  fuserCompileResultDestroy(r);
  /* A math tier outside the enum. */
  fuserCompileOptionsSetChip(o, S("sm_90"));
  fuserCompileOptionsSetMathAccuracy(o, (FuserMathAccuracy)7);
  r = fuserCompile(m, o);
  EXPECT(!fuserCompileResultIsSuccess(r));
  printDiagnostics(r);
  fuserCompileResultDestroy(r);
  fuserCompileOptionsSetMathAccuracy(o, FuserMathAccuracyPrecise);
  mlirModuleDestroy(m);
  /* An op the compiler does not take, with its location. */
  const char *src = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %0 = arith.negf %x : tensor<4xf32>\n"
                    "  return %0 : tensor<4xf32>\n"
                    "}\n";
  m = fuserParseSourceString(ctx, S(src), S("negf.mlir"), printToStderr, NULL);
  fuserCompileOptionsSetChip(o, S("sm_90"));
  r = fuserCompile(m, o);
  EXPECT(!fuserCompileResultIsSuccess(r));
  EXPECT(fuserCompileResultGetNumTimings(r) == 0); /* none after a failure */
  printDiagnostics(r);
  fuserCompileResultDestroy(r);
  mlirModuleDestroy(m);
  /* A compile error in a fusion built without a location of the caller's:
     it names the fusion (the builder's default location), where it said
     "<unknown>" and a module of several fusions left the reader guessing. */
  FuserBuilder b = fuserBuilderCreate(ctx, S("unsized"));
  MlirValue v = fuserBuilderAddInput(b, FuserDTypeF32, 1, (int64_t[]){4}, S("v"));
  fuserBuilderAddOutput(b, fuserBuildBroadcast(b, v, 2, (int64_t[]){DYN, 4}, (int64_t[]){1}, 1),
                        S("wide"));
  m = fuserBuilderFinishNewModule(b);
  fuserBuilderDestroy(b);
  r = fuserCompile(m, o);
  EXPECT(!fuserCompileResultIsSuccess(r));
  printDiagnostics(r);
  fuserCompileResultDestroy(r);
  mlirModuleDestroy(m);
  fuserCompileOptionsDestroy(o);
  /* Null handles read as failures, never crash. */
  FuserCompileOptions none = {NULL};
  fuserCompileOptionsSetChip(none, S("sm_90"));
  fuserCompileOptionsSetPtxVersion(none, 80);
  fuserCompileOptionsSetFastMath(none, true);
  fuserCompileOptionsSetIndexBits(none, 32);
  fuserCompileOptionsSetOptLevel(none, 1);
  fuserCompileOptionsSetMathAccuracy(none, FuserMathAccuracyPrecise);
  fuserCompileOptionsSetKeepStages(none, true);
  fuserCompileOptionsSetEmulation(none, false);
  fuserCompileOptionsSetAssumeAligned(none, true);
  fuserCompileOptionsSetExplainSchedule(none, true);
  fuserCompileOptionsDestroy(none);
  FuserCompileResult nr = {NULL};
  EXPECT(!fuserCompileResultIsSuccess(nr));
  EXPECT(fuserCompileResultGetNumFusions(nr) == 0 && fuserCompileResultGetNumStages(nr) == 0);
  EXPECT(fuserCompileResultGetFusionName(nr, 0).length == 0);
  EXPECT(fuserCompileResultGetStageIR(nr, -1).length == 0);
  EXPECT(fuserCompileResultGetNumTimings(nr) == 0);
  EXPECT(fuserCompileResultGetTimingName(nr, 0).length == 0);
  EXPECT(fuserCompileResultGetTimingMs(nr, 0) == -1);
  printDiagnostics(nr);
  fuserCompileResultDestroy(nr);
  /* The emulator with a NULL out-parameter. */
  fuser_error *e = fuserEmulatorRuntimeCreate(NULL, NULL);
  fprintf(stderr, "%s\n", fuser_error_message(e));
  fuser_error_destroy(e);
  uint64_t loaded = 0;
  e = fuserEmulatorGetTraffic(NULL, 0, &loaded, &loaded);
  fprintf(stderr, "%s\n", fuser_error_message(e));
  fuser_error_destroy(e);
}
// CHECK-LABEL: @testCompileFailures
// CHECK-NEXT: <api>: error: fuserCompile: the module is null
// CHECK-NEXT: <api>: error: fuserCompile: the options are null
// CHECK-NEXT: <api>: error: fuserCompile: the module's context lacks fuser's dialects: create it with fuserContextCreate, or register fuserRegisterAllDialects in its registry
// CHECK-NEXT: error: unknown chip 'sm_12'; expected sm_80, sm_89, sm_90 or sm_100
// CHECK-NEXT: error: math must be fast or precise, got '(7)'
// CHECK-NEXT: negf.mlir:2:8: error: 'arith.negf' is not a fuser tensor op: a fusion holds fuser ops and a return
// CHECK-NEXT: unsized: error: 'fuser.broadcast' op cannot determine the size of dim 0
// CHECK: <api>: error: the compile result is null
// CHECK-NEXT: fuserEmulatorRuntimeCreate: NULL out
// CHECK-NEXT: fuserEmulatorGetTraffic: NULL runtime

int main(void) {
  testRegistration();
  MlirContext ctx = fuserContextCreate();
  testPasses(ctx);
  testParse(ctx);
  testDifferentiate(ctx);
  testCompileAndRun(ctx);
  testExplainSchedule(ctx);
  testTuning(ctx);
  testCompileFailures(ctx);
  mlirContextDestroy(ctx);
  fprintf(stderr, "@done: %d failures\n", failures);
  return failures ? 1 : 0;
}
// CHECK-LABEL: @done: 0 failures
