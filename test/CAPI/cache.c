/*===- cache.c - the compile cache: hits, keys, the directory, corruption -===*\
|*                                                                            *|
|* fuserCompile keeps successful outputs by a hash of the module (not its SSA *|
|* names or locations), the options, fuser's build and LLVM's version, in     *|
|* memory and, opt-in, in a directory (docs/compile-cache.md). Every check    *|
|* compares the bundle bytes with those of a compile that did run.            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* RUN: rm -rf %t && capi-cache %t 2>&1 | FileCheck %s
 */

#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */

#include "fuser-c/Compiler.h"
#include "fuser-c/Dialects.h"
#include "capi_test.h"

#include "mlir-c/IR.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define S(str) mlirStringRefCreateFromCString(str)

static const char *kFusion =
    "func.func @f(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {\n"
    "  %0 = fuser.exp %x : tensor<64x256xf32>\n"
    "  %1 = fuser.softmax %0 dim = 1 : tensor<64x256xf32>\n"
    "  return %1 : tensor<64x256xf32>\n"
    "}\n";
/* The same fusion, other SSA names, spacing and locations (the argument
 * keeps its name: fuserParseSourceString makes it the bundle's input name). */
static const char *kRenamed =
    "func.func @f(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {\n"
    "  %e = fuser.exp %x : tensor<64x256xf32> loc(\"somewhere.py\":3:1)\n"
    "\n"
    "  %s = fuser.softmax %e dim = 1 : tensor<64x256xf32>\n"
    "  return %s : tensor<64x256xf32>\n"
    "}\n";
/* Another fusion (another op). */
static const char *kOther =
    "func.func @f(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {\n"
    "  %0 = fuser.tanh %x : tensor<64x256xf32>\n"
    "  return %0 : tensor<64x256xf32>\n"
    "}\n";

static MlirContext ctx;
static char *reference; /* the bundle of kFusion, compiled */
static size_t referenceSize;
static double lastMs; /* the last fuserCompile call */

static double nowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Compiles `src`; returns whether it was a hit and checks the bundle
 * against `want` (NULL: keep it as the reference). */
static int compile(const char *src, FuserCompileOptions o, int compareWithReference) {
  MlirModule m = fuserParseSourceString(ctx, S(src), S("cache.mlir"), NULL, NULL);
  EXPECT(!mlirModuleIsNull(m));
  double t0 = nowMs();
  FuserCompileResult r = fuserCompile(m, o);
  lastMs = nowMs() - t0;
  EXPECT(fuserCompileResultIsSuccess(r));
  MlirStringRef b = fuserCompileResultGetBundle(r);
  if (!compareWithReference) {
    free(reference);
    reference = malloc(b.length);
    memcpy(reference, b.data, b.length);
    referenceSize = b.length;
  } else {
    EXPECT(b.length == referenceSize && !memcmp(b.data, reference, b.length));
  }
  EXPECT(fuserCompileResultGetNumFusions(r) == 1);
  int hit = fuserCompileResultIsCacheHit(r);
  /* A compile says where its time went; a hit compiled nothing. */
  EXPECT(hit ? fuserCompileResultGetNumTimings(r) == 0 : fuserCompileResultGetNumTimings(r) > 0);
  fuserCompileResultDestroy(r);
  mlirModuleDestroy(m);
  return hit;
}

/* The one .fcc entry of `dir` (NULL if not exactly one) and its size. */
static char *onlyEntry(const char *dir, long *size) {
  DIR *d = opendir(dir);
  char *found = NULL;
  int n = 0;
  if (!d)
    return NULL;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len > 4 && !strcmp(e->d_name + len - 4, ".fcc")) {
      ++n;
      free(found);
      found = malloc(strlen(dir) + len + 2);
      sprintf(found, "%s/%s", dir, e->d_name);
    }
  }
  closedir(d);
  if (n != 1) {
    free(found);
    return NULL;
  }
  struct stat st;
  stat(found, &st);
  *size = (long)st.st_size;
  return found;
}

static int countEntries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d)
    return 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    n += len > 4 && !strcmp(e->d_name + len - 4, ".fcc");
  }
  closedir(d);
  return n;
}

