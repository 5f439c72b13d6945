/* On a real GPU: hand-written PTX kernels that compute, run through the
 * CUDA backend (driver found as usual: FUSER_CUDA_DRIVER or libcuda.so.1).
 * Checks results (an intermediate chained between two kernels, i64 and
 * negative i32 parameters, 100000 bytes of dynamic shared memory), a real
 * JIT error log, concurrent first use from 8 threads, a GEMM through the
 * machine's cuBLASLt, and prints the host time per launch including the
 * driver. Exits 77 (skipped) when there is no driver or no device. */
#define _POSIX_C_SOURCE 200809L
#include "fp16.h"
#include "testlib.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char ptx[] =
    ".version 7.8\n"
    ".target sm_90\n"
    ".address_size 64\n"
    "\n"
    ".extern .shared .align 16 .b8 dsmem[];\n"
    "\n"
    ".visible .entry add_f32(\n"
    "\t.param .u64 .ptr .align 1 add_f32_param_0,\n"
    "\t.param .u64 .ptr .align 1 add_f32_param_1,\n"
    "\t.param .u64 .ptr .align 1 add_f32_param_2,\n"
    "\t.param .u32 add_f32_param_3\n"
    ")\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<6>;\n"
    "\t.reg .f32 %f<4>;\n"
    "\t.reg .b64 %rd<11>;\n"
    "\tld.param.u64 %rd1, [add_f32_param_0];\n"
    "\tld.param.u64 %rd2, [add_f32_param_1];\n"
    "\tld.param.u64 %rd3, [add_f32_param_2];\n"
    "\tld.param.u32 %r2, [add_f32_param_3];\n"
    "\tmov.u32 %r3, %ctaid.x;\n"
    "\tmov.u32 %r4, %ntid.x;\n"
    "\tmov.u32 %r5, %tid.x;\n"
    "\tmad.lo.s32 %r1, %r3, %r4, %r5;\n"
    "\tsetp.ge.u32 %p1, %r1, %r2;\n"
    "\t@%p1 bra ADD_DONE;\n"
    "\tcvta.to.global.u64 %rd4, %rd1;\n"
    "\tmul.wide.u32 %rd5, %r1, 4;\n"
    "\tadd.s64 %rd6, %rd4, %rd5;\n"
    "\tcvta.to.global.u64 %rd7, %rd2;\n"
    "\tadd.s64 %rd8, %rd7, %rd5;\n"
    "\tld.global.f32 %f1, [%rd6];\n"
    "\tld.global.f32 %f2, [%rd8];\n"
    "\tadd.f32 %f3, %f1, %f2;\n"
    "\tcvta.to.global.u64 %rd9, %rd3;\n"
    "\tadd.s64 %rd10, %rd9, %rd5;\n"
    "\tst.global.f32 [%rd10], %f3;\n"
    "ADD_DONE:\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .entry store_vals(\n"
    "\t.param .u64 .ptr .align 1 store_vals_param_0,\n"
    "\t.param .u64 store_vals_param_1,\n"
    "\t.param .u32 store_vals_param_2\n"
    ")\n"
    "{\n"
    "\t.reg .b32 %r<2>;\n"
    "\t.reg .b64 %rd<5>;\n"
    "\tld.param.u64 %rd1, [store_vals_param_0];\n"
    "\tld.param.u64 %rd2, [store_vals_param_1];\n"
    "\tld.param.u32 %r1, [store_vals_param_2];\n"
    "\tcvta.to.global.u64 %rd3, %rd1;\n"
    "\tst.global.u64 [%rd3], %rd2;\n"
    "\tcvt.s64.s32 %rd4, %r1;\n"
    "\tst.global.u64 [%rd3+8], %rd4;\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .entry smem_last(\n"
    "\t.param .u64 .ptr .align 1 smem_last_param_0,\n"
    "\t.param .u32 smem_last_param_1\n"
    ")\n"
    "{\n"
    "\t.reg .b32 %r<4>;\n"
    "\t.reg .b64 %rd<6>;\n"
    "\tld.param.u64 %rd1, [smem_last_param_0];\n"
    "\tld.param.u32 %r1, [smem_last_param_1];\n"
    "\tsub.u32 %r2, %r1, 1;\n"
    "\tmul.wide.u32 %rd2, %r2, 4;\n"
    "\tmov.u64 %rd3, dsmem;\n"
    "\tadd.s64 %rd4, %rd3, %rd2;\n"
    "\tst.shared.u32 [%rd4], %r1;\n"
    "\tld.shared.u32 %r3, [%rd4];\n"
    "\tcvta.to.global.u64 %rd5, %rd1;\n"
    "\tst.global.u32 [%rd5], %r3;\n"
    "\tret;\n"
    "}\n";

