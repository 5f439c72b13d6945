/* Misuse of the runtime's C API (runtime/include/fuser_runtime.h): NULL
 * handles, NULL output parameters, NULL data, out-of-range positions and
 * sizes. Every call that can fail returns an error value with a message;
 * every query returns 0, NULL or ""; every destroy of NULL is a no-op.
 * Nothing crashes. Prints one line per error and "N checks, 0 failed".
 * (Driver failures, bad dims and bad bundles have their own tests in
 * test/runtime/: test_errors.c, test_run.c, test_validate.c.) */
#include "fuser_runtime.h"
#include "testlib.h" /* the sample bundle (test/runtime) */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* One convention for every entry point that returns an error: a NULL
 * handle or pointer is INVALID_ARGUMENT "<function>: NULL <parameter>". */
static void expect_null_error(fuser_error *e, const char *what,
                              const char *parameter) {
  char want[160];
  size_t n = strcspn(what, "(");
  snprintf(want, sizeof want, "%.*s: NULL %s", (int)n, what, parameter);
  ++checks;
  if (!e || fuser_error_code_of(e) != FUSER_ERROR_INVALID_ARGUMENT ||
      !strstr(fuser_error_message(e), want)) {
    fprintf(stderr, "FAIL: %s: expected INVALID_ARGUMENT \"%s\", got %s\n", what,
            want, e ? fuser_error_message(e) : "success");
    ++failed;
  } else {
    printf("%s: %s\n", what, fuser_error_message(e));
  }
  fuser_error_destroy(e);
}

static void expect_error_with(fuser_error *e, const char *what,
                              fuser_error_code code, const char *text) {
  ++checks;
  if (!e || fuser_error_code_of(e) != code || !strstr(fuser_error_message(e), text)) {
    fprintf(stderr, "FAIL: %s: expected %s \"%s\", got %s\n", what,
            fuser_error_code_name(code), text, e ? fuser_error_message(e) : "success");
    ++failed;
  } else {
    printf("%s: %s\n", what, fuser_error_message(e));
  }
  fuser_error_destroy(e);
}

