/* Sharded fusions (GRID and COLLECTIVE, bundle minor version 3): the
 * loader's checks, one refusal per rule with its message; collectives of
 * 2, 4 and 8 ranks, each rank a thread with its own runtime on the fake
 * CUDA driver and its communicator on the fake NCCL, every result checked
 * element by element against a reference computed here: every kind and
 * reduction, several dtypes, groups of one axis of a 2 x 2 grid
 * (sub-communicators, made once), axes of one device (copies, no NCCL
 * call), count 0, an intermediate between two collectives; the run-time
 * checks, before anything is enqueued; NCCL missing or failing, a rank
 * that never comes (a timeout, not a hang) and an abort; the communicator
 * API, with the caller's own NCCL communicators too; random corruptions of
 * sharded bundles, run by two ranks on a fake NCCL that checks every buffer
 * against the fake driver's allocations.
 *
 * usage: test_collective FAKE_CUDA_PATH FAKE_NCCL_PATH [FUZZ_ITERATIONS] */
#define _POSIX_C_SOURCE 200809L
#include "fp16.h"
#include "testlib.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *fake, *fake_nccl;

enum {
  I1 = FUSER_BUNDLE_DTYPE_I1,
  I8 = FUSER_BUNDLE_DTYPE_I8,
  I32 = FUSER_BUNDLE_DTYPE_I32,
  I64 = FUSER_BUNDLE_DTYPE_I64,
  F16 = FUSER_BUNDLE_DTYPE_F16,
  BF16 = FUSER_BUNDLE_DTYPE_BF16,
  F32 = FUSER_BUNDLE_DTYPE_F32,
  F64 = FUSER_BUNDLE_DTYPE_F64,
  E4M3 = FUSER_BUNDLE_DTYPE_F8E4M3FN,
  E5M2 = FUSER_BUNDLE_DTYPE_F8E5M2,
  E8M0 = FUSER_BUNDLE_DTYPE_F8E8M0FNU,
};
enum {
  AR = FUSER_BUNDLE_COLLECTIVE_ALL_REDUCE,
  AG = FUSER_BUNDLE_COLLECTIVE_ALL_GATHER,
  RS = FUSER_BUNDLE_COLLECTIVE_REDUCE_SCATTER,
  SL = FUSER_BUNDLE_COLLECTIVE_SLICE,
  A2A = FUSER_BUNDLE_COLLECTIVE_ALL_TO_ALL,
};
enum {
  SUM = FUSER_BUNDLE_REDUCTION_SUM,
  PROD = FUSER_BUNDLE_REDUCTION_PROD,
  MAX = FUSER_BUNDLE_REDUCTION_MAX,
  MIN = FUSER_BUNDLE_REDUCTION_MIN,
  AVG = FUSER_BUNDLE_REDUCTION_AVG,
};
#define MAX_RANKS 8
#define POISON 0xAB

static const char ptx[] =
    ".version 7.8\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 .ptr p) { ret; }\n";

/* ---- the fusion of a case ------------------------------------------------ */

typedef struct tspec {
  const char *name;
  uint8_t dtype;
  int64_t n;   /* elements (every tensor has rank 1) */
  bool pow2;   /* inputs are powers of two (products stay exact) */
} tspec;

typedef struct cspec {
  uint8_t kind, red, dtype, group;
  uint32_t src, dst;
  int64_t count;
} cspec;

typedef struct spec {
  uint32_t axes, sizes[FUSER_BUNDLE_GRID_MAX_AXES];
  uint32_t nargs, nres;
  tspec t[BW_MAX_TENSORS];
  uint8_t split[BW_MAX_TENSORS]; /* dim 0's mask */
  uint32_t ncolls;
  cspec c[BW_MAX_COLLS];
  int64_t inter; /* > 0: intermediate buffer nargs + nres of these bytes */
  bool launch;   /* LAUNCH k(buffer nargs) before the collectives */
} spec;

/* "f": the plan is r0 = 1, r1 = 0 (the launch's sizes), r3 + k =
 * collective k's count, [r2 = the intermediate's bytes, ALLOC], [LAUNCH],
 * GRID, then the COLLECTIVEs. Returns the first COLLECTIVE's instruction
 * (the GRID is the one before). */
static uint32_t build(bw_bundle *bb, const spec *s) {
  memset(bb, 0, sizeof *bb);
  bb->num_modules = 1;
  bb->modules[0] = (bw_module){"coll_ptx", 1, ptx, 90, 78};
  bb->num_fusions = 1;
  bw_fusion *f = &bb->fusions[0];
  f->name = "f";
  f->num_args = s->nargs;
  f->num_results = s->nres;
  f->num_inter = s->inter > 0;
  f->num_regs = 3 + s->ncolls;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  for (uint32_t t = 0; t < s->nargs + s->nres; t++) {
    f->tensors[t] = (bw_tensor){s->t[t].name, s->t[t].dtype, 1, {s->t[t].n}};
    f->grid.splits[t][0] = s->split[t];
  }
  f->grid.axes = s->axes;
  memcpy(f->grid.sizes, s->sizes, sizeof f->grid.sizes);
  uint32_t n = 0;
  f->instrs[n++] = bw_const(0, 1);
  f->instrs[n++] = bw_const(1, 0);
  for (uint32_t k = 0; k < s->ncolls; k++)
    f->instrs[n++] = bw_const(3 + k, s->c[k].count);
  if (s->inter > 0) {
    f->instrs[n++] = bw_const(2, s->inter);
    f->instrs[n++] = bw_op(BW_ALLOC, 0, s->nargs + s->nres, 2);
  }
  if (s->launch) f->instrs[n++] = bw_op(BW_LAUNCH, 0, 0, BW_NONE);
  f->instrs[n++] = bw_grid_op();
  uint32_t first = n;
  for (uint32_t k = 0; k < s->ncolls; k++) {
    f->instrs[n++] = bw_coll_op(k);
    const cspec *c = &s->c[k];
    f->colls[k] = (bw_coll){c->kind, c->red, c->dtype, c->group, c->src,
                            c->dst, 3 + k};
  }
  f->num_colls = s->ncolls;
  f->num_instrs = n;
  f->num_launches = 1;
  f->launches[0] = (bw_launch){"k", 1, {{BW_PTR, s->nargs}}, {0, 0, 0},
                               {0, 0, 0}, 1};
  return first;
}

/* x f32[4] -> y f32[4], all_reduce sum over the one axis of a grid of 2:
 * instruction 3 is the GRID, 4 the COLLECTIVE. */
static spec base_spec(void) {
  spec s;
  memset(&s, 0, sizeof s);
  s.axes = 1;
  s.sizes[0] = 2;
  s.nargs = 1;
  s.nres = 1;
  s.t[0] = (tspec){"x", F32, 4, false};
  s.t[1] = (tspec){"y", F32, 4, false};
  s.ncolls = 1;
  s.c[0] = (cspec){AR, SUM, F32, 1, 0, 1, 4};
  return s;
}

/* ---- values -------------------------------------------------------------- */

static void put_val(uint8_t t, unsigned char *p, int64_t i, double v) {
  switch (t) {
  case I1: p[i] = v != 0; break;
  case I8: p[i] = (unsigned char)(int8_t)v; break;
  case E4M3: case E5M2: case E8M0: p[i] = (unsigned char)v; break;
  case I32: { int32_t x = (int32_t)v; memcpy(p + 4 * i, &x, 4); break; }
  case I64: { int64_t x = (int64_t)v; memcpy(p + 8 * i, &x, 8); break; }
  case F16: {
    uint16_t h = fp_float_to_half((float)v);
    memcpy(p + 2 * i, &h, 2);
    break;
  }
  case BF16: {
    uint16_t h = fp_float_to_bf16((float)v);
    memcpy(p + 2 * i, &h, 2);
    break;
  }
  case F32: { float x = (float)v; memcpy(p + 4 * i, &x, 4); break; }
  case F64: memcpy(p + 8 * i, &v, 8); break;
  }
}

static double get_val(uint8_t t, const unsigned char *p, int64_t i) {
  switch (t) {
  case I1: case E4M3: case E5M2: case E8M0: return p[i];
  case I8: return (int8_t)p[i];
  case I32: { int32_t x; memcpy(&x, p + 4 * i, 4); return x; }
  case I64: { int64_t x; memcpy(&x, p + 8 * i, 8); return (double)x; }
  case F16: {
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    return fp_half_to_float(h);
  }
  case BF16: {
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    return fp_bf16_to_float(h);
  }
  case F32: { float x; memcpy(&x, p + 4 * i, 4); return x; }
  default: { double x; memcpy(&x, p + 8 * i, 8); return x; }
  }
}

/* Rank `rank`'s element i of argument t: small numbers whose sums,
 * averages (over 2, 4 or 8) and, with pow2, products are exact in every
 * dtype, so that the order of a reduction does not matter; i1 holds 1 in
 * element 0 on every rank, 0 in element 1 on every rank, and a mix after;
 * fp8 any byte (only moved). */
static double input(const spec *s, int rank, uint32_t t, int64_t i) {
  int64_t h = (rank * 3 + i * 5 + (int64_t)t) % 7;
  switch (s->t[t].dtype) {
  case I1: return i == 0 ? 1 : i == 1 ? 0 : (rank + i) % 3 == 0;
  case E4M3: case E5M2: case E8M0:
    return (double)((rank * 37 + i * 11 + 3) & 0x7f);
  case I8: case I32: case I64: return (double)(h - 3);
  default: {
    static const double pow2[6] = {-2, -1, -0.5, 0.5, 1, 2};
    return s->t[t].pow2 ? pow2[(rank * 3 + i * 5 + (int64_t)t) % 6]
                        : (double)(h - 3) * 0.5;
  }
  }
}

/* The grid as the format numbers it: rank r's coordinates, row-major,
 * the last axis fastest. */
static void coords(const spec *s, int rank, uint32_t *c) {
  for (uint32_t k = s->axes; k-- > 0;) {
    c[k] = (uint32_t)rank % s->sizes[k];
    rank /= (int)s->sizes[k];
  }
}
static int devices(const spec *s) {
  int n = 1;
  for (uint32_t k = 0; k < s->axes; k++) n *= (int)s->sizes[k];
  return n;
}

/* The members of rank `rank`'s group of `group` in member order; returns
 * their number, *me this rank's member index. */
static int group_of(const spec *s, int rank, uint8_t group, int *out,
                    int *me) {
  uint32_t c[4], q_c[4];
  coords(s, rank, c);
  int n = 0;
  for (int q = 0; q < devices(s); q++) {
    coords(s, q, q_c);
    bool same = true;
    int j = 0;
    for (uint32_t k = 0; k < s->axes; k++) {
      if (group & (1u << k))
        j = j * (int)s->sizes[k] + (int)q_c[k];
      else if (q_c[k] != c[k])
        same = false;
    }
    if (!same) continue;
    out[j] = q;
    if (q == rank) *me = j;
    n++;
  }
  return n;
}

static double reduce(int red, const double *v, int n) {
  double acc = v[0];
  for (int j = 1; j < n; j++) {
    switch (red) {
    case PROD: acc *= v[j]; break;
    case MAX: acc = v[j] > acc ? v[j] : acc; break;
    case MIN: acc = v[j] < acc ? v[j] : acc; break;
    default: acc += v[j];
    }
  }
  return red == AVG ? acc / n : acc;
}

