/*===- layernorm.c - torch.native_layer_norm over the last dim in bf16 ---===*\
|*                                                                            *|
|* x is bf16[?, 768] (rows dynamic), weight and bias bf16[768], eps 1e-5.     *|
|* fuserBuildLayerNorm returns the output (bf16) and the mean and reciprocal  *|
|* standard deviation (f32, [?, 1]), as torch.native_layer_norm does. The     *|
|* fusion is compiled, run on the GPU or the CPU emulator, and compared with  *|
|* a reference computed here in double precision.                             *|
|*                                                                            *|
|* Tolerances: mean and rstd are computed in f32 over 768 values, one row     *|
|* with a mean of 300: mean |got - ref| <= 1e-6 + 1e-5 |ref|, rstd            *|
|* <= 1e-6 + 1e-4 |ref|. The output is a bf16 rounding of an f32              *|
|* value (one bf16 ulp, 2^-8 relative, plus the f32 error scaled by |w|):     *|
|* |got - ref| <= 2e-3 + 2^-7 |ref|.                                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "example_util.h"

enum { kRows = 48, kCols = 768 };
static const double kEps = 1e-5;

static MlirModule buildLayerNorm(MlirContext ctx) {
  FuserBuilder b = fuserBuilderCreate(ctx, EX_STR("layernorm"));
  int64_t xShape[] = {FUSER_DYNAMIC, kCols}, wShape[] = {kCols};
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeBF16, 2, xShape, EX_STR("x"));
  MlirValue w = fuserBuilderAddInput(b, FuserDTypeBF16, 1, wShape, EX_STR("weight"));
  MlirValue bias = fuserBuilderAddInput(b, FuserDTypeBF16, 1, wShape, EX_STR("bias"));
  MlirValue mean, rstd;
  int64_t dims[] = {-1};
  MlirValue y = fuserBuildLayerNorm(b, x, w, bias, dims, 1, kEps, &mean, &rstd);
  fuserBuilderAddOutput(b, y, EX_STR("y"));
  fuserBuilderAddOutput(b, mean, EX_STR("mean"));
  fuserBuilderAddOutput(b, rstd, EX_STR("rstd"));
  return exFinish(b);
}

int main(void) {
  MlirContext ctx = fuserContextCreate();
  MlirModule module = buildLayerNorm(ctx);
  FuserCompileResult compiled =
      mlirModuleIsNull(module) ? (FuserCompileResult){NULL} : exCompile(module);
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  if (!compiled.ptr) {
    fprintf(stderr, "layernorm: FAILED (compilation)\n");
    return 1;
  }

  static uint16_t x[kRows * kCols], w[kCols], bias[kCols], y[kRows * kCols];
  static float yf[kRows * kCols], mean[kRows], rstd[kRows];
  static double wantY[kRows * kCols], wantMean[kRows], wantRstd[kRows];
  uint64_t seed = 1234;
  for (size_t r = 0; r < kRows; ++r) {
    /* Rows with different offsets and spreads, one far from zero. */
    float offset = r == 0 ? 300.0f : exRandom(&seed, -3.0f, 3.0f);
    float spread = r == 0 ? 16.0f : exRandom(&seed, 0.25f, 4.0f);
    for (size_t j = 0; j < kCols; ++j)
      x[r * kCols + j] = exToBF16(offset + spread * exRandom(&seed, -1.0f, 1.0f));
  }
  for (size_t j = 0; j < kCols; ++j) {
    w[j] = exToBF16(exRandom(&seed, 0.5f, 1.5f));
    bias[j] = exToBF16(exRandom(&seed, -0.5f, 0.5f));
  }

  int status = 1;
  fuser_rt *rt = exRuntime();
  const void *inputs[] = {x, w, bias};
  void *outputs[] = {y, mean, rstd};
  int64_t rows = kRows;
  if (rt && exRun(rt, fuserCompileResultGetBundle(compiled), "layernorm", inputs, outputs,
                  &rows, 1)) {
    for (size_t r = 0; r < kRows; ++r) {
      double m = 0, v = 0;
      for (size_t j = 0; j < kCols; ++j)
        m += exFromBF16(x[r * kCols + j]);
      m /= kCols;
      for (size_t j = 0; j < kCols; ++j) {
        double d = exFromBF16(x[r * kCols + j]) - m;
        v += d * d;
      }
      v /= kCols; /* biased, as layer_norm */
      wantMean[r] = m;
      wantRstd[r] = 1.0 / sqrt(v + kEps);
      for (size_t j = 0; j < kCols; ++j)
        wantY[r * kCols + j] = (exFromBF16(x[r * kCols + j]) - m) * wantRstd[r] *
                                   exFromBF16(w[j]) +
                               exFromBF16(bias[j]);
    }
    for (size_t i = 0; i < kRows * kCols; ++i)
      yf[i] = exFromBF16(y[i]);
    bool ok = exCompare("layernorm mean", mean, wantMean, kRows, 1e-6, 1e-5);
    ok &= exCompare("layernorm rstd", rstd, wantRstd, kRows, 1e-6, 1e-4);
    ok &= exCompare("layernorm y", yf, wantY, kRows * kCols, 2e-3, 0x1p-7);
    status = ok ? 0 : 1;
  }
  fuser_rt_destroy(rt);
  fuserCompileResultDestroy(compiled);
  fprintf(stderr, "layernorm: %s\n", status ? "FAILED" : "ok");
  return status;
}
