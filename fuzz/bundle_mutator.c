/*===- bundle_mutator.c - a structure-aware mutator for fuzz_bundle -------===*\
|*                                                                            *|
|* libFuzzer's byte mutations almost never get past a bundle's checksum, and  *|
|* those that do rarely reach the plan's operands with meaningful values. This *|
|* custom mutator decodes a bundle's layout (fuser_bundle_format.h) into typed *|
|* fields (counts, offsets, string references, opcodes, registers, buffer     *|
|* indices, immediates, dims, strides, dtypes, ranks, parameter kinds, module *|
|* indices, reserved fields, the minor version, GEMM records: their buffers,  *|
|* registers, dtypes, flags and epilogue; grid and collective records: axes,  *|
|* sizes, splits, kinds, reductions, groups, buffers, counts), changes a few  *|
|* of them with values that mean something for their type (a register just    *|
|* out of range, another string's offset, a dim of 2^31, a stride of -2, a    *|
|* strides record moved onto a dims record, a pointer parameter made i64, a   *|
|* GEMM record moved by 4 bytes, a bias without its epilogue), sometimes      *|
|* moves whole instructions or parameter records, sometimes edits a name or   *|
|* lets libFuzzer mutate the bytes, and then re-fixes the file size and the   *|
|* checksum so that the mutant reaches the validator's structural checks and  *|
|* the plan interpreter. One in 64 keeps a stale checksum, for the checksum's *|
|* own path.                                                                  *|
|*                                                                            *|
|* Decoding is defensive: a field is listed only when its bytes are inside    *|
|* the input, so any input, even one that is no bundle, can be mutated.       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "fuser_bundle_format.h"

#include <stdint.h>
#include <string.h>

/* libFuzzer's byte mutator (fuzz/replay.c has a stand-in for replays). */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed);

typedef enum {
  F_COUNT,    /* u32 count */
  F_OFFSET,   /* u64 file offset */
  F_STRREF,   /* u32 string reference */
  F_REG,      /* u32 register */
  F_OPTREG,   /* u32 register or NONE */
  F_BUF,      /* u32 buffer index */
  F_DYNIDX,   /* u32 dynamic dim index */
  F_LAUNCHIDX,/* u32 launch record index */
  F_MODIDX,   /* u32 module index or NONE */
  F_MODKIND,  /* u32 module kind */
  F_OPCODE,   /* u16 */
  F_IMM,      /* i64 immediate */
  F_DIM,      /* i64 dim */
  F_STRIDES,  /* u64 offset of a strides record, or 0 (none) */
  F_STRIDE,   /* i64 stride: >= 0, or -1 (dynamic) */
  F_ARG,      /* u32 argument index (STRIDE's a) */
  F_DIMIDX,   /* u32 dim of a tensor (STRIDE's b) */
  F_DTYPE,    /* u8 */
  F_RANK,     /* u8 */
  F_PKIND,    /* u8 parameter kind */
  F_RES8,     /* u8 reserved */
  F_RES16,    /* u16 reserved */
  F_RES32,    /* u32 reserved */
  F_RES64,    /* u64 reserved */
  F_SIZE64,   /* u64 size */
  F_VERSION,  /* u32 */
  F_MINOR,    /* u32 minor version */
  F_GEMMREC,  /* i64 offset of a GEMM record (GEMM's imm) */
  F_OPTBUF,   /* u32 buffer index or NONE (a GEMM's bias) */
  F_GFLAGS,   /* u8 FUSER_BUNDLE_GEMM_FLAG_* */
  F_EPILOGUE, /* u8 FUSER_BUNDLE_GEMM_EPILOGUE_* */
} field_type;

typedef struct {
  uint32_t at;
  uint8_t type;
  uint8_t fusion; /* which fusion's counts bound it (0 when none) */
} field;

#define MAX_FIELDS 8192
#define MAX_FUSIONS 16

typedef struct {
  uint32_t regs, nbuf, ndyn, nlaunch, nargs;
  uint64_t instrs, ninstrs, params_first, nparams;
} fusion_info;

