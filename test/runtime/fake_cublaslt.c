/*
 * libfuser_fake_cublaslt.so: a stand-in for libcublasLt.so that the
 * runtime's CUDA backend loads through FUSER_CUBLASLT_LIBRARY. It exports
 * the cublasLt* entry points the backend uses, checks their arguments the
 * way cuBLASLt documents them, records every call, one line each, and,
 * since the fake CUDA driver serves host memory as device memory, COMPUTES
 * each cublasLtMatmul in cuBLASLt's own column-major terms: what a test
 * reads back is what the row-major-to-column-major mapping of the runtime
 * made of its GEMM.
 *
 * Environment, read at every cublasLtCreate:
 *   FUSER_FAKE_CUBLASLT_LOG=path  append the call log there; unset, the
 *                             fake CUDA driver's FUSER_FAKE_LOG, so that the
 *                             lines interleave with its launches in order
 *   FUSER_FAKE_CUDA=path      the fake CUDA driver the runtime loaded: device
 *                             pointers are then logged by its names (buf3,
 *                             buf3+64), else as hexadecimal addresses
 *   FUSER_FAKE_CUBLASLT_FAIL=a,b,...  inject failures:
 *       create          cublasLtCreate: CUBLAS_STATUS_NOT_INITIALIZED
 *       desc            cublasLtMatmulDescCreate: CUBLAS_STATUS_ALLOC_FAILED
 *       heuristic       cublasLtMatmulAlgoGetHeuristic: NOT_SUPPORTED
 *       no_algorithm    cublasLtMatmulAlgoGetHeuristic finds none
 *       matmul          cublasLtMatmul: CUBLAS_STATUS_EXECUTION_FAILED
 *
 * Log lines (handles are ltN, descN, layoutN, prefN, numbered from 0 while
 * none of their kind is alive; attributes by their name in cublasLt.h
 * without the prefix):
 *   cublasLtCreate -> lt0
 *   cublasLtMatmulDescCreate compute=68 scale=0 -> desc0
 *   cublasLtMatmulDescSetAttribute desc0 TRANSA=1
 *   cublasLtMatmulDescSetAttribute desc0 BIAS_POINTER=buf3
 *   cublasLtMatmulDescSetAttribute desc0 EPILOGUE=512
 *   cublasLtMatrixLayoutCreate type=0 rows=5 cols=4 ld=5 -> layout0
 *   cublasLtMatrixLayoutSetAttribute layout0 BATCH_COUNT=2
 *   cublasLtMatmulPreferenceCreate -> pref0
 *   cublasLtMatmulPreferenceSetAttribute pref0 MAX_WORKSPACE_BYTES=33554432
 *   cublasLtMatmulAlgoGetHeuristic lt0 desc0 A=layout0 B=layout1 C=layout2
 *       D=layout2 pref0 requested=1 -> 1
 *   cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 beta=0
 *       C=buf2 layout2 D=buf2 layout2 workspace=buf4 bytes=33554432
 *       stream=0x42
 *   cublasLtMatmulPreferenceDestroy pref0, ...Destroy desc0, cublasLtDestroy lt0
 * A failing call adds " -> CUBLAS_STATUS_...".
 */
#define _POSIX_C_SOURCE 200809L
#include "fp16.h"
#include "fuser_bundle_format.h"

#include <dlfcn.h>
#include <math.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int cublasStatus_t;
enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
};
enum { R_32F = 0, R_64F = 1, R_16F = 2, R_16BF = 14 };
enum { COMPUTE_32F = 68, COMPUTE_64F = 70, COMPUTE_32F_FAST_TF32 = 77 };
enum {
  EPILOGUE_DEFAULT = 1,
  EPILOGUE_RELU = 2,
  EPILOGUE_BIAS = 4,
  EPILOGUE_RELU_BIAS = 6,
  EPILOGUE_GELU = 32,
  EPILOGUE_GELU_BIAS = 36,
  EPILOGUE_GELU_AUX = 160,
  EPILOGUE_GELU_AUX_BIAS = 164,
  EPILOGUE_BGRADA = 256,
  EPILOGUE_BGRADB = 512
};

typedef struct {
  uint64_t data[8];
} algo_t;
typedef struct {
  algo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
} heuristic_t;

