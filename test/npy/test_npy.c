/* Tests of the .npy library (tools/fuserc/npy.c, docs/npy.md).
 *
 *   test_npy [GROUP [ARG]]
 *
 * GROUP is one of roundtrip, errors, files, truncation, mutation [N],
 * numpy [DIR], or all (the default: every group, with numpy skipped rather
 * than failed when /usr/bin/python3 or NumPy is missing; $NPY_TEST_PYTHON
 * names another interpreter). Exit status: 0 passed, 1 failed, 77 skipped
 * (the numpy group without NumPy).
 *
 * Builds on its own:
 *   cc -std=c11 -Wall -Wextra -pedantic -O1 -fsanitize=address,undefined \
 *      tools/fuserc/npy.c test/npy/test_npy.c -o /tmp/test_npy && /tmp/test_npy
 *
 * Inputs handed to the parser always sit in a malloc'd block of exactly
 * their size, so that AddressSanitizer catches a read one byte past the end.
 */
#define _POSIX_C_SOURCE 200809L

#include "../../tools/fuserc/npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define SKIP 77
/* NumPy's interpreter: /usr/bin/python3 (`python3` on PATH may be another
 * one, without numpy), or $NPY_TEST_PYTHON. */
static const char *python(void) {
  const char *p = getenv("NPY_TEST_PYTHON");
  return p && *p ? p : "/usr/bin/python3";
}

static int failures;

#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                       \
      fputc('\n', stderr);                                                \
      failures++;                                                         \
    }                                                                     \
  } while (0)

static const npy_dtype kAll[] = {NPY_I1,  NPY_I8,   NPY_I32, NPY_I64,
                                 NPY_F16, NPY_BF16, NPY_F32, NPY_F64,
                                 NPY_F8E4M3FN, NPY_F8E5M2, NPY_F8E8M0FNU};
#define NUM_DTYPES 11

static bool is_fp8(npy_dtype t) {
  return t == NPY_F8E4M3FN || t == NPY_F8E5M2 || t == NPY_F8E8M0FNU;
}

/* ---- helpers ---------------------------------------------------------------- */

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

/* Parses a copy of [b, b+n) held in a block of exactly n bytes. */
static int parse_exact(const void *b, size_t n, npy_dtype expected,
                       npy_array *out, char *err, size_t errlen) {
  void *copy = n ? xmalloc(n) : NULL;
  if (n) memcpy(copy, b, n);
  int rc = npy_parse(copy, n, expected, "x.npy", out, err, errlen);
  free(copy);
  return rc;
}

static int is_zeroed(const npy_array *a) {
  npy_array z;
  memset(&z, 0, sizeof z);
  return memcmp(a, &z, sizeof z) == 0;
}

/* A .npy file by hand: the preamble of `version` (1, 2 or 3, or 0x100 +
 * major for a minor version of 1), the header text as given (no padding
 * added), then dlen bytes of `fill`. */
static unsigned char *mkn(int version, const char *hdr, size_t hl,
                          size_t dlen, unsigned char fill, size_t *size) {
  int major = version & 0xff, minor = version >> 8;
  size_t prefix = major == 1 ? 10 : 12;
  *size = prefix + hl + dlen;
  unsigned char *b = xmalloc(*size);
  memcpy(b, "\x93NUMPY", 6);
  b[6] = (unsigned char)major;
  b[7] = (unsigned char)minor;
  b[8] = (unsigned char)(hl & 0xff);
  b[9] = (unsigned char)(hl >> 8 & 0xff);
  if (prefix == 12) {
    b[10] = (unsigned char)(hl >> 16 & 0xff);
    b[11] = (unsigned char)(hl >> 24 & 0xff);
  }
  memcpy(b + prefix, hdr, hl);
  memset(b + prefix + hl, fill, dlen);
  return b;
}

static unsigned char *mk(int version, const char *hdr, size_t dlen,
                         unsigned char fill, size_t *size) {
  return mkn(version, hdr, strlen(hdr), dlen, fill, size);
}

/* Fills an array of the given dtype and shape with a pattern (valid
 * bools). */
static void make_array(npy_array *a, npy_dtype t, int rank,
                       const int64_t *shape, unsigned salt) {
  memset(a, 0, sizeof *a);
  a->dtype = t;
  a->rank = rank;
  size_t n = 1;
  for (int i = 0; i < rank; i++) {
    a->shape[i] = shape[i];
    n *= (size_t)shape[i];
  }
  a->num_elements = n;
  a->element_size = npy_dtype_size(t);
  size_t bytes = n * a->element_size;
  unsigned char *d = xmalloc(bytes);
  for (size_t i = 0; i < bytes; i++)
    d[i] = t == NPY_I1 ? (unsigned char)((i * 7 + salt) % 3 == 0)
                       : (unsigned char)(i * 131 + 17 + salt);
  a->data = d;
}

static int same_array(const npy_array *a, const npy_array *b) {
  if (a->dtype != b->dtype || a->rank != b->rank ||
      a->num_elements != b->num_elements ||
      a->element_size != b->element_size)
    return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->shape[i] != b->shape[i]) return 0;
  size_t bytes = a->num_elements * a->element_size;
  return bytes == 0 || memcmp(a->data, b->data, bytes) == 0;
}

/* ---- roundtrip ---------------------------------------------------------------- */

