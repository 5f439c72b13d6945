/*===- inspect.c - fuserc inspect -----------------------------------------===*\
|*                                                                            *|
|* Shows what a fusion became: its signature, its PTX module and kernels,     *|
|* its plan program, the kernels that launch for given sizes (the plan runs   *|
|* against a recording driver in process: no GPU), and what ptxas reports    *|
|* for each kernel (registers, spills, shared memory) when ptxas is found.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L
#include "fuserc.h"

#include "fuser_runtime.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  const char *source, *fusion, *dims, *ptxas;
  bool plan, ptx, noPtxas;
  FusercCompileFlags compile;
} InspectFlags;

/*===----------------------------------------------------------------------===*/
/* A driver that records launches                                             */
/*===----------------------------------------------------------------------===*/

typedef struct {
  char kernel[128];
  fuser_launch_dims dims;
  /* A library call (the plan's GEMM) instead of a kernel: its description. */
  char gemm[160];
} Recorded;

typedef struct {
  Recorded launches[256];
  size_t numLaunches, dropped;
  uint64_t nextAddress, allocatedBytes;
} Recorder;

static fuser_error *recModuleLoad(void *ctx, const void *image, size_t size,
                                  const char *name, void **out) {
  (void)ctx, (void)image, (void)size, (void)name;
  *out = (void *)1;
  return NULL;
}
static void recModuleUnload(void *ctx, void *module) { (void)ctx, (void)module; }
static fuser_error *recFunctionGet(void *ctx, void *module, const char *name,
                                   void **out) {
  (void)ctx, (void)module;
  /* The runtime keeps the name alive as long as the bundle. */
  *out = (void *)(uintptr_t)name;
  return NULL;
}
static fuser_error *recLaunch(void *ctx, void *function, const fuser_launch_dims *dims,
                              void *stream, void **params, const uint32_t *sizes,
                              uint32_t num) {
  (void)stream, (void)params, (void)sizes, (void)num;
  Recorder *r = ctx;
  if (r->numLaunches == sizeof r->launches / sizeof r->launches[0]) {
    ++r->dropped;
    return NULL;
  }
  Recorded *l = &r->launches[r->numLaunches++];
  snprintf(l->kernel, sizeof l->kernel, "%s", (const char *)function);
  l->dims = *dims;
  l->gemm[0] = 0;
  return NULL;
}
/* The plan's GEMM: recorded in launch order, with its shape. */
static fuser_error *recGemm(void *ctx, const fuser_gemm *g, void *stream) {
  (void)stream;
  Recorder *r = ctx;
  if (r->numLaunches == sizeof r->launches / sizeof r->launches[0]) {
    ++r->dropped;
    return NULL;
  }
  Recorded *l = &r->launches[r->numLaunches++];
  snprintf(l->kernel, sizeof l->kernel, "GEMM (cuBLASLt)");
  snprintf(l->gemm, sizeof l->gemm,
           "m %" PRId64 " n %" PRId64 " k %" PRId64 " batch %" PRId64 "  %s x %s -> %s%s%s%s%s%s%s%s",
           g->m, g->n, g->k, g->batch, fuser_dtype_name((fuser_dtype)g->ab_dtype),
           fuser_dtype_name((fuser_dtype)g->ab_dtype), fuser_dtype_name((fuser_dtype)g->d_dtype),
           g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_A ? "  A transposed" : "",
           g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_B ? "  B transposed" : "",
           g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BIAS ? "  + bias" : "",
           g->flags & FUSER_BUNDLE_GEMM_FLAG_TF32 ? "  TF32" : "",
           g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_RELU   ? "  relu"
           : g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_GELU ? "  gelu (tanh)"
                                                           : "",
           g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_AUX ? ", keeping its input" : "",
           g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A   ? "  + bias gradient of A"
           : g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B ? "  + bias gradient of B"
                                                              : "");
  return NULL;
}
static fuser_error *recAlloc(void *ctx, size_t bytes, uint64_t *out) {
  Recorder *r = ctx;
  *out = r->nextAddress;
  r->nextAddress += (bytes + 0xFFFF) & ~(uint64_t)0xFFFF;
  r->allocatedBytes += bytes;
  return NULL;
}
static fuser_error *recFree(void *ctx, uint64_t ptr) { (void)ctx, (void)ptr; return NULL; }
static fuser_error *recH2D(void *ctx, uint64_t dst, const void *src, size_t n) {
  (void)ctx, (void)dst, (void)src, (void)n;
  return NULL;
}
static fuser_error *recD2H(void *ctx, void *dst, uint64_t src, size_t n) {
  (void)ctx, (void)src;
  /* Nothing ran: the bytes are the zeros they started as (the plan's index
   * check reads its error word back). */
  memset(dst, 0, n);
  return NULL;
}
static fuser_error *recSync(void *ctx, void *stream, int whole) {
  (void)ctx, (void)stream, (void)whole;
  return NULL;
}

