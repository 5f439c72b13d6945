/*
 * Host overhead of the fuser runtime: CPU time per kernel launch spent in
 * the runtime itself (plan interpretation, checks, parameter packing, cache
 * lookups), measured against a pluggable driver whose operations do
 * nothing, so driver time is excluded. For comparison the same through the
 * fake CUDA driver (test/runtime, logging off) via dlopen, which adds a
 * realistic cost of crossing into a driver library.
 *
 *   bench_host [--fake PATH] [--write bench/results/host.md] [--quick]
 *
 * Method: warm runtime (module loaded, intermediate cache primed), one
 * thread, N calls per sample timed with the thread's CPU clock
 * (CLOCK_THREAD_CPUTIME_ID, so time the thread was preempted on a busy
 * machine is not counted), ns per launch = sample time / (N * launches per
 * call); median (and min) of the samples.
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char bench_ptx[] =
    ".version 7.8\n.target sm_90\n.address_size 64\n"
    ".visible .entry add_kernel(.param .u64 .ptr a, .param .u64 .ptr b,"
    " .param .u64 .ptr c, .param .u32 n) { ret; }\n"
    ".visible .entry ln_stats(.param .u64 .ptr x, .param .u64 .ptr s,"
    " .param .u32 cols, .param .u64 rows) { ret; }\n"
    ".visible .entry ln_norm(.param .u64 .ptr x, .param .u64 .ptr s,"
    " .param .u64 .ptr w, .param .u64 .ptr y, .param .u32 cols,"
    " .param .u64 rows) { ret; }\n"
    ".visible .entry ln_norm_vec(.param .u64 .ptr x, .param .u64 .ptr s,"
    " .param .u64 .ptr w, .param .u64 .ptr y, .param .u32 cols4) { ret; }\n"
    ".visible .entry ln_scale(.param .u64 .ptr y, .param .u64 .ptr w,"
    " .param .u64 n) { ret; }\n"
    ".visible .entry ln_bias(.param .u64 .ptr y, .param .u64 n, .param .u32 c)"
    " { ret; }\n";

/* "multi": x f32[?,?], w f32[?] -> y f32[?,?]: five dynamic dims, three
 * size checks, two result dims, one intermediate, five LAUNCH instructions of which four
 * run (the vectorized norm when x and y are 16-byte aligned). */
