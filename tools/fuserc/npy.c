/* npy.c - reading and writing NumPy .npy files. See npy.h and docs/npy.md.
 *
 * Plain C11, no POSIX. The parser works on a (pointer, length) pair and
 * never relies on NUL termination; every read is bounds-checked, every size
 * computation is overflow-checked, and nothing is allocated until the input
 * is known to hold all the bytes the header promises.
 */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- dtypes ---------------------------------------------------------------- */

/* The dtype a file holds: one of fuser's, or uint16 (bf16 bits, maybe), or
 * uint8 (fp8 bits, maybe). */
#define FILE_U16 100
#define FILE_U8 101

typedef struct {
  const char *name;   /* fuser's name */
  size_t size;        /* bytes per element */
  const char *descr;  /* what we write */
  const char *numpy;  /* NumPy's name of what the file holds */
} dtype_info;

static const dtype_info kTypes[] = {
    {"invalid", 0, NULL, NULL},        {"i1", 1, "|b1", "bool"},
    {"i8", 1, "|i1", "int8"},          {"i32", 4, "<i4", "int32"},
    {"i64", 8, "<i8", "int64"},        {"f16", 2, "<f2", "float16"},
    {"bf16", 2, "<u2", "uint16"},      {"f32", 4, "<f4", "float32"},
    {"f64", 8, "<f8", "float64"},      {"f8E4M3FN", 1, "|u1", "uint8"},
    {"f8E5M2", 1, "|u1", "uint8"},     {"f8E8M0FNU", 1, "|u1", "uint8"},
};

static int valid_dtype(int t) { return t >= NPY_I1 && t <= NPY_F8E8M0FNU; }

/* The file dtype that holds `t`'s bit patterns (NumPy has no bf16 or fp8),
 * or 0 when NumPy has `t` itself. */
static int bits_file_type(int t) {
  if (t == NPY_BF16) return FILE_U16;
  if (t == NPY_F8E4M3FN || t == NPY_F8E5M2 || t == NPY_F8E8M0FNU) return FILE_U8;
  return 0;
}

const char *npy_dtype_name(npy_dtype dtype) {
  return kTypes[valid_dtype((int)dtype) ? (int)dtype : 0].name;
}

size_t npy_dtype_size(npy_dtype dtype) {
  return kTypes[valid_dtype((int)dtype) ? (int)dtype : 0].size;
}

const char *npy_dtype_descr(npy_dtype dtype) {
  return kTypes[valid_dtype((int)dtype) ? (int)dtype : 0].descr;
}

/* ---- messages -------------------------------------------------------------- */

typedef struct {
  const char *name;
  char *err;
  size_t errlen;
} ctx;

#if defined(__GNUC__) || defined(__clang__)
#define NPY_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define NPY_PRINTF(f, a)
#endif

