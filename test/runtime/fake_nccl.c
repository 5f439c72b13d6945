/*
 * libfuser_fake_nccl.so: a stand-in for libnccl.so.2 that the runtime loads
 * through FUSER_NCCL_LIBRARY. It exports the NCCL entry points the runtime
 * uses, with NCCL's signatures and the values of nccl.h (NCCL 2.28's, the
 * same since 2.18), and runs the ranks of a communicator as threads of one
 * process:
 *
 * - Communicators that share a unique id meet in process memory:
 *   ncclCommInitRank waits until all `nranks` ranks have joined.
 * - Device pointers are host pointers (the fake CUDA driver's memory is
 *   malloc'ed, and so is the CPU emulator's), and streams are ignored: a
 *   collective is done when its call returns, as everything of the fake
 *   CUDA driver is.
 * - A collective waits until every member has posted its buffers; each
 *   member then computes its own output, reading every member's input in
 *   member order 0 .. n-1: a reduction is ((m0 op m1) op m2) op ..., each
 *   step computed exactly and rounded to the element type (f16 and bf16
 *   rounded to nearest even after every step, as NCCL reduces 16-bit
 *   floats pairwise in their type); avg is that sum divided by n, rounded
 *   once (integers: truncated). Float max and min drop a NaN as NCCL's
 *   fmaxf / fminf do. Integers wrap. It writes its output only
 *   after every member has read (so a rank may reuse its buffers once its
 *   call returned, and SRC may be DST).
 * - Members that disagree on a collective (another call, count, type or
 *   op) all get ncclInvalidUsage.
 * - ncclCommSplit is a collective of the parent: ranks of one color form a
 *   communicator, ordered by key (then parent rank); NCCL_SPLIT_NOCOLOR
 *   gets NULL.
 * - ncclSend and ncclRecv are collected until the outermost ncclGroupEnd
 *   (a call outside a group is a group of one), which is a collective of
 *   every member of their communicator: the q-th receive of a rank from
 *   peer k gets the q-th send of k to it, of the same size (any other
 *   pairing, or a group across communicators, is ncclInvalidUsage for
 *   all). A rank may send to itself.
 * - A member that never comes must not hang a test suite: after
 *   FAKE_NCCL_TIMEOUT_S seconds (default 60) of waiting, the call fails
 *   with ncclSystemError, and ncclGetLastError (and stderr) name the ranks
 *   that never came; the communicator is broken from then on (every call
 *   on it, of any rank, fails). ncclCommAbort breaks it too, waking the
 *   ranks that wait on it.
 *
 * - With FUSER_FAKE_CUDA naming the fake CUDA driver the runtime loaded,
 *   every buffer of a collective must lie inside one of its allocations
 *   (what the collective reads and writes: count elements, or count for
 *   each of the n members where it gathers or scatters); one that does not
 *   is ncclInvalidArgument, a line on stderr, and counted
 *   (fuser_fake_nccl_escapes): real NCCL would read or write past it.
 *
 * Environment, read at every call:
 *   FAKE_NCCL_TIMEOUT_S=s           how long a rank waits for the others
 *   FUSER_FAKE_NCCL_FAIL=a,b,...    inject failures: unique_id, init, split
 *                                   (ncclSystemError), all_reduce,
 *                                   all_gather, reduce_scatter, send_recv
 *                                   (ncclUnhandledCudaError)
 *
 * Test hooks (not part of NCCL): fuser_fake_nccl_live (communicators alive),
 * _collectives (collective calls completed, all ranks), _splits (split
 * calls completed), _waiting (ranks waiting for others now), _escapes
 * (buffers outside the fake driver's allocations), _thread_log (the
 * calling thread's calls since its last _thread_log_clear, a line each:
 *   ncclCommInitRank rank=0 of 2
 *   ncclCommSplit color=1 key=0 rank=2 of 4
 *   ncclAllReduce count=4 type=7 op=0 rank=1 of 2
 *   ncclAllGather count=12 type=1 rank=0 of 8
 *   ncclGroupStart
 *   ncclSend count=8 type=1 peer=0 rank=1 of 2
 *   ncclRecv count=8 type=1 peer=0 rank=1 of 2
 *   ncclGroupEnd
 * with the rank and size of the communicator called).
 */
#define _POSIX_C_SOURCE 200809L
#include "fp16.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
  ncclNumResults = 8
} ncclResult_t;

typedef enum {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8,
  ncclBfloat16 = 9,
  ncclNumTypes = 10
} ncclDataType_t;

typedef enum {
  ncclSum = 0,
  ncclProd = 1,
  ncclMax = 2,
  ncclMin = 3,
  ncclAvg = 4,
  ncclNumOps = 5
} ncclRedOp_t;

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
  char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;
#define NCCL_SPLIT_NOCOLOR -1

typedef struct ncclConfig_v22800 ncclConfig_t; /* only passed through */
typedef struct CUstream_st *cudaStream_t;

/* ---- state --------------------------------------------------------------- */

enum {
  OP_INIT,
  OP_SPLIT,
  OP_ALL_REDUCE,
  OP_ALL_GATHER,
  OP_REDUCE_SCATTER,
  OP_P2P
};
static const char *const op_names[] = {
    "ncclCommInitRank",  "ncclCommSplit", "ncclAllReduce", "ncclAllGather",
    "ncclReduceScatter", "ncclGroupEnd (sends and receives)"};