/* What collective k writes on rank `rank`: DST's bytes (the elements it
 * does not write keep the poison). */
static void expected(const spec *s, int rank, const cspec *c,
                     unsigned char *out, size_t bytes) {
  memset(out, POISON, bytes);
  int m[MAX_RANKS], me = 0;
  int g = group_of(s, rank, c->group, m, &me);
  double v[MAX_RANKS];
  for (int64_t i = 0; i < c->count; i++) {
    switch (c->kind) {
    case AR:
      for (int j = 0; j < g; j++) v[j] = input(s, m[j], c->src, i);
      put_val(c->dtype, out, i, reduce(c->red, v, g));
      break;
    case RS:
      for (int j = 0; j < g; j++)
        v[j] = input(s, m[j], c->src, me * c->count + i);
      put_val(c->dtype, out, i, reduce(c->red, v, g));
      break;
    case AG:
      for (int j = 0; j < g; j++)
        put_val(c->dtype, out, j * c->count + i, input(s, m[j], c->src, i));
      break;
    case SL:
      put_val(c->dtype, out, i, input(s, rank, c->src, me * c->count + i));
      break;
    case A2A: /* part k from member k, its part for me */
      for (int j = 0; j < g; j++)
        put_val(c->dtype, out, j * c->count + i,
                input(s, m[j], c->src, me * c->count + i));
      break;
    }
  }
}

/* ---- ranks as threads ---------------------------------------------------- */

typedef const char *(*log_fn)(void);
typedef void (*clear_fn)(void);
static log_fn nccl_thread_log;
static clear_fn nccl_thread_log_clear;

typedef struct world world;
typedef struct rank_ctx {
  world *w;
  int rank;
  fuser_rt *rt;
  fuser_bundle *b;
  const fuser_fusion *f;
  fuser_comm *comm;
  uint64_t dev[BW_MAX_TENSORS];
  size_t bytes[BW_MAX_TENSORS];
  fuser_error *err; /* what the thread's call returned */
  char log[8192];   /* the fake NCCL's calls of the thread */
} rank_ctx;

enum { DO_INIT, DO_RUN, DO_RUN_NO_COMM };

struct world {
  spec s;
  int n;
  uint32_t first; /* the first COLLECTIVE's instruction */
  unsigned char id[FUSER_COMM_ID_BYTES];
  int what;
  rank_ctx r[MAX_RANKS];
};

static void *rank_main(void *arg) {
  rank_ctx *c = arg;
  world *w = c->w;
  nccl_thread_log_clear();
  if (w->what == DO_INIT) {
    c->err = fuser_comm_init_rank(c->rt, w->id, w->n, c->rank, &c->comm);
  } else {
    fuser_run_options ro = {.comm = w->what == DO_RUN ? c->comm : NULL};
    c->err = fuser_run(c->f, c->dev, c->dev + w->s.nargs, NULL, 0,
                       (void *)(uintptr_t)0x42, &ro);
  }
  snprintf(c->log, sizeof c->log, "%s", nccl_thread_log());
  return NULL;
}

/* Runs `what` on ranks [from, to) at once, one thread each. */
static void world_do(world *w, int what, int from, int to) {
  pthread_t th[MAX_RANKS];
  w->what = what;
  for (int r = from; r < to; r++) {
    fuser_error_destroy(w->r[r].err); /* one a test did not look at */
    w->r[r].err = NULL;
    pthread_create(&th[r], NULL, rank_main, &w->r[r]);
  }
  for (int r = from; r < to; r++) pthread_join(th[r], NULL);
}

/* Every rank's error must be NULL. */
static bool world_ok(world *w, int from, int to, const char *what) {
  bool ok = true;
  for (int r = from; r < to; r++)
    if (w->r[r].err) {
      fprintf(stderr, "%s: rank %d: %s\n", what, r,
              fuser_error_message(w->r[r].err));
      fuser_error_destroy(w->r[r].err);
      w->r[r].err = NULL;
      ok = false;
    }
  return CHECK(ok);
}

/* Runtimes, bundles, buffers (the arguments filled, the results poisoned)
 * for `n` ranks; with `comm`, their communicator. */
static bool world_up(world *w, const spec *s, int n, bool comm) {
  memset(w, 0, sizeof *w);
  w->s = *s;
  w->n = n;
  bw_bundle bb;
  w->first = build(&bb, s);
  size_t size;
  unsigned char *bytes = bw_write(&bb, &size, NULL);
  bool ok = true;
  for (int r = 0; r < n && ok; r++) {
    rank_ctx *c = &w->r[r];
    c->w = w;
    c->rank = r;
    c->rt = tl_fake_rt(fake);
    ok = c->rt && EXPECT_OK(fuser_bundle_load(c->rt, bytes, size, &c->b));
    if (!ok) break;
    c->f = fuser_bundle_find_fusion(c->b, "f");
    ok = EXPECT_OK(fuser_fusion_prepare(c->f)); /* the module's log lines */
    for (uint32_t t = 0; t < s->nargs + s->nres && ok; t++) {
      c->bytes[t] = (size_t)s->t[t].n *
                    fuser_dtype_size((fuser_dtype)s->t[t].dtype);
      unsigned char *host = malloc(c->bytes[t] + 1);
      memset(host, POISON, c->bytes[t]);
      if (t < s->nargs)
        for (int64_t i = 0; i < s->t[t].n; i++)
          put_val(s->t[t].dtype, host, i, input(s, r, t, i));
      ok = EXPECT_OK(fuser_mem_alloc(c->rt, c->bytes[t] + 1, &c->dev[t])) &&
           EXPECT_OK(fuser_mem_copy_h2d(c->rt, c->dev[t], host, c->bytes[t]));
      free(host);
    }
  }
  free(bytes);
  if (ok && comm) {
    ok = EXPECT_OK(fuser_comm_get_unique_id(w->r[0].rt, w->id));
    if (ok) {
      world_do(w, DO_INIT, 0, n);
      ok = world_ok(w, 0, n, "fuser_comm_init_rank");
    }
    for (int r = 0; ok && r < n; r++)
      ok = CHECK(fuser_comm_size(w->r[r].comm) == n &&
                 fuser_comm_rank(w->r[r].comm) == r &&
                 fuser_comm_nccl(w->r[r].comm) != NULL);
  }
  tl_log_clear();
  return ok;
}

static void world_down(world *w) {
  for (int r = 0; r < w->n; r++) {
    rank_ctx *c = &w->r[r];
    fuser_error_destroy(c->err);
    fuser_comm_destroy(c->comm);
    for (uint32_t t = 0; t < BW_MAX_TENSORS; t++)
      if (c->dev[t]) EXPECT_OK(fuser_mem_free(c->rt, c->dev[t]));
    fuser_bundle_destroy(c->b);
    fuser_rt_destroy(c->rt);
  }
  CHECK(tl_fake_hook(fake_nccl, "fuser_fake_nccl_live") == 0);
  CHECK(tl_fake_hook(fake, "fuser_fake_live_allocations") <= 0);
  tl_log_clear();
}

/* Every result written by a collective from an argument, on every rank,
 * byte for byte. */
static void world_check(world *w, const char *what) {
  const spec *s = &w->s;
  for (int r = 0; r < w->n; r++)
    for (uint32_t k = 0; k < s->ncolls; k++) {
      const cspec *c = &s->c[k];
      if (c->dst >= s->nargs + s->nres || c->src >= s->nargs) continue;
      size_t bytes = w->r[r].bytes[c->dst];
      unsigned char *got = malloc(bytes + 1), *want = malloc(bytes + 1);
      EXPECT_OK(
          fuser_mem_copy_d2h(w->r[r].rt, got, w->r[r].dev[c->dst], bytes));
      expected(s, r, c, want, bytes);
      if (!CHECK(memcmp(got, want, bytes) == 0)) {
        uint8_t t = s->t[c->dst].dtype;
        size_t es = fuser_dtype_size((fuser_dtype)t);
        fprintf(stderr, "%s: rank %d, collective %u ('%s'):\n", what, r, k,
                s->t[c->dst].name);
        for (size_t i = 0; i < bytes / es; i++)
          fprintf(stderr, "  [%zu] got %g want %g%s\n", i,
                  get_val(t, got, (int64_t)i), get_val(t, want, (int64_t)i),
                  memcmp(got + i * es, want + i * es, es) ? "  <--" : "");
      }
      free(got);
      free(want);
    }
}

/* Rank r's fake NCCL log must be `want` exactly. */
static void expect_nccl_log(world *w, int r, const char *want) {
  if (!CHECK(strcmp(w->r[r].log, want) == 0))
    fprintf(stderr, "rank %d's NCCL calls:\n%s(expected)\n%s", r,
            w->r[r].log, want);
}

/* ---- collectives --------------------------------------------------------- */

/* 2 ranks, every reduction of all_reduce, f32. */
static void test_all_reduce(void) {
  spec s = base_spec();
  s.nres = 5;
  s.t[0].pow2 = true; /* the product stays exact */
  const char *names[5] = {"y_sum", "y_prod", "y_max", "y_min", "y_avg"};
  const uint8_t reds[5] = {SUM, PROD, MAX, MIN, AVG};
  s.ncolls = 5;
  for (int k = 0; k < 5; k++) {
    s.t[1 + k] = (tspec){names[k], F32, 4, false};
    s.c[k] = (cspec){AR, reds[k], F32, 1, 0, (uint32_t)(1 + k), 4};
  }
  world w;
  if (world_up(&w, &s, 2, true)) {
    world_do(&w, DO_RUN, 0, 2);
    if (world_ok(&w, 0, 2, "all_reduce")) world_check(&w, "all_reduce");
    /* NCCL's sum, prod, max, min, avg: 0 .. 4; ncclFloat32 7. */
    expect_nccl_log(&w, 1,
                    "ncclAllReduce count=4 type=7 op=0 rank=1 of 2\n"
                    "ncclAllReduce count=4 type=7 op=1 rank=1 of 2\n"
                    "ncclAllReduce count=4 type=7 op=2 rank=1 of 2\n"
                    "ncclAllReduce count=4 type=7 op=3 rank=1 of 2\n"
                    "ncclAllReduce count=4 type=7 op=4 rank=1 of 2\n");
    /* Nothing of the driver: no copy, no launch. */
    CHECK(tl_log_count("cuMemcpyDtoDAsync_v2") == 0);
    /* Again: the same. */
    world_do(&w, DO_RUN, 0, 2);
    if (world_ok(&w, 0, 2, "all_reduce, again"))
      world_check(&w, "all_reduce, again");
  }
  world_down(&w);
}

