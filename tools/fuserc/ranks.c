/*===- ranks.c - fuserc run --ranks: a sharded fusion on N devices --------===*\
|*                                                                            *|
|* A sharded fusion (docs/sharding.md) is one device's program. Here every   *|
|* device is a rank: a thread with its own runtime (its own emulated device  *|
|* on the CPU), all joined by one communicator. The inputs are the whole     *|
|* tensors; each rank gets its part of each (the bundle's GRID record says   *|
|* which axes split which dims), runs the fusion, and the results are joined *|
|* from the ranks' parts. A result no axis splits is computed by every rank: *|
|* the ranks must agree on its bytes, which checks the collectives too.      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L

#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fake NCCL the CPU emulator's ranks talk through: built next to
 * fuserc (test/runtime/fake_nccl.c), found from fuserc's own path unless
 * FUSER_NCCL_LIBRARY names a library. */
static bool useFakeNccl(void) {
  const char *set = getenv("FUSER_NCCL_LIBRARY");
  if (set && *set)
    return true;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    fprintf(stderr, "fuserc: error: cannot find fuserc's own path to locate the fake NCCL; "
                    "set FUSER_NCCL_LIBRARY\n");
    return false;
  }
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash)
    *slash = '\0';
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/../lib/libfuser_fake_nccl.so", exe);
  if (access(path, R_OK)) {
    fprintf(stderr, "fuserc: error: the CPU emulator's ranks communicate through the fake "
                    "NCCL, which is not at %s; set FUSER_NCCL_LIBRARY to it (it is built "
                    "as lib/libfuser_fake_nccl.so)\n", path);
    return false;
  }
  setenv("FUSER_NCCL_LIBRARY", path, 1);
  return true;
}

/* A tensor's shape on one device (`local`) and whole (`global`), and for
 * every dim the part a rank holds. */
typedef struct {
  int rank;
  int64_t local[FUSER_MAX_RANK], global[FUSER_MAX_RANK];
  const uint8_t *masks; /* the GRID record's split of each dim */
} Shape;

/* Which part of a dim split by the axes in `mask` device `rank` holds: its
 * coordinates on those axes, row-major, the first axis outermost. */
static int64_t partIndex(const fuser_grid_info *g, uint8_t mask, uint64_t rank) {
  int64_t coord[FUSER_BUNDLE_GRID_MAX_AXES] = {0};
  uint64_t r = rank;
  for (int a = (int)g->num_axes - 1; a >= 0; --a) {
    coord[a] = (int64_t)(r % g->sizes[a]);
    r /= g->sizes[a];
  }
  int64_t part = 0;
  for (uint32_t a = 0; a < g->num_axes; ++a)
    if (mask & (1u << a))
      part = part * g->sizes[a] + coord[a];
  return part;
}

static int64_t partsOf(const fuser_grid_info *g, uint8_t mask) {
  int64_t n = 1;
  for (uint32_t a = 0; a < g->num_axes; ++a)
    if (mask & (1u << a))
      n *= g->sizes[a];
  return n;
}

/* Copies device `rank`'s part between a whole tensor and its local one:
 * into `local` when `toLocal`, else back into `whole`. */
static void copyPart(const fuser_grid_info *g, const Shape *s, uint64_t rank, size_t elem,
                     char *whole, char *local, bool toLocal) {
  int64_t offset[FUSER_MAX_RANK], index[FUSER_MAX_RANK] = {0};
  int64_t rows = 1;
  for (int d = 0; d < s->rank; ++d) {
    offset[d] = partIndex(g, s->masks[d], rank) * s->local[d];
    if (d + 1 < s->rank)
      rows *= s->local[d];
  }
  size_t rowBytes = elem * (size_t)(s->rank ? s->local[s->rank - 1] : 1);
  for (int d = 0; d < s->rank; ++d)
    if (s->local[d] == 0)
      return;
  for (int64_t row = 0; row < rows; ++row) {
    /* The row's position in the whole tensor, in elements. */
    int64_t at = 0;
    for (int d = 0; d < s->rank; ++d)
      at = at * s->global[d] + (d + 1 < s->rank ? index[d] : 0) + offset[d];
    char *w = whole + (size_t)at * elem, *l = local + (size_t)row * rowBytes;
    if (toLocal)
      memcpy(l, w, rowBytes);
    else
      memcpy(w, l, rowBytes);
    for (int d = s->rank - 2; d >= 0; --d) {
      if (++index[d] < s->local[d])
        break;
      index[d] = 0;
    }
  }
}

