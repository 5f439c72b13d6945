/* Running a fusion: the plan interpreter of docs/bundle.md.
 *
 * The hot path takes no lock and allocates nothing: the per-call working
 * memory (registers, buffer addresses, parameter pointers) lives on the
 * stack unless a plan is unusually large, the module cache is checked with
 * one acquire load, and the parameter array points straight at the
 * registers and buffer addresses.
 *
 * A plan in which something can fail after its first LAUNCH or GEMM is run
 * twice: a first pass does everything but enqueue (checks, arithmetic,
 * allocations, launch sizes and parameter ranges, each GEMM's sizes and
 * reach, the GEMM workspace, each collective's count and reach), and only
 * when it succeeds a second pass enqueues. So a call that fails for
 * anything but a driver error launches nothing.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAME_STACK_BYTES 8192
#define SMEM_DEFAULT_LIMIT (48u * 1024u)
#define ALLOC_ALIGN 256u

typedef enum mode {
  MODE_PREPARE, /* everything but enqueueing */
  MODE_LAUNCH,  /* second pass: allocations are done, enqueue */
  MODE_BOTH,    /* single pass */
  MODE_QUERY,   /* scratch size query: carve from address 0, no driver */
} mode;

typedef struct call {
  const fuser_fusion *f;
  fuser_rt *rt;
  int64_t *regs;
  uint64_t *bufs;
  fr_block **blocks;
  void **pp;
  int32_t *i32;
  const int64_t *dims;
  void *stream;
  bool use_scratch;
  uint64_t scratch, scratch_size, scratch_used;
  bool launched;
  uint32_t num_blocks;
  /* Each intermediate's size in bytes, from its ALLOC (the GEMMs' reach
   * checks). */
  int64_t *inter_bytes;
  /* The GEMM workspace of the call (one for all its GEMMs: they run in
   * order on its stream), once taken. */
  uint64_t workspace;
  bool workspace_set;
  int64_t *inferred;        /* fuser_fusion_infer_dims: dims being filled */
  unsigned char *defined;   /* ...and which result dims RESULT_DIM set */
  fr_span *spans;           /* fuser_run: the buffers' byte ranges */
  /* fuser_run_options.arg_strides (checked by check_buffers), or NULL:
   * every argument dense, as in the queries. */
  const int64_t *const *arg_strides;
  /* fuser_run_options.comm of a sharded fusion (checked by check_grid),
   * or NULL. */
  fuser_comm *comm;
} call;

static fuser_error *fail(const call *c, uint32_t i, fuser_error_code code,
                         const char *format, ...)
    __attribute__((format(printf, 4, 5)));
static fuser_error *fail(const call *c, uint32_t i, fuser_error_code code,
                         const char *format, ...) {
  char what[512];
  va_list ap;
  va_start(ap, format);
  vsnprintf(what, sizeof what, format, ap);
  va_end(ap);
  return fuser_error_create(code, "fusion '%s': instruction %u (%s): %s",
                            c->f->name, i, fr_op_names[c->f->instrs[i].op], what);
}

static fuser_error *assert_failed(const call *c, uint32_t i,
                                  const fr_instr *in) {
  /* The message with r[b] for the first "{}" and r[dst] for the second,
   * each only when its register is given. */
  char buf[1024];
  size_t n = 0;
  int slot = 0;
  const char *m = in->msg;
  while (*m && n + 1 < sizeof buf) {
    if (m[0] == '{' && m[1] == '}' && slot < 2) {
      uint32_t reg = slot == 0 ? in->b : in->dst;
      slot++;
      if (reg != FR_NONE) {
        int w = snprintf(buf + n, sizeof buf - n, "%" PRId64, c->regs[reg]);
        if (w > 0) n += (size_t)w < sizeof buf - n ? (size_t)w : sizeof buf - n - 1;
        m += 2;
        continue;
      }
    }
    buf[n++] = *m++;
  }
  buf[n] = 0;
  return fuser_error_create(FUSER_ERROR_ASSERTION,
                            "fusion '%s': instruction %u (ASSERT) failed: %s",
                            c->f->name, i, buf);
}

/* INDEX_CHECK: waits for the call's kernels, reads the index error word
 * and fails the call when a kernel recorded an index out of range. */
static fuser_error *index_check(call *c, uint32_t i, const fr_instr *in) {
  const fuser_driver *d = c->rt->drv;
  int64_t w[FUSER_INDEX_WORD_SIZE] = {0};
  fuser_error *e = d->synchronize(c->rt->dctx, c->stream, 0);
  if (!e) e = d->copy_d2h(c->rt->dctx, w, c->bufs[in->a], sizeof w);
  if (e)
    return fr_error_wrap(e, "fusion '%s': instruction %u (INDEX_CHECK): reading "
                            "the index error word", c->f->name, i);
  if (w[FUSER_INDEX_WORD_FLAG] == 0) return NULL;
  /* Line SITE of the sites string names the op. */
  const char *site = in->msg ? in->msg : "";
  for (int64_t k = 0; k < w[FUSER_INDEX_WORD_SITE] && site; k++) {
    site = strchr(site, '\n');
    if (site) site++;
  }
  if (!site || !*site) site = "an indexing op the bundle does not name";
  int len = (int)strcspn(site, "\n");
  /* After a tab, what the element counts in and what was not done (a
   * scatter's); a gather's by default. */
  const char *what =
      "of its result (row-major); nothing was read there and the element is 0";
  int what_len = (int)strlen(what);
  const char *tab = memchr(site, '\t', (size_t)len);
  if (tab) {
    what = tab + 1;
    what_len = len - (int)(what - site);
    len = (int)(tab - site);
  }
  return fuser_error_create(
      FUSER_ERROR_OUT_OF_RANGE,
      "fusion '%s': index %" PRId64 " is out of range [0, %" PRId64
      ") in %.*s, at element %" PRId64 " %.*s",
      c->f->name, w[FUSER_INDEX_WORD_VALUE], w[FUSER_INDEX_WORD_BOUND],
      len, site, w[FUSER_INDEX_WORD_ELEMENT], what_len, what);
}

/* Computes a launch's sizes and parameters, and enqueues it if `enqueue`. */
static fuser_error *launch(call *c, uint32_t i, const fr_launch *L,
                           bool enqueue) {
  const int64_t *r = c->regs;
  fuser_launch_dims d;
  bool empty = false;
  for (int k = 0; k < 3; k++) {
    int64_t g = r[L->grid[k]], b = r[L->block[k]];
    if (g < 0 || g > (int64_t)UINT32_MAX)
      return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                  "launch %u '%s': grid %c = %" PRId64 " is out of range",
                  (unsigned)(L - c->f->launches), L->kernel_name, "xyz"[k], g);
    if (b <= 0 || b > (int64_t)UINT32_MAX)
      return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                  "launch %u '%s': block %c = %" PRId64 " is out of range",
                  (unsigned)(L - c->f->launches), L->kernel_name, "xyz"[k], b);
    if (g == 0) empty = true;
    d.grid[k] = (uint32_t)g;
    d.block[k] = (uint32_t)b;
  }
  int64_t smem = r[L->smem];
  if (smem < 0 || smem > (int64_t)UINT32_MAX)
    return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                "launch %u '%s': dynamic shared memory %" PRId64
                " bytes is out of range",
                (unsigned)(L - c->f->launches), L->kernel_name, smem);
  d.shared_mem_bytes = (uint32_t)smem;
  for (uint32_t p = 0; p < L->num_params; p++) {
    uint32_t x = L->param_index[p];
    switch (L->param_kinds[p]) {
    case PARAM_PTR:
      c->pp[p] = &c->bufs[x];
      break;
    case PARAM_I64:
      c->pp[p] = &c->regs[x];
      break;
    default: {
      int64_t v = r[x];
      if (v < INT32_MIN || v > INT32_MAX)
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "launch %u '%s': parameter %u is i32 but register %u "
                    "holds %" PRId64 ", which does not fit in 32 bits",
                    (unsigned)(L - c->f->launches), L->kernel_name, p, x, v);
      c->i32[p] = (int32_t)v;
      c->pp[p] = &c->i32[p];
    }
    }
  }
  /* A grid with no blocks has nothing to do (an empty tensor): skip it. */
  if (!enqueue || empty) return NULL;

  fuser_rt *rt = c->rt;
  fr_kernel *K = L->kernel;
  if (d.shared_mem_bytes > SMEM_DEFAULT_LIMIT &&
      rt->drv->function_set_max_dynamic_shared &&
      d.shared_mem_bytes > atomic_load_explicit(&K->max_dynamic_shared,
                                                memory_order_acquire)) {
    fuser_error *e = NULL;
    pthread_mutex_lock(&rt->module_lock);
    if (d.shared_mem_bytes >
        atomic_load_explicit(&K->max_dynamic_shared, memory_order_relaxed)) {
      e = rt->drv->function_set_max_dynamic_shared(rt->dctx, K->function,
                                                   d.shared_mem_bytes);
      if (!e)
        atomic_store_explicit(&K->max_dynamic_shared, d.shared_mem_bytes,
                              memory_order_release);
    }
    pthread_mutex_unlock(&rt->module_lock);
    if (e)
      return fr_error_wrap(e, "fusion '%s': launch %u '%s'", c->f->name,
                           (unsigned)(L - c->f->launches), L->kernel_name);
  }
  fuser_error *e = rt->drv->launch(rt->dctx, K->function, &d, c->stream,
                                   c->pp, L->param_sizes, L->num_params);
  if (e) {
    /* Which tensor each pointer parameter is, so that a driver's message
     * about "parameter 1" (the emulator's bounds checks) names the tensor. */
    char legend[512];
    size_t n = 0;
    legend[0] = 0;
    uint32_t nio = c->f->num_args + c->f->num_results;
    for (uint32_t p = 0; p < L->num_params && n + 80 < sizeof legend; p++) {
      if (L->param_kinds[p] != PARAM_PTR)
        continue;
      uint32_t buf = L->param_index[p];
      const char *what = buf < c->f->num_args ? "argument"
                         : buf < nio          ? "result"
                                              : "intermediate";
      int w = buf < nio
                  ? snprintf(legend + n, sizeof legend - n, "%s%u = %s '%.40s'",
                             n ? ", " : " [kernel parameters: ", p, what,
                             c->f->tensors[buf].name)
                  : snprintf(legend + n, sizeof legend - n, "%s%u = %s %u",
                             n ? ", " : " [kernel parameters: ", p, what, buf - nio);
      if (w > 0) n += (size_t)w;
    }
    if (n && n + 2 < sizeof legend) {
      legend[n++] = ']';
      legend[n] = 0;
    }
    fuser_error *w = fuser_error_create(fuser_error_code_of(e), "fusion '%s': launch %u '%s': %s%s",
                                        c->f->name, (unsigned)(L - c->f->launches),
                                        L->kernel_name, fuser_error_message(e), legend);
    fuser_error_destroy(e);
    return w;
  }
  c->launched = true;
  return NULL;
}