/* 4 ranks: the dtypes NCCL reduces, with their ncclDataType_t. */
static void test_dtypes(void) {
  spec s;
  memset(&s, 0, sizeof s);
  s.axes = 1;
  s.sizes[0] = 4;
  s.nargs = 5;
  s.nres = 7;
  s.t[0] = (tspec){"a", BF16, 6, false};
  s.t[1] = (tspec){"b", I32, 6, false};
  s.t[2] = (tspec){"c", I1, 6, false};
  s.t[3] = (tspec){"d", F64, 6, false};
  s.t[4] = (tspec){"e", F16, 8, false};
  s.t[5] = (tspec){"a_sum", BF16, 6, false};
  s.t[6] = (tspec){"b_sum", I32, 6, false};
  s.t[7] = (tspec){"b_prod", I32, 6, false};
  s.t[8] = (tspec){"c_any", I1, 6, false};
  s.t[9] = (tspec){"c_all", I1, 6, false};
  s.t[10] = (tspec){"d_avg", F64, 6, false};
  s.t[11] = (tspec){"e_a2a", F16, 8, false};
  s.ncolls = 7;
  s.c[0] = (cspec){AR, SUM, BF16, 1, 0, 5, 6};
  s.c[1] = (cspec){AR, SUM, I32, 1, 1, 6, 6};
  s.c[2] = (cspec){AR, PROD, I32, 1, 1, 7, 6};
  s.c[3] = (cspec){AR, MAX, I1, 1, 2, 8, 6};
  s.c[4] = (cspec){AR, MIN, I1, 1, 2, 9, 6};
  s.c[5] = (cspec){AR, AVG, F64, 1, 3, 10, 6};
  s.c[6] = (cspec){A2A, 0, F16, 1, 4, 11, 2};
  world w;
  if (world_up(&w, &s, 4, true)) {
    world_do(&w, DO_RUN, 0, 4);
    if (world_ok(&w, 0, 4, "dtypes")) world_check(&w, "dtypes");
    /* bf16 is ncclBfloat16 (9), i32 ncclInt32 (2), i1 ncclUint8 (1),
     * f64 ncclFloat64 (8); all_to_all a group of a send and a receive of
     * each member's part (2 f16, 4 bytes) to and from every member. */
    expect_nccl_log(&w, 2,
                    "ncclAllReduce count=6 type=9 op=0 rank=2 of 4\n"
                    "ncclAllReduce count=6 type=2 op=0 rank=2 of 4\n"
                    "ncclAllReduce count=6 type=2 op=1 rank=2 of 4\n"
                    "ncclAllReduce count=6 type=1 op=2 rank=2 of 4\n"
                    "ncclAllReduce count=6 type=1 op=3 rank=2 of 4\n"
                    "ncclAllReduce count=6 type=8 op=4 rank=2 of 4\n"
                    "ncclGroupStart\n"
                    "ncclSend count=4 type=1 peer=0 rank=2 of 4\n"
                    "ncclRecv count=4 type=1 peer=0 rank=2 of 4\n"
                    "ncclSend count=4 type=1 peer=1 rank=2 of 4\n"
                    "ncclRecv count=4 type=1 peer=1 rank=2 of 4\n"
                    "ncclSend count=4 type=1 peer=2 rank=2 of 4\n"
                    "ncclRecv count=4 type=1 peer=2 rank=2 of 4\n"
                    "ncclSend count=4 type=1 peer=3 rank=2 of 4\n"
                    "ncclRecv count=4 type=1 peer=3 rank=2 of 4\n"
                    "ncclGroupEnd\n");
    /* i1: any and all, by hand: element 0 is 1 everywhere, 1 is 0. */
    unsigned char any[6], all[6];
    EXPECT_OK(fuser_mem_copy_d2h(w.r[0].rt, any, w.r[0].dev[8], 6));
    EXPECT_OK(fuser_mem_copy_d2h(w.r[0].rt, all, w.r[0].dev[9], 6));
    CHECK(any[0] == 1 && all[0] == 1 && any[1] == 0 && all[1] == 0);
    CHECK(any[2] == 1 && all[2] == 0); /* (rank + 2) % 3 == 0 on rank 1 */
  }
  world_down(&w);
}

/* 8 ranks: all_gather (as bytes, fp8 too), reduce_scatter, slice, and
 * all_reduce of f16 and i8. */
static void test_eight(void) {
  spec s;
  memset(&s, 0, sizeof s);
  s.axes = 1;
  s.sizes[0] = 8;
  s.nargs = 6;
  s.nres = 6;
  s.t[0] = (tspec){"x", F32, 3, false};
  s.t[1] = (tspec){"z", I32, 16, false};
  s.t[2] = (tspec){"s", I64, 16, false};
  s.t[3] = (tspec){"h", F16, 2, false};
  s.t[4] = (tspec){"e", I8, 2, false};
  s.t[5] = (tspec){"q", E4M3, 2, false};
  s.t[6] = (tspec){"y", F32, 24, false};
  s.t[7] = (tspec){"w", I32, 2, false};
  s.t[8] = (tspec){"t", I64, 2, false};
  s.t[9] = (tspec){"hm", F16, 2, false};
  s.t[10] = (tspec){"em", I8, 2, false};
  s.t[11] = (tspec){"qq", E4M3, 16, false};
  s.split[0] = s.split[1] = 1; /* how the compiler would say it */
  s.ncolls = 6;
  s.c[0] = (cspec){AG, 0, F32, 1, 0, 6, 3};
  s.c[1] = (cspec){RS, SUM, I32, 1, 1, 7, 2};
  s.c[2] = (cspec){SL, 0, I64, 1, 2, 8, 2};
  s.c[3] = (cspec){AR, MAX, F16, 1, 3, 9, 2};
  s.c[4] = (cspec){AR, MIN, I8, 1, 4, 10, 2};
  s.c[5] = (cspec){AG, 0, E4M3, 1, 5, 11, 2};
  world w;
  if (world_up(&w, &s, 8, true)) {
    world_do(&w, DO_RUN, 0, 8);
    if (world_ok(&w, 0, 8, "eight ranks")) world_check(&w, "eight ranks");
    /* all_gather moves bytes (ncclUint8, 3 f32 = 12); the slice is a copy
     * (no NCCL call): one per rank. */
    expect_nccl_log(&w, 5,
                    "ncclAllGather count=12 type=1 rank=5 of 8\n"
                    "ncclReduceScatter count=2 type=2 op=0 rank=5 of 8\n"
                    "ncclAllReduce count=2 type=6 op=2 rank=5 of 8\n"
                    "ncclAllReduce count=2 type=0 op=3 rank=5 of 8\n"
                    "ncclAllGather count=2 type=1 rank=5 of 8\n");
    CHECK(tl_log_count("cuMemcpyDtoDAsync_v2") == 8);
  }
  world_down(&w);
}

/* A 2 x 2 grid: groups of axis 0, of axis 1 (sub-communicators, made on
 * first use, once), of both (the communicator itself). */
static void test_grid_2x2(void) {
  spec s;
  memset(&s, 0, sizeof s);
  s.axes = 2;
  s.sizes[0] = s.sizes[1] = 2;
  s.nargs = 3;
  s.nres = 7;
  s.t[0] = (tspec){"x", F32, 2, false};
  s.t[1] = (tspec){"p", F32, 4, false};
  s.t[2] = (tspec){"q", I32, 4, false};
  s.t[3] = (tspec){"y0", F32, 2, false};
  s.t[4] = (tspec){"y1", F32, 2, false};
  s.t[5] = (tspec){"y01", F32, 2, false};
  s.t[6] = (tspec){"g1", F32, 4, false};
  s.t[7] = (tspec){"sl0", F32, 2, false};
  s.t[8] = (tspec){"rs0", I32, 2, false};
  s.t[9] = (tspec){"a1", I32, 4, false};
  s.ncolls = 7;
  s.c[0] = (cspec){AR, SUM, F32, 1, 0, 3, 2};
  s.c[1] = (cspec){AR, SUM, F32, 2, 0, 4, 2};
  s.c[2] = (cspec){AR, SUM, F32, 3, 0, 5, 2};
  s.c[3] = (cspec){AG, 0, F32, 2, 0, 6, 2};
  s.c[4] = (cspec){SL, 0, F32, 1, 1, 7, 2};
  s.c[5] = (cspec){RS, MAX, I32, 1, 2, 8, 2};
  s.c[6] = (cspec){A2A, 0, I32, 2, 2, 9, 2};
  world w;
  if (world_up(&w, &s, 4, true)) {
    long splits = tl_fake_hook(fake_nccl, "fuser_fake_nccl_splits");
    world_do(&w, DO_RUN, 0, 4);
    if (world_ok(&w, 0, 4, "2 x 2")) world_check(&w, "2 x 2");
    /* Rank 1 is (0, 1): its group of axis 0 is {1, 3} (color 1, its
     * coordinate on axis 1; key 0), of axis 1 {0, 1} (color 0, key 1). */
    expect_nccl_log(&w, 1,
                    "ncclCommSplit color=1 key=0 rank=1 of 4\n"
                    "ncclAllReduce count=2 type=7 op=0 rank=0 of 2\n"
                    "ncclCommSplit color=0 key=1 rank=1 of 4\n"
                    "ncclAllReduce count=2 type=7 op=0 rank=1 of 2\n"
                    "ncclAllReduce count=2 type=7 op=0 rank=1 of 4\n"
                    "ncclAllGather count=8 type=1 rank=1 of 2\n"
                    "ncclReduceScatter count=2 type=2 op=2 rank=0 of 2\n"
                    "ncclGroupStart\n"
                    "ncclSend count=8 type=1 peer=0 rank=1 of 2\n"
                    "ncclRecv count=8 type=1 peer=0 rank=1 of 2\n"
                    "ncclSend count=8 type=1 peer=1 rank=1 of 2\n"
                    "ncclRecv count=8 type=1 peer=1 rank=1 of 2\n"
                    "ncclGroupEnd\n");
    CHECK(tl_fake_hook(fake_nccl, "fuser_fake_nccl_splits") - splits == 8);
    /* A second run makes none. */
    world_do(&w, DO_RUN, 0, 4);
    if (world_ok(&w, 0, 4, "2 x 2, again")) world_check(&w, "2 x 2, again");
    CHECK(tl_fake_hook(fake_nccl, "fuser_fake_nccl_splits") - splits == 8);
    expect_nccl_log(&w, 2,
                    "ncclAllReduce count=2 type=7 op=0 rank=1 of 2\n"
                    "ncclAllReduce count=2 type=7 op=0 rank=0 of 2\n"
                    "ncclAllReduce count=2 type=7 op=0 rank=2 of 4\n"
                    "ncclAllGather count=8 type=1 rank=0 of 2\n"
                    "ncclReduceScatter count=2 type=2 op=2 rank=1 of 2\n"
                    "ncclGroupStart\n"
                    "ncclSend count=8 type=1 peer=0 rank=0 of 2\n"
                    "ncclRecv count=8 type=1 peer=0 rank=0 of 2\n"
                    "ncclSend count=8 type=1 peer=1 rank=0 of 2\n"
                    "ncclRecv count=8 type=1 peer=1 rank=0 of 2\n"
                    "ncclGroupEnd\n");
    /* The communicators and each rank's 2 sub-communicators, which go
     * with the fuser_comms (world_down checks that none is left). */
    CHECK(tl_fake_hook(fake_nccl, "fuser_fake_nccl_live") == 4 + 8);
  }
  world_down(&w);
}

/* Axes of one device: a group of them alone is one device (a copy, no
 * NCCL call); with the wide axes it is the communicator. A grid of one
 * device needs no communicator, and on a driver without copy_d2d the copy
 * goes through the host. */