static void group_roundtrip(void) {
  static const struct {
    int rank;
    int64_t shape[6];
  } shapes[] = {
      {0, {0}},          {1, {5}},          {1, {0}},
      {1, {1}},          {2, {3, 4}},       {2, {0, 7}},
      {2, {7, 0}},       {3, {2, 3, 4}},    {3, {2, 0, 3}},
      {4, {1, 2, 1, 3}}, {5, {2, 1, 3, 1, 2}}, {5, {3, 2, 0, 2, 1}},
      {1, {100000}},     {2, {1000000000000, 0}},
  };
  int count = 0;
  for (int ti = 0; ti < NUM_DTYPES; ti++) {
    npy_dtype t = kAll[ti];
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
      npy_array a, b;
      char err[NPY_ERR_LEN];
      make_array(&a, t, shapes[si].rank, shapes[si].shape, (unsigned)si);
      void *buf = NULL;
      size_t size = 0;
      int rc = npy_serialize(&a, &buf, &size, err, sizeof err);
      CHECK(rc == 0, "%s rank %d: %s", npy_dtype_name(t), a.rank, err);
      if (rc) {
        npy_free(&a);
        continue;
      }
      const unsigned char *u = buf;
      size_t data_bytes = a.num_elements * a.element_size;
      size_t hl = size - data_bytes;
      CHECK(memcmp(u, "\x93NUMPY\x01\x00", 8) == 0, "preamble");
      CHECK(hl % 64 == 0, "data offset %zu is not a multiple of 64", hl);
      CHECK((size_t)(u[8] | u[9] << 8) == hl - 10, "header length");
      CHECK(u[hl - 1] == '\n', "header ends with a newline");
      CHECK(strstr((const char *)u + 10, "'fortran_order': False") != NULL,
            "fortran_order");

      rc = parse_exact(buf, size, t, &b, err, sizeof err);
      CHECK(rc == 0, "%s: %s", npy_dtype_name(t), err);
      if (rc == 0) {
        CHECK(same_array(&a, &b), "%s rank %d: round trip differs",
              npy_dtype_name(t), a.rank);
        CHECK(b.data != NULL, "data is never NULL after a parse");
        for (int i = b.rank; i < FUSER_MAX_RANK; i++)
          CHECK(b.shape[i] == 0, "unused dims are zero");
      }
      npy_free(&b);
      CHECK(is_zeroed(&b), "npy_free zeroes");

      /* "any" works for every type but bf16 (uint16 in the file) and fp8
       * (uint8). */
      rc = parse_exact(buf, size, 0, &b, err, sizeof err);
      if (t == NPY_BF16) {
        CHECK(rc != 0 && strstr(err, "only accepted for a bf16 argument"),
              "bf16 with expected 0: %s", rc ? err : "accepted");
      } else if (is_fp8(t)) {
        CHECK(rc != 0 && strstr(err, "only accepted for an fp8 argument"),
              "fp8 with expected 0: %s", rc ? err : "accepted");
      } else {
        CHECK(rc == 0 && same_array(&a, &b), "expected 0: %s",
              rc ? err : "differs");
      }
      npy_free(&b);
      /* Every other expected type is a mismatch. */
      for (int oi = 0; oi < NUM_DTYPES; oi++) {
        /* Both fp8 formats are uint8 in the file: it cannot say which; an
         * i8 argument takes uint8 as its own bytes. */
        if (kAll[oi] == t || (is_fp8(t) && is_fp8(kAll[oi]))) continue;
        if (is_fp8(t) && kAll[oi] == NPY_I8) {
          rc = parse_exact(buf, size, NPY_I8, &b, err, sizeof err);
          CHECK(rc == 0 && b.dtype == NPY_I8 && b.rank == a.rank &&
                    b.num_elements == a.num_elements &&
                    (a.num_elements == 0 ||
                     memcmp(a.data, b.data, a.num_elements) == 0),
                "%s read as i8: %s", npy_dtype_name(t), rc ? err : "differs");
          npy_free(&b);
          continue;
        }
        rc = parse_exact(buf, size, kAll[oi], &b, err, sizeof err);
        CHECK(rc != 0 && strstr(err, "x.npy: dtype is ") &&
                  strstr(err, "is expected"),
              "%s read as %s: %s", npy_dtype_name(t),
              npy_dtype_name(kAll[oi]), rc ? err : "accepted");
        CHECK(is_zeroed(&b), "output zeroed on error");
        npy_free(&b);
      }
      free(buf);
      npy_free(&a);
      count++;
    }
  }

  /* The exact bytes NumPy 1.24 writes for a float32 (2, 3) array. */
  {
    npy_array a;
    int64_t sh[2] = {2, 3};
    make_array(&a, NPY_F32, 2, sh, 0);
    void *buf;
    size_t size;
    char err[NPY_ERR_LEN];
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) == 0, "%s", err);
    static const unsigned char pre[] = "\x93NUMPY\x01\x00\x76\x00";
    const char *text =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    const unsigned char *u = buf;
    CHECK(size == 128 + 24, "size %zu", size);
    CHECK(memcmp(u, pre, 10) == 0, "preamble");
    CHECK(memcmp(u + 10, text, strlen(text)) == 0, "header text");
    for (size_t i = 10 + strlen(text); i < 127; i++)
      CHECK(u[i] == ' ', "padding byte %zu", i);
    CHECK(u[127] == '\n', "newline");
    CHECK(memcmp(u + 128, a.data, 24) == 0, "data");
    free(buf);
    npy_free(&a);
  }

  /* Rank 32, the maximum; and a 1-D shape is written (5,), rank 0 (). */
  {
    npy_array a, b;
    int64_t sh[FUSER_MAX_RANK];
    for (int i = 0; i < FUSER_MAX_RANK; i++) sh[i] = i == 7 ? 3 : 1;
    make_array(&a, NPY_I64, FUSER_MAX_RANK, sh, 1);
    void *buf;
    size_t size;
    char err[NPY_ERR_LEN];
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) == 0, "%s", err);
    CHECK(parse_exact(buf, size, NPY_I64, &b, err, sizeof err) == 0 &&
              same_array(&a, &b),
          "rank 32: %s", err);
    free(buf);
    npy_free(&a);
    npy_free(&b);
    int64_t five = 5;
    make_array(&a, NPY_I8, 1, &five, 0);
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) == 0, "%s", err);
    CHECK(strstr((char *)buf + 10, "'shape': (5,), }") != NULL, "1-D shape");
    free(buf);
    npy_free(&a);
    make_array(&a, NPY_F64, 0, NULL, 0);
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) == 0, "%s", err);
    CHECK(strstr((char *)buf + 10, "'shape': (), }\x20") != NULL, "rank 0");
    CHECK(size == 128 + 8, "rank 0 size %zu", size);
    free(buf);
    npy_free(&a);
  }

  /* Serialize checks its input. */
  {
    npy_array a;
    int64_t sh[2] = {2, 3};
    void *buf = (void *)1;
    size_t size = 7;
    char err[NPY_ERR_LEN];
    make_array(&a, NPY_F32, 2, sh, 0);
    a.num_elements = 5;
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) != 0 &&
              strstr(err, "num_elements is 5 but the shape has 6 elements") &&
              buf == NULL && size == 0,
          "%s", err);
    a.num_elements = 6;
    a.element_size = 2;
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) != 0 &&
              strstr(err, "element_size is 2 but a f32 element is 4 bytes"),
          "%s", err);
    a.element_size = 4;
    a.dtype = (npy_dtype)12;
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) != 0 &&
              strstr(err, "invalid dtype 12"),
          "%s", err);
    a.dtype = NPY_F32;
    a.rank = 33;
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) != 0 &&
              strstr(err, "rank 33 is outside 0..32"),
          "%s", err);
    a.rank = -1;
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) != 0 &&
              strstr(err, "rank -1 is outside"),
          "%s", err);
    a.rank = 2;
    a.shape[1] = -3;
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) != 0 &&
              strstr(err, "dimension 1 is negative (-3)"),
          "%s", err);
    a.shape[1] = 3;
    void *d = a.data;
    a.data = NULL;
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) != 0 &&
              strstr(err, "data is NULL"),
          "%s", err);
    a.data = d;
    a.shape[0] = INT64_MAX;
    a.shape[1] = INT64_MAX;
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) != 0 &&
              strstr(err, "more elements than fit in memory"),
          "%s", err);
    CHECK(npy_serialize(NULL, &buf, &size, err, sizeof err) != 0 &&
              strstr(err, "NULL array"),
          "%s", err);
    CHECK(npy_serialize(&a, NULL, &size, err, sizeof err) != 0, "NULL out");
    npy_free(&a);
    /* A zero-element array may have NULL data. */
    sh[0] = 0;
    make_array(&a, NPY_F32, 2, sh, 0);
    free(a.data);
    a.data = NULL;
    CHECK(npy_serialize(&a, &buf, &size, err, sizeof err) == 0, "%s", err);
    free(buf);
  }

  CHECK(strcmp(npy_dtype_name(NPY_BF16), "bf16") == 0, "name");
  CHECK(strcmp(npy_dtype_name(NPY_I1), "i1") == 0, "name");
  CHECK(strcmp(npy_dtype_name(NPY_F64), "f64") == 0, "name");
  CHECK(strcmp(npy_dtype_name((npy_dtype)0), "invalid") == 0, "name");
  CHECK(strcmp(npy_dtype_name((npy_dtype)42), "invalid") == 0, "name");
  CHECK(npy_dtype_size(NPY_I32) == 4 && npy_dtype_size(NPY_F16) == 2 &&
            npy_dtype_size((npy_dtype)-1) == 0,
        "size");
  CHECK(strcmp(npy_dtype_descr(NPY_BF16), "<u2") == 0 &&
            strcmp(npy_dtype_descr(NPY_I1), "|b1") == 0 &&
            strcmp(npy_dtype_descr(NPY_F8E5M2), "|u1") == 0 &&
            npy_dtype_descr((npy_dtype)12) == NULL,
        "descr");
  npy_free(NULL);
  npy_array z;
  memset(&z, 0, sizeof z);
  npy_free(&z);
  printf("roundtrip: %d arrays\n", count);
}

/* ---- errors ----------------------------------------------------------------- */

#define H(s) "{'descr': '<f4', 'fortran_order': False, 'shape': " s ", }\n"

