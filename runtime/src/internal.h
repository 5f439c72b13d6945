/* Internal declarations of the fuser runtime. Not installed. */
#ifndef FUSER_RUNTIME_INTERNAL_H
#define FUSER_RUNTIME_INTERNAL_H

#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L /* dlopen, pthreads, strnlen */
#endif

#include "fuser_runtime.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>

/* ---- errors ------------------------------------------------------------ */

/* The convention of every public entry point that returns an error: a NULL
 * handle or pointer argument is an INVALID_ARGUMENT error whose message is
 * "<function>: NULL <parameter>". (Entry points that return a value return
 * 0, NULL or "" instead.) */
#define FR_CHECK_ARG(ok, function, parameter)                                \
  do {                                                                       \
    if (!(ok))                                                               \
      return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,                \
                                function ": NULL " parameter);               \
  } while (0)

fuser_error *fr_error_v(fuser_error_code code, const char *format,
                        va_list ap);
/* The static error returned when an error can't be allocated. */
fuser_error *fr_error_oom(void);
/* A new error "prefix: <message of e>", consuming e. */
fuser_error *fr_error_wrap(fuser_error *e, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- PTX scanning ------------------------------------------------------ */

#define FR_PTX_MAX_PARAMS 1024

/* The signature of one `.entry` of a PTX text. */
typedef struct fr_ptx_entry {
  const char *name; /* points into the PTX text, not NUL-terminated */
  size_t name_len;
  /* -1 when the parameter list could not be understood; else the count. */
  int num_params;
  /* When num_params is -1: the parameter that could not be read. */
  int bad_param;
  /* Byte size of each parameter, num_params entries (owned). */
  uint32_t *param_sizes;
  /* Whether each parameter is declared `.ptr` (a pointer), num_params
   * entries; in the same allocation as param_sizes. */
  unsigned char *param_is_ptr;
} fr_ptx_entry;

/* Scans `text` (`len` bytes) for `.entry` directives. Returns the number
 * found (entries in *out, owned: free with fr_ptx_entries_free), or -1 when
 * out of memory. Never fails on odd text: what can't be parsed is skipped
 * or marked num_params = -1. */
int fr_ptx_scan(const char *text, size_t len, fr_ptx_entry **out);
void fr_ptx_entries_free(fr_ptx_entry *entries, int n);

/* ---- the allocator ----------------------------------------------------- */

typedef struct fr_block {
  uint64_t ptr;
  uint64_t size;         /* the class size actually allocated */
  void *stream;          /* the stream it is pending on, when pending */
  bool pending;          /* kernels on `stream` may still use it */
  uint64_t seq;          /* release number, for synchronizations */
  struct fr_block *next; /* free list link */
} fr_block;

#define FR_NUM_CLASSES 256

typedef struct fr_allocator {
  pthread_mutex_t lock;
  fr_block *classes[FR_NUM_CLASSES]; /* cached blocks (not in use) */
  uint64_t release_seq; /* number of releases so far */
  uint64_t driver_allocs, driver_frees, cache_hits;
  uint64_t cached_bytes, in_use_bytes;
} fr_allocator;

/* ---- the runtime -------------------------------------------------------- */

struct fuser_rt {
  atomic_long refs;
  const fuser_driver *drv;
  void *dctx;
  fuser_driver own_table; /* the CUDA backend's table lives here */
  pthread_mutex_t module_lock;
  fr_allocator alloc;
  /* The device workspace a call hands the driver's gemm (fuser_gemm):
   * FUSER_GEMM_WORKSPACE_BYTES for the CUDA backend (cuBLASLt's), 0 for a
   * pluggable driver. */
  uint64_t gemm_workspace_bytes;
  /* The device's compute capability * 10 (90 for 9.0), which picks a
   * bundle's cubin over its PTX; 0 (PTX always) for a pluggable driver or
   * a CUDA driver that does not say. */
  uint32_t device_sm;
  /* Where device_sm is set: checks that `function`, loaded from a cubin,
   * takes exactly `n` parameters of `sizes` bytes (the driver reads that
   * many from a launch's parameter array); NULL when they match, else why
   * not. A cubin is trusted no further than its PTX. */
  fuser_error *(*cubin_params)(void *dctx, void *function,
                               const uint32_t *sizes, uint32_t n);
  /* NCCL, opened when the runtime's first communicator is made (nccl.c);
   * NULL until then. Under nccl_lock. */
  struct fr_nccl *nccl;
  pthread_mutex_t nccl_lock;
};

/* Takes/drops a reference; the last drop destroys the runtime. */
void fr_rt_retain(fuser_rt *rt);
void fr_rt_release(fuser_rt *rt);

static inline fuser_error *fr_enter(fuser_rt *rt) {
  return rt->drv->enter ? rt->drv->enter(rt->dctx) : NULL;
}
static inline void fr_leave(fuser_rt *rt) {
  if (rt->drv->leave) rt->drv->leave(rt->dctx);
}

/* Allocator; the caller has entered the driver for acquire/trim. */
void fr_alloc_init(fr_allocator *a);
fuser_error *fr_alloc_acquire(fuser_rt *rt, uint64_t bytes, void *stream,
                              fr_block **out);
/* Gives blocks back to the cache. With `used` set, kernels on `stream` may
 * use them: they become pending on `stream`. Otherwise they keep the state
 * they had when acquired. NULL entries are skipped. */
void fr_alloc_release(fuser_rt *rt, fr_block **blocks, size_t n, void *stream,
                      bool used);
/* A synchronization makes pending blocks idle, but only those released
 * before it began: take fr_alloc_sync_begin() before the driver's
 * synchronize and pass it to fr_alloc_synchronized() after. */
uint64_t fr_alloc_sync_begin(fuser_rt *rt);
void fr_alloc_synchronized(fuser_rt *rt, void *stream, bool whole_device,
                           uint64_t begin);
fuser_error *fr_alloc_trim(fuser_rt *rt);
void fr_alloc_destroy(fuser_rt *rt);

/* The CUDA backend: fills rt->own_table and rt->dctx. */
fuser_error *fr_cuda_open(const fuser_rt_options *options, fuser_rt *rt);

/* ---- cuBLASLt (the CUDA backend's gemm) ---------------------------------- */

/* One runtime's cuBLASLt: the library, opened on the first GEMM, its handle
 * and a cache of descriptors and chosen algorithms (cublaslt.c). */
typedef struct fr_cublaslt fr_cublaslt;

/* A state with nothing loaded yet; NULL when out of memory. */
fr_cublaslt *fr_cublaslt_new(void);
/* Enqueues `g` (k > 0) on `stream` through cublasLtMatmul. The first call
 * opens the library (FUSER_CUBLASLT_LIBRARY, else libcublasLt.so.13, then
 * .so.12) and creates the handle; later calls with the same shapes, dtypes,
 * flags and operand alignments create nothing. The CUDA context is
 * current. Thread safe. */
fuser_error *fr_cublaslt_gemm(fr_cublaslt *lt, const fuser_gemm *g,
                              void *stream);
/* Destroys every descriptor and the handle (the CUDA context is current)
 * and closes the library. NULL is a no-op. */
void fr_cublaslt_destroy(fr_cublaslt *lt);

/* ---- NCCL (the collectives of sharded fusions) --------------------------- */

/* One runtime's NCCL: the library and its entry points (nccl.c). */
typedef struct fr_nccl fr_nccl;
/* Closes the library (it stays mapped: RTLD_NODELETE). NULL is a no-op. */
void fr_nccl_close(fr_nccl *lib);

/* ---- bundles ------------------------------------------------------------ */

#define FR_NONE ((uint32_t)FUSER_BUNDLE_NONE)

/* Short names for the format's opcodes and parameter kinds
 * (fuser_bundle_format.h holds the values). */
enum {
  OP_CONST = FUSER_BUNDLE_OP_CONST,
  OP_DIM = FUSER_BUNDLE_OP_DIM,
  OP_ADD = FUSER_BUNDLE_OP_ADD,
  OP_SUB = FUSER_BUNDLE_OP_SUB,
  OP_MUL = FUSER_BUNDLE_OP_MUL,
  OP_DIV = FUSER_BUNDLE_OP_DIV,
  OP_CEILDIV = FUSER_BUNDLE_OP_CEILDIV,
  OP_REM = FUSER_BUNDLE_OP_REM,
  OP_MIN = FUSER_BUNDLE_OP_MIN,
  OP_MAX = FUSER_BUNDLE_OP_MAX,
  OP_EQ = FUSER_BUNDLE_OP_EQ,
  OP_NE = FUSER_BUNDLE_OP_NE,
  OP_LT = FUSER_BUNDLE_OP_LT,
  OP_LE = FUSER_BUNDLE_OP_LE,
  OP_AND = FUSER_BUNDLE_OP_AND,
  OP_OR = FUSER_BUNDLE_OP_OR,
  OP_SELECT = FUSER_BUNDLE_OP_SELECT,
  OP_ALIGNED = FUSER_BUNDLE_OP_ALIGNED,
  OP_ASSERT = FUSER_BUNDLE_OP_ASSERT,
  OP_ALLOC = FUSER_BUNDLE_OP_ALLOC,
  OP_LAUNCH = FUSER_BUNDLE_OP_LAUNCH,
  OP_RESULT_DIM = FUSER_BUNDLE_OP_RESULT_DIM,
  OP_INDEX_CHECK = FUSER_BUNDLE_OP_INDEX_CHECK,
  OP_STRIDE = FUSER_BUNDLE_OP_STRIDE,
  OP_GEMM = FUSER_BUNDLE_OP_GEMM,
  OP_GRID = FUSER_BUNDLE_OP_GRID,
  OP_COLLECTIVE = FUSER_BUNDLE_OP_COLLECTIVE,
  OP_LAST = FUSER_BUNDLE_OP_LAST,
};

/* Each opcode's name, for messages (bundle.c). */
extern const char *const fr_op_names[OP_LAST + 1];

enum {
  PARAM_PTR = FUSER_BUNDLE_PARAM_PTR,
  PARAM_I32 = FUSER_BUNDLE_PARAM_I32,
  PARAM_I64 = FUSER_BUNDLE_PARAM_I64
};

/* The registers of a GEMM record, in record order (FUSER_BUNDLE_G_M ..
 * FUSER_BUNDLE_G_STRIDE_D, 4 bytes apart). */
enum {
  FR_G_M,
  FR_G_N,
  FR_G_K,
  FR_G_BATCH,
  FR_G_LDA,
  FR_G_LDB,
  FR_G_LDD,
  FR_G_STRIDE_A,
  FR_G_STRIDE_B,
  FR_G_STRIDE_D,
  FR_G_NUM_REGS
};
/* Their names, as fuser_gemm's fields ("m", "stride_a"), for messages. */
extern const char *const fr_gemm_reg_names[FR_G_NUM_REGS];

/* A collective's kind and reduction as the plan text and messages spell
 * them ("all_reduce", "sum"), indexed by FUSER_BUNDLE_COLLECTIVE_* and
 * FUSER_BUNDLE_REDUCTION_* (the loader refuses others; 0 is ""). */
extern const char *const fr_collective_kind_names[FUSER_BUNDLE_COLLECTIVE_ALL_TO_ALL + 1];
extern const char *const fr_reduction_names[FUSER_BUNDLE_REDUCTION_AVG + 1];

/* A decoded GEMM record (fuser_bundle_format.h), validated at load. */
typedef struct fr_gemm {
  uint32_t a, b, d;          /* buffers */
  uint32_t bias;             /* a buffer read (EPILOGUE_BIAS) or written
                                (a bias gradient: FR_GEMM_BGRAD), else
                                FR_NONE */
  uint32_t aux;              /* a buffer with EPILOGUE_AUX, else FR_NONE */
  uint32_t reg[FR_G_NUM_REGS];
  uint8_t ab_dtype, d_dtype, flags, epilogue;
} fr_gemm;

/* Whether a GEMM's epilogue writes a bias gradient (BGRAD_A or BGRAD_B,
 * minor 4) into its bias buffer, which it then does not read. */
#define FR_GEMM_BGRAD(epilogue)                                              \
  ((epilogue) == FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A ||                       \
   (epilogue) == FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B)

/* A decoded GRID record (fuser_bundle_format.h), validated at load: the
 * device grid of a sharded fusion. */
typedef struct fr_grid {
  uint32_t axes;                               /* 1 .. GRID_MAX_AXES */
  uint32_t sizes[FUSER_BUNDLE_GRID_MAX_AXES];  /* the unused ones 0 */
  uint64_t devices;                            /* their product */
  /* One mask per dim of every argument, then result (in the bundle's
   * bytes). */
  const uint8_t *splits;
} fr_grid;

/* A decoded COLLECTIVE record, validated at load. */
typedef struct fr_collective {
  uint8_t kind;      /* FUSER_BUNDLE_COLLECTIVE_*: ALL_REDUCE .. ALL_TO_ALL */
  uint8_t reduction; /* FUSER_BUNDLE_REDUCTION_*, or 0 */
  uint8_t dtype;     /* FUSER_BUNDLE_DTYPE_* */
  uint8_t group;     /* mask of grid axes */
  uint32_t src, dst; /* buffers */
  uint32_t count;    /* register: elements per member's part */
} fr_collective;

/* The devices of `grid` whose coordinates differ only on the axes of
 * `mask`: how many there are (the product of those axes' sizes), and the
 * row-major index (ascending axes, the last fastest) of rank `rank`'s
 * coordinates on those axes. With the group's mask that index is the
 * rank's member index in its group; with the other axes' it tells the
 * groups apart (nccl.c). */
uint64_t fr_grid_group_size(const fr_grid *grid, uint32_t mask);
uint64_t fr_grid_index(const fr_grid *grid, uint64_t rank, uint32_t mask);
/* "2 x 4 = 8 devices", "4 devices": the grid for messages. */
void fr_grid_describe(const fr_grid *grid, char *out, size_t n);

typedef struct fr_instr {
  uint16_t op;
  uint32_t dst, a, b;
  int64_t imm;
  const char *msg; /* ASSERT: the message; INDEX_CHECK: the sites */
  const fr_gemm *gemm; /* GEMM: its record */
  const fr_collective *coll; /* COLLECTIVE: its record */
} fr_instr;

/* A byte range of device memory a call touches: [begin, end) of tensor
 * `what` (an argument or result index), or the user scratch (`what` is the
 * number of arguments and results). */
typedef struct fr_span {
  uint64_t begin, end;
  uint32_t what;
} fr_span;

typedef struct fr_kernel {
  const char *name;
  void *function;
  atomic_uint max_dynamic_shared; /* what the driver was last told */
  /* The parameters its launches pass (checked against the PTX .entry at
   * load): a kernel loaded from a cubin must take exactly these. */
  const uint32_t *param_sizes;
  uint32_t num_params;
} fr_kernel;

typedef struct fr_module {
  const char *name;
  uint32_t kind;
  const char *data;
  uint64_t size;
  atomic_int ready; /* 1 once handle and every kernel's function are set */
  void *handle;
  fr_kernel *kernels;
  uint32_t num_kernels;
  /* SM version (compute capability * 10) of a PTX or cubin module. */
  uint32_t target;
  /* A cubin module: the index of the PTX module it was made from (named
   * like it, plus FUSER_BUNDLE_CUBIN_SUFFIX); FR_NONE for other kinds. */
  uint32_t cubin_of;
  /* A PTX module: the index of its cubin for the runtime's device, loaded
   * in its place (docs/runtime.md, "Cubins"); FR_NONE when there is none. */
  uint32_t cubin;
} fr_module;

typedef struct fr_launch {
  const char *kernel_name;
  uint32_t num_params;
  uint8_t *param_kinds;
  uint32_t *param_index;
  uint32_t *param_sizes;
  uint32_t grid[3], block[3], smem;
  fr_kernel *kernel; /* in the module the runtime's driver loads; or NULL */
} fr_launch;

struct fuser_fusion {
  fuser_bundle *bundle;
  uint32_t index;
  const char *name;
  uint32_t num_args, num_results, num_dyn, num_regs, num_instrs,
      num_launches, num_inter;
  fuser_tensor_info *tensors;
  fuser_dyn_dim_info *dyn;
  /* Per tensor: the bytes of its static dims (element size times their
   * product, 0 when one is 0), and where its dynamic dims start in `dyn`
   * (they run to tensor_dyn_begin[t + 1]; args + results + 1 entries).
   * For the per-call buffer checks of fuser_run. */
  uint64_t *tensor_static_bytes;
  uint32_t *tensor_dyn_begin;
  /* Whether an argument has a strides record (is compiled as a view): then
   * fuser_run checks the strides of every call, not only its buffers. */
  bool any_strides;
  fr_instr *instrs;
  fr_launch *launches;
  uint32_t ptx_module, emu_module;
  fr_module *module; /* the module of the runtime's driver kind, or NULL */
  /* A sharded fusion's grid (its GRID instruction's record), or NULL. */
  const fr_grid *grid;
  bool needs_prepass; /* something can fail after the first LAUNCH/GEMM */
  uint32_t max_params;
  size_t frame_bytes; /* per-call working memory */
};

struct fuser_bundle {
  fuser_rt *rt;
  unsigned char *data;
  size_t size;
  uint32_t num_fusions, num_modules;
  fuser_fusion *fusions;
  fr_module *modules;
};

/* What buffer `x` of a fusion is, for messages: "argument 0 'x'", "result
 * 1 'y'" or "intermediate buffer 4" (buffers numbered as in the plan). */
void fr_buffer_name(const fuser_fusion *f, uint32_t x, char *out, size_t n);

/* Validates and decodes; on success *out is a bundle without device state. */
fuser_error *fr_bundle_parse(fuser_rt *rt, const void *data, size_t size,
                             fuser_bundle **out);
void fr_bundle_free(fuser_bundle *b);

/* Loads the fusion's module and resolves its kernels (slow path). */
fuser_error *fr_module_ensure_slow(const fuser_fusion *f, bool entered);

static inline bool fr_module_ready(const fr_module *m) {
  return atomic_load_explicit(&m->ready, memory_order_acquire) == 1;
}

/* ---- communicators (nccl.c) ---------------------------------------------- */

/* The runtime a communicator was made for. */
fuser_rt *fr_comm_runtime(const fuser_comm *comm);
/* Whether fuser_comm_abort was called on it. */
bool fr_comm_aborted(const fuser_comm *comm);
/* Enqueues collective `k` (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER or
 * ALL_TO_ALL) of
 * `n` > 0 elements per part among the members of its group of `grid` (more
 * than one device) on `stream`: through the communicator itself when the
 * group is every axis of more than one device, else through the
 * sub-communicator of the group's devices, made (ncclCommSplit) on its
 * first use. The driver has been entered. */
fuser_error *fr_comm_collective(fuser_comm *comm, const fr_grid *grid,
                                const fr_collective *k, uint64_t src,
                                uint64_t dst, uint64_t n, void *stream);

#endif