static void test_one_device_axes(void) {
  spec s;
  memset(&s, 0, sizeof s);
  s.axes = 2;
  s.sizes[0] = 2;
  s.sizes[1] = 1;
  s.nargs = 2;
  s.nres = 6;
  s.t[0] = (tspec){"x", F32, 4, false};
  s.t[1] = (tspec){"p", I32, 4, false};
  s.t[2] = (tspec){"a1", F32, 4, false};
  s.t[3] = (tspec){"g1", F32, 4, false};
  s.t[4] = (tspec){"r1", I32, 4, false};
  s.t[5] = (tspec){"s1", I32, 4, false};
  s.t[6] = (tspec){"a01", F32, 4, false};
  s.t[7] = (tspec){"t1", I32, 4, false};
  s.ncolls = 6;
  s.c[0] = (cspec){AR, AVG, F32, 2, 0, 2, 4};
  s.c[1] = (cspec){AG, 0, F32, 2, 0, 3, 4};
  s.c[2] = (cspec){RS, PROD, I32, 2, 1, 4, 4};
  s.c[3] = (cspec){SL, 0, I32, 2, 1, 5, 4};
  s.c[4] = (cspec){AR, SUM, F32, 3, 0, 6, 4};
  s.c[5] = (cspec){A2A, 0, I32, 2, 1, 7, 4};
  world w;
  if (world_up(&w, &s, 2, true)) {
    world_do(&w, DO_RUN, 0, 2);
    if (world_ok(&w, 0, 2, "axes of one device"))
      world_check(&w, "axes of one device");
    expect_nccl_log(&w, 1, "ncclAllReduce count=4 type=7 op=0 rank=1 of 2\n");
    CHECK(tl_log_count("cuMemcpyDtoDAsync_v2 ") == 10);
  }
  world_down(&w);

  /* A grid of one device: no communicator. */
  s.sizes[0] = 1;
  if (world_up(&w, &s, 1, false)) {
    world_do(&w, DO_RUN_NO_COMM, 0, 1);
    if (world_ok(&w, 0, 1, "one device")) world_check(&w, "one device");
    expect_nccl_log(&w, 0, "");
    /* In plan order, on the call's stream. */
    EXPECT_LOG("cuMemcpyDtoDAsync_v2 dst=buf2 src=buf0 bytes=16 stream=0x42",
               "cuMemcpyDtoDAsync_v2 dst=buf3 src=buf0 bytes=16 stream=0x42",
               "cuMemcpyDtoDAsync_v2 dst=buf4 src=buf1 bytes=16 stream=0x42",
               "cuMemcpyDtoDAsync_v2 dst=buf5 src=buf1 bytes=16 stream=0x42",
               "cuMemcpyDtoDAsync_v2 dst=buf6 src=buf0 bytes=16 stream=0x42",
               "cuMemcpyDtoDAsync_v2 dst=buf7 src=buf1 bytes=16 stream=0x42");
  }
  world_down(&w);

  /* The same on a driver without copy_d2d (through the host), whose
   * memory is host memory. */
  fuser_rt *rt = NULL;
  EXPECT_OK(fuser_rt_create_with_driver(&tl_null_driver, NULL, &rt));
  bw_bundle bb;
  build(&bb, &s);
  size_t size;
  unsigned char *bytes = bw_write(&bb, &size, NULL);
  fuser_bundle *b = NULL;
  if (EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b))) {
    uint64_t dev[8];
    for (int t = 0; t < 8; t++) {
      EXPECT_OK(fuser_mem_alloc(rt, 16, &dev[t]));
      unsigned char host[16];
      memset(host, POISON, 16);
      for (int64_t i = 0; t < 2 && i < 4; i++)
        put_val(s.t[t].dtype, host, i, input(&s, 0, (uint32_t)t, i));
      EXPECT_OK(fuser_mem_copy_h2d(rt, dev[t], host, 16));
    }
    EXPECT_OK(fuser_run(fuser_bundle_find_fusion(b, "f"), dev, dev + 2, NULL,
                        0, NULL, NULL));
    for (int k = 0; k < 6; k++) {
      unsigned char got[16], want[16];
      EXPECT_OK(fuser_mem_copy_d2h(rt, got, dev[s.c[k].dst], 16));
      expected(&s, 0, &s.c[k], want, 16);
      CHECK(memcmp(got, want, 16) == 0);
    }
    for (int t = 0; t < 8; t++) EXPECT_OK(fuser_mem_free(rt, dev[t]));
  }
  fuser_bundle_destroy(b);
  fuser_rt_destroy(rt);
  free(bytes);
}

/* reduce_scatter into an intermediate, all_gather of it: an all_reduce in
 * two steps, after a launch; count 0 calls nothing. */
static void test_chain_and_zero(void) {
  spec s;
  memset(&s, 0, sizeof s);
  s.axes = 1;
  s.sizes[0] = 4;
  s.nargs = 1;
  s.nres = 2;
  s.t[0] = (tspec){"x", F32, 8, false};
  s.t[1] = (tspec){"y", F32, 8, false};
  s.t[2] = (tspec){"z", F32, 8, false};
  s.inter = 8; /* buffer 3: 2 f32 */
  s.launch = true;
  s.ncolls = 3;
  s.c[0] = (cspec){RS, SUM, F32, 1, 0, 3, 2};
  s.c[1] = (cspec){AG, 0, F32, 1, 3, 1, 2};
  s.c[2] = (cspec){AR, SUM, F32, 1, 0, 2, 0}; /* count 0 */
  world w;
  if (world_up(&w, &s, 4, true)) {
    world_do(&w, DO_RUN, 0, 4);
    if (world_ok(&w, 0, 4, "chain")) {
      cspec ar = {AR, SUM, F32, 1, 0, 1, 8};
      for (int r = 0; r < 4; r++) {
        unsigned char got[32], want[32], z[32];
        EXPECT_OK(fuser_mem_copy_d2h(w.r[r].rt, got, w.r[r].dev[1], 32));
        EXPECT_OK(fuser_mem_copy_d2h(w.r[r].rt, z, w.r[r].dev[2], 32));
        expected(&s, r, &ar, want, 32);
        CHECK(memcmp(got, want, 32) == 0);
        /* count 0: z keeps its poison */
        memset(want, POISON, 32);
        CHECK(memcmp(z, want, 32) == 0);
      }
    }
    expect_nccl_log(&w, 3,
                    "ncclReduceScatter count=2 type=7 op=0 rank=3 of 4\n"
                    "ncclAllGather count=8 type=1 rank=3 of 4\n");
    CHECK(tl_log_count("cuLaunchKernel") == 4);
  }
  world_down(&w);
}

/* ---- what a call checks, before anything runs ---------------------------- */

static void test_run_checks(void) {
  /* No communicator, a grid of 2 and of 2 x 4. */
  spec s = base_spec();
  s.launch = true;
  world w;
  if (world_up(&w, &s, 1, false)) {
    world_do(&w, DO_RUN_NO_COMM, 0, 1);
    EXPECT_ERR(w.r[0].err, FUSER_ERROR_INVALID_ARGUMENT,
               "fusion 'f' is sharded over a grid of 2 devices: pass a "
               "communicator of 2 ranks (fuser_run_options.comm)");
    w.r[0].err = NULL;
    CHECK(tl_log_count("cuLaunchKernel") == 0);
  }
  world_down(&w);
  s.axes = 2;
  s.sizes[1] = 4;
  if (world_up(&w, &s, 1, false)) {
    world_do(&w, DO_RUN_NO_COMM, 0, 1);
    EXPECT_ERR(w.r[0].err, FUSER_ERROR_INVALID_ARGUMENT,
               "fusion 'f' is sharded over a grid of 2 x 4 = 8 devices: pass "
               "a communicator of 8 ranks (fuser_run_options.comm)");
    w.r[0].err = NULL;
  }
  world_down(&w);

  /* A communicator of 2 for a grid of 2 x 2; of another runtime; aborted. */
  s.sizes[1] = 2;
  if (world_up(&w, &s, 2, true)) {
    world_do(&w, DO_RUN, 0, 1);
    EXPECT_ERR(w.r[0].err, FUSER_ERROR_INVALID_ARGUMENT,
               "fusion 'f' is sharded over a grid of 2 x 2 = 4 devices but "
               "the communicator (fuser_run_options.comm) has 2 ranks: pass "
               "one of 4 ranks");
    w.r[0].err = NULL;
  }
  world_down(&w);
  s = base_spec();
  s.launch = true;
  if (world_up(&w, &s, 2, true)) {
    fuser_comm *mine = w.r[0].comm;
    w.r[0].comm = w.r[1].comm;
    world_do(&w, DO_RUN, 0, 1);
    EXPECT_ERR(w.r[0].err, FUSER_ERROR_INVALID_ARGUMENT,
               "fusion 'f': the communicator (fuser_run_options.comm) was "
               "made on another runtime; make it on the runtime the fusion's "
               "bundle was loaded on (its device)");
    w.r[0].err = NULL;
    w.r[0].comm = mine;
    fuser_comm_abort(w.r[1].comm);
    fuser_comm_abort(w.r[1].comm); /* twice: nothing more */
    world_do(&w, DO_RUN, 1, 2);
    EXPECT_ERR(w.r[1].err, FUSER_ERROR_INVALID_ARGUMENT,
               "fusion 'f': the communicator (fuser_run_options.comm) was "
               "aborted (fuser_comm_abort); destroy it and make a new one");
    w.r[1].err = NULL;
    CHECK(tl_log_count("cuLaunchKernel") == 0);
  }
  world_down(&w);

  /* How far SRC and DST reach, for each kind, with a launch before the
   * collectives and a good collective before the bad one: nothing is
   * enqueued (rank 0 alone: no NCCL call is made either). */
  struct {
    cspec c;
    int64_t src_n, dst_n;
    const char *m1, *m2;
  } cases[] = {
      {{AR, SUM, F32, 1, 0, 1, 5}, 4, 8,
       "fusion 'f': instruction 7 (COLLECTIVE): all_reduce (sum) of 5 f32 "
       "elements per member, among the 2 devices of axis 0: SRC (argument 0 "
       "'x') needs count = 5 (register 4) elements, 20 bytes, but has 16 "
       "bytes in this call",
       ""},
      {{AR, SUM, F32, 1, 0, 1, 5}, 8, 4, "DST (result 0 'y') needs count = 5",
       "20 bytes, but has 16 bytes"},
      {{AG, 0, F32, 1, 0, 1, 3}, 4, 4,
       "all_gather of 3 f32 elements per member, among the 2 devices of axis "
       "0: DST (result 0 'y') needs 2 parts of count = 3 (register 4) "
       "elements, 24 bytes, but has 16 bytes in this call",
       ""},
      {{RS, MAX, F32, 1, 0, 1, 3}, 4, 4,
       "reduce_scatter (max) of 3 f32 elements per member, among the 2 "
       "devices of axis 0: SRC (argument 0 'x') needs 2 parts of count = 3",
       "24 bytes, but has 16 bytes"},
      {{SL, 0, F32, 1, 0, 1, 3}, 4, 4, "slice of 3 f32",
       "SRC (argument 0 'x') needs 2 parts of count = 3"},
      {{A2A, 0, F32, 1, 0, 1, 3}, 8, 4,
       "all_to_all of 3 f32 elements per member, among the 2 devices of "
       "axis 0: DST (result 0 'y') needs 2 parts of count = 3",
       "24 bytes, but has 16 bytes"},
      {{A2A, 0, F32, 1, 0, 1, 3}, 4, 8, "all_to_all of 3 f32",
       "SRC (argument 0 'x') needs 2 parts of count = 3"},
      {{AR, SUM, F32, 1, 0, 1, -1}, 4, 4,
       "fusion 'f': instruction 7 (COLLECTIVE): count = -1 (register 4) is "
       "negative",
       ""},
      {{AG, 0, F64, 1, 0, 1, INT64_MAX / 4}, 4, 4, "count = ",
       "of f64 elements is 2^63 bytes or more"},
  };
  for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
    s = base_spec();
    s.launch = true;
    s.ncolls = 2;
    s.t[0].n = cases[q].src_n;
    s.t[1].n = cases[q].dst_n;
    s.t[0].dtype = s.t[1].dtype = cases[q].c.dtype;
    s.c[0] = (cspec){AR, SUM, cases[q].c.dtype, 1, 0, 1, 1};
    s.c[1] = cases[q].c;
    if (!world_up(&w, &s, 2, true)) {
      world_down(&w);
      continue;
    }
    world_do(&w, DO_RUN, 0, 1);
    if (!EXPECT_ERR(w.r[0].err, FUSER_ERROR_OUT_OF_RANGE, cases[q].m1,
                    cases[q].m2))
      fprintf(stderr, "  (case %zu)\n", q);
    w.r[0].err = NULL;
    CHECK(tl_log_count("cuLaunchKernel") == 0);
    expect_nccl_log(&w, 0, "");
    /* The queries check the reach too (they take no communicator). */
    uint64_t need = 0;
    EXPECT_ERR(fuser_fusion_scratch_size(w.r[0].f, NULL, NULL, NULL, 0, &need),
               FUSER_ERROR_OUT_OF_RANGE, cases[q].m1, cases[q].m2);
    world_down(&w);
  }
  /* An intermediate too small for what the collective writes. */
  s = base_spec();
  s.inter = 12;
  s.c[0].dst = 2;
  if (world_up(&w, &s, 2, true)) {
    world_do(&w, DO_RUN, 0, 1);
    EXPECT_ERR(w.r[0].err, FUSER_ERROR_OUT_OF_RANGE,
               "DST (intermediate buffer 2) needs count = 4 (register 3) "
               "elements, 16 bytes, but has 12 bytes in this call");
    w.r[0].err = NULL;
  }
  world_down(&w);
  /* The queries run without a communicator. */
  s = base_spec();
  s.inter = 16;
  if (world_up(&w, &s, 1, false)) {
    uint64_t need = 0;
    EXPECT_OK(fuser_fusion_scratch_size(w.r[0].f, NULL, NULL, NULL, 0, &need));
    CHECK(need == 16);
    EXPECT_OK(fuser_fusion_infer_dims(w.r[0].f, NULL, 0, NULL));
  }
  world_down(&w);
}