static const struct {
  int version;
  const char *hdr;
  size_t dlen;
  unsigned char fill;
  npy_dtype expected;
  const char *want;
} kBad[] = {
    /* preamble */
    {1, "", 0, 0, 0, "malformed header: expected '{' (the header is a Python "
                     "dict literal) at header byte 0, found the end of the "
                     "header"},
    {4, "{}", 0, 0, 0, "unsupported .npy format version 4.0 (supported: 1.0, "
                       "2.0, 3.0)"},
    {0, "{}", 0, 0, 0, "unsupported .npy format version 0.0"},
    {0x101, "{}", 0, 0, 0, "unsupported .npy format version 1.1"},
    /* the dict */
    {1, "  ['descr']\n", 0, 0, 0, "expected '{' (the header is a Python dict "
                                  "literal) at header byte 2, found '['"},
    {1, "{'descr': '<f4', 'fortran_order': False}\n", 0, 0, 0,
     "the header has no 'shape' key"},
    {1, "{'shape': (), 'fortran_order': False}\n", 0, 0, 0,
     "the header has no 'descr' key"},
    {1, "{'descr': '<f4', 'shape': ()}\n", 0, 0, 0,
     "the header has no 'fortran_order' key"},
    {1, "{}\n", 0, 0, 0, "the header has no 'descr' key"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'foo': 1}\n", 0,
     0, 0, "unknown header key 'foo' (a .npy header has exactly 'descr', "
           "'fortran_order' and 'shape')"},
    {1, "{'descr': '<f4', 'descr': '<f4'}\n", 0, 0, 0,
     "header key 'descr' appears twice"},
    {1, "{'descr' '<f4'}\n", 0, 0, 0, "expected ':' after a key at header byte "
                                      "9, found '''"},
    {1, "{'descr': '<f4' 'shape': ()}\n", 0, 0, 0,
     "expected ',' or '}' after a value at header byte 16, found '''"},
    {1, "{descr: '<f4'}\n", 0, 0, 0, "expected a quoted key or '}' at header "
                                     "byte 1, found 'd'"},
    {1, "{'descr': '<f4\n", 0, 0, 0, "unterminated string starting at header "
                                     "byte 10"},
    {1, "{'descr': '<f4", 0, 0, 0, "unterminated string starting at header "
                                   "byte 10"},
    {1, "{'descr': '<\\x66', }\n", 0, 0, 0, "escape sequences in strings are "
                                            "not supported"},
    {1, H("()") "x", 4, 0, 0, "expected only spaces and a newline after the "
                              "header's '}' at header byte 56, found 'x'"},
    {1, H("()") "\x01", 4, 0, 0, "found byte 0x01"},
    {1, "{'descr': '<f4', 'fortran_order': 1, 'shape': ()}\n", 0, 0, 0,
     "expected True or False as the value of 'fortran_order'"},
    {1, "{'descr': '<f4', 'fortran_order': true, 'shape': ()}\n", 0, 0, 0,
     "expected True or False as the value of 'fortran_order'"},
    {1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", 24, 0,
     0, "x.npy: Fortran-ordered arrays are not supported; save with "
        "np.save(path, np.ascontiguousarray(a))"},
    {1, "{'descr': 4, 'fortran_order': False, 'shape': ()}\n", 0, 0, 0,
     "expected a quoted dtype such as '<f4' as the value of 'descr'"},
    /* shape */
    {1, H("(5)"), 20, 0, 0, "'shape' is (5), which is a number, not a tuple; "
                            "a 1-D shape is written (5,)"},
    {1, H("5"), 20, 0, 0, "expected a tuple such as (2, 3) as the value of "
                          "'shape'"},
    {1, H("[5]"), 20, 0, 0, "expected a tuple such as (2, 3)"},
    {1, H("(-1,)"), 0, 0, 0, "dimension 0 of 'shape' is negative"},
    {1, H("(2, -3)"), 0, 0, 0, "dimension 1 of 'shape' is negative"},
    {1, H("(9223372036854775808,)"), 0, 0, 0,
     "dimension 0 of 'shape' is too large (more than 9223372036854775807)"},
    {1, H("(1, 99999999999999999999999)"), 0, 0, 0,
     "dimension 1 of 'shape' is too large"},
    {1, H("(2 3)"), 0, 0, 0, "expected ',' or ')' in 'shape'"},
    {1, H("(,)"), 0, 0, 0, "expected a dimension or ')' in 'shape'"},
    {1, H("(2,,)"), 0, 0, 0, "expected a dimension or ')' after ',' in "
                             "'shape'"},
    {1, H("(2.5,)"), 0, 0, 0, "expected ',' or ')' in 'shape' at header byte "
                              "52, found '.'"},
    {1, H("(2x,)"), 0, 0, 0, "expected a decimal integer in 'shape'"},
    {1, H("(0x10,)"), 0, 0, 0, "expected a decimal integer in 'shape'"},
    {1, H("(2,"), 0, 0, 0, "expected a dimension or ')' after ','"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5", 0, 0, 0,
     "expected ',' or ')' in 'shape' at header byte 52, found the end of the "
     "header"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5", 4, '5', 0,
     "expected ',' or ')' in 'shape' at header byte 52, found the end of the "
     "header"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5L", 0, 0, 0,
     "expected ',' or ')' in 'shape' at header byte 53"},
    {1, "{'descr': '<f4', 'fortran_order': Fals", 1, 'e', 0,
     "expected True or False as the value of 'fortran_order' at header byte "
     "34, found 'F'"},
    {1, "{'descr': '<f4', 'fortran_order': False", 0, 0, 0,
     "expected ',' or '}' after a value at header byte 39, found the end of "
     "the header"},
    {1, H("(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)"),
     4, 0, 0, "'shape' has more than 32 dimensions"},
    /* element count and size */
    {1, H("(4294967296, 4294967296, 16)"), 0, 0, 0,
     "shape (4294967296, 4294967296, 16) has too many elements (more than "
     "18446744073709551615)"},
    {1, H("(2305843009213693952, 4)"), 0, 0, 0,
     "header says 9223372036854775808 float32 elements, more bytes than fit "
     "in memory"},
    {1, H("(1152921504606846976,)"), 20, 0, 0,
     "x.npy: truncated: header says 1152921504606846976 float32 elements "
     "(4611686018427387904 bytes) but 20 bytes follow"},
    {1, H("(1000,)"), 3996, 0, 0,
     "x.npy: truncated: header says 1000 float32 elements (4000 bytes) but "
     "3996 bytes follow"},
    {1, H("(10, 100)"), 4010, 0, 0,
     "x.npy: 10 extra bytes after the data: header says 1000 float32 elements "
     "(4000 bytes) but 4010 bytes follow"},
    {1, H("()"), 0, 0, 0, "truncated: header says 1 float32 element (4 "
                          "bytes) but 0 bytes follow"},
    {1, H("(0, 3)"), 1, 0, 0, "1 extra byte after the data: header says 0 "
                              "float32 elements (0 bytes) but 1 byte follows"},
    {1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}\n", 3, 2, 0,
     "x.npy: bool element 0 has value 2 (expected 0 or 1)"},
    {1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}\n", 3, 255,
     NPY_I1, "bool element 0 has value 255 (expected 0 or 1)"},
    /* descr */
    {1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}\n", 4,
     0, 0, "structured dtypes are not supported ('descr' is a list of "
           "fields)"},
    {1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,)}\n", 8, 0, 0,
     "object arrays (descr '|O') are not supported; fuser reads bool '|b1'"},
    {1, "{'descr': '<U5', 'fortran_order': False, 'shape': (1,)}\n", 20, 0, 0,
     "dtype '<U5' (unicode strings) is not supported"},
    {1, "{'descr': '|S3', 'fortran_order': False, 'shape': (1,)}\n", 3, 0, 0,
     "dtype '|S3' (byte strings) is not supported"},
    {1, "{'descr': '|V8', 'fortran_order': False, 'shape': (1,)}\n", 8, 0, 0,
     "dtype '|V8' (raw void records) is not supported"},
    {1, "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (1,)}\n", 8, 0,
     0, "dtype '<M8[ns]' (datetime64) is not supported"},
    {1, "{'descr': '<m8[s]', 'fortran_order': False, 'shape': (1,)}\n", 8, 0,
     0, "dtype '<m8[s]' (timedelta64) is not supported"},
    {1, "{'descr': '<u4', 'fortran_order': False, 'shape': (1,)}\n", 4, 0, 0,
     "x.npy: dtype uint32 ('<u4') is not supported; fuser reads bool '|b1', "
     "int8 '|i1', int32 '<i4', int64 '<i8', float16 '<f2', float32 '<f4', "
     "float64 '<f8', uint16 '<u2' holding bf16 bits, and uint8 '|u1' holding "
     "fp8 bits"},
    /* fp8: uint8 bit patterns, only where the caller expects fp8 */
    {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1,)}\n", 1, 0, 0,
     "x.npy: uint8 ('|u1') is only accepted for an fp8 argument (an fp8 "
     "tensor is stored as its uint8 bit patterns; see docs/npy.md)"},
    {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1,)}\n", 1, 0,
     NPY_I1, "x.npy: dtype is uint8 ('|u1') but i1 ('|b1', bool) is expected"},
    {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1,)}\n", 1, 0,
     NPY_I32, "x.npy: dtype is uint8 ('|u1') but i32 ('<i4', int32) is "
              "expected"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}\n", 4, 0,
     NPY_F8E4M3FN, "x.npy: dtype is float32 ('<f4') but f8E4M3FN is expected "
                   "(stored as uint8 '|u1' holding the f8E4M3FN bit patterns; "
                   "see docs/npy.md)"},
    {1, "{'descr': '<u2', 'fortran_order': False, 'shape': (1,)}\n", 2, 0,
     NPY_F8E5M2, "x.npy: dtype is uint16 ('<u2') but f8E5M2 is expected "
                 "(stored as uint8 '|u1' holding the f8E5M2 bit patterns"},
    {1, "{'descr': '<i2', 'fortran_order': False, 'shape': (1,)}\n", 2, 0, 0,
     "dtype int16 ('<i2') is not supported"},
    {1, "{'descr': '<u8', 'fortran_order': False, 'shape': (1,)}\n", 8, 0, 0,
     "dtype uint64 ('<u8') is not supported"},
    {1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,)}\n", 8, 0, 0,
     "dtype complex64 ('<c8') is not supported"},
    {1, "{'descr': '<f16', 'fortran_order': False, 'shape': (1,)}\n", 16, 0, 0,
     "dtype float128 ('<f16') is not supported"},
    {1, "{'descr': '<f3', 'fortran_order': False, 'shape': (1,)}\n", 3, 0, 0,
     "invalid or unsupported dtype descr '<f3'"},
    {1, "{'descr': '<f4 ', 'fortran_order': False, 'shape': (1,)}\n", 4, 0, 0,
     "invalid or unsupported dtype descr '<f4 '"},
    {1, "{'descr': 'float32', 'fortran_order': False, 'shape': (1,)}\n", 4, 0,
     0, "invalid or unsupported dtype descr 'float32'"},
    {1, "{'descr': '<', 'fortran_order': False, 'shape': (1,)}\n", 4, 0, 0,
     "invalid dtype descr '<'"},
    {1, "{'descr': '', 'fortran_order': False, 'shape': (1,)}\n", 4, 0, 0,
     "invalid dtype descr ''"},
    {1, "{'descr': '<f\xff', 'fortran_order': False, 'shape': (1,)}\n", 4, 0,
     0, "invalid or unsupported dtype descr '<f\\xff'"},
    {1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,)}\n", 4, 0, 0,
     "x.npy: big-endian data is not supported (descr '>f4'); convert with "
     "a.astype('<f4')"},
    {1, "{'descr': '>i8', 'fortran_order': False, 'shape': (1,)}\n", 8, 0, 0,
     "big-endian data is not supported (descr '>i8')"},
    {1, "{'descr': '>u2', 'fortran_order': False, 'shape': (1,)}\n", 2, 0,
     NPY_BF16, "big-endian data is not supported (descr '>u2')"},
    /* expected dtype */
    {1, "{'descr': '<u2', 'fortran_order': False, 'shape': (1,)}\n", 2, 0, 0,
     "x.npy: uint16 ('<u2') is only accepted for a bf16 argument (a bf16 "
     "tensor is stored as its uint16 bit patterns; see docs/npy.md)"},
    {1, "{'descr': '<u2', 'fortran_order': False, 'shape': (1,)}\n", 2, 0,
     NPY_F16, "x.npy: dtype is uint16 ('<u2') but f16 ('<f2', float16) is "
              "expected"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}\n", 4, 0,
     NPY_BF16, "x.npy: dtype is float32 ('<f4') but bf16 is expected (stored "
               "as uint16 '<u2' holding the bf16 bit patterns; see "
               "docs/npy.md)"},
    {1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}\n", 8, 0,
     NPY_F32, "x.npy: dtype is float64 ('<f8') but f32 ('<f4', float32) is "
              "expected"},
    {1, "{'descr': '|i1', 'fortran_order': False, 'shape': (1,)}\n", 1, 0,
     NPY_I1, "dtype is int8 ('|i1') but i1 ('|b1', bool) is expected"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}\n", 4, 0,
     (npy_dtype)12, "x.npy: invalid expected dtype 12"},
    /* the same in version 2.0 and 3.0 headers */
    {2, H("(1000,)"), 3996, 0, 0, "but 3996 bytes follow"},
    {3, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", 24, 0,
     0, "Fortran-ordered arrays are not supported"},
    {3, "{'descr': '<f\xc3\xa9', 'fortran_order': False, 'shape': (1,)}\n", 4,
     0, 0, "invalid or unsupported dtype descr '<f\\xc3\\xa9'"},
    {0x102, "{}", 0, 0, 0, "unsupported .npy format version 2.1"},
};