/* The objects. `id` names them in the log; `live` is cleared on destroy
 * (the memory is kept until the library goes, so that a use after destroy
 * is found rather than a crash). */
typedef struct handle {
  unsigned id;
  bool live;
} handle;
typedef struct desc {
  unsigned id;
  bool live;
  int compute, scale;
  int32_t transa, transb;
  uint32_t epilogue;
  const void *bias; /* BGRADA, BGRADB: where the gradient is written */
  int32_t bias_type;
  void *aux; /* GELU_AUX: the pre-activation */
  int64_t aux_ld, aux_stride;
} desc;
typedef struct layout {
  unsigned id;
  bool live;
  int type;
  uint64_t rows, cols;
  int64_t ld;
  int32_t batch;
  int64_t stride;
} layout;
typedef struct pref {
  unsigned id;
  bool live;
  uint64_t workspace;
  uint32_t align[4];
} pref;

enum { K_HANDLE, K_DESC, K_LAYOUT, K_PREF, K_KINDS };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;
static char log_path[1024];
static char fail_spec[256];
static void **objects[K_KINDS];
static size_t num_objects[K_KINDS];
static unsigned next_id[K_KINDS];
static long matmuls, creates;
/* The fake CUDA driver's pointer names (FUSER_FAKE_CUDA). */
static void *cuda_lib;
static void (*buffer_name)(uint64_t, char *, size_t);

static bool failing(const char *what) {
  size_t n = strlen(what);
  for (const char *p = fail_spec; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && memcmp(p, what, n) == 0) return true;
    p += len;
    if (*p == ',') p++;
  }
  return false;
}

