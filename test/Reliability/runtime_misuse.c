/* Misuse of the runtime's C API (runtime/include/fuser_runtime.h): NULL
 * handles, NULL output parameters, NULL data, out-of-range positions and
 * sizes. Every call that can fail returns an error value with a message;
 * every query returns 0, NULL or ""; every destroy of NULL is a no-op.
 * Nothing crashes. Prints one line per error and "N checks, 0 failed".
 * (Driver failures, bad dims and bad bundles have their own tests in
 * test/runtime/: test_errors.c, test_run.c, test_validate.c.) */
#include "fuser_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int checks, failed;

static void expect_error(fuser_error *e, const char *what) {
  ++checks;
  if (!e || !*fuser_error_message(e)) {
    fprintf(stderr, "FAIL: %s: no error\n", what);
    ++failed;
  } else {
    printf("%s: %s: %s\n", what, fuser_error_code_name(fuser_error_code_of(e)),
           fuser_error_message(e));
  }
  fuser_error_destroy(e);
}

static void expect(int ok, const char *what) {
  ++checks;
  if (!ok) {
    fprintf(stderr, "FAIL: %s\n", what);
    ++failed;
  }
}

#define ERR(call) expect_error((call), #call)
#define EXPECT(cond) expect((cond), #cond)

static fuser_error *ok_load(void *c, const void *i, size_t s, const char *n, void **o) {
  (void)c; (void)i; (void)s; (void)n;
  *o = (void *)1;
  return NULL;
}
static void ok_unload(void *c, void *m) { (void)c; (void)m; }
static fuser_error *ok_get(void *c, void *m, const char *n, void **o) {
  (void)c; (void)m; (void)n;
  *o = (void *)1;
  return NULL;
}
static fuser_error *ok_launch(void *c, void *f, const fuser_launch_dims *d, void *s,
                             void **p, const uint32_t *z, uint32_t n) {
  (void)c; (void)f; (void)d; (void)s; (void)p; (void)z; (void)n;
  return NULL;
}
static uint64_t next = 4096;
static fuser_error *ok_alloc(void *c, size_t b, uint64_t *o) {
  (void)c;
  *o = next;
  next += (b + 255) / 256 * 256 + 256;
  return NULL;
}
static fuser_error *ok_free(void *c, uint64_t p) { (void)c; (void)p; return NULL; }
static fuser_error *ok_h2d(void *c, uint64_t d, const void *s, size_t n) {
  (void)c; (void)d; (void)s; (void)n;
  return NULL;
}
static fuser_error *ok_d2h(void *c, void *d, uint64_t s, size_t n) {
  (void)c; (void)d; (void)s; (void)n;
  return NULL;
}
static fuser_error *ok_sync(void *c, void *s, int w) { (void)c; (void)s; (void)w; return NULL; }
static const fuser_driver null_driver = {
    .module_kind = FUSER_MODULE_PTX, .name = "null",
    .module_load = ok_load, .module_unload = ok_unload, .function_get = ok_get,
    .launch = ok_launch, .mem_alloc = ok_alloc, .mem_free = ok_free,
    .copy_h2d = ok_h2d, .copy_d2h = ok_d2h, .synchronize = ok_sync,
};