static const fuser_driver kRecorder = {
    .module_kind = FUSER_MODULE_PTX,
    .name = "inspect",
    .module_load = recModuleLoad,
    .module_unload = recModuleUnload,
    .function_get = recFunctionGet,
    .launch = recLaunch,
    .mem_alloc = recAlloc,
    .mem_free = recFree,
    .copy_h2d = recH2D,
    .copy_d2h = recD2H,
    .synchronize = recSync,
    .gemm = recGemm,
};

/*===----------------------------------------------------------------------===*/
/* Flags                                                                      */
/*===----------------------------------------------------------------------===*/

static void usage(FILE *out) {
  fputs("usage: fuserc inspect INPUT.mlir|BUNDLE [compile options] [--fusion NAME]\n"
        "                      [--dims D0,D1,...] [--plan] [--show-ptx] [--ptxas PATH | --no-ptxas]\n"
        "  Shows each fusion's signature, PTX module and kernels; with --plan its\n"
        "  plan program; the kernels that launch for the sizes given by --dims\n"
        "  (every dynamic dim of the arguments, or of arguments and results, in\n"
        "  signature order; not needed when the fusion has none); with --show-ptx the\n"
        "  PTX text; and, when ptxas is found (PATH, $PATH or /usr/local/cuda),\n"
        "  registers, spills and shared memory per kernel.\n",
        out);
}

static bool parseFlags(int argc, char **argv, InspectFlags *f) {
  memset(f, 0, sizeof *f);
  fusercDefaultFlags(&f->compile);
  f->compile.emulation = false;
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    int c = fusercParseCompileFlag(argc, argv, &i, &f->compile);
    if (c < 0)
      return false;
    if (c > 0)
      continue;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      exit(0);
    }
    if (!strcmp(a, "--plan")) {
      f->plan = true;
    } else if (!strcmp(a, "--show-ptx")) {
      f->ptx = true;
    } else if (!strcmp(a, "--no-ptxas")) {
      f->noPtxas = true;
    } else if (!strcmp(a, "--fusion") || !strcmp(a, "--dims") || !strcmp(a, "--ptxas")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "fuserc: error: %s needs a value\n", a);
        return false;
      }
      const char **dst = !strcmp(a, "--fusion") ? &f->fusion
                         : !strcmp(a, "--dims") ? &f->dims
                                                : &f->ptxas;
      *dst = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "fuserc: error: unknown option '%s' for inspect\n", a);
      return false;
    } else if (f->source) {
      fprintf(stderr, "fuserc: error: inspect takes one input, got '%s' and '%s'\n",
              f->source, a);
      return false;
    } else {
      f->source = a;
    }
  }
  if (!f->source) {
    usage(stderr);
    return false;
  }
  return true;
}

/*===----------------------------------------------------------------------===*/
/* Sections                                                                   */
/*===----------------------------------------------------------------------===*/

static bool reportError(fuser_error *e, const char *what) {
  if (!e)
    return false;
  fprintf(stderr, "fuserc: error: %s: %s\n", what, fuser_error_message(e));
  fuser_error_destroy(e);
  return true;
}

/* "[4,?]": dims or strides, -1 as "?". */
static void printList(const int64_t *v, uint32_t rank) {
  printf("[");
  for (uint32_t d = 0; d < rank; ++d) {
    if (v[d] < 0)
      printf("%s?", d ? "," : "");
    else
      printf("%s%" PRId64, d ? "," : "", v[d]);
  }
  printf("]");
}

/* "x: f32[4,?]", and for an argument compiled as a view its strides in
 * elements: "x: f32[4,?] strides [1,?]". */
static void printTensor(const fuser_tensor_info *t) {
  printf("%s: %s", t->name, fuser_dtype_name(t->dtype));
  printList(t->dims, t->rank);
  if (t->strides) {
    printf(" strides ");
    printList(t->strides, t->rank);
  }
}

