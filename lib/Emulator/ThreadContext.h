//===- ThreadContext.h - what an emulated GPU thread sees -------*- C++ -*-===//
//
// The layout LowerKernelsToHost reads and the emulator fills: one per
// emulated thread. Field offsets are part of the contract between the two.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_EMULATOR_THREADCONTEXT_H
#define FUSER_EMULATOR_THREADCONTEXT_H

#include <cstddef>
#include <cstdint>

namespace mlir::fuser::emu {

struct ThreadContext {
  int32_t threadId[3];  // offset 0
  int32_t blockId[3];   // 12
  int32_t blockDim[3];  // 24
  int32_t gridDim[3];   // 36
  char *sharedMemory;   // 48: the block's shared memory
  void *thread;         // 56: the emulator's state of this thread
};
static_assert(offsetof(ThreadContext, sharedMemory) == 48, "layout");
static_assert(offsetof(ThreadContext, thread) == 56, "layout");

constexpr int64_t kThreadIdOffset = 0, kBlockIdOffset = 12, kBlockDimOffset = 24,
                  kGridDimOffset = 36, kSharedMemoryOffset = 48;

/// Names of the emulator's entry points the lowered kernels call, and the
/// attributes the lowering leaves on each kernel's entry function.
inline constexpr const char *kBarrierFn = "fuser_emu_barrier";
inline constexpr const char *kShuffleFn = "fuser_emu_shuffle";
inline constexpr const char *kSharedAccessFn = "fuser_emu_shared_access";
inline constexpr const char *kGlobalAccessFn = "fuser_emu_global_access";
inline constexpr const char *kStaticSharedAttr = "fuser.emu.static_shared";
inline constexpr const char *kSynchronizesAttr = "fuser.emu.synchronizes";
inline constexpr const char *kEntrySuffix = ".entry";

} // namespace mlir::fuser::emu

#endif
