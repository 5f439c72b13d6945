/* A compile through the C API from a thread with a small stack: parsing,
 * compiling and the emulator's loading run on a thread of fuser's own
 * (fuser/Driver/InputLimits.h), so a long fusion and deeply nested text need
 * no more of the caller's stack than a short one (docs/embedding.md). Before,
 * 700 chained ops crashed a compile on a 512 KiB worker thread.
 * Runs on a 256 KiB thread: a chain of 3000 ops, compiled, loaded on the CPU
 * emulator and run; text nested 100,000 levels deep, refused with a message.
 * Prints "N checks, 0 failed". */
#define _POSIX_C_SOURCE 200809L
#include "fuser-c/Compiler.h"
#include "fuser-c/Dialects.h"
#include "fuser-c/Emulator.h"
#include "fuser_runtime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHAIN 3000
#define DEEP 100000

static int checks, failed;

static void expect(int ok, const char *what) {
  ++checks;
  if (!ok) {
    fprintf(stderr, "FAIL: %s\n", what);
    ++failed;
  }
}

static void collect(MlirStringRef s, void *user) {
  char *buf = user;
  size_t n = strlen(buf);
  size_t room = 4095 - n;
  size_t k = s.length < room ? s.length : room;
  memcpy(buf + n, s.data, k);
  buf[n + k] = 0;
}

static char *chainSource(void) {
  size_t cap = (size_t)CHAIN * 96 + 512, n = 0;
  char *s = malloc(cap);
  n += (size_t)snprintf(s + n, cap - n,
                        "func.func @chain(%%x: tensor<1000xf32>) -> tensor<1000xf32> {\n"
                        "  %%c = fuser.constant 1.5 : tensor<f32>\n"
                        "  %%v0 = fuser.mul %%x, %%c : tensor<1000xf32>, tensor<f32>\n");
  for (int i = 1; i < CHAIN; ++i)
    n += (size_t)snprintf(s + n, cap - n,
                          "  %%v%d = fuser.%s %%v%d, %%c : tensor<1000xf32>, tensor<f32>\n", i,
                          i % 2 ? "add" : "mul", i - 1);
  snprintf(s + n, cap - n, "  return %%v%d : tensor<1000xf32>\n}\n", CHAIN - 1);
  return s;
}

static void *work(void *arg) {
  (void)arg;
  MlirContext ctx = fuserContextCreate();
  char diag[4096] = "";

  /* Nested 100,000 levels: a message, not a stack overflow. */
  char *deep = malloc(2 * DEEP + 64);
  size_t n = 0;
  n += (size_t)sprintf(deep, "func.func @f() attributes {a = ");
  for (int i = 0; i < DEEP; ++i) deep[n++] = '[';
  for (int i = 0; i < DEEP; ++i) deep[n++] = ']';
  strcpy(deep + n, "} {\n  return\n}\n");
  MlirModule bad = fuserParseSourceString(ctx, mlirStringRefCreateFromCString(deep),
                                          mlirStringRefCreateFromCString("deep.mlir"),
                                          collect, diag);
  expect(mlirModuleIsNull(bad), "deep text is refused");
  expect(strstr(diag, "nests deeper than 256 levels") != NULL, "deep text: the message");
  printf("deep: %s", diag);
  free(deep);

  /* A long chain: compiled, loaded, run. */
  char *src = chainSource();
  diag[0] = 0;
  MlirModule m = fuserParseSourceString(ctx, mlirStringRefCreateFromCString(src),
                                        mlirStringRefCreateFromCString("chain.mlir"),
                                        collect, diag);
  free(src);
  expect(!mlirModuleIsNull(m), "the chain parses");
  if (!mlirModuleIsNull(m)) {
    FuserCompileOptions o = fuserCompileOptionsCreate();
    FuserCompileResult r = fuserCompile(m, o);
    expect(fuserCompileResultIsSuccess(r), "the chain compiles");
    if (fuserCompileResultIsSuccess(r)) {
      MlirStringRef bytes = fuserCompileResultGetBundle(r);
      fuser_rt *rt = NULL;
      fuser_bundle *b = NULL;
      expect(!fuserEmulatorRuntimeCreate(NULL, &rt), "emulator");
      fuser_error *e = fuser_bundle_load(rt, bytes.data, bytes.length, &b);
      expect(!e, "load");
      const fuser_fusion *f = b ? fuser_bundle_find_fusion(b, "chain") : NULL;
      if (f) {
        float x[1000], y[1000];
        for (int i = 0; i < 1000; ++i) x[i] = 0.0f;
        uint64_t dx = 0, dy = 0;
        fuser_mem_alloc(rt, sizeof x, &dx);
        fuser_mem_alloc(rt, sizeof y, &dy);
        fuser_mem_copy_h2d(rt, dx, x, sizeof x);
        e = fuser_run(f, &dx, &dy, NULL, 0, NULL, NULL);
        expect(!e, "the chain runs (its module loads on the emulator)");
        if (e) {
          fprintf(stderr, "%s\n", fuser_error_message(e));
          fuser_error_destroy(e);
        }
        fuser_mem_copy_d2h(rt, y, dy, sizeof y);
        /* ((0 * 1.5) + 1.5) * 1.5 ...: finite, positive, the same everywhere */
        expect(y[0] > 0 && y[0] == y[999], "the chain's result");
        fuser_mem_free(rt, dx);
        fuser_mem_free(rt, dy);
      }
      fuser_bundle_destroy(b);
      fuser_rt_destroy(rt);
    } else {
      fprintf(stderr, "%.*s\n", (int)fuserCompileResultGetDiagnostics(r).length,
              fuserCompileResultGetDiagnostics(r).data);
    }
    fuserCompileResultDestroy(r);
    fuserCompileOptionsDestroy(o);
    mlirModuleDestroy(m);
  }
  mlirContextDestroy(ctx);
  return NULL;
}

int main(void) {
  pthread_attr_t attr;
  pthread_t t;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  if (pthread_create(&t, &attr, work, NULL) != 0) {
    fprintf(stderr, "FAIL: cannot start a thread\n");
    return 1;
  }
  pthread_join(t, NULL);
  printf("%d checks, %d failed\n", checks, failed);
  return failed != 0;
}