static void printSignature(const fuser_fusion *f) {
  size_t na = fuser_fusion_num_args(f), nr = fuser_fusion_num_results(f);
  printf("fusion %s(", fuser_fusion_name(f));
  for (size_t i = 0; i < na; ++i) {
    printf(i ? ", " : "");
    printTensor(fuser_fusion_arg(f, i));
  }
  printf(") -> (");
  for (size_t i = 0; i < nr; ++i) {
    printf(i ? ", " : "");
    printTensor(fuser_fusion_result(f, i));
  }
  printf(")\n");
}

/* The distinct kernels of the fusion's launch records, in order. */
static size_t distinctKernels(const fuser_fusion *f, const char **out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < fuser_fusion_num_launch_records(f); ++i) {
    const char *k = fuser_fusion_launch_kernel(f, i);
    bool seen = false;
    for (size_t j = 0; j < n && !seen; ++j)
      seen = !strcmp(out[j], k);
    if (!seen && n < max)
      out[n++] = k;
  }
  return n;
}

/* Parses "5,7" into `out`; returns the count or -1. */
static int parseDims(const char *s, int64_t *out, int max) {
  int n = 0;
  while (*s) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 0 || n == max || (*end && *end != ',')) {
      fprintf(stderr, "fuserc: error: --dims expects non-negative numbers separated "
                      "by commas, got '%s'\n", s);
      return -1;
    }
    out[n++] = v;
    s = *end ? end + 1 : end;
  }
  return n;
}

/* Runs the plan for the given sizes against the recording driver and
 * prints the launches. */
/* A sharded fusion: its grid and which axes split each tensor's dims.
 * Returns whether the fusion is sharded over more than one device. */
static bool printGrid(const fuser_fusion *f) {
  fuser_grid_info g;
  if (!fuser_fusion_grid(f, &g))
    return false;
  printf("  sharded over a grid of ");
  for (uint32_t a = 0; a < g.num_axes; ++a)
    printf("%s%u", a ? " x " : "", g.sizes[a]);
  printf(" = %" PRIu64 " device%s; the signature is one device's part:\n", g.num_devices,
         g.num_devices == 1 ? "" : "s");
  const uint8_t *mask = g.splits;
  for (size_t i = 0; i < fuser_fusion_num_args(f) + fuser_fusion_num_results(f); ++i) {
    const fuser_tensor_info *t = fuser_fusion_tensor(f, i);
    printf("    %-12s", t->name);
    bool any = false;
    for (uint32_t d = 0; d < t->rank; ++d, ++mask) {
      if (!*mask)
        continue;
      printf("%s dim %u split over axes", any ? ";" : "", d);
      for (uint32_t a = 0; a < g.num_axes; ++a)
        if (*mask & (1u << a))
          printf(" %u", a);
      any = true;
    }
    printf("%s\n", any ? "" : " whole on every device");
  }
  return g.num_devices > 1;
}

