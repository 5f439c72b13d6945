/* The CUDA driver backend: a fuser_driver table over the cu* entry points of
 * libcuda.so.1, opened with dlopen, and cuBLASLt for GEMMs (cublaslt.c).
 * No CUDA header is needed: the few types and constants used are declared
 * here with the values of cuda.h. */
#include "internal.h"

#include "fp16.h"

#include <dlfcn.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef int CUjit_option;
typedef int CUfunction_attribute;
typedef struct CUarray_st *CUarray;
typedef int CUmemorytype;

/* cuda.h's CUDA_MEMCPY2D (the _v2 layout, size_t fields). */
typedef struct CUDA_MEMCPY2D {
  size_t srcXInBytes, srcY;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_FOUND 500
#define CU_JIT_INFO_LOG_BUFFER 3
#define CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CU_MEMORYTYPE_HOST 1
#define CU_MEMORYTYPE_DEVICE 2

#define JIT_LOG_BYTES 16384

/* The entry points: their types and the symbols they are resolved from
 * (the _v2 names where the driver exports them). */
typedef CUresult (*pfn_cuInit)(unsigned);
typedef CUresult (*pfn_cuDeviceGetCount)(int *);
typedef CUresult (*pfn_cuDeviceGet)(CUdevice *, int);
typedef CUresult (*pfn_cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
typedef CUresult (*pfn_cuDevicePrimaryCtxRelease)(CUdevice);
typedef CUresult (*pfn_cuCtxPushCurrent)(CUcontext);
typedef CUresult (*pfn_cuCtxPopCurrent)(CUcontext *);
typedef CUresult (*pfn_cuModuleLoadDataEx)(CUmodule *, const void *, unsigned,
                                           CUjit_option *, void **);
typedef CUresult (*pfn_cuModuleUnload)(CUmodule);
typedef CUresult (*pfn_cuModuleGetFunction)(CUfunction *, CUmodule,
                                            const char *);
typedef CUresult (*pfn_cuFuncSetAttribute)(CUfunction, CUfunction_attribute,
                                           int);
typedef CUresult (*pfn_cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                                       unsigned, unsigned, unsigned, unsigned,
                                       CUstream, void **, void **);
typedef CUresult (*pfn_cuMemAlloc)(CUdeviceptr *, size_t);
typedef CUresult (*pfn_cuMemFree)(CUdeviceptr);
typedef CUresult (*pfn_cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
typedef CUresult (*pfn_cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
typedef CUresult (*pfn_cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t,
                                          CUstream);
typedef CUresult (*pfn_cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t,
                                        CUstream);
typedef CUresult (*pfn_cuMemsetD2D8Async)(CUdeviceptr, size_t, unsigned char,
                                          size_t, size_t, CUstream);
typedef CUresult (*pfn_cuMemcpy2D)(const CUDA_MEMCPY2D *);
typedef CUresult (*pfn_cuStreamSynchronize)(CUstream);
typedef CUresult (*pfn_cuCtxSynchronize)(void);
typedef CUresult (*pfn_cuGetErrorName)(CUresult, const char **);
typedef CUresult (*pfn_cuGetErrorString)(CUresult, const char **);

#define CU_FUNCTIONS(X) \
  X(cuInit, "cuInit") \
  X(cuDeviceGetCount, "cuDeviceGetCount") \
  X(cuDeviceGet, "cuDeviceGet") \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2") \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2") \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx") \
  X(cuModuleUnload, "cuModuleUnload") \
  X(cuModuleGetFunction, "cuModuleGetFunction") \
  X(cuFuncSetAttribute, "cuFuncSetAttribute") \
  X(cuLaunchKernel, "cuLaunchKernel") \
  X(cuMemAlloc, "cuMemAlloc_v2") \
  X(cuMemFree, "cuMemFree_v2") \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2") \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2") \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2") \
  X(cuMemsetD8Async, "cuMemsetD8Async") \
  X(cuMemsetD2D8Async, "cuMemsetD2D8Async") \
  X(cuMemcpy2D, "cuMemcpy2D_v2") \
  X(cuStreamSynchronize, "cuStreamSynchronize") \
  X(cuCtxSynchronize, "cuCtxSynchronize") \
  X(cuGetErrorName, "cuGetErrorName") \
  X(cuGetErrorString, "cuGetErrorString")

typedef struct cuda {
  void *lib;
  char *path;
  CUdevice device;
  CUcontext ctx;
  bool ctx_retained;
  fr_cublaslt *lt; /* GEMMs; its library is opened on the first one */
  /* Optional (CUDA 12.4): checks a cubin's kernels' parameters. */
  CUresult (*cuFuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);
#define DECLARE(name, sym) pfn_##name name;
  CU_FUNCTIONS(DECLARE)
#undef DECLARE
} cuda;

/* An error for a failed cu* call: its name, the driver's error name and
 * string, and optional detail. */
static fuser_error *cu_error(const cuda *cu, CUresult r, const char *call,
                             const char *detail) {
  const char *name = NULL, *str = NULL;
  if (cu->cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) name = NULL;
  if (cu->cuGetErrorString(r, &str) != CUDA_SUCCESS || !str) str = NULL;
  char unknown[32];
  if (!name) {
    snprintf(unknown, sizeof unknown, "CUresult %d", r);
    name = unknown;
  }
  fuser_error_code code = r == CUDA_ERROR_OUT_OF_MEMORY ? FUSER_ERROR_OUT_OF_MEMORY
                          : r == CUDA_ERROR_NOT_FOUND  ? FUSER_ERROR_NOT_FOUND
                                                       : FUSER_ERROR_DRIVER;
  return fuser_error_create(code, "%s failed: %s (%s)%s", call, name,
                            str ? str : "no description",
                            detail ? detail : "");
}

static fuser_error *cu_enter(void *ctx) {
  cuda *cu = ctx;
  CUresult r = cu->cuCtxPushCurrent(cu->ctx);
  return r ? cu_error(cu, r, "cuCtxPushCurrent_v2", NULL) : NULL;
}

static void cu_leave(void *ctx) {
  cuda *cu = ctx;
  CUcontext old;
  cu->cuCtxPopCurrent(&old);
}

static size_t log_len(const char *log, size_t cap) {
  size_t n = strnlen(log, cap);
  while (n && (log[n - 1] == '\n' || log[n - 1] == ' ')) n--;
  return n;
}

static fuser_error *cu_module_load(void *ctx, const void *image, size_t size,
                                   const char *module_name, void **out) {
  cuda *cu = ctx;
  (void)size;
  char *logs = calloc(2, JIT_LOG_BYTES);
  if (!logs)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of memory for the JIT logs");
  char *err_log = logs, *info_log = logs + JIT_LOG_BYTES;
  CUjit_option opts[4] = {CU_JIT_ERROR_LOG_BUFFER,
                          CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                          CU_JIT_INFO_LOG_BUFFER,
                          CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *vals[4] = {err_log, (void *)(uintptr_t)(JIT_LOG_BYTES - 1), info_log,
                   (void *)(uintptr_t)(JIT_LOG_BYTES - 1)};
  CUmodule mod = NULL;
  CUresult r = cu->cuModuleLoadDataEx(&mod, image, 4, opts, vals);
  fuser_error *e = NULL;
  if (r) {
    size_t el = log_len(err_log, JIT_LOG_BYTES - 1);
    size_t il = log_len(info_log, JIT_LOG_BYTES - 1);
    char *detail = malloc(el + il + 128);
    if (detail) {
      int n = snprintf(detail, el + il + 128, " for module '%.64s'",
                       module_name ? module_name : "?");
      if (el) n += snprintf(detail + n, el + il + 128 - (size_t)n,
                            "; JIT error log:\n%.*s", (int)el, err_log);
      if (il) snprintf(detail + n, el + il + 128 - (size_t)n,
                       "%sJIT info log:\n%.*s", el ? "\n" : "; ", (int)il,
                       info_log);
    }
    e = cu_error(cu, r, "cuModuleLoadDataEx", detail);
    free(detail);
  } else {
    *out = mod;
  }
  free(logs);
  return e;
}

/* A kernel loaded from a cubin takes exactly the parameters its launches
 * pass: cuLaunchKernel reads as many values from the parameter array as
 * the kernel declares, of the sizes it declares, so a cubin that
 * disagreed with its PTX would read past the array. */
static fuser_error *cu_cubin_params(void *ctx, void *function,
                                    const uint32_t *sizes, uint32_t n) {
  cuda *cu = ctx;
  for (uint32_t i = 0; i <= n; i++) {
    size_t offset = 0, size = 0;
    CUresult r = cu->cuFuncGetParamInfo((CUfunction)function, i, &offset, &size);
    if (i == n) {
      if (r == CUDA_SUCCESS)
        return fuser_error_create(FUSER_ERROR_INVALID_BUNDLE,
                                  "the cubin's kernel takes more than the %u "
                                  "parameters of its PTX",
                                  n);
      break;
    }
    if (r) {
      char detail[64];
      snprintf(detail, sizeof detail, " (parameter %u)", i);
      return cu_error(cu, r, "cuFuncGetParamInfo", detail);
    }
    if (size != sizes[i])
      return fuser_error_create(FUSER_ERROR_INVALID_BUNDLE,
                                "the cubin's kernel takes %zu bytes as "
                                "parameter %u, its PTX %u",
                                size, i, sizes[i]);
  }
  return NULL;
}

static void cu_module_unload(void *ctx, void *module) {
  cuda *cu = ctx;
  cu->cuModuleUnload((CUmodule)module);
}

static fuser_error *cu_function_get(void *ctx, void *module, const char *name,
                                    void **out) {
  cuda *cu = ctx;
  CUfunction fn = NULL;
  CUresult r = cu->cuModuleGetFunction(&fn, (CUmodule)module, name);
  if (r) return cu_error(cu, r, "cuModuleGetFunction", NULL);
  *out = fn;
  return NULL;
}

static fuser_error *cu_set_smem(void *ctx, void *function, uint32_t bytes) {
  cuda *cu = ctx;
  CUresult r = cu->cuFuncSetAttribute(
      (CUfunction)function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
      (int)bytes);
  if (r) {
    char detail[96];
    snprintf(detail, sizeof detail,
             " (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = %u)", bytes);
    return cu_error(cu, r, "cuFuncSetAttribute", detail);
  }
  return NULL;
}

static fuser_error *cu_launch(void *ctx, void *function,
                              const fuser_launch_dims *d, void *stream,
                              void **params, const uint32_t *param_sizes,
                              uint32_t num_params) {
  cuda *cu = ctx;
  (void)param_sizes;
  (void)num_params;
  CUresult r = cu->cuLaunchKernel((CUfunction)function, d->grid[0], d->grid[1],
                                  d->grid[2], d->block[0], d->block[1],
                                  d->block[2], d->shared_mem_bytes,
                                  (CUstream)stream, params, NULL);
  if (r) {
    char detail[160];
    snprintf(detail, sizeof detail,
             " (grid %u,%u,%u block %u,%u,%u shared %u bytes)", d->grid[0],
             d->grid[1], d->grid[2], d->block[0], d->block[1], d->block[2],
             d->shared_mem_bytes);
    return cu_error(cu, r, "cuLaunchKernel", detail);
  }
  return NULL;
}

static fuser_error *cu_alloc(void *ctx, size_t bytes, uint64_t *out) {
  cuda *cu = ctx;
  CUdeviceptr p = 0;
  CUresult r = cu->cuMemAlloc(&p, bytes ? bytes : 1);
  if (r) {
    char detail[64];
    snprintf(detail, sizeof detail, " (%zu bytes)", bytes);
    return cu_error(cu, r, "cuMemAlloc_v2", detail);
  }
  *out = p;
  return NULL;
}

static fuser_error *cu_free(void *ctx, uint64_t ptr) {
  cuda *cu = ctx;
  CUresult r = cu->cuMemFree((CUdeviceptr)ptr);
  return r ? cu_error(cu, r, "cuMemFree_v2", NULL) : NULL;
}

static fuser_error *cu_h2d(void *ctx, uint64_t dst, const void *src,
                           size_t bytes) {
  cuda *cu = ctx;
  CUresult r = cu->cuMemcpyHtoD((CUdeviceptr)dst, src, bytes);
  return r ? cu_error(cu, r, "cuMemcpyHtoD_v2", NULL) : NULL;
}

static fuser_error *cu_d2h(void *ctx, void *dst, uint64_t src, size_t bytes) {
  cuda *cu = ctx;
  CUresult r = cu->cuMemcpyDtoH(dst, (CUdeviceptr)src, bytes);
  return r ? cu_error(cu, r, "cuMemcpyDtoH_v2", NULL) : NULL;
}

/* A sharded fusion's SLICE, and a collective among one device. */
static fuser_error *cu_d2d(void *ctx, uint64_t dst, uint64_t src,
                           size_t bytes, void *stream) {
  cuda *cu = ctx;
  CUresult r = cu->cuMemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src,
                                     bytes, (CUstream)stream);
  return r ? cu_error(cu, r, "cuMemcpyDtoDAsync_v2", NULL) : NULL;
}

static fuser_error *cu_zero(void *ctx, uint64_t ptr, size_t bytes,
                           void *stream) {
  cuda *cu = ctx;
  CUresult r = cu->cuMemsetD8Async((CUdeviceptr)ptr, 0, bytes, (CUstream)stream);
  return r ? cu_error(cu, r, "cuMemsetD8Async", NULL) : NULL;
}

static fuser_error *cu_sync(void *ctx, void *stream, int whole_device) {
  cuda *cu = ctx;
  if (whole_device) {
    CUresult r = cu->cuCtxSynchronize();
    return r ? cu_error(cu, r, "cuCtxSynchronize", NULL) : NULL;
  }
  CUresult r = cu->cuStreamSynchronize((CUstream)stream);
  return r ? cu_error(cu, r, "cuStreamSynchronize", NULL) : NULL;
}

/* ---- GEMM --------------------------------------------------------------- */

/* The epilogue's activation of one row of `n` values of `dtype`, in place:
 * relu keeps -0 and NaN (as PyTorch's); gelu is tanh's approximation, in
 * f32 (f64 for f64) as cuBLASLt computes it. */
static double activate(double x, uint32_t epilogue, bool f64) {
  if (epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_RELU) return x < 0 ? 0.0 : x;
  if (f64) return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  float v = (float)x;
  return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}
static void activate_row(unsigned char *row, uint64_t n, uint32_t dtype,
                         uint32_t epilogue) {
  for (uint64_t j = 0; j < n; j++) {
    switch (dtype) {
    case FUSER_DTYPE_F64: {
      double v;
      memcpy(&v, row + 8 * j, 8);
      v = activate(v, epilogue, true);
      memcpy(row + 8 * j, &v, 8);
      break;
    }
    case FUSER_DTYPE_F32: {
      float v;
      memcpy(&v, row + 4 * j, 4);
      v = (float)activate(v, epilogue, false);
      memcpy(row + 4 * j, &v, 4);
      break;
    }
    default: { /* f16, bf16 */
      uint16_t h;
      memcpy(&h, row + 2 * j, 2);
      bool bf = dtype == FUSER_DTYPE_BF16;
      float v = bf ? fp_bf16_to_float(h) : fp_half_to_float(h);
      v = (float)activate(v, epilogue, false);
      h = bf ? fp_float_to_bf16(v) : fp_float_to_half(v);
      memcpy(row + 2 * j, &h, 2);
    }
    }
  }
}

/* k == 0: D = epilogue(an empty sum) = 0, or the bias in every row (with
 * the bias bit of `epilogue`: a bias gradient's buffer is written by
 * cu_gemm, never read), without cuBLASLt (which may refuse an empty
 * product). D's rows are ldd elements
 * apart and the bytes between them may be another tensor's, so the writes
 * are 2D, row by row: zeros with cuMemsetD2D8Async on the stream; the bias,
 * after waiting for the stream, with cuMemcpy2D_v2 from a host block of
 * whole bias rows (their activation applied: relu and gelu of 0 are 0) (at
 * least 1 MiB or one row per copy). That wait is the
 * price of a case that is rare (a linear layer without input features). */
static fuser_error *cu_gemm_empty(cuda *cu, const fuser_gemm *g,
                                  void *stream, uint64_t dst,
                                  uint32_t epilogue) {
  uint64_t esz = fuser_dtype_size((fuser_dtype)g->d_dtype);
  uint64_t width = (uint64_t)g->n * esz, pitch, bstride, rows = (uint64_t)g->m,
           mats = (uint64_t)g->batch, whole;
  /* run.c checked that D lies inside its buffer, so its last row and
   * batch are addressable; one more row's pitch may not be. */
  if (__builtin_mul_overflow((uint64_t)g->ldd, esz, &pitch) ||
      __builtin_mul_overflow((uint64_t)g->stride_d, esz, &bstride))
    return fuser_error_create(FUSER_ERROR_OUT_OF_RANGE,
                              "GEMM with k = 0: D's strides overflow");
  /* Batches that follow each other at the rows' pitch are one matrix. */
  if (mats > 1 && !__builtin_mul_overflow(rows, pitch, &whole) &&
      whole == bstride) {
    rows *= mats;
    mats = 1;
  }
  CUresult r;
  if (!(epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BIAS)) {
    for (uint64_t b = 0; b < mats; b++)
      if ((r = cu->cuMemsetD2D8Async((CUdeviceptr)(dst + b * bstride),
                                     (size_t)pitch, 0, (size_t)width,
                                     (size_t)rows, (CUstream)stream)))
        return cu_error(cu, r, "cuMemsetD2D8Async",
                        " (zeroing D of a GEMM with k = 0)");
    return NULL;
  }
  uint64_t per = width >= (1u << 20) ? 1 : (1u << 20) / width;
  if (per > rows) per = rows;
  unsigned char *block = malloc((size_t)(per * width));
  if (!block)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "no host memory for the %" PRIu64
                              " bytes of bias rows of a GEMM with k = 0",
                              per * width);
  if ((r = cu->cuStreamSynchronize((CUstream)stream))) {
    free(block);
    return cu_error(cu, r, "cuStreamSynchronize",
                    " (before writing the bias rows of a GEMM with k = 0)");
  }
  if ((r = cu->cuMemcpyDtoH(block, (CUdeviceptr)g->bias, (size_t)width))) {
    free(block);
    return cu_error(cu, r, "cuMemcpyDtoH_v2",
                    " (reading the bias of a GEMM with k = 0)");
  }
  if (epilogue & (FUSER_BUNDLE_GEMM_EPILOGUE_RELU | FUSER_BUNDLE_GEMM_EPILOGUE_GELU))
    activate_row(block, (uint64_t)g->n, g->d_dtype, epilogue);
  for (uint64_t k = 1; k < per; k++)
    memcpy(block + k * width, block, (size_t)width);
  CUDA_MEMCPY2D cp;
  memset(&cp, 0, sizeof cp);
  cp.srcMemoryType = CU_MEMORYTYPE_HOST;
  cp.srcHost = block;
  cp.srcPitch = (size_t)width;
  cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.dstPitch = (size_t)pitch;
  cp.WidthInBytes = (size_t)width;
  for (uint64_t b = 0; b < mats; b++)
    for (uint64_t row = 0; row < rows; row += per) {
      cp.dstDevice = (CUdeviceptr)(dst + b * bstride + row * pitch);
      cp.Height = (size_t)(rows - row < per ? rows - row : per);
      if ((r = cu->cuMemcpy2D(&cp))) {
        free(block);
        return cu_error(cu, r, "cuMemcpy2D_v2",
                        " (writing the bias rows of a GEMM with k = 0)");
      }
    }
  free(block);
  return NULL;
}