/* ---- NCCL's failures ----------------------------------------------------- */

static void test_nccl_errors(void) {
  const char *at =
      "fusion 'f': instruction 4 (COLLECTIVE): all_reduce (sum) of 4 f32 "
      "elements per member, among the 2 devices of axis 0: ";
  spec s = base_spec();
  world w;

  /* No library, or not NCCL: on the first call that needs it, naming the
   * library and the variable; a fusion of a grid of one device never
   * needs it. */
  fuser_rt *rt = tl_fake_rt(fake);
  unsigned char id[FUSER_COMM_ID_BYTES];
  memset(id, 0, sizeof id);
  setenv("FUSER_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
  EXPECT_ERR(fuser_comm_get_unique_id(rt, id), FUSER_ERROR_DRIVER_UNAVAILABLE,
             "cannot load NCCL '/nonexistent/libnccl.so.2', which runs the "
             "collectives of sharded fusions: ",
             "No such file or directory",
             "; install NCCL 2 (libnccl.so.2), or set FUSER_NCCL_LIBRARY to "
             "the library's path");
  fuser_comm *comm = NULL;
  EXPECT_ERR(fuser_comm_init_rank(rt, id, 2, 0, &comm),
             FUSER_ERROR_DRIVER_UNAVAILABLE, "cannot load NCCL");
  setenv("FUSER_NCCL_LIBRARY", "libm.so.6", 1);
  EXPECT_ERR(fuser_comm_get_unique_id(rt, id), FUSER_ERROR_DRIVER_UNAVAILABLE,
             "the NCCL library 'libm.so.6' does not export ncclGetUniqueId "
             "(not NCCL 2); set FUSER_NCCL_LIBRARY to NCCL's libnccl.so.2");
  EXPECT_ERR(fuser_comm_wrap_nccl(rt, (void *)id, &comm),
             FUSER_ERROR_DRIVER_UNAVAILABLE, "does not export ncclGetUniqueId");
  fuser_rt_destroy(rt);
  s.sizes[0] = 1;
  if (world_up(&w, &s, 1, false)) {
    world_do(&w, DO_RUN_NO_COMM, 0, 1);
    world_ok(&w, 0, 1, "a grid of one device without NCCL");
    world_check(&w, "a grid of one device without NCCL");
  }
  world_down(&w);
  setenv("FUSER_NCCL_LIBRARY", fake_nccl, 1);

  /* A failing call. */
  s = base_spec();
  setenv("FUSER_FAKE_NCCL_FAIL", "unique_id", 1);
  rt = tl_fake_rt(fake);
  EXPECT_ERR(fuser_comm_get_unique_id(rt, id), FUSER_ERROR_DRIVER,
             "ncclGetUniqueId failed: ncclSystemError (unhandled system error "
             "(run with NCCL_DEBUG=INFO for details)): fake NCCL: "
             "ncclGetUniqueId: failure injected by "
             "FUSER_FAKE_NCCL_FAIL=unique_id");
  setenv("FUSER_FAKE_NCCL_FAIL", "init", 1);
  EXPECT_ERR(fuser_comm_init_rank(rt, id, 2, 0, &comm), FUSER_ERROR_DRIVER,
             "ncclCommInitRank failed: ncclSystemError (unhandled system "
             "error (run with NCCL_DEBUG=INFO for details)): fake NCCL: "
             "ncclCommInitRank: failure injected by FUSER_FAKE_NCCL_FAIL=init "
             "(rank 0 of 2)");
  fuser_rt_destroy(rt);
  unsetenv("FUSER_FAKE_NCCL_FAIL");
  if (world_up(&w, &s, 2, true)) {
    setenv("FUSER_FAKE_NCCL_FAIL", "all_reduce", 1);
    world_do(&w, DO_RUN, 0, 2);
    for (int r = 0; r < 2; r++) {
      EXPECT_ERR(w.r[r].err, FUSER_ERROR_DRIVER, at,
                 "ncclAllReduce failed: ncclUnhandledCudaError (unhandled "
                 "cuda error (run with NCCL_DEBUG=INFO for details)): fake "
                 "NCCL: ncclAllReduce: failure injected by "
                 "FUSER_FAKE_NCCL_FAIL=all_reduce");
      w.r[r].err = NULL;
    }
    unsetenv("FUSER_FAKE_NCCL_FAIL");
    /* The communicator still works. */
    world_do(&w, DO_RUN, 0, 2);
    if (world_ok(&w, 0, 2, "after a failure"))
      world_check(&w, "after a failure");
  }
  world_down(&w);
  /* A failing send of an all_to_all: the group is ended all the same. */
  s.c[0] = (cspec){A2A, 0, F32, 1, 0, 1, 2};
  if (world_up(&w, &s, 2, true)) {
    setenv("FUSER_FAKE_NCCL_FAIL", "send_recv", 1);
    world_do(&w, DO_RUN, 0, 2);
    EXPECT_ERR(w.r[0].err, FUSER_ERROR_DRIVER,
               "fusion 'f': instruction 4 (COLLECTIVE): all_to_all of 2 f32 "
               "elements per member, among the 2 devices of axis 0: ncclSend "
               "failed: ncclUnhandledCudaError (",
               "fake NCCL: ncclSend: failure injected by "
               "FUSER_FAKE_NCCL_FAIL=send_recv");
    w.r[0].err = NULL;
    expect_nccl_log(&w, 0,
                    "ncclGroupStart\nncclSend count=8 type=1 peer=0 rank=0 "
                    "of 2\nncclGroupEnd\n");
    unsetenv("FUSER_FAKE_NCCL_FAIL");
    /* The communicator still works. */
    world_do(&w, DO_RUN, 0, 2);
    if (world_ok(&w, 0, 2, "after a failure"))
      world_check(&w, "after a failure");
  }
  world_down(&w);

  /* A sub-communicator that can't be made. */
  s = base_spec();
  s.axes = 2;
  s.sizes[1] = 2;
  if (world_up(&w, &s, 4, true)) {
    setenv("FUSER_FAKE_NCCL_FAIL", "split", 1);
    world_do(&w, DO_RUN, 0, 4);
    EXPECT_ERR(w.r[3].err, FUSER_ERROR_DRIVER,
               "fusion 'f': instruction 4 (COLLECTIVE): all_reduce (sum) of "
               "4 f32 elements per member, among the 2 devices of axis 0: "
               "ncclCommSplit failed: ncclSystemError (",
               "): fake NCCL: ncclCommSplit: failure injected by "
               "FUSER_FAKE_NCCL_FAIL=split (color 1, key 1: the "
               "sub-communicator of 2 ranks)");
    w.r[3].err = NULL;
    unsetenv("FUSER_FAKE_NCCL_FAIL");
    world_do(&w, DO_RUN, 0, 4);
    if (world_ok(&w, 0, 4, "split after a failure"))
      world_check(&w, "split after a failure");
  }
  world_down(&w);

  /* A rank that never comes: the others wait FAKE_NCCL_TIMEOUT_S, not
   * forever, and the communicator is broken for everyone after. */
  s = base_spec();
  setenv("FAKE_NCCL_TIMEOUT_S", "0.25", 1);
  if (world_up(&w, &s, 2, true)) {
    world_do(&w, DO_RUN, 0, 1);
    EXPECT_ERR(w.r[0].err, FUSER_ERROR_DRIVER, at,
               "ncclAllReduce failed: ncclSystemError (unhandled system error "
               "(run with NCCL_DEBUG=INFO for details)): fake NCCL: rank 0 of "
               "2 waited 0.25 s in ncclAllReduce for rank 1, which never came "
               "(FAKE_NCCL_TIMEOUT_S)");
    w.r[0].err = NULL;
    world_do(&w, DO_RUN, 1, 2);
    EXPECT_ERR(w.r[1].err, FUSER_ERROR_DRIVER, at,
               "fake NCCL: ncclAllReduce: rank 0 of 2 waited 0.25 s");
    w.r[1].err = NULL;
  }
  world_down(&w);
  rt = tl_fake_rt(fake);
  if (EXPECT_OK(fuser_comm_get_unique_id(rt, id)))
    EXPECT_ERR(fuser_comm_init_rank(rt, id, 3, 1, &comm), FUSER_ERROR_DRIVER,
               "ncclCommInitRank failed: ncclSystemError (",
               "fake NCCL: rank 1 of 3 waited 0.25 s in ncclCommInitRank for "
               "ranks 0, 2, which never came (FAKE_NCCL_TIMEOUT_S) (rank 1 of "
               "3)");
  fuser_rt_destroy(rt);

  /* An abort gets a rank waiting for another back. */
  setenv("FAKE_NCCL_TIMEOUT_S", "20", 1);
  if (world_up(&w, &s, 2, true)) {
    pthread_t th;
    w.what = DO_RUN;
    long waiting = tl_fake_hook(fake_nccl, "fuser_fake_nccl_waiting");
    pthread_create(&th, NULL, rank_main, &w.r[0]);
    /* Until rank 0 waits in ncclAllReduce for rank 1 (at most 20 s). */
    for (int tries = 0;
         tries < 2000 &&
         tl_fake_hook(fake_nccl, "fuser_fake_nccl_waiting") == waiting;
         tries++) {
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
    fuser_comm_abort(w.r[0].comm);
    pthread_join(th, NULL);
    EXPECT_ERR(w.r[0].err, FUSER_ERROR_DRIVER, at,
               "ncclAllReduce failed: ncclSystemError (",
               "fake NCCL: rank 0 of 2 aborted the communicator "
               "(ncclCommAbort)");
    w.r[0].err = NULL;
  }
  world_down(&w);

  /* Ranks that run different things: the fake NCCL says so. */
  setenv("FAKE_NCCL_TIMEOUT_S", "60", 1);
  spec s2 = base_spec();
  s2.c[0].red = MAX;
  if (world_up(&w, &s, 2, true)) {
    bw_bundle bb;
    build(&bb, &s2);
    size_t size;
    unsigned char *bytes = bw_write(&bb, &size, NULL);
    fuser_bundle *other = NULL;
    if (EXPECT_OK(fuser_bundle_load(w.r[1].rt, bytes, size, &other))) {
      const fuser_fusion *mine = w.r[1].f;
      w.r[1].f = fuser_bundle_find_fusion(other, "f");
      world_do(&w, DO_RUN, 0, 2);
      EXPECT_ERR(w.r[0].err, FUSER_ERROR_DRIVER,
                 "ncclAllReduce failed: ncclInvalidUsage (", "the ranks "
                 "disagree: rank 0 called ncclAllReduce (count 4, type 7, op "
                 "0) but rank 1 called ncclAllReduce (count 4, type 7, op 2)");
      w.r[0].err = NULL;
      w.r[1].f = mine;
    }
    fuser_bundle_destroy(other);
    free(bytes);
  }
  world_down(&w);
  unsetenv("FAKE_NCCL_TIMEOUT_S");
}

/* ---- the communicator API ------------------------------------------------ */

typedef struct {
  char internal[FUSER_COMM_ID_BYTES];
} nccl_id;
typedef int (*pfn_init)(void **, int, nccl_id, int);
typedef int (*pfn_destroy)(void *);

typedef struct {
  pfn_init init;
  const unsigned char *id;
  int n, rank;
  void *comm;
  int result;
} own_ctx;

static void *own_init(void *arg) {
  own_ctx *c = arg;
  nccl_id id;
  memcpy(&id, c->id, sizeof id);
  c->result = c->init(&c->comm, c->n, id, c->rank);
  return NULL;
}

static void test_api(void) {
  fuser_rt *rt = tl_fake_rt(fake);
  unsigned char id[FUSER_COMM_ID_BYTES];
  fuser_comm *comm = NULL;
  EXPECT_ERR(fuser_comm_get_unique_id(NULL, id), FUSER_ERROR_INVALID_ARGUMENT,
             "fuser_comm_get_unique_id: NULL runtime");
  EXPECT_ERR(fuser_comm_get_unique_id(rt, NULL), FUSER_ERROR_INVALID_ARGUMENT,
             "fuser_comm_get_unique_id: NULL out_id");
  EXPECT_ERR(fuser_comm_init_rank(rt, NULL, 2, 0, &comm),
             FUSER_ERROR_INVALID_ARGUMENT, "fuser_comm_init_rank: NULL id");
  EXPECT_ERR(fuser_comm_init_rank(rt, id, 2, 0, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fuser_comm_init_rank: NULL out_comm");
  EXPECT_ERR(fuser_comm_init_rank(rt, id, 0, 0, &comm),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fuser_comm_init_rank: rank 0 of 0 ranks (a communicator has at "
             "least one rank, numbered from 0)");
  EXPECT_ERR(fuser_comm_init_rank(rt, id, 2, 2, &comm),
             FUSER_ERROR_INVALID_ARGUMENT, "rank 2 of 2 ranks");
  EXPECT_ERR(fuser_comm_init_rank(rt, id, 2, -1, &comm),
             FUSER_ERROR_INVALID_ARGUMENT, "rank -1 of 2 ranks");
  EXPECT_ERR(fuser_comm_wrap_nccl(rt, NULL, &comm),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fuser_comm_wrap_nccl: NULL nccl_comm");
  CHECK(comm == NULL);
  CHECK(fuser_comm_size(NULL) == 0 && fuser_comm_rank(NULL) == 0 &&
        fuser_comm_nccl(NULL) == NULL);
  fuser_comm_abort(NULL);
  fuser_comm_destroy(NULL);
  /* One rank: a communicator of itself. */
  if (EXPECT_OK(fuser_comm_get_unique_id(rt, id)) &&
      EXPECT_OK(fuser_comm_init_rank(rt, id, 1, 0, &comm))) {
    CHECK(fuser_comm_size(comm) == 1 && fuser_comm_rank(comm) == 0);
    CHECK(tl_fake_hook(fake_nccl, "fuser_fake_nccl_live") == 1);
  }
  /* The communicator holds the runtime: it may go first. */
  fuser_rt_destroy(rt);
  fuser_comm_destroy(comm);
  CHECK(tl_fake_hook(fake_nccl, "fuser_fake_nccl_live") == 0);

  /* The caller's NCCL communicators on a 2 x 2 grid: the sub-communicators
   * go with the fuser_comms, the caller's stay. */
  void *lib = dlopen(fake_nccl, RTLD_NOW);
  if (!CHECK(lib != NULL)) return;
  pfn_init init;
  pfn_destroy destroy;
  void *p = dlsym(lib, "ncclCommInitRank");
  memcpy(&init, &p, sizeof p);
  p = dlsym(lib, "ncclCommDestroy");
  memcpy(&destroy, &p, sizeof p);
  spec s = base_spec();
  s.axes = 2;
  s.sizes[1] = 2;
  s.c[0].group = 2;
  world w;
  if (world_up(&w, &s, 4, false) &&
      EXPECT_OK(fuser_comm_get_unique_id(w.r[0].rt, w.id))) {
    own_ctx own[4];
    pthread_t th[4];
    for (int r = 0; r < 4; r++) {
      own[r] = (own_ctx){init, w.id, 4, r, NULL, -1};
      pthread_create(&th[r], NULL, own_init, &own[r]);
    }
    for (int r = 0; r < 4; r++) pthread_join(th[r], NULL);
    bool ok = true;
    for (int r = 0; r < 4; r++) {
      ok = CHECK(own[r].result == 0) &&
           EXPECT_OK(fuser_comm_wrap_nccl(w.r[r].rt, own[r].comm,
                                          &w.r[r].comm)) &&
           ok;
      ok = ok && CHECK(fuser_comm_size(w.r[r].comm) == 4 &&
                       fuser_comm_rank(w.r[r].comm) == r &&
                       fuser_comm_nccl(w.r[r].comm) == own[r].comm);
    }
    if (ok) {
      world_do(&w, DO_RUN, 0, 4);
      if (world_ok(&w, 0, 4, "wrapped")) world_check(&w, "wrapped");
      CHECK(tl_fake_hook(fake_nccl, "fuser_fake_nccl_live") == 8);
    }
    for (int r = 0; r < 4; r++) {
      fuser_comm_destroy(w.r[r].comm);
      w.r[r].comm = NULL;
    }
    CHECK(tl_fake_hook(fake_nccl, "fuser_fake_nccl_live") == 4);
    for (int r = 0; r < 4; r++)
      if (own[r].comm) CHECK(destroy(own[r].comm) == 0);
  }
  world_down(&w);
  dlclose(lib);
}

/* ---- the loader ---------------------------------------------------------- */

static fuser_rt *null_rt;

static fuser_error *load(const unsigned char *d, size_t n) {
  fuser_bundle *b = NULL;
  fuser_error *e = fuser_bundle_load(null_rt, d, n, &b);
  if (!e) fuser_bundle_destroy(b);
  return e;
}

/* The bundle of spec `s`, changed by `desc_stmt` on the description (bb)
 * or `byte_stmt` on the bytes (d, n, with the layout in L; the checksum is
 * fixed after), must be refused with these words. */
#define BAD(s, desc_stmt, byte_stmt, ...)                                    \
  do {                                                                       \
    bw_bundle bb;                                                            \
    bw_layout L;                                                             \
    build(&bb, s);                                                           \
    desc_stmt;                                                               \
    size_t n;                                                                \
    unsigned char *d = bw_write(&bb, &n, &L);                                \
    byte_stmt;                                                               \
    bw_fix_checksum(d, n);                                                   \
    EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE, __VA_ARGS__);         \
    free(d);                                                                 \
    (void)L;                                                                 \
  } while (0)
#define F (bb.fusions[0])
#define C0 (bb.fusions[0].colls[0])
#define GR (L.grid[0])
#define CR (L.colls[0][0])
#define INS(i) (L.instrs[0] + FUSER_BUNDLE_INSTR_SIZE * (i))

static void test_loader(void) {
  spec s = base_spec();
  const char *grid = "invalid bundle: fusion 0 'f': instruction 3 (GRID): ";
  const char *coll =
      "invalid bundle: fusion 0 'f': instruction 4 (COLLECTIVE): ";
  /* Valid: minor 3, the grid, the plan text. */
  {
    spec v = base_spec();
    v.axes = 2;
    v.sizes[1] = 4;
    v.nargs = 2;
    v.t[1] = (tspec){"w", F32, 4, false};
    v.t[2] = (tspec){"y", F32, 8, false};
    v.split[0] = 1;
    v.split[1] = 3;
    v.c[0] = (cspec){AG, 0, F32, 2, 0, 2, 2};
    v.ncolls = 3;
    v.c[1] = (cspec){RS, AVG, F32, 3, 1, 2, 1};
    v.c[2] = (cspec){A2A, 0, F32, 2, 0, 2, 1};
    bw_bundle bb;
    build(&bb, &v);
    size_t n;
    unsigned char *d = bw_write(&bb, &n, NULL);
    CHECK(d[FUSER_BUNDLE_H_MINOR] == 3);
    fuser_bundle *b = NULL;
    if (EXPECT_OK(fuser_bundle_load(null_rt, d, n, &b))) {
      const fuser_fusion *f = fuser_bundle_find_fusion(b, "f");
      char text[4096];
      fuser_fusion_plan_text(f, text, sizeof text);
      if (!CHECK(strstr(text,
                        "   5: grid 2 x 4 = 8 devices, splits x[a0] w[a0+a1] "
                        "y[-]\n"
                        "   6: all_gather y = x (f32) group(a1) count=r3\n"
                        "   7: reduce_scatter avg y = w (f32) group(a0+a1) "
                        "count=r4\n"
                        "   8: all_to_all y = x (f32) group(a1) count=r5\n")))
        fprintf(stderr, "%s", text);
      fuser_grid_info g;
      memset(&g, 0, sizeof g);
      CHECK(fuser_fusion_grid(f, &g) == 1);
      CHECK(g.num_axes == 2 && g.sizes[0] == 2 && g.sizes[1] == 4 &&
            g.sizes[2] == 0 && g.num_devices == 8 && g.splits[0] == 1 &&
            g.splits[1] == 3 && g.splits[2] == 0);
      CHECK(fuser_fusion_grid(NULL, &g) == 0 &&
            fuser_fusion_grid(f, NULL) == 0);
      fuser_bundle_destroy(b);
    }
    free(d);
    /* A fusion that is not sharded has no grid; minor 3 without one
     * loads. */
    bw_bundle sb;
    tl_sample_bundle(&sb, false);
    sb.minor = 3;
    d = bw_write(&sb, &n, NULL);
    if (EXPECT_OK(fuser_bundle_load(null_rt, d, n, &b))) {
      fuser_grid_info g;
      CHECK(fuser_fusion_grid(fuser_bundle_get_fusion(b, 0), &g) == 0);
      fuser_bundle_destroy(b);
    }
    free(d);
  }
  /* The minor version. */
  BAD(&s, (void)0, bw_put_u32(d, FUSER_BUNDLE_H_MINOR, 2), grid,
      "a GRID needs format version 2.3 or later, but the header says minor "
      "version 2 (offset 68); a writer that emits a GRID writes minor "
      "version 3");
  BAD(&s, (F.instrs[3] = bw_coll_op(0), F.instrs[4] = bw_grid_op()),
      bw_put_u32(d, FUSER_BUNDLE_H_MINOR, 1),
      "invalid bundle: fusion 0 'f': instruction 3 (COLLECTIVE): a "
      "COLLECTIVE needs format version 2.3 or later, but the header says "
      "minor version 1");
  /* Order and number. */
  BAD(&s, (F.instrs[3] = bw_coll_op(0), F.instrs[4] = bw_grid_op()), (void)0,
      "invalid bundle: fusion 0 'f': instruction 3 (COLLECTIVE): a "
      "COLLECTIVE needs an earlier GRID (the grid whose axes its group "
      "names)");
  BAD(&s, F.instrs[F.num_instrs++] = bw_grid_op(), (void)0,
      "invalid bundle: fusion 0 'f': instruction 5 (GRID): a second GRID "
      "(instruction 3 is the first): a fusion runs on one grid");
  /* The GRID instruction and its record. */
  BAD(&s, F.instrs[3].dst = 0, (void)0, grid,
      "operands dst, a and b are 0, 4294967295 and 4294967295, not all "
      "0xFFFFFFFF (a GRID's operands are in its record)");
  BAD(&s, F.instrs[3].b = 7, (void)0, grid, "operands dst, a and b are");
  BAD(&s, (void)0, bw_put_u64(d, INS(3) + FUSER_BUNDLE_I_IMM, GR + 4), grid,
      "the GRID record at offset", "is not 8-byte aligned");
  BAD(&s, (void)0, bw_put_u64(d, INS(3) + FUSER_BUNDLE_I_IMM, n - 24), grid,
      "the GRID record at offset", "(32 bytes) is not inside the file");
  BAD(&s, (void)0, bw_put_u64(d, INS(3) + FUSER_BUNDLE_I_IMM, (uint64_t)-8),
      grid, "the GRID record at offset -8 (32 bytes) is not inside the file");
  BAD(&s, F.grid.axes = 0, (void)0, grid, "0 axes; a grid has 1 to 4");
  BAD(&s, F.grid.axes = 5, (void)0, grid, "5 axes; a grid has 1 to 4");
  BAD(&s, (void)0, bw_put_u32(d, GR + FUSER_BUNDLE_GR_RESERVED, 1), grid,
      "the reserved field at offset 4 of its record is not 0");
  BAD(&s, F.grid.sizes[0] = 0, (void)0, grid,
      "axis 0 has size 0 (an axis has at least one device)");
  BAD(&s, F.grid.sizes[2] = 2, (void)0, grid,
      "axis 2 has size 2 past the grid's last axis (axis 0): the sizes of "
      "unused axes are 0");
  BAD(&s, (F.grid.axes = 3, F.grid.sizes[1] = 65536, F.grid.sizes[2] = 65536),
      (void)0, grid,
      "the grid has more devices than a communicator holds (2^31 - 1)");
  BAD(&s, (void)0, bw_put_u64(d, GR + FUSER_BUNDLE_GR_SPLITS, n - 1), grid,
      "the splits at offset", "(2 bytes: one per dim of every argument and "
      "result) are not inside the file");
  BAD(&s, F.grid.splits[1][0] = 2, (void)0, grid,
      "result 0 'y': dim 0 is split over the axes of mask 0x2, but the "
      "grid's axes are mask 0x1");
  BAD(&s, (F.tensors[0] = (bw_tensor){"x", F32, 2, {2, 2}},
           F.grid.splits[0][0] = 1, F.grid.splits[0][1] = 1),
      (void)0, grid,
      "argument 0 'x': axis 0 splits both dim 0 and dim 1 (an axis splits at "
      "most one dim of a tensor)");
  /* The COLLECTIVE instruction and its record. */
  BAD(&s, F.instrs[4].a = 0, (void)0, coll,
      "operands dst, a and b are 4294967295, 0 and 4294967295, not all "
      "0xFFFFFFFF (a COLLECTIVE's operands are in its record)");
  BAD(&s, (void)0, bw_put_u64(d, INS(4) + FUSER_BUNDLE_I_IMM, CR + 12), coll,
      "the COLLECTIVE record at offset", "is not 8-byte aligned");
  BAD(&s, (void)0, bw_put_u64(d, INS(4) + FUSER_BUNDLE_I_IMM, n - 16), coll,
      "(24 bytes) is not inside the file");
  BAD(&s, C0.kind = 0, (void)0, coll,
      "unknown collective kind 0 (1 ALL_REDUCE, 2 ALL_GATHER, 3 "
      "REDUCE_SCATTER, 4 SLICE, 5 ALL_TO_ALL)");
  BAD(&s, C0.kind = 6, (void)0, coll, "unknown collective kind 6");
  BAD(&s, C0.reduction = 0, (void)0, coll,
      "unknown reduction 0 of ALL_REDUCE (1 sum, 2 prod, 3 max, 4 min, 5 "
      "avg)");
  BAD(&s, (C0.kind = RS, C0.reduction = 6), (void)0, coll,
      "unknown reduction 6 of REDUCE_SCATTER");
  BAD(&s, C0.kind = AG, (void)0, coll,
      "reduction 1 with ALL_GATHER, which does not reduce (the field is 0 "
      "but for ALL_REDUCE and REDUCE_SCATTER)");
  BAD(&s, (C0.kind = SL, C0.reduction = MAX), (void)0, coll,
      "reduction 3 with SLICE, which does not reduce");
  BAD(&s, C0.kind = A2A, (void)0, coll,
      "reduction 1 with ALL_TO_ALL, which does not reduce");
  BAD(&s, C0.dtype = 0, (void)0, coll, "unknown dtype 0");
  BAD(&s, C0.dtype = 12, (void)0, coll, "unknown dtype 12");
  BAD(&s, C0.dtype = E4M3, (void)0, coll,
      "ALL_REDUCE of f8E4M3FN values: fp8 is not reduced (NCCL has no fp8 "
      "reduction); reduce in a wider dtype, or gather the values");
  BAD(&s, (C0.kind = RS, C0.dtype = E5M2, C0.reduction = MAX), (void)0, coll,
      "REDUCE_SCATTER of f8E5M2 values: fp8 is not reduced");
  BAD(&s, (C0.dtype = E8M0, C0.reduction = MIN), (void)0, coll,
      "ALL_REDUCE of f8E8M0FNU values");
  BAD(&s, (C0.dtype = I32, C0.reduction = AVG), (void)0, coll,
      "avg of i32 values: avg is for f16, bf16, f32 and f64 (an integer "
      "average would round)");
  BAD(&s, (C0.kind = RS, C0.dtype = I1, C0.reduction = AVG), (void)0, coll,
      "avg of i1 values");
  BAD(&s, C0.group = 0, (void)0, coll,
      "group 0: a collective is among the devices of at least one grid axis");
  BAD(&s, C0.group = 2, (void)0, coll,
      "group 0x2 names an axis the grid lacks (its axes are mask 0x1)");
  BAD(&s, C0.src = 9, (void)0, coll,
      "buffer SRC 9 out of range (the fusion has 2 buffers: 1 arguments, 1 "
      "results, 0 intermediates)");
  BAD(&s, C0.dst = BW_NONE, (void)0, coll,
      "buffer DST 4294967295 out of range");
  BAD(&s, C0.src = 1, (void)0, coll,
      "SRC and DST are both buffer 1 (result 0 'y'): a collective does not "
      "run in place");
  BAD(&s, (C0.src = 1, C0.dst = 0), (void)0, coll,
      "DST is buffer 0, argument 0 'x': a collective writes DST, so it is a "
      "result or an intermediate (arguments are read-only)");
  BAD(&s, (F.num_inter = 1, C0.dst = 2), (void)0, coll,
      "DST is intermediate buffer 2, used before its ALLOC");
  BAD(&s, (F.num_inter = 1, C0.src = 2), (void)0, coll,
      "SRC is intermediate buffer 2, used before its ALLOC");
  BAD(&s, C0.count = 9, (void)0, coll,
      "register 9 out of range in field count (plan has 4 registers)");
  BAD(&s, C0.count = 2, (void)0, coll,
      "field count reads register 2 before any instruction writes it");
  BAD(&s, (void)0, bw_put_u64(d, CR + FUSER_BUNDLE_C_RESERVED, 1), coll,
      "the reserved field at offset 16 of its record is not 0");
  /* An opcode past COLLECTIVE is unknown. */
  {
    char unknown[64];
    snprintf(unknown, sizeof unknown, "instruction 4: unknown opcode %d",
             FUSER_BUNDLE_OP_LAST + 1);
    BAD(&s, (void)0, bw_put_u16(d, INS(4), FUSER_BUNDLE_OP_LAST + 1), unknown);
  }
}

/* ---- random corruptions, run by two ranks -------------------------------- */

/* Each corrupted sharded bundle that loads is run by two ranks (threads)
 * on the fake CUDA driver and the fake NCCL, which checks every buffer a
 * collective is handed against the driver's allocations, as the driver
 * checks every copy: whatever a crafted GRID or COLLECTIVE record says,
 * what the runtime lets through stays inside the call's buffers. A load
 * must fail with INVALID_BUNDLE or succeed, never crash. */
typedef struct fuzz_rank {
  fuser_rt *rt;
  const unsigned char *id;
  const fuser_fusion *f;
  uint64_t io[16];
  uint32_t nargs;
  int64_t dims[8];
  size_t nd;
  int rank;
  fuser_error *err;
} fuzz_rank;

static void *fuzz_main(void *arg) {
  fuzz_rank *z = arg;
  fuser_comm *comm = NULL;
  z->err = fuser_comm_init_rank(z->rt, z->id, 2, z->rank, &comm);
  if (!z->err) {
    fuser_run_options ro = {.comm = comm};
    z->err = fuser_run(z->f, z->io, z->io + z->nargs, z->dims, z->nd, NULL,
                       &ro);
  }
  fuser_comm_destroy(comm);
  return NULL;
}

static long fuzz_escapes, fuzz_timeouts;

static void fuzz_case(const spec *sp, long iterations, uint64_t seed,
                      fuser_rt *rts[2]) {
  bw_bundle bb;
  bw_layout L;
  build(&bb, sp);
  size_t size;
  unsigned char *base = bw_write(&bb, &size, &L);
  /* Mostly the grid record, its splits, the collective records and the
   * instructions. */
  size_t hot_begin = L.grid[0],
         hot_end = L.instrs[0] +
                   FUSER_BUNDLE_INSTR_SIZE * bb.fusions[0].num_instrs;
  uint64_t s = seed;
  long loaded = 0, ran = 0;
  for (long it = 0; it < iterations; it++) {
    unsigned char *d = malloc(size);
    memcpy(d, base, size);
    int flips = 1 + (int)(it % 3);
    for (int k = 0; k < flips; k++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      size_t at = (size_t)(s >> 33) % size;
      if (it % 4 != 0) at = hot_begin + at % (hot_end - hot_begin);
      if (it % 5 == 0)
        d[at] = (unsigned char)(s >> 40);
      else if (it % 5 == 1)
        d[at] = (unsigned char)((s >> 40) % 8); /* small values: counts, axes */
      else
        d[at] ^= (unsigned char)(1u << ((s >> 20) % 8));
    }
    bw_fix_checksum(d, size);
    fuser_bundle *b[2] = {NULL, NULL};
    bool ok = true;
    for (int r = 0; r < 2 && ok; r++) {
      fuser_error *e = fuser_bundle_load(rts[r], d, size, &b[r]);
      if (e) {
        if (fuser_error_code_of(e) != FUSER_ERROR_INVALID_BUNDLE) {
          fprintf(stderr, "fuzz %ld: %s\n", it, fuser_error_message(e));
          tl_failures++;
        }
        fuser_error_destroy(e);
        ok = false;
      }
    }
    fuzz_rank z[2];
    memset(z, 0, sizeof z);
    unsigned char id[FUSER_COMM_ID_BYTES];
    if (ok) {
      loaded++;
      for (int r = 0; r < 2 && ok; r++) {
        z[r].rt = rts[r];
        z[r].id = id;
        z[r].rank = r;
        z[r].f = fuser_bundle_get_fusion(b[r], 0);
        size_t na = fuser_fusion_num_args(z[r].f),
               nr = fuser_fusion_num_results(z[r].f);
        z[r].nargs = (uint32_t)na;
        z[r].nd = fuser_fusion_num_dyn_dims(z[r].f);
        if (na + nr > 16 || z[r].nd > 8) ok = false;
        for (int k = 0; k < 8; k++) z[r].dims[k] = 3;
        for (size_t t = 0; t < na + nr && ok; t++) {
          uint64_t bytes = 0;
          fuser_error *te =
              fuser_fusion_tensor_bytes(z[r].f, t, z[r].dims, z[r].nd, &bytes);
          if (te || bytes > (1u << 20)) ok = false;
          fuser_error_destroy(te);
          /* Exactly the tensor's bytes: the fake driver's allocations are
           * what the fake NCCL checks against. */
          if (ok && !EXPECT_OK(fuser_mem_alloc(rts[r], bytes ? bytes : 1,
                                               &z[r].io[t])))
            ok = false;
          /* Zeros: nothing (no kernel of the fake) writes the results. */
          void *zeros = ok ? calloc(1, bytes ? bytes : 1) : NULL;
          if (zeros)
            ok = EXPECT_OK(fuser_mem_copy_h2d(rts[r], z[r].io[t], zeros,
                                              bytes ? bytes : 1));
          free(zeros);
        }
      }
      ok = ok && EXPECT_OK(fuser_comm_get_unique_id(rts[0], id));
    }
    if (ok) {
      ran++;
      pthread_t th[2];
      for (int r = 0; r < 2; r++)
        pthread_create(&th[r], NULL, fuzz_main, &z[r]);
      for (int r = 0; r < 2; r++) pthread_join(th[r], NULL);
      for (int r = 0; r < 2; r++) {
        const char *m = fuser_error_message(z[r].err);
        if (strstr(m, "cuMemcpyDtoDAsync_v2 failed") ||
            strstr(m, "not inside one allocation")) {
          fuzz_escapes++;
          fprintf(stderr, "fuzz %ld: rank %d: %s\n", it, r, m);
        }
        if (strstr(m, "never came")) fuzz_timeouts++;
      }
    }
    for (int r = 0; r < 2; r++) {
      fuser_error_destroy(z[r].err);
      for (int t = 0; t < 16; t++)
        if (z[r].io[t]) EXPECT_OK(fuser_mem_free(rts[r], z[r].io[t]));
      fuser_bundle_destroy(b[r]);
    }
    free(d);
  }
  free(base);
  printf("fuzz: %ld corruptions, %ld loaded, %ld run by two ranks\n",
         iterations, loaded, ran);
}

static void test_fuzz(long iterations) {
  /* No call log (the fake driver's fast path); no allocation of more than
   * 16 MiB (a plan's ALLOC of terabytes fails as out of memory instead of
   * being served and zeroed); a rank that two corrupted plans made wait
   * for nothing gives up soon. */
  unsetenv("FUSER_FAKE_LOG");
  setenv("FUSER_FAKE_FAIL", "oom_above:16777216", 1);
  setenv("FAKE_NCCL_TIMEOUT_S", "2", 1);
  long escapes = tl_fake_hook(fake_nccl, "fuser_fake_nccl_escapes");
  fuser_rt *rts[2] = {tl_fake_rt(fake), tl_fake_rt(fake)};
  if (rts[0] && rts[1]) {
    /* Every kind over a grid of 2, an intermediate between two. */
    spec a;
    memset(&a, 0, sizeof a);
    a.axes = 1;
    a.sizes[0] = 2;
    a.nargs = 2;
    a.nres = 5;
    a.t[0] = (tspec){"x", F32, 8, false};
    a.t[1] = (tspec){"p", I32, 4, false};
    a.t[2] = (tspec){"y", F32, 8, false};
    a.t[3] = (tspec){"z", F32, 4, false};
    a.t[4] = (tspec){"w", I32, 2, false};
    a.t[5] = (tspec){"v", F32, 8, false};
    a.t[6] = (tspec){"u", F32, 8, false};
    a.split[0] = a.split[3] = 1;
    a.inter = 16;
    a.launch = true;
    a.ncolls = 6;
    a.c[0] = (cspec){AR, SUM, F32, 1, 0, 2, 8};
    a.c[1] = (cspec){RS, SUM, F32, 1, 0, 3, 4};
    a.c[2] = (cspec){SL, 0, I32, 1, 1, 4, 2};
    a.c[3] = (cspec){AR, MAX, F32, 1, 0, 7, 4};
    a.c[4] = (cspec){AG, 0, F32, 1, 7, 5, 4};
    a.c[5] = (cspec){A2A, 0, F32, 1, 0, 6, 4};
    fuzz_case(&a, iterations, 0x5eed, rts);
    /* Groups of a 2 x 1 grid: a sub-communicator, a device alone, all. */
    spec g;
    memset(&g, 0, sizeof g);
    g.axes = 2;
    g.sizes[0] = 2;
    g.sizes[1] = 1;
    g.nargs = 2;
    g.nres = 4;
    g.t[0] = (tspec){"a", BF16, 4, false};
    g.t[1] = (tspec){"c", I1, 4, false};
    g.t[2] = (tspec){"cm", I1, 4, false};
    g.t[3] = (tspec){"as", BF16, 4, false};
    g.t[4] = (tspec){"ag", BF16, 4, false};
    g.t[5] = (tspec){"rs", BF16, 2, false};
    g.ncolls = 4;
    g.c[0] = (cspec){AR, MAX, I1, 1, 1, 2, 4};
    g.c[1] = (cspec){AR, SUM, BF16, 3, 0, 3, 4};
    g.c[2] = (cspec){AG, 0, BF16, 2, 0, 4, 4};
    g.c[3] = (cspec){RS, AVG, BF16, 1, 0, 5, 2};
    fuzz_case(&g, iterations, 0xfeed, rts);
  }
  fuser_rt_destroy(rts[0]);
  fuser_rt_destroy(rts[1]);
  CHECK(fuzz_escapes == 0);
  CHECK(tl_fake_hook(fake_nccl, "fuser_fake_nccl_escapes") == escapes);
  CHECK(tl_fake_hook(fake_nccl, "fuser_fake_nccl_live") == 0);
  unsetenv("FUSER_FAKE_FAIL");
  if (fuzz_timeouts)
    printf("fuzz: %ld runs waited for a rank another plan kept away\n",
           fuzz_timeouts);
  unsetenv("FAKE_NCCL_TIMEOUT_S");
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr,
            "usage: test_collective FAKE_CUDA FAKE_NCCL [FUZZ_ITERATIONS]\n");
    return 2;
  }
  fake = argv[1];
  fake_nccl = argv[2];
  long iterations = argc > 3 ? atol(argv[3]) : 2000;
  /* The fake NCCL, never the machine's; it checks every buffer against the
   * fake driver's allocations. */
  setenv("FUSER_NCCL_LIBRARY", fake_nccl, 1);
  setenv("FUSER_FAKE_CUDA", fake, 1);
  unsetenv("FUSER_FAKE_NCCL_FAIL");
  unsetenv("FAKE_NCCL_TIMEOUT_S");
  void *lib = dlopen(fake_nccl, RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "cannot load %s: %s\n", fake_nccl, dlerror());
    return 2;
  }
  void *p = dlsym(lib, "fuser_fake_nccl_thread_log");
  memcpy(&nccl_thread_log, &p, sizeof p);
  p = dlsym(lib, "fuser_fake_nccl_thread_log_clear");
  memcpy(&nccl_thread_log_clear, &p, sizeof p);
  if (!nccl_thread_log || !nccl_thread_log_clear) {
    fprintf(stderr, "%s lacks the fake's hooks\n", fake_nccl);
    return 2;
  }
  tl_log_setup("collective");
  EXPECT_OK(fuser_rt_create_with_driver(&tl_null_driver, NULL, &null_rt));
  test_loader();
  test_all_reduce();
  test_dtypes();
  test_eight();
  test_grid_2x2();
  test_one_device_axes();
  test_chain_and_zero();
  test_run_checks();
  test_nccl_errors();
  test_api();
  test_fuzz(iterations);
  fuser_rt_destroy(null_rt);
  dlclose(lib);
  return tl_finish("test_collective");
}
