/*===- run.h - fuserc run's options and shared pieces --------------*- C -*-===*/
#ifndef FUSERC_RUN_H
#define FUSERC_RUN_H

#include "fuserc.h"

#include "fuser_runtime.h"
#include "npy.h"

#include <stdint.h>

typedef struct {
  const char *name, *path;
} InputFlag;

/* --view NAME=SIZES:STRIDES: argument NAME passed as a view of these
 * logical sizes and strides (in elements); its --input file (or its
 * --random data) is the view's storage, flattened. */
typedef struct {
  const char *spec; /* the whole option value, for messages */
  size_t nameLen;   /* the name is spec's first nameLen characters */
  uint32_t rank;
  int64_t sizes[FUSER_MAX_RANK], strides[FUSER_MAX_RANK];
  uint64_t span; /* elements the view reaches: 1 + sum (size-1)*stride, or 0 */
} ViewFlag;

typedef struct {
  const char *source, *device, *fusion, *outputDir, *dims, *emulatorCpu;
  InputFlag inputs[64];
  int numInputs;
  ViewFlag views[64];
  int numViews;
  uint64_t seed;
  int ranks; /* --ranks N: a sharded fusion's devices, each a thread */
  int deviceOrdinal; /* the CUDA device (rank r of --ranks uses device r) */
  int emulatorOpt;   /* --emulator-opt N, the JIT's -O; -1: the emulator's default */
  bool haveSeed, reverseThreads, raceCheck, quiet, traffic, misalign;
  FusercCompileFlags compile;
} RunFlags;

/* Prints "fuserc: error: WHAT: MESSAGE" and destroys `e`; false for NULL. */
bool fusercReportError(fuser_error *e, const char *what);
/* Fills `n` elements of `dtype` with reproducible values from `state`. */
void fusercFillRandom(void *data, size_t n, fuser_dtype dtype, uint64_t *state);
/* Element `i` of `data`, an array of `dtype`, as a double. */
double fusercElementAsDouble(const void *data, size_t i, fuser_dtype dtype);
/* The runtime --device asks for (the GPU, or the CPU emulator). */
fuser_rt *fusercCreateRuntime(const RunFlags *f);
/* Writes result `t` of fusion `fname` (host data `h`) to --output-dir, or
 * prints its shape, sum and first elements; returns 0, or 1 after an
 * error. */
int fusercWriteResult(const RunFlags *f, const char *fname, const fuser_tensor_info *t,
                      const npy_array *h);
/* Runs a sharded fusion (fuser_fusion_grid) on f->ranks ranks, each a
 * thread with its own runtime and a communicator of them all: the inputs
 * are the whole tensors, each rank gets its part, and the results are
 * joined from the parts (ranks.c). Returns the exit status. */
int fusercRunSharded(const RunFlags *f, const void *bundle, size_t bundleSize,
                     size_t fusionIndex);

#endif
