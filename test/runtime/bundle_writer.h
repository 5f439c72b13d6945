/* A tiny writer of fuser kernel bundles (docs/bundle.md) for the runtime's
 * tests and benchmark: describe a bundle in these structs, bw_write() lays
 * it out byte by byte (with the offsets of fuser_bundle_format.h) and
 * reports where every record went, so tests can patch single fields to make
 * malformed variants (then bw_fix_checksum). */
#ifndef FUSER_TEST_BUNDLE_WRITER_H
#define FUSER_TEST_BUNDLE_WRITER_H

#include "fuser_bundle_format.h"

#include <stddef.h>
#include <stdint.h>

#define BW_MAX_TENSORS 12
#define BW_MAX_RANK 6
#define BW_MAX_INSTRS 96
#define BW_MAX_LAUNCHES 8
#define BW_MAX_PARAMS 16
#define BW_MAX_FUSIONS 4
#define BW_MAX_MODULES 6
#define BW_MAX_GEMMS 4
#define BW_MAX_COLLS 12
#define BW_NONE ((uint32_t)FUSER_BUNDLE_NONE)

/* Short names of the format's opcodes and parameter kinds; the values are
 * fuser_bundle_format.h's, the one definition of the format. */
enum {
  BW_CONST = FUSER_BUNDLE_OP_CONST,
  BW_DIM = FUSER_BUNDLE_OP_DIM,
  BW_ADD = FUSER_BUNDLE_OP_ADD,
  BW_SUB = FUSER_BUNDLE_OP_SUB,
  BW_MUL = FUSER_BUNDLE_OP_MUL,
  BW_DIV = FUSER_BUNDLE_OP_DIV,
  BW_CEILDIV = FUSER_BUNDLE_OP_CEILDIV,
  BW_REM = FUSER_BUNDLE_OP_REM,
  BW_MIN = FUSER_BUNDLE_OP_MIN,
  BW_MAX = FUSER_BUNDLE_OP_MAX,
  BW_EQ = FUSER_BUNDLE_OP_EQ,
  BW_NE = FUSER_BUNDLE_OP_NE,
  BW_LT = FUSER_BUNDLE_OP_LT,
  BW_LE = FUSER_BUNDLE_OP_LE,
  BW_AND = FUSER_BUNDLE_OP_AND,
  BW_OR = FUSER_BUNDLE_OP_OR,
  BW_SELECT = FUSER_BUNDLE_OP_SELECT,
  BW_ALIGNED = FUSER_BUNDLE_OP_ALIGNED,
  BW_ASSERT = FUSER_BUNDLE_OP_ASSERT,
  BW_ALLOC = FUSER_BUNDLE_OP_ALLOC,
  BW_LAUNCH = FUSER_BUNDLE_OP_LAUNCH,
  BW_RESULT_DIM = FUSER_BUNDLE_OP_RESULT_DIM,
  BW_STRIDE = FUSER_BUNDLE_OP_STRIDE,
  BW_GEMM = FUSER_BUNDLE_OP_GEMM,
  BW_GRID = FUSER_BUNDLE_OP_GRID,
  BW_COLLECTIVE = FUSER_BUNDLE_OP_COLLECTIVE,
};
enum {
  BW_PTR = FUSER_BUNDLE_PARAM_PTR,
  BW_I32 = FUSER_BUNDLE_PARAM_I32,
  BW_I64 = FUSER_BUNDLE_PARAM_I64
};

typedef struct bw_tensor {
  const char *name;
  uint8_t dtype, rank;
  int64_t dims[BW_MAX_RANK];
} bw_tensor;

typedef struct bw_instr {
  uint16_t op;
  uint32_t dst, a, b;
  int64_t imm;
  const char *msg; /* ASSERT: the message; imm becomes its string offset */
} bw_instr;

typedef struct bw_param {
  uint8_t kind;
  uint32_t index;
} bw_param;

typedef struct bw_launch {
  const char *kernel;
  uint32_t num_params;
  bw_param params[BW_MAX_PARAMS];
  uint32_t grid[3], block[3], smem; /* registers */
} bw_launch;

/* A GEMM record (fuser_bundle_format.h): buffers, registers, dtypes. A
 * GEMM instruction's imm is the index of its record in bw_fusion.gemms;
 * bw_write stores the record's file offset there instead. */
typedef struct bw_gemm {
  uint32_t a, b, d, bias; /* buffers; bias BW_NONE without the epilogue
                             (with BGRAD_A/B: the gradient, written) */
  uint32_t m, n, k, batch, lda, ldb, ldd, stride_a, stride_b, stride_d;
  uint8_t ab_dtype, d_dtype, flags, epilogue;
  uint32_t aux; /* the pre-activation's buffer with EPILOGUE_AUX, else 0 */
} bw_gemm;

/* A grid record (fuser_bundle_format.h), written when a GRID instruction
 * is in the plan (its imm becomes the record's offset): the axes, their
 * sizes, and per tensor (arguments, then results) a mask per dim, written
 * as the record's splits array right after it. */
