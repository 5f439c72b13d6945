#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tl_failures;

bool tl_check(bool ok, const char *what, const char *file, int line) {
  if (!ok) {
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, what);
    tl_failures++;
  }
  return ok;
}

bool tl_expect_ok(fuser_error *e, const char *what, const char *file,
                  int line) {
  if (e) {
    fprintf(stderr, "%s:%d: %s failed: [%s] %s\n", file, line, what,
            fuser_error_code_name(fuser_error_code_of(e)),
            fuser_error_message(e));
    tl_failures++;
    fuser_error_destroy(e);
    return false;
  }
  return true;
}

bool tl_expect_err(fuser_error *e, fuser_error_code code, const char *file,
                   int line, ...) {
  if (!e) {
    fprintf(stderr, "%s:%d: expected a %s error, got success\n", file, line,
            fuser_error_code_name(code));
    tl_failures++;
    return false;
  }
  bool ok = true;
  const char *msg = fuser_error_message(e);
  if (fuser_error_code_of(e) != code) {
    fprintf(stderr, "%s:%d: expected a %s error, got %s: %s\n", file, line,
            fuser_error_code_name(code),
            fuser_error_code_name(fuser_error_code_of(e)), msg);
    ok = false;
  }
  va_list ap;
  va_start(ap, line);
  for (const char *s; (s = va_arg(ap, const char *));)
    if (!strstr(msg, s)) {
      fprintf(stderr, "%s:%d: error message lacks \"%s\":\n  %s\n", file, line,
              s, msg);
      ok = false;
    }
  va_end(ap);
  if (getenv("TL_VERBOSE")) fprintf(stderr, "  ok: %s\n", msg);
  if (!ok) tl_failures++;
  fuser_error_destroy(e);
  return ok;
}

int tl_finish(const char *name) {
  if (tl_failures) {
    fprintf(stderr, "%s: %d check(s) FAILED\n", name, tl_failures);
    return 1;
  }
  printf("%s: all checks passed\n", name);
  return 0;
}

/* ---- log ------------------------------------------------------------------ */

static char log_path[1024];

const char *tl_log_setup(const char *test_name) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  snprintf(log_path, sizeof log_path, "%s/fuser-%s-%ld.log", tmp, test_name,
           (long)getpid());
  FILE *f = fopen(log_path, "w");
  if (f) fclose(f);
  setenv("FUSER_FAKE_LOG", log_path, 1);
  return log_path;
}

void tl_log_setup_path(const char *path) {
  snprintf(log_path, sizeof log_path, "%s", path);
}

void tl_log_clear(void) {
  if (log_path[0] && truncate(log_path, 0) != 0)
    fprintf(stderr, "cannot truncate %s\n", log_path);
}

static const char *const interesting[] = {
    "cuModuleLoadDataEx", "cuModuleUnload", "cuModuleGetFunction",
    "cuFuncSetAttribute", "cuLaunchKernel", "cuMemAlloc_v2", "cuMemFree_v2",
    /* A GEMM with k = 0 (cuda.c) */
    "cuMemsetD2D8Async", "cuMemcpy2D_v2",
    /* A sharded fusion's SLICE, a collective among one device */
    "cuMemcpyDtoDAsync_v2", NULL};

bool tl_log_interesting(const char *line) {
  /* Every call of the fake cuBLASLt (fake_cublaslt.c). */
  if (strncmp(line, "cublasLt", 8) == 0) return true;
  for (int i = 0; interesting[i]; i++) {
    size_t n = strlen(interesting[i]);
    if (strncmp(line, interesting[i], n) == 0 &&
        (line[n] == ' ' || line[n] == 0))
      return true;
  }
  return false;
}

size_t tl_log_read(char ***out) {
  *out = NULL;
  FILE *f = fopen(log_path, "r");
  if (!f) return 0;
  char *line = NULL;
  size_t cap = 0, n = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) >= 0) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = 0;
    if (!tl_log_interesting(line)) continue;
    *out = realloc(*out, sizeof(char *) * (n + 1));
    (*out)[n++] = strdup(line);
  }
  free(line);
  fclose(f);
  return n;
}

void tl_lines_free(char **lines, size_t n) {
  for (size_t i = 0; i < n; i++) free(lines[i]);
  free(lines);
}

