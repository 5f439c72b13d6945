/* GEMM (a matmul through the driver's library; cuBLASLt on CUDA): the
 * loader's checks of the instruction and its record (one refusal each, with
 * its message); the exact cuBLASLt calls of the CUDA backend, through the
 * fake CUDA driver and the fake cuBLASLt, which computes each matmul in
 * cuBLASLt's column-major terms, so that every result is checked against a
 * row-major reference; bias gradients (BGRAD_A, BGRAD_B: the gradient
 * the fake computes, checked against exact sums); the descriptor cache;
 * empty GEMMs; k = 0; the library's errors; the run-time checks (before
 * anything is launched); user scratch; pluggable drivers with and without
 * a gemm entry; random corruptions of GEMM bundles, run on a driver that
 * checks that every GEMM stays inside its buffers; and GEMMs from several
 * threads.
 *
 * usage: test_gemm FAKE_CUDA_PATH FAKE_CUBLASLT_PATH */
#define _POSIX_C_SOURCE 200809L
#include "fp16.h"
#include "testlib.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fake, *fake_lt;

enum { F16 = 5, BF16 = 6, F32 = 7, F64 = 8, I32 = 3 };
#define TRANS_A FUSER_BUNDLE_GEMM_FLAG_TRANS_A
#define TRANS_B FUSER_BUNDLE_GEMM_FLAG_TRANS_B
#define TF32 FUSER_BUNDLE_GEMM_FLAG_TF32
#define WS "33554432" /* FUSER_GEMM_WORKSPACE_BYTES */

static const char ptx[] =
    ".version 7.8\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 .ptr p) { ret; }\n";

/* ---- the fusion of a case ------------------------------------------------ */

/* A GEMM case in the row-major terms of the GEMM record. */
typedef struct gcase {
  uint8_t ab, dd, flags;
  bool bias;
  int64_t m, n, k, batch, lda, ldb, ldd, sa, sb, sd;
  /* Elements of each buffer; 0: what the GEMM reaches (n for the bias). */
  int64_t na, nb, nd, nbias;
  bool launches;   /* LAUNCH k(d) before and after the GEMM */
  bool dyn_a;      /* a's size is dynamic dim 0 */
  int64_t d_inter; /* > 0: D is an intermediate of that many bytes */
  uint8_t act;     /* the epilogue's activation: 0, or EPILOGUE_RELU, _GELU */
  bool aux;        /* with _GELU: result "aux" gets the pre-activation */
  /* 0, or EPILOGUE_BGRAD_A or _BGRAD_B (then no bias, act or aux): result
   * "db", after d and aux, gets the bias gradient (nbias elements; 0: m
   * for BGRAD_A, n for BGRAD_B). */
  uint8_t bgrad;
} gcase;
#define BGRAD_A FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A
#define BGRAD_B FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B

static size_t esize(uint8_t t) {
  return fuser_dtype_size((fuser_dtype)t);
}

/* Elements from the start of a matrix to its last one, plus one. */
static int64_t reach(int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                     int64_t stride) {
  if (!rows || !cols || !batch) return 0;
  return (batch - 1) * stride + (rows - 1) * ld + cols;
}

static int64_t elems_a(const gcase *c) {
  bool t = c->flags & TRANS_A;
  return c->na ? c->na
               : reach(t ? c->k : c->m, t ? c->m : c->k, c->lda, c->batch, c->sa);
}
static int64_t elems_b(const gcase *c) {
  bool t = c->flags & TRANS_B;
  return c->nb ? c->nb
               : reach(t ? c->n : c->k, t ? c->k : c->n, c->ldb, c->batch, c->sb);
}
static int64_t elems_d(const gcase *c) {
  return c->nd ? c->nd : reach(c->m, c->n, c->ldd, c->batch, c->sd);
}
static int64_t elems_bias(const gcase *c) {
  return c->nbias ? c->nbias : c->bgrad == BGRAD_A ? c->m : c->n;
}

/* "mm": arguments a, b (and bias), result d (or an intermediate D, after
 * the results), then aux, then db (a bias gradient), each
 * rank 1 with the elements it needs; r0..r9 are m, n, k, batch, lda, ldb,
 * ldd, stride_a, stride_b, stride_d (CONSTs, instructions 0..9), r10 = 1
 * and r11 = 0 (grid, block, shared memory of the launches), r12 the bytes
 * of an intermediate D. The GEMM is instruction 12; 13 after a LAUNCH; 14
 * after the CONST and ALLOC of an intermediate D. */
static void mm_bundle(bw_bundle *bb, const gcase *c) {
  memset(bb, 0, sizeof *bb);
  bb->num_modules = 1;
  bb->modules[0] = (bw_module){"mm_ptx", 1, ptx, 90, 78};
  bb->num_fusions = 1;
  bw_fusion *f = &bb->fusions[0];
  f->name = "mm";
  f->num_args = c->bias ? 3 : 2;
  f->num_results = (c->d_inter ? 0 : 1) + (c->aux ? 1 : 0) + (c->bgrad ? 1 : 0);
  f->num_inter = c->d_inter ? 1 : 0;
  f->num_regs = 13;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"a", c->ab, 1, {c->dyn_a ? -1 : elems_a(c)}};
  f->tensors[1] = (bw_tensor){"b", c->ab, 1, {elems_b(c)}};
  if (c->bias) f->tensors[2] = (bw_tensor){"bias", c->dd, 1, {elems_bias(c)}};
  uint32_t d = f->num_args + (c->d_inter ? f->num_results : 0);
  if (!c->d_inter) f->tensors[d] = (bw_tensor){"d", c->dd, 1, {elems_d(c)}};
  uint32_t aux = f->num_args + (c->d_inter ? 0 : 1);
  if (c->aux) f->tensors[aux] = (bw_tensor){"aux", c->dd, 1, {elems_d(c)}};
  uint32_t db = aux + (c->aux ? 1 : 0);
  if (c->bgrad) f->tensors[db] = (bw_tensor){"db", c->dd, 1, {elems_bias(c)}};
  const int64_t v[10] = {c->m,   c->n,   c->k,  c->batch, c->lda,
                         c->ldb, c->ldd, c->sa, c->sb,    c->sd};
  uint32_t n = 0;
  for (uint32_t r = 0; r < 10; r++) f->instrs[n++] = bw_const(r, v[r]);
  f->instrs[n++] = bw_const(10, 1);
  f->instrs[n++] = bw_const(11, 0);
  if (c->d_inter) {
    f->instrs[n++] = bw_const(12, c->d_inter);
    f->instrs[n++] = bw_op(BW_ALLOC, 0, d, 12);
  }
  if (c->launches) f->instrs[n++] = bw_op(BW_LAUNCH, 0, 0, BW_NONE);
  f->instrs[n++] = bw_gemm_op(0);
  if (c->launches) f->instrs[n++] = bw_op(BW_LAUNCH, 0, 0, BW_NONE);
  f->num_instrs = n;
  f->num_launches = 1;
  f->launches[0] = (bw_launch){"k", 1, {{BW_PTR, d}}, {10, 10, 10},
                               {10, 10, 10}, 11};
  f->num_gemms = 1;
  f->gemms[0] = (bw_gemm){0, 1, d, c->bias ? 2 : c->bgrad ? db : BW_NONE, 0, 1,
                          2, 3, 4, 5, 6, 7, 8, 9, c->ab, c->dd, c->flags,
                          (uint8_t)((c->bias ? FUSER_BUNDLE_GEMM_EPILOGUE_BIAS
                                             : FUSER_BUNDLE_GEMM_EPILOGUE_NONE) |
                                    c->act |
                                    (c->aux ? FUSER_BUNDLE_GEMM_EPILOGUE_AUX : 0) |
                                    c->bgrad),
                          c->aux ? aux : 0};
}

/* ---- values and the reference ---------------------------------------------- */

static double get(uint8_t t, const unsigned char *p, int64_t i) {
  switch (t) {
  case F64: {
    double v;
    memcpy(&v, p + 8 * i, 8);
    return v;
  }
  case F32: {
    float v;
    memcpy(&v, p + 4 * i, 4);
    return v;
  }
  default: {
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    return t == F16 ? fp_half_to_float(h) : fp_bf16_to_float(h);
  }
  }
}

static void put(uint8_t t, unsigned char *p, int64_t i, double v) {
  switch (t) {
  case F64: memcpy(p + 8 * i, &v, 8); break;
  case F32: {
    float f = (float)v;
    memcpy(p + 4 * i, &f, 4);
    break;
  }
  default: {
    uint16_t h = t == F16 ? fp_float_to_half((float)v) : fp_float_to_bf16((float)v);
    memcpy(p + 2 * i, &h, 2);
  }
  }
}

/* Halves in [-2, 2]: sums of a few products of them are exact in every
 * dtype, so results compare bit for bit. With `fine`, f32 values with bits
 * below TF32's mantissa (the TF32 case). */
static double value(int64_t i, int seed, bool fine) {
  double v = (double)((i * 7 + seed * 5 + 3) % 9 - 4) * 0.5;
  return fine ? v + (double)((i + seed) % 5 + 1) / 8192.0 : v;
}

/* D[b, i, j] of the case, as the GEMM record defines it. */
static double reference(const gcase *c, const unsigned char *A,
                        const unsigned char *B, const unsigned char *bias,
                        int64_t b, int64_t i, int64_t j) {
  bool ta = c->flags & TRANS_A, tb = c->flags & TRANS_B,
       tf32 = c->flags & TF32;
  float accf = 0.0f;
  double accd = 0.0;
  for (int64_t l = 0; l < c->k; l++) {
    double x = get(c->ab, A, b * c->sa + (ta ? l * c->lda + i : i * c->lda + l));
    double y = get(c->ab, B, b * c->sb + (tb ? j * c->ldb + l : l * c->ldb + j));
    if (tf32) {
      x = fp_round_tf32((float)x);
      y = fp_round_tf32((float)y);
    }
    if (c->ab == F64)
      accd += x * y;
    else
      accf += (float)x * (float)y;
  }
  if (c->ab == F64) {
    double v = bias ? accd + get(c->dd, bias, j) : accd;
    if (c->act == FUSER_BUNDLE_GEMM_EPILOGUE_RELU) v = v < 0 ? 0.0 : v;
    if (c->act == FUSER_BUNDLE_GEMM_EPILOGUE_GELU)
      v = 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    return v;
  }
  float v = bias ? accf + (float)get(c->dd, bias, j) : accf;
  if (c->act == FUSER_BUNDLE_GEMM_EPILOGUE_RELU) v = v < 0 ? 0.0f : v;
  if (c->act == FUSER_BUNDLE_GEMM_EPILOGUE_GELU)
    v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  return (double)v;
}

/* Element r of the case's bias gradient, as the GEMM record defines it:
 * the sum over l < k of opA(A)[r, l] (BGRAD_A) or opB(B)[l, r] (BGRAD_B),
 * in the accumulation type, in order of l (put rounds it once). */
static double grad_reference(const gcase *c, const unsigned char *A,
                             const unsigned char *B, int64_t r) {
  bool ta = c->flags & TRANS_A, tb = c->flags & TRANS_B;
  float accf = 0.0f;
  double accd = 0.0;
  for (int64_t l = 0; l < c->k; l++) {
    double x = c->bgrad == BGRAD_A
                   ? get(c->ab, A, ta ? l * c->lda + r : r * c->lda + l)
                   : get(c->ab, B, tb ? r * c->ldb + l : l * c->ldb + r);
    if (c->ab == F64)
      accd += x;
    else
      accf += (float)x;
  }
  return c->ab == F64 ? accd : (double)accf;
}

/* ---- running a case on the fake CUDA driver and the fake cuBLASLt ------- */

typedef struct mm {
  fuser_rt *rt;
  fuser_bundle *b;
  const fuser_fusion *f;
  uint64_t dev[5]; /* a, b, bias (or db), d, aux (0 when there is none) */
  size_t bytes[5];
  unsigned char *host[5];
} mm;

/* Loads the case's fusion (module loaded), allocates a, b, bias (or the
 * bias gradient db) and d in that order (buf0, buf1, buf2, buf3 in the
 * fake's log, d buf2 without either), fills the inputs, and the outputs
 * (D, aux, db) with 0xff bytes (NaN), and clears the log. */
static bool mm_setup(mm *s, const gcase *c, fuser_rt *rt) {
  memset(s, 0, sizeof *s);
  s->rt = rt;
  if (!rt) return false;
  bw_bundle bb;
  mm_bundle(&bb, c);
  size_t size;
  unsigned char *bytes = bw_write(&bb, &size, NULL);
  bool ok = EXPECT_OK(fuser_bundle_load(rt, bytes, size, &s->b));
  free(bytes);
  if (!ok) return false;
  s->f = fuser_bundle_find_fusion(s->b, "mm");
  EXPECT_OK(fuser_fusion_prepare(s->f));
  int64_t n[5] = {elems_a(c), elems_b(c),
                  c->bias || c->bgrad ? elems_bias(c) : 0,
                  c->d_inter ? 0 : elems_d(c), c->aux ? elems_d(c) : 0};
  uint8_t t[5] = {c->ab, c->ab, c->dd, c->dd, c->dd};
  for (int q = 0; q < 5; q++) {
    if (q == 2 && !c->bias && !c->bgrad) continue;
    if (q == 3 && c->d_inter) continue;
    if (q == 4 && !c->aux) continue;
    s->bytes[q] = (size_t)n[q] * esize(t[q]);
    s->host[q] = malloc(s->bytes[q] + 1);
    for (int64_t i = 0; i < n[q]; i++)
      put(t[q], s->host[q], i, value(i, q, q < 2 && (c->flags & TF32)));
    if (q >= 3 || (q == 2 && c->bgrad)) memset(s->host[q], 0xff, s->bytes[q]);
    EXPECT_OK(fuser_mem_alloc(rt, s->bytes[q] ? s->bytes[q] : 1, &s->dev[q]));
    EXPECT_OK(fuser_mem_copy_h2d(rt, s->dev[q], s->host[q], s->bytes[q]));
  }
  tl_log_clear();
  return true;
}

static fuser_error *mm_run(const mm *s, const gcase *c, void *stream,
                           const fuser_run_options *ro) {
  uint64_t args[3] = {s->dev[0], s->dev[1], s->dev[2]};
  int64_t dims[1] = {elems_a(c)};
  uint64_t results[3];
  size_t nr = 0;
  if (!c->d_inter) results[nr++] = s->dev[3];
  if (c->aux) results[nr++] = s->dev[4];
  if (c->bgrad) results[nr++] = s->dev[2];
  return fuser_run(s->f, args, nr ? results : NULL, dims, c->dyn_a ? 1 : 0,
                   stream, ro);
}