typedef struct {
  fuser_rt *rt;           /* this rank's device, made before the threads */
  fuser_bundle *bundle;   /* loaded on it */
  size_t fusionIndex;
  const unsigned char *id;
  int ranks, rank;
  const fuser_grid_info *grid;
  const Shape *shapes;       /* every tensor's */
  npy_array *whole;          /* whole arguments in, whole results out */
  const int64_t *dims;       /* the local dynamic dims */
  size_t numDims;
  npy_array *local;          /* this rank's tensors: its results after the run */
  size_t numTensors;
  int status;
} Rank;

static void *runRank(void *arg) {
  Rank *r = arg;
  r->status = 1;
  fuser_rt *rt = r->rt;
  fuser_bundle *bundle = r->bundle;
  fuser_comm *comm = NULL;
  uint64_t *device = NULL;
  npy_array *local = NULL;
  size_t numArgs = 0, numTensors = 0;
  char what[64];
  snprintf(what, sizeof what, "rank %d", r->rank);
  const fuser_fusion *fusion = fuser_bundle_get_fusion(bundle, r->fusionIndex);
  numArgs = fuser_fusion_num_args(fusion);
  numTensors = numArgs + fuser_fusion_num_results(fusion);
  device = calloc(numTensors + 1, sizeof *device);
  local = calloc(numTensors + 1, sizeof *local);
  if (!device || !local)
    goto done;
  /* Joining blocks until every rank has joined. */
  if (fusercReportError(fuser_comm_init_rank(rt, r->id, r->ranks, r->rank, &comm), what))
    goto done;
  for (size_t i = 0; i < numTensors; ++i) {
    const fuser_tensor_info *t = fuser_fusion_tensor(fusion, i);
    npy_array *h = &local[i];
    h->dtype = (npy_dtype)t->dtype;
    h->rank = r->shapes[i].rank;
    h->element_size = fuser_dtype_size(t->dtype);
    h->num_elements = 1;
    for (int d = 0; d < h->rank; ++d) {
      h->shape[d] = r->shapes[i].local[d];
      h->num_elements *= (size_t)h->shape[d];
    }
    size_t bytes = h->num_elements * h->element_size;
    h->data = calloc(bytes + 1, 1);
    if (!h->data ||
        fusercReportError(fuser_mem_alloc(rt, bytes ? bytes : 1, &device[i]), what))
      goto done;
    if (i < numArgs) {
      copyPart(r->grid, &r->shapes[i], (uint64_t)r->rank, h->element_size,
               r->whole[i].data, h->data, true);
      if (bytes && fusercReportError(fuser_mem_copy_h2d(rt, device[i], h->data, bytes), what))
        goto done;
    }
  }
  fuser_run_options options = {.comm = comm};
  if (fusercReportError(fuser_run(fusion, device, device + numArgs, r->dims, r->numDims, NULL,
                                  &options),
                        what) ||
      fusercReportError(fuser_device_synchronize(rt), what))
    goto done;
  for (size_t i = numArgs; i < numTensors; ++i) {
    size_t bytes = local[i].num_elements * local[i].element_size;
    if (bytes && fusercReportError(fuser_mem_copy_d2h(rt, local[i].data, device[i], bytes), what))
      goto done;
  }
  r->status = 0;
done:
  if (r->status && comm)
    fuser_comm_abort(comm); /* the others must not wait for this rank */
  for (size_t i = 0; device && i < numTensors; ++i)
    if (device[i])
      fuser_error_destroy(fuser_mem_free(rt, device[i]));
  free(device);
  fuser_comm_destroy(comm);
  r->local = local; /* freed by the caller */
  r->numTensors = numTensors;
  return NULL;
}