/* Inputs that must parse. */
static const struct {
  int version;
  const char *hdr;
  size_t dlen;
  unsigned char fill;
  npy_dtype expected, dtype;
  int rank;
  int64_t d0, d1;
} kGood[] = {
    {1, H("()"), 4, 0, NPY_F32, NPY_F32, 0, 0, 0},
    {1, H("( )"), 4, 0, 0, NPY_F32, 0, 0, 0},
    {1, H("(5,)"), 20, 0, 0, NPY_F32, 1, 5, 0},
    {1, H("(2, 3,)"), 24, 0, 0, NPY_F32, 2, 2, 3},
    {1, H("(2,3)"), 24, 0, 0, NPY_F32, 2, 2, 3},
    {1, H("(2L, 3L)"), 24, 0, 0, NPY_F32, 2, 2, 3},
    {1, H("(0, 9223372036854775807)"), 0, 0, 0, NPY_F32, 2, 0,
     INT64_MAX},
    {1, H("(\n 2 ,\t3 \n)"), 24, 0, 0, NPY_F32, 2, 2, 3},
    /* any key order, double quotes, no trailing comma, no padding */
    {1, "{\"shape\": (4,), \"descr\": \"<i4\", \"fortran_order\": False}", 16,
     7, NPY_I32, NPY_I32, 1, 4, 0},
    {1, "{'fortran_order':False,'shape':(4,),'descr':'<i8',}", 32, 7, 0,
     NPY_I64, 1, 4, 0},
    {1, " \n{ 'descr' : '<f8' ,\n 'fortran_order' : False ,\r\n 'shape' : "
        "( 1 , ) , } \n\n  \t\f",
     8, 0, 0, NPY_F64, 1, 1, 0},
    /* byte-order spellings */
    {1, "{'descr': '=f4', 'fortran_order': False, 'shape': (1,)}", 4, 0, 0,
     NPY_F32, 1, 1, 0},
    {1, "{'descr': 'f2', 'fortran_order': False, 'shape': (1,)}", 2, 0, 0,
     NPY_F16, 1, 1, 0},
    {1, "{'descr': '<b1', 'fortran_order': False, 'shape': (1,)}", 1, 1, 0,
     NPY_I1, 1, 1, 0},
    {1, "{'descr': '>i1', 'fortran_order': False, 'shape': (1,)}", 1, 0x80, 0,
     NPY_I8, 1, 1, 0},
    {1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}", 3, 0, 0,
     NPY_I1, 1, 3, 0},
    /* uint8 for an i8 argument: the same bytes (a torch.uint8 mask) */
    {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,)}", 3, 0xff,
     NPY_I8, NPY_I8, 1, 3, 0},
    {1, "{'descr': '<u1', 'fortran_order': False, 'shape': (2, 2)}", 4, 1,
     NPY_I8, NPY_I8, 2, 2, 2},
    {1, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,)}", 6, 0x3f,
     NPY_BF16, NPY_BF16, 1, 3, 0},
    {1, "{'descr': '=u2', 'fortran_order': False, 'shape': (3,)}", 6, 0x3f,
     NPY_BF16, NPY_BF16, 1, 3, 0},
    /* versions 2.0 and 3.0 */
    {2, H("(2, 3)"), 24, 1, 0, NPY_F32, 2, 2, 3},
    {3, H("(2, 3)"), 24, 1, NPY_F32, NPY_F32, 2, 2, 3},
    /* zero-size */
    {1, H("(0,)"), 0, 0, 0, NPY_F32, 1, 0, 0},
    {1, H("(3, 0)"), 0, 0, 0, NPY_F32, 2, 3, 0},
};

static void group_errors(void) {
  char err[NPY_ERR_LEN];
  npy_array a;
  int n = 0;
  for (size_t i = 0; i < sizeof kBad / sizeof kBad[0]; i++) {
    size_t size;
    unsigned char *b =
        mk(kBad[i].version, kBad[i].hdr, kBad[i].dlen, kBad[i].fill, &size);
    memset(&a, 0xab, sizeof a);
    err[0] = '\0';
    int rc = parse_exact(b, size, kBad[i].expected, &a, err, sizeof err);
    CHECK(rc != 0 && strncmp(err, "x.npy: ", 7) == 0 &&
              strstr(err, kBad[i].want) != NULL,
          "case %zu (%s):\n  want: %s\n  got:  %s", i, kBad[i].hdr,
          kBad[i].want, rc ? err : "(accepted)");
    CHECK(is_zeroed(&a), "case %zu: output zeroed on error", i);
    npy_free(&a);
    free(b);
    n++;
  }
  for (size_t i = 0; i < sizeof kGood / sizeof kGood[0]; i++) {
    size_t size;
    unsigned char *b = mk(kGood[i].version, kGood[i].hdr, kGood[i].dlen,
                          kGood[i].fill, &size);
    int rc = parse_exact(b, size, kGood[i].expected, &a, err, sizeof err);
    CHECK(rc == 0, "good case %zu (%s): %s", i, kGood[i].hdr, err);
    if (rc == 0) {
      CHECK(a.dtype == kGood[i].dtype && a.rank == kGood[i].rank,
            "good case %zu: dtype %s rank %d", i, npy_dtype_name(a.dtype),
            a.rank);
      CHECK(a.rank < 1 || a.shape[0] == kGood[i].d0, "good case %zu: d0", i);
      CHECK(a.rank < 2 || a.shape[1] == kGood[i].d1, "good case %zu: d1", i);
      CHECK(a.num_elements * a.element_size == kGood[i].dlen,
            "good case %zu: size", i);
      CHECK(a.data != NULL, "good case %zu: data", i);
      for (size_t j = 0; j < kGood[i].dlen; j++)
        if (((unsigned char *)a.data)[j] != kGood[i].fill) {
          CHECK(0, "good case %zu: data byte %zu", i, j);
          break;
        }
    }
    npy_free(&a);
    free(b);
    n++;
  }

  /* Preambles that are too short or not .npy at all. */
  static const struct {
    const char *bytes;
    size_t n;
    const char *want;
  } pre[] = {
      {"", 0, "x.npy: empty input; not a .npy file"},
      {"\x93", 1, "truncated: 1 byte, shorter than the 10-byte preamble"},
      {"\x93NUM", 4, "truncated: 4 bytes, shorter than the 10-byte preamble"},
      {"\x93NUMPY\x01", 7, "truncated: 7 bytes"},
      {"\x93NUMPY\x01\x00\x00", 9,
       "truncated: 9 bytes, shorter than the 10-byte preamble of a version 1.0 "
       "file"},
      {"\x93NUMPY\x02\x00\x00\x00\x00", 11,
       "truncated: 11 bytes, shorter than the 12-byte preamble of a version "
       "2.0 file"},
      {"\x93NUMPY\x01\x00\x76\x00{'descr'", 18,
       "truncated: the header is 118 bytes but only 8 bytes follow the "
       "10-byte preamble"},
      {"\x93NUMPY\x03\x00\xff\xff\xff\xff{", 13,
       "truncated: the header is 4294967295 bytes but only 1 byte follows the "
       "12-byte preamble"},
      {"hello", 5, "x.npy: not a .npy file (it does not start with the magic "
                   "string \\x93NUMPY)"},
      {"PK\x03\x04", 4, "not a .npy file"},
      {"\x93NUMPX\x01\x00\x00\x00", 10, "not a .npy file"},
  };
  for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
    int rc = parse_exact(pre[i].bytes, pre[i].n, 0, &a, err, sizeof err);
    CHECK(rc != 0 && strstr(err, pre[i].want) != NULL,
          "preamble case %zu:\n  want: %s\n  got:  %s", i, pre[i].want,
          rc ? err : "(accepted)");
    npy_free(&a);
    n++;
  }

  /* NULL and odd arguments. */
  CHECK(npy_parse(NULL, 0, 0, "x.npy", &a, err, sizeof err) != 0 &&
            strstr(err, "x.npy: empty input"),
        "%s", err);
  CHECK(npy_parse(NULL, 5, 0, "x.npy", &a, err, sizeof err) != 0 &&
            strstr(err, "NULL input"),
        "%s", err);
  CHECK(npy_parse("abc", 3, 0, NULL, &a, err, sizeof err) != 0 &&
            strncmp(err, "<npy>: not a .npy file", 22) == 0,
        "%s", err);
  CHECK(npy_parse("abc", 3, 0, "x.npy", NULL, err, sizeof err) != 0 &&
            strstr(err, "NULL output"),
        "%s", err);
  CHECK(npy_parse("abc", 3, 0, "x.npy", &a, NULL, 0) != 0, "NULL err");
  CHECK(npy_parse("abc", 3, 0, "x.npy", &a, err, 0) != 0, "errlen 0");
  /* A small buffer gets a cut, terminated message. */
  memset(err, 'z', sizeof err);
  CHECK(npy_parse("abc", 3, 0, "x.npy", &a, err, 10) != 0 &&
            strcmp(err, "x.npy: no") == 0 && err[10] == 'z',
        "%.20s", err);
  memset(err, 'z', sizeof err);
  CHECK(npy_parse("abc", 3, 0, "a-very-long-file-name.npy", &a, err, 5) != 0 &&
            strcmp(err, "a-ve") == 0,
        "%.20s", err);
  CHECK(npy_parse("abc", 3, 0, "x.npy", &a, err, 1) != 0 && err[0] == '\0',
        "errlen 1");
  /* Untrusted text in messages is cut and escaped. */
  {
    char hdr[400];
    snprintf(hdr, sizeof hdr,
             "{'%0200d': 1}\n", 7);
    size_t size;
    unsigned char *b = mk(1, hdr, 0, 0, &size);
    CHECK(parse_exact(b, size, 0, &a, err, sizeof err) != 0 &&
              strstr(err, "unknown header key '0000") &&
              strstr(err, "...'") && strlen(err) < 200,
          "%s", err);
    free(b);
  }
  printf("errors: %d cases\n", n);
}

/* ---- files ------------------------------------------------------------------ */

