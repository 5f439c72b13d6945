/* Misuse of the CPU emulator as a runtime (fuser-c/Emulator.h): its memory
 * API with bad addresses and sizes, a run whose buffers are smaller than
 * the sizes given, and the memory and work limits. The emulator knows every
 * allocation: each misuse is an error with a message, never a crash, and
 * no emulated kernel touches memory outside its buffers (docs/reliability.md).
 * Prints one line per error and "N checks, 0 failed". */
#include "fuser-c/Compiler.h"
#include "fuser-c/Dialects.h"
#include "fuser-c/Emulator.h"
#include "fuser_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failed;

/* The call failed, and its message holds `part`. */
static void expect_error(fuser_error *e, const char *part, const char *what) {
  ++checks;
  if (!e) {
    fprintf(stderr, "FAIL: %s: no error\n", what);
    ++failed;
    return;
  }
  const char *m = fuser_error_message(e);
  if (!strstr(m, part)) {
    fprintf(stderr, "FAIL: %s: the message lacks \"%s\": %s\n", what, part, m);
    ++failed;
  } else {
    printf("%s: %s\n", what, m);
  }
  fuser_error_destroy(e);
}

static void expect_ok(fuser_error *e, const char *what) {
  ++checks;
  if (e) {
    fprintf(stderr, "FAIL: %s: %s\n", what, fuser_error_message(e));
    ++failed;
    fuser_error_destroy(e);
  }
}

#define ERR(call, part) expect_error((call), (part), #call)
#define OK(call) expect_ok((call), #call)

/* y = x + 1 over 4096 floats, and a row sum whose loop the work limit sees. */
static const char *kSource =
    "func.func @inc(%x: tensor<4096xf32>) -> tensor<4096xf32> {\n"
    "  %one = fuser.constant 1.0 : tensor<f32>\n"
    "  %0 = fuser.add %x, %one : tensor<4096xf32>, tensor<f32>\n"
    "  return %0 : tensor<4096xf32>\n"
    "}\n"
    "func.func @rowsum(%x: tensor<4x65536xf32>) -> tensor<4xf32> {\n"
    "  %0 = fuser.sum %x dims = [1] : tensor<4x65536xf32> -> tensor<4xf32>\n"
    "  return %0 : tensor<4xf32>\n"
    "}\n";

static fuser_bundle *load(fuser_rt *rt, MlirStringRef bytes) {
  fuser_bundle *b = NULL;
  OK(fuser_bundle_load(rt, bytes.data, bytes.length, &b));
  return b;
}