static void multi_fusion(bw_fusion *f) {
  memset(f, 0, sizeof *f);
  f->name = "multi";
  f->num_args = 2;
  f->num_results = 1;
  f->num_regs = 24;
  f->num_inter = 1;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"x", 7, 2, {-1, -1}};
  f->tensors[1] = (bw_tensor){"w", 7, 1, {-1}};
  f->tensors[2] = (bw_tensor){"y", 7, 2, {-1, -1}};
  bw_instr *in = f->instrs;
  uint32_t n = 0;
  for (uint32_t k = 0; k < 5; k++) in[n++] = bw_op(BW_DIM, k, k, 0);
  in[n++] = bw_op(BW_EQ, 5, 1, 2);
  in[n] = bw_op(BW_ASSERT, 1, 5, 2);
  in[n++].msg = "w has {} elements but x has {} columns";
  in[n++] = bw_op(BW_EQ, 6, 0, 3);
  in[n] = bw_op(BW_ASSERT, 0, 6, 3);
  in[n++].msg = "y has {} rows but x has {}";
  in[n++] = bw_op(BW_EQ, 7, 1, 4);
  in[n] = bw_op(BW_ASSERT, 1, 7, 4);
  in[n++].msg = "y has {} columns but x has {}";
  in[n++] = bw_op(BW_RESULT_DIM, BW_NONE, 0, 3); /* y's dims are x's */
  in[n++] = bw_op(BW_RESULT_DIM, BW_NONE, 1, 4);
  in[n++] = bw_const(8, 8);
  in[n++] = bw_op(BW_MUL, 9, 0, 8); /* rows * 8 bytes of stats */
  in[n++] = bw_op(BW_ALLOC, 0, 3, 9);
  in[n++] = bw_const(10, 1);
  in[n++] = bw_const(11, 256);
  in[n++] = bw_const(12, 0);
  in[n++] = bw_op(BW_MUL, 13, 0, 1); /* elements */
  in[n++] = bw_op(BW_CEILDIV, 14, 13, 11);
  in[n++] = bw_op(BW_LAUNCH, 0, 0, BW_NONE); /* ln_stats */
  in[n] = bw_op(BW_ALIGNED, 15, 0, 0);
  in[n++].imm = 16;
  in[n] = bw_op(BW_ALIGNED, 16, 2, 0);
  in[n++].imm = 16;
  in[n++] = bw_op(BW_AND, 17, 15, 16);
  in[n++] = bw_op(BW_EQ, 18, 17, 12);
  in[n++] = bw_const(19, 4);
  in[n++] = bw_op(BW_CEILDIV, 20, 1, 19);
  in[n++] = bw_op(BW_LAUNCH, 0, 1, 18); /* ln_norm (not taken) */
  in[n++] = bw_op(BW_LAUNCH, 0, 2, 17); /* ln_norm_vec */
  in[n++] = bw_op(BW_LAUNCH, 0, 3, BW_NONE); /* ln_scale */
  in[n++] = bw_op(BW_LAUNCH, 0, 4, BW_NONE); /* ln_bias */
  f->num_instrs = n;
  f->num_launches = 5;
  f->launches[0] = (bw_launch){"ln_stats", 4,
                               {{BW_PTR, 0}, {BW_PTR, 3}, {BW_I32, 1},
                                {BW_I64, 0}},
                               {0, 10, 10}, {11, 10, 10}, 12};
  f->launches[1] = (bw_launch){"ln_norm", 6,
                               {{BW_PTR, 0}, {BW_PTR, 3}, {BW_PTR, 1},
                                {BW_PTR, 2}, {BW_I32, 1}, {BW_I64, 0}},
                               {0, 10, 10}, {11, 10, 10}, 12};
  f->launches[2] = (bw_launch){"ln_norm_vec", 5,
                               {{BW_PTR, 0}, {BW_PTR, 3}, {BW_PTR, 1},
                                {BW_PTR, 2}, {BW_I32, 20}},
                               {0, 10, 10}, {11, 10, 10}, 12};
  f->launches[3] = (bw_launch){"ln_scale", 3,
                               {{BW_PTR, 2}, {BW_PTR, 1}, {BW_I64, 13}},
                               {14, 10, 10}, {11, 10, 10}, 12};
  f->launches[4] = (bw_launch){"ln_bias", 3,
                               {{BW_PTR, 2}, {BW_I64, 13}, {BW_I32, 1}},
                               {14, 10, 10}, {11, 10, 10}, 12};
}

static uint32_t instrs_one, instrs_multi;

