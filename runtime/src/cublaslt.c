/* The CUDA backend's GEMM: cuBLASLt, opened with dlopen on a runtime's
 * first GEMM. No cuBLAS header is needed: the few types, enums and
 * attribute values used are declared here with the values of cublasLt.h,
 * cublas_api.h and library_types.h (CUDA 12 and 13 agree on all of them).
 *
 * Row-major to column-major. A bundle's GEMM is row-major (D = opA(A) @
 * opB(B), fuser_bundle_format.h); cuBLASLt is column-major. The bytes of a
 * row-major R x C matrix with leading dimension ld are the column-major
 * C x R matrix with the same ld, its transpose, so D^T = opB(B)^T @
 * opA(A)^T is computed: cuBLASLt's A is our B and its B our A, its
 * transposes are ours swapped (TRANSA from TRANS_B, TRANSB from TRANS_A),
 * its m is our n and its n our m, and each layout is the stored matrix read
 * column-major (rows and columns swapped). The bias (one element per column
 * of our D) is then one per row of cuBLASLt's D, which is what
 * CUBLASLT_EPILOGUE_BIAS adds. A bias gradient follows the swap: the sums
 * of opA(A)'s rows (BGRAD_A, one per row of our D) are cuBLASLt's
 * CUBLASLT_EPILOGUE_BGRADB (its B is our A), those of opB(B)'s columns
 * (BGRAD_B) its BGRADA; the bias pointer is then where it is written.
 *
 * Descriptors, layouts and the algorithm the heuristic chose are cached
 * per shape (dtypes, sizes, leading dimensions, batch strides, flags,
 * epilogue, the alignment of each pointer, the workspace size): a repeated
 * GEMM creates nothing. The cache is bounded (the least recently used entry
 * goes) and thread safe; an entry in use when it is evicted goes with its
 * last user.
 */
#include "internal.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int cublasStatus_t;
typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct fr_lt_desc *cublasLtMatmulDesc_t;
typedef struct fr_lt_layout *cublasLtMatrixLayout_t;
typedef struct fr_lt_pref *cublasLtMatmulPreference_t;
typedef struct {
  uint64_t data[8];
} cublasLtMatmulAlgo_t;
typedef struct {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
} cublasLtMatmulHeuristicResult_t;

#define CUBLAS_STATUS_SUCCESS 0
/* cudaDataType_t */
#define CUDA_R_32F 0
#define CUDA_R_64F 1
#define CUDA_R_16F 2
#define CUDA_R_16BF 14
/* cublasComputeType_t */
#define CUBLAS_COMPUTE_32F 68
#define CUBLAS_COMPUTE_64F 70
#define CUBLAS_COMPUTE_32F_FAST_TF32 77
/* cublasOperation_t */
#define CUBLAS_OP_N 0
#define CUBLAS_OP_T 1
/* cublasLtMatmulDescAttributes_t */
#define CUBLASLT_MATMUL_DESC_TRANSA 3
#define CUBLASLT_MATMUL_DESC_TRANSB 4
#define CUBLASLT_MATMUL_DESC_EPILOGUE 7
#define CUBLASLT_MATMUL_DESC_BIAS_POINTER 8
#define CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE 26
#define CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER 11
#define CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD 12
#define CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE 13
/* cublasLtEpilogue_t */
#define CUBLASLT_EPILOGUE_BIAS 4
#define CUBLASLT_EPILOGUE_RELU 2
#define CUBLASLT_EPILOGUE_RELU_BIAS 6
#define CUBLASLT_EPILOGUE_GELU 32
#define CUBLASLT_EPILOGUE_GELU_BIAS 36
#define CUBLASLT_EPILOGUE_GELU_AUX 160
#define CUBLASLT_EPILOGUE_GELU_AUX_BIAS 164
#define CUBLASLT_EPILOGUE_BGRADA 256
#define CUBLASLT_EPILOGUE_BGRADB 512
/* cublasLtMatrixLayoutAttribute_t */
#define CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT 5
#define CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET 6
/* cublasLtMatmulPreferenceAttributes_t */
#define CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES 1
#define CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES 5
#define CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES 6
#define CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES 7
#define CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES 8

