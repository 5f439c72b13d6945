/* Bundle validation: a valid bundle loads and describes itself; one
 * malformed variant per validation rule fails with the right message;
 * every truncation and many random corruptions fail cleanly (run under
 * valgrind too). Needs no driver: it uses the no-op pluggable driver. */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static fuser_rt *rt;
static unsigned char *base;
static size_t base_size;
static bw_layout L;

static fuser_error *load(const unsigned char *d, size_t n) {
  fuser_bundle *b = NULL;
  fuser_error *e = fuser_bundle_load(rt, d, n, &b);
  if (!e) fuser_bundle_destroy(b);
  return e;
}

/* A copy of the sample, patched by `stmt` (d: bytes, n: size), must fail. */
#define BAD(stmt, ...)                                                       \
  do {                                                                       \
    unsigned char *d = malloc(base_size);                                    \
    size_t n = base_size;                                                    \
    memcpy(d, base, n);                                                      \
    (void)n;                                                                 \
    stmt;                                                                    \
    EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE, __VA_ARGS__);         \
    free(d);                                                                 \
  } while (0)

/* The sample description, changed by `stmt` (b: bw_bundle), must fail. */
#define BAD_B(with_emu, stmt, ...)                                           \
  do {                                                                       \
    bw_bundle b;                                                             \
    tl_sample_bundle(&b, with_emu);                                          \
    stmt;                                                                    \
    size_t n;                                                                \
    unsigned char *d = bw_write(&b, &n, NULL);                               \
    EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE, __VA_ARGS__);         \
    free(d);                                                                 \
  } while (0)

#define FUS(i) (L.fusion_table + 64 * (i))
#define MOD(i) (L.module_table + 32 * (i))
#define INS(i) (L.instrs[0] + 24 * (i))
#define TEN(i) (L.tensors[0] + 24 * (i))
#define LAU(i) (L.launches[0] + 48 * (i))
#define PAR(l, p) (L.params[0][l] + 8 * (p))

