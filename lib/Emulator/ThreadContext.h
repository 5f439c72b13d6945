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

/// The global memory a pointer parameter may reach: [begin, end), the bytes
/// from the pointer to the end of the allocation it points into (empty
/// when it points into none).
struct ParamBounds {
  uint64_t begin, end;
};

struct ThreadContext {
  int32_t threadId[3];       // offset 0
  int32_t blockId[3];        // 12
  int32_t blockDim[3];       // 24
  int32_t gridDim[3];        // 36
  char *sharedMemory;        // 48: the block's shared memory
  void *thread;              // 56: the emulator's state of this thread
  const ParamBounds *bounds; // 64: per kernel parameter (pointers only)
  int64_t *work;             // 72: the launch's work so far (loop trips)
  int64_t workLimit;         // 80: the most work a launch may do
};
static_assert(offsetof(ThreadContext, sharedMemory) == 48, "layout");
static_assert(offsetof(ThreadContext, thread) == 56, "layout");
static_assert(offsetof(ThreadContext, bounds) == 64, "layout");
static_assert(offsetof(ThreadContext, work) == 72, "layout");
static_assert(offsetof(ThreadContext, workLimit) == 80, "layout");

constexpr int64_t kThreadIdOffset = 0, kBlockIdOffset = 12, kBlockDimOffset = 24,
                  kGridDimOffset = 36, kSharedMemoryOffset = 48, kBoundsOffset = 64,
                  kWorkOffset = 72, kWorkLimitOffset = 80;

/// Names of the emulator's entry points the lowered kernels call, and the
/// attributes the lowering leaves on each kernel's entry function.
inline constexpr const char *kBarrierFn = "fuser_emu_barrier";
inline constexpr const char *kShuffleFn = "fuser_emu_shuffle";
inline constexpr const char *kSharedAccessFn = "fuser_emu_shared_access";
inline constexpr const char *kGlobalAccessFn = "fuser_emu_global_access";
inline constexpr const char *kBadAccessFn = "fuser_emu_bad_access";
inline constexpr const char *kWorkExceededFn = "fuser_emu_work_exceeded";
// Memory blocks of one launch hand to each other (docs/cpu-emulation.md,
// "Fences and the last block"): a device-scope fence, the atomic arrival
// (an llvm.atomicrmw), and the accesses marked kCrossBlockAttr.
inline constexpr const char *kFenceFn = "fuser_emu_fence";
inline constexpr const char *kArriveFn = "fuser_emu_arrive";
inline constexpr const char *kCrossBlockFn = "fuser_emu_cross_block";
inline constexpr const char *kStaticSharedAttr = "fuser.emu.static_shared";
/// A kernel whose workgroup memory is dynamic (kDynamicSharedAttr): the
/// bytes its launches must pass at least.
inline constexpr const char *kDynamicSharedNeededAttr = "fuser.emu.dynamic_shared_needed";
inline constexpr const char *kSynchronizesAttr = "fuser.emu.synchronizes";
/// Per kernel parameter, its bytes (4 or 8), negative for a pointer.
inline constexpr const char *kParamsAttr = "fuser.emu.params";
inline constexpr const char *kEntrySuffix = ".entry";

} // namespace mlir::fuser::emu

#endif