static const char bad_ptx[] =
    ".version 7.8\n.target sm_90\n.address_size 64\n"
    ".visible .entry bad_kernel(.param .u64 p)\n"
    "{\n\tbogus.instruction %r1;\n\tret;\n}\n";

/* "chain": x f32[?], y f32[?] -> z f32[?], v i64[2], s i32[1]:
 * tmp = x + y (intermediate), z = tmp + y, v = {n*n, -5},
 * s = what smem_last reads back from 100000 bytes of shared memory. */
static unsigned char *chain_bundle(size_t *size) {
  bw_bundle b;
  memset(&b, 0, sizeof b);
  b.num_modules = 2;
  b.modules[0] = (bw_module){"real_ptx", 1, ptx, 90, 78};
  b.modules[1] = (bw_module){"bad_ptx", 1, bad_ptx, 90, 78};
  b.num_fusions = 2;
  bw_fusion *f = &b.fusions[0];
  f->name = "chain";
  f->num_args = 2;
  f->num_results = 3;
  f->num_regs = 13;
  f->num_inter = 1;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"x", 7, 1, {-1}};
  f->tensors[1] = (bw_tensor){"y", 7, 1, {-1}};
  f->tensors[2] = (bw_tensor){"z", 7, 1, {-1}};
  f->tensors[3] = (bw_tensor){"v", 4, 1, {2}};
  f->tensors[4] = (bw_tensor){"s", 3, 1, {1}};
  bw_instr *in = f->instrs;
  uint32_t n = 0;
  in[n++] = bw_op(BW_DIM, 0, 0, 0);
  in[n++] = bw_op(BW_DIM, 1, 1, 0);
  in[n++] = bw_op(BW_DIM, 2, 2, 0);
  in[n++] = bw_op(BW_EQ, 3, 0, 1);
  in[n] = bw_op(BW_ASSERT, 0, 3, 1);
  in[n++].msg = "y has {} elements but x has {}";
  in[n++] = bw_op(BW_EQ, 3, 0, 2);
  in[n] = bw_op(BW_ASSERT, 0, 3, 2);
  in[n++].msg = "z has {} elements but x has {}";
  in[n++] = bw_op(BW_RESULT_DIM, BW_NONE, 0, 2); /* z's size is x's */
  in[n++] = bw_const(3, 4);
  in[n++] = bw_op(BW_MUL, 4, 0, 3);
  in[n++] = bw_op(BW_ALLOC, 0, 5, 4);
  in[n++] = bw_const(5, 256);
  in[n++] = bw_op(BW_CEILDIV, 6, 0, 5);
  in[n++] = bw_const(7, 1);
  in[n++] = bw_const(8, 0);
  in[n++] = bw_const(9, -5);
  in[n++] = bw_op(BW_MUL, 10, 0, 0);
  in[n++] = bw_const(11, 100000);
  in[n++] = bw_const(12, 25000);
  for (uint32_t l = 0; l < 4; l++) in[n++] = bw_op(BW_LAUNCH, 0, l, BW_NONE);
  f->num_instrs = n;
  f->num_launches = 4;
  f->launches[0] = (bw_launch){"add_f32", 4,
                               {{BW_PTR, 0}, {BW_PTR, 1}, {BW_PTR, 5},
                                {BW_I32, 0}},
                               {6, 7, 7}, {5, 7, 7}, 8};
  f->launches[1] = (bw_launch){"add_f32", 4,
                               {{BW_PTR, 5}, {BW_PTR, 1}, {BW_PTR, 2},
                                {BW_I32, 0}},
                               {6, 7, 7}, {5, 7, 7}, 8};
  f->launches[2] = (bw_launch){"store_vals", 3,
                               {{BW_PTR, 3}, {BW_I64, 10}, {BW_I32, 9}},
                               {7, 7, 7}, {7, 7, 7}, 8};
  f->launches[3] = (bw_launch){"smem_last", 2, {{BW_PTR, 4}, {BW_I32, 12}},
                               {7, 7, 7}, {7, 7, 7}, 11};
  f = &b.fusions[1];
  f->name = "bad";
  f->num_regs = 2;
  f->num_dyn = BW_NONE;
  f->ptx_module = 1;
  f->emu_module = BW_NONE;
  f->instrs[0] = bw_const(0, 1);
  f->instrs[1] = bw_const(1, 0);
  f->instrs[2] = bw_op(BW_LAUNCH, 0, 0, BW_NONE);
  f->num_instrs = 3;
  f->num_launches = 1;
  f->launches[0] = (bw_launch){"bad_kernel", 1, {{BW_I64, 0}}, {0, 0, 0},
                               {0, 0, 0}, 1};
  return bw_write(&b, size, NULL);
}

