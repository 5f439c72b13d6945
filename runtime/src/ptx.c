/* A small scanner for the `.entry` signatures of PTX text: the kernel
 * names and the byte size of each parameter. Shared by the runtime (bundle
 * validation) and the fake CUDA driver of the tests. It only needs to
 * understand what the PTX ISA allows in a kernel parameter list:
 *
 *   .visible .entry name ( .param .u64 .ptr .global .align 16 name_param_0,
 *                          .param .u32 name_param_1, .param .align 8 .b8 s[16] )
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct cursor {
  const char *p, *end;
} cursor;

static bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '%';
}

static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

/* Skips white space and comments. */
static void skip_ws(cursor *c) {
  while (c->p < c->end) {
    if (is_space(*c->p)) {
      c->p++;
    } else if (c->p + 1 < c->end && c->p[0] == '/' && c->p[1] == '/') {
      while (c->p < c->end && *c->p != '\n') c->p++;
    } else if (c->p + 1 < c->end && c->p[0] == '/' && c->p[1] == '*') {
      c->p += 2;
      while (c->p + 1 < c->end && !(c->p[0] == '*' && c->p[1] == '/')) c->p++;
      c->p = c->p + 1 < c->end ? c->p + 2 : c->end;
    } else {
      break;
    }
  }
}

/* Reads a token: a directive/type (".u64"), an identifier or a number.
 * Returns its length (0 when the next char is punctuation). */
static size_t token(cursor *c, const char **tok) {
  const char *s = c->p;
  if (c->p < c->end && *c->p == '.') c->p++;
  while (c->p < c->end && is_ident_char(*c->p)) c->p++;
  *tok = s;
  return (size_t)(c->p - s);
}

static bool tok_is(const char *t, size_t n, const char *lit) {
  return strlen(lit) == n && memcmp(t, lit, n) == 0;
}

/* Size of a PTX fundamental type token, 0 if not one. */
static uint32_t type_size(const char *t, size_t n) {
  if (n < 3 || t[0] != '.') return 0;
  char k = t[1];
  if (k != 'u' && k != 's' && k != 'b' && k != 'f') return 0;
  if (tok_is(t + 2, n - 2, "8")) return k == 'f' ? 0 : 1;
  if (tok_is(t + 2, n - 2, "16")) return 2;
  if (tok_is(t + 2, n - 2, "32")) return 4;
  if (tok_is(t + 2, n - 2, "64")) return 8;
  if (tok_is(t + 2, n - 2, "128")) return k == 'b' ? 16 : 0;
  return 0;
}

static bool parse_uint(const char *t, size_t n, uint64_t *v) {
  if (n == 0 || n > 12) return false;
  uint64_t x = 0;
  for (size_t i = 0; i < n; i++) {
    if (t[i] < '0' || t[i] > '9') return false;
    x = x * 10 + (uint64_t)(t[i] - '0');
  }
  *v = x;
  return true;
}

/* Parses one parameter ".param <qualifiers/type> name [N]". Leaves the
 * cursor on ',' or ')'. Returns its size, or 0 if not understood; sets
 * *is_ptr when it has the `.ptr` qualifier of a kernel pointer parameter. */
static uint32_t parse_param(cursor *c, bool *is_ptr) {
  const char *t;
  size_t n;
  skip_ws(c);
  n = token(c, &t);
  if (!tok_is(t, n, ".param")) return 0;
  uint32_t size = 0;
  bool have_name = false;
  uint64_t count = 1;
  *is_ptr = false;
  for (;;) {
    skip_ws(c);
    if (c->p >= c->end) return 0;
    char ch = *c->p;
    if (ch == ',' || ch == ')') break;
    if (ch == '[') {
      c->p++;
      skip_ws(c);
      n = token(c, &t);
      if (!parse_uint(t, n, &count) || count == 0 || count > (1u << 20))
        return 0;
      skip_ws(c);
      if (c->p >= c->end || *c->p != ']') return 0;
      c->p++;
      continue;
    }
    n = token(c, &t);
    if (n == 0) return 0;
    if (t[0] == '.') {
      uint32_t s = type_size(t, n);
      if (s) {
        if (size) return 0; /* two types */
        size = s;
      } else if (tok_is(t, n, ".align")) {
        skip_ws(c);
        uint64_t al;
        n = token(c, &t);
        if (!parse_uint(t, n, &al)) return 0;
      } else if (tok_is(t, n, ".ptr")) {
        *is_ptr = true;
      } else if (tok_is(t, n, ".global") ||
                 tok_is(t, n, ".const") || tok_is(t, n, ".local") ||
                 tok_is(t, n, ".shared")) {
        /* qualifiers of a pointer parameter: no effect on its size */
      } else {
        return 0;
      }
    } else {
      if (have_name) return 0;
      have_name = true;
    }
  }
  if (!size) return 0;
  uint64_t total = (uint64_t)size * count;
  return total > 0xFFFFFFFFu ? 0 : (uint32_t)total;
}

