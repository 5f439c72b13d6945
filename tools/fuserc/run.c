/*===- run.c - fuserc run -------------------------------------------------===*\
|*                                                                            *|
|* Compiles (for .mlir input) or loads a bundle, picks a device (the GPU     *|
|* through the CUDA driver, or the CPU emulator), fills the inputs from .npy  *|
|* files or a seeded generator, runs each fusion through the runtime exactly  *|
|* as an embedder would, and writes or prints the results.                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "run.h"

#include "record.h"

#include "fuser-c/Emulator.h"
#include "fuser_runtime.h"
#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


bool fusercReportError(fuser_error *e, const char *what) {
  if (!e)
    return false;
  fprintf(stderr, "fuserc: error: %s: %s\n", what, fuser_error_message(e));
  fuser_error_destroy(e);
  return true;
}

/* splitmix64: small, fast, and the same sequence everywhere. */
static uint64_t nextRandom(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint16_t floatToHalfBits(float f, bool bf16) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if (bf16) /* round to nearest even */
    return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
  /* f16 for values in [-4, 4]: normal range, round to nearest even */
  uint32_t sign = (u >> 16) & 0x8000;
  int32_t exp = (int32_t)((u >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = u & 0x7FFFFF;
  if (exp <= 0) /* tiny: flush toward the subnormal grid */
    return (uint16_t)(sign | (uint32_t)lrintf(fabsf(f) * 16777216.0f));
  uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return (uint16_t)h;
}

/* The value of an fp8 code (docs/fp8.md). */
static double fp8ToDouble(uint8_t code, bool e4m3) {
  int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  int e = (code & 0x7F) >> mbits, m = code & ((1 << mbits) - 1);
  double v;
  if (e4m3 && (code & 0x7F) == 0x7F) v = NAN;
  else if (!e4m3 && e == 31) v = m ? NAN : INFINITY;
  else if (e == 0) v = ldexp(m, 1 - bias - mbits);
  else v = ldexp(m + (1 << mbits), e - bias - mbits);
  return (code & 0x80) ? -v : v;
}

/* Fills `n` elements of `dtype` with reproducible values: floats uniform in
 * [-4, 4) (fp8: every code of magnitude below 4 equally likely), integers in
 * [-100, 100), bools half true. */
void fusercFillRandom(void *data, size_t n, fuser_dtype dtype, uint64_t *state) {
  for (size_t i = 0; i < n; ++i) {
    uint64_t r = nextRandom(state);
    double u = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
    double f = -4.0 + 8.0 * u;
    int64_t k = (int64_t)(r % 200) - 100;
    switch (dtype) {
    case FUSER_DTYPE_I1: ((uint8_t *)data)[i] = (uint8_t)(r & 1); break;
    case FUSER_DTYPE_I8: ((int8_t *)data)[i] = (int8_t)k; break;
    case FUSER_DTYPE_I32: ((int32_t *)data)[i] = (int32_t)k; break;
    case FUSER_DTYPE_I64: ((int64_t *)data)[i] = k; break;
    case FUSER_DTYPE_F16: ((uint16_t *)data)[i] = floatToHalfBits((float)f, false); break;
    case FUSER_DTYPE_BF16: ((uint16_t *)data)[i] = floatToHalfBits((float)f, true); break;
    case FUSER_DTYPE_F32: ((float *)data)[i] = (float)f; break;
    case FUSER_DTYPE_F64: ((double *)data)[i] = f; break;
    case FUSER_DTYPE_F8E4M3FN: /* codes below 0x48 (4.0), either sign */
      ((uint8_t *)data)[i] = (uint8_t)((r >> 8) % 0x48 | (r & 0x80));
      break;
    case FUSER_DTYPE_F8E5M2: /* codes below 0x44 (4.0), either sign */
      ((uint8_t *)data)[i] = (uint8_t)((r >> 8) % 0x44 | (r & 0x80));
      break;
    case FUSER_DTYPE_F8E8M0FNU: /* 2^-8 to 2^7 */
      ((uint8_t *)data)[i] = (uint8_t)(119 + (r >> 8) % 16);
      break;
    }
  }
}

double fusercElementAsDouble(const void *data, size_t i, fuser_dtype dtype) {
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
  case FUSER_DTYPE_F8E4M3FN: return fp8ToDouble(((const uint8_t *)data)[i], true);
  case FUSER_DTYPE_F8E5M2: return fp8ToDouble(((const uint8_t *)data)[i], false);
  case FUSER_DTYPE_F8E8M0FNU: {
    uint8_t c = ((const uint8_t *)data)[i];
    return c == 0xFF ? NAN : ldexp(1.0, c - 127);
  }
  }
  return 0;
}

/* Parses "4,8" (non-negative numbers, possibly none) into `out`; returns
 * the count, or -1. */
static int parseList(const char *s, const char *end, int64_t *out, int max) {
  int n = 0;
  while (s < end) {
    char *stop;
    errno = 0;
    if (*s < '0' || *s > '9')
      return -1;
    long long v = strtoll(s, &stop, 10);
    if (stop == s || errno || v < 0 || stop > end || n == max ||
        (stop < end && *stop != ',') || (stop + 1 == end && *stop == ','))
      return -1;
    out[n++] = v;
    s = stop < end ? stop + 1 : stop;
  }
  return n;
}

/* "x=4,8:1,4" into `v`: a name, then as many strides as sizes, and the
 * view's span (so a storage too small is found before anything runs). */
static bool parseView(const char *spec, ViewFlag *v) {
  memset(v, 0, sizeof *v);
  v->spec = spec;
  const char *eq = strchr(spec, '='), *colon = eq ? strchr(eq, ':') : NULL;
  if (!eq || eq == spec || !colon) {
    fprintf(stderr, "fuserc: error: --view expects NAME=SIZES:STRIDES (e.g. x=4,8:1,4: "
                    "sizes and strides in elements, comma-separated), got '%s'\n", spec);
    return false;
  }
  v->nameLen = (size_t)(eq - spec);
  int64_t strides[FUSER_MAX_RANK + 1];
  int ns = parseList(eq + 1, colon, v->sizes, FUSER_MAX_RANK);
  int nt = parseList(colon + 1, colon + strlen(colon), strides, FUSER_MAX_RANK + 1);
  if (ns < 0 || nt < 0) {
    fprintf(stderr, "fuserc: error: --view %s: sizes and strides are non-negative numbers "
                    "separated by commas (at most %d of each)\n", spec, FUSER_MAX_RANK);
    return false;
  }
  if (ns != nt) {
    fprintf(stderr, "fuserc: error: --view %s: %d size%s but %d stride%s (one stride per "
                    "dim)\n", spec, ns, ns == 1 ? "" : "s", nt, nt == 1 ? "" : "s");
    return false;
  }
  v->rank = (uint32_t)ns;
  memcpy(v->strides, strides, sizeof(int64_t) * (size_t)ns);
  uint64_t span = 1, step;
  for (uint32_t d = 0; d < v->rank; ++d) {
    if (v->sizes[d] == 0) {
      span = 0;
      break;
    }
    if (__builtin_mul_overflow((uint64_t)(v->sizes[d] - 1), (uint64_t)v->strides[d], &step) ||
        __builtin_add_overflow(span, step, &span) || span > (uint64_t)INT64_MAX) {
      fprintf(stderr, "fuserc: error: --view %s: the view spans 2^63 elements or more\n",
              spec);
      return false;
    }
  }
  v->span = span;
  return true;
}

static bool parseRunFlags(int argc, char **argv, RunFlags *f) {
  memset(f, 0, sizeof *f);
  f->device = "auto";
  f->emulatorOpt = -1;
  fusercDefaultFlags(&f->compile);
  unsigned seen = 0; /* the valued options below given so far */
  for (int i = 0; i < argc; ++i) {
    int r = fusercParseCompileFlag(argc, argv, &i, &f->compile);
    if (r < 0)
      return false;
    if (r > 0)
      continue;
    const char *a = argv[i];
    const char *valued[] = {"--device", "--fusion", "--input", "--random", "--dims",
                            "--output-dir", "--emulator-cpu", "--emulator-opt", "--view",
                            "--ranks"};
    bool isValued = false;
    for (size_t k = 0; k < sizeof valued / sizeof valued[0]; ++k) {
      if (strcmp(a, valued[k]))
        continue;
      isValued = true;
      /* One value each (--input and --view are given once per tensor): a
         second one silently replaced the first. */
      bool repeatable = !strcmp(a, "--input") || !strcmp(a, "--view");
      if (!repeatable && i + 1 < argc && (seen & (1u << k))) {
        fprintf(stderr, "fuserc: error: %s given twice ('%s')\n", a, argv[i + 1]);
        return false;
      }
      seen |= 1u << k;
    }
    if (isValued && i + 1 >= argc) {
      fprintf(stderr, "fuserc: error: %s needs a value\n", a);
      return false;
    }
    if (!strcmp(a, "--device")) {
      f->device = argv[++i];
      if (strcmp(f->device, "cuda") && strcmp(f->device, "cpu") && strcmp(f->device, "auto")) {
        fprintf(stderr, "fuserc: error: --device expects cuda, cpu or auto, got '%s'\n",
                f->device);
        return false;
      }
    } else if (!strcmp(a, "--fusion")) {
      f->fusion = argv[++i];
    } else if (!strcmp(a, "--input")) {
      char *spec = argv[++i], *eq = strchr(spec, '=');
      if (!eq || eq == spec || !eq[1]) {
        fprintf(stderr, "fuserc: error: --input expects NAME=FILE.npy, got '%s'\n", spec);
        return false;
      }
      if (f->numInputs == 64) {
        fprintf(stderr, "fuserc: error: more than 64 --input options\n");
        return false;
      }
      *eq = '\0';
      f->inputs[f->numInputs++] = (InputFlag){spec, eq + 1};
    } else if (!strcmp(a, "--view")) {
      if (f->numViews == 64) {
        fprintf(stderr, "fuserc: error: more than 64 --view options\n");
        return false;
      }
      if (!parseView(argv[++i], &f->views[f->numViews]))
        return false;
      f->numViews++;
    } else if (!strcmp(a, "--random")) {
      char *end;
      errno = 0;
      f->seed = strtoull(argv[++i], &end, 10);
      /* strtoull takes "-1" as 2^64 - 1: a seed is written without a sign. */
      if (!*argv[i] || *end || errno || !isdigit((unsigned char)argv[i][0])) {
        fprintf(stderr, "fuserc: error: --random expects a seed number, got '%s'\n", argv[i]);
        return false;
      }
      f->haveSeed = true;
    } else if (!strcmp(a, "--ranks")) {
      char *end;
      errno = 0;
      long n = strtol(argv[++i], &end, 10);
      if (!*argv[i] || *end || errno || n < 1 || n > 1024) {
        fprintf(stderr, "fuserc: error: --ranks expects a number of devices from 1 to 1024, "
                        "got '%s'\n", argv[i]);
        return false;
      }
      f->ranks = (int)n;
    } else if (!strcmp(a, "--dims")) {
      f->dims = argv[++i];
    } else if (!strcmp(a, "--output-dir")) {
      f->outputDir = argv[++i];
      if (!*f->outputDir) {
        fprintf(stderr, "fuserc: error: --output-dir expects a directory, got ''\n");
        return false;
      }
    } else if (!strcmp(a, "--emulator-cpu")) {
      f->emulatorCpu = argv[++i];
      if (!*f->emulatorCpu) {
        fprintf(stderr, "fuserc: error: --emulator-cpu expects host, baseline or an LLVM CPU "
                        "name, got ''\n");
        return false;
      }
    } else if (!strcmp(a, "--emulator-opt")) {
      const char *v = argv[++i];
      if (!(v[0] >= '0' && v[0] <= '3' && !v[1])) {
        fprintf(stderr, "fuserc: error: --emulator-opt expects an LLVM optimization level, "
                        "0 to 3, got '%s'\n", v);
        return false;
      }
      f->emulatorOpt = v[0] - '0';
    } else if (!strcmp(a, "--reverse-threads")) {
      f->reverseThreads = true;
    } else if (!strcmp(a, "--race-check")) {
      f->raceCheck = true;
    } else if (!strcmp(a, "--quiet")) {
      f->quiet = true;
    } else if (!strcmp(a, "--traffic")) {
      f->traffic = true;
    } else if (!strcmp(a, "--misalign")) {
      f->misalign = true;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fusercUsage(stdout);
      exit(0);
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "fuserc: error: unknown option '%s' for run\n", a);
      return false;
    } else if (f->source) {
      fprintf(stderr, "fuserc: error: more than one input file ('%s', '%s')\n", f->source, a);
      return false;
    } else {
      f->source = a;
    }
  }
  if (!f->source) {
    fprintf(stderr, "fuserc: error: run needs an .mlir file or a bundle\n");
    return false;
  }
  return true;
}

