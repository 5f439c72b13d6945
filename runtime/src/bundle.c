/* Bundle validation and decoding (docs/bundle.md), introspection, and the
 * lazy module cache. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Limits on counts that are not backed by bytes of the file, so that a
 * hostile bundle can't make the runtime allocate without bound. */
#define FR_MAX_REGS (1u << 16)
#define FR_MAX_INTERMEDIATES (1u << 16)

/* Record sizes and field offsets: fuser_bundle_format.h. */
#define MODULE_REC FUSER_BUNDLE_MODULE_SIZE
#define FUSION_REC FUSER_BUNDLE_FUSION_SIZE
#define TENSOR_REC FUSER_BUNDLE_TENSOR_SIZE
#define INSTR_REC FUSER_BUNDLE_INSTR_SIZE
#define LAUNCH_REC FUSER_BUNDLE_LAUNCH_SIZE
#define PARAM_REC FUSER_BUNDLE_PARAM_SIZE

const char *const fr_op_names[OP_LAST + 1] = {
    "?",   "CONST", "DIM", "ADD", "SUB", "MUL", "DIV",    "CEILDIV",
    "REM", "MIN",   "MAX", "EQ",  "NE",  "LT",  "LE",     "AND",
    "OR",  "SELECT", "ALIGNED", "ASSERT", "ALLOC", "LAUNCH", "RESULT_DIM",
    "INDEX_CHECK", "STRIDE", "GEMM", "GRID", "COLLECTIVE"};

const char *const fr_gemm_reg_names[FR_G_NUM_REGS] = {
    "m",   "n",   "k",        "batch",    "lda",
    "ldb", "ldd", "stride_a", "stride_b", "stride_d"};

const char *const fr_collective_kind_names[FUSER_BUNDLE_COLLECTIVE_ALL_TO_ALL + 1] = {
    [0] = "",
    [FUSER_BUNDLE_COLLECTIVE_ALL_REDUCE] = "all_reduce",
    [FUSER_BUNDLE_COLLECTIVE_ALL_GATHER] = "all_gather",
    [FUSER_BUNDLE_COLLECTIVE_REDUCE_SCATTER] = "reduce_scatter",
    [FUSER_BUNDLE_COLLECTIVE_SLICE] = "slice",
    [FUSER_BUNDLE_COLLECTIVE_ALL_TO_ALL] = "all_to_all"};

const char *const fr_reduction_names[FUSER_BUNDLE_REDUCTION_AVG + 1] = {
    [0] = "",
    [FUSER_BUNDLE_REDUCTION_SUM] = "sum",
    [FUSER_BUNDLE_REDUCTION_PROD] = "prod",
    [FUSER_BUNDLE_REDUCTION_MAX] = "max",
    [FUSER_BUNDLE_REDUCTION_MIN] = "min",
    [FUSER_BUNDLE_REDUCTION_AVG] = "avg"};

/* ---- reading ----------------------------------------------------------- */

typedef struct reader {
  const unsigned char *d;
  uint64_t size;
  uint64_t str_off, str_size;
  uint32_t minor; /* the header's minor version */
  char loc[512]; /* where we are, for messages */
} reader;

static uint16_t u16_at(const reader *r, uint64_t o) {
  return (uint16_t)(r->d[o] | (r->d[o + 1] << 8));
}
static uint32_t u32_at(const reader *r, uint64_t o) {
  return (uint32_t)r->d[o] | ((uint32_t)r->d[o + 1] << 8) |
         ((uint32_t)r->d[o + 2] << 16) | ((uint32_t)r->d[o + 3] << 24);
}
static uint64_t u64_at(const reader *r, uint64_t o) {
  return (uint64_t)u32_at(r, o) | ((uint64_t)u32_at(r, o + 4) << 32);
}

static fuser_error *bad(const reader *r, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static fuser_error *bad(const reader *r, const char *format, ...) {
  char what[512];
  va_list ap;
  va_start(ap, format);
  vsnprintf(what, sizeof what, format, ap);
  va_end(ap);
  if (r->loc[0])
    return fuser_error_create(FUSER_ERROR_INVALID_BUNDLE,
                              "invalid bundle: %s: %s", r->loc, what);
  return fuser_error_create(FUSER_ERROR_INVALID_BUNDLE, "invalid bundle: %s",
                            what);
}

static void set_loc(reader *r, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void set_loc(reader *r, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(r->loc, sizeof r->loc, format, ap);
  va_end(ap);
}

/* Checks that `count` records of `rec` bytes at `off` lie inside the file,
 * and, when there are any, that they start at a multiple of 8. */
static fuser_error *check_table(const reader *r, const char *what,
                                uint64_t off, uint64_t count, uint64_t rec) {
  if (off > r->size)
    return bad(r, "%s at offset %llu is outside the file (%llu bytes)", what,
               (unsigned long long)off, (unsigned long long)r->size);
  if (count > (r->size - off) / rec)
    return bad(r,
               "%s at offset %llu: %llu records of %llu bytes run past the "
               "end of the file (%llu bytes)",
               what, (unsigned long long)off, (unsigned long long)count,
               (unsigned long long)rec, (unsigned long long)r->size);
  if (count > 0 && off % 8 != 0)
    return bad(r, "%s at offset %llu is not 8-byte aligned", what,
               (unsigned long long)off);
  return NULL;
}

static fuser_error *get_string(const reader *r, const char *what, uint32_t ref,
                               const char **out) {
  if ((uint64_t)ref >= r->str_size)
    return bad(r,
               "%s: string reference %u is outside the string table (%llu "
               "bytes)",
               what, ref, (unsigned long long)r->str_size);
  *out = (const char *)r->d + r->str_off + ref;
  return NULL;
}

static fuser_error *oom(void) {
  return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                            "out of memory while loading a bundle");
}

/* ---- names ------------------------------------------------------------- */

/* Whether `s` is [A-Za-z_][A-Za-z0-9_]* (with `dollar`, '$' also counts as a
 * letter: PTX identifiers, which fusion names become). */
static bool is_identifier(const char *s, bool dollar) {
  for (size_t i = 0;; i++) {
    char c = s[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  c == '_' || (dollar && c == '$');
    if (c == 0) return i > 0;
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
}

/* Whether `s` is non-empty printable ASCII without spaces, quotes or
 * backslashes. */
static bool is_plain(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (*s <= 0x20 || *s >= 0x7f || *s == '\'' || *s == '"' || *s == '\\')
      return false;
  return true;
}

/* A name from the file, fit to print in a message: at most 64 bytes, and
 * every byte that is not printable ASCII (or is a quote or a backslash)
 * written as \xNN, so that a crafted name can't forge a message or drive
 * the terminal. */
#define FR_QUOTE_MAX (64 * 4 + 4)
static const char *quote(const char *s, char out[FR_QUOTE_MAX]) {
  size_t n = 0, i = 0;
  for (; s[i] && i < 64; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      out[n++] = (char)c;
    } else {
      static const char hex[] = "0123456789abcdef";
      out[n++] = '\\';
      out[n++] = 'x';
      out[n++] = hex[c >> 4];
      out[n++] = hex[c & 15];
    }
  }
  if (s[i]) out[n++] = '.', out[n++] = '.', out[n++] = '.';
  out[n] = 0;
  return out;
}

typedef struct named {
  const char *name;
  uint32_t tensor;
} named;

static int by_name(const void *a, const void *b) {
  const named *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->tensor > y->tensor) - (x->tensor < y->tensor);
}

static void describe_tensor(const fuser_fusion *f, uint32_t t, char *out,
                            size_t n) {
  snprintf(out, n, "%s %u", t < f->num_args ? "argument" : "result",
           t < f->num_args ? t : t - f->num_args);
}

/* Argument and result names are distinct (an --input or an output file per
 * name). Sorting keeps a hostile bundle of many tensors from costing n^2. */
static fuser_error *check_unique_names(reader *r, const fuser_fusion *f) {
  uint32_t nt = f->num_args + f->num_results;
  if (nt < 2) return NULL;
  named *v = malloc(sizeof *v * nt);
  if (!v) return oom();
  for (uint32_t t = 0; t < nt; t++) {
    v[t].name = f->tensors[t].name;
    v[t].tensor = t;
  }
  qsort(v, nt, sizeof *v, by_name);
  fuser_error *e = NULL;
  for (uint32_t i = 1; i < nt && !e; i++) {
    if (strcmp(v[i - 1].name, v[i].name) != 0) continue;
    char a[32], b[32];
    describe_tensor(f, v[i - 1].tensor, a, sizeof a);
    describe_tensor(f, v[i].tensor, b, sizeof b);
    e = bad(r, "%s and %s are both named '%s' (each name may appear once)", a,
            b, v[i].name);
  }
  free(v);
  return e;
}

/* ---- decoding ---------------------------------------------------------- */

static size_t align16(size_t x) { return (x + 15) & ~(size_t)15; }


static bool is_reg(uint32_t x, uint32_t nregs) { return x < nregs; }

/* ---- cubins ------------------------------------------------------------ */

static uint64_t le64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}
static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static uint16_t le16(const unsigned char *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}

/* A cubin is handed to the driver, which takes no size and reads the ELF
 * image by its own headers: every header and section it could read must
 * lie inside the module's `n` bytes. A little-endian ELF64 image (what
 * ptxas writes): the header, the program and section header tables, and
 * every section but NOBITS ones, within n; the section names' index in
 * range. */
static fuser_error *check_elf(const reader *r, const unsigned char *p,
                              uint64_t n) {
  if (n < 64 || memcmp(p, "\x7f" "ELF", 4) != 0)
    return bad(r, "a cubin must be an ELF image (starting \\x7fELF, at least "
                  "64 bytes)");
  if (p[4] != 2 || p[5] != 1)
    return bad(r, "a cubin must be a little-endian 64-bit ELF image (class "
                  "%u, data %u)",
               p[4], p[5]);
  uint64_t phoff = le64(p + 0x20), shoff = le64(p + 0x28);
  uint16_t ehsize = le16(p + 0x34), phentsize = le16(p + 0x36),
           phnum = le16(p + 0x38), shentsize = le16(p + 0x3A),
           shnum = le16(p + 0x3C), shstrndx = le16(p + 0x3E);
  if (ehsize < 64 || ehsize > n)
    return bad(r, "a cubin's ELF header size %u is not 64 to %llu", ehsize,
               (unsigned long long)n);
  if (phnum && (phentsize < 56 || phoff > n ||
                (uint64_t)phentsize * phnum > n - phoff))
    return bad(r, "a cubin's program headers (%u of %u bytes at %llu) run "
                  "past its %llu bytes",
               phnum, phentsize, (unsigned long long)phoff,
               (unsigned long long)n);
  if (shnum && (shentsize < 64 || shoff > n ||
                (uint64_t)shentsize * shnum > n - shoff))
    return bad(r, "a cubin's section headers (%u of %u bytes at %llu) run "
                  "past its %llu bytes",
               shnum, shentsize, (unsigned long long)shoff,
               (unsigned long long)n);
  if (shnum && shstrndx >= shnum)
    return bad(r, "a cubin's section name index %u is not below its %u "
                  "sections",
               shstrndx, shnum);
  for (uint16_t i = 0; i < shnum; i++) {
    const unsigned char *sh = p + shoff + (uint64_t)i * shentsize;
    uint64_t off = le64(sh + 0x18), size = le64(sh + 0x20);
    if (le32(sh + 4) != 8 /* SHT_NOBITS */ && (off > n || size > n - off))
      return bad(r, "a cubin's section %u (%llu bytes at %llu) runs past its "
                    "%llu bytes",
                 i, (unsigned long long)size, (unsigned long long)off,
                 (unsigned long long)n);
  }
  for (uint16_t i = 0; i < phnum; i++) {
    const unsigned char *ph = p + phoff + (uint64_t)i * phentsize;
    uint64_t off = le64(ph + 0x08), size = le64(ph + 0x20);
    if (off > n || size > n - off)
      return bad(r, "a cubin's segment %u (%llu bytes at %llu) runs past its "
                    "%llu bytes",
                 i, (unsigned long long)size, (unsigned long long)off,
                 (unsigned long long)n);
  }
  return NULL;
}

typedef struct module_ref {
  const char *name;
  size_t len; /* of the name, or of a cubin's name without its suffix */
  uint32_t index, target;
} module_ref;

static int by_ref_name(const void *a, const void *b) {
  const module_ref *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->name, y->name, n);
  if (c) return c;
  if (x->len != y->len) return x->len < y->len ? -1 : 1;
  return (x->target > y->target) - (x->target < y->target);
}
/* The same order, then the module's index: a sort that ties nothing. */
static int by_ref_name_index(const void *a, const void *b) {
  int c = by_ref_name(a, b);
  if (c) return c;
  const module_ref *x = a, *y = b;
  return (x->index > y->index) - (x->index < y->index);
}