/* D (q 3), or the pre-activation (q 4), read back against the reference;
 * the elements between its rows and batches (ldd > n) untouched. */
static void mm_check_one(const mm *s, const gcase *given, const char *what, int q) {
  gcase pre = *given;
  if (q == 4) pre.act = 0; /* the activation's input */
  const gcase *c = &pre;
  size_t bytes = s->bytes[q];
  unsigned char *d = malloc(bytes + 1), *want = malloc(bytes + 1);
  EXPECT_OK(fuser_mem_copy_d2h(s->rt, d, s->dev[q], bytes));
  memset(want, 0xff, bytes);
  for (int64_t b = 0; b < c->batch; b++)
    for (int64_t i = 0; i < c->m; i++)
      for (int64_t j = 0; j < c->n; j++)
        put(c->dd, want, b * c->sd + i * c->ldd + j,
            reference(c, s->host[0], s->host[1], c->bias ? s->host[2] : NULL,
                      b, i, j));
  size_t es = esize(c->dd), bad = 0;
  for (size_t e = 0; e < bytes / es; e++)
    if (memcmp(d + e * es, want + e * es, es) != 0) {
      if (bad++ < 4)
        fprintf(stderr, "%s: %s element %zu is %g, expected %g\n", what,
                q == 4 ? "AUX" : "D", e, get(c->dd, d, (int64_t)e),
                get(c->dd, want, (int64_t)e));
    }
  if (!CHECK(bad == 0))
    fprintf(stderr, "%s: %zu elements of %s wrong\n", what, bad, q == 4 ? "AUX" : "D");
  free(d);
  free(want);
}

/* The bias gradient (q 2) read back against grad_reference, and against
 * `exact` (its values worked out by hand) unless NULL; the elements past
 * its m or n untouched. */
static void mm_check_grad(const mm *s, const gcase *c, const char *what,
                          const double *exact) {
  size_t bytes = s->bytes[2], es = esize(c->dd), bad = 0;
  int64_t count = c->bgrad == BGRAD_A ? c->m : c->n;
  unsigned char *g = malloc(bytes + 1), *want = malloc(bytes + 1);
  EXPECT_OK(fuser_mem_copy_d2h(s->rt, g, s->dev[2], bytes));
  memset(want, 0xff, bytes);
  for (int64_t r = 0; r < count; r++)
    put(c->dd, want, r, grad_reference(c, s->host[0], s->host[1], r));
  for (size_t e = 0; e < bytes / es; e++)
    if (memcmp(g + e * es, want + e * es, es) != 0 ||
        (exact && (int64_t)e < count && get(c->dd, g, (int64_t)e) != exact[e])) {
      if (bad++ < 4)
        fprintf(stderr, "%s: bias gradient element %zu is %g, expected %g\n",
                what, e, get(c->dd, g, (int64_t)e),
                exact && (int64_t)e < count ? exact[e]
                                            : get(c->dd, want, (int64_t)e));
    }
  if (!CHECK(bad == 0))
    fprintf(stderr, "%s: %zu elements of the bias gradient wrong\n", what, bad);
  free(g);
  free(want);
}

static void mm_check(const mm *s, const gcase *c, const char *what) {
  mm_check_one(s, c, what, 3);
  if (c->aux) mm_check_one(s, c, what, 4);
  if (c->bgrad) mm_check_grad(s, c, what, NULL);
}

static void mm_down(mm *s) {
  for (int q = 0; q < 5; q++) {
    if (s->dev[q]) EXPECT_OK(fuser_mem_free(s->rt, s->dev[q]));
    free(s->host[q]);
  }
  fuser_bundle_destroy(s->b);
  fuser_rt_destroy(s->rt);
  CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_live") == 0);
  CHECK(tl_fake_hook(fake, "fuser_fake_live_allocations") <= 0);
  tl_log_clear();
}

/* The preference and the heuristic of the first entry, with the operands'
 * alignments (cuBLASLt's A is our B, its C and D our D). */
#define PREF_AND_HEURISTIC(a, b, d)                                          \
  "cublasLtMatmulPreferenceCreate -> pref0",                                 \
      "cublasLtMatmulPreferenceSetAttribute pref0 MAX_WORKSPACE_BYTES=" WS,  \
      "cublasLtMatmulPreferenceSetAttribute pref0 MIN_ALIGNMENT_A_BYTES=" #a, \
      "cublasLtMatmulPreferenceSetAttribute pref0 MIN_ALIGNMENT_B_BYTES=" #b, \
      "cublasLtMatmulPreferenceSetAttribute pref0 MIN_ALIGNMENT_C_BYTES=" #d, \
      "cublasLtMatmulPreferenceSetAttribute pref0 MIN_ALIGNMENT_D_BYTES=" #d, \
      "cublasLtMatmulAlgoGetHeuristic lt0 desc0 A=layout0 B=layout1 "        \
      "C=layout2 D=layout2 pref0 requested=1 -> 1",                          \
      "cublasLtMatmulPreferenceDestroy pref0"

/* Runs the case twice on stream 0x42: the first call's log must be
 * `first` (NULL-terminated), the second only `again` (the cached matmul,
 * after the bias pointer of a bias gradient), and D (and the gradient)
 * the reference both times, and `exact` with a gradient (unless NULL). */
static void run_case_exact(const char *what, const gcase *c,
                           const char *const *first,
                           const char *const *again, const double *exact) {
  mm s;
  if (!mm_setup(&s, c, tl_fake_rt(fake))) {
    mm_down(&s);
    return;
  }
  void *stream = (void *)(uintptr_t)0x42;
  if (EXPECT_OK(mm_run(&s, c, stream, NULL))) {
    if (!tl_expect_log(__FILE__, __LINE__, first))
      fprintf(stderr, "  (case %s)\n", what);
    mm_check(&s, c, what);
    if (c->bgrad && exact) mm_check_grad(&s, c, what, exact);
  }
  long creates = tl_fake_hook(fake_lt, "fuser_fake_cublaslt_creates");
  memset(s.host[3], 0xff, s.bytes[3]);
  EXPECT_OK(fuser_mem_copy_h2d(s.rt, s.dev[3], s.host[3], s.bytes[3]));
  if (c->bgrad) { /* written again, not left from the first run */
    memset(s.host[2], 0xff, s.bytes[2]);
    EXPECT_OK(fuser_mem_copy_h2d(s.rt, s.dev[2], s.host[2], s.bytes[2]));
  }
  tl_log_clear();
  if (EXPECT_OK(mm_run(&s, c, stream, NULL))) {
    if (!tl_expect_log(__FILE__, __LINE__, again))
      fprintf(stderr, "  (case %s, second run)\n", what);
    mm_check(&s, c, what);
    if (c->bgrad && exact) mm_check_grad(&s, c, what, exact);
  }
  /* The cache: a second run creates no descriptor, layout or preference. */
  CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_creates") == creates);
  mm_down(&s);
}
#define RUN_CASE(what, c, again, ...)                                        \
  run_case_exact(what, c, (const char *const[]){__VA_ARGS__, NULL},        \
                 (const char *const[]){again, NULL}, NULL)

/* ---- the exact cuBLASLt calls ----------------------------------------------- */

static void test_calls(void) {
  /* D (3 x 5) = A (3 x 4) @ B (4 x 5), f32. cuBLASLt computes D^T (5 x 3)
   * = B^T (5 x 4) @ A^T (4 x 3): its A is our B (buf1), its B our A
   * (buf0), neither transposed. */
  gcase plain = {F32, F32, 0, false, 3, 5, 4, 1, 4, 5, 5, 0, 0, 0, 0, 0, 0, 0,
                 false, false, 0, 0, false, 0};
  RUN_CASE("plain", &plain,
           "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
           "beta=0 C=buf2 layout2 D=buf2 layout2 workspace=buf3 bytes=" WS
           " stream=0x42",
           "cuMemAlloc_v2 bytes=" WS " -> buf3",
           "cublasLtCreate -> lt0",
           "cublasLtMatmulDescCreate compute=68 scale=0 -> desc0",
           "cublasLtMatmulDescSetAttribute desc0 TRANSA=0",
           "cublasLtMatmulDescSetAttribute desc0 TRANSB=0",
           "cublasLtMatrixLayoutCreate type=0 rows=5 cols=4 ld=5 -> layout0",
           "cublasLtMatrixLayoutCreate type=0 rows=4 cols=3 ld=4 -> layout1",
           "cublasLtMatrixLayoutCreate type=0 rows=5 cols=3 ld=5 -> layout2",
           PREF_AND_HEURISTIC(256, 256, 256),
           "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
           "beta=0 C=buf2 layout2 D=buf2 layout2 workspace=buf3 bytes=" WS
           " stream=0x42");

  /* A stored k x m (4 x 3, lda 3): cuBLASLt's B, read column-major as
   * 3 x 4, transposed (TRANSB). */
  gcase ta = plain;
  ta.flags = TRANS_A;
  ta.lda = 3;
  RUN_CASE("TRANS_A", &ta,
           "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
           "beta=0 C=buf2 layout2 D=buf2 layout2 workspace=buf3 bytes=" WS
           " stream=0x42",
           "cuMemAlloc_v2 bytes=" WS " -> buf3", "cublasLtCreate -> lt0",
           "cublasLtMatmulDescCreate compute=68 scale=0 -> desc0",
           "cublasLtMatmulDescSetAttribute desc0 TRANSA=0",
           "cublasLtMatmulDescSetAttribute desc0 TRANSB=1",
           "cublasLtMatrixLayoutCreate type=0 rows=5 cols=4 ld=5 -> layout0",
           "cublasLtMatrixLayoutCreate type=0 rows=3 cols=4 ld=3 -> layout1",
           "cublasLtMatrixLayoutCreate type=0 rows=5 cols=3 ld=5 -> layout2",
           PREF_AND_HEURISTIC(256, 256, 256),
           "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
           "beta=0 C=buf2 layout2 D=buf2 layout2 workspace=buf3 bytes=" WS
           " stream=0x42");

  /* A linear layer's weight: B stored n x k (5 x 4, ldb 4), cuBLASLt's A
   * read column-major as 4 x 5, transposed (TRANSA). */
  gcase tb = plain;
  tb.flags = TRANS_B;
  tb.ldb = 4;
  RUN_CASE("TRANS_B", &tb,
           "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
           "beta=0 C=buf2 layout2 D=buf2 layout2 workspace=buf3 bytes=" WS
           " stream=0x42",
           "cuMemAlloc_v2 bytes=" WS " -> buf3",
           "cublasLtCreate -> lt0",
           "cublasLtMatmulDescCreate compute=68 scale=0 -> desc0",
           "cublasLtMatmulDescSetAttribute desc0 TRANSA=1",
           "cublasLtMatmulDescSetAttribute desc0 TRANSB=0",
           "cublasLtMatrixLayoutCreate type=0 rows=4 cols=5 ld=4 -> layout0",
           "cublasLtMatrixLayoutCreate type=0 rows=4 cols=3 ld=4 -> layout1",
           "cublasLtMatrixLayoutCreate type=0 rows=5 cols=3 ld=5 -> layout2",
           PREF_AND_HEURISTIC(256, 256, 256),
           "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
           "beta=0 C=buf2 layout2 D=buf2 layout2 workspace=buf3 bytes=" WS
           " stream=0x42");
}

/* The cases whose first log is checked through its distinctive lines; the
 * rest (allocation, handle, preference, heuristic) is what test_calls
 * pinned. */
static void expect_lines(const char *what, const char *const *want) {
  char **got;
  size_t n = tl_log_read(&got), k = 0;
  for (size_t i = 0; i < n && want[k]; i++)
    if (strcmp(got[i], want[k]) == 0) k++;
  if (want[k]) {
    fprintf(stderr, "test_gemm.c: case %s: the log lacks (in order) \"%s\"; "
                    "it has:\n", what, want[k]);
    for (size_t i = 0; i < n; i++) fprintf(stderr, "    %s\n", got[i]);
    tl_failures++;
  }
  tl_lines_free(got, n);
  tl_log_clear();
}

/* Runs the case once on stream 0x42, checks the lines (in order, among
 * others) and D (and a bias gradient, also against `exact` unless NULL),
 * then once more: only the matmul again. */
static void run_lines_exact(const char *what, const gcase *c,
                            const char *const *want, const double *exact) {
  mm s;
  if (!mm_setup(&s, c, tl_fake_rt(fake))) {
    mm_down(&s);
    return;
  }
  void *stream = (void *)(uintptr_t)0x42;
  if (EXPECT_OK(mm_run(&s, c, stream, NULL))) {
    expect_lines(what, want);
    mm_check(&s, c, what);
    if (c->bgrad && exact) mm_check_grad(&s, c, what, exact);
  }
  long creates = tl_fake_hook(fake_lt, "fuser_fake_cublaslt_creates");
  if (c->bgrad) { /* written again, not left from the first run */
    memset(s.host[2], 0xff, s.bytes[2]);
    EXPECT_OK(fuser_mem_copy_h2d(s.rt, s.dev[2], s.host[2], s.bytes[2]));
  }
  if (EXPECT_OK(mm_run(&s, c, stream, NULL))) {
    mm_check(&s, c, what);
    if (c->bgrad && exact) mm_check_grad(&s, c, what, exact);
  }
  CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_creates") == creates);
  /* The matmul, and this call's bias (or bias gradient) and pre-activation
   * pointers set on the cached descriptor. */
  CHECK(tl_log_count("cublasLtMatmul ") == 1 &&
        tl_log_count("cublasLt") ==
            1u + (c->bias || c->bgrad ? 1u : 0u) + (c->aux ? 1u : 0u));
  tl_log_clear();
  mm_down(&s);
}
#define RUN_LINES(what, c, ...)                                              \
  run_lines_exact(what, c, (const char *const[]){__VA_ARGS__, NULL}, NULL)
#define RUN_LINES_EXACT(what, c, exact, ...)                                 \
  run_lines_exact(what, c, (const char *const[]){__VA_ARGS__, NULL}, exact)

