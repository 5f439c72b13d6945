/* What a bundle holds, for tools: its modules, a fusion's launch records,
 * and its plan program as text (the notation of docs/bundle.md). */
#include "internal.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

size_t fuser_bundle_num_modules(const fuser_bundle *b) {
  return b ? b->num_modules : 0;
}

int fuser_bundle_module(const fuser_bundle *b, size_t i,
                        fuser_module_info *out) {
  if (!b || i >= b->num_modules || !out) return 0;
  const fr_module *m = &b->modules[i];
  out->name = m->name;
  out->kind = (fuser_module_kind)m->kind;
  out->data = m->data;
  out->size = m->size;
  return 1;
}

size_t fuser_fusion_ptx_module(const fuser_fusion *f) {
  return f ? f->ptx_module : 0;
}

size_t fuser_fusion_num_launch_records(const fuser_fusion *f) {
  return f ? f->num_launches : 0;
}

const char *fuser_fusion_launch_kernel(const fuser_fusion *f, size_t i) {
  return f && i < f->num_launches ? f->launches[i].kernel_name : NULL;
}

/* Appends to a bounded buffer while counting the whole length. */
typedef struct text {
  char *buf;
  size_t size, len;
} text;

__attribute__((format(printf, 2, 3))) static void put(text *t,
                                                      const char *format,
                                                      ...) {
  va_list ap;
  va_start(ap, format);
  size_t room = t->len < t->size ? t->size - t->len : 0;
  int n = vsnprintf(room ? t->buf + t->len : NULL, room, format, ap);
  va_end(ap);
  if (n > 0) t->len += (size_t)n;
}

/* The name of buffer `i`: an argument's or result's, or "tmpN". */
static void put_buffer(text *t, const fuser_fusion *f, uint32_t i) {
  uint32_t nio = f->num_args + f->num_results;
  if (i < nio)
    put(t, "%s", f->tensors[i].name);
  else
    put(t, "tmp%" PRIu32, i - nio);
}

static const char *const kBinary[] = {
    [OP_ADD] = "add", [OP_SUB] = "sub", [OP_MUL] = "mul", [OP_DIV] = "div",
    [OP_CEILDIV] = "ceildiv", [OP_REM] = "rem", [OP_MIN] = "min",
    [OP_MAX] = "max", [OP_EQ] = "eq", [OP_NE] = "ne", [OP_LT] = "lt",
    [OP_LE] = "le", [OP_AND] = "and", [OP_OR] = "or"};

static void put_launch(text *t, const fuser_fusion *f, const fr_launch *L) {
  put(t, "launch %s grid(r%" PRIu32 ", r%" PRIu32 ", r%" PRIu32
         ") block(r%" PRIu32 ", r%" PRIu32 ", r%" PRIu32 ") smem(r%" PRIu32
         ") args(",
      L->kernel_name, L->grid[0], L->grid[1], L->grid[2], L->block[0],
      L->block[1], L->block[2], L->smem);
  for (uint32_t p = 0; p < L->num_params; p++) {
    if (p) put(t, ", ");
    if (L->param_kinds[p] == PARAM_PTR)
      put_buffer(t, f, L->param_index[p]);
    else
      put(t, "%s r%" PRIu32, L->param_kinds[p] == PARAM_I32 ? "i32" : "i64",
          L->param_index[p]);
  }
  put(t, ")");
}

/* "gemm y = x @ w^T + b (f16 -> f32, tf32) m=r0 n=r1 ...": D = A @ B with
 * the transposes, the bias (or the bias gradient written: "gemm dw = dy^T @
 * x, bias gradient of A into db"), the dtypes and the registers of the
 * sizes. */
static void put_gemm(text *t, const fuser_fusion *f, const fr_gemm *g) {
  put(t, "gemm ");
  put_buffer(t, f, g->d);
  put(t, " = ");
  put_buffer(t, f, g->a);
  put(t, "%s @ ", g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_A ? "^T" : "");
  put_buffer(t, f, g->b);
  put(t, "%s", g->flags & FUSER_BUNDLE_GEMM_FLAG_TRANS_B ? "^T" : "");
  if (g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BIAS) {
    put(t, " + ");
    put_buffer(t, f, g->bias);
  }
  if (g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_RELU)
    put(t, ", relu");
  if (g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_GELU)
    put(t, ", gelu");
  if (g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_AUX) {
    put(t, ", its input to ");
    put_buffer(t, f, g->aux);
  }
  if (FR_GEMM_BGRAD(g->epilogue)) {
    put(t, ", bias gradient of %s into ",
        g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A ? "A" : "B");
    put_buffer(t, f, g->bias);
  }
  put(t, " (%s -> %s%s)", fuser_dtype_name((fuser_dtype)g->ab_dtype),
      fuser_dtype_name((fuser_dtype)g->d_dtype),
      g->flags & FUSER_BUNDLE_GEMM_FLAG_TF32 ? ", tf32" : "");
  for (int k = 0; k < FR_G_NUM_REGS; k++)
    put(t, " %s=r%" PRIu32, fr_gemm_reg_names[k], g->reg[k]);
}