static void test_valid(void) {
  fuser_bundle *b = NULL;
  if (!EXPECT_OK(fuser_bundle_load(rt, base, base_size, &b))) return;
  CHECK(fuser_bundle_num_fusions(b) == 2);
  const fuser_fusion *f = fuser_bundle_get_fusion(b, 0);
  CHECK(f && strcmp(fuser_fusion_name(f), "softmax") == 0);
  CHECK(fuser_bundle_find_fusion(b, "softmax") == f);
  CHECK(fuser_bundle_find_fusion(b, "nope") == NULL);
  CHECK(fuser_bundle_get_fusion(b, 2) == NULL);
  CHECK(fuser_fusion_num_args(f) == 1);
  CHECK(fuser_fusion_num_results(f) == 1);
  CHECK(fuser_fusion_num_dyn_dims(f) == 4);
  const fuser_tensor_info *x = fuser_fusion_arg(f, 0);
  const fuser_tensor_info *y = fuser_fusion_result(f, 0);
  CHECK(x && strcmp(x->name, "x") == 0 && x->dtype == FUSER_DTYPE_F32 &&
        x->rank == 2 && x->dims[0] == -1 && x->dims[1] == -1);
  CHECK(y && strcmp(y->name, "y") == 0 && fuser_fusion_tensor(f, 1) == y);
  CHECK(fuser_fusion_tensor(f, 2) == NULL);
  CHECK(fuser_fusion_arg(f, 1) == NULL && fuser_fusion_result(f, 1) == NULL);
  for (uint32_t k = 0; k < 4; k++) {
    const fuser_dyn_dim_info *dd = fuser_fusion_dyn_dim(f, k);
    CHECK(dd && dd->tensor == k / 2 && dd->dim == k % 2);
  }
  CHECK(fuser_fusion_dyn_dim(f, 4) == NULL);
  int64_t dims[4] = {3, 5, 3, 5};
  uint64_t bytes = 0;
  EXPECT_OK(fuser_fusion_tensor_bytes(f, 1, dims, 4, &bytes));
  CHECK(bytes == 60);
  EXPECT_ERR(fuser_fusion_tensor_bytes(f, 0, dims, 3, &bytes),
             FUSER_ERROR_INVALID_ARGUMENT, "takes 4 dynamic dims, got 3");
  const fuser_fusion *add = fuser_bundle_find_fusion(b, "add");
  CHECK(add && fuser_fusion_num_args(add) == 2 &&
        fuser_fusion_num_dyn_dims(add) == 0);
  EXPECT_OK(fuser_fusion_tensor_bytes(add, 2, NULL, 0, &bytes));
  CHECK(bytes == 4096);
  CHECK(fuser_dtype_size(FUSER_DTYPE_BF16) == 2);
  CHECK(strcmp(fuser_dtype_name(FUSER_DTYPE_I1), "i1") == 0);
  fuser_bundle_destroy(b);

  /* From a file, and a missing file. */
  char path[256];
  snprintf(path, sizeof path, "%s/fuser-validate-%ld.bundle",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
  FILE *fp = fopen(path, "wb");
  CHECK(fp && fwrite(base, 1, base_size, fp) == base_size);
  if (fp) fclose(fp);
  b = NULL;
  if (EXPECT_OK(fuser_bundle_load_file(rt, path, &b)))
    CHECK(fuser_bundle_num_fusions(b) == 2);
  fuser_bundle_destroy(b);
  /* A malformed file names the file. */
  fp = fopen(path, "wb");
  if (fp) {
    fwrite(base, 1, base_size / 2, fp);
    fclose(fp);
  }
  EXPECT_ERR(fuser_bundle_load_file(rt, path, &b), FUSER_ERROR_INVALID_BUNDLE,
             path, "invalid bundle");
  unlink(path);
  EXPECT_ERR(fuser_bundle_load_file(rt, "/nonexistent/x.bundle", &b),
             FUSER_ERROR_IO, "cannot open bundle '/nonexistent/x.bundle'");

  /* The emulation module variant is valid too. */
  bw_bundle bb;
  tl_sample_bundle(&bb, true);
  size_t n;
  unsigned char *d = bw_write(&bb, &n, NULL);
  EXPECT_OK(load(d, n));
  free(d);
}

static void test_header(void) {
  EXPECT_ERR(load(base, 10), FUSER_ERROR_INVALID_BUNDLE,
             "the file is 10 bytes, shorter than the 64-byte header");
  BAD(d[0] = 'X', "bad magic");
  BAD(bw_put_u32(d, 8, 2), "format version 2 is not supported");
  BAD(bw_put_u32(d, 12, 72), "header size 72, expected 64");
  BAD(bw_put_u64(d, 16, n + 8), "the header says the file is");
  BAD(bw_put_u64(d, 32, n), "fusion table at offset");
  BAD(bw_put_u64(d, 32, L.fusion_table + 4), "fusion table", "not 8-byte aligned");
  BAD(bw_put_u32(d, 24, 0xFFFFFFFFu), "fusion table", "run past the end");
  BAD(bw_put_u64(d, 40, ~0ull), "module table at offset");
  BAD(bw_put_u32(d, 28, 1000), "module table", "run past the end");
  BAD(bw_put_u64(d, 48, n), "string table", "runs past the end");
  BAD(bw_put_u64(d, 56, ~0ull), "string table", "runs past the end");
  BAD(bw_put_u64(d, 56, L.strtab_size - 1),
      "the string table does not end with a NUL byte");
  BAD(bw_put_u64(d, 56, 0), "the string table does not end with a NUL byte");
}

static void test_modules(void) {
  BAD(bw_put_u32(d, MOD(0), (uint32_t)L.strtab_size),
      "module 0: name: string reference", "outside the string table");
  BAD(bw_put_u32(d, MOD(0) + 4, 3), "module 0 'kernels_ptx': unknown module kind 3");
  BAD(bw_put_u64(d, MOD(0) + 8, n - 2), "module 0 'kernels_ptx': data at offset",
      "runs past the end");
  BAD(bw_put_u64(d, MOD(0) + 16, strlen(tl_sample_ptx)),
      "module 0 'kernels_ptx': data", "does not end with a NUL byte");
  BAD(bw_put_u64(d, MOD(0) + 16, 0), "module 0 'kernels_ptx': data is empty");
  BAD(bw_put_u32(d, FUS(0) + 56, 5),
      "fusion 0 'softmax': PTX module index 5 out of range (the bundle has 1 "
      "modules)");
  BAD_B(true, b.fusions[0].ptx_module = 1,
        "fusion 0 'softmax': PTX module index 1 names module 'kernels_mlir' of "
        "kind 2, not PTX");
  BAD(bw_put_u32(d, FUS(0) + 60, 7),
      "fusion 0 'softmax': emulation module index 7 out of range");
  BAD(bw_put_u32(d, FUS(0) + 60, 0),
      "emulation module index 0 names module 'kernels_ptx' of kind 1");
}

static void test_fusions(void) {
  BAD(bw_put_u32(d, FUS(1), (uint32_t)L.strtab_size + 3),
      "fusion 1: name: string reference");
  BAD(memcpy(d + FUS(1), d + FUS(0), 4),
      "fusion 1 'softmax': fusion 0 has the same name");
  BAD(bw_put_u32(d, FUS(0) + 16, 70000),
      "fusion 0 'softmax': 70000 registers, more than the 65536");
  BAD(bw_put_u32(d, FUS(0) + 28, 70000), "70000 intermediate buffers");
  BAD(bw_put_u32(d, FUS(0) + 4, 0xFFFFFFF0u), "can't fit in the file");
  /* Tensors. */
  BAD(bw_put_u64(d, FUS(0) + 32, n - 8), "fusion 0 'softmax': tensor records at offset");
  BAD(bw_put_u64(d, FUS(0) + 32, L.tensors[0] + 4), "tensor records",
      "not 8-byte aligned");
  BAD(bw_put_u32(d, TEN(0), 1u << 30), "fusion 0 'softmax': argument 0: name: string reference");
  BAD(bw_put_u8(d, TEN(0) + 4, 9), "fusion 0 'softmax': argument 0: unknown dtype 9");
  BAD(bw_put_u8(d, TEN(1) + 4, 0), "fusion 0 'softmax': result 0: unknown dtype 0");
  BAD(bw_put_u8(d, TEN(1) + 5, 200), "result 0: rank 200 is more than the 64");
  BAD(bw_put_u16(d, TEN(0) + 6, 1), "argument 0: reserved fields are not 0");
  BAD(bw_put_u64(d, TEN(0) + 16, 1), "argument 0: reserved fields are not 0");
  BAD(bw_put_u64(d, TEN(0) + 8, n), "argument 0: dims at offset");
  BAD(bw_put_u64(d, TEN(0) + 8, L.dims[0][0] + 1), "argument 0: dims",
      "not 8-byte aligned");
  BAD(bw_put_u64(d, L.dims[0][1] + 8, (uint64_t)-2),
      "fusion 0 'softmax': result 0: dim 1 is -2");
  BAD(bw_put_u32(d, FUS(0) + 12, 3),
      "fusion 0 'softmax': the fusion says it has 3 dynamic dims but its "
      "tensors have 4 dims of -1");
  BAD(bw_put_u64(d, L.dims[0][0], 7), "says it has 4 dynamic dims",
      "have 3 dims of -1");
  /* Static dims whose size does not fit in 64-bit arithmetic (f32 x 2^62
   * is 2^64 bytes, which wrapped to 0: an empty tensor). */
  BAD_B(false,
        (b.fusions[0].tensors[0].dims[0] = INT64_C(1) << 62,
         b.fusions[0].tensors[0].dims[1] = 1, b.fusions[0].num_dyn = BW_NONE),
        "fusion 0 'softmax': argument 0: its static dims make it 2^63 bytes or more");
  BAD_B(false,
        (b.fusions[0].tensors[1].dims[0] = INT64_C(1) << 61,
         b.fusions[0].tensors[1].dims[1] = 2, b.fusions[0].num_dyn = BW_NONE),
        "fusion 0 'softmax': result 0: its static dims make it 2^63 bytes or more");
}

static void test_instructions(void) {
  BAD(bw_put_u64(d, FUS(0) + 40, n - 16), "fusion 0 'softmax': instructions at offset");
  BAD(bw_put_u64(d, FUS(0) + 40, L.instrs[0] + 12), "instructions", "not 8-byte aligned");
  BAD(bw_put_u32(d, FUS(0) + 20, 100000), "instructions", "run past the end");
  BAD(bw_put_u16(d, INS(7), 42),
      "fusion 0 'softmax': instruction 7: unknown opcode 42");
  BAD(bw_put_u16(d, INS(7), 0), "instruction 7: unknown opcode 0");
  BAD(bw_put_u16(d, INS(7) + 2, 1), "instruction 7 (ASSERT): reserved field is not 0");
  BAD(bw_put_u32(d, INS(9) + 12, 17),
      "fusion 0 'softmax': instruction 9 (MUL): register 17 out of range in "
      "operand b (plan has 17 registers)");
  BAD(bw_put_u32(d, INS(9) + 8, 99), "instruction 9 (MUL): register 99 out of range in operand a");
  BAD(bw_put_u32(d, INS(0) + 4, 99), "instruction 0 (DIM): register 99 out of range in operand dst");
  BAD(bw_put_u32(d, INS(8) + 4, 17), "instruction 8 (CONST): register 17 out of range in operand dst");
  BAD(bw_put_u32(d, INS(3) + 8, 4),
      "instruction 3 (DIM): dynamic dim 4 out of range (the fusion has 4)");
  /* SELECT's imm is a register. */
  BAD((bw_put_u16(d, INS(18), 17), bw_put_u64(d, INS(18) + 16, 40)),
      "instruction 18 (SELECT): register 40 out of range in operand imm");
  BAD((bw_put_u16(d, INS(18), 17), bw_put_u64(d, INS(18) + 16, (uint64_t)-1)),
      "instruction 18 (SELECT): register -1 out of range in operand imm");
  /* ALLOC */
  BAD(bw_put_u32(d, INS(10) + 8, 1),
      "instruction 10 (ALLOC): buffer 1 is not an intermediate "
      "(intermediates are 2 .. 2)");
  BAD(bw_put_u32(d, INS(10) + 8, 3), "instruction 10 (ALLOC): buffer 3 is not an intermediate");
  BAD(bw_put_u32(d, INS(10) + 12, 17), "instruction 10 (ALLOC): register 17 out of range in operand b");
  BAD((bw_put_u16(d, INS(13), 20), bw_put_u32(d, INS(13) + 8, 2),
       bw_put_u32(d, INS(13) + 12, 7)),
      "instruction 13 (ALLOC): intermediate buffer 2 is allocated twice");
  BAD(bw_put_u32(d, FUS(0) + 28, 0),
      "launch 0 'softmax_max': parameter 1: buffer 2 out of range (the fusion "
      "has 2 buffers: 1 arguments, 1 results, 0 intermediates)");
  BAD((bw_put_u32(d, FUS(0) + 28, 0), bw_put_u32(d, PAR(0, 1) + 4, 1),
       bw_put_u32(d, PAR(1, 1) + 4, 1), bw_put_u32(d, PAR(2, 1) + 4, 1)),
      "instruction 10 (ALLOC): buffer 2 is not an intermediate (the fusion "
      "has none)");
  /* ALIGNED */
  BAD(bw_put_u32(d, INS(16) + 8, 3),
      "instruction 16 (ALIGNED): buffer 3 out of range (the fusion has 3 buffers)");
  BAD(bw_put_u64(d, INS(16) + 16, 0), "instruction 16 (ALIGNED): alignment 0 is not positive");
  BAD(bw_put_u64(d, INS(16) + 16, (uint64_t)-16), "alignment -16 is not positive");
  /* ASSERT */
  BAD(bw_put_u64(d, INS(5) + 16, L.strtab_size),
      "instruction 5 (ASSERT): message: string reference", "outside the string table");
  BAD(bw_put_u64(d, INS(5) + 16, (uint64_t)-1), "instruction 5 (ASSERT): message: string reference -1");
  BAD(bw_put_u32(d, INS(5) + 12, 20), "instruction 5 (ASSERT): register 20 out of range in operand b");
  BAD(bw_put_u32(d, INS(5) + 4, 20), "instruction 5 (ASSERT): register 20 out of range in operand dst");
  BAD(bw_put_u32(d, INS(5) + 8, BW_NONE), "instruction 5 (ASSERT): register 4294967295 out of range in operand a");
  /* LAUNCH */
  BAD(bw_put_u32(d, INS(15) + 8, 3),
      "instruction 15 (LAUNCH): launch record 3 out of range (the fusion has 3)");
  BAD(bw_put_u32(d, INS(21) + 12, 30), "instruction 21 (LAUNCH): register 30 out of range in operand b");
  /* Use before ALLOC. */
  BAD_B(false,
        (b.fusions[0].instrs[10] = bw_op(BW_CONST, 0, 0, 0),
         b.fusions[0].instrs[20] = bw_op(BW_ALLOC, 0, 2, 7)),
        "instruction 15 (LAUNCH): launch 0 'softmax_max' uses intermediate "
        "buffer 2 before its ALLOC");
  BAD_B(false,
        (b.fusions[0].instrs[9] = bw_op(BW_ALIGNED, 7, 2, 0),
         b.fusions[0].instrs[9].imm = 16),
        "instruction 9 (ALIGNED): intermediate buffer 2 is used before its ALLOC");
}

static void test_launches(void) {
  BAD(bw_put_u64(d, FUS(0) + 48, n - 8), "fusion 0 'softmax': launch records at offset");
  BAD(bw_put_u64(d, FUS(0) + 48, L.launches[0] + 4), "launch records", "not 8-byte aligned");
  BAD(bw_put_u32(d, LAU(1), 1u << 31), "fusion 0 'softmax': launch 1: kernel name: string reference");
  BAD_B(false, b.fusions[0].launches[1].kernel = "nope",
        "fusion 0 'softmax': launch 1 'nope': kernel 'nope' is not an .entry "
        "of PTX module 0");
  BAD_B(false, b.fusions[0].launches[1].kernel = "", "launch 1 '': the kernel name is empty");
  /* A prefix of a kernel name is not that kernel. */
  BAD_B(false, b.fusions[0].launches[1].kernel = "softmax",
        "kernel 'softmax' is not an .entry");
  BAD(bw_put_u32(d, LAU(0) + 20, 17),
      "fusion 0 'softmax': launch 0 'softmax_max': grid y: register 17 out of "
      "range (plan has 17 registers)");
  BAD(bw_put_u32(d, LAU(2) + 36, 17), "launch 2 'softmax_norm': block z: register 17 out of range");
  BAD(bw_put_u32(d, LAU(2) + 40, 17), "launch 2 'softmax_norm': shared memory: register 17 out of range");
  BAD(bw_put_u32(d, LAU(2) + 44, 1), "launch 2 'softmax_norm': reserved field is not 0");
  BAD(bw_put_u64(d, LAU(0) + 8, n), "launch 0 'softmax_max': parameter records at offset");
  BAD(bw_put_u64(d, LAU(0) + 8, L.params[0][0] + 4), "parameter records", "not 8-byte aligned");
  BAD(bw_put_u32(d, LAU(0) + 4, 0x7FFFFFFF), "parameter records can't fit in the file");
  BAD(bw_put_u8(d, PAR(0, 1), 4), "launch 0 'softmax_max': parameter 1: unknown parameter kind 4");
  BAD(bw_put_u8(d, PAR(0, 1), 0), "parameter 1: unknown parameter kind 0");
  BAD(bw_put_u8(d, PAR(0, 1) + 2, 1), "parameter 1: reserved bytes are not 0");
  BAD(bw_put_u32(d, PAR(0, 1) + 4, 3),
      "launch 0 'softmax_max': parameter 1: buffer 3 out of range (the "
      "fusion has 3 buffers: 1 arguments, 1 results, 1 intermediates)");
  BAD(bw_put_u32(d, PAR(0, 2) + 4, 17),
      "launch 0 'softmax_max': parameter 2 (i32): register 17 out of range");
  BAD(bw_put_u32(d, PAR(0, 3) + 4, 17), "parameter 3 (i64): register 17 out of range");
  /* The parameter layout against the PTX .entry signature. */
  BAD(bw_put_u32(d, LAU(0) + 4, 3),
      "launch 0 'softmax_max': the launch passes 3 parameters but the PTX "
      ".entry declares 4");
  BAD(bw_put_u8(d, PAR(0, 2), 3),
      "launch 0 'softmax_max': parameter 2 is i64 (8 bytes) but the PTX "
      ".entry declares 4 bytes");
  BAD(bw_put_u8(d, PAR(0, 3), 2), "parameter 3 is i32 (4 bytes) but the PTX .entry declares 8 bytes");
}

/* A PTX whose parameter list the scanner can't read skips the layout check
 * but still needs the .entry. */
static void test_ptx_scanner(void) {
  bw_bundle b;
  tl_sample_bundle(&b, false);
  static const char odd_ptx[] =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      "// .entry fake_in_comment(.param .u64 x)\n"
      "/* .entry also_fake() */\n"
      ".visible .entry softmax_max(.param .u64 a, .param .weird b) { ret; }\n"
      ".visible .entry softmax_vec4 ( .param .u64 a , .param .u64 b,\n"
      "  .param .align 8 .b8 c[8], .param .u32 d ) { ret; }\n"
      ".entry softmax_norm(.param .u64 a,.param .u64 b,.param .u64 c,"
      ".param .u32 d,.param .u64 e){ret;}\n"
      ".entry add_kernel(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n) {}\n";
  b.modules[0].text = odd_ptx;
  size_t n;
  unsigned char *d = bw_write(&b, &n, NULL);
  EXPECT_OK(load(d, n));
  free(d);
  b.fusions[0].launches[1].params[2].kind = BW_I32;
  d = bw_write(&b, &n, NULL);
  EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE,
             "launch 1 'softmax_vec4': parameter 2 is i32 (4 bytes) but the PTX "
             ".entry declares 8 bytes");
  free(d);
  static const char comment_ptx[] =
      ".version 8.0\n// .entry softmax_max(.param .u64 a)\n";
  tl_sample_bundle(&b, false);
  b.modules[0].text = comment_ptx;
  d = bw_write(&b, &n, NULL);
  EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE,
             "kernel 'softmax_max' is not an .entry of PTX module 0");
  free(d);
}