/* The entry points (enums are passed as int). */
typedef cublasStatus_t (*pfn_create)(cublasLtHandle_t *);
typedef cublasStatus_t (*pfn_destroy)(cublasLtHandle_t);
typedef cublasStatus_t (*pfn_desc_create)(cublasLtMatmulDesc_t *, int, int);
typedef cublasStatus_t (*pfn_desc_destroy)(cublasLtMatmulDesc_t);
typedef cublasStatus_t (*pfn_desc_set)(cublasLtMatmulDesc_t, int,
                                       const void *, size_t);
typedef cublasStatus_t (*pfn_layout_create)(cublasLtMatrixLayout_t *, int,
                                            uint64_t, uint64_t, int64_t);
typedef cublasStatus_t (*pfn_layout_destroy)(cublasLtMatrixLayout_t);
typedef cublasStatus_t (*pfn_layout_set)(cublasLtMatrixLayout_t, int,
                                         const void *, size_t);
typedef cublasStatus_t (*pfn_pref_create)(cublasLtMatmulPreference_t *);
typedef cublasStatus_t (*pfn_pref_destroy)(cublasLtMatmulPreference_t);
typedef cublasStatus_t (*pfn_pref_set)(cublasLtMatmulPreference_t, int,
                                       const void *, size_t);
typedef cublasStatus_t (*pfn_heuristic)(
    cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
    cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
    cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t *,
    int *);
typedef cublasStatus_t (*pfn_matmul)(
    cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
    cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t,
    const void *, const void *, cublasLtMatrixLayout_t, void *,
    cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *, size_t,
    void *);
typedef const char *(*pfn_status_name)(cublasStatus_t);

#define LT_FUNCTIONS(X)                                                      \
  X(create, "cublasLtCreate")                                                \
  X(destroy, "cublasLtDestroy")                                              \
  X(desc_create, "cublasLtMatmulDescCreate")                                 \
  X(desc_destroy, "cublasLtMatmulDescDestroy")                               \
  X(desc_set, "cublasLtMatmulDescSetAttribute")                              \
  X(layout_create, "cublasLtMatrixLayoutCreate")                             \
  X(layout_destroy, "cublasLtMatrixLayoutDestroy")                           \
  X(layout_set, "cublasLtMatrixLayoutSetAttribute")                          \
  X(pref_create, "cublasLtMatmulPreferenceCreate")                           \
  X(pref_destroy, "cublasLtMatmulPreferenceDestroy")                         \
  X(pref_set, "cublasLtMatmulPreferenceSetAttribute")                        \
  X(heuristic, "cublasLtMatmulAlgoGetHeuristic")                             \
  X(matmul, "cublasLtMatmul")

/* The cache: at most LT_CACHE_CAP entries in LT_BUCKETS hash chains. */
#define LT_CACHE_CAP 256
#define LT_BUCKETS 512
/* ab dtype, d dtype, flags, epilogue, m, n, k, batch, lda, ldb, ldd,
 * stride_a, stride_b, stride_d, the alignments of a, b, d, the bias and
 * the pre-activation, the workspace size. */
#define LT_KEY_WORDS 20

typedef struct lt_entry {
  int64_t key[LT_KEY_WORDS];
  uint64_t hash;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, ld; /* cuBLASLt's A, B, and C = D */
  cublasLtMatmulAlgo_t algo;
  /* The bias pointer is set on the shared descriptor for each call. */
  pthread_mutex_t use;
  long refs;   /* calls using the entry now (under the cache lock) */
  bool cached; /* in a chain and in the recency list */
  struct lt_entry *chain, *newer, *older;
} lt_entry;