/* Takes `bytes` from the user scratch (or, in a query, counts them), 256
 * bytes aligned after what the call took before; `what` names them in the
 * message when the scratch is too small. */
static fuser_error *carve(call *c, uint32_t i, uint64_t bytes, mode md,
                          const char *what, uint64_t *out) {
  const fuser_fusion *f = c->f;
  uint64_t off = (c->scratch_used + (ALLOC_ALIGN - 1)) &
                 ~(uint64_t)(ALLOC_ALIGN - 1);
  uint64_t end;
  if (off < c->scratch_used || __builtin_add_overflow(off, bytes, &end))
    return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                "intermediates overflow the address space");
  if (md != MODE_QUERY && end > c->scratch_size)
    return fuser_error_create(
        FUSER_ERROR_OUT_OF_MEMORY,
        "fusion '%s': instruction %u (%s): the user scratch of %" PRIu64
        " bytes is too small: %s needs bytes %" PRIu64 " .. %" PRIu64
        " (fuser_fusion_scratch_size gives what the call needs)",
        f->name, i, fr_op_names[f->instrs[i].op], c->scratch_size, what, off,
        end);
  *out = c->scratch + off;
  c->scratch_used = end;
  return NULL;
}

/* Allocates intermediate buffer in->a: from the user scratch, or (from the
 * second argument on) the runtime's cache. */
static fuser_error *alloc_one(call *c, uint32_t i, const fr_instr *in,
                              mode md) {
  const fuser_fusion *f = c->f;
  int64_t *r = c->regs;
  uint32_t nio = f->num_args + f->num_results;
  int64_t bytes = r[in->b];
  if (bytes < 0)
    return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                "intermediate buffer %u of %" PRId64 " bytes", in->a,
                bytes);
  if (c->use_scratch || md == MODE_QUERY) {
    char what[64];
    snprintf(what, sizeof what, "intermediate buffer %u", in->a);
    fuser_error *e = carve(c, i, (uint64_t)bytes, md, what, &c->bufs[in->a]);
    if (e) return e;
  } else {
    fr_block *b;
    fuser_error *e = fr_alloc_acquire(c->rt, (uint64_t)bytes, c->stream,
                                      &b);
    if (e)
      return fr_error_wrap(e, "fusion '%s': instruction %u (ALLOC)",
                           f->name, i);
    c->blocks[in->a - nio] = b;
    c->num_blocks++;
    c->bufs[in->a] = b->ptr;
  }
  return NULL;
}

/* Zeroes `bytes` at `ptr`, ordered before the call's later launches. */
static fuser_error *zero_buffer(call *c, uint32_t i, uint64_t ptr,
                                uint64_t bytes) {
  const fuser_driver *d = c->rt->drv;
  fuser_error *e;
  if (bytes == 0) return NULL;
  if (d->mem_zero) {
    e = d->mem_zero(c->rt->dctx, ptr, (size_t)bytes, c->stream);
  } else {
    /* Earlier kernels on the stream may still use the bytes. The zeros are
     * copied from one host block of at most a thousandth of the buffer (or
     * 1 MiB), in at most 1024 copies: never a host copy of a buffer that
     * may be as large as the device's memory. */
    uint64_t block64 = bytes / 1024 + (bytes % 1024 != 0);
    if (block64 < (1u << 20)) block64 = 1u << 20;
    if (block64 > bytes) block64 = bytes;
    if (block64 > SIZE_MAX)
      return fail(c, i, FUSER_ERROR_OUT_OF_MEMORY,
                  "no host memory for %" PRIu64 " zero bytes", block64);
    size_t block = (size_t)block64;
    void *zeros = calloc(1, block);
    if (!zeros)
      return fail(c, i, FUSER_ERROR_OUT_OF_MEMORY,
                  "no host memory for %zu zero bytes", block);
    e = d->synchronize(c->rt->dctx, c->stream, 0);
    for (uint64_t done = 0; !e && done < bytes; done += block) {
      size_t n = bytes - done < block ? (size_t)(bytes - done) : block;
      e = d->copy_h2d(c->rt->dctx, ptr + done, zeros, n);
    }
    free(zeros);
  }
  return e ? fr_error_wrap(e, "fusion '%s': instruction %u (ALLOC): zeroing",
                           c->f->name, i)
           : NULL;
}

/* The sizes of tensor `t`'s dims for the call's dynamic dims. */
static void tensor_sizes(const fuser_fusion *f, const int64_t *dims,
                         uint32_t t, int64_t *out) {
  const fuser_tensor_info *ti = &f->tensors[t];
  uint32_t k = f->tensor_dyn_begin[t];
  for (uint32_t d = 0; d < ti->rank; d++)
    out[d] = ti->dims[d] == -1 ? dims[k++] : ti->dims[d];
}

/* The dense (row-major) strides of dims `size`: each the product of the
 * sizes after it, a size 0 counting as 1 (as PyTorch's contiguous strides
 * do). Only the dims of an empty tensor can make one overflow (a non-empty
 * tensor has fewer than 2^63 elements: check_buffers); such a stride is
 * INT64_MAX, for messages. */
static void dense_strides(const int64_t *size, uint32_t rank, int64_t *out) {
  int64_t s = 1;
  for (uint32_t d = rank; d-- > 0;) {
    out[d] = s;
    if (__builtin_mul_overflow(s, size[d] > 1 ? size[d] : 1, &s))
      s = INT64_MAX;
  }
}

/* STRIDE: the stride of dim `b` of argument `a` as the caller passed it,
 * else (an argument passed dense, or a query, which has no strides) its
 * dense stride. */
static fuser_error *stride_of(call *c, uint32_t i, const fr_instr *in,
                              int64_t *out) {
  const int64_t *passed = c->arg_strides ? c->arg_strides[in->a] : NULL;
  if (passed) {
    *out = passed[in->b];
    return NULL;
  }
  int64_t size[FUSER_MAX_RANK], s = 1;
  const fuser_tensor_info *t = &c->f->tensors[in->a];
  tensor_sizes(c->f, c->dims, in->a, size);
  for (uint32_t d = in->b + 1; d < t->rank; d++)
    if (__builtin_mul_overflow(s, size[d] > 1 ? size[d] : 1, &s))
      return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                  "the dense stride of dim %u of argument %u '%s' overflows "
                  "(the tensor is empty, its other dims too large)",
                  in->b, in->a, t->name);
  *out = s;
  return NULL;
}

/* ---- GEMM --------------------------------------------------------------- */

/* The bytes of tensor `t` this call may touch: element size times its dims
 * for a dense one; for a view (an argument with a strides record, or
 * passed with strides) the span of its strides, those passed, else the
 * static ones it was compiled with and the dense one for each dynamic one
 * (what STRIDE reads in a query). The figure check_buffers checks in
 * fuser_run. False when it does not fit in 64 bits. */