static void testMemory(void) {
  fprintf(stderr, "@testMemory\n");
  FuserCompileOptions o = fuserCompileOptionsCreate();
  fuserCompileCacheClearMemory();
  EXPECT(!compile(kFusion, o, 0));
  double missMs = lastMs;
  EXPECT(compile(kFusion, o, 1));
  EXPECT(compile(kRenamed, o, 1));
  /* Printed for the record (bench/results/compile.md has the figures). */
  fprintf(stderr, "compile %.3f ms, hit %.3f ms\n", missMs, lastMs);
  fuserCompileOptionsSetAssumeAligned(o, true);
  EXPECT(!compile(kFusion, o, 0)); /* another key: no misaligned fallback */
  fuserCompileOptionsSetAssumeAligned(o, false);
  fuserCompileOptionsSetChip(o, S("sm_80"));
  EXPECT(!compile(kFusion, o, 0)); /* another key: compiled for sm_80 */
  fuserCompileOptionsSetChip(o, S("sm_90"));
  fuserCompileOptionsSetCache(o, false);
  EXPECT(!compile(kFusion, o, 0)); /* off: compiles */
  fuserCompileOptionsSetCache(o, true);
  EXPECT(compile(kFusion, o, 1));
  fuserCompileOptionsDestroy(o);
  fprintf(stderr, "memory ok\n");
}
// CHECK-LABEL: @testMemory
// CHECK: memory ok