static fuser_error *cu_gemm(void *ctx, const fuser_gemm *g, void *stream) {
  cuda *cu = ctx;
  if (g->k == 0) {
    /* D gets the activated rows; the pre-activation (AUX), laid out as D,
     * the rows before the activation. */
    fuser_error *e = cu_gemm_empty(cu, g, stream, g->d, g->epilogue);
    if (!e && (g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_AUX))
      e = cu_gemm_empty(cu, g, stream, g->aux,
                        g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BIAS);
    /* A bias gradient of an empty sum: m (of A) or n (of B) zeros of D's
     * dtype, contiguous, one row of the 2D memset. */
    if (!e && FR_GEMM_BGRAD(g->epilogue)) {
      size_t width = (size_t)(g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A
                                  ? g->m
                                  : g->n) *
                     fuser_dtype_size((fuser_dtype)g->d_dtype);
      CUresult r = cu->cuMemsetD2D8Async((CUdeviceptr)g->bias, width, 0,
                                         width, 1, (CUstream)stream);
      if (r)
        e = cu_error(cu, r, "cuMemsetD2D8Async",
                     " (zeroing the bias gradient of a GEMM with k = 0)");
    }
    return e;
  }
  return fr_cublaslt_gemm(cu->lt, g, stream);
}

static void cu_close(cuda *cu) {
  if (cu->lt) {
    /* Its handle goes with the context current, as it was made. */
    CUcontext old;
    bool pushed = cu->ctx_retained && cu->cuCtxPushCurrent(cu->ctx) == 0;
    fr_cublaslt_destroy(cu->lt);
    if (pushed) cu->cuCtxPopCurrent(&old);
  }
  if (cu->ctx_retained) cu->cuDevicePrimaryCtxRelease(cu->device);
  if (cu->lib) dlclose(cu->lib);
  free(cu->path);
  free(cu);
}