int fusercRunSharded(const RunFlags *f, const void *bundleData, size_t bundleSize,
                     size_t fusionIndex) {
  int status = 1;
  /* Each rank's device: the emulator unless the GPUs are asked for, and
   * then rank r on GPU r (NCCL refuses two ranks on one GPU; the fake NCCL
   * reads device addresses as host memory). Rank 0's runtime and bundle
   * also give the fusion's signature and grid. */
  RunFlags rankFlags = *f;
  bool cuda = !strcmp(f->device, "cuda");
  if (!cuda)
    rankFlags.device = "cpu";
  fuser_rt *rt = fusercCreateRuntime(&rankFlags);
  fuser_bundle *bundle = NULL;
  Shape *shapes = NULL;
  npy_array *whole = NULL;
  Rank *ranks = NULL;
  pthread_t *threads = NULL;
  size_t numTensors = 0;
  if (!rt || fusercReportError(fuser_bundle_load(rt, bundleData, bundleSize, &bundle), "loading"))
    goto done;
  const fuser_fusion *fusion = fuser_bundle_get_fusion(bundle, fusionIndex);
  const char *fname = fuser_fusion_name(fusion);
  fuser_grid_info grid;
  fuser_fusion_grid(fusion, &grid);
  if (f->ranks != (int)grid.num_devices) {
    fprintf(stderr, "fuserc: error: fusion '%s' is sharded over a grid of %" PRIu64
                    " devices: run it with --ranks %" PRIu64 "%s\n",
            fname, grid.num_devices, grid.num_devices,
            f->ranks ? "" : " (each rank a thread with its own device)");
    goto done;
  }
  if (f->numViews || f->traffic || f->misalign) {
    fprintf(stderr, "fuserc: error: --view, --traffic and --misalign do not run with --ranks\n");
    goto done;
  }
  if (!cuda && !useFakeNccl())
    goto done;
  size_t numArgs = fuser_fusion_num_args(fusion);
  numTensors = numArgs + fuser_fusion_num_results(fusion);
  size_t numDims = fuser_fusion_num_dyn_dims(fusion);
  int64_t dims[256] = {0};
  shapes = calloc(numTensors + 1, sizeof *shapes);
  whole = calloc(numTensors + 1, sizeof *whole);
  if (!shapes || !whole || numDims > 256) {
    fprintf(stderr, "fuserc: error: fusion '%s' is too large to run here\n", fname);
    goto done;
  }
  const uint8_t *masks = grid.splits;
  for (size_t i = 0; i < numTensors; ++i) {
    shapes[i].rank = (int)fuser_fusion_tensor(fusion, i)->rank;
    shapes[i].masks = masks;
    masks += shapes[i].rank;
  }
  /* Whole arguments: files (a dynamic dim is the file's size over the
   * parts an axis splits it into), or generated. */
  for (size_t a = 0; a < numArgs; ++a) {
    const fuser_tensor_info *t = fuser_fusion_arg(fusion, a);
    for (int k = 0; k < f->numInputs; ++k) {
      if (strcmp(f->inputs[k].name, t->name))
        continue;
      char err[512];
      npy_free(&whole[a]); /* the last --input for a name wins, as in fuserc run */
      if (npy_load(f->inputs[k].path, (npy_dtype)t->dtype, &whole[a], err, sizeof err)) {
        fprintf(stderr, "%s (argument '%s' of fusion '%s')\n", err, t->name, fname);
        goto done;
      }
      if (whole[a].dtype != (npy_dtype)t->dtype || (uint32_t)whole[a].rank != t->rank) {
        fprintf(stderr, "%s: error: %s of rank %d, but argument '%s' of fusion '%s' is %s "
                        "of rank %u\n", f->inputs[k].path, npy_dtype_name(whole[a].dtype),
                whole[a].rank, t->name, fname, fuser_dtype_name(t->dtype), t->rank);
        goto done;
      }
    }
  }
  if (f->dims) {
    fprintf(stderr, "fuserc: error: --dims does not run with --ranks: give the dims by "
                    "--input files\n");
    goto done;
  }
  for (size_t k = 0; k < numDims; ++k) {
    const fuser_dyn_dim_info *info = fuser_fusion_dyn_dim(fusion, k);
    if (info->tensor < numArgs && whole[info->tensor].data) {
      /* The fusion is one device's: a split dim is the whole's over the
       * parts (a per-device fusion's fuser.split of a '?' dim). */
      int64_t size = whole[info->tensor].shape[info->dim];
      int64_t parts = partsOf(&grid, shapes[info->tensor].masks[info->dim]);
      if (parts > 1 && size % parts != 0) {
        fprintf(stderr, "fuserc: error: dim %u of argument '%s' of fusion '%s' is split into "
                        "%" PRId64 " parts, but the file's %" PRId64 " does not divide "
                        "equally\n", info->dim, fuser_fusion_arg(fusion, info->tensor)->name,
                fname, parts, size);
        goto done;
      }
      dims[k] = size / parts;
    } else if (info->tensor < numArgs) {
      fprintf(stderr, "fuserc: error: dim %u of argument '%s' of fusion '%s' is known only "
                      "at launch: give it as an --input file\n", info->dim,
              fuser_fusion_arg(fusion, info->tensor)->name, fname);
      goto done;
    }
  }
  if (fusercReportError(fuser_fusion_infer_dims(fusion, dims, numDims, dims), fname))
    goto done;
  uint64_t state = f->seed;
  for (size_t i = 0; i < numTensors; ++i) {
    const fuser_tensor_info *t = fuser_fusion_tensor(fusion, i);
    Shape *s = &shapes[i];
    for (int d = 0; d < s->rank; ++d) {
      int64_t size = t->dims[d];
      for (size_t k = 0; size < 0 && k < numDims; ++k) {
        const fuser_dyn_dim_info *info = fuser_fusion_dyn_dim(fusion, k);
        if (info->tensor == i && info->dim == (uint32_t)d)
          size = dims[k];
      }
      s->local[d] = size;
      s->global[d] = size * partsOf(&grid, s->masks[d]);
    }
    npy_array *h = &whole[i];
    if (h->data) {
      for (int d = 0; d < s->rank; ++d)
        if (h->shape[d] != s->global[d]) {
          fprintf(stderr, "fuserc: error: argument '%s' of fusion '%s' is the whole tensor: "
                          "dim %d must be %" PRId64 " (%" PRId64 " on each of %" PRId64
                          " devices), the file has %" PRId64 "\n", t->name, fname, d,
                  s->global[d], s->local[d], partsOf(&grid, s->masks[d]), h->shape[d]);
          goto done;
        }
      continue;
    }
    if (i < numArgs && !f->haveSeed) {
      fprintf(stderr, "fuserc: error: no --input for argument '%s' of fusion '%s' (give "
                      "--input %s=FILE.npy, or --random SEED)\n", t->name, fname, t->name);
      goto done;
    }
    h->dtype = (npy_dtype)t->dtype;
    h->rank = s->rank;
    h->element_size = fuser_dtype_size(t->dtype);
    h->num_elements = 1;
    for (int d = 0; d < s->rank; ++d) {
      h->shape[d] = s->global[d];
      h->num_elements *= (size_t)s->global[d];
    }
    h->data = calloc(h->num_elements * h->element_size + 1, 1);
    if (!h->data) {
      fprintf(stderr, "fuserc: error: out of memory for '%s'\n", t->name);
      goto done;
    }
    if (i < numArgs)
      fusercFillRandom(h->data, h->num_elements, t->dtype, &state);
  }

  /* The ranks: one id for them all, from this runtime's NCCL. */
  unsigned char id[FUSER_COMM_ID_BYTES];
  if (fusercReportError(fuser_comm_get_unique_id(rt, id), "creating the communicator"))
    goto done;
  ranks = calloc((size_t)f->ranks, sizeof *ranks);
  threads = calloc((size_t)f->ranks, sizeof *threads);
  if (!ranks || !threads)
    goto done;
  /* Every device and bundle before any thread: a rank that failed here
   * would leave the others waiting for it to join the communicator. */
  for (int r = 0; r < f->ranks; ++r) {
    ranks[r] = (Rank){NULL, NULL, fusionIndex, id, f->ranks, r, &grid,
                      shapes, whole, dims, numDims, NULL, 0, 1};
    if (r == 0) {
      ranks[r].rt = rt;
      ranks[r].bundle = bundle;
      continue;
    }
    rankFlags.deviceOrdinal = cuda ? r : 0;
    char what[64];
    snprintf(what, sizeof what, "rank %d", r);
    ranks[r].rt = fusercCreateRuntime(&rankFlags);
    if (!ranks[r].rt ||
        fusercReportError(fuser_bundle_load(ranks[r].rt, bundleData, bundleSize,
                                            &ranks[r].bundle), what))
      goto done;
  }
  int started = 0;
  for (int r = 0; r < f->ranks; ++r) {
    if (pthread_create(&threads[r], NULL, runRank, &ranks[r])) {
      fprintf(stderr, "fuserc: error: cannot start the thread of rank %d\n", r);
      break;
    }
    ++started;
  }
  for (int r = 0; r < started; ++r)
    pthread_join(threads[r], NULL);
  bool ok = started == f->ranks;
  for (int r = 0; r < started; ++r)
    ok &= ranks[r].status == 0;
  /* Join the results; ranks holding the same part must hold the same bytes. */
  for (size_t i = numArgs; ok && i < numTensors; ++i) {
    const fuser_tensor_info *t = fuser_fusion_tensor(fusion, i);
    size_t elem = whole[i].element_size;
    size_t localBytes = ranks[0].local[i].num_elements * elem;
    for (int r = 0; ok && r < f->ranks; ++r) {
      npy_array *part = &ranks[r].local[i];
      /* The first rank that holds the same part must agree. */
      int first = -1;
      for (int q = 0; q < r && first < 0; ++q) {
        bool same = true;
        for (int d = 0; d < shapes[i].rank; ++d)
          same &= partIndex(&grid, shapes[i].masks[d], (uint64_t)q) ==
                  partIndex(&grid, shapes[i].masks[d], (uint64_t)r);
        if (same)
          first = q;
      }
      if (first >= 0 && localBytes &&
          memcmp(ranks[first].local[i].data, part->data, localBytes)) {
        fprintf(stderr, "fuserc: error: fusion '%s': result '%s' is held whole along some "
                        "dims, but ranks %d and %d computed different bytes for the same "
                        "part\n", fname, t->name, first, r);
        ok = false;
      }
      copyPart(&grid, &shapes[i], (uint64_t)r, elem, whole[i].data, part->data, false);
    }
    if (ok && fusercWriteResult(f, fname, t, &whole[i]))
      ok = false;
  }
  status = ok ? 0 : 1;
done:
  for (int r = 0; ranks && r < f->ranks; ++r) {
    if (ranks[r].local) {
      for (size_t i = 0; i < ranks[r].numTensors; ++i)
        npy_free(&ranks[r].local[i]);
      free(ranks[r].local);
    }
    if (r > 0) { /* rank 0's are `bundle` and `rt` */
      fuser_bundle_destroy(ranks[r].bundle);
      fuser_rt_destroy(ranks[r].rt);
    }
  }
  for (size_t i = 0; whole && i < numTensors; ++i)
    npy_free(&whole[i]);
  free(whole);
  free(shapes);
  free(ranks);
  free(threads);
  fuser_bundle_destroy(bundle);
  fuser_rt_destroy(rt);
  return status;
}