static void test_more_calls(void) {
  /* Batched, A broadcast (stride 0): 3 x (2 x 3 = 2 x 4 @ 4 x 3). */
  gcase batched = {F32, F32, 0, false, 2, 3, 4, 3, 4, 3, 3, 0, 12, 6, 0, 0, 0,
                   0, false, false, 0, 0, false, 0};
  RUN_LINES("batched", &batched,
            "cublasLtMatrixLayoutCreate type=0 rows=3 cols=4 ld=3 -> layout0",
            "cublasLtMatrixLayoutSetAttribute layout0 BATCH_COUNT=3",
            "cublasLtMatrixLayoutSetAttribute layout0 STRIDED_BATCH_OFFSET=12",
            "cublasLtMatrixLayoutCreate type=0 rows=4 cols=2 ld=4 -> layout1",
            "cublasLtMatrixLayoutSetAttribute layout1 BATCH_COUNT=3",
            "cublasLtMatrixLayoutSetAttribute layout1 STRIDED_BATCH_OFFSET=0",
            "cublasLtMatrixLayoutCreate type=0 rows=3 cols=2 ld=3 -> layout2",
            "cublasLtMatrixLayoutSetAttribute layout2 BATCH_COUNT=3",
            "cublasLtMatrixLayoutSetAttribute layout2 STRIDED_BATCH_OFFSET=6",
            "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
            "beta=0 C=buf2 layout2 D=buf2 layout2 workspace=buf3 bytes=" WS
            " stream=0x42");
  /* A batched B broadcast, and D's rows 7 apart (gaps left alone). */
  gcase bcast_b = {F32, F32, 0, false, 2, 3, 4, 2, 4, 3, 7, 8, 0, 14, 0, 0, 0,
                   0, false, false, 0, 0, false, 0};
  RUN_LINES("batched, B broadcast, strided D", &bcast_b,
            "cublasLtMatrixLayoutSetAttribute layout0 STRIDED_BATCH_OFFSET=0",
            "cublasLtMatrixLayoutCreate type=0 rows=3 cols=2 ld=7 -> layout2",
            "cublasLtMatrixLayoutSetAttribute layout2 STRIDED_BATCH_OFFSET=14");
  /* A linear layer: f16, x @ w^T + bias, bias and D f16. */
  gcase linear = {F16, F16, TRANS_B, true, 4, 3, 5, 1, 5, 5, 3, 0, 0, 0, 0, 0,
                  0, 0, false, false, 0, 0, false, 0};
  RUN_LINES("f16 linear with bias", &linear,
            "cublasLtMatmulDescCreate compute=68 scale=0 -> desc0",
            "cublasLtMatmulDescSetAttribute desc0 TRANSA=1",
            "cublasLtMatmulDescSetAttribute desc0 TRANSB=0",
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=4",
            "cublasLtMatmulDescSetAttribute desc0 BIAS_DATA_TYPE=2",
            "cublasLtMatmulDescSetAttribute desc0 BIAS_POINTER=buf2",
            "cublasLtMatrixLayoutCreate type=2 rows=5 cols=3 ld=5 -> layout0",
            "cublasLtMatrixLayoutCreate type=2 rows=5 cols=4 ld=5 -> layout1",
            "cublasLtMatrixLayoutCreate type=2 rows=3 cols=4 ld=3 -> layout2",
            "cublasLtMatmulDescSetAttribute desc0 BIAS_POINTER=buf2",
            "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
            "beta=0 C=buf3 layout2 D=buf3 layout2 workspace=buf4 bytes=" WS
            " stream=0x42");
  /* Activations after the bias, before the one rounding (the fake computes
   * them as the reference does: relu keeps -0 and NaN, gelu is tanh's
   * approximation in f32). */
  gcase relu_bias = linear;
  relu_bias.ab = relu_bias.dd = F32;
  relu_bias.act = FUSER_BUNDLE_GEMM_EPILOGUE_RELU;
  RUN_LINES("bias and relu", &relu_bias,
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=6",
            "cublasLtMatmulDescSetAttribute desc0 BIAS_DATA_TYPE=0");
  gcase relu = relu_bias;
  relu.bias = false;
  RUN_LINES("relu", &relu, "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=2",
            "cublasLtMatrixLayoutCreate type=0 rows=5 cols=3 ld=5 -> layout0");
  gcase gelu_bias = linear;
  gelu_bias.ab = gelu_bias.dd = BF16;
  gelu_bias.act = FUSER_BUNDLE_GEMM_EPILOGUE_GELU;
  RUN_LINES("bias and gelu", &gelu_bias,
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=36",
            "cublasLtMatmulDescSetAttribute desc0 BIAS_DATA_TYPE=14");
  gcase gelu = gelu_bias;
  gelu.bias = false;
  gelu.dd = F32;
  RUN_LINES("gelu", &gelu, "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=32");
  /* The pre-activation kept (GELU_AUX_BIAS): result "aux" (buf4) laid out
   * as D, its leading dimension D's (a multiple of 8, as cuBLASLt
   * requires); the fake computes both, the test compares both. */
  gcase gelu_aux = {F32, F32, TRANS_B, true, 3, 8, 5, 1, 5, 5, 8, 0, 0, 0, 0, 0,
                    0, 0, false, false, 0, FUSER_BUNDLE_GEMM_EPILOGUE_GELU, true, 0};
  RUN_LINES("bias and gelu keeping its input", &gelu_aux,
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=164",
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE_AUX_POINTER=buf4",
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE_AUX_LD=8",
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE_AUX_BATCH_STRIDE=0",
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE_AUX_POINTER=buf4",
            "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
            "beta=0 C=buf3 layout2 D=buf3 layout2 workspace=buf5 bytes=" WS
            " stream=0x42");
  /* Batched: the batch stride of D is the pre-activation's too. */
  gcase gelu_aux_batched = gelu_aux;
  gelu_aux_batched.bias = false;
  gelu_aux_batched.batch = 2;
  gelu_aux_batched.sa = 15;
  gelu_aux_batched.sd = 24;
  RUN_LINES("gelu keeping its input, batched", &gelu_aux_batched,
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=160",
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE_AUX_POINTER=buf3",
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE_AUX_LD=8",
            "cublasLtMatmulDescSetAttribute desc0 EPILOGUE_AUX_BATCH_STRIDE=24");
  /* cuBLASLt's rule for the pre-activation's strides, checked by the
   * runtime before anything runs, on every driver. */
  {
    gcase odd = gelu_aux;
    odd.ldd = 9;
    mm s;
    if (mm_setup(&s, &odd, tl_fake_rt(fake)))
      EXPECT_ERR(mm_run(&s, &odd, NULL, NULL), FUSER_ERROR_OUT_OF_RANGE,
                 "fusion 'mm': instruction 12 (GEMM): ldd = 9 (register 6) is "
                 "not a multiple of 8: the pre-activation (AUX) is written with "
                 "D's layout, whose strides the library takes in multiples of 8");
    mm_down(&s);
  }
  /* TF32: f32 operands with 10-bit mantissas (the fake rounds them, as the
   * tensor cores do; the reference too). */
  gcase tf32 = {F32, F32, TF32, false, 3, 5, 4, 1, 4, 5, 5, 0, 0, 0, 0, 0, 0,
                0, false, false, 0, 0, false, 0};
  RUN_LINES("TF32", &tf32,
            "cublasLtMatmulDescCreate compute=77 scale=0 -> desc0");
  /* f64: COMPUTE_64F, f64 scale, alpha and beta. */
  gcase f64 = {F64, F64, TRANS_A | TRANS_B, true, 3, 2, 4, 1, 3, 4, 2, 0, 0,
               0, 0, 0, 0, 0, false, false, 0, 0, false, 0};
  RUN_LINES("f64", &f64,
            "cublasLtMatmulDescCreate compute=70 scale=1 -> desc0",
            "cublasLtMatmulDescSetAttribute desc0 TRANSA=1",
            "cublasLtMatmulDescSetAttribute desc0 TRANSB=1",
            "cublasLtMatmulDescSetAttribute desc0 BIAS_DATA_TYPE=1",
            "cublasLtMatrixLayoutCreate type=1 rows=4 cols=2 ld=4 -> layout0",
            "cublasLtMatrixLayoutCreate type=1 rows=3 cols=4 ld=3 -> layout1",
            "cublasLtMatrixLayoutCreate type=1 rows=2 cols=3 ld=2 -> layout2");
  /* bf16 and f16 operands with an f32 D, and bf16 with a bf16 D. */
  gcase bf16_f32 = {BF16, F32, 0, true, 3, 5, 4, 1, 4, 5, 7, 0, 0, 0, 0, 0, 0,
                    0, false, false, 0, 0, false, 0};
  RUN_LINES("bf16 -> f32", &bf16_f32,
            "cublasLtMatmulDescSetAttribute desc0 BIAS_DATA_TYPE=0",
            "cublasLtMatrixLayoutCreate type=14 rows=5 cols=4 ld=5 -> layout0",
            "cublasLtMatrixLayoutCreate type=14 rows=4 cols=3 ld=4 -> layout1",
            "cublasLtMatrixLayoutCreate type=0 rows=5 cols=3 ld=7 -> layout2");
  gcase f16_f32 = bf16_f32;
  f16_f32.ab = F16;
  f16_f32.bias = false;
  RUN_LINES("f16 -> f32", &f16_f32,
            "cublasLtMatrixLayoutCreate type=2 rows=5 cols=4 ld=5 -> layout0",
            "cublasLtMatrixLayoutCreate type=0 rows=5 cols=3 ld=7 -> layout2");
  gcase bf16 = {BF16, BF16, TRANS_A, false, 3, 5, 4, 2, 3, 5, 5, 12, 20, 15,
                0, 0, 0, 0, false, false, 0, 0, false, 0};
  RUN_LINES("bf16 -> bf16", &bf16,
            "cublasLtMatrixLayoutCreate type=14 rows=5 cols=4 ld=5 -> layout0",
            "cublasLtMatrixLayoutCreate type=14 rows=3 cols=4 ld=3 -> layout1",
            "cublasLtMatrixLayoutCreate type=14 rows=5 cols=3 ld=5 -> layout2");
  /* TF32 took effect: without the rounding some element would differ. */
  {
    unsigned char a[4 * 12], b[4 * 20]; /* 3 x 4 and 4 x 5 */
    for (int i = 0; i < 12; i++) put(F32, a, i, value(i, 0, true));
    for (int i = 0; i < 20; i++) put(F32, b, i, value(i, 1, true));
    gcase plain = tf32;
    plain.flags = 0;
    bool differs = false;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 5; j++)
        differs |= (float)reference(&tf32, a, b, NULL, 0, i, j) !=
                   (float)reference(&plain, a, b, NULL, 0, i, j);
    CHECK(differs);
  }
}

/* ---- bias gradients (BGRAD_A, BGRAD_B) ------------------------------------ */

/* A training step's linear backward: dW = dy^T @ x with db = the sums of
 * dy's rows, one GEMM. Row-major: A is dy stored k x m (TRANS_A: k tokens
 * of m outputs), B is x (k x n); BGRAD_A writes db[i] = sum over l of
 * opA(A)[i, l]. cuBLASLt's B is our A, so it is its BGRADB (512), the
 * bias pointer the gradient's buffer and BIAS_DATA_TYPE D's type. The
 * fake computes the gradient in cuBLASLt's terms; the sums are also
 * worked out by hand here (a = value(i, 0): -0.5 -1.5 2 1 0 -1 -2 1.5 0.5
 * -0.5 -1.5 2; b = value(i, 1): 2 1 0 -1 -2 1.5 0.5 -0.5 -1.5 2 1 0 -1 -2
 * 1.5 0.5 -0.5 -1.5 2 1), so that the fake and the reference can't agree
 * on a wrong mapping. */
static void expect_run_error(const gcase *c, fuser_error_code code,
                             const char *m1, const char *m2, const char *m3);

