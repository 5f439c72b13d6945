/*
 * check_runner.c - runs fuser bundles compiled elsewhere on carried inputs
 * and compares the results with carried expected outputs (issue 4's GPU
 * check). Needs only a C compiler, the runtime (runtime/) and npy.c: no
 * MLIR, no LLVM, no CUDA toolkit.
 *
 *   check_runner CASES [--runs N] [--driver LIBCUDA] [--out FILE.md]
 *   check_runner CASES --emulator ...   (builds with -DWITH_EMULATOR only:
 *                                        the CPU emulator of libFuserCAPI)
 *
 * CASES is a text file (bench/gpu/pack.py writes it), paths relative to it:
 *   case NAME BUNDLE FUSION
 *   in ARG FILE.npy          one per argument
 *   out RESULT FILE.npy      one per result (the expected values)
 *   tol f32 REL ABS          optional, per dtype
 *   end
 *
 * For each case: load the bundle, take the dynamic dims from the inputs'
 * shapes, let the fusion infer the results', copy the inputs to the device,
 * run once, compare every result with the expected one element by element
 * (|got - want| <= ABS + REL * |want|, NaN where NaN is expected, infinities
 * equal), then time --runs further calls (wall clock around fuser_run and a
 * stream synchronize; the median). Prints a markdown table; exit status 1
 * when any case fails.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuser_runtime.h"
#include "npy.h"

#ifdef WITH_EMULATOR
#include "fuser-c/Emulator.h"
#endif

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TENSORS 32

typedef struct {
  char name[128], bundle[2048], fusion[128];
  char inName[MAX_TENSORS][64], inFile[MAX_TENSORS][2048];
  char outName[MAX_TENSORS][64], outFile[MAX_TENSORS][2048];
  int numIn, numOut;
  double rel[FUSER_DTYPE_F8E8M0FNU + 1], abs_[FUSER_DTYPE_F8E8M0FNU + 1]; /* per fuser_dtype */
} Case;