/* Writes "name: <message>" to the error buffer; returns -1. */
static int fail(const ctx *c, const char *fmt, ...) NPY_PRINTF(2, 3);
static int fail(const ctx *c, const char *fmt, ...) {
  if (c->err && c->errlen > 0) {
    int n = snprintf(c->err, c->errlen, "%s: ", c->name ? c->name : "<npy>");
    if (n < 0) {
      c->err[0] = '\0';
    } else if ((size_t)n < c->errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  return -1;
}

/* Copies n bytes of untrusted text into dst (capacity cap >= 8) for a
 * message: printable ASCII as is, other bytes as \xNN, cut with "..." when
 * long. Always NUL-terminates. */
static void printable(char *dst, size_t cap, const unsigned char *s,
                      size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = s[i];
    size_t need = (ch >= 0x20 && ch < 0x7f && ch != '\\') ? 1 : 4;
    if (o + need + 4 > cap) { /* room for "..." and the NUL */
      memcpy(dst + o, "...", 3);
      o += 3;
      break;
    }
    if (need == 1) {
      dst[o++] = (char)ch;
    } else {
      dst[o++] = '\\';
      dst[o++] = 'x';
      dst[o++] = hex[ch >> 4];
      dst[o++] = hex[ch & 15];
    }
  }
  dst[o] = '\0';
}

/* Formats a shape as Python does: "()", "(5,)", "(2, 3)". Returns the
 * length, or 0 if it does not fit in cap (then dst holds a cut prefix). */
static size_t format_shape(char *dst, size_t cap, int rank,
                           const int64_t *shape) {
  size_t o = 0;
  int n = snprintf(dst, cap, "(");
  if (n < 0 || (size_t)n >= cap) return 0;
  o = (size_t)n;
  for (int i = 0; i < rank; i++) {
    n = snprintf(dst + o, cap - o, i == 0 ? "%lld" : ", %lld",
                 (long long)shape[i]);
    if (n < 0 || (size_t)n >= cap - o) return 0;
    o += (size_t)n;
  }
  n = snprintf(dst + o, cap - o, rank == 1 ? ",)" : ")");
  if (n < 0 || (size_t)n >= cap - o) return 0;
  return o + (size_t)n;
}

/* ---- the header dictionary ------------------------------------------------- */

typedef struct {
  const unsigned char *beg, *p, *end;
  const ctx *c;
} lexer;

static int at_end(const lexer *l) { return l->p >= l->end; }

/* Python's whitespace, plus the newlines that are free inside brackets. */
static void skip_ws(lexer *l) {
  while (!at_end(l) && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' ||
                        *l->p == '\r' || *l->p == '\f'))
    l->p++;
}

/* Describes the next character for "found ..." in messages. */
static const char *found(const lexer *l, char *buf, size_t cap) {
  if (at_end(l)) return "the end of the header";
  unsigned char ch = *l->p;
  if (ch >= 0x20 && ch < 0x7f)
    snprintf(buf, cap, "'%c'", (char)ch);
  else
    snprintf(buf, cap, "byte 0x%02x", (unsigned)ch);
  return buf;
}

static int syntax(const lexer *l, const char *what) {
  char buf[16];
  return fail(l->c, "malformed header: expected %s at header byte %zu, found %s",
              what, (size_t)(l->p - l->beg), found(l, buf, sizeof buf));
}

static int expect_char(lexer *l, char ch, const char *what) {
  skip_ws(l);
  if (at_end(l) || *l->p != (unsigned char)ch) return syntax(l, what);
  l->p++;
  return 0;
}

/* A Python string literal in single or double quotes, without escapes. */
static int parse_string(lexer *l, const unsigned char **s, size_t *n,
                        const char *what) {
  skip_ws(l);
  if (at_end(l) || (*l->p != '\'' && *l->p != '"')) return syntax(l, what);
  unsigned char q = *l->p++;
  const unsigned char *start = l->p;
  while (!at_end(l) && *l->p != q) {
    if (*l->p == '\\')
      return fail(l->c,
                  "malformed header: escape sequences in strings are not "
                  "supported (header byte %zu)",
                  (size_t)(l->p - l->beg));
    if (*l->p == '\n' || *l->p == '\r') break;
    l->p++;
  }
  if (at_end(l) || *l->p != q)
    return fail(l->c,
                "malformed header: unterminated string starting at header "
                "byte %zu",
                (size_t)(start - 1 - l->beg));
  *s = start;
  *n = (size_t)(l->p - start);
  l->p++;
  return 0;
}

static int is_ident(unsigned char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || ch == '_';
}

static int parse_bool(lexer *l, int *v) {
  skip_ws(l);
  const unsigned char *s = l->p;
  while (!at_end(l) && is_ident(*l->p)) l->p++;
  size_t n = (size_t)(l->p - s);
  if (n == 4 && memcmp(s, "True", 4) == 0) {
    *v = 1;
    return 0;
  }
  if (n == 5 && memcmp(s, "False", 5) == 0) {
    *v = 0;
    return 0;
  }
  l->p = s;
  return syntax(l, "True or False as the value of 'fortran_order'");
}

/* A tuple of non-negative decimal integers: (), (5,), (2, 3), (2, 3,).
 * Python 2's long suffix (3L) is accepted, as NumPy does for old files. */
