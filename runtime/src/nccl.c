/* Communicators for sharded fusions: NCCL, opened with dlopen when a
 * runtime first needs it, and fuser_comm, one rank's communicator with the
 * sub-communicators of the groups of grid axes its collectives run among.
 * No NCCL header is needed: the few types and values used are declared
 * here with the values of nccl.h (NCCL 2.18 to 2.28 agree on all of them).
 *
 * Groups. A COLLECTIVE runs among the devices that agree on every grid
 * axis outside its group. When the group holds every axis of more than one
 * device, that is all the ranks: the communicator itself. Otherwise the
 * devices split into groups, and each rank's group gets its own NCCL
 * communicator, made by ncclCommSplit (a call every rank makes, as every
 * rank runs the same plan) with color = the rank's index over the other
 * axes (which group) and key = its index over the group's axes (its
 * member index, so that the sub-communicator's ranks are the members in
 * the format's order). It is made on the group's first collective and kept
 * per (grid, axes) until the fuser_comm goes. A group of one device needs
 * no communicator at all: run.c copies.
 *
 * ALL_TO_ALL is a group (ncclGroupStart .. ncclGroupEnd) of an ncclSend
 * and an ncclRecv of each member's part to and from every member, itself
 * included, as bytes: NCCL's own ncclAlltoAll came only in 2.28 and is the
 * same thing inside. */
#include "internal.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int ncclResult_t;
typedef struct fr_nccl_comm_st *ncclComm_t;
typedef struct {
  char internal[FUSER_COMM_ID_BYTES];
} ncclUniqueId;

#define NCCL_SUCCESS 0
/* ncclDataType_t */
#define NCCL_INT8 0
#define NCCL_UINT8 1
#define NCCL_INT32 2
#define NCCL_INT64 4
#define NCCL_FLOAT16 6
#define NCCL_FLOAT32 7
#define NCCL_FLOAT64 8
#define NCCL_BFLOAT16 9
/* ncclRedOp_t */
#define NCCL_SUM 0
#define NCCL_PROD 1
#define NCCL_MAX 2
#define NCCL_MIN 3
#define NCCL_AVG 4