/* Ties each cubin to the PTX module it is named after (its name with the
 * suffix), one cubin per PTX module and SM; names compared in sorted
 * order, so a crafted bundle of many modules costs n log n. */
static fuser_error *link_cubins(reader *r, fuser_bundle *b) {
  size_t suffix = strlen(FUSER_BUNDLE_CUBIN_SUFFIX);
  uint32_t np = 0, nc = 0;
  for (uint32_t i = 0; i < b->num_modules; i++) {
    if (b->modules[i].kind == FUSER_MODULE_PTX) np++;
    if (b->modules[i].kind == FUSER_BUNDLE_MODULE_CUBIN) nc++;
  }
  if (!nc) return NULL;
  module_ref *ptx = calloc(np ? np : 1, sizeof *ptx);
  module_ref *cub = calloc(nc, sizeof *cub);
  fuser_error *e = NULL;
  if (!ptx || !cub) {
    e = oom();
    goto done;
  }
  np = nc = 0;
  for (uint32_t i = 0; i < b->num_modules; i++) {
    const fr_module *m = &b->modules[i];
    size_t n = strlen(m->name);
    if (m->kind == FUSER_MODULE_PTX)
      ptx[np++] = (module_ref){m->name, n, i, 0};
    if (m->kind != FUSER_BUNDLE_MODULE_CUBIN) continue;
    if (n <= suffix ||
        strcmp(m->name + n - suffix, FUSER_BUNDLE_CUBIN_SUFFIX) != 0) {
      set_loc(r, "module %u '%s'", i, m->name);
      e = bad(r, "a cubin's name must be its PTX module's with '%s' after it",
              FUSER_BUNDLE_CUBIN_SUFFIX);
      goto done;
    }
    cub[nc++] = (module_ref){m->name, n - suffix, i, m->target};
  }
  qsort(ptx, np, sizeof *ptx, by_ref_name_index);
  qsort(cub, nc, sizeof *cub, by_ref_name_index);
  for (uint32_t c = 0, p = 0; c < nc; c++) {
    fr_module *m = &b->modules[cub[c].index];
    set_loc(r, "module %u '%s'", cub[c].index, m->name);
    module_ref key = cub[c];
    key.target = 0;
    while (p < np && by_ref_name(&ptx[p], &key) < 0) p++;
    if (p == np || by_ref_name(&ptx[p], &key) != 0) {
      e = bad(r, "no PTX module '%.*s' for this cubin", (int)key.len, m->name);
      goto done;
    }
    if (p + 1 < np && by_ref_name(&ptx[p + 1], &key) == 0) {
      e = bad(r, "two PTX modules are named '%.*s': which one this cubin is "
                 "of is ambiguous",
              (int)key.len, m->name);
      goto done;
    }
    if (c && by_ref_name(&cub[c - 1], &cub[c]) == 0) {
      e = bad(r, "a second cubin for sm_%u of PTX module '%.*s'", m->target,
              (int)key.len, m->name);
      goto done;
    }
    m->cubin_of = ptx[p].index;
  }
done:
  r->loc[0] = 0;
  free(ptx);
  free(cub);
  return e;
}

static fuser_error *parse_modules(reader *r, fuser_bundle *b, uint64_t tab) {
  for (uint32_t i = 0; i < b->num_modules; i++) {
    uint64_t o = tab + (uint64_t)i * MODULE_REC;
    fr_module *m = &b->modules[i];
    set_loc(r, "module %u", i);
    fuser_error *e =
        get_string(r, "name", u32_at(r, o + FUSER_BUNDLE_M_NAME), &m->name);
    if (e) return e;
    /* Module names are printed in later messages (a load failure): plain
     * text only. */
    if (!is_plain(m->name)) {
      char q[FR_QUOTE_MAX];
      return bad(r, "name '%s' is not plain text (printable ASCII without "
                    "spaces, quotes or backslashes)",
                 quote(m->name, q));
    }
    set_loc(r, "module %u '%s'", i, m->name);
    m->kind = u32_at(r, o + FUSER_BUNDLE_M_KIND);
    uint64_t off = u64_at(r, o + FUSER_BUNDLE_M_DATA),
             size = u64_at(r, o + FUSER_BUNDLE_M_SIZE);
    if (m->kind != FUSER_MODULE_PTX && m->kind != FUSER_MODULE_EMULATOR &&
        m->kind != FUSER_BUNDLE_MODULE_CUBIN)
      return bad(r, "unknown module kind %u", m->kind);
    if (m->kind == FUSER_BUNDLE_MODULE_CUBIN && r->minor < 5)
      return bad(r,
                 "a cubin (module kind %u) needs bundle format version %d.5 "
                 "or later, but the header says minor version %u",
                 m->kind, FUSER_BUNDLE_FORMAT_VERSION, r->minor);
    m->target = u32_at(r, o + FUSER_BUNDLE_M_TARGET);
    m->cubin_of = m->cubin = FR_NONE;
    if (off > r->size || size > r->size - off)
      return bad(r,
                 "data at offset %llu of %llu bytes runs past the end of the "
                 "file (%llu bytes)",
                 (unsigned long long)off, (unsigned long long)size,
                 (unsigned long long)r->size);
    if (size == 0) return bad(r, "data is empty (it must end with a NUL byte)");
    if (r->d[off + size - 1] != 0)
      return bad(r, "data (%llu bytes at offset %llu) does not end with a NUL "
                    "byte",
                 (unsigned long long)size, (unsigned long long)off);
    m->data = (const char *)r->d + off;
    m->size = size;
    atomic_init(&m->ready, 0);
    if (m->kind == FUSER_BUNDLE_MODULE_CUBIN) {
      if (m->target == 0)
        return bad(r, "a cubin must name its SM version (target 0)");
      e = check_elf(r, (const unsigned char *)m->data, size - 1);
      if (e) return e;
    }
  }
  r->loc[0] = 0;
  return link_cubins(r, b);
}

/* Per-module scan results used to check kernel names and signatures. */
typedef struct module_scan {
  bool scanned;
  int num_entries;
  fr_ptx_entry *entries;
} module_scan;

static const fr_ptx_entry *find_entry(const module_scan *s, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < s->num_entries; i++)
    if (s->entries[i].name_len == n && memcmp(s->entries[i].name, name, n) == 0)
      return &s->entries[i];
  return NULL;
}

static const char *kind_name(uint8_t k) {
  return k == PARAM_PTR ? "pointer" : k == PARAM_I32 ? "i32" : "i64";
}

/* The strides record of tensor `t` (at `soff`, rank entries): only an
 * argument has one (a result is written dense, row-major), inside the file
 * and 8-aligned like the dims, each entry a stride in elements (>= 0; 0 is
 * an expanded dim) or -1 (passed by the caller, read by STRIDE). */
static fuser_error *parse_strides(reader *r, fuser_fusion *f, uint32_t t,
                                  uint64_t soff, int64_t **strides_store) {
  fuser_tensor_info *ti = &f->tensors[t];
  if (t >= f->num_args)
    return bad(r,
               "a strides record (at offset %llu) for a result: results are "
               "always dense (row-major), only arguments may be views",
               (unsigned long long)soff);
  fuser_error *e = check_table(r, "strides", soff, ti->rank, 8);
  if (e) return e;
  for (uint32_t k = 0; k < ti->rank; k++) {
    int64_t s = (int64_t)u64_at(r, soff + 8ull * k);
    if (s < -1)
      return bad(r,
                 "stride %u is %lld (a stride in elements, >= 0, or -1 when "
                 "the caller passes it)",
                 k, (long long)s);
    (*strides_store)[k] = s;
  }
  ti->strides = *strides_store;
  *strides_store += ti->rank;
  f->any_strides = true;
  return NULL;
}

static fuser_error *parse_tensors(reader *r, fuser_fusion *f, uint64_t off,
                                  int64_t **dims_store,
                                  int64_t **strides_store) {
  uint32_t nt = f->num_args + f->num_results;
  fuser_error *e = check_table(r, "tensor records", off, nt, TENSOR_REC);
  if (e) return e;
  uint32_t ndyn = 0;
  for (uint32_t t = 0; t < nt; t++) {
    uint64_t o = off + (uint64_t)t * TENSOR_REC;
    char base[512];
    snprintf(base, sizeof base, "%s", r->loc);
    if (t < f->num_args)
      snprintf(r->loc, sizeof r->loc, "%.300s: argument %u", base, t);
    else
      snprintf(r->loc, sizeof r->loc, "%.300s: result %u", base,
               t - f->num_args);
    fuser_tensor_info *ti = &f->tensors[t];
    e = get_string(r, "name", u32_at(r, o + FUSER_BUNDLE_T_NAME), &ti->name);
    /* Tools find inputs and name output files by these names (fuserc run
     * writes DIR/<name>.npy): a crafted bundle must not smuggle a path. */
    if (!e && !is_identifier(ti->name, false)) {
      char q[FR_QUOTE_MAX];
      e = bad(r, "name '%s' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)",
              quote(ti->name, q));
    }
    uint8_t dtype = r->d[o + FUSER_BUNDLE_T_DTYPE],
            rank = r->d[o + FUSER_BUNDLE_T_RANK];
    if (!e && (dtype < FUSER_DTYPE_I1 || dtype > FUSER_DTYPE_F8E8M0FNU))
      e = bad(r, "unknown dtype %u", dtype);
    if (!e && rank > FUSER_MAX_RANK)
      e = bad(r, "rank %u is more than FUSER_MAX_RANK (%d)", rank,
              FUSER_MAX_RANK);
    if (!e && u16_at(r, o + FUSER_BUNDLE_T_RESERVED) != 0)
      e = bad(r, "reserved fields are not 0");
    uint64_t doff = u64_at(r, o + FUSER_BUNDLE_T_DIMS);
    if (!e) e = check_table(r, "dims", doff, rank, 8);
    if (e) {
      snprintf(r->loc, sizeof r->loc, "%s", base);
      return e;
    }
    ti->dtype = (fuser_dtype)dtype;
    ti->rank = rank;
    ti->strides = NULL; /* dense, unless it has a strides record */
    /* 0: no record (offset 0 is the header, never a record). */
    uint64_t soff = u64_at(r, o + FUSER_BUNDLE_T_STRIDES);
    if (soff != 0 && (e = parse_strides(r, f, t, soff, strides_store))) {
      snprintf(r->loc, sizeof r->loc, "%s", base);
      return e;
    }
    ti->dims = *dims_store;
    for (uint32_t k = 0; k < rank; k++) {
      int64_t d = (int64_t)u64_at(r, doff + 8ull * k);
      if (d < -1) {
        e = bad(r, "dim %u is %lld (a size, or -1 when dynamic)", k,
                (long long)d);
        snprintf(r->loc, sizeof r->loc, "%s", base);
        return e;
      }
      (*dims_store)[k] = d;
      if (d == -1) ndyn++;
    }
    /* The static dims alone must not make the tensor 2^63 bytes or more:
     * size arithmetic (here and in the plan) is in 64 bits. */
    uint64_t bytes = fuser_dtype_size(ti->dtype), size;
    bool empty = false, overflow = false;
    for (uint32_t k = 0; k < rank; k++) {
      int64_t d = (*dims_store)[k];
      if (d == 0) empty = true;
      if (d > 0 && __builtin_mul_overflow(bytes, (uint64_t)d, &size)) overflow = true;
      else if (d > 0) bytes = size;
    }
    if (!empty && (overflow || bytes > (uint64_t)INT64_MAX)) {
      e = bad(r, "its static dims make it 2^63 bytes or more");
      snprintf(r->loc, sizeof r->loc, "%s", base);
      return e;
    }
    f->tensor_static_bytes[t] = empty ? 0 : bytes;
    *dims_store += rank;
    snprintf(r->loc, sizeof r->loc, "%s", base);
  }
  if (ndyn != f->num_dyn)
    return bad(r,
               "the fusion says it has %u dynamic dims but its tensors have "
               "%u dims of -1",
               f->num_dyn, ndyn);
  e = check_unique_names(r, f);
  if (e) return e;
  uint32_t k = 0;
  for (uint32_t t = 0; t < nt; t++) {
    f->tensor_dyn_begin[t] = k;
    for (uint32_t d = 0; d < f->tensors[t].rank; d++)
      if (f->tensors[t].dims[d] == -1) {
        f->dyn[k].tensor = t;
        f->dyn[k].dim = d;
        k++;
      }
  }
  f->tensor_dyn_begin[nt] = k;
  return NULL;
}

