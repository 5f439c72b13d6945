/*===- gelu_bias.c - y = gelu(x + bias) in bf16, computed in f32 ---------===*\
|*                                                                            *|
|* The epilogue of a transformer MLP's first linear layer: x is bf16[?, 1024] *|
|* (rows dynamic), bias bf16[1024]. Built with the PyTorch layer of the       *|
|* builder, which inserts the broadcast of the bias; the sum is cast to f32   *|
|* for gelu (tanh approximation) and the result back to bf16, as a            *|
|* mixed-precision model would. Compiled, run on the GPU or the CPU emulator, *|
|* and compared with a reference computed here in double precision.           *|
|*                                                                            *|
|* Tolerance: each output is a bf16 rounding of a value computed in f32, so   *|
|* it may differ from the double-precision reference rounded to bf16 by one   *|
|* bf16 ulp: |got - ref| <= 1e-6 + 2^-7 |ref|.                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "example_util.h"

enum { kRows = 96, kCols = 1024 };

static MlirModule buildGeluBias(MlirContext ctx) {
  FuserBuilder b = fuserBuilderCreate(ctx, EX_STR("gelu_bias"));
  int64_t xShape[] = {FUSER_DYNAMIC, kCols}, biasShape[] = {kCols};
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeBF16, 2, xShape, EX_STR("x"));
  MlirValue bias = fuserBuilderAddInput(b, FuserDTypeBF16, 1, biasShape, EX_STR("bias"));
  /* bf16 + bf16 broadcast to [?, 1024], in f32 from here on. */
  MlirValue sum = fuserTorchAdd(b, fuserTorchTo(b, x, FuserDTypeF32),
                                fuserTorchTo(b, bias, FuserDTypeF32));
  MlirValue y = fuserBuildGelu(b, sum, FuserGeluTanh);
  fuserBuilderAddOutput(b, fuserBuildCast(b, y, FuserDTypeBF16), EX_STR("y"));
  return exFinish(b); /* null, with the builder's error printed, on failure */
}

static double geluTanh(double v) {
  return 0.5 * v * (1.0 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
}

int main(void) {
  MlirContext ctx = fuserContextCreate();
  MlirModule module = buildGeluBias(ctx);
  FuserCompileResult compiled =
      mlirModuleIsNull(module) ? (FuserCompileResult){NULL} : exCompile(module);
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  if (!compiled.ptr)
    return 1;

  static uint16_t x[kRows * kCols], bias[kCols], y[kRows * kCols];
  static float got[kRows * kCols];
  static double want[kRows * kCols];
  uint64_t seed = 42;
  for (size_t i = 0; i < kRows * kCols; ++i)
    x[i] = exToBF16(exRandom(&seed, -4.0f, 4.0f));
  for (size_t j = 0; j < kCols; ++j)
    bias[j] = exToBF16(exRandom(&seed, -1.0f, 1.0f));

  int status = 1;
  fuser_rt *rt = exRuntime();
  const void *inputs[] = {x, bias};
  void *outputs[] = {y};
  int64_t rows = kRows;
  if (rt && exRun(rt, fuserCompileResultGetBundle(compiled), "gelu_bias", inputs, outputs,
                  &rows, 1)) {
    for (size_t i = 0; i < kRows * kCols; ++i) {
      got[i] = exFromBF16(y[i]);
      want[i] = geluTanh((double)exFromBF16(x[i]) + (double)exFromBF16(bias[i % kCols]));
    }
    status = exCompare("gelu_bias y", got, want, kRows * kCols, 1e-6, 0x1p-7) ? 0 : 1;
  }
  fuser_rt_destroy(rt);
  fuserCompileResultDestroy(compiled);
  fprintf(stderr, "gelu_bias: %s\n", status ? "FAILED" : "ok");
  return status;
}