static fuser_rt *rt;
static const fuser_fusion *chain;
static uint64_t dev[5];
static int64_t N;

static bool check_results(const char *what) {
  size_t n = (size_t)N;
  float *z = malloc(n * sizeof *z);
  int64_t v[2] = {0, 0};
  int32_t s = 0;
  bool ok = EXPECT_OK(fuser_device_synchronize(rt)) &&
            EXPECT_OK(fuser_mem_copy_d2h(rt, z, dev[2], n * sizeof *z)) &&
            EXPECT_OK(fuser_mem_copy_d2h(rt, v, dev[3], sizeof v)) &&
            EXPECT_OK(fuser_mem_copy_d2h(rt, &s, dev[4], sizeof s));
  size_t bad = 0;
  for (size_t i = 0; ok && i < n; i++)
    if (z[i] != (float)i + 2.0f * (float)(i % 7)) bad++;
  printf("%s: z %zu/%zu right, v = {%lld, %lld}, s = %d\n", what, n - bad, n,
         (long long)v[0], (long long)v[1], s);
  ok = ok && bad == 0 && v[0] == N * N && v[1] == -5 && s == 25000;
  CHECK(ok);
  free(z);
  return ok;
}

static void *worker(void *arg) {
  (void)arg;
  int64_t dims[3] = {N, N, N};
  for (int i = 0; i < 20; i++) EXPECT_OK(fuser_run(chain, dev, dev + 2, dims, 3, NULL, NULL));
  return NULL;
}

static double cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* GEMM through the machine's cuBLASLt (FUSER_CUBLASLT_LIBRARY, else
 * libcublasLt.so.13 or .12): the linear sample, y = x @ w^T + b in f16, for
 * several row counts and with x at an address only 2-byte aligned (the
 * algorithm must be one that takes it), checked exactly against the host
 * (halves in [-2, 2]: every sum is exact in f16). Skipped, with a message,
 * when cuBLASLt can't be loaded. */