fuser_rt *fusercCreateRuntime(const RunFlags *f) {
  fuser_rt *rt = NULL;
  if (f->traffic && !strcmp(f->device, "cuda")) {
    fprintf(stderr, "fuserc: error: --traffic counts on the CPU emulator: use --device cpu "
                    "or auto\n");
    return NULL;
  }
  bool tryCuda = strcmp(f->device, "cpu") != 0 && !f->traffic;
  if (tryCuda) {
    fuser_rt_options options;
    fuser_rt_options_init(&options);
    options.device_ordinal = f->deviceOrdinal;
    fuser_error *e = fuser_rt_create(&options, &rt);
    if (!e)
      return rt;
    if (!strcmp(f->device, "cuda")) {
      fusercReportError(e, "cannot use the GPU");
      return NULL;
    }
    fuser_error_destroy(e); /* auto: fall back to the CPU */
  }
  FuserEmulatorOptions o;
  fuserEmulatorOptionsInit(&o);
  o.reverseThreads = f->reverseThreads;
  o.raceCheck = f->raceCheck;
  o.countTraffic = f->traffic;
  o.cpu = f->emulatorCpu; /* NULL: FUSER_EMULATOR_CPU, else the host */
  if (f->emulatorOpt >= 0)
    o.optLevel = (unsigned)f->emulatorOpt;
  if (fusercReportError(fuserEmulatorRuntimeCreate(&o, &rt), "cannot create the CPU emulator"))
    return NULL;
  return rt;
}