/* The entry points (enums are passed as int). */
typedef ncclResult_t (*pfn_get_unique_id)(ncclUniqueId *);
typedef ncclResult_t (*pfn_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
typedef ncclResult_t (*pfn_comm)(ncclComm_t);
typedef ncclResult_t (*pfn_comm_int)(const ncclComm_t, int *);
typedef ncclResult_t (*pfn_split)(ncclComm_t, int, int, ncclComm_t *,
                                  void *);
typedef ncclResult_t (*pfn_all_reduce)(const void *, void *, size_t, int, int,
                                       ncclComm_t, void *);
typedef ncclResult_t (*pfn_all_gather)(const void *, void *, size_t, int,
                                       ncclComm_t, void *);
typedef ncclResult_t (*pfn_send)(const void *, size_t, int, int, ncclComm_t,
                                 void *);
typedef ncclResult_t (*pfn_recv)(void *, size_t, int, int, ncclComm_t,
                                 void *);
typedef ncclResult_t (*pfn_group)(void);
typedef const char *(*pfn_error_string)(ncclResult_t);
typedef const char *(*pfn_last_error)(ncclComm_t);

/* Every NCCL 2 since 2.7 has these. */
#define NCCL_FUNCTIONS(X)                                                    \
  X(get_unique_id, pfn_get_unique_id, "ncclGetUniqueId")                     \
  X(init_rank, pfn_init_rank, "ncclCommInitRank")                            \
  X(destroy, pfn_comm, "ncclCommDestroy")                                    \
  X(abort, pfn_comm, "ncclCommAbort")                                        \
  X(count, pfn_comm_int, "ncclCommCount")                                    \
  X(user_rank, pfn_comm_int, "ncclCommUserRank")                             \
  X(all_reduce, pfn_all_reduce, "ncclAllReduce")                             \
  X(all_gather, pfn_all_gather, "ncclAllGather")                             \
  X(reduce_scatter, pfn_all_reduce, "ncclReduceScatter")                     \
  X(send, pfn_send, "ncclSend")                                              \
  X(recv, pfn_recv, "ncclRecv")                                              \
  X(group_start, pfn_group, "ncclGroupStart")                                \
  X(group_end, pfn_group, "ncclGroupEnd")                                    \
  X(error_string, pfn_error_string, "ncclGetErrorString")

struct fr_nccl {
  void *lib;
  char *path;
#define DECLARE(name, type, sym) type name;
  NCCL_FUNCTIONS(DECLARE)
#undef DECLARE
  pfn_split split;           /* optional: NCCL 2.18 */
  pfn_last_error last_error; /* optional: NCCL 2.13 */
};

/* A group's sub-communicator: the grid (axes and sizes), the group's axes
 * of more than one device, and the NCCL communicator of this rank's
 * group. */
typedef struct sub_comm {
  uint32_t axes, sizes[FUSER_BUNDLE_GRID_MAX_AXES], mask;
  ncclComm_t nccl;
} sub_comm;

struct fuser_comm {
  fuser_rt *rt; /* a reference */
  const fr_nccl *lib;
  ncclComm_t nccl;
  bool owned; /* made by fuser_comm_init_rank: destroyed with it */
  int size, rank;
  atomic_bool aborted;
  /* One NCCL call at a time on a communicator (NCCL's rule); held while a
   * collective or a split is enqueued. */
  pthread_mutex_t call_lock;
  /* The sub-communicators; never held across an NCCL call but an abort's
   * (fuser_comm_abort must get through while a call waits). */
  pthread_mutex_t subs_lock;
  sub_comm *subs;
  size_t num_subs, cap_subs;
};

/* ---- the library --------------------------------------------------------- */

void fr_nccl_close(fr_nccl *l) {
  if (!l) return;
  dlclose(l->lib);
  free(l->path);
  free(l);
}

static fuser_error *nccl_open(fr_nccl **out) {
  const char *env = getenv("FUSER_NCCL_LIBRARY");
  const char *path = env && *env ? env : "libnccl.so.2";
  int flags = RTLD_NOW | RTLD_LOCAL;
#ifdef RTLD_NODELETE
  /* NCCL is not made to be unloaded and loaded again (its proxy threads,
   * its CUDA state): it stays for the process once a runtime opened it. */
  flags |= RTLD_NODELETE;
#endif
  dlerror();
  void *lib = dlopen(path, flags);
  if (!lib) {
    const char *why = dlerror();
    return fuser_error_create(
        FUSER_ERROR_DRIVER_UNAVAILABLE,
        "cannot load NCCL '%s', which runs the collectives of sharded "
        "fusions: %s; install NCCL 2 (libnccl.so.2), or set "
        "FUSER_NCCL_LIBRARY to the library's path",
        path, why ? why : "unknown dlopen error");
  }
  fr_nccl *l = calloc(1, sizeof *l);
  char *copy = malloc(strlen(path) + 1);
  if (!l || !copy) {
    free(l);
    free(copy);
    dlclose(lib);
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of memory opening NCCL");
  }
  strcpy(copy, path);
  l->lib = lib;
  l->path = copy;
#define RESOLVE(name, type, sym)                                             \
  {                                                                          \
    void *p = dlsym(lib, sym);                                               \
    if (!p) {                                                                \
      fuser_error *e = fuser_error_create(                                   \
          FUSER_ERROR_DRIVER_UNAVAILABLE,                                    \
          "the NCCL library '%s' does not export %s (not NCCL 2); set "      \
          "FUSER_NCCL_LIBRARY to NCCL's libnccl.so.2",                       \
          path, sym);                                                        \
      fr_nccl_close(l);                                                      \
      return e;                                                              \
    }                                                                        \
    memcpy(&l->name, &p, sizeof p);                                          \
  }
  NCCL_FUNCTIONS(RESOLVE)
#undef RESOLVE
  void *p = dlsym(lib, "ncclCommSplit");
  if (p) memcpy(&l->split, &p, sizeof p);
  p = dlsym(lib, "ncclGetLastError");
  if (p) memcpy(&l->last_error, &p, sizeof p);
  *out = l;
  return NULL;
}

/* The runtime's NCCL, opened on its first use (a failure is tried again by
 * the next call). */
static fuser_error *nccl_ready(fuser_rt *rt, const fr_nccl **out) {
  pthread_mutex_lock(&rt->nccl_lock);
  fuser_error *e = NULL;
  if (!rt->nccl) e = nccl_open(&rt->nccl);
  if (!e) *out = rt->nccl;
  pthread_mutex_unlock(&rt->nccl_lock);
  return e;
}

static const char *result_name(ncclResult_t r) {
  static const char *const names[] = {
      "ncclSuccess",        "ncclUnhandledCudaError", "ncclSystemError",
      "ncclInternalError",  "ncclInvalidArgument",    "ncclInvalidUsage",
      "ncclRemoteError",    "ncclInProgress"};
  return r >= 0 && r < (int)(sizeof names / sizeof names[0]) ? names[r]
                                                              : NULL;
}

/* An error for a failed NCCL call: its name, the result's name and
 * ncclGetErrorString's text, ncclGetLastError's when the library has one,
 * and optional detail. */
static fuser_error *nccl_error(const fr_nccl *l, ncclResult_t r,
                               ncclComm_t comm, const char *call,
                               const char *detail) {
  const char *text = l->error_string(r);
  const char *last = l->last_error ? l->last_error(comm) : NULL;
  char unknown[32];
  const char *name = result_name(r);
  if (!name) {
    snprintf(unknown, sizeof unknown, "ncclResult_t %d", r);
    name = unknown;
  }
  bool with_last = last && *last && (!text || !strstr(text, last));
  return fuser_error_create(FUSER_ERROR_DRIVER, "%s failed: %s (%s)%s%s%s",
                            call, name, text ? text : "no description",
                            with_last ? ": " : "", with_last ? last : "",
                            detail ? detail : "");
}

/* ---- grids --------------------------------------------------------------- */

uint64_t fr_grid_group_size(const fr_grid *g, uint32_t mask) {
  uint64_t n = 1;
  for (uint32_t k = 0; k < g->axes; k++)
    if (mask & (1u << k)) n *= g->sizes[k];
  return n;
}

uint64_t fr_grid_index(const fr_grid *g, uint64_t rank, uint32_t mask) {
  uint64_t coord[FUSER_BUNDLE_GRID_MAX_AXES], rest = rank, index = 0;
  for (uint32_t k = g->axes; k-- > 0;) { /* the last axis fastest */
    coord[k] = rest % g->sizes[k];
    rest /= g->sizes[k];
  }
  for (uint32_t k = 0; k < g->axes; k++)
    if (mask & (1u << k)) index = index * g->sizes[k] + coord[k];
  return index;
}

void fr_grid_describe(const fr_grid *g, char *out, size_t n) {
  size_t len = 0;
  out[0] = 0;
  for (uint32_t k = 0; k < g->axes && g->axes > 1 && len < n; k++) {
    int w = snprintf(out + len, n - len, "%s%" PRIu32, k ? " x " : "",
                     g->sizes[k]);
    if (w > 0) len += (size_t)w;
  }
  if (len < n)
    snprintf(out + len, n - len, "%s%" PRIu64 " device%s",
             g->axes > 1 ? " = " : "", g->devices,
             g->devices == 1 ? "" : "s");
}

/* The axes of more than one device. */
static uint32_t wide_axes(const fr_grid *g) {
  uint32_t m = 0;
  for (uint32_t k = 0; k < g->axes; k++)
    if (g->sizes[k] > 1) m |= 1u << k;
  return m;
}

/* ---- communicators ------------------------------------------------------- */

static fuser_error *comm_new(fuser_rt *rt, const fr_nccl *lib,
                             ncclComm_t nccl, bool owned, int size, int rank,
                             fuser_comm **out) {
  fuser_comm *c = calloc(1, sizeof *c);
  if (!c)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of memory for a communicator");
  c->rt = rt;
  c->lib = lib;
  c->nccl = nccl;
  c->owned = owned;
  c->size = size;
  c->rank = rank;
  atomic_init(&c->aborted, false);
  pthread_mutex_init(&c->call_lock, NULL);
  pthread_mutex_init(&c->subs_lock, NULL);
  fr_rt_retain(rt);
  *out = c;
  return NULL;
}

fuser_error *fuser_comm_get_unique_id(fuser_rt *rt, void *out_id) {
  FR_CHECK_ARG(rt, "fuser_comm_get_unique_id", "runtime");
  FR_CHECK_ARG(out_id, "fuser_comm_get_unique_id", "out_id");
  const fr_nccl *l;
  fuser_error *e = nccl_ready(rt, &l);
  if (e) return e;
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  ncclResult_t r = l->get_unique_id(&id);
  if (r != NCCL_SUCCESS) return nccl_error(l, r, NULL, "ncclGetUniqueId", NULL);
  memcpy(out_id, &id, sizeof id);
  return NULL;
}

fuser_error *fuser_comm_init_rank(fuser_rt *rt, const void *id, int nranks,
                                  int rank, fuser_comm **out_comm) {
  FR_CHECK_ARG(rt, "fuser_comm_init_rank", "runtime");
  FR_CHECK_ARG(id, "fuser_comm_init_rank", "id");
  FR_CHECK_ARG(out_comm, "fuser_comm_init_rank", "out_comm");
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuser_comm_init_rank: rank %d of %d ranks (a "
                              "communicator has at least one rank, numbered "
                              "from 0)",
                              rank, nranks);
  const fr_nccl *l;
  fuser_error *e = nccl_ready(rt, &l);
  if (e) return e;
  ncclUniqueId uid;
  memcpy(&uid, id, sizeof uid);
  ncclComm_t nccl = NULL;
  /* NCCL takes the device of the context current on the thread. */
  if ((e = fr_enter(rt))) return e;
  ncclResult_t r = l->init_rank(&nccl, nranks, uid, rank);
  fr_leave(rt);
  if (r != NCCL_SUCCESS) {
    char detail[64];
    snprintf(detail, sizeof detail, " (rank %d of %d)", rank, nranks);
    return nccl_error(l, r, NULL, "ncclCommInitRank", detail);
  }
  e = comm_new(rt, l, nccl, true, nranks, rank, out_comm);
  if (e) l->destroy(nccl);
  return e;
}

fuser_error *fuser_comm_wrap_nccl(fuser_rt *rt, void *nccl_comm,
                                  fuser_comm **out_comm) {
  FR_CHECK_ARG(rt, "fuser_comm_wrap_nccl", "runtime");
  FR_CHECK_ARG(nccl_comm, "fuser_comm_wrap_nccl", "nccl_comm");
  FR_CHECK_ARG(out_comm, "fuser_comm_wrap_nccl", "out_comm");
  const fr_nccl *l;
  fuser_error *e = nccl_ready(rt, &l);
  if (e) return e;
  ncclComm_t nccl = (ncclComm_t)nccl_comm;
  int size = 0, rank = 0;
  ncclResult_t r = l->count(nccl, &size);
  if (r != NCCL_SUCCESS)
    return nccl_error(l, r, nccl, "ncclCommCount", NULL);
  if ((r = l->user_rank(nccl, &rank)) != NCCL_SUCCESS)
    return nccl_error(l, r, nccl, "ncclCommUserRank", NULL);
  return comm_new(rt, l, nccl, false, size, rank, out_comm);
}

int fuser_comm_size(const fuser_comm *c) { return c ? c->size : 0; }
int fuser_comm_rank(const fuser_comm *c) { return c ? c->rank : 0; }
void *fuser_comm_nccl(const fuser_comm *c) {
  return c ? (void *)c->nccl : NULL;
}
fuser_rt *fr_comm_runtime(const fuser_comm *c) { return c->rt; }
bool fr_comm_aborted(const fuser_comm *c) {
  return atomic_load_explicit(&c->aborted, memory_order_acquire);
}

void fuser_comm_abort(fuser_comm *c) {
  if (!c || atomic_exchange(&c->aborted, true)) return;
  fuser_error *e = fr_enter(c->rt);
  pthread_mutex_lock(&c->subs_lock);
  for (size_t i = 0; i < c->num_subs; i++) c->lib->abort(c->subs[i].nccl);
  pthread_mutex_unlock(&c->subs_lock);
  if (c->owned) c->lib->abort(c->nccl);
  if (!e) fr_leave(c->rt);
  fuser_error_destroy(e);
}

void fuser_comm_destroy(fuser_comm *c) {
  if (!c) return;
  if (!fr_comm_aborted(c)) {
    /* With the context current, as they were made. */
    fuser_error *e = fr_enter(c->rt);
    for (size_t i = 0; i < c->num_subs; i++) c->lib->destroy(c->subs[i].nccl);
    if (c->owned) c->lib->destroy(c->nccl);
    if (!e) fr_leave(c->rt);
    fuser_error_destroy(e);
  }
  free(c->subs);
  pthread_mutex_destroy(&c->call_lock);
  pthread_mutex_destroy(&c->subs_lock);
  fr_rt_release(c->rt);
  free(c);
}

/* ---- collectives --------------------------------------------------------- */

static bool same_grid(const sub_comm *s, const fr_grid *g, uint32_t mask) {
  if (s->axes != g->axes || s->mask != mask) return false;
  for (uint32_t k = 0; k < g->axes; k++)
    if (s->sizes[k] != g->sizes[k]) return false;
  return true;
}

/* The NCCL communicator of this rank's group of the axes `mask` (of more
 * than one device, not all such axes) of grid `g`: made by ncclCommSplit
 * on the first call, which every rank makes. The call lock is held. */
static fuser_error *sub_comm_get(fuser_comm *c, const fr_grid *g,
                                 uint32_t mask, ncclComm_t *out) {
  const fr_nccl *l = c->lib;
  pthread_mutex_lock(&c->subs_lock);
  for (size_t i = 0; i < c->num_subs; i++)
    if (same_grid(&c->subs[i], g, mask)) {
      *out = c->subs[i].nccl;
      pthread_mutex_unlock(&c->subs_lock);
      return NULL;
    }
  pthread_mutex_unlock(&c->subs_lock);
  if (!l->split)
    return fuser_error_create(
        FUSER_ERROR_DRIVER_UNAVAILABLE,
        "the NCCL library '%s' does not export ncclCommSplit (NCCL 2.18 or "
        "later), which a collective among the devices of some of a grid's "
        "axes needs",
        l->path);
  /* Both fit in an int: a grid has fewer than 2^31 devices (bundle.c). */
  uint64_t color = fr_grid_index(g, (uint64_t)c->rank, wide_axes(g) & ~mask),
           key = fr_grid_index(g, (uint64_t)c->rank, mask),
           members = fr_grid_group_size(g, mask);
  ncclComm_t sub = NULL;
  char detail[160];
  snprintf(detail, sizeof detail,
           " (color %" PRIu64 ", key %" PRIu64 ": the sub-communicator of "
           "%" PRIu64 " ranks)",
           color, key, members);
  ncclResult_t r = l->split(c->nccl, (int)color, (int)key, &sub, NULL);
  if (r != NCCL_SUCCESS)
    return nccl_error(l, r, c->nccl, "ncclCommSplit", detail);
  /* Its ranks are the members in the format's order, or nothing works. */
  int size = 0, rank = -1;
  if (l->count(sub, &size) != NCCL_SUCCESS ||
      l->user_rank(sub, &rank) != NCCL_SUCCESS || size < 0 ||
      (uint64_t)size != members || rank < 0 || (uint64_t)rank != key) {
    l->destroy(sub);
    return fuser_error_create(
        FUSER_ERROR_DRIVER,
        "ncclCommSplit%s gave a communicator of %d ranks in which this rank "
        "is %d",
        detail, size, rank);
  }
  pthread_mutex_lock(&c->subs_lock);
  fuser_error *e = NULL;
  if (c->num_subs == c->cap_subs) {
    size_t cap = c->cap_subs ? 2 * c->cap_subs : 4;
    sub_comm *n = realloc(c->subs, cap * sizeof *n);
    if (n) {
      c->subs = n;
      c->cap_subs = cap;
    } else {
      e = fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                             "out of memory for a sub-communicator");
    }
  }
  if (!e) {
    sub_comm *s = &c->subs[c->num_subs++];
    memset(s, 0, sizeof *s);
    s->axes = g->axes;
    memcpy(s->sizes, g->sizes, sizeof s->sizes);
    s->mask = mask;
    s->nccl = sub;
    /* An abort that came while it was made has not seen it. */
    if (fr_comm_aborted(c)) l->abort(sub);
  }
  pthread_mutex_unlock(&c->subs_lock);
  if (e) {
    l->destroy(sub);
    return e;
  }
  *out = sub;
  return NULL;
}

