/*===- fuser-c/Emulator.h - fuser's kernels on the CPU ------------*- C -*-===*\
|*                                                                            *|
|* A runtime (runtime/include/fuser_runtime.h) whose device is the CPU: the   *|
|* kernels a bundle carries for the GPU run thread by thread through an       *|
|* emulation of the launch grid (docs/cpu-emulation.md). Load bundles and run *|
|* fusions on it with the runtime's API, exactly as on a GPU.                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FUSER_C_EMULATOR_H
#define FUSER_C_EMULATOR_H

#include "mlir-c/Support.h"

#include "fuser_runtime.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct FuserEmulatorOptions {
  /// Run the threads of each block in reverse order.
  bool reverseThreads;
  /// Check shared memory for races between barriers (slower).
  bool raceCheck;
  /// LLVM optimization level of the JIT, 0 to 3.
  unsigned optLevel;
} FuserEmulatorOptions;

/// Defaults: forward order, no race check, -O2.
MLIR_CAPI_EXPORTED void fuserEmulatorOptionsInit(FuserEmulatorOptions *options);

/// Creates a runtime on the CPU emulator; `options` may be NULL for the
/// defaults. The caller owns *out (fuser_rt_destroy). Bundles it loads need
/// emulation data (fuserc compile without --no-emulation).
MLIR_CAPI_EXPORTED fuser_error *
fuserEmulatorRuntimeCreate(const FuserEmulatorOptions *options, fuser_rt **out);

#ifdef __cplusplus
}
#endif

#endif /* FUSER_C_EMULATOR_H */