static fuser_error *parse_launches(reader *r, fuser_fusion *f, uint64_t off,
                                   const module_scan *ptx_scan,
                                   unsigned char **store) {
  fuser_error *e = check_table(r, "launch records", off, f->num_launches,
                               LAUNCH_REC);
  if (e) return e;
  char base[512];
  snprintf(base, sizeof base, "%s", r->loc);
  uint32_t nbuf = f->num_args + f->num_results + f->num_inter;
  for (uint32_t l = 0; l < f->num_launches; l++) {
    uint64_t o = off + (uint64_t)l * LAUNCH_REC;
    fr_launch *L = &f->launches[l];
    snprintf(r->loc, sizeof r->loc, "%.300s: launch %u", base, l);
    e = get_string(r, "kernel name", u32_at(r, o + FUSER_BUNDLE_L_KERNEL),
                   &L->kernel_name);
    if (e) return e;
    if (L->kernel_name[0] && !is_identifier(L->kernel_name, true)) {
      char q[FR_QUOTE_MAX];
      return bad(r, "kernel name '%s' is not an identifier", quote(L->kernel_name, q));
    }
    snprintf(r->loc, sizeof r->loc, "%.300s: launch %u '%.64s'", base, l,
             L->kernel_name);
    if (L->kernel_name[0] == 0) return bad(r, "the kernel name is empty");
    L->num_params = u32_at(r, o + FUSER_BUNDLE_L_NUM_PARAMS);
    uint64_t poff = u64_at(r, o + FUSER_BUNDLE_L_PARAMS);
    for (int k = 0; k < 3; k++) {
      L->grid[k] = u32_at(r, o + FUSER_BUNDLE_L_GRID + 4 * (uint64_t)k);
      L->block[k] = u32_at(r, o + FUSER_BUNDLE_L_BLOCK + 4 * (uint64_t)k);
      if (!is_reg(L->grid[k], f->num_regs))
        return bad(r, "grid %c: register %u out of range (plan has %u "
                      "registers)",
                   "xyz"[k], L->grid[k], f->num_regs);
      if (!is_reg(L->block[k], f->num_regs))
        return bad(r, "block %c: register %u out of range (plan has %u "
                      "registers)",
                   "xyz"[k], L->block[k], f->num_regs);
    }
    L->smem = u32_at(r, o + FUSER_BUNDLE_L_SMEM);
    if (!is_reg(L->smem, f->num_regs))
      return bad(r, "shared memory: register %u out of range (plan has %u "
                    "registers)",
                 L->smem, f->num_regs);
    if (u32_at(r, o + FUSER_BUNDLE_L_RESERVED) != 0)
      return bad(r, "reserved field is not 0");
    e = check_table(r, "parameter records", poff, L->num_params, PARAM_REC);
    if (e) return e;
    L->param_kinds = *store;
    *store += align16(L->num_params);
    L->param_index = (uint32_t *)(void *)*store;
    *store += align16(4ull * L->num_params);
    L->param_sizes = (uint32_t *)(void *)*store;
    *store += align16(4ull * L->num_params);
    for (uint32_t p = 0; p < L->num_params; p++) {
      uint64_t po = poff + (uint64_t)PARAM_REC * p;
      uint8_t kind = r->d[po + FUSER_BUNDLE_P_KIND];
      uint32_t index = u32_at(r, po + FUSER_BUNDLE_P_INDEX);
      if (kind < PARAM_PTR || kind > PARAM_I64)
        return bad(r, "parameter %u: unknown parameter kind %u", p, kind);
      if (r->d[po + FUSER_BUNDLE_P_RESERVED] ||
          r->d[po + FUSER_BUNDLE_P_RESERVED + 1] ||
          r->d[po + FUSER_BUNDLE_P_RESERVED + 2])
        return bad(r, "parameter %u: reserved bytes are not 0", p);
      if (kind == PARAM_PTR && index >= nbuf)
        return bad(r,
                   "parameter %u: buffer %u out of range (the fusion has %u "
                   "buffers: %u arguments, %u results, %u intermediates)",
                   p, index, nbuf, f->num_args, f->num_results, f->num_inter);
      if (kind != PARAM_PTR && !is_reg(index, f->num_regs))
        return bad(r,
                   "parameter %u (%s): register %u out of range (plan has %u "
                   "registers)",
                   p, kind_name(kind), index, f->num_regs);
      L->param_kinds[p] = kind;
      L->param_index[p] = index;
      L->param_sizes[p] = kind == PARAM_I32 ? 4 : 8;
    }
    if (L->num_params > f->max_params) f->max_params = L->num_params;
    /* The kernel must be an .entry of the PTX module, and the parameter
     * records must match its parameter list: count, sizes, and which are
     * pointers. A list the scanner can't read is an error: PTX in a bundle
     * is what LLVM's NVPTX back end writes for fuser, whose parameter
     * lists (`.param .u64 .ptr .align 1 k_param_0`, `.param .u32 ...`) the
     * scanner reads in full, so an unreadable one is damage or a crafted
     * bundle, and a launch that can't be checked must not run. */
    const fr_ptx_entry *en = find_entry(ptx_scan, L->kernel_name);
    if (!en)
      return bad(r, "kernel '%s' is not an .entry of PTX module %u",
                 L->kernel_name, f->ptx_module);
    if (en->num_params < 0)
      return bad(r,
                 "the parameter list of the PTX .entry '%s' can't be read "
                 "(at parameter %d), so the launch can't be checked against "
                 "it",
                 L->kernel_name, en->bad_param);
    if ((uint32_t)en->num_params != L->num_params)
      return bad(r,
                 "the launch passes %u parameters but the PTX .entry "
                 "declares %d",
                 L->num_params, en->num_params);
    for (uint32_t p = 0; p < L->num_params; p++) {
      if (en->param_sizes[p] != L->param_sizes[p])
        return bad(r,
                   "parameter %u is %s (%u bytes) but the PTX .entry "
                   "declares %u bytes",
                   p, kind_name(L->param_kinds[p]), L->param_sizes[p],
                   en->param_sizes[p]);
      /* LLVM marks a kernel's pointer parameters `.ptr`, and only those:
       * an i64 passed for a pointer (or a buffer for an i64) is caught. */
      bool ptr = L->param_kinds[p] == PARAM_PTR;
      if (ptr != (en->param_is_ptr[p] != 0))
        return bad(r,
                   "parameter %u is %s but the PTX .entry declares %s", p,
                   ptr ? "a pointer to a buffer" : kind_name(L->param_kinds[p]),
                   en->param_is_ptr[p] ? "a pointer (.ptr)"
                                       : "an integer (no .ptr)");
    }
  }
  snprintf(r->loc, sizeof r->loc, "%s", base);
  return NULL;
}

/* Whether an instruction can fail at run time. */
static bool can_fail(uint16_t op) {
  switch (op) {
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_CEILDIV:
  case OP_REM: case OP_ASSERT: case OP_ALLOC: case OP_LAUNCH:
  case OP_RESULT_DIM:
  case OP_STRIDE: /* the dense stride of an empty tensor's dims may overflow */
  case OP_GEMM:   /* its sizes and reach are checked per call */
  case OP_COLLECTIVE: /* its count and reach too */
    return true;
  default:
    return false;
  }
}

/* INDEX_CHECK reads FUSER_INDEX_WORD_SIZE i64s of buffer `a` back from the
 * device: it must be an intermediate allocated before it, zeroed, with a
 * constant size that holds them (a crafted plan must not make the runtime
 * read past a buffer). */
static fuser_error *check_index_word(reader *r, const fuser_fusion *f,
                                     uint32_t i, uint32_t a, uint32_t nio,
                                     uint32_t nbuf,
                                     const unsigned char *allocated) {
  if (a < nio || a >= nbuf || !allocated[a - nio])
    return bad(r, "buffer %u is not an intermediate allocated before it", a);
  for (uint32_t k = i; k-- > 0;) {
    const fr_instr *al = &f->instrs[k];
    if (al->op != OP_ALLOC || al->a != a) continue;
    if (!(al->imm & FUSER_BUNDLE_ALLOC_ZEROED))
      return bad(r, "buffer %u (the index error word) is not zeroed", a);
    for (uint32_t j = k; j-- > 0;)
      if (f->instrs[j].op == OP_CONST && f->instrs[j].dst == al->b) {
        if (f->instrs[j].imm < 8 * FUSER_INDEX_WORD_SIZE)
          return bad(r, "buffer %u (the index error word) has %lld bytes, "
                        "fewer than %d",
                     a, (long long)f->instrs[j].imm, 8 * FUSER_INDEX_WORD_SIZE);
        return NULL;
      }
    return bad(r, "buffer %u (the index error word) has no constant size", a);
  }
  return bad(r, "buffer %u (the index error word) has no ALLOC", a);
}

/* STRIDE reads a stride the caller passes: `a` is an argument compiled as
 * a view (it has a strides record) and entry `b` of its record is -1. A
 * static stride is known to the compiler, and an argument without a record
 * is dense: the caller passes neither, so nothing could be read. */
static fuser_error *check_stride_operands(reader *r, const fuser_fusion *f,
                                          const fr_instr *in) {
  if (in->a >= f->num_args)
    return bad(r, "buffer %u is not an argument (the fusion has %u "
                  "arguments)",
               in->a, f->num_args);
  const fuser_tensor_info *t = &f->tensors[in->a];
  if (!t->strides)
    return bad(r, "argument %u '%s' has no strides record (it is dense)",
               in->a, t->name);
  if (in->b >= t->rank)
    return bad(r, "dim %u out of range (argument %u '%s' has rank %u)", in->b,
               in->a, t->name, t->rank);
  if (t->strides[in->b] != -1)
    return bad(r,
               "stride %u of argument %u '%s' is static (%lld): STRIDE reads "
               "only a dynamic one (-1)",
               in->b, in->a, t->name, (long long)t->strides[in->b]);
  return NULL;
}

void fr_buffer_name(const fuser_fusion *f, uint32_t x, char *out, size_t n) {
  uint32_t nio = f->num_args + f->num_results;
  if (x < f->num_args)
    snprintf(out, n, "argument %u '%s'", x, f->tensors[x].name);
  else if (x < nio)
    snprintf(out, n, "result %u '%s'", x - f->num_args, f->tensors[x].name);
  else
    snprintf(out, n, "intermediate buffer %u", x);
}

/* The element types cuBLASLt multiplies (CUBLAS_COMPUTE_32F for the first
 * three, CUBLAS_COMPUTE_64F for f64). */
static bool gemm_ab_dtype(uint8_t d) {
  return d == FUSER_DTYPE_F16 || d == FUSER_DTYPE_BF16 ||
         d == FUSER_DTYPE_F32 || d == FUSER_DTYPE_F64;
}

/* D's dtype for operands of `ab`: the operands' own, or f32 for f16 and
 * bf16 operands. These are the combinations cuBLASLt runs (its table of
 * cublasLtMatmul's types); anything else would pass the loader only to
 * find no algorithm at run time. */
static bool gemm_d_dtype(uint8_t ab, uint8_t d) {
  return d == ab ||
         (d == FUSER_DTYPE_F32 &&
          (ab == FUSER_DTYPE_F16 || ab == FUSER_DTYPE_BF16));
}

#define GEMM_FLAGS                                                           \
  (FUSER_BUNDLE_GEMM_FLAG_TRANS_A | FUSER_BUNDLE_GEMM_FLAG_TRANS_B |         \
   FUSER_BUNDLE_GEMM_FLAG_TF32)

/* GEMM (minor version 1): `imm` is the file offset of a GEMM record, dst,
 * a and b are NONE. The record's buffers are in range, its intermediates
 * allocated before it; D, which it writes, is a result or an intermediate
 * and none of its inputs (cuBLASLt does not run in place); a bias buffer
 * exactly with the bias epilogue or a bias gradient (BGRAD, minor 4: the
 * bias is then written, so a result or an intermediate and none of A, B
 * and D); registers in range (that they were written is check_reads');
 * dtypes, flags and epilogue known and a combination cuBLASLt runs. What
 * depends on the call (the sizes, how far each operand reaches) is checked
 * by run.c at every call. */
