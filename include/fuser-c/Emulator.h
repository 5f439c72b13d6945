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
  /// LLVM optimization level of the JIT, 0 to 3 (another value is an
  /// error). Default 0: compiling the kernels at -O2 took most of a small
  /// run and bought little on large ones (docs/cpu-emulation.md). Every
  /// level computes the same bits.
  unsigned optLevel;
  /// Count the bytes the kernels' global loads and stores request, per
  /// allocation (fuserEmulatorGetTraffic). Slower.
  bool countTraffic;
  /// The CPU the JIT compiles the kernels for: "host", "baseline" (x86-64 on
  /// x86-64, generic on AArch64) or an LLVM CPU name ("x86-64-v3", ...).
  /// NULL: the environment variable FUSER_EMULATOR_CPU, else "host". The
  /// results are the same bits for every CPU (docs/cpu-emulation.md).
  const char *cpu;
  /// Print to stderr, per loaded module, the CPU it was compiled for and
  /// the symbols it linked. Also set by FUSER_EMULATOR_TRACE=1.
  bool trace;
  /// The most bytes the emulator's allocations may hold at once (device
  /// memory is host memory): an allocation past it fails with
  /// FUSER_ERROR_OUT_OF_MEMORY. 0: half the machine's physical memory.
  uint64_t maxMemoryBytes;
  /// The most work one launch may do, counted as threads plus loop
  /// iterations: a launch that would do more fails with a message instead
  /// of running for hours (a reduction over a broadcast of 2^61 elements,
  /// a crafted grid). 0: 2^36, minutes of emulation.
  uint64_t maxWork;
} FuserEmulatorOptions;

/// Defaults: forward order, no race check, -O0, no traffic counting, the
/// CPU from FUSER_EMULATOR_CPU (else the host), no trace, the default
/// limits. NULL is a no-op.
MLIR_CAPI_EXPORTED void fuserEmulatorOptionsInit(FuserEmulatorOptions *options);

/// Creates a runtime on the CPU emulator; `options` may be NULL for the
/// defaults. Fails (FUSER_ERROR_INVALID_ARGUMENT) when the CPU is not one of
/// the host's architecture (or one whose instructions the host lacks), or
/// when optLevel is past 3. The caller owns *out (fuser_rt_destroy). Bundles it loads need
/// emulation data (fuserc compile without --no-emulation).
MLIR_CAPI_EXPORTED fuser_error *
fuserEmulatorRuntimeCreate(const FuserEmulatorOptions *options, fuser_rt **out);

/// Bytes that the kernels' global loads (*loaded) and stores (*stored)
/// requested from the allocation at `address` (as returned by
/// fuser_mem_alloc) since it was allocated: what the kernels ask for, not
/// DRAM traffic (a GPU serves re-reads of a small broadcast operand from
/// its caches). A persistent normalization reads its input exactly once:
/// loaded == the input's size. Fails unless `rt` is an emulator runtime
/// created with countTraffic and `address` starts an allocation.
MLIR_CAPI_EXPORTED fuser_error *fuserEmulatorGetTraffic(fuser_rt *rt, uint64_t address,
                                                        uint64_t *loaded,
                                                        uint64_t *stored);

#ifdef __cplusplus
}
#endif

#endif /* FUSER_C_EMULATOR_H */
