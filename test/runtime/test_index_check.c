/* INDEX_CHECK (docs/bundle.md): the plan instruction that reads a fusion's
 * index error word after its kernels and fails the call naming the
 * indexing op, the index value and the element. On the fake CUDA driver,
 * whose launches write the word as a kernel that met a bad index does
 * (FUSER_FAKE_INDEX_ERROR); and the loader's checks of the instruction. */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kSites[] =
    "fuser.gather dim 0 at loc(\"a.mlir\":3:8)\n"
    "fuser.index_select dim 1 at loc(\"a.mlir\":5:8)";

/* "pick": x f32[1024], y f32[1024] -> z f32[1024]; the word is
 * intermediate buffer 3 (64 bytes, zeroed), passed to add_kernel as its
 * second pointer; INDEX_CHECK after the launch. `alloc_flags`,
 * `word_bytes` and `check_buffer` let the loader tests break it. */
static unsigned char *pick_bundle(size_t *size, int64_t alloc_flags,
                                  int64_t word_bytes, uint32_t check_buffer) {
  bw_bundle b;
  memset(&b, 0, sizeof b);
  b.num_modules = 1;
  b.modules[0] = (bw_module){"kernels_ptx", 1, tl_sample_ptx, 90, 78};
  b.num_fusions = 1;
  bw_fusion *f = &b.fusions[0];
  f->name = "pick";
  f->num_args = 2;
  f->num_results = 1;
  /* Register 3 is never written: the word is buffer 3, and a loader that
   * took INDEX_CHECK's buffer operand for a register read it (it rejected
   * valid small plans, and read past its table of written registers). */
  f->num_regs = 7;
  f->num_inter = 1;
  f->num_dyn = BW_NONE;
  f->emu_module = BW_NONE;
  f->tensors[0] = (bw_tensor){"x", 7, 1, {1024}};
  f->tensors[1] = (bw_tensor){"y", 7, 1, {1024}};
  f->tensors[2] = (bw_tensor){"z", 7, 1, {1024}};
  uint32_t n = 0;
  f->instrs[n++] = bw_const(0, 4);
  f->instrs[n++] = bw_const(1, 256);
  f->instrs[n++] = bw_const(2, 1);
  f->instrs[n++] = bw_const(6, 0);
  f->instrs[n++] = bw_const(4, 1024);
  f->instrs[n++] = bw_const(5, word_bytes);
  bw_instr alloc = bw_op(BW_ALLOC, BW_NONE, 3, 5);
  alloc.imm = alloc_flags;
  f->instrs[n++] = alloc;
  f->instrs[n++] = bw_op(BW_LAUNCH, 0, 0, BW_NONE);
  bw_instr check = bw_op(FUSER_BUNDLE_OP_INDEX_CHECK, BW_NONE, check_buffer, BW_NONE);
  check.msg = kSites;
  f->instrs[n++] = check;
  f->num_instrs = n;
  f->num_launches = 1;
  f->launches[0] = (bw_launch){"add_kernel", 4,
                               {{BW_PTR, 0}, {BW_PTR, 3}, {BW_PTR, 2}, {BW_I32, 4}},
                               {0, 2, 2}, {1, 2, 2}, 6};
  return bw_write(&b, size, NULL);
}

static fuser_error *run_pick(fuser_rt *rt, const fuser_bundle *b) {
  const fuser_fusion *f = fuser_bundle_find_fusion(b, "pick");
  CHECK(f != NULL);
  if (!f) return NULL;
  uint64_t dev[3] = {0, 0, 0};
  for (int i = 0; i < 3; i++) EXPECT_OK(fuser_mem_alloc(rt, 4096, &dev[i]));
  fuser_error *e = fuser_run(f, dev, dev + 2, NULL, 0, NULL, NULL);
  for (int i = 0; i < 3; i++) EXPECT_OK(fuser_mem_free(rt, dev[i]));
  return e;
}

/* Runs "pick" on a fresh runtime over the fake driver, whose launches
 * write `report` (FUSER_FAKE_INDEX_ERROR, NULL: none) into the word; the
 * call must succeed (`want` NULL) or fail with OUT_OF_RANGE and `want`. */
static void run_with_report(const char *fake, const unsigned char *bytes, size_t size,
                            const char *report, const char *want) {
  if (report)
    setenv("FUSER_FAKE_INDEX_ERROR", report, 1);
  else
    unsetenv("FUSER_FAKE_INDEX_ERROR");
  fuser_rt *rt = tl_fake_rt(fake);
  if (!rt) return;
  fuser_bundle *b = NULL;
  EXPECT_OK(fuser_bundle_load(rt, bytes, size, &b));
  if (b) {
    if (want)
      EXPECT_ERR(run_pick(rt, b), FUSER_ERROR_OUT_OF_RANGE, "fusion 'pick'", want);
    else
      EXPECT_OK(run_pick(rt, b));
    fuser_bundle_destroy(b);
  }
  fuser_rt_destroy(rt);
  unsetenv("FUSER_FAKE_INDEX_ERROR");
}

static void test_run_and_report(const char *fake) {
  size_t size;
  unsigned char *bytes = pick_bundle(&size, FUSER_BUNDLE_ALLOC_ZEROED, 64, 3);
  /* No kernel met a bad index: the call succeeds. */
  run_with_report(fake, bytes, size, NULL, NULL);
  /* The kernel records index -3 (below 4) at element 5 of site 1. */
  run_with_report(fake, bytes, size, "1,1,5,-3,4",
                  "index -3 is out of range [0, 4) in fuser.index_select dim 1 at "
                  "loc(\"a.mlir\":5:8), at element 5");
  /* Site 0 and a large index. */
  run_with_report(fake, bytes, size, "1,0,0,4294967296,1000",
                  "index 4294967296 is out of range [0, 1000) in fuser.gather dim 0 at "
                  "loc(\"a.mlir\":3:8), at element 0");
  free(bytes);
}

static void expect_rejected(int64_t flags, int64_t word_bytes, uint32_t buffer,
                            const char *why) {
  size_t size;
  unsigned char *bytes = pick_bundle(&size, flags, word_bytes, buffer);
  fuser_rt *rt = NULL;
  EXPECT_OK(fuser_rt_create_with_driver(&tl_null_driver, NULL, &rt));
  if (rt) {
    fuser_bundle *b = NULL;
    EXPECT_ERR(fuser_bundle_load(rt, bytes, size, &b), FUSER_ERROR_INVALID_BUNDLE,
               "(INDEX_CHECK)", why);
    if (b) fuser_bundle_destroy(b);
    fuser_rt_destroy(rt);
  }
  free(bytes);
}

static void test_loader_checks(void) {
  expect_rejected(FUSER_BUNDLE_ALLOC_ZEROED, 64, 0,
                  "buffer 0 is not an intermediate allocated before it");
  expect_rejected(0, 64, 3, "buffer 3 (the index error word) is not zeroed");
  expect_rejected(FUSER_BUNDLE_ALLOC_ZEROED, 32, 3,
                  "buffer 3 (the index error word) has 32 bytes, fewer than 64");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_index_check FAKE_DRIVER_PATH\n");
    return 2;
  }
  test_run_and_report(argv[1]);
  test_loader_checks();
  return tl_finish("test_index_check");
}