bool tl_expect_log(const char *file, int line, const char *const *expected) {
  char **got;
  size_t n = tl_log_read(&got), m = 0;
  while (expected[m]) m++;
  bool ok = n == m;
  for (size_t i = 0; ok && i < n; i++) ok = strcmp(got[i], expected[i]) == 0;
  if (!ok) {
    fprintf(stderr, "%s:%d: the fake driver's log differs:\n", file, line);
    size_t k = n > m ? n : m;
    for (size_t i = 0; i < k; i++) {
      const char *g = i < n ? got[i] : "<none>";
      const char *e = i < m ? expected[i] : "<none>";
      if (strcmp(g, e) == 0)
        fprintf(stderr, "    %s\n", g);
      else
        fprintf(stderr, "  - %s\n  + %s\n", e, g);
    }
    fprintf(stderr, "  (- expected, + got)\n");
    tl_failures++;
  }
  tl_lines_free(got, n);
  tl_log_clear();
  return ok;
}

size_t tl_log_count(const char *prefix) {
  char **got;
  size_t n = tl_log_read(&got), c = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(got[i], prefix, strlen(prefix)) == 0) c++;
  tl_lines_free(got, n);
  return c;
}

long tl_fake_hook(const char *fake_path, const char *hook) {
  void *h = dlopen(fake_path, RTLD_NOW | RTLD_NOLOAD);
  if (!h) h = dlopen(fake_path, RTLD_NOW);
  if (!h) return -1;
  void *sym = dlsym(h, hook);
  long (*fn)(void);
  long v = -1;
  if (sym) {
    memcpy(&fn, &sym, sizeof fn);
    v = fn();
  }
  dlclose(h);
  return v;
}

/* ---- runtimes --------------------------------------------------------------- */

fuser_rt *tl_fake_rt(const char *fake_path) {
  fuser_rt_options o;
  fuser_rt_options_init(&o);
  o.cuda_driver_path = fake_path;
  fuser_rt *rt = NULL;
  if (!EXPECT_OK(fuser_rt_create(&o, &rt))) return NULL;
  return rt;
}

static fuser_error *null_load(void *c, const void *image, size_t size,
                              const char *name, void **out) {
  (void)c; (void)image; (void)size; (void)name;
  *out = (void *)1;
  return NULL;
}
static void null_unload(void *c, void *m) { (void)c; (void)m; }
static fuser_error *null_get(void *c, void *m, const char *name, void **out) {
  (void)c; (void)m; (void)name;
  *out = (void *)1;
  return NULL;
}
static fuser_error *null_launch(void *c, void *f, const fuser_launch_dims *d,
                                void *s, void **p, const uint32_t *sz,
                                uint32_t n) {
  (void)c; (void)f; (void)d; (void)s; (void)p; (void)sz; (void)n;
  return NULL;
}
static fuser_error *null_alloc(void *c, size_t bytes, uint64_t *out) {
  (void)c;
  /* Fuzzed plans ask for anything; keep valgrind runs fast. */
  if (bytes > (64u << 20))
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY, "null: %zu bytes",
                              bytes);
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (!p) return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY, "null: oom");
  *out = (uint64_t)(uintptr_t)p;
  return NULL;
}
static fuser_error *null_free(void *c, uint64_t p) {
  (void)c;
  free((void *)(uintptr_t)p);
  return NULL;
}
static fuser_error *null_h2d(void *c, uint64_t d, const void *s, size_t n) {
  (void)c;
  memcpy((void *)(uintptr_t)d, s, n);
  return NULL;
}
static fuser_error *null_d2h(void *c, void *d, uint64_t s, size_t n) {
  (void)c;
  memcpy(d, (const void *)(uintptr_t)s, n);
  return NULL;
}
static fuser_error *null_sync(void *c, void *s, int whole) {
  (void)c; (void)s; (void)whole;
  return NULL;
}

const fuser_driver tl_null_driver = {
    .module_kind = FUSER_MODULE_PTX,
    .name = "null",
    .module_load = null_load,
    .module_unload = null_unload,
    .function_get = null_get,
    .launch = null_launch,
    .mem_alloc = null_alloc,
    .mem_free = null_free,
    .copy_h2d = null_h2d,
    .copy_d2h = null_d2h,
    .synchronize = null_sync,
};

/* ---- samples ---------------------------------------------------------------- */