int main(void) {
  MlirContext ctx = fuserContextCreate();
  MlirModule module = fuserParseSourceString(ctx, mlirStringRefCreateFromCString(kSource),
                                             mlirStringRefCreateFromCString("misuse.mlir"),
                                             NULL, NULL);
  FuserCompileOptions options = fuserCompileOptionsCreate();
  FuserCompileResult compiled = fuserCompile(module, options);
  if (!fuserCompileResultIsSuccess(compiled)) {
    fprintf(stderr, "FAIL: compile: %.*s\n",
            (int)fuserCompileResultGetDiagnostics(compiled).length,
            fuserCompileResultGetDiagnostics(compiled).data);
    return 1;
  }
  MlirStringRef bytes = fuserCompileResultGetBundle(compiled);

  /* The memory API. */
  fuser_rt *rt = NULL;
  OK(fuserEmulatorRuntimeCreate(NULL, &rt));
  uint64_t small = 0, big = 0;
  OK(fuser_mem_alloc(rt, 16, &small));
  static char host[4 << 20];
  ERR(fuser_mem_copy_h2d(rt, small, host, sizeof host),
      "but only 16 bytes from there to the end of its allocation");
  ERR(fuser_mem_copy_d2h(rt, host, small + 8, 16),
      "but only 8 bytes from there to the end of its allocation");
  ERR(fuser_mem_copy_h2d(rt, 0x1000, host, 4), "which is in no live allocation");
  ERR(fuser_mem_copy_d2h(rt, host, 64, 4), "which is in no live allocation");
  OK(fuser_mem_free(rt, small));
  ERR(fuser_mem_free(rt, small), "which is not the start of a live allocation");
  ERR(fuser_mem_free(rt, 0x12345678), "which is not the start of a live allocation");
  OK(fuser_mem_alloc(rt, 64, &big));
  ERR(fuser_mem_free(rt, big + 16), "which is not the start of a live allocation");
  OK(fuser_mem_free(rt, big));

  /* Buffers smaller than the sizes given: the kernel's accesses past them
   * are skipped and the run fails naming the kernel, the parameter and the
   * element. */
  fuser_bundle *bundle = load(rt, bytes);
  const fuser_fusion *inc = fuser_bundle_find_fusion(bundle, "inc");
  uint64_t x = 0, y = 0, y2 = 0;
  OK(fuser_mem_alloc(rt, 4096 * 4, &x));
  OK(fuser_mem_alloc(rt, 1024 * 4, &y));
  ERR(fuser_run(inc, &x, &y, NULL, 0, NULL, NULL),
      "bytes at element 1024 (byte 4096) of parameter 1, outside the 4096 bytes from it to "
      "the end of its allocation");
  /* A result pointer into the middle of an allocation reaches to its end. */
  OK(fuser_mem_alloc(rt, 4096 * 4, &y2));
  ERR(fuser_run(inc, &x, &(uint64_t){y2 + 8}, NULL, 0, NULL, NULL),
      "bytes at element 4094 (byte 16376) of parameter 1");
  OK(fuser_run(inc, &x, &y2, NULL, 0, NULL, NULL));
  /* An address that is no allocation at all. */
  ERR(fuser_run(inc, &(uint64_t){0x10000}, &y2, NULL, 0, NULL, NULL),
      "through parameter 0, which points into no allocation of this emulator");
  fuser_bundle_destroy(bundle);
  fuser_mem_free(rt, x);
  fuser_mem_free(rt, y);
  fuser_mem_free(rt, y2);
  fuser_rt_destroy(rt);

  /* The memory limit. */
  FuserEmulatorOptions o;
  fuserEmulatorOptionsInit(&o);
  o.maxMemoryBytes = 1 << 20;
  rt = NULL;
  OK(fuserEmulatorRuntimeCreate(&o, &rt));
  uint64_t p = 0, q = 0;
  OK(fuser_mem_alloc(rt, 768 << 10, &p));
  ERR(fuser_mem_alloc(rt, 512 << 10, &q), "past its memory limit of 1048576 bytes");
  ERR(fuser_mem_alloc(rt, (size_t)16 << 30, &q), "past its memory limit");
  fuser_mem_free(rt, p);
  fuser_rt_destroy(rt);

  /* The work limit: a row sum over 4 x 65536 f32 loops more than 20000 times
   * (65536 loads of 4 floats). */
  fuserEmulatorOptionsInit(&o);
  o.maxWork = 20000;
  rt = NULL;
  OK(fuserEmulatorRuntimeCreate(&o, &rt));
  bundle = load(rt, bytes);
  const fuser_fusion *rowsum = fuser_bundle_find_fusion(bundle, "rowsum");
  OK(fuser_mem_alloc(rt, (size_t)4 * 65536 * 4, &x));
  OK(fuser_mem_alloc(rt, 16, &y));
  ERR(fuser_run(rowsum, &x, &y, NULL, 0, NULL, NULL),
      "would run more than the emulator's work limit of 20000 loop iterations");
  fuser_bundle_destroy(bundle);
  fuser_mem_free(rt, x);
  fuser_mem_free(rt, y);
  fuser_rt_destroy(rt);

  /* A CPU the host cannot be; NULL options are the defaults. */
  fuserEmulatorOptionsInit(NULL);
  fuserEmulatorOptionsInit(&o);
  o.cpu = "no-such-cpu";
  rt = NULL;
  ERR(fuserEmulatorRuntimeCreate(&o, &rt), "unknown CPU 'no-such-cpu'");

  /* An optimization level LLVM does not have (it was clamped to 3). */
  fuserEmulatorOptionsInit(&o);
  o.optLevel = 4;
  rt = NULL;
  ERR(fuserEmulatorRuntimeCreate(&o, &rt), "optLevel must be an LLVM optimization level, 0 to 3, got 4");
  ++checks;
  if (rt) {
    fprintf(stderr, "FAIL: optLevel 4: a runtime came back with the error\n");
    ++failed;
  }

  fuserCompileResultDestroy(compiled);
  fuserCompileOptionsDestroy(options);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  printf("%d checks, %d failed\n", checks, failed);
  return failed != 0;
}