struct fr_cublaslt {
  pthread_mutex_t lock; /* loading, and the cache */
  atomic_int ready;     /* 1 once the library and the handle are there */
  void *lib;
  cublasLtHandle_t handle;
#define DECLARE(name, sym) pfn_##name name;
  LT_FUNCTIONS(DECLARE)
#undef DECLARE
  pfn_status_name status_name; /* optional */
  lt_entry *buckets[LT_BUCKETS];
  lt_entry *newest, *oldest;
  unsigned count;
};

fr_cublaslt *fr_cublaslt_new(void) {
  fr_cublaslt *lt = calloc(1, sizeof *lt);
  if (!lt) return NULL;
  pthread_mutex_init(&lt->lock, NULL);
  atomic_init(&lt->ready, 0);
  return lt;
}

/* ---- errors ------------------------------------------------------------- */

static fuser_error *lt_error(const fr_cublaslt *lt, cublasStatus_t status,
                             const char *function, const char *detail) {
  const char *name = lt->status_name ? lt->status_name(status) : NULL;
  if (name)
    return fuser_error_create(FUSER_ERROR_DRIVER, "%s failed: %s (status %d)%s",
                              function, name, status, detail ? detail : "");
  return fuser_error_create(FUSER_ERROR_DRIVER,
                            "%s failed: cuBLAS status %d%s", function, status,
                            detail ? detail : "");
}

static const char *dtype_name(uint32_t d) {
  return fuser_dtype_name((fuser_dtype)d);
}

/* The GEMM in the bundle's row-major terms, for messages: " for batch 2 of
 * D (3 x 5, f32) = A^T (3 x 4, f16) @ B (4 x 5, f16) + bias (lda 3, ...)". */
static void describe(const fuser_gemm *g, const int64_t *key, char *out,
                     size_t n) {
  bool ta = g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_A,
       tb = g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_B;
  snprintf(out, n,
           " for batch %" PRId64 " of D (%" PRId64 " x %" PRId64
           ", %s) = A%s (%" PRId64 " x %" PRId64 ", %s) @ B%s (%" PRId64
           " x %" PRId64 ", %s)%s%s (lda %" PRId64 ", ldb %" PRId64
           ", ldd %" PRId64 ", batch strides %" PRId64 ", %" PRId64
           ", %" PRId64 "; A, B and D aligned to %" PRId64 ", %" PRId64
           " and %" PRId64 " bytes)",
           g->batch, g->m, g->n, dtype_name(g->d_dtype), ta ? "^T" : "",
           g->m, g->k, dtype_name(g->ab_dtype), tb ? "^T" : "", g->k, g->n,
           dtype_name(g->ab_dtype),
           g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A
               ? ", bias gradient of A"
           : g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B
               ? ", bias gradient of B"
           : g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_GELU_AUX
               ? " + bias, gelu keeping its input"
           : g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_GELU_AUX
               ? ", gelu keeping its input"
           : g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_GELU ? " + bias, gelu"
           : g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_RELU ? " + bias, relu"
           : g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_GELU ? ", gelu"
           : g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_RELU ? ", relu"
           : g->bias ? " + bias" : "",
           g->flags & FUSER_BUNDLE_GEMM_FLAG_TF32 ? ", TF32" : "", g->lda,
           g->ldb, g->ldd, g->stride_a, g->stride_b, g->stride_d, key[14],
           key[15], key[16]);
}

/* ---- the library -------------------------------------------------------- */

