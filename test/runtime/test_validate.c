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

/* A copy of the bundle `from` (`from_size` bytes), patched by `stmt` (d:
 * bytes, n: size) and given the checksum of its new bytes, must fail: these
 * are the checks behind the checksum, for crafted bundles. */
#define BAD_FROM(from, from_size, stmt, ...)                                 \
  do {                                                                       \
    unsigned char *d = malloc(from_size);                                    \
    size_t n = from_size;                                                    \
    memcpy(d, from, n);                                                      \
    (void)n;                                                                 \
    stmt;                                                                    \
    bw_fix_checksum(d, n);                                                   \
    EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE, __VA_ARGS__);         \
    free(d);                                                                 \
  } while (0)
/* BAD_FROM of the sample. */
#define BAD(stmt, ...) BAD_FROM(base, base_size, stmt, __VA_ARGS__)

/* The same without fixing the checksum: accidental corruption. */
#define BAD_RAW(stmt, ...)                                                   \
  do {                                                                       \
    unsigned char *d = malloc(base_size);                                    \
    size_t n = base_size;                                                    \
    memcpy(d, base, n);                                                      \
    (void)n;                                                                 \
    stmt;                                                                    \
    EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE, __VA_ARGS__);         \
    free(d);                                                                 \
  } while (0)

/* The bundle description `init(&b)` makes, changed by `stmt` (b:
 * bw_bundle), must fail. */
#define BAD_DESC(init, stmt, ...)                                            \
  do {                                                                       \
    bw_bundle b;                                                             \
    init;                                                                    \
    stmt;                                                                    \
    size_t n;                                                                \
    unsigned char *d = bw_write(&b, &n, NULL);                               \
    EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE, __VA_ARGS__);         \
    free(d);                                                                 \
  } while (0)
/* BAD_DESC of the sample. */
#define BAD_B(with_emu, stmt, ...)                                           \
  BAD_DESC(tl_sample_bundle(&b, with_emu), stmt, __VA_ARGS__)

#define FUS(i) (L.fusion_table + FUSER_BUNDLE_FUSION_SIZE * (i))
#define MOD(i) (L.module_table + FUSER_BUNDLE_MODULE_SIZE * (i))
#define INS(i) (L.instrs[0] + FUSER_BUNDLE_INSTR_SIZE * (i))
#define TEN(i) (L.tensors[0] + FUSER_BUNDLE_TENSOR_SIZE * (i))
#define LAU(i) (L.launches[0] + FUSER_BUNDLE_LAUNCH_SIZE * (i))
#define PAR(l, p) (L.params[0][l] + FUSER_BUNDLE_PARAM_SIZE * (p))

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
             "the file is 10 bytes, shorter than the 72-byte header");
  EXPECT_ERR(load(base, 70), FUSER_ERROR_INVALID_BUNDLE,
             "the file is 70 bytes, shorter than the 72-byte header");
  BAD(d[0] = 'X', "bad magic");
  BAD(bw_put_u32(d, 8, 3),
      "format version 3 is not supported (this runtime reads version 2)");
  /* Version 1 had no checksum: it is refused with what to do. */
  BAD(bw_put_u32(d, 8, 1), "format version 1 is no longer read",
      "recompile the fusion with this fuser (fuserc compile) to get format "
      "version 2");
  /* The version as version 1 wrote it, in a file too short for version 2's
   * header: still the version's message. */
  EXPECT_ERR(load((const unsigned char *)"FUSERBND\1\0\0\0", 12),
             FUSER_ERROR_INVALID_BUNDLE, "format version 1 is no longer read");
  BAD(bw_put_u32(d, 12, 64), "header size 64, expected 72");
  BAD(bw_put_u32(d, 12, 80), "header size 80, expected 72");
  /* Offset 68 was a reserved 0; it is the minor version now (test_gemm
   * checks its rules): one newer than this runtime's is refused. */
  BAD(bw_put_u32(d, 68, FUSER_BUNDLE_FORMAT_MINOR + 1),
      "is newer than this runtime");
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

/* Accidental corruption: the checksum (CRC-32 of the file with its own
 * field as 0) names the value stored and the value computed. */
