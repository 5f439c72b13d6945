/*
 * libfuser_fake_cuda.so: a stand-in for libcuda.so.1 that the runtime loads
 * through FUSER_CUDA_DRIVER (or the cuda_driver_path option). It exports
 * the cu* entry points the runtime uses, serves host memory as device
 * memory, and records every call, one line each, to the file named by
 * FUSER_FAKE_LOG (docs/runtime.md lists the line format).
 *
 * Environment, read at every cuInit:
 *   FUSER_FAKE_LOG=path       append the call log there (unset: no log)
 *   FUSER_FAKE_FAIL=a,b,...   inject failures:
 *       init               cuInit fails (CUDA_ERROR_NO_DEVICE)
 *       ctx                cuDevicePrimaryCtxRetain fails
 *       push               cuCtxPushCurrent_v2 fails
 *       module_load        cuModuleLoadDataEx fails with a JIT error log
 *       get_function       cuModuleGetFunction fails
 *       set_attribute      cuFuncSetAttribute fails
 *       launch             every cuLaunchKernel fails
 *       launch:N           the N-th cuLaunchKernel (from 1) fails
 *       oom                every cuMemAlloc_v2 fails
 *       oom_live:N         cuMemAlloc_v2 fails while N allocations are live
 *       oom_above:N        cuMemAlloc_v2 fails for more than N bytes (a
 *                          fuzzed plan's ALLOC of terabytes)
 *       memcpy             the copies fail (cuMemcpy2D_v2 and
 *                          cuMemcpyDtoDAsync_v2 too)
 *       memset             cuMemsetD8Async and cuMemsetD2D8Async fail
 *       sync               cuStreamSynchronize/cuCtxSynchronize fail
 *   FUSER_FAKE_INDEX_ERROR=P,SITE,ELEMENT,VALUE,BOUND
 *                             every cuLaunchKernel writes an index error
 *                             report (docs/bundle.md, INDEX_CHECK) into the
 *                             buffer its pointer parameter P points at, as
 *                             a kernel that met an index out of range does
 *   FUSER_FAKE_DEVICES=n      number of devices (default 1)
 *   FUSER_FAKE_LOAD_DELAY_MS=n  cuModuleLoadDataEx sleeps (races in tests)
 *   FUSER_FAKE_CC=M.m         the compute capability cuDeviceGetAttribute
 *                             reports (unset: the query fails, as on a
 *                             driver that has none)
 *
 * cuModuleLoadDataEx takes an ELF image (a cubin) as well as PTX text: its
 * entries are the names of its `.text.NAME` sections (NAME not starting
 * with "__cuda"), with unknown parameters; FUSER_FAKE_FAIL=cubin_load makes
 * such a load fail with CUDA_ERROR_NO_BINARY_FOR_GPU.
 *
 * Built with -DFAKE_OMIT_LAUNCH it does not export cuLaunchKernel (for the
 * missing-symbol test).
 *
 * Like the real driver it insists that a context is current (pushed) on
 * the calling thread for module, memory and launch calls, and that a launch
 * needing more than 48 KiB of dynamic shared memory was allowed by
 * cuFuncSetAttribute first.
 */
#include "../../runtime/src/internal.h" /* fr_ptx_scan */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;
typedef int CUjit_option;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
};

static const struct {
  int code;
  const char *name, *text;
} error_table[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED",
     "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE",
     "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
     "invalid device context"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
     "operation not supported"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
     "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE",
     "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
};

/* ---- state ------------------------------------------------------------- */

typedef struct alloc_rec {
  uint64_t base, size;
  unsigned id;
  void *mem;
} alloc_rec;

typedef struct fake_module {
  unsigned id;
  char *text;
  int num_entries;
  fr_ptx_entry *entries;
  int live;
} fake_module;

typedef struct fake_function {
  fake_module *module;
  int entry;
  char *name;
  int max_dynamic_shared;
} fake_function;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;
static char log_path[1024];
static char fail_spec[256];
/* FUSER_FAKE_INDEX_ERROR: the pointer parameter and the words to write. */
static int index_error_param = -1;
static int64_t index_error[5] = {1};
static int num_devices = 1;
static int load_delay_ms;
static int cc_major = -1, cc_minor = -1; /* FUSER_FAKE_CC */
static int initialized;
static long launch_count, oom_live = -1, oom_above = -1, fail_launch_n = -1;
static unsigned next_buf_id, next_module_id;
static alloc_rec *allocs;
static size_t num_allocs, cap_allocs;
static fake_module **modules;
static size_t num_modules;
static fake_function **functions;
static size_t num_functions;
static int ctx_refs;
static _Thread_local int ctx_depth;
static const char ctx_token = 'C'; /* the primary context's address */

static bool failing(const char *what) {
  size_t n = strlen(what);
  for (const char *p = fail_spec; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && memcmp(p, what, n) == 0) return true;
    p += len;
    if (*p == ',') p++;
  }
  return false;
}

