/* The pluggable driver: a recording driver in this process, as a CPU
 * emulator would plug in (module kind 2), and as a PTX driver. Checks the
 * calls the runtime makes, the parameter sizes it passes, enter/leave
 * pairing, and errors coming back from the driver. */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec {
  char log[8192];
  size_t len;
  int depth, max_depth, enters;
  bool fail_enter, fail_launch;
  int live_modules;
  uint64_t next_ptr;
} rec;

static void rlog(rec *r, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void rlog(rec *r, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(r->log + r->len, sizeof r->log - r->len, format, ap);
  va_end(ap);
  if (n > 0) r->len += (size_t)n;
  if (r->len < sizeof r->log - 1) r->log[r->len++] = '\n';
  r->log[r->len] = 0;
}

static fuser_error *r_enter(void *c) {
  rec *r = c;
  if (r->fail_enter)
    return fuser_error_create(FUSER_ERROR_DRIVER, "emulator: not ready");
  r->depth++;
  r->enters++;
  if (r->depth > r->max_depth) r->max_depth = r->depth;
  return NULL;
}
static void r_leave(void *c) { ((rec *)c)->depth--; }

static fuser_error *r_load(void *c, const void *image, size_t size,
                           const char *name, void **out) {
  rec *r = c;
  CHECK(r->depth == 1);
  CHECK(((const char *)image)[size - 1] == 0);
  char first[40];
  snprintf(first, sizeof first, "%s", (const char *)image);
  char *nl = strchr(first, '\n');
  if (nl) *nl = 0;
  rlog(r, "load %s size=%zu first='%s'", name, size, first);
  r->live_modules++;
  *out = (void *)(uintptr_t)0xABC;
  return NULL;
}
static void r_unload(void *c, void *m) {
  rec *r = c;
  CHECK(m == (void *)(uintptr_t)0xABC);
  rlog(r, "unload");
  r->live_modules--;
}
static fuser_error *r_get(void *c, void *m, const char *name, void **out) {
  rec *r = c;
  (void)m;
  rlog(r, "get %s", name);
  *out = (void *)(uintptr_t)(0x100 + strlen(name));
  return NULL;
}
static fuser_error *r_launch(void *c, void *f, const fuser_launch_dims *d,
                             void *s, void **p, const uint32_t *sz,
                             uint32_t n) {
  rec *r = c;
  CHECK(r->depth == 1);
  char buf[512];
  size_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    long long v = sz[i] == 4 ? (long long)*(const int32_t *)p[i]
                             : (long long)*(const int64_t *)p[i];
    k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%u:%lld", i ? "," : "",
                          sz[i], v);
  }
  buf[k] = 0;
  rlog(r, "launch f=%#lx grid=%u,%u,%u block=%u smem=%u stream=%p %s",
       (unsigned long)(uintptr_t)f, d->grid[0], d->grid[1], d->grid[2],
       d->block[0], d->shared_mem_bytes, s, buf);
  if (r->fail_launch)
    return fuser_error_create(FUSER_ERROR_DRIVER, "emulator: kernel trapped");
  return NULL;
}
static fuser_error *r_alloc(void *c, size_t bytes, uint64_t *out) {
  rec *r = c;
  *out = r->next_ptr;
  r->next_ptr += (bytes + 4095) / 4096 * 4096;
  rlog(r, "alloc %zu -> %#llx", bytes, (unsigned long long)*out);
  return NULL;
}
static fuser_error *r_free(void *c, uint64_t p) {
  rlog(c, "free %#llx", (unsigned long long)p);
  return NULL;
}
static fuser_error *r_h2d(void *c, uint64_t d, const void *s, size_t n) {
  bool zeros = true;
  for (size_t i = 0; i < n; i++) zeros &= ((const unsigned char *)s)[i] == 0;
  rlog(c, "h2d %#llx %zu%s", (unsigned long long)d, n, zeros ? " zeros" : "");
  return NULL;
}
static fuser_error *r_zero(void *c, uint64_t p, size_t n, void *s) {
  rlog(c, "zero %#llx %zu stream=%p", (unsigned long long)p, n, s);
  return NULL;
}
static fuser_error *r_d2h(void *c, void *d, uint64_t s, size_t n) {
  (void)c; (void)d; (void)s; (void)n;
  return NULL;
}
static fuser_error *r_sync(void *c, void *s, int whole) {
  rlog(c, "sync %p %d", s, whole);
  return NULL;
}
static int destroyed;
static void r_destroy(void *c) {
  (void)c;
  destroyed++;
}