static void cu_destroy(void *ctx) { cu_close(ctx); }

fuser_error *fr_cuda_open(const fuser_rt_options *options, fuser_rt *rt) {
  const char *path = options->cuda_driver_path;
  const char *env = getenv("FUSER_CUDA_DRIVER");
  if (!path || !*path) path = env && *env ? env : "libcuda.so.1";
  cuda *cu = calloc(1, sizeof *cu);
  if (!cu)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of memory opening the CUDA driver");
  cu->path = malloc(strlen(path) + 1);
  if (!cu->path) {
    free(cu);
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "out of memory opening the CUDA driver");
  }
  strcpy(cu->path, path);
  dlerror();
  cu->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!cu->lib) {
    const char *why = dlerror();
    fuser_error *e = fuser_error_create(
        FUSER_ERROR_DRIVER_UNAVAILABLE,
        "cannot load the CUDA driver '%s': %s (set FUSER_CUDA_DRIVER or the "
        "cuda_driver_path option to use another library)",
        path, why ? why : "unknown dlopen error");
    cu_close(cu);
    return e;
  }
#define RESOLVE(name, sym)                                             \
  {                                                                          \
    void *p = dlsym(cu->lib, sym);                                           \
    if (!p) {                                                                \
      fuser_error *e = fuser_error_create(                                   \
          FUSER_ERROR_DRIVER_UNAVAILABLE,                                    \
          "the CUDA driver '%s' does not export %s (driver too old, or not " \
          "a CUDA driver)",                                                  \
          path, sym);                                                        \
      cu_close(cu);                                                          \
      return e;                                                              \
    }                                                                        \
    memcpy(&cu->name, &p, sizeof p);                                         \
  }
  CU_FUNCTIONS(RESOLVE)
