/* Runs through the fake CUDA driver, asserting the exact sequence of module
 * loads, function lookups, allocations and launches (kernel names, grid,
 * block, shared memory, stream, every parameter value).
 *
 * usage: test_run FAKE_DRIVER_PATH */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fake;
static char load_line[256];

static const char misc_ptx[] =
    ".version 7.8\n.target sm_80\n.address_size 64\n"
    ".visible .entry k1(.param .u32 n, .param .u64 m) { ret; }\n"
    ".visible .entry k2(.param .u64 p) { ret; }\n"
    ".visible .entry k3(.param .u64 p0, .param .u64 p1, .param .u64 p2,\n"
    "  .param .u64 p3, .param .u64 p4, .param .u64 p5, .param .u64 p6,\n"
    "  .param .u64 p7, .param .u64 p8, .param .u64 p9, .param .u64 p10,\n"
    "  .param .u64 p11, .param .u64 p12, .param .u64 p13, .param .u64 p14)\n"
    "{ ret; }\n";

/* "pred": x i32[?]; launches k1(i32 n, i64 n) when n < 100, then k1 with
 * grid ceildiv(n, 100); asserts n <= 1000000.
 * "arith": x i64[?,?]; computes every arithmetic op on the dims (a, b) and
 * -7, passes them all to k3. */
static unsigned char *misc_bundle(size_t *size) {
  bw_bundle b;
  memset(&b, 0, sizeof b);
  b.num_modules = 1;
  b.modules[0] = (bw_module){"misc", 1, misc_ptx, 80, 78};
  b.num_fusions = 2;
  bw_fusion *f = &b.fusions[0];
  f->name = "pred";
  f->num_args = 1;
  f->num_regs = 8;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"x", 3, 1, {-1}};
  uint32_t n = 0;
  f->instrs[n++] = bw_op(BW_DIM, 0, 0, 0);
  f->instrs[n++] = bw_const(6, 1000000);
  f->instrs[n++] = bw_op(BW_LE, 7, 0, 6);
  f->instrs[n] = bw_op(BW_ASSERT, BW_NONE, 7, 0);
  f->instrs[n++].msg = "x has {} elements, more than {}";
  f->instrs[n++] = bw_const(1, 1);
  f->instrs[n++] = bw_const(2, 0);
  f->instrs[n++] = bw_const(3, 100);
  f->instrs[n++] = bw_op(BW_LT, 4, 0, 3);
  f->instrs[n++] = bw_op(BW_LAUNCH, 0, 0, 4);
  f->instrs[n++] = bw_op(BW_CEILDIV, 5, 0, 3);
  f->instrs[n++] = bw_op(BW_LAUNCH, 0, 1, BW_NONE);
  f->num_instrs = n;
  f->num_launches = 2;
  f->launches[0] = (bw_launch){"k1", 2, {{BW_I32, 0}, {BW_I64, 0}},
                               {1, 1, 1}, {1, 1, 1}, 2};
  f->launches[1] = (bw_launch){"k1", 2, {{BW_I32, 0}, {BW_I64, 0}},
                               {5, 1, 1}, {3, 1, 1}, 2};
  f = &b.fusions[1];
  f->name = "arith";
  f->num_args = 1;
  f->num_regs = 20;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"x", 4, 2, {-1, -1}};
  n = 0;
  f->instrs[n++] = bw_op(BW_DIM, 0, 0, 0);
  f->instrs[n++] = bw_op(BW_DIM, 1, 1, 0);
  f->instrs[n++] = bw_const(2, -7);
  f->instrs[n++] = bw_op(BW_ADD, 3, 0, 1);
  f->instrs[n++] = bw_op(BW_SUB, 4, 0, 1);
  f->instrs[n++] = bw_op(BW_MUL, 5, 0, 1);
  f->instrs[n++] = bw_op(BW_DIV, 6, 2, 1);
  f->instrs[n++] = bw_op(BW_CEILDIV, 7, 0, 1);
  f->instrs[n++] = bw_op(BW_REM, 8, 2, 1);
  f->instrs[n++] = bw_op(BW_MIN, 9, 0, 1);
  f->instrs[n++] = bw_op(BW_MAX, 10, 0, 1);
  f->instrs[n++] = bw_op(BW_EQ, 11, 0, 1);
  f->instrs[n++] = bw_op(BW_NE, 12, 0, 1);
  f->instrs[n++] = bw_op(BW_LT, 13, 0, 1);
  f->instrs[n++] = bw_op(BW_LE, 14, 0, 1);
  f->instrs[n++] = bw_op(BW_AND, 15, 0, 1);
  f->instrs[n++] = bw_op(BW_OR, 16, 0, 1);
  f->instrs[n] = bw_op(BW_SELECT, 17, 13, 0);
  f->instrs[n++].imm = 1;
  f->instrs[n++] = bw_const(18, 1);
  f->instrs[n++] = bw_const(19, 0);
  f->instrs[n++] = bw_op(BW_LAUNCH, 0, 0, BW_NONE);
  f->num_instrs = n;
  f->num_launches = 1;
  bw_launch *l = &f->launches[0];
  *l = (bw_launch){"k3", 15, {{0}}, {18, 18, 18}, {18, 18, 18}, 19};
  for (uint32_t p = 0; p < 15; p++) l->params[p] = (bw_param){BW_I64, 3 + p};
  return bw_write(&b, size, NULL);
}

/* "split": x f32[?] -> y f32[?], z f32[?]; one launch k(x, y, z, i32 n). */
static const char split_ptx[] =
    ".version 7.8\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 .ptr a, .param .u64 .ptr b,"
    " .param .u64 .ptr c, .param .u32 n) { ret; }\n";

static unsigned char *split_bundle(size_t *size) {
  bw_bundle b;
  memset(&b, 0, sizeof b);
  b.num_modules = 1;
  b.modules[0] = (bw_module){"split", 1, split_ptx, 90, 78};
  b.num_fusions = 1;
  bw_fusion *f = &b.fusions[0];
  f->name = "split";
  f->num_args = 1;
  f->num_results = 2;
  f->num_regs = 4;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"x", 7, 1, {-1}};
  f->tensors[1] = (bw_tensor){"y", 7, 1, {-1}};
  f->tensors[2] = (bw_tensor){"z", 7, 1, {-1}};
  uint32_t n = 0;
  f->instrs[n++] = bw_op(BW_DIM, 0, 0, 0);
  f->instrs[n++] = bw_op(BW_RESULT_DIM, BW_NONE, 0, 1);
  f->instrs[n++] = bw_op(BW_RESULT_DIM, BW_NONE, 0, 2);
  f->instrs[n++] = bw_const(1, 1);
  f->instrs[n++] = bw_const(2, 0);
  f->instrs[n++] = bw_op(BW_LAUNCH, 0, 0, BW_NONE);
  f->num_instrs = n;
  f->num_launches = 1;
  f->launches[0] = (bw_launch){"k", 4,
                               {{BW_PTR, 0}, {BW_PTR, 1}, {BW_PTR, 2},
                                {BW_I32, 0}},
                               {1, 1, 1}, {1, 1, 1}, 2};
  return bw_write(&b, size, NULL);
}