/* Opens the library and creates the handle. Lock held. */
static fuser_error *lt_load(fr_cublaslt *lt) {
  const char *env = getenv("FUSER_CUBLASLT_LIBRARY");
  const char *names[2];
  int n = 0;
  if (env && *env) {
    names[n++] = env;
  } else {
    names[n++] = "libcublasLt.so.13"; /* CUDA 13 */
    names[n++] = "libcublasLt.so.12"; /* CUDA 12 */
  }
  char tried[2048];
  size_t len = 0;
  tried[0] = 0;
  void *lib = NULL;
  const char *path = NULL;
  int flags = RTLD_NOW | RTLD_LOCAL;
#ifdef RTLD_NODELETE
  /* cuBLAS is not made to be unloaded and loaded again: it stays for the
   * process once a runtime opened it (a handle still goes with its
   * runtime). */
  flags |= RTLD_NODELETE;
#endif
  for (int k = 0; k < n && !lib; k++) {
    dlerror();
    lib = dlopen(names[k], flags);
    if (lib) {
      path = names[k];
      break;
    }
    const char *why = dlerror();
    int w = snprintf(tried + len, sizeof tried - len, "%s'%s' (%s)",
                     k ? ", " : "", names[k],
                     why ? why : "unknown dlopen error");
    if (w > 0) len += (size_t)w < sizeof tried - len ? (size_t)w
                                                     : sizeof tried - len - 1;
  }
  if (!lib)
    return fuser_error_create(
        FUSER_ERROR_DRIVER_UNAVAILABLE,
        "cannot load cuBLASLt, which runs GEMMs on CUDA: tried %s; install "
        "cuBLAS of CUDA 12 or 13, or set FUSER_CUBLASLT_LIBRARY to the "
        "library's path",
        tried);
#define RESOLVE(name, sym)                                                   \
  {                                                                          \
    void *p = dlsym(lib, sym);                                               \
    if (!p) {                                                                \
      dlclose(lib);                                                          \
      return fuser_error_create(FUSER_ERROR_DRIVER_UNAVAILABLE,              \
                                "the cuBLASLt library '%s' does not export " \
                                "%s (not cuBLASLt, or one older than CUDA "  \
                                "11)",                                       \
                                path, sym);                                  \
    }                                                                        \
    memcpy(&lt->name, &p, sizeof p);                                         \
  }
  LT_FUNCTIONS(RESOLVE)
#undef RESOLVE
  void *p = dlsym(lib, "cublasLtGetStatusName");
  if (p) memcpy(&lt->status_name, &p, sizeof p);
  cublasStatus_t st = lt->create(&lt->handle);
  if (st != CUBLAS_STATUS_SUCCESS) {
    char detail[1200];
    snprintf(detail, sizeof detail, " (cuBLASLt library '%.1000s')", path);
    fuser_error *e = lt_error(lt, st, "cublasLtCreate", detail);
    lt->status_name = NULL;
    dlclose(lib);
    return e;
  }
  lt->lib = lib;
  return NULL;
}

/* The library and the handle, made on the first call (once per runtime,
 * whichever thread comes first; a failure is tried again by the next
 * GEMM). */
static fuser_error *lt_ready(fr_cublaslt *lt) {
  if (atomic_load_explicit(&lt->ready, memory_order_acquire) == 1)
    return NULL;
  pthread_mutex_lock(&lt->lock);
  fuser_error *e = NULL;
  if (atomic_load_explicit(&lt->ready, memory_order_relaxed) != 1) {
    e = lt_load(lt);
    if (!e) atomic_store_explicit(&lt->ready, 1, memory_order_release);
  }
  pthread_mutex_unlock(&lt->lock);
  return e;
}

/* ---- descriptors -------------------------------------------------------- */

static int cuda_type(uint32_t dtype) {
  switch (dtype) {
  case FUSER_DTYPE_F16: return CUDA_R_16F;
  case FUSER_DTYPE_BF16: return CUDA_R_16BF;
  case FUSER_DTYPE_F64: return CUDA_R_64F;
  default: return CUDA_R_32F;
  }
}

/* The alignment of a device address, up to the 256 bytes cuBLASLt's
 * heuristics assume by default: an algorithm chosen for it also runs on
 * any address aligned as well. */
static int64_t alignment(uint64_t p) {
  uint64_t a = p ? p & (~p + 1) : 256;
  return a > 256 ? 256 : (int64_t)a;
}