static fuser_error *parse_gemm(reader *r, const fuser_fusion *f,
                               fr_instr *in, const unsigned char *allocated,
                               fr_gemm *g) {
  uint32_t nio = f->num_args + f->num_results;
  uint32_t nbuf = nio + f->num_inter;
  if (r->minor < 1)
    return bad(r,
               "a GEMM needs format version %d.1 or later, but the header "
               "says minor version %u (offset %d); a writer that emits a "
               "GEMM writes minor version 1",
               FUSER_BUNDLE_FORMAT_VERSION, r->minor, FUSER_BUNDLE_H_MINOR);
  if (in->dst != FR_NONE || in->a != FR_NONE || in->b != FR_NONE)
    return bad(r,
               "operands dst, a and b are %u, %u and %u, not all 0xFFFFFFFF "
               "(a GEMM's operands are in its record)",
               in->dst, in->a, in->b);
  if (in->imm < 0 || (uint64_t)in->imm > r->size ||
      r->size - (uint64_t)in->imm < FUSER_BUNDLE_GEMM_SIZE)
    return bad(r,
               "the GEMM record at offset %lld (%d bytes) is not inside the "
               "file (%llu bytes)",
               (long long)in->imm, FUSER_BUNDLE_GEMM_SIZE,
               (unsigned long long)r->size);
  if (in->imm % FUSER_BUNDLE_ALIGN != 0)
    return bad(r, "the GEMM record at offset %lld is not 8-byte aligned",
               (long long)in->imm);
  uint64_t o = (uint64_t)in->imm;
  g->a = u32_at(r, o + FUSER_BUNDLE_G_A);
  g->b = u32_at(r, o + FUSER_BUNDLE_G_B);
  g->d = u32_at(r, o + FUSER_BUNDLE_G_D);
  g->bias = u32_at(r, o + FUSER_BUNDLE_G_BIAS);
  for (int k = 0; k < FR_G_NUM_REGS; k++)
    g->reg[k] = u32_at(r, o + FUSER_BUNDLE_G_M + 4 * (uint64_t)k);
  g->ab_dtype = r->d[o + FUSER_BUNDLE_G_AB_DTYPE];
  g->d_dtype = r->d[o + FUSER_BUNDLE_G_D_DTYPE];
  g->flags = r->d[o + FUSER_BUNDLE_G_FLAGS];
  g->epilogue = r->d[o + FUSER_BUNDLE_G_EPILOGUE];
  in->gemm = g;

  bool with_aux = g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_AUX;
  g->aux = with_aux ? u32_at(r, o + FUSER_BUNDLE_G_AUX) : FR_NONE;
  if (!with_aux && u32_at(r, o + FUSER_BUNDLE_G_AUX) != 0)
    return bad(r, "the field at offset %d of its record is not 0: it is the "
                  "pre-activation's buffer only with the AUX epilogue (bit 3)",
               FUSER_BUNDLE_G_AUX);
  if (with_aux && r->minor < 2)
    return bad(r,
               "epilogue %u writes the pre-activation (AUX), which needs "
               "format version %d.2 or later, but the header says minor "
               "version %u",
               (unsigned)g->epilogue, FUSER_BUNDLE_FORMAT_VERSION, r->minor);
  /* A bias gradient: the bias buffer is written instead of read. */
  bool bgrad = FR_GEMM_BGRAD(g->epilogue);
  const char *grad =
      g->epilogue == FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A ? "BGRAD_A" : "BGRAD_B";
  if (bgrad && r->minor < 4)
    return bad(r,
               "epilogue %u writes a bias gradient (%s), which needs bundle "
               "format version %d.4 or later, but the header says minor "
               "version %u",
               (unsigned)g->epilogue, grad, FUSER_BUNDLE_FORMAT_VERSION,
               r->minor);
  if (!gemm_ab_dtype(g->ab_dtype))
    return bad(r,
               "A and B have dtype %u (%s); a GEMM multiplies f16, bf16, f32 "
               "or f64",
               g->ab_dtype, fuser_dtype_name((fuser_dtype)g->ab_dtype));
  if (!gemm_d_dtype(g->ab_dtype, g->d_dtype))
    return bad(r,
               "D has dtype %u (%s) with %s operands; D has the operands' "
               "dtype, or f32 with f16 or bf16 operands (the combinations "
               "cuBLASLt runs)",
               g->d_dtype, fuser_dtype_name((fuser_dtype)g->d_dtype),
               fuser_dtype_name((fuser_dtype)g->ab_dtype));
  if (g->flags & ~GEMM_FLAGS)
    return bad(r, "unknown flags 0x%x (known: 1 TRANS_A, 2 TRANS_B, 4 TF32)",
               (unsigned)g->flags);
  if ((g->flags & FUSER_BUNDLE_GEMM_FLAG_TF32) &&
      g->ab_dtype != FUSER_DTYPE_F32)
    return bad(r, "the TF32 flag with %s operands: TF32 applies to f32 "
                  "operands only",
               fuser_dtype_name((fuser_dtype)g->ab_dtype));
  if (g->epilogue > FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_GELU &&
      g->epilogue != FUSER_BUNDLE_GEMM_EPILOGUE_GELU_AUX &&
      g->epilogue != FUSER_BUNDLE_GEMM_EPILOGUE_BIAS_GELU_AUX && !bgrad)
    return bad(r, "unknown epilogue %u (0 none, 1 bias, 2 relu, 3 bias and "
                  "relu, 4 gelu, 5 bias and gelu, 12 gelu keeping its input, "
                  "13 bias and gelu keeping its input, 16 bias gradient of "
                  "A, 32 bias gradient of B)",
               (unsigned)g->epilogue);

  const char *const names[5] = {"A", "B", "D", "bias", "the pre-activation (AUX)"};
  const uint32_t bufs[5] = {g->a, g->b, g->d, g->bias, g->aux};
  /* with_bias: a bias read; has_bias: a bias buffer, read or written. */
  bool with_bias = g->epilogue & FUSER_BUNDLE_GEMM_EPILOGUE_BIAS;
  bool has_bias = with_bias || bgrad;
  if (!has_bias && g->bias != FR_NONE)
    return bad(r, "the bias is buffer %u but epilogue %u adds none and "
                  "writes no bias gradient; a bias needs an epilogue with "
                  "bit 0 set (1, 3, 5) or a bias gradient (16, 32), else "
                  "the bias is 0xFFFFFFFF",
               g->bias, (unsigned)g->epilogue);
  if (with_bias && g->bias == FR_NONE)
    return bad(r, "epilogue %u adds a bias but there is no bias buffer "
                  "(0xFFFFFFFF)",
               (unsigned)g->epilogue);
  if (bgrad && g->bias == FR_NONE)
    return bad(r, "epilogue %u writes a bias gradient (%s) but there is no "
                  "bias buffer (0xFFFFFFFF) to write it to",
               (unsigned)g->epilogue, grad);
  for (int k = 0; k < 5; k++) {
    uint32_t x = bufs[k];
    if ((k == 3 && !has_bias) || (k == 4 && !with_aux)) continue;
    if (x >= nbuf)
      return bad(r,
                 "buffer %s %u out of range (the fusion has %u buffers: %u "
                 "arguments, %u results, %u intermediates)",
                 names[k], x, nbuf, f->num_args, f->num_results,
                 f->num_inter);
    if (x >= nio && !allocated[x - nio])
      return bad(r, "%s is intermediate buffer %u, used before its ALLOC",
                 names[k], x);
  }
  char what[160];
  if (g->d < f->num_args) {
    fr_buffer_name(f, g->d, what, sizeof what);
    return bad(r,
               "D is buffer %u, %s: a GEMM writes D, so it is a result or an "
               "intermediate (arguments are read-only)",
               g->d, what);
  }
  /* (A bias gradient that is D is refused below, as a buffer written.) */
  for (int k = 0; k < 5; k++)
    if (k != 2 && bufs[k] == g->d && (k != 3 || with_bias) &&
        (k != 4 || with_aux)) {
      fr_buffer_name(f, g->d, what, sizeof what);
      return bad(r, "D is buffer %u (%s), which is also its %s: a GEMM "
                    "does not run in place",
                 g->d, what, names[k]);
    }
  if (with_aux) {
    /* The pre-activation is written too: a result or an intermediate, and
     * none of the buffers the GEMM reads. */
    fr_buffer_name(f, g->aux, what, sizeof what);
    if (g->aux < f->num_args)
      return bad(r,
                 "the pre-activation (AUX) is buffer %u, %s: a GEMM writes "
                 "it, so it is a result or an intermediate (arguments are "
                 "read-only)",
                 g->aux, what);
    for (int k = 0; k < 4; k++)
      if (bufs[k] == g->aux && (k != 3 || with_bias))
        return bad(r, "the pre-activation (AUX) is buffer %u (%s), which is "
                      "also its %s",
                   g->aux, what, names[k]);
  }
  if (bgrad) {
    /* The bias gradient is written too (like D): a result or an
     * intermediate, and none of A, B and D. There is no AUX with it. */
    fr_buffer_name(f, g->bias, what, sizeof what);
    if (g->bias < f->num_args)
      return bad(r,
                 "the bias gradient (%s) is buffer %u, %s: a GEMM with "
                 "epilogue %u writes it, so it is a result or an "
                 "intermediate (arguments are read-only)",
                 grad, g->bias, what, (unsigned)g->epilogue);
    for (int k = 0; k < 3; k++)
      if (bufs[k] == g->bias)
        return bad(r, "the bias gradient (%s) is buffer %u (%s), which is "
                      "also its %s",
                   grad, g->bias, what, names[k]);
  }
  for (int k = 0; k < FR_G_NUM_REGS; k++)
    if (!is_reg(g->reg[k], f->num_regs))
      return bad(r, "register %u out of range in field %s (plan has %u "
                    "registers)",
                 g->reg[k], fr_gemm_reg_names[k], f->num_regs);
  return NULL;
}

/* ---- sharded fusions: GRID and COLLECTIVE (minor version 3) -------------- */

/* What GRID and COLLECTIVE share: minor version 3, dst, a and b NONE (the
 * operands are in the record), and a record of `size` bytes at `imm`,
 * 8-aligned, inside the file. */
static fuser_error *check_record(reader *r, const fr_instr *in,
                                 const char *what, uint64_t size) {
  if (r->minor < 3)
    return bad(r,
               "a %s needs format version %d.3 or later, but the header "
               "says minor version %u (offset %d); a writer that emits a %s "
               "writes minor version 3",
               what, FUSER_BUNDLE_FORMAT_VERSION, r->minor,
               FUSER_BUNDLE_H_MINOR, what);
  if (in->dst != FR_NONE || in->a != FR_NONE || in->b != FR_NONE)
    return bad(r,
               "operands dst, a and b are %u, %u and %u, not all 0xFFFFFFFF "
               "(a %s's operands are in its record)",
               in->dst, in->a, in->b, what);
  if (in->imm < 0 || (uint64_t)in->imm > r->size ||
      r->size - (uint64_t)in->imm < size)
    return bad(r,
               "the %s record at offset %lld (%llu bytes) is not inside the "
               "file (%llu bytes)",
               what, (long long)in->imm, (unsigned long long)size,
               (unsigned long long)r->size);
  if (in->imm % FUSER_BUNDLE_ALIGN != 0)
    return bad(r, "the %s record at offset %lld is not 8-byte aligned", what,
               (long long)in->imm);
  return NULL;
}

/* The mask of a grid's axes. */
static uint32_t grid_axes_mask(uint32_t axes) { return (1u << axes) - 1u; }

/* GRID: `imm` is the file offset of a grid record. At most one per fusion
 * (`first` is the instruction of an earlier one, or FR_NONE), before every
 * COLLECTIVE (which refuses to come first); 1 to GRID_MAX_AXES axes, each
 * of at least one device, the unused sizes 0, at most 2^31 - 1 devices
 * (NCCL's ranks are an int); reserved 0; the splits inside the file, one
 * mask per dim of every argument and result, each of existing axes, no
 * axis on two dims of one tensor. The splits are bytes: no alignment. */
static fuser_error *parse_grid(reader *r, fuser_fusion *f, fr_instr *in,
                               uint32_t first, fr_grid *g) {
  fuser_error *e = check_record(r, in, "GRID", FUSER_BUNDLE_GRID_SIZE);
  if (e) return e;
  if (first != FR_NONE)
    return bad(r, "a second GRID (instruction %u is the first): a fusion "
                  "runs on one grid",
               first);
  uint64_t o = (uint64_t)in->imm;
  uint32_t axes = u32_at(r, o + FUSER_BUNDLE_GR_AXES);
  if (axes < 1 || axes > FUSER_BUNDLE_GRID_MAX_AXES)
    return bad(r, "%u axes; a grid has 1 to %d", axes,
               FUSER_BUNDLE_GRID_MAX_AXES);
  if (u32_at(r, o + FUSER_BUNDLE_GR_RESERVED) != 0)
    return bad(r, "the reserved field at offset %d of its record is not 0",
               FUSER_BUNDLE_GR_RESERVED);
  uint64_t devices = 1;
  for (uint32_t k = 0; k < FUSER_BUNDLE_GRID_MAX_AXES; k++) {
    uint32_t size = u32_at(r, o + FUSER_BUNDLE_GR_SIZES + 4 * (uint64_t)k);
    if (k < axes && size == 0)
      return bad(r, "axis %u has size 0 (an axis has at least one device)",
                 k);
    if (k >= axes && size != 0)
      return bad(r, "axis %u has size %u past the grid's last axis (axis "
                    "%u): the sizes of unused axes are 0",
                 k, size, axes - 1);
    g->sizes[k] = size;
    /* below 2^31 times a u32: no overflow, checked as it grows */
    if (k < axes) devices *= size;
    if (devices > (uint64_t)INT32_MAX)
      return bad(r, "the grid has more devices than a communicator holds "
                    "(2^31 - 1)");
  }
  g->axes = axes;
  g->devices = devices;
  uint32_t nt = f->num_args + f->num_results;
  uint64_t total = 0;
  for (uint32_t t = 0; t < nt; t++) total += f->tensors[t].rank;
  uint64_t so = u64_at(r, o + FUSER_BUNDLE_GR_SPLITS);
  if (so > r->size || total > r->size - so)
    return bad(r,
               "the splits at offset %llu (%llu bytes: one per dim of every "
               "argument and result) are not inside the file (%llu bytes)",
               (unsigned long long)so, (unsigned long long)total,
               (unsigned long long)r->size);
  g->splits = r->d + so;
  uint32_t all = grid_axes_mask(axes);
  const uint8_t *m = g->splits;
  for (uint32_t t = 0; t < nt; t++) {
    /* Which dim each axis splits in this tensor. */
    uint32_t owner[FUSER_BUNDLE_GRID_MAX_AXES];
    for (int k = 0; k < FUSER_BUNDLE_GRID_MAX_AXES; k++) owner[k] = FR_NONE;
    char what[160];
    for (uint32_t d = 0; d < f->tensors[t].rank; d++, m++) {
      if (*m & ~all) {
        fr_buffer_name(f, t, what, sizeof what);
        return bad(r, "%s: dim %u is split over the axes of mask 0x%x, but "
                      "the grid's axes are mask 0x%x",
                   what, d, (unsigned)*m, all);
      }
      for (uint32_t k = 0; k < axes; k++) {
        if (!(*m & (1u << k))) continue;
        if (owner[k] != FR_NONE) {
          fr_buffer_name(f, t, what, sizeof what);
          return bad(r, "%s: axis %u splits both dim %u and dim %u (an axis "
                        "splits at most one dim of a tensor)",
                     what, k, owner[k], d);
        }
        owner[k] = d;
      }
    }
  }
  f->grid = g;
  return NULL;
}