static bool tensor_bytes(const call *c, uint32_t t, uint64_t *out) {
  const fuser_fusion *f = c->f;
  const fuser_tensor_info *ti = &f->tensors[t];
  int64_t size[FUSER_MAX_RANK], dense[FUSER_MAX_RANK];
  tensor_sizes(f, c->dims, t, size);
  for (uint32_t d = 0; d < ti->rank; d++)
    if (size[d] == 0) {
      *out = 0;
      return true;
    }
  const int64_t *passed =
      t < f->num_args && c->arg_strides ? c->arg_strides[t] : NULL;
  uint64_t esz = fuser_dtype_size(ti->dtype), n = 1, step;
  if (!passed && !ti->strides) {
    for (uint32_t d = 0; d < ti->rank; d++)
      if (__builtin_mul_overflow(n, (uint64_t)size[d], &n)) return false;
    return !__builtin_mul_overflow(n, esz, out);
  }
  dense_strides(size, ti->rank, dense);
  for (uint32_t d = 0; d < ti->rank; d++) {
    int64_t s = passed                   ? passed[d]
                : ti->strides[d] != -1 ? ti->strides[d]
                                         : dense[d];
    if (s < 0 ||
        __builtin_mul_overflow((uint64_t)(size[d] - 1), (uint64_t)s, &step) ||
        __builtin_add_overflow(n, step, &n))
      return false;
  }
  return !__builtin_mul_overflow(n, esz, out);
}

/* How far a matrix of `rows` x `cols` elements, row-major with `ld`
 * elements from one row to the next, `batch` times `stride` elements
 * apart, reaches from its start: the bytes up to its last element (0 when
 * it has none). False when that does not fit in 64 bits. */
static bool gemm_reach(int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                       int64_t stride, uint64_t esz, uint64_t *out) {
  uint64_t last, step;
  if (rows == 0 || cols == 0 || batch == 0) {
    *out = 0;
    return true;
  }
  return !__builtin_mul_overflow((uint64_t)(batch - 1), (uint64_t)stride,
                                 &last) &&
         !__builtin_mul_overflow((uint64_t)(rows - 1), (uint64_t)ld, &step) &&
         !__builtin_add_overflow(last, step, &last) &&
         !__builtin_add_overflow(last, (uint64_t)cols, &last) &&
         !__builtin_mul_overflow(last, esz, out);
}

/* The checks of a GEMM's values for this call, before anything of the call
 * is enqueued (they are part of the first pass of a two-pass plan): sizes
 * and batch strides >= 0, each leading dimension at least 1 and at least
 * the length of the rows it steps over, D's batch stride not 0 when batches
 * would write the same D, with a bias gradient one batch and a D of
 * elements, and every operand inside its buffer for this call (an
 * argument's or result's bytes at the call's dims, a view's span, an
 * intermediate's ALLOC). All OUT_OF_RANGE, as a launch's sizes are. */
static fuser_error *gemm_check(const call *c, uint32_t i, const fr_gemm *g,
                               const int64_t *v, mode md) {
  const fuser_fusion *f = c->f;
  int64_t m = v[FR_G_M], n = v[FR_G_N], k = v[FR_G_K], batch = v[FR_G_BATCH];
  bool ta = g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_A,
       tb = g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_B;
  static const int nonneg[] = {FR_G_M,        FR_G_N,        FR_G_K,
                               FR_G_BATCH,    FR_G_STRIDE_A, FR_G_STRIDE_B,
                               FR_G_STRIDE_D};
  for (size_t q = 0; q < sizeof nonneg / sizeof nonneg[0]; q++)
    if (v[nonneg[q]] < 0)
      return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                  "%s = %" PRId64 " (register %u) is negative",
                  fr_gemm_reg_names[nonneg[q]], v[nonneg[q]],
                  g->reg[nonneg[q]]);
  /* A bias gradient is one vector, of one matrix: cuBLASLt's BGRADA and
   * BGRADB write it for one batch, and not for an empty D (the gradient
   * of A needs n > 0, the gradient of B m > 0). */
  bool bgrad = FR_GEMM_BGRAD(g->epilogue),
       bgrad_a = g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A;
  if (bgrad) {
    const char *grad = bgrad_a ? "of A (epilogue 16, BGRAD_A)"
                               : "of B (epilogue 32, BGRAD_B)";
    if (batch != 1)
      return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                  "batch = %" PRId64 " (register %u) with a bias gradient "
                  "%s: a GEMM that writes one runs exactly one batch",
                  batch, g->reg[FR_G_BATCH], grad);
    int reg = bgrad_a ? FR_G_N : FR_G_M;
    if (v[reg] == 0)
      return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                  "%s = 0 (register %u) with a bias gradient %s: cuBLASLt "
                  "cannot write a bias gradient for an empty D (m x n = %"
                  PRId64 " x %" PRId64 ")",
                  fr_gemm_reg_names[reg], g->reg[reg], grad, m, n);
  }
  /* The stored matrices, rows x cols, row-major: A is m x k (k x m with
   * TRANS_A), B is k x n (n x k with TRANS_B), D is m x n. */
  struct {
    const char *name;
    int ld;
    int64_t rows, cols;
    const char *shape, *flag;
  } mat[3] = {{"A", FR_G_LDA, ta ? k : m, ta ? m : k, ta ? "k x m" : "m x k",
               ta ? " with TRANS_A" : ""},
              {"B", FR_G_LDB, tb ? n : k, tb ? k : n, tb ? "n x k" : "k x n",
               tb ? " with TRANS_B" : ""},
              {"D", FR_G_LDD, m, n, "m x n", ""}};
  /* A query has no strides (STRIDE gives the dense ones): where the
   * fusion takes views, leading dimensions and batch strides may come from
   * them, so they and the reach are checked when fuser_run passes them. */
  if (md == MODE_QUERY && f->any_strides) return NULL;
  for (int q = 0; q < 3; q++) {
    int64_t ld = v[mat[q].ld], need = mat[q].cols > 1 ? mat[q].cols : 1;
    if (ld < need)
      return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                  "%s = %" PRId64 " (register %u) is less than %" PRId64
                  ", the length of %s's rows (%s is %s = %" PRId64
                  " x %" PRId64 "%s, row-major)",
                  fr_gemm_reg_names[mat[q].ld], ld, g->reg[mat[q].ld], need,
                  mat[q].name, mat[q].name, mat[q].shape, mat[q].rows,
                  mat[q].cols, mat[q].flag);
  }
  if (batch > 1 && m > 0 && n > 0 && v[FR_G_STRIDE_D] == 0)
    return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                "stride_d = 0 (register %u) with batch %" PRId64
                ": every batch would write the same D",
                g->reg[FR_G_STRIDE_D], batch);
  /* The pre-activation shares D's layout; cuBLASLt's GELU_AUX takes its
   * leading dimension and batch stride in multiples of 8 elements. */
  if (g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_AUX)
    for (int q = 0; q < 2; q++) {
      int reg = q ? FR_G_STRIDE_D : FR_G_LDD;
      if (v[reg] % 8 != 0 && (q == 0 || batch > 1))
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "%s = %" PRId64 " (register %u) is not a multiple of 8: "
                    "the pre-activation (AUX) is written with D's layout, "
                    "whose strides the library takes in multiples of 8",
                    fr_gemm_reg_names[reg], v[reg], g->reg[reg]);
    }
  /* fuser_fusion_infer_dims computes the results' dims (they are not
   * known yet here): the sizes above are all it checks. */
  if (c->inferred) return NULL;
  uint32_t nio = f->num_args + f->num_results;
  size_t ab = fuser_dtype_size((fuser_dtype)g->ab_dtype),
         dd = fuser_dtype_size((fuser_dtype)g->d_dtype);
  struct {
    const char *name;
    uint32_t buf;
    uint64_t esz;
    int ld, stride;
    int64_t rows, cols;
  } op[5] = {{"A", g->a, ab, FR_G_LDA, FR_G_STRIDE_A, mat[0].rows,
              mat[0].cols},
             {"B", g->b, ab, FR_G_LDB, FR_G_STRIDE_B, mat[1].rows,
              mat[1].cols},
             {"D", g->d, dd, FR_G_LDD, FR_G_STRIDE_D, m, n},
             {bgrad ? "the bias gradient" : "the bias", g->bias, dd, -1, -1, 1,
              bgrad_a ? m : n},
             {"the pre-activation (AUX)", g->aux, dd, FR_G_LDD, FR_G_STRIDE_D,
              m, n}};
  for (int q = 0; q < 5; q++) {
    if ((q == 3 && !(g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BIAS) &&
         !bgrad) ||
        (q == 4 && !(g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_AUX)))
      continue;
    /* The bias is one row of n elements, read when D has elements; a bias
     * gradient one of m (of A) or n (of B), written when D has elements. */
    bool bias = q == 3;
    int64_t ld = bias ? op[q].cols : v[op[q].ld];
    int64_t nb = bias ? (m > 0 && n > 0 && batch > 0) : batch;
    int64_t stride = bias ? 0 : v[op[q].stride];
    uint64_t reach, have;
    char what[160];
    fr_buffer_name(f, op[q].buf, what, sizeof what);
    if (!gemm_reach(op[q].rows, op[q].cols, ld, nb, stride, op[q].esz,
                    &reach))
      return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                  "%s (%s) reaches 2^64 bytes or more (batch %" PRId64
                  ", %" PRId64 " x %" PRId64 ", ld %" PRId64
                  ", batch stride %" PRId64 ")",
                  op[q].name, what, nb, op[q].rows, op[q].cols, ld, stride);
    if (!reach) continue;
    if (op[q].buf >= nio)
      have = (uint64_t)c->inter_bytes[op[q].buf - nio];
    else if (!tensor_bytes(c, op[q].buf, &have))
      have = UINT64_MAX; /* fuser_run refused it; a query can't tell */
    if (reach > have) {
      if (bias)
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "%s (%s) needs %s = %" PRId64 " elements of %s, %" PRIu64
                    " bytes, but has %" PRIu64 " bytes in this call",
                    op[q].name, what, bgrad_a ? "m" : "n", op[q].cols,
                    fuser_dtype_name((fuser_dtype)g->d_dtype), reach, have);
      return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                  "%s (%s) reaches %" PRIu64 " bytes (batch %" PRId64
                  " of %" PRId64 " x %" PRId64 " %s elements, %s %" PRId64
                  ", %s %" PRId64 ") but has %" PRIu64
                  " bytes in this call",
                  op[q].name, what, reach, nb, op[q].rows, op[q].cols,
                  fuser_dtype_name((fuser_dtype)(q >= 2 ? g->d_dtype
                                                        : g->ab_dtype)),
                  fr_gemm_reg_names[op[q].ld], ld,
                  fr_gemm_reg_names[op[q].stride], stride, have);
    }
  }
  return NULL;
}