static void make_key(const fuser_gemm *g, int64_t *key) {
  bool batched = g->batch > 1;
  int64_t k[LT_KEY_WORDS] = {
      g->ab_dtype, g->d_dtype, g->flags, g->epilogue, g->m, g->n, g->k,
      g->batch, g->lda, g->ldb, g->ldd,
      /* A single matrix has no batch stride. */
      batched ? g->stride_a : 0, batched ? g->stride_b : 0,
      batched ? g->stride_d : 0, alignment(g->a), alignment(g->b),
      alignment(g->d), g->bias ? alignment(g->bias) : 0,
      (int64_t)g->workspace_bytes, g->aux ? alignment(g->aux) : 0};
  memcpy(key, k, sizeof k);
}

static uint64_t hash_key(const int64_t *key) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a over the words */
  for (int i = 0; i < LT_KEY_WORDS; i++) {
    h ^= (uint64_t)key[i];
    h *= 1099511628211ull;
    h ^= h >> 29;
  }
  return h;
}

static void entry_free(const fr_cublaslt *lt, lt_entry *en) {
  if (!en) return;
  if (en->la) lt->layout_destroy(en->la);
  if (en->lb) lt->layout_destroy(en->lb);
  if (en->ld) lt->layout_destroy(en->ld);
  if (en->desc) lt->desc_destroy(en->desc);
  pthread_mutex_destroy(&en->use);
  free(en);
}

/* A layout of `type`, rows x cols column-major with leading dimension ld,
 * `batch` of them `stride` elements apart. */
static cublasStatus_t make_layout(const fr_cublaslt *lt,
                                  cublasLtMatrixLayout_t *out, int type,
                                  int64_t rows, int64_t cols, int64_t ld,
                                  int64_t batch, int64_t stride,
                                  const char **failed) {
  *failed = "cublasLtMatrixLayoutCreate";
  cublasStatus_t st =
      lt->layout_create(out, type, (uint64_t)rows, (uint64_t)cols, ld);
  if (st != CUBLAS_STATUS_SUCCESS || batch <= 1) return st;
  int32_t count = (int32_t)batch;
  *failed = "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)";
  st = lt->layout_set(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                      sizeof count);
  if (st != CUBLAS_STATUS_SUCCESS) return st;
  *failed = "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)";
  return lt->layout_set(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                        &stride, sizeof stride);
}

/* Creates the descriptor and the layouts of `g` and asks the heuristic for
 * an algorithm; a new entry for the cache. */