static double nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double elementAsDouble(const void *data, size_t i, fuser_dtype dtype) {
  switch (dtype) {
  case FUSER_DTYPE_I1: return ((const uint8_t *)data)[i];
  case FUSER_DTYPE_I8: return ((const int8_t *)data)[i];
  case FUSER_DTYPE_I32: return ((const int32_t *)data)[i];
  case FUSER_DTYPE_I64: return (double)((const int64_t *)data)[i];
  case FUSER_DTYPE_F16: {
    uint16_t h = ((const uint16_t *)data)[i];
    int e = (h >> 10) & 0x1F, m = h & 0x3FF;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
  }
  case FUSER_DTYPE_BF16: {
    uint32_t u = (uint32_t)((const uint16_t *)data)[i] << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  case FUSER_DTYPE_F32: return ((const float *)data)[i];
  case FUSER_DTYPE_F64: return ((const double *)data)[i];
  case FUSER_DTYPE_F8E4M3FN: case FUSER_DTYPE_F8E5M2: case FUSER_DTYPE_F8E8M0FNU: {
    /* fp8 codes compare exactly (tolerance 0): the value's bits as a number */
    return ((const uint8_t *)data)[i];
  }
  }
  return 0;
}

static void defaultTolerances(Case *c) {
  for (int d = 0; d <= FUSER_DTYPE_F8E8M0FNU; ++d)
    c->rel[d] = c->abs_[d] = 0;
  /* The GPU runs the very kernels the emulator ran, so differences come only
   * from instruction selection (FMA contraction) in the two backends. */
  c->rel[FUSER_DTYPE_F32] = 1e-5;
  c->abs_[FUSER_DTYPE_F32] = 1e-6;
  c->rel[FUSER_DTYPE_F64] = 1e-12;
  c->abs_[FUSER_DTYPE_F64] = 1e-14;
  c->rel[FUSER_DTYPE_BF16] = 1.0 / 128; /* one bf16 ulp */
  c->abs_[FUSER_DTYPE_BF16] = 1e-5;
  c->rel[FUSER_DTYPE_F16] = 1.0 / 1024; /* one f16 ulp */
  c->abs_[FUSER_DTYPE_F16] = 1e-6;
}

static int dtypeByName(const char *s) {
  for (int d = 1; d <= FUSER_DTYPE_F8E8M0FNU; ++d)
    if (!strcmp(s, fuser_dtype_name((fuser_dtype)d)))
      return d;
  return 0;
}

/* Reads the next case; returns 1, 0 at the end, -1 on a syntax error. */
static int readCase(FILE *f, const char *dir, Case *c, int *line) {
  char buf[4096];
  int inCase = 0;
  memset(c, 0, sizeof *c);
  defaultTolerances(c);
  while (fgets(buf, sizeof buf, f)) {
    ++*line;
    char a[1024], b[1024], d[1024];
    buf[strcspn(buf, "\r\n")] = '\0';
    if (!buf[0] || buf[0] == '#')
      continue;
    if (sscanf(buf, "case %127s %1000s %127s", c->name, a, c->fusion) == 3) {
      snprintf(c->bundle, sizeof c->bundle, "%s/%s", dir, a);
      inCase = 1;
    } else if (inCase && sscanf(buf, "in %63s %1000s", a, b) == 2 && c->numIn < MAX_TENSORS) {
      snprintf(c->inName[c->numIn], 64, "%.63s", a);
      snprintf(c->inFile[c->numIn++], 2048, "%s/%s", dir, b);
    } else if (inCase && sscanf(buf, "out %63s %1000s", a, b) == 2 && c->numOut < MAX_TENSORS) {
      snprintf(c->outName[c->numOut], 64, "%.63s", a);
      snprintf(c->outFile[c->numOut++], 2048, "%s/%s", dir, b);
    } else if (inCase && sscanf(buf, "tol %63s %1000s %1000s", a, b, d) == 3 && dtypeByName(a)) {
      c->rel[dtypeByName(a)] = atof(b);
      c->abs_[dtypeByName(a)] = atof(d);
    } else if (inCase && !strcmp(buf, "end")) {
      return 1;
    } else {
      fprintf(stderr, "check_runner: line %d: cannot read '%s'\n", *line, buf);
      return -1;
    }
  }
  return inCase ? -1 : 0;
}

static char *takeError(fuser_error *e) {
  char *s = strdup(fuser_error_message(e));
  fuser_error_destroy(e);
  return s;
}

typedef struct {
  int ok;
  char detail[512];
  double ms, maxErr;
  size_t elements, mismatches;
  char shape[128];
} Outcome;

static void runCase(fuser_rt *rt, const Case *c, int runs, Outcome *o) {
  memset(o, 0, sizeof *o);
  fuser_bundle *bundle = NULL;
  npy_array host[2 * MAX_TENSORS];
  npy_array want[MAX_TENSORS];
  uint64_t dev[2 * MAX_TENSORS];
  memset(host, 0, sizeof host);
  memset(want, 0, sizeof want);
  memset(dev, 0, sizeof dev);
  char err[NPY_ERR_LEN];
  double *times = NULL;
  size_t numArgs = 0, numResults = 0;
  fuser_error *e = fuser_bundle_load_file(rt, c->bundle, &bundle);
  if (e) {
    char *m = takeError(e);
    snprintf(o->detail, sizeof o->detail, "load: %s", m);
    free(m);
    return;
  }
  const fuser_fusion *f = fuser_bundle_find_fusion(bundle, c->fusion);
  if (!f) {
    snprintf(o->detail, sizeof o->detail, "no fusion '%s'", c->fusion);
    goto done;
  }
  numArgs = fuser_fusion_num_args(f);
  numResults = fuser_fusion_num_results(f);
  size_t numDims = fuser_fusion_num_dyn_dims(f);
  int64_t dims[256] = {0};
  if (numArgs + numResults > MAX_TENSORS || numDims > 256) {
    snprintf(o->detail, sizeof o->detail, "fusion too large for the runner");
    goto done;
  }
  for (size_t a = 0; a < numArgs; ++a) {
    const fuser_tensor_info *t = fuser_fusion_arg(f, a);
    int k = 0;
    while (k < c->numIn && strcmp(c->inName[k], t->name))
      ++k;
    if (k == c->numIn) {
      snprintf(o->detail, sizeof o->detail, "no input for argument '%s'", t->name);
      goto done;
    }
    if (npy_load(c->inFile[k], (npy_dtype)t->dtype, &host[a], err, sizeof err)) {
      snprintf(o->detail, sizeof o->detail, "%s", err);
      goto done;
    }
  }
  for (size_t k = 0; k < numDims; ++k) {
    const fuser_dyn_dim_info *info = fuser_fusion_dyn_dim(f, k);
    if (info->tensor < numArgs)
      dims[k] = host[info->tensor].shape[info->dim];
  }
  if ((e = fuser_fusion_infer_dims(f, dims, numDims, dims))) {
    char *m = takeError(e);
    snprintf(o->detail, sizeof o->detail, "dims: %s", m);
    free(m);
    goto done;
  }
  for (size_t r = 0; r < numResults; ++r) {
    const fuser_tensor_info *t = fuser_fusion_result(f, r);
    int k = 0;
    while (k < c->numOut && strcmp(c->outName[k], t->name))
      ++k;
    if (k == c->numOut) {
      snprintf(o->detail, sizeof o->detail, "no expected output for result '%s'", t->name);
      goto done;
    }
    if (npy_load(c->outFile[k], (npy_dtype)t->dtype, &want[r], err, sizeof err)) {
      snprintf(o->detail, sizeof o->detail, "%s", err);
      goto done;
    }
    uint64_t bytes;
    if ((e = fuser_fusion_tensor_bytes(f, numArgs + r, dims, numDims, &bytes))) {
      char *m = takeError(e);
      snprintf(o->detail, sizeof o->detail, "%s", m);
      free(m);
      goto done;
    }
    if (bytes != want[r].num_elements * want[r].element_size) {
      snprintf(o->detail, sizeof o->detail, "result '%s' has %" PRIu64 " bytes, expected %zu",
               t->name, bytes, want[r].num_elements * want[r].element_size);
      goto done;
    }
    host[numArgs + r] = want[r];
    host[numArgs + r].data = calloc(bytes + 1, 1);
    if (!host[numArgs + r].data) {
      snprintf(o->detail, sizeof o->detail, "out of memory");
      goto done;
    }
  }
  {
    const npy_array *first = &want[0];
    int n = 0;
    for (int d = 0; d < first->rank && n < 100; ++d)
      n += snprintf(o->shape + n, sizeof o->shape - (size_t)n, "%s%" PRId64, d ? "x" : "",
                    first->shape[d]);
    if (!first->rank)
      snprintf(o->shape, sizeof o->shape, "scalar");
  }
  for (size_t i = 0; i < numArgs + numResults; ++i) {
    size_t bytes = host[i].num_elements * host[i].element_size;
    if ((e = fuser_mem_alloc(rt, bytes ? bytes : 1, &dev[i])) ||
        (i < numArgs && bytes && (e = fuser_mem_copy_h2d(rt, dev[i], host[i].data, bytes)))) {
      char *m = takeError(e);
      snprintf(o->detail, sizeof o->detail, "memory: %s", m);
      free(m);
      goto done;
    }
  }
  if ((e = fuser_run(f, dev, dev + numArgs, dims, numDims, NULL, NULL)) ||
      (e = fuser_stream_synchronize(rt, NULL))) {
    char *m = takeError(e);
    snprintf(o->detail, sizeof o->detail, "run: %s", m);
    free(m);
    goto done;
  }
  o->ok = 1;
  for (size_t r = 0; r < numResults; ++r) {
    npy_array *h = &host[numArgs + r];
    size_t bytes = h->num_elements * h->element_size;
    if (bytes && (e = fuser_mem_copy_d2h(rt, h->data, dev[numArgs + r], bytes))) {
      char *m = takeError(e);
      snprintf(o->detail, sizeof o->detail, "copy back: %s", m);
      free(m);
      o->ok = 0;
      goto done;
    }
    fuser_dtype dt = fuser_fusion_result(f, r)->dtype;
    for (size_t i = 0; i < h->num_elements; ++i) {
      double got = elementAsDouble(h->data, i, dt), exp = elementAsDouble(want[r].data, i, dt);
      double diff = fabs(got - exp);
      int same = (isnan(exp) && isnan(got)) || got == exp ||
                 (isfinite(exp) && diff <= c->abs_[dt] + c->rel[dt] * fabs(exp));
      if (!isnan(diff) && isfinite(diff) && diff > o->maxErr)
        o->maxErr = diff;
      if (!same) {
        if (!o->mismatches)
          snprintf(o->detail, sizeof o->detail, "%s[%zu] = %.9g, expected %.9g",
                   fuser_fusion_result(f, r)->name, i, got, exp);
        ++o->mismatches;
      }
    }
    o->elements += h->num_elements;
  }
  if (o->mismatches)
    o->ok = 0;
  times = calloc((size_t)runs + 1, sizeof(double));
  for (int i = 0; times && i < runs; ++i) {
    double t0 = nowMs();
    if ((e = fuser_run(f, dev, dev + numArgs, dims, numDims, NULL, NULL)) ||
        (e = fuser_stream_synchronize(rt, NULL))) {
      char *m = takeError(e);
      snprintf(o->detail, sizeof o->detail, "timed run: %s", m);
      free(m);
      o->ok = 0;
      goto done;
    }
    times[i] = nowMs() - t0;
  }
  if (times && runs > 0) {
    qsort(times, (size_t)runs, sizeof(double), cmpDouble);
    o->ms = times[runs / 2];
  }
done:
  free(times);
  for (size_t i = 0; i < 2 * MAX_TENSORS; ++i) {
    if (dev[i])
      fuser_error_destroy(fuser_mem_free(rt, dev[i]));
    npy_free(&host[i]);
  }
  for (size_t r = 0; r < MAX_TENSORS; ++r)
    npy_free(&want[r]);
  fuser_bundle_destroy(bundle);
}

int main(int argc, char **argv) {
  const char *casesPath = NULL, *driver = NULL, *outPath = NULL;
  int runs = 20, emulator = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--driver") && i + 1 < argc)
      driver = argv[++i];
    else if (!strcmp(argv[i], "--out") && i + 1 < argc)
      outPath = argv[++i];
    else if (!strcmp(argv[i], "--emulator"))
      emulator = 1;
    else if (argv[i][0] != '-' && !casesPath)
      casesPath = argv[i];
    else {
      fprintf(stderr, "usage: check_runner CASES [--runs N] [--driver LIB] [--out FILE.md]"
                      " [--emulator]\n");
      return 2;
    }
  }
  if (!casesPath) {
    fprintf(stderr, "check_runner: no cases file\n");
    return 2;
  }
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", casesPath);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = '\0';
  else
    snprintf(dir, sizeof dir, ".");

  fuser_rt *rt = NULL;
  fuser_error *e = NULL;
  const char *device = "cuda";
  if (emulator) {
#ifdef WITH_EMULATOR
    e = fuserEmulatorRuntimeCreate(NULL, &rt);
    device = "CPU emulator";
#else
    fprintf(stderr, "check_runner: built without the emulator (-DWITH_EMULATOR)\n");
    return 2;
#endif
  } else {
    fuser_rt_options opts;
    fuser_rt_options_init(&opts);
    opts.cuda_driver_path = driver;
    e = fuser_rt_create(&opts, &rt);
  }
  if (e) {
    fprintf(stderr, "check_runner: cannot create the runtime: %s\n", fuser_error_message(e));
    fuser_error_destroy(e);
    return 1;
  }
  FILE *cf = fopen(casesPath, "r");
  if (!cf) {
    fprintf(stderr, "check_runner: cannot open %s\n", casesPath);
    fuser_rt_destroy(rt);
    return 1;
  }
  FILE *out = outPath ? fopen(outPath, "w") : NULL;
  FILE *sinks[2] = {stdout, out};
  for (int s = 0; s < 2; ++s)
    if (sinks[s]) {
      fprintf(sinks[s], "| case | result shape | elements | result | max abs error | "
                        "ms per call (median of %d, wall, synced) |\n", runs);
      fprintf(sinks[s], "|---|---|---:|---|---:|---:|\n");
    }
  Case c;
  int line = 0, passed = 0, failed = 0, r;
  double t0 = nowMs();
  while ((r = readCase(cf, dir, &c, &line)) == 1) {
    Outcome o;
    runCase(rt, &c, runs, &o);
    o.ok ? ++passed : ++failed;
    for (int s = 0; s < 2; ++s)
      if (sinks[s]) {
        fprintf(sinks[s], "| %s | %s | %zu | %s", c.name, o.shape[0] ? o.shape : "-",
                o.elements, o.ok ? "pass" : "**FAIL**");
        if (!o.ok && o.mismatches)
          fprintf(sinks[s], " (%zu mismatches; first: %s)", o.mismatches, o.detail);
        else if (!o.ok)
          fprintf(sinks[s], " (%s)", o.detail);
        fprintf(sinks[s], " | %.3g | %.3f |\n", o.maxErr, o.ms);
        fflush(sinks[s]);
      }
  }
  fclose(cf);
  for (int s = 0; s < 2; ++s)
    if (sinks[s])
      fprintf(sinks[s], "\n%d passed, %d failed, on %s (%s), %.1f s\n", passed, failed,
              device, fuser_rt_driver_name(rt), (nowMs() - t0) / 1e3);
  if (out)
    fclose(out);
  fuser_rt_destroy(rt);
  if (r < 0)
    return 1;
  return failed ? 1 : 0;
}
