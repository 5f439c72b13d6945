/*===- fuzz_driver.c - pieces shared by the fuzz targets ------------------===*/

#include "fuzz_driver.h"

/* The runtime answers a host allocation that fails with OUT_OF_MEMORY, as
 * libc's NULL tells it to; ASan aborts on a request over its limit (1 TiB)
 * instead, unless told to return NULL like libc (a zeroed ALLOC of 2^63 - 1
 * bytes, fuzz/corpus/bundle/crash-huge-zeroed-alloc.bundle). */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fuser_error *load(void *c, const void *image, size_t size, const char *name,
                         void **out) {
  (void)c;
  (void)name;
  /* The runtime promises a NUL-terminated image. */
  if (!image || !size || ((const char *)image)[size - 1] != '\0') abort();
  *out = (void *)1;
  return NULL;
}
static void unload(void *c, void *m) { (void)c; (void)m; }
static fuser_error *get(void *c, void *m, const char *name, void **out) {
  (void)c;
  (void)m;
  if (!name) abort();
  *out = (void *)1;
  return NULL;
}
static fuser_error *launch(void *c, void *f, const fuser_launch_dims *d, void *s,
                           void **p, const uint32_t *sz, uint32_t n) {
  (void)c; (void)f; (void)s;
  /* Touch every parameter as a driver would copy it. */
  volatile unsigned char sink = 0;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < sz[i]; ++k) sink ^= ((const unsigned char *)p[i])[k];
  (void)sink;
  (void)d;
  return NULL;
}
static uint64_t next_address = 1u << 20;
static fuser_error *alloc(void *c, size_t bytes, uint64_t *out) {
  (void)c;
  *out = next_address;
  next_address += (bytes + 255) / 256 * 256 + 256;
  if (next_address > (UINT64_C(1) << 62)) next_address = 1u << 20;
  return NULL;
}
static fuser_error *mfree(void *c, uint64_t p) { (void)c; (void)p; return NULL; }
static fuser_error *h2d(void *c, uint64_t d, const void *s, size_t n) {
  (void)c; (void)d; (void)s; (void)n;
  return NULL;
}
static fuser_error *d2h(void *c, void *d, uint64_t s, size_t n) {
  (void)c; (void)s;
  if (n) memset(d, 0, n);
  return NULL;
}
static fuser_error *sync_(void *c, void *s, int whole) {
  (void)c; (void)s; (void)whole;
  return NULL;
}
/* A GEMM the runtime let through: read every field, as a library would. */
static fuser_error *gemm(void *c, const fuser_gemm *g, void *s) {
  (void)c; (void)s;
  volatile const unsigned char *p = (const unsigned char *)g;
  volatile unsigned char sink = 0;
  for (size_t i = 0; i < sizeof *g; ++i) sink ^= p[i];
  (void)sink;
  return NULL;
}

const fuser_driver fuzz_null_driver_ptx = {
    .module_kind = FUSER_MODULE_PTX, .name = "fuzz-ptx",
    .module_load = load, .module_unload = unload, .function_get = get,
    .launch = launch, .mem_alloc = alloc, .mem_free = mfree,
    .copy_h2d = h2d, .copy_d2h = d2h, .synchronize = sync_, .gemm = gemm,
};
const fuser_driver fuzz_null_driver_emulator = {
    .module_kind = FUSER_MODULE_EMULATOR, .name = "fuzz-emulator",
    .module_load = load, .module_unload = unload, .function_get = get,
    .launch = launch, .mem_alloc = alloc, .mem_free = mfree,
    .copy_h2d = h2d, .copy_d2h = d2h, .synchronize = sync_, .gemm = gemm,
};

/* An error must carry a message; it is released here. */
static int ok(fuser_error *e) {
  if (!e) return 1;
  const char *m = fuser_error_message(e);
  if (!m || !*m || fuser_error_code_of(e) == 0) abort();
  fuser_error_destroy(e);
  return 0;
}

static void check_info(const fuser_tensor_info *t) {
  if (!t || !t->name || (t->rank && !t->dims)) abort();
  if (!fuser_dtype_name(t->dtype) || !fuser_dtype_size(t->dtype)) abort();
  for (uint32_t d = 0; d < t->rank; ++d)
    if (t->dims[d] < -1 || (t->strides && t->strides[d] < -1)) abort();
}