/* A stored matrix of at most one row never steps to a next row, so its
 * leading dimension addresses nothing: a view of one row passes whatever
 * stride its dim has (torch calls x.as_strided((1, 5), (2, 1))
 * contiguous), and the library asks for at least the row's length. Such a
 * leading dimension becomes the row's length (at least 1). */
static void one_row_leading_dims(const fr_gemm *g, int64_t *v) {
  bool ta = g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_A,
       tb = g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_B;
  int64_t m = v[FR_G_M], n = v[FR_G_N], k = v[FR_G_K];
  struct {
    int ld;
    int64_t rows, cols;
  } mat[3] = {{FR_G_LDA, ta ? k : m, ta ? m : k},
              {FR_G_LDB, tb ? n : k, tb ? k : n},
              {FR_G_LDD, m, n}};
  for (int q = 0; q < 3; q++) {
    int64_t need = mat[q].cols > 1 ? mat[q].cols : 1;
    if (mat[q].rows <= 1 && v[mat[q].ld] < need) v[mat[q].ld] = need;
  }
}

/* The call's GEMM workspace (the CUDA backend's: cuBLASLt's), taken once
 * for all its GEMMs: from the user scratch when the call has one (so that
 * fuser_fusion_scratch_size counts it and a call with scratch allocates
 * nothing), else from the runtime's cache on the call's stream, released
 * with the intermediates. */
static fuser_error *gemm_workspace(call *c, uint32_t i, mode md) {
  if (c->workspace_set) return NULL;
  fuser_rt *rt = c->rt;
  uint64_t bytes = rt->gemm_workspace_bytes;
  if (c->use_scratch || md == MODE_QUERY) {
    char what[96];
    snprintf(what, sizeof what, "the GEMM workspace of %" PRIu64 " bytes",
             bytes);
    fuser_error *e = carve(c, i, bytes, md, what, &c->workspace);
    if (e) return e;
  } else {
    fr_block *b;
    fuser_error *e = fr_alloc_acquire(rt, bytes, c->stream, &b);
    if (e)
      return fr_error_wrap(e, "fusion '%s': instruction %u (GEMM): the "
                              "cuBLASLt workspace",
                           c->f->name, i);
    c->blocks[c->f->num_inter] = b;
    c->num_blocks++;
    c->workspace = b->ptr;
  }
  c->workspace_set = true;
  return NULL;
}

/* GEMM: checks its values for the call; with a D of elements, takes the
 * workspace (CUDA backend, k > 0) and, when enqueueing, hands the driver a
 * fuser_gemm. */
static fuser_error *gemm(call *c, uint32_t i, const fr_instr *in, mode md) {
  const fr_gemm *g = in->gemm;
  fuser_rt *rt = c->rt;
  int64_t v[FR_G_NUM_REGS];
  for (int k = 0; k < FR_G_NUM_REGS; k++) v[k] = c->regs[g->reg[k]];
  one_row_leading_dims(g, v);
  fuser_error *e = gemm_check(c, i, g, v, md);
  if (e) return e;
  /* An empty D: nothing to compute, on any driver. */
  if (v[FR_G_M] == 0 || v[FR_G_N] == 0 || v[FR_G_BATCH] == 0) return NULL;
  if (md == MODE_QUERY && !c->inferred && v[FR_G_K] > 0 &&
      rt->gemm_workspace_bytes)
    return gemm_workspace(c, i, md);
  if (md == MODE_QUERY) return NULL;
  if (!rt->drv->gemm)
    return fuser_error_create(
        FUSER_ERROR_DRIVER_UNAVAILABLE,
        "driver '%s' cannot run the GEMM of fusion '%s' (instruction %u): "
        "it has no gemm entry (fuser_driver.gemm, runtime 0.2)",
        rt->drv->name ? rt->drv->name : "?", c->f->name, i);
  fuser_gemm gm;
  memset(&gm, 0, sizeof gm);
  if (v[FR_G_K] > 0 && rt->gemm_workspace_bytes) {
    if ((e = gemm_workspace(c, i, md))) return e;
    gm.workspace = c->workspace;
    gm.workspace_bytes = rt->gemm_workspace_bytes;
  }
  if (md == MODE_PREPARE) return NULL;
  gm.ab_dtype = g->ab_dtype;
  gm.d_dtype = g->d_dtype;
  gm.m = v[FR_G_M];
  gm.n = v[FR_G_N];
  gm.k = v[FR_G_K];
  gm.batch = v[FR_G_BATCH];
  gm.a = c->bufs[g->a];
  gm.b = c->bufs[g->b];
  gm.d = c->bufs[g->d];
  /* The bias the epilogue adds, or the bias gradient it writes. */
  gm.bias = (g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BIAS) ||
                    FR_GEMM_BGRAD(g->epilogue)
                ? c->bufs[g->bias]
                : 0;
  gm.lda = v[FR_G_LDA];
  gm.ldb = v[FR_G_LDB];
  gm.ldd = v[FR_G_LDD];
  gm.stride_a = v[FR_G_STRIDE_A];
  gm.stride_b = v[FR_G_STRIDE_B];
  gm.stride_d = v[FR_G_STRIDE_D];
  gm.flags = g->flags;
  gm.epilogue = g->epilogue;
  gm.aux = g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_AUX ? c->bufs[g->aux] : 0;
  /* Even a failing driver may have enqueued part of it: the call's blocks
   * become pending on its stream either way. */
  c->launched = true;
  e = rt->drv->gemm(rt->dctx, &gm, c->stream);
  if (e)
    return fr_error_wrap(e, "fusion '%s': instruction %u (GEMM)", c->f->name,
                         i);
  return NULL;
}

/* ---- sharded fusions ----------------------------------------------------- */

/* fuser_run's check of a sharded fusion's call, before anything runs: on a
 * grid of more than one device, a communicator of exactly its devices,
 * made on the fusion's runtime and not aborted. */
static fuser_error *check_grid(const call *c) {
  const fuser_fusion *f = c->f;
  const fr_grid *g = f->grid;
  if (!g || g->devices == 1) return NULL;
  char grid[96];
  fr_grid_describe(g, grid, sizeof grid);
  if (!c->comm)
    return fuser_error_create(
        FUSER_ERROR_INVALID_ARGUMENT,
        "fusion '%s' is sharded over a grid of %s: pass a communicator of "
        "%" PRIu64 " ranks (fuser_run_options.comm)",
        f->name, grid, g->devices);
  if ((uint64_t)fuser_comm_size(c->comm) != g->devices)
    return fuser_error_create(
        FUSER_ERROR_INVALID_ARGUMENT,
        "fusion '%s' is sharded over a grid of %s but the communicator "
        "(fuser_run_options.comm) has %d rank%s: pass one of %" PRIu64
        " ranks",
        f->name, grid, fuser_comm_size(c->comm),
        fuser_comm_size(c->comm) == 1 ? "" : "s", g->devices);
  if (fr_comm_runtime(c->comm) != c->rt)
    return fuser_error_create(
        FUSER_ERROR_INVALID_ARGUMENT,
        "fusion '%s': the communicator (fuser_run_options.comm) was made on "
        "another runtime; make it on the runtime the fusion's bundle was "
        "loaded on (its device)",
        f->name);
  if (fr_comm_aborted(c->comm))
    return fuser_error_create(
        FUSER_ERROR_INVALID_ARGUMENT,
        "fusion '%s': the communicator (fuser_run_options.comm) was aborted "
        "(fuser_comm_abort); destroy it and make a new one",
        f->name);
  return NULL;
}

