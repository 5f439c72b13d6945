/*===- fuser-c/Tuning.h - schedule keys, chips, fusion hashes -------*- C -*-===*\
|*                                                                            *|
|* What a tuner needs from fuser (docs/tuning.md; `fuserc tune` is one):     *|
|* the schedule keys and the values worth trying, the facts of each chip     *|
|* fuser targets, and the hash that keys a fusion in a tuning file. A tuning  *|
|* file's text is applied with fuserCompileOptionsSetTuning (Compiler.h).     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FUSER_C_TUNING_H
#define FUSER_C_TUNING_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One schedule key (docs/schedulers.md, "Schedules as IR").
typedef struct {
  const char *name;    /* "pointwise.block"; the prefix names the scheduler */
  const char *meaning; /* one line */
  int64_t lo, hi;      /* legal values, inclusive */
  bool powerOfTwo;     /* legal values are also powers of two */
  bool hasDefault;     /* false: the heuristic computes it per segment */
  int64_t defaultValue;
  /* Values a tuner tries besides the default, one key at a time: a few
   * steps either side of it, within what the key accepts. None for a key
   * that changes the order of a sum (innerouter.min_threads,
   * reduction.threads, reduction.splits, reduction.column_threads,
   * reduction.column_rows, reduction.vector_bytes), whose results would
   * differ in their last bits, nor for kernel.index_bits (64 bits is never
   * faster; 32 is already chosen where it holds). */
  int64_t tryValues[8];
  unsigned numTryValues;
} FuserScheduleKeyInfo;

MLIR_CAPI_EXPORTED unsigned fuserGetNumScheduleKeys(void);
/// Fills *out for key `pos` (0 to fuserGetNumScheduleKeys() - 1); false
/// when out of range or `out` is NULL.
MLIR_CAPI_EXPORTED bool fuserGetScheduleKey(unsigned pos, FuserScheduleKeyInfo *out);

/// The facts of a chip fuser targets, from its one chip table.
typedef struct {
  unsigned sm;                   /* compute capability times 10 */
  unsigned smCount;              /* SMs of the generation's data-center part */
  unsigned maxThreadsPerSM, maxBlocksPerSM;
  unsigned registersPerSM;       /* 32-bit registers */
  unsigned sharedMemoryPerSM;    /* bytes */
  unsigned sharedMemoryPerBlock; /* bytes, with the opt-in above 48 KB */
  unsigned dramGBps;             /* the part's DRAM bandwidth, GB/s */
} FuserChipInfo;

/// Fills *out for `chip` ("sm_90"); false when fuser does not target it.
MLIR_CAPI_EXPORTED bool fuserGetChipInfo(MlirStringRef chip, FuserChipInfo *out);

/// Passes to `callback` the 16 hex digits that key the fusion (a func.func
/// of `module`) named `fusion` in a tuning file: a hash of its ops, types
/// and attributes, not of its name, its arguments' names or its own
/// `fuser.schedule`. Returns false (and calls nothing) when `module` has
/// no such fusion.
MLIR_CAPI_EXPORTED bool fuserPrintFusionTuningHash(MlirModule module, MlirStringRef fusion,
                                                   MlirStringCallback callback,
                                                   void *userData);

/// The segments fuser-segment cuts the fusion named `fusion` into, in
/// order: calls `callback` once a segment with the name of its scheduler
/// ("pointwise", "reduction", "inner-outer", ...: the names of
/// `fuser.schedulers`). A schedule decides for one segment alone with
/// `KEY[SEGMENT]=VALUE` (docs/tuning.md). Returns the number of segments,
/// or -1 (and calls nothing) when `module` has no such fusion or it does
/// not check or segment (compile it to see why).
MLIR_CAPI_EXPORTED intptr_t fuserPrintFusionSegments(MlirModule module, MlirStringRef fusion,
                                                     MlirStringCallback callback,
                                                     void *userData);

/// Whether a segment of scheduler `scheduler` (a name
/// fuserPrintFusionSegments gives) reads schedule key `pos`; false for an
/// unknown scheduler or key.
MLIR_CAPI_EXPORTED bool fuserScheduleKeyAppliesTo(unsigned pos, MlirStringRef scheduler);

#ifdef __cplusplus
}
#endif

#endif /* FUSER_C_TUNING_H */