/* One ncclSend or ncclRecv of a group. */
typedef struct p2p {
  bool send;
  const void *sbuf;
  void *rbuf;
  size_t bytes;
  int peer;
  struct ncclComm *comm;
} p2p;
#define MAX_P2P 256

/* What a member posts for the call the group is in. */
typedef struct post {
  int op;
  const void *send;
  size_t count;
  int type, redop;
  int color, key;
  const p2p *ops; /* OP_P2P: the member's sends and receives */
  int num_ops;
} post;

typedef struct group group;

struct ncclComm {
  group *g;
  int rank;
  bool live;    /* made and not destroyed */
  bool aborted; /* ncclCommAbort */
  int busy;     /* in a call */
};
typedef struct ncclComm *ncclComm_t;

/* The ranks of one communicator. Groups are never freed before the library
 * is unloaded (a test makes a few dozen); their members are in `comms`. */
struct group {
  int n;
  bool joining; /* ncclCommInitRank: not all ranks are in yet */
  unsigned char id[NCCL_UNIQUE_ID_BYTES];
  /* The barrier: the calls completed, the members in the current one. */
  uint64_t gen;
  int arrived;
  unsigned char *present;
  post *posts;
  bool broken;
  char why[512];
  /* The last completed call's verdict: members that disagreed. */
  bool mismatch;
  char mismatch_why[512];
  struct ncclComm *comms;
  struct ncclComm **split_out; /* a split's result, per member */
  group *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static group *groups;
static long live_comms, collectives_done, splits_done, next_id, waiting,
    escapes;
/* The fake CUDA driver's fuser_fake_range_ok (FUSER_FAKE_CUDA), once
 * found. */
static int (*range_ok)(uint64_t, uint64_t);

static _Thread_local char last_error[768];
/* The calling thread's open group of sends and receives. */
static _Thread_local p2p group_ops[MAX_P2P];
static _Thread_local int group_len, group_depth;
static _Thread_local char thread_log[8192];
static _Thread_local size_t thread_log_len;

/* ---- helpers ------------------------------------------------------------- */

static ncclResult_t fail(ncclResult_t r, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static ncclResult_t fail(ncclResult_t r, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  int n = snprintf(last_error, sizeof last_error, "fake NCCL: ");
  vsnprintf(last_error + n, sizeof last_error - (size_t)n, format, ap);
  va_end(ap);
  return r;
}

static void log_call(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
static void log_call(const char *format, ...) {
  if (thread_log_len + 2 >= sizeof thread_log) return;
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(thread_log + thread_log_len,
                    sizeof thread_log - thread_log_len - 1, format, ap);
  va_end(ap);
  if (n < 0) return;
  thread_log_len += (size_t)n;
  if (thread_log_len > sizeof thread_log - 2)
    thread_log_len = sizeof thread_log - 2;
  thread_log[thread_log_len++] = '\n';
  thread_log[thread_log_len] = 0;
}

static bool injected(const char *what) {
  const char *spec = getenv("FUSER_FAKE_NCCL_FAIL");
  size_t n = strlen(what);
  for (const char *p = spec ? spec : ""; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && memcmp(p, what, n) == 0) return true;
    p += len;
    if (*p == ',') p++;
  }
  return false;
}

static double timeout_s(void) {
  const char *t = getenv("FAKE_NCCL_TIMEOUT_S");
  double s = t && *t ? atof(t) : 60.0;
  return s > 0 ? s : 60.0;
}

static group *group_new(int n) {
  group *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->n = n;
  g->present = calloc((size_t)n, 1);
  g->posts = calloc((size_t)n, sizeof *g->posts);
  g->comms = calloc((size_t)n, sizeof *g->comms);
  g->split_out = calloc((size_t)n, sizeof *g->split_out);
  if (!g->present || !g->posts || !g->comms || !g->split_out) {
    free(g->present);
    free(g->posts);
    free(g->comms);
    free(g->split_out);
    free(g);
    return NULL;
  }
  for (int r = 0; r < n; r++) {
    g->comms[r].g = g;
    g->comms[r].rank = r;
  }
  g->next = groups;
  groups = g;
  return g;
}

typedef void (*complete_fn)(group *g);

/* Member `rank` arrives at the group's current call (`what`); waits until
 * every member has. The last one runs `complete` (the lock held) before it
 * lets everyone go. Lock held. */
static ncclResult_t arrive(group *g, int rank, const char *what,
                           complete_fn complete) {
  if (g->broken) return fail(ncclSystemError, "%s: %s", what, g->why);
  uint64_t gen = g->gen;
  g->present[rank] = 1;
  if (++g->arrived == g->n) {
    if (complete) complete(g);
    g->arrived = 0;
    memset(g->present, 0, (size_t)g->n);
    g->gen++;
    pthread_cond_broadcast(&cv);
    return ncclSuccess;
  }
  double wait = timeout_s();
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += (time_t)wait;
  deadline.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000L;
  }
  waiting++;
  while (g->gen == gen && !g->broken) {
    int rc = pthread_cond_timedwait(&cv, &lock, &deadline);
    if (rc == ETIMEDOUT && g->gen == gen && !g->broken) {
      char missing[256];
      size_t len = 0;
      int count = 0;
      missing[0] = 0;
      for (int r = 0; r < g->n && len + 16 < sizeof missing; r++)
        if (!g->present[r]) {
          len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%d",
                                  count++ ? ", " : "", r);
        }
      g->broken = true;
      snprintf(g->why, sizeof g->why,
               "rank %d of %d waited %g s in %s for rank%s %s, which never "
               "came (FAKE_NCCL_TIMEOUT_S)",
               rank, g->n, wait, what, count == 1 ? "" : "s", missing);
      fprintf(stderr, "fake NCCL: %s\n", g->why);
      pthread_cond_broadcast(&cv);
    }
  }
  waiting--;
  if (g->gen != gen) return ncclSuccess;
  return fail(ncclSystemError, "%s", g->why);
}