static const char *collective_name(uint8_t kind) {
  switch (kind) {
  case FUSER_BUNDLE_COLLECTIVE_ALL_REDUCE: return "ALL_REDUCE";
  case FUSER_BUNDLE_COLLECTIVE_ALL_GATHER: return "ALL_GATHER";
  case FUSER_BUNDLE_COLLECTIVE_REDUCE_SCATTER: return "REDUCE_SCATTER";
  case FUSER_BUNDLE_COLLECTIVE_SLICE: return "SLICE";
  case FUSER_BUNDLE_COLLECTIVE_ALL_TO_ALL: return "ALL_TO_ALL";
  }
  return "?";
}

static bool is_float(uint8_t d) {
  return d == FUSER_DTYPE_F16 || d == FUSER_DTYPE_BF16 ||
         d == FUSER_DTYPE_F32 || d == FUSER_DTYPE_F64;
}
static bool is_fp8(uint8_t d) {
  return d == FUSER_DTYPE_F8E4M3FN || d == FUSER_DTYPE_F8E5M2 ||
         d == FUSER_DTYPE_F8E8M0FNU;
}

/* COLLECTIVE: `imm` is the file offset of a collective record, after the
 * fusion's GRID. A known kind (ALL_REDUCE to ALL_TO_ALL); a reduction
 * exactly when it reduces (ALL_REDUCE, REDUCE_SCATTER), avg only of
 * floats, none of fp8; a known
 * dtype; a group of at least one axis, of existing axes only; SRC and DST
 * distinct buffers in range, DST a result or an intermediate (it is
 * written), an intermediate ALLOCated before; the count register in range
 * (that it was written is check_reads'); reserved 0. How far SRC and DST
 * reach depends on the count: run.c checks it at every call. */
static fuser_error *parse_collective(reader *r, const fuser_fusion *f,
                                     fr_instr *in,
                                     const unsigned char *allocated,
                                     fr_collective *k) {
  fuser_error *e =
      check_record(r, in, "COLLECTIVE", FUSER_BUNDLE_COLLECTIVE_SIZE);
  if (e) return e;
  if (!f->grid)
    return bad(r, "a COLLECTIVE needs an earlier GRID (the grid whose axes "
                  "its group names)");
  uint64_t o = (uint64_t)in->imm;
  k->kind = r->d[o + FUSER_BUNDLE_C_KIND];
  k->reduction = r->d[o + FUSER_BUNDLE_C_REDUCTION];
  k->dtype = r->d[o + FUSER_BUNDLE_C_DTYPE];
  k->group = r->d[o + FUSER_BUNDLE_C_GROUP];
  k->src = u32_at(r, o + FUSER_BUNDLE_C_SRC);
  k->dst = u32_at(r, o + FUSER_BUNDLE_C_DST);
  k->count = u32_at(r, o + FUSER_BUNDLE_C_COUNT);
  in->coll = k;
  if (k->kind < FUSER_BUNDLE_COLLECTIVE_ALL_REDUCE ||
      k->kind > FUSER_BUNDLE_COLLECTIVE_ALL_TO_ALL)
    return bad(r, "unknown collective kind %u (1 ALL_REDUCE, 2 ALL_GATHER, "
                  "3 REDUCE_SCATTER, 4 SLICE, 5 ALL_TO_ALL)",
               (unsigned)k->kind);
  const char *kind = collective_name(k->kind);
  bool reduces = k->kind == FUSER_BUNDLE_COLLECTIVE_ALL_REDUCE ||
                 k->kind == FUSER_BUNDLE_COLLECTIVE_REDUCE_SCATTER;
  if (reduces && (k->reduction < FUSER_BUNDLE_REDUCTION_SUM ||
                  k->reduction > FUSER_BUNDLE_REDUCTION_AVG))
    return bad(r, "unknown reduction %u of %s (1 sum, 2 prod, 3 max, 4 min, "
                  "5 avg)",
               (unsigned)k->reduction, kind);
  if (!reduces && k->reduction != 0)
    return bad(r, "reduction %u with %s, which does not reduce (the field "
                  "is 0 but for ALL_REDUCE and REDUCE_SCATTER)",
               (unsigned)k->reduction, kind);
  if (k->dtype < FUSER_DTYPE_I1 || k->dtype > FUSER_DTYPE_F8E8M0FNU)
    return bad(r, "unknown dtype %u", (unsigned)k->dtype);
  const char *dtype = fuser_dtype_name((fuser_dtype)k->dtype);
  if (reduces && is_fp8(k->dtype))
    return bad(r, "%s of %s values: fp8 is not reduced (NCCL has no fp8 "
                  "reduction); reduce in a wider dtype, or gather the values",
               kind, dtype);
  if (k->reduction == FUSER_BUNDLE_REDUCTION_AVG && !is_float(k->dtype))
    return bad(r, "avg of %s values: avg is for f16, bf16, f32 and f64 (an "
                  "integer average would round)",
               dtype);
  uint32_t axes = f->grid->axes;
  if (k->group == 0)
    return bad(r, "group 0: a collective is among the devices of at least "
                  "one grid axis");
  if (k->group & ~grid_axes_mask(axes))
    return bad(r, "group 0x%x names an axis the grid lacks (its axes are "
                  "mask 0x%x)",
               (unsigned)k->group, grid_axes_mask(axes));
  uint32_t nio = f->num_args + f->num_results;
  uint32_t nbuf = nio + f->num_inter;
  const char *const names[2] = {"SRC", "DST"};
  const uint32_t bufs[2] = {k->src, k->dst};
  for (int q = 0; q < 2; q++) {
    if (bufs[q] >= nbuf)
      return bad(r,
                 "buffer %s %u out of range (the fusion has %u buffers: %u "
                 "arguments, %u results, %u intermediates)",
                 names[q], bufs[q], nbuf, f->num_args, f->num_results,
                 f->num_inter);
    if (bufs[q] >= nio && !allocated[bufs[q] - nio])
      return bad(r, "%s is intermediate buffer %u, used before its ALLOC",
                 names[q], bufs[q]);
  }
  char what[160];
  fr_buffer_name(f, k->dst, what, sizeof what);
  if (k->src == k->dst)
    return bad(r, "SRC and DST are both buffer %u (%s): a collective does "
                  "not run in place",
               k->dst, what);
  if (k->dst < f->num_args)
    return bad(r,
               "DST is buffer %u, %s: a collective writes DST, so it is a "
               "result or an intermediate (arguments are read-only)",
               k->dst, what);
  if (!is_reg(k->count, f->num_regs))
    return bad(r, "register %u out of range in field count (plan has %u "
                  "registers)",
               k->count, f->num_regs);
  if (u64_at(r, o + FUSER_BUNDLE_C_RESERVED) != 0)
    return bad(r, "the reserved field at offset %d of its record is not 0",
               FUSER_BUNDLE_C_RESERVED);
  return NULL;
}

/* Registers start at 0, but a plan the compiler writes never reads one
 * before an earlier instruction has set it (the plan is straight-line SSA):
 * such a read is damage or a crafted plan, e.g. a size check made to read
 * a register that holds something else. */
static fuser_error *check_reads(reader *r, const fuser_fusion *f,
                                const fr_instr *in,
                                const unsigned char *written) {
#define READ(reg, what)                                                      \
  if ((reg) != FR_NONE && !written[reg])                                     \
    return bad(r, "%s reads register %u before any instruction writes it",  \
               what, (unsigned)(reg));
  switch (in->op) {
  case OP_CONST: case OP_DIM: case OP_ALIGNED: case OP_STRIDE:
    break;
  case OP_SELECT:
    READ(in->a, "operand a");
    READ(in->b, "operand b");
    READ((uint32_t)in->imm, "operand imm");
    break;
  case OP_ASSERT:
    READ(in->a, "operand a");
    READ(in->b, "operand b");
    READ(in->dst, "operand dst");
    break;
  case OP_ALLOC:
    READ(in->b, "operand b");
    break;
  case OP_RESULT_DIM:
    READ(in->a, "operand a");
    break;
  case OP_INDEX_CHECK:
  case OP_GRID:
    break; /* a is a buffer, imm a string or a record: no registers */
  case OP_COLLECTIVE:
    READ(in->coll->count, "field count");
    break;
  case OP_GEMM: {
    char what[64];
    for (int k = 0; k < FR_G_NUM_REGS; k++) {
      snprintf(what, sizeof what, "field %s", fr_gemm_reg_names[k]);
      READ(in->gemm->reg[k], what);
    }
    break;
  }
  case OP_LAUNCH: {
    READ(in->b, "the predicate (operand b)");
    const fr_launch *L = &f->launches[in->a];
    char what[160];
    for (int k = 0; k < 3; k++) {
      snprintf(what, sizeof what, "launch %u '%.64s': grid %c", in->a,
               L->kernel_name, "xyz"[k]);
      READ(L->grid[k], what);
      snprintf(what, sizeof what, "launch %u '%.64s': block %c", in->a,
               L->kernel_name, "xyz"[k]);
      READ(L->block[k], what);
    }
    snprintf(what, sizeof what, "launch %u '%.64s': shared memory", in->a,
             L->kernel_name);
    READ(L->smem, what);
    for (uint32_t p = 0; p < L->num_params; p++) {
      if (L->param_kinds[p] == PARAM_PTR) continue;
      snprintf(what, sizeof what, "launch %u '%.64s': parameter %u", in->a,
               L->kernel_name, p);
      READ(L->param_index[p], what);
    }
    break;
  }
  default: /* binary arithmetic and comparisons */
    READ(in->a, "operand a");
    READ(in->b, "operand b");
  }
#undef READ
  return NULL;
}