static void test_bgrad_calls(void) {
  /* a stored 4 x 3 (lda 3): db[i] = a[i] + a[3 + i] + a[6 + i] + a[9 + i] */
  static const double dy_rows[3] = {-2.0, -1.5, 3.5};
  gcase ga = {F32, F32, TRANS_A, false, 3, 5, 4, 1, 3, 5, 5, 0, 0, 0, 0, 0,
              0, 0, false, false, 0, 0, false, BGRAD_A};
  /* a = buf0, b = buf1, db = buf2, d = buf3, the workspace buf4. */
  run_case_exact(
      "BGRAD_A, TRANS_A", &ga,
      (const char *const[]){
          "cuMemAlloc_v2 bytes=" WS " -> buf4",
          "cublasLtCreate -> lt0",
          "cublasLtMatmulDescCreate compute=68 scale=0 -> desc0",
          "cublasLtMatmulDescSetAttribute desc0 TRANSA=0",
          "cublasLtMatmulDescSetAttribute desc0 TRANSB=1",
          "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=512",
          "cublasLtMatmulDescSetAttribute desc0 BIAS_DATA_TYPE=0",
          "cublasLtMatmulDescSetAttribute desc0 BIAS_POINTER=buf2",
          "cublasLtMatrixLayoutCreate type=0 rows=5 cols=4 ld=5 -> layout0",
          "cublasLtMatrixLayoutCreate type=0 rows=3 cols=4 ld=3 -> layout1",
          "cublasLtMatrixLayoutCreate type=0 rows=5 cols=3 ld=5 -> layout2",
          PREF_AND_HEURISTIC(256, 256, 256),
          "cublasLtMatmulDescSetAttribute desc0 BIAS_POINTER=buf2",
          "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
          "beta=0 C=buf3 layout2 D=buf3 layout2 workspace=buf4 bytes=" WS
          " stream=0x42",
          NULL},
      (const char *const[]){
          "cublasLtMatmulDescSetAttribute desc0 BIAS_POINTER=buf2",
          "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
          "beta=0 C=buf3 layout2 D=buf3 layout2 workspace=buf4 bytes=" WS
          " stream=0x42",
          NULL},
      dy_rows);
  /* The same sums in bf16 and f16 (exact in both), the gradient in D's
   * dtype: BIAS_DATA_TYPE 14, 2, and 0 for f16 operands with an f32 D. */
  gcase gbf = ga;
  gbf.ab = gbf.dd = BF16;
  RUN_LINES_EXACT("BGRAD_A, TRANS_A, bf16", &gbf, dy_rows,
                  "cublasLtMatmulDescSetAttribute desc0 TRANSB=1",
                  "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=512",
                  "cublasLtMatmulDescSetAttribute desc0 BIAS_DATA_TYPE=14",
                  "cublasLtMatmulDescSetAttribute desc0 BIAS_POINTER=buf2",
                  "cublasLtMatrixLayoutCreate type=14 rows=5 cols=4 ld=5 -> layout0",
                  "cublasLtMatrixLayoutCreate type=14 rows=3 cols=4 ld=3 -> layout1",
                  "cublasLtMatrixLayoutCreate type=14 rows=5 cols=3 ld=5 -> layout2",
                  "cublasLtMatmulDescSetAttribute desc0 BIAS_POINTER=buf2");
  gcase gf16 = ga;
  gf16.ab = gf16.dd = F16;
  RUN_LINES_EXACT("BGRAD_A, TRANS_A, f16", &gf16, dy_rows,
                  "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=512",
                  "cublasLtMatmulDescSetAttribute desc0 BIAS_DATA_TYPE=2",
                  "cublasLtMatrixLayoutCreate type=2 rows=3 cols=4 ld=3 -> layout1");
  gcase gf16_f32 = gf16;
  gf16_f32.dd = F32;
  RUN_LINES_EXACT("BGRAD_A, TRANS_A, f16 -> f32", &gf16_f32, dy_rows,
                  "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=512",
                  "cublasLtMatmulDescSetAttribute desc0 BIAS_DATA_TYPE=0",
                  "cublasLtMatrixLayoutCreate type=2 rows=3 cols=4 ld=3 -> layout1",
                  "cublasLtMatrixLayoutCreate type=0 rows=5 cols=3 ld=5 -> layout2");
  /* Without TRANS_A: a is 3 x 4 (lda 4), db[i] = a[4i] + ... + a[4i + 3];
   * the gradient's buffer larger than m (the rest untouched). */
  static const double a_rows[3] = {1.0, -1.5, 0.5};
  gcase ga_n = {F32, F32, 0, false, 3, 5, 4, 1, 4, 5, 5, 0, 0, 0, 0, 0, 0, 5,
                false, false, 0, 0, false, BGRAD_A};
  RUN_LINES_EXACT("BGRAD_A", &ga_n, a_rows,
                  "cublasLtMatmulDescSetAttribute desc0 TRANSA=0",
                  "cublasLtMatmulDescSetAttribute desc0 TRANSB=0",
                  "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=512",
                  "cublasLtMatrixLayoutCreate type=0 rows=4 cols=3 ld=4 -> layout1");
  /* BGRAD_B, the sums of opB(B)'s columns, n of them: cuBLASLt's A is our
   * B, its BGRADA (256). b is 4 x 5 (ldb 5): db[j] = b[j] + b[5 + j] +
   * b[10 + j] + b[15 + j]. */
  static const double b_cols[5] = {5.0, 1.0, -3.0, -2.5, 2.5};
  gcase gb = {F32, F32, 0, false, 3, 5, 4, 1, 4, 5, 5, 0, 0, 0, 0, 0, 0, 0,
              false, false, 0, 0, false, BGRAD_B};
  RUN_LINES_EXACT("BGRAD_B", &gb, b_cols,
                  "cublasLtMatmulDescSetAttribute desc0 TRANSA=0",
                  "cublasLtMatmulDescSetAttribute desc0 TRANSB=0",
                  "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=256",
                  "cublasLtMatmulDescSetAttribute desc0 BIAS_DATA_TYPE=0",
                  "cublasLtMatmulDescSetAttribute desc0 BIAS_POINTER=buf2",
                  "cublasLtMatrixLayoutCreate type=0 rows=5 cols=4 ld=5 -> layout0",
                  "cublasLtMatmulDescSetAttribute desc0 BIAS_POINTER=buf2",
                  "cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 B=buf0 layout1 "
                  "beta=0 C=buf3 layout2 D=buf3 layout2 workspace=buf4 bytes=" WS
                  " stream=0x42");
  /* With TRANS_B (b stored 5 x 4, ldb 4): db[j] = b[4j] + ... + b[4j + 3];
   * and in f64 (COMPUTE_64F, the gradient f64). */
  static const double bt_cols[5] = {2.0, -0.5, 1.5, -1.0, 1.0};
  gcase gbt = gb;
  gbt.flags = TRANS_B;
  gbt.ldb = 4;
  RUN_LINES_EXACT("BGRAD_B, TRANS_B", &gbt, bt_cols,
                  "cublasLtMatmulDescSetAttribute desc0 TRANSA=1",
                  "cublasLtMatmulDescSetAttribute desc0 TRANSB=0",
                  "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=256",
                  "cublasLtMatrixLayoutCreate type=0 rows=4 cols=5 ld=4 -> layout0");
  gcase gbt64 = gbt;
  gbt64.ab = gbt64.dd = F64;
  RUN_LINES_EXACT("BGRAD_B, TRANS_B, f64", &gbt64, bt_cols,
                  "cublasLtMatmulDescCreate compute=70 scale=1 -> desc0",
                  "cublasLtMatmulDescSetAttribute desc0 EPILOGUE=256",
                  "cublasLtMatmulDescSetAttribute desc0 BIAS_DATA_TYPE=1",
                  "cublasLtMatrixLayoutCreate type=1 rows=4 cols=5 ld=4 -> layout0");
  /* An empty D of an empty gradient has nothing to do: BGRAD_A with m = 0,
   * BGRAD_B with n = 0, no call. */
  gcase none[2] = {ga, gb};
  none[0].m = 0, none[1].n = 0;
  for (int q = 0; q < 2; q++) {
    mm s;
    if (mm_setup(&s, &none[q], tl_fake_rt(fake))) {
      EXPECT_OK(mm_run(&s, &none[q], NULL, NULL));
      EXPECT_NO_LOG();
    }
    mm_down(&s);
  }
  /* A failing heuristic names the gradient in the GEMM it describes. */
  setenv("FUSER_FAKE_CUBLASLT_FAIL", "no_algorithm", 1);
  expect_run_error(&ga, FUSER_ERROR_DRIVER,
                   "fusion 'mm': instruction 12 (GEMM): cuBLASLt has no "
                   "algorithm for batch 1 of D (3 x 5, f32) = A^T (3 x 4, "
                   "f32) @ B (4 x 5, f32), bias gradient of A (lda 3, ldb 5, "
                   "ldd 5, batch strides 0, 0, 0; A, B and D aligned to 256, "
                   "256 and 256 bytes) (cublasLtMatmulAlgoGetHeuristic found "
                   "none)",
                   "", "");
  expect_run_error(&gbt, FUSER_ERROR_DRIVER,
                   "@ B^T (4 x 5, f32), bias gradient of B (lda 4, ldb 4,", "",
                   "");
  unsetenv("FUSER_FAKE_CUBLASLT_FAIL");
}

/* ---- the cache ---------------------------------------------------------------- */

/* "rows": a f32[?, 4] @ b f32[4, 5] -> d f32[?, 5]; m is a's rows (dynamic
 * dim 0), d's rows (dim 1) the same. */
static unsigned char *rows_bundle(size_t *size) {
  bw_bundle bb;
  memset(&bb, 0, sizeof bb);
  bb.num_modules = 1;
  bb.modules[0] = (bw_module){"mm_ptx", 1, ptx, 90, 78};
  bb.num_fusions = 1;
  bw_fusion *f = &bb.fusions[0];
  f->name = "rows";
  f->num_args = 2;
  f->num_results = 1;
  f->num_regs = 10;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"a", F32, 2, {-1, 4}};
  f->tensors[1] = (bw_tensor){"b", F32, 2, {4, 5}};
  f->tensors[2] = (bw_tensor){"d", F32, 2, {-1, 5}};
  const int64_t v[10] = {0, 5, 4, 1, 4, 5, 5, 0, 0, 0};
  uint32_t n = 0;
  f->instrs[n++] = bw_op(BW_DIM, 0, 0, 0);
  for (uint32_t r = 1; r < 10; r++) f->instrs[n++] = bw_const(r, v[r]);
  f->instrs[n++] = bw_op(BW_RESULT_DIM, BW_NONE, 0, 1);
  f->instrs[n++] = bw_gemm_op(0);
  f->num_instrs = n;
  f->num_gemms = 1;
  f->gemms[0] = (bw_gemm){0, 1, 2, BW_NONE, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                          F32, F32, 0, 0, 0};
  return bw_write(&bb, size, NULL);
}

#define ROWS_MAX 300

typedef struct rows_run {
  const fuser_fusion *f;
  uint64_t dev[3];
  float a[ROWS_MAX * 4], b[20], d[ROWS_MAX * 5];
} rows_run;

static bool rows_setup(rows_run *r, fuser_rt *rt, const fuser_fusion *f) {
  r->f = f;
  for (int i = 0; i < ROWS_MAX * 4; i++) r->a[i] = (float)value(i, 0, false);
  for (int i = 0; i < 20; i++) r->b[i] = (float)value(i, 1, false);
  return EXPECT_OK(fuser_mem_alloc(rt, sizeof r->a, &r->dev[0])) &&
         EXPECT_OK(fuser_mem_alloc(rt, sizeof r->b, &r->dev[1])) &&
         EXPECT_OK(fuser_mem_alloc(rt, sizeof r->d, &r->dev[2])) &&
         EXPECT_OK(fuser_mem_copy_h2d(rt, r->dev[0], r->a, sizeof r->a)) &&
         EXPECT_OK(fuser_mem_copy_h2d(rt, r->dev[1], r->b, sizeof r->b));
}

/* Runs with m rows and checks D; returns false on any failure. */
static bool rows_once(rows_run *r, fuser_rt *rt, int64_t m, void *stream) {
  int64_t dims[2] = {m, m};
  fuser_error *e = fuser_run(r->f, r->dev, &r->dev[2], dims, 2, stream, NULL);
  if (e) {
    fprintf(stderr, "rows m=%lld: %s\n", (long long)m, fuser_error_message(e));
    fuser_error_destroy(e);
    return false;
  }
  e = fuser_mem_copy_d2h(rt, r->d, r->dev[2], sizeof(float) * 5 * (size_t)m);
  if (e) {
    fuser_error_destroy(e);
    return false;
  }
  for (int64_t i = 0; i < m; i++)
    for (int j = 0; j < 5; j++) {
      float acc = 0.0f;
      for (int l = 0; l < 4; l++) acc += r->a[i * 4 + l] * r->b[l * 5 + j];
      if (r->d[i * 5 + j] != acc) return false;
    }
  return true;
}

static void rows_free(rows_run *r, fuser_rt *rt) {
  for (int q = 0; q < 3; q++) EXPECT_OK(fuser_mem_free(rt, r->dev[q]));
}

/* Each shape is one entry: a shape seen before creates nothing, also after
 * others; at most 256 are kept, the least recently used going first (its
 * descriptor and layouts destroyed). */
static void test_cache(void) {
  fuser_rt *rt = tl_fake_rt(fake);
  if (!rt) return;
  size_t size;
  unsigned char *bytes = rows_bundle(&size);
  fuser_bundle *b = NULL;
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  free(bytes);
  static rows_run r;
  if (!b || !rows_setup(&r, rt, fuser_bundle_find_fusion(b, "rows"))) {
    fuser_bundle_destroy(b);
    fuser_rt_destroy(rt);
    return;
  }
  tl_log_clear();
  CHECK(rows_once(&r, rt, 3, NULL) && rows_once(&r, rt, 4, NULL));
  long creates = tl_fake_hook(fake_lt, "fuser_fake_cublaslt_creates");
  CHECK(rows_once(&r, rt, 3, NULL) && rows_once(&r, rt, 4, NULL));
  CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_creates") == creates);
  /* m = 0: an empty D, no call at all. */
  tl_log_clear();
  int64_t zero[2] = {0, 0};
  EXPECT_OK(fuser_run(r.f, r.dev, &r.dev[2], zero, 2, NULL, NULL));
  CHECK(tl_log_count("cublasLt") == 0);
  /* 256 more shapes: m = 3 (used before m = 4) is evicted, m = 4 too by
   * the time 255 new ones came... the 256 entries are 4 and 5 .. 259. */
  bool ok = rows_once(&r, rt, 4, NULL);
  for (int64_t m = 5; m <= 259; m++) ok &= rows_once(&r, rt, m, NULL);
  CHECK(ok);
  /* 1 handle, 256 entries of a descriptor and 3 layouts. */
  CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_live") == 1 + 256 * 4);
  CHECK(tl_log_count("cublasLtMatmulDescDestroy") == 1); /* m = 3 went */
  creates = tl_fake_hook(fake_lt, "fuser_fake_cublaslt_creates");
  CHECK(rows_once(&r, rt, 4, NULL)); /* still there */
  CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_creates") == creates);
  CHECK(rows_once(&r, rt, 3, NULL)); /* made again (5 objects), m = 5 goes */
  CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_creates") == creates + 5);
  CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_live") == 1 + 256 * 4);
  rows_free(&r, rt);
  fuser_bundle_destroy(b);
  fuser_rt_destroy(rt);
  CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_live") == 0);
  tl_log_clear();
}

/* ---- empty GEMMs and k = 0 ---------------------------------------------------- */