static int parse_shape(lexer *l, npy_array *a) {
  skip_ws(l);
  if (at_end(l) || *l->p != '(')
    return syntax(l, "a tuple such as (2, 3) as the value of 'shape'");
  l->p++;
  int rank = 0, comma = 0;
  for (;;) {
    skip_ws(l);
    if (!at_end(l) && *l->p == ')') {
      if (rank == 1 && !comma)
        return fail(l->c,
                    "malformed header: 'shape' is (%lld), which is a number, "
                    "not a tuple; a 1-D shape is written (%lld,)",
                    (long long)a->shape[0], (long long)a->shape[0]);
      l->p++;
      break;
    }
    if (rank > 0 && !comma) return syntax(l, "',' or ')' in 'shape'");
    if (!at_end(l) && *l->p == '-')
      return fail(l->c, "dimension %d of 'shape' is negative", rank);
    if (at_end(l) || *l->p < '0' || *l->p > '9')
      return syntax(l, rank == 0 ? "a dimension or ')' in 'shape'"
                                 : "a dimension or ')' after ',' in 'shape'");
    if (rank == FUSER_MAX_RANK)
      return fail(l->c, "'shape' has more than %d dimensions", FUSER_MAX_RANK);
    uint64_t v = 0;
    while (!at_end(l) && *l->p >= '0' && *l->p <= '9') {
      unsigned d = (unsigned)(*l->p - '0');
      if (v > ((uint64_t)INT64_MAX - d) / 10)
        return fail(l->c,
                    "dimension %d of 'shape' is too large (more than %lld)",
                    rank, (long long)INT64_MAX);
      v = v * 10 + d;
      l->p++;
    }
    if (!at_end(l) && (*l->p == 'L' || *l->p == 'l')) l->p++;
    if (!at_end(l) && is_ident(*l->p))
      return syntax(l, "a decimal integer in 'shape'");
    a->shape[rank++] = (int64_t)v;
    skip_ws(l);
    comma = !at_end(l) && *l->p == ',';
    if (comma) l->p++;
  }
  a->rank = rank;
  return 0;
}

/* What a header says, before the dtype is resolved. */
typedef struct {
  const unsigned char *descr;
  size_t descr_len;
  int fortran;
} header_info;

static int parse_dict(lexer *l, npy_array *a, header_info *h) {
  static const char *const keys[3] = {"descr", "fortran_order", "shape"};
  int seen[3] = {0, 0, 0};
  if (expect_char(l, '{', "'{' (the header is a Python dict literal)"))
    return -1;
  for (;;) {
    skip_ws(l);
    if (!at_end(l) && *l->p == '}') {
      l->p++;
      break;
    }
    const unsigned char *k;
    size_t kn;
    if (parse_string(l, &k, &kn, "a quoted key or '}'")) return -1;
    int which = -1;
    for (int i = 0; i < 3; i++)
      if (kn == strlen(keys[i]) && memcmp(k, keys[i], kn) == 0) which = i;
    if (which < 0) {
      char buf[64];
      printable(buf, sizeof buf, k, kn);
      return fail(l->c,
                  "unknown header key '%s' (a .npy header has exactly "
                  "'descr', 'fortran_order' and 'shape')",
                  buf);
    }
    if (seen[which])
      return fail(l->c, "header key '%s' appears twice", keys[which]);
    seen[which] = 1;
    if (expect_char(l, ':', "':' after a key")) return -1;
    skip_ws(l);
    if (which == 0) {
      if (!at_end(l) && *l->p == '[')
        return fail(l->c,
                    "structured dtypes are not supported ('descr' is a "
                    "list of fields)");
      if (parse_string(l, &h->descr, &h->descr_len,
                       "a quoted dtype such as '<f4' as the value of 'descr'"))
        return -1;
    } else if (which == 1) {
      if (parse_bool(l, &h->fortran)) return -1;
    } else {
      if (parse_shape(l, a)) return -1;
    }
    skip_ws(l);
    if (!at_end(l) && *l->p == ',') {
      l->p++;
      continue;
    }
    if (!at_end(l) && *l->p == '}') {
      l->p++;
      break;
    }
    return syntax(l, "',' or '}' after a value");
  }
  skip_ws(l); /* NumPy pads with spaces and ends with '\n' */
  if (!at_end(l))
    return syntax(l, "only spaces and a newline after the header's '}'");
  for (int i = 0; i < 3; i++)
    if (!seen[i])
      return fail(l->c, "the header has no '%s' key", keys[i]);
  return 0;
}