const char tl_sample_ptx[] =
    "//\n"
    "// Hand-written PTX for the fuser runtime tests (bodies are empty);\n"
    "// pointer parameters are `.ptr`, as LLVM writes them.\n"
    "//\n"
    "\n"
    ".version 7.8\n"
    ".target sm_90\n"
    ".address_size 64\n"
    "\n"
    "\t// .globl\tsoftmax_max\n"
    ".visible .entry softmax_max(\n"
    "\t.param .u64 .ptr .global .align 16 softmax_max_param_0,\n"
    "\t.param .u64 .ptr .align 1 softmax_max_param_1,\n"
    "\t.param .u32 softmax_max_param_2,\n"
    "\t.param .u64 softmax_max_param_3\n"
    ")\n"
    "{\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .entry softmax_vec4(\n"
    "\t.param .u64 .ptr .align 1 softmax_vec4_param_0,\n"
    "\t.param .u64 .ptr .align 1 softmax_vec4_param_1,\n"
    "\t.param .u64 .ptr .align 1 softmax_vec4_param_2,\n"
    "\t.param .u32 softmax_vec4_param_3\n"
    ")\n"
    "{\n"
    "\tret;\n"
    "}\n"
    "\n"
    "/* the unaligned fallback */\n"
    ".visible .entry softmax_norm(\n"
    "\t.param .u64 .ptr .align 1 softmax_norm_param_0,\n"
    "\t.param .u64 .ptr .align 1 softmax_norm_param_1,\n"
    "\t.param .u64 .ptr .align 1 softmax_norm_param_2,\n"
    "\t.param .u32 softmax_norm_param_3,\n"
    "\t.param .s64 softmax_norm_param_4\n"
    ")\n"
    "{\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .entry add_kernel(.param .u64 .ptr a, .param .u64 .ptr b,"
    " .param .u64 .ptr c, .param .s32 n)\n"
    "{\n"
    "\tret;\n"
    "}\n";

static const char sample_mlir[] =
    "gpu.module @kernels {\n"
    "  gpu.func @softmax_max(%x: memref<?x?xf32>) kernel { gpu.return }\n"
    "  gpu.func @softmax_vec4(%x: memref<?x?xf32>) kernel { gpu.return }\n"
    "  gpu.func @softmax_norm(%x: memref<?x?xf32>) kernel { gpu.return }\n"
    "  gpu.func @add_kernel(%x: memref<1024xf32>) kernel { gpu.return }\n"
    "}\n";

static void sample_softmax(bw_fusion *f) {
  memset(f, 0, sizeof *f);
  f->name = "softmax";
  f->num_args = 1;
  f->num_results = 1;
  f->num_regs = 17;
  f->num_inter = 1;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"x", 7, 2, {-1, -1}};
  f->tensors[1] = (bw_tensor){"y", 7, 2, {-1, -1}};
  bw_instr *in = f->instrs;
  uint32_t n = 0;
  in[n++] = bw_op(BW_DIM, 0, 0, 0);
  in[n++] = bw_op(BW_DIM, 1, 1, 0);
  in[n++] = bw_op(BW_DIM, 2, 2, 0);
  in[n++] = bw_op(BW_DIM, 3, 3, 0);
  in[n++] = bw_op(BW_EQ, 4, 0, 2);
  in[n] = bw_op(BW_ASSERT, 0, 4, 2);
  in[n++].msg = "y has {} rows but x has {}";
  in[n++] = bw_op(BW_EQ, 5, 1, 3);
  in[n] = bw_op(BW_ASSERT, 1, 5, 3);
  in[n++].msg = "y has {} columns but x has {}";
  in[n++] = bw_const(6, 4);
  in[n++] = bw_op(BW_MUL, 7, 0, 6);   /* rows * 4 bytes */
  in[n++] = bw_op(BW_ALLOC, 0, 2, 7); /* buffer 2, the intermediate */
  in[n++] = bw_const(8, 1);
  in[n++] = bw_const(9, 256);
  in[n++] = bw_const(10, 0);
  in[n++] = bw_op(BW_MUL, 11, 1, 6); /* shared memory: cols * 4 */
  in[n++] = bw_op(BW_LAUNCH, 0, 0, BW_NONE);
  in[n] = bw_op(BW_ALIGNED, 12, 0, 0);
  in[n++].imm = 16;
  in[n] = bw_op(BW_ALIGNED, 13, 1, 0);
  in[n++].imm = 16;
  in[n++] = bw_op(BW_AND, 14, 12, 13);
  in[n++] = bw_op(BW_EQ, 15, 14, 10);
  in[n++] = bw_op(BW_CEILDIV, 16, 1, 6);
  in[n++] = bw_op(BW_LAUNCH, 0, 1, 14);
  in[n++] = bw_op(BW_LAUNCH, 0, 2, 15);
  /* y's dims are x's (the ASSERTs check the caller's; these say so). */
  in[n++] = bw_op(BW_RESULT_DIM, BW_NONE, 0, 2);
  in[n++] = bw_op(BW_RESULT_DIM, BW_NONE, 1, 3);
  f->num_instrs = n;
  f->num_launches = 3;
  f->launches[0] = (bw_launch){"softmax_max", 4,
                               {{BW_PTR, 0}, {BW_PTR, 2}, {BW_I32, 1},
                                {BW_I64, 0}},
                               {0, 8, 8}, {9, 8, 8}, 10};
  f->launches[1] = (bw_launch){"softmax_vec4", 4,
                               {{BW_PTR, 0}, {BW_PTR, 2}, {BW_PTR, 1},
                                {BW_I32, 16}},
                               {0, 8, 8}, {9, 8, 8}, 11};
  f->launches[2] = (bw_launch){"softmax_norm", 5,
                               {{BW_PTR, 0}, {BW_PTR, 2}, {BW_PTR, 1},
                                {BW_I32, 1}, {BW_I64, 0}},
                               {0, 8, 8}, {9, 8, 8}, 11};
}