static char *tmpdir_path(void) {
  const char *t = getenv("TMPDIR");
  if (!t || !*t) t = "/tmp";
  size_t n = strlen(t) + 32;
  char *p = xmalloc(n);
  snprintf(p, n, "%s/npy-test-XXXXXX", t);
  if (!mkdtemp(p)) {
    fprintf(stderr, "mkdtemp %s: %s\n", p, strerror(errno));
    exit(2);
  }
  return p;
}

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = xmalloc(n);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

static int write_file(const char *path, const void *b, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int ok = fwrite(b, 1, n, f) == n;
  return fclose(f) == 0 && ok ? 0 : -1;
}

static unsigned char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  unsigned char *b = xmalloc(cap);
  size_t got;
  while ((got = fread(b + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) {
      cap *= 2;
      b = realloc(b, cap);
      if (!b) exit(2);
    }
  }
  fclose(f);
  *n = len;
  return b;
}

static void rm_rf(const char *dir) {
  char cmd[4200];
  if (strchr(dir, '\'') || strlen(dir) > 4000) return;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static void group_files(void) {
  char *dir = tmpdir_path();
  char err[NPY_ERR_LEN];
  npy_array a, b;
  int n = 0;

  /* Save and load every dtype, small and beyond the 4 KiB first read. */
  static const int64_t sizes[] = {0, 1, 3, 1000, 1021, 4032, 100000};
  for (int ti = 0; ti < NUM_DTYPES; ti++) {
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
      char name[64];
      snprintf(name, sizeof name, "%s_%lld.npy", npy_dtype_name(kAll[ti]),
               (long long)sizes[si]);
      char *path = join(dir, name);
      make_array(&a, kAll[ti], 1, &sizes[si], 3);
      CHECK(npy_save(path, &a, err, sizeof err) == 0, "%s", err);
      int rc = npy_load(path, kAll[ti], &b, err, sizeof err);
      CHECK(rc == 0 && same_array(&a, &b), "%s: %s", name,
            rc ? err : "differs");
      /* The file is what npy_serialize makes. */
      void *ser;
      size_t ser_n, file_n;
      CHECK(npy_serialize(&a, &ser, &ser_n, err, sizeof err) == 0, "%s", err);
      unsigned char *file = read_file(path, &file_n);
      CHECK(file && file_n == ser_n && memcmp(file, ser, ser_n) == 0,
            "%s: save and serialize differ", name);
      free(file);
      free(ser);
      npy_free(&a);
      npy_free(&b);
      free(path);
      n++;
    }
  }
  /* A file of exactly 4096 bytes: 4096 - 128 = 3968 bytes of int8. */
  {
    int64_t sh = 4096 - 128 + 0;
    char *path = join(dir, "exact4096.npy");
    make_array(&a, NPY_I8, 1, &sh, 0);
    CHECK(npy_save(path, &a, err, sizeof err) == 0, "%s", err);
    size_t fn;
    unsigned char *file = read_file(path, &fn);
    CHECK(file && (fn == 4096 || fn == 4096 + 64), "size %zu", fn);
    free(file);
    CHECK(npy_load(path, NPY_I8, &b, err, sizeof err) == 0 &&
              same_array(&a, &b),
          "%s", err);
    npy_free(&a);
    npy_free(&b);
    free(path);
  }
  /* Errors are reported with the path, as npy_parse reports them. */
  {
    char *path = join(dir, "bad.npy");
    size_t size;
    unsigned char *bytes = mk(1, H("(1000,)"), 3996, 0, &size);
    CHECK(write_file(path, bytes, size) == 0, "write");
    free(bytes);
    CHECK(npy_load(path, NPY_F32, &b, err, sizeof err) != 0 &&
              strncmp(err, path, strlen(path)) == 0 &&
              strstr(err, ": truncated: header says 1000 float32 elements "
                          "(4000 bytes) but 3996 bytes follow"),
          "%s", err);
    CHECK(is_zeroed(&b), "zeroed");
    /* Not a .npy file, large: rejected after the first read. */
    unsigned char *junk = xmalloc(100000);
    memset(junk, 'x', 100000);
    CHECK(write_file(path, junk, 100000) == 0, "write");
    free(junk);
    CHECK(npy_load(path, 0, &b, err, sizeof err) != 0 &&
              strstr(err, "not a .npy file"),
          "%s", err);
    CHECK(write_file(path, "", 0) == 0, "write");
    CHECK(npy_load(path, 0, &b, err, sizeof err) != 0 &&
              strstr(err, "empty input; not a .npy file"),
          "%s", err);
    CHECK(write_file(path, "\x93NUM", 4) == 0, "write");
    CHECK(npy_load(path, 0, &b, err, sizeof err) != 0 &&
              strstr(err, "truncated: 4 bytes"),
          "%s", err);
    free(path);
    n += 4;
  }
  /* I/O errors. */
  {
    char *path = join(dir, "missing/x.npy");
    CHECK(npy_load(path, 0, &b, err, sizeof err) != 0 &&
              strstr(err, "x.npy: cannot open: No such file or directory"),
          "%s", err);
    make_array(&a, NPY_F32, 0, NULL, 0);
    CHECK(npy_save(path, &a, err, sizeof err) != 0 &&
              strstr(err, "x.npy: cannot create: No such file or directory"),
          "%s", err);
    free(path);
    CHECK(npy_load(dir, 0, &b, err, sizeof err) != 0 &&
              strstr(err, "cannot read: Is a directory"),
          "%s", err);
    CHECK(npy_save(dir, &a, err, sizeof err) != 0 &&
              strstr(err, "cannot create: Is a directory"),
          "%s", err);
    if (access("/dev/full", W_OK) == 0) {
      CHECK(npy_save("/dev/full", &a, err, sizeof err) != 0 &&
                strstr(err, "/dev/full: cannot write (the file may be "
                            "incomplete): No space left on device"),
            "%s", err);
    }
    CHECK(npy_load("/dev/null", 0, &b, err, sizeof err) != 0 &&
              strstr(err, "/dev/null: empty input"),
          "%s", err);
    CHECK(npy_load(NULL, 0, &b, err, sizeof err) != 0 &&
              strstr(err, "NULL path"),
          "%s", err);
    CHECK(npy_load("x", 0, NULL, err, sizeof err) != 0 &&
              strstr(err, "NULL output"),
          "%s", err);
    CHECK(npy_save(NULL, &a, err, sizeof err) != 0 && strstr(err, "NULL path"),
          "%s", err);
    a.num_elements = 2;
    char *p2 = join(dir, "never.npy");
    CHECK(npy_save(p2, &a, err, sizeof err) != 0 &&
              strstr(err, "never.npy: num_elements is 2 but the shape has 1 "
                          "elements") &&
              access(p2, F_OK) != 0,
          "%s", err);
    free(p2);
    a.num_elements = 1;
    npy_free(&a);
    n += 9;
  }
  /* A pipe: no size to be had, the buffer grows as it reads. */
  {
    char *path = join(dir, "fifo.npy");
    int64_t sh[2] = {300, 70};
    make_array(&a, NPY_F64, 2, sh, 5);
    void *ser;
    size_t ser_n;
    CHECK(npy_serialize(&a, &ser, &ser_n, err, sizeof err) == 0, "%s", err);
    if (mkfifo(path, 0600) == 0) {
      fflush(NULL);
      pid_t pid = fork();
      if (pid == 0) {
        FILE *f = fopen(path, "wb");
        if (f) {
          fwrite(ser, 1, ser_n, f);
          fclose(f);
        }
        _exit(0);
      }
      int rc = npy_load(path, NPY_F64, &b, err, sizeof err);
      CHECK(rc == 0 && same_array(&a, &b), "fifo: %s", rc ? err : "differs");
      int st;
      waitpid(pid, &st, 0);
      npy_free(&b);
      n++;
    } else {
      printf("files: mkfifo failed (%s); the pipe case is skipped\n",
             strerror(errno));
    }
    free(ser);
    npy_free(&a);
    free(path);
  }
  rm_rf(dir);
  free(dir);
  printf("files: %d cases\n", n);
}

/* ---- truncation ------------------------------------------------------------- */

/* The valid inputs that truncation and mutation start from. */
static size_t seeds(unsigned char ***out, size_t **sizes) {
  static const struct {
    npy_dtype t;
    int rank;
    int64_t shape[4];
  } arrs[] = {
      {NPY_I1, 2, {3, 4}},     {NPY_I8, 1, {7}},       {NPY_I32, 0, {0}},
      {NPY_I64, 2, {2, 2}},    {NPY_F16, 3, {1, 2, 3}}, {NPY_BF16, 1, {4}},
      {NPY_F32, 2, {2, 3}},    {NPY_F64, 1, {2}},      {NPY_F32, 2, {0, 5}},
      {NPY_I1, 4, {1, 1, 2, 1}},
  };
  static const char *const hand[] = {
      "{\"shape\": (4,), \"descr\": \"<i4\", \"fortran_order\": False}",
      "{'fortran_order':False,'shape':(2,2,),'descr':'<i4',}",
      " {'descr': '<u2', 'fortran_order': False, 'shape': (2L, 4L), }\n",
      "{'descr': '|b1', 'fortran_order': False, 'shape': (16,)}",
  };
  size_t na = sizeof arrs / sizeof arrs[0], nh = sizeof hand / sizeof hand[0];
  size_t total = na + 2 * nh;
  unsigned char **v = xmalloc(total * sizeof *v);
  size_t *s = xmalloc(total * sizeof *s);
  char err[NPY_ERR_LEN];
  for (size_t i = 0; i < na; i++) {
    npy_array a;
    make_array(&a, arrs[i].t, arrs[i].rank, arrs[i].shape, (unsigned)i);
    void *buf;
    if (npy_serialize(&a, &buf, &s[i], err, sizeof err)) {
      fprintf(stderr, "seed: %s\n", err);
      exit(2);
    }
    v[i] = buf;
    npy_free(&a);
  }
  for (size_t i = 0; i < nh; i++) {
    v[na + i] = mk(1, hand[i], 16, 1, &s[na + i]);
    v[na + nh + i] = mk(i % 2 ? 2 : 3, hand[i], 16, 0, &s[na + nh + i]);
  }
  *out = v;
  *sizes = s;
  return total;
}