/* A communicator a call may use. Lock held. */
static ncclResult_t use(ncclComm_t c, const char *what) {
  if (!c) return fail(ncclInvalidArgument, "%s: NULL communicator", what);
  if (c->aborted)
    return fail(ncclInvalidUsage, "%s: the communicator was aborted", what);
  if (!c->live)
    return fail(ncclInvalidUsage, "%s: the communicator was destroyed", what);
  if (c->busy)
    return fail(ncclInvalidUsage,
                "%s: another thread is in a call on this communicator", what);
  return ncclSuccess;
}

/* ---- values -------------------------------------------------------------- */

static size_t type_size(int t) {
  switch (t) {
  case ncclInt8: case ncclUint8: return 1;
  case ncclFloat16: case ncclBfloat16: return 2;
  case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
  default: return 8;
  }
}
static bool is_float(int t) {
  return t == ncclFloat16 || t == ncclBfloat16 || t == ncclFloat32 ||
         t == ncclFloat64;
}
static bool is_signed(int t) {
  return t == ncclInt8 || t == ncclInt32 || t == ncclInt64;
}

/* A value: a double for the floats (every f32 sum and product of two is
 * exact in it, so rounding it once is the float operation), a wrapped
 * 64-bit integer (sign-extended for the signed types) for the others. */
typedef union val {
  double f;
  uint64_t u;
} val;

static val load(int t, const unsigned char *p, size_t i) {
  val v;
  v.u = 0;
  int8_t i8;
  int32_t i32;
  uint32_t u32;
  uint16_t h;
  float f;
  switch (t) {
  case ncclInt8:
    memcpy(&i8, p + i, 1);
    v.u = (uint64_t)(int64_t)i8;
    break;
  case ncclUint8: v.u = p[i]; break;
  case ncclInt32:
    memcpy(&i32, p + 4 * i, 4);
    v.u = (uint64_t)(int64_t)i32;
    break;
  case ncclUint32:
    memcpy(&u32, p + 4 * i, 4);
    v.u = u32;
    break;
  case ncclInt64: case ncclUint64: memcpy(&v.u, p + 8 * i, 8); break;
  case ncclFloat16:
    memcpy(&h, p + 2 * i, 2);
    v.f = fp_half_to_float(h);
    break;
  case ncclBfloat16:
    memcpy(&h, p + 2 * i, 2);
    v.f = fp_bf16_to_float(h);
    break;
  case ncclFloat32:
    memcpy(&f, p + 4 * i, 4);
    v.f = f;
    break;
  case ncclFloat64: memcpy(&v.f, p + 8 * i, 8); break;
  }
  return v;
}

static void store(int t, unsigned char *p, size_t i, val v) {
  uint32_t u32 = (uint32_t)v.u;
  uint16_t h;
  float f;
  switch (t) {
  case ncclInt8: case ncclUint8: p[i] = (unsigned char)v.u; break;
  case ncclInt32: case ncclUint32: memcpy(p + 4 * i, &u32, 4); break;
  case ncclInt64: case ncclUint64: memcpy(p + 8 * i, &v.u, 8); break;
  case ncclFloat16:
    h = fp_float_to_half((float)v.f);
    memcpy(p + 2 * i, &h, 2);
    break;
  case ncclBfloat16:
    h = fp_float_to_bf16((float)v.f);
    memcpy(p + 2 * i, &h, 2);
    break;
  case ncclFloat32:
    f = (float)v.f;
    memcpy(p + 4 * i, &f, 4);
    break;
  case ncclFloat64: memcpy(p + 8 * i, &v.f, 8); break;
  }
}

/* `v` rounded to type t (a float type), as one step of NCCL's reduction
 * in that type. */
static val round_to(int t, val v) {
  switch (t) {
  case ncclFloat16: v.f = fp_half_to_float(fp_float_to_half((float)v.f)); break;
  case ncclBfloat16:
    v.f = fp_bf16_to_float(fp_float_to_bf16((float)v.f));
    break;
  case ncclFloat32: v.f = (float)v.f; break;
  default: break;
  }
  return v;
}

/* Integers of fewer than 64 bits compare as what they hold. */
static int64_t as_signed(int t, uint64_t u) {
  switch (t) {
  case ncclInt8: return (int8_t)(uint8_t)u;
  case ncclInt32: return (int32_t)(uint32_t)u;
  default: return (int64_t)u;
  }
}

