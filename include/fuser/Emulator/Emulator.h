//===- Emulator.h - run fuser's kernels on the CPU, thread by thread -*- C++ -*-===//
//
// The kernels a bundle carries for the GPU also run here: each gpu.func is
// lowered to a host function of one GPU thread (LowerKernelsToHost), its
// f16/bf16 arithmetic expanded so that no host CPU feature changes a bit
// (ExpandHalfFloats), JIT-compiled for a chosen CPU against a closed symbol
// table (HostJit), and run for every thread of every
// block of the launch grid, with barriers and warp shuffles synchronizing
// emulated threads (fibers) exactly where the GPU synchronizes. Shared memory
// is one buffer per block, filled with NaN bytes at each block's start. The
// emulator plugs into the runtime as a fuser_driver, so the launch plan runs
// exactly as on a GPU. docs/cpu-emulation.md says what it can and cannot show.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_EMULATOR_EMULATOR_H
#define FUSER_EMULATOR_EMULATOR_H

#include <cstdint>
#include <memory>
#include <string>

struct fuser_driver;

#include "mlir/Support/LLVM.h"

namespace mlir {
class ModuleOp;
class Pass;
namespace fuser {

/// Lowers every gpu.module of a module to host functions: for kernel `k`,
/// `k.entry(void **params, void *threadContext)` (see the pass). With
/// `countTraffic`, every global load and store also reports its address
/// and size to the emulator.
std::unique_ptr<Pass> createLowerKernelsToHostPass(bool countTraffic = false);

/// Expands f16/bf16 conversions into integer arithmetic and rejects any other
/// computation on half types (run after upstream's
/// arith-emulate-unsupported-floats), so that the JIT needs no CPU feature and
/// no libgcc routine for them.
std::unique_ptr<Pass> createExpandHalfFloatsPass();

/// Checks that `module` holds only what fuser's compiler emits for kernels
/// (gpu.module of gpu.func kernels made of a fixed list of ops: no calls,
/// globals, function pointers or inline assembly), with diagnostics naming
/// what does not belong. The emulator runs it on every module it loads.
LogicalResult validateEmulationModule(ModuleOp module);
std::unique_ptr<Pass> createValidateEmulationModulePass();

/// Registers the emulator's passes with the global pass registry (fuser-opt).
void registerEmulatorPasses();

struct EmulatorOptions {
  /// Run the threads of a block in reverse order (a missing barrier often
  /// shows in one order and not the other).
  bool reverseThreads = false;
  /// Check shared-memory accesses for races: a read of a value another
  /// thread wrote, or a write of a value another thread read, since the
  /// last barrier. A race fails the launch with a message.
  bool raceCheck = false;
  /// LLVM optimization level of the JIT (0-3). 0: the kernels' time is in
  /// the emulator's hooks (barriers, checked accesses), not in their own
  /// code, and -O2 cost most of a small run (docs/cpu-emulation.md).
  unsigned optLevel = 0;
  /// Count the bytes the kernels' global loads and stores request, per
  /// allocation (emulatorTraffic). Slower.
  bool countTraffic = false;
  /// The CPU the JIT compiles for: "host" (or empty), "baseline" (x86-64 on
  /// x86-64, generic on AArch64) or an LLVM CPU name. Results are the same
  /// bits on every CPU; only the speed differs.
  std::string cpu;
  /// Print, per loaded module, the CPU it was compiled for and the symbols
  /// it linked (stderr).
  bool trace = false;
  /// The most bytes allocated at once; 0: half the machine's memory.
  uint64_t maxMemoryBytes = 0;
  /// The most work one launch may do, in threads plus loop iterations;
  /// 0: 2^36.
  uint64_t maxWork = 0;
};

/// Bytes that global loads and stores of the kernels requested from the
/// allocation at `address` since it was allocated: what the kernels ask
/// for, not DRAM traffic (a GPU serves re-reads of a small operand from its
/// caches). False when `ctx` does not count traffic or no allocation starts
/// at `address`.
bool emulatorTraffic(void *ctx, uint64_t address, uint64_t &loaded, uint64_t &stored);

/// The emulator as a runtime driver. `ctx` (from createEmulatorContext) is
/// the driver_ctx; the runtime calls destroy on it when it goes away.
const fuser_driver *getEmulatorDriver();
/// Null with `error` set when `options` name an unknown CPU.
void *createEmulatorContext(const EmulatorOptions &options, std::string &error);

} // namespace fuser
} // namespace mlir

#endif