/* Copies `bytes` from device address `src` to `dst` on the call's stream:
 * the driver's copy_d2d, else, after waiting for the stream, through host
 * memory in blocks of at most 1 MiB. */
static fuser_error *copy_d2d(call *c, uint32_t i, uint64_t dst, uint64_t src,
                             uint64_t bytes) {
  const fuser_driver *d = c->rt->drv;
  fuser_error *e;
  if (d->copy_d2d) {
    e = d->copy_d2d(c->rt->dctx, dst, src, (size_t)bytes, c->stream);
  } else {
    size_t block = bytes < (1u << 20) ? (size_t)bytes : (size_t)1 << 20;
    unsigned char *host = malloc(block);
    if (!host)
      return fail(c, i, FUSER_ERROR_OUT_OF_MEMORY,
                  "no host memory for a copy of %zu bytes", block);
    e = d->synchronize(c->rt->dctx, c->stream, 0);
    for (uint64_t done = 0; !e && done < bytes; done += block) {
      size_t n = bytes - done < block ? (size_t)(bytes - done) : block;
      e = d->copy_d2h(c->rt->dctx, host, src + done, n);
      if (!e) e = d->copy_h2d(c->rt->dctx, dst + done, host, n);
    }
    free(host);
  }
  return e ? fr_error_wrap(e, "fusion '%s': instruction %u (COLLECTIVE): "
                              "copying %" PRIu64 " bytes",
                           c->f->name, i, bytes)
           : NULL;
}

/* "all_reduce (sum) of 4 f32 elements per member, among the 2 devices of
 * axis 0": what a collective is, for messages. */
static void describe_collective(const fr_collective *k, const fr_grid *g,
                                int64_t n, char *out, size_t size) {
  char reduction[16] = "";
  if (k->reduction)
    snprintf(reduction, sizeof reduction, " (%s)", fr_reduction_names[k->reduction]);
  char axes[64];
  size_t len = 0;
  int count = 0;
  axes[0] = 0;
  for (uint32_t a = 0; a < g->axes; a++)
    if (k->group & (1u << a)) {
      int w = snprintf(axes + len, sizeof axes - len, "%s%u",
                       count++ ? ", " : "", a);
      if (w > 0 && (size_t)w < sizeof axes - len) len += (size_t)w;
    }
  uint64_t members = fr_grid_group_size(g, k->group);
  snprintf(out, size,
           "%s%s of %" PRId64 " %s element%s per member, among the %" PRIu64
           " device%s of ax%s %s",
           fr_collective_kind_names[k->kind], reduction, n,
           fuser_dtype_name((fuser_dtype)k->dtype), n == 1 ? "" : "s",
           members, members == 1 ? "" : "s", count == 1 ? "is" : "es", axes);
}

/* COLLECTIVE: checks its count and how far SRC and DST reach for the call
 * (before anything of the call is enqueued: like a GEMM, it is part of the
 * first pass of a two-pass plan), then, when enqueueing and the count is
 * not 0, runs it: through NCCL among a group of several devices, as a copy
 * for SLICE and in a group of one. With G members and n = r[count]:
 * ALL_REDUCE reads n elements of SRC and writes n of DST; ALL_GATHER reads
 * n and writes G n; REDUCE_SCATTER and SLICE read G n and write n;
 * ALL_TO_ALL reads G n and writes G n. */
static fuser_error *collective(call *c, uint32_t i, const fr_instr *in,
                               mode md) {
  const fuser_fusion *f = c->f;
  const fr_collective *k = in->coll;
  const fr_grid *g = f->grid;
  int64_t n = c->regs[k->count];
  if (n < 0)
    return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                "count = %" PRId64 " (register %u) is negative", n, k->count);
  uint64_t members = fr_grid_group_size(g, k->group);
  uint64_t esz = fuser_dtype_size((fuser_dtype)k->dtype), part;
  if (__builtin_mul_overflow((uint64_t)n, esz, &part) ||
      part > (uint64_t)INT64_MAX)
    return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                "count = %" PRId64 " (register %u) of %s elements is 2^63 "
                "bytes or more",
                n, k->count, fuser_dtype_name((fuser_dtype)k->dtype));
  bool whole_src = k->kind == FUSER_BUNDLE_COLLECTIVE_REDUCE_SCATTER ||
                   k->kind == FUSER_BUNDLE_COLLECTIVE_SLICE ||
                   k->kind == FUSER_BUNDLE_COLLECTIVE_ALL_TO_ALL;
  bool whole_dst = k->kind == FUSER_BUNDLE_COLLECTIVE_ALL_GATHER ||
                   k->kind == FUSER_BUNDLE_COLLECTIVE_ALL_TO_ALL;
  /* The same skips as a GEMM's: fuser_fusion_infer_dims does not know the
   * results' dims yet, and a query of a fusion with views has no strides. */
  if (!c->inferred && !(md == MODE_QUERY && f->any_strides)) {
    uint32_t nio = f->num_args + f->num_results;
    const char *const names[2] = {"SRC", "DST"};
    const uint32_t bufs[2] = {k->src, k->dst};
    const bool whole[2] = {whole_src, whole_dst};
    for (int q = 0; q < 2; q++) {
      uint64_t parts = whole[q] ? members : 1, need, have;
      char what[160];
      fr_buffer_name(f, bufs[q], what, sizeof what);
      if (__builtin_mul_overflow(parts, part, &need))
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "%s (%s) would hold %" PRIu64 " parts of %" PRIu64
                    " bytes, 2^64 bytes or more",
                    names[q], what, parts, part);
      if (!need) continue;
      if (bufs[q] >= nio)
        have = (uint64_t)c->inter_bytes[bufs[q] - nio];
      else if (!tensor_bytes(c, bufs[q], &have))
        have = UINT64_MAX; /* fuser_run refused it; a query can't tell */
      if (need > have) {
        char desc[256];
        describe_collective(k, g, n, desc, sizeof desc);
        if (parts > 1)
          return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                      "%s: %s (%s) needs %" PRIu64 " parts of count = %"
                      PRId64 " (register %u) elements, %" PRIu64
                      " bytes, but has %" PRIu64 " bytes in this call",
                      desc, names[q], what, parts, n, k->count, need, have);
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "%s: %s (%s) needs count = %" PRId64 " (register %u) "
                    "elements, %" PRIu64 " bytes, but has %" PRIu64
                    " bytes in this call",
                    desc, names[q], what, n, k->count, need, have);
      }
    }
  }
  /* Nothing to move; the queries and the first pass enqueue nothing. */
  if (n == 0 || md == MODE_QUERY || md == MODE_PREPARE) return NULL;
  uint64_t src = c->bufs[k->src], dst = c->bufs[k->dst];
  /* Even a failing driver or library may have enqueued part of it: the
   * call's blocks become pending on its stream either way. */
  c->launched = true;
  if (members == 1 || k->kind == FUSER_BUNDLE_COLLECTIVE_SLICE) {
    /* A group of one: every kind is its one member's SRC (part 0 for
     * SLICE and ALL_TO_ALL). SLICE: this device's part of the SRC every
     * member holds; the rank exists, as a grid of more than one device
     * has a communicator (check_grid). */
    uint64_t j =
        members == 1
            ? 0
            : fr_grid_index(g, (uint64_t)fuser_comm_rank(c->comm), k->group);
    return copy_d2d(c, i, dst, src + j * part, part);
  }
  fuser_error *e =
      fr_comm_collective(c->comm, g, k, src, dst, (uint64_t)n, c->stream);
  if (e) {
    char desc[256];
    describe_collective(k, g, n, desc, sizeof desc);
    return fr_error_wrap(e, "fusion '%s': instruction %u (COLLECTIVE): %s",
                         f->name, i, desc);
  }
  return NULL;
}