#undef RESOLVE

  CUresult r = cu->cuInit(0);
  fuser_error *e = NULL;
  int count = 0;
  if (r) {
    e = cu_error(cu, r, "cuInit", NULL);
  } else if ((r = cu->cuDeviceGetCount(&count))) {
    e = cu_error(cu, r, "cuDeviceGetCount", NULL);
  } else if (options->device_ordinal < 0 ||
             options->device_ordinal >= count) {
    e = fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                           "CUDA device ordinal %d is out of range (%d "
                           "device%s)",
                           options->device_ordinal, count,
                           count == 1 ? "" : "s");
  } else if ((r = cu->cuDeviceGet(&cu->device, options->device_ordinal))) {
    e = cu_error(cu, r, "cuDeviceGet", NULL);
  } else if ((r = cu->cuDevicePrimaryCtxRetain(&cu->ctx, cu->device))) {
    e = cu_error(cu, r, "cuDevicePrimaryCtxRetain", NULL);
  } else {
    cu->ctx_retained = true;
    if (!(cu->lt = fr_cublaslt_new()))
      e = fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                             "out of memory opening the CUDA driver");
  }
  if (e) {
    cu_close(cu);
    return fr_error_wrap(e, "CUDA driver '%s'", path);
  }
  fuser_driver *t = &rt->own_table;
  memset(t, 0, sizeof *t);
  t->module_kind = FUSER_MODULE_PTX;
  t->name = "cuda";
  t->enter = cu_enter;
  t->leave = cu_leave;
  t->module_load = cu_module_load;
  t->module_unload = cu_module_unload;
  t->function_get = cu_function_get;
  t->function_set_max_dynamic_shared = cu_set_smem;
  t->launch = cu_launch;
  t->mem_alloc = cu_alloc;
  t->mem_free = cu_free;
  t->copy_h2d = cu_h2d;
  t->copy_d2h = cu_d2h;
  t->mem_zero = cu_zero;
  t->synchronize = cu_sync;
  t->destroy = cu_destroy;
  t->gemm = cu_gemm;
  t->copy_d2d = cu_d2d;
  rt->dctx = cu;
  rt->gemm_workspace_bytes = FUSER_GEMM_WORKSPACE_BYTES;
  /* The compute capability picks a bundle's cubin for this device
   * (docs/runtime.md, "Cubins"), whose kernels' parameters
   * cuFuncGetParamInfo (CUDA 12.4) lets the runtime check. Optional: a
   * driver without both loads PTX, as before. */
  typedef CUresult (*pfn_attr)(int *, int, CUdevice);
  pfn_attr attr;
  void *p = dlsym(cu->lib, "cuDeviceGetAttribute");
  memcpy(&attr, &p, sizeof p);
  p = dlsym(cu->lib, "cuFuncGetParamInfo");
  memcpy(&cu->cuFuncGetParamInfo, &p, sizeof p);
  int major = 0, minor = 0;
  if (attr && cu->cuFuncGetParamInfo &&
      !attr(&major, 75 /* COMPUTE_CAPABILITY_MAJOR */, cu->device) &&
      !attr(&minor, 76 /* COMPUTE_CAPABILITY_MINOR */, cu->device) &&
      major > 0 && minor >= 0 && minor < 10) {
    rt->device_sm = (uint32_t)(major * 10 + minor);
    rt->cubin_params = cu_cubin_params;
  }
  return NULL;
}