static void test_empty(void) {
  /* n = 0 and batch = 0: nothing to do, no call, no workspace. */
  gcase n0 = {F32, F32, 0, false, 3, 0, 4, 1, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0,
              false, false, 0, 0, false, 0};
  gcase b0 = {F32, F32, 0, false, 3, 5, 4, 0, 4, 5, 5, 0, 0, 0, 0, 0, 0, 0,
              false, false, 0, 0, false, 0};
  const gcase *cases[2] = {&n0, &b0};
  for (int q = 0; q < 2; q++) {
    mm s;
    if (mm_setup(&s, cases[q], tl_fake_rt(fake))) {
      EXPECT_OK(mm_run(&s, cases[q], NULL, NULL));
      EXPECT_NO_LOG();
    }
    mm_down(&s);
  }

  /* k = 0: D = 0, written row by row (ldd 7 > n 5: the gaps stay), the two
   * batches one after the other at the rows' pitch: one 2D memset of 6
   * rows, on the stream, and no cuBLASLt. */
  gcase k0 = {F32, F32, 0, false, 3, 5, 0, 2, 1, 5, 7, 0, 0, 21, 0, 0, 0, 0,
              false, false, 0, 0, false, 0};
  mm s;
  if (mm_setup(&s, &k0, tl_fake_rt(fake))) {
    if (EXPECT_OK(mm_run(&s, &k0, (void *)(uintptr_t)0x42, NULL))) {
      EXPECT_LOG("cuMemsetD2D8Async dst=buf2 pitch=28 value=0 width=20 "
                 "height=6 stream=0x42");
      mm_check(&s, &k0, "k = 0");
    }
  }
  mm_down(&s);
  /* Batches further apart: one memset each. */
  k0.sd = 24;
  if (mm_setup(&s, &k0, tl_fake_rt(fake))) {
    if (EXPECT_OK(mm_run(&s, &k0, (void *)(uintptr_t)0x42, NULL))) {
      EXPECT_LOG("cuMemsetD2D8Async dst=buf2 pitch=28 value=0 width=20 "
                 "height=3 stream=0x42",
                 "cuMemsetD2D8Async dst=buf2+96 pitch=28 value=0 width=20 "
                 "height=3 stream=0x42");
      mm_check(&s, &k0, "k = 0, batches apart");
    }
  }
  mm_down(&s);
  /* With a bias: every row of D is the bias (f16), copied after waiting for
   * the stream. */
  gcase k0b = {F16, F16, TRANS_B, true, 3, 4, 0, 1, 1, 1, 6, 0, 0, 0, 0, 0, 0,
               0, false, false, 0, 0, false, 0};
  if (mm_setup(&s, &k0b, tl_fake_rt(fake))) {
    if (EXPECT_OK(mm_run(&s, &k0b, (void *)(uintptr_t)0x42, NULL))) {
      EXPECT_LOG("cuMemcpy2D_v2 dst=buf3 pitch=12 src=host pitch=8 width=8 "
                 "height=3");
      mm_check(&s, &k0b, "k = 0 with a bias");
    }
  }
  mm_down(&s);
  /* With an activation too: every row is relu(bias) or gelu(bias) (the
   * test's values hold negatives: relu zeroes them). */
  for (int act = 0; act < 2; act++) {
    gcase k0a = k0b;
    k0a.act = act ? FUSER_BUNDLE_GEMM_EPILOGUE_GELU : FUSER_BUNDLE_GEMM_EPILOGUE_RELU;
    if (mm_setup(&s, &k0a, tl_fake_rt(fake))) {
      if (EXPECT_OK(mm_run(&s, &k0a, (void *)(uintptr_t)0x42, NULL)))
        mm_check(&s, &k0a, act ? "k = 0, bias and gelu" : "k = 0, bias and relu");
    }
    mm_down(&s);
  }
  /* Keeping the pre-activation: bias rows before the gelu, gelu(bias) in D. */
  {
    gcase k0x = k0b;
    k0x.act = FUSER_BUNDLE_GEMM_EPILOGUE_GELU;
    k0x.aux = true;
    k0x.n = 8;
    k0x.ldd = 8;
    k0x.nd = 0;
    k0x.nbias = 0;
    if (mm_setup(&s, &k0x, tl_fake_rt(fake))) {
      if (EXPECT_OK(mm_run(&s, &k0x, (void *)(uintptr_t)0x42, NULL)))
        mm_check(&s, &k0x, "k = 0, bias and gelu keeping its input");
    }
    mm_down(&s);
  }
  /* A bias gradient of an empty sum: D zeros, and the gradient, written,
   * not read, zeros too (m of them for BGRAD_A, n for BGRAD_B): one 2D
   * memset of one row each, on the stream, and no cuBLASLt. BGRAD_A in
   * f32 (dW = dy^T @ x over no tokens); BGRAD_B in f16, D's rows 7 apart. */
  {
    gcase k0ga = {F32, F32, TRANS_A, false, 3, 5, 0, 1, 3, 5, 5, 0, 0, 0, 0,
                  0, 0, 0, false, false, 0, 0, false, BGRAD_A};
    if (mm_setup(&s, &k0ga, tl_fake_rt(fake))) {
      if (EXPECT_OK(mm_run(&s, &k0ga, (void *)(uintptr_t)0x42, NULL))) {
        EXPECT_LOG("cuMemsetD2D8Async dst=buf3 pitch=20 value=0 width=20 "
                   "height=3 stream=0x42",
                   "cuMemsetD2D8Async dst=buf2 pitch=12 value=0 width=12 "
                   "height=1 stream=0x42");
        static const double zeros[5] = {0, 0, 0, 0, 0};
        mm_check(&s, &k0ga, "k = 0, BGRAD_A");
        mm_check_grad(&s, &k0ga, "k = 0, BGRAD_A", zeros);
      }
    }
    mm_down(&s);
    gcase k0gb = {F16, F16, TRANS_B, false, 3, 5, 0, 1, 1, 1, 7, 0, 0, 0, 0,
                  0, 0, 0, false, false, 0, 0, false, BGRAD_B};
    if (mm_setup(&s, &k0gb, tl_fake_rt(fake))) {
      if (EXPECT_OK(mm_run(&s, &k0gb, (void *)(uintptr_t)0x42, NULL))) {
        EXPECT_LOG("cuMemsetD2D8Async dst=buf3 pitch=14 value=0 width=10 "
                   "height=3 stream=0x42",
                   "cuMemsetD2D8Async dst=buf2 pitch=10 value=0 width=10 "
                   "height=1 stream=0x42");
        static const double zeros[5] = {0, 0, 0, 0, 0};
        mm_check(&s, &k0gb, "k = 0, BGRAD_B");
        mm_check_grad(&s, &k0gb, "k = 0, BGRAD_B", zeros);
      }
    }
    mm_down(&s);
  }
  /* A failing driver call is named. */
  setenv("FUSER_FAKE_FAIL", "sync", 1);
  if (mm_setup(&s, &k0b, tl_fake_rt(fake)))
    EXPECT_ERR(mm_run(&s, &k0b, NULL, NULL), FUSER_ERROR_DRIVER,
               "fusion 'mm': instruction 12 (GEMM): cuStreamSynchronize "
               "failed: CUDA_ERROR_ILLEGAL_ADDRESS",
               "(before writing the bias rows of a GEMM with k = 0)");
  mm_down(&s);
  setenv("FUSER_FAKE_FAIL", "memset", 1);
  if (mm_setup(&s, &k0, tl_fake_rt(fake)))
    EXPECT_ERR(mm_run(&s, &k0, NULL, NULL), FUSER_ERROR_DRIVER,
               "fusion 'mm': instruction 12 (GEMM): cuMemsetD2D8Async "
               "failed: CUDA_ERROR_ILLEGAL_ADDRESS",
               "(zeroing D of a GEMM with k = 0)");
  mm_down(&s);
  unsetenv("FUSER_FAKE_FAIL");
}

/* ---- the library's errors ---------------------------------------------------------- */

static gcase plain_case(void) {
  gcase c = {F32, F32, 0, false, 3, 5, 4, 1, 4, 5, 5, 0, 0, 0, 0, 0, 0, 0,
             false, false, 0, 0, false, 0};
  return c;
}

static void expect_run_error(const gcase *c, fuser_error_code code,
                             const char *m1, const char *m2, const char *m3) {
  mm s;
  if (mm_setup(&s, c, tl_fake_rt(fake)))
    EXPECT_ERR(mm_run(&s, c, NULL, NULL), code, m1, m2, m3);
  mm_down(&s);
}

static void test_library_errors(void) {
  gcase c = plain_case();
  setenv("FUSER_CUBLASLT_LIBRARY", "/nonexistent/libcublasLt.so.13", 1);
  expect_run_error(&c, FUSER_ERROR_DRIVER_UNAVAILABLE,
                   "fusion 'mm': instruction 12 (GEMM): cannot load cuBLASLt, "
                   "which runs GEMMs on CUDA: tried "
                   "'/nonexistent/libcublasLt.so.13' (",
                   "No such file or directory",
                   "set FUSER_CUBLASLT_LIBRARY to the library's path");
  setenv("FUSER_CUBLASLT_LIBRARY", "libm.so.6", 1);
  expect_run_error(&c, FUSER_ERROR_DRIVER_UNAVAILABLE,
                   "fusion 'mm': instruction 12 (GEMM): the cuBLASLt library "
                   "'libm.so.6' does not export cublasLtCreate",
                   "", "");
  setenv("FUSER_CUBLASLT_LIBRARY", fake_lt, 1);

  setenv("FUSER_FAKE_CUBLASLT_FAIL", "create", 1);
  expect_run_error(&c, FUSER_ERROR_DRIVER,
                   "fusion 'mm': instruction 12 (GEMM): cublasLtCreate failed: "
                   "CUBLAS_STATUS_NOT_INITIALIZED (status 1)",
                   fake_lt, "");
  setenv("FUSER_FAKE_CUBLASLT_FAIL", "no_algorithm", 1);
  expect_run_error(&c, FUSER_ERROR_DRIVER,
                   "fusion 'mm': instruction 12 (GEMM): cuBLASLt has no "
                   "algorithm for batch 1 of D (3 x 5, f32) = A (3 x 4, f32) "
                   "@ B (4 x 5, f32) (lda 4, ldb 5, ldd 5, batch strides 0, 0, "
                   "0; A, B and D aligned to 256, 256 and 256 bytes) "
                   "(cublasLtMatmulAlgoGetHeuristic found none)",
                   "", "");
  gcase lin = c;
  lin.ab = lin.dd = F16;
  lin.flags = TRANS_B;
  lin.ldb = 4;
  lin.bias = true;
  expect_run_error(&lin, FUSER_ERROR_DRIVER,
                   "no algorithm for batch 1 of D (3 x 5, f16) = A (3 x 4, "
                   "f16) @ B^T (4 x 5, f16) + bias (lda 4, ldb 4,",
                   "", "");
  setenv("FUSER_FAKE_CUBLASLT_FAIL", "heuristic", 1);
  expect_run_error(&c, FUSER_ERROR_DRIVER,
                   "fusion 'mm': instruction 12 (GEMM): "
                   "cublasLtMatmulAlgoGetHeuristic failed: "
                   "CUBLAS_STATUS_NOT_SUPPORTED (status 15) for batch 1 of D",
                   "", "");
  setenv("FUSER_FAKE_CUBLASLT_FAIL", "desc", 1);
  expect_run_error(&c, FUSER_ERROR_DRIVER,
                   "cublasLtMatmulDescCreate failed: CUBLAS_STATUS_ALLOC_FAILED "
                   "(status 3)",
                   "", "");
  setenv("FUSER_FAKE_CUBLASLT_FAIL", "matmul", 1);
  expect_run_error(&c, FUSER_ERROR_DRIVER,
                   "fusion 'mm': instruction 12 (GEMM): cublasLtMatmul failed: "
                   "CUBLAS_STATUS_EXECUTION_FAILED (status 13) for batch 1",
                   "", "");
  unsetenv("FUSER_FAKE_CUBLASLT_FAIL");
  /* No device memory for the workspace (the fourth allocation, after a, b
   * and d): an allocation error before anything is launched. */
  setenv("FUSER_FAKE_FAIL", "oom_live:3", 1);
  c.launches = true;
  mm s;
  if (mm_setup(&s, &c, tl_fake_rt(fake))) {
    EXPECT_ERR(mm_run(&s, &c, NULL, NULL), FUSER_ERROR_OUT_OF_MEMORY,
               "fusion 'mm': instruction 13 (GEMM): the cuBLASLt workspace: "
               "allocating an intermediate of " WS " bytes: cuMemAlloc_v2 "
               "failed: CUDA_ERROR_OUT_OF_MEMORY");
    CHECK(tl_log_count("cuLaunchKernel") == 0);
  }
  mm_down(&s);
  unsetenv("FUSER_FAKE_FAIL");
}

/* ---- the run-time checks --------------------------------------------------------- */

/* The case with a launch before and after the GEMM must fail with these
 * words and launch nothing. */
static void expect_check(const gcase *c, const char *m1, const char *m2) {
  gcase l = *c;
  l.launches = true;
  mm s;
  if (mm_setup(&s, &l, tl_fake_rt(fake))) {
    EXPECT_ERR(mm_run(&s, &l, NULL, NULL), FUSER_ERROR_OUT_OF_RANGE, m1, m2);
    CHECK(tl_log_count("cuLaunchKernel") == 0 && tl_log_count("cublasLt") == 0);
  }
  mm_down(&s);
}

