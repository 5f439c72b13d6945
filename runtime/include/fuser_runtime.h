/*
 * fuser_runtime.h - the plain-C runtime that loads fuser kernel bundles
 * (docs/bundle.md) and launches their fusions.
 *
 * C11, no MLIR, no LLVM, and no CUDA toolkit: the CUDA driver is opened at
 * run time with dlopen. See docs/runtime.md for a tour.
 *
 * Conventions (in the style of IREE's C API)
 * ------------------------------------------
 * - Functions that can fail return `fuser_error *`: NULL means success, any
 *   other value is an error object that the CALLER OWNS and must release with
 *   fuser_error_destroy(). Nothing is ever printed by the library.
 * - Handles (fuser_rt, fuser_bundle) are opaque. Objects returned as
 *   `const T *` (fusions, tensor infos, dynamic dim infos, strings) are
 *   BORROWED: they stay valid until the bundle that owns them is destroyed.
 * - Output parameters are written only on success.
 * - NULL: a function that returns an error refuses a NULL handle or pointer
 *   with FUSER_ERROR_INVALID_ARGUMENT and the message
 *   "<function>: NULL <parameter>"; a pointer may be NULL only where it
 *   would point at nothing (no arguments, no dynamic dims, 0 bytes). A
 *   function that returns a value returns 0, NULL or "" for a NULL handle;
 *   destroying NULL does nothing.
 * - Device memory is named by a `uint64_t` device address (a CUdeviceptr for
 *   the CUDA backend). Streams are `void *` (a CUstream for the CUDA backend;
 *   NULL is the legacy default stream).
 *
 * Thread safety, in short (docs/runtime.md has the details)
 * ----------------------------------------------------------
 * - A fuser_rt may be used from any number of threads at once, except for
 *   fuser_rt_destroy().
 * - A loaded fuser_bundle and its fusions are immutable to the caller: every
 *   query, and fuser_run(), may be called concurrently from any number of
 *   threads, on the same fusion, with the same or different streams.
 *   fuser_bundle_destroy() must not race with any other use of the bundle.
 * - A fuser_error is a plain object: use it from one thread at a time.
 */
#ifndef FUSER_RUNTIME_H
#define FUSER_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

/* The bundle format's constants (magic, version, layout, checksum). */
#include "fuser_bundle_format.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(FUSER_RUNTIME_BUILDING)
#define FUSER_API __attribute__((visibility("default")))
#else
#define FUSER_API
#endif

#define FUSER_RUNTIME_VERSION_MAJOR 0
#define FUSER_RUNTIME_VERSION_MINOR 5
/* The bundle format version this runtime reads (docs/bundle.md) is
 * FUSER_BUNDLE_FORMAT_VERSION, from fuser_bundle_format.h. */

/* The largest tensor rank anywhere in fuser: the dialect's verifier, the
 * C API's builder, bundles (the writer and this runtime's validator), the
 * .npy reader and fuserc. NumPy's own limit (NPY_MAXDIMS) is 32 too. */
#define FUSER_MAX_RANK 32

/* ======================================================================== */
/* Errors                                                                    */
/* ======================================================================== */

typedef enum fuser_error_code {
  FUSER_ERROR_INVALID_ARGUMENT = 1,   /* bad arguments to an API call */
  FUSER_ERROR_INVALID_BUNDLE = 2,     /* the bundle failed validation */
  FUSER_ERROR_DRIVER_UNAVAILABLE = 3, /* the driver library can't be used */
  FUSER_ERROR_DRIVER = 4,             /* a driver call failed */
  FUSER_ERROR_OUT_OF_MEMORY = 5,      /* host or device memory exhausted */
  FUSER_ERROR_ASSERTION = 6,          /* a plan ASSERT failed (bad sizes) */
  FUSER_ERROR_OUT_OF_RANGE = 7,       /* overflow, division by zero, a value
                                         that does not fit its parameter */
  FUSER_ERROR_NOT_FOUND = 8,          /* no such fusion/kernel/module */
  FUSER_ERROR_IO = 9,                 /* reading a file failed */
  FUSER_ERROR_INTERNAL = 10,          /* a bug in the runtime */
} fuser_error_code;

/* An error: a code and a message. Owned by whoever received it. */
typedef struct fuser_error fuser_error;

/* The message of `error`, a NUL-terminated string owned by `error` (valid
 * until fuser_error_destroy). Never NULL for a non-NULL `error`; returns ""
 * for NULL. */
FUSER_API const char *fuser_error_message(const fuser_error *error);

/* The code of `error`; 0 for NULL. */
FUSER_API fuser_error_code fuser_error_code_of(const fuser_error *error);