static void test_truncations(void) {
  int failures = 0;
  for (size_t len = 0; len < base_size; len++) {
    unsigned char *d = malloc(len ? len : 1);
    memcpy(d, base, len);
    fuser_error *e = load(d, len);
    if (!e || fuser_error_code_of(e) != FUSER_ERROR_INVALID_BUNDLE) failures++;
    fuser_error_destroy(e);
    /* And with the header's size agreeing, so deeper checks run. */
    if (len >= 64) {
      bw_put_u64(d, 16, len);
      e = load(d, len);
      if (!e || fuser_error_code_of(e) != FUSER_ERROR_INVALID_BUNDLE)
        failures++;
      fuser_error_destroy(e);
    }
    free(d);
  }
  CHECK(failures == 0);
}

/* Random corruptions: every outcome is a clean error or a bundle whose
 * fusions run (on the no-op driver) without crashing. */
static void test_fuzz(long iterations) {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  long loaded = 0;
  for (long it = 0; it < iterations; it++) {
    unsigned char *d = malloc(base_size);
    memcpy(d, base, base_size);
    int flips = 1 + (int)(it % 4);
    for (int k = 0; k < flips; k++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      size_t at = (size_t)(s >> 33) % base_size;
      /* Bias towards the structured part, where it matters. */
      if (it % 3 != 0) at = at % (L.module_data[0] ? L.module_data[0] : base_size);
      d[at] ^= (unsigned char)(1u << ((s >> 20) % 8));
      if (it % 7 == 0) d[at] = (unsigned char)(s >> 40);
    }
    fuser_bundle *b = NULL;
    fuser_error *e = fuser_bundle_load(rt, d, base_size, &b);
    if (e) {
      if (fuser_error_code_of(e) != FUSER_ERROR_INVALID_BUNDLE) {
        fprintf(stderr, "fuzz %ld: unexpected %s\n", it, fuser_error_message(e));
        tl_failures++;
      }
      fuser_error_destroy(e);
    } else {
      loaded++;
      static uint64_t mem[64];
      uint64_t bufs[16];
      for (int k = 0; k < 16; k++) bufs[k] = (uint64_t)(uintptr_t)mem;
      for (size_t i = 0; i < fuser_bundle_num_fusions(b); i++) {
        const fuser_fusion *f = fuser_bundle_get_fusion(b, i);
        int64_t dims[16];
        for (int k = 0; k < 16; k++) dims[k] = 3;
        size_t nd = fuser_fusion_num_dyn_dims(f);
        if (nd > 16 || fuser_fusion_num_args(f) > 8 ||
            fuser_fusion_num_results(f) > 8)
          continue;
        fuser_error_destroy(
            fuser_run(f, bufs, bufs + 8, dims, nd, NULL, NULL));
        uint64_t bytes;
        fuser_error_destroy(
            fuser_fusion_scratch_size(f, NULL, NULL, dims, nd, &bytes));
      }
      fuser_bundle_destroy(b);
    }
    free(d);
  }
  printf("fuzz: %ld corruptions, %ld still loaded\n", iterations, loaded);
}

int main(int argc, char **argv) {
  long iterations = argc > 1 ? atol(argv[1]) : 20000;
  EXPECT_OK(fuser_rt_create_with_driver(&tl_null_driver, NULL, &rt));
  if (!rt) return tl_finish("test_validate");
  base = tl_sample_bytes(&base_size, &L);
  test_valid();
  test_header();
  test_modules();
  test_fusions();
  test_instructions();
  test_launches();
  test_ptx_scanner();
  test_truncations();
  test_fuzz(iterations);
  free(base);
  fuser_rt_destroy(rt);
  return tl_finish("test_validate");
}