static val combine(int t, int op, val a, val b) {
  val r;
  if (is_float(t)) {
    switch (op) {
    case ncclProd: r.f = a.f * b.f; break;
    /* As NCCL's fmaxf / fminf (__hmax / __hmin for halves): a NaN gives
     * the other operand, so a NaN only some members hold is dropped, as on
     * a GPU (fuser's lowering carries an any-NaN flag for that). */
    case ncclMax: r.f = fmax(a.f, b.f); break;
    case ncclMin: r.f = fmin(a.f, b.f); break;
    default: r.f = a.f + b.f; /* sum, avg */
    }
    return round_to(t, r);
  }
  switch (op) {
  case ncclProd: r.u = a.u * b.u; break;
  case ncclMax:
    r.u = is_signed(t) ? (as_signed(t, a.u) > as_signed(t, b.u) ? a.u : b.u)
                       : (a.u > b.u ? a.u : b.u);
    break;
  case ncclMin:
    r.u = is_signed(t) ? (as_signed(t, a.u) < as_signed(t, b.u) ? a.u : b.u)
                       : (a.u < b.u ? a.u : b.u);
    break;
  default: r.u = a.u + b.u;
  }
  return r;
}

static val average(int t, val sum, int n) {
  if (is_float(t)) {
    sum.f /= n;
    return round_to(t, sum);
  }
  if (is_signed(t))
    sum.u = (uint64_t)(as_signed(t, sum.u) / n);
  else
    sum.u /= (uint64_t)n;
  return sum;
}

/* ---- completions (the last member to arrive, lock held) ------------------ */

static void init_complete(group *g) { g->joining = false; }

/* Every member called the same thing with the same count, type and op. */
static void check_same(group *g) {
  g->mismatch = false;
  const post *a = &g->posts[0];
  for (int r = 1; r < g->n; r++) {
    const post *b = &g->posts[r];
    if (b->op != a->op || b->count != a->count || b->type != a->type ||
        b->redop != a->redop) {
      g->mismatch = true;
      snprintf(g->mismatch_why, sizeof g->mismatch_why,
               "the ranks disagree: rank 0 called %s (count %zu, type %d, "
               "op %d) but rank %d called %s (count %zu, type %d, op %d)",
               op_names[a->op], a->count, a->type, a->redop, r,
               op_names[b->op], b->count, b->type, b->redop);
      return;
    }
  }
}

/* The members of each color, ordered by key then rank, become a group. */
static void split_complete(group *g) {
  check_same(g);
  if (g->mismatch) return;
  int *order = malloc(sizeof(int) * (size_t)g->n);
  unsigned char *done = calloc((size_t)g->n, 1);
  for (int r = 0; r < g->n; r++) g->split_out[r] = NULL;
  for (int r = 0; order && done && r < g->n; r++) {
    if (done[r] || g->posts[r].color == NCCL_SPLIT_NOCOLOR) continue;
    int m = 0;
    for (int q = r; q < g->n; q++)
      if (!done[q] && g->posts[q].color == g->posts[r].color) {
        /* insertion by (key, rank) */
        int at = m++;
        while (at > 0 && g->posts[order[at - 1]].key > g->posts[q].key) {
          order[at] = order[at - 1];
          at--;
        }
        order[at] = q;
        done[q] = 1;
      }
    group *sub = group_new(m);
    if (!sub) break;
    for (int k = 0; k < m; k++) {
      sub->comms[k].live = true;
      g->split_out[order[k]] = &sub->comms[k];
      live_comms++;
    }
  }
  free(order);
  free(done);
}

/* ---- the API ------------------------------------------------------------- */

EXPORT const char *ncclGetErrorString(ncclResult_t r) {
  switch (r) {
  case ncclSuccess: return "no error";
  case ncclUnhandledCudaError:
    return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
  case ncclSystemError:
    return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
  case ncclInternalError:
    return "internal error - please report this issue to the NCCL developers";
  case ncclInvalidArgument:
    return "invalid argument (run with NCCL_DEBUG=WARN for details)";
  case ncclInvalidUsage:
    return "invalid usage (run with NCCL_DEBUG=WARN for details)";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  case ncclInProgress: return "NCCL operation in progress";
  default: return "unknown result code";
  }
}

/* The calling thread's last failure, as NCCL's (which ignores `comm`). */
EXPORT const char *ncclGetLastError(ncclComm_t comm) {
  (void)comm;
  return last_error;
}

EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  if (!id) return fail(ncclInvalidArgument, "ncclGetUniqueId: NULL id");
  if (injected("unique_id"))
    return fail(ncclSystemError, "ncclGetUniqueId: failure injected by "
                                 "FUSER_FAKE_NCCL_FAIL=unique_id");
  pthread_mutex_lock(&lock);
  long n = ++next_id;
  pthread_mutex_unlock(&lock);
  memset(id, 0, sizeof *id);
  snprintf(id->internal, sizeof id->internal, "fuser-fake-nccl %ld %ld",
           (long)getpid(), n);
  return ncclSuccess;
}

EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks,
                                     ncclUniqueId id, int rank) {
  log_call("ncclCommInitRank rank=%d of %d", rank, nranks);
  if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
    return fail(ncclInvalidArgument,
                "ncclCommInitRank: rank %d of %d ranks (or a NULL comm)",
                rank, nranks);
  if (injected("init"))
    return fail(ncclSystemError, "ncclCommInitRank: failure injected by "
                                 "FUSER_FAKE_NCCL_FAIL=init");
  pthread_mutex_lock(&lock);
  group *g = groups;
  for (; g; g = g->next)
    if (g->joining && memcmp(g->id, id.internal, sizeof g->id) == 0) break;
  ncclResult_t r = ncclSuccess;
  if (!g) {
    g = group_new(nranks);
    if (!g) r = fail(ncclSystemError, "ncclCommInitRank: out of memory");
    else {
      g->joining = true;
      memcpy(g->id, id.internal, sizeof g->id);
    }
  } else if (g->n != nranks) {
    r = fail(ncclInvalidArgument,
             "ncclCommInitRank: rank %d says the communicator has %d ranks, "
             "the ranks before it %d",
             rank, nranks, g->n);
  } else if (g->present[rank] || g->comms[rank].live) {
    r = fail(ncclInvalidUsage, "ncclCommInitRank: rank %d joined twice", rank);
  }
  if (!r) r = arrive(g, rank, "ncclCommInitRank", init_complete);
  if (!r) {
    g->comms[rank].live = true;
    live_comms++;
    *comm = &g->comms[rank];
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                                  ncclComm_t *newcomm, ncclConfig_t *config) {
  (void)config; /* the parent's configuration */
  log_call("ncclCommSplit color=%d key=%d rank=%d of %d", color, key,
           comm ? comm->rank : -1, comm ? comm->g->n : 0);
  if (!newcomm) return fail(ncclInvalidArgument, "ncclCommSplit: NULL newcomm");
  if (color < NCCL_SPLIT_NOCOLOR)
    return fail(ncclInvalidArgument, "ncclCommSplit: color %d", color);
  if (injected("split"))
    return fail(ncclSystemError, "ncclCommSplit: failure injected by "
                                 "FUSER_FAKE_NCCL_FAIL=split");
  pthread_mutex_lock(&lock);
  ncclResult_t r = use(comm, "ncclCommSplit");
  if (r) {
    pthread_mutex_unlock(&lock);
    return r;
  }
  comm->busy++;
  group *g = comm->g;
  post *p = &g->posts[comm->rank];
  memset(p, 0, sizeof *p);
  p->op = OP_SPLIT;
  p->color = color;
  p->key = key;
  r = arrive(g, comm->rank, "ncclCommSplit", split_complete);
  if (!r && g->mismatch) r = fail(ncclInvalidUsage, "%s", g->mismatch_why);
  if (!r) {
    *newcomm = g->split_out[comm->rank];
    splits_done++;
  }
  comm->busy--;
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  pthread_mutex_lock(&lock);
  ncclResult_t r = ncclSuccess;
  if (!comm)
    r = fail(ncclInvalidArgument, "ncclCommDestroy: NULL communicator");
  else if (comm->busy)
    r = fail(ncclInvalidUsage, "ncclCommDestroy: a call is using it");
  else if (!comm->live && !comm->aborted)
    r = fail(ncclInvalidUsage, "ncclCommDestroy: destroyed twice");
  else if (comm->live) {
    comm->live = false;
    live_comms--;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

/* Ends the communicator now: the ranks waiting on its group fail (they
 * would hang in real NCCL's kernels until their own abort). */
EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (!comm)
    return fail(ncclInvalidArgument, "ncclCommAbort: NULL communicator");
  pthread_mutex_lock(&lock);
  comm->aborted = true;
  if (comm->live) {
    comm->live = false;
    live_comms--;
  }
  group *g = comm->g;
  if (!g->broken) {
    g->broken = true;
    snprintf(g->why, sizeof g->why,
             "rank %d of %d aborted the communicator (ncclCommAbort)",
             comm->rank, g->n);
  }
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&lock);
  return ncclSuccess;
}

EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  if (!comm || !count) return fail(ncclInvalidArgument, "ncclCommCount: NULL");
  *count = comm->g->n;
  return ncclSuccess;
}

EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  if (!comm || !rank)
    return fail(ncclInvalidArgument, "ncclCommUserRank: NULL");
  *rank = comm->rank;
  return ncclSuccess;
}

/* With FUSER_FAKE_CUDA: `bytes` at `p` lie inside one of the fake driver's
 * allocations (else the call fails, and it is counted). Lock held. */
static ncclResult_t check_range(const void *p, size_t bytes,
                                const char *name, const char *which) {
  const char *cuda = getenv("FUSER_FAKE_CUDA");
  if (!range_ok && cuda && *cuda) {
    /* The library the runtime loaded (the same path): no new copy. */
    void *lib = dlopen(cuda, RTLD_NOW | RTLD_NOLOAD);
    void *sym = lib ? dlsym(lib, "fuser_fake_range_ok") : NULL;
    memcpy(&range_ok, &sym, sizeof sym);
    if (lib) dlclose(lib);
  }
  if (!range_ok || range_ok((uint64_t)(uintptr_t)p, bytes))
    return ncclSuccess;
  escapes++;
  ncclResult_t r = fail(ncclInvalidArgument,
                        "%s: the %s buffer %p (%zu bytes) is not inside one "
                        "allocation of the fake CUDA driver",
                        name, which, p, bytes);
  fprintf(stderr, "%s\n", last_error);
  return r;
}

