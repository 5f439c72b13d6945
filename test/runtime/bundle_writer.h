/* A tiny writer of fuser kernel bundles (docs/bundle.md) for the runtime's
 * tests and benchmark: describe a bundle in these structs, bw_write() lays
 * it out byte by byte and reports where every record went, so tests can
 * patch single fields to make malformed variants. */
#ifndef FUSER_TEST_BUNDLE_WRITER_H
#define FUSER_TEST_BUNDLE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#define BW_MAX_TENSORS 8
#define BW_MAX_RANK 6
#define BW_MAX_INSTRS 96
#define BW_MAX_LAUNCHES 8
#define BW_MAX_PARAMS 16
#define BW_MAX_FUSIONS 4
#define BW_MAX_MODULES 6
#define BW_NONE 0xFFFFFFFFu

enum {
  BW_CONST = 1, BW_DIM, BW_ADD, BW_SUB, BW_MUL, BW_DIV, BW_CEILDIV, BW_REM,
  BW_MIN, BW_MAX, BW_EQ, BW_NE, BW_LT, BW_LE, BW_AND, BW_OR, BW_SELECT,
  BW_ALIGNED, BW_ASSERT, BW_ALLOC, BW_LAUNCH
};
enum { BW_PTR = 1, BW_I32 = 2, BW_I64 = 3 };

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

typedef struct bw_fusion {
  const char *name;
  uint32_t num_args, num_results, num_regs, num_inter;
  uint32_t num_dyn; /* BW_NONE: count the -1 dims */
  bw_tensor tensors[BW_MAX_TENSORS];
  uint32_t num_instrs;
  bw_instr instrs[BW_MAX_INSTRS];
  uint32_t num_launches;
  bw_launch launches[BW_MAX_LAUNCHES];
  uint32_t ptx_module, emu_module;
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
  uint32_t num_fusions;
  bw_fusion fusions[BW_MAX_FUSIONS];
} bw_bundle;

/* Where bw_write put things (byte offsets in the file). */
typedef struct bw_layout {
  size_t module_table, fusion_table, strtab, strtab_size;
  size_t module_data[BW_MAX_MODULES];
  size_t tensors[BW_MAX_FUSIONS];
  size_t dims[BW_MAX_FUSIONS][BW_MAX_TENSORS];
  size_t instrs[BW_MAX_FUSIONS];
  size_t launches[BW_MAX_FUSIONS];
  size_t params[BW_MAX_FUSIONS][BW_MAX_LAUNCHES];
} bw_layout;

/* Writes the bundle; returns malloc'ed bytes (caller frees), size in
 * *size, offsets in *layout (may be NULL). */
unsigned char *bw_write(const bw_bundle *b, size_t *size, bw_layout *layout);

/* Little-endian patch helpers. */
void bw_put_u8(unsigned char *d, size_t off, uint8_t v);
void bw_put_u16(unsigned char *d, size_t off, uint16_t v);
void bw_put_u32(unsigned char *d, size_t off, uint32_t v);
void bw_put_u64(unsigned char *d, size_t off, uint64_t v);

/* Shorthands for building plans. */
bw_instr bw_op(uint16_t op, uint32_t dst, uint32_t a, uint32_t b);
bw_instr bw_const(uint32_t dst, int64_t imm);

#endif