static void logf_locked(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
static void logf_locked(const char *format, ...) {
  if (!log_file) return;
  va_list ap;
  va_start(ap, format);
  vfprintf(log_file, format, ap);
  va_end(ap);
  fputc('\n', log_file);
  fflush(log_file);
}

static const char *status_name(cublasStatus_t s) {
  switch (s) {
  case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

/* Logs "<call> -> <status name>" and returns s. */
static cublasStatus_t failed(cublasStatus_t s, const char *call) {
  logf_locked("%s -> %s", call, status_name(s));
  return s;
}

/* A device pointer as the fake CUDA driver names it, else in hex. */
static const char *ptr_name(const void *p, char *out, size_t cap) {
  if (buffer_name && p)
    buffer_name((uint64_t)(uintptr_t)p, out, cap);
  else
    snprintf(out, cap, "%#llx", (unsigned long long)(uintptr_t)p);
  return out;
}

static void *new_object(int kind, size_t size) {
  size_t live = 0;
  for (size_t i = 0; i < num_objects[kind]; i++)
    live += ((handle *)objects[kind][i])->live;
  if (!live) next_id[kind] = 0; /* fresh names, as the fake CUDA driver */
  handle *h = calloc(1, size);
  if (!h) return NULL;
  void **grown = realloc(objects[kind], sizeof *grown * (num_objects[kind] + 1));
  if (!grown) {
    free(h);
    return NULL;
  }
  objects[kind] = grown;
  objects[kind][num_objects[kind]++] = h;
  h->id = next_id[kind]++;
  h->live = true;
  creates++;
  return h;
}

/* `p` if it is a live object of `kind`, else NULL. */
static void *live_object(int kind, const void *p) {
  for (size_t i = 0; i < num_objects[kind]; i++)
    if (objects[kind][i] == p && ((handle *)objects[kind][i])->live) return objects[kind][i];
  return NULL;
}

/* ---- the handle ------------------------------------------------------------ */

EXPORT cublasStatus_t cublasLtCreate(handle **out) {
  pthread_mutex_lock(&lock);
  const char *lp = getenv("FUSER_FAKE_CUBLASLT_LOG");
  if (!lp || !*lp) lp = getenv("FUSER_FAKE_LOG");
  if (!lp) lp = "";
  if (strcmp(lp, log_path) != 0 || (!log_file && *lp)) {
    if (log_file) fclose(log_file);
    log_file = NULL;
    snprintf(log_path, sizeof log_path, "%s", lp);
    if (*lp) log_file = fopen(lp, "a");
  }
  const char *f = getenv("FUSER_FAKE_CUBLASLT_FAIL");
  snprintf(fail_spec, sizeof fail_spec, "%s", f ? f : "");
  const char *cuda = getenv("FUSER_FAKE_CUDA");
  if (!cuda_lib && cuda && *cuda) {
    /* The library the runtime loaded (the same path): no new copy. */
    cuda_lib = dlopen(cuda, RTLD_NOW | RTLD_NOLOAD);
    void *sym = cuda_lib ? dlsym(cuda_lib, "fuser_fake_buffer_name") : NULL;
    memcpy(&buffer_name, &sym, sizeof sym);
  }
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  if (failing("create")) {
    r = failed(CUBLAS_STATUS_NOT_INITIALIZED, "cublasLtCreate");
  } else {
    handle *h = new_object(K_HANDLE, sizeof *h);
    if (!h) {
      r = failed(CUBLAS_STATUS_ALLOC_FAILED, "cublasLtCreate");
    } else {
      logf_locked("cublasLtCreate -> lt%u", h->id);
      *out = h;
    }
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT cublasStatus_t cublasLtDestroy(handle *h) {
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  if (!live_object(K_HANDLE, h)) {
    r = failed(CUBLAS_STATUS_NOT_INITIALIZED, "cublasLtDestroy");
  } else {
    logf_locked("cublasLtDestroy lt%u", h->id);
    h->live = false;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT const char *cublasLtGetStatusName(cublasStatus_t s) {
  return status_name(s);
}

/* ---- descriptors ------------------------------------------------------------ */

EXPORT cublasStatus_t cublasLtMatmulDescCreate(desc **out, int compute,
                                               int scale) {
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  desc *d = NULL;
  if (failing("desc")) {
    logf_locked("cublasLtMatmulDescCreate compute=%d scale=%d -> %s", compute,
                scale, status_name(CUBLAS_STATUS_ALLOC_FAILED));
    r = CUBLAS_STATUS_ALLOC_FAILED;
  } else if (!(d = new_object(K_DESC, sizeof *d))) {
    r = failed(CUBLAS_STATUS_ALLOC_FAILED, "cublasLtMatmulDescCreate");
  } else {
    d->compute = compute;
    d->scale = scale;
    d->epilogue = EPILOGUE_DEFAULT;
    d->bias_type = -1;
    logf_locked("cublasLtMatmulDescCreate compute=%d scale=%d -> desc%u",
                compute, scale, d->id);
    *out = d;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT cublasStatus_t cublasLtMatmulDescDestroy(desc *d) {
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  if (!live_object(K_DESC, d)) {
    r = failed(CUBLAS_STATUS_INVALID_VALUE, "cublasLtMatmulDescDestroy");
  } else {
    logf_locked("cublasLtMatmulDescDestroy desc%u", d->id);
    d->live = false;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

/* Reads an attribute of exactly `want` bytes, as cuBLASLt insists. */
#define ATTR(type, name)                                                     \
  if (size != sizeof(type)) {                                                \
    r = failed(CUBLAS_STATUS_INVALID_VALUE, call);                           \
    break;                                                                   \
  }                                                                          \
  type name;                                                                 \
  memcpy(&name, buf, sizeof name)

EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(desc *d, int attr,
                                                     const void *buf,
                                                     size_t size) {
  static const char call[] = "cublasLtMatmulDescSetAttribute";
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  if (!live_object(K_DESC, d) || !buf) {
    r = failed(CUBLAS_STATUS_INVALID_VALUE, call);
    goto done;
  }
  switch (attr) {
  case 3: { /* TRANSA */
    ATTR(int32_t, v);
    d->transa = v;
    logf_locked("%s desc%u TRANSA=%d", call, d->id, v);
    break;
  }
  case 4: { /* TRANSB */
    ATTR(int32_t, v);
    d->transb = v;
    logf_locked("%s desc%u TRANSB=%d", call, d->id, v);
    break;
  }
  case 7: { /* EPILOGUE */
    ATTR(uint32_t, v);
    d->epilogue = v;
    logf_locked("%s desc%u EPILOGUE=%u", call, d->id, v);
    break;
  }
  case 8: { /* BIAS_POINTER */
    ATTR(const void *, v);
    char name[64];
    d->bias = v;
    logf_locked("%s desc%u BIAS_POINTER=%s", call, d->id,
                ptr_name(v, name, sizeof name));
    break;
  }
  case 11: { /* EPILOGUE_AUX_POINTER */
    ATTR(void *, v);
    char name[64];
    d->aux = v;
    logf_locked("%s desc%u EPILOGUE_AUX_POINTER=%s", call, d->id,
                ptr_name(v, name, sizeof name));
    break;
  }
  case 12: { /* EPILOGUE_AUX_LD */
    ATTR(int64_t, v);
    d->aux_ld = v;
    logf_locked("%s desc%u EPILOGUE_AUX_LD=%" PRId64, call, d->id, v);
    break;
  }
  case 13: { /* EPILOGUE_AUX_BATCH_STRIDE */
    ATTR(int64_t, v);
    d->aux_stride = v;
    logf_locked("%s desc%u EPILOGUE_AUX_BATCH_STRIDE=%" PRId64, call, d->id, v);
    break;
  }
  case 26: { /* BIAS_DATA_TYPE */
    ATTR(int32_t, v);
    d->bias_type = v;
    logf_locked("%s desc%u BIAS_DATA_TYPE=%d", call, d->id, v);
    break;
  }
  default:
    logf_locked("%s desc%u attribute %d -> unexpected", call, d->id, attr);
    r = CUBLAS_STATUS_INVALID_VALUE;
  }
done:
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(layout **out, int type,
                                                 uint64_t rows, uint64_t cols,
                                                 int64_t ld) {
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  layout *l = new_object(K_LAYOUT, sizeof *l);
  if (!l) {
    r = failed(CUBLAS_STATUS_ALLOC_FAILED, "cublasLtMatrixLayoutCreate");
  } else {
    l->type = type;
    l->rows = rows;
    l->cols = cols;
    l->ld = ld;
    l->batch = 1;
    logf_locked("cublasLtMatrixLayoutCreate type=%d rows=%" PRIu64
                " cols=%" PRIu64 " ld=%" PRId64 " -> layout%u",
                type, rows, cols, ld, l->id);
    *out = l;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(layout *l) {
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  if (!live_object(K_LAYOUT, l)) {
    r = failed(CUBLAS_STATUS_INVALID_VALUE, "cublasLtMatrixLayoutDestroy");
  } else {
    logf_locked("cublasLtMatrixLayoutDestroy layout%u", l->id);
    l->live = false;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(layout *l, int attr,
                                                       const void *buf,
                                                       size_t size) {
  static const char call[] = "cublasLtMatrixLayoutSetAttribute";
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  if (!live_object(K_LAYOUT, l) || !buf) {
    r = failed(CUBLAS_STATUS_INVALID_VALUE, call);
    goto done;
  }
  switch (attr) {
  case 5: { /* BATCH_COUNT */
    ATTR(int32_t, v);
    l->batch = v;
    logf_locked("%s layout%u BATCH_COUNT=%d", call, l->id, v);
    break;
  }
  case 6: { /* STRIDED_BATCH_OFFSET */
    ATTR(int64_t, v);
    l->stride = v;
    logf_locked("%s layout%u STRIDED_BATCH_OFFSET=%" PRId64, call, l->id, v);
    break;
  }
  default:
    logf_locked("%s layout%u attribute %d -> unexpected", call, l->id, attr);
    r = CUBLAS_STATUS_INVALID_VALUE;
  }
done:
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(pref **out) {
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  pref *p = new_object(K_PREF, sizeof *p);
  if (!p) {
    r = failed(CUBLAS_STATUS_ALLOC_FAILED, "cublasLtMatmulPreferenceCreate");
  } else {
    for (int k = 0; k < 4; k++) p->align[k] = 256;
    logf_locked("cublasLtMatmulPreferenceCreate -> pref%u", p->id);
    *out = p;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceDestroy(pref *p) {
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  if (!live_object(K_PREF, p)) {
    r = failed(CUBLAS_STATUS_INVALID_VALUE, "cublasLtMatmulPreferenceDestroy");
  } else {
    logf_locked("cublasLtMatmulPreferenceDestroy pref%u", p->id);
    p->live = false;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(pref *p, int attr,
                                                           const void *buf,
                                                           size_t size) {
  static const char call[] = "cublasLtMatmulPreferenceSetAttribute";
  static const char *const align_names[4] = {
      "MIN_ALIGNMENT_A_BYTES", "MIN_ALIGNMENT_B_BYTES",
      "MIN_ALIGNMENT_C_BYTES", "MIN_ALIGNMENT_D_BYTES"};
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  if (!live_object(K_PREF, p) || !buf) {
    r = failed(CUBLAS_STATUS_INVALID_VALUE, call);
    goto done;
  }
  switch (attr) {
  case 1: { /* MAX_WORKSPACE_BYTES */
    ATTR(uint64_t, v);
    p->workspace = v;
    logf_locked("%s pref%u MAX_WORKSPACE_BYTES=%" PRIu64, call, p->id, v);
    break;
  }
  case 5: case 6: case 7: case 8: {
    ATTR(uint32_t, v);
    p->align[attr - 5] = v;
    logf_locked("%s pref%u %s=%u", call, p->id, align_names[attr - 5], v);
    break;
  }
  default:
    logf_locked("%s pref%u attribute %d -> unexpected", call, p->id, attr);
    r = CUBLAS_STATUS_INVALID_VALUE;
  }
done:
  pthread_mutex_unlock(&lock);
  return r;
}
#undef ATTR

/* ---- checks and the matmul -------------------------------------------------- */

static size_t type_size(int t) {
  return t == R_64F ? 8 : t == R_32F ? 4 : 2;
}

/* What cuBLASLt runs (its cublasLtMatmul type table, without the integer
 * and complex rows): the operand types, D's, for the compute type. */
static bool supported(const desc *d, int ab, int cd) {
  switch (d->compute) {
  case COMPUTE_64F:
    return d->scale == R_64F && ab == R_64F && cd == R_64F;
  case COMPUTE_32F_FAST_TF32:
    return d->scale == R_32F && ab == R_32F && cd == R_32F;
  case COMPUTE_32F:
    return d->scale == R_32F &&
           ((ab == R_32F && cd == R_32F) ||
            ((ab == R_16F || ab == R_16BF) && (cd == ab || cd == R_32F)));
  }
  return false;
}

/* The shapes: op(A) is m x k, op(B) k x n, C and D m x n, each ld at least
 * its rows (column-major) and 1, the batch counts equal. k == 0 is refused
 * here: the runtime must not pass cuBLASLt an empty product. */
static cublasStatus_t check(const desc *d, const layout *a, const layout *b,
                            const layout *c, const layout *dl) {
  if (!supported(d, a->type, dl->type) || b->type != a->type ||
      c->type != dl->type)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if ((d->transa != 0 && d->transa != 1) || (d->transb != 0 && d->transb != 1))
    return CUBLAS_STATUS_INVALID_VALUE;
  uint64_t m = d->transa ? a->cols : a->rows, k = d->transa ? a->rows : a->cols;
  uint64_t kb = d->transb ? b->cols : b->rows, n = d->transb ? b->rows : b->cols;
  if (k != kb || m != dl->rows || n != dl->cols || c->rows != dl->rows ||
      c->cols != dl->cols || m == 0 || n == 0 || k == 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  const layout *all[4] = {a, b, c, dl};
  for (int i = 0; i < 4; i++)
    if (all[i]->ld < 1 || (uint64_t)all[i]->ld < all[i]->rows ||
        all[i]->batch < 1 || all[i]->batch != dl->batch ||
        all[i]->stride < 0)
      return CUBLAS_STATUS_INVALID_VALUE;
  bool biased = d->epilogue == EPILOGUE_BIAS || d->epilogue == EPILOGUE_RELU_BIAS ||
                d->epilogue == EPILOGUE_GELU_BIAS || d->epilogue == EPILOGUE_GELU_AUX_BIAS;
  bool aux = d->epilogue == EPILOGUE_GELU_AUX || d->epilogue == EPILOGUE_GELU_AUX_BIAS;
  bool bgrad = d->epilogue == EPILOGUE_BGRADA || d->epilogue == EPILOGUE_BGRADB;
  if (d->epilogue != EPILOGUE_DEFAULT && d->epilogue != EPILOGUE_RELU &&
      d->epilogue != EPILOGUE_GELU && !biased && !aux && !bgrad)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if ((biased || bgrad) && (!d->bias || d->bias_type != dl->type))
    return CUBLAS_STATUS_INVALID_VALUE;
  /* A bias gradient is one vector: of one matrix (what the runtime
   * assumes of cuBLASLt; the fake refuses a batch). */
  if (bgrad && dl->batch != 1) return CUBLAS_STATUS_NOT_SUPPORTED;
  /* cublasLt.h: the GELU input's leading dimension and batch stride are
   * multiples of 8, the leading dimension at least the output's rows. */
  if (aux && (!d->aux || d->aux_ld % 8 != 0 || d->aux_ld < (int64_t)dl->rows ||
              d->aux_stride % 8 != 0 || (dl->batch > 1 && d->aux_stride == 0)))
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    handle *h, desc *d, layout *a, layout *b, layout *c, layout *dl, pref *p,
    int requested, heuristic_t *results, int *count) {
  static const char call[] = "cublasLtMatmulAlgoGetHeuristic";
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  if (!live_object(K_HANDLE, h) || !live_object(K_DESC, d) ||
      !live_object(K_LAYOUT, a) || !live_object(K_LAYOUT, b) ||
      !live_object(K_LAYOUT, c) || !live_object(K_LAYOUT, dl) ||
      !live_object(K_PREF, p) || requested < 1 || !results || !count) {
    r = failed(CUBLAS_STATUS_INVALID_VALUE, call);
    goto done;
  }
  char line[256];
  snprintf(line, sizeof line,
           "%s lt%u desc%u A=layout%u B=layout%u C=layout%u D=layout%u "
           "pref%u requested=%d",
           call, h->id, d->id, a->id, b->id, c->id, dl->id, p->id, requested);
  if (failing("heuristic")) {
    r = failed(CUBLAS_STATUS_NOT_SUPPORTED, line);
    goto done;
  }
  if ((r = check(d, a, b, c, dl))) {
    failed(r, line);
    goto done;
  }
  int found = failing("no_algorithm") ? 0 : 1;
  logf_locked("%s -> %d", line, found);
  *count = found;
  if (found) {
    memset(&results[0], 0, sizeof results[0]);
    results[0].algo.data[0] = 0xFA4E; /* what cublasLtMatmul expects back */
    results[0].workspaceSize = p->workspace < 4096 ? 0 : 4096;
    results[0].state = CUBLAS_STATUS_SUCCESS;
    results[0].wavesCount = 1.0f;
  }
done:
  pthread_mutex_unlock(&lock);
  return r;
}

/* Element `i` of a matrix of `type` at `base`, as the compute type reads
 * it (f32 operands rounded to TF32 under COMPUTE_32F_FAST_TF32). */
static double load(const void *base, int type, uint64_t i, bool tf32) {
  switch (type) {
  case R_64F: return ((const double *)base)[i];
  case R_32F: {
    float v = ((const float *)base)[i];
    return tf32 ? fp_round_tf32(v) : v;
  }
  case R_16F: return fp_half_to_float(((const uint16_t *)base)[i]);
  default: return fp_bf16_to_float(((const uint16_t *)base)[i]);
  }
}

static void store(void *base, int type, uint64_t i, double v) {
  switch (type) {
  case R_64F: ((double *)base)[i] = v; break;
  case R_32F: ((float *)base)[i] = (float)v; break;
  case R_16F: ((uint16_t *)base)[i] = fp_float_to_half((float)v); break;
  default: ((uint16_t *)base)[i] = fp_float_to_bf16((float)v); break;
  }
}

/* D = alpha op(A) op(B) + beta C (+ bias[row]), column-major: element
 * (i, j) of a matrix at i + j * ld, batch b `stride` elements further.
 * Products accumulate in float (in double for COMPUTE_64F), in order.
 * BGRADA and BGRADB also write the bias gradient (below). */
static void compute(const desc *d, const void *alpha, const void *A,
                    const layout *a, const void *B, const layout *b,
                    const void *beta, const void *C, const layout *c, void *D,
                    const layout *dl) {
  bool f64 = d->compute == COMPUTE_64F, tf32 = d->compute == COMPUTE_32F_FAST_TF32;
  double al = f64 ? *(const double *)alpha : *(const float *)alpha;
  double be = f64 ? *(const double *)beta : *(const float *)beta;
  uint64_t m = dl->rows, n = dl->cols, k = d->transa ? a->rows : a->cols;
  size_t as = type_size(a->type), ds = type_size(dl->type);
  for (int32_t bt = 0; bt < dl->batch; bt++) {
    const char *Ab = (const char *)A + (uint64_t)bt * (uint64_t)a->stride * as;
    const char *Bb = (const char *)B + (uint64_t)bt * (uint64_t)b->stride * as;
    const char *Cb = (const char *)C + (uint64_t)bt * (uint64_t)c->stride * ds;
    char *Db = (char *)D + (uint64_t)bt * (uint64_t)dl->stride * ds;
    for (uint64_t j = 0; j < n; j++)
      for (uint64_t i = 0; i < m; i++) {
        float accf = 0.0f;
        double accd = 0.0;
        for (uint64_t l = 0; l < k; l++) {
          uint64_t ai = d->transa ? l + i * (uint64_t)a->ld : i + l * (uint64_t)a->ld;
          uint64_t bi = d->transb ? j + l * (uint64_t)b->ld : l + j * (uint64_t)b->ld;
          double x = load(Ab, a->type, ai, tf32), y = load(Bb, b->type, bi, tf32);
          if (f64)
            accd += x * y;
          else
            accf += (float)x * (float)y;
        }
        double v = f64 ? al * accd : (double)((float)al * accf);
        /* beta == 0: C is not read (it may hold anything, NaN too). */
        if (be != 0.0) v += be * load(Cb, c->type, i + j * (uint64_t)c->ld, false);
        if (d->epilogue == EPILOGUE_BIAS || d->epilogue == EPILOGUE_RELU_BIAS ||
            d->epilogue == EPILOGUE_GELU_BIAS || d->epilogue == EPILOGUE_GELU_AUX_BIAS)
          v = f64 ? v + load(d->bias, d->bias_type, i, false)
                  : (double)((float)v + (float)load(d->bias, d->bias_type, i, false));
        /* GELU_AUX: the activation's input, in D's type, laid out by the
         * aux leading dimension and batch stride. */
        if (d->epilogue == EPILOGUE_GELU_AUX || d->epilogue == EPILOGUE_GELU_AUX_BIAS)
          store((char *)d->aux + (uint64_t)bt * (uint64_t)d->aux_stride * ds, dl->type,
                i + j * (uint64_t)d->aux_ld, v);
        if (d->epilogue == EPILOGUE_RELU || d->epilogue == EPILOGUE_RELU_BIAS)
          v = v < 0 ? 0.0 : v;
        if (d->epilogue == EPILOGUE_GELU || d->epilogue == EPILOGUE_GELU_BIAS ||
            d->epilogue == EPILOGUE_GELU_AUX || d->epilogue == EPILOGUE_GELU_AUX_BIAS) {
          /* tanh's approximation, in the accumulation type */
          if (f64)
            v = 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
          else {
            float x = (float)v;
            v = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
          }
        }
        store(Db, dl->type, i + j * (uint64_t)dl->ld, v);
      }
  }
  /* The bias gradient (batch 1, check's rule), in D's type, accumulated as
   * the products are, in order of k, rounded once: BGRADA sums op(A) over
   * k, one element per row of D (m); BGRADB sums op(B) over k, one per
   * column of D (n). The operands as stored, without TF32's rounding. */
  if (d->epilogue == EPILOGUE_BGRADA || d->epilogue == EPILOGUE_BGRADB) {
    bool ga = d->epilogue == EPILOGUE_BGRADA;
    for (uint64_t r = 0; r < (ga ? m : n); r++) {
      float accf = 0.0f;
      double accd = 0.0;
      for (uint64_t l = 0; l < k; l++) {
        uint64_t at = ga ? (d->transa ? l + r * (uint64_t)a->ld
                                      : r + l * (uint64_t)a->ld)
                         : (d->transb ? r + l * (uint64_t)b->ld
                                      : l + r * (uint64_t)b->ld);
        double x = ga ? load(A, a->type, at, false)
                      : load(B, b->type, at, false);
        if (f64)
          accd += x;
        else
          accf += (float)x;
      }
      store((void *)(uintptr_t)d->bias, dl->type, r, f64 ? accd : (double)accf);
    }
  }
}

EXPORT cublasStatus_t cublasLtMatmul(handle *h, desc *d, const void *alpha,
                                     const void *A, layout *a, const void *B,
                                     layout *b, const void *beta,
                                     const void *C, layout *c, void *D,
                                     layout *dl, const algo_t *algo,
                                     void *workspace, size_t workspace_bytes,
                                     void *stream) {
  static const char call[] = "cublasLtMatmul";
  pthread_mutex_lock(&lock);
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  if (!live_object(K_HANDLE, h) || !live_object(K_DESC, d) ||
      !live_object(K_LAYOUT, a) || !live_object(K_LAYOUT, b) ||
      !live_object(K_LAYOUT, c) || !live_object(K_LAYOUT, dl) || !alpha ||
      !beta) {
    r = failed(CUBLAS_STATUS_INVALID_VALUE, call);
    goto done;
  }
  bool f64 = d->compute == COMPUTE_64F;
  double al = f64 ? *(const double *)alpha : *(const float *)alpha;
  double be = f64 ? *(const double *)beta : *(const float *)beta;
  char pa[64], pb[64], pc[64], pd[64], pw[64], line[768];
  snprintf(line, sizeof line,
           "%s lt%u desc%u alpha=%g A=%s layout%u B=%s layout%u beta=%g C=%s "
           "layout%u D=%s layout%u workspace=%s bytes=%zu stream=%p",
           call, h->id, d->id, al, ptr_name(A, pa, sizeof pa), a->id,
           ptr_name(B, pb, sizeof pb), b->id, be, ptr_name(C, pc, sizeof pc),
           c->id, ptr_name(D, pd, sizeof pd), dl->id,
           ptr_name(workspace, pw, sizeof pw), workspace_bytes, stream);
  if (failing("matmul")) {
    r = failed(CUBLAS_STATUS_EXECUTION_FAILED, line);
    goto done;
  }
  if ((r = check(d, a, b, c, dl)) ||
      (r = !algo || algo->data[0] != 0xFA4E ? CUBLAS_STATUS_INVALID_VALUE
                                            : CUBLAS_STATUS_SUCCESS) ||
      (r = workspace_bytes && !workspace ? CUBLAS_STATUS_INVALID_VALUE
                                         : CUBLAS_STATUS_SUCCESS) ||
      (r = !A || !B || !D || (be != 0.0 && !C) ? CUBLAS_STATUS_INVALID_VALUE
                                                : CUBLAS_STATUS_SUCCESS)) {
    failed(r, line);
    goto done;
  }
  logf_locked("%s", line);
  if (workspace_bytes) { /* the whole workspace is the caller's: touch its ends */
    ((volatile char *)workspace)[0] = 0x5A;
    ((volatile char *)workspace)[workspace_bytes - 1] = 0x5A;
  }
  compute(d, alpha, A, a, B, b, beta, C, c, D, dl);
  matmuls++;
done:
  pthread_mutex_unlock(&lock);
  return r;
}

/* ---- test hooks (not part of cuBLASLt) -------------------------------------- */

/* Objects (handles, descriptors, layouts, preferences) alive now. */
EXPORT long fuser_fake_cublaslt_live(void) {
  pthread_mutex_lock(&lock);
  long n = 0;
  for (int k = 0; k < K_KINDS; k++)
    for (size_t i = 0; i < num_objects[k]; i++)
      n += ((handle *)objects[k][i])->live;
  pthread_mutex_unlock(&lock);
  return n;
}

/* Objects ever created, and matmuls computed. */
EXPORT long fuser_fake_cublaslt_creates(void) {
  pthread_mutex_lock(&lock);
  long n = creates;
  pthread_mutex_unlock(&lock);
  return n;
}
EXPORT long fuser_fake_cublaslt_matmuls(void) {
  pthread_mutex_lock(&lock);
  long n = matmuls;
  pthread_mutex_unlock(&lock);
  return n;
}

__attribute__((destructor)) static void fake_fini(void) {
  for (int k = 0; k < K_KINDS; k++) {
    for (size_t i = 0; i < num_objects[k]; i++) free(objects[k][i]);
    free(objects[k]);
  }
  if (log_file) fclose(log_file);
  if (cuda_lib) dlclose(cuda_lib);
}