static void test_run_checks(void) {
  const char *at = "fusion 'mm': instruction 13 (GEMM): ";
  gcase c = plain_case();
  c.na = 12, c.nb = 20, c.nd = 15;
  gcase x = c;
  x.m = -1;
  expect_check(&x, at, "m = -1 (register 0) is negative");
  x = c, x.batch = -2;
  expect_check(&x, at, "batch = -2 (register 3) is negative");
  x = c, x.sb = -5;
  expect_check(&x, at, "stride_b = -5 (register 8) is negative");
  x = c, x.lda = 3;
  expect_check(&x, at,
               "lda = 3 (register 4) is less than 4, the length of A's rows "
               "(A is m x k = 3 x 4, row-major)");
  x = c, x.flags = TRANS_A, x.lda = 2;
  expect_check(&x, at,
               "lda = 2 (register 4) is less than 3, the length of A's rows "
               "(A is k x m = 4 x 3 with TRANS_A, row-major)");
  x = c, x.ldb = 4;
  expect_check(&x, at, "ldb = 4 (register 5) is less than 5, the length of B's rows (B is k x n = 4 x 5, row-major)");
  x = c, x.flags = TRANS_B, x.ldb = 3;
  expect_check(&x, at, "ldb = 3 (register 5) is less than 4, the length of B's rows (B is n x k = 5 x 4 with TRANS_B");
  x = c, x.ldd = 0, x.n = 0, x.nb = 1;
  expect_check(&x, at, "ldd = 0 (register 6) is less than 1, the length of D's rows");
  x = c, x.batch = 2, x.sa = 12, x.sb = 20, x.na = 24, x.nb = 40;
  expect_check(&x, at, "stride_d = 0 (register 9) with batch 2: every batch would write the same D");
  /* Reach: each operand inside its buffer for the call. */
  x = c, x.na = 11;
  expect_check(&x, at,
               "A (argument 0 'a') reaches 48 bytes (batch 1 of 3 x 4 f32 "
               "elements, lda 4, stride_a 0) but has 44 bytes in this call");
  x = c, x.nb = 19;
  expect_check(&x, at, "B (argument 1 'b') reaches 80 bytes");
  x = c, x.nd = 14;
  expect_check(&x, at, "D (result 0 'd') reaches 60 bytes (batch 1 of 3 x 5 f32 elements, ldd 5, stride_d 0) but has 56 bytes in this call");
  x = c, x.batch = 2, x.sa = 0, x.sb = 0, x.sd = 15, x.nd = 29;
  expect_check(&x, at, "D (result 0 'd') reaches 120 bytes (batch 2 of 3 x 5");
  x = c, x.bias = true, x.nbias = 4;
  expect_check(&x, at, "the bias (argument 2 'bias') needs n = 5 elements of f32, 20 bytes, but has 16 bytes in this call");
  /* A dynamic argument: its size is the call's. */
  x = c, x.dyn_a = true;
  {
    gcase l = x;
    l.launches = true;
    mm s;
    if (mm_setup(&s, &l, tl_fake_rt(fake))) {
      uint64_t args[2] = {s.dev[0], s.dev[1]};
      int64_t dims[1] = {11};
      EXPECT_ERR(fuser_run(s.f, args, &s.dev[3], dims, 1, NULL, NULL),
                 FUSER_ERROR_OUT_OF_RANGE, at,
                 "A (argument 0 'a') reaches 48 bytes (batch 1 of 3 x 4 f32 "
                 "elements, lda 4, stride_a 0) but has 44 bytes in this call");
      CHECK(tl_log_count("cuLaunchKernel") == 0);
      dims[0] = 12;
      EXPECT_OK(fuser_run(s.f, args, &s.dev[3], dims, 1, NULL, NULL));
      CHECK(tl_log_count("cuLaunchKernel") == 2);
      mm_check(&s, &l, "dynamic a");
    }
    mm_down(&s);
  }
  /* An intermediate D: its ALLOC's bytes. */
  x = c, x.d_inter = 56;
  {
    mm s;
    if (mm_setup(&s, &x, tl_fake_rt(fake)))
      EXPECT_ERR(mm_run(&s, &x, NULL, NULL), FUSER_ERROR_OUT_OF_RANGE,
                 "fusion 'mm': instruction 14 (GEMM): D (intermediate buffer "
                 "2) reaches 60 bytes (batch 1 of 3 x 5 f32 elements, ldd 5, "
                 "stride_d 0) but has 56 bytes in this call");
    mm_down(&s);
  }
  /* The plan's arithmetic overflowing the reach. */
  x = c, x.batch = 3, x.sa = INT64_C(1) << 62, x.na = 12, x.sd = 15, x.nd = 45;
  expect_check(&x, at, "A (argument 0 'a') reaches 2^64 bytes or more");

  /* A bias gradient: one batch, a D of elements (the gradient of A needs
   * n > 0, of B m > 0), and the gradient's m or n elements in its buffer. */
  gcase ga = {F32, F32, TRANS_A, false, 3, 5, 4, 1, 3, 5, 5, 0, 0, 0, 0, 0,
              0, 0, false, false, 0, 0, false, BGRAD_A};
  gcase gb = ga;
  gb.flags = 0, gb.lda = 4, gb.bgrad = BGRAD_B;
  x = ga, x.batch = 2, x.sa = 12, x.sb = 20, x.sd = 15;
  expect_check(&x, at,
               "batch = 2 (register 3) with a bias gradient of A (epilogue "
               "16, BGRAD_A): a GEMM that writes one runs exactly one batch");
  x = gb, x.batch = 0;
  expect_check(&x, at,
               "batch = 0 (register 3) with a bias gradient of B (epilogue "
               "32, BGRAD_B): a GEMM that writes one runs exactly one batch");
  x = ga, x.n = 0;
  expect_check(&x, at,
               "n = 0 (register 1) with a bias gradient of A (epilogue 16, "
               "BGRAD_A): cuBLASLt cannot write a bias gradient for an empty "
               "D (m x n = 3 x 0)");
  x = gb, x.m = 0;
  expect_check(&x, at,
               "m = 0 (register 0) with a bias gradient of B (epilogue 32, "
               "BGRAD_B): cuBLASLt cannot write a bias gradient for an empty "
               "D (m x n = 0 x 5)");
  x = ga, x.nbias = 2;
  expect_check(&x, at,
               "the bias gradient (result 1 'db') needs m = 3 elements of "
               "f32, 12 bytes, but has 8 bytes in this call");
  x = gb, x.nbias = 4;
  expect_check(&x, at,
               "the bias gradient (result 1 'db') needs n = 5 elements of "
               "f32, 20 bytes, but has 16 bytes in this call");
  /* The queries check the sizes too. */
  x = ga, x.batch = 2, x.sa = 12, x.sb = 20, x.sd = 15;
  {
    mm s;
    if (mm_setup(&s, &x, tl_fake_rt(fake))) {
      uint64_t need;
      EXPECT_ERR(fuser_fusion_scratch_size(s.f, NULL, NULL, NULL, 0, &need),
                 FUSER_ERROR_OUT_OF_RANGE,
                 "fusion 'mm': instruction 12 (GEMM): batch = 2 (register 3) "
                 "with a bias gradient of A");
      int64_t none[1];
      EXPECT_ERR(fuser_fusion_infer_dims(s.f, none, 0, none),
                 FUSER_ERROR_OUT_OF_RANGE, "batch = 2 (register 3)");
    }
    mm_down(&s);
  }
  /* The gradient in an intermediate: its ALLOC's bytes (buffer 4, after a,
   * b, d and db; 8 bytes, where 3 f32 elements need 12). */
  {
    bw_bundle bb;
    mm_bundle(&bb, &ga);
    bw_fusion *f = &bb.fusions[0];
    f->num_inter = 1;
    f->instrs[12] = bw_const(12, 8);
    f->instrs[13] = bw_op(BW_ALLOC, 0, 4, 12);
    f->instrs[14] = bw_gemm_op(0);
    f->num_instrs = 15;
    f->gemms[0].bias = 4;
    size_t n;
    unsigned char *d = bw_write(&bb, &n, NULL);
    fuser_rt *rt = tl_fake_rt(fake);
    fuser_bundle *b = NULL;
    if (rt && EXPECT_OK(fuser_bundle_load(rt, d, n, &b))) {
      uint64_t args[2] = {0x10000, 0x20000}, res[2] = {0x30000, 0x40000};
      EXPECT_ERR(fuser_run(fuser_bundle_find_fusion(b, "mm"), args, res, NULL,
                           0, NULL, NULL),
                 FUSER_ERROR_OUT_OF_RANGE,
                 "fusion 'mm': instruction 14 (GEMM): the bias gradient "
                 "(intermediate buffer 4) needs m = 3 elements of f32, 12 "
                 "bytes, but has 8 bytes in this call");
      CHECK(tl_log_count("cublasLt") == 0);
      fuser_bundle_destroy(b);
    }
    fuser_rt_destroy(rt);
    free(d);
    tl_log_clear();
  }
}

/* ---- user scratch --------------------------------------------------------------- */

static void test_scratch(void) {
  /* D an intermediate of 60 bytes at scratch offset 0, the workspace at 256. */
  gcase c = plain_case();
  c.d_inter = 60;
  mm s;
  if (mm_setup(&s, &c, tl_fake_rt(fake))) {
    uint64_t need = 0, scratch = 0;
    uint64_t args[2] = {s.dev[0], s.dev[1]};
    EXPECT_OK(fuser_fusion_scratch_size(s.f, NULL, NULL, NULL, 0, &need));
    CHECK(need == 256 + (UINT64_C(32) << 20));
    EXPECT_OK(fuser_mem_alloc(s.rt, need, &scratch));
    tl_log_clear();
    fuser_run_options ro = {.scratch = scratch, .scratch_size = need};
    EXPECT_OK(fuser_run(s.f, args, NULL, NULL, 0, (void *)(uintptr_t)0x42,
                        &ro));
    /* No allocation: the workspace is the scratch's. */
    CHECK(tl_log_count("cuMemAlloc_v2") == 0);
    CHECK(tl_log_count("cublasLtMatmul lt0 desc0 alpha=1 A=buf1 layout0 "
                       "B=buf0 layout1 beta=0 C=buf2 layout2 D=buf2 layout2 "
                       "workspace=buf2+256 bytes=" WS " stream=0x42") == 1);
    ro.scratch_size = need - 1;
    EXPECT_ERR(fuser_run(s.f, args, NULL, NULL, 0, NULL, &ro),
               FUSER_ERROR_OUT_OF_MEMORY,
               "fusion 'mm': instruction 14 (GEMM): the user scratch of "
               "33554687 bytes is too small: the GEMM workspace of " WS
               " bytes needs bytes 256 .. 33554688");
    EXPECT_OK(fuser_mem_free(s.rt, scratch));
  }
  mm_down(&s);
  /* k = 0 needs no workspace; a pluggable driver gets none. */
  c.k = 0, c.lda = 1;
  if (mm_setup(&s, &c, tl_fake_rt(fake))) {
    uint64_t need = 0;
    EXPECT_OK(fuser_fusion_scratch_size(s.f, NULL, NULL, NULL, 0, &need));
    CHECK(need == 60);
  }
  mm_down(&s);
}

/* ---- pluggable drivers ------------------------------------------------------------- */

static char plog[4096];
static size_t plog_len;

__attribute__((format(printf, 1, 2))) static void plogf(const char *format,
                                                        ...) {
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(plog + plog_len, sizeof plog - plog_len, format, ap);
  va_end(ap);
  if (n > 0) plog_len += (size_t)n;
  if (plog_len < sizeof plog - 1) plog[plog_len++] = '\n';
  plog[plog_len] = 0;
}

static fuser_error *p_launch(void *c, void *f, const fuser_launch_dims *d,
                             void *s, void **p, const uint32_t *sz,
                             uint32_t n) {
  (void)c, (void)f, (void)sz, (void)n;
  plogf("launch grid=%u stream=%p d=%#llx", d->grid[0], s,
        (unsigned long long)*(const uint64_t *)p[0]);
  return NULL;
}
static fuser_error *p_gemm(void *c, const fuser_gemm *g, void *s) {
  (void)c;
  plogf("gemm ab=%u d=%u m=%lld n=%lld k=%lld batch=%lld a=%#llx b=%#llx "
        "d=%#llx bias=%#llx lda=%lld ldb=%lld ldd=%lld strides=%lld,%lld,%lld "
        "flags=%u epilogue=%u workspace=%#llx/%llu stream=%p",
        g->ab_dtype, g->d_dtype, (long long)g->m, (long long)g->n,
        (long long)g->k, (long long)g->batch, (unsigned long long)g->a,
        (unsigned long long)g->b, (unsigned long long)g->d,
        (unsigned long long)g->bias, (long long)g->lda, (long long)g->ldb,
        (long long)g->ldd, (long long)g->stride_a, (long long)g->stride_b,
        (long long)g->stride_d, g->flags, g->epilogue,
        (unsigned long long)g->workspace,
        (unsigned long long)g->workspace_bytes, s);
  return NULL;
}

static void test_pluggable(void) {
  fuser_driver d = tl_null_driver;
  d.name = "recorder";
  d.launch = p_launch;
  d.gemm = p_gemm;
  fuser_rt *rt = NULL;
  EXPECT_OK(fuser_rt_create_with_driver(&d, NULL, &rt));
  gcase c = {F16, F32, TRANS_B, true, 3, 5, 4, 2, 4, 4, 5, 0, 20, 15, 0, 0, 0,
             0, true, false, 0, 0, false, 0};
  bw_bundle bb;
  mm_bundle(&bb, &c);
  size_t size;
  unsigned char *bytes = bw_write(&bb, &size, NULL);
  fuser_bundle *b = NULL;
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  const fuser_fusion *f = fuser_bundle_find_fusion(b, "mm");
  uint64_t args[3] = {0x10000, 0x20000, 0x30000}, res = 0x40000;
  /* In plan order, on the call's stream, with no workspace. */
  EXPECT_OK(fuser_run(f, args, &res, NULL, 0, (void *)(uintptr_t)0x42, NULL));
  if (!CHECK(strcmp(plog,
                    "launch grid=1 stream=0x42 d=0x40000\n"
                    "gemm ab=5 d=7 m=3 n=5 k=4 batch=2 a=0x10000 b=0x20000 "
                    "d=0x40000 bias=0x30000 lda=4 ldb=4 ldd=5 "
                    "strides=0,20,15 flags=2 epilogue=1 workspace=0/0 "
                    "stream=0x42\n"
                    "launch grid=1 stream=0x42 d=0x40000\n") == 0))
    fprintf(stderr, "the recording driver's log:\n%s", plog);
  plog_len = 0;
  /* A bias gradient: `bias` is where it goes (result 1 'db'), the
   * epilogue 16; D the plain product. */
  {
    gcase g = {F32, F32, TRANS_A, false, 3, 5, 4, 1, 3, 5, 5, 0, 0, 0, 0, 0,
               0, 0, false, false, 0, 0, false, BGRAD_A};
    bw_bundle gbb;
    mm_bundle(&gbb, &g);
    size_t gsize;
    unsigned char *gbytes = bw_write(&gbb, &gsize, NULL);
    fuser_bundle *gb = NULL;
    if (EXPECT_OK(fuser_bundle_load(rt, gbytes, gsize, &gb))) {
      uint64_t gres[2] = {0x40000, 0x50000};
      EXPECT_OK(fuser_run(fuser_bundle_find_fusion(gb, "mm"), args, gres,
                          NULL, 0, (void *)(uintptr_t)0x42, NULL));
      if (!CHECK(strcmp(plog,
                        "gemm ab=7 d=7 m=3 n=5 k=4 batch=1 a=0x10000 "
                        "b=0x20000 d=0x40000 bias=0x50000 lda=3 ldb=5 ldd=5 "
                        "strides=0,0,0 flags=1 epilogue=16 workspace=0/0 "
                        "stream=0x42\n") == 0))
        fprintf(stderr, "the recording driver's log:\n%s", plog);
      fuser_bundle_destroy(gb);
    }
    free(gbytes);
    plog_len = 0;
  }
  /* Without a scratch need: no workspace for a pluggable driver. */
  uint64_t need = 1;
  EXPECT_OK(fuser_fusion_scratch_size(f, NULL, NULL, NULL, 0, &need));
  CHECK(need == 0);
  fuser_bundle_destroy(b);
  fuser_rt_destroy(rt);

  /* Without a gemm entry: the call fails, naming the driver, before the
   * launch that comes first in the plan. */
  d.name = "nogemm";
  d.gemm = NULL;
  EXPECT_OK(fuser_rt_create_with_driver(&d, NULL, &rt));
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  f = fuser_bundle_find_fusion(b, "mm");
  EXPECT_ERR(fuser_run(f, args, &res, NULL, 0, NULL, NULL),
             FUSER_ERROR_DRIVER_UNAVAILABLE,
             "driver 'nogemm' cannot run the GEMM of fusion 'mm' (instruction "
             "13): it has no gemm entry (fuser_driver.gemm, runtime 0.2)");
  CHECK(plog_len == 0);
  fuser_bundle_destroy(b);
  free(bytes);
  /* An empty GEMM runs on any driver. */
  c.m = 0;
  mm_bundle(&bb, &c);
  bytes = bw_write(&bb, &size, NULL);
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  EXPECT_OK(fuser_run(fuser_bundle_find_fusion(b, "mm"), args, &res, NULL, 0,
                      NULL, NULL));
  CHECK(strstr(plog, "gemm") == NULL);
  plog_len = 0;
  plog[0] = 0;
  fuser_bundle_destroy(b);
  free(bytes);
  fuser_rt_destroy(rt);
}

/* ---- the loader ---------------------------------------------------------------------- */

static fuser_rt *null_rt;

static fuser_error *load(const unsigned char *d, size_t n) {
  fuser_bundle *b = NULL;
  fuser_error *e = fuser_bundle_load(null_rt, d, n, &b);
  if (!e) fuser_bundle_destroy(b);
  return e;
}