#define ERR(call) expect_error((call), #call)
#define NULL_ERR(call, parameter) expect_null_error((call), #call, parameter)
#define ERR_WITH(call, code, text) expect_error_with((call), #call, code, text)
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

  /* A driver's error without a format still has a message. */
  const char *volatile no_format = NULL;
  fuser_error *nf = fuser_error_create(FUSER_ERROR_DRIVER, no_format);
  EXPECT(nf && !strcmp(fuser_error_message(nf), "(no message)"));
  fuser_error_destroy(nf);

  /* Runtimes. */
  fuser_rt *rt = NULL;
  NULL_ERR(fuser_rt_create_with_driver(NULL, NULL, &rt), "driver");
  NULL_ERR(fuser_rt_create_with_driver(&null_driver, NULL, NULL), "out_rt");
  NULL_ERR(fuser_rt_create(NULL, NULL), "out_rt");
  fuser_rt_destroy(NULL);
  EXPECT(fuser_rt_driver_name(NULL) != NULL);
  uint64_t p = 0;
  NULL_ERR(fuser_mem_alloc(NULL, 16, &p), "runtime");
  NULL_ERR(fuser_mem_free(NULL, 4096), "runtime");
  NULL_ERR(fuser_mem_copy_h2d(NULL, 4096, "x", 1), "runtime");
  NULL_ERR(fuser_mem_copy_d2h(NULL, &p, 4096, 1), "runtime");
  NULL_ERR(fuser_stream_synchronize(NULL, NULL), "runtime");
  NULL_ERR(fuser_device_synchronize(NULL), "runtime");
  NULL_ERR(fuser_rt_trim(NULL), "runtime");
  fuser_rt_stats stats;
  memset(&stats, 0xff, sizeof stats);
  fuser_rt_get_stats(NULL, &stats);

  if (fuser_rt_create_with_driver(&null_driver, NULL, &rt) || !rt) {
    fprintf(stderr, "FAIL: cannot create a runtime on the null driver\n");
    return 1;
  }
  fuser_rt_get_stats(rt, NULL);
  NULL_ERR(fuser_mem_alloc(rt, 16, NULL), "out_ptr");
  NULL_ERR(fuser_mem_copy_h2d(rt, 4096, NULL, 16), "src");
  NULL_ERR(fuser_mem_copy_d2h(rt, NULL, 4096, 16), "dst");
  ERR(fuser_mem_alloc(rt, SIZE_MAX, &p));
  /* Device address 0 is no allocation. */
  ERR_WITH(fuser_mem_copy_h2d(rt, 0, "0123456789abcdef", 16),
           FUSER_ERROR_INVALID_ARGUMENT,
           "fuser_mem_copy_h2d: device address 0 as dst (16 bytes)");
  char host[16];
  ERR_WITH(fuser_mem_copy_d2h(rt, host, 0, 16), FUSER_ERROR_INVALID_ARGUMENT,
           "fuser_mem_copy_d2h: device address 0 as src (16 bytes)");

  /* Bundles. */
  fuser_bundle *b = NULL;
  static const unsigned char header[64] = "FUSERBND";
  NULL_ERR(fuser_bundle_load(NULL, header, sizeof header, &b), "runtime");
  NULL_ERR(fuser_bundle_load(rt, NULL, 64, &b), "data (64 bytes)");
  ERR(fuser_bundle_load(rt, NULL, 0, &b));
  NULL_ERR(fuser_bundle_load(rt, header, sizeof header, NULL), "out_bundle");
  ERR(fuser_bundle_load(rt, header, SIZE_MAX, &b));
  NULL_ERR(fuser_bundle_load_file(rt, NULL, &b), "path");
  NULL_ERR(fuser_bundle_load_file(NULL, "/nonexistent.bundle", &b), "runtime");
  ERR(fuser_bundle_load_file(rt, "/nonexistent.bundle", &b));
  ERR(fuser_bundle_load_file(rt, "/", &b));
  NULL_ERR(fuser_bundle_load_file(rt, "/nonexistent.bundle", NULL), "out_bundle");
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
  NULL_ERR(fuser_fusion_tensor_bytes(NULL, 0, dims, 1, &bytes), "fusion");
  NULL_ERR(fuser_fusion_infer_dims(NULL, dims, 1, dims), "fusion");
  NULL_ERR(fuser_fusion_prepare(NULL), "fusion");
  NULL_ERR(fuser_run(NULL, NULL, NULL, NULL, 0, NULL, NULL), "fusion");
  NULL_ERR(fuser_fusion_scratch_size(NULL, NULL, NULL, NULL, 0, &bytes), "fusion");
  EXPECT(fuser_fusion_plan_text(NULL, NULL, 0) == 0);

  /* A loaded fusion, misused: softmax, x f32[?,?] -> y f32[?,?]. */
  size_t size = 0;
  unsigned char *sample = tl_sample_bytes(&size, NULL);
  if (!sample || fuser_bundle_load(rt, sample, size, &b) || !b) {
    fprintf(stderr, "FAIL: cannot load the sample bundle\n");
    return 1;
  }
  free(sample);
  const fuser_fusion *f = fuser_bundle_find_fusion(b, "softmax");
  int64_t four[4] = {3, 5, 3, 5}, out4[4];
  /* These crashed: NULL dims with a fusion that takes some. */
  NULL_ERR(fuser_fusion_infer_dims(f, NULL, 4, out4), "dyn_dims");
  NULL_ERR(fuser_fusion_infer_dims(f, four, 4, NULL), "out_dyn_dims");
  NULL_ERR(fuser_fusion_tensor_bytes(f, 0, NULL, 4, &bytes), "dyn_dims");
  NULL_ERR(fuser_fusion_tensor_bytes(f, 0, four, 4, NULL), "out_bytes");
  ERR_WITH(fuser_fusion_tensor_bytes(f, 7, four, 4, &bytes),
           FUSER_ERROR_INVALID_ARGUMENT,
           "fuser_fusion_tensor_bytes: fusion 'softmax' has no tensor 7 (it has 2)");
  NULL_ERR(fuser_fusion_scratch_size(f, NULL, NULL, NULL, 4, &bytes), "dyn_dims");
  NULL_ERR(fuser_fusion_scratch_size(f, NULL, NULL, four, 4, NULL), "out_bytes");
  uint64_t x = 0x10000, y = 0x20000;
  NULL_ERR(fuser_run(f, NULL, &y, four, 4, NULL, NULL), "args");
  NULL_ERR(fuser_run(f, &x, NULL, four, 4, NULL, NULL), "results");
  NULL_ERR(fuser_run(f, &x, &y, NULL, 4, NULL, NULL), "dyn_dims");
  /* Buffers: in place, address 0 (test/runtime/test_run.c has them all). */
  EXPECT(fuser_run(f, &x, &y, four, 4, NULL, NULL) == NULL);
  ERR_WITH(fuser_run(f, &x, &x, four, 4, NULL, NULL), FUSER_ERROR_INVALID_ARGUMENT,
           "fusion 'softmax': result 0 'y' (0x10000 .. 0x1003c) overlaps "
           "argument 0 'x' (0x10000 .. 0x1003c)");
  uint64_t zero = 0;
  ERR_WITH(fuser_run(f, &zero, &y, four, 4, NULL, NULL), FUSER_ERROR_INVALID_ARGUMENT,
           "fusion 'softmax': argument 0 'x' (60 bytes) is at device address 0");
  /* The plan as text into no buffer: its length, nothing written. */
  size_t len = fuser_fusion_plan_text(f, NULL, 0);
  EXPECT(len > 0 && fuser_fusion_plan_text(f, NULL, 100) == len);
  fuser_module_info mi;
  EXPECT(fuser_bundle_module(b, 0, NULL) == 0 && fuser_bundle_module(b, 9, &mi) == 0);
  EXPECT(fuser_fusion_launch_kernel(f, 99) == NULL);
  fuser_bundle_destroy(b);

  /* Communicators: NULL handles and impossible ranks are refused before
   * NCCL is opened; NULL is a no-op or zero for the rest. */
  unsigned char id[FUSER_COMM_ID_BYTES] = {0};
  fuser_comm *comm = NULL;
  NULL_ERR(fuser_comm_get_unique_id(NULL, id), "runtime");
  NULL_ERR(fuser_comm_get_unique_id(rt, NULL), "out_id");
  NULL_ERR(fuser_comm_init_rank(NULL, id, 2, 0, &comm), "runtime");
  NULL_ERR(fuser_comm_init_rank(rt, NULL, 2, 0, &comm), "id");
  NULL_ERR(fuser_comm_init_rank(rt, id, 2, 0, NULL), "out_comm");
  ERR_WITH(fuser_comm_init_rank(rt, id, 2, 2, &comm), FUSER_ERROR_INVALID_ARGUMENT,
           "fuser_comm_init_rank: rank 2 of 2 ranks");
  ERR_WITH(fuser_comm_init_rank(rt, id, 0, 0, &comm), FUSER_ERROR_INVALID_ARGUMENT,
           "fuser_comm_init_rank: rank 0 of 0 ranks");
  NULL_ERR(fuser_comm_wrap_nccl(NULL, id, &comm), "runtime");
  EXPECT(comm == NULL);
  EXPECT(fuser_comm_size(NULL) == 0 && fuser_comm_rank(NULL) == 0 && !fuser_comm_nccl(NULL));
  fuser_comm_abort(NULL);
  fuser_comm_destroy(NULL);
  fuser_grid_info grid;
  EXPECT(fuser_fusion_grid(NULL, &grid) == 0);

  fuser_rt_destroy(rt);
  printf("%d checks, %d failed\n", checks, failed);
  return failed ? 1 : 0;
}