static fuser_driver emulator = {
    .module_kind = FUSER_MODULE_EMULATOR,
    .name = "emulator",
    .enter = r_enter,
    .leave = r_leave,
    .module_load = r_load,
    .module_unload = r_unload,
    .function_get = r_get,
    .launch = r_launch,
    .mem_alloc = r_alloc,
    .mem_free = r_free,
    .copy_h2d = r_h2d,
    .copy_d2h = r_d2h,
    .synchronize = r_sync,
    .destroy = r_destroy,
};

static bool log_is(rec *r, const char *expected, int line) {
  bool ok = strcmp(r->log, expected) == 0;
  if (!ok) {
    fprintf(stderr, "test_pluggable.c:%d: driver log differs:\n--- expected\n%s"
                    "--- got\n%s---\n",
            line, expected, r->log);
    tl_failures++;
  }
  r->len = 0;
  r->log[0] = 0;
  return ok;
}
#define LOG_IS(r, s) log_is(r, s, __LINE__)

int main(void) {
  rec r;
  memset(&r, 0, sizeof r);
  r.next_ptr = 0x10000;
  fuser_rt *rt = NULL;
  EXPECT_OK(fuser_rt_create_with_driver(&emulator, &r, &rt));
  CHECK(strcmp(fuser_rt_driver_name(rt), "emulator") == 0);
  bw_bundle bb;
  tl_sample_bundle(&bb, true);
  size_t size;
  unsigned char *bytes = bw_write(&bb, &size, NULL);
  fuser_bundle *b = NULL;
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  free(bytes);
  const fuser_fusion *f = fuser_bundle_find_fusion(b, "softmax");
  uint64_t x = 0x1000, y = 0x100000; /* room for `wide` below */
  int64_t dims[4] = {3, 5, 3, 5};
  EXPECT_OK(fuser_run(f, &x, &y, dims, 4, (void *)(uintptr_t)0x42, NULL));
  EXPECT_OK(fuser_run(f, &x, &y, dims, 4, (void *)(uintptr_t)0x42, NULL));
  LOG_IS(&r,
         "load kernels_mlir size=295 first='gpu.module @kernels {'\n"
         "get softmax_max\nget softmax_vec4\nget softmax_norm\nget add_kernel\n"
         "alloc 256 -> 0x10000\n"
         "launch f=0x10b grid=3,1,1 block=256 smem=0 stream=0x42 "
         "8:4096,8:65536,4:5,8:3\n"
         "launch f=0x10c grid=3,1,1 block=256 smem=20 stream=0x42 "
         "8:4096,8:65536,8:1048576,4:2\n"
         "launch f=0x10b grid=3,1,1 block=256 smem=0 stream=0x42 "
         "8:4096,8:65536,4:5,8:3\n"
         "launch f=0x10c grid=3,1,1 block=256 smem=20 stream=0x42 "
         "8:4096,8:65536,8:1048576,4:2\n");
  CHECK(r.depth == 0 && r.max_depth == 1);
  /* No function_set_max_dynamic_shared in this table: big shared memory
   * just goes to launch. */
  int64_t wide[4] = {1, 20000, 1, 20000};
  EXPECT_OK(fuser_run(f, &x, &y, wide, 4, NULL, NULL));
  CHECK(strstr(r.log, "smem=80000") != NULL);
  r.len = 0;
  r.log[0] = 0;

  /* Driver errors come back wrapped with where they happened. */
  r.fail_launch = true;
  EXPECT_ERR(fuser_run(f, &x, &y, dims, 4, NULL, NULL), FUSER_ERROR_DRIVER,
             "fusion 'softmax': launch 0 'softmax_max': emulator: kernel "
             "trapped");
  r.fail_launch = false;
  r.fail_enter = true;
  EXPECT_ERR(fuser_run(f, &x, &y, dims, 4, NULL, NULL), FUSER_ERROR_DRIVER,
             "emulator: not ready");
  EXPECT_ERR(fuser_device_synchronize(rt), FUSER_ERROR_DRIVER,
             "emulator: not ready");
  r.fail_enter = false;
  CHECK(r.depth == 0);
  r.len = 0;
  r.log[0] = 0;
  fuser_bundle_destroy(b);
  LOG_IS(&r, "sync (nil) 1\nunload\n");
  CHECK(r.live_modules == 0);

  /* A bundle without emulation data can't run on the emulator. */
  tl_sample_bundle(&bb, false);
  bytes = bw_write(&bb, &size, NULL);
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  free(bytes);
  f = fuser_bundle_find_fusion(b, "add");
  uint64_t io[3] = {0x10000, 0x20000, 0x30000};
  EXPECT_ERR(fuser_run(f, io, io + 2, NULL, 0, NULL, NULL),
             FUSER_ERROR_NOT_FOUND,
             "fusion 'add': the bundle has no emulation module (the kernels' "
             "MLIR) for the 'emulator' driver (module kind 2): it was compiled "
             "without emulation data (fuserc compile --no-emulation, "
             "fuserCompileOptionsSetEmulation(options, false))");
  EXPECT_ERR(fuser_fusion_prepare(f), FUSER_ERROR_NOT_FOUND, "(module kind 2)");
  fuser_bundle_destroy(b);
  CHECK(destroyed == 0);
  fuser_rt_destroy(rt);
  CHECK(destroyed == 1);
  LOG_IS(&r, "sync (nil) 1\nfree 0x10000\nfree 0x11000\n");

  /* An ALLOC flagged zeroed: zeroed on the call's stream before the
   * launches that follow, through mem_zero; without it, after waiting for
   * the stream, by a copy of zeros. */
  for (int with_zero = 0; with_zero < 2; with_zero++) {
    memset(&r, 0, sizeof r);
    r.next_ptr = 0x10000;
    emulator.mem_zero = with_zero ? r_zero : NULL;
    EXPECT_OK(fuser_rt_create_with_driver(&emulator, &r, &rt));
    tl_sample_bundle(&bb, true);
    bb.fusions[0].instrs[10].imm = 1; /* the ALLOC of 3 rows x 4 bytes */
    bytes = bw_write(&bb, &size, NULL);
    EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
    free(bytes);
    f = fuser_bundle_find_fusion(b, "softmax");
    EXPECT_OK(fuser_run(f, &x, &y, dims, 4, (void *)(uintptr_t)0x42, NULL));
    const char *zeroing = with_zero ? "alloc 256 -> 0x10000\nzero 0x10000 12 stream=0x42\nlaunch"
                                    : "alloc 256 -> 0x10000\nsync 0x42 0\nh2d 0x10000 12 zeros\nlaunch";
    if (!strstr(r.log, zeroing)) {
      fprintf(stderr, "test_pluggable.c:%d: expected '%s' in the driver log:\n%s", __LINE__,
              zeroing, r.log);
      tl_failures++;
    }
    fuser_bundle_destroy(b);
    fuser_rt_destroy(rt);
  }
  emulator.mem_zero = NULL;

  /* The PTX kind through a pluggable driver picks the PTX module. */
  memset(&r, 0, sizeof r);
  r.next_ptr = 0x10000;
  emulator.module_kind = FUSER_MODULE_PTX;
  emulator.name = "ptx-recorder";
  EXPECT_OK(fuser_rt_create_with_driver(&emulator, &r, &rt));
  tl_sample_bundle(&bb, true);
  bytes = bw_write(&bb, &size, NULL);
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  free(bytes);
  EXPECT_OK(fuser_fusion_prepare(fuser_bundle_find_fusion(b, "add")));
  CHECK(strstr(r.log, "load kernels_ptx") != NULL);
  fuser_bundle_destroy(b);
  fuser_rt_destroy(rt);
  return tl_finish("test_pluggable");
}
