/* Every failure the fake driver can inject reaches the caller as a clear
 * error value; nothing is half-created and nothing leaks.
 *
 * usage: test_errors FAKE_DRIVER_PATH FAKE_WITHOUT_cuLaunchKernel_PATH */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fake, *fake_nolaunch;
static unsigned char *bundle;
static size_t bundle_size;
static const int64_t dims[4] = {3, 5, 3, 5};

static void set_fail(const char *spec) {
  if (spec)
    setenv("FUSER_FAKE_FAIL", spec, 1);
  else
    unsetenv("FUSER_FAKE_FAIL");
}

static fuser_error *create(const char *path, int ordinal, fuser_rt **rt) {
  fuser_rt_options o;
  fuser_rt_options_init(&o);
  o.cuda_driver_path = path;
  o.device_ordinal = ordinal;
  return fuser_rt_create(&o, rt);
}

/* A runtime with `spec` injected, the sample bundle, and two buffers. */
typedef struct setup {
  fuser_rt *rt;
  fuser_bundle *b;
  const fuser_fusion *f;
  uint64_t x, y;
} setup;

static bool up(setup *s, const char *spec) {
  memset(s, 0, sizeof *s);
  set_fail(spec);
  if (!EXPECT_OK(create(fake, 0, &s->rt))) return false;
  set_fail(NULL);
  EXPECT_OK(fuser_bundle_load(s->rt, bundle, bundle_size, &s->b));
  s->f = fuser_bundle_find_fusion(s->b, "softmax");
  return s->f != NULL;
}

static void down(setup *s) {
  fuser_bundle_destroy(s->b);
  fuser_rt_destroy(s->rt);
  set_fail(NULL);
  CHECK(tl_fake_hook(fake, "fuser_fake_live_allocations") <= 0);
  CHECK(tl_fake_hook(fake, "fuser_fake_live_modules") <= 0);
  CHECK(tl_fake_hook(fake, "fuser_fake_context_refs") <= 0);
  tl_log_clear();
}

static void test_creation(void) {
  fuser_rt *rt = NULL;
  /* No driver at all, through the environment. */
  setenv("FUSER_CUDA_DRIVER", "/nonexistent.so", 1);
  EXPECT_ERR(fuser_rt_create(NULL, &rt), FUSER_ERROR_DRIVER_UNAVAILABLE,
             "cannot load the CUDA driver '/nonexistent.so': ",
             "cannot open shared object file");
  /* The option wins over the environment. */
  if (EXPECT_OK(create(fake, 0, &rt))) fuser_rt_destroy(rt);
  unsetenv("FUSER_CUDA_DRIVER");
  EXPECT_ERR(create("/no/such/libcuda.so.1", 0, &rt),
             FUSER_ERROR_DRIVER_UNAVAILABLE,
             "cannot load the CUDA driver '/no/such/libcuda.so.1'");
  /* A library that is not a CUDA driver, and one that lacks an entry. */
  EXPECT_ERR(create("libm.so.6", 0, &rt), FUSER_ERROR_DRIVER_UNAVAILABLE,
             "the CUDA driver 'libm.so.6' does not export cuInit");
  EXPECT_ERR(create(fake_nolaunch, 0, &rt), FUSER_ERROR_DRIVER_UNAVAILABLE,
             "does not export cuLaunchKernel");
  /* Failing driver calls. */
  set_fail("init");
  EXPECT_ERR(create(fake, 0, &rt), FUSER_ERROR_DRIVER,
             "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is "
             "detected)",
             fake);
  set_fail("ctx");
  EXPECT_ERR(create(fake, 0, &rt), FUSER_ERROR_DRIVER,
             "cuDevicePrimaryCtxRetain failed: CUDA_ERROR_INVALID_DEVICE "
             "(invalid device ordinal)");
  set_fail(NULL);
  EXPECT_ERR(create(fake, 3, &rt), FUSER_ERROR_INVALID_ARGUMENT,
             "CUDA device ordinal 3 is out of range (1 device)");
  EXPECT_ERR(create(fake, -1, &rt), FUSER_ERROR_INVALID_ARGUMENT,
             "CUDA device ordinal -1 is out of range");
  setenv("FUSER_FAKE_DEVICES", "0", 1);
  EXPECT_ERR(create(fake, 0, &rt), FUSER_ERROR_INVALID_ARGUMENT,
             "CUDA device ordinal 0 is out of range (0 devices)");
  unsetenv("FUSER_FAKE_DEVICES");
  CHECK(tl_fake_hook(fake, "fuser_fake_context_refs") <= 0);
  /* Bad pluggable drivers. */
  fuser_driver d = tl_null_driver;
  d.launch = NULL;
  EXPECT_ERR(fuser_rt_create_with_driver(&d, NULL, &rt),
             FUSER_ERROR_INVALID_ARGUMENT, "lacks a required function");
  d = tl_null_driver;
  d.module_kind = 9;
  EXPECT_ERR(fuser_rt_create_with_driver(&d, NULL, &rt),
             FUSER_ERROR_INVALID_ARGUMENT, "unknown module kind 9");
  EXPECT_ERR(fuser_rt_create(NULL, NULL), FUSER_ERROR_INVALID_ARGUMENT,
             "fuser_rt_create: NULL out_rt");
}