/* The bundle of `c`, changed by `stmt` on the description (bb) or the
 * bytes (d, n, with the layout in L; the checksum is fixed after), must be
 * refused with these words. */
#define BAD_GEMM(c, desc_stmt, byte_stmt, ...)                               \
  do {                                                                       \
    bw_bundle bb;                                                            \
    bw_layout L;                                                             \
    mm_bundle(&bb, c);                                                       \
    desc_stmt;                                                               \
    size_t n;                                                                \
    unsigned char *d = bw_write(&bb, &n, &L);                                \
    byte_stmt;                                                               \
    bw_fix_checksum(d, n);                                                   \
    EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE, __VA_ARGS__);         \
    free(d);                                                                 \
    (void)L;                                                                 \
  } while (0)
#define G (bb.fusions[0].gemms[0])
#define REC (L.gemms[0][0])
#define INS(i) (L.instrs[0] + FUSER_BUNDLE_INSTR_SIZE * (i))

static void test_loader(void) {
  gcase c = plain_case();
  const char *at = "invalid bundle: fusion 0 'mm': instruction 12 (GEMM): ";
  /* Valid, with the plan text. */
  {
    gcase lin = {F16, F32, TRANS_B, true, 3, 5, 4, 1, 4, 4, 5, 0, 0, 0, 0,
                 0, 0, 0, false, false, 0, 0, false, 0};
    bw_bundle bb;
    mm_bundle(&bb, &lin);
    size_t n;
    unsigned char *d = bw_write(&bb, &n, NULL);
    CHECK(d[FUSER_BUNDLE_H_MINOR] == 1);
    fuser_bundle *b = NULL;
    if (EXPECT_OK(fuser_bundle_load(null_rt, d, n, &b))) {
      char text[4096];
      fuser_fusion_plan_text(fuser_bundle_find_fusion(b, "mm"), text,
                             sizeof text);
      CHECK(strstr(text, "  12: gemm d = a @ b^T + bias (f16 -> f32) m=r0 "
                         "n=r1 k=r2 batch=r3 lda=r4 ldb=r5 ldd=r6 "
                         "stride_a=r7 stride_b=r8 stride_d=r9\n"));
      fuser_bundle_destroy(b);
    }
    free(d);
  }
  /* The header's minor version. */
  {
    char newer[256];
    snprintf(newer, sizeof newer,
             "invalid bundle: format version 2.%d is newer than this "
             "runtime, which reads versions 2.0 to 2.%d: update the fuser "
             "runtime (libfuser_runtime) to load it",
             FUSER_BUNDLE_FORMAT_MINOR + 1, FUSER_BUNDLE_FORMAT_MINOR);
    BAD_GEMM(&c, (void)0,
             bw_put_u32(d, FUSER_BUNDLE_H_MINOR, FUSER_BUNDLE_FORMAT_MINOR + 1),
             newer);
  }
  BAD_GEMM(&c, (void)0, bw_put_u32(d, FUSER_BUNDLE_H_MINOR, 0), at,
           "a GEMM needs format version 2.1 or later, but the header says "
           "minor version 0 (offset 68); a writer that emits a GEMM writes "
           "minor version 1");
  /* The instruction. */
  BAD_GEMM(&c, bb.fusions[0].instrs[12].dst = 0, (void)0, at,
           "operands dst, a and b are 0, 4294967295 and 4294967295, not all "
           "0xFFFFFFFF (a GEMM's operands are in its record)");
  BAD_GEMM(&c, bb.fusions[0].instrs[12].b = 1, (void)0, at,
           "operands dst, a and b are 4294967295, 4294967295 and 1");
  BAD_GEMM(&c, (void)0, bw_put_u64(d, INS(12) + FUSER_BUNDLE_I_IMM, REC + 4),
           at, "is not 8-byte aligned");
  BAD_GEMM(&c, (void)0, bw_put_u64(d, INS(12) + FUSER_BUNDLE_I_IMM, n - 56),
           at, "the GEMM record at offset", "(64 bytes) is not inside the file");
  BAD_GEMM(&c, (void)0,
           bw_put_u64(d, INS(12) + FUSER_BUNDLE_I_IMM, (uint64_t)-8), at,
           "the GEMM record at offset -8 (64 bytes) is not inside the file");
  /* The record's buffers. */
  BAD_GEMM(&c, G.a = 9, (void)0, at,
           "buffer A 9 out of range (the fusion has 3 buffers: 2 arguments, "
           "1 results, 0 intermediates)");
  BAD_GEMM(&c, G.b = BW_NONE, (void)0, at, "buffer B 4294967295 out of range");
  BAD_GEMM(&c, G.d = 0, (void)0, at,
           "D is buffer 0, argument 0 'a': a GEMM writes D, so it is a result "
           "or an intermediate (arguments are read-only)");
  BAD_GEMM(&c, G.a = 2, (void)0, at,
           "D is buffer 2 (result 0 'd'), which is also its A: a GEMM does "
           "not run in place");
  {
    gcase bi = c;
    bi.bias = true;
    BAD_GEMM(&bi, G.epilogue = 0, (void)0, at,
             "the bias is buffer 2 but epilogue 0 adds none and writes no "
             "bias gradient; a bias needs an epilogue with bit 0 set (1, 3, "
             "5) or a bias gradient (16, 32), else the bias is 0xFFFFFFFF");
    BAD_GEMM(&bi, G.bias = BW_NONE, (void)0, at,
             "epilogue 1 adds a bias but there is no bias buffer (0xFFFFFFFF)");
    BAD_GEMM(&bi, G.bias = 7, (void)0, at, "buffer bias 7 out of range");
    BAD_GEMM(&bi, G.bias = 3, (void)0, at,
             "D is buffer 3 (result 0 'd'), which is also its bias");
  }
  {
    gcase in = c;
    in.d_inter = 60; /* buffer 2, allocated by instruction 13 */
    BAD_GEMM(&in, (bb.fusions[0].instrs[13] = bw_gemm_op(0),
                   bb.fusions[0].instrs[14] = bw_op(BW_ALLOC, 0, 2, 12)),
             (void)0,
             "invalid bundle: fusion 0 'mm': instruction 13 (GEMM): D is "
             "intermediate buffer 2, used before its ALLOC");
  }
  /* Registers. */
  BAD_GEMM(&c, G.k = 13, (void)0, at,
           "register 13 out of range in field k (plan has 13 registers)");
  BAD_GEMM(&c, G.stride_d = BW_NONE, (void)0, at,
           "register 4294967295 out of range in field stride_d");
  BAD_GEMM(&c, G.ldd = 12, (void)0, at,
           "field ldd reads register 12 before any instruction writes it");
  /* Dtypes, flags, epilogue, reserved. */
  BAD_GEMM(&c, G.ab_dtype = I32, (void)0, at,
           "A and B have dtype 3 (i32); a GEMM multiplies f16, bf16, f32 or "
           "f64");
  BAD_GEMM(&c, G.ab_dtype = 99, (void)0, at, "A and B have dtype 99 (?)");
  BAD_GEMM(&c, G.d_dtype = F64, (void)0, at,
           "D has dtype 8 (f64) with f32 operands; D has the operands' dtype, "
           "or f32 with f16 or bf16 operands (the combinations cuBLASLt runs)");
  BAD_GEMM(&c, G.d_dtype = F16, (void)0, at, "D has dtype 5 (f16) with f32 operands");
  BAD_GEMM(&c, (G.ab_dtype = F64, G.d_dtype = F32), (void)0, at,
           "D has dtype 7 (f32) with f64 operands");
  BAD_GEMM(&c, (G.ab_dtype = F16, G.d_dtype = BF16), (void)0, at,
           "D has dtype 6 (bf16) with f16 operands");
  BAD_GEMM(&c, G.flags = 8, (void)0, at,
           "unknown flags 0x8 (known: 1 TRANS_A, 2 TRANS_B, 4 TF32)");
  BAD_GEMM(&c, (G.ab_dtype = G.d_dtype = BF16, G.flags = TF32), (void)0, at,
           "the TF32 flag with bf16 operands: TF32 applies to f32 operands "
           "only");
  BAD_GEMM(&c, G.epilogue = 6, (void)0, at,
           "unknown epilogue 6 (0 none, 1 bias, 2 relu, 3 bias and relu, 4 gelu, 5 bias "
           "and gelu, 12 gelu keeping its input, 13 bias and gelu keeping its input, "
           "16 bias gradient of A, 32 bias gradient of B)");
  BAD_GEMM(&c, G.epilogue = FUSER_BUNDLE_GEMM_EPILOGUE_AUX, (void)0, at,
           "unknown epilogue 8");
  BAD_GEMM(&c, (void)0, bw_put_u32(d, REC + FUSER_BUNDLE_G_AUX, 1), at,
           "the field at offset 60 of its record is not 0: it is the "
           "pre-activation's buffer only with the AUX epilogue (bit 3)");
  /* The pre-activation (AUX): minor 2, a buffer the GEMM may write. */
  BAD_GEMM(&c, (G.epilogue = FUSER_BUNDLE_GEMM_EPILOGUE_GELU_AUX, G.aux = 2),
           bw_put_u32(d, FUSER_BUNDLE_H_MINOR, 1), at,
           "epilogue 12 writes the pre-activation (AUX), which needs format "
           "version 2.2 or later, but the header says minor version 1");
  BAD_GEMM(&c, (G.epilogue = FUSER_BUNDLE_GEMM_EPILOGUE_GELU_AUX, G.aux = 0), (void)0, at,
           "the pre-activation (AUX) is buffer 0, argument 0 'a': a GEMM writes "
           "it, so it is a result or an intermediate (arguments are read-only)");
  BAD_GEMM(&c, (G.epilogue = FUSER_BUNDLE_GEMM_EPILOGUE_GELU_AUX, G.aux = 9), (void)0, at,
           "buffer the pre-activation (AUX) 9 out of range");
  /* A bias gradient (BGRAD_A 16, BGRAD_B 32): minor 4, a bias buffer the
   * GEMM writes (a result or an intermediate, none of A, B and D), each
   * value alone. */
  {
    gcase ga = {F32, F32, TRANS_A, false, 3, 5, 4, 1, 3, 5, 5, 0, 0, 0, 0, 0,
                0, 0, false, false, 0, 0, false, BGRAD_A};
    gcase gb = {F32, F32, TRANS_B, false, 3, 5, 4, 1, 4, 4, 5, 0, 0, 0, 0, 0,
                0, 0, false, false, 0, 0, false, BGRAD_B};
    const gcase *both[2] = {&ga, &gb};
    const char *const text[2] = {
        "  12: gemm d = a^T @ b, bias gradient of A into db (f32 -> f32) "
        "m=r0 n=r1 k=r2 batch=r3 lda=r4 ldb=r5 ldd=r6 stride_a=r7 "
        "stride_b=r8 stride_d=r9\n",
        "  12: gemm d = a @ b^T, bias gradient of B into db (f32 -> f32) "
        "m=r0 n=r1 k=r2 batch=r3 lda=r4 ldb=r5 ldd=r6 stride_a=r7 "
        "stride_b=r8 stride_d=r9\n"};
    for (int q = 0; q < 2; q++) {
      bw_bundle bb;
      mm_bundle(&bb, both[q]);
      size_t n;
      unsigned char *d = bw_write(&bb, &n, NULL);
      CHECK(d[FUSER_BUNDLE_H_MINOR] == 4);
      fuser_bundle *b = NULL;
      if (EXPECT_OK(fuser_bundle_load(null_rt, d, n, &b))) {
        char plan[4096];
        fuser_fusion_plan_text(fuser_bundle_find_fusion(b, "mm"), plan,
                               sizeof plan);
        if (!CHECK(strstr(plan, text[q])))
          fprintf(stderr, "the plan text:\n%s", plan);
        fuser_bundle_destroy(b);
      }
      free(d);
    }
    BAD_GEMM(&ga, (void)0, bw_put_u32(d, FUSER_BUNDLE_H_MINOR, 3), at,
             "epilogue 16 writes a bias gradient (BGRAD_A), which needs "
             "bundle format version 2.4 or later, but the header says minor "
             "version 3");
    BAD_GEMM(&gb, (void)0, bw_put_u32(d, FUSER_BUNDLE_H_MINOR, 1), at,
             "epilogue 32 writes a bias gradient (BGRAD_B), which needs "
             "bundle format version 2.4 or later, but the header says minor "
             "version 1");
    BAD_GEMM(&ga, G.bias = BW_NONE, (void)0, at,
             "epilogue 16 writes a bias gradient (BGRAD_A) but there is no "
             "bias buffer (0xFFFFFFFF) to write it to");
    BAD_GEMM(&ga, G.bias = 9, (void)0, at, "buffer bias 9 out of range");
    /* Buffers 0 a, 1 b (arguments), 2 d, 3 db (results). */
    BAD_GEMM(&ga, G.bias = 0, (void)0, at,
             "the bias gradient (BGRAD_A) is buffer 0, argument 0 'a': a GEMM "
             "with epilogue 16 writes it, so it is a result or an "
             "intermediate (arguments are read-only)");
    BAD_GEMM(&gb, G.bias = 1, (void)0, at,
             "the bias gradient (BGRAD_B) is buffer 1, argument 1 'b': a GEMM "
             "with epilogue 32 writes it");
    BAD_GEMM(&ga, G.a = 3, (void)0, at,
             "the bias gradient (BGRAD_A) is buffer 3 (result 1 'db'), which "
             "is also its A");
    BAD_GEMM(&gb, G.b = 3, (void)0, at,
             "the bias gradient (BGRAD_B) is buffer 3 (result 1 'db'), which "
             "is also its B");
    BAD_GEMM(&ga, G.bias = 2, (void)0, at,
             "the bias gradient (BGRAD_A) is buffer 2 (result 0 'd'), which "
             "is also its D");
    /* An intermediate gradient: ALLOCated before the GEMM. */
    BAD_GEMM(&ga, (bb.fusions[0].num_inter = 1, G.bias = 4), (void)0, at,
             "bias is intermediate buffer 4, used before its ALLOC");
    {
      bw_bundle bb;
      mm_bundle(&bb, &ga);
      bw_fusion *f = &bb.fusions[0];
      f->num_inter = 1;
      f->instrs[12] = bw_const(12, 12);
      f->instrs[13] = bw_op(BW_ALLOC, 0, 4, 12);
      f->instrs[14] = bw_gemm_op(0);
      f->num_instrs = 15;
      f->gemms[0].bias = 4;
      size_t n;
      unsigned char *d = bw_write(&bb, &n, NULL);
      EXPECT_OK(load(d, n));
      free(d);
    }
    /* No AUX with it; the values alone: with another bit they are unknown. */
    BAD_GEMM(&ga, (void)0, bw_put_u32(d, REC + FUSER_BUNDLE_G_AUX, 3), at,
             "the field at offset 60 of its record is not 0");
    BAD_GEMM(&ga, G.epilogue = 17, (void)0, at,
             "unknown epilogue 17 (0 none, 1 bias, 2 relu, 3 bias and relu, "
             "4 gelu, 5 bias and gelu, 12 gelu keeping its input, 13 bias "
             "and gelu keeping its input, 16 bias gradient of A, 32 bias "
             "gradient of B)");
    BAD_GEMM(&ga, (G.epilogue = 48, bb.minor = 4), (void)0, at,
             "unknown epilogue 48 (");
    BAD_GEMM(&gb, (G.epilogue = 36, bb.minor = 4), (void)0, at,
             "unknown epilogue 36 (");
    BAD_GEMM(&ga, (G.epilogue = 24, bb.minor = 4), (void)0, at,
             "unknown epilogue 24 (");
    BAD_GEMM(&gb, (G.epilogue = 64, bb.minor = 4), (void)0, at,
             "unknown epilogue 64 (");
  }
  /* Minor 1 without a GEMM is fine; an opcode past GEMM is unknown. */
  {
    bw_bundle bb;
    tl_sample_bundle(&bb, false);
    bb.minor = 1;
    size_t n;
    unsigned char *d = bw_write(&bb, &n, NULL);
    EXPECT_OK(load(d, n));
    free(d);
  }
  {
    char unknown[64];
    snprintf(unknown, sizeof unknown, "instruction 12: unknown opcode %d",
             FUSER_BUNDLE_OP_LAST + 1);
    BAD_GEMM(&c, (void)0, bw_put_u16(d, INS(12), FUSER_BUNDLE_OP_LAST + 1),
             unknown);
  }
}