static fuser_error *build(const fr_cublaslt *lt, const fuser_gemm *g,
                          const int64_t *key, lt_entry **out) {
  char detail[512];
  describe(g, key, detail, sizeof detail);
  lt_entry *en = calloc(1, sizeof *en);
  if (!en)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of memory for a cuBLASLt descriptor");
  memcpy(en->key, key, sizeof en->key);
  pthread_mutex_init(&en->use, NULL);
  bool f64 = g->ab_dtype == FUSER_DTYPE_F64;
  bool ta = g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_A,
       tb = g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_B;
  int compute = f64 ? CUBLAS_COMPUTE_64F
                : g->flags & FUSER_BUNDLE_GEMM_FLAG_TF32
                    ? CUBLAS_COMPUTE_32F_FAST_TF32
                    : CUBLAS_COMPUTE_32F;
  int ab = cuda_type(g->ab_dtype), dt = cuda_type(g->d_dtype);
  const char *failed = "cublasLtMatmulDescCreate";
  cublasLtMatmulPreference_t pref = NULL;
  cublasStatus_t st =
      lt->desc_create(&en->desc, compute, f64 ? CUDA_R_64F : CUDA_R_32F);
  /* cuBLASLt's A is our B, its B our A: their transposes swap. */
  int32_t transa = tb ? CUBLAS_OP_T : CUBLAS_OP_N,
          transb = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
#define STEP(call, name)                                                     \
  if (st == CUBLAS_STATUS_SUCCESS) {                                         \
    failed = name;                                                           \
    st = (call);                                                             \
  }
  STEP(lt->desc_set(en->desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa,
                    sizeof transa),
       "cublasLtMatmulDescSetAttribute(TRANSA)");
  STEP(lt->desc_set(en->desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb,
                    sizeof transb),
       "cublasLtMatmulDescSetAttribute(TRANSB)");
  if (g->epilogue != FUSER_BUNDLE_GEMM_EPILOGUE_NONE) {
    /* The bundle's epilogue (bias bit, activation; a bias gradient, of our
     * A its B's, of our B its A's) as cuBLASLt's. */
    static const uint32_t lt_epilogue[] = {
        [FUSER_BUNDLE_GEMM_EPILOGUE_BIAS] = CUBLASLT_EPILOGUE_BIAS,
        [FUSER_BUNDLE_GEMM_EPILOGUE_RELU] = CUBLASLT_EPILOGUE_RELU,
        [FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_RELU] = CUBLASLT_EPILOGUE_RELU_BIAS,
        [FUSER_BUNDLE_GEMM_EPILOGUE_GELU] = CUBLASLT_EPILOGUE_GELU,
        [FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_GELU] = CUBLASLT_EPILOGUE_GELU_BIAS,
        [FUSER_BUNDLE_GEMM_EPILOGUE_GELU_AUX] = CUBLASLT_EPILOGUE_GELU_AUX,
        [FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_GELU_AUX] =
            CUBLASLT_EPILOGUE_GELU_AUX_BIAS,
        [FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A] = CUBLASLT_EPILOGUE_BGRADB,
        [FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B] = CUBLASLT_EPILOGUE_BGRADA};
    uint32_t epilogue = lt_epilogue[g->epilogue];
    STEP(lt->desc_set(en->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                      sizeof epilogue),
         "cublasLtMatmulDescSetAttribute(EPILOGUE)");
  }
  if (g->aux) {
    /* The pre-activation, laid out as D (cuBLASLt's D: n x m column-major
     * with ldd), D's dtype (cuBLASLt's default for GELU's input). */
    const void *aux = (const void *)(uintptr_t)g->aux;
    int64_t aux_ld = g->ldd, aux_stride = g->batch > 1 ? g->stride_d : 0;
    STEP(lt->desc_set(en->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux,
                      sizeof aux),
         "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_POINTER)");
    STEP(lt->desc_set(en->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld,
                      sizeof aux_ld),
         "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_LD)");
    STEP(lt->desc_set(en->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE,
                      &aux_stride, sizeof aux_stride),
         "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_BATCH_STRIDE)");
  }
  if (g->bias) {
    /* D's type, also for a bias gradient (which cuBLASLt writes there). */
    int32_t bias_type = dt;
    /* The heuristic reads the pointer's alignment; each call sets its own
     * (aligned as well: the key holds the alignment). */
    const void *bias = (const void *)(uintptr_t)g->bias;
    STEP(lt->desc_set(en->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                      &bias_type, sizeof bias_type),
         "cublasLtMatmulDescSetAttribute(BIAS_DATA_TYPE)");
    STEP(lt->desc_set(en->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                      sizeof bias),
         "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
  }
  /* Each stored matrix read column-major: rows and columns swapped. Ours
   * is B (k x n, or n x k with TRANS_B) for cuBLASLt's A; A (m x k, or
   * k x m) for its B; D (m x n) for its C and D. */
  if (st == CUBLAS_STATUS_SUCCESS)
    st = make_layout(lt, &en->la, ab, tb ? g->k : g->n, tb ? g->n : g->k,
                     g->ldb, g->batch, g->stride_b, &failed);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = make_layout(lt, &en->lb, ab, ta ? g->m : g->k, ta ? g->k : g->m,
                     g->lda, g->batch, g->stride_a, &failed);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = make_layout(lt, &en->ld, dt, g->n, g->m, g->ldd, g->batch,
                     g->stride_d, &failed);
  STEP(lt->pref_create(&pref), "cublasLtMatmulPreferenceCreate");
  uint64_t ws = g->workspace_bytes;
  uint32_t align[4] = {(uint32_t)key[15], (uint32_t)key[14],
                       (uint32_t)key[16], (uint32_t)key[16]};
  STEP(lt->pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                    sizeof ws),
       "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  STEP(lt->pref_set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                    &align[0], sizeof align[0]),
       "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT_A_BYTES)");
  STEP(lt->pref_set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                    &align[1], sizeof align[1]),
       "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT_B_BYTES)");
  STEP(lt->pref_set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                    &align[2], sizeof align[2]),
       "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT_C_BYTES)");
  STEP(lt->pref_set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                    &align[3], sizeof align[3]),
       "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT_D_BYTES)");
  cublasLtMatmulHeuristicResult_t result;
  memset(&result, 0, sizeof result);
  int found = 0;
  STEP(lt->heuristic(lt->handle, en->desc, en->la, en->lb, en->ld, en->ld,
                     pref, 1, &result, &found),
       "cublasLtMatmulAlgoGetHeuristic");
