/* See bundle_writer.h. Layout: header, module table, fusion table, then per
 * fusion its tensor records, dims (each tensor's followed by its strides
 * when it has some), GEMM records, the grid record and its splits,
 * collective records, instructions, launch records and parameter records,
 * then module data, then the string table. Every record starts at a
 * multiple of 8. */
#include "bundle_writer.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
  unsigned char *d;
  size_t len, cap;
} buf;

static void reserve(buf *b, size_t n) {
  if (b->len + n <= b->cap) return;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + n) cap *= 2;
  b->d = realloc(b->d, cap);
  memset(b->d + b->cap, 0, cap - b->cap);
  b->cap = cap;
}

static size_t take(buf *b, size_t n) { /* n zero bytes at an 8-aligned spot */
  size_t pad = (8 - b->len % 8) % 8;
  reserve(b, pad + n);
  b->len += pad;
  size_t at = b->len;
  b->len += n;
  return at;
}

void bw_put_u8(unsigned char *d, size_t off, uint8_t v) { d[off] = v; }
void bw_put_u16(unsigned char *d, size_t off, uint16_t v) {
  d[off] = (unsigned char)v;
  d[off + 1] = (unsigned char)(v >> 8);
}
void bw_put_u32(unsigned char *d, size_t off, uint32_t v) {
  for (int i = 0; i < 4; i++) d[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}
void bw_put_u64(unsigned char *d, size_t off, uint64_t v) {
  for (int i = 0; i < 8; i++) d[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}

void bw_fix_checksum(unsigned char *d, size_t size) {
  if (size >= FUSER_BUNDLE_HEADER_SIZE)
    bw_put_u32(d, FUSER_BUNDLE_H_CHECKSUM, fuser_bundle_checksum(d, size));
}

void bw_set_strides(bw_fusion *f, uint32_t t, const int64_t *strides) {
  f->strided[t] = 1;
  for (uint32_t k = 0; k < f->tensors[t].rank; k++)
    f->strides[t][k] = strides[k];
}

bw_instr bw_op(uint16_t op, uint32_t dst, uint32_t a, uint32_t b) {
  bw_instr in = {op, dst, a, b, 0, NULL};
  return in;
}
bw_instr bw_const(uint32_t dst, int64_t imm) {
  bw_instr in = {BW_CONST, dst, 0, 0, imm, NULL};
  return in;
}
bw_instr bw_gemm_op(uint32_t index) {
  bw_instr in = {BW_GEMM, BW_NONE, BW_NONE, BW_NONE, index, NULL};
  return in;
}
bw_instr bw_grid_op(void) {
  bw_instr in = {BW_GRID, BW_NONE, BW_NONE, BW_NONE, 0, NULL};
  return in;
}
bw_instr bw_coll_op(uint32_t index) {
  bw_instr in = {BW_COLLECTIVE, BW_NONE, BW_NONE, BW_NONE, index, NULL};
  return in;
}

/* The string table, deduplicated. */
typedef struct strtab {
  buf b;
} strtab;

static uint32_t intern(strtab *t, const char *s) {
  size_t n = strlen(s) + 1;
  for (size_t i = 0; i + n <= t->b.len; i++)
    if (memcmp(t->b.d + i, s, n) == 0 && (i == 0 || t->b.d[i - 1] == 0))
      return (uint32_t)i;
  reserve(&t->b, n);
  memcpy(t->b.d + t->b.len, s, n);
  t->b.len += n;
  return (uint32_t)(t->b.len - n);
}

unsigned char *bw_write(const bw_bundle *bb, size_t *size, bw_layout *L) {
  bw_layout local;
  uint32_t minor_needed = 0;
  if (!L) L = &local;
  memset(L, 0, sizeof *L);
  buf o = {0};
  strtab st = {{0}};
  take(&o, FUSER_BUNDLE_HEADER_SIZE);
  L->module_table = take(&o, FUSER_BUNDLE_MODULE_SIZE * (size_t)bb->num_modules);
  L->fusion_table = take(&o, FUSER_BUNDLE_FUSION_SIZE * (size_t)bb->num_fusions);
  for (uint32_t fi = 0; fi < bb->num_fusions; fi++) {
    const bw_fusion *f = &bb->fusions[fi];
    size_t fr = L->fusion_table + FUSER_BUNDLE_FUSION_SIZE * (size_t)fi;
    uint32_t nt = f->num_args + f->num_results;
    uint32_t ndyn = 0;
    L->tensors[fi] = take(&o, FUSER_BUNDLE_TENSOR_SIZE * (size_t)nt);
    for (uint32_t t = 0; t < nt; t++) {
      const bw_tensor *T = &f->tensors[t];
      size_t at = L->tensors[fi] + FUSER_BUNDLE_TENSOR_SIZE * (size_t)t;
      L->dims[fi][t] = take(&o, 8 * (size_t)T->rank);
      for (uint32_t k = 0; k < T->rank; k++) {
        bw_put_u64(o.d, L->dims[fi][t] + 8 * k, (uint64_t)T->dims[k]);
        if (T->dims[k] == -1) ndyn++;
      }
      if (f->strided[t]) {
        L->strides[fi][t] = take(&o, 8 * (size_t)T->rank);
        for (uint32_t k = 0; k < T->rank; k++)
          bw_put_u64(o.d, L->strides[fi][t] + 8 * k,
                     (uint64_t)f->strides[t][k]);
        bw_put_u64(o.d, at + FUSER_BUNDLE_T_STRIDES, L->strides[fi][t]);
      }
      bw_put_u32(o.d, at + FUSER_BUNDLE_T_NAME, intern(&st, T->name));
      bw_put_u8(o.d, at + FUSER_BUNDLE_T_DTYPE, T->dtype);
      bw_put_u8(o.d, at + FUSER_BUNDLE_T_RANK, T->rank);
      bw_put_u64(o.d, at + FUSER_BUNDLE_T_DIMS, L->dims[fi][t]);
    }
    for (uint32_t g = 0; g < f->num_gemms; g++) {
      const bw_gemm *G = &f->gemms[g];
      size_t at = L->gemms[fi][g] = take(&o, FUSER_BUNDLE_GEMM_SIZE);
      const uint32_t regs[10] = {G->m,   G->n,   G->k,        G->batch,
                                 G->lda, G->ldb, G->ldd,      G->stride_a,
                                 G->stride_b, G->stride_d};
      bw_put_u32(o.d, at + FUSER_BUNDLE_G_A, G->a);
      bw_put_u32(o.d, at + FUSER_BUNDLE_G_B, G->b);
      bw_put_u32(o.d, at + FUSER_BUNDLE_G_D, G->d);
      bw_put_u32(o.d, at + FUSER_BUNDLE_G_BIAS, G->bias);
      for (size_t k = 0; k < 10; k++)
        bw_put_u32(o.d, at + FUSER_BUNDLE_G_M + 4 * k, regs[k]);
      bw_put_u8(o.d, at + FUSER_BUNDLE_G_AB_DTYPE, G->ab_dtype);
      bw_put_u8(o.d, at + FUSER_BUNDLE_G_D_DTYPE, G->d_dtype);
      bw_put_u8(o.d, at + FUSER_BUNDLE_G_FLAGS, G->flags);
      bw_put_u8(o.d, at + FUSER_BUNDLE_G_EPILOGUE, G->epilogue);
      bw_put_u32(o.d, at + FUSER_BUNDLE_G_AUX, G->aux);
    }
    bool sharded = false;
    for (uint32_t i = 0; i < f->num_instrs; i++)
      if (f->instrs[i].op == BW_GRID || f->instrs[i].op == BW_COLLECTIVE)
        sharded = true;
    if (sharded) {
      if (minor_needed < 3) minor_needed = 3;
      size_t at = L->grid[fi] = take(&o, FUSER_BUNDLE_GRID_SIZE);
      bw_put_u32(o.d, at + FUSER_BUNDLE_GR_AXES, f->grid.axes);
      for (size_t k = 0; k < FUSER_BUNDLE_GRID_MAX_AXES; k++)
        bw_put_u32(o.d, at + FUSER_BUNDLE_GR_SIZES + 4 * k, f->grid.sizes[k]);
      size_t total = 0;
      for (uint32_t t = 0; t < nt; t++) total += f->tensors[t].rank;
      L->splits[fi] = take(&o, total);
      size_t k = 0;
      for (uint32_t t = 0; t < nt; t++)
        for (uint32_t d = 0; d < f->tensors[t].rank; d++)
          o.d[L->splits[fi] + k++] = f->grid.splits[t][d];
      bw_put_u64(o.d, at + FUSER_BUNDLE_GR_SPLITS, L->splits[fi]);
    }
    for (uint32_t k = 0; k < f->num_colls; k++) {
      const bw_coll *C = &f->colls[k];
      size_t at = L->colls[fi][k] = take(&o, FUSER_BUNDLE_COLLECTIVE_SIZE);
      bw_put_u8(o.d, at + FUSER_BUNDLE_C_KIND, C->kind);
      bw_put_u8(o.d, at + FUSER_BUNDLE_C_REDUCTION, C->reduction);
      bw_put_u8(o.d, at + FUSER_BUNDLE_C_DTYPE, C->dtype);
      bw_put_u8(o.d, at + FUSER_BUNDLE_C_GROUP, C->group);
      bw_put_u32(o.d, at + FUSER_BUNDLE_C_SRC, C->src);
      bw_put_u32(o.d, at + FUSER_BUNDLE_C_DST, C->dst);
      bw_put_u32(o.d, at + FUSER_BUNDLE_C_COUNT, C->count);
    }
    L->instrs[fi] = take(&o, FUSER_BUNDLE_INSTR_SIZE * (size_t)f->num_instrs);
    for (uint32_t i = 0; i < f->num_instrs; i++) {
      const bw_instr *in = &f->instrs[i];
      size_t at = L->instrs[fi] + FUSER_BUNDLE_INSTR_SIZE * (size_t)i;
      bw_put_u16(o.d, at + FUSER_BUNDLE_I_OPCODE, in->op);
      bw_put_u32(o.d, at + FUSER_BUNDLE_I_DST, in->dst);
      bw_put_u32(o.d, at + FUSER_BUNDLE_I_A, in->a);
      bw_put_u32(o.d, at + FUSER_BUNDLE_I_B, in->b);
      int64_t imm = in->msg ? (int64_t)intern(&st, in->msg) : in->imm;
      /* A GEMM's imm names its record: the record's offset. */
      if (in->op == BW_GRID) imm = (int64_t)L->grid[fi];
      if (in->op == BW_COLLECTIVE && in->imm >= 0 &&
          (uint64_t)in->imm < f->num_colls)
        imm = (int64_t)L->colls[fi][in->imm];
      if (in->op == BW_GEMM) {
        if (minor_needed < 1) minor_needed = 1;
        if (in->imm >= 0 && (uint64_t)in->imm < f->num_gemms) {
          imm = (int64_t)L->gemms[fi][in->imm];
          uint8_t ep = f->gemms[in->imm].epilogue;
          if ((ep & FUSER_BUNDLE_GEMM_EPILOGUE_AUX) && minor_needed < 2)
            minor_needed = 2;
          if ((ep == FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A ||
               ep == FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B) &&
              minor_needed < 4)
            minor_needed = 4;
        }
      }
      bw_put_u64(o.d, at + FUSER_BUNDLE_I_IMM, (uint64_t)imm);
    }
    L->launches[fi] =
        take(&o, FUSER_BUNDLE_LAUNCH_SIZE * (size_t)f->num_launches);
    for (uint32_t l = 0; l < f->num_launches; l++) {
      const bw_launch *la = &f->launches[l];
      size_t at = L->launches[fi] + FUSER_BUNDLE_LAUNCH_SIZE * (size_t)l;
      L->params[fi][l] =
          take(&o, FUSER_BUNDLE_PARAM_SIZE * (size_t)la->num_params);
      for (uint32_t p = 0; p < la->num_params; p++) {
        size_t pr = L->params[fi][l] + FUSER_BUNDLE_PARAM_SIZE * (size_t)p;
        bw_put_u8(o.d, pr + FUSER_BUNDLE_P_KIND, la->params[p].kind);
        bw_put_u32(o.d, pr + FUSER_BUNDLE_P_INDEX, la->params[p].index);
      }
      bw_put_u32(o.d, at + FUSER_BUNDLE_L_KERNEL, intern(&st, la->kernel));
      bw_put_u32(o.d, at + FUSER_BUNDLE_L_NUM_PARAMS, la->num_params);
      bw_put_u64(o.d, at + FUSER_BUNDLE_L_PARAMS, L->params[fi][l]);
      for (int k = 0; k < 3; k++) {
        bw_put_u32(o.d, at + FUSER_BUNDLE_L_GRID + 4 * (size_t)k, la->grid[k]);
        bw_put_u32(o.d, at + FUSER_BUNDLE_L_BLOCK + 4 * (size_t)k,
                   la->block[k]);
      }
      bw_put_u32(o.d, at + FUSER_BUNDLE_L_SMEM, la->smem);
    }
    bw_put_u32(o.d, fr + FUSER_BUNDLE_F_NAME, intern(&st, f->name));
    bw_put_u32(o.d, fr + FUSER_BUNDLE_F_NUM_ARGS, f->num_args);
    bw_put_u32(o.d, fr + FUSER_BUNDLE_F_NUM_RESULTS, f->num_results);
    bw_put_u32(o.d, fr + FUSER_BUNDLE_F_NUM_DYN,
               f->num_dyn == BW_NONE ? ndyn : f->num_dyn);
    bw_put_u32(o.d, fr + FUSER_BUNDLE_F_NUM_REGS, f->num_regs);
    bw_put_u32(o.d, fr + FUSER_BUNDLE_F_NUM_INSTRS, f->num_instrs);
    bw_put_u32(o.d, fr + FUSER_BUNDLE_F_NUM_LAUNCHES, f->num_launches);
    bw_put_u32(o.d, fr + FUSER_BUNDLE_F_NUM_INTER, f->num_inter);
    bw_put_u64(o.d, fr + FUSER_BUNDLE_F_TENSORS, L->tensors[fi]);
    bw_put_u64(o.d, fr + FUSER_BUNDLE_F_INSTRS, L->instrs[fi]);
    bw_put_u64(o.d, fr + FUSER_BUNDLE_F_LAUNCHES, L->launches[fi]);
    bw_put_u32(o.d, fr + FUSER_BUNDLE_F_PTX_MODULE, f->ptx_module);
    bw_put_u32(o.d, fr + FUSER_BUNDLE_F_EMU_MODULE, f->emu_module);
  }
  for (uint32_t m = 0; m < bb->num_modules; m++) {
    const bw_module *M = &bb->modules[m];
    size_t n = (bb->module_sizes[m] ? bb->module_sizes[m] : strlen(M->text)) + 1;
    L->module_data[m] = take(&o, n);
    memcpy(o.d + L->module_data[m], M->text, n - 1);
    o.d[L->module_data[m] + n - 1] = 0;
    size_t at = L->module_table + FUSER_BUNDLE_MODULE_SIZE * (size_t)m;
    bw_put_u32(o.d, at + FUSER_BUNDLE_M_NAME, intern(&st, M->name));
    bw_put_u32(o.d, at + FUSER_BUNDLE_M_KIND, M->kind);
    bw_put_u64(o.d, at + FUSER_BUNDLE_M_DATA, L->module_data[m]);
    bw_put_u64(o.d, at + FUSER_BUNDLE_M_SIZE, n);
    bw_put_u32(o.d, at + FUSER_BUNDLE_M_TARGET, M->target);
    bw_put_u32(o.d, at + FUSER_BUNDLE_M_ISA, M->isa);
  }
  if (st.b.len == 0) intern(&st, "");
  L->strtab = take(&o, st.b.len);
  L->strtab_size = st.b.len;
  memcpy(o.d + L->strtab, st.b.d, st.b.len);
  free(st.b.d);
  memcpy(o.d + FUSER_BUNDLE_H_MAGIC, FUSER_BUNDLE_MAGIC, FUSER_BUNDLE_MAGIC_SIZE);
  bw_put_u32(o.d, FUSER_BUNDLE_H_VERSION, FUSER_BUNDLE_FORMAT_VERSION);
  bw_put_u32(o.d, FUSER_BUNDLE_H_HEADER_SIZE, FUSER_BUNDLE_HEADER_SIZE);
  bw_put_u64(o.d, FUSER_BUNDLE_H_FILE_SIZE, o.len);
  bw_put_u32(o.d, FUSER_BUNDLE_H_NUM_FUSIONS, bb->num_fusions);
  bw_put_u32(o.d, FUSER_BUNDLE_H_NUM_MODULES, bb->num_modules);
  bw_put_u64(o.d, FUSER_BUNDLE_H_FUSION_TABLE, L->fusion_table);
  bw_put_u64(o.d, FUSER_BUNDLE_H_MODULE_TABLE, L->module_table);
  bw_put_u64(o.d, FUSER_BUNDLE_H_STRING_TABLE, L->strtab);
  bw_put_u64(o.d, FUSER_BUNDLE_H_STRING_TABLE_SIZE, L->strtab_size);
  for (uint32_t m = 0; m < bb->num_modules; m++)
    if (bb->modules[m].kind == FUSER_BUNDLE_MODULE_CUBIN) minor_needed = 5;
  bw_put_u32(o.d, FUSER_BUNDLE_H_MINOR, bb->minor ? bb->minor : minor_needed);
  bw_fix_checksum(o.d, o.len);
  *size = o.len;
  return o.d;
}