/* ---- random corruptions, on a driver that checks every GEMM's reach --------- */

/* The memory a call may touch: the call's arguments and results, and
 * every block the runtime allocated (its cache keeps them across calls;
 * their addresses are never reused here). Nothing is dereferenced. */
typedef struct region {
  uint64_t begin, end;
} region;
#define MAX_REGIONS 4096
static region io_regions[16], alloc_regions[MAX_REGIONS];
static int num_io, num_allocs;
static uint64_t next_alloc;
static long gemms_checked, gemm_escapes;

static fuser_error *c_alloc(void *c, size_t bytes, uint64_t *out) {
  (void)c;
  if (bytes > (UINT64_C(1) << 36) || num_allocs == MAX_REGIONS)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY, "checker: %zu bytes",
                              bytes);
  *out = next_alloc;
  alloc_regions[num_allocs++] = (region){next_alloc, next_alloc + bytes};
  next_alloc += ((bytes + 0xFFFF) & ~(uint64_t)0xFFFF) + 0x10000;
  return NULL;
}
static fuser_error *c_free(void *c, uint64_t p) {
  (void)c, (void)p;
  return NULL;
}

/* Nothing is at those addresses: copies and zeroing do nothing. */
static fuser_error *c_h2d(void *c, uint64_t d, const void *s, size_t n) {
  (void)c, (void)d, (void)s, (void)n;
  return NULL;
}
static fuser_error *c_d2h(void *c, void *d, uint64_t s, size_t n) {
  (void)c, (void)s;
  memset(d, 0, n);
  return NULL;
}

static bool in_regions(const region *r, int n, uint64_t p, uint64_t bytes) {
  for (int i = 0; i < n; i++)
    if (p >= r[i].begin && p <= r[i].end && bytes <= r[i].end - p) return true;
  return false;
}
static bool inside(uint64_t p, uint64_t bytes) {
  return !bytes || in_regions(io_regions, num_io, p, bytes) ||
         in_regions(alloc_regions, num_allocs, p, bytes);
}

/* The bytes a matrix reaches, or UINT64_MAX past 2^64. */
static uint64_t span(int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                     int64_t stride, uint64_t esz) {
  if (!rows || !cols || !batch) return 0;
  uint64_t last, step;
  if (__builtin_mul_overflow((uint64_t)(batch - 1), (uint64_t)stride, &last) ||
      __builtin_mul_overflow((uint64_t)(rows - 1), (uint64_t)ld, &step) ||
      __builtin_add_overflow(last, step, &last) ||
      __builtin_add_overflow(last, (uint64_t)cols, &last) ||
      __builtin_mul_overflow(last, esz, &last))
    return UINT64_MAX;
  return last;
}

static fuser_error *c_gemm(void *c, const fuser_gemm *g, void *s) {
  (void)c, (void)s;
  bool ta = g->flags & TRANS_A, tb = g->flags & TRANS_B;
  /* A bias gradient is written: m elements (BGRAD_A) or n, one batch. */
  bool bgrad = g->epilogue == BGRAD_A || g->epilogue == BGRAD_B;
  uint64_t ab = esize((uint8_t)g->ab_dtype), dd = esize((uint8_t)g->d_dtype);
  bool ok = g->m > 0 && g->n > 0 && g->k >= 0 && g->batch > 0 &&
            g->workspace == 0 && g->workspace_bytes == 0 &&
            inside(g->a, span(ta ? g->k : g->m, ta ? g->m : g->k, g->lda,
                              g->batch, g->stride_a, ab)) &&
            inside(g->b, span(tb ? g->n : g->k, tb ? g->k : g->n, g->ldb,
                              g->batch, g->stride_b, ab)) &&
            inside(g->d, span(g->m, g->n, g->ldd, g->batch, g->stride_d, dd)) &&
            (!g->bias ||
             inside(g->bias, (uint64_t)(g->epilogue == BGRAD_A ? g->m : g->n) *
                                 dd)) &&
            ab && dd &&
            (g->bias != 0) == ((g->epilogue & 1) != 0 || bgrad) &&
            (!bgrad || g->batch == 1);
  gemms_checked++;
  if (!ok) {
    gemm_escapes++;
    fprintf(stderr, "fuzz: a GEMM the runtime let through reaches outside "
                    "its buffers: m=%lld n=%lld k=%lld batch=%lld\n",
            (long long)g->m, (long long)g->n, (long long)g->k,
            (long long)g->batch);
  }
  return NULL;
}

static void fuzz_one(const fuser_driver *drv, const unsigned char *base,
                     size_t base_size, size_t hot_begin, size_t hot_end,
                     long iterations, uint64_t seed) {
  fuser_rt *rt = NULL;
  if (!EXPECT_OK(fuser_rt_create_with_driver(drv, NULL, &rt))) return;
  num_allocs = 0;
  next_alloc = UINT64_C(1) << 50;
  uint64_t s = seed;
  long loaded = 0;
  for (long it = 0; it < iterations; it++) {
    unsigned char *d = malloc(base_size);
    memcpy(d, base, base_size);
    int flips = 1 + (int)(it % 3);
    for (int k = 0; k < flips; k++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      size_t at = (size_t)(s >> 33) % base_size;
      /* Mostly the GEMM record and the instructions. */
      if (it % 4 != 0) at = hot_begin + at % (hot_end - hot_begin);
      if (it % 5 == 0)
        d[at] = (unsigned char)(s >> 40);
      else
        d[at] ^= (unsigned char)(1u << ((s >> 20) % 8));
    }
    bw_fix_checksum(d, base_size);
    fuser_bundle *b = NULL;
    fuser_error *e = fuser_bundle_load(rt, d, base_size, &b);
    if (e) {
      if (fuser_error_code_of(e) != FUSER_ERROR_INVALID_BUNDLE) {
        fprintf(stderr, "fuzz %ld: %s\n", it, fuser_error_message(e));
        tl_failures++;
      }
      fuser_error_destroy(e);
      free(d);
      continue;
    }
    loaded++;
    for (size_t i = 0; i < fuser_bundle_num_fusions(b); i++) {
      const fuser_fusion *f = fuser_bundle_get_fusion(b, i);
      size_t na = fuser_fusion_num_args(f), nr = fuser_fusion_num_results(f),
             nd = fuser_fusion_num_dyn_dims(f);
      if (na > 8 || nr > 8 || nd > 8) continue;
      int64_t dims[8];
      for (int k = 0; k < 8; k++) dims[k] = 3 + k;
      uint64_t io[16];
      num_io = 0;
      bool ok = true;
      for (size_t t = 0; t < na + nr && ok; t++) {
        uint64_t bytes = 0;
        fuser_error *te = fuser_fusion_tensor_bytes(f, t, dims, nd, &bytes);
        if (te) {
          fuser_error_destroy(te);
          ok = false;
          break;
        }
        io[t] = ((uint64_t)t + 1) << 44;
        io_regions[num_io++] = (region){io[t], io[t] + bytes};
      }
      if (!ok) continue;
      fuser_error_destroy(fuser_run(f, io, io + na, dims, nd, NULL, NULL));
      uint64_t bytes;
      fuser_error_destroy(
          fuser_fusion_scratch_size(f, NULL, NULL, dims, nd, &bytes));
    }
    fuser_bundle_destroy(b);
    free(d);
  }
  fuser_rt_destroy(rt);
  printf("fuzz: %ld corruptions, %ld loaded\n", iterations, loaded);
}

static void test_fuzz(long iterations) {
  fuser_driver d = tl_null_driver;
  d.name = "checker";
  d.mem_alloc = c_alloc;
  d.mem_free = c_free;
  d.copy_h2d = c_h2d;
  d.copy_d2h = c_d2h;
  d.gemm = c_gemm;
  gcase cases[4] = {
      {F16, F32, TRANS_B, true, 3, 5, 4, 2, 4, 4, 5, 12, 0, 15, 0, 0, 0, 0,
       true, false, 0, FUSER_BUNDLE_GEMM_EPILOGUE_GELU, false, 0},
      {F32, F32, TRANS_A, false, 3, 5, 4, 3, 3, 5, 7, 0, 20, 21, 0, 0, 0, 0,
       false, false, 0, FUSER_BUNDLE_GEMM_EPILOGUE_RELU, false, 0},
      {F64, F64, 0, false, 3, 5, 4, 1, 4, 5, 5, 0, 0, 0, 0, 0, 0, 0, false,
       false, 120, 0, false, 0},
      {F32, F32, TRANS_A, false, 3, 5, 4, 1, 3, 5, 5, 0, 0, 0, 0, 0, 0, 0,
       true, false, 0, 0, false, BGRAD_A}};
  for (int q = 0; q < 4; q++) {
    bw_bundle bb;
    bw_layout L;
    mm_bundle(&bb, &cases[q]);
    size_t n;
    unsigned char *base = bw_write(&bb, &n, &L);
    /* The hot part: from the GEMM record through the instructions. */
    size_t hot_end = L.instrs[0] + FUSER_BUNDLE_INSTR_SIZE * bb.fusions[0].num_instrs;
    fuzz_one(&d, base, n, L.gemms[0][0], hot_end, iterations,
             0x9E3779B97F4A7C15ull + (uint64_t)q);
    free(base);
  }
  printf("fuzz: %ld GEMMs reached the driver, all inside their buffers\n",
         gemms_checked);
  CHECK(gemm_escapes == 0);
  CHECK(gemms_checked > 0);
}

/* ---- threads --------------------------------------------------------------------- */

#define THREADS 4
#define RUNS 80

static fuser_rt *thread_rt;
static const fuser_fusion *thread_f;
static rows_run thread_runs[THREADS];
static int thread_errors;
static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  uintptr_t t = (uintptr_t)arg;
  void *stream = (void *)(0x1000 * (t + 1));
  int bad = 0;
  for (int i = 0; i < RUNS; i++) {
    /* Over 256 shapes among the threads: entries are evicted while
     * others use them. */
    int64_t m = 1 + (int64_t)((t * 97 + (uintptr_t)i * 31) % ROWS_MAX);
    if (!rows_once(&thread_runs[t], thread_rt, m, stream)) bad++;
  }
  pthread_mutex_lock(&thread_lock);
  thread_errors += bad;
  pthread_mutex_unlock(&thread_lock);
  return NULL;
}

static void test_threads(void) {
  unsetenv("FUSER_FAKE_LOG"); /* no log: the fake's fast path */
  thread_rt = tl_fake_rt(fake);
  if (!thread_rt) return;
  size_t size;
  unsigned char *bytes = rows_bundle(&size);
  fuser_bundle *b = NULL;
  EXPECT_OK(fuser_bundle_load(thread_rt, bytes, size, &b));
  free(bytes);
  thread_f = fuser_bundle_find_fusion(b, "rows");
  bool ok = thread_f != NULL;
  for (int t = 0; t < THREADS && ok; t++)
    ok = rows_setup(&thread_runs[t], thread_rt, thread_f);
  long creates = tl_fake_hook(fake_lt, "fuser_fake_cublaslt_creates");
  if (ok) {
    pthread_t th[THREADS];
    for (uintptr_t t = 0; t < THREADS; t++)
      pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    CHECK(thread_errors == 0);
    CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_live") <= 1 + 256 * 4);
    /* More than 256 entries were made (5 objects each): some evicted. */
    CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_creates") - creates >
          1 + 256 * 5);
    for (int t = 0; t < THREADS; t++) rows_free(&thread_runs[t], thread_rt);
  }
  fuser_bundle_destroy(b);
  fuser_rt_destroy(thread_rt);
  CHECK(tl_fake_hook(fake_lt, "fuser_fake_cublaslt_live") == 0);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_gemm FAKE_CUDA FAKE_CUBLASLT [FUZZ_ITERATIONS]\n");
    return 2;
  }
  fake = argv[1];
  fake_lt = argv[2];
  long iterations = argc > 3 ? atol(argv[3]) : 3000;
  /* The fake cuBLASLt, and the fake CUDA driver's names in its log; never
   * the machine's cuBLASLt. */
  setenv("FUSER_CUBLASLT_LIBRARY", fake_lt, 1);
  setenv("FUSER_FAKE_CUDA", fake, 1);
  unsetenv("FUSER_FAKE_CUBLASLT_FAIL");
  unsetenv("FUSER_FAKE_CUBLASLT_LOG");
  tl_log_setup("gemm");
  EXPECT_OK(fuser_rt_create_with_driver(&tl_null_driver, NULL, &null_rt));
  test_loader();
  test_calls();
  test_more_calls();
  test_bgrad_calls();
  test_cache();
  test_empty();
  test_library_errors();
  test_run_checks();
  test_scratch();
  test_pluggable();
  test_fuzz(iterations);
  test_threads();
  fuser_rt_destroy(null_rt);
  return tl_finish("test_gemm");
}