#undef STEP
  if (pref) lt->pref_destroy(pref);
  fuser_error *e = NULL;
  if (st != CUBLAS_STATUS_SUCCESS)
    e = lt_error(lt, st, failed, detail);
  else if (found < 1 || result.state != CUBLAS_STATUS_SUCCESS)
    e = fuser_error_create(FUSER_ERROR_DRIVER,
                           "cuBLASLt has no algorithm%s "
                           "(cublasLtMatmulAlgoGetHeuristic found none)",
                           detail);
  if (e) {
    entry_free(lt, en);
    return e;
  }
  en->algo = result.algo;
  *out = en;
  return NULL;
}

/* ---- the cache (lock held) ----------------------------------------------- */

static lt_entry *find(fr_cublaslt *lt, const int64_t *key, uint64_t hash) {
  for (lt_entry *en = lt->buckets[hash % LT_BUCKETS]; en; en = en->chain)
    if (en->hash == hash && memcmp(en->key, key, sizeof en->key) == 0)
      return en;
  return NULL;
}

static void unlink_recency(fr_cublaslt *lt, lt_entry *en) {
  if (en->newer) en->newer->older = en->older;
  else lt->newest = en->older;
  if (en->older) en->older->newer = en->newer;
  else lt->oldest = en->newer;
  en->newer = en->older = NULL;
}

static void push_newest(fr_cublaslt *lt, lt_entry *en) {
  en->older = lt->newest;
  en->newer = NULL;
  if (lt->newest) lt->newest->newer = en;
  lt->newest = en;
  if (!lt->oldest) lt->oldest = en;
}

/* Takes `en` out of the cache; returns it when nobody uses it (the caller
 * destroys it, outside the lock), else its last user will. */
static lt_entry *evict(fr_cublaslt *lt, lt_entry *en) {
  lt_entry **pp = &lt->buckets[en->hash % LT_BUCKETS];
  while (*pp != en) pp = &(*pp)->chain;
  *pp = en->chain;
  en->chain = NULL;
  unlink_recency(lt, en);
  en->cached = false;
  lt->count--;
  return en->refs == 0 ? en : NULL;
}

/* ---- running ------------------------------------------------------------- */