static long fail_number(const char *what) {
  size_t n = strlen(what);
  for (const char *p = fail_spec; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > n + 1 && memcmp(p, what, n) == 0 && p[n] == ':')
      return strtol(p + n + 1, NULL, 10);
    p += len;
    if (*p == ',') p++;
  }
  return -1;
}

static void logf_locked(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
static void logf_locked(const char *format, ...) {
  if (!log_file) return;
  va_list ap;
  va_start(ap, format);
  vfprintf(log_file, format, ap);
  va_end(ap);
  fputc('\n', log_file);
  fflush(log_file);
}

static const char *err_name(CUresult r) {
  for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
    if (error_table[i].code == r) return error_table[i].name;
  return "CUDA_ERROR_UNKNOWN";
}

/* Logs "<line> -> <error name>" for a failing call, and returns r. */
static CUresult failed(CUresult r, const char *call) {
  logf_locked("%s -> %s", call, err_name(r));
  return r;
}

static CUresult need_context(const char *call) {
  if (!initialized) return failed(CUDA_ERROR_NOT_INITIALIZED, call);
  if (ctx_depth <= 0) return failed(CUDA_ERROR_INVALID_CONTEXT, call);
  return CUDA_SUCCESS;
}

static alloc_rec *find_alloc(uint64_t p) {
  for (size_t i = 0; i < num_allocs; i++) {
    uint64_t end = allocs[i].base + (allocs[i].size ? allocs[i].size : 1);
    if (p >= allocs[i].base && p < end) return &allocs[i];
  }
  return NULL;
}

/* "buf3", "buf3+256", or the value as a signed integer. */
static void fmt_value(char *out, size_t cap, uint64_t v) {
  alloc_rec *a = find_alloc(v);
  if (a && v == a->base)
    snprintf(out, cap, "buf%u", a->id);
  else if (a)
    snprintf(out, cap, "buf%u+%" PRIu64, a->id, v - a->base);
  else
    snprintf(out, cap, "%" PRId64, (int64_t)v);
}

/* ---- exported API -------------------------------------------------------- */

EXPORT CUresult cuGetErrorName(CUresult r, const char **out) {
  for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
    if (error_table[i].code == r) {
      *out = error_table[i].name;
      return CUDA_SUCCESS;
    }
  *out = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuGetErrorString(CUresult r, const char **out) {
  for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
    if (error_table[i].code == r) {
      *out = error_table[i].text;
      return CUDA_SUCCESS;
    }
  *out = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuInit(unsigned flags) {
  pthread_mutex_lock(&lock);
  const char *lp = getenv("FUSER_FAKE_LOG");
  if (!lp) lp = "";
  if (strcmp(lp, log_path) != 0 || (!log_file && *lp)) {
    if (log_file) fclose(log_file);
    log_file = NULL;
    snprintf(log_path, sizeof log_path, "%s", lp);
    if (*lp) log_file = fopen(lp, "a");
  }
  const char *f = getenv("FUSER_FAKE_FAIL");
  snprintf(fail_spec, sizeof fail_spec, "%s", f ? f : "");
  const char *ie = getenv("FUSER_FAKE_INDEX_ERROR");
  index_error_param = -1;
  if (ie && sscanf(ie, "%d,%" SCNd64 ",%" SCNd64 ",%" SCNd64 ",%" SCNd64,
                   &index_error_param, &index_error[1], &index_error[2],
                   &index_error[3], &index_error[4]) != 5)
    index_error_param = -1;
  const char *d = getenv("FUSER_FAKE_DEVICES");
  num_devices = d ? atoi(d) : 1;
  const char *ld = getenv("FUSER_FAKE_LOAD_DELAY_MS");
  load_delay_ms = ld ? atoi(ld) : 0;
  const char *cc = getenv("FUSER_FAKE_CC");
  cc_major = cc_minor = -1;
  if (cc && sscanf(cc, "%d.%d", &cc_major, &cc_minor) != 2) cc_major = -1;
  oom_live = fail_number("oom_live");
  oom_above = fail_number("oom_above");
  fail_launch_n = fail_number("launch");
  launch_count = 0;
  /* Fresh names when nothing of an earlier runtime is alive. */
  bool any_module = false;
  for (size_t i = 0; i < num_modules; i++)
    if (modules[i]->live) any_module = true;
  if (num_allocs == 0) next_buf_id = 0;
  if (!any_module) next_module_id = 0;
  logf_locked("cuInit flags=%u", flags);
  CUresult r = CUDA_SUCCESS;
  if (failing("init"))
    r = failed(CUDA_ERROR_NO_DEVICE, "cuInit");
  else
    initialized = 1;
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT CUresult cuDeviceGetCount(int *count) {
  pthread_mutex_lock(&lock);
  CUresult r = CUDA_SUCCESS;
  if (!initialized) {
    r = failed(CUDA_ERROR_NOT_INITIALIZED, "cuDeviceGetCount");
  } else {
    *count = num_devices;
    logf_locked("cuDeviceGetCount -> %d", num_devices);
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
  pthread_mutex_lock(&lock);
  CUresult r = CUDA_SUCCESS;
  logf_locked("cuDeviceGet ordinal=%d", ordinal);
  if (ordinal < 0 || ordinal >= num_devices)
    r = failed(CUDA_ERROR_INVALID_DEVICE, "cuDeviceGet");
  else
    *dev = ordinal;
  pthread_mutex_unlock(&lock);
  return r;
}

/* Not logged: the runtime asks once at creation, and only FUSER_FAKE_CC
 * makes it answer. */
EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice dev) {
  pthread_mutex_lock(&lock);
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (cc_major >= 0 && dev >= 0 && dev < num_devices &&
      (attribute == 75 || attribute == 76)) {
    *value = attribute == 75 ? cc_major : cc_minor;
    r = CUDA_SUCCESS;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

/* An ELF image's size, from its header: where its section or program
 * header table ends, whichever is last (a cubin ends with them). */
static size_t elf_size(const unsigned char *p) {
  uint64_t shoff, phoff;
  uint16_t phentsize, phnum, shentsize, shnum;
  memcpy(&phoff, p + 0x20, 8);
  memcpy(&shoff, p + 0x28, 8);
  memcpy(&phentsize, p + 0x36, 2);
  memcpy(&phnum, p + 0x38, 2);
  memcpy(&shentsize, p + 0x3A, 2);
  memcpy(&shnum, p + 0x3C, 2);
  uint64_t a = shoff + (uint64_t)shentsize * shnum;
  uint64_t b = phoff + (uint64_t)phentsize * phnum;
  return (size_t)(a > b ? a : b);
}

static void set_params(fr_ptx_entry *e, const uint32_t *sizes, int n) {
  e->param_sizes = malloc((size_t)n * 5 + 1);
  if (!e->param_sizes) return;
  e->param_is_ptr = (unsigned char *)(e->param_sizes + n);
  for (int j = 0; j < n; j++) {
    e->param_sizes[j] = sizes[j];
    e->param_is_ptr[j] = sizes[j] == 8;
  }
  e->num_params = n;
}

/* A real cubin's parameter sizes for kernel e: the EIATTR_KPARAM_INFO
 * records (attribute 0x17, 12 bytes: index, ordinal, offset, and the size
 * in bits 18-31 of the last word) of its section ".nv.info.NAME", as
 * ptxas writes them. Bounds are checked against the image's `size`. */
static void nv_info_params(const unsigned char *p, size_t size, fr_ptx_entry *e) {
  uint64_t shoff;
  uint16_t shentsize, shnum, shstrndx;
  memcpy(&shoff, p + 0x28, 8);
  memcpy(&shentsize, p + 0x3A, 2);
  memcpy(&shnum, p + 0x3C, 2);
  memcpy(&shstrndx, p + 0x3E, 2);
  if (shentsize < 64 || shstrndx >= shnum || shoff > size ||
      (uint64_t)shnum * shentsize > size - shoff)
    return;
  uint64_t strtab;
  memcpy(&strtab, p + shoff + (uint64_t)shstrndx * shentsize + 0x18, 8);
  char want[300];
  snprintf(want, sizeof want, ".nv.info.%.*s", (int)e->name_len, e->name);
  for (uint16_t i = 0; i < shnum; i++) {
    const unsigned char *sh = p + shoff + (uint64_t)i * shentsize;
    uint32_t name;
    uint64_t off, len;
    memcpy(&name, sh, 4);
    memcpy(&off, sh + 0x18, 8);
    memcpy(&len, sh + 0x20, 8);
    if (strtab + name >= size || off > size || len > size - off ||
        strncmp((const char *)p + strtab + name, want, size - strtab - name) != 0)
      continue;
    uint32_t sizes[64];
    int n = 0;
    for (uint64_t at = 0; at + 4 <= len;) {
      uint8_t fmt = p[off + at], attr = p[off + at + 1];
      uint16_t vlen;
      memcpy(&vlen, p + off + at + 2, 2);
      if (fmt != 4) { /* EIFMT_SVAL has a payload; the others are 4 bytes */
        at += 4;
        continue;
      }
      if (attr == 0x17 && vlen >= 12 && at + 4 + vlen <= len) {
        uint16_t ordinal;
        uint32_t word;
        memcpy(&ordinal, p + off + at + 8, 2);
        memcpy(&word, p + off + at + 12, 4);
        if (ordinal < 64) {
          sizes[ordinal] = (word >> 18) & 0x3fff;
          if (ordinal + 1 > n) n = ordinal + 1;
        }
      }
      at += 4 + (uint64_t)vlen;
    }
    set_params(e, sizes, n);
    return;
  }
}

/* The sizes a "fake.params.NAME=S,S,..." string of a fake cubin gives
 * kernel NAME, else those of a real cubin's .nv.info section; a kernel
 * with neither has unknown parameters (cuFuncGetParamInfo says it is not
 * supported). */
static void cubin_params(const char *image, size_t size, fr_ptx_entry *e) {
  char key[300];
  int k = snprintf(key, sizeof key, "fake.params.%.*s=", (int)e->name_len, e->name);
  if (k <= 0 || (size_t)k >= sizeof key) return;
  for (size_t i = 0; i + (size_t)k < size; i++) {
    if (memcmp(image + i, key, (size_t)k) != 0) continue;
    const char *p = image + i + k;
    int n = 0;
    uint32_t sizes[64];
    while (n < 64 && *p >= '0' && *p <= '9') {
      uint32_t v = 0;
      while (*p >= '0' && *p <= '9') v = v * 10 + (uint32_t)(*p++ - '0');
      sizes[n++] = v;
      if (*p == ',') p++;
    }
    set_params(e, sizes, n);
    return;
  }
  nv_info_params((const unsigned char *)image, size, e);
}

/* The kernels of a cubin: its ".text.NAME" strings, once each. */
static int cubin_entries(const char *image, size_t size, fr_ptx_entry **out) {
  int n = 0;
  fr_ptx_entry *e = NULL;
  for (size_t i = 0; i + 6 < size; i++) {
    if ((i && image[i - 1]) || memcmp(image + i, ".text.", 6) != 0) continue;
    const char *name = image + i + 6;
    size_t len = strnlen(name, size - i - 6);
    if (!len || strncmp(name, "__cuda", 6) == 0) continue;
    bool seen = false;
    for (int k = 0; k < n; k++)
      if (e[k].name_len == len && memcmp(e[k].name, name, len) == 0) seen = true;
    if (seen) continue;
    fr_ptx_entry *grown = realloc(e, sizeof *e * (size_t)(n + 1));
    if (!grown) break;
    e = grown;
    memset(&e[n], 0, sizeof *e);
    e[n].name = name;
    e[n].name_len = len;
    e[n].num_params = -1;
    cubin_params(image, size, &e[n]);
    n++;
  }
  *out = e;
  return n;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  pthread_mutex_lock(&lock);
  logf_locked("cuDevicePrimaryCtxRetain device=%d", dev);
  CUresult r = CUDA_SUCCESS;
  if (failing("ctx")) {
    r = failed(CUDA_ERROR_INVALID_DEVICE, "cuDevicePrimaryCtxRetain");
  } else {
    *ctx = (CUcontext)(uintptr_t)&ctx_token;
    ctx_refs++;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  pthread_mutex_lock(&lock);
  logf_locked("cuDevicePrimaryCtxRelease_v2 device=%d", dev);
  CUresult r = CUDA_SUCCESS;
  if (ctx_refs <= 0)
    r = failed(CUDA_ERROR_INVALID_CONTEXT, "cuDevicePrimaryCtxRelease_v2");
  else
    ctx_refs--;
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  pthread_mutex_lock(&lock);
  CUresult r = CUDA_SUCCESS;
  logf_locked("cuCtxPushCurrent_v2");
  if (failing("push") || ctx != (CUcontext)(uintptr_t)&ctx_token ||
      ctx_refs <= 0)
    r = failed(CUDA_ERROR_INVALID_CONTEXT, "cuCtxPushCurrent_v2");
  else
    ctx_depth++;
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *ctx) {
  pthread_mutex_lock(&lock);
  CUresult r = CUDA_SUCCESS;
  logf_locked("cuCtxPopCurrent_v2");
  if (ctx_depth <= 0) {
    r = failed(CUDA_ERROR_INVALID_CONTEXT, "cuCtxPopCurrent_v2");
  } else {
    ctx_depth--;
    if (ctx) *ctx = (CUcontext)(uintptr_t)&ctx_token;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

static uint32_t fnv1a(const unsigned char *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

EXPORT CUresult cuModuleLoadDataEx(CUmodule *out, const void *image,
                                   unsigned num_options, CUjit_option *options,
                                   void **values) {
  if (load_delay_ms > 0) {
    struct timespec ts = {load_delay_ms / 1000,
                          (long)(load_delay_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuModuleLoadDataEx");
  if (r) goto done;
  const char *text = image;
  /* Byte by byte: a PTX image may be shorter than the magic. */
  const unsigned char *u = image;
  bool cubin = u[0] == 0x7f && u[1] == 'E' && u[2] == 'L' && u[3] == 'F' &&
               u[4] == 2 /* 64-bit */;
  size_t len = cubin ? elf_size(image) : strlen(text);
  if (cubin && (len < 64 || len > ((size_t)64 << 20))) {
    logf_locked("cuModuleLoadDataEx cubin bytes=%zu -> %s", len,
                err_name(CUDA_ERROR_INVALID_IMAGE));
    r = CUDA_ERROR_INVALID_IMAGE;
    goto done;
  }
  char *err_log = NULL, *info_log = NULL;
  size_t err_cap = 0, info_cap = 0;
  for (unsigned i = 0; i < num_options; i++) {
    switch (options[i]) {
    case 3: info_log = values[i]; break;
    case 4: info_cap = (size_t)(uintptr_t)values[i]; break;
    case 5: err_log = values[i]; break;
    case 6: err_cap = (size_t)(uintptr_t)values[i]; break;
    default: break;
    }
  }
  if (cubin && failing("cubin_load")) {
    logf_locked("cuModuleLoadDataEx cubin bytes=%zu fnv=%08x -> %s", len,
                fnv1a(image, len), err_name(CUDA_ERROR_NO_BINARY_FOR_GPU));
    r = CUDA_ERROR_NO_BINARY_FOR_GPU;
    goto done;
  }
  if (failing("module_load")) {
    if (err_log && err_cap)
      snprintf(err_log, err_cap,
               "ptxas application ptx input, line 1; fatal   : fake JIT "
               "failure injected by FUSER_FAKE_FAIL=module_load");
    if (info_log && info_cap)
      snprintf(info_log, info_cap, "info    : fake JIT info log");
    logf_locked("cuModuleLoadDataEx bytes=%zu fnv=%08x -> %s", len + 1,
                fnv1a(image, len + 1), err_name(CUDA_ERROR_INVALID_PTX));
    r = CUDA_ERROR_INVALID_PTX;
    goto done;
  }
  fake_module *m = calloc(1, sizeof *m);
  m->text = malloc(len + 1);
  if (!m->text) abort();
  memcpy(m->text, text, len);
  m->text[len] = 0;
  m->num_entries = cubin ? cubin_entries(m->text, len, &m->entries)
                         : fr_ptx_scan(m->text, len, &m->entries);
  m->id = next_module_id++;
  m->live = 1;
  modules = realloc(modules, sizeof *modules * (num_modules + 1));
  modules[num_modules++] = m;
  char names[512];
  size_t n = 0;
  names[0] = 0;
  for (int i = 0; i < m->num_entries && n + 1 < sizeof names; i++)
    n += (size_t)snprintf(names + n, sizeof names - n, "%s%.*s",
                          i ? "," : "", (int)m->entries[i].name_len,
                          m->entries[i].name);
  if (cubin)
    logf_locked("cuModuleLoadDataEx module=m%u cubin bytes=%zu fnv=%08x "
                "entries=%s",
                m->id, len, fnv1a(image, len), names);
  else
    logf_locked("cuModuleLoadDataEx module=m%u bytes=%zu fnv=%08x entries=%s",
                m->id, len + 1, fnv1a(image, len + 1), names);
  if (info_log && info_cap) info_log[0] = 0;
  if (err_log && err_cap) err_log[0] = 0;
  *out = m;
done:
  pthread_mutex_unlock(&lock);
  return r;
}

static fake_module *live_module(void *h) {
  for (size_t i = 0; i < num_modules; i++)
    if (modules[i] == h && modules[i]->live) return modules[i];
  return NULL;
}

EXPORT CUresult cuModuleUnload(CUmodule h) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuModuleUnload");
  fake_module *m = live_module(h);
  if (!r && !m) r = failed(CUDA_ERROR_INVALID_HANDLE, "cuModuleUnload");
  if (!r) {
    logf_locked("cuModuleUnload module=m%u", m->id);
    m->live = 0;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

/* Parameter i of a function: its size from the PTX's .entry, or from a
 * fake cubin's "fake.params.NAME=..." string; not logged. A kernel whose
 * parameters are unknown (a real cubin's) answers
 * CUDA_ERROR_NOT_SUPPORTED; past the last one, CUDA_ERROR_INVALID_VALUE. */
EXPORT CUresult cuFuncGetParamInfo(CUfunction fn, size_t i, size_t *offset,
                                   size_t *size) {
  pthread_mutex_lock(&lock);
  fake_function *f = fn;
  const fr_ptx_entry *e = &f->module->entries[f->entry];
  CUresult r = CUDA_SUCCESS;
  if (e->num_params < 0) {
    r = CUDA_ERROR_NOT_SUPPORTED;
  } else if (i >= (size_t)e->num_params) {
    r = CUDA_ERROR_INVALID_VALUE;
  } else {
    size_t at = 0;
    for (size_t k = 0; k <= i; k++) {
      size_t s = e->param_sizes[k];
      at = (at + s - 1) / s * s;
      if (k < i) at += s;
    }
    *offset = at;
    *size = e->param_sizes[i];
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT CUresult cuModuleGetFunction(CUfunction *out, CUmodule h,
                                    const char *name) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuModuleGetFunction");
  fake_module *m = live_module(h);
  if (!r && !m) r = failed(CUDA_ERROR_INVALID_HANDLE, "cuModuleGetFunction");
  if (r) goto done;
  logf_locked("cuModuleGetFunction module=m%u name=%s", m->id, name);
  int found = -1;
  for (int i = 0; i < m->num_entries; i++)
    if (m->entries[i].name_len == strlen(name) &&
        memcmp(m->entries[i].name, name, strlen(name)) == 0)
      found = i;
  if (failing("get_function") || found < 0) {
    r = failed(CUDA_ERROR_NOT_FOUND, "cuModuleGetFunction");
    goto done;
  }
  fake_function *f = calloc(1, sizeof *f);
  f->module = m;
  f->entry = found;
  f->name = malloc(strlen(name) + 1);
  strcpy(f->name, name);
  f->max_dynamic_shared = 48 * 1024;
  functions = realloc(functions, sizeof *functions * (num_functions + 1));
  functions[num_functions++] = f;
  *out = f;
done:
  pthread_mutex_unlock(&lock);
  return r;
}

static fake_function *find_function(void *h) {
  for (size_t i = 0; i < num_functions; i++)
    if (functions[i] == h && functions[i]->module->live) return functions[i];
  return NULL;
}

EXPORT CUresult cuFuncSetAttribute(CUfunction h, int attr, int value) {
  pthread_mutex_lock(&lock);
  CUresult r = CUDA_SUCCESS;
  fake_function *f = find_function(h);
  if (!f) {
    r = failed(CUDA_ERROR_INVALID_HANDLE, "cuFuncSetAttribute");
    goto done;
  }
  logf_locked("cuFuncSetAttribute name=%s attr=%d value=%d", f->name, attr,
              value);
  if (failing("set_attribute")) {
    r = failed(CUDA_ERROR_INVALID_VALUE, "cuFuncSetAttribute");
    goto done;
  }
  if (attr == 8) f->max_dynamic_shared = value;
done:
  pthread_mutex_unlock(&lock);
  return r;
}

#ifndef FAKE_OMIT_LAUNCH
EXPORT CUresult cuLaunchKernel(CUfunction h, unsigned gx, unsigned gy,
                               unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned smem, CUstream stream,
                               void **params, void **extra) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuLaunchKernel");
  fake_function *f = find_function(h);
  if (!r && !f) r = failed(CUDA_ERROR_INVALID_HANDLE, "cuLaunchKernel");
  if (r) goto done;
  if (index_error_param >= 0 && params && params[index_error_param]) {
    uint64_t word;
    memcpy(&word, params[index_error_param], 8);
    memcpy((void *)(uintptr_t)word, index_error, sizeof index_error);
  }
  if (!log_file && !fail_spec[0]) {
    /* Fast path for benchmarks: nothing to record or inject. */
    launch_count++;
    goto done;
  }
  const fr_ptx_entry *e = &f->module->entries[f->entry];
  char buf[4096];
  size_t n = 0;
  buf[0] = 0;
  if (e->num_params < 0) {
    snprintf(buf, sizeof buf, "?");
  } else {
    for (int i = 0; i < e->num_params && n + 64 < sizeof buf; i++) {
      char v[64];
      if (!params || !params[i]) {
        snprintf(v, sizeof v, "NULL");
      } else if (e->param_sizes[i] == 8) {
        uint64_t x;
        memcpy(&x, params[i], 8);
        fmt_value(v, sizeof v, x);
      } else if (e->param_sizes[i] == 4) {
        int32_t x;
        memcpy(&x, params[i], 4);
        snprintf(v, sizeof v, "%" PRId32, x);
      } else {
        snprintf(v, sizeof v, "<%u bytes>", e->param_sizes[i]);
      }
      n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? "," : "", v);
    }
  }
  logf_locked("cuLaunchKernel name=%s grid=%u,%u,%u block=%u,%u,%u smem=%u "
              "stream=%p params=%s%s",
              f->name, gx, gy, gz, bx, by, bz, smem, stream, buf,
              extra ? " extra" : "");
  launch_count++;
  if (failing("launch") || launch_count == fail_launch_n)
    r = failed(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "cuLaunchKernel");
  else if (!gx || !gy || !gz || !bx || !by || !bz ||
           (e->num_params > 0 && !params) || bx * by * bz > 1024)
    r = failed(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel");
  else if ((int)smem > f->max_dynamic_shared)
    r = failed(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel");
done:
  pthread_mutex_unlock(&lock);
  return r;
}
#endif

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *out, size_t bytes) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuMemAlloc_v2");
  if (r) goto done;
  if (failing("oom") || (oom_live >= 0 && (long)num_allocs >= oom_live) ||
      (oom_above >= 0 && bytes > (size_t)oom_above) || bytes == 0) {
    logf_locked("cuMemAlloc_v2 bytes=%zu -> %s", bytes,
                err_name(bytes ? CUDA_ERROR_OUT_OF_MEMORY
                               : CUDA_ERROR_INVALID_VALUE));
    r = bytes ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
    goto done;
  }
  void *mem = aligned_alloc(256, (bytes + 255) & ~(size_t)255);
  if (!mem) {
    r = failed(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc_v2");
    goto done;
  }
  if (num_allocs == cap_allocs) {
    cap_allocs = cap_allocs ? cap_allocs * 2 : 64;
    allocs = realloc(allocs, sizeof *allocs * cap_allocs);
  }
  alloc_rec *a = &allocs[num_allocs++];
  a->base = (uint64_t)(uintptr_t)mem;
  a->size = bytes;
  a->id = next_buf_id++;
  a->mem = mem;
  logf_locked("cuMemAlloc_v2 bytes=%zu -> buf%u", bytes, a->id);
  *out = a->base;
done:
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuMemFree_v2");
  if (r) goto done;
  for (size_t i = 0; i < num_allocs; i++)
    if (allocs[i].base == p) {
      logf_locked("cuMemFree_v2 buf%u", allocs[i].id);
      free(allocs[i].mem);
      allocs[i] = allocs[--num_allocs];
      goto done;
    }
  logf_locked("cuMemFree_v2 0x%llx -> CUDA_ERROR_INVALID_VALUE", p);
  r = CUDA_ERROR_INVALID_VALUE;
done:
  pthread_mutex_unlock(&lock);
  return r;
}

static CUresult check_range(uint64_t p, size_t bytes, const char *call) {
  alloc_rec *a = find_alloc(p);
  if (!a || p + bytes > a->base + a->size)
    return failed(CUDA_ERROR_INVALID_VALUE, call);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src,
                                size_t bytes) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuMemcpyHtoD_v2");
  if (r) goto done;
  char v[64];
  fmt_value(v, sizeof v, dst);
  logf_locked("cuMemcpyHtoD_v2 dst=%s bytes=%zu", v, bytes);
  if (failing("memcpy")) {
    r = failed(CUDA_ERROR_ILLEGAL_ADDRESS, "cuMemcpyHtoD_v2");
    goto done;
  }
  r = check_range(dst, bytes, "cuMemcpyHtoD_v2");
  if (!r) memcpy((void *)(uintptr_t)dst, src, bytes);
done:
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuMemcpyDtoH_v2");
  if (r) goto done;
  char v[64];
  fmt_value(v, sizeof v, src);
  logf_locked("cuMemcpyDtoH_v2 src=%s bytes=%zu", v, bytes);
  if (failing("memcpy")) {
    r = failed(CUDA_ERROR_ILLEGAL_ADDRESS, "cuMemcpyDtoH_v2");
    goto done;
  }
  r = check_range(src, bytes, "cuMemcpyDtoH_v2");
  if (!r) memcpy(dst, (const void *)(uintptr_t)src, bytes);
done:
  pthread_mutex_unlock(&lock);
  return r;
}

/* Device to device (a sharded fusion's SLICE); streams are ignored: the
 * copy is done when the call returns, like everything of the fake. */
EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src,
                                     size_t bytes, CUstream s) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuMemcpyDtoDAsync_v2");
  if (r) goto done;
  char d[64], v[64];
  fmt_value(d, sizeof d, dst);
  fmt_value(v, sizeof v, src);
  logf_locked("cuMemcpyDtoDAsync_v2 dst=%s src=%s bytes=%zu stream=%p", d, v,
              bytes, s);
  if (failing("memcpy")) {
    r = failed(CUDA_ERROR_ILLEGAL_ADDRESS, "cuMemcpyDtoDAsync_v2");
    goto done;
  }
  r = check_range(dst, bytes, "cuMemcpyDtoDAsync_v2");
  if (!r) r = check_range(src, bytes, "cuMemcpyDtoDAsync_v2");
  if (!r) memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
done:
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t bytes,
                                CUstream s) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuMemsetD8Async");
  if (r) goto done;
  char v[64];
  fmt_value(v, sizeof v, dst);
  logf_locked("cuMemsetD8Async dst=%s value=%u bytes=%zu stream=%p", v, value, bytes, s);
  if (failing("memset")) {
    r = failed(CUDA_ERROR_ILLEGAL_ADDRESS, "cuMemsetD8Async");
    goto done;
  }
  r = check_range(dst, bytes, "cuMemsetD8Async");
  if (!r) memset((void *)(uintptr_t)dst, value, bytes);
done:
  pthread_mutex_unlock(&lock);
  return r;
}

/* 2D: `height` rows of `width` bytes, `pitch` bytes apart; each inside
 * one allocation, as the real driver requires of the whole range. */
static CUresult check_rows(uint64_t p, size_t pitch, size_t width,
                           size_t height, const char *call) {
  if (height == 0 || width == 0) return CUDA_SUCCESS;
  if (height > 1 && pitch < width) return failed(CUDA_ERROR_INVALID_VALUE, call);
  alloc_rec *a = find_alloc(p);
  uint64_t last = p + (uint64_t)pitch * (height - 1);
  if (!a || last + width > a->base + a->size)
    return failed(CUDA_ERROR_INVALID_VALUE, call);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch,
                                  unsigned char value, size_t width,
                                  size_t height, CUstream s) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuMemsetD2D8Async");
  if (r) goto done;
  char v[64];
  fmt_value(v, sizeof v, dst);
  logf_locked("cuMemsetD2D8Async dst=%s pitch=%zu value=%u width=%zu "
              "height=%zu stream=%p",
              v, pitch, value, width, height, s);
  if (failing("memset")) {
    r = failed(CUDA_ERROR_ILLEGAL_ADDRESS, "cuMemsetD2D8Async");
    goto done;
  }
  r = check_rows(dst, pitch, width, height, "cuMemsetD2D8Async");
  for (size_t y = 0; !r && y < height; y++)
    memset((void *)(uintptr_t)(dst + (uint64_t)pitch * y), value, width);
done:
  pthread_mutex_unlock(&lock);
  return r;
}

/* cuda.h's CUDA_MEMCPY2D (the _v2 layout). */
typedef struct {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} fake_memcpy2d;

/* Host to device only: what the runtime uses it for. */
EXPORT CUresult cuMemcpy2D_v2(const fake_memcpy2d *c) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuMemcpy2D_v2");
  if (r) goto done;
  char v[64];
  fmt_value(v, sizeof v, c->dstDevice);
  logf_locked("cuMemcpy2D_v2 dst=%s pitch=%zu src=host pitch=%zu width=%zu "
              "height=%zu",
              v, c->dstPitch, c->srcPitch, c->WidthInBytes, c->Height);
  if (failing("memcpy")) {
    r = failed(CUDA_ERROR_ILLEGAL_ADDRESS, "cuMemcpy2D_v2");
    goto done;
  }
  if (c->srcMemoryType != 1 || c->dstMemoryType != 2 || c->srcXInBytes ||
      c->srcY || c->dstXInBytes || c->dstY ||
      (c->Height > 1 && c->srcPitch < c->WidthInBytes)) {
    r = failed(CUDA_ERROR_INVALID_VALUE, "cuMemcpy2D_v2");
    goto done;
  }
  r = check_rows(c->dstDevice, c->dstPitch, c->WidthInBytes, c->Height,
                 "cuMemcpy2D_v2");
  for (size_t y = 0; !r && y < c->Height; y++)
    memcpy((void *)(uintptr_t)(c->dstDevice + (uint64_t)c->dstPitch * y),
           (const unsigned char *)c->srcHost + c->srcPitch * y,
           c->WidthInBytes);
done:
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT CUresult cuStreamSynchronize(CUstream s) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuStreamSynchronize");
  if (!r) {
    logf_locked("cuStreamSynchronize stream=%p", s);
    if (failing("sync")) r = failed(CUDA_ERROR_ILLEGAL_ADDRESS,
                                    "cuStreamSynchronize");
  }
  pthread_mutex_unlock(&lock);
  return r;
}

EXPORT CUresult cuCtxSynchronize(void) {
  pthread_mutex_lock(&lock);
  CUresult r = need_context("cuCtxSynchronize");
  if (!r) {
    logf_locked("cuCtxSynchronize");
    if (failing("sync")) r = failed(CUDA_ERROR_ILLEGAL_ADDRESS,
                                    "cuCtxSynchronize");
  }
  pthread_mutex_unlock(&lock);
  return r;
}

/* ---- test hooks (not part of CUDA) ----------------------------------------- */

/* Device allocations alive now. */
EXPORT long fuser_fake_live_allocations(void) {
  pthread_mutex_lock(&lock);
  long n = (long)num_allocs;
  pthread_mutex_unlock(&lock);
  return n;
}

/* Modules loaded and not unloaded. */
EXPORT long fuser_fake_live_modules(void) {
  pthread_mutex_lock(&lock);
  long n = 0;
  for (size_t i = 0; i < num_modules; i++) n += modules[i]->live;
  pthread_mutex_unlock(&lock);
  return n;
}

/* Retained primary contexts. */
EXPORT long fuser_fake_context_refs(void) {
  pthread_mutex_lock(&lock);
  long n = ctx_refs;
  pthread_mutex_unlock(&lock);
  return n;
}

/* The name the log gives device address `p` ("buf3", "buf3+256", or the
 * value): for the fake cuBLASLt's log, which finds this function through
 * FUSER_FAKE_CUDA (fake_cublaslt.c). */
EXPORT void fuser_fake_buffer_name(uint64_t p, char *out, size_t cap) {
  pthread_mutex_lock(&lock);
  fmt_value(out, cap, p);
  pthread_mutex_unlock(&lock);
}

/* Whether [p, p + bytes) lies inside one live allocation: the fake NCCL,
 * which finds this function through FUSER_FAKE_CUDA (fake_nccl.c), checks
 * every buffer a collective is handed with it. */
EXPORT int fuser_fake_range_ok(uint64_t p, uint64_t bytes) {
  pthread_mutex_lock(&lock);
  alloc_rec *a = find_alloc(p);
  int ok = a && bytes <= a->base + a->size - p;
  pthread_mutex_unlock(&lock);
  return ok;
}

/* Launches since the last cuInit. */
EXPORT long fuser_fake_launch_count(void) {
  pthread_mutex_lock(&lock);
  long n = launch_count;
  pthread_mutex_unlock(&lock);
  return n;
}

/* Frees the fake's bookkeeping when the library is unloaded, so valgrind
 * sees no leak of the fake's own. */
__attribute__((destructor)) static void fake_fini(void) {
  for (size_t i = 0; i < num_functions; i++) {
    free(functions[i]->name);
    free(functions[i]);
  }
  free(functions);
  for (size_t i = 0; i < num_modules; i++) {
    fr_ptx_entries_free(modules[i]->entries, modules[i]->num_entries);
    free(modules[i]->text);
    free(modules[i]);
  }
  free(modules);
  for (size_t i = 0; i < num_allocs; i++) free(allocs[i].mem);
  free(allocs);
  if (log_file) fclose(log_file);
}