typedef struct bw_grid {
  uint32_t axes;
  uint32_t sizes[FUSER_BUNDLE_GRID_MAX_AXES];
  uint8_t splits[BW_MAX_TENSORS][BW_MAX_RANK];
} bw_grid;

/* A collective record. A COLLECTIVE instruction's imm is the index of its
 * record in bw_fusion.colls; bw_write stores the record's offset. */
typedef struct bw_coll {
  uint8_t kind, reduction, dtype, group;
  uint32_t src, dst, count; /* buffers, a register */
} bw_coll;

typedef struct bw_fusion {
  const char *name;
  uint32_t num_args, num_results, num_regs, num_inter;
  uint32_t num_dyn; /* BW_NONE: count the -1 dims */
  bw_tensor tensors[BW_MAX_TENSORS];
  /* Views: a tensor t with strided[t] gets a strides record of strides[t]
   * (its rank entries, -1 for a dynamic one) after its dims; else its
   * field is 0 (dense). bw_set_strides sets both. (Not in bw_tensor, whose
   * positional initializers every test uses.) */
  uint8_t strided[BW_MAX_TENSORS];
  int64_t strides[BW_MAX_TENSORS][BW_MAX_RANK];
  uint32_t num_instrs;
  bw_instr instrs[BW_MAX_INSTRS];
  uint32_t num_launches;
  bw_launch launches[BW_MAX_LAUNCHES];
  uint32_t ptx_module, emu_module;
  uint32_t num_gemms;
  bw_gemm gemms[BW_MAX_GEMMS];
  bw_grid grid;
  uint32_t num_colls;
  bw_coll colls[BW_MAX_COLLS];
} bw_fusion;

typedef struct bw_module {
  const char *name;
  uint32_t kind;
  const char *text;
  uint32_t target, isa;
} bw_module;

typedef struct bw_bundle {
  uint32_t num_modules;
  bw_module modules[BW_MAX_MODULES];
  /* Bytes of module i's text (which may hold NULs: a cubin); 0:
   * strlen(text). A NUL follows them in the file either way. (Not in
   * bw_module, whose positional initializers every test uses.) */
  size_t module_sizes[BW_MAX_MODULES];
  uint32_t num_fusions;
  bw_fusion fusions[BW_MAX_FUSIONS];
  /* The header's minor version; 0: the least the bundle needs (5 with a
   * cubin module, 4 with a
   * GEMM writing a bias gradient, 3 with a GRID or COLLECTIVE, 2 with a
   * GEMM keeping its pre-activation, 1 with another GEMM, else 0). A test
   * that wants less patches the header. */
  uint32_t minor;
} bw_bundle;

/* Where bw_write put things (byte offsets in the file). */
typedef struct bw_layout {
  size_t module_table, fusion_table, strtab, strtab_size;
  size_t module_data[BW_MAX_MODULES];
  size_t tensors[BW_MAX_FUSIONS];
  size_t dims[BW_MAX_FUSIONS][BW_MAX_TENSORS];
  size_t strides[BW_MAX_FUSIONS][BW_MAX_TENSORS]; /* 0: none */
  size_t instrs[BW_MAX_FUSIONS];
  size_t launches[BW_MAX_FUSIONS];
  size_t params[BW_MAX_FUSIONS][BW_MAX_LAUNCHES];
  size_t gemms[BW_MAX_FUSIONS][BW_MAX_GEMMS];
  size_t grid[BW_MAX_FUSIONS];   /* 0: none */
  size_t splits[BW_MAX_FUSIONS]; /* the grid's splits array */
  size_t colls[BW_MAX_FUSIONS][BW_MAX_COLLS];
} bw_layout;

/* Writes the bundle; returns malloc'ed bytes (caller frees), size in
 * *size, offsets in *layout (may be NULL). */
unsigned char *bw_write(const bw_bundle *b, size_t *size, bw_layout *layout);

/* Stores the checksum of the `size` bytes at `d` (fuser_bundle_checksum)
 * in the header: call it after patching a bundle, so that the loader gets
 * past the checksum to the check a test is about. */
void bw_fix_checksum(unsigned char *d, size_t size);

/* Little-endian patch helpers. */
void bw_put_u8(unsigned char *d, size_t off, uint8_t v);
void bw_put_u16(unsigned char *d, size_t off, uint16_t v);
void bw_put_u32(unsigned char *d, size_t off, uint32_t v);
void bw_put_u64(unsigned char *d, size_t off, uint64_t v);

/* Makes tensor t of `f` a view with these strides (its rank entries). */
void bw_set_strides(bw_fusion *f, uint32_t t, const int64_t *strides);

/* Shorthands for building plans. */
bw_instr bw_op(uint16_t op, uint32_t dst, uint32_t a, uint32_t b);
bw_instr bw_const(uint32_t dst, int64_t imm);
/* A GEMM instruction of record `index` of the fusion's gemms. */
bw_instr bw_gemm_op(uint32_t index);
/* The GRID instruction (of bw_fusion.grid). */
bw_instr bw_grid_op(void);
/* A COLLECTIVE instruction of record `index` of the fusion's colls. */
bw_instr bw_coll_op(uint32_t index);

#endif