static bool printLaunches(fuser_rt *rt, Recorder *rec, const fuser_fusion *f,
                          const char *dimsFlag) {
  if (printGrid(f)) {
    /* Its plan runs only with a communicator of every device. */
    printf("  launches: each device runs the plan with a communicator of them all (fuserc "
           "run --ranks N); --plan shows its collectives\n");
    return true;
  }
  size_t na = fuser_fusion_num_args(f), nr = fuser_fusion_num_results(f);
  size_t nd = fuser_fusion_num_dyn_dims(f);
  size_t argDims = 0;
  for (size_t k = 0; k < nd; ++k)
    argDims += fuser_fusion_dyn_dim(f, k)->tensor < na;
  int64_t dims[256] = {0};
  if (nd > 256) {
    printf("  launches: the fusion has %zu dynamic dims, more than inspect takes\n", nd);
    return true;
  }
  if (nd && !dimsFlag) {
    printf("  launches: the fusion has %zu dynamic dim%s: give them with --dims to see "
           "the kernels that launch\n", argDims, argDims == 1 ? "" : "s");
    return true;
  }
  if (dimsFlag) {
    int n = parseDims(dimsFlag, dims, 256);
    if (n < 0)
      return false;
    if ((size_t)n == argDims && argDims < nd) {
      /* Only the arguments' dims: spread them over their positions. */
      int64_t given[256];
      memcpy(given, dims, sizeof given);
      for (size_t k = 0, j = 0; k < nd; ++k)
        dims[k] = fuser_fusion_dyn_dim(f, k)->tensor < na ? given[j++] : 0;
    } else if ((size_t)n != nd) {
      if (argDims == nd)
        fprintf(stderr, "fuserc: error: fusion '%s' has %zu dynamic dims, --dims gives %d\n",
                fuser_fusion_name(f), nd, n);
      else
        fprintf(stderr, "fuserc: error: fusion '%s' has %zu dynamic dims (%zu of its "
                        "arguments), --dims gives %d\n",
                fuser_fusion_name(f), nd, argDims, n);
      return false;
    }
    if (reportError(fuser_fusion_infer_dims(f, dims, nd, dims), fuser_fusion_name(f)))
      return false;
  }
  uint64_t bufs[512] = {0};
  if (na + nr > 512)
    return true;
  /* An argument compiled as a view is passed with its static strides and,
   * for its dynamic ones, those of a dense tensor laid out past what the
   * static ones reach, innermost last (`[?, 1]` is row-major, `[1, ?]`
   * column-major, as a GEMM's operand must be; the plan sees some stride:
   * a variant it picks by stride may differ for others). Its buffer holds
   * its span or its dense size, whichever is larger. */
  int64_t strides[256][FUSER_MAX_RANK];
  const int64_t *argStrides[256] = {NULL};
  if (na > 256)
    return true;
  for (size_t i = 0; i < na + nr; ++i) {
    uint64_t bytes;
    if (reportError(fuser_fusion_tensor_bytes(f, i, dims, nd, &bytes), fuser_fusion_name(f)))
      return false;
    const fuser_tensor_info *t = fuser_fusion_tensor(f, i);
    if (i < na && t->strides && bytes) { /* empty: touches nothing */
      int64_t size[FUSER_MAX_RANK];
      for (uint32_t d = 0; d < t->rank; ++d) {
        size[d] = t->dims[d];
        for (size_t j = 0; size[d] < 0 && j < nd; ++j) {
          const fuser_dyn_dim_info *info = fuser_fusion_dyn_dim(f, j);
          if (info->tensor == i && info->dim == d)
            size[d] = dims[j];
        }
      }
      int64_t dense = 1;
      for (uint32_t d = 0; d < t->rank; ++d)
        if (t->strides[d] >= 0 && size[d] > 0 &&
            t->strides[d] <= INT64_MAX / size[d] && t->strides[d] * size[d] > dense)
          dense = t->strides[d] * size[d];
      uint64_t span = 1;
      for (uint32_t d = t->rank; d-- > 0;) {
        strides[i][d] = t->strides[d] >= 0 ? t->strides[d] : dense;
        if (t->strides[d] < 0 && size[d] > 1 && __builtin_mul_overflow(dense, size[d], &dense))
          dense = INT64_MAX; /* the span below overflows: an error */
        uint64_t step;
        if (__builtin_mul_overflow((uint64_t)(size[d] - 1), (uint64_t)strides[i][d], &step) ||
            __builtin_add_overflow(span, step, &span) ||
            __builtin_mul_overflow(span, fuser_dtype_size(t->dtype), &step)) {
          fprintf(stderr, "fuserc: error: fusion '%s': argument '%s' spans 2^64 bytes or more "
                          "with its static strides\n", fuser_fusion_name(f), t->name);
          return false;
        }
        if (step > bytes)
          bytes = step;
      }
      argStrides[i] = strides[i];
    }
    if (reportError(fuser_mem_alloc(rt, bytes, &bufs[i]), "allocating"))
      return false;
  }
  rec->numLaunches = rec->dropped = 0;
  uint64_t before = rec->allocatedBytes;
  fuser_run_options options = {.arg_strides = argStrides};
  fuser_error *e = fuser_run(f, bufs, bufs + na, dims, nd, NULL, &options);
  for (size_t i = 0; i < na + nr; ++i)
    fuser_error_destroy(fuser_mem_free(rt, bufs[i]));
  if (reportError(e, fuser_fusion_name(f)))
    return false;
  printf("  launches");
  if (nd) {
    printf(" for dims ");
    for (size_t k = 0; k < nd; ++k)
      printf("%s%" PRId64, k ? "," : "", dims[k]);
  }
  size_t gemms = 0;
  for (size_t i = 0; i < rec->numLaunches; ++i)
    gemms += rec->launches[i].gemm[0] != 0;
  printf(": %zu kernel%s", rec->numLaunches - gemms, rec->numLaunches - gemms == 1 ? "" : "s");
  if (gemms)
    printf(" and %zu library call%s", gemms, gemms == 1 ? "" : "s");
  printf("\n");
  for (size_t i = 0; i < rec->numLaunches; ++i) {
    const Recorded *l = &rec->launches[i];
    if (l->gemm[0]) {
      printf("    %-24s %s\n", l->kernel, l->gemm);
      continue;
    }
    uint64_t blocks = (uint64_t)l->dims.grid[0] * l->dims.grid[1] * l->dims.grid[2];
    uint64_t threads = (uint64_t)l->dims.block[0] * l->dims.block[1] * l->dims.block[2];
    printf("    %-24s grid %u,%u,%u  block %u,%u,%u  (%" PRIu64 " blocks of %" PRIu64
           " threads)  smem %u\n",
           l->kernel, l->dims.grid[0], l->dims.grid[1], l->dims.grid[2], l->dims.block[0],
           l->dims.block[1], l->dims.block[2], blocks, threads, l->dims.shared_mem_bytes);
  }
  if (rec->dropped)
    printf("    (%zu more not shown)\n", rec->dropped);
  uint64_t inter = rec->allocatedBytes - before;
  if (inter)
    printf("  intermediates: %" PRIu64 " bytes from the runtime's cache\n", inter);
  return true;
}