static void test_module_load(void) {
  setup s;
  if (!up(&s, "module_load")) return;
  EXPECT_OK(fuser_mem_alloc(s.rt, 4096, &s.x));
  EXPECT_OK(fuser_mem_alloc(s.rt, 4096, &s.y));
  for (int attempt = 0; attempt < 2; attempt++)
    EXPECT_ERR(fuser_run(s.f, &s.x, &s.y, dims, 4, NULL, NULL),
               FUSER_ERROR_DRIVER,
               "fusion 'softmax': loading module 'kernels_ptx': "
               "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (a PTX JIT "
               "compilation failed) for module 'kernels_ptx'; JIT error log:\n"
               "ptxas application ptx input, line 1; fatal   : fake JIT failure "
               "injected by FUSER_FAKE_FAIL=module_load\nJIT info log:\n"
               "info    : fake JIT info log");
  EXPECT_ERR(fuser_fusion_prepare(s.f), FUSER_ERROR_DRIVER,
             "CUDA_ERROR_INVALID_PTX");
  CHECK(tl_log_count("cuLaunchKernel") == 0);
  CHECK(tl_log_count("cuMemAlloc_v2 bytes=256") == 0);
  EXPECT_OK(fuser_mem_free(s.rt, s.x));
  EXPECT_OK(fuser_mem_free(s.rt, s.y));
  down(&s);
}

static void test_get_function(void) {
  setup s;
  if (!up(&s, "get_function")) return;
  uint64_t x = 0x100, y = 0x200;
  EXPECT_ERR(fuser_run(s.f, &x, &y, dims, 4, NULL, NULL), FUSER_ERROR_NOT_FOUND,
             "fusion 'softmax': kernel 'softmax_max' of module 'kernels_ptx': "
             "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (named symbol "
             "not found)");
  /* The module was unloaded again: nothing half-loaded. */
  CHECK(tl_fake_hook(fake, "fuser_fake_live_modules") == 0);
  CHECK(tl_log_count("cuModuleUnload") == 1);
  down(&s);
}

static void test_launch(void) {
  setup s;
  if (!up(&s, "launch")) return;
  uint64_t x = 0x100, y = 0x200;
  EXPECT_ERR(fuser_run(s.f, &x, &y, dims, 4, NULL, NULL), FUSER_ERROR_DRIVER,
             "fusion 'softmax': launch 0 'softmax_max': cuLaunchKernel failed: "
             "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (too many resources requested "
             "for launch) (grid 3,1,1 block 256,1,1 shared 0 bytes)");
  fuser_rt_stats st;
  fuser_rt_get_stats(s.rt, &st);
  CHECK(st.in_use_bytes == 0);
  down(&s);

  /* The second launch of a call fails: the first stays enqueued, the
   * intermediate goes back pending on the stream. */
  if (!up(&s, "launch:2")) return;
  EXPECT_ERR(fuser_run(s.f, &x, &y, dims, 4, NULL, NULL), FUSER_ERROR_DRIVER,
             "launch 1 'softmax_vec4': cuLaunchKernel failed");
  CHECK(tl_log_count("cuLaunchKernel name=") == 2);
  EXPECT_OK(fuser_run(s.f, &x, &y, dims, 4, NULL, NULL));
  down(&s);
}

static void test_oom(void) {
  setup s;
  if (!up(&s, "oom")) return;
  uint64_t p = 0;
  EXPECT_ERR(fuser_mem_alloc(s.rt, 64, &p), FUSER_ERROR_OUT_OF_MEMORY,
             "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory) "
             "(64 bytes)");
  uint64_t x = 0x100, y = 0x1000; /* apart enough for `big` below */
  EXPECT_ERR(fuser_run(s.f, &x, &y, dims, 4, NULL, NULL),
             FUSER_ERROR_OUT_OF_MEMORY,
             "fusion 'softmax': instruction 10 (ALLOC): allocating an "
             "intermediate of 12 bytes: cuMemAlloc_v2 failed: "
             "CUDA_ERROR_OUT_OF_MEMORY");
  CHECK(tl_log_count("cuLaunchKernel") == 0);
  down(&s);

  /* With room for one block: an OOM gives the idle cache back and tries
   * again. */
  if (!up(&s, "oom_live:1")) return;
  EXPECT_OK(fuser_run(s.f, &x, &y, dims, 4, NULL, NULL));
  EXPECT_OK(fuser_device_synchronize(s.rt));
  tl_log_clear();
  int64_t big[4] = {100, 5, 100, 5};
  EXPECT_OK(fuser_run(s.f, &x, &y, big, 4, NULL, NULL));
  EXPECT_LOG("cuMemAlloc_v2 bytes=448 -> CUDA_ERROR_OUT_OF_MEMORY",
             "cuMemFree_v2 buf0", "cuMemAlloc_v2 bytes=448 -> buf1",
             "cuLaunchKernel name=softmax_max grid=100,1,1 block=256,1,1 "
             "smem=0 stream=(nil) params=256,buf1,5,100",
             "cuLaunchKernel name=softmax_vec4 grid=100,1,1 block=256,1,1 "
             "smem=20 stream=(nil) params=256,buf1,4096,2");
  /* A block still pending on a stream is not given back: OOM. */
  EXPECT_ERR(fuser_run(s.f, &x, &y, dims, 4, (void *)(uintptr_t)0x99, NULL),
             FUSER_ERROR_OUT_OF_MEMORY, "allocating an intermediate");
  EXPECT_OK(fuser_rt_trim(s.rt)); /* nothing idle: no effect */
  fuser_rt_stats st;
  fuser_rt_get_stats(s.rt, &st);
  CHECK(st.cached_bytes == 448 && st.driver_frees == 1);
  down(&s);
}

