/*===- replay.c - run a fuzz target over kept inputs, without libFuzzer ---===*\
|*                                                                            *|
|*   fuzz-<target>-replay FILE|DIR...                                         *|
|*                                                                            *|
|* Calls the target's LLVMFuzzerTestOneInput once per file (a directory: on   *|
|* each regular file in it, in name order). A contract violation aborts, as  *|
|* under libFuzzer; otherwise prints how many inputs ran and exits 0. This is *|
|* how ctest runs every input kept in fuzz/corpus/ (fuzz/CMakeLists.txt), and *|
|* how to reproduce a crash with any compiler.                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int runFile(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open\n", path);
    return 1;
  }
  size_t cap = 4096, n = 0, got;
  uint8_t *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      uint8_t *bigger = realloc(buf, cap *= 2);
      if (!bigger) free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "%s: out of memory\n", path);
    return 1;
  }
  /* An exact-size copy, so that ASan sees a read past the input's end. */
  uint8_t *exact = malloc(n ? n : 1);
  if (!exact) return 1;
  memcpy(exact, buf, n);
  free(buf);
  fprintf(stderr, "running %s (%zu bytes)\n", path, n);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

static int byName(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  int inputs = 0, errors = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st)) {
      fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      errors += runFile(argv[i]);
      ++inputs;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d) return 1;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      names = realloc(names, (n + 1) * sizeof *names);
      if (!names) return 1;
      size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
      names[n] = malloc(len);
      if (!names[n]) return 1;
      snprintf(names[n++], len, "%s/%s", argv[i], e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, byName);
    for (size_t k = 0; k < n; ++k) {
      struct stat fs;
      if (!stat(names[k], &fs) && S_ISREG(fs.st_mode)) {
        errors += runFile(names[k]);
        ++inputs;
      }
      free(names[k]);
    }
    free(names);
  }
  printf("%d inputs ran, %d unreadable\n", inputs, errors);
  return errors ? 1 : 0;
}