/* A collective's buffers: what it reads and writes (count is below 2^64
 * / 8 / n: smaller than any allocation's reach overflows nothing here).
 * Lock held. */
static ncclResult_t check_buffers(int op, const void *send, void *recv,
                                  size_t count, int type, int n) {
  size_t part = count * type_size(type);
  size_t sent = op == OP_REDUCE_SCATTER ? part * (size_t)n : part,
         got = op == OP_ALL_GATHER ? part * (size_t)n : part;
  ncclResult_t r = check_range(send, sent, op_names[op], "send");
  return r ? r : check_range(recv, got, op_names[op], "receive");
}

/* One collective: posts, waits for every member, computes this member's
 * output from everyone's input, waits until everyone has read, writes. */
static ncclResult_t collective(int op, const void *send, void *recv,
                               size_t count, int type, int redop,
                               ncclComm_t comm) {
  const char *name = op_names[op];
  if (op == OP_ALL_GATHER)
    log_call("%s count=%zu type=%d rank=%d of %d", name, count, type,
             comm ? comm->rank : -1, comm ? comm->g->n : 0);
  else
    log_call("%s count=%zu type=%d op=%d rank=%d of %d", name, count, type,
             redop, comm ? comm->rank : -1, comm ? comm->g->n : 0);
  static const char *const inject[] = {[OP_ALL_REDUCE] = "all_reduce",
                                       [OP_ALL_GATHER] = "all_gather",
                                       [OP_REDUCE_SCATTER] = "reduce_scatter"};
  if (injected(inject[op]))
    return fail(ncclUnhandledCudaError, "%s: failure injected by "
                                        "FUSER_FAKE_NCCL_FAIL=%s",
                name, inject[op]);
  if (type < 0 || type >= ncclNumTypes)
    return fail(ncclInvalidArgument, "%s: unknown type %d", name, type);
  if (op != OP_ALL_GATHER && (redop < 0 || redop >= ncclNumOps))
    return fail(ncclInvalidArgument, "%s: unknown op %d", name, redop);
  if (count > 0 && (!send || !recv))
    return fail(ncclInvalidArgument, "%s: NULL buffer", name);
  pthread_mutex_lock(&lock);
  ncclResult_t r = use(comm, name);
  if (r) {
    pthread_mutex_unlock(&lock);
    return r;
  }
  group *g = comm->g;
  int n = g->n, rank = comm->rank;
  if (count > 0 && (r = check_buffers(op, send, recv, count, type, n))) {
    pthread_mutex_unlock(&lock);
    return r;
  }
  comm->busy++;
  post *p = &g->posts[rank];
  memset(p, 0, sizeof *p);
  p->op = op;
  p->send = send;
  p->count = count;
  p->type = type;
  p->redop = op == OP_ALL_GATHER ? 0 : redop;
  r = arrive(g, rank, name, check_same);
  if (!r && g->mismatch) r = fail(ncclInvalidUsage, "%s", g->mismatch_why);
  const unsigned char **in = NULL;
  if (!r) {
    /* Nobody posts again before everyone has read (the second barrier). */
    in = malloc(sizeof *in * (size_t)n);
    if (!in) r = fail(ncclSystemError, "%s: out of memory", name);
    for (int m = 0; in && m < n; m++) in[m] = g->posts[m].send;
  }
  pthread_mutex_unlock(&lock);

  size_t es = type_size(type);
  size_t out_bytes = count * es * (op == OP_ALL_GATHER ? (size_t)n : 1);
  unsigned char *out = NULL;
  if (!r && out_bytes) {
    out = malloc(out_bytes);
    if (!out) r = fail(ncclSystemError, "%s: out of memory", name);
  }
  if (!r && out_bytes) {
    if (op == OP_ALL_GATHER) {
      for (int m = 0; m < n; m++)
        memcpy(out + (size_t)m * count * es, in[m], count * es);
    } else {
      size_t base = op == OP_REDUCE_SCATTER ? (size_t)rank * count : 0;
      for (size_t i = 0; i < count; i++) {
        val acc = load(type, in[0], base + i);
        for (int m = 1; m < n; m++)
          acc = combine(type, redop, acc, load(type, in[m], base + i));
        if (redop == ncclAvg) acc = average(type, acc, n);
        store(type, out, i, acc);
      }
    }
  }
  pthread_mutex_lock(&lock);
  /* Everyone has read before anyone writes (in place, SRC is DST). The
   * members that failed above failed alike, and skip it alike. */
  if (!r) r = arrive(g, rank, name, NULL);
  if (!r) collectives_done++;
  comm->busy--;
  pthread_mutex_unlock(&lock);
  if (!r && out_bytes) memcpy(recv, out, out_bytes);
  free(out);
  free(in);
  return r;
}

EXPORT ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff,
                                  size_t count, ncclDataType_t datatype,
                                  ncclRedOp_t op, ncclComm_t comm,
                                  cudaStream_t stream) {
  (void)stream;
  return collective(OP_ALL_REDUCE, sendbuff, recvbuff, count, (int)datatype,
                    (int)op, comm);
}