static fuser_error *parse_instrs(reader *r, fuser_fusion *f, uint64_t off,
                                 fr_gemm *gemms, fr_grid *grid,
                                 fr_collective *colls) {
  fuser_error *e = check_table(r, "instructions", off, f->num_instrs,
                               INSTR_REC);
  if (e) return e;
  char base[512];
  snprintf(base, sizeof base, "%s", r->loc);
  uint32_t nio = f->num_args + f->num_results;
  uint32_t nbuf = nio + f->num_inter;
  uint32_t nr = f->num_regs;
  /* Which intermediates are allocated so far, which registers written so
   * far, in program order; which result dims a RESULT_DIM computes. */
  unsigned char *allocated = calloc(f->num_inter ? f->num_inter : 1, 1);
  unsigned char *written = calloc(nr ? nr : 1, 1);
  unsigned char *result_dim = calloc(f->num_dyn ? f->num_dyn : 1, 1);
  if (!allocated || !written || !result_dim) {
    free(allocated);
    free(written);
    free(result_dim);
    return oom();
  }
  bool seen_launch = false;
  uint32_t grid_instr = FR_NONE; /* the GRID's instruction */
  f->needs_prepass = false;
  f->grid = NULL;
  for (uint32_t i = 0; i < f->num_instrs && !e; i++) {
    uint64_t o = off + (uint64_t)i * INSTR_REC;
    fr_instr *in = &f->instrs[i];
    in->op = u16_at(r, o + FUSER_BUNDLE_I_OPCODE);
    in->dst = u32_at(r, o + FUSER_BUNDLE_I_DST);
    in->a = u32_at(r, o + FUSER_BUNDLE_I_A);
    in->b = u32_at(r, o + FUSER_BUNDLE_I_B);
    in->imm = (int64_t)u64_at(r, o + FUSER_BUNDLE_I_IMM);
    in->msg = NULL;
    in->gemm = NULL;
    in->coll = NULL;
    if (in->op < OP_CONST || in->op > OP_LAST) {
      snprintf(r->loc, sizeof r->loc, "%.300s: instruction %u", base, i);
      e = bad(r, "unknown opcode %u", in->op);
      break;
    }
    snprintf(r->loc, sizeof r->loc, "%.300s: instruction %u (%s)", base, i,
             fr_op_names[in->op]);
    if (u16_at(r, o + FUSER_BUNDLE_I_RESERVED) != 0) {
      e = bad(r, "reserved field is not 0");
      break;
    }
#define REG(field)                                                           \
  if (!e && !is_reg(in->field, nr))                                          \
    e = bad(r, "register %u out of range in operand " #field                 \
               " (plan has %u registers)",                                   \
            in->field, nr);
#define OPT_REG(field)                                                       \
  if (!e && in->field != FR_NONE && !is_reg(in->field, nr))                  \
    e = bad(r, "register %u out of range in operand " #field                 \
               " (plan has %u registers)",                                   \
            in->field, nr);
    switch (in->op) {
    case OP_CONST:
      REG(dst);
      break;
    case OP_DIM:
      REG(dst);
      if (!e && in->a >= f->num_dyn)
        e = bad(r, "dynamic dim %u out of range (the fusion has %u)", in->a,
                f->num_dyn);
      break;
    case OP_STRIDE:
      REG(dst);
      if (!e) e = check_stride_operands(r, f, in);
      break;
    case OP_SELECT:
      REG(dst);
      REG(a);
      REG(b);
      if (!e && (in->imm < 0 || (uint64_t)in->imm >= nr))
        e = bad(r, "register %lld out of range in operand imm (plan has %u "
                   "registers)",
                (long long)in->imm, nr);
      break;
    case OP_ALIGNED:
      REG(dst);
      if (!e && in->a >= nbuf)
        e = bad(r, "buffer %u out of range (the fusion has %u buffers)", in->a,
                nbuf);
      else if (!e && in->a >= nio && !allocated[in->a - nio])
        e = bad(r, "intermediate buffer %u is used before its ALLOC", in->a);
      if (!e && in->imm <= 0)
        e = bad(r, "alignment %lld is not positive", (long long)in->imm);
      break;
    case OP_ASSERT:
      REG(a);
      OPT_REG(b);
      OPT_REG(dst);
      if (!e) {
        if (in->imm < 0 || (uint64_t)in->imm > 0xFFFFFFFFu)
          e = bad(r, "message: string reference %lld is outside the string "
                     "table (%llu bytes)",
                  (long long)in->imm, (unsigned long long)r->str_size);
        else
          e = get_string(r, "message", (uint32_t)in->imm, &in->msg);
      }
      break;
    case OP_ALLOC:
      REG(b);
      if (e) break;
      if (f->num_inter == 0)
        e = bad(r, "buffer %u is not an intermediate (the fusion has none)",
                in->a);
      else if (in->a < nio || in->a >= nbuf)
        e = bad(r,
                "buffer %u is not an intermediate (intermediates are %u .. "
                "%u)",
                in->a, nio, nbuf - 1);
      else if (allocated[in->a - nio])
        e = bad(r, "intermediate buffer %u is allocated twice", in->a);
      else if (in->imm != 0 && in->imm != FUSER_BUNDLE_ALLOC_ZEROED)
        e = bad(r, "intermediate buffer %u: ALLOC flags %lld (0 or 1, zeroed)",
                in->a, (long long)in->imm);
      else
        allocated[in->a - nio] = 1;
      break;
    case OP_INDEX_CHECK:
      e = check_index_word(r, f, i, in->a, nio, nbuf, allocated);
      if (!e) {
        if (in->imm < 0 || (uint64_t)in->imm > 0xFFFFFFFFu)
          e = bad(r, "sites: string reference %lld is outside the string "
                     "table (%llu bytes)",
                  (long long)in->imm, (unsigned long long)r->str_size);
        else
          e = get_string(r, "sites", (uint32_t)in->imm, &in->msg);
      }
      break;
    case OP_RESULT_DIM:
      REG(a);
      if (!e && in->b >= f->num_dyn)
        e = bad(r, "dynamic dim %u out of range (the fusion has %u)", in->b,
                f->num_dyn);
      else if (!e && f->dyn[in->b].tensor < f->num_args)
        e = bad(r, "dynamic dim %u belongs to an argument, not a result",
                in->b);
      break;
    case OP_GEMM:
      e = parse_gemm(r, f, in, allocated, gemms++);
      break;
    case OP_GRID:
      e = parse_grid(r, f, in, grid_instr, grid);
      if (!e) grid_instr = i;
      break;
    case OP_COLLECTIVE:
      e = parse_collective(r, f, in, allocated, colls++);
      break;
    case OP_LAUNCH:
      OPT_REG(b);
      if (!e && in->a >= f->num_launches)
        e = bad(r, "launch record %u out of range (the fusion has %u)", in->a,
                f->num_launches);
      if (!e) {
        const fr_launch *L = &f->launches[in->a];
        for (uint32_t p = 0; p < L->num_params && !e; p++) {
          uint32_t bi = L->param_index[p];
          if (L->param_kinds[p] == PARAM_PTR && bi >= nio &&
              !allocated[bi - nio])
            e = bad(r,
                    "launch %u '%s' uses intermediate buffer %u before its "
                    "ALLOC",
                    in->a, L->kernel_name, bi);
        }
      }
      break;
    default: /* binary arithmetic and comparisons */
      REG(dst);
      REG(a);
      REG(b);
      break;
    }
#undef REG
#undef OPT_REG
    if (!e) e = check_reads(r, f, in, written);
    if (e) break;
    switch (in->op) {
    case OP_ASSERT: case OP_ALLOC: case OP_LAUNCH: case OP_INDEX_CHECK:
    case OP_GEMM: case OP_GRID: case OP_COLLECTIVE:
      break;
    case OP_RESULT_DIM:
      result_dim[in->b] = 1;
      break;
    default:
      written[in->dst] = 1;
    }
    if (seen_launch && can_fail(in->op)) f->needs_prepass = true;
    /* A GEMM or a collective enqueues work like a launch: what can fail
     * after it must be found before it runs. */
    if (in->op == OP_LAUNCH || in->op == OP_GEMM || in->op == OP_COLLECTIVE)
      seen_launch = true;
  }
  /* Without a RESULT_DIM, the size a caller passes for a result's dynamic
   * dim would go unchecked: a buffer allocated for it could be smaller than
   * what the kernels write. */
  if (!e) snprintf(r->loc, sizeof r->loc, "%s", base);
  for (uint32_t k = 0; !e && k < f->num_dyn; k++)
    if (f->dyn[k].tensor >= f->num_args && !result_dim[k])
      e = bad(r,
              "no RESULT_DIM computes dynamic dim %u (dim %u of result %u "
              "'%s'), so the size a caller passes for it could not be checked",
              k, f->dyn[k].dim, f->dyn[k].tensor - f->num_args,
              f->tensors[f->dyn[k].tensor].name);
  free(allocated);
  free(written);
  free(result_dim);
  return e;
}

/* Bytes of per-call working memory: registers, buffers, the cache blocks
 * of the intermediates and of the GEMM workspace, the intermediates' sizes,
 * parameter pointers and i32 values, and the byte ranges of the arguments,
 * results and scratch (run.c's frame_init carves it up in this order). */
static size_t frame_bytes(const fuser_fusion *f) {
  size_t nio = (size_t)f->num_args + f->num_results;
  size_t nbuf = nio + f->num_inter;
  return align16(8 * (size_t)f->num_regs) + align16(8 * nbuf) +
         align16(sizeof(void *) * ((size_t)f->num_inter + 1)) +
         align16(8 * (size_t)f->num_inter) +
         align16(sizeof(void *) * (size_t)f->max_params) +
         align16(4 * (size_t)f->max_params) +
         align16(sizeof(fr_span) * (nio + 1));
}

static fuser_error *parse_fusion(reader *r, fuser_bundle *b, uint32_t i,
                                 uint64_t tab, module_scan *scans) {
  uint64_t o = tab + (uint64_t)i * FUSION_REC;
  fuser_fusion *f = &b->fusions[i];
  f->bundle = b;
  f->index = i;
  set_loc(r, "fusion %u", i);
  fuser_error *e =
      get_string(r, "name", u32_at(r, o + FUSER_BUNDLE_F_NAME), &f->name);
  if (e) return e;
  /* The compiler makes fusion names PTX identifiers (its kernels are named
   * after them); holding the runtime to that keeps every name it prints in
   * a message plain text. */
  if (!is_identifier(f->name, true)) {
    char q[FR_QUOTE_MAX];
    return bad(r, "name '%s' is not an identifier ([A-Za-z_$][A-Za-z0-9_$]*)",
               quote(f->name, q));
  }
  set_loc(r, "fusion %u '%.200s'", i, f->name);
  for (uint32_t j = 0; j < i; j++)
    if (strcmp(b->fusions[j].name, f->name) == 0)
      return bad(r, "fusion %u has the same name", j);
  f->num_args = u32_at(r, o + FUSER_BUNDLE_F_NUM_ARGS);
  f->num_results = u32_at(r, o + FUSER_BUNDLE_F_NUM_RESULTS);
  f->num_dyn = u32_at(r, o + FUSER_BUNDLE_F_NUM_DYN);
  f->num_regs = u32_at(r, o + FUSER_BUNDLE_F_NUM_REGS);
  f->num_instrs = u32_at(r, o + FUSER_BUNDLE_F_NUM_INSTRS);
  f->num_launches = u32_at(r, o + FUSER_BUNDLE_F_NUM_LAUNCHES);
  f->num_inter = u32_at(r, o + FUSER_BUNDLE_F_NUM_INTER);
  uint64_t toff = u64_at(r, o + FUSER_BUNDLE_F_TENSORS),
           ioff = u64_at(r, o + FUSER_BUNDLE_F_INSTRS),
           loff = u64_at(r, o + FUSER_BUNDLE_F_LAUNCHES);
  f->ptx_module = u32_at(r, o + FUSER_BUNDLE_F_PTX_MODULE);
  f->emu_module = u32_at(r, o + FUSER_BUNDLE_F_EMU_MODULE);

  if (f->num_regs > FR_MAX_REGS)
    return bad(r, "%u registers, more than the %u this runtime supports",
               f->num_regs, FR_MAX_REGS);
  if (f->num_inter > FR_MAX_INTERMEDIATES)
    return bad(r, "%u intermediate buffers, more than the %u this runtime "
                  "supports",
               f->num_inter, FR_MAX_INTERMEDIATES);
  if ((uint64_t)f->num_args + f->num_results > r->size / TENSOR_REC)
    return bad(r, "%u arguments and %u results can't fit in the file",
               f->num_args, f->num_results);
  if (f->ptx_module >= b->num_modules)
    return bad(r, "PTX module index %u out of range (the bundle has %u "
                  "modules)",
               f->ptx_module, b->num_modules);
  if (b->modules[f->ptx_module].kind != FUSER_MODULE_PTX)
    return bad(r, "PTX module index %u names module '%s' of kind %u, not "
                  "PTX (1)",
               f->ptx_module, b->modules[f->ptx_module].name,
               b->modules[f->ptx_module].kind);
  if (f->emu_module != FR_NONE) {
    if (f->emu_module >= b->num_modules)
      return bad(r, "emulation module index %u out of range (the bundle has "
                    "%u modules)",
                 f->emu_module, b->num_modules);
    if (b->modules[f->emu_module].kind != FUSER_MODULE_EMULATOR)
      return bad(r, "emulation module index %u names module '%s' of kind %u, "
                    "not emulator MLIR (2)",
                 f->emu_module, b->modules[f->emu_module].name,
                 b->modules[f->emu_module].kind);
  }
  /* Bounds of the arrays whose sizes the allocations below depend on. */
  e = check_table(r, "tensor records", toff,
                  (uint64_t)f->num_args + f->num_results, TENSOR_REC);
  if (!e) e = check_table(r, "instructions", ioff, f->num_instrs, INSTR_REC);
  if (!e)
    e = check_table(r, "launch records", loff, f->num_launches, LAUNCH_REC);
  if (e) return e;

  /* Sum of ranks and of parameter counts, and the numbers of GEMMs, GRIDs
   * (one is kept: a second is refused) and COLLECTIVEs, for one
   * allocation. */
  uint32_t nt = f->num_args + f->num_results;
  uint64_t total_rank = 0, param_bytes = 0, num_gemms = 0, num_grids = 0,
           num_colls = 0;
  for (uint32_t k = 0; k < f->num_instrs; k++) {
    uint16_t op =
        u16_at(r, ioff + (uint64_t)k * INSTR_REC + FUSER_BUNDLE_I_OPCODE);
    num_gemms += op == OP_GEMM;
    num_grids = num_grids || op == OP_GRID;
    num_colls += op == OP_COLLECTIVE;
  }
  for (uint32_t t = 0; t < nt; t++)
    total_rank += r->d[toff + (uint64_t)t * TENSOR_REC + FUSER_BUNDLE_T_RANK];
  for (uint32_t l = 0; l < f->num_launches; l++) {
    uint64_t np =
        u32_at(r, loff + (uint64_t)l * LAUNCH_REC + FUSER_BUNDLE_L_NUM_PARAMS);
    if (np > r->size / PARAM_REC) {
      set_loc(r, "fusion %u '%.200s': launch %u", i, f->name, l);
      return bad(r, "%llu parameter records can't fit in the file",
                 (unsigned long long)np);
    }
    param_bytes += align16(np) + 2 * align16(4 * np);
  }
  size_t bytes = align16(sizeof(fuser_tensor_info) * nt) +
                 align16(sizeof(uint64_t) * nt) +
                 align16(sizeof(uint32_t) * ((size_t)nt + 1)) +
                 align16(sizeof(fuser_dyn_dim_info) * f->num_dyn) +
                 2 * align16(8 * total_rank) + /* dims, then strides */
                 align16(sizeof(fr_instr) * (size_t)f->num_instrs) +
                 align16(sizeof(fr_launch) * (size_t)f->num_launches) +
                 align16(sizeof(fr_gemm) * (size_t)num_gemms) +
                 align16(sizeof(fr_grid) * (size_t)num_grids) +
                 align16(sizeof(fr_collective) * (size_t)num_colls) +
                 (size_t)param_bytes;
  if (f->num_dyn > total_rank)
    return bad(r, "the fusion says it has %u dynamic dims but its tensors "
                  "have %llu dims in all",
               f->num_dyn, (unsigned long long)total_rank);
  unsigned char *mem = calloc(1, bytes ? bytes : 1);
  if (!mem) return oom();
  /* The first pointer owns the block (freed in fr_bundle_free). */
  f->tensors = (fuser_tensor_info *)(void *)mem;
  unsigned char *p = mem + align16(sizeof(fuser_tensor_info) * nt);
  f->tensor_static_bytes = (uint64_t *)(void *)p;
  p += align16(sizeof(uint64_t) * nt);
  f->tensor_dyn_begin = (uint32_t *)(void *)p;
  p += align16(sizeof(uint32_t) * ((size_t)nt + 1));
  f->dyn = (fuser_dyn_dim_info *)(void *)p;
  p += align16(sizeof(fuser_dyn_dim_info) * f->num_dyn);
  int64_t *dims = (int64_t *)(void *)p;
  p += align16(8 * total_rank);
  int64_t *strides = (int64_t *)(void *)p;
  p += align16(8 * total_rank);
  f->instrs = (fr_instr *)(void *)p;
  p += align16(sizeof(fr_instr) * (size_t)f->num_instrs);
  f->launches = (fr_launch *)(void *)p;
  p += align16(sizeof(fr_launch) * (size_t)f->num_launches);
  fr_gemm *gemms = (fr_gemm *)(void *)p;
  p += align16(sizeof(fr_gemm) * (size_t)num_gemms);
  fr_grid *grid = (fr_grid *)(void *)p;
  p += align16(sizeof(fr_grid) * (size_t)num_grids);
  fr_collective *colls = (fr_collective *)(void *)p;
  p += align16(sizeof(fr_collective) * (size_t)num_colls);

  e = parse_tensors(r, f, toff, &dims, &strides);
  if (e) return e;

  module_scan *s = &scans[f->ptx_module];
  if (!s->scanned) {
    const fr_module *m = &b->modules[f->ptx_module];
    s->num_entries = fr_ptx_scan(m->data, m->size - 1, &s->entries);
    if (s->num_entries < 0) {
      s->num_entries = 0;
      return oom();
    }
    s->scanned = true;
  }
  e = parse_launches(r, f, loff, s, &p);
  if (e) return e;
  e = parse_instrs(r, f, ioff, gemms, grid, colls);
  if (e) return e;
  f->frame_bytes = frame_bytes(f);
  r->loc[0] = 0;
  return NULL;
}