static void run_with(const fuser_fusion *f, int64_t *dims, size_t nd) {
  size_t na = fuser_fusion_num_args(f), nr = fuser_fusion_num_results(f);
  if (!ok(fuser_fusion_infer_dims(f, dims, nd, dims))) return;
  uint64_t *bufs = calloc(na + nr + 1, sizeof *bufs);
  if (!bufs) abort();
  for (size_t i = 0; i < na + nr; ++i) {
    uint64_t bytes = 0;
    if (!ok(fuser_fusion_tensor_bytes(f, i, dims, nd, &bytes))) {
      free(bufs);
      return;
    }
    /* 16 TiB apart: tensors as large as that never overlap, so fuser_run
     * gets past its buffer checks to the plan. */
    bufs[i] = (UINT64_C(1) << 46) + (uint64_t)i * (UINT64_C(1) << 44);
  }
  uint64_t scratch = 0;
  ok(fuser_fusion_scratch_size(f, bufs, bufs + na, dims, nd, &scratch));
  ok(fuser_run(f, bufs, bufs + na, dims, nd, NULL, NULL));
  /* The views passed with their strides: the static ones, and a stride of
   * dims[0] (any value the bytes gave) for each dynamic one, which STRIDE
   * reads. */
  int64_t *strides = calloc(na * FUSER_MAX_RANK + 1, sizeof *strides);
  const int64_t **arg_strides = calloc(na + 1, sizeof *arg_strides);
  if (!strides || !arg_strides) abort();
  for (size_t a = 0; a < na; ++a) {
    const fuser_tensor_info *t = fuser_fusion_arg(f, a);
    if (!t->strides) continue;
    for (uint32_t d = 0; d < t->rank; ++d)
      strides[a * FUSER_MAX_RANK + d] =
          t->strides[d] >= 0 ? t->strides[d] : (nd ? dims[0] : 1);
    arg_strides[a] = strides + a * FUSER_MAX_RANK;
  }
  fuser_run_options ro = {.arg_strides = arg_strides};
  ok(fuser_run(f, bufs, bufs + na, dims, nd, NULL, &ro));
  free(strides);
  free(arg_strides);
  free(bufs);
}

void fuzz_exercise_bundle(const fuser_bundle *b, const uint8_t *seed, size_t seed_size) {
  size_t n = fuser_bundle_num_fusions(b);
  for (size_t i = 0; i < n; ++i) {
    const fuser_fusion *f = fuser_bundle_get_fusion(b, i);
    if (!f || !fuser_fusion_name(f)) abort();
    if (fuser_bundle_find_fusion(b, fuser_fusion_name(f)) == NULL) abort();
    size_t na = fuser_fusion_num_args(f), nr = fuser_fusion_num_results(f);
    for (size_t t = 0; t < na; ++t) check_info(fuser_fusion_arg(f, t));
    for (size_t t = 0; t < nr; ++t) check_info(fuser_fusion_result(f, t));
    for (size_t t = 0; t < nr; ++t)
      if (fuser_fusion_result(f, t)->strides) abort(); /* results are dense */
    if (fuser_fusion_tensor(f, na + nr) != NULL) abort();
    size_t nd = fuser_fusion_num_dyn_dims(f);
    for (size_t k = 0; k < nd; ++k) {
      const fuser_dyn_dim_info *dd = fuser_fusion_dyn_dim(f, k);
      if (!dd || dd->tensor >= na + nr) abort();
    }
    if (nd > 4096) continue;
    ok(fuser_fusion_prepare(f));
    int64_t *dims = calloc(nd + 1, sizeof *dims);
    if (!dims) abort();
    static const int64_t fixed[] = {1, 0, 3, 1000003, INT64_C(1) << 31, INT64_MAX};
    for (size_t p = 0; p < sizeof fixed / sizeof fixed[0]; ++p) {
      for (size_t k = 0; k < nd; ++k) dims[k] = fixed[p];
      run_with(f, dims, nd);
    }
    /* Dims from the input's bytes: small, mixed sizes. */
    for (size_t k = 0; k < nd; ++k)
      dims[k] = seed_size ? seed[(k * 7 + i) % seed_size] % 9 : (int64_t)k;
    run_with(f, dims, nd);
    free(dims);
  }
}