int fusercWriteResult(const RunFlags *f, const char *fname, const fuser_tensor_info *t,
                      const npy_array *h) {
  if (f->outputDir) {
    /* The name is an identifier (the bundle's validator insists), so the
     * file stays inside the directory. */
    char path[4096], err[512];
    int n = snprintf(path, sizeof path, "%s/%s.npy", f->outputDir, t->name);
    if (n < 0 || (size_t)n >= sizeof path) {
      fprintf(stderr, "fuserc: error: the path for result '%s' of fusion '%s' is too "
                      "long\n", t->name, fname);
      return 1;
    }
    if (npy_save(path, h, err, sizeof err)) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
  } else if (!f->quiet) {
    double sum = 0;
    for (size_t i = 0; i < h->num_elements; ++i)
      sum += fusercElementAsDouble(h->data, i, t->dtype);
    printf("%s.%s: %s[", fname, t->name, fuser_dtype_name(t->dtype));
    for (int d = 0; d < h->rank; ++d)
      printf("%s%" PRId64, d ? ", " : "", h->shape[d]);
    printf("] sum %.9g:", sum);
    for (size_t i = 0; i < h->num_elements && i < 8; ++i) {
      if (t->dtype == FUSER_DTYPE_I64) /* exact: a double holds 53 bits */
        printf(" %" PRId64, ((const int64_t *)h->data)[i]);
      else if (t->dtype == FUSER_DTYPE_I32)
        printf(" %" PRId32, ((const int32_t *)h->data)[i]);
      else
        printf(" %.9g", fusercElementAsDouble(h->data, i, t->dtype));
    }
    printf("%s\n", h->num_elements > 8 ? " ..." : "");
  }
  return 0;
}