static void bench_bundle(bw_bundle *b) {
  tl_sample_bundle(b, false); /* for its "add" fusion */
  b->fusions[0] = b->fusions[1];
  multi_fusion(&b->fusions[1]);
  instrs_one = b->fusions[0].num_instrs;
  instrs_multi = b->fusions[1].num_instrs;
  b->fusions[0].ptx_module = b->fusions[1].ptx_module = 0;
  b->modules[0].text = bench_ptx;
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct result {
  const char *driver, *fusion;
  int launches;
  double median, min;
} result;

static result results[16];
static int num_results;

static void measure(fuser_rt *rt, const char *driver, const fuser_fusion *f,
                    const char *label, int launches, const uint64_t *args,
                    const uint64_t *res, const int64_t *dims, size_t nd,
                    const fuser_run_options *opts, int samples, int calls) {
  double t[64];
  for (int w = 0; w < 2000; w++) {
    fuser_error *e = fuser_run(f, args, res, dims, nd, NULL, opts);
    if (e) {
      fprintf(stderr, "%s: %s\n", label, fuser_error_message(e));
      exit(1);
    }
  }
  for (int s = 0; s < samples; s++) {
    double t0 = now_ns();
    for (int c = 0; c < calls; c++) {
      fuser_error *e = fuser_run(f, args, res, dims, nd, NULL, opts);
      if (e) exit(1);
    }
    t[s] = (now_ns() - t0) / ((double)calls * launches);
  }
  qsort(t, (size_t)samples, sizeof t[0], cmp_double);
  result *r = &results[num_results++];
  r->driver = driver;
  r->fusion = label;
  r->launches = launches;
  r->median = t[samples / 2];
  r->min = t[0];
  printf("%-34s %-42s %8.1f ns/launch (min %.1f)\n", driver, label, r->median,
         r->min);
  (void)rt;
}

static void run_all(fuser_rt *rt, const char *driver, int samples,
                    int calls) {
  bw_bundle bb;
  bench_bundle(&bb);
  size_t size;
  unsigned char *bytes = bw_write(&bb, &size, NULL);
  fuser_bundle *b = NULL;
  fuser_error *e = fuser_bundle_load(rt, bytes, size, &b);
  free(bytes);
  if (e) {
    fprintf(stderr, "load: %s\n", fuser_error_message(e));
    exit(1);
  }
  uint64_t bufs[6];
  for (int i = 0; i < 6; i++) {
    e = fuser_mem_alloc(rt, 1 << 16, &bufs[i]);
    if (e) exit(1);
  }
  const fuser_fusion *one = fuser_bundle_find_fusion(b, "add");
  measure(rt, driver, one, "1 launch, static shapes", 1, bufs, bufs + 2, NULL,
          0, NULL, samples, calls);
  const fuser_fusion *multi = fuser_bundle_find_fusion(b, "multi");
  int64_t dims[5] = {64, 128, 128, 64, 128};
  measure(rt, driver, multi, "4 launches, 5 dyn dims, 1 intermediate", 4,
          bufs, bufs + 2, dims, 5, NULL, samples, calls);
  fuser_run_options ro = {.scratch = bufs[5], .scratch_size = 1 << 16};
  measure(rt, driver, multi, "same, intermediate in user scratch", 4, bufs,
          bufs + 2, dims, 5, &ro, samples, calls);
  for (int i = 0; i < 6; i++) fuser_error_destroy(fuser_mem_free(rt, bufs[i]));
  fuser_bundle_destroy(b);
}

static void cpu_model(char *out, size_t cap) {
  snprintf(out, cap, "unknown");
  FILE *fp = fopen("/proc/cpuinfo", "r");
  if (!fp) return;
  char line[512];
  int cpus = 0;
  char model[256] = "unknown";
  while (fgets(line, sizeof line, fp)) {
    if (!strncmp(line, "model name", 10)) {
      cpus++;
      char *c = strchr(line, ':');
      if (c) {
        c++;
        while (*c == ' ') c++;
        snprintf(model, sizeof model, "%s", c);
        model[strcspn(model, "\n")] = 0;
      }
    }
  }
  fclose(fp);
  snprintf(out, cap, "%s, %d logical CPUs", model, cpus);
}

/* A "## Measured elsewhere" section of an existing results file (figures
 * from other machines, added by hand) survives regeneration. */
static char *kept_section(const char *path) {
  FILE *fp = fopen(path, "r");
  if (!fp) return NULL;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, fp);
  fclose(fp);
  buf[n] = 0;
  char *k = strstr(buf, "\n## Measured elsewhere");
  return k ? k : NULL;
}

