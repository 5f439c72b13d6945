/*===- record.h - a runtime that records launches instead of running them -*- C -*-===*/
#ifndef FUSERC_RECORD_H
#define FUSERC_RECORD_H

#include "fuser_runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  /* The kernel's name: the runtime keeps it as long as the bundle. */
  const char *kernel;
  fuser_launch_dims dims;
  /* A library call (the plan's GEMM) instead of a kernel: its description. */
  char gemm[160];
} Recorded;

typedef struct {
  Recorded launches[256];
  size_t numLaunches, dropped;
  uint64_t nextAddress, allocatedBytes;
  /* What the last recorded run took from the runtime's cache beyond its
   * arguments and results: its intermediates. */
  uint64_t intermediateBytes;
} Recorder;

/* A runtime over a driver that records each launch into `rec` (no GPU,
 * nothing runs; device memory reads back as zeros). */
fuser_error *fusercRecorderRuntimeCreate(Recorder *rec, fuser_rt **out);

/* Parses --dims text for fusion `f` into `dims` (256 entries): every
 * dynamic dim in signature order, or the arguments' only, spread over their
 * positions (the results' left 0). Returns the count of the fusion's
 * dynamic dims, or -1 after reporting an error. */
int fusercSpreadDims(const fuser_fusion *f, const char *dimsFlag, int64_t *dims);

/* Where --dims text gave every dynamic dim, the results' included: 0 if
 * each result dim in `given` (fusercSpreadDims's) equals the one the
 * fusion computed (`inferred`), else -1 after reporting the first that
 * differs. */
int fusercCheckGivenResultDims(const fuser_fusion *f, const char *dimsFlag,
                               const int64_t *given, const int64_t *inferred);

/* Parses --dims text (NULL: none) for fusion `f` (every dynamic dim in signature order,
 * or the arguments' only) into `dims` (256 entries) and infers the
 * results'. Returns the count, or -1 after reporting an error. */
int fusercResolveDims(const fuser_fusion *f, const char *dimsFlag, int64_t *dims);

/* Runs `f`'s plan for `dims` on the recorder runtime `rt`: rec->launches
 * then holds its launches in order. False after reporting an error. */
bool fusercRecordLaunches(fuser_rt *rt, Recorder *rec, const fuser_fusion *f,
                          const int64_t *dims, size_t nd);

#endif