static void sample_add(bw_fusion *f) {
  memset(f, 0, sizeof *f);
  f->name = "add";
  f->num_args = 2;
  f->num_results = 1;
  f->num_regs = 5;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"x", 7, 1, {1024}};
  f->tensors[1] = (bw_tensor){"y", 7, 1, {1024}};
  f->tensors[2] = (bw_tensor){"z", 7, 1, {1024}};
  uint32_t n = 0;
  f->instrs[n++] = bw_const(0, 4);
  f->instrs[n++] = bw_const(1, 256);
  f->instrs[n++] = bw_const(2, 1);
  f->instrs[n++] = bw_const(3, 0);
  f->instrs[n++] = bw_const(4, 1024);
  f->instrs[n++] = bw_op(BW_LAUNCH, 0, 0, BW_NONE);
  f->num_instrs = n;
  f->num_launches = 1;
  f->launches[0] = (bw_launch){"add_kernel", 4,
                               {{BW_PTR, 0}, {BW_PTR, 1}, {BW_PTR, 2},
                                {BW_I32, 4}},
                               {0, 2, 2}, {1, 2, 2}, 3};
}

void tl_sample_bundle(bw_bundle *b, bool with_emulation) {
  memset(b, 0, sizeof *b);
  b->num_modules = with_emulation ? 2 : 1;
  b->modules[0] = (bw_module){"kernels_ptx", 1, tl_sample_ptx, 90, 78};
  if (with_emulation)
    b->modules[1] = (bw_module){"kernels_mlir", 2, sample_mlir, 0, 0};
  b->num_fusions = 2;
  sample_softmax(&b->fusions[0]);
  sample_add(&b->fusions[1]);
  if (with_emulation) b->fusions[0].emu_module = b->fusions[1].emu_module = 1;
}

unsigned char *tl_sample_bytes(size_t *size, bw_layout *layout) {
  bw_bundle b;
  tl_sample_bundle(&b, false);
  return bw_write(&b, size, layout);
}