static fuser_error *exec(call *c, mode md) {
  const fuser_fusion *f = c->f;
  int64_t *r = c->regs;
  memset(r, 0, sizeof(int64_t) * f->num_regs);
  for (uint32_t i = 0; i < f->num_instrs; i++) {
    const fr_instr *in = &f->instrs[i];
    switch (in->op) {
    case OP_CONST:
      r[in->dst] = in->imm;
      break;
    case OP_DIM:
      r[in->dst] = c->dims[in->a];
      break;
    case OP_ADD:
      if (__builtin_add_overflow(r[in->a], r[in->b], &r[in->dst]))
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "%" PRId64 " + %" PRId64 " overflows", r[in->a], r[in->b]);
      break;
    case OP_SUB:
      if (__builtin_sub_overflow(r[in->a], r[in->b], &r[in->dst]))
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "%" PRId64 " - %" PRId64 " overflows", r[in->a], r[in->b]);
      break;
    case OP_MUL:
      if (__builtin_mul_overflow(r[in->a], r[in->b], &r[in->dst]))
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "%" PRId64 " * %" PRId64 " overflows", r[in->a], r[in->b]);
      break;
    case OP_DIV: {
      int64_t a = r[in->a], b = r[in->b];
      if (b == 0)
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "division by zero (%" PRId64 " / 0)", a);
      if (a == INT64_MIN && b == -1)
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "%" PRId64 " / -1 overflows", a);
      r[in->dst] = a / b;
      break;
    }
    case OP_CEILDIV: {
      int64_t a = r[in->a], b = r[in->b];
      if (b == 0)
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "division by zero (ceildiv(%" PRId64 ", 0))", a);
      if (a < 0 || b < 0)
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "ceildiv(%" PRId64 ", %" PRId64
                    ") needs a >= 0 and b > 0",
                    a, b);
      r[in->dst] = a / b + (a % b != 0);
      break;
    }
    case OP_REM: {
      int64_t a = r[in->a], b = r[in->b];
      if (b == 0)
        return fail(c, i, FUSER_ERROR_OUT_OF_RANGE,
                    "division by zero (%" PRId64 " %% 0)", a);
      r[in->dst] = b == -1 ? 0 : a % b;
      break;
    }
    case OP_MIN:
      r[in->dst] = r[in->a] < r[in->b] ? r[in->a] : r[in->b];
      break;
    case OP_MAX:
      r[in->dst] = r[in->a] > r[in->b] ? r[in->a] : r[in->b];
      break;
    case OP_EQ:
      r[in->dst] = r[in->a] == r[in->b];
      break;
    case OP_NE:
      r[in->dst] = r[in->a] != r[in->b];
      break;
    case OP_LT:
      r[in->dst] = r[in->a] < r[in->b];
      break;
    case OP_LE:
      r[in->dst] = r[in->a] <= r[in->b];
      break;
    case OP_AND:
      r[in->dst] = r[in->a] & r[in->b];
      break;
    case OP_OR:
      r[in->dst] = r[in->a] | r[in->b];
      break;
    case OP_SELECT:
      r[in->dst] = r[in->a] != 0 ? r[in->b] : r[in->imm];
      break;
    case OP_STRIDE: {
      fuser_error *e = stride_of(c, i, in, &r[in->dst]);
      if (e) return e;
      break;
    }
    case OP_ALIGNED:
      r[in->dst] = c->bufs[in->a] % (uint64_t)in->imm == 0;
      break;
    case OP_ASSERT:
      if (r[in->a] == 0) return assert_failed(c, i, in);
      break;
    case OP_ALLOC: {
      c->inter_bytes[in->a - (f->num_args + f->num_results)] = r[in->b];
      if ((in->imm & FUSER_BUNDLE_ALLOC_ZEROED) &&
          (md == MODE_LAUNCH || md == MODE_BOTH)) {
        /* Before the launches that follow, on the call's stream; in the
         * single pass the buffer is allocated first. */
        if (md == MODE_BOTH) {
          fuser_error *e = alloc_one(c, i, in, md);
          if (e) return e;
        }
        fuser_error *e = zero_buffer(c, i, c->bufs[in->a], (uint64_t)r[in->b]);
        if (e) return e;
        break;
      }
      if (md == MODE_LAUNCH) break; /* the first pass allocated it */
      {
        fuser_error *e = alloc_one(c, i, in, md);
        if (e) return e;
      }
      break;
    }
    case OP_RESULT_DIM:
      if (c->inferred) {
        c->inferred[in->b] = r[in->a];
        c->defined[in->b] = 1;
      } else if (c->dims[in->b] != r[in->a]) {
        const fuser_tensor_info *t = &f->tensors[f->dyn[in->b].tensor];
        return fuser_error_create(
            FUSER_ERROR_ASSERTION,
            "fusion '%s': dim %u of result '%s' is %" PRId64
            " but the fusion computes %" PRId64 " from its arguments",
            f->name, f->dyn[in->b].dim, t->name, c->dims[in->b], r[in->a]);
      }
      break;
    case OP_INDEX_CHECK:
      if (md == MODE_LAUNCH || md == MODE_BOTH) {
        fuser_error *e = index_check(c, i, in);
        if (e) return e;
      }
      break;
    case OP_GEMM: {
      fuser_error *e = gemm(c, i, in, md);
      if (e) return e;
      break;
    }
    case OP_GRID: /* fuser_run checked the call's communicator */
      break;
    case OP_COLLECTIVE: {
      fuser_error *e = collective(c, i, in, md);
      if (e) return e;
      break;
    }
    case OP_LAUNCH:
      if (in->b != FR_NONE && r[in->b] == 0) break;
      {
        fuser_error *e = launch(c, i, &f->launches[in->a],
                                md == MODE_LAUNCH || md == MODE_BOTH);
        if (e) return e;
      }
      break;
    }
  }
  return NULL;
}

/* Sets up the call's working memory in `frame`. */
static void frame_init(call *c, const fuser_fusion *f, unsigned char *frame) {
  size_t nbuf = (size_t)f->num_args + f->num_results + f->num_inter;
#define A16(x) (((x) + 15) & ~(size_t)15)
  c->regs = (int64_t *)(void *)frame;
  frame += A16(8 * (size_t)f->num_regs);
  c->bufs = (uint64_t *)(void *)frame;
  frame += A16(8 * nbuf);
  c->blocks = (fr_block **)(void *)frame; /* and the GEMM workspace's */
  frame += A16(sizeof(void *) * ((size_t)f->num_inter + 1));
  c->inter_bytes = (int64_t *)(void *)frame;
  frame += A16(8 * (size_t)f->num_inter);
  c->pp = (void **)(void *)frame;
  frame += A16(sizeof(void *) * (size_t)f->max_params);
  c->i32 = (int32_t *)(void *)frame;
  frame += A16(4 * (size_t)f->max_params);
  c->spans = (fr_span *)(void *)frame;
#undef A16
  memset(c->blocks, 0, sizeof(void *) * ((size_t)f->num_inter + 1));
}

/* The checks every call of a fusion starts with; `function` names the
 * entry point in messages. fuser_fusion_infer_dims (`inferring`) ignores
 * the values given for the results' dims: they are its outputs. */
static fuser_error *check_call(const char *function, const fuser_fusion *f,
                               const uint64_t *args, const uint64_t *results,
                               const int64_t *dyn_dims, size_t num_dyn_dims,
                               bool need_buffers, bool inferring) {
  if (!f)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "%s: NULL fusion", function);
  if (need_buffers && f->num_args && !args)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "%s: NULL args (fusion '%s' takes %u "
                              "arguments)",
                              function, f->name, f->num_args);
  if (need_buffers && f->num_results && !results)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "%s: NULL results (fusion '%s' has %u results)",
                              function, f->name, f->num_results);
  if (f->num_dyn && !dyn_dims)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "%s: NULL dyn_dims (fusion '%s' takes %u "
                              "dynamic dims)",
                              function, f->name, f->num_dyn);
  if (num_dyn_dims != f->num_dyn)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fusion '%s' takes %u dynamic dims, got %zu",
                              f->name, f->num_dyn, num_dyn_dims);
  for (uint32_t k = 0; k < f->num_dyn; k++)
    if (dyn_dims[k] < 0 && !(inferring && f->dyn[k].tensor >= f->num_args)) {
      const fuser_tensor_info *t = &f->tensors[f->dyn[k].tensor];
      return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                                "fusion '%s': dynamic dim %u (dim %u of '%s') "
                                "is %lld; sizes can't be negative",
                                f->name, k, f->dyn[k].dim, t->name,
                                (long long)dyn_dims[k]);
    }
  return NULL;
}

static void describe(const fuser_fusion *f, uint32_t what, char *out,
                     size_t n) {
  uint32_t nio = f->num_args + f->num_results;
  if (what == nio)
    snprintf(out, n, "the user scratch");
  else if (what < f->num_args)
    snprintf(out, n, "argument %u '%s'", what, f->tensors[what].name);
  else
    snprintf(out, n, "result %u '%s'", what - f->num_args,
             f->tensors[what].name);
}

static int by_begin(const void *a, const void *b) {
  const fr_span *x = a, *y = b;
  return (x->begin > y->begin) - (x->begin < y->begin);
}