static bool viewNamed(const ViewFlag *v, const char *name) {
  return strlen(name) == v->nameLen && !strncmp(v->spec, name, v->nameLen);
}

static const ViewFlag *findView(const RunFlags *f, const char *name) {
  for (int k = 0; k < f->numViews; ++k)
    if (viewNamed(&f->views[k], name))
      return &f->views[k];
  return NULL;
}

static int runFusion(fuser_rt *rt, const fuser_fusion *fusion, const RunFlags *f) {
  size_t numArgs = fuser_fusion_num_args(fusion), numResults = fuser_fusion_num_results(fusion);
  size_t numTensors = numArgs + numResults, numDims = fuser_fusion_num_dyn_dims(fusion);
  const char *fname = fuser_fusion_name(fusion);
  int status = 1;
  int64_t dims[256] = {0};
  npy_array *host = calloc(numTensors, sizeof(npy_array));
  uint64_t *device = calloc(numTensors, sizeof(uint64_t));
  /* --misalign: each tensor starts one element past its allocation (not
   * 16-byte aligned), as a view into a larger buffer may: the plan then
   * takes its scalar variants. */
  uint64_t *allocation = calloc(numTensors, sizeof(uint64_t));
  /* --view: the argument's view (its host array is then the storage), and
   * the strides passed for it (NULL: dense). */
  const ViewFlag **view = calloc(numArgs + 1, sizeof *view);
  const int64_t **argStrides = calloc(numArgs + 1, sizeof *argStrides);
  bool anyView = false;
  if (!host || !device || !allocation || !view || !argStrides || numDims > 256) {
    fprintf(stderr, "fuserc: error: fusion '%s' is too large to run here\n", fname);
    goto done;
  }
  /* A view gives its argument's sizes: its rank, and the static dims. */
  for (size_t a = 0; a < numArgs; ++a) {
    const fuser_tensor_info *t = fuser_fusion_arg(fusion, a);
    const ViewFlag *v = findView(f, t->name);
    if (!v)
      continue;
    if (v->rank != t->rank) {
      fprintf(stderr, "fuserc: error: --view %s: argument '%s' of fusion '%s' has rank %u, "
                      "the view %u\n", v->spec, t->name, fname, t->rank, v->rank);
      goto done;
    }
    for (uint32_t d = 0; d < t->rank; ++d)
      if (t->dims[d] >= 0 && t->dims[d] != v->sizes[d]) {
        fprintf(stderr, "fuserc: error: --view %s: dim %u is %" PRId64 " but argument '%s' "
                        "of fusion '%s' needs %" PRId64 "\n", v->spec, d, v->sizes[d],
                t->name, fname, t->dims[d]);
        goto done;
      }
    view[a] = v;
    argStrides[a] = v->strides;
    anyView = true;
  }
  /* Arguments from --input files fix their dynamic dims (a view's file is
   * its storage: its sizes come from the view). */
  for (size_t a = 0; a < numArgs; ++a) {
    const fuser_tensor_info *t = fuser_fusion_arg(fusion, a);
    const char *path = NULL;
    for (int k = 0; k < f->numInputs; ++k)
      if (!strcmp(f->inputs[k].name, t->name))
        path = f->inputs[k].path;
    if (!path)
      continue;
    char err[512];
    if (npy_load(path, (npy_dtype)t->dtype, &host[a], err, sizeof err)) {
      fprintf(stderr, "%s (argument '%s' of fusion '%s')\n", err, t->name, fname);
      goto done;
    }
    if (host[a].dtype != (npy_dtype)t->dtype) {
      fprintf(stderr, "%s: error: dtype is %s but argument '%s' of fusion '%s' is %s\n", path,
              npy_dtype_name(host[a].dtype), t->name, fname, fuser_dtype_name(t->dtype));
      goto done;
    }
    if (view[a]) {
      /* The storage, read flattened in C order: its shape is not the view's. */
      if ((uint64_t)host[a].num_elements < view[a]->span) {
        fprintf(stderr, "%s: error: %zu elements, but the view --view %s reaches %" PRIu64
                        " (argument '%s' of fusion '%s'): the file is the view's storage, "
                        "read flattened in C order\n", path, host[a].num_elements,
                view[a]->spec, view[a]->span, t->name, fname);
        goto done;
      }
      continue;
    }
    if ((uint32_t)host[a].rank != t->rank) {
      fprintf(stderr, "%s: error: rank is %d but argument '%s' of fusion '%s' has rank %u\n",
              path, host[a].rank, t->name, fname, t->rank);
      goto done;
    }
    for (uint32_t d = 0; d < t->rank; ++d)
      if (t->dims[d] >= 0 && t->dims[d] != host[a].shape[d]) {
        fprintf(stderr, "%s: error: dim %u is %" PRId64 " but argument '%s' of fusion '%s' "
                        "needs %" PRId64 "\n", path, d, host[a].shape[d], t->name, fname,
                t->dims[d]);
        goto done;
      }
  }
  if (!f->haveSeed)
    for (size_t a = 0; a < numArgs; ++a)
      if (!host[a].data) {
        const char *n = fuser_fusion_arg(fusion, a)->name;
        fprintf(stderr, "fuserc: error: no --input for argument '%s' of fusion '%s' (give "
                        "--input %s=FILE.npy, or --random SEED)\n", n, fname, n);
        goto done;
      }
  /* Dynamic dims: --dims gives them all, or the arguments' only; else
   * argument files give theirs. The fusion computes the results'. */
  if (f->dims && fusercSpreadDims(fusion, f->dims, dims) < 0)
    goto done;

  for (size_t k = 0; k < numDims; ++k) {
    const fuser_dyn_dim_info *info = fuser_fusion_dyn_dim(fusion, k);
    int64_t fromFile = -1;
    if (info->tensor < numArgs && view[info->tensor])
      fromFile = view[info->tensor]->sizes[info->dim];
    else if (info->tensor < numArgs && host[info->tensor].data)
      fromFile = host[info->tensor].shape[info->dim];
    if (fromFile < 0)
      continue;
    if (f->dims && dims[k] != fromFile) {
      fprintf(stderr,
              "fuserc: error: --dims gives dim %u of '%s' of fusion '%s' as %lld, but its "
              "input holds %lld\n",
              info->dim, fuser_fusion_arg(fusion, info->tensor)->name, fname,
              (long long)dims[k], (long long)fromFile);
      goto done;
    }
    dims[k] = fromFile;
  }
  int64_t givenDims[256];
  memcpy(givenDims, dims, sizeof givenDims);
  if (fusercReportError(fuser_fusion_infer_dims(fusion, dims, numDims, dims), fname) ||
      fusercCheckGivenResultDims(fusion, f->dims, givenDims, dims) < 0)
    goto done;
  /* Any argument not given as a file is generated. */
  uint64_t state = f->seed;
  for (size_t a = 0; a < numArgs; ++a) {
    const fuser_tensor_info *t = fuser_fusion_arg(fusion, a);
    if (host[a].data || host[a].num_elements)
      continue;
    if (!f->haveSeed) {
      fprintf(stderr, "fuserc: error: no --input for argument '%s' of fusion '%s' (give "
                      "--input %s=FILE.npy, or --random SEED)\n", t->name, fname, t->name);
      goto done;
    }
    npy_array *h = &host[a];
    h->dtype = (npy_dtype)t->dtype;
    h->rank = (int)t->rank;
    h->element_size = fuser_dtype_size(t->dtype);
    h->num_elements = 1;
    if (view[a]) {
      /* A view's storage: the elements it reaches, flattened. */
      h->rank = 1;
      h->shape[0] = (int64_t)view[a]->span;
      h->num_elements = (size_t)view[a]->span;
      if (view[a]->span > SIZE_MAX / 8) {
        fprintf(stderr, "fuserc: error: out of memory for the storage of --view %s\n",
                view[a]->spec);
        goto done;
      }
    }
    for (uint32_t d = 0; d < t->rank && !view[a]; ++d) {
      int64_t size = t->dims[d];
      if (size < 0)
        for (size_t k = 0; k < numDims; ++k) {
          const fuser_dyn_dim_info *info = fuser_fusion_dyn_dim(fusion, k);
          if (info->tensor == a && info->dim == d)
            size = dims[k];
        }
      h->shape[d] = size;
      h->num_elements *= (size_t)size;
    }
    h->data = malloc(h->num_elements * h->element_size + 1);
    if (!h->data) {
      fprintf(stderr, "fuserc: error: out of memory for argument '%s'\n", t->name);
      goto done;
    }
    fusercFillRandom(h->data, h->num_elements, t->dtype, &state);
  }
  /* Results take the shapes the fusion computes. */
  for (size_t r = 0; r < numResults; ++r) {
    const fuser_tensor_info *t = fuser_fusion_result(fusion, r);
    npy_array *h = &host[numArgs + r];
    h->dtype = (npy_dtype)t->dtype;
    h->rank = (int)t->rank;
    h->element_size = fuser_dtype_size(t->dtype);
    h->num_elements = 1;
    for (uint32_t d = 0; d < t->rank; ++d) {
      int64_t size = t->dims[d];
      if (size < 0)
        for (size_t k = 0; k < numDims; ++k) {
          const fuser_dyn_dim_info *info = fuser_fusion_dyn_dim(fusion, k);
          if (info->tensor == numArgs + r && info->dim == d)
            size = dims[k];
        }
      h->shape[d] = size;
      h->num_elements *= (size_t)size;
    }
    h->data = calloc(h->num_elements * h->element_size + 1, 1);
    if (!h->data) {
      fprintf(stderr, "fuserc: error: out of memory for result '%s'\n", t->name);
      goto done;
    }
  }
  for (size_t i = 0; i < numTensors; ++i) {
    size_t bytes = host[i].num_elements * host[i].element_size;
    size_t skip = f->misalign ? host[i].element_size : 0;
    if (fusercReportError(fuser_mem_alloc(rt, bytes + skip ? bytes + skip : 1, &allocation[i]),
                    "allocating"))
      goto done;
    device[i] = allocation[i] + skip;
    if (i < numArgs && bytes &&
        fusercReportError(fuser_mem_copy_h2d(rt, device[i], host[i].data, bytes), "copying"))
      goto done;
  }
  /* Views pass their strides; the runtime checks them against the
   * argument's (an argument compiled dense takes dense strides only). */
  fuser_run_options options = {.arg_strides = anyView ? argStrides : NULL};
  if (fusercReportError(fuser_run(fusion, device, device + numArgs, dims, numDims, NULL, &options),
                  fname) ||
      fusercReportError(fuser_device_synchronize(rt), fname))
    goto done;
  if (f->traffic) {
    /* What the kernels asked of each tensor, over its size: 1.00x read for
     * an input read once, 1.00x written for a result written once. */
    printf("%s traffic (bytes requested by the kernels' global loads and stores, over "
           "the tensor's size):\n", fname);
    for (size_t i = 0; i < numTensors; ++i) {
      uint64_t loaded, stored;
      if (fusercReportError(fuserEmulatorGetTraffic(rt, allocation[i], &loaded, &stored), fname))
        goto done;
      const fuser_tensor_info *t = fuser_fusion_tensor(fusion, i);
      /* A view: over its elements' bytes, not its storage's. */
      const ViewFlag *v = i < numArgs ? view[i] : NULL;
      int rank = v ? (int)v->rank : host[i].rank;
      const int64_t *shape = v ? v->sizes : host[i].shape;
      double bytes = (double)host[i].element_size;
      for (int d = 0; d < rank; ++d)
        bytes *= (double)shape[d];
      printf("  %-12s %s[", t->name, fuser_dtype_name(t->dtype));
      for (int d = 0; d < rank; ++d)
        printf("%s%" PRId64, d ? "," : "", shape[d]);
      printf("]%s  read %.2fx  written %.2fx  (%" PRIu64 " and %" PRIu64 " bytes)\n",
             v ? " (view)" : "",
             bytes ? loaded / bytes : 0.0, bytes ? stored / bytes : 0.0, loaded, stored);
    }
  }
  for (size_t r = 0; r < numResults; ++r) {
    npy_array *h = &host[numArgs + r];
    size_t bytes = h->num_elements * h->element_size;
    if (bytes && fusercReportError(fuser_mem_copy_d2h(rt, h->data, device[numArgs + r], bytes),
                             "copying results"))
      goto done;
    if (fusercWriteResult(f, fname, fuser_fusion_result(fusion, r), h))
      goto done;
  }
  status = 0;
done:
  for (size_t i = 0; host && allocation && i < numTensors; ++i) {
    if (allocation[i])
      fuser_error_destroy(fuser_mem_free(rt, allocation[i]));
    npy_free(&host[i]);
  }
  free(host);
  free(device);
  free(allocation);
  free(view);
  free(argStrides);
  return status;
}