static void parse_signature(cursor *c, fr_ptx_entry *e, uint32_t *scratch,
                            unsigned char *ptr_scratch) {
  skip_ws(c);
  if (c->p >= c->end || *c->p != '(') {
    e->num_params = 0; /* `.entry name {` : no parameters */
    return;
  }
  c->p++;
  int n = 0;
  skip_ws(c);
  if (c->p < c->end && *c->p == ')') {
    c->p++;
    e->num_params = 0;
    return;
  }
  for (;;) {
    bool is_ptr;
    uint32_t s = n < FR_PTX_MAX_PARAMS ? parse_param(c, &is_ptr) : 0;
    if (!s) {
      e->num_params = -1;
      e->bad_param = n;
      return;
    }
    ptr_scratch[n] = is_ptr;
    scratch[n++] = s;
    skip_ws(c);
    if (c->p >= c->end) {
      e->num_params = -1;
      e->bad_param = n - 1;
      return;
    }
    if (*c->p == ')') {
      c->p++;
      break;
    }
    c->p++; /* ',' */
  }
  e->num_params = n;
  e->param_sizes = malloc((sizeof(uint32_t) + 1) * (size_t)n + 1);
  if (e->param_sizes) {
    memcpy(e->param_sizes, scratch, sizeof(uint32_t) * (size_t)n);
    e->param_is_ptr = (unsigned char *)(e->param_sizes + n);
    memcpy(e->param_is_ptr, ptr_scratch, (size_t)n);
  } else {
    e->num_params = -2; /* out of memory: reported by the caller */
  }
}

int fr_ptx_scan(const char *text, size_t len, fr_ptx_entry **out) {
  cursor c = {text, text + len};
  fr_ptx_entry *v = NULL;
  int n = 0, cap = 0;
  uint32_t *scratch = malloc((sizeof(uint32_t) + 1) * FR_PTX_MAX_PARAMS);
  if (!scratch) return -1;
  unsigned char *ptr_scratch = (unsigned char *)(scratch + FR_PTX_MAX_PARAMS);
  while (c.p < c.end) {
    skip_ws(&c);
    if (c.p >= c.end) break;
    if (*c.p == '.' || is_ident_char(*c.p)) {
      const char *t;
      size_t tn = token(&c, &t);
      if (tn == 0) {
        c.p++;
        continue;
      }
      if (!tok_is(t, tn, ".entry")) continue;
      skip_ws(&c);
      const char *name;
      size_t nn = token(&c, &name);
      if (nn == 0 || name[0] == '.') continue;
      if (n == cap) {
        int ncap = cap ? cap * 2 : 8;
        fr_ptx_entry *nv = realloc(v, sizeof *v * (size_t)ncap);
        if (!nv) goto oom;
        v = nv;
        cap = ncap;
      }
      fr_ptx_entry *e = &v[n++];
      e->name = name;
      e->name_len = nn;
      e->param_sizes = NULL;
      e->param_is_ptr = NULL;
      e->bad_param = -1;
      parse_signature(&c, e, scratch, ptr_scratch);
      if (e->num_params == -2) goto oom;
    } else {
      c.p++;
    }
  }
  free(scratch);
  *out = v;
  return n;
oom:
  free(scratch);
  fr_ptx_entries_free(v, n);
  return -1;
}

void fr_ptx_entries_free(fr_ptx_entry *entries, int n) {
  for (int i = 0; i < n; i++) free(entries[i].param_sizes);
  free(entries);
}