fuser_error *fr_cublaslt_gemm(fr_cublaslt *lt, const fuser_gemm *g,
                              void *stream) {
  fuser_error *e = lt_ready(lt);
  if (e) return e;
  if (g->batch > INT32_MAX)
    return fuser_error_create(FUSER_ERROR_OUT_OF_RANGE,
                              "batch %" PRId64 " is more than cuBLASLt's "
                              "batch count takes (2^31 - 1)",
                              g->batch);
  int64_t key[LT_KEY_WORDS];
  make_key(g, key);
  uint64_t hash = hash_key(key);

  pthread_mutex_lock(&lt->lock);
  lt_entry *en = find(lt, key, hash);
  if (en) {
    en->refs++;
    unlink_recency(lt, en);
    push_newest(lt, en);
  }
  pthread_mutex_unlock(&lt->lock);
  if (!en) {
    /* Outside the lock: the heuristic takes its time. Another thread may
     * build the same entry meanwhile; the first one in is kept. */
    lt_entry *fresh = NULL, *dead = NULL;
    if ((e = build(lt, g, key, &fresh))) return e;
    fresh->hash = hash;
    pthread_mutex_lock(&lt->lock);
    en = find(lt, key, hash);
    if (en) {
      en->refs++;
    } else {
      en = fresh;
      fresh = NULL;
      en->refs = 1;
      en->cached = true;
      en->chain = lt->buckets[hash % LT_BUCKETS];
      lt->buckets[hash % LT_BUCKETS] = en;
      lt->count++;
      if (lt->count > LT_CACHE_CAP) dead = evict(lt, lt->oldest);
      push_newest(lt, en);
    }
    pthread_mutex_unlock(&lt->lock);
    entry_free(lt, fresh);
    entry_free(lt, dead);
  }

  static const float one_f = 1.0f, zero_f = 0.0f;
  static const double one_d = 1.0, zero_d = 0.0;
  bool f64 = g->ab_dtype == FUSER_DTYPE_F64;
  const void *alpha = f64 ? (const void *)&one_d : (const void *)&one_f;
  const void *beta = f64 ? (const void *)&zero_d : (const void *)&zero_f;
  void *d = (void *)(uintptr_t)g->d;
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  const char *failed = "cublasLtMatmul";
  bool pointers = g->bias || g->aux;
  if (pointers) pthread_mutex_lock(&en->use);
  if (g->bias) {
    /* This call's bias (or bias gradient) on the shared descriptor, until
     * it is enqueued. */
    const void *bias = (const void *)(uintptr_t)g->bias;
    failed = "cublasLtMatmulDescSetAttribute(BIAS_POINTER)";
    st = lt->desc_set(en->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                      sizeof bias);
  }
  if (g->aux && st == CUBLAS_STATUS_SUCCESS) {
    /* ...and its pre-activation's buffer. */
    const void *aux = (const void *)(uintptr_t)g->aux;
    failed = "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_POINTER)";
    st = lt->desc_set(en->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                      &aux, sizeof aux);
  }
  if (st == CUBLAS_STATUS_SUCCESS) {
    failed = "cublasLtMatmul";
    /* cuBLASLt's A is our B and its B our A; C is D (beta is 0). */
    st = lt->matmul(lt->handle, en->desc, alpha, (const void *)(uintptr_t)g->b,
                    en->la, (const void *)(uintptr_t)g->a, en->lb, beta, d,
                    en->ld, d, en->ld, &en->algo,
                    (void *)(uintptr_t)g->workspace,
                    (size_t)g->workspace_bytes, stream);
  }
  if (pointers) pthread_mutex_unlock(&en->use);
  if (st != CUBLAS_STATUS_SUCCESS) {
    char detail[512];
    describe(g, key, detail, sizeof detail);
    e = lt_error(lt, st, failed, detail);
  }

  pthread_mutex_lock(&lt->lock);
  bool last = --en->refs == 0 && !en->cached;
  pthread_mutex_unlock(&lt->lock);
  if (last) entry_free(lt, en);
  return e;
}

void fr_cublaslt_destroy(fr_cublaslt *lt) {
  if (!lt) return;
  /* No call is running (fuser_rt_destroy does not race with them): every
   * entry is in the cache. */
  for (int b = 0; b < LT_BUCKETS; b++)
    while (lt->buckets[b]) {
      lt_entry *en = lt->buckets[b];
      lt->buckets[b] = en->chain;
      entry_free(lt, en);
    }
  if (lt->lib) {
    lt->destroy(lt->handle);
    dlclose(lt->lib);
  }
  pthread_mutex_destroy(&lt->lock);
  free(lt);
}
