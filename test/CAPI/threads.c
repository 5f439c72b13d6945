/*===- threads.c - builders and compiles in several threads at once ------===*\
|*                                                                            *|
|* What the headers promise about threads: builders of different contexts are *|
|* created, used and destroyed concurrently (their handles share one table),  *|
|* fuserCompile runs concurrently on different contexts, and a compile result *|
|* is plain data another thread may read. Each thread builds and compiles its *|
|* own fusion; the main thread then runs every bundle on the CPU emulator and *|
|* checks the results.                                                        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* RUN: capi-threads 2>&1 | FileCheck %s
 */

#include "fuser-c/Builder.h"
#include "fuser-c/Compiler.h"
#include "fuser-c/Dialects.h"
#include "fuser-c/Emulator.h"
#include "fuser_runtime.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S(str) mlirStringRefCreateFromCString(str)

enum { kThreads = 4, kBuildersPerThread = 25, kN = 64 };

typedef struct {
  int index;
  char name[16];
  FuserCompileResult result;
  int errors;
} Job;

/* y = x * index + tanh(x), for x: f32[?]. */
static void *work(void *arg) {
  Job *job = arg;
  snprintf(job->name, sizeof job->name, "t%d", job->index);
  MlirContext ctx = fuserContextCreate();
  /* Many short-lived builders, to contend on the handle table; a destroyed
   * builder's handle must stay dead. */
  for (int i = 0; i < kBuildersPerThread; ++i) {
    FuserBuilder b = fuserBuilderCreate(ctx, S("scratch"));
    MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 0, NULL, S("x"));
    job->errors += mlirValueIsNull(fuserBuildNeg(b, x));
    fuserBuilderDestroy(b);
    job->errors += !mlirValueIsNull(fuserBuildNeg(b, x));
  }
  FuserBuilder b = fuserBuilderCreate(ctx, S(job->name));
  int64_t shape[] = {FUSER_DYNAMIC};
  MlirValue x = fuserBuilderAddInput(b, FuserDTypeF32, 1, shape, S("x"));
  MlirValue y = fuserTorchAdd(b, fuserTorchMul(b, x, fuserTorchScalarI64(b, job->index)),
                              fuserBuildTanh(b, x));
  fuserBuilderAddOutput(b, y, S("y"));
  MlirModule m = fuserBuilderFinishNewModule(b);
  job->errors += mlirModuleIsNull(m);
  fuserBuilderDestroy(b);
  FuserCompileOptions o = fuserCompileOptionsCreate();
  fuserCompileOptionsSetChip(o, S("sm_80"));
  job->result = fuserCompile(m, o);
  fuserCompileOptionsDestroy(o);
  if (!mlirModuleIsNull(m))
    mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
  return NULL;
}

static bool ok(fuser_error *e) {
  if (e)
    fprintf(stderr, "runtime error: %s\n", fuser_error_message(e));
  fuser_error_destroy(e);
  return e == NULL;
}

/* Runs job's bundle on `rt` and compares with the reference. */
static bool check(fuser_rt *rt, const Job *job) {
  MlirStringRef bytes = fuserCompileResultGetBundle(job->result);
  fuser_bundle *bundle = NULL;
  if (!ok(fuser_bundle_load(rt, bytes.data, bytes.length, &bundle)))
    return false;
  const fuser_fusion *f = fuser_bundle_find_fusion(bundle, job->name);
  float x[kN], y[kN];
  for (int i = 0; i < kN; ++i)
    x[i] = (float)i / 16.0f - 2.0f;
  int64_t dims[2] = {kN, kN};
  uint64_t dx = 0, dy = 0;
  bool good = f && ok(fuser_mem_alloc(rt, sizeof x, &dx)) &&
              ok(fuser_mem_alloc(rt, sizeof y, &dy)) &&
              ok(fuser_mem_copy_h2d(rt, dx, x, sizeof x)) &&
              ok(fuser_run(f, &dx, &dy, dims, 2, NULL, NULL)) &&
              ok(fuser_device_synchronize(rt)) &&
              ok(fuser_mem_copy_d2h(rt, y, dy, sizeof y));
  for (int i = 0; good && i < kN; ++i) {
    double want = (double)x[i] * job->index + tanh((double)x[i]);
    good = fabs(y[i] - want) <= 1e-5 * (1 + fabs(want));
  }
  fuser_error_destroy(fuser_mem_free(rt, dx));
  fuser_error_destroy(fuser_mem_free(rt, dy));
  fuser_bundle_destroy(bundle);
  return good;
}

int main(void) {
  fprintf(stderr, "@testThreads\n");
  Job jobs[kThreads];
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    memset(&jobs[i], 0, sizeof jobs[i]);
    jobs[i].index = i + 1;
    if (pthread_create(&threads[i], NULL, work, &jobs[i]) != 0) {
      fprintf(stderr, "cannot create a thread\n");
      return 1;
    }
  }
  for (int i = 0; i < kThreads; ++i)
    pthread_join(threads[i], NULL);
  fuser_rt *rt = NULL;
  int failures = 0;
  if (!ok(fuserEmulatorRuntimeCreate(NULL, &rt)))
    return 1;
  for (int i = 0; i < kThreads; ++i) {
    bool compiled = fuserCompileResultIsSuccess(jobs[i].result);
    if (!compiled) {
      MlirStringRef d = fuserCompileResultGetDiagnostics(jobs[i].result);
      fprintf(stderr, "%.*s", (int)d.length, d.data);
    }
    bool ran = compiled && check(rt, &jobs[i]);
    fprintf(stderr, "%s: %d builder errors, %s, %s\n", jobs[i].name, jobs[i].errors,
            compiled ? "compiled" : "did not compile", ran ? "results match" : "results differ");
    failures += jobs[i].errors || !ran;
    fuserCompileResultDestroy(jobs[i].result);
  }
  fuser_rt_destroy(rt);
  fprintf(stderr, "@done: %d failures\n", failures);
  return failures ? 1 : 0;
}
// CHECK-LABEL: @testThreads
// CHECK-NEXT: t1: 0 builder errors, compiled, results match
// CHECK-NEXT: t2: 0 builder errors, compiled, results match
// CHECK-NEXT: t3: 0 builder errors, compiled, results match
// CHECK-NEXT: t4: 0 builder errors, compiled, results match
// CHECK-NEXT: @done: 0 failures