/* NCCL's type for reducing `dtype`: i1 as unsigned bytes (max is any, min
 * all), fp8 never (the loader refuses its reductions). */
static int nccl_type(uint8_t dtype) {
  switch (dtype) {
  case FUSER_DTYPE_I8: return NCCL_INT8;
  case FUSER_DTYPE_I32: return NCCL_INT32;
  case FUSER_DTYPE_I64: return NCCL_INT64;
  case FUSER_DTYPE_F16: return NCCL_FLOAT16;
  case FUSER_DTYPE_BF16: return NCCL_BFLOAT16;
  case FUSER_DTYPE_F32: return NCCL_FLOAT32;
  case FUSER_DTYPE_F64: return NCCL_FLOAT64;
  default: return NCCL_UINT8; /* i1 */
  }
}

static int nccl_op(uint8_t reduction) {
  switch (reduction) {
  case FUSER_BUNDLE_REDUCTION_PROD: return NCCL_PROD;
  case FUSER_BUNDLE_REDUCTION_MAX: return NCCL_MAX;
  case FUSER_BUNDLE_REDUCTION_MIN: return NCCL_MIN;
  case FUSER_BUNDLE_REDUCTION_AVG: return NCCL_AVG;
  default: return NCCL_SUM;
  }
}

/* Member j's part k of `send` (`part` bytes each) to member k, which puts
 * it at part j of its `recv`: a group of a send and a receive per member.
 * The group is ended whatever fails in it (NCCL's rule); the first failure
 * is returned, its call in *call. */