/* fuser_run's checks of the caller's buffers, before anything runs: every
 * non-empty argument and result has an address other than 0 and a byte
 * range (from its dims for this call) that fits the address space; no
 * result shares a byte with an argument, another result or the user
 * scratch. Kernels read arguments while they write results, so an overlap
 * gives wrong numbers (an in-place transpose) or worse; no fusion is proved
 * safe in place, so none may run in place. Arguments may overlap each
 * other: they are only read. */
/* The messages of check_buffers, out of its way (cold). */
__attribute__((noinline, cold)) static fuser_error *
buffer_error(const fuser_fusion *f, uint32_t t, uint64_t bytes, uint64_t at,
             int why) {
  char what[128];
  describe(f, t, what, sizeof what);
  if (why == 0)
    return fuser_error_create(FUSER_ERROR_OUT_OF_RANGE,
                              "fusion '%s': %s is 2^63 bytes or more with "
                              "these dims",
                              f->name, what);
  if (at == 0)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fusion '%s': %s (%" PRIu64 " bytes) is at "
                              "device address 0",
                              f->name, what, bytes);
  return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                            "fusion '%s': %s (%" PRIu64 " bytes at 0x%" PRIx64
                            ") runs past the end of the address space",
                            f->name, what, bytes, at);
}

__attribute__((noinline, cold)) static fuser_error *
overlap_error(const fuser_fusion *f, const fr_span *p, const fr_span *q) {
  /* The lower-numbered one second: "result 0 'y' ... overlaps argument 0". */
  const fr_span *x = p->what < q->what ? p : q, *y = x == p ? q : p;
  char a[128], b[128];
  describe(f, x->what, a, sizeof a);
  describe(f, y->what, b, sizeof b);
  return fuser_error_create(
      FUSER_ERROR_INVALID_ARGUMENT,
      "fusion '%s': %s (0x%" PRIx64 " .. 0x%" PRIx64 ") overlaps %s (0x%" PRIx64
      " .. 0x%" PRIx64 "); a result may share memory with no argument, result "
      "or scratch (no fusion runs in place)",
      f->name, b, y->begin, y->end, a, x->begin, x->end);
}

/* "[1,?,4]": a list of sizes or strides (-1 as "?") for messages; `out`
 * holds 22 bytes per entry and 3 more. */
/* `v` as "[a,b,...]"; -1 as "?" where `compiled` (the bundle's marker for
 * a stride known only at launch), else as itself (a caller's -1). */
static const char *put_list(char *out, const int64_t *v, uint32_t rank,
                            int compiled) {
  size_t len = 0;
  out[len++] = '[';
  for (uint32_t d = 0; d < rank; d++) {
    if (d) out[len++] = ',';
    if (compiled && v[d] == -1)
      out[len++] = '?';
    else /* at most 20 characters and the NUL */
      len += (size_t)snprintf(out + len, 21 + 1, "%" PRId64, v[d]);
  }
  out[len++] = ']';
  out[len] = 0;
  return out;
}

/* What check_view found wrong. */
typedef enum view_fault {
  VIEW_NEGATIVE, /* stride k is negative */
  VIEW_SPAN,     /* the span is 2^63 bytes or more */
  VIEW_MISMATCH, /* stride k is not `want`, the compiled (or dense) one */
} view_fault;

/* The messages of check_view, out of its way (cold). */
__attribute__((noinline, cold)) static fuser_error *
view_error(const call *c, uint32_t t, const int64_t *size,
           const int64_t *passed, const int64_t *dense, view_fault why,
           uint32_t k, int64_t want) {
  const fuser_fusion *f = c->f;
  const fuser_tensor_info *ti = &f->tensors[t];
  char sizes[FUSER_MAX_RANK * 22 + 3], got[FUSER_MAX_RANK * 22 + 3],
      compiled[FUSER_MAX_RANK * 22 + 3];
  put_list(sizes, size, ti->rank, 0);
  put_list(got, passed ? passed : dense, ti->rank, 0);
  put_list(compiled, ti->strides ? ti->strides : dense, ti->rank, 1);
  const int64_t *eff = passed ? passed : dense;
  const char *how = passed ? "passed with strides" : "passed dense, strides";
  if (why == VIEW_NEGATIVE)
    return fuser_error_create(
        FUSER_ERROR_INVALID_ARGUMENT,
        "fusion '%s': argument %u '%s' is passed with strides %s (dims %s): "
        "stride %u is %" PRId64 "; strides can't be negative",
        f->name, t, ti->name, got, sizes, k, eff[k]);
  if (why == VIEW_SPAN)
    return fuser_error_create(
        FUSER_ERROR_OUT_OF_RANGE,
        "fusion '%s': argument %u '%s', %s %s (dims %s), spans 2^63 bytes "
        "or more",
        f->name, t, ti->name, how, got, sizes);
  if (!ti->strides)
    return fuser_error_create(
        FUSER_ERROR_INVALID_ARGUMENT,
        "fusion '%s': argument %u '%s' is passed with strides %s (dims %s) "
        "but was compiled dense, strides %s: dim %u has stride %" PRId64
        ", not %" PRId64 "; the argument was compiled dense; declare its "
        "strides with fuser.strides (docs/dialect.md)",
        f->name, t, ti->name, got, sizes, compiled, k, eff[k], want);
  return fuser_error_create(
      FUSER_ERROR_INVALID_ARGUMENT,
      "fusion '%s': argument %u '%s' is %s %s (dims %s) but was compiled "
      "with strides %s: dim %u has stride %" PRId64 ", not %" PRId64
      " (a static stride must match, except on a dim of size 1)%s",
      f->name, t, ti->name, how, got, sizes, compiled, k, eff[k], want,
      passed ? "" : "; pass its strides in fuser_run_options.arg_strides");
}

/* An argument that is a view (compiled with a strides record, or passed
 * with strides): its strides for this call are the caller's, else dense.
 * Each is >= 0; on a non-empty tensor each static stride it was compiled
 * with (each dense one, when it was compiled dense, since its kernels
 * index it row-major) must be the one passed, except on a dim of size 1,
 * which no index moves along. Its bytes become the span its elements
 * reach, element size * (1 + sum (size - 1) * stride): for the address-0
 * and overlap checks (a sliced view reaches further than its elements, an
 * expanded one less far). */
static fuser_error *check_view(const call *c, uint32_t t,
                               const int64_t *passed, bool nonempty,
                               uint64_t *bytes) {
  const fuser_fusion *f = c->f;
  const fuser_tensor_info *ti = &f->tensors[t];
  int64_t size[FUSER_MAX_RANK], dense[FUSER_MAX_RANK];
  tensor_sizes(f, c->dims, t, size);
  dense_strides(size, ti->rank, dense);
  if (passed)
    for (uint32_t k = 0; k < ti->rank; k++)
      if (passed[k] < 0)
        return view_error(c, t, size, passed, dense, VIEW_NEGATIVE, k, 0);
  if (!nonempty) {
    *bytes = 0; /* touches nothing, whatever its strides */
    return NULL;
  }
  const int64_t *eff = passed ? passed : dense;
  const int64_t *want = ti->strides ? ti->strides : dense;
  for (uint32_t k = 0; k < ti->rank; k++)
    if (size[k] != 1 && want[k] != -1 && eff[k] != want[k])
      return view_error(c, t, size, passed, dense, VIEW_MISMATCH, k,
                        want[k]);
  uint64_t span = 1, step;
  for (uint32_t k = 0; k < ti->rank; k++)
    if (__builtin_mul_overflow((uint64_t)(size[k] - 1), (uint64_t)eff[k],
                               &step) ||
        __builtin_add_overflow(span, step, &span))
      return view_error(c, t, size, passed, dense, VIEW_SPAN, 0, 0);
  if (__builtin_mul_overflow(span, (uint64_t)fuser_dtype_size(ti->dtype),
                             bytes) ||
      *bytes > (uint64_t)INT64_MAX)
    return view_error(c, t, size, passed, dense, VIEW_SPAN, 0, 0);
  return NULL;
}