/* ---- descr ----------------------------------------------------------------- */

/* NumPy's names of the (kind, size) pairs a user may plausibly have. */
static const char *numpy_name(char kind, unsigned size) {
  static const struct {
    char kind;
    unsigned size;
    const char *name;
  } names[] = {
      {'b', 1, "bool"},       {'i', 1, "int8"},        {'i', 2, "int16"},
      {'i', 4, "int32"},      {'i', 8, "int64"},       {'u', 1, "uint8"},
      {'u', 2, "uint16"},     {'u', 4, "uint32"},      {'u', 8, "uint64"},
      {'f', 2, "float16"},    {'f', 4, "float32"},     {'f', 8, "float64"},
      {'f', 12, "float96"},   {'f', 16, "float128"},   {'c', 8, "complex64"},
      {'c', 16, "complex128"}, {'c', 32, "complex256"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].kind == kind && names[i].size == size) return names[i].name;
  return NULL;
}

/* Maps a descr to NPY_* or FILE_U16, or fails. */
static int resolve_descr(const ctx *c, const unsigned char *s, size_t n,
                         int *type) {
  char shown[64];
  printable(shown, sizeof shown, s, n);
  static const char kSupported[] =
      "fuser reads bool '|b1', int8 '|i1', int32 '<i4', int64 '<i8', "
      "float16 '<f2', float32 '<f4', float64 '<f8', uint16 '<u2' holding "
      "bf16 bits, and uint8 '|u1' holding fp8 bits";
  size_t i = 0;
  char order = 0;
  if (n > 0 && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '='))
    order = (char)s[i++];
  if (i >= n) return fail(c, "invalid dtype descr '%s'", shown);
  char kind = (char)s[i++];
  unsigned size = 0;
  size_t digits = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9' && digits < 4) {
    size = size * 10 + (unsigned)(s[i++] - '0');
    digits++;
  }
  if (kind == 'O')
    return fail(c, "object arrays (descr '%s') are not supported; %s", shown,
                kSupported);
  if (kind == 'U' || kind == 'S' || kind == 'a' || kind == 'V' ||
      kind == 'M' || kind == 'm')
    return fail(c,
                "dtype '%s' (%s) is not supported; %s", shown,
                kind == 'U'   ? "unicode strings"
                : kind == 'V' ? "raw void records"
                : kind == 'M' ? "datetime64"
                : kind == 'm' ? "timedelta64"
                              : "byte strings",
                kSupported);
  const char *np = numpy_name(kind, size);
  if (i != n || digits == 0 || !np)
    return fail(c, "invalid or unsupported dtype descr '%s'; %s", shown,
                kSupported);
  int t = 0;
  if (kind == 'b' && size == 1) t = NPY_I1;
  else if (kind == 'i' && size == 1) t = NPY_I8;
  else if (kind == 'i' && size == 4) t = NPY_I32;
  else if (kind == 'i' && size == 8) t = NPY_I64;
  else if (kind == 'f' && size == 2) t = NPY_F16;
  else if (kind == 'f' && size == 4) t = NPY_F32;
  else if (kind == 'f' && size == 8) t = NPY_F64;
  else if (kind == 'u' && size == 2) t = FILE_U16;
  else if (kind == 'u' && size == 1) t = FILE_U8;
  if (!t)
    return fail(c, "dtype %s ('%s') is not supported; %s", np, shown,
                kSupported);
  if (order == '>' && size > 1)
    return fail(c,
                "big-endian data is not supported (descr '%s'); convert "
                "with a.astype('<%c%u')",
                shown, kind, size);
  /* '<', '|', '=' (native; the library assumes a little-endian writer) and
   * no byte-order character at all are little-endian for our purposes. */
  *type = t;
  return 0;
}

/* ---- parsing --------------------------------------------------------------- */