/* Builds each module's kernel table: the distinct kernel names launched by
 * the fusions that use it with the runtime's driver kind, and points each
 * launch record at its entry. */
static fuser_error *link_kernels(fuser_bundle *b, uint32_t kind) {
  uint64_t *cap = calloc(b->num_modules ? b->num_modules : 1, sizeof *cap);
  if (!cap) return oom();
  for (uint32_t i = 0; i < b->num_fusions; i++) {
    fuser_fusion *f = &b->fusions[i];
    uint32_t mi = kind == FUSER_MODULE_PTX ? f->ptx_module : f->emu_module;
    f->module = mi == FR_NONE ? NULL : &b->modules[mi];
    if (f->module) cap[mi] += f->num_launches;
  }
  for (uint32_t mi = 0; mi < b->num_modules; mi++) {
    if (!cap[mi]) continue;
    b->modules[mi].kernels = calloc(cap[mi], sizeof(fr_kernel));
    if (!b->modules[mi].kernels) {
      free(cap);
      return oom();
    }
  }
  free(cap);
  for (uint32_t i = 0; i < b->num_fusions; i++) {
    fuser_fusion *f = &b->fusions[i];
    fr_module *m = f->module;
    if (!m) continue;
    for (uint32_t l = 0; l < f->num_launches; l++) {
      fr_launch *L = &f->launches[l];
      uint32_t k;
      for (k = 0; k < m->num_kernels; k++)
        if (strcmp(m->kernels[k].name, L->kernel_name) == 0) break;
      if (k == m->num_kernels) {
        m->num_kernels = k + 1;
        m->kernels[k].name = L->kernel_name;
        m->kernels[k].function = NULL;
        m->kernels[k].param_sizes = L->param_sizes;
        m->kernels[k].num_params = L->num_params;
        atomic_init(&m->kernels[k].max_dynamic_shared, 48u * 1024u);
      }
      L->kernel = &m->kernels[k];
    }
  }
  return NULL;
}

void fr_bundle_free(fuser_bundle *b) {
  if (!b) return;
  if (b->fusions)
    for (uint32_t i = 0; i < b->num_fusions; i++) free(b->fusions[i].tensors);
  if (b->modules)
    for (uint32_t i = 0; i < b->num_modules; i++) free(b->modules[i].kernels);
  free(b->fusions);
  free(b->modules);
  free(b->data);
  free(b);
}

fuser_error *fr_bundle_parse(fuser_rt *rt, const void *data, size_t size,
                             fuser_bundle **out) {
  reader r;
  memset(&r, 0, sizeof r);
  r.d = data; /* non-NULL when size > 0: fuser_bundle_load checked */
  r.size = size;
  /* The magic and the version first: an older format's header may be
   * shorter, and a file of another version deserves that message rather
   * than one about its bytes. */
  if (size >= FUSER_BUNDLE_MAGIC_SIZE &&
      memcmp(r.d + FUSER_BUNDLE_H_MAGIC, FUSER_BUNDLE_MAGIC,
             FUSER_BUNDLE_MAGIC_SIZE) != 0)
    return bad(&r, "bad magic (not a fuser bundle)");
  if (size >= FUSER_BUNDLE_H_VERSION + 4) {
    uint32_t version = u32_at(&r, FUSER_BUNDLE_H_VERSION);
    /* Every version but this one is refused: a reader that skipped the
     * checksum for older files would let a flipped version byte past it. */
    if (version == 1)
      return bad(&r, "format version 1 is no longer read (it has no "
                     "checksum): recompile the fusion with this fuser "
                     "(fuserc compile) to get format version %d",
                 FUSER_BUNDLE_FORMAT_VERSION);
    if (version != FUSER_BUNDLE_FORMAT_VERSION)
      return bad(&r, "format version %u is not supported (this runtime reads "
                     "version %d)",
                 version, FUSER_BUNDLE_FORMAT_VERSION);
  }
  if (size < FUSER_BUNDLE_HEADER_SIZE)
    return bad(&r, "the file is %zu bytes, shorter than the %d-byte header",
               size, FUSER_BUNDLE_HEADER_SIZE);
  if (u32_at(&r, FUSER_BUNDLE_H_HEADER_SIZE) != FUSER_BUNDLE_HEADER_SIZE)
    return bad(&r, "header size %u, expected %d",
               u32_at(&r, FUSER_BUNDLE_H_HEADER_SIZE),
               FUSER_BUNDLE_HEADER_SIZE);
  if (u64_at(&r, FUSER_BUNDLE_H_FILE_SIZE) != size)
    return bad(&r, "the header says the file is %llu bytes but it is %zu",
               (unsigned long long)u64_at(&r, FUSER_BUNDLE_H_FILE_SIZE), size);

  /* Validate a private copy, so that the bytes checked are the bytes used
   * (the caller may free or change theirs); pointers point into it. */
  unsigned char *copy = malloc(size);
  if (!copy) return oom();
  memcpy(copy, data, size);
  r.d = copy;
  /* Accidental corruption (a bad disk, a truncated copy, a flipped bit) is
   * caught here, before any field is trusted. */
  uint32_t stored = u32_at(&r, FUSER_BUNDLE_H_CHECKSUM);
  uint32_t computed = fuser_bundle_checksum(copy, size);
  if (stored != computed) {
    free(copy);
    return bad(&r, "checksum mismatch: the header says 0x%08x but the "
                   "file's bytes give 0x%08x (CRC-32); the file is "
                   "corrupted or was changed after it was written",
               stored, computed);
  }
  fuser_error *e = NULL;
  uint32_t nf = u32_at(&r, FUSER_BUNDLE_H_NUM_FUSIONS),
           nm = u32_at(&r, FUSER_BUNDLE_H_NUM_MODULES);
  uint64_t ftab = u64_at(&r, FUSER_BUNDLE_H_FUSION_TABLE),
           mtab = u64_at(&r, FUSER_BUNDLE_H_MODULE_TABLE);
  r.str_off = u64_at(&r, FUSER_BUNDLE_H_STRING_TABLE);
  r.str_size = u64_at(&r, FUSER_BUNDLE_H_STRING_TABLE_SIZE);
  /* Minor versions add what an older reader refuses by name (a GEMM); a
   * newer one than ours may hold what we would misread. */
  r.minor = u32_at(&r, FUSER_BUNDLE_H_MINOR);
  if (r.minor > FUSER_BUNDLE_FORMAT_MINOR)
    e = bad(&r, "format version %d.%u is newer than this runtime, which "
                "reads versions %d.0 to %d.%d: update the fuser runtime "
                "(libfuser_runtime) to load it",
            FUSER_BUNDLE_FORMAT_VERSION, r.minor, FUSER_BUNDLE_FORMAT_VERSION,
            FUSER_BUNDLE_FORMAT_VERSION, FUSER_BUNDLE_FORMAT_MINOR);
  if (!e) e = check_table(&r, "fusion table", ftab, nf, FUSION_REC);
  if (!e) e = check_table(&r, "module table", mtab, nm, MODULE_REC);
  if (!e && (r.str_off > r.size || r.str_size > r.size - r.str_off))
    e = bad(&r, "string table at offset %llu of %llu bytes runs past the "
                "end of the file (%zu bytes)",
            (unsigned long long)r.str_off, (unsigned long long)r.str_size,
            size);
  if (!e && (r.str_size == 0 || r.d[r.str_off + r.str_size - 1] != 0))
    e = bad(&r, "the string table does not end with a NUL byte");
  if (e) {
    free(copy);
    return e;
  }

  fuser_bundle *b = calloc(1, sizeof *b);
  if (!b) {
    free(copy);
    return oom();
  }
  b->rt = rt;
  b->data = copy;
  b->size = size;
  b->num_fusions = nf;
  b->num_modules = nm;
  b->fusions = calloc(nf ? nf : 1, sizeof *b->fusions);
  b->modules = calloc(nm ? nm : 1, sizeof *b->modules);
  module_scan *scans = calloc(nm ? nm : 1, sizeof *scans);
  if (!b->fusions || !b->modules || !scans) {
    free(scans);
    fr_bundle_free(b);
    return oom();
  }
  e = parse_modules(&r, b, mtab);
  for (uint32_t i = 0; i < nf && !e; i++) e = parse_fusion(&r, b, i, ftab, scans);
  for (uint32_t i = 0; i < nm; i++)
    fr_ptx_entries_free(scans[i].entries, scans[i].num_entries);
  free(scans);
  if (!e) e = link_kernels(b, rt->drv->module_kind);
  if (e) {
    fr_bundle_free(b);
    return e;
  }
  /* The cubins this runtime's device loads in place of their PTX. */
  if (rt->device_sm)
    for (uint32_t i = 0; i < nm; i++)
      if (b->modules[i].kind == FUSER_BUNDLE_MODULE_CUBIN &&
          b->modules[i].target == rt->device_sm)
        b->modules[b->modules[i].cubin_of].cubin = i;
  *out = b;
  return NULL;
}

