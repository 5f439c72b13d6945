/*===- record.c - a runtime that records launches instead of running them -===*\
|*                                                                            *|
|* fuserc inspect and tune run a fusion's plan against this driver: the plan  *|
|* computes its launches for given sizes exactly as on a GPU, and each is     *|
|* recorded (kernel, grid, block, shared memory) instead of run.              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "record.h"
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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
  l->kernel = (const char *)function;
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
  l->kernel = "GEMM (cuBLASLt)";
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

fuser_error *fusercRecorderRuntimeCreate(Recorder *rec, fuser_rt **out) {
  return fuser_rt_create_with_driver(&kRecorder, rec, out);
}

/* Parses "5,7" into `out` (at most `max`); returns the count or -1. */
static int parseDims(const char *s, int64_t *out, int max) {
  int n = 0;
  while (s && *s) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno || v < 0 || (*end && *end != ',') || n == max) {
      fprintf(stderr, "fuserc: error: --dims expects non-negative numbers separated "
                      "by commas, got '%s'\n", s);
      return -1;
    }
    out[n++] = v;
    s = *end ? end + 1 : end;
  }
  return n;
}

int fusercSpreadDims(const fuser_fusion *f, const char *dimsFlag, int64_t *dims) {
  size_t na = fuser_fusion_num_args(f), nd = fuser_fusion_num_dyn_dims(f);
  size_t argDims = 0;
  for (size_t k = 0; k < nd; ++k)
    argDims += fuser_fusion_dyn_dim(f, k)->tensor < na;
  if (nd > 256) {
    fprintf(stderr, "fuserc: error: fusion '%s' has %zu dynamic dims, more than 256\n",
            fuser_fusion_name(f), nd);
    return -1;
  }
  int n = parseDims(dimsFlag, dims, 256);
  if (n < 0)
    return -1;
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
    return -1;
  }
  return (int)nd;
}

/* The name of dynamic dim k's tensor, for messages. */
static const char *dimTensorName(const fuser_fusion *f, size_t k) {
  const fuser_dyn_dim_info *info = fuser_fusion_dyn_dim(f, k);
  size_t na = fuser_fusion_num_args(f);
  return info->tensor < na ? fuser_fusion_arg(f, info->tensor)->name
                           : fuser_fusion_result(f, info->tensor - na)->name;
}

int fusercCheckGivenResultDims(const fuser_fusion *f, const char *dimsFlag,
                               const int64_t *given, const int64_t *inferred) {
  size_t na = fuser_fusion_num_args(f), nd = fuser_fusion_num_dyn_dims(f);
  int64_t parsed[256];
  if (!dimsFlag || parseDims(dimsFlag, parsed, 256) != (int)nd)
    return 0; /* the arguments' only: the results' are the fusion's to say */
  for (size_t k = 0; k < nd; ++k) {
    const fuser_dyn_dim_info *info = fuser_fusion_dyn_dim(f, k);
    if (info->tensor < na || given[k] == inferred[k])
      continue;
    fprintf(stderr,
            "fuserc: error: --dims gives dim %u of result '%s' of fusion '%s' as %lld, but the "
            "fusion computes %lld from its arguments' sizes\n",
            info->dim, dimTensorName(f, k), fuser_fusion_name(f), (long long)given[k],
            (long long)inferred[k]);
    return -1;
  }
  return 0;
}

int fusercResolveDims(const fuser_fusion *f, const char *dimsFlag, int64_t *dims) {
  size_t na = fuser_fusion_num_args(f), nd = fuser_fusion_num_dyn_dims(f);
  size_t argDims = 0;
  for (size_t k = 0; k < nd; ++k)
    argDims += fuser_fusion_dyn_dim(f, k)->tensor < na;
  memset(dims, 0, 256 * sizeof *dims);
  if (!dimsFlag && nd) {
    fprintf(stderr, "fuserc: error: fusion '%s' has %zu dynamic dim%s: give %s with --dims\n",
            fuser_fusion_name(f), argDims, argDims == 1 ? "" : "s",
            argDims == 1 ? "it" : "them");
    return -1;
  }
  if (dimsFlag && fusercSpreadDims(f, dimsFlag, dims) < 0)
    return -1;
  int64_t given[256];
  memcpy(given, dims, sizeof given);
  if (fusercReportError(fuser_fusion_infer_dims(f, dims, nd, dims), fuser_fusion_name(f)) ||
      fusercCheckGivenResultDims(f, dimsFlag, given, dims) < 0)
    return -1;
  return (int)nd;
}

bool fusercRecordLaunches(fuser_rt *rt, Recorder *rec, const fuser_fusion *f,
                          const int64_t *dims, size_t nd) {
  size_t na = fuser_fusion_num_args(f), nr = fuser_fusion_num_results(f);
  uint64_t bufs[512] = {0};
  if (na + nr > 512) {
    fprintf(stderr, "fuserc: error: fusion '%s' has more than 512 tensors\n",
            fuser_fusion_name(f));
    return false;
  }
  /* An argument compiled as a view is passed with its static strides and,
   * for its dynamic ones, those of a dense tensor laid out past what the
   * static ones reach, innermost last (`[?, 1]` is row-major, `[1, ?]`
   * column-major, as a GEMM's operand must be; the plan sees some stride:
   * a variant it picks by stride may differ for others). Its buffer holds
   * its span or its dense size, whichever is larger. */
  int64_t strides[256][FUSER_MAX_RANK];
  const int64_t *argStrides[256] = {NULL};
  if (na > 256) {
    fprintf(stderr, "fuserc: error: fusion '%s' has more than 256 arguments\n",
            fuser_fusion_name(f));
    return false;
  }
  for (size_t i = 0; i < na + nr; ++i) {
    uint64_t bytes;
    if (fusercReportError(fuser_fusion_tensor_bytes(f, i, dims, nd, &bytes), fuser_fusion_name(f)))
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
    if (fusercReportError(fuser_mem_alloc(rt, bytes, &bufs[i]), "allocating"))
      return false;
  }
  rec->numLaunches = rec->dropped = 0;
  uint64_t before = rec->allocatedBytes;
  fuser_run_options options = {.arg_strides = argStrides};
  fuser_error *e = fuser_run(f, bufs, bufs + na, dims, nd, NULL, &options);
  for (size_t i = 0; i < na + nr; ++i)
    fuser_error_destroy(fuser_mem_free(rt, bufs[i]));
  rec->intermediateBytes = rec->allocatedBytes - before;
  return !fusercReportError(e, fuser_fusion_name(f));
}