static bool runsFusion(const RunFlags *f, const fuser_fusion *fusion) {
  return !f->fusion || !strcmp(f->fusion, fuser_fusion_name(fusion));
}

/* Whether a fusion that runs has an argument named `name` (its first
 * `len` characters); if not, says so after the option ("--input x=x.npy":
 * `option` `value`, with "=`file`" when `file` is given) with the
 * arguments there are. */
static bool namesArgument(const fuser_bundle *bundle, const RunFlags *f, const char *name,
                          size_t len, const char *option, const char *value,
                          const char *file) {
  size_t n = fuser_bundle_num_fusions(bundle);
  for (size_t i = 0; i < n; ++i) {
    const fuser_fusion *fusion = fuser_bundle_get_fusion(bundle, i);
    for (size_t a = 0; runsFusion(f, fusion) && a < fuser_fusion_num_args(fusion); ++a) {
      const char *arg = fuser_fusion_arg(fusion, a)->name;
      if (strlen(arg) == len && !strncmp(arg, name, len))
        return true;
    }
  }
  fprintf(stderr, "fuserc: error: %s %s%s%s: no fusion that runs has an argument named "
                  "'%.*s' (arguments:", option, value, file ? "=" : "", file ? file : "",
          (int)len, name);
  const char *sep = " ";
  for (size_t i = 0; i < n; ++i) {
    const fuser_fusion *fusion = fuser_bundle_get_fusion(bundle, i);
    for (size_t a = 0; runsFusion(f, fusion) && a < fuser_fusion_num_args(fusion); ++a) {
      fprintf(stderr, "%s%s.%s", sep, fuser_fusion_name(fusion),
              fuser_fusion_arg(fusion, a)->name);
      sep = ", ";
    }
  }
  fprintf(stderr, "%s)\n", *sep == ' ' ? " none" : "");
  return false;
}