static npy_dtype seed_dtype(const unsigned char *b, size_t n) {
  npy_array a;
  char err[NPY_ERR_LEN];
  for (int i = 0; i < NUM_DTYPES; i++)
    if (npy_parse(b, n, kAll[i], "seed", &a, err, sizeof err) == 0) {
      npy_dtype t = a.dtype;
      npy_free(&a);
      return t;
    }
  return 0;
}

static void group_truncation(void) {
  unsigned char **v;
  size_t *s;
  size_t nv = seeds(&v, &s);
  char err[NPY_ERR_LEN];
  size_t n = 0;
  for (size_t i = 0; i < nv; i++) {
    npy_dtype t = seed_dtype(v[i], s[i]);
    CHECK(t != 0, "seed %zu does not parse", i);
    for (size_t len = 0; len < s[i]; len++) {
      npy_array a;
      err[0] = '\0';
      int rc = parse_exact(v[i], len, t, &a, err, sizeof err);
      CHECK(rc != 0 && strncmp(err, "x.npy: ", 7) == 0 && strlen(err) > 12,
            "seed %zu cut at %zu: %s", i, len, rc ? err : "accepted");
      CHECK(is_zeroed(&a), "zeroed");
      /* Past the header, the message is about the data. */
      if (len >= s[i] - 1 && s[i] > 128)
        CHECK(strstr(err, "truncated: header says") != NULL, "%s", err);
      n++;
    }
    /* And one byte too many. */
    unsigned char *more = xmalloc(s[i] + 1);
    memcpy(more, v[i], s[i]);
    more[s[i]] = 0;
    npy_array a;
    CHECK(parse_exact(more, s[i] + 1, t, &a, err, sizeof err) != 0 &&
              strstr(err, "1 extra byte after the data"),
          "%s", err);
    free(more);
    free(v[i]);
  }
  free(v);
  free(s);

  /* The header length is honoured: a header cut anywhere before its '}'
   * fails, even when the bytes after it would complete it. */
  static const char *const hdrs[] = {
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
      "{\"shape\":(12,),\"fortran_order\":False,\"descr\":\"|b1\"}",
      "{ 'fortran_order' : False , 'descr' : '<u2' , 'shape' : ( 1L , ) }",
  };
  static const unsigned char fills[] = {0, '9', '}', ' ', ')', ',', '\''};
  for (size_t h = 0; h < sizeof hdrs / sizeof hdrs[0]; h++) {
    size_t close = strlen(hdrs[h]) - 1;
    for (size_t k = 0; k <= close; k++)
      for (size_t fi = 0; fi < sizeof fills; fi++) {
        size_t size;
        unsigned char *b = mkn(1 + (int)(k % 3), hdrs[h], k, fi ? 24 : 0,
                               fills[fi], &size);
        for (int e = 0; e <= NUM_DTYPES; e++) {
          npy_array a;
          int rc = parse_exact(b, size, e ? kAll[e - 1] : 0, &a, err,
                               sizeof err);
          CHECK(rc != 0, "header %zu cut at %zu, fill '%c': accepted", h, k,
                fills[fi]);
          npy_free(&a);
          n++;
        }
        free(b);
      }
  }
  printf("truncation: %zu cut inputs rejected\n", n);
}

/* ---- mutation --------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void) {
  uint64_t x = rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  return x * 0x2545f4914f6cdd1dull;
}

static size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* Checks what a successful parse returned, and that it round-trips. */
static void check_parsed(const npy_array *a, size_t input_size) {
  char err[NPY_ERR_LEN];
  CHECK(a->rank >= 0 && a->rank <= FUSER_MAX_RANK, "rank %d", a->rank);
  CHECK(a->data != NULL, "data");
  CHECK(a->element_size == npy_dtype_size(a->dtype), "element size");
  size_t n = 1;
  int zero = 0;
  for (int i = 0; i < a->rank; i++) {
    CHECK(a->shape[i] >= 0, "dim");
    if (a->shape[i] == 0) zero = 1;
    else n *= (size_t)a->shape[i];
  }
  if (zero) n = 0;
  CHECK(n == a->num_elements, "num_elements");
  CHECK(n * a->element_size <= input_size, "data larger than the input");
  if (a->dtype == NPY_I1)
    for (size_t i = 0; i < n; i++)
      CHECK(((unsigned char *)a->data)[i] <= 1, "bool");
  void *buf;
  size_t size;
  npy_array b;
  if (npy_serialize(a, &buf, &size, err, sizeof err) != 0) {
    CHECK(0, "reserialize: %s", err);
    return;
  }
  CHECK(parse_exact(buf, size, a->dtype, &b, err, sizeof err) == 0 &&
            same_array(a, &b),
        "reparse: %s", err);
  npy_free(&b);
  free(buf);
}

static void group_mutation(long iterations) {
  static const unsigned char interesting[] = {
      0,   1,   0xff, 0x7f, 0x80, '(', ')', ',', ' ', '\'', '"', ':', '{',
      '}', '[', '\n', '-', '0', '9', 'L', 'T', 'F', '<', '>', '|', '=',
      'u', 'f', 'i', 'b', '2', '4', '8', '\\', 'O',
  };
  unsigned char **v;
  size_t *s;
  size_t nv = seeds(&v, &s);
  char err[NPY_ERR_LEN];
  long ok = 0;
  size_t maxlen = 0;
  for (size_t i = 0; i < nv; i++) maxlen = s[i] > maxlen ? s[i] : maxlen;
  size_t cap = maxlen * 2 + 64;
  unsigned char *work = xmalloc(cap);
  for (long it = 0; it < iterations; it++) {
    size_t si = rnd_below(nv);
    size_t len = s[si];
    memcpy(work, v[si], len);
    int muts = 1 + (int)rnd_below(rnd_below(2) ? 2 : 8);
    for (int m = 0; m < muts; m++) {
      /* Mostly in the preamble and header, where the parsing is. */
      size_t hot = len < 140 ? len : 140;
      size_t pos = rnd_below(2) ? rnd_below(hot) : rnd_below(len);
      switch (rnd_below(9)) {
      case 0: /* flip a bit */
        if (len) work[pos] ^= (unsigned char)(1u << rnd_below(8));
        break;
      case 1: /* an interesting byte */
        if (len) work[pos] = interesting[rnd_below(sizeof interesting)];
        break;
      case 2: /* a random byte */
        if (len) work[pos] = (unsigned char)rnd();
        break;
      case 3: /* insert a byte */
        if (len < cap) {
          memmove(work + pos + 1, work + pos, len - pos);
          work[pos] = interesting[rnd_below(sizeof interesting)];
          len++;
        }
        break;
      case 4: /* delete a byte */
        if (len) {
          memmove(work + pos, work + pos + 1, len - pos - 1);
          len--;
        }
        break;
      case 5: /* truncate */
        len = rnd_below(len + 1);
        break;
      case 6: { /* the header length field */
        if (len >= 12) {
          unsigned k = 8 + (unsigned)rnd_below(work[6] == 1 ? 2 : 4);
          work[k] = (unsigned char)(rnd_below(2) ? work[k] + rnd_below(5) - 2
                                                 : rnd());
        }
        break;
      }
      case 7: /* a digit in the shape */
        for (size_t j = 0; j < len; j++)
          if (work[j] >= '0' && work[j] <= '9' && rnd_below(4) == 0) {
            work[j] = (unsigned char)('0' + rnd_below(10));
            break;
          }
        break;
      default: { /* duplicate a chunk */
        size_t from = rnd_below(len), cl = 1 + rnd_below(8);
        if (from + cl <= len && len + cl <= cap) {
          memmove(work + pos + cl, work + pos, len - pos);
          memmove(work + pos, work + (from >= pos ? from + cl : from), cl);
          len += cl;
        }
        break;
      }
      }
    }
    npy_array a;
    npy_dtype expected = (npy_dtype)rnd_below(9);
    int rc = parse_exact(work, len, expected, &a, err, sizeof err);
    if (rc == 0) {
      ok++;
      check_parsed(&a, len);
      CHECK(expected == 0 || a.dtype == expected, "dtype");
    } else {
      CHECK(strncmp(err, "x.npy: ", 7) == 0 && strlen(err) < sizeof err,
            "message: %s", err);
      CHECK(is_zeroed(&a), "zeroed");
    }
    npy_free(&a);
    if (failures > 20) break;
  }
  free(work);
  for (size_t i = 0; i < nv; i++) free(v[i]);
  free(v);
  free(s);
  printf("mutation: %ld mutated inputs, %ld accepted and round-tripped\n",
         iterations, ok);
}

/* ---- numpy ------------------------------------------------------------------ */

/* Fixtures written by NumPy. A manifest line is either
 *   ok NAME DTYPE EXACT RANK D0 D1 ...
 * (NAME.npy loads as fuser dtype DTYPE with that shape and the bytes of
 * NAME.bin; EXACT=1 when npy_serialize must reproduce the file byte for
 * byte), or
 *   err NAME EXPECTED MESSAGE...
 * (loading NAME.npy with EXPECTED fails with a message containing
 * "NAME.npy: MESSAGE"). */