static ncclResult_t all_to_all(const fr_nccl *l, const void *send,
                               void *recv, size_t part, int members,
                               ncclComm_t nc, void *stream,
                               const char **call) {
  *call = "ncclGroupStart";
  ncclResult_t r = l->group_start();
  if (r != NCCL_SUCCESS) return r;
  for (int k = 0; k < members && r == NCCL_SUCCESS; k++) {
    *call = "ncclSend";
    r = l->send((const unsigned char *)send + (size_t)k * part, part,
                NCCL_UINT8, k, nc, stream);
    if (r != NCCL_SUCCESS) break;
    *call = "ncclRecv";
    r = l->recv((unsigned char *)recv + (size_t)k * part, part, NCCL_UINT8, k,
                nc, stream);
  }
  ncclResult_t end = l->group_end();
  if (r == NCCL_SUCCESS && end != NCCL_SUCCESS) {
    *call = "ncclGroupEnd";
    r = end;
  }
  return r;
}

fuser_error *fr_comm_collective(fuser_comm *c, const fr_grid *g,
                                const fr_collective *k, uint64_t src,
                                uint64_t dst, uint64_t n, void *stream) {
  const fr_nccl *l = c->lib;
  uint32_t wide = wide_axes(g), mask = k->group & wide;
  const void *send = (const void *)(uintptr_t)src;
  void *recv = (void *)(uintptr_t)dst;
  pthread_mutex_lock(&c->call_lock);
  fuser_error *e = NULL;
  ncclComm_t nc = c->nccl;
  if (fr_comm_aborted(c))
    e = fuser_error_create(FUSER_ERROR_DRIVER,
                           "the communicator was aborted (fuser_comm_abort)");
  else if (mask != wide)
    e = sub_comm_get(c, g, mask, &nc);
  if (!e) {
    ncclResult_t r = NCCL_SUCCESS;
    const char *call = "?";
    switch (k->kind) {
    case FUSER_BUNDLE_COLLECTIVE_ALL_REDUCE:
      call = "ncclAllReduce";
      r = l->all_reduce(send, recv, (size_t)n, nccl_type(k->dtype),
                        nccl_op(k->reduction), nc, stream);
      break;
    case FUSER_BUNDLE_COLLECTIVE_ALL_GATHER:
      /* Bytes, whatever the dtype (fp8 too): nothing is computed. n times
       * the element size fits: run.c checked it against the buffers. */
      call = "ncclAllGather";
      r = l->all_gather(send, recv,
                        (size_t)n * fuser_dtype_size((fuser_dtype)k->dtype),
                        NCCL_UINT8, nc, stream);
      break;
    case FUSER_BUNDLE_COLLECTIVE_REDUCE_SCATTER:
      call = "ncclReduceScatter";
      r = l->reduce_scatter(send, recv, (size_t)n, nccl_type(k->dtype),
                            nccl_op(k->reduction), nc, stream);
      break;
    case FUSER_BUNDLE_COLLECTIVE_ALL_TO_ALL:
      r = all_to_all(l, send, recv,
                     (size_t)n * fuser_dtype_size((fuser_dtype)k->dtype),
                     (int)fr_grid_group_size(g, k->group), nc, stream, &call);
      break;
    }
    if (r != NCCL_SUCCESS) e = nccl_error(l, r, nc, call, NULL);
  }
  pthread_mutex_unlock(&c->call_lock);
  return e;
}
