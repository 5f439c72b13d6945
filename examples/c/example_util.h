/*===- example_util.h - what the C examples share ------------------------===*\
|*                                                                            *|
|* Compiling a module with fuserCompile, picking a device (the GPU when the   *|
|* CUDA driver has one, else the CPU emulator), running one fusion on host    *|
|* buffers, bf16 conversions, and comparing with a reference. Everything here *|
|* is plain use of the fuser-c headers and fuser_runtime.h;                   *|
|* embedding_minimal.c does the same inline, without this header.             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FUSER_EXAMPLES_C_EXAMPLE_UTIL_H
#define FUSER_EXAMPLES_C_EXAMPLE_UTIL_H

#include "fuser-c/Builder.h"
#include "fuser-c/Compiler.h"
#include "fuser-c/Dialects.h"
#include "fuser-c/Emulator.h"
#include "fuser_runtime.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EX_STR(s) mlirStringRefCreateFromCString(s)

/* Prints `what: message` for a runtime error and frees it; true if there
 * was one. */
static inline bool exFailed(fuser_error *e, const char *what) {
  if (!e)
    return false;
  fprintf(stderr, "%s: %s\n", what, fuser_error_message(e));
  fuser_error_destroy(e);
  return true;
}

/* Finishes the builder into a new module; on error prints it. */
static inline MlirModule exFinish(FuserBuilder b) {
  MlirModule m = fuserBuilderFinishNewModule(b);
  if (mlirModuleIsNull(m)) {
    MlirStringRef e = fuserBuilderGetError(b);
    fprintf(stderr, "%.*s\n", (int)e.length, e.data);
  }
  fuserBuilderDestroy(b);
  return m;
}

/* Compiles `module` with the default options (sm_90, emulation data
 * included). Returns the result on success (the caller destroys it); on
 * failure prints every diagnostic and returns a null result. */
static inline FuserCompileResult exCompile(MlirModule module) {
  FuserCompileOptions options = fuserCompileOptionsCreate();
  FuserCompileResult r = fuserCompile(module, options);
  fuserCompileOptionsDestroy(options);
  MlirStringRef diags = fuserCompileResultGetDiagnostics(r);
  fwrite(diags.data, 1, diags.length, stderr);
  if (!fuserCompileResultIsSuccess(r)) {
    fuserCompileResultDestroy(r);
    return (FuserCompileResult){NULL};
  }
  return r;
}

/* A runtime on the GPU when the CUDA driver gives one, else on the CPU
 * emulator. FUSER_EXAMPLE_DEVICE=cpu forces the emulator. */
static inline fuser_rt *exRuntime(void) {
  fuser_rt *rt = NULL;
  const char *want = getenv("FUSER_EXAMPLE_DEVICE");
  if (!want || strcmp(want, "cpu") != 0) {
    fuser_error *e = fuser_rt_create(NULL, &rt);
    if (!e) {
      fprintf(stderr, "device: GPU (CUDA driver)\n");
      return rt;
    }
    fprintf(stderr, "no GPU (%s); running on the CPU emulator\n",
            fuser_error_message(e));
    fuser_error_destroy(e);
  }
  if (exFailed(fuserEmulatorRuntimeCreate(NULL, &rt), "CPU emulator"))
    return NULL;
  fprintf(stderr, "device: CPU emulator\n");
  return rt;
}

/* Runs fusion `name` of `bundleBytes` on `rt`: copies the inputs in,
 * runs, copies the outputs back. `dyn` holds the dynamic dims of the
 * arguments (in signature order); the results' are inferred. Buffer sizes
 * come from the fusion's signature. */
static inline bool exRun(fuser_rt *rt, MlirStringRef bundleBytes, const char *name,
                         const void *const *inputs, void *const *outputs,
                         const int64_t *dyn, size_t numArgDyn) {
  fuser_bundle *bundle = NULL;
  if (exFailed(fuser_bundle_load(rt, bundleBytes.data, bundleBytes.length, &bundle),
               "loading the bundle"))
    return false;
  bool ok = false;
  const fuser_fusion *f = fuser_bundle_find_fusion(bundle, name);
  size_t nargs = f ? fuser_fusion_num_args(f) : 0;
  size_t nres = f ? fuser_fusion_num_results(f) : 0;
  size_t ndims = f ? fuser_fusion_num_dyn_dims(f) : 0;
  int64_t dims[64] = {0};
  uint64_t bufs[32] = {0};
  uint64_t bytes[32] = {0};
  if (!f || nargs + nres > 32 || ndims > 64 || numArgDyn > ndims) {
    fprintf(stderr, "fusion '%s' not found or too large\n", name);
    goto done;
  }
  memcpy(dims, dyn, numArgDyn * sizeof(int64_t));
  if (exFailed(fuser_fusion_infer_dims(f, dims, ndims, dims), name))
    goto done;
  for (size_t i = 0; i < nargs + nres; ++i) {
    if (exFailed(fuser_fusion_tensor_bytes(f, i, dims, ndims, &bytes[i]), name) ||
        exFailed(fuser_mem_alloc(rt, bytes[i] ? bytes[i] : 1, &bufs[i]), "alloc"))
      goto done;
    if (i < nargs &&
        exFailed(fuser_mem_copy_h2d(rt, bufs[i], inputs[i], bytes[i]), "copy in"))
      goto done;
  }
  if (exFailed(fuser_run(f, bufs, bufs + nargs, dims, ndims, NULL, NULL), name) ||
      exFailed(fuser_device_synchronize(rt), name))
    goto done;
  for (size_t i = 0; i < nres; ++i)
    if (exFailed(fuser_mem_copy_d2h(rt, outputs[i], bufs[nargs + i], bytes[nargs + i]),
                 "copy out"))
      goto done;
  ok = true;
done:
  for (size_t i = 0; i < 32; ++i)
    if (bufs[i])
      fuser_error_destroy(fuser_mem_free(rt, bufs[i]));
  fuser_bundle_destroy(bundle);
  return ok;
}

/* bf16 <-> float, round to nearest even (NaN stays NaN). */
static inline uint16_t exToBF16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
static inline float exFromBF16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* splitmix64-driven uniform floats in [lo, hi): the same on every machine. */
static inline float exRandom(uint64_t *state, float lo, float hi) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * (float)((double)(z >> 11) / 9007199254740992.0);
}

/* Compares `n` values with a reference: |got - want| <= atol + rtol*|want|.
 * Prints the worst case; true when all pass. */
static inline bool exCompare(const char *what, const float *got, const double *want,
                             size_t n, double atol, double rtol) {
  size_t bad = 0, worstAt = 0;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double err = fabs((double)got[i] - want[i]);
    double excess = err / (atol + rtol * fabs(want[i]));
    if (!(excess <= 1.0))
      ++bad;
    if (!(excess <= worst)) {
      worst = excess;
      worstAt = i;
    }
  }
  fprintf(stderr, "%s: %zu values, %zu outside |err| <= %g + %g*|ref| (worst at %zu: got %.8g, "
          "reference %.8g)\n",
          what, n, bad, atol, rtol, worstAt, n ? (double)got[worstAt] : 0.0,
          n ? want[worstAt] : 0.0);
  return bad == 0;
}

#endif /* FUSER_EXAMPLES_C_EXAMPLE_UTIL_H */