static const char *const kGenPy[] = {
    "import sys, os, numpy as np\n",
    "d = sys.argv[1]\n",
    "exact = 1 if hasattr(np.lib.format, 'GROWTH_AXIS_MAX_DIGITS') else 0\n",
    "man = open(os.path.join(d, 'manifest.txt'), 'w')\n",
    "T = {'bool': 1, 'int8': 2, 'int32': 3, 'int64': 4, 'float16': 5,\n",
    "     'uint16': 6, 'float32': 7, 'float64': 8, 'uint8': 9}\n",
    "def ok(name, a, version=None, as_type=None):\n",
    "    p = os.path.join(d, name + '.npy')\n",
    "    if version is None:\n",
    "        np.save(p, a)\n",
    "    else:\n",
    "        with open(p, 'wb') as f:\n",
    "            np.lib.format.write_array(f, a, version=version)\n",
    "    open(os.path.join(d, name + '.bin'), 'wb').write(\n",
    "        np.ascontiguousarray(a).tobytes())\n",
    "    ex = exact if version is None and a.flags.c_contiguous else 0\n",
    "    ex = ex if as_type is None else 0\n",
    "    t = T[a.dtype.name] if as_type is None else as_type\n",
    "    man.write('ok %s %d %d %d %s\\n' % (name, t, ex,\n",
    "              a.ndim, ' '.join(str(x) for x in a.shape)))\n",
    "def err(name, a, expected, msg, **kw):\n",
    "    np.save(os.path.join(d, name + '.npy'), a, **kw)\n",
    "    man.write('err %s %d %s\\n' % (name, expected, msg))\n",
    "rng = np.random.default_rng(7)\n",
    "ok('bool', (np.arange(12) % 3 == 0).reshape(3, 4))\n",
    "ok('int8', np.array([-128, -1, 0, 1, 127, 5], np.int8).reshape(2, 3))\n",
    "ok('int32', np.arange(-3, 4, dtype=np.int32) * 100000)\n",
    "ok('int64', np.array([[2**62, -2**63], [2**63 - 1, 0], [1, -1]],\n",
    "   np.int64))\n",
    "ok('float16', np.array([0.0, -0.0, 1.5, 65504, np.inf, -np.inf, np.nan,\n",
    "   6e-8], np.float16))\n",
    "ok('float32', rng.standard_normal((4, 5, 6)).astype(np.float32))\n",
    "ok('float64', rng.standard_normal((3, 3)))\n",
    "f = np.array([1.0, -2.5, 3.14159, 1e-3, 65280.0, -np.inf, 1e30, 0.0],\n",
    "             np.float32)\n",
    "ok('bf16', (f.view(np.uint32) >> 16).astype(np.uint16).reshape(2, 4))\n",
    "ok('rank0_f32', np.array(3.5, np.float32))\n",
    "ok('rank0_i64', np.array(-7, np.int64))\n",
    "ok('rank0_bool', np.array(True))\n",
    "ok('empty_f32', np.zeros((0, 3), np.float32))\n",
    "ok('empty_i32', np.zeros((2, 0, 5), np.int32))\n",
    "ok('empty_1d', np.zeros((0,), np.float64))\n",
    "ok('large', rng.standard_normal((1000, 1000)).astype(np.float32))\n",
    "ok('wide', (np.arange(12345678) % 256 - 128).astype(np.int8))\n",
    "ok('rank32', np.arange(6, dtype=np.int32).reshape((1,) * 30 + (2, 3)))\n",
    "ok('rank5', rng.integers(0, 2, (2, 1, 3, 1, 2)).astype(np.bool_))\n",
    "ok('strided', np.arange(20, dtype=np.float32)[::3])\n",
    "ok('v2', np.arange(24, dtype=np.float64).reshape(2, 3, 4), (2, 0))\n",
    "ok('v3', np.arange(6, dtype=np.int64).reshape(3, 2), (3, 0))\n",
    "ok('v2_rank0', np.array(2.0, np.float16), (2, 0))\n",
    "err('fortran', np.asfortranarray(np.arange(6, dtype=np.float32)\n",
    "    .reshape(2, 3)), 7, 'Fortran-ordered arrays are not supported; save '\n",
    "    'with np.save(path, np.ascontiguousarray(a))')\n",
    "err('bigendian', np.arange(4, dtype='>f4'), 7,\n",
    "    \"big-endian data is not supported (descr '>f4')\")\n",
    "err('bigendian_i8', np.arange(4, dtype='>i8'), 0,\n",
    "    \"big-endian data is not supported (descr '>i8')\")\n",
    "err('uint8', np.arange(4, dtype=np.uint8), 0,\n",
    "    \"uint8 ('|u1') is only accepted for an fp8 argument\")\n",
    "ok('fp8', np.arange(256, dtype=np.uint8).reshape(16, 16))\n",
    "ok('u8_as_i8', np.array([[0, 1, 1], [0, 128, 255]], np.uint8),\n",
    "   as_type=2)\n",
    "err('u8_as_bool', np.array([0, 1], np.uint8), 1,\n",
    "    \"dtype is uint8 ('|u1') but i1 ('|b1', bool) is expected\")\n",
    "err('f32_as_fp8', np.arange(4, dtype=np.float32), 10,\n",
    "    \"dtype is float32 ('<f4') but f8E5M2 is expected\")\n",
    "err('int16', np.arange(4, dtype=np.int16), 0,\n",
    "    \"dtype int16 ('<i2') is not supported\")\n",
    "err('uint32', np.arange(4, dtype=np.uint32), 0,\n",
    "    \"dtype uint32 ('<u4') is not supported\")\n",
    "err('complex64', np.arange(4, dtype=np.complex64), 0,\n",
    "    \"dtype complex64 ('<c8') is not supported\")\n",
    "err('longdouble', np.arange(4, dtype=np.longdouble), 0,\n",
    "    \"dtype float128 ('<f16') is not supported\")\n",
    "err('object', np.array([1, 'a', None], dtype=object), 0,\n",
    "    \"object arrays (descr '|O') are not supported\")\n",
    "err('structured', np.zeros(3, dtype=[('a', '<f4'), ('b', '<i4')]), 0,\n",
    "    'structured dtypes are not supported')\n",
    "err('unicode', np.array(['abc', 'de']), 0,\n",
    "    \"dtype '<U3' (unicode strings) is not supported\")\n",
    "err('datetime', np.array(['2024-01-01'], dtype='datetime64[D]'), 0,\n",
    "    \"dtype '<M8[D]' (datetime64) is not supported\")\n",
    "err('u16_any', np.arange(4, dtype=np.uint16), 0,\n",
    "    \"uint16 ('<u2') is only accepted for a bf16 argument\")\n",
    "err('u16_f16', np.arange(4, dtype=np.uint16), 5,\n",
    "    \"dtype is uint16 ('<u2') but f16 ('<f2', float16) is expected\")\n",
    "err('f32_as_bf16', np.arange(4, dtype=np.float32), 6,\n",
    "    \"dtype is float32 ('<f4') but bf16 is expected\")\n",
    "err('f64_as_f32', np.arange(4, dtype=np.float64), 7,\n",
    "    \"dtype is float64 ('<f8') but f32 ('<f4', float32) is expected\")\n",
    "err('bool_as_i8', np.zeros(4, dtype=np.bool_), 2,\n",
    "    \"dtype is bool ('|b1') but i8 ('|i1', int8) is expected\")\n",
    "man.close()\n",
    NULL};

/* Checks files written by npy_save in NumPy: the C side writes NAME.npy,
 * NAME.bin (the data) and a line "NAME DESCR RANK D0 ..." to written.txt;
 * bf16 files must hold the top 16 bits of the float32 values in BF16VALS,
 * and torch (when present) must read them back as those bf16 values. */
static const char *const kCheckPy[] = {
    "import sys, os, numpy as np\n",
    "d = sys.argv[1]\n",
    "bad = 0\n",
    "n = 0\n",
    "for line in open(os.path.join(d, 'written.txt')):\n",
    "    f = line.split()\n",
    "    name, descr, rank = f[0], f[1], int(f[2])\n",
    "    shape = tuple(int(x) for x in f[3:3 + rank])\n",
    "    a = np.load(os.path.join(d, name + '.npy'))\n",
    "    raw = open(os.path.join(d, name + '.bin'), 'rb').read()\n",
    "    n += 1\n",
    "    if a.dtype.str != descr or a.shape != shape or \\\n",
    "       a.tobytes() != raw or not a.flags.c_contiguous:\n",
    "        print('MISMATCH', name, a.dtype.str, descr, a.shape, shape)\n",
    "        bad += 1\n",
    "vals = np.array([float(x) for x in sys.argv[2].split(',')], np.float32)\n",
    "want = (vals.view(np.uint32) >> 16).astype(np.uint16)\n",
    "a = np.load(os.path.join(d, 'bf16_values.npy'))\n",
    "if a.dtype != np.uint16 or not np.array_equal(a, want):\n",
    "    print('bf16 bits differ', a, want)\n",
    "    bad += 1\n",
    "trunc = (vals.view(np.uint32) & 0xffff0000).view(np.float32)\n",
    "if not np.array_equal(a.astype(np.uint32) << 16, trunc.view(np.uint32)):\n",
    "    print('bf16 values differ')\n",
    "    bad += 1\n",
    "try:\n",
    "    import torch\n",
    "except Exception:\n",
    "    torch = None\n",
    "if torch is not None:\n",
    "    t = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)\n",
    "    t = t.float().numpy()\n",
    "    if not np.array_equal(t, trunc, equal_nan=True):\n",
    "        print('torch bf16 view differs', t, trunc)\n",
    "        bad += 1\n",
    "    back = torch.tensor(trunc).to(torch.bfloat16).view(torch.int16)\n",
    "    if not np.array_equal(back.numpy().view(np.uint16), a):\n",
    "        print('torch bf16 bits differ')\n",
    "        bad += 1\n",
    "print('numpy checked %d files written by npy_save%s' %\n",
    "      (n, ', and bf16 through torch' if torch is not None else\n",
    "       ' (torch absent: bf16 checked with numpy only)'))\n",
    "sys.exit(1 if bad else 0)\n",
    NULL};

static const float kBf16Vals[] = {1.0f,     -2.5f, 3.14159f, 1e-3f,
                                  65280.0f, 1e30f, -0.0f,    0.1f};

static uint16_t bf16_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16);
}