static uint32_t rd_u16(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd_u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* "s" unless n is 1, for "%zu byte%s". */
static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

static const unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* Parses and checks everything but copies no data: fills every field of *a
 * except data, and *data_off with where the data starts. */
static int parse_header(const ctx *c, const unsigned char *b, size_t size,
                        npy_dtype expected, npy_array *a, size_t *data_off) {
  memset(a, 0, sizeof *a);
  if (expected != 0 && !valid_dtype((int)expected))
    return fail(c, "invalid expected dtype %d", (int)expected);
  if (size == 0) return fail(c, "empty input; not a .npy file");
  size_t m = size < 6 ? size : 6;
  if (memcmp(b, kMagic, m) != 0)
    return fail(c,
                "not a .npy file (it does not start with the magic string "
                "\\x93NUMPY)");
  if (size < 8)
    return fail(c, "truncated: %zu byte%s, shorter than the 10-byte preamble",
                size, plural(size));
  unsigned major = b[6], minor = b[7];
  if (major < 1 || major > 3 || minor != 0)
    return fail(c,
                "unsupported .npy format version %u.%u (supported: 1.0, 2.0, "
                "3.0)",
                major, minor);
  size_t prefix = major == 1 ? 10 : 12;
  if (size < prefix)
    return fail(c,
                "truncated: %zu byte%s, shorter than the %zu-byte preamble of "
                "a version %u.0 file",
                size, plural(size), prefix, major);
  size_t hlen = major == 1 ? rd_u16(b + 8) : rd_u32(b + 8);
  if (hlen > size - prefix)
    return fail(c,
                "truncated: the header is %zu bytes but only %zu byte%s "
                "follow%s the %zu-byte preamble",
                hlen, size - prefix, plural(size - prefix),
                size - prefix == 1 ? "s" : "", prefix);

  lexer l = {b + prefix, b + prefix, b + prefix + hlen, c};
  header_info h = {NULL, 0, 0};
  if (parse_dict(&l, a, &h)) return -1;
  if (h.fortran)
    return fail(c,
                "Fortran-ordered arrays are not supported; save with "
                "np.save(path, np.ascontiguousarray(a))");

  int t = 0;
  if (resolve_descr(c, h.descr, h.descr_len, &t)) return -1;
  char shown[64];
  printable(shown, sizeof shown, h.descr, h.descr_len);
  const char *file_np = t == FILE_U16  ? "uint16"
                        : t == FILE_U8 ? "uint8"
                                       : kTypes[t].numpy;
  /* uint8 for an i8 argument: the same bytes (PyTorch keeps masks and
   * quantized data as torch.uint8). fuser's i8 is signed, as PyTorch's int8,
   * so bytes 128..255 read as -128..-1. Only where the caller expects i8:
   * with "any type" uint8 stays fp8's bits (docs/npy.md). */
  if (expected == NPY_I8 && t == FILE_U8) t = NPY_I8;
  int bits = expected ? bits_file_type((int)expected) : 0;
  if (expected == 0 && (t == FILE_U16 || t == FILE_U8))
    return fail(c,
                "%s ('%s') is only accepted for %s argument (%s tensor is "
                "stored as its %s bit patterns; see docs/npy.md)",
                file_np, shown, t == FILE_U16 ? "a bf16" : "an fp8",
                t == FILE_U16 ? "a bf16" : "an fp8", file_np);
  if (bits && t != bits)
    return fail(c,
                "dtype is %s ('%s') but %s is expected (stored as %s '%s' "
                "holding the %s bit patterns; see docs/npy.md)",
                file_np, shown, kTypes[expected].name, kTypes[expected].numpy,
                kTypes[expected].descr, kTypes[expected].name);
  if (expected != 0 && !bits && t != (int)expected)
    return fail(c, "dtype is %s ('%s') but %s ('%s', %s) is expected",
                file_np, shown, kTypes[expected].name, kTypes[expected].descr,
                kTypes[expected].numpy);
  a->dtype = bits ? expected : (npy_dtype)t;
  a->element_size = kTypes[a->dtype].size;

  /* Element count and byte count, overflow-checked. */
  size_t n = 1;
  int zero = 0;
  for (int i = 0; i < a->rank; i++)
    if (a->shape[i] == 0) zero = 1;
  if (zero) {
    n = 0;
  } else {
    for (int i = 0; i < a->rank; i++) {
      uint64_t d = (uint64_t)a->shape[i];
      if (d > SIZE_MAX / n) {
        char sh[128];
        if (!format_shape(sh, sizeof sh, a->rank, a->shape))
          snprintf(sh, sizeof sh, "of rank %d", a->rank);
        return fail(c, "shape %s has too many elements (more than %zu)", sh,
                    (size_t)SIZE_MAX);
      }
      n *= (size_t)d;
    }
  }
  if (n > SIZE_MAX / a->element_size)
    return fail(c,
                "header says %zu %s elements, more bytes than fit in memory",
                n, file_np);
  const char *elems = n == 1 ? "element" : "elements";
  size_t bytes = n * a->element_size;
  size_t off = prefix + hlen, avail = size - off;
  if (avail < bytes)
    return fail(c,
                "truncated: header says %zu %s %s (%zu byte%s) but %zu "
                "byte%s follow%s",
                n, file_np, elems, bytes, plural(bytes), avail, plural(avail),
                avail == 1 ? "s" : "");
  if (avail > bytes)
    return fail(c,
                "%zu extra byte%s after the data: header says %zu %s %s "
                "(%zu byte%s) but %zu byte%s follow%s",
                avail - bytes, plural(avail - bytes), n, file_np, elems, bytes,
                plural(bytes), avail, plural(avail), avail == 1 ? "s" : "");
  if (a->dtype == NPY_I1)
    for (size_t i = 0; i < n; i++)
      if (b[off + i] > 1)
        return fail(c, "bool element %zu has value %u (expected 0 or 1)", i,
                    (unsigned)b[off + i]);
  a->num_elements = n;
  *data_off = off;
  return 0;
}

int npy_parse(const void *bytes, size_t size, npy_dtype expected,
              const char *name, npy_array *out, char *err, size_t errlen) {
  ctx c = {name ? name : "<npy>", err, errlen};
  npy_array a;
  size_t off = 0;
  if (!out) return fail(&c, "npy_parse: NULL output");
  memset(out, 0, sizeof *out);
  if (!bytes && size > 0) return fail(&c, "npy_parse: NULL input");
  if (parse_header(&c, bytes ? (const unsigned char *)bytes
                             : (const unsigned char *)"",
                   bytes ? size : 0, expected, &a, &off))
    return -1;
  size_t nbytes = a.num_elements * a.element_size;
  a.data = malloc(nbytes ? nbytes : 1);
  if (!a.data)
    return fail(&c, "out of memory allocating %zu bytes of data", nbytes);
  if (nbytes) memcpy(a.data, (const unsigned char *)bytes + off, nbytes);
  *out = a;
  return 0;
}

int npy_load(const char *path, npy_dtype expected, npy_array *out, char *err,
             size_t errlen) {
  ctx c = {path ? path : "<npy>", err, errlen};
  if (!out) return fail(&c, "npy_load: NULL output");
  memset(out, 0, sizeof *out);
  if (!path) return fail(&c, "npy_load: NULL path");
  FILE *f = fopen(path, "rb");
  if (!f) return fail(&c, "cannot open: %s", strerror(errno));

  /* The size, when the stream can tell (0 or wrong for pipes and devices:
   * then the buffer grows as we read). */
  size_t hint = 0;
  if (fseek(f, 0, SEEK_END) == 0) {
    long end = ftell(f);
    if (end > 0 && (unsigned long)end < SIZE_MAX / 2) hint = (size_t)end;
    if (fseek(f, 0, SEEK_SET) != 0) {
      int e = errno;
      fclose(f);
      return fail(&c, "cannot seek: %s", strerror(e));
    }
  }
  clearerr(f);

  /* The first bytes go to a small buffer, so that a directory, an empty
   * file or one that is not a .npy file fails before the size hint is
   * trusted for an allocation. */
  unsigned char first[4096];
  size_t len = 0, cap = 0;
  unsigned char *buf = NULL;
  for (;;) {
    unsigned char *dst = buf ? buf + len : first + len;
    size_t room = buf ? cap - len : sizeof first - len;
    errno = 0;
    size_t got = fread(dst, 1, room, f);
    len += got;
    if (got < room) {
      if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        return fail(&c, "cannot read: %s",
                    e ? strerror(e) : "input/output error");
      }
      if (feof(f)) break;
      continue;
    }
    if (!buf) {
      /* The first buffer is full: check the magic, then move to the heap. */
      if (memcmp(first, kMagic, sizeof kMagic) != 0) {
        fclose(f);
        npy_array a;
        size_t off;
        return parse_header(&c, first, len, expected, &a, &off);
      }
      cap = hint > len ? hint + 1 : 2 * len;
      buf = malloc(cap);
      if (!buf) {
        fclose(f);
        return fail(&c, "out of memory reading the file (%zu bytes)", cap);
      }
      memcpy(buf, first, len);
    } else {
      if (cap > SIZE_MAX / 2) {
        free(buf);
        fclose(f);
        return fail(&c, "the file is too large");
      }
      unsigned char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        fclose(f);
        return fail(&c, "out of memory reading the file (%zu bytes)",
                    cap * 2);
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf) {
    buf = malloc(len ? len : 1);
    if (!buf) return fail(&c, "out of memory reading the file");
    if (len) memcpy(buf, first, len);
  }

  npy_array a;
  size_t off = 0;
  if (parse_header(&c, buf, len, expected, &a, &off)) {
    free(buf);
    return -1;
  }
  size_t nbytes = a.num_elements * a.element_size;
  if (nbytes) memmove(buf, buf + off, nbytes);
  unsigned char *shrunk = realloc(buf, nbytes ? nbytes : 1);
  a.data = shrunk ? shrunk : buf;
  *out = a;
  return 0;
}

void npy_free(npy_array *a) {
  if (!a) return;
  free(a->data);
  memset(a, 0, sizeof *a);
}

/* ---- writing --------------------------------------------------------------- */

/* The header of a .npy file as NumPy 1.24 writes it, preamble included:
 * "\x93NUMPY" 1 0 <u16 len> "{'descr': '<f4', 'fortran_order': False,
 * 'shape': (2, 3), }" + spare spaces for growing axis 0 + padding spaces +
 * "\n", so that the data starts at a multiple of 64. The array must have
 * been checked. Returns the header length, 0 if it does not fit in cap. */
enum { kAlign = 64, kGrowthDigits = 21, kHeaderCap = 2048 };

static size_t build_header(const npy_array *a, unsigned char *dst,
                           size_t cap) {
  char dict[1536], shape[1100];
  size_t sl = format_shape(shape, sizeof shape, a->rank, a->shape);
  if (!sl) return 0;
  int n = snprintf(dict, sizeof dict,
                   "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                   kTypes[a->dtype].descr, shape);
  if (n < 0 || (size_t)n >= sizeof dict) return 0;
  size_t dl = (size_t)n;
  if (a->rank > 0) {
    char d0[32];
    int w = snprintf(d0, sizeof d0, "%lld", (long long)a->shape[0]);
    if (w < 0) return 0;
    size_t spare = (size_t)w < kGrowthDigits ? kGrowthDigits - (size_t)w : 0;
    if (dl + spare >= sizeof dict) return 0;
    memset(dict + dl, ' ', spare);
    dl += spare;
  }
  size_t hlen = dl + 1; /* the final '\n' */
  size_t prefix = 10;
  size_t pad = kAlign - (prefix + hlen) % kAlign;
  if (hlen + pad > 65535) { /* version 2.0: a 4-byte length */
    prefix = 12;
    pad = kAlign - (prefix + hlen) % kAlign;
  }
  size_t total = prefix + hlen + pad;
  if (total > cap) return 0;
  memcpy(dst, kMagic, 6);
  dst[6] = prefix == 10 ? 1 : 2;
  dst[7] = 0;
  size_t l = hlen + pad;
  dst[8] = (unsigned char)(l & 0xff);
  dst[9] = (unsigned char)(l >> 8 & 0xff);
  if (prefix == 12) {
    dst[10] = (unsigned char)(l >> 16 & 0xff);
    dst[11] = (unsigned char)(l >> 24 & 0xff);
  }
  memcpy(dst + prefix, dict, dl);
  memset(dst + prefix + dl, ' ', pad);
  dst[total - 1] = '\n';
  return total;
}

/* Checks an array given to serialize/save; *bytes = its data size. */
static int check_array(const ctx *c, const npy_array *a, size_t *bytes) {
  if (!a) return fail(c, "NULL array");
  if (!valid_dtype((int)a->dtype))
    return fail(c, "invalid dtype %d", (int)a->dtype);
  if (a->rank < 0 || a->rank > FUSER_MAX_RANK)
    return fail(c, "rank %d is outside 0..%d", a->rank, FUSER_MAX_RANK);
  size_t n = 1;
  int zero = 0, overflow = 0;
  for (int i = 0; i < a->rank; i++) {
    if (a->shape[i] < 0)
      return fail(c, "dimension %d is negative (%lld)", i,
                  (long long)a->shape[i]);
    if (a->shape[i] == 0) zero = 1;
  }
  for (int i = 0; i < a->rank && !zero; i++) {
    uint64_t d = (uint64_t)a->shape[i];
    if (d > SIZE_MAX / n) {
      overflow = 1;
      break;
    }
    n *= (size_t)d;
  }
  if (zero) n = 0;
  size_t es = kTypes[a->dtype].size;
  if (overflow || n > SIZE_MAX / es)
    return fail(c, "the shape has more elements than fit in memory");
  if (a->num_elements != n)
    return fail(c, "num_elements is %zu but the shape has %zu elements",
                a->num_elements, n);
  if (a->element_size != es)
    return fail(c, "element_size is %zu but a %s element is %zu bytes",
                a->element_size, kTypes[a->dtype].name, es);
  if (n > 0 && !a->data) return fail(c, "data is NULL");
  *bytes = n * es;
  return 0;
}

int npy_serialize(const npy_array *a, void **out, size_t *out_size, char *err,
                  size_t errlen) {
  ctx c = {"npy_serialize", err, errlen};
  if (!out || !out_size) return fail(&c, "NULL output");
  *out = NULL;
  *out_size = 0;
  size_t bytes;
  if (check_array(&c, a, &bytes)) return -1;
  unsigned char hdr[kHeaderCap];
  size_t hl = build_header(a, hdr, sizeof hdr);
  if (!hl) return fail(&c, "internal error: header too long");
  if (bytes > SIZE_MAX - hl)
    return fail(&c, "the array is too large to serialize");
  unsigned char *buf = malloc(hl + bytes);
  if (!buf)
    return fail(&c, "out of memory allocating %zu bytes", hl + bytes);
  memcpy(buf, hdr, hl);
  if (bytes) memcpy(buf + hl, a->data, bytes);
  *out = buf;
  *out_size = hl + bytes;
  return 0;
}

int npy_save(const char *path, const npy_array *a, char *err, size_t errlen) {
  ctx c = {path ? path : "<npy>", err, errlen};
  if (!path) return fail(&c, "npy_save: NULL path");
  size_t bytes;
  if (check_array(&c, a, &bytes)) return -1;
  unsigned char hdr[kHeaderCap];
  size_t hl = build_header(a, hdr, sizeof hdr);
  if (!hl) return fail(&c, "internal error: header too long");
  FILE *f = fopen(path, "wb");
  if (!f) return fail(&c, "cannot create: %s", strerror(errno));
  errno = 0;
  int ok = fwrite(hdr, 1, hl, f) == hl &&
           (bytes == 0 || fwrite(a->data, 1, bytes, f) == bytes) &&
           fflush(f) == 0;
  int e = errno;
  if (fclose(f) != 0 && ok) {
    ok = 0;
    e = errno;
  }
  if (!ok)
    return fail(&c, "cannot write (the file may be incomplete): %s",
                e ? strerror(e) : "input/output error");
  return 0;
}