/* A static name for a code ("INVALID_BUNDLE"); "UNKNOWN" if unknown. */
FUSER_API const char *fuser_error_code_name(fuser_error_code code);

/* Releases `error`. NULL is a no-op. */
FUSER_API void fuser_error_destroy(fuser_error *error);

/* Makes a new error with a printf-style message. For driver
 * implementations (fuser_driver) and tools; never returns NULL (when memory
 * is exhausted it returns a static out-of-memory error, which
 * fuser_error_destroy accepts like any other). */
FUSER_API fuser_error *fuser_error_create(fuser_error_code code,
                                          const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* ======================================================================== */
/* Drivers                                                                   */
/* ======================================================================== */

/* Module kinds of docs/bundle.md: what a driver's module_load accepts. */
typedef enum fuser_module_kind {
  /* PTX text, for cuModuleLoadDataEx */
  FUSER_MODULE_PTX = FUSER_BUNDLE_MODULE_PTX,
  /* MLIR text of the kernels, for a CPU emulator */
  FUSER_MODULE_EMULATOR = FUSER_BUNDLE_MODULE_EMULATOR,
  /* A PTX module's cubin for one SM (no driver takes it as its kind: the
   * CUDA backend loads it in place of the PTX on a device of that SM) */
  FUSER_MODULE_CUBIN = FUSER_BUNDLE_MODULE_CUBIN,
} fuser_module_kind;

/* Grid, block and dynamic shared memory of one launch. */
typedef struct fuser_launch_dims {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_mem_bytes;
} fuser_launch_dims;

/* The workspace the CUDA backend gives cuBLASLt per call with a GEMM: 32
 * MiB, what cuBLAS itself uses on sm_90 and what its heuristics assume.
 * From the runtime's cache, or from the user scratch when the call has one
 * (fuser_fusion_scratch_size counts it); docs/runtime.md, GEMM. */
#define FUSER_GEMM_WORKSPACE_BYTES (32ull << 20)

/* One matrix multiply of a plan's GEMM instruction, in the row-major terms
 * of fuser_bundle_format.h's GEMM record (docs/bundle.md, GemmRecord;
 * docs/runtime.md, GEMM; docs/matmul.md): for every b < batch, D_b = epilogue(opA(A_b) @
 * opB(B_b)), f32 accumulation (f64 for f64), rounded once to d_dtype; with
 * k == 0, D_b = epilogue(0). With a bias gradient (EPILOGUE_BGRAD_A or
 * _BGRAD_B, runtime 0.5) D is the plain product and `bias` is written:
 * bias[i] = sum over l < k of opA(A)[i, l] (m elements) or bias[j] = sum
 * over l < k of opB(B)[l, j] (n elements), accumulated as the product, in
 * order of l, rounded once to d_dtype (0 when k == 0); batch is then 1 and
 * n > 0 (BGRAD_A) or m > 0 (BGRAD_B). The runtime calls a driver's `gemm`
 * only with m, n and batch > 0 (an empty result needs no call), k >= 0,
 * and every operand inside its buffer for the call (it checks the sizes,
 * leading dimensions and strides first). */
typedef struct fuser_gemm {
  uint32_t ab_dtype; /* A's and B's FUSER_BUNDLE_DTYPE_*: f16, bf16, f32, f64 */
  uint32_t d_dtype;  /* D's and the bias's */
  int64_t m, n, k, batch;
  uint64_t a, b, d;          /* device addresses */
  /* The bias the epilogue adds, n elements of d_dtype; with a bias
   * gradient (EPILOGUE_BGRAD_A/B, runtime 0.5) where it is written
   * instead, m (BGRAD_A) or n (BGRAD_B) elements of d_dtype; or 0 for
   * none. */
  uint64_t bias;
  int64_t lda, ldb, ldd;     /* row strides in elements */
  int64_t stride_a, stride_b, stride_d; /* per batch, in elements (0 for
                                           A or B: one matrix for all) */
  uint32_t flags;    /* FUSER_BUNDLE_GEMM_FLAG_* (transposes, TF32) */
  uint32_t epilogue; /* FUSER_BUNDLE_GEMM_EPILOGUE_* */
  /* Device memory the library may use during the call (on `stream`), from
   * the runtime's cache or the call's user scratch:
   * FUSER_GEMM_WORKSPACE_BYTES for the CUDA backend, 0 bytes (and address
   * 0) for a pluggable driver. */
  uint64_t workspace;
  uint64_t workspace_bytes;
  /* Runtime 0.3: with FUSER_BUNDLE_GEMM_EPILOGUE_AUX, where the
   * activation's input (after the bias, rounded once to d_dtype) goes:
   * m x n per batch, laid out as D (ldd, stride_d); else 0. A driver that
   * does not know an epilogue refuses the call. */
  uint64_t aux;
} fuser_gemm;

/*
 * A pluggable driver: the operations the runtime needs from a device. The
 * CUDA backend is one such table over the cu* entry points; a CPU emulator
 * can be another (module_kind = FUSER_MODULE_EMULATOR).
 *
 * Every function receives the `driver_ctx` given to
 * fuser_rt_create_with_driver. A function that fails returns an error made
 * with fuser_error_create(); ownership passes to the runtime. Functions
 * marked optional may be NULL.
 *
 * Threading: module_load, module_unload and function_get are called with a
 * runtime lock held (never concurrently with each other for one runtime).
 * Everything else may be called concurrently from several threads. The
 * table must outlive the runtime (the runtime keeps the pointer).
 */
typedef struct fuser_driver {
  /* Which module kind module_load accepts (fuser_module_kind). */
  uint32_t module_kind;
  /* A short name for messages ("cuda", "emulator"). */
  const char *name;

  /* Optional: called on entry to / exit from every runtime call that uses
   * the driver (the CUDA backend makes its context current here). `leave`
   * is called exactly once for each successful `enter`. */
  fuser_error *(*enter)(void *driver_ctx);
  void (*leave)(void *driver_ctx);

  /* Loads a module of `module_kind` from `image` (`size` bytes, the last one
   * NUL) and returns an opaque module handle. The image stays valid until
   * module_unload of that module, so a driver may keep pointers into it. */
  fuser_error *(*module_load)(void *driver_ctx, const void *image,
                              size_t size, const char *module_name,
                              void **out_module);
  void (*module_unload)(void *driver_ctx, void *module);
  /* Resolves kernel `name` of `module` to an opaque function handle. */
  fuser_error *(*function_get)(void *driver_ctx, void *module,
                               const char *name, void **out_function);
  /* Optional: raises the function's dynamic shared memory limit to `bytes`
   * (called before the first launch that needs more than 48 KiB, and again
   * only when a launch needs more than any earlier call allowed). */
  fuser_error *(*function_set_max_dynamic_shared)(void *driver_ctx,
                                                  void *function,
                                                  uint32_t bytes);
  /* Enqueues a kernel on `stream`. `params[i]` points at the value of
   * parameter i, which is `param_sizes[i]` bytes (8 for pointers and i64,
   * 4 for i32); exactly what cuLaunchKernel takes. Both arrays are valid
   * only during the call. */
  fuser_error *(*launch)(void *driver_ctx, void *function,
                         const fuser_launch_dims *dims, void *stream,
                         void **params, const uint32_t *param_sizes,
                         uint32_t num_params);

  fuser_error *(*mem_alloc)(void *driver_ctx, size_t bytes,
                            uint64_t *out_ptr);
  fuser_error *(*mem_free)(void *driver_ctx, uint64_t ptr);
  fuser_error *(*copy_h2d)(void *driver_ctx, uint64_t dst, const void *src,
                           size_t bytes);
  fuser_error *(*copy_d2h)(void *driver_ctx, void *dst, uint64_t src,
                           size_t bytes);
  /* Waits for `stream`; with `whole_device` set, for all work of the
   * device/context instead (stream is then ignored). */
  fuser_error *(*synchronize)(void *driver_ctx, void *stream,
                              int whole_device);

  /* Optional: enqueues zeroing `bytes` bytes at `ptr` on `stream`, ordered
   * with the kernels on it (cuMemsetD8Async). Without it the runtime waits
   * for `stream` and copies zeros from the host. */
  fuser_error *(*mem_zero)(void *driver_ctx, uint64_t ptr, size_t bytes,
                           void *stream);

  /* Optional: called once by the runtime when it is finally destroyed,
   * after everything else; releases driver_ctx. */
  void (*destroy)(void *driver_ctx);

  /* Optional: enqueues one matrix multiply on `stream`, ordered with the
   * kernels on it (the plan's GEMM instruction); `gemm` is valid during the
   * call only. Without it a call of a fusion with a GEMM that has work
   * fails, naming the driver, before it launches anything.
   * Added after `destroy` in runtime 0.2. The runtime can't tell a table
   * compiled against the 0.1 header, which is 8 bytes shorter, from a new
   * one: such a driver must be compiled again against this header (a table
   * initialized by field name then has gemm NULL), or hand the runtime a
   * copy of its table in a zero-filled fuser_driver of this size. */
  fuser_error *(*gemm)(void *driver_ctx, const fuser_gemm *gemm,
                       void *stream);

  /* Optional: enqueues a copy of `bytes` bytes from device address `src`
   * to `dst` (which do not overlap) on `stream`, ordered with the kernels
   * on it (cuMemcpyDtoDAsync). A sharded fusion's SLICE, and a collective
   * among a group of one device, is such a copy. Without it the runtime
   * waits for `stream` and copies through host memory (copy_d2h, then
   * copy_h2d, in blocks of at most 1 MiB).
   * Added after `gemm` in runtime 0.4, with the same ABI rule: a table
   * compiled against an older header must be compiled again (or copied
   * into a zero-filled fuser_driver of this size). */
  fuser_error *(*copy_d2d)(void *driver_ctx, uint64_t dst, uint64_t src,
                           size_t bytes, void *stream);
} fuser_driver;

/* ======================================================================== */
/* The runtime                                                               */
/* ======================================================================== */

/* A runtime: one device (one CUDA primary context) and its driver. */
typedef struct fuser_rt fuser_rt;

typedef struct fuser_rt_options {
  /* CUDA device ordinal. */
  int device_ordinal;
  /* Path of the CUDA driver library, or NULL: then the environment
   * variable FUSER_CUDA_DRIVER when set and non-empty, else
   * "libcuda.so.1". An explicit path wins over the environment. */
  const char *cuda_driver_path;
} fuser_rt_options;

/* Fills `options` with the defaults (device 0, driver path NULL). */
FUSER_API void fuser_rt_options_init(fuser_rt_options *options);

/* Creates a runtime on the CUDA driver: opens the driver library, cuInit,
 * retains the primary context of the device. `options` may be NULL
 * (defaults). On success *out_rt is a new runtime the caller owns.
 * Thread safe. */
FUSER_API fuser_error *fuser_rt_create(const fuser_rt_options *options,
                                       fuser_rt **out_rt);

/* Creates a runtime over a pluggable driver (see fuser_driver). `driver`
 * must stay valid for the runtime's lifetime; `driver_ctx` is passed to its
 * functions. If creation fails the driver's destroy is NOT called. */
FUSER_API fuser_error *fuser_rt_create_with_driver(const fuser_driver *driver,
                                                   void *driver_ctx,
                                                   fuser_rt **out_rt);

/* Releases the caller's reference to `rt`. Bundles hold their own
 * references: the runtime (its cached device memory, its context, its
 * driver library) goes away when the last of them is destroyed. Waits for
 * the device before freeing cached memory. NULL is a no-op. Must not race
 * with other uses of `rt` by the caller. */
FUSER_API void fuser_rt_destroy(fuser_rt *rt);

/* The driver's name ("cuda", or the pluggable driver's name). Borrowed. */
FUSER_API const char *fuser_rt_driver_name(const fuser_rt *rt);
/* The driver_ctx a pluggable driver was created with (NULL for the CUDA
 * backend): for a driver's own extensions, such as the emulator's traffic
 * counters. */
FUSER_API void *fuser_rt_driver_context(const fuser_rt *rt);

/* ======================================================================== */
/* Device memory helpers (for tools and tests; thread safe)                  */
/* ======================================================================== */

/* Allocates `bytes` of device memory straight from the driver (not the
 * intermediate cache). Free it with fuser_mem_free. */
FUSER_API fuser_error *fuser_mem_alloc(fuser_rt *rt, size_t bytes,
                                       uint64_t *out_ptr);
/* Frees memory from fuser_mem_alloc. 0 is a no-op. */
FUSER_API fuser_error *fuser_mem_free(fuser_rt *rt, uint64_t ptr);
/* Synchronous copies host -> device and device -> host. */
FUSER_API fuser_error *fuser_mem_copy_h2d(fuser_rt *rt, uint64_t dst,
                                          const void *src, size_t bytes);
FUSER_API fuser_error *fuser_mem_copy_d2h(fuser_rt *rt, void *dst,
                                          uint64_t src, size_t bytes);

/* Waits for all work on `stream`; then intermediates the runtime's cache
 * holds for `stream` become reusable by any stream (see the allocator rule
 * in docs/runtime.md). */
FUSER_API fuser_error *fuser_stream_synchronize(fuser_rt *rt, void *stream);
/* Waits for all work on the device (context); then every cached
 * intermediate becomes reusable by any stream. */
FUSER_API fuser_error *fuser_device_synchronize(fuser_rt *rt);
/* Gives cached device memory that no stream may still use back to the
 * driver. */
FUSER_API fuser_error *fuser_rt_trim(fuser_rt *rt);

/* Statistics of the intermediate cache (for tests and tools). */
typedef struct fuser_rt_stats {
  uint64_t driver_allocs;    /* blocks ever allocated from the driver */
  uint64_t driver_frees;     /* blocks given back to the driver */
  uint64_t cache_hits;       /* ALLOCs served from the cache */
  uint64_t cached_bytes;     /* bytes held by the cache now (all states) */
  uint64_t in_use_bytes;     /* bytes handed to calls still running now */
} fuser_rt_stats;
FUSER_API void fuser_rt_get_stats(fuser_rt *rt, fuser_rt_stats *out_stats);

/* ======================================================================== */
/* Bundles and fusions                                                       */
/* ======================================================================== */

typedef struct fuser_bundle fuser_bundle;
/* A fusion of a bundle; borrowed from the bundle. */
typedef struct fuser_fusion fuser_fusion;

/* Validates the WHOLE bundle (docs/bundle.md) and, when it is well formed,
 * loads it. The bytes are copied; `data` may be freed afterwards. Nothing
 * touches the device here: the PTX of a fusion is loaded lazily, on its
 * first fuser_run (or fuser_fusion_prepare). A malformed bundle returns a
 * FUSER_ERROR_INVALID_BUNDLE error saying what and where, and creates
 * nothing. The bundle holds a reference to `rt`. Thread safe. */
FUSER_API fuser_error *fuser_bundle_load(fuser_rt *rt, const void *data,
                                         size_t size,
                                         fuser_bundle **out_bundle);

/* Same as fuser_bundle_load on the contents of the file at `path`. */
FUSER_API fuser_error *fuser_bundle_load_file(fuser_rt *rt, const char *path,
                                              fuser_bundle **out_bundle);

/* Unloads the bundle's modules (after waiting for the device, so kernels
 * still running are not pulled from under them) and frees it, invalidating
 * every fusion and string borrowed from it. NULL is a no-op. Must not race
 * with any other use of the bundle. */
FUSER_API void fuser_bundle_destroy(fuser_bundle *bundle);

FUSER_API size_t fuser_bundle_num_fusions(const fuser_bundle *bundle);
/* The i-th fusion, or NULL when i is out of range. */
FUSER_API const fuser_fusion *fuser_bundle_get_fusion(
    const fuser_bundle *bundle, size_t i);
/* The fusion named `name`, or NULL. */
FUSER_API const fuser_fusion *fuser_bundle_find_fusion(
    const fuser_bundle *bundle, const char *name);

/* Element types (docs/bundle.md TensorRecord). */
typedef enum fuser_dtype {
  FUSER_DTYPE_I1 = FUSER_BUNDLE_DTYPE_I1,
  FUSER_DTYPE_I8 = FUSER_BUNDLE_DTYPE_I8,
  FUSER_DTYPE_I32 = FUSER_BUNDLE_DTYPE_I32,
  FUSER_DTYPE_I64 = FUSER_BUNDLE_DTYPE_I64,
  FUSER_DTYPE_F16 = FUSER_BUNDLE_DTYPE_F16,
  FUSER_DTYPE_BF16 = FUSER_BUNDLE_DTYPE_BF16,
  FUSER_DTYPE_F32 = FUSER_BUNDLE_DTYPE_F32,
  FUSER_DTYPE_F64 = FUSER_BUNDLE_DTYPE_F64,
  FUSER_DTYPE_F8E4M3FN = FUSER_BUNDLE_DTYPE_F8E4M3FN,
  FUSER_DTYPE_F8E5M2 = FUSER_BUNDLE_DTYPE_F8E5M2,
  FUSER_DTYPE_F8E8M0FNU = FUSER_BUNDLE_DTYPE_F8E8M0FNU,
} fuser_dtype;

/* Bytes per element (i1 is stored in one byte); 0 for an unknown dtype. */
FUSER_API size_t fuser_dtype_size(fuser_dtype dtype);
/* "f32", ...; "?" for an unknown dtype. */
FUSER_API const char *fuser_dtype_name(fuser_dtype dtype);

/* A tensor of a fusion's signature. */
typedef struct fuser_tensor_info {
  const char *name;    /* "x", or "arg0", "result0", ... */
  fuser_dtype dtype;
  uint32_t rank;
  const int64_t *dims; /* rank entries: static size, or -1 when dynamic */
  /* An argument compiled as a view (docs/bundle.md, TensorRecord): rank
   * entries, each a stride in elements (0 for an expanded dim) or -1 when
   * the caller passes it (fuser_run_options.arg_strides). NULL: dense,
   * row-major (every result). */
  const int64_t *strides;
} fuser_tensor_info;

/* Where a dynamic dim lives: dim `dim` of tensor `tensor` (tensor indices
 * run over the arguments, then the results). */
typedef struct fuser_dyn_dim_info {
  uint32_t tensor;
  uint32_t dim;
} fuser_dyn_dim_info;

/* Introspection; all borrowed, all thread safe. */
FUSER_API const char *fuser_fusion_name(const fuser_fusion *fusion);
FUSER_API size_t fuser_fusion_num_args(const fuser_fusion *fusion);
FUSER_API size_t fuser_fusion_num_results(const fuser_fusion *fusion);
/* Tensor i of the signature, i < args + results (arguments first);
 * NULL when out of range. */
FUSER_API const fuser_tensor_info *fuser_fusion_tensor(
    const fuser_fusion *fusion, size_t i);
/* Shorthands for fuser_fusion_tensor(i) and (num_args + i). */
FUSER_API const fuser_tensor_info *fuser_fusion_arg(const fuser_fusion *fusion,
                                                    size_t i);
FUSER_API const fuser_tensor_info *fuser_fusion_result(
    const fuser_fusion *fusion, size_t i);
/* Number of dynamic dims: every -1 dim of the arguments, then of the
 * results, in order; fuser_run takes their values in that order. */
FUSER_API size_t fuser_fusion_num_dyn_dims(const fuser_fusion *fusion);
/* Which tensor/dim dynamic dim i is; NULL when out of range. */
FUSER_API const fuser_dyn_dim_info *fuser_fusion_dyn_dim(
    const fuser_fusion *fusion, size_t i);
/* The number of bytes of tensor i for the given dynamic dims (the
 * dynamic dims of the other tensors are ignored): always the dense size,
 * element size times the product of the dims, also for an argument
 * compiled as a view (the span of a view depends on the strides a call
 * passes: docs/runtime.md, Running). */
FUSER_API fuser_error *fuser_fusion_tensor_bytes(const fuser_fusion *fusion,
                                                 size_t i,
                                                 const int64_t *dyn_dims,
                                                 size_t num_dyn_dims,
                                                 uint64_t *out_bytes);

/* The dynamic dims of the results for given argument dims: `dyn_dims`
 * holds all the fusion's dynamic dims in signature order, of which the
 * results' are ignored (any value); `out_dyn_dims` (may be `dyn_dims`) receives all of
 * them, the results' computed by the plan. Checks the arguments' dims
 * against each other as fuser_run would. Thread safe, no device work. */
FUSER_API fuser_error *fuser_fusion_infer_dims(const fuser_fusion *fusion,
                                               const int64_t *dyn_dims,
                                               size_t num_dyn_dims,
                                               int64_t *out_dyn_dims);

/* Loads the fusion's module and resolves its kernels now instead of on the
 * first fuser_run. Idempotent, thread safe. */
FUSER_API fuser_error *fuser_fusion_prepare(const fuser_fusion *fusion);

/* ---- what a bundle holds (for tools such as `fuserc inspect`) ---------- */

/* A module of a bundle: PTX text, or the emulator's MLIR text. */
typedef struct fuser_module_info {
  const char *name;
  fuser_module_kind kind;
  /* `size` bytes, the last one NUL; owned by the bundle. Text for PTX and
   * the emulator's MLIR; a cubin's ELF image (binary) before the NUL. */
  const char *data;
  uint64_t size;
} fuser_module_info;

FUSER_API size_t fuser_bundle_num_modules(const fuser_bundle *bundle);
/* Fills `out` with module i (its strings and data borrowed from the
 * bundle); returns 0 when i is out of range, else 1. */
FUSER_API int fuser_bundle_module(const fuser_bundle *bundle, size_t i,
                                  fuser_module_info *out);
/* Index of the fusion's PTX module in its bundle. */
FUSER_API size_t fuser_fusion_ptx_module(const fuser_fusion *fusion);
/* The fusion's launch records (docs/bundle.md); some are guarded variants
 * that a given call may not run. */
FUSER_API size_t fuser_fusion_num_launch_records(const fuser_fusion *fusion);
/* The kernel of launch record i; NULL when out of range. */
FUSER_API const char *fuser_fusion_launch_kernel(const fuser_fusion *fusion,
                                                 size_t i);
/* Writes the fusion's plan program as text into `buffer` (at most `size`
 * bytes, NUL-terminated when size > 0), one instruction per line, in the
 * notation of docs/bundle.md. Returns the length of the whole text (as
 * snprintf does: call with size 0, or a NULL buffer, to learn it). */
FUSER_API size_t fuser_fusion_plan_text(const fuser_fusion *fusion,
                                        char *buffer, size_t size);

/* ---- sharded fusions ---------------------------------------------------- */

/* The device grid of a sharded fusion (its GRID instruction, docs/bundle.md
 * GridRecord; docs/sharding.md): `num_axes` axes of `sizes` (the unused
 * entries 0), `num_devices` devices in all, numbered row-major over the
 * axes (the last fastest): a communicator's rank r is the device whose
 * coordinates give r. `splits` holds one mask per dim of every argument,
 * then every result, in signature order (tensor t's start after the ranks
 * of the tensors before it): bit i set when grid axis i splits that dim;
 * the signature's dims are one device's part. Borrowed from the bundle. */
typedef struct fuser_grid_info {
  uint32_t num_axes;
  uint32_t sizes[FUSER_BUNDLE_GRID_MAX_AXES];
  uint64_t num_devices;
  const uint8_t *splits;
} fuser_grid_info;

/* Fills `out` with the fusion's grid and returns 1 when it is sharded (has
 * a GRID instruction); returns 0, and leaves `out` alone, when it is not
 * (or for NULL). */
FUSER_API int fuser_fusion_grid(const fuser_fusion *fusion,
                                fuser_grid_info *out);

/* ======================================================================== */
/* Communicators (sharded fusions; docs/runtime.md, Collectives)             */
/* ======================================================================== */

/*
 * A sharded fusion runs on every device of its grid at once, one
 * fuser_run per device (rank), each on its own runtime; its COLLECTIVE
 * instructions communicate through a communicator of all of them: NCCL's.
 *
 * NCCL is opened with dlopen when a runtime first needs it (the first call
 * below): the library named by the environment variable
 * FUSER_NCCL_LIBRARY when it is set and not empty, else "libnccl.so.2". A
 * fusion without collectives never needs it. A missing library, or one
 * that lacks an entry point, is FUSER_ERROR_DRIVER_UNAVAILABLE naming the
 * library and the variable; a failed NCCL call is FUSER_ERROR_DRIVER with
 * NCCL's error string (ncclGetErrorString, and ncclGetLastError where the
 * library has it).
 *
 * Every rank must make the same calls with communicators in the same order
 * (NCCL's rule): the same fusions, with the same sizes, on communicators of
 * the same ranks. A rank that fails before a collective the others entered
 * leaves them waiting (on a GPU, their streams never finish): abort the
 * communicators (fuser_comm_abort) to get them back.
 */
typedef struct fuser_comm fuser_comm;

/* The bytes of a unique id (NCCL's ncclUniqueId). */
#define FUSER_COMM_ID_BYTES 128

/* Writes a new unique id (ncclGetUniqueId) to `out_id`
 * (FUSER_COMM_ID_BYTES bytes). One rank makes it and hands it to every
 * other (by whatever means the program has: MPI, a file, a socket), and
 * each passes it to fuser_comm_init_rank. Thread safe. */
FUSER_API fuser_error *fuser_comm_get_unique_id(fuser_rt *rt, void *out_id);

/* Joins the communicator of `nranks` ranks named by `id` as rank `rank`
 * (0 <= rank < nranks), on the runtime's device (ncclCommInitRank, with
 * the runtime's context current). Blocks until every rank has joined. The
 * runtime owns the NCCL communicator: fuser_comm_destroy destroys it. The
 * communicator holds a reference to `rt` and is used only with fusions of
 * bundles loaded on `rt`. Thread safe (each rank in its own thread, or
 * process). */
FUSER_API fuser_error *fuser_comm_init_rank(fuser_rt *rt, const void *id,
                                            int nranks, int rank,
                                            fuser_comm **out_comm);

/* Uses the caller's NCCL communicator `nccl_comm` (an ncclComm_t, made on
 * `rt`'s device): its size and this rank come from ncclCommCount and
 * ncclCommUserRank. fuser_comm_destroy does not destroy it; the caller
 * keeps it alive until then. */
FUSER_API fuser_error *fuser_comm_wrap_nccl(fuser_rt *rt, void *nccl_comm,
                                            fuser_comm **out_comm);

/* The communicator's size and this rank; 0 for NULL. */
FUSER_API int fuser_comm_size(const fuser_comm *comm);
FUSER_API int fuser_comm_rank(const fuser_comm *comm);
/* The NCCL communicator (ncclComm_t) it runs on; NULL for NULL. */
FUSER_API void *fuser_comm_nccl(const fuser_comm *comm);

/* Aborts the communicator (ncclCommAbort) and the sub-communicators the
 * runtime made from it; the caller's NCCL communicator of
 * fuser_comm_wrap_nccl is the caller's to abort. This rank's collectives
 * waiting on them fail (every rank aborts its own: with real NCCL, one
 * rank's abort does not release another's), and so does every later
 * fuser_run with the communicator; destroy it then. May be called from
 * another thread while a call uses it. NULL is a no-op. */
FUSER_API void fuser_comm_abort(fuser_comm *comm);

/* Destroys the sub-communicators the runtime made for groups of a grid's
 * axes and, when the runtime owns it (fuser_comm_init_rank), the NCCL
 * communicator (ncclCommDestroy, which waits for its work; nothing after
 * an abort), and drops the reference to the runtime. No call may use the
 * communicator any more. NULL is a no-op. */
FUSER_API void fuser_comm_destroy(fuser_comm *comm);

/* ======================================================================== */
/* Running                                                                   */
/* ======================================================================== */

typedef struct fuser_run_options {
  /* Device memory the call carves its intermediates from, instead of the
   * runtime's cache, or 0. Must be 256-byte aligned and at least
   * fuser_fusion_scratch_size() bytes. The caller keeps it alive, and
   * does not reuse it, until the call's kernels have finished. */
  uint64_t scratch;
  uint64_t scratch_size;
  /* NULL, or one entry per argument: NULL for a dense row-major argument,
   * else its rank strides in elements, each >= 0 (0: an expanded dim), for
   * a view (a transposed, sliced or expanded tensor) passed without a copy.
   * They must agree with the strides the argument was compiled with
   * (fuser_tensor_info.strides: the static ones equal, except on dims of
   * size 1; an argument compiled dense takes only dense strides). */
  const int64_t *const *arg_strides;
  /* A sharded fusion (fuser_fusion_grid) on a grid of more than one
   * device: the communicator of its devices, exactly as many ranks as the
   * grid has devices; this call is rank fuser_comm_rank's part. NULL
   * otherwise (ignored by a fusion that is not sharded).
   * Added in runtime 0.4 at the end: initialize the struct by field name
   * or zero it, never by position; a caller compiled against an older
   * header, whose struct is shorter, must be compiled again. */
  fuser_comm *comm;
} fuser_run_options;

/*
 * Runs `fusion` once: executes its plan program (docs/bundle.md), which
 * checks the sizes, allocates intermediates and enqueues its kernels on
 * `stream` in order. Returns when the kernels are enqueued (it does not
 * wait for them).
 *
 *  args       device addresses of the num_args arguments (NULL if none)
 *  results    device addresses of the num_results results (NULL if none)
 *  dyn_dims   values of the fusion's dynamic dims, in signature order
 *  num_dyn_dims  must equal fuser_fusion_num_dyn_dims()
 *  stream     where the kernels run (CUstream for CUDA; NULL = default)
 *  options    NULL, or user scratch for the intermediates, the strides
 *             of arguments passed as views, and the communicator of a
 *             sharded fusion
 *
 * The buffers are checked first, from each tensor's size for these dims
 * (FUSER_ERROR_INVALID_ARGUMENT): a non-empty tensor may not be at address
 * 0, and a result may share no byte with an argument, another result or
 * the scratch: no fusion runs in place. Arguments may overlap each other.
 * That each buffer is as large as its tensor is the caller's promise. An
 * argument's strides (options->arg_strides, else dense) are checked too:
 * each >= 0, and on a non-empty tensor equal to the static strides it was
 * compiled with (dense ones for an argument compiled dense) except on dims
 * of size 1; its bytes are then the span of the view, element size *
 * (1 + sum over dims of (size - 1) * stride).
 *
 * A sharded fusion on a grid of more than one device needs
 * options->comm, of as many ranks as the grid has devices, made on the
 * fusion's runtime (FUSER_ERROR_INVALID_ARGUMENT otherwise, before
 * anything runs). Its collectives run in plan order on `stream`.
 *
 * Size checks, overflows, parameters that don't fit, a collective's reach
 * and allocation failures are found before any kernel is enqueued, so
 * such a failure launches nothing; a driver failure of a launch may leave
 * earlier kernels
 * of the call enqueued. Intermediates come from the runtime's cache unless
 * scratch is given (see the allocator rule in docs/runtime.md).
 *
 * Thread safe; allocation-free and lock-free after the fusion's first call
 * (intermediates from the cache take the cache's lock; user scratch does
 * not).
 */
FUSER_API fuser_error *fuser_run(const fuser_fusion *fusion,
                                 const uint64_t *args,
                                 const uint64_t *results,
                                 const int64_t *dyn_dims, size_t num_dyn_dims,
                                 void *stream,
                                 const fuser_run_options *options);

/* The bytes of scratch a call with these dynamic dims needs (0 when the
 * fusion has no intermediates). Runs the plan without launching anything.
 * `args`/`results` may be NULL: then buffers are taken as maximally
 * aligned for ALIGNED tests. Thread safe. */
FUSER_API fuser_error *fuser_fusion_scratch_size(const fuser_fusion *fusion,
                                                 const uint64_t *args,
                                                 const uint64_t *results,
                                                 const int64_t *dyn_dims,
                                                 size_t num_dyn_dims,
                                                 uint64_t *out_bytes);

#ifdef __cplusplus
}
#endif

#endif /* FUSER_RUNTIME_H */