void tl_linear_bundle(bw_bundle *b) {
  memset(b, 0, sizeof *b);
  b->num_modules = 1;
  b->modules[0] = (bw_module){"kernels_ptx", 1, tl_sample_ptx, 90, 78};
  b->num_fusions = 1;
  bw_fusion *f = &b->fusions[0];
  f->name = "linear";
  f->num_args = 3;
  f->num_results = 1;
  f->num_regs = 10;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"x", FUSER_BUNDLE_DTYPE_F16, 2, {-1, 4}};
  f->tensors[1] = (bw_tensor){"w", FUSER_BUNDLE_DTYPE_F16, 2, {5, 4}};
  f->tensors[2] = (bw_tensor){"b", FUSER_BUNDLE_DTYPE_F16, 1, {5}};
  f->tensors[3] = (bw_tensor){"y", FUSER_BUNDLE_DTYPE_F16, 2, {-1, 5}};
  /* m, n, k, batch, lda, ldb, ldd, stride_a, stride_b, stride_d */
  const int64_t v[10] = {0, 5, 4, 1, 4, 4, 5, 0, 0, 0};
  uint32_t n = 0;
  f->instrs[n++] = bw_op(BW_DIM, 0, 0, 0);
  for (uint32_t r = 1; r < 10; r++) f->instrs[n++] = bw_const(r, v[r]);
  f->instrs[n++] = bw_op(BW_RESULT_DIM, BW_NONE, 0, 1);
  f->instrs[n++] = bw_gemm_op(0);
  f->num_instrs = n;
  f->num_gemms = 1;
  f->gemms[0] = (bw_gemm){0, 1, 3, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                          FUSER_BUNDLE_DTYPE_F16, FUSER_BUNDLE_DTYPE_F16,
                          FUSER_BUNDLE_GEMM_FLAG_TRANS_B,
                          FUSER_BUNDLE_GEMM_EPILOGUE_BIAS, 0};
}

void tl_sharded_bundle(bw_bundle *b) {
  memset(b, 0, sizeof *b);
  b->num_modules = 1;
  b->modules[0] = (bw_module){"kernels_ptx", 1, tl_sample_ptx, 90, 78};
  b->num_fusions = 1;
  bw_fusion *f = &b->fusions[0];
  f->name = "sharded";
  f->num_args = 2;
  f->num_results = 3;
  f->num_inter = 1; /* buffer 5 */
  f->num_regs = 4;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"x", FUSER_BUNDLE_DTYPE_F32, 1, {8}};
  f->tensors[1] = (bw_tensor){"p", FUSER_BUNDLE_DTYPE_I32, 1, {4}};
  f->tensors[2] = (bw_tensor){"y", FUSER_BUNDLE_DTYPE_F32, 1, {8}};
  f->tensors[3] = (bw_tensor){"z", FUSER_BUNDLE_DTYPE_F32, 1, {4}};
  f->tensors[4] = (bw_tensor){"w", FUSER_BUNDLE_DTYPE_I32, 1, {2}};
  f->grid.axes = 2;
  f->grid.sizes[0] = f->grid.sizes[1] = 1;
  f->grid.splits[0][0] = 1; /* x and z split over axis 0 */
  f->grid.splits[3][0] = 1;
  uint32_t n = 0;
  f->instrs[n++] = bw_const(0, 8);
  f->instrs[n++] = bw_const(1, 4);
  f->instrs[n++] = bw_const(2, 2);
  f->instrs[n++] = bw_const(3, 16);
  f->instrs[n++] = bw_op(BW_ALLOC, 0, 5, 3);
  f->instrs[n++] = bw_grid_op();
  for (uint32_t k = 0; k < 5; k++) f->instrs[n++] = bw_coll_op(k);
  f->num_instrs = n;
  f->num_colls = 5;
  f->colls[0] = (bw_coll){FUSER_BUNDLE_COLLECTIVE_ALL_REDUCE,
                          FUSER_BUNDLE_REDUCTION_SUM, FUSER_BUNDLE_DTYPE_F32,
                          1, 0, 2, 0};
  f->colls[1] = (bw_coll){FUSER_BUNDLE_COLLECTIVE_REDUCE_SCATTER,
                          FUSER_BUNDLE_REDUCTION_MAX, FUSER_BUNDLE_DTYPE_F32,
                          2, 0, 3, 1};
  f->colls[2] = (bw_coll){FUSER_BUNDLE_COLLECTIVE_SLICE, 0,
                          FUSER_BUNDLE_DTYPE_I32, 3, 1, 4, 2};
  f->colls[3] = (bw_coll){FUSER_BUNDLE_COLLECTIVE_ALL_REDUCE,
                          FUSER_BUNDLE_REDUCTION_SUM, FUSER_BUNDLE_DTYPE_F32,
                          3, 0, 5, 1};
  f->colls[4] = (bw_coll){FUSER_BUNDLE_COLLECTIVE_ALL_GATHER, 0,
                          FUSER_BUNDLE_DTYPE_F32, 2, 5, 3, 1};
}