static void write_md(const char *path, int samples, int calls) {
  char *kept = kept_section(path);
  FILE *fp = fopen(path, "w");
  if (!fp) {
    perror(path);
    exit(1);
  }
  char date[64], cpu[320];
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  cpu_model(cpu, sizeof cpu);
  fprintf(fp, "# Runtime host overhead per kernel launch\n\n");
  fprintf(fp, "Generated by `make -C runtime bench` (bench/host/bench_host.c)."
              "\n\n");
  fprintf(fp, "- date: %s\n- machine: %s\n- compiler: %s, -O2, static "
              "libfuser_runtime.a\n\n",
          date, cpu,
#ifdef __VERSION__
          "cc " __VERSION__
#else
          "cc"
#endif
  );
  fprintf(fp, "| driver | fusion | ns per launch (median) | min |\n"
              "|---|---|---:|---:|\n");
  for (int i = 0; i < num_results; i++)
    fprintf(fp, "| %s | %s | %.1f | %.1f |\n", results[i].driver,
            results[i].fusion, results[i].median, results[i].min);
  fprintf(fp,
          "\nGoal: at most 1000 ns of runtime CPU time per launch. Anchors: "
          "nvFuser 20-30 us, torch.compile about 7 us, cuLaunchKernel itself "
          "about 4 us per launch.\n\n");
  fprintf(fp,
          "## Method\n\n"
          "- One thread, warm: the module is loaded and the intermediate cache "
          "primed by 2000 calls before timing.\n"
          "- %d samples of %d `fuser_run` calls each, timed with the "
          "thread's CPU clock (CLOCK_THREAD_CPUTIME_ID); a sample's figure is its time divided by calls x "
          "launches per call; the table gives the median and the minimum "
          "sample.\n"
          "- *no-op driver*: a pluggable `fuser_driver` whose launch returns "
          "at once, so the figure is the runtime's own work per launch: "
          "argument checks, the lock-free module-ready check, the plan "
          "interpreter (two passes when something can fail after the first "
          "LAUNCH, as in the multi-launch fusion), overflow-checked "
          "arithmetic, parameter packing on the stack, the intermediate "
          "cache (one uncontended lock per ALLOC and per call's release); the "
          "calls into the driver table cost a few ns (this driver has no "
          "enter/leave hooks).\n"
          "- *fake CUDA driver*: the same calls through `fuser_rt_create` on "
          "test/runtime's libfuser_fake_cuda.so with logging off: dlopen'ed "
          "cu* entry points, a context push/pop per call and the fake's own "
          "lock and lookups in each cuLaunchKernel - an upper bound that "
          "includes a (cheap) driver.\n"
          "- The multi-launch fusion: 5 dynamic dims, 3 ASSERTs, 1 ALLOC, 2 "
          "ALIGNED tests, 5 LAUNCH instructions of which 4 run (%u "
          "instructions); the single-launch fusion: %u instructions.\n",
          samples, calls, instrs_multi, instrs_one);
  if (kept) fputs(kept, fp);
  fclose(fp);
  printf("wrote %s\n", path);
}

int main(int argc, char **argv) {
  const char *fake = NULL, *out = NULL;
  int samples = 31, calls = 20000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--fake") && i + 1 < argc) fake = argv[++i];
    else if (!strcmp(argv[i], "--write") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--quick")) samples = 5, calls = 2000;
    else {
      fprintf(stderr, "usage: bench_host [--fake PATH] [--write FILE] "
                      "[--quick]\n");
      return 64;
    }
  }
  fuser_rt *rt = NULL;
  fuser_error *e = fuser_rt_create_with_driver(&tl_null_driver, NULL, &rt);
  if (e) return 1;
  run_all(rt, "no-op driver (runtime only)", samples, calls);
  fuser_rt_destroy(rt);
  if (fake) {
    unsetenv("FUSER_FAKE_LOG");
    unsetenv("FUSER_FAKE_FAIL");
    fuser_rt_options o;
    fuser_rt_options_init(&o);
    o.cuda_driver_path = fake;
    e = fuser_rt_create(&o, &rt);
    if (e) {
      fprintf(stderr, "%s\n", fuser_error_message(e));
      return 1;
    }
    run_all(rt, "fake CUDA driver (logging off)", samples, calls);
    fuser_rt_destroy(rt);
  }
  if (out) write_md(out, samples, calls);
  return 0;
}