/* "a0+a1" for a mask of grid axes, "-" for none. */
static void put_axes(text *t, uint32_t mask) {
  if (!mask) {
    put(t, "-");
    return;
  }
  bool first = true;
  for (uint32_t k = 0; k < 8; k++)
    if (mask & (1u << k)) {
      put(t, "%sa%" PRIu32, first ? "" : "+", k);
      first = false;
    }
}

/* "grid 2 x 4 = 8 devices, splits x[a0,-] y[a0,a1]": the sizes, and how
 * the grid's axes split each argument's and result's dims. */
static void put_grid(text *t, const fuser_fusion *f, const fr_grid *g) {
  char what[96];
  fr_grid_describe(g, what, sizeof what);
  put(t, "grid %s, splits", what);
  const uint8_t *m = g->splits;
  for (uint32_t i = 0; i < f->num_args + f->num_results; i++) {
    put(t, " %s[", f->tensors[i].name);
    for (uint32_t d = 0; d < f->tensors[i].rank; d++, m++) {
      if (d) put(t, ",");
      put_axes(t, *m);
    }
    put(t, "]");
  }
}

/* "all_reduce sum y = x (f32) group(a0+a1) count=r3". */
static void put_collective(text *t, const fuser_fusion *f,
                           const fr_collective *k) {
  /* validated: a known kind and reduction */
  put(t, "%s", fr_collective_kind_names[k->kind]);
  if (k->reduction) put(t, " %s", fr_reduction_names[k->reduction]);
  put(t, " ");
  put_buffer(t, f, k->dst);
  put(t, " = ");
  put_buffer(t, f, k->src);
  put(t, " (%s) group(", fuser_dtype_name((fuser_dtype)k->dtype));
  put_axes(t, k->group);
  put(t, ") count=r%" PRIu32, k->count);
}

size_t fuser_fusion_plan_text(const fuser_fusion *f, char *buffer,
                              size_t size) {
  if (!buffer) size = 0; /* then only the length, as with size 0 */
  text t = {buffer, size, 0};
  if (size) buffer[0] = '\0';
  if (!f) return 0;
  for (uint32_t i = 0; i < f->num_instrs; i++) {
    const fr_instr *in = &f->instrs[i];
    put(&t, "%4" PRIu32 ": ", i);
    switch (in->op) {
    case OP_CONST:
      put(&t, "r%" PRIu32 " = %" PRId64, in->dst, in->imm);
      break;
    case OP_DIM: {
      const fuser_dyn_dim_info *d = &f->dyn[in->a];
      put(&t, "r%" PRIu32 " = dim %" PRIu32 " (%s[%" PRIu32 "])", in->dst,
          in->a, f->tensors[d->tensor].name, d->dim);
      break;
    }
    case OP_STRIDE: /* validated: an argument, a dim of it */
      put(&t, "r%" PRIu32 " = stride %s[%" PRIu32 "]", in->dst,
          f->tensors[in->a].name, in->b);
      break;
    case OP_SELECT:
      put(&t, "r%" PRIu32 " = r%" PRIu32 " ? r%" PRIu32 " : r%" PRId64,
          in->dst, in->a, in->b, in->imm);
      break;
    case OP_ALIGNED:
      put(&t, "r%" PRIu32 " = aligned ", in->dst);
      put_buffer(&t, f, in->a);
      put(&t, ", %" PRId64, in->imm);
      break;
    case OP_ASSERT:
      put(&t, "assert r%" PRIu32 ", \"%s\"", in->a, in->msg ? in->msg : "");
      break;
    case OP_ALLOC:
      put(&t, "alloc ");
      put_buffer(&t, f, in->a);
      put(&t, ", r%" PRIu32 " bytes", in->b);
      if (in->imm & FUSER_BUNDLE_ALLOC_ZEROED) put(&t, ", zeroed");
      break;
    case OP_LAUNCH:
      if (in->b != FR_NONE) put(&t, "if r%" PRIu32 " ", in->b);
      put_launch(&t, f, &f->launches[in->a]);
      break;
    case OP_GEMM:
      put_gemm(&t, f, in->gemm);
      break;
    case OP_GRID:
      put_grid(&t, f, f->grid);
      break;
    case OP_COLLECTIVE:
      put_collective(&t, f, in->coll);
      break;
    case OP_INDEX_CHECK:
      put(&t, "index check ");
      put_buffer(&t, f, in->a);
      break;
    case OP_RESULT_DIM: {
      const fuser_dyn_dim_info *d = &f->dyn[in->b];
      put(&t, "result dim %" PRIu32 " (%s[%" PRIu32 "]) = r%" PRIu32, in->b,
          f->tensors[d->tensor].name, d->dim, in->a);
      break;
    }
    default:
      if (in->op < sizeof kBinary / sizeof kBinary[0] && kBinary[in->op])
        put(&t, "r%" PRIu32 " = %s r%" PRIu32 ", r%" PRIu32, in->dst,
            kBinary[in->op], in->a, in->b);
      else
        put(&t, "opcode %u", (unsigned)in->op);
    }
    put(&t, "\n");
  }
  return t.len;
}