static fuser_error *check_buffers(call *c) {
  const fuser_fusion *f = c->f;
  uint32_t nio = f->num_args + f->num_results, n = 0;
  fr_span *sp = c->spans;
  /* Views: an argument compiled with strides, or passed with some. */
  bool views = f->any_strides || c->arg_strides;
  for (uint32_t t = 0; t < nio; t++) {
    uint64_t bytes = f->tensor_static_bytes[t];
    for (uint32_t k = f->tensor_dyn_begin[t];
         bytes && k < f->tensor_dyn_begin[t + 1]; k++)
      if (__builtin_mul_overflow(bytes, (uint64_t)c->dims[k], &bytes) ||
          bytes > (uint64_t)INT64_MAX)
        return buffer_error(f, t, 0, 0, 0);
    if (views && t < f->num_args) {
      const int64_t *passed = c->arg_strides ? c->arg_strides[t] : NULL;
      if (passed || f->tensors[t].strides) {
        fuser_error *e = check_view(c, t, passed, bytes != 0, &bytes);
        if (e) return e;
      }
    }
    if (!bytes) continue; /* empty: touches nothing */
    uint64_t begin = c->bufs[t], end;
    if (begin == 0 || __builtin_add_overflow(begin, bytes, &end))
      return buffer_error(f, t, bytes, begin, 1);
    sp[n++] = (fr_span){begin, end, t};
  }
  if (c->use_scratch && c->scratch_size) {
    uint64_t end;
    if (__builtin_add_overflow(c->scratch, c->scratch_size, &end))
      return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                                "fusion '%s': the user scratch (%" PRIu64
                                " bytes at 0x%" PRIx64 ") runs past the end "
                                "of the address space",
                                f->name, c->scratch_size, c->scratch);
    sp[n++] = (fr_span){c->scratch, end, nio};
  }
  /* Only pairs with something written (a result, the scratch) count. A
   * few buffers (the usual case): every such pair, a handful of compares. */
  if (n <= 8) {
    for (uint32_t i = 1; i < n; i++)
      for (uint32_t j = 0; j < i; j++)
        if ((sp[i].what >= f->num_args || sp[j].what >= f->num_args) &&
            sp[i].begin < sp[j].end && sp[j].begin < sp[i].end)
          return overlap_error(f, &sp[j], &sp[i]);
    return NULL;
  }
  /* Many: sorted by start, a span overlaps an earlier one exactly when it
   * starts before the furthest end so far (of any span, or of a written
   * one when it is itself only read). */
  qsort(sp, n, sizeof *sp, by_begin);
  uint32_t far_any = 0, far_written = UINT32_MAX;
  for (uint32_t i = 0; i < n; i++) {
    bool written = sp[i].what >= f->num_args;
    if (i > 0 && written && sp[i].begin < sp[far_any].end)
      return overlap_error(f, &sp[far_any], &sp[i]);
    if (far_written != UINT32_MAX && sp[i].begin < sp[far_written].end)
      return overlap_error(f, &sp[far_written], &sp[i]);
    if (i == 0 || sp[i].end > sp[far_any].end) far_any = i;
    if (written &&
        (far_written == UINT32_MAX || sp[i].end > sp[far_written].end))
      far_written = i;
  }
  return NULL;
}

static void set_io(call *c, const fuser_fusion *f, const uint64_t *args,
                   const uint64_t *results) {
  for (uint32_t k = 0; k < f->num_args; k++) c->bufs[k] = args ? args[k] : 0;
  for (uint32_t k = 0; k < f->num_results; k++)
    c->bufs[f->num_args + k] = results ? results[k] : 0;
}

fuser_error *fuser_fusion_scratch_size(const fuser_fusion *f,
                                       const uint64_t *args,
                                       const uint64_t *results,
                                       const int64_t *dyn_dims,
                                       size_t num_dyn_dims,
                                       uint64_t *out_bytes) {
  fuser_error *e = check_call("fuser_fusion_scratch_size", f, args, results,
                              dyn_dims, num_dyn_dims, false, false);
  if (e) return e;
  FR_CHECK_ARG(out_bytes, "fuser_fusion_scratch_size", "out_bytes");
  _Alignas(16) unsigned char stack[FRAME_STACK_BYTES];
  unsigned char *frame =
      f->frame_bytes <= sizeof stack ? stack : malloc(f->frame_bytes);
  if (!frame)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of memory running fusion '%s'", f->name);
  call c;
  memset(&c, 0, sizeof c);
  c.f = f;
  c.rt = f->bundle->rt;
  c.dims = dyn_dims;
  frame_init(&c, f, frame);
  set_io(&c, f, args, results);
  e = exec(&c, MODE_QUERY);
  if (!e) *out_bytes = c.scratch_used;
  if (frame != stack) free(frame);
  return e;
}

fuser_error *fuser_fusion_infer_dims(const fuser_fusion *f,
                                     const int64_t *dyn_dims,
                                     size_t num_dyn_dims,
                                     int64_t *out_dyn_dims) {
  /* Arguments first, before anything is written (out_dyn_dims is the
   * plan's working copy below). */
  fuser_error *e = check_call("fuser_fusion_infer_dims", f, NULL, NULL,
                              dyn_dims, num_dyn_dims, false, true);
  if (e) return e;
  FR_CHECK_ARG(out_dyn_dims || !f->num_dyn, "fuser_fusion_infer_dims",
               "out_dyn_dims");
  if (out_dyn_dims != dyn_dims && f->num_dyn)
    memcpy(out_dyn_dims, dyn_dims, sizeof(int64_t) * f->num_dyn);
  /* The results' entries are outputs: the plan fills them in. */
  for (uint32_t k = 0; k < f->num_dyn; k++)
    if (f->dyn[k].tensor >= f->num_args) out_dyn_dims[k] = 0;
  _Alignas(16) unsigned char stack[FRAME_STACK_BYTES];
  unsigned char *frame =
      f->frame_bytes <= sizeof stack ? stack : malloc(f->frame_bytes);
  unsigned char *defined = calloc(f->num_dyn ? f->num_dyn : 1, 1);
  if (!frame || !defined) {
    if (frame != stack) free(frame);
    free(defined);
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of memory running fusion '%s'", f->name);
  }
  call c;
  memset(&c, 0, sizeof c);
  c.f = f;
  c.rt = f->bundle->rt;
  c.dims = out_dyn_dims;
  c.inferred = out_dyn_dims;
  c.defined = defined;
  frame_init(&c, f, frame);
  set_io(&c, f, NULL, NULL);
  e = exec(&c, MODE_QUERY);
  for (uint32_t k = 0; !e && k < f->num_dyn; k++)
    if (f->dyn[k].tensor >= f->num_args && !defined[k])
      e = fuser_error_create(
          FUSER_ERROR_INVALID_BUNDLE,
          "fusion '%s': the bundle does not say how dim %u of result '%s' "
          "is computed (no RESULT_DIM)",
          f->name, f->dyn[k].dim, f->tensors[f->dyn[k].tensor].name);
  if (frame != stack) free(frame);
  free(defined);
  return e;
}

fuser_error *fuser_fusion_prepare(const fuser_fusion *f) {
  FR_CHECK_ARG(f, "fuser_fusion_prepare", "fusion");
  if (f->module && fr_module_ready(f->module)) return NULL;
  return fr_module_ensure_slow(f, false);
}

fuser_error *fuser_run(const fuser_fusion *f, const uint64_t *args,
                       const uint64_t *results, const int64_t *dyn_dims,
                       size_t num_dyn_dims, void *stream,
                       const fuser_run_options *options) {
  fuser_error *e = check_call("fuser_run", f, args, results, dyn_dims,
                              num_dyn_dims, true, false);
  if (e) return e;
  call c;
  c.f = f;
  c.rt = f->bundle->rt;
  c.dims = dyn_dims;
  c.stream = stream;
  c.launched = false;
  c.num_blocks = 0;
  c.scratch_used = 0;
  c.workspace = 0;
  c.workspace_set = false;
  c.inferred = NULL; /* RESULT_DIM checks the caller's dims, infers none */
  c.defined = NULL;
  c.arg_strides = options ? options->arg_strides : NULL;
  c.comm = options ? options->comm : NULL;
  c.use_scratch = options && options->scratch != 0;
  c.scratch = c.use_scratch ? options->scratch : 0;
  c.scratch_size = c.use_scratch ? options->scratch_size : 0;
  if (c.use_scratch && c.scratch % ALLOC_ALIGN != 0)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fusion '%s': scratch 0x%" PRIx64
                              " is not %u-byte aligned",
                              f->name, c.scratch, ALLOC_ALIGN);

  _Alignas(16) unsigned char stack[FRAME_STACK_BYTES];
  unsigned char *frame =
      f->frame_bytes <= sizeof stack ? stack : malloc(f->frame_bytes);
  if (!frame)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of memory running fusion '%s'", f->name);
  frame_init(&c, f, frame);
  set_io(&c, f, args, results);
  e = check_buffers(&c);
  if (!e) e = check_grid(&c);
  if (e) {
    if (frame != stack) free(frame);
    return e;
  }

  fuser_rt *rt = c.rt;
  e = fr_enter(rt);
  if (!e) {
    if (!f->module || !fr_module_ready(f->module))
      e = fr_module_ensure_slow(f, true);
    if (!e) {
      if (f->needs_prepass) {
        e = exec(&c, MODE_PREPARE);
        if (!e) e = exec(&c, MODE_LAUNCH);
      } else {
        e = exec(&c, MODE_BOTH);
      }
    }
    if (c.num_blocks)
      fr_alloc_release(rt, c.blocks, (size_t)f->num_inter + 1, stream,
                       c.launched);
    fr_leave(rt);
  }
  if (frame != stack) free(frame);
  return e;
}