static void test_checksum(void) {
  uint32_t stored = (uint32_t)base[64] | (uint32_t)base[65] << 8 |
                    (uint32_t)base[66] << 16 | (uint32_t)base[67] << 24;
  CHECK(stored == fuser_bundle_checksum(base, base_size));
  /* The CRC-32 of zlib and PNG: the standard check value. */
  CHECK(fuser_bundle_crc32(0, "123456789", 9) == 0xCBF43926u);
  /* A flipped bit anywhere, in each region of the file. */
  size_t at[] = {FUS(0) + 4, MOD(0) + 8, INS(5) + 8, TEN(1) + 4, LAU(0) + 20,
                 PAR(0, 1) + 4, L.module_data[0] + 40, L.strtab + 1,
                 base_size - 1, 28 /* the module count */,
                 48 /* the string table offset */};
  for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
    unsigned char *d = malloc(base_size);
    memcpy(d, base, base_size);
    d[at[k]] ^= 0x10;
    char want[160];
    snprintf(want, sizeof want,
             "invalid bundle: checksum mismatch: the header says 0x%08x but "
             "the file's bytes give 0x%08x (CRC-32)",
             stored, fuser_bundle_checksum(d, base_size));
    EXPECT_ERR(load(d, base_size), FUSER_ERROR_INVALID_BUNDLE, want,
               "the file is corrupted");
    free(d);
  }
  /* The stored value itself damaged. */
  BAD_RAW(d[65] ^= 1, "checksum mismatch");
  /* A flipped bit in the version is not a way around the checksum. */
  BAD_RAW(d[8] ^= 3, "format version 1 is no longer read");
  BAD_RAW(d[8] ^= 1, "format version 3 is not supported");
  /* Checked before any other field is trusted: a corrupted count is
   * reported as corruption, not as a table that runs past the end. */
  BAD_RAW(bw_put_u32(d, 24, 0xFFFFFFFFu), "checksum mismatch");
}