/* Before anything runs: every --input and --view names an argument of a
 * fusion that runs, and once; with --output-dir, no two results of the
 * fusions that run would write the same file. (Within a fusion, names are
 * distinct identifiers: the bundle's validator checks that.) */
static bool checkNames(const fuser_bundle *bundle, const RunFlags *f) {
  size_t n = fuser_bundle_num_fusions(bundle);
  for (int k = 0; k < f->numInputs; ++k) {
    const InputFlag *in = &f->inputs[k];
    for (int j = 0; j < k; ++j)
      if (!strcmp(f->inputs[j].name, in->name)) {
        fprintf(stderr, "fuserc: error: --input %s is given twice ('%s' and '%s')\n",
                in->name, f->inputs[j].path, in->path);
        return false;
      }
    if (!namesArgument(bundle, f, in->name, strlen(in->name), "--input", in->name, in->path))
      return false;
  }
  for (int k = 0; k < f->numViews; ++k) {
    const ViewFlag *v = &f->views[k];
    for (int j = 0; j < k; ++j)
      if (f->views[j].nameLen == v->nameLen &&
          !strncmp(f->views[j].spec, v->spec, v->nameLen)) {
        fprintf(stderr, "fuserc: error: --view %.*s is given twice ('%s' and '%s')\n",
                (int)v->nameLen, v->spec, f->views[j].spec, v->spec);
        return false;
      }
    if (!namesArgument(bundle, f, v->spec, v->nameLen, "--view", v->spec, NULL))
      return false;
  }
  if (!f->outputDir)
    return true;
  for (size_t i = 0; i < n; ++i) {
    const fuser_fusion *fi = fuser_bundle_get_fusion(bundle, i);
    for (size_t j = 0; runsFusion(f, fi) && j < i; ++j) {
      const fuser_fusion *fj = fuser_bundle_get_fusion(bundle, j);
      for (size_t r = 0; runsFusion(f, fj) && r < fuser_fusion_num_results(fi); ++r)
        for (size_t q = 0; q < fuser_fusion_num_results(fj); ++q) {
          const char *name = fuser_fusion_result(fi, r)->name;
          if (strcmp(name, fuser_fusion_result(fj, q)->name))
            continue;
          fprintf(stderr, "fuserc: error: fusions '%s' and '%s' both have a result named "
                          "'%s', which --output-dir would write to the same file %s/%s.npy: "
                          "run one at a time with --fusion NAME\n",
                  fuser_fusion_name(fj), fuser_fusion_name(fi), name, f->outputDir, name);
          return false;
        }
    }
  }
  return true;
}

