/*===- fuzz_ir.c - libFuzzer target: fusion IR text to PTX ----------------===*\
|*                                                                            *|
|* Each input is the text of a module of fusions. It is parsed and verified   *|
|* (fuserParseSourceString) and, when that succeeds, compiled through the     *|
|* whole pipeline to PTX and a bundle (fuserCompile, emulation data off), and *|
|* the bundle is loaded by the runtime. The contract checked:                 *|
|*   - nothing crashes, aborts or hangs (libFuzzer reports those);            *|
|*   - a failure always comes with an "error:" diagnostic;                    *|
|*   - a success always gives a bundle that the runtime loads.                *|
|* Anything else aborts, so libFuzzer keeps the input as a crash.             *|
|*                                                                            *|
|* Built two ways (fuzz/CMakeLists.txt): with clang -fsanitize=fuzzer (make   *|
|* fuzz), and with fuzz/replay.c as a plain program that ctest runs over the  *|
|* kept inputs in fuzz/corpus/ir/.                                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L
#include "fuser-c/Compiler.h"
#include "fuser-c/Dialects.h"
#include "fuser_runtime.h"
#include "fuzz_driver.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Coverage feedback. The compiler in libFuserCAPI.so is not instrumented,
 * so libFuzzer would see only this file's few branches. These counters,
 * which libFuzzer reads like its own (section __libfuzzer_extra_counters),
 * stand in for it: one per distinct first diagnostic (its text without
 * numbers and quoted names) and one per shape of a success (fusions,
 * kernels, bundle size), so an input that reaches a new kind of message or a new
 * kind of output is kept in the corpus. */
#if defined(__clang__) && defined(__linux__)
__attribute__((used, section("__libfuzzer_extra_counters")))
#endif
static uint8_t feedback[8192];

static void note(uint32_t h) {
  uint8_t *c = &feedback[h % sizeof feedback];
  if (*c < 255) ++*c;
}

/* FNV-1a of the kind of the first error: its first four words, skipping
 * digits, up to a quote, a type or a colon (so "expected ':'" and "expected
 * '>'" are one kind, and the corpus does not fill up with syntax errors). */
static uint32_t messageHash(const char *text) {
  const char *m = text ? strstr(text, "error: ") : NULL;
  uint32_t h = 2166136261u;
  int words = 0;
  for (m = m ? m + 7 : NULL; m && *m && *m != '\n' && words < 4; ++m) {
    if (strchr("'\"`<:(", *m)) break;
    if (*m == ' ') ++words;
    if (*m >= '0' && *m <= '9') continue;
    h = (h ^ (uint8_t)*m) * 16777619u;
  }
  return h;
}

static MlirContext ctx;
static FuserCompileOptions options;
static fuser_rt *rt;

typedef struct {
  char *text;
  size_t size;
} Buffer;

static void collect(MlirStringRef s, void *user) {
  Buffer *b = user;
  char *grown = realloc(b->text, b->size + s.length + 1);
  if (!grown) abort();
  memcpy(grown + b->size, s.data, s.length);
  b->size += s.length;
  grown[b->size] = '\0';
  b->text = grown;
}

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_ir: %s\n%s\n", what, detail ? detail : "");
  abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  /* One context for many inputs: creating one costs more than most inputs
   * take to compile. What a module adds to it (types, attributes, names) is
   * uniqued and harmless to later inputs, but kept for the context's life,
   * and random inputs bring new names and shapes every time (about 1 KB an
   * input): the context is replaced every kInputsPerContext inputs, so a
   * long run stays well under the RSS limit (a run of 3.57M inputs
   * once reached fuzz/run.sh's 4 GB). docs/embedding.md, "What a context keeps". */
  ctx = fuserContextCreate();
  options = fuserCompileOptionsCreate();
  fuserCompileOptionsSetEmulation(options, false);
  fuserCompileOptionsSetChip(options, mlirStringRefCreateFromCString("sm_90"));
  if (fuser_rt_create_with_driver(&fuzz_null_driver_ptx, NULL, &rt)) abort();
  return 0;
}

enum { kInputsPerContext = 20000 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static unsigned inputs = 0;
  if (mlirContextIsNull(ctx)) LLVMFuzzerInitialize(NULL, NULL);
  if (++inputs % kInputsPerContext == 0) {
    mlirContextDestroy(ctx);
    ctx = fuserContextCreate();
  }
  Buffer diags = {NULL, 0};
  MlirModule m = fuserParseSourceString(
      ctx, (MlirStringRef){(const char *)data, size},
      mlirStringRefCreateFromCString("fuzz.mlir"), collect, &diags);
  if (mlirModuleIsNull(m)) {
    if (!diags.text || !strstr(diags.text, "error:"))
      fail("the parser failed without an error diagnostic", diags.text);
    note(messageHash(diags.text));
    free(diags.text);
    return 0;
  }
  free(diags.text);
  FuserCompileResult r = fuserCompile(m, options);
  MlirStringRef d = fuserCompileResultGetDiagnostics(r);
  char *dtext = strndup(d.data ? d.data : "", d.length);
  if (!fuserCompileResultIsSuccess(r)) {
    if (!strstr(dtext, "error:"))
      fail("fuserCompile failed without an error diagnostic", dtext);
    note(messageHash(dtext) * 31u + 1u);
  } else {
    MlirStringRef b = fuserCompileResultGetBundle(r);
    fuser_bundle *bundle = NULL;
    fuser_error *e = fuser_bundle_load(rt, b.data, b.length, &bundle);
    if (e) fail("the runtime rejects the bundle fuserCompile wrote:", fuser_error_message(e));
    intptr_t fusions = fuserCompileResultGetNumFusions(r);
    uint32_t kernels = 0;
    for (intptr_t i = 0; i < fusions; ++i) {
      MlirStringRef ptx = fuserCompileResultGetFusionPtx(r, i);
      for (size_t k = 0; k + 15 <= ptx.length; ++k)
        kernels += !memcmp(ptx.data + k, ".visible .entry", 15);
    }
    uint32_t sizeLog = 0;
    while ((b.length >> sizeLog) > 1) ++sizeLog;
    note(0x9e3779b9u ^ ((uint32_t)fusions << 16 | kernels << 6 | sizeLog));
    fuzz_exercise_bundle(bundle, data, size);
    fuser_bundle_destroy(bundle);
  }
  free(dtext);
  fuserCompileResultDestroy(r);
  mlirModuleDestroy(m);
  return 0;
}