static int write_lines(const char *path, const char *const *lines) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  for (; *lines; lines++) fputs(*lines, f);
  return fclose(f) == 0 ? 0 : -1;
}

static int run_python(const char *dir, const char *script, const char *arg) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' '%s/%s' '%s' '%s'", python(), dir, script,
           dir, arg);
  fflush(NULL);
  int st = system(cmd);
  return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The fixtures NumPy writes, read by npy_load. */
static void numpy_read(const char *dir) {
  char *man = join(dir, "manifest.txt");
  FILE *f = fopen(man, "r");
  CHECK(f != NULL, "no manifest");
  free(man);
  if (!f) return;
  char line[1024], err[NPY_ERR_LEN];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    char kind[8], name[64];
    int off = 0;
    if (sscanf(line, "%7s %63s %n", kind, name, &off) != 2) continue;
    char file[80];
    snprintf(file, sizeof file, "%s.npy", name);
    char *path = join(dir, file);
    npy_array a;
    if (strcmp(kind, "ok") == 0) {
      int dtype, exact, rank, p;
      const char *rest = line + off;
      CHECK(sscanf(rest, "%d %d %d%n", &dtype, &exact, &rank, &p) == 3,
            "manifest: %s", line);
      rest += p;
      int64_t shape[FUSER_MAX_RANK] = {0};
      for (int i = 0; i < rank && i < FUSER_MAX_RANK; i++) {
        long long d;
        CHECK(sscanf(rest, "%lld%n", &d, &p) == 1, "manifest: %s", line);
        shape[i] = d;
        rest += p;
      }
      int rc = npy_load(path, (npy_dtype)dtype, &a, err, sizeof err);
      CHECK(rc == 0, "%s", err);
      if (rc == 0) {
        CHECK((int)a.dtype == dtype && a.rank == rank, "%s: dtype/rank", name);
        for (int i = 0; i < rank; i++)
          CHECK(a.shape[i] == shape[i], "%s: dim %d", name, i);
        char bin[80];
        snprintf(bin, sizeof bin, "%s.bin", name);
        char *bpath = join(dir, bin);
        size_t bn;
        unsigned char *raw = read_file(bpath, &bn);
        free(bpath);
        CHECK(raw && bn == a.num_elements * a.element_size &&
                  (bn == 0 || memcmp(raw, a.data, bn) == 0),
              "%s: data differs from NumPy's tobytes()", name);
        free(raw);
        /* Our writer reproduces NumPy's file exactly. */
        if (exact) {
          size_t fn, sn;
          unsigned char *file_bytes = read_file(path, &fn);
          void *ser;
          CHECK(npy_serialize(&a, &ser, &sn, err, sizeof err) == 0, "%s", err);
          CHECK(file_bytes && fn == sn && memcmp(file_bytes, ser, sn) == 0,
                "%s: npy_serialize differs from np.save", name);
          free(file_bytes);
          free(ser);
        }
        /* Loading in place and parsing a copy agree. */
        size_t fn;
        unsigned char *file_bytes = read_file(path, &fn);
        npy_array b;
        CHECK(file_bytes &&
                  parse_exact(file_bytes, fn, (npy_dtype)dtype, &b, err,
                              sizeof err) == 0 &&
                  same_array(&a, &b),
              "%s: parse and load differ", name);
        npy_free(&b);
        free(file_bytes);
      }
      npy_free(&a);
    } else {
      int expected, p;
      CHECK(sscanf(line + off, "%d %n", &expected, &p) == 1, "manifest: %s",
            line);
      const char *msg = line + off + p;
      int rc = npy_load(path, (npy_dtype)expected, &a, err, sizeof err);
      CHECK(rc != 0 && strstr(err, msg) && strstr(err, file),
            "%s:\n  want: %s\n  got:  %s", name, msg, rc ? err : "(accepted)");
      npy_free(&a);
    }
    free(path);
    n++;
  }
  fclose(f);
  CHECK(n >= 39, "only %d manifest lines", n);
  printf("numpy: %d files written by NumPy checked\n", n);
}

/* Files npy_save writes, handed to NumPy. */
static void numpy_write(const char *dir) {
  char *listp = join(dir, "written.txt");
  FILE *list = fopen(listp, "w");
  free(listp);
  CHECK(list != NULL, "written.txt");
  if (!list) return;
  char err[NPY_ERR_LEN];
  static const struct {
    int rank;
    int64_t shape[5];
  } shapes[] = {{0, {0}},       {1, {7}},          {2, {3, 5}},
                {3, {2, 0, 4}}, {5, {2, 1, 3, 1, 2}}, {1, {70000}}};
  int n = 0;
  for (int ti = 0; ti < NUM_DTYPES; ti++)
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
      npy_array a;
      make_array(&a, kAll[ti], shapes[si].rank, shapes[si].shape,
                 (unsigned)(si + 11 * (size_t)ti));
      char name[64], file[80];
      snprintf(name, sizeof name, "w_%s_%zu", npy_dtype_name(kAll[ti]), si);
      snprintf(file, sizeof file, "%s.npy", name);
      char *p = join(dir, file);
      CHECK(npy_save(p, &a, err, sizeof err) == 0, "%s", err);
      free(p);
      snprintf(file, sizeof file, "%s.bin", name);
      p = join(dir, file);
      CHECK(write_file(p, a.data, a.num_elements * a.element_size) == 0,
            "write %s", p);
      free(p);
      fprintf(list, "%s %s %d", name, npy_dtype_descr(a.dtype), a.rank);
      for (int i = 0; i < a.rank; i++)
        fprintf(list, " %lld", (long long)a.shape[i]);
      fputc('\n', list);
      npy_free(&a);
      n++;
    }
  fclose(list);

  /* bf16 values, as the top halves of float32s. */
  size_t nv = sizeof kBf16Vals / sizeof kBf16Vals[0];
  uint16_t bits[sizeof kBf16Vals / sizeof kBf16Vals[0]];
  char vals[512] = "";
  for (size_t i = 0; i < nv; i++) {
    bits[i] = bf16_bits(kBf16Vals[i]);
    size_t l = strlen(vals);
    snprintf(vals + l, sizeof vals - l, "%s%.9g", i ? "," : "",
             (double)kBf16Vals[i]);
  }
  npy_array b;
  memset(&b, 0, sizeof b);
  b.dtype = NPY_BF16;
  b.rank = 1;
  b.shape[0] = (int64_t)nv;
  b.num_elements = nv;
  b.element_size = 2;
  b.data = bits;
  char *p = join(dir, "bf16_values.npy");
  CHECK(npy_save(p, &b, err, sizeof err) == 0, "%s", err);
  free(p);

  char *script = join(dir, "check.py");
  CHECK(write_lines(script, kCheckPy) == 0, "check.py");
  free(script);
  int rc = run_python(dir, "check.py", vals);
  CHECK(rc == 0, "NumPy rejected files written by npy_save (status %d)", rc);
  printf("numpy: %d files written by npy_save loaded by NumPy\n", n + 1);
}

/* Returns 0, 1 or SKIP. */
static int group_numpy(const char *dir_arg) {
  const char *py = python();
  if (strchr(py, '\'') || access(py, X_OK) != 0) {
    printf("SKIP numpy: %s not found; the NumPy interoperability tests need "
           "python3-numpy\n",
           py);
    return SKIP;
  }
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "'%s' -c 'import numpy' >/dev/null 2>&1", py);
  fflush(NULL);
  if (system(cmd) != 0) {
    printf("SKIP numpy: %s has no numpy module (apt-get install "
           "python3-numpy)\n",
           py);
    return SKIP;
  }
  char *dir;
  if (dir_arg) {
    mkdir(dir_arg, 0700);
    dir = xmalloc(strlen(dir_arg) + 1);
    strcpy(dir, dir_arg);
  } else {
    dir = tmpdir_path();
  }
  if (strchr(dir, '\'')) {
    fprintf(stderr, "numpy: directory name with a quote: %s\n", dir);
    free(dir);
    return 1;
  }
  int before = failures;
  char *gen = join(dir, "gen.py");
  CHECK(write_lines(gen, kGenPy) == 0, "gen.py");
  free(gen);
  int rc = run_python(dir, "gen.py", "");
  CHECK(rc == 0, "gen.py failed (status %d)", rc);
  if (rc == 0) {
    numpy_read(dir);
    numpy_write(dir);
  }
  if (failures == before && !dir_arg)
    rm_rf(dir);
  else if (failures != before)
    fprintf(stderr, "numpy: files kept in %s\n", dir);
  free(dir);
  return failures == before ? 0 : 1;
}

/* ---- main ------------------------------------------------------------------- */

int main(int argc, char **argv) {
  const char *g = argc > 1 ? argv[1] : "all";
  int all = strcmp(g, "all") == 0, known = all, skipped = 0;
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (all || strcmp(g, "roundtrip") == 0) known = 1, group_roundtrip();
  if (all || strcmp(g, "errors") == 0) known = 1, group_errors();
  if (all || strcmp(g, "files") == 0) known = 1, group_files();
  if (all || strcmp(g, "truncation") == 0) known = 1, group_truncation();
  if (all || strcmp(g, "mutation") == 0) {
    long n = !all && argc > 2 ? strtol(argv[2], NULL, 10) : 100000;
    known = 1;
    group_mutation(n);
  }
  if (all || strcmp(g, "numpy") == 0) {
    known = 1;
    int rc = group_numpy(!all && argc > 2 ? argv[2] : NULL);
    if (rc == SKIP) skipped = 1;
  }
  if (!known) {
    fprintf(stderr,
            "usage: %s [all|roundtrip|errors|files|truncation|mutation "
            "[N]|numpy [DIR]]\n",
            argv[0]);
    return 2;
  }
  if (failures) {
    printf("FAILED: %d checks\n", failures);
    return 1;
  }
  if (skipped && !all) return SKIP;
  printf("%s: passed%s\n", g, skipped ? " (numpy skipped)" : "");
  return 0;
}
