/*===- softmax.c - y = softmax(x, dim=-1) over rows of f32 ---------------===*\
|*                                                                            *|
|* Attention-score softmax: x is f32[?, 512] (rows dynamic). Built with       *|
|* fuserBuildSoftmax (decomposed by the compiler into max, exp, sum and div), *|
|* compiled, run on the GPU or the CPU emulator, and compared with a          *|
|* reference computed here in double precision.                               *|
|*                                                                            *|
|* Tolerance: f32 exp, sum and division, 512 terms: |got - ref| <= 1e-7 +     *|
|* 1e-5 |ref|.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "example_util.h"

enum { kRows = 64, kCols = 512 };

static MlirModule buildSoftmax(MlirContext ctx) {
  FuserBuilder b = fuserBuilderCreate(ctx, EX_STR("softmax"));
  int64_t shape[] = {FUSER_DYNAMIC, kCols};
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 2, shape, EX_STR("x"));
  fuserBuilderAddOutput(b, fuserBuildSoftmax(b, x, -1), EX_STR("y"));
  return exFinish(b);
}

int main(void) {
  MlirContext ctx = fuserContextCreate();
  MlirModule module = buildSoftmax(ctx);
  FuserCompileResult compiled =
      mlirModuleIsNull(module) ? (FuserCompileResult){NULL} : exCompile(module);
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  if (!compiled.ptr) {
    fprintf(stderr, "softmax: FAILED (compilation)\n");
    return 1;
  }

  static float x[kRows * kCols], y[kRows * kCols];
  static double want[kRows * kCols];
  uint64_t seed = 7;
  for (size_t i = 0; i < kRows * kCols; ++i)
    x[i] = exRandom(&seed, -8.0f, 8.0f);
  /* A row with a large common offset: softmax must subtract the max. */
  for (size_t j = 0; j < kCols; ++j)
    x[j] += 1000.0f;

  int status = 1;
  fuser_rt *rt = exRuntime();
  const void *inputs[] = {x};
  void *outputs[] = {y};
  int64_t rows = kRows;
  if (rt && exRun(rt, fuserCompileResultGetBundle(compiled), "softmax", inputs, outputs,
                  &rows, 1)) {
    for (size_t r = 0; r < kRows; ++r) {
      const float *row = x + r * kCols;
      double max = row[0], sum = 0;
      for (size_t j = 1; j < kCols; ++j)
        max = row[j] > max ? row[j] : max;
      for (size_t j = 0; j < kCols; ++j)
        sum += exp((double)row[j] - max);
      for (size_t j = 0; j < kCols; ++j)
        want[r * kCols + j] = exp((double)row[j] - max) / sum;
    }
    status = exCompare("softmax y", y, want, kRows * kCols, 1e-7, 1e-5) ? 0 : 1;
  }
  fuser_rt_destroy(rt);
  fuserCompileResultDestroy(compiled);
  fprintf(stderr, "softmax: %s\n", status ? "FAILED" : "ok");
  return status;
}
