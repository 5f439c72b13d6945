/*===- replay.c - run a fuzz target over kept inputs, without libFuzzer ---===*\
|*                                                                            *|
|*   fuzz-<target>-replay [--mutate N] FILE|DIR...                            *|
|*                                                                            *|
|* Calls the target's LLVMFuzzerTestOneInput once per file (a directory: on   *|
|* each regular file in it, in name order). A contract violation aborts, as  *|
|* under libFuzzer; otherwise prints how many inputs ran and exits 0. This is *|
|* how ctest runs every input kept in fuzz/corpus/ (fuzz/CMakeLists.txt), and *|
|* how to reproduce a crash with any compiler.                                *|
|*                                                                            *|
|* With --mutate N, a target that has a custom mutator (fuzz_bundle:          *|
|* bundle_mutator.c) also runs N mutants of each file, the same ones every    *|
|* time (seeds 0 .. N-1, chains of up to 16 mutations from the file): a       *|
|* deterministic slice of `make fuzz` that ctest runs with any compiler, and  *|
|* under make sanitize with ASan and UBSan.                                   *|
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
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed) __attribute__((weak));
/* A target's own summary after a run (fuzz_bundle: how many inputs loaded). */
void fuzz_target_report(void) __attribute__((weak));

static uint64_t mutate_state;

/* libFuzzer's byte mutator, which a custom mutator may call, stood in for
 * by a few byte edits (replays link no libFuzzer). */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
  uint64_t z = (mutate_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  if (z % 7 == 0 && size > 1) return size - 1 - (size_t)(z >> 8) % (size / 2 + 1);
  if (z % 7 == 1 && size < max_size) {
    data[size] = (uint8_t)(z >> 16);
    return size + 1;
  }
  for (int k = 0; size && k < 1 + (int)(z % 3); k++) {
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    data[(z >> 33) % size] ^= (uint8_t)(1u << ((z >> 20) % 8));
  }
  return size;
}

static long mutants;

static void run_mutants(const uint8_t *input, size_t n, long count) {
  size_t max = n * 2 + 65536;
  uint8_t *buf = malloc(max);
  if (!buf) abort();
  size_t size = 0;
  for (long i = 0; i < count; ++i) {
    if (i % 16 == 0) { /* a fresh chain from the file */
      memcpy(buf, input, n);
      size = n;
    }
    mutate_state = (uint64_t)i;
    size = LLVMFuzzerCustomMutator(buf, size, max, (unsigned)i);
    if (size > max) abort();
    /* An exact-size copy, so that ASan sees a read past the mutant's end
     * (and the chain goes on from the mutant, whatever the target does). */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) abort();
    memcpy(copy, buf, size);
    LLVMFuzzerTestOneInput(copy, size);
    free(copy);
    ++mutants;
  }
  free(buf);
}

static long mutate_count;

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
  if (mutate_count > 0) run_mutants(exact, n, mutate_count);
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
    if (!strcmp(argv[i], "--mutate") && i + 1 < argc) {
      mutate_count = atol(argv[++i]);
      if (mutate_count > 0 && !LLVMFuzzerCustomMutator) {
        fprintf(stderr, "--mutate: this target has no custom mutator\n");
        return 1;
      }
      continue;
    }
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
  if (mutants) printf("%ld mutants ran\n", mutants);
  if (fuzz_target_report) fuzz_target_report();
  return errors ? 1 : 0;
}
