/* Concurrency: 8 threads run the same fusion at once on a cold runtime;
 * the module is loaded exactly once and its functions resolved once; then
 * 8 threads hammer the intermediate cache on their own streams with
 * periodic synchronizations.
 *
 * usage: test_threads FAKE_DRIVER_PATH */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define RUNS 50

static const fuser_fusion *fusion;
static fuser_rt *rt;
static uint64_t x, y;
static pthread_barrier_t barrier;
static atomic_int errors;

static void *worker(void *arg) {
  uintptr_t t = (uintptr_t)arg;
  void *stream = (void *)(0x1000 * (t + 1));
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < RUNS; i++) {
    int64_t rows = 1 + (int64_t)((t * 7 + (uintptr_t)i) % 300);
    int64_t dims[4] = {rows, 5, rows, 5};
    fuser_error *e = fuser_run(fusion, &x, &y, dims, 4, stream, NULL);
    if (e) {
      fprintf(stderr, "thread %u: %s\n", (unsigned)t, fuser_error_message(e));
      fuser_error_destroy(e);
      atomic_fetch_add(&errors, 1);
    }
    if (i % 10 == 9) {
      e = fuser_stream_synchronize(rt, stream);
      if (e) {
        fuser_error_destroy(e);
        atomic_fetch_add(&errors, 1);
      }
    }
  }
  return NULL;
}

static void run_threads(void) {
  pthread_t th[THREADS];
  pthread_barrier_init(&barrier, NULL, THREADS);
  for (uintptr_t t = 0; t < THREADS; t++)
    pthread_create(&th[t], NULL, worker, (void *)t);
  for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  pthread_barrier_destroy(&barrier);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_threads FAKE_DRIVER_PATH\n");
    return 2;
  }
  const char *fake = argv[1];
  tl_log_setup("threads");
  /* A slow JIT widens the window in which threads race to load. */
  setenv("FUSER_FAKE_LOAD_DELAY_MS", "200", 1);
  rt = tl_fake_rt(fake);
  if (!rt) return tl_finish("test_threads");
  size_t size;
  unsigned char *bytes = tl_sample_bytes(&size, NULL);
  fuser_bundle *b = NULL;
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  free(bytes);
  fusion = fuser_bundle_find_fusion(b, "softmax");
  EXPECT_OK(fuser_mem_alloc(rt, 4096, &x));
  EXPECT_OK(fuser_mem_alloc(rt, 4096, &y));

  run_threads();
  CHECK(atomic_load(&errors) == 0);
  CHECK(tl_log_count("cuModuleLoadDataEx") == 1);
  CHECK(tl_log_count("cuModuleGetFunction") == 4);
  CHECK(tl_log_count("cuLaunchKernel") == 2 * THREADS * RUNS);
  CHECK(tl_fake_hook(fake, "fuser_fake_launch_count") == 2 * THREADS * RUNS);
  fuser_rt_stats st;
  fuser_rt_get_stats(rt, &st);
  CHECK(st.in_use_bytes == 0);
  /* Blocks are only reused on their own stream or after a sync, so at most
   * a few per thread and size class exist. */
  printf("cache: %llu driver allocations, %llu hits\n",
         (unsigned long long)st.driver_allocs,
         (unsigned long long)st.cache_hits);
  CHECK(st.driver_allocs + st.cache_hits == THREADS * RUNS);
  CHECK(st.driver_allocs <= THREADS * 12);

  /* Again, warm: the lock-free path. */
  unsetenv("FUSER_FAKE_LOAD_DELAY_MS");
  run_threads();
  CHECK(atomic_load(&errors) == 0);
  CHECK(tl_log_count("cuModuleLoadDataEx") == 1);

  EXPECT_OK(fuser_device_synchronize(rt));
  EXPECT_OK(fuser_rt_trim(rt));
  fuser_rt_get_stats(rt, &st);
  CHECK(st.cached_bytes == 0 && st.driver_frees == st.driver_allocs);
  EXPECT_OK(fuser_mem_free(rt, x));
  EXPECT_OK(fuser_mem_free(rt, y));
  fuser_bundle_destroy(b);
  fuser_rt_destroy(rt);
  return tl_finish("test_threads");
}