EXPORT ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff,
                                  size_t sendcount, ncclDataType_t datatype,
                                  ncclComm_t comm, cudaStream_t stream) {
  (void)stream;
  return collective(OP_ALL_GATHER, sendbuff, recvbuff, sendcount,
                    (int)datatype, 0, comm);
}

EXPORT ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff,
                                      size_t recvcount,
                                      ncclDataType_t datatype, ncclRedOp_t op,
                                      ncclComm_t comm, cudaStream_t stream) {
  (void)stream;
  return collective(OP_REDUCE_SCATTER, sendbuff, recvbuff, recvcount,
                    (int)datatype, (int)op, comm);
}

/* ---- sends and receives -------------------------------------------------- */

/* The q-th send of member `from` to member `to` in `ops` (n of them), or
 * NULL. */
static const p2p *nth_send(const p2p *ops, int n, int to, int q) {
  for (int i = 0; i < n; i++)
    if (ops[i].send && ops[i].peer == to && q-- == 0) return &ops[i];
  return NULL;
}

/* Every receive has its send of the same size, and every send its
 * receive. */
static void p2p_complete(group *g) {
  check_same(g); /* every member ends a group */
  if (g->mismatch) return;
  for (int m = 0; m < g->n; m++) {
    const post *p = &g->posts[m];
    int seen_from[MAX_P2P] = {0}, seen_to[MAX_P2P] = {0};
    for (int i = 0; i < p->num_ops; i++) {
      const p2p *o = &p->ops[i];
      const post *peer = &g->posts[o->peer];
      const p2p *match =
          o->send ? NULL
                  : nth_send(peer->ops, peer->num_ops, m, seen_from[o->peer]++);
      if (o->send) {
        /* its receive: the peer's receive from m of the same index */
        int q = seen_to[o->peer]++, found = 0;
        for (int j = 0; j < peer->num_ops; j++)
          if (!peer->ops[j].send && peer->ops[j].peer == m && q-- == 0) {
            found = 1;
            break;
          }
        if (found) continue;
      } else if (match && match->bytes == o->bytes) {
        continue;
      }
      g->mismatch = true;
      snprintf(g->mismatch_why, sizeof g->mismatch_why,
               "rank %d's %s %s rank %d (%zu bytes) has no matching %s of "
               "that size",
               m, o->send ? "send" : "receive", o->send ? "to" : "from",
               o->peer, o->bytes, o->send ? "receive" : "send");
      return;
    }
  }
}

/* Runs the calling thread's group: every member of the communicator posts
 * its sends and receives, each reads what its receives match, then (after
 * everyone has read) writes. */
static ncclResult_t run_group(void) {
  int n_ops = group_len;
  if (n_ops == 0) return ncclSuccess;
  struct ncclComm *comm = group_ops[0].comm;
  for (int i = 1; i < n_ops; i++)
    if (group_ops[i].comm != comm) {
      group_len = 0;
      return fail(ncclInvalidUsage, "ncclGroupEnd: sends and receives on "
                                    "several communicators (the fake runs "
                                    "one per group)");
    }
  pthread_mutex_lock(&lock);
  ncclResult_t r = use(comm, "ncclGroupEnd");
  if (r) {
    pthread_mutex_unlock(&lock);
    group_len = 0;
    return r;
  }
  comm->busy++;
  group *g = comm->g;
  int n = g->n, rank = comm->rank;
  post *p = &g->posts[rank];
  memset(p, 0, sizeof *p);
  p->op = OP_P2P;
  p->ops = group_ops;
  p->num_ops = n_ops;
  r = arrive(g, rank, "ncclGroupEnd", p2p_complete);
  if (!r && g->mismatch) r = fail(ncclInvalidUsage, "%s", g->mismatch_why);
  const p2p **peers = NULL;
  int *peer_ops = NULL;
  if (!r) {
    /* Nobody posts again before everyone has read. */
    peers = malloc(sizeof *peers * (size_t)n);
    peer_ops = malloc(sizeof *peer_ops * (size_t)n);
    if (!peers || !peer_ops)
      r = fail(ncclSystemError, "ncclGroupEnd: out of memory");
    for (int m = 0; !r && m < n; m++) {
      peers[m] = g->posts[m].ops;
      peer_ops[m] = g->posts[m].num_ops;
    }
  }
  pthread_mutex_unlock(&lock);
  size_t total = 0;
  for (int i = 0; i < n_ops; i++)
    if (!group_ops[i].send) total += group_ops[i].bytes;
  unsigned char *tmp = !r && total ? malloc(total) : NULL;
  if (!r && total && !tmp)
    r = fail(ncclSystemError, "ncclGroupEnd: out of memory");
  if (!r) {
    int seen[MAX_P2P] = {0};
    size_t at = 0;
    for (int i = 0; i < n_ops; i++) {
      const p2p *o = &group_ops[i];
      if (o->send) continue;
      const p2p *s =
          nth_send(peers[o->peer], peer_ops[o->peer], rank, seen[o->peer]++);
      memcpy(tmp + at, s->sbuf, o->bytes);
      at += o->bytes;
    }
  }
  pthread_mutex_lock(&lock);
  if (!r) r = arrive(g, rank, "ncclGroupEnd", NULL);
  if (!r) collectives_done++;
  comm->busy--;
  pthread_mutex_unlock(&lock);
  if (!r) {
    size_t at = 0;
    for (int i = 0; i < n_ops; i++)
      if (!group_ops[i].send) {
        memcpy(group_ops[i].rbuf, tmp + at, group_ops[i].bytes);
        at += group_ops[i].bytes;
      }
  }
  free(tmp);
  free(peers);
  free(peer_ops);
  group_len = 0;
  return r;
}