static void test_modules(void) {
  BAD(bw_put_u32(d, MOD(0), (uint32_t)L.strtab_size),
      "module 0: name: string reference", "outside the string table");
  BAD(bw_put_u32(d, MOD(0) + 4, 4), "module 0 'kernels_ptx': unknown module kind 4");
  BAD(bw_put_u32(d, MOD(0) + 4, 3),
      "module 0 'kernels_ptx': a cubin (module kind 3) needs bundle format "
      "version 2.5 or later, but the header says minor version 0");
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

/* A cubin module (kind 3): an ELF image named after a PTX module of the
 * bundle, for an SM, one per SM; its headers and sections inside its
 * bytes. `elf` is a minimal one: a header, one section of 16 bytes after
 * it, and the section header table (2 entries, the first null). */
static unsigned char elf[64 + 16 + 2 * 64];
static void make_elf(void) {
  memset(elf, 0, sizeof elf);
  memcpy(elf, "\x7f" "ELF", 4);
  elf[4] = 2;                 /* ELFCLASS64 */
  elf[5] = 1;                 /* little-endian */
  elf[0x34] = 64;             /* e_ehsize */
  bw_put_u64(elf, 0x28, 80);  /* e_shoff */
  elf[0x3A] = 64;             /* e_shentsize */
  elf[0x3C] = 2;              /* e_shnum */
  elf[0x3E] = 1;              /* e_shstrndx */
  unsigned char *sh = elf + 80 + 64;
  bw_put_u32(sh, 4, 1);       /* SHT_PROGBITS */
  bw_put_u64(sh, 0x18, 64);   /* sh_offset */
  bw_put_u64(sh, 0x20, 16);   /* sh_size */
}
#define ADD_CUBIN(name, text, size, target)                                  \
  (b.module_sizes[b.num_modules] = (size),                                   \
   b.modules[b.num_modules++] = (bw_module){                                 \
       name, FUSER_BUNDLE_MODULE_CUBIN, (const char *)(text), target, 0})
/* `elf` with one change. */
#define ELF_WITH(stmt)                                                       \
  (make_elf(), (stmt), (const char *)elf)
static void test_cubins(void) {
  make_elf();
  {
    bw_bundle b;
    tl_sample_bundle(&b, true);
    ADD_CUBIN("kernels_ptx.cubin", elf, sizeof elf, 90);
    ADD_CUBIN("kernels_ptx.cubin", elf, sizeof elf, 100);
    size_t n;
    unsigned char *d = bw_write(&b, &n, NULL);
    EXPECT_OK(load(d, n));
    free(d);
  }
  BAD_B(false, ADD_CUBIN("kernels_ptx.cubin", "PK not an ELF", 13, 90),
        "module 1 'kernels_ptx.cubin': a cubin must be an ELF image (starting "
        "\\x7fELF, at least 64 bytes)");
  BAD_B(false, ADD_CUBIN("kernels_ptx.cubin", elf, 63, 90),
        "a cubin must be an ELF image (starting \\x7fELF, at least 64 bytes)");
  BAD_B(false, ADD_CUBIN("kernels_ptx.cubin", ELF_WITH(elf[4] = 1), sizeof elf, 90),
        "a cubin must be a little-endian 64-bit ELF image (class 1, data 1)");
  BAD_B(false, ADD_CUBIN("kernels_ptx.cubin", ELF_WITH(elf[0x34] = 40), sizeof elf, 90),
        "a cubin's ELF header size 40 is not 64 to 208");
  BAD_B(false, ADD_CUBIN("kernels_ptx.cubin", ELF_WITH(elf[0x3C] = 3), sizeof elf, 90),
        "a cubin's section headers (3 of 64 bytes at 80) run past its 208 bytes");
  BAD_B(false,
        ADD_CUBIN("kernels_ptx.cubin", ELF_WITH(bw_put_u64(elf, 0x28, ~0ull - 8)),
                  sizeof elf, 90),
        "a cubin's section headers (2 of 64 bytes at 18446744073709551607) run "
        "past its 208 bytes");
  BAD_B(false, ADD_CUBIN("kernels_ptx.cubin", ELF_WITH(elf[0x3E] = 2), sizeof elf, 90),
        "a cubin's section name index 2 is not below its 2 sections");
  BAD_B(false,
        ADD_CUBIN("kernels_ptx.cubin", ELF_WITH(bw_put_u64(elf + 144, 0x20, 200)),
                  sizeof elf, 90),
        "a cubin's section 1 (200 bytes at 64) runs past its 208 bytes");
  BAD_B(false,
        ADD_CUBIN("kernels_ptx.cubin",
                  ELF_WITH((bw_put_u64(elf, 0x20, 200), elf[0x36] = 56, elf[0x38] = 1)),
                  sizeof elf, 90),
        "a cubin's program headers (1 of 56 bytes at 200) run past its 208 bytes");
  make_elf();
  BAD_B(false, ADD_CUBIN("kernels_ptx.cubin", elf, sizeof elf, 0),
        "module 1 'kernels_ptx.cubin': a cubin must name its SM version "
        "(target 0)");
  BAD_B(false, ADD_CUBIN("kernels.cubin", elf, sizeof elf, 90),
        "module 1 'kernels.cubin': no PTX module 'kernels' for this cubin");
  BAD_B(true, ADD_CUBIN("kernels_mlir.cubin", elf, sizeof elf, 90),
        "module 2 'kernels_mlir.cubin': no PTX module 'kernels_mlir' for this "
        "cubin");
  BAD_B(false, ADD_CUBIN("kernels_ptx", elf, sizeof elf, 90),
        "a cubin's name must be its PTX module's with '.cubin' after it");
  BAD_B(false,
        (ADD_CUBIN("kernels_ptx.cubin", elf, sizeof elf, 90),
         ADD_CUBIN("kernels_ptx.cubin", elf, sizeof elf, 90)),
        "module 2 'kernels_ptx.cubin': a second cubin for sm_90 of PTX module "
        "'kernels_ptx'");
  BAD_B(false,
        (b.modules[b.num_modules++] = b.modules[0],
         ADD_CUBIN("kernels_ptx.cubin", elf, sizeof elf, 90)),
        "module 2 'kernels_ptx.cubin': two PTX modules are named 'kernels_ptx': "
        "which one this cubin is of is ambiguous");
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
  BAD(bw_put_u8(d, TEN(0) + 4, 12), "fusion 0 'softmax': argument 0: unknown dtype 12");
  BAD(bw_put_u8(d, TEN(1) + 4, 0), "fusion 0 'softmax': result 0: unknown dtype 0");
  BAD(bw_put_u8(d, TEN(1) + 5, 200), "result 0: rank 200 is more than FUSER_MAX_RANK (32)");
  /* Ranks 33 to 64 were accepted, and overflowed fuserc's shape arrays. */
  BAD(bw_put_u8(d, TEN(1) + 5, 33), "result 0: rank 33 is more than FUSER_MAX_RANK (32)");
  BAD(bw_put_u16(d, TEN(0) + 6, 1), "argument 0: reserved fields are not 0");
  /* Offset 16 was a reserved 0; it is the strides record now (0: none). */
  BAD(bw_put_u64(d, TEN(0) + 16, 1), "argument 0: strides at offset 1 is not 8-byte aligned");
  BAD(bw_put_u64(d, TEN(1) + 16, L.dims[0][1]),
      "fusion 0 'softmax': result 0: a strides record (at offset");
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

/* Names: tensor names are identifiers (fuserc run makes file names of
 * them) and distinct; fusion and kernel names are PTX identifiers; module
 * names plain text. A bad name is quoted with its odd bytes escaped. */
static void test_names(void) {
  BAD_B(false, b.fusions[0].tensors[1].name = "../escaped",
        "fusion 0 'softmax': result 0: name '../escaped' is not an identifier "
        "([A-Za-z_][A-Za-z0-9_]*)");
  BAD_B(false, b.fusions[0].tensors[0].name = "",
        "fusion 0 'softmax': argument 0: name '' is not an identifier");
  BAD_B(false, b.fusions[0].tensors[0].name = "1x", "argument 0: name '1x' is not");
  BAD_B(false, b.fusions[0].tensors[0].name = "/etc/passwd",
        "argument 0: name '/etc/passwd' is not");
  BAD_B(false, b.fusions[0].tensors[0].name = "x\033[2J'\\",
        "argument 0: name 'x\\x1b[2J\\x27\\x5c' is not an identifier");
  BAD_B(false, b.fusions[1].tensors[2].name = "x",
        "fusion 1 'add': argument 0 and result 0 are both named 'x' (each "
        "name may appear once)");
  BAD_B(false, b.fusions[1].tensors[1].name = "x",
        "fusion 1 'add': argument 0 and argument 1 are both named 'x'");
  BAD_B(false, (b.fusions[1].tensors[0].name = "z", b.fusions[1].tensors[1].name = "z"),
        "argument 0 and argument 1 are both named 'z'");
  /* The same names in two fusions are fine: the sample's softmax and add
   * both have an 'x' and a 'y' (test_valid). */
  BAD_B(false, b.fusions[1].name = "a.b",
        "fusion 1: name 'a.b' is not an identifier ([A-Za-z_$][A-Za-z0-9_$]*)");
  BAD_B(false, b.fusions[1].name = "a\nb", "fusion 1: name 'a\\x0ab' is not");
  BAD_B(false, b.modules[0].name = "kernels ptx",
        "module 0: name 'kernels ptx' is not plain text");
  BAD_B(false, b.fusions[0].launches[0].kernel = "softmax max",
        "launch 0: kernel name 'softmax max' is not an identifier");
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
  /* ALLOC's flags: 0, or 1 (zeroed) */
  BAD(bw_put_u64(d, INS(10) + 16, 2),
      "instruction 10 (ALLOC): intermediate buffer 2: ALLOC flags 2 (0 or 1, zeroed)");
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

/* The plan as data flow: a register is read only after an instruction
 * wrote it (registers start at 0, which a check reading the wrong one
 * would take for "fine"), and every dynamic dim of a result has a
 * RESULT_DIM (else the caller's size for it would go unchecked). */
static void test_dataflow(void) {
  BAD(bw_put_u32(d, INS(9) + 12, 16),
      "fusion 0 'softmax': instruction 9 (MUL): operand b reads register 16 "
      "before any instruction writes it");
  BAD(bw_put_u32(d, INS(5) + 8, 5),
      "instruction 5 (ASSERT): operand a reads register 5 before any "
      "instruction writes it");
  BAD(bw_put_u32(d, INS(5) + 12, 14), "instruction 5 (ASSERT): operand b reads register 14");
  BAD(bw_put_u32(d, INS(10) + 12, 11), "instruction 10 (ALLOC): operand b reads register 11");
  BAD(bw_put_u32(d, INS(15) + 12, 14),
      "instruction 15 (LAUNCH): the predicate (operand b) reads register 14");
  BAD(bw_put_u32(d, LAU(0) + 16, 12),
      "instruction 15 (LAUNCH): launch 0 'softmax_max': grid x reads "
      "register 12 before any instruction writes it");
  BAD(bw_put_u32(d, LAU(0) + 36, 13), "launch 0 'softmax_max': block z reads register 13");
  BAD(bw_put_u32(d, LAU(0) + 40, 16), "launch 0 'softmax_max': shared memory reads register 16");
  BAD(bw_put_u32(d, PAR(0, 2) + 4, 16),
      "instruction 15 (LAUNCH): launch 0 'softmax_max': parameter 2 reads register 16");
  BAD((bw_put_u16(d, INS(18), 17), bw_put_u64(d, INS(18) + 16, 15)),
      "instruction 18 (SELECT): operand imm reads register 15");
  BAD_B(false, (b.fusions[0].num_regs = 18, b.fusions[0].instrs[23].a = 17),
        "instruction 23 (RESULT_DIM): operand a reads register 17 before");
  /* A register written later in the plan is still unwritten here. */
  BAD(bw_put_u32(d, INS(4) + 8, 7), "instruction 4 (EQ): operand a reads register 7");
  BAD_B(false, b.fusions[0].num_instrs--,
        "fusion 0 'softmax': no RESULT_DIM computes dynamic dim 3 (dim 1 of "
        "result 0 'y'), so the size a caller passes for it could not be checked");
  BAD_B(false, b.fusions[0].instrs[23].b = 3,
        "no RESULT_DIM computes dynamic dim 2 (dim 0 of result 0 'y')");
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

/* The scanner reads every form of parameter list (spacing, comments,
 * arrays, .align, .ptr with a state space); one it can't read is an error,
 * since the launch could not be checked against it. */
static void test_ptx_scanner(void) {
  bw_bundle b;
  tl_sample_bundle(&b, false);
  static const char odd_ptx[] =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      "// .entry fake_in_comment(.param .u64 x)\n"
      "/* .entry also_fake() */\n"
      ".visible .entry softmax_max(.param .u64 .ptr.global.align 16 a, "
      ".param .u64 .ptr /* c */ b, .param .u32 c, .param .s64 d) { ret; }\n"
      ".visible .entry softmax_vec4 ( .param .u64 .ptr a , .param .u64 .ptr b,\n"
      "  .param .u64 .ptr .const .align 8 c, .param .u32 d ) { ret; }\n"
      ".entry softmax_norm(.param .u64 .ptr a,.param .u64 .ptr b,.param .u64 "
      ".ptr c,.param .u32 d,.param .u64 e){ret;}\n"
      ".entry add_kernel(.param .u64 .ptr a, .param .u64 .ptr b, .param .u64 "
      ".ptr c, .param .align 4 .b8 n[4]) {}\n";
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
  /* Pointers and 64-bit integers are both 8 bytes: `.ptr` tells them
   * apart. */
  tl_sample_bundle(&b, false);
  b.fusions[0].launches[1].params[2] = (bw_param){BW_I64, 0};
  d = bw_write(&b, &n, NULL);
  EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE,
             "launch 1 'softmax_vec4': parameter 2 is i64 but the PTX .entry "
             "declares a pointer (.ptr)");
  free(d);
  tl_sample_bundle(&b, false);
  b.fusions[0].launches[0].params[3] = (bw_param){BW_PTR, 1};
  d = bw_write(&b, &n, NULL);
  EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE,
             "launch 0 'softmax_max': parameter 3 is a pointer to a buffer but "
             "the PTX .entry declares an integer (no .ptr)");
  free(d);
  /* A parameter list the scanner can't read. */
  static const char weird_ptx[] =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry softmax_max(.param .u64 .ptr a, .param .weird b) { ret; }\n"
      ".visible .entry softmax_vec4(.param .u64 .ptr a, .param .u64 .ptr b, "
      ".param .u64 .ptr c, .param .u32 d) { ret; }\n"
      ".entry softmax_norm(.param .u64 .ptr a, .param .u64 .ptr b, .param .u64 "
      ".ptr c, .param .u32 d, .param .u64 e) {}\n"
      ".entry add_kernel(.param .u64 .ptr a, .param .u64 .ptr b, .param .u64 "
      ".ptr c, .param .u32 n) {}\n";
  tl_sample_bundle(&b, false);
  b.modules[0].text = weird_ptx;
  d = bw_write(&b, &n, NULL);
  EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE,
             "launch 0 'softmax_max': the parameter list of the PTX .entry "
             "'softmax_max' can't be read (at parameter 1), so the launch "
             "can't be checked against it");
  free(d);
  static const char unterminated_ptx[] =
      ".entry softmax_max(.param .u64 .ptr a, .param .u64 .ptr b";
  b.modules[0].text = unterminated_ptx;
  d = bw_write(&b, &n, NULL);
  EXPECT_ERR(load(d, n), FUSER_ERROR_INVALID_BUNDLE,
             "'softmax_max' can't be read (at parameter 1)");
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

/* ---- views: the strides record and STRIDE ------------------------------ */

static unsigned char *sbase; /* the strided sample */
static size_t sbase_size;
static bw_layout SL;

/* The sample with softmax's x a view, strides [-1, 1] (its rows a stride
 * apart that the caller passes, each row contiguous), read by a STRIDE into
 * r17 (instruction 25) that an ADD (26) reads. */
static void strided_sample(bw_bundle *b) {
  tl_sample_bundle(b, false);
  bw_fusion *f = &b->fusions[0];
  bw_set_strides(f, 0, (const int64_t[]){-1, 1});
  f->num_regs = 19;
  f->instrs[f->num_instrs++] = bw_op(BW_STRIDE, 17, 0, 0);
  f->instrs[f->num_instrs++] = bw_op(BW_ADD, 18, 17, 6);
}

/* BAD and BAD_B of the strided sample. */
#define BAD_S(stmt, ...) BAD_FROM(sbase, sbase_size, stmt, __VA_ARGS__)
#define BAD_SB(stmt, ...) BAD_DESC(strided_sample(&b), stmt, __VA_ARGS__)
#define SINS(i) (SL.instrs[0] + FUSER_BUNDLE_INSTR_SIZE * (i))
#define STEN(i) (SL.tensors[0] + FUSER_BUNDLE_TENSOR_SIZE * (i))

static void test_strides(void) {
  /* Valid: the strides are the argument's, a result and a dense argument
   * have none; the plan text shows the STRIDE. */
  fuser_bundle *b = NULL;
  if (EXPECT_OK(fuser_bundle_load(rt, sbase, sbase_size, &b))) {
    const fuser_fusion *f = fuser_bundle_find_fusion(b, "softmax");
    const fuser_tensor_info *x = fuser_fusion_arg(f, 0);
    CHECK(x->strides && x->strides[0] == -1 && x->strides[1] == 1);
    CHECK(fuser_fusion_result(f, 0)->strides == NULL);
    const fuser_fusion *add = fuser_bundle_find_fusion(b, "add");
    CHECK(fuser_fusion_arg(add, 0)->strides == NULL);
    char text[4096];
    fuser_fusion_plan_text(f, text, sizeof text);
    CHECK(strstr(text, "  25: r17 = stride x[0]\n  26: r18 = add r17, r6\n"));
    /* fuser_fusion_tensor_bytes stays the dense size of the dims. */
    int64_t dims[4] = {3, 5, 3, 5};
    uint64_t bytes = 0;
    EXPECT_OK(fuser_fusion_tensor_bytes(f, 0, dims, 4, &bytes));
    CHECK(bytes == 60);
    fuser_bundle_destroy(b);
  }
  /* The record: inside the file, 8-aligned, rank entries of >= -1. */
  BAD_S(bw_put_u64(d, STEN(0) + 16, n + 8),
        "fusion 0 'softmax': argument 0: strides at offset", "is outside the file");
  BAD_S(bw_put_u64(d, STEN(0) + 16, SL.strides[0][0] + 4),
        "fusion 0 'softmax': argument 0: strides at offset", "is not 8-byte aligned");
  BAD_S(bw_put_u64(d, STEN(0) + 16, (n - 8) & ~(size_t)7),
        "argument 0: strides at offset", "2 records of 8 bytes run past the end");
  BAD_S(bw_put_u64(d, SL.strides[0][0] + 8, (uint64_t)-2),
        "fusion 0 'softmax': argument 0: stride 1 is -2 (a stride in elements, "
        ">= 0, or -1 when the caller passes it)");
  BAD_S(bw_put_u64(d, SL.strides[0][0], (uint64_t)INT64_MIN), "argument 0: stride 0 is -9223372036854775808");
  /* Results are written dense: never a view. */
  BAD_SB(bw_set_strides(&b.fusions[0], 1, (const int64_t[]){5, 1}),
         "fusion 0 'softmax': result 0: a strides record (at offset",
         "results are always dense (row-major), only arguments may be views");
  BAD_SB(bw_set_strides(&b.fusions[1], 2, (const int64_t[]){1}),
         "fusion 1 'add': result 0: a strides record");
  /* Strides of 0 (an expanded dim) and a record shared with the dims (the
   * same values) are fine. */
  {
    bw_bundle bb;
    strided_sample(&bb);
    bw_set_strides(&bb.fusions[1], 0, (const int64_t[]){0});
    size_t n;
    unsigned char *d = bw_write(&bb, &n, NULL);
    EXPECT_OK(load(d, n));
    free(d);
    d = malloc(sbase_size);
    memcpy(d, sbase, sbase_size);
    bw_put_u64(d, STEN(0) + 16, SL.dims[0][0]);
    bw_fix_checksum(d, sbase_size);
    EXPECT_OK(load(d, sbase_size));
    free(d);
  }
  /* STRIDE: dst a register; a an argument with a strides record, b one of
   * its dims whose stride is -1. */
  BAD_S(bw_put_u32(d, SINS(25) + 4, 19),
        "fusion 0 'softmax': instruction 25 (STRIDE): register 19 out of range "
        "in operand dst (plan has 19 registers)");
  BAD_S(bw_put_u32(d, SINS(25) + 8, 1),
        "instruction 25 (STRIDE): buffer 1 is not an argument (the fusion has 1 "
        "arguments)");
  BAD_S(bw_put_u32(d, SINS(25) + 8, BW_NONE),
        "instruction 25 (STRIDE): buffer 4294967295 is not an argument");
  BAD_S(bw_put_u64(d, STEN(0) + 16, 0),
        "instruction 25 (STRIDE): argument 0 'x' has no strides record (it is dense)");
  BAD_S(bw_put_u32(d, SINS(25) + 12, 2),
        "instruction 25 (STRIDE): dim 2 out of range (argument 0 'x' has rank 2)");
  BAD_S(bw_put_u32(d, SINS(25) + 12, 1),
        "instruction 25 (STRIDE): stride 1 of argument 0 'x' is static (1): "
        "STRIDE reads only a dynamic one (-1)");
  BAD_S(bw_put_u16(d, SINS(25) + 2, 1), "instruction 25 (STRIDE): reserved field is not 0");
  /* STRIDE is what writes its dst: without it r17 is read unwritten. */
  BAD_S(bw_put_u32(d, SINS(25) + 4, 18),
        "instruction 26 (ADD): operand a reads register 17 before any "
        "instruction writes it");
  BAD_SB(b.fusions[0].instrs[25].dst = 18,
         "instruction 26 (ADD): operand a reads register 17 before");
  /* An opcode past the last is unknown. */
  {
    char unknown[64];
    snprintf(unknown, sizeof unknown,
             "fusion 0 'softmax': instruction 25: unknown opcode %d",
             FUSER_BUNDLE_OP_LAST + 1);
    BAD_S(bw_put_u16(d, SINS(25), FUSER_BUNDLE_OP_LAST + 1), unknown);
  }
}

static void test_truncations(const unsigned char *base, size_t base_size) {
  int failures = 0;
  for (size_t len = 0; len < base_size; len++) {
    unsigned char *d = malloc(len ? len : 1);
    memcpy(d, base, len);
    fuser_error *e = load(d, len);
    if (!e || fuser_error_code_of(e) != FUSER_ERROR_INVALID_BUNDLE) failures++;
    fuser_error_destroy(e);
    /* And with the header's size and checksum agreeing, so deeper checks
     * run. */
    if (len >= FUSER_BUNDLE_HEADER_SIZE) {
      bw_put_u64(d, 16, len);
      bw_fix_checksum(d, len);
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
 * fusions run (on the no-op driver) without crashing. Most get the checksum
 * of their new bytes, so that the structural checks behind it are what is
 * tested; the rest must all fail on the checksum. */
static void test_fuzz(const unsigned char *base, size_t base_size,
                      size_t structured_end, long iterations, bool views) {
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
      if (it % 3 != 0) at = at % (structured_end ? structured_end : base_size);
      d[at] ^= (unsigned char)(1u << ((s >> 20) % 8));
      if (it % 7 == 0) d[at] = (unsigned char)(s >> 40);
    }
    bool fixed = it % 8 != 0;
    if (fixed) bw_fix_checksum(d, base_size);
    fuser_bundle *b = NULL;
    fuser_error *e = fuser_bundle_load(rt, d, base_size, &b);
    if (!fixed && !e && memcmp(d, base, base_size) != 0) {
      fprintf(stderr, "fuzz %ld: a corrupted bundle passed the checksum\n", it);
      tl_failures++;
    }
    if (e) {
      if (fuser_error_code_of(e) != FUSER_ERROR_INVALID_BUNDLE) {
        fprintf(stderr, "fuzz %ld: unexpected %s\n", it, fuser_error_message(e));
        tl_failures++;
      }
      fuser_error_destroy(e);
    } else {
      loaded++;
      /* Distinct, far-apart addresses (the null driver touches nothing):
       * overlapping buffers would be refused before the plan runs. */
      uint64_t bufs[16];
      for (int k = 0; k < 16; k++)
        bufs[k] = ((uint64_t)k + 1) << 44;
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
        if (views) {
          /* Every argument passed as a view, of strides 0 to 4: most are
           * refused (they don't match), all cleanly. */
          int64_t strides[8][32];
          const int64_t *arg_strides[8];
          for (size_t a = 0; a < fuser_fusion_num_args(f); a++) {
            for (int k = 0; k < 32; k++) strides[a][k] = (int64_t)((s >> k) % 5);
            arg_strides[a] = strides[a];
          }
          fuser_run_options ro = {.arg_strides = arg_strides};
          fuser_error_destroy(fuser_run(f, bufs, bufs + 8, dims, nd, NULL, &ro));
        }
        uint64_t bytes;
        fuser_error_destroy(
            fuser_fusion_scratch_size(f, NULL, NULL, dims, nd, &bytes));
      }
      fuser_bundle_destroy(b);
    }
    free(d);
  }
  printf("fuzz%s: %ld corruptions, %ld still loaded\n", views ? " (views)" : "",
         iterations, loaded);
}

int main(int argc, char **argv) {
  long iterations = argc > 1 ? atol(argv[1]) : 20000;
  EXPECT_OK(fuser_rt_create_with_driver(&tl_null_driver, NULL, &rt));
  if (!rt) return tl_finish("test_validate");
  base = tl_sample_bytes(&base_size, &L);
  test_valid();
  test_header();
  test_checksum();
  test_modules();
  test_cubins();
  test_fusions();
  test_names();
  test_instructions();
  test_dataflow();
  test_launches();
  test_ptx_scanner();
  bw_bundle sb;
  strided_sample(&sb);
  sbase = bw_write(&sb, &sbase_size, &SL);
  test_strides();
  test_truncations(base, base_size);
  test_truncations(sbase, sbase_size);
  test_fuzz(base, base_size, L.module_data[0], iterations, false);
  test_fuzz(sbase, sbase_size, SL.module_data[0], iterations / 4, true);
  free(sbase);
  free(base);
  fuser_rt_destroy(rt);
  return tl_finish("test_validate");
}