int main(void) {
  /* Errors and names. */
  EXPECT(!strcmp(fuser_error_message(NULL), ""));
  EXPECT(fuser_error_code_of(NULL) == 0);
  EXPECT(fuser_error_code_name((fuser_error_code)999) != NULL);
  fuser_error_destroy(NULL);
  EXPECT(fuser_dtype_size((fuser_dtype)0) == 0 && fuser_dtype_size((fuser_dtype)99) == 0);
  EXPECT(!strcmp(fuser_dtype_name((fuser_dtype)99), "?"));
  fuser_rt_options_init(NULL);

  /* Runtimes. */
  fuser_rt *rt = NULL;
  ERR(fuser_rt_create_with_driver(NULL, NULL, &rt));
  ERR(fuser_rt_create_with_driver(&null_driver, NULL, NULL));
  fuser_rt_destroy(NULL);
  EXPECT(fuser_rt_driver_name(NULL) != NULL);
  uint64_t p = 0;
  ERR(fuser_mem_alloc(NULL, 16, &p));
  ERR(fuser_mem_free(NULL, 4096));
  ERR(fuser_mem_copy_h2d(NULL, 4096, "x", 1));
  ERR(fuser_mem_copy_d2h(NULL, &p, 4096, 1));
  ERR(fuser_stream_synchronize(NULL, NULL));
  ERR(fuser_device_synchronize(NULL));
  ERR(fuser_rt_trim(NULL));
  fuser_rt_stats stats;
  memset(&stats, 0xff, sizeof stats);
  fuser_rt_get_stats(NULL, &stats);

  if (fuser_rt_create_with_driver(&null_driver, NULL, &rt) || !rt) {
    fprintf(stderr, "FAIL: cannot create a runtime on the null driver\n");
    return 1;
  }
  fuser_rt_get_stats(rt, NULL);
  ERR(fuser_mem_alloc(rt, 16, NULL));
  ERR(fuser_mem_copy_h2d(rt, 4096, NULL, 16));
  ERR(fuser_mem_copy_d2h(rt, NULL, 4096, 16));
  ERR(fuser_mem_alloc(rt, SIZE_MAX, &p));

  /* Bundles. */
  fuser_bundle *b = NULL;
  static const unsigned char header[64] = "FUSERBND";
  ERR(fuser_bundle_load(NULL, header, sizeof header, &b));
  ERR(fuser_bundle_load(rt, NULL, 64, &b));
  ERR(fuser_bundle_load(rt, NULL, 0, &b));
  ERR(fuser_bundle_load(rt, header, sizeof header, NULL));
  ERR(fuser_bundle_load(rt, header, SIZE_MAX, &b));
  ERR(fuser_bundle_load_file(rt, NULL, &b));
  ERR(fuser_bundle_load_file(NULL, "/nonexistent.bundle", &b));
  ERR(fuser_bundle_load_file(rt, "/nonexistent.bundle", &b));
  ERR(fuser_bundle_load_file(rt, "/", &b));
  ERR(fuser_bundle_load_file(rt, "/nonexistent.bundle", NULL));
  EXPECT(b == NULL);
  fuser_bundle_destroy(NULL);
  EXPECT(fuser_bundle_num_fusions(NULL) == 0);
  EXPECT(fuser_bundle_get_fusion(NULL, 0) == NULL);
  EXPECT(fuser_bundle_find_fusion(NULL, "f") == NULL);

  /* Fusions. */
  EXPECT(fuser_fusion_name(NULL) != NULL);
  EXPECT(fuser_fusion_num_args(NULL) == 0 && fuser_fusion_num_results(NULL) == 0);
  EXPECT(fuser_fusion_tensor(NULL, 0) == NULL && fuser_fusion_arg(NULL, 0) == NULL &&
         fuser_fusion_result(NULL, 0) == NULL);
  EXPECT(fuser_fusion_num_dyn_dims(NULL) == 0 && fuser_fusion_dyn_dim(NULL, 0) == NULL);
  uint64_t bytes = 0;
  int64_t dims[1] = {1};
  ERR(fuser_fusion_tensor_bytes(NULL, 0, dims, 1, &bytes));
  ERR(fuser_fusion_infer_dims(NULL, dims, 1, dims));
  ERR(fuser_fusion_prepare(NULL));
  ERR(fuser_run(NULL, NULL, NULL, NULL, 0, NULL, NULL));
  ERR(fuser_fusion_scratch_size(NULL, NULL, NULL, NULL, 0, &bytes));

  fuser_rt_destroy(rt);
  printf("%d checks, %d failed\n", checks, failed);
  return failed ? 1 : 0;
}