static void testDirectory(const char *dir) {
  fprintf(stderr, "@testDirectory\n");
  FuserCompileOptions o = fuserCompileOptionsCreate();
  fuserCompileOptionsSetCacheDir(o, S(dir), 0);
  fuserCompileCacheClearMemory();
  EXPECT(!compile(kFusion, o, 0));
  long size = 0;
  char *entry = onlyEntry(dir, &size);
  EXPECT(entry != NULL);
  fuserCompileCacheClearMemory();
  EXPECT(compile(kFusion, o, 1)); /* from the directory */

  /* Truncated: a miss, deleted and written again whole. */
  EXPECT(entry && truncate(entry, size / 2) == 0);
  fuserCompileCacheClearMemory();
  EXPECT(!compile(kFusion, o, 1));
  long again = 0;
  char *rewritten = onlyEntry(dir, &again);
  EXPECT(rewritten && again == size);
  free(rewritten);
  fuserCompileCacheClearMemory();
  EXPECT(compile(kFusion, o, 1));

  /* One byte of the payload changed: the checksum catches it. */
  FILE *f = entry ? fopen(entry, "r+b") : NULL;
  EXPECT(f != NULL);
  if (f) {
    fseek(f, size - 10, SEEK_SET);
    int c = fgetc(f);
    fseek(f, size - 10, SEEK_SET);
    fputc(c ^ 0x20, f);
    fclose(f);
  }
  fuserCompileCacheClearMemory();
  EXPECT(!compile(kFusion, o, 1));
  fuserCompileCacheClearMemory();
  EXPECT(compile(kFusion, o, 1));

  /* Not a cache file at all, under the entry's name. */
  f = entry ? fopen(entry, "wb") : NULL;
  EXPECT(f != NULL);
  if (f) {
    fputs("hello", f);
    fclose(f);
  }
  fuserCompileCacheClearMemory();
  EXPECT(!compile(kFusion, o, 1));

  /* A FIFO, then a link to /dev/zero, under the entry's name: misses, and
   * the store renames an entry over them (the lookup blocked on the FIFO,
   * and read the device without end). */
  EXPECT(entry && unlink(entry) == 0 && mkfifo(entry, 0600) == 0);
  fuserCompileCacheClearMemory();
  EXPECT(!compile(kFusion, o, 1));
  EXPECT(entry && unlink(entry) == 0 && symlink("/dev/zero", entry) == 0);
  fuserCompileCacheClearMemory();
  EXPECT(!compile(kFusion, o, 1));
  fuserCompileCacheClearMemory();
  EXPECT(compile(kFusion, o, 1));

  /* A temporary file of a writer that died mid-write: deleted by the next
   * store once it is an hour old, never read. */
  char stale[4096];
  snprintf(stale, sizeof stale, "%s/%s", dir, "0123.abcdefgh.tmp");
  f = fopen(stale, "wb");
  EXPECT(f != NULL);
  if (f) {
    fputs("half an entry", f);
    fclose(f);
  }
  struct timespec old[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
  EXPECT(utimensat(AT_FDCWD, stale, old, 0) == 0);

  /* A limit below two entries (kOther's is smaller than kFusion's):
   * storing the second evicts the first, least recently used. */
  fuserCompileOptionsSetCacheDir(o, S(dir), (uint64_t)size + 1);
  fuserCompileCacheClearMemory();
  EXPECT(!compile(kOther, o, 0));
  EXPECT(countEntries(dir) == 1);
  EXPECT(access(stale, F_OK) != 0);
  fuserCompileCacheClearMemory();
  EXPECT(compile(kOther, o, 1));

  /* An entry larger than the limit is a miss, deleted without being read
   * (a crafted 400 MB entry was mapped and hashed whole before). */
  fuserCompileOptionsSetCacheDir(o, S(dir), 16);
  fuserCompileCacheClearMemory();
  EXPECT(!compile(kOther, o, 1));
  EXPECT(countEntries(dir) == 0);
  free(entry);
  fuserCompileOptionsDestroy(o);
  fprintf(stderr, "directory ok\n");
}
// CHECK-LABEL: @testDirectory
// CHECK: directory ok

/* Threads compiling one fusion into one directory at once (each in its own
 * context): every result is the reference's bytes, one entry remains. */
enum { kThreads = 4 };
typedef struct {
  const char *dir;
  int ok;
} Job;

static void *work(void *arg) {
  Job *job = arg;
  MlirContext c = fuserContextCreate();
  MlirModule m = fuserParseSourceString(c, S(kFusion), S("cache.mlir"), NULL, NULL);
  FuserCompileOptions o = fuserCompileOptionsCreate();
  fuserCompileOptionsSetCacheDir(o, S(job->dir), 0);
  FuserCompileResult r = fuserCompile(m, o);
  MlirStringRef b = fuserCompileResultGetBundle(r);
  job->ok = fuserCompileResultIsSuccess(r) && b.length == referenceSize &&
            !memcmp(b.data, reference, b.length);
  fuserCompileResultDestroy(r);
  fuserCompileOptionsDestroy(o);
  mlirModuleDestroy(m);
  mlirContextDestroy(c);
  return NULL;
}

static void testThreads(const char *base) {
  fprintf(stderr, "@testThreads\n");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/threads", base);
  FuserCompileOptions o = fuserCompileOptionsCreate();
  fuserCompileCacheClearMemory();
  EXPECT(!compile(kFusion, o, 0)); /* the reference, in memory only */
  fuserCompileOptionsDestroy(o);
  fuserCompileCacheClearMemory();
  pthread_t threads[kThreads];
  Job jobs[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    jobs[i].dir = dir;
    jobs[i].ok = 0;
    EXPECT(pthread_create(&threads[i], NULL, work, &jobs[i]) == 0);
  }
  for (int i = 0; i < kThreads; ++i) {
    pthread_join(threads[i], NULL);
    EXPECT(jobs[i].ok);
  }
  EXPECT(countEntries(dir) == 1);
  fprintf(stderr, "threads ok\n");
}
// CHECK-LABEL: @testThreads
// CHECK: threads ok

/* Failures are not cached: the diagnostics come every time. */
static void testFailure(void) {
  fprintf(stderr, "@testFailure\n");
  FuserCompileOptions o = fuserCompileOptionsCreate();
  fuserCompileOptionsSetChip(o, S("sm_75"));
  for (int i = 0; i < 2; ++i) {
    MlirModule m = fuserParseSourceString(ctx, S(kFusion), S("cache.mlir"), NULL, NULL);
    FuserCompileResult r = fuserCompile(m, o);
    EXPECT(!fuserCompileResultIsSuccess(r) && !fuserCompileResultIsCacheHit(r));
    MlirStringRef d = fuserCompileResultGetDiagnostics(r);
    fprintf(stderr, "%.*s", (int)d.length, d.data);
    fuserCompileResultDestroy(r);
    mlirModuleDestroy(m);
  }
  fuserCompileOptionsDestroy(o);
}
// CHECK-LABEL: @testFailure
// CHECK: unknown chip 'sm_75'
// CHECK: unknown chip 'sm_75'

static int removeOne(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: capi-cache DIR\n");
    return 2;
  }
  /* Every run gets a directory of its own under DIR, removed at the end: a
   * rerun in the same build tree (ctest passes a fixed DIR) must not find the
   * entries of the last one. */
  if (mkdir(argv[1], 0777) != 0 && errno != EEXIST) {
    perror(argv[1]);
    return 2;
  }
  char run[1024]; /* room for the paths the tests build under it */
  if (snprintf(run, sizeof run, "%s/run.XXXXXX", argv[1]) >= (int)sizeof run || !mkdtemp(run)) {
    perror(run);
    return 2;
  }
  ctx = fuserContextCreate();
  testMemory();
  testDirectory(run);
  testThreads(run);
  testFailure();
  nftw(run, removeOne, 16, FTW_DEPTH | FTW_PHYS);
  free(reference);
  mlirContextDestroy(ctx);
  fprintf(stderr, "%s\n", failures ? "FAILED" : "PASSED");
  return failures ? 1 : 0;
}
// CHECK: PASSED
