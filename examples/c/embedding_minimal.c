/* embedding_minimal.c: build, compile and run a fusion through fuser's C API.
 *
 * y = relu(x * 2 + b) for x: f32[?, 4] and b: f32[4], run on the GPU when
 * the CUDA driver has one and on the CPU emulator otherwise. docs/embedding.md
 * prints this file; a test checks that the two are identical. */
#include "fuser-c/Builder.h"
#include "fuser-c/Compiler.h"
#include "fuser-c/Dialects.h"
#include "fuser-c/Emulator.h"
#include "fuser_runtime.h"

#include <math.h>
#include <stdio.h>

#define STR(s) mlirStringRefCreateFromCString(s)

/* Prints and frees a runtime error; true when there was one. */
static int failed(fuser_error *e) {
  if (e)
    fprintf(stderr, "error: %s\n", fuser_error_message(e));
  fuser_error_destroy(e);
  return e != NULL;
}

int main(void) {
  /* 1. Build the fusion. Builder calls never abort: a failed call returns a
   *    null value, later calls pass it on, and finishing reports the error. */
  MlirContext ctx = fuserContextCreate();
  FuserBuilder b = fuserBuilderCreate(ctx, STR("scale_bias_relu"));
  int64_t xShape[] = {FUSER_DYNAMIC, 4}, bShape[] = {4};
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 2, xShape, STR("x"));
  MlirValue bias = fuserBuilderAddInput(b, FuserDTypeF32, 1, bShape, STR("b"));
  MlirValue scaled = fuserTorchMul(b, x, fuserTorchScalarF64(b, 2.0));
  MlirValue y = fuserBuildRelu(b, fuserTorchAdd(b, scaled, bias));
  fuserBuilderAddOutput(b, y, STR("y"));
  MlirModule module = fuserBuilderFinishNewModule(b);
  if (mlirModuleIsNull(module)) {
    MlirStringRef msg = fuserBuilderGetError(b);
    fprintf(stderr, "%.*s\n", (int)msg.length, msg.data);
  }
  fuserBuilderDestroy(b);
  if (mlirModuleIsNull(module)) {
    mlirContextDestroy(ctx);
    return 1;
  }

  /* 2. Compile it to a kernel bundle. */
  FuserCompileOptions options = fuserCompileOptionsCreate();
  FuserCompileResult result = fuserCompile(module, options);
  fuserCompileOptionsDestroy(options);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  if (!fuserCompileResultIsSuccess(result)) {
    MlirStringRef diags = fuserCompileResultGetDiagnostics(result);
    fprintf(stderr, "%.*s", (int)diags.length, diags.data);
    fuserCompileResultDestroy(result);
    return 1;
  }

  /* 3. Load the bundle on the GPU, or on the CPU emulator. */
  fuser_rt *rt = NULL;
  fuser_error *e = fuser_rt_create(NULL, &rt);
  if (e) {
    fuser_error_destroy(e);
    e = fuserEmulatorRuntimeCreate(NULL, &rt);
  }
  fuser_bundle *bundle = NULL;
  MlirStringRef bytes = fuserCompileResultGetBundle(result);
  if (!failed(e))
    e = fuser_bundle_load(rt, bytes.data, bytes.length, &bundle);
  fuserCompileResultDestroy(result); /* the bundle keeps its own copy */
  if (failed(e)) {
    fuser_rt_destroy(rt);
    return 1;
  }

  /* 4. Run it on two rows. The dynamic dims are every `?` of the arguments,
   *    then of the results: x's rows, y's rows. */
  const fuser_fusion *f = fuser_bundle_find_fusion(bundle, "scale_bias_relu");
  float hx[8] = {-2, -1, 0, 1, 2, 3, 4, 5}, hb[4] = {0.5f, 0.5f, -4, -4}, hy[8];
  int64_t dims[2] = {2, 2};
  uint64_t dx = 0, db = 0, dy = 0;
  int status = 1;
  if (!failed(fuser_mem_alloc(rt, sizeof hx, &dx)) &&
      !failed(fuser_mem_alloc(rt, sizeof hb, &db)) &&
      !failed(fuser_mem_alloc(rt, sizeof hy, &dy)) &&
      !failed(fuser_mem_copy_h2d(rt, dx, hx, sizeof hx)) &&
      !failed(fuser_mem_copy_h2d(rt, db, hb, sizeof hb))) {
    uint64_t args[2] = {dx, db}, results[1] = {dy};
    if (!failed(fuser_run(f, args, results, dims, 2, NULL, NULL)) &&
        !failed(fuser_device_synchronize(rt)) &&
        !failed(fuser_mem_copy_d2h(rt, hy, dy, sizeof hy))) {
      /* 5. Check against the same computation in C. */
      status = 0;
      for (int i = 0; i < 8; ++i) {
        float want = fmaxf(hx[i] * 2 + hb[i % 4], 0);
        printf("y[%d] = %g (expected %g)\n", i, hy[i], want);
        if (fabsf(hy[i] - want) > 1e-6f)
          status = 1;
      }
    }
  }
  fuser_error_destroy(fuser_mem_free(rt, dx));
  fuser_error_destroy(fuser_mem_free(rt, db));
  fuser_error_destroy(fuser_mem_free(rt, dy));
  fuser_bundle_destroy(bundle);
  fuser_rt_destroy(rt);
  printf("%s\n", status ? "FAILED" : "ok");
  return status;
}