/* The ptxas to use: --ptxas, else on $PATH, else the CUDA toolkit's. */
static const char *findPtxas(const InspectFlags *f) {
  if (f->noPtxas)
    return NULL;
  if (f->ptxas)
    return f->ptxas;
  static char found[4096];
  const char *path = getenv("PATH");
  while (path && *path) {
    const char *end = strchr(path, ':');
    size_t n = end ? (size_t)(end - path) : strlen(path);
    if (n && n + 7 < sizeof found) {
      snprintf(found, sizeof found, "%.*s/ptxas", (int)n, path);
      if (access(found, X_OK) == 0)
        return found;
    }
    path = end ? end + 1 : NULL;
  }
  return access("/usr/local/cuda/bin/ptxas", X_OK) == 0 ? "/usr/local/cuda/bin/ptxas" : NULL;
}

/* The `.target` of a PTX text ("sm_90"), into `out`. */
static void ptxTarget(const char *ptx, char *out, size_t size) {
  const char *t = strstr(ptx, "\n.target ");
  snprintf(out, size, "sm_90");
  if (!t)
    return;
  t += 9;
  size_t n = strcspn(t, ", \n");
  if (n < size)
    snprintf(out, size, "%.*s", (int)n, t);
}

/* Runs ptxas -v on the PTX and prints one line per kernel. */
static void printPtxas(const char *ptxas, const fuser_module_info *m) {
  char dir[] = "/tmp/fuserc-inspect-XXXXXX";
  if (!mkdtemp(dir)) {
    printf("  ptxas: cannot make a temporary directory\n");
    return;
  }
  char ptxPath[64], target[32], cmd[8192];
  snprintf(ptxPath, sizeof ptxPath, "%s/k.ptx", dir);
  if (!fusercWriteFile(ptxPath, m->data, m->size - 1)) {
    rmdir(dir);
    return;
  }
  ptxTarget(m->data, target, sizeof target);
  snprintf(cmd, sizeof cmd, "'%s' --gpu-name %s -v '%s' -o /dev/null 2>&1", ptxas, target,
           ptxPath);
  FILE *p = popen(cmd, "r");
  char line[1024], kernel[256] = "";
  unsigned long stack = 0, spillStores = 0, spillLoads = 0;
  /* ptxas reports the kernels last to first: print them in PTX order. */
  char *rows[256];
  size_t numRows = 0;
  printf("  ptxas %s:\n", target);
  while (p && fgets(line, sizeof line, p)) {
    const char *s;
    if ((s = strstr(line, "Compiling entry function '"))) {
      sscanf(s + 26, "%255[^']", kernel);
    } else if (strstr(line, "bytes stack frame")) {
      sscanf(line, " %lu bytes stack frame, %lu bytes spill stores, %lu bytes spill loads",
             &stack, &spillStores, &spillLoads);
    } else if ((s = strstr(line, "Used "))) {
      unsigned long regs = 0, smem = 0;
      sscanf(s, "Used %lu registers", &regs);
      const char *sm = strstr(line, "bytes smem");
      if (sm) {
        const char *b = sm;
        while (b > line && b[-1] == ' ')
          --b;
        while (b > line && b[-1] >= '0' && b[-1] <= '9')
          --b;
        smem = strtoul(b, NULL, 10);
      }
      char row[512];
      snprintf(row, sizeof row,
               "    %-24s %3lu registers  %5lu B smem  %lu B stack  %lu B spill stores  "
               "%lu B spill loads\n",
               kernel, regs, smem, stack, spillStores, spillLoads);
      if (numRows < sizeof rows / sizeof rows[0])
        rows[numRows++] = strdup(row);
      stack = spillStores = spillLoads = 0;
    } else if (strstr(line, "error")) {
      printf("    %s", line);
    }
  }
  int status = p ? pclose(p) : -1;
  for (size_t i = numRows; i-- > 0;) {
    fputs(rows[i], stdout);
    free(rows[i]);
  }
  if (!numRows || status != 0)
    printf("    (ptxas %s)\n", status == 0 ? "reported no kernels" : "failed");
  unlink(ptxPath);
  rmdir(dir);
}