static void test_other_calls(void) {
  setup s;
  if (!up(&s, "memcpy,sync,push")) return;
  uint64_t x = 0x100, y = 0x200;
  char buf[16] = {0};
  EXPECT_ERR(fuser_run(s.f, &x, &y, dims, 4, NULL, NULL), FUSER_ERROR_DRIVER,
             "cuCtxPushCurrent_v2 failed: CUDA_ERROR_INVALID_CONTEXT (invalid "
             "device context)");
  EXPECT_ERR(fuser_mem_alloc(s.rt, 16, &x), FUSER_ERROR_DRIVER,
             "cuCtxPushCurrent_v2 failed");
  down(&s);

  if (!up(&s, "memcpy,sync")) return;
  EXPECT_OK(fuser_mem_alloc(s.rt, 16, &x));
  EXPECT_ERR(fuser_mem_copy_h2d(s.rt, x, buf, 16), FUSER_ERROR_DRIVER,
             "cuMemcpyHtoD_v2 failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal "
             "memory access was encountered)");
  EXPECT_ERR(fuser_mem_copy_d2h(s.rt, buf, x, 16), FUSER_ERROR_DRIVER,
             "cuMemcpyDtoH_v2 failed: CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_ERR(fuser_stream_synchronize(s.rt, NULL), FUSER_ERROR_DRIVER,
             "cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_ERR(fuser_device_synchronize(s.rt), FUSER_ERROR_DRIVER,
             "cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS");
  /* Out-of-bounds copies are the driver's error too. */
  set_fail(NULL);
  EXPECT_OK(fuser_mem_free(s.rt, x));
  down(&s);

  if (!up(&s, NULL)) return;
  EXPECT_OK(fuser_mem_alloc(s.rt, 16, &x));
  EXPECT_ERR(fuser_mem_copy_h2d(s.rt, x + 8, buf, 16), FUSER_ERROR_DRIVER,
             "cuMemcpyHtoD_v2 failed: CUDA_ERROR_INVALID_VALUE");
  EXPECT_OK(fuser_mem_copy_h2d(s.rt, x, "0123456789abcde", 16));
  EXPECT_OK(fuser_mem_copy_d2h(s.rt, buf, x, 16));
  CHECK(memcmp(buf, "0123456789abcde", 16) == 0);
  EXPECT_ERR(fuser_mem_free(s.rt, x + 1), FUSER_ERROR_DRIVER,
             "cuMemFree_v2 failed: CUDA_ERROR_INVALID_VALUE");
  EXPECT_OK(fuser_mem_free(s.rt, x));
  EXPECT_OK(fuser_mem_free(s.rt, 0));
  down(&s);
}

static void test_set_attribute(void) {
  setup s;
  if (!up(&s, "set_attribute")) return;
  /* 160000 bytes each at these dims: far apart, never dereferenced. */
  uint64_t x = 1ull << 32, y = 2ull << 32;
  int64_t wide[4] = {2, 20000, 2, 20000};
  EXPECT_ERR(fuser_run(s.f, &x, &y, wide, 4, NULL, NULL), FUSER_ERROR_DRIVER,
             "fusion 'softmax': launch 1 'softmax_vec4': cuFuncSetAttribute "
             "failed: CUDA_ERROR_INVALID_VALUE (invalid argument) "
             "(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 80000)");
  CHECK(tl_log_count("cuLaunchKernel name=softmax_vec4") == 0);
  /* Not cached as done: the next call asks again. */
  EXPECT_ERR(fuser_run(s.f, &x, &y, wide, 4, NULL, NULL), FUSER_ERROR_DRIVER,
             "cuFuncSetAttribute failed");
  CHECK(tl_log_count("cuFuncSetAttribute name=") == 2);
  down(&s);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_errors FAKE NOLAUNCH_FAKE\n");
    return 2;
  }
  fake = argv[1];
  fake_nolaunch = argv[2];
  tl_log_setup("errors");
  bundle = tl_sample_bytes(&bundle_size, NULL);
  test_creation();
  test_module_load();
  test_get_function();
  test_launch();
  test_oom();
  test_other_calls();
  test_set_attribute();
  free(bundle);
  return tl_finish("test_errors");
}