int fusercRun(int argc, char **argv) {
  RunFlags f;
  if (!parseRunFlags(argc, argv, &f))
    return 1;
  if (f.outputDir && mkdir(f.outputDir, 0777) && errno != EEXIST) {
    fprintf(stderr, "%s: error: cannot create the output directory: %s\n", f.outputDir,
            strerror(errno));
    return 1;
  }
  void *bundleData = NULL;
  size_t bundleSize = 0;
  FuserCompileResult compiled = {NULL};
  if (fusercEndsWith(f.source, ".mlir")) {
    compiled = fusercCompileFile(f.source, &f.compile, false, f.fusion);
    if (!compiled.ptr)
      return 1;
    MlirStringRef b = fuserCompileResultGetBundle(compiled);
    bundleData = (void *)(uintptr_t)b.data;
    bundleSize = b.length;
  } else {
    if (!fusercNoCompileFlagsForBundle(f.source, &f.compile))
      return 1;
    bundleData = fusercReadFile(f.source, &bundleSize);
    if (!bundleData)
      return 1;
  }
  int status = 1;
  fuser_rt *rt = fusercCreateRuntime(&f);
  fuser_bundle *bundle = NULL;
  if (rt && !fusercReportError(fuser_bundle_load(rt, bundleData, bundleSize, &bundle), f.source)) {
    bool found = false;
    for (size_t i = 0; i < fuser_bundle_num_fusions(bundle); ++i)
      found |= !f.fusion || !strcmp(f.fusion, fuser_fusion_name(fuser_bundle_get_fusion(bundle, i)));
    if (f.fusion && !found)
      fprintf(stderr, "fuserc: error: %s has no fusion named '%s'\n", f.source, f.fusion);
    else if (checkNames(bundle, &f)) {
      status = 0;
      for (size_t i = 0; i < fuser_bundle_num_fusions(bundle); ++i) {
        const fuser_fusion *fusion = fuser_bundle_get_fusion(bundle, i);
        if (f.fusion && strcmp(f.fusion, fuser_fusion_name(fusion)))
          continue;
        fuser_grid_info grid;
        if (fuser_fusion_grid(fusion, &grid) && (grid.num_devices > 1 || f.ranks > 1))
          status |= fusercRunSharded(&f, bundleData, bundleSize, i);
        else
          status |= runFusion(rt, fusion, &f);
      }
    }
  }
  fuser_bundle_destroy(bundle);
  fuser_rt_destroy(rt);
  if (compiled.ptr)
    fuserCompileResultDestroy(compiled);
  else
    free(bundleData);
  return status;
}
