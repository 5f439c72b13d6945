/* fuser-bundle-patch: edits a kernel bundle for tests, then (unless told
 * otherwise) stores the checksum of the new bytes, as a crafted bundle
 * would carry. The lit tests use it to make bundles the compiler never
 * writes (a result named "../escaped", version 1, a stale checksum).
 *
 *   fuser-bundle-patch IN OUT [EDIT]...
 *     --replace OLD=NEW    every occurrence of the bytes OLD becomes NEW
 *                          (same length; fails if there is none)
 *     --set-u8 OFF=V, --set-u32 OFF=V, --set-u64 OFF=V
 *                          a little-endian integer at byte offset OFF
 *     --flip OFF           xor the byte at OFF with 0x01
 *     --module N=FILE      module N's data becomes FILE's bytes (and a NUL):
 *                          appended at the end (8-aligned), the record and
 *                          the file size updated
 *     --keep-checksum      leave the checksum field as it is
 *
 * Exit status 0, or 1 with a message. */
#include "fuser_bundle_format.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *data;
static size_t size;

static int fail(const char *what, const char *arg) {
  fprintf(stderr, "fuser-bundle-patch: %s '%s'\n", what, arg);
  return 1;
}

static int parse_u64(const char *s, unsigned long long *v) {
  char *end;
  errno = 0;
  *v = strtoull(s, &end, 0);
  return !*s || *end || errno ? -1 : 0;
}

static void put(size_t off, unsigned long long v, int n) {
  for (int i = 0; i < n; i++) data[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fuser-bundle-patch IN OUT [--replace OLD=NEW | "
                    "--set-u8|--set-u32|--set-u64 OFF=V | --flip OFF | "
                    "--keep-checksum]...\n");
    return 1;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) return fail("cannot open", argv[1]);
  size_t cap = 1 << 16;
  data = malloc(cap);
  for (size_t n; data && (n = fread(data + size, 1, cap - size, f)) > 0;) {
    size += n;
    if (size == cap) data = realloc(data, cap *= 2);
  }
  fclose(f);
  if (!data) return fail("out of memory reading", argv[1]);
  int keep = 0;
  for (int i = 3; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--keep-checksum")) {
      keep = 1;
      continue;
    }
    if (i + 1 >= argc) return fail("missing a value after", a);
    const char *v = argv[++i];
    if (!strcmp(a, "--replace")) {
      const char *eq = strchr(v, '=');
      size_t n = eq ? (size_t)(eq - v) : 0;
      if (!eq || n == 0 || strlen(eq + 1) != n)
        return fail("--replace needs OLD=NEW of equal lengths, got", v);
      int found = 0;
      for (size_t at = 0; at + n <= size; at++)
        if (!memcmp(data + at, v, n)) {
          memcpy(data + at, eq + 1, n);
          found = 1;
        }
      if (!found) return fail("no occurrence of the bytes of", v);
    } else if (!strcmp(a, "--module")) {
      const char *eq = strchr(v, '=');
      char index_text[32];
      unsigned long long index;
      if (!eq || (size_t)(eq - v) >= sizeof index_text)
        return fail("--module needs N=FILE, got", v);
      memcpy(index_text, v, (size_t)(eq - v));
      index_text[eq - v] = 0;
      if (parse_u64(index_text, &index) || size < FUSER_BUNDLE_HEADER_SIZE)
        return fail("bad module index in", v);
      unsigned long long table = 0, count = 0;
      for (int k = 0; k < 8; k++)
        table |= (unsigned long long)data[FUSER_BUNDLE_H_MODULE_TABLE + k] << (8 * k);
      for (int k = 0; k < 4; k++)
        count |= (unsigned long long)data[FUSER_BUNDLE_H_NUM_MODULES + k] << (8 * k);
      size_t rec = (size_t)(table + index * FUSER_BUNDLE_MODULE_SIZE);
      if (index >= count || rec + FUSER_BUNDLE_MODULE_SIZE > size)
        return fail("no such module in", v);
      FILE *m = fopen(eq + 1, "rb");
      if (!m) return fail("cannot open", eq + 1);
      size_t at = (size + 7) & ~(size_t)7, n = 0;
      for (;;) {
        if (at + n + 2 > cap) {
          while (at + n + 2 > cap) cap *= 2;
          data = realloc(data, cap);
          if (!data) return fail("out of memory reading", eq + 1);
        }
        size_t got = fread(data + at + n, 1, cap - at - n - 1, m);
        if (!got) break;
        n += got;
      }
      fclose(m);
      memset(data + size, 0, at - size);
      data[at + n] = 0;
      size = at + n + 1;
      put(rec + FUSER_BUNDLE_M_DATA, at, 8);
      put(rec + FUSER_BUNDLE_M_SIZE, n + 1, 8);
      put(FUSER_BUNDLE_H_FILE_SIZE, size, 8);
    } else if (!strcmp(a, "--flip")) {
      unsigned long long off;
      if (parse_u64(v, &off) || off >= size) return fail("bad offset", v);
      data[off] ^= 1;
    } else if (!strcmp(a, "--set-u8") || !strcmp(a, "--set-u32") ||
               !strcmp(a, "--set-u64")) {
      int n = a[7] == '8' ? 1 : a[7] == '3' ? 4 : 8;
      const char *eq = strchr(v, '=');
      char off_text[32];
      unsigned long long off, value;
      if (!eq || (size_t)(eq - v) >= sizeof off_text)
        return fail("expected OFF=V, got", v);
      memcpy(off_text, v, (size_t)(eq - v));
      off_text[eq - v] = 0;
      if (parse_u64(off_text, &off) || parse_u64(eq + 1, &value) ||
          off + (unsigned long long)n > size)
        return fail("bad OFF=V (or past the end of the file)", v);
      put((size_t)off, value, n);
    } else {
      return fail("unknown option", a);
    }
  }
  if (!keep && size >= FUSER_BUNDLE_HEADER_SIZE)
    put(FUSER_BUNDLE_H_CHECKSUM, fuser_bundle_checksum(data, size), 4);
  f = fopen(argv[2], "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f))
    return fail("cannot write", argv[2]);
  free(data);
  return 0;
}