static void check_gemm(void) {
  bw_bundle bb;
  tl_linear_bundle(&bb);
  size_t size;
  unsigned char *bytes = bw_write(&bb, &size, NULL);
  fuser_bundle *b = NULL;
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  free(bytes);
  if (!b) return;
  const fuser_fusion *f = fuser_bundle_find_fusion(b, "linear");
  enum { MAX_ROWS = 1000 };
  uint16_t *x = malloc(sizeof(uint16_t) * MAX_ROWS * 4 + 2), w[20], bias[5];
  uint16_t *y = malloc(sizeof(uint16_t) * MAX_ROWS * 5);
  for (int i = 0; i < MAX_ROWS * 4; i++)
    x[i] = fp_float_to_half((float)((i * 7 + 3) % 9 - 4) * 0.5f);
  for (int i = 0; i < 20; i++)
    w[i] = fp_float_to_half((float)((i * 5 + 1) % 9 - 4) * 0.5f);
  for (int i = 0; i < 5; i++) bias[i] = fp_float_to_half((float)i - 2.0f);
  uint64_t xbuf = 0, io[4] = {0, 0, 0, 0};
  EXPECT_OK(fuser_mem_alloc(rt, sizeof(uint16_t) * MAX_ROWS * 4 + 2, &xbuf));
  EXPECT_OK(fuser_mem_alloc(rt, sizeof w, &io[1]));
  EXPECT_OK(fuser_mem_alloc(rt, sizeof bias, &io[2]));
  EXPECT_OK(fuser_mem_alloc(rt, sizeof(uint16_t) * MAX_ROWS * 5, &io[3]));
  EXPECT_OK(fuser_mem_copy_h2d(rt, io[1], w, sizeof w));
  EXPECT_OK(fuser_mem_copy_h2d(rt, io[2], bias, sizeof bias));
  const int64_t rows[] = {1, 3, 64, MAX_ROWS, 3};
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    int64_t m = rows[r];
    /* The last: x at an odd element, 2-byte aligned. */
    size_t shift = r + 1 == sizeof rows / sizeof rows[0] ? 2 : 0;
    io[0] = xbuf + shift;
    EXPECT_OK(fuser_mem_copy_h2d(rt, io[0], x, sizeof(uint16_t) * (size_t)m * 4));
    int64_t dims[2] = {m, m};
    fuser_error *e = fuser_run(f, io, &io[3], dims, 2, NULL, NULL);
    if (e && fuser_error_code_of(e) == FUSER_ERROR_DRIVER_UNAVAILABLE) {
      printf("GEMM skipped (no cuBLASLt): %s\n", fuser_error_message(e));
      fuser_error_destroy(e);
      break;
    }
    if (!EXPECT_OK(e)) break;
    EXPECT_OK(fuser_device_synchronize(rt));
    EXPECT_OK(fuser_mem_copy_d2h(rt, y, io[3], sizeof(uint16_t) * (size_t)m * 5));
    size_t bad = 0;
    for (int64_t i = 0; i < m; i++)
      for (int j = 0; j < 5; j++) {
        float acc = 0.0f;
        for (int l = 0; l < 4; l++)
          acc += fp_half_to_float(x[i * 4 + l]) * fp_half_to_float(w[j * 4 + l]);
        acc += fp_half_to_float(bias[j]);
        if (y[i * 5 + j] != fp_float_to_half(acc)) bad++;
      }
    printf("GEMM (cuBLASLt) %lld x 5 = x @ w^T + b, x %s: %zu wrong\n",
           (long long)m, shift ? "2-byte aligned" : "256-byte aligned", bad);
    CHECK(bad == 0);
  }
  EXPECT_OK(fuser_mem_free(rt, xbuf));
  for (int q = 1; q < 4; q++) EXPECT_OK(fuser_mem_free(rt, io[q]));
  free(x);
  free(y);
  fuser_bundle_destroy(b);
}