typedef struct {
  uint8_t *d;
  size_t size;
  field f[MAX_FIELDS];
  size_t n;
  /* The fields of the plan and the signature (operands, opcodes, dims,
   * dtypes, ranks, parameter kinds): most edits go there, since a broken
   * header or table only ever reaches the first checks. */
  uint32_t sem[MAX_FIELDS];
  size_t nsem;
  fusion_info fi[MAX_FUSIONS];
  uint32_t nfusions;
  uint64_t str_off, str_size;
  /* Instruction records and parameter records, for moves. */
  uint32_t instr_at[512], param_at[512];
  size_t ninstr, nparam;
  uint64_t rng;
} ctx;

static uint64_t rnd(ctx *c) { /* splitmix64 */
  uint64_t z = (c->rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static uint64_t below(ctx *c, uint64_t n) { return n ? rnd(c) % n : 0; }

static uint64_t get(const ctx *c, uint64_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)c->d[at + (uint64_t)i] << (8 * i);
  return v;
}
static void put(ctx *c, uint64_t at, uint64_t v, int n) {
  for (int i = 0; i < n; i++) c->d[at + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}
static int in_file(const ctx *c, uint64_t at, uint64_t n) {
  return at <= c->size && n <= c->size - at;
}

static int semantic(field_type t) {
  switch (t) {
  case F_REG: case F_OPTREG: case F_BUF: case F_DYNIDX: case F_LAUNCHIDX:
  case F_OPCODE: case F_IMM: case F_DIM: case F_DTYPE: case F_RANK:
  case F_PKIND: case F_STRIDES: case F_STRIDE: case F_ARG: case F_DIMIDX:
  case F_GEMMREC: case F_OPTBUF: case F_GFLAGS: case F_EPILOGUE:
    return 1;
  default:
    return 0;
  }
}

static void add(ctx *c, uint64_t at, field_type t, uint32_t fusion, int width) {
  if (c->n < MAX_FIELDS && in_file(c, at, (uint64_t)width)) {
    if (semantic(t)) c->sem[c->nsem++] = (uint32_t)c->n;
    c->f[c->n++] = (field){(uint32_t)at, (uint8_t)t, (uint8_t)fusion};
  }
}

static int width_of(field_type t) {
  switch (t) {
  case F_OFFSET: case F_IMM: case F_DIM: case F_RES64: case F_SIZE64:
  case F_STRIDES: case F_STRIDE: case F_GEMMREC:
    return 8;
  case F_OPCODE: case F_RES16: return 2;
  case F_DTYPE: case F_RANK: case F_PKIND: case F_RES8: case F_GFLAGS:
  case F_EPILOGUE:
    return 1;
  default: return 4;
  }
}
#define ADD(at, t, fus) add(c, (at), (t), (fus), width_of(t))

/* The fields of the GEMM record at `at` (a GEMM's imm), when it is inside
 * the input. */
static void decode_gemm(ctx *c, uint64_t at, uint32_t fus) {
  if (!in_file(c, at, FUSER_BUNDLE_GEMM_SIZE)) return;
  ADD(at + FUSER_BUNDLE_G_A, F_BUF, fus);
  ADD(at + FUSER_BUNDLE_G_B, F_BUF, fus);
  ADD(at + FUSER_BUNDLE_G_D, F_BUF, fus);
  ADD(at + FUSER_BUNDLE_G_BIAS, F_OPTBUF, fus);
  for (uint64_t k = 0; k < 10; k++) /* m .. stride_d */
    ADD(at + FUSER_BUNDLE_G_M + 4 * k, F_REG, fus);
  ADD(at + FUSER_BUNDLE_G_AB_DTYPE, F_DTYPE, fus);
  ADD(at + FUSER_BUNDLE_G_D_DTYPE, F_DTYPE, fus);
  ADD(at + FUSER_BUNDLE_G_FLAGS, F_GFLAGS, fus);
  ADD(at + FUSER_BUNDLE_G_EPILOGUE, F_EPILOGUE, fus);
  /* AUX: 0 unless the epilogue keeps its input (a buffer then) */
  ADD(at + FUSER_BUNDLE_G_AUX, F_RES32, fus);
}

/* The fields of the grid record at `at` (a GRID's imm): the axes and sizes
 * as counts, the splits' offset. */
static void decode_grid(ctx *c, uint64_t at, uint32_t fus) {
  if (!in_file(c, at, FUSER_BUNDLE_GRID_SIZE)) return;
  ADD(at + FUSER_BUNDLE_GR_AXES, F_COUNT, fus);
  ADD(at + FUSER_BUNDLE_GR_RESERVED, F_RES32, fus);
  for (uint64_t k = 0; k < FUSER_BUNDLE_GRID_MAX_AXES; k++)
    ADD(at + FUSER_BUNDLE_GR_SIZES + 4 * k, F_COUNT, fus);
  ADD(at + FUSER_BUNDLE_GR_SPLITS, F_OFFSET, fus);
}

/* The fields of the collective record at `at` (a COLLECTIVE's imm): kind,
 * reduction and group as small bytes (F_GFLAGS' values), its buffers and
 * its count register. */
static void decode_collective(ctx *c, uint64_t at, uint32_t fus) {
  if (!in_file(c, at, FUSER_BUNDLE_COLLECTIVE_SIZE)) return;
  ADD(at + FUSER_BUNDLE_C_KIND, F_GFLAGS, fus);
  ADD(at + FUSER_BUNDLE_C_REDUCTION, F_GFLAGS, fus);
  ADD(at + FUSER_BUNDLE_C_DTYPE, F_DTYPE, fus);
  ADD(at + FUSER_BUNDLE_C_GROUP, F_GFLAGS, fus);
  ADD(at + FUSER_BUNDLE_C_SRC, F_BUF, fus);
  ADD(at + FUSER_BUNDLE_C_DST, F_BUF, fus);
  ADD(at + FUSER_BUNDLE_C_COUNT, F_REG, fus);
  ADD(at + FUSER_BUNDLE_C_RESERVED, F_RES64, fus);
}

/* The fields of instruction `at`, typed by its opcode. */
static void decode_instr(ctx *c, uint64_t at, uint32_t fus) {
  if (!in_file(c, at, FUSER_BUNDLE_INSTR_SIZE)) return;
  if (c->ninstr < sizeof c->instr_at / sizeof c->instr_at[0])
    c->instr_at[c->ninstr++] = (uint32_t)at;
  uint16_t op = (uint16_t)get(c, at + FUSER_BUNDLE_I_OPCODE, 2);
  ADD(at + FUSER_BUNDLE_I_OPCODE, F_OPCODE, fus);
  ADD(at + FUSER_BUNDLE_I_RESERVED, F_RES16, fus);
  uint64_t dst = at + FUSER_BUNDLE_I_DST, a = at + FUSER_BUNDLE_I_A,
           b = at + FUSER_BUNDLE_I_B, imm = at + FUSER_BUNDLE_I_IMM;
  switch (op) {
  case FUSER_BUNDLE_OP_CONST:
    ADD(dst, F_REG, fus);
    ADD(imm, F_IMM, fus);
    break;
  case FUSER_BUNDLE_OP_DIM:
    ADD(dst, F_REG, fus);
    ADD(a, F_DYNIDX, fus);
    break;
  case FUSER_BUNDLE_OP_SELECT:
    ADD(dst, F_REG, fus);
    ADD(a, F_REG, fus);
    ADD(b, F_REG, fus);
    ADD(imm, F_IMM, fus); /* a register held in imm */
    break;
  case FUSER_BUNDLE_OP_ALIGNED:
    ADD(dst, F_REG, fus);
    ADD(a, F_BUF, fus);
    ADD(imm, F_IMM, fus);
    break;
  case FUSER_BUNDLE_OP_ASSERT:
    ADD(a, F_REG, fus);
    ADD(b, F_OPTREG, fus);
    ADD(dst, F_OPTREG, fus);
    ADD(imm, F_STRREF, fus); /* the message, a string reference in an i64 */
    break;
  case FUSER_BUNDLE_OP_ALLOC:
    ADD(a, F_BUF, fus);
    ADD(b, F_REG, fus);
    break;
  case FUSER_BUNDLE_OP_LAUNCH:
    ADD(a, F_LAUNCHIDX, fus);
    ADD(b, F_OPTREG, fus);
    break;
  case FUSER_BUNDLE_OP_RESULT_DIM:
    ADD(a, F_REG, fus);
    ADD(b, F_DYNIDX, fus);
    break;
  case FUSER_BUNDLE_OP_INDEX_CHECK:
    ADD(a, F_BUF, fus);
    ADD(imm, F_STRREF, fus); /* the sites, a string reference in an i64 */
    break;
  case FUSER_BUNDLE_OP_STRIDE:
    ADD(dst, F_REG, fus);
    ADD(a, F_ARG, fus);
    ADD(b, F_DIMIDX, fus);
    break;
  case FUSER_BUNDLE_OP_GEMM: /* dst, a and b are NONE; imm its record */
    ADD(dst, F_OPTREG, fus);
    ADD(a, F_OPTBUF, fus);
    ADD(b, F_OPTBUF, fus);
    ADD(imm, F_GEMMREC, fus);
    decode_gemm(c, get(c, imm, 8), fus);
    break;
  case FUSER_BUNDLE_OP_GRID: /* as GEMM: the operands are in the record */
  case FUSER_BUNDLE_OP_COLLECTIVE:
    ADD(dst, F_OPTREG, fus);
    ADD(a, F_OPTBUF, fus);
    ADD(b, F_OPTBUF, fus);
    ADD(imm, F_GEMMREC, fus); /* a record's offset, moved like GEMM's */
    if (op == FUSER_BUNDLE_OP_GRID)
      decode_grid(c, get(c, imm, 8), fus);
    else
      decode_collective(c, get(c, imm, 8), fus);
    break;
  default:
    ADD(dst, F_REG, fus);
    ADD(a, F_REG, fus);
    ADD(b, F_REG, fus);
    ADD(imm, F_IMM, fus);
  }
}

static void decode(ctx *c) {
  c->n = c->nsem = c->ninstr = c->nparam = c->nfusions = 0;
  if (c->size < FUSER_BUNDLE_HEADER_SIZE) return;
  ADD(FUSER_BUNDLE_H_VERSION, F_VERSION, 0);
  ADD(FUSER_BUNDLE_H_HEADER_SIZE, F_COUNT, 0);
  ADD(FUSER_BUNDLE_H_NUM_FUSIONS, F_COUNT, 0);
  ADD(FUSER_BUNDLE_H_NUM_MODULES, F_COUNT, 0);
  ADD(FUSER_BUNDLE_H_FUSION_TABLE, F_OFFSET, 0);
  ADD(FUSER_BUNDLE_H_MODULE_TABLE, F_OFFSET, 0);
  ADD(FUSER_BUNDLE_H_STRING_TABLE, F_OFFSET, 0);
  ADD(FUSER_BUNDLE_H_STRING_TABLE_SIZE, F_SIZE64, 0);
  ADD(FUSER_BUNDLE_H_MINOR, F_MINOR, 0);
  c->str_off = get(c, FUSER_BUNDLE_H_STRING_TABLE, 8);
  c->str_size = get(c, FUSER_BUNDLE_H_STRING_TABLE_SIZE, 8);
  if (!in_file(c, c->str_off, c->str_size)) c->str_off = c->str_size = 0;

  uint64_t nm = get(c, FUSER_BUNDLE_H_NUM_MODULES, 4);
  uint64_t mt = get(c, FUSER_BUNDLE_H_MODULE_TABLE, 8);
  for (uint64_t m = 0; m < nm && m < 64; m++) {
    uint64_t at = mt + m * FUSER_BUNDLE_MODULE_SIZE;
    if (!in_file(c, at, FUSER_BUNDLE_MODULE_SIZE)) break;
    ADD(at + FUSER_BUNDLE_M_NAME, F_STRREF, 0);
    ADD(at + FUSER_BUNDLE_M_KIND, F_MODKIND, 0);
    ADD(at + FUSER_BUNDLE_M_DATA, F_OFFSET, 0);
    ADD(at + FUSER_BUNDLE_M_SIZE, F_SIZE64, 0);
  }

  uint64_t nf = get(c, FUSER_BUNDLE_H_NUM_FUSIONS, 4);
  uint64_t ft = get(c, FUSER_BUNDLE_H_FUSION_TABLE, 8);
  for (uint64_t i = 0; i < nf && i < MAX_FUSIONS; i++) {
    uint64_t at = ft + i * FUSER_BUNDLE_FUSION_SIZE;
    if (!in_file(c, at, FUSER_BUNDLE_FUSION_SIZE)) break;
    uint32_t fus = (uint32_t)i;
    fusion_info *fi = &c->fi[c->nfusions++];
    uint64_t na = get(c, at + FUSER_BUNDLE_F_NUM_ARGS, 4),
             nr = get(c, at + FUSER_BUNDLE_F_NUM_RESULTS, 4),
             ni = get(c, at + FUSER_BUNDLE_F_NUM_INTER, 4);
    fi->regs = (uint32_t)get(c, at + FUSER_BUNDLE_F_NUM_REGS, 4);
    fi->ndyn = (uint32_t)get(c, at + FUSER_BUNDLE_F_NUM_DYN, 4);
    fi->nlaunch = (uint32_t)get(c, at + FUSER_BUNDLE_F_NUM_LAUNCHES, 4);
    fi->nbuf = (uint32_t)(na + nr + ni);
    fi->nargs = (uint32_t)na;
    ADD(at + FUSER_BUNDLE_F_NAME, F_STRREF, fus);
    ADD(at + FUSER_BUNDLE_F_NUM_ARGS, F_COUNT, fus);
    ADD(at + FUSER_BUNDLE_F_NUM_RESULTS, F_COUNT, fus);
    ADD(at + FUSER_BUNDLE_F_NUM_DYN, F_COUNT, fus);
    ADD(at + FUSER_BUNDLE_F_NUM_REGS, F_COUNT, fus);
    ADD(at + FUSER_BUNDLE_F_NUM_INSTRS, F_COUNT, fus);
    ADD(at + FUSER_BUNDLE_F_NUM_LAUNCHES, F_COUNT, fus);
    ADD(at + FUSER_BUNDLE_F_NUM_INTER, F_COUNT, fus);
    ADD(at + FUSER_BUNDLE_F_TENSORS, F_OFFSET, fus);
    ADD(at + FUSER_BUNDLE_F_INSTRS, F_OFFSET, fus);
    ADD(at + FUSER_BUNDLE_F_LAUNCHES, F_OFFSET, fus);
    ADD(at + FUSER_BUNDLE_F_PTX_MODULE, F_MODIDX, fus);
    ADD(at + FUSER_BUNDLE_F_EMU_MODULE, F_MODIDX, fus);

    uint64_t tt = get(c, at + FUSER_BUNDLE_F_TENSORS, 8);
    for (uint64_t t = 0; t < na + nr && t < 256; t++) {
      uint64_t ta = tt + t * FUSER_BUNDLE_TENSOR_SIZE;
      if (!in_file(c, ta, FUSER_BUNDLE_TENSOR_SIZE)) break;
      ADD(ta + FUSER_BUNDLE_T_NAME, F_STRREF, fus);
      ADD(ta + FUSER_BUNDLE_T_DTYPE, F_DTYPE, fus);
      ADD(ta + FUSER_BUNDLE_T_RANK, F_RANK, fus);
      ADD(ta + FUSER_BUNDLE_T_RESERVED, F_RES16, fus);
      ADD(ta + FUSER_BUNDLE_T_DIMS, F_OFFSET, fus);
      ADD(ta + FUSER_BUNDLE_T_STRIDES, F_STRIDES, fus);
      uint64_t rank = get(c, ta + FUSER_BUNDLE_T_RANK, 1);
      uint64_t da = get(c, ta + FUSER_BUNDLE_T_DIMS, 8);
      for (uint64_t k = 0; k < rank && k < 64; k++) ADD(da + 8 * k, F_DIM, fus);
      uint64_t sa = get(c, ta + FUSER_BUNDLE_T_STRIDES, 8);
      for (uint64_t k = 0; sa && k < rank && k < 64; k++)
        ADD(sa + 8 * k, F_STRIDE, fus);
    }
    fi->instrs = get(c, at + FUSER_BUNDLE_F_INSTRS, 8);
    fi->ninstrs = get(c, at + FUSER_BUNDLE_F_NUM_INSTRS, 4);
    for (uint64_t k = 0; k < fi->ninstrs && k < 1024; k++)
      decode_instr(c, fi->instrs + k * FUSER_BUNDLE_INSTR_SIZE, fus);
    uint64_t lt = get(c, at + FUSER_BUNDLE_F_LAUNCHES, 8);
    for (uint64_t l = 0; l < fi->nlaunch && l < 256; l++) {
      uint64_t la = lt + l * FUSER_BUNDLE_LAUNCH_SIZE;
      if (!in_file(c, la, FUSER_BUNDLE_LAUNCH_SIZE)) break;
      ADD(la + FUSER_BUNDLE_L_KERNEL, F_STRREF, fus);
      ADD(la + FUSER_BUNDLE_L_NUM_PARAMS, F_COUNT, fus);
      ADD(la + FUSER_BUNDLE_L_PARAMS, F_OFFSET, fus);
      for (int k = 0; k < 3; k++) {
        ADD(la + FUSER_BUNDLE_L_GRID + 4 * (uint64_t)k, F_REG, fus);
        ADD(la + FUSER_BUNDLE_L_BLOCK + 4 * (uint64_t)k, F_REG, fus);
      }
      ADD(la + FUSER_BUNDLE_L_SMEM, F_REG, fus);
      ADD(la + FUSER_BUNDLE_L_RESERVED, F_RES32, fus);
      uint64_t np = get(c, la + FUSER_BUNDLE_L_NUM_PARAMS, 4);
      uint64_t pa = get(c, la + FUSER_BUNDLE_L_PARAMS, 8);
      for (uint64_t p = 0; p < np && p < 256; p++) {
        uint64_t r = pa + p * FUSER_BUNDLE_PARAM_SIZE;
        if (!in_file(c, r, FUSER_BUNDLE_PARAM_SIZE)) break;
        if (c->nparam < sizeof c->param_at / sizeof c->param_at[0])
          c->param_at[c->nparam++] = (uint32_t)r;
        ADD(r + FUSER_BUNDLE_P_KIND, F_PKIND, fus);
        ADD(r + FUSER_BUNDLE_P_RESERVED, F_RES8, fus);
        /* The index: a buffer for pointers, else a register. */
        ADD(r + FUSER_BUNDLE_P_INDEX,
            get(c, r + FUSER_BUNDLE_P_KIND, 1) == FUSER_BUNDLE_PARAM_PTR
                ? F_BUF : F_REG,
            fus);
      }
    }
  }
}

/* A string reference worth trying: another string's start, the table's
 * last byte, its size, or past it. */
static uint64_t string_ref(ctx *c) {
  if (c->str_size && below(c, 4)) {
    for (int tries = 0; tries < 8; tries++) {
      uint64_t o = below(c, c->str_size);
      if (o == 0 || c->d[c->str_off + o - 1] == 0) return o;
    }
    return 0;
  }
  uint64_t pick[] = {c->str_size ? c->str_size - 1 : 0, c->str_size,
                     c->str_size + 1, 0xFFFFFFFFu};
  return pick[below(c, 4)];
}

static const int64_t interesting[] = {
    0, 1, 2, 3, -1, -2, 7, 8, 15, 16, 31, 32, 33, 64, 255, 256, 1024,
    65535, 65536, INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN,
    (int64_t)UINT32_MAX, (int64_t)1 << 32, (int64_t)1 << 40, (int64_t)1 << 61,
    (int64_t)1 << 62, INT64_MAX, INT64_MIN, INT64_MAX - 1};

/* A strides record worth trying: none, a neighbour of it, the dims record
 * of some tensor (the same values: a valid record), or somewhere else. */
static uint64_t strides_offset(ctx *c, uint64_t old) {
  uint64_t pick[] = {0, old + 8, old - 8, old + 1, c->size, ~0ull,
                     below(c, c->size + 1) & ~7ull, old};
  uint64_t v = pick[below(c, 8)];
  if (v == old && c->nfusions) { /* a dims record of this bundle */
    for (size_t tries = 0; tries < 8 && c->n; tries++) {
      const field *g = &c->f[below(c, c->n)];
      if (g->type == F_DIM) return g->at;
    }
    return 0;
  }
  return v;
}

static uint64_t value_for(ctx *c, const field *f, uint64_t old) {
  const fusion_info *fi = f->fusion < c->nfusions ? &c->fi[f->fusion] : NULL;
  uint64_t regs = fi ? fi->regs : 16, nbuf = fi ? fi->nbuf : 4,
           ndyn = fi ? fi->ndyn : 2, nl = fi ? fi->nlaunch : 2,
           nargs = fi ? fi->nargs : 2;
  switch ((field_type)f->type) {
  case F_REG: case F_OPTREG: {
    uint64_t pick[] = {below(c, regs + 1), regs, regs - 1, old + 1, old - 1,
                       FUSER_BUNDLE_NONE, 0, below(c, regs + 1)};
    return pick[below(c, 8)] & 0xFFFFFFFFu;
  }
  case F_BUF: {
    uint64_t pick[] = {below(c, nbuf + 1), nbuf, old + 1, old - 1, 0,
                       FUSER_BUNDLE_NONE};
    return pick[below(c, 6)] & 0xFFFFFFFFu;
  }
  case F_OPTBUF: { /* NONE, or a buffer (a bias without its epilogue) */
    uint64_t pick[] = {FUSER_BUNDLE_NONE, below(c, nbuf + 1), nbuf, old + 1,
                       0};
    return pick[below(c, 5)] & 0xFFFFFFFFu;
  }
  case F_GEMMREC: { /* a neighbour (misaligned, overlapping), past the end */
    uint64_t pick[] = {old + 8, old - 8, old + 4, old + 64,
                       c->size - FUSER_BUNDLE_GEMM_SIZE,
                       c->size - FUSER_BUNDLE_GEMM_SIZE + 8, ~0ull - 7, 0};
    return pick[below(c, 8)];
  }
  case F_GFLAGS: return below(c, 16); /* 8: an unknown flag */
  case F_EPILOGUE: { /* known ones (a bias gradient too), and bits mixed */
    uint64_t pick[] = {0, 1, 2,
                       FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_GELU_AUX,
                       FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A,
                       FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B,
                       FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A |
                           FUSER_BUNDLE_GEMM_EPILOGUE_BIAS,
                       FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A |
                           FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B};
    return pick[below(c, 8)];
  }
  case F_MINOR: {
    uint64_t pick[] = {0, 1, FUSER_BUNDLE_FORMAT_MINOR + 1, old + 1};
    return pick[below(c, 4)];
  }
  case F_DYNIDX: {
    uint64_t pick[] = {below(c, ndyn + 1), ndyn, old + 1, 0};
    return pick[below(c, 4)] & 0xFFFFFFFFu;
  }
  case F_LAUNCHIDX: {
    uint64_t pick[] = {below(c, nl + 1), nl, old + 1, 0};
    return pick[below(c, 4)] & 0xFFFFFFFFu;
  }
  case F_MODIDX: {
    uint64_t pick[] = {0, 1, 2, old + 1, FUSER_BUNDLE_NONE};
    return pick[below(c, 5)];
  }
  case F_ARG: {
    uint64_t pick[] = {below(c, nargs + 1), nargs, old + 1, 0, nbuf};
    return pick[below(c, 5)] & 0xFFFFFFFFu;
  }
  case F_DIMIDX: {
    uint64_t pick[] = {below(c, 4), old + 1, old - 1, 0, 32, 33};
    return pick[below(c, 6)] & 0xFFFFFFFFu;
  }
  case F_STRIDES: return strides_offset(c, old);
  case F_STRIDE: {
    uint64_t pick[] = {(uint64_t)-1, 0, 1, (uint64_t)-2, (uint64_t)INT64_MIN,
                       (uint64_t)INT64_MAX, (uint64_t)1 << 62, old + 1};
    return pick[below(c, 8)];
  }
  case F_MODKIND: return below(c, 4);
  case F_OPCODE: return below(c, 4) ? 1 + below(c, FUSER_BUNDLE_OP_LAST)
                                    : below(c, 65536);
  case F_DTYPE: return below(c, 10);
  case F_RANK: {
    uint64_t pick[] = {below(c, 4), old + 1, old - 1, 32, 33, 64, 255};
    return pick[below(c, 7)] & 0xFF;
  }
  case F_PKIND: return below(c, 5);
  case F_RES8: case F_RES16: case F_RES32: case F_RES64: return below(c, 2);
  case F_VERSION: return below(c, 4);
  case F_STRREF: return string_ref(c);
  case F_COUNT: {
    uint64_t pick[] = {old + 1, old - 1, 0, 1, below(c, 64), 65536, 0xFFFFFFFFu,
                       old * 2};
    return pick[below(c, 8)] & 0xFFFFFFFFu;
  }
  case F_OFFSET: case F_SIZE64: {
    uint64_t pick[] = {old + 8, old - 8, old + 24, old - 24, old + 1,
                       below(c, c->size + 1) & ~7ull, c->size, ~0ull};
    return pick[below(c, 8)];
  }
  case F_IMM: case F_DIM: {
    switch (below(c, 5)) {
    case 0: return (uint64_t)interesting[below(c, sizeof interesting /
                                                   sizeof interesting[0])];
    case 1: return old + 1;
    case 2: return old - 1;
    case 3: return f->type == F_DIM ? (uint64_t)-1 : below(c, regs + 1);
    default: return below(c, 100);
    }
  }
  }
  return old;
}

/* Edits a name in the string table in place: a byte a name must not hold
 * ('/', '.', a space, an escape, a NUL that splits it), or a letter. */
static void edit_string(ctx *c) {
  if (c->str_size < 2) return;
  static const char bytes[] = "/.$ \x1b\"'\\0aZ_9-";
  uint64_t at = c->str_off + below(c, c->str_size - 1);
  c->d[at] = (uint8_t)bytes[below(c, sizeof bytes - 1)];
}

static void swap_records(ctx *c, const uint32_t *at, size_t n, size_t len,
                         int copy) {
  if (n < 2) return;
  uint32_t a = at[below(c, n)], b = at[below(c, n)];
  /* Records of a mutated file may overlap each other: leave those. */
  if ((a < b ? b - a : a - b) < len || !in_file(c, a, len) ||
      !in_file(c, b, len))
    return;
  uint8_t tmp[FUSER_BUNDLE_INSTR_SIZE];
  memcpy(tmp, c->d + a, len);
  if (!copy) memcpy(c->d + a, c->d + b, len);
  memcpy(c->d + b, tmp, len);
}

/* What a bundle needs to get past the file-size and checksum checks. */
static void fix_up(ctx *c) {
  if (c->size < FUSER_BUNDLE_HEADER_SIZE) return;
  if (memcmp(c->d, FUSER_BUNDLE_MAGIC, FUSER_BUNDLE_MAGIC_SIZE) != 0) return;
  put(c, FUSER_BUNDLE_H_FILE_SIZE, c->size, 8);
  if (below(c, 64) != 0)
    put(c, FUSER_BUNDLE_H_CHECKSUM, fuser_bundle_checksum(c->d, c->size), 4);
}

static ctx the_ctx; /* large (the field list): not on the stack */

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed) {
  ctx *c = &the_ctx;
  c->d = data;
  c->size = size;
  c->rng = seed * 0x2545F4914F6CDD1Dull + 1;
  /* Bytes, as libFuzzer would (with the checksum fixed after): for inputs
   * that are no bundle yet, and to move lengths and module text. */
  if (below(c, 8) == 0 || size < FUSER_BUNDLE_HEADER_SIZE) {
    c->size = LLVMFuzzerMutate(data, size, max_size);
    fix_up(c);
    return c->size;
  }
  decode(c);
  unsigned edits = below(c, 4) ? 1 : 2 + (unsigned)below(c, 3);
  for (unsigned e = 0; e < edits; e++) {
    uint64_t what = below(c, 32);
    if (what == 0) {
      edit_string(c);
    } else if (what == 1) {
      swap_records(c, c->instr_at, c->ninstr, FUSER_BUNDLE_INSTR_SIZE,
                   (int)below(c, 2));
    } else if (what == 2) {
      swap_records(c, c->param_at, c->nparam, FUSER_BUNDLE_PARAM_SIZE,
                   (int)below(c, 2));
    } else if (c->n) {
      const field *f = c->nsem && what > 6 ? &c->f[c->sem[below(c, c->nsem)]]
                                           : &c->f[below(c, c->n)];
      int w = width_of((field_type)f->type);
      put(c, f->at, value_for(c, f, get(c, f->at, w)), w);
    }
  }
  fix_up(c);
  return c->size;
}