/* The caller's buffers are checked before anything runs: a result shares
 * no byte with an argument, another result or the user scratch (no fusion
 * runs in place: an in-place transpose gave wrong numbers); a non-empty
 * tensor is not at device address 0 and does not run past 2^64. Ranges come
 * from each tensor's dims for the call; empty tensors touch nothing. The
 * addresses are never dereferenced (the fake driver only logs). */
static void test_buffers(void) {
  fuser_rt *rt = tl_fake_rt(fake);
  size_t size;
  unsigned char *bytes = split_bundle(&size);
  fuser_bundle *b = NULL;
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  free(bytes);
  if (!b) return;
  const fuser_fusion *f = fuser_bundle_find_fusion(b, "split");
  /* (infer_dims: the results' entries are its output; any value goes in.) */
  int64_t unknown[3] = {16, -1, INT64_MIN}, inferred[3];
  EXPECT_OK(fuser_fusion_infer_dims(f, unknown, 3, inferred));
  CHECK(inferred[0] == 16 && inferred[1] == 16 && inferred[2] == 16);
  int64_t dims[3] = {16, 16, 16}; /* 64 bytes each */
  uint64_t x = 0x10000, r[2] = {0x20000, 0x30000};
  EXPECT_OK(fuser_run(f, &x, r, dims, 3, NULL, NULL));
  /* Adjacent is fine. */
  r[0] = x + 64;
  r[1] = x + 128;
  EXPECT_OK(fuser_run(f, &x, r, dims, 3, NULL, NULL));
  tl_log_clear();

  r[0] = x; /* in place */
  EXPECT_ERR(fuser_run(f, &x, r, dims, 3, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fusion 'split': result 0 'y' (0x10000 .. 0x10040) overlaps "
             "argument 0 'x' (0x10000 .. 0x10040); a result may share memory "
             "with no argument, result or scratch (no fusion runs in place)");
  r[0] = x + 60; /* by 4 bytes */
  EXPECT_ERR(fuser_run(f, &x, r, dims, 3, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "result 0 'y' (0x1003c .. 0x1007c) overlaps argument 0 'x' "
             "(0x10000 .. 0x10040)");
  r[0] = x - 4; /* the other side */
  EXPECT_ERR(fuser_run(f, &x, r, dims, 3, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "result 0 'y' (0xfffc .. 0x1003c) overlaps argument 0 'x'");
  r[0] = 0x20000;
  r[1] = 0x20020; /* two results */
  EXPECT_ERR(fuser_run(f, &x, r, dims, 3, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "result 1 'z' (0x20020 .. 0x20060) overlaps result 0 'y' "
             "(0x20000 .. 0x20040)");
  /* A result inside a larger argument. */
  int64_t mixed[3] = {1024, 16, 16};
  r[1] = x + 1000;
  EXPECT_ERR(fuser_run(f, &x, r, mixed, 3, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "result 1 'z' (0x103e8 .. 0x10428) overlaps argument 0 'x' "
             "(0x10000 .. 0x11000)");
  /* The user scratch is written too. */
  r[1] = 0x30000;
  fuser_run_options ro = {.scratch = 0x30000, .scratch_size = 256};
  EXPECT_ERR(fuser_run(f, &x, r, dims, 3, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "the user scratch (0x30000 .. 0x30100) overlaps result 1 'z' "
             "(0x30000 .. 0x30040)");
  ro.scratch = 0x10000;
  EXPECT_ERR(fuser_run(f, &x, r, dims, 3, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "the user scratch (0x10000 .. 0x10100) overlaps argument 0 'x'");
  ro.scratch = 0xFFFFFFFFFFFFFF00ull;
  EXPECT_ERR(fuser_run(f, &x, r, dims, 3, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "the user scratch (256 bytes at 0xffffffffffffff00) runs past "
             "the end of the address space");
  /* Address 0, and ranges past 2^64. */
  uint64_t zero = 0;
  EXPECT_ERR(fuser_run(f, &zero, r, dims, 3, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fusion 'split': argument 0 'x' (64 bytes) is at device address 0");
  r[1] = 0;
  EXPECT_ERR(fuser_run(f, &x, r, dims, 3, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "result 1 'z' (64 bytes) is at device address 0");
  r[1] = 0xFFFFFFFFFFFFFFF0ull;
  EXPECT_ERR(fuser_run(f, &x, r, dims, 3, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "result 1 'z' (64 bytes at 0xfffffffffffffff0) runs past the end "
             "of the address space");
  EXPECT_NO_LOG();
  /* Many buffers (more than 8: sorted, not compared pair by pair). */
  {
    bw_bundle wb;
    memset(&wb, 0, sizeof wb);
    wb.num_modules = 1;
    wb.modules[0] = (bw_module){"split", 1, split_ptx, 90, 78};
    wb.num_fusions = 1;
    bw_fusion *w = &wb.fusions[0];
    w->name = "wide";
    w->num_args = 7;
    w->num_results = 3;
    w->num_regs = 3;
    w->num_dyn = BW_NONE;
    w->emu_module = BW_NONE;
    static const char *const names[10] = {"a0", "a1", "a2", "a3", "a4",
                                          "a5", "a6", "r0", "r1", "r2"};
    for (int t = 0; t < 10; t++)
      w->tensors[t] = (bw_tensor){names[t], 7, 1, {16}};
    w->instrs[0] = bw_const(0, 16);
    w->instrs[1] = bw_const(1, 1);
    w->instrs[2] = bw_const(2, 0);
    w->instrs[3] = bw_op(BW_LAUNCH, 0, 0, BW_NONE);
    w->num_instrs = 4;
    w->num_launches = 1;
    w->launches[0] = (bw_launch){"k", 4,
                                 {{BW_PTR, 0}, {BW_PTR, 7}, {BW_PTR, 8},
                                  {BW_I32, 0}},
                                 {1, 1, 1}, {1, 1, 1}, 2};
    size_t wsize;
    unsigned char *wbytes = bw_write(&wb, &wsize, NULL);
    fuser_bundle *b2 = NULL;
    EXPECT_OK(fuser_bundle_load(rt, wbytes, wsize, &b2));
    free(wbytes);
    const fuser_fusion *wf = fuser_bundle_find_fusion(b2, "wide");
    uint64_t io[10];
    for (int t = 0; t < 10; t++) io[t] = 0x100000 * (uint64_t)(10 - t);
    io[3] = io[1] + 8; /* arguments may overlap each other */
    EXPECT_OK(fuser_run(wf, io, io + 7, NULL, 0, NULL, NULL));
    io[8] = io[5] + 60; /* the last byte of a5 */
    EXPECT_ERR(fuser_run(wf, io, io + 7, NULL, 0, NULL, NULL),
               FUSER_ERROR_INVALID_ARGUMENT,
               "fusion 'wide': result 1 'r1' (0x50003c .. 0x50007c) overlaps "
               "argument 5 'a5' (0x500000 .. 0x500040)");
    io[8] = 0x200000;
    io[9] = io[7] + 32; /* two results */
    EXPECT_ERR(fuser_run(wf, io, io + 7, NULL, 0, NULL, NULL),
               FUSER_ERROR_INVALID_ARGUMENT,
               "result 2 'r2' (0x300020 .. 0x300060) overlaps result 0 'r0'");
    io[9] = 0x100000;
    io[0] = 0x2ffff0; /* a long-reaching argument found past others */
    EXPECT_ERR(fuser_run(wf, io, io + 7, NULL, 0, NULL, NULL),
               FUSER_ERROR_INVALID_ARGUMENT,
               "result 0 'r0' (0x300000 .. 0x300040) overlaps argument 0 'a0'");
    tl_log_clear();
    fuser_bundle_destroy(b2);
  }
  /* Empty tensors touch nothing: address 0 and any overlap are fine. */
  int64_t empty[3] = {0, 0, 0};
  r[0] = 0;
  r[1] = 0;
  EXPECT_OK(fuser_run(f, &zero, r, empty, 3, NULL, NULL));
  tl_log_clear();
  fuser_bundle_destroy(b);
  fuser_rt_destroy(rt);
  tl_log_clear();
}

/* "view": x f32[?,8] strides [?,1] (rows a stride apart that the caller
 * passes, each row contiguous), b f32[4,1,8] strides [0,0,1] (one row
 * expanded), w f32[1,8] dense -> y f32[?,8]. STRIDE r1 = x's row stride,
 * passed to the kernel; an intermediate of r1 * 4 bytes shows it in
 * fuser_fusion_scratch_size. */
static const char view_ptx[] =
    ".version 7.8\n.target sm_90\n.address_size 64\n"
    ".visible .entry vk(.param .u64 .ptr x, .param .u64 .ptr b,"
    " .param .u64 .ptr w, .param .u64 .ptr y, .param .u64 xs,"
    " .param .u32 rows) { ret; }\n";

static unsigned char *view_bundle(size_t *size) {
  bw_bundle b;
  memset(&b, 0, sizeof b);
  b.num_modules = 1;
  b.modules[0] = (bw_module){"view", 1, view_ptx, 90, 78};
  b.num_fusions = 1;
  bw_fusion *f = &b.fusions[0];
  f->name = "view";
  f->num_args = 3;
  f->num_results = 1;
  f->num_regs = 6;
  f->num_inter = 1;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"x", 7, 2, {-1, 8}};
  f->tensors[1] = (bw_tensor){"b", 7, 3, {4, 1, 8}};
  f->tensors[2] = (bw_tensor){"w", 7, 2, {1, 8}};
  f->tensors[3] = (bw_tensor){"y", 7, 2, {-1, 8}};
  bw_set_strides(f, 0, (const int64_t[]){-1, 1});
  bw_set_strides(f, 1, (const int64_t[]){0, 0, 1});
  uint32_t n = 0;
  f->instrs[n++] = bw_op(BW_DIM, 0, 0, 0);
  f->instrs[n++] = bw_op(BW_RESULT_DIM, BW_NONE, 0, 1);
  f->instrs[n++] = bw_op(BW_STRIDE, 1, 0, 0);
  f->instrs[n++] = bw_const(2, 4);
  f->instrs[n++] = bw_op(BW_MUL, 3, 1, 2);
  f->instrs[n++] = bw_op(BW_ALLOC, 0, 4, 3);
  f->instrs[n++] = bw_const(4, 1);
  f->instrs[n++] = bw_const(5, 0);
  f->instrs[n++] = bw_op(BW_LAUNCH, 0, 0, BW_NONE);
  f->num_instrs = n;
  f->num_launches = 1;
  f->launches[0] = (bw_launch){"vk", 6,
                               {{BW_PTR, 0}, {BW_PTR, 1}, {BW_PTR, 2},
                                {BW_PTR, 3}, {BW_I64, 1}, {BW_I32, 0}},
                               {4, 4, 4}, {4, 4, 4}, 5};
  return bw_write(&b, size, NULL);
}

/* Strided arguments (views): STRIDE reads the stride the caller passed (the
 * dense one when it passed none, and in the queries); each call's strides
 * are checked before anything runs (>= 0; the static ones the argument was
 * compiled with, or dense for an argument compiled dense, except on dims
 * of size 1 and on empty tensors); an argument's bytes in the address-0
 * and overlap checks are the span of its view. The addresses are never
 * dereferenced: parameters show as numbers (0x10000 is 65536). */
static void test_views(void) {
  fuser_rt *rt = tl_fake_rt(fake);
  size_t size;
  unsigned char *bytes = view_bundle(&size);
  fuser_bundle *bundle = NULL;
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &bundle));
  free(bytes);
  if (!bundle) return;
  const fuser_fusion *f = fuser_bundle_find_fusion(bundle, "view");
  const fuser_tensor_info *x = fuser_fusion_arg(f, 0),
                          *b = fuser_fusion_arg(f, 1),
                          *w = fuser_fusion_arg(f, 2);
  CHECK(x->strides && x->strides[0] == -1 && x->strides[1] == 1);
  CHECK(b->strides && b->strides[0] == 0 && b->strides[2] == 1);
  CHECK(w->strides == NULL && fuser_fusion_result(f, 0)->strides == NULL);
  /* The queries run the plan without strides: STRIDE is x's dense row
   * stride, 8 (an intermediate of 32 bytes), even for no rows. */
  int64_t dims[2] = {3, 3}, none[2] = {0, 0};
  uint64_t need = 0;
  EXPECT_OK(fuser_fusion_scratch_size(f, NULL, NULL, dims, 2, &need));
  CHECK(need == 32);
  EXPECT_OK(fuser_fusion_scratch_size(f, NULL, NULL, none, 2, &need));
  CHECK(need == 32);
  int64_t inferred[2] = {3, -1};
  EXPECT_OK(fuser_fusion_infer_dims(f, inferred, 2, inferred));
  CHECK(inferred[1] == 3);
  EXPECT_OK(fuser_fusion_prepare(f));
  tl_log_clear();
  /* fuser_fusion_tensor_bytes stays the dense size: 4 x 1 x 8 f32. */
  uint64_t tb = 0;
  EXPECT_OK(fuser_fusion_tensor_bytes(f, 1, dims, 2, &tb));
  CHECK(tb == 128);

  uint64_t args[3] = {0x10000, 0x20000, 0x30000}, y = 0x40000;
  const int64_t bs[3] = {0, 0, 1};
  const int64_t *strides[3] = {NULL, bs, NULL};
  fuser_run_options ro = {.scratch = 0x80000, .scratch_size = 4096,
                          .arg_strides = strides};
  /* b was compiled expanded: passed dense, it does not match. */
  fuser_run_options dense = {.scratch = 0x80000, .scratch_size = 4096};
  EXPECT_ERR(fuser_run(f, args, &y, dims, 2, NULL, &dense),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fusion 'view': argument 1 'b' is passed dense, strides [8,8,1] "
             "(dims [4,1,8]) but was compiled with strides [0,0,1]: dim 0 has "
             "stride 8, not 0 (a static stride must match, except on a dim of "
             "size 1); pass its strides in fuser_run_options.arg_strides");
  EXPECT_ERR(fuser_run(f, args, &y, dims, 2, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT, "argument 1 'b' is passed dense");
  EXPECT_NO_LOG();
  /* x passed dense (a NULL entry): STRIDE gives its dense row stride. */
  EXPECT_OK(fuser_run(f, args, &y, dims, 2, NULL, &ro));
  EXPECT_LOG("cuLaunchKernel name=vk grid=1,1,1 block=1,1,1 smem=0 "
             "stream=(nil) params=65536,131072,196608,262144,8,3");
  /* Rows of a wider matrix, and a transposed one: the caller's strides. */
  const int64_t wide[2] = {16, 1}, transposed[2] = {1, 3};
  strides[0] = wide;
  EXPECT_OK(fuser_run(f, args, &y, dims, 2, NULL, &ro));
  EXPECT_LOG("cuLaunchKernel name=vk grid=1,1,1 block=1,1,1 smem=0 "
             "stream=(nil) params=65536,131072,196608,262144,16,3");
  /* ...but x's static stride of 1 must hold. */
  strides[0] = transposed;
  EXPECT_ERR(fuser_run(f, args, &y, dims, 2, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fusion 'view': argument 0 'x' is passed with strides [1,3] (dims "
             "[3,8]) but was compiled with strides [?,1]: dim 1 has stride 3, "
             "not 1 (a static stride must match, except on a dim of size 1)");
  const int64_t negative[2] = {-8, 1};
  strides[0] = negative;
  EXPECT_ERR(fuser_run(f, args, &y, dims, 2, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fusion 'view': argument 0 'x' is passed with strides [-8,1] (dims "
             "[3,8]): stride 0 is -8; strides can't be negative");
  /* A caller's -1 is written as -1, not as the bundle's "?" (a stride
   * known only at launch). */
  const int64_t minus_one[2] = {-1, 1};
  strides[0] = minus_one;
  EXPECT_ERR(fuser_run(f, args, &y, dims, 2, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fusion 'view': argument 0 'x' is passed with strides [-1,1] (dims "
             "[3,8]): stride 0 is -1; strides can't be negative");
  strides[0] = NULL;
  /* A dim of size 1 takes any stride. */
  const int64_t bs_odd[3] = {0, 12345, 1}, bs_bad[3] = {0, 0, 2};
  strides[1] = bs_odd;
  EXPECT_OK(fuser_run(f, args, &y, dims, 2, NULL, &ro));
  strides[1] = bs_bad;
  EXPECT_ERR(fuser_run(f, args, &y, dims, 2, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "argument 1 'b' is passed with strides [0,0,2] (dims [4,1,8]) but "
             "was compiled with strides [0,0,1]: dim 2 has stride 2, not 1");
  strides[1] = bs;
  /* An argument compiled dense takes dense strides only (its kernels index
   * it row-major), any on a dim of size 1. */
  const int64_t w_ok[2] = {99, 1}, w_bad[2] = {8, 2}, w_expanded[2] = {0, 0};
  strides[2] = w_ok;
  EXPECT_OK(fuser_run(f, args, &y, dims, 2, NULL, &ro));
  strides[2] = w_bad;
  EXPECT_ERR(fuser_run(f, args, &y, dims, 2, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fusion 'view': argument 2 'w' is passed with strides [8,2] (dims "
             "[1,8]) but was compiled dense, strides [8,1]: dim 1 has stride 2, "
             "not 1; the argument was compiled dense; declare its strides with "
             "fuser.strides (docs/dialect.md)");
  strides[2] = w_expanded;
  EXPECT_ERR(fuser_run(f, args, &y, dims, 2, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "argument 2 'w' is passed with strides [0,0]", "compiled dense");
  strides[2] = NULL;
  tl_log_clear();
  /* An empty tensor takes any strides >= 0: it touches nothing. */
  strides[0] = transposed;
  EXPECT_OK(fuser_run(f, args, &y, none, 2, NULL, &ro));
  EXPECT_LOG("cuLaunchKernel name=vk grid=1,1,1 block=1,1,1 smem=0 "
             "stream=(nil) params=65536,131072,196608,262144,1,0");
  strides[0] = negative;
  EXPECT_ERR(fuser_run(f, args, &y, none, 2, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT, "stride 0 is -8; strides can't be negative");

  /* The span: x of 3 rows 16 elements apart reaches (1 + 2*16 + 7*1) * 4 =
   * 160 bytes, not 96: a result right after 96 bytes overlaps it... */
  strides[0] = wide;
  uint64_t y_near = 0x10060, y_after = 0x100a0;
  EXPECT_ERR(fuser_run(f, args, &y_near, dims, 2, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fusion 'view': result 0 'y' (0x10060 .. 0x100c0) overlaps "
             "argument 0 'x' (0x10000 .. 0x100a0)");
  EXPECT_OK(fuser_run(f, args, &y_after, dims, 2, NULL, &ro));
  /* ...and b, expanded, only (1 + 7) * 4 = 32 bytes, not 128. */
  uint64_t y_after_b = 0x20020;
  EXPECT_OK(fuser_run(f, args, &y_after_b, dims, 2, NULL, &ro));
  uint64_t y_in_b = 0x2001c;
  EXPECT_ERR(fuser_run(f, args, &y_in_b, dims, 2, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "result 0 'y' (0x2001c .. 0x2007c) overlaps argument 1 'b' "
             "(0x20000 .. 0x20020)");
  tl_log_clear();
  /* Address 0 with the span's bytes; a span of 2^63 bytes or more. */
  uint64_t at0[3] = {0, 0x20000, 0x30000};
  EXPECT_ERR(fuser_run(f, at0, &y, dims, 2, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fusion 'view': argument 0 'x' (160 bytes) is at device address 0");
  const int64_t far[2] = {INT64_C(1) << 61, 1};
  strides[0] = far;
  EXPECT_ERR(fuser_run(f, args, &y, dims, 2, NULL, &ro),
             FUSER_ERROR_OUT_OF_RANGE,
             "fusion 'view': argument 0 'x', passed with strides "
             "[2305843009213693952,1] (dims [3,8]), spans 2^63 bytes or more");
  /* The span, not the dims, may end past 2^64. */
  strides[0] = wide;
  uint64_t high[3] = {0xFFFFFFFFFFFFFF80ull, 0x20000, 0x30000};
  EXPECT_ERR(fuser_run(f, high, &y, dims, 2, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT,
             "argument 0 'x' (160 bytes at 0xffffffffffffff80) runs past the end "
             "of the address space");
  EXPECT_NO_LOG();
  fuser_bundle_destroy(bundle);
  fuser_rt_destroy(rt);
  tl_log_clear();
}

static uint32_t fnv1a(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static void test_softmax(fuser_rt *rt) {
  size_t size;
  unsigned char *bytes = tl_sample_bytes(&size, NULL);
  fuser_bundle *b = NULL;
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  free(bytes);
  if (!b) return;
  /* Loading touches nothing on the device. */
  EXPECT_NO_LOG();
  const fuser_fusion *f = fuser_bundle_find_fusion(b, "softmax");
  /* Room for the largest dims below (2 x 30000 f32): fuser_run refuses
   * buffers that would overlap at the call's dims. */
  uint64_t x = 0, y = 0;
  EXPECT_OK(fuser_mem_alloc(rt, 256 * 1024, &x));
  EXPECT_OK(fuser_mem_alloc(rt, 256 * 1024, &y));
  EXPECT_LOG("cuMemAlloc_v2 bytes=262144 -> buf0", "cuMemAlloc_v2 bytes=262144 -> buf1");

  int64_t dims[4] = {3, 5, 3, 5};
  EXPECT_OK(fuser_run(f, &x, &y, dims, 4, NULL, NULL));
  EXPECT_LOG(load_line,
             "cuModuleGetFunction module=m0 name=softmax_max",
             "cuModuleGetFunction module=m0 name=softmax_vec4",
             "cuModuleGetFunction module=m0 name=softmax_norm",
             "cuModuleGetFunction module=m0 name=add_kernel",
             "cuMemAlloc_v2 bytes=256 -> buf2",
             "cuLaunchKernel name=softmax_max grid=3,1,1 block=256,1,1 smem=0 "
             "stream=(nil) params=buf0,buf2,5,3",
             "cuLaunchKernel name=softmax_vec4 grid=3,1,1 block=256,1,1 smem=20 "
             "stream=(nil) params=buf0,buf2,buf1,2");

  /* Warm: no load, and the intermediate comes back on the same stream. */
  EXPECT_OK(fuser_run(f, &x, &y, dims, 4, NULL, NULL));
  EXPECT_LOG("cuLaunchKernel name=softmax_max grid=3,1,1 block=256,1,1 smem=0 "
             "stream=(nil) params=buf0,buf2,5,3",
             "cuLaunchKernel name=softmax_vec4 grid=3,1,1 block=256,1,1 smem=20 "
             "stream=(nil) params=buf0,buf2,buf1,2");

  /* Unaligned argument: the fallback kernel, with i64 rows. */
  uint64_t x4 = x + 4;
  int64_t dims2[4] = {7, 9, 7, 9};
  EXPECT_OK(fuser_run(f, &x4, &y, dims2, 4, NULL, NULL));
  EXPECT_LOG("cuLaunchKernel name=softmax_max grid=7,1,1 block=256,1,1 smem=0 "
             "stream=(nil) params=buf0+4,buf2,9,7",
             "cuLaunchKernel name=softmax_norm grid=7,1,1 block=256,1,1 "
             "smem=36 stream=(nil) params=buf0+4,buf2,buf1,9,7");

  /* Another stream may not take a block still pending on the first... */
  void *s1 = (void *)(uintptr_t)0x5000, *s2 = (void *)(uintptr_t)0x6000;
  EXPECT_OK(fuser_run(f, &x, &y, dims, 4, s1, NULL));
  EXPECT_LOG("cuMemAlloc_v2 bytes=256 -> buf3",
             "cuLaunchKernel name=softmax_max grid=3,1,1 block=256,1,1 smem=0 "
             "stream=0x5000 params=buf0,buf3,5,3",
             "cuLaunchKernel name=softmax_vec4 grid=3,1,1 block=256,1,1 smem=20 "
             "stream=0x5000 params=buf0,buf3,buf1,2");
  /* ...until that stream is synchronized. */
  EXPECT_OK(fuser_stream_synchronize(rt, NULL));
  EXPECT_OK(fuser_run(f, &x, &y, dims, 4, s2, NULL));
  EXPECT_LOG("cuLaunchKernel name=softmax_max grid=3,1,1 block=256,1,1 smem=0 "
             "stream=0x6000 params=buf0,buf2,5,3",
             "cuLaunchKernel name=softmax_vec4 grid=3,1,1 block=256,1,1 smem=20 "
             "stream=0x6000 params=buf0,buf2,buf1,2");
  /* A bigger intermediate is a new size class. */
  int64_t dims3[4] = {100, 5, 100, 5};
  EXPECT_OK(fuser_run(f, &x, &y, dims3, 4, s2, NULL));
  EXPECT_LOG("cuMemAlloc_v2 bytes=448 -> buf4",
             "cuLaunchKernel name=softmax_max grid=100,1,1 block=256,1,1 smem=0 "
             "stream=0x6000 params=buf0,buf4,5,100",
             "cuLaunchKernel name=softmax_vec4 grid=100,1,1 block=256,1,1 "
             "smem=20 stream=0x6000 params=buf0,buf4,buf1,2");
  fuser_rt_stats st;
  fuser_rt_get_stats(rt, &st);
  CHECK(st.driver_allocs == 3 && st.in_use_bytes == 0 &&
        st.cached_bytes == 256 + 256 + 448);
  /* After the whole device is synchronized any stream takes any block. */
  EXPECT_OK(fuser_device_synchronize(rt));

  /* Mismatched dims: a clear message and nothing launched or allocated. */
  int64_t bad_rows[4] = {3, 5, 4, 5};
  EXPECT_ERR(fuser_run(f, &x, &y, bad_rows, 4, NULL, NULL),
             FUSER_ERROR_ASSERTION,
             "fusion 'softmax': instruction 5 (ASSERT) failed: y has 4 rows but "
             "x has 3");
  int64_t bad_cols[4] = {3, 5, 3, 6};
  EXPECT_ERR(fuser_run(f, &x, &y, bad_cols, 4, NULL, NULL),
             FUSER_ERROR_ASSERTION,
             "instruction 7 (ASSERT) failed: y has 6 columns but x has 5");
  EXPECT_NO_LOG();

  /* Bad calls. */
  EXPECT_ERR(fuser_run(f, &x, &y, dims, 3, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fusion 'softmax' takes 4 dynamic dims, got 3");
  EXPECT_ERR(fuser_run(f, NULL, &y, dims, 4, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fuser_run: NULL args (fusion 'softmax' takes 1 arguments)");
  EXPECT_ERR(fuser_run(f, &x, NULL, dims, 4, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fuser_run: NULL results (fusion 'softmax' has 1 results)");
  EXPECT_ERR(fuser_run(f, &x, &y, NULL, 4, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "fuser_run: NULL dyn_dims (fusion 'softmax' takes 4 dynamic dims)");
  int64_t neg[4] = {3, -5, 3, 5};
  EXPECT_ERR(fuser_run(f, &x, &y, neg, 4, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT,
             "dynamic dim 1 (dim 1 of 'x') is -5");
  EXPECT_ERR(fuser_run(NULL, &x, &y, dims, 4, NULL, NULL),
             FUSER_ERROR_INVALID_ARGUMENT, "NULL fusion");

  /* More than 48 KiB of dynamic shared memory: the attribute is raised
   * once, and again only for a larger need. */
  int64_t wide[4] = {2, 20000, 2, 20000};
  EXPECT_OK(fuser_run(f, &x, &y, wide, 4, NULL, NULL));
  EXPECT_OK(fuser_run(f, &x, &y, wide, 4, NULL, NULL));
  int64_t wide2[4] = {2, 15000, 2, 15000};
  EXPECT_OK(fuser_run(f, &x, &y, wide2, 4, NULL, NULL));
  int64_t wider[4] = {2, 30000, 2, 30000};
  EXPECT_OK(fuser_run(f, &x, &y, wider, 4, NULL, NULL));
  EXPECT_LOG("cuLaunchKernel name=softmax_max grid=2,1,1 block=256,1,1 smem=0 "
             "stream=(nil) params=buf0,buf2,20000,2",
             "cuFuncSetAttribute name=softmax_vec4 attr=8 value=80000",
             "cuLaunchKernel name=softmax_vec4 grid=2,1,1 block=256,1,1 "
             "smem=80000 stream=(nil) params=buf0,buf2,buf1,5000",
             "cuLaunchKernel name=softmax_max grid=2,1,1 block=256,1,1 smem=0 "
             "stream=(nil) params=buf0,buf2,20000,2",
             "cuLaunchKernel name=softmax_vec4 grid=2,1,1 block=256,1,1 "
             "smem=80000 stream=(nil) params=buf0,buf2,buf1,5000",
             "cuLaunchKernel name=softmax_max grid=2,1,1 block=256,1,1 smem=0 "
             "stream=(nil) params=buf0,buf2,15000,2",
             "cuLaunchKernel name=softmax_vec4 grid=2,1,1 block=256,1,1 "
             "smem=60000 stream=(nil) params=buf0,buf2,buf1,3750",
             "cuLaunchKernel name=softmax_max grid=2,1,1 block=256,1,1 smem=0 "
             "stream=(nil) params=buf0,buf2,30000,2",
             "cuFuncSetAttribute name=softmax_vec4 attr=8 value=120000",
             "cuLaunchKernel name=softmax_vec4 grid=2,1,1 block=256,1,1 "
             "smem=120000 stream=(nil) params=buf0,buf2,buf1,7500");
  /* An i32 parameter that doesn't fit fails before anything launches.
   * (Buffers of 16 GiB each, at addresses nothing dereferences: x's and
   * y's would overlap at these dims.) */
  int64_t huge[4] = {2, 1ll << 31, 2, 1ll << 31};
  uint64_t far_x = 1ull << 40, far_y = 2ull << 40;
  EXPECT_ERR(fuser_run(f, &far_x, &far_y, huge, 4, NULL, NULL),
             FUSER_ERROR_OUT_OF_RANGE,
             "fusion 'softmax': instruction 15 (LAUNCH): launch 0 "
             "'softmax_max': parameter 2 is i32 but register 1 holds "
             "2147483648, which does not fit in 32 bits");
  EXPECT_NO_LOG();

  /* User scratch: the query, a run carving from it, too small, unaligned. */
  uint64_t need = 0;
  EXPECT_OK(fuser_fusion_scratch_size(f, NULL, NULL, dims, 4, &need));
  CHECK(need == 12);
  EXPECT_OK(fuser_fusion_scratch_size(f, &x, &y, dims3, 4, &need));
  CHECK(need == 400);
  EXPECT_ERR(fuser_fusion_scratch_size(f, NULL, NULL, bad_rows, 4, &need),
             FUSER_ERROR_ASSERTION, "y has 4 rows but x has 3");
  uint64_t scratch = 0;
  EXPECT_OK(fuser_mem_alloc(rt, 1024, &scratch));
  fuser_run_options ro = {.scratch = scratch, .scratch_size = 1024};
  EXPECT_OK(fuser_run(f, &x, &y, dims3, 4, NULL, &ro));
  EXPECT_LOG("cuMemAlloc_v2 bytes=1024 -> buf5",
             "cuLaunchKernel name=softmax_max grid=100,1,1 block=256,1,1 smem=0 "
             "stream=(nil) params=buf0,buf5,5,100",
             "cuLaunchKernel name=softmax_vec4 grid=100,1,1 block=256,1,1 "
             "smem=20 stream=(nil) params=buf0,buf5,buf1,2");
  ro.scratch_size = 399;
  EXPECT_ERR(fuser_run(f, &x, &y, dims3, 4, NULL, &ro),
             FUSER_ERROR_OUT_OF_MEMORY,
             "fusion 'softmax': instruction 10 (ALLOC): the user scratch of 399 "
             "bytes is too small: intermediate buffer 2 needs bytes 0 .. 400");
  ro.scratch = scratch + 8;
  ro.scratch_size = 1000;
  EXPECT_ERR(fuser_run(f, &x, &y, dims3, 4, NULL, &ro),
             FUSER_ERROR_INVALID_ARGUMENT, "is not 256-byte aligned");
  EXPECT_NO_LOG();

  /* The other fusion of the module: no second load. */
  const fuser_fusion *add = fuser_bundle_find_fusion(b, "add");
  uint64_t io[3] = {x, y, scratch};
  EXPECT_OK(fuser_run(add, io, io + 2, NULL, 0, NULL, NULL));
  EXPECT_LOG("cuLaunchKernel name=add_kernel grid=4,1,1 block=256,1,1 smem=0 "
             "stream=(nil) params=buf0,buf1,buf5,1024");

  /* The runtime outlives the caller's reference while a bundle holds one. */
  EXPECT_OK(fuser_mem_free(rt, x));
  EXPECT_OK(fuser_mem_free(rt, y));
  EXPECT_OK(fuser_mem_free(rt, scratch));
  fuser_rt_destroy(rt);
  CHECK(tl_fake_hook(fake, "fuser_fake_context_refs") == 1);
  fuser_bundle_destroy(b);
  EXPECT_LOG("cuMemFree_v2 buf0", "cuMemFree_v2 buf1", "cuMemFree_v2 buf5",
             "cuModuleUnload module=m0", "cuMemFree_v2 buf4",
             "cuMemFree_v2 buf3", "cuMemFree_v2 buf2");
}

static void test_misc(void) {
  fuser_rt *rt = tl_fake_rt(fake);
  size_t size;
  unsigned char *bytes = misc_bundle(&size);
  fuser_bundle *b = NULL;
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  free(bytes);
  if (!b) return;
  const fuser_fusion *pred = fuser_bundle_find_fusion(b, "pred");
  uint64_t x = 0x1000; /* never dereferenced */
  int64_t n = 5;
  EXPECT_OK(fuser_fusion_prepare(pred));
  char misc_line[256];
  snprintf(misc_line, sizeof misc_line,
           "cuModuleLoadDataEx module=m0 bytes=%zu fnv=%08x entries=k1,k2,k3",
           sizeof misc_ptx, fnv1a(misc_ptx, sizeof misc_ptx));
  EXPECT_LOG(misc_line,
             "cuModuleGetFunction module=m0 name=k1",
             "cuModuleGetFunction module=m0 name=k3");
  EXPECT_OK(fuser_run(pred, &x, NULL, &n, 1, NULL, NULL));
  EXPECT_LOG("cuLaunchKernel name=k1 grid=1,1,1 block=1,1,1 smem=0 "
             "stream=(nil) params=5,5",
             "cuLaunchKernel name=k1 grid=1,1,1 block=100,1,1 smem=0 "
             "stream=(nil) params=5,5");
  n = 500; /* predicate false */
  EXPECT_OK(fuser_run(pred, &x, NULL, &n, 1, NULL, NULL));
  EXPECT_LOG("cuLaunchKernel name=k1 grid=5,1,1 block=100,1,1 smem=0 "
             "stream=(nil) params=500,500");
  n = 0; /* an empty grid is skipped */
  EXPECT_OK(fuser_run(pred, &x, NULL, &n, 1, NULL, NULL));
  EXPECT_LOG("cuLaunchKernel name=k1 grid=1,1,1 block=1,1,1 smem=0 "
             "stream=(nil) params=0,0");
  n = 2000000; /* ASSERT with only its first {} filled */
  EXPECT_ERR(fuser_run(pred, &x, NULL, &n, 1, NULL, NULL),
             FUSER_ERROR_ASSERTION,
             "fusion 'pred': instruction 3 (ASSERT) failed: x has 2000000 "
             "elements, more than {}");
  EXPECT_NO_LOG();

  const fuser_fusion *ar = fuser_bundle_find_fusion(b, "arith");
  int64_t d[2] = {7, 2};
  EXPECT_OK(fuser_run(ar, &x, NULL, d, 2, (void *)(uintptr_t)0x77, NULL));
  EXPECT_LOG("cuLaunchKernel name=k3 grid=1,1,1 block=1,1,1 smem=0 "
             "stream=0x77 params=9,5,14,-3,4,-1,2,7,0,1,0,0,2,7,2");
  d[0] = 2;
  d[1] = 7;
  EXPECT_OK(fuser_run(ar, &x, NULL, d, 2, NULL, NULL));
  EXPECT_LOG("cuLaunchKernel name=k3 grid=1,1,1 block=1,1,1 smem=0 "
             "stream=(nil) params=9,-5,14,-1,1,0,2,7,0,1,1,1,2,7,2");
  /* Dims this large make x itself 2^63 bytes or more: fuser_run refuses
   * them before the plan runs; the plan's own arithmetic checks are seen
   * through fuser_fusion_scratch_size, which runs it on no buffers. */
  d[0] = 1ll << 62;
  d[1] = 4;
  EXPECT_ERR(fuser_run(ar, &x, NULL, d, 2, NULL, NULL),
             FUSER_ERROR_OUT_OF_RANGE,
             "fusion 'arith': argument 0 'x' is 2^63 bytes or more with these "
             "dims");
  uint64_t scratch;
  EXPECT_ERR(fuser_fusion_scratch_size(ar, NULL, NULL, d, 2, &scratch),
             FUSER_ERROR_OUT_OF_RANGE,
             "fusion 'arith': instruction 5 (MUL): 4611686018427387904 * 4 "
             "overflows");
  d[0] = INT64_MAX;
  d[1] = 1;
  EXPECT_ERR(fuser_fusion_scratch_size(ar, NULL, NULL, d, 2, &scratch),
             FUSER_ERROR_OUT_OF_RANGE,
             "instruction 3 (ADD): 9223372036854775807 + 1 overflows");
  d[0] = 7;
  d[1] = 0;
  EXPECT_ERR(fuser_run(ar, &x, NULL, d, 2, NULL, NULL),
             FUSER_ERROR_OUT_OF_RANGE,
             "instruction 6 (DIV): division by zero (-7 / 0)");
  EXPECT_NO_LOG();
  fuser_bundle_destroy(b);
  fuser_rt_destroy(rt);
  EXPECT_LOG("cuModuleUnload module=m0");
}

/* A cubin as far as the fake driver reads one: an ELF header whose section
 * header table (empty) ends the image, then the kernels' `.text.NAME`
 * strings and their parameter sizes (the sample PTX's, unless
 * `add_kernel_params` says otherwise). Returns its size. */
static size_t fake_cubin(unsigned char *out, size_t cap,
                         const char *add_kernel_params) {
  char names[512];
  int n = snprintf(names, sizeof names,
                   "%c.text.softmax_max%c.text.softmax_vec4%c.text.softmax_norm%c"
                   ".text.__cuda_sm20_rcp_rn_f32_slowpath%c.text.add_kernel%c"
                   "fake.params.softmax_max=8,8,4,8%c"
                   "fake.params.softmax_vec4=8,8,8,4%c"
                   "fake.params.softmax_norm=8,8,8,4,8%c"
                   "fake.params.add_kernel=%s%c",
                   0, 0, 0, 0, 0, 0, 0, 0, 0, add_kernel_params, 0);
  size_t size = 64 + (size_t)n;
  CHECK(size <= cap);
  memset(out, 0, 64);
  memcpy(out, "\x7f" "ELF", 4);
  out[4] = 2; /* 64-bit */
  out[5] = 1; /* little-endian */
  out[0x34] = 64; /* e_ehsize */
  uint64_t shoff = size;
  memcpy(out + 0x28, &shoff, 8);
  out[0x3A] = 64; /* e_shentsize; e_shnum 0 */
  memcpy(out + 64, names, (size_t)n);
  return size;
}

/* A bundle with a cubin beside its PTX (docs/runtime.md, "Cubins"): loaded
 * instead of the PTX on a device of its SM, the PTX elsewhere, and the PTX
 * when the driver refuses the cubin. */
static void test_cubin(void) {
  unsigned char cubin[512];
  size_t cubin_size = fake_cubin(cubin, sizeof cubin, "8,8,8,4");
  bw_bundle bb;
  tl_sample_bundle(&bb, false);
  bb.module_sizes[bb.num_modules] = cubin_size;
  bb.modules[bb.num_modules++] =
      (bw_module){"kernels_ptx.cubin", FUSER_BUNDLE_MODULE_CUBIN,
                  (const char *)cubin, 90, 0};
  size_t size;
  unsigned char *bytes = bw_write(&bb, &size, NULL);
  CHECK(bytes[FUSER_BUNDLE_H_MINOR] == 5);
  char cubin_line[160];
  snprintf(cubin_line, sizeof cubin_line,
           "cuModuleLoadDataEx module=m0 cubin bytes=%zu fnv=%08x "
           "entries=softmax_max,softmax_vec4,softmax_norm,add_kernel",
           cubin_size, fnv1a((const char *)cubin, cubin_size));
  struct {
    const char *cc, *fail;
    bool cubin_loads, cubin_tried;
  } cases[] = {
      {"9.0", "", true, true},           /* the device's SM: the cubin */
      {"9.0", "cubin_load", false, true}, /* refused: the PTX */
      {"8.0", "", false, false},         /* another SM: the PTX */
      {NULL, "", false, false},          /* a driver that does not say */
  };
  /* The fake's line for this cubin refused (FUSER_FAKE_FAIL=cubin_load). */
  char refused[160];
  snprintf(refused, sizeof refused,
           "cuModuleLoadDataEx cubin bytes=%zu fnv=%08x -> "
           "CUDA_ERROR_NO_BINARY_FOR_GPU",
           cubin_size, fnv1a((const char *)cubin, cubin_size));
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    if (cases[c].cc)
      setenv("FUSER_FAKE_CC", cases[c].cc, 1);
    else
      unsetenv("FUSER_FAKE_CC");
    setenv("FUSER_FAKE_FAIL", cases[c].fail, 1);
    fuser_rt *rt = tl_fake_rt(fake);
    if (!rt) break;
    fuser_bundle *b = NULL;
    EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
    if (b) {
      EXPECT_OK(fuser_fusion_prepare(fuser_bundle_find_fusion(b, "add")));
      const char *first = cases[c].cubin_loads ? cubin_line : load_line;
      if (cases[c].cubin_tried && !cases[c].cubin_loads)
        EXPECT_LOG(refused, load_line,
                   "cuModuleGetFunction module=m0 name=softmax_max",
                   "cuModuleGetFunction module=m0 name=softmax_vec4",
                   "cuModuleGetFunction module=m0 name=softmax_norm",
                   "cuModuleGetFunction module=m0 name=add_kernel");
      else
        EXPECT_LOG(first, "cuModuleGetFunction module=m0 name=softmax_max",
                   "cuModuleGetFunction module=m0 name=softmax_vec4",
                   "cuModuleGetFunction module=m0 name=softmax_norm",
                   "cuModuleGetFunction module=m0 name=add_kernel");
      fuser_bundle_destroy(b);
    }
    fuser_rt_destroy(rt);
    EXPECT_LOG("cuModuleUnload module=m0");
  }
  /* The PTX refused as well: both reasons. */
  setenv("FUSER_FAKE_CC", "9.0", 1);
  setenv("FUSER_FAKE_FAIL", "cubin_load,module_load", 1);
  fuser_rt *rt = tl_fake_rt(fake);
  fuser_bundle *b = NULL;
  if (rt && EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b)) && b) {
    EXPECT_ERR(fuser_fusion_prepare(fuser_bundle_find_fusion(b, "add")),
               FUSER_ERROR_DRIVER, "fusion 'add': loading module 'kernels_ptx'",
               "CUDA_ERROR_INVALID_PTX",
               "(its cubin 'kernels_ptx.cubin' failed first: loading module "
               "'kernels_ptx.cubin': cuModuleLoadDataEx failed: "
               "CUDA_ERROR_NO_BINARY_FOR_GPU");
    char ptx_refused[160];
    snprintf(ptx_refused, sizeof ptx_refused,
             "cuModuleLoadDataEx bytes=%zu fnv=%08x -> CUDA_ERROR_INVALID_PTX",
             strlen(tl_sample_ptx) + 1,
             fnv1a(tl_sample_ptx, strlen(tl_sample_ptx) + 1));
    EXPECT_LOG(refused, ptx_refused);
    fuser_bundle_destroy(b);
  }
  if (rt) fuser_rt_destroy(rt);

  /* A cubin whose kernel takes other parameters than its PTX's (a crafted
   * bundle: the driver would read past the launch's parameter array) is
   * unloaded, and the PTX loaded instead. */
  unsetenv("FUSER_FAKE_FAIL");
  cubin_size = fake_cubin(cubin, sizeof cubin, "8,8,8,8");
  bb.module_sizes[bb.num_modules - 1] = cubin_size;
  free(bytes);
  bytes = bw_write(&bb, &size, NULL);
  rt = tl_fake_rt(fake);
  b = NULL;
  if (rt && EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b)) && b) {
    EXPECT_OK(fuser_fusion_prepare(fuser_bundle_find_fusion(b, "add")));
    char other[160], ptx_m1[200];
    snprintf(other, sizeof other,
             "cuModuleLoadDataEx module=m0 cubin bytes=%zu fnv=%08x "
             "entries=softmax_max,softmax_vec4,softmax_norm,add_kernel",
             cubin_size, fnv1a((const char *)cubin, cubin_size));
    snprintf(ptx_m1, sizeof ptx_m1,
             "cuModuleLoadDataEx module=m1 bytes=%zu fnv=%08x "
             "entries=softmax_max,softmax_vec4,softmax_norm,add_kernel",
             strlen(tl_sample_ptx) + 1,
             fnv1a(tl_sample_ptx, strlen(tl_sample_ptx) + 1));
    EXPECT_LOG(other, "cuModuleGetFunction module=m0 name=softmax_max",
               "cuModuleGetFunction module=m0 name=softmax_vec4",
               "cuModuleGetFunction module=m0 name=softmax_norm",
               "cuModuleGetFunction module=m0 name=add_kernel",
               "cuModuleUnload module=m0", ptx_m1,
               "cuModuleGetFunction module=m1 name=softmax_max",
               "cuModuleGetFunction module=m1 name=softmax_vec4",
               "cuModuleGetFunction module=m1 name=softmax_norm",
               "cuModuleGetFunction module=m1 name=add_kernel");
    fuser_bundle_destroy(b);
  }
  if (rt) fuser_rt_destroy(rt);
  EXPECT_LOG("cuModuleUnload module=m1");
  unsetenv("FUSER_FAKE_CC");
  free(bytes);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_run FAKE_DRIVER_PATH\n");
    return 2;
  }
  fake = argv[1];
  tl_log_setup("run");
  snprintf(load_line, sizeof load_line,
           "cuModuleLoadDataEx module=m0 bytes=%zu fnv=%08x "
           "entries=softmax_max,softmax_vec4,softmax_norm,add_kernel",
           strlen(tl_sample_ptx) + 1,
           fnv1a(tl_sample_ptx, strlen(tl_sample_ptx) + 1));
  fuser_rt *rt = tl_fake_rt(fake);
  if (!rt) return tl_finish("test_run");
  CHECK(strcmp(fuser_rt_driver_name(rt), "cuda") == 0);
  test_softmax(rt);
  CHECK(tl_fake_hook(fake, "fuser_fake_live_allocations") <= 0);
  test_misc();
  test_buffers();
  test_views();
  test_cubin();
  return tl_finish("test_run");
}