int main(void) {
  fuser_error *e = fuser_rt_create(NULL, &rt);
  if (e) {
    printf("no usable CUDA driver/device, skipped: %s\n", fuser_error_message(e));
    fuser_error_destroy(e);
    return 77;
  }
  size_t size;
  unsigned char *bytes = chain_bundle(&size);
  fuser_bundle *b = NULL;
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  free(bytes);
  if (!b) return tl_finish("test_cuda");
  chain = fuser_bundle_find_fusion(b, "chain");

  N = 100000;
  size_t n = (size_t)N;
  float *x = malloc(n * 4), *y = malloc(n * 4);
  for (size_t i = 0; i < n; i++) {
    x[i] = (float)i;
    y[i] = (float)(i % 7);
  }
  EXPECT_OK(fuser_mem_alloc(rt, n * 4, &dev[0]));
  EXPECT_OK(fuser_mem_alloc(rt, n * 4, &dev[1]));
  EXPECT_OK(fuser_mem_alloc(rt, n * 4, &dev[2]));
  EXPECT_OK(fuser_mem_alloc(rt, 16, &dev[3]));
  EXPECT_OK(fuser_mem_alloc(rt, 4, &dev[4]));
  EXPECT_OK(fuser_mem_copy_h2d(rt, dev[0], x, n * 4));
  EXPECT_OK(fuser_mem_copy_h2d(rt, dev[1], y, n * 4));

  /* First use from 8 threads at once. */
  pthread_t th[8];
  for (int t = 0; t < 8; t++) pthread_create(&th[t], NULL, worker, NULL);
  for (int t = 0; t < 8; t++) pthread_join(th[t], NULL);
  check_results("8 threads x 20 runs");

  /* With user scratch. */
  uint64_t need = 0, scratch = 0;
  int64_t dims[3] = {N, N, N};
  EXPECT_OK(fuser_fusion_scratch_size(chain, dev, dev + 2, dims, 3, &need));
  CHECK(need == 400000);
  EXPECT_OK(fuser_mem_alloc(rt, need, &scratch));
  EXPECT_OK(fuser_mem_copy_h2d(rt, dev[2], x, n * 4)); /* clobber z */
  fuser_run_options ro = {.scratch = scratch, .scratch_size = need};
  EXPECT_OK(fuser_run(chain, dev, dev + 2, dims, 3, NULL, &ro));
  check_results("user scratch");

  /* Mismatched sizes launch nothing. */
  int64_t bad_dims[3] = {N, N - 1, N};
  EXPECT_ERR(fuser_run(chain, dev, dev + 2, bad_dims, 3, NULL, NULL),
             FUSER_ERROR_ASSERTION, "y has 99999 elements but x has 100000");

  /* A real JIT error log. */
  e = fuser_fusion_prepare(fuser_bundle_find_fusion(b, "bad"));
  if (CHECK(e != NULL)) {
    printf("bad PTX: %s\n", fuser_error_message(e));
    CHECK(strstr(fuser_error_message(e), "cuModuleLoadDataEx failed") != NULL);
    CHECK(strstr(fuser_error_message(e), "JIT error log") != NULL);
  }
  fuser_error_destroy(e);

  /* Host time per launch with the real driver (small n: launch bound). */
  int64_t small[3] = {1024, 1024, 1024};
  N = 1024;
  for (int i = 0; i < 200; i++) EXPECT_OK(fuser_run(chain, dev, dev + 2, small, 3, NULL, NULL));
  EXPECT_OK(fuser_device_synchronize(rt));
  int calls = 2000;
  double t0 = cpu_ns();
  for (int i = 0; i < calls; i++) {
    e = fuser_run(chain, dev, dev + 2, small, 3, NULL, NULL);
    if (e) break;
  }
  double t1 = cpu_ns();
  EXPECT_OK(e);
  EXPECT_OK(fuser_device_synchronize(rt));
  printf("real driver: %.0f ns CPU per launch including cuLaunchKernel "
         "(4 launches per call, %d calls)\n",
         (t1 - t0) / (calls * 4.0), calls);
  check_results("after timing");

  check_gemm();

  for (int i = 0; i < 5; i++) EXPECT_OK(fuser_mem_free(rt, dev[i]));
  EXPECT_OK(fuser_mem_free(rt, scratch));
  free(x);
  free(y);
  fuser_bundle_destroy(b);
  fuser_rt_destroy(rt);
  return tl_finish("test_cuda");
}