static ncclResult_t p2p_add(bool send, const void *sbuf, void *rbuf,
                            size_t count, int type, int peer,
                            ncclComm_t comm) {
  const char *name = send ? "ncclSend" : "ncclRecv";
  log_call("%s count=%zu type=%d peer=%d rank=%d of %d", name, count, type,
           peer, comm ? comm->rank : -1, comm ? comm->g->n : 0);
  if (injected("send_recv"))
    return fail(ncclUnhandledCudaError,
                "%s: failure injected by FUSER_FAKE_NCCL_FAIL=send_recv", name);
  if (!comm) return fail(ncclInvalidArgument, "%s: NULL communicator", name);
  if (type < 0 || type >= ncclNumTypes)
    return fail(ncclInvalidArgument, "%s: unknown type %d", name, type);
  if (peer < 0 || peer >= comm->g->n)
    return fail(ncclInvalidArgument, "%s: peer %d of %d ranks", name, peer,
                comm->g->n);
  if (comm->g->n > MAX_P2P)
    return fail(ncclInvalidUsage, "%s: the fake's groups take at most %d "
                                  "ranks",
                name, MAX_P2P);
  if (count > 0 && !(send ? sbuf : rbuf))
    return fail(ncclInvalidArgument, "%s: NULL buffer", name);
  if (group_len == MAX_P2P)
    return fail(ncclInvalidUsage, "%s: more than %d in a group", name,
                MAX_P2P);
  size_t bytes = count * type_size(type);
  pthread_mutex_lock(&lock);
  ncclResult_t r =
      bytes ? check_range(send ? sbuf : rbuf, bytes, name,
                          send ? "send" : "receive")
            : ncclSuccess;
  pthread_mutex_unlock(&lock);
  if (r) return r;
  group_ops[group_len++] = (p2p){send, sbuf, rbuf, bytes, peer, comm};
  return group_depth ? ncclSuccess : run_group(); /* alone: a group of one */
}

EXPORT ncclResult_t ncclGroupStart(void) {
  log_call("ncclGroupStart");
  group_depth++;
  return ncclSuccess;
}

EXPORT ncclResult_t ncclGroupEnd(void) {
  log_call("ncclGroupEnd");
  if (group_depth == 0)
    return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--group_depth > 0) return ncclSuccess;
  return run_group();
}

EXPORT ncclResult_t ncclSend(const void *sendbuff, size_t count,
                             ncclDataType_t datatype, int peer,
                             ncclComm_t comm, cudaStream_t stream) {
  (void)stream;
  return p2p_add(true, sendbuff, NULL, count, (int)datatype, peer, comm);
}

EXPORT ncclResult_t ncclRecv(void *recvbuff, size_t count,
                             ncclDataType_t datatype, int peer,
                             ncclComm_t comm, cudaStream_t stream) {
  (void)stream;
  return p2p_add(false, NULL, recvbuff, count, (int)datatype, peer, comm);
}

/* ---- test hooks (not part of NCCL) --------------------------------------- */

EXPORT long fuser_fake_nccl_live(void) {
  pthread_mutex_lock(&lock);
  long n = live_comms;
  pthread_mutex_unlock(&lock);
  return n;
}
EXPORT long fuser_fake_nccl_collectives(void) {
  pthread_mutex_lock(&lock);
  long n = collectives_done;
  pthread_mutex_unlock(&lock);
  return n;
}
EXPORT long fuser_fake_nccl_splits(void) {
  pthread_mutex_lock(&lock);
  long n = splits_done;
  pthread_mutex_unlock(&lock);
  return n;
}
/* Collectives handed a buffer outside the fake driver's allocations. */
EXPORT long fuser_fake_nccl_escapes(void) {
  pthread_mutex_lock(&lock);
  long n = escapes;
  pthread_mutex_unlock(&lock);
  return n;
}

/* Ranks waiting for others now. */
EXPORT long fuser_fake_nccl_waiting(void) {
  pthread_mutex_lock(&lock);
  long n = waiting;
  pthread_mutex_unlock(&lock);
  return n;
}
EXPORT const char *fuser_fake_nccl_thread_log(void) { return thread_log; }
EXPORT void fuser_fake_nccl_thread_log_clear(void) {
  thread_log_len = 0;
  thread_log[0] = 0;
}

/* Frees the groups when the library is unloaded (at exit: the runtime
 * opens it with RTLD_NODELETE), so valgrind sees no leak of the fake's. */
__attribute__((destructor)) static void fake_fini(void) {
  while (groups) {
    group *g = groups;
    groups = g->next;
    free(g->present);
    free(g->posts);
    free(g->comms);
    free(g->split_out);
    free(g);
  }
}