/*===----------------------------------------------------------------------===*/
/* The command                                                                */
/*===----------------------------------------------------------------------===*/

int fusercInspect(int argc, char **argv) {
  InspectFlags flags;
  if (!parseFlags(argc, argv, &flags))
    return 1;

  /* The bundle: compiled here from .mlir, or read from a file. */
  FuserCompileResult compiled = {NULL};
  const void *bytes;
  size_t size;
  char *file = NULL;
  if (fusercEndsWith(flags.source, ".mlir")) {
    compiled = fusercCompileFile(flags.source, &flags.compile, false);
    if (!compiled.ptr)
      return 1;
    MlirStringRef b = fuserCompileResultGetBundle(compiled);
    bytes = b.data;
    size = b.length;
  } else {
    file = fusercReadFile(flags.source, &size);
    if (!file)
      return 1;
    bytes = file;
  }

  Recorder *rec = calloc(1, sizeof *rec);
  rec->nextAddress = 1ull << 40;
  fuser_rt *rt = NULL;
  fuser_bundle *bundle = NULL;
  int status = 1;
  if (reportError(fuser_rt_create_with_driver(&kRecorder, rec, &rt), "inspect") ||
      reportError(fuser_bundle_load(rt, bytes, size, &bundle), flags.source))
    goto done;

  size_t nf = fuser_bundle_num_fusions(bundle), nm = fuser_bundle_num_modules(bundle);
  printf("bundle: %zu fusion%s, %zu module%s\n", nf, nf == 1 ? "" : "s", nm,
         nm == 1 ? "" : "s");
  const char *ptxas = findPtxas(&flags);
  bool found = false;
  status = 0;
  for (size_t i = 0; i < nf && !status; ++i) {
    const fuser_fusion *f = fuser_bundle_get_fusion(bundle, i);
    if (flags.fusion && strcmp(flags.fusion, fuser_fusion_name(f)))
      continue;
    found = true;
    printSignature(f);
    fuser_module_info m;
    fuser_bundle_module(bundle, fuser_fusion_ptx_module(f), &m);
    const char *kernels[256];
    size_t nk = distinctKernels(f, kernels, 256);
    printf("  PTX module %s: %.1f KB, %zu kernel%s (", m.name, m.size / 1024.0, nk,
           nk == 1 ? "" : "s");
    for (size_t k = 0; k < nk; ++k)
      printf("%s%s", k ? ", " : "", kernels[k]);
    printf("), %zu launch record%s\n", fuser_fusion_num_launch_records(f),
           fuser_fusion_num_launch_records(f) == 1 ? "" : "s");
    if (flags.plan) {
      size_t n = fuser_fusion_plan_text(f, NULL, 0);
      char *text = malloc(n + 1);
      fuser_fusion_plan_text(f, text, n + 1);
      printf("  plan:\n%s", text);
      free(text);
    }
    if (!printLaunches(rt, rec, f, flags.dims)) {
      status = 1;
      break;
    }
    if (ptxas)
      printPtxas(ptxas, &m);
    if (flags.ptx)
      printf("%s", m.data);
  }
  if (!status && !ptxas && !flags.noPtxas)
    printf("(ptxas not found: registers and spills not shown)\n");
  if (!found && flags.fusion) {
    fprintf(stderr, "fuserc: error: no fusion named '%s' in %s\n", flags.fusion,
            flags.source);
    status = 1;
  }

done:
  fuser_bundle_destroy(bundle);
  fuser_rt_destroy(rt);
  free(rec);
  free(file);
  if (compiled.ptr)
    fuserCompileResultDestroy(compiled);
  return status;
}