/* ---- the module cache -------------------------------------------------- */

/* Loads `image` (module m's PTX, or its cubin) and resolves m's kernels in
 * it; a cubin's kernels must take the parameters m's launches pass. On
 * failure nothing stays loaded and m's functions are cleared. */
static fuser_error *load_kernels(fuser_rt *rt, const fr_module *image,
                                 fr_module *m, void **out) {
  void *handle = NULL;
  fuser_error *e =
      rt->drv->module_load(rt->dctx, image->data, image->size, image->name, &handle);
  if (e) return fr_error_wrap(e, "loading module '%s'", image->name);
  bool is_cubin = image->kind == FUSER_BUNDLE_MODULE_CUBIN;
  for (uint32_t k = 0; k < m->num_kernels && !e; k++) {
    fr_kernel *K = &m->kernels[k];
    e = rt->drv->function_get(rt->dctx, handle, K->name, &K->function);
    if (!e && is_cubin)
      e = rt->cubin_params(rt->dctx, K->function, K->param_sizes, K->num_params);
    if (e)
      e = fr_error_wrap(e, "kernel '%s' of module '%s'", K->name, image->name);
  }
  if (e) {
    for (uint32_t k = 0; k < m->num_kernels; k++) m->kernels[k].function = NULL;
    rt->drv->module_unload(rt->dctx, handle);
    return e;
  }
  *out = handle;
  return NULL;
}

fuser_error *fr_module_ensure_slow(const fuser_fusion *f, bool entered) {
  fuser_rt *rt = f->bundle->rt;
  fr_module *m = f->module;
  if (!m) {
    /* Say which module is missing and, for the emulator's, why a bundle
     * lacks it: the user's own compile option. */
    uint32_t kind = rt->drv->module_kind;
    bool emu = kind == FUSER_MODULE_EMULATOR;
    return fuser_error_create(
        FUSER_ERROR_NOT_FOUND,
        "fusion '%s': the bundle has no %s for the '%s' driver (module kind "
        "%u)%s",
        f->name,
        emu ? "emulation module (the kernels' MLIR)"
            : kind == FUSER_MODULE_PTX ? "PTX module" : "module",
        rt->drv->name ? rt->drv->name : "?", kind,
        emu ? ": it was compiled without emulation data (fuserc compile "
              "--no-emulation, fuserCompileOptionsSetEmulation(options, "
              "false))"
            : "");
  }
  pthread_mutex_lock(&rt->module_lock);
  fuser_error *e = NULL;
  if (atomic_load_explicit(&m->ready, memory_order_relaxed) == 1) goto done;
  if (!entered && (e = fr_enter(rt))) goto done;
  void *handle = NULL;
  /* The cubin for this device's SM first, when the bundle has one: no PTX
   * JIT. Should the driver refuse it (a cubin newer than the driver), or
   * a kernel of it take other parameters than the PTX's, the PTX is
   * loaded instead, and only if that fails too is the call failed, with
   * both reasons. */
  const fr_module *cubin =
      m->cubin != FR_NONE ? &f->bundle->modules[m->cubin] : NULL;
  fuser_error *cubin_error = cubin ? load_kernels(rt, cubin, m, &handle) : NULL;
  if (!cubin || cubin_error) {
    e = load_kernels(rt, m, m, &handle);
    if (e && cubin_error) {
      fuser_error *both = fuser_error_create(
          fuser_error_code_of(e), "%s (its cubin '%s' failed first: %s)",
          fuser_error_message(e), cubin->name, fuser_error_message(cubin_error));
      fuser_error_destroy(e);
      e = both;
    }
  }
  fuser_error_destroy(cubin_error);
  if (e) {
    e = fr_error_wrap(e, "fusion '%s'", f->name);
  } else {
    m->handle = handle;
    atomic_store_explicit(&m->ready, 1, memory_order_release);
  }
  if (!entered) fr_leave(rt);
done:
  pthread_mutex_unlock(&rt->module_lock);
  return e;
}

/* ---- public: loading --------------------------------------------------- */

fuser_error *fuser_bundle_load(fuser_rt *rt, const void *data, size_t size,
                               fuser_bundle **out_bundle) {
  FR_CHECK_ARG(rt, "fuser_bundle_load", "runtime");
  FR_CHECK_ARG(out_bundle, "fuser_bundle_load", "out_bundle");
  if (!data && size)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuser_bundle_load: NULL data (%zu bytes)",
                              size);
  fuser_bundle *b;
  fuser_error *e = fr_bundle_parse(rt, data, size, &b);
  if (e) return e;
  fr_rt_retain(rt);
  *out_bundle = b;
  return NULL;
}

fuser_error *fuser_bundle_load_file(fuser_rt *rt, const char *path,
                                    fuser_bundle **out_bundle) {
  FR_CHECK_ARG(rt, "fuser_bundle_load_file", "runtime");
  FR_CHECK_ARG(path, "fuser_bundle_load_file", "path");
  FR_CHECK_ARG(out_bundle, "fuser_bundle_load_file", "out_bundle");
  FILE *fp = fopen(path, "rb");
  if (!fp)
    return fuser_error_create(FUSER_ERROR_IO, "cannot open bundle '%s': %s",
                              path, strerror(errno));
  unsigned char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      size_t ncap = cap ? cap * 2 : 1 << 16;
      unsigned char *nb = realloc(buf, ncap);
      if (!nb) {
        free(buf);
        fclose(fp);
        return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                                  "out of memory reading bundle '%s'", path);
      }
      buf = nb;
      cap = ncap;
    }
    size_t n = fread(buf + len, 1, cap - len, fp);
    len += n;
    if (n == 0) break;
  }
  int failed = ferror(fp);
  fclose(fp);
  if (failed) {
    free(buf);
    return fuser_error_create(FUSER_ERROR_IO, "cannot read bundle '%s'", path);
  }
  fuser_error *e = fuser_bundle_load(rt, buf, len, out_bundle);
  free(buf);
  if (e) return fr_error_wrap(e, "%s", path);
  return NULL;
}

void fuser_bundle_destroy(fuser_bundle *b) {
  if (!b) return;
  fuser_rt *rt = b->rt;
  bool any = false;
  for (uint32_t i = 0; i < b->num_modules; i++)
    if (atomic_load(&b->modules[i].ready)) any = true;
  if (any) {
    fuser_error *e = fr_enter(rt);
    if (!e) {
      /* Kernels of this bundle may still run: wait before unloading. */
      uint64_t begin = fr_alloc_sync_begin(rt);
      fuser_error *se = rt->drv->synchronize(rt->dctx, NULL, 1);
      if (!se) fr_alloc_synchronized(rt, NULL, true, begin);
      fuser_error_destroy(se);
      for (uint32_t i = 0; i < b->num_modules; i++)
        if (atomic_load(&b->modules[i].ready))
          rt->drv->module_unload(rt->dctx, b->modules[i].handle);
      fr_leave(rt);
    }
    fuser_error_destroy(e);
  }
  fr_bundle_free(b);
  fr_rt_release(rt);
}

/* ---- public: introspection ---------------------------------------------- */

size_t fuser_bundle_num_fusions(const fuser_bundle *b) {
  return b ? b->num_fusions : 0;
}

const fuser_fusion *fuser_bundle_get_fusion(const fuser_bundle *b, size_t i) {
  return b && i < b->num_fusions ? &b->fusions[i] : NULL;
}

const fuser_fusion *fuser_bundle_find_fusion(const fuser_bundle *b,
                                             const char *name) {
  if (!b || !name) return NULL;
  for (uint32_t i = 0; i < b->num_fusions; i++)
    if (strcmp(b->fusions[i].name, name) == 0) return &b->fusions[i];
  return NULL;
}

const char *fuser_fusion_name(const fuser_fusion *f) { return f ? f->name : ""; }
size_t fuser_fusion_num_args(const fuser_fusion *f) {
  return f ? f->num_args : 0;
}
size_t fuser_fusion_num_results(const fuser_fusion *f) {
  return f ? f->num_results : 0;
}
size_t fuser_fusion_num_dyn_dims(const fuser_fusion *f) {
  return f ? f->num_dyn : 0;
}

const fuser_tensor_info *fuser_fusion_tensor(const fuser_fusion *f, size_t i) {
  return f && i < (size_t)f->num_args + f->num_results ? &f->tensors[i] : NULL;
}
const fuser_tensor_info *fuser_fusion_arg(const fuser_fusion *f, size_t i) {
  return f && i < f->num_args ? &f->tensors[i] : NULL;
}
const fuser_tensor_info *fuser_fusion_result(const fuser_fusion *f, size_t i) {
  return f && i < f->num_results ? &f->tensors[f->num_args + i] : NULL;
}
const fuser_dyn_dim_info *fuser_fusion_dyn_dim(const fuser_fusion *f,
                                               size_t i) {
  return f && i < f->num_dyn ? &f->dyn[i] : NULL;
}

int fuser_fusion_grid(const fuser_fusion *f, fuser_grid_info *out) {
  if (!f || !f->grid || !out) return 0;
  out->num_axes = f->grid->axes;
  for (int k = 0; k < FUSER_BUNDLE_GRID_MAX_AXES; k++)
    out->sizes[k] = f->grid->sizes[k];
  out->num_devices = f->grid->devices;
  out->splits = f->grid->splits;
  return 1;
}

size_t fuser_dtype_size(fuser_dtype d) {
  switch (d) {
  case FUSER_DTYPE_I1: case FUSER_DTYPE_I8: return 1;
  case FUSER_DTYPE_F8E4M3FN: case FUSER_DTYPE_F8E5M2: case FUSER_DTYPE_F8E8M0FNU: return 1;
  case FUSER_DTYPE_F16: case FUSER_DTYPE_BF16: return 2;
  case FUSER_DTYPE_I32: case FUSER_DTYPE_F32: return 4;
  case FUSER_DTYPE_I64: case FUSER_DTYPE_F64: return 8;
  }
  return 0;
}

const char *fuser_dtype_name(fuser_dtype d) {
  switch (d) {
  case FUSER_DTYPE_I1: return "i1";
  case FUSER_DTYPE_I8: return "i8";
  case FUSER_DTYPE_I32: return "i32";
  case FUSER_DTYPE_I64: return "i64";
  case FUSER_DTYPE_F16: return "f16";
  case FUSER_DTYPE_BF16: return "bf16";
  case FUSER_DTYPE_F32: return "f32";
  case FUSER_DTYPE_F64: return "f64";
  case FUSER_DTYPE_F8E4M3FN: return "f8E4M3FN";
  case FUSER_DTYPE_F8E5M2: return "f8E5M2";
  case FUSER_DTYPE_F8E8M0FNU: return "f8E8M0FNU";
  }
  return "?";
}

fuser_error *fuser_fusion_tensor_bytes(const fuser_fusion *f, size_t i,
                                       const int64_t *dyn_dims,
                                       size_t num_dyn_dims,
                                       uint64_t *out_bytes) {
  FR_CHECK_ARG(f, "fuser_fusion_tensor_bytes", "fusion");
  FR_CHECK_ARG(out_bytes, "fuser_fusion_tensor_bytes", "out_bytes");
  const fuser_tensor_info *t = fuser_fusion_tensor(f, i);
  if (!t)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuser_fusion_tensor_bytes: fusion '%s' has no "
                              "tensor %zu (it has %u)",
                              f->name, i, f->num_args + f->num_results);
  if (f->num_dyn && !dyn_dims)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuser_fusion_tensor_bytes: NULL dyn_dims "
                              "(fusion '%s' takes %u dynamic dims)",
                              f->name, f->num_dyn);
  if (num_dyn_dims != f->num_dyn)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fusion '%s' takes %u dynamic dims, got %zu",
                              f->name, f->num_dyn, num_dyn_dims);
  uint64_t n = fuser_dtype_size(t->dtype);
  for (uint32_t k = 0; k < f->num_dyn; k++) {
    if (f->dyn[k].tensor != i) continue;
    if (dyn_dims[k] < 0)
      return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                                "fusion '%s': dynamic dim %u is %lld", f->name,
                                k, (long long)dyn_dims[k]);
  }
  uint32_t k = 0;
  for (uint32_t t2 = 0; t2 < i; t2++)
    for (uint32_t d = 0; d < f->tensors[t2].rank; d++)
      if (f->tensors[t2].dims[d] == -1) k++;
  for (uint32_t d = 0; d < t->rank; d++) {
    int64_t v = t->dims[d] == -1 ? dyn_dims[k++] : t->dims[d];
    if (__builtin_mul_overflow(n, (uint64_t)v, &n))
      return fuser_error_create(FUSER_ERROR_OUT_OF_RANGE,
                                "fusion '%s': tensor '%s' is too large",
                                f->name, t->name);
  }
  *out_bytes = n;
  return NULL;
}
