//===- Emulator.cpp - fuser's kernels on the CPU as a runtime driver ------===//
//
// module_load parses a bundle's kernel MLIR, lowers it to one host function
// per GPU thread and JIT-compiles it; launch runs every block of the grid in
// turn and, in each block, every thread:
//  - kernels without barriers or shuffles run thread after thread, each to
//    completion;
//  - kernels that synchronize run each thread as a fiber. A fiber runs
//    until it reaches a barrier or a shuffle. A barrier releases when every
//    thread of the block that has not finished waits at it; a shuffle
//    releases when every unfinished lane of the warp (32 consecutive
//    threads) waits at one, and then exchanges their values. If threads wait
//    at different points and none can go on, the launch fails: on a GPU that
//    kernel would hang or be wrong.
// Shared memory is fresh NaN-filled bytes for each block, so reading a value
// nobody wrote shows. The race check records, per shared byte, who wrote and
// read it since the last barrier.
//
//===----------------------------------------------------------------------===//

#include "Fiber.h"
#include "HostJit.h"
#include "ReferenceGemm.h"
#include "ThreadContext.h"

#include "fuser/Driver/InputLimits.h"
#include "fuser/Conversion/Passes.h"
#include "fuser/Emulator/Emulator.h"
#include "fuser/InitAll.h"
#include "fuser/Math/Float8.h"

#include "fuser_runtime.h"

#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstdio>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::emu;

namespace {

using EntryFn = void (*)(void **params, ThreadContext *ctx);

struct Kernel {
  std::string name;
  EntryFn entry = nullptr;
  int64_t staticShared = 0;
  int64_t dynamicSharedNeeded = 0; ///< kDynamicSharedNeededAttr
  bool synchronizes = false;
  /// Bytes of each parameter (8 for pointers and i64, 4 for i32), and
  /// which are pointers.
  std::vector<uint32_t> paramSizes;
  std::vector<bool> paramIsPointer;
};

struct Module {
  std::unique_ptr<HostJit> jit;
  std::unordered_map<std::string, Kernel> kernels;
};

/// Per-byte record of the race check.
struct ShadowByte {
  int32_t writer = -1;    // thread that last wrote it, -1: never written
  uint32_t writeEpoch = 0;
  int32_t reader = -1;    // a thread that read it in readEpoch
  uint32_t readEpoch = 0;
  bool manyReaders = false;
};

struct BlockState;
struct EmulatorContext;

/// What the launch's blocks hand to each other through global memory (the
/// accesses marked kCrossBlockAttr), to check that each value is made
/// visible as the PTX memory model requires: the writing block fences
/// after its stores (a barrier orders its other threads' stores before the
/// fence) and before its atomic arrival; the reading thread fences after
/// its block's arrival. Blocks run one after another, so without this
/// check a missing fence would never show.
struct CrossBlock {
  enum State { Written, Fenced, Released };
  struct Write {
    int64_t block;
    int32_t thread;
    uint32_t epoch;
    State state;
  };
  std::unordered_map<uint64_t, Write> writes; ///< by address
  std::vector<uint64_t> pending;              ///< the current block's, not released
  uint64_t seq = 0;                           ///< fences and arrivals so far
  uint64_t arrived = 0;                       ///< the current block's arrival (0: none)
  std::vector<uint64_t> fenced;               ///< per thread: its last fence
  int64_t block = 0;                          ///< the current block, linear
};

/// One emulated thread of a block.
struct Thread {
  ThreadContext ctx;
  BlockState *block = nullptr;
  int32_t linear = 0;
  enum State { Runnable, AtBarrier, AtShuffle, Done } state = Runnable;
  int32_t shuffleValue = 0, shuffleOffset = 0, shuffleWidth = 0, shuffleMode = 0;
  int32_t shuffleResult = 0;
  std::unique_ptr<Fiber> fiber;
};

/// The state of the block being run.
struct BlockState {
  EntryFn entry = nullptr;
  void **params = nullptr;
  std::vector<Thread> *threads = nullptr;
  int32_t numThreads = 0;
  std::vector<char> *shared = nullptr;
  std::vector<ShadowByte> *shadow = nullptr;
  bool raceCheck = false;
  uint32_t epoch = 1;
  std::string error; // the first race or bad access found
  std::string where; // the block, for messages
  EmulatorContext *emu = nullptr;
  const Kernel *kernel = nullptr;
  int64_t work = 0; // loop trips and threads of the launch so far
  CrossBlock *cross = nullptr;
};

/// One allocation, and what the kernels' global accesses asked of it.
struct Allocation {
  uint64_t size = 0, loaded = 0, stored = 0;
};

struct EmulatorContext {
  EmulatorOptions options;
  JitTarget target; // the CPU the JIT compiles for
  uint64_t maxMemory = 0, maxWork = 0; // the limits in effect
  std::unique_ptr<MLIRContext> mlir;
  std::mutex mutex; // modules load under the runtime's lock; launches may race
  /// Every live allocation by address, and their bytes, under allocMutex.
  std::map<uint64_t, Allocation> allocations;
  uint64_t allocatedBytes = 0;
  std::mutex allocMutex;
};

thread_local Thread *currentThread = nullptr;

} // namespace

//===----------------------------------------------------------------------===//
// Entry points the lowered kernels call
//===----------------------------------------------------------------------===//

extern "C" void fuser_emu_barrier(ThreadContext *ctx) {
  auto *t = static_cast<Thread *>(ctx->thread);
  t->state = Thread::AtBarrier;
  t->fiber->yield();
}

extern "C" int32_t fuser_emu_shuffle(ThreadContext *ctx, int32_t value,
                                     int32_t offset, int32_t width, int32_t mode) {
  auto *t = static_cast<Thread *>(ctx->thread);
  t->state = Thread::AtShuffle;
  t->shuffleValue = value;
  t->shuffleOffset = offset;
  t->shuffleWidth = width;
  t->shuffleMode = mode;
  t->fiber->yield();
  return t->shuffleResult;
}

static std::string threadName(const Thread &t) {
  return "thread (" + std::to_string(t.ctx.threadId[0]) + ", " +
         std::to_string(t.ctx.threadId[1]) + ", " + std::to_string(t.ctx.threadId[2]) +
         ") of block (" + std::to_string(t.ctx.blockId[0]) + ", " +
         std::to_string(t.ctx.blockId[1]) + ", " + std::to_string(t.ctx.blockId[2]) + ")";
}

/// A load or store outside what it may reach, or at an address not a
/// multiple of its `alignment`: recorded (the first one), and skipped by the
/// kernel (a load reads zeros). `param` is the kernel parameter the address
/// derives from, or -1 for shared memory, whose addresses are offsets in the
/// block's buffer.
extern "C" void fuser_emu_bad_access(ThreadContext *ctx, int32_t param, int64_t address,
                                     int64_t size, int64_t begin, int64_t end,
                                     int32_t isStore, int64_t elementBytes,
                                     int64_t alignment) {
  auto *t = static_cast<Thread *>(ctx->thread);
  BlockState &b = *t->block;
  if (!b.error.empty())
    return;
  const char *verb = isStore ? "stored" : "loaded";
  int64_t offset = address - begin; // bytes from the start it may reach
  std::string at = "element " + std::to_string(offset / std::max<int64_t>(elementBytes, 1)) +
                   " (byte " + std::to_string(offset) + ")";
  uint64_t ua = (uint64_t)address, last = ua + (uint64_t)size;
  bool inBounds = ua >= (uint64_t)begin && last > ua && last <= (uint64_t)end;
  if (inBounds && alignment > 1 && ua % (uint64_t)alignment != 0) {
    b.error = "kernel '" + b.kernel->name + "' " + verb + " " + std::to_string(size) +
              " bytes at " + at + " of parameter " + std::to_string(param) +
              ", an address that is not a multiple of the access's alignment, " +
              std::to_string(alignment) + " bytes (it is " +
              std::to_string(ua % (uint64_t)alignment) +
              " bytes past one; a GPU faults: misaligned address), " + threadName(*t);
    return;
  }
  if (param < 0) {
    b.error = "kernel '" + b.kernel->name + "' " + verb + " " + std::to_string(size) +
              " bytes at byte " + std::to_string(address) +
              " of shared memory, outside the workgroup buffer it indexes (bytes " +
              std::to_string(begin) + " to " + std::to_string(end) + "), " + threadName(*t);
    return;
  }
  if (end == 0 && begin == 0)
    b.error = "kernel '" + b.kernel->name + "' " + verb + " " + std::to_string(size) +
              " bytes through parameter " + std::to_string(param) +
              ", which points into no allocation of this emulator, " + threadName(*t);
  else
    b.error = "kernel '" + b.kernel->name + "' " + verb + " " + std::to_string(size) +
              " bytes at " + at + " of parameter " + std::to_string(param) +
              ", outside the " + std::to_string(end - begin) +
              " bytes from it to the end of its allocation, " + threadName(*t);
}

/// A loop that would take the launch past the work limit: recorded; the
/// kernel skips it.
extern "C" void fuser_emu_work_exceeded(ThreadContext *ctx, int64_t trips) {
  auto *t = static_cast<Thread *>(ctx->thread);
  BlockState &b = *t->block;
  if (!b.error.empty())
    return;
  b.error = "kernel '" + b.kernel->name + "' would run more than the emulator's work limit "
            "of " + std::to_string(b.emu->maxWork) + " loop iterations in one launch (reached "
            "at a loop of " + std::to_string(trips) + " in " + threadName(*t) +
            "); raise FuserEmulatorOptions.maxWork if that is meant";
}

extern "C" void fuser_emu_global_access(ThreadContext *ctx, int64_t address, int64_t size,
                                        int32_t isStore) {
  EmulatorContext &emu = *static_cast<Thread *>(ctx->thread)->block->emu;
  std::lock_guard<std::mutex> lock(emu.allocMutex);
  auto it = emu.allocations.upper_bound(static_cast<uint64_t>(address));
  if (it == emu.allocations.begin())
    return;
  --it;
  if (static_cast<uint64_t>(address) >= it->first + it->second.size)
    return;
  (isStore ? it->second.stored : it->second.loaded) += static_cast<uint64_t>(size);
}

static std::string blockName(const ThreadContext &c, int64_t linear) {
  int64_t gx = c.gridDim[0], gy = c.gridDim[1];
  return "block (" + std::to_string(linear % gx) + ", " + std::to_string(linear / gx % gy) +
         ", " + std::to_string(linear / (gx * gy)) + ")";
}

extern "C" void fuser_emu_fence(ThreadContext *ctx) {
  auto *t = static_cast<Thread *>(ctx->thread);
  BlockState *b = t->block;
  CrossBlock &x = *b->cross;
  x.fenced[t->linear] = ++x.seq;
  // This thread's stores, and its block's stores before a barrier it has
  // passed since.
  for (uint64_t a : x.pending) {
    CrossBlock::Write &w = x.writes[a];
    if (w.state == CrossBlock::Written && (w.thread == t->linear || w.epoch < b->epoch))
      w.state = CrossBlock::Fenced;
  }
}

extern "C" void fuser_emu_arrive(ThreadContext *ctx) {
  auto *t = static_cast<Thread *>(ctx->thread);
  CrossBlock &x = *t->block->cross;
  x.arrived = ++x.seq;
  std::vector<uint64_t> still;
  for (uint64_t a : x.pending) {
    CrossBlock::Write &w = x.writes[a];
    if (w.state == CrossBlock::Fenced)
      w.state = CrossBlock::Released;
    else
      still.push_back(a);
  }
  x.pending = std::move(still);
}

extern "C" void fuser_emu_cross_block(ThreadContext *ctx, int64_t address, int32_t isStore) {
  auto *t = static_cast<Thread *>(ctx->thread);
  BlockState *b = t->block;
  CrossBlock &x = *b->cross;
  uint64_t a = static_cast<uint64_t>(address);
  if (isStore) {
    x.writes[a] = CrossBlock::Write{x.block, t->linear, b->epoch, CrossBlock::Written};
    x.pending.push_back(a);
    return;
  }
  auto it = x.writes.find(a);
  if (it == x.writes.end() || it->second.block == x.block || !b->error.empty())
    return;
  const CrossBlock::Write &w = it->second;
  std::string what = threadName(*t) + " reads bytes at 0x" +
                     llvm::utohexstr(a) + " that " + blockName(t->ctx, w.block) +
                     " wrote (thread " + std::to_string(w.thread) + ")";
  if (w.state != CrossBlock::Released)
    b->error = what + " without a fence between its store and its atomic arrival: on a GPU "
                      "the read may see the old bytes";
  else if (!x.arrived || x.fenced[t->linear] < x.arrived)
    b->error = what + " with no fence after its own block's atomic arrival: on a GPU the "
                      "read may see the old bytes";
}

extern "C" void fuser_emu_shared_access(ThreadContext *ctx, int64_t offset,
                                        int64_t size, int32_t isWrite) {
  auto *t = static_cast<Thread *>(ctx->thread);
  BlockState *b = t->block;
  if (!b->raceCheck || !b->error.empty() || offset < 0 ||
      offset + size > static_cast<int64_t>(b->shadow->size()))
    return; // an access outside is reported by fuser_emu_bad_access
  for (int64_t i = offset; i < offset + size; ++i) {
    ShadowByte &s = (*b->shadow)[i];
    const char *problem = nullptr;
    if (isWrite) {
      if (s.writeEpoch == b->epoch && s.writer != t->linear && s.writer >= 0)
        problem = "written by two threads with no barrier in between";
      else if (s.readEpoch == b->epoch && (s.manyReaders || s.reader != t->linear) &&
               s.reader >= 0)
        problem = "written after another thread read it, with no barrier in between";
      s.writer = t->linear;
      s.writeEpoch = b->epoch;
    } else {
      if (s.writer < 0)
        problem = "read before any thread of the block wrote it";
      else if (s.writeEpoch == b->epoch && s.writer != t->linear)
        problem = "read after another thread wrote it, with no barrier in between";
      if (s.readEpoch == b->epoch && s.reader != t->linear)
        s.manyReaders = true;
      else if (s.readEpoch != b->epoch)
        s.manyReaders = false;
      s.reader = t->linear;
      s.readEpoch = b->epoch;
    }
    if (problem) {
      b->error = "shared memory race in " + b->where + ": byte " + std::to_string(i) +
                 " " + problem + " (thread " + std::to_string(t->linear) + ")";
      return;
    }
  }
}

//===----------------------------------------------------------------------===//
// Running a launch
//===----------------------------------------------------------------------===//

static void threadMain(void *arg) {
  auto *t = static_cast<Thread *>(arg);
  currentThread = t;
  t->block->entry(t->block->params, &t->ctx);
  t->state = Thread::Done;
  t->fiber->yield();
  __builtin_unreachable();
}

/// Exchanges the values of a warp whose unfinished lanes all wait at a
/// shuffle (modes: 0 xor, 1 up, 2 down, 3 idx, as gpu::ShuffleMode).
static void resolveShuffle(std::vector<Thread> &threads, int32_t first, int32_t count) {
  for (int32_t l = 0; l < count; ++l) {
    Thread &t = threads[first + l];
    if (t.state != Thread::AtShuffle)
      continue;
    int32_t width = t.shuffleWidth > 0 ? t.shuffleWidth : 32;
    int32_t segment = (l / width) * width;
    int32_t src = l;
    // gpu::ShuffleMode's values: UP reads the lane `offset` below, DOWN the
    // lane `offset` above (PTX shfl.sync.up / .down).
    switch (static_cast<gpu::ShuffleMode>(t.shuffleMode)) {
    case gpu::ShuffleMode::XOR: src = l ^ t.shuffleOffset; break;
    case gpu::ShuffleMode::UP: src = l - t.shuffleOffset; break;
    case gpu::ShuffleMode::DOWN: src = l + t.shuffleOffset; break;
    case gpu::ShuffleMode::IDX: src = segment + t.shuffleOffset; break;
    }
    bool valid = src >= segment && src < segment + width && src < count &&
                 threads[first + src].state == Thread::AtShuffle;
    t.shuffleResult = valid ? threads[first + src].shuffleValue : t.shuffleValue;
  }
  for (int32_t l = 0; l < count; ++l)
    if (threads[first + l].state == Thread::AtShuffle)
      threads[first + l].state = Thread::Runnable;
}

/// Runs every fiber of the block to completion; returns an error message or "".
static std::string runSynchronizingBlock(BlockState &b, bool reverse) {
  std::vector<Thread> &threads = *b.threads;
  int32_t n = b.numThreads;
  for (int32_t i = 0; i < n; ++i) {
    threads[i].state = Thread::Runnable;
    threads[i].fiber->reset(threadMain, &threads[i]);
  }
  int32_t done = 0;
  while (done < n) {
    bool progressed = false;
    for (int32_t k = 0; k < n; ++k) {
      Thread &t = threads[reverse ? n - 1 - k : k];
      if (t.state != Thread::Runnable)
        continue;
      t.fiber->resume();
      progressed = true;
      if (t.state == Thread::Done)
        ++done;
      if (!b.error.empty())
        return b.error;
    }
    // Release warps whose unfinished lanes all wait at a shuffle.
    for (int32_t w = 0; w < n; w += 32) {
      int32_t count = std::min(32, n - w), waiting = 0, live = 0;
      for (int32_t l = 0; l < count; ++l) {
        Thread::State s = threads[w + l].state;
        live += s != Thread::Done;
        waiting += s == Thread::AtShuffle;
      }
      if (waiting && waiting == live) {
        resolveShuffle(threads, w, count);
        progressed = true;
      }
    }
    // Release the barrier when every unfinished thread waits at it.
    int32_t atBarrier = 0;
    for (int32_t i = 0; i < n; ++i)
      atBarrier += threads[i].state == Thread::AtBarrier;
    if (atBarrier && atBarrier == n - done) {
      for (int32_t i = 0; i < n; ++i)
        threads[i].state = Thread::Runnable;
      ++b.epoch;
      progressed = true;
    }
    if (!progressed && done < n) {
      int32_t shuffles = 0;
      for (int32_t i = 0; i < n; ++i)
        shuffles += threads[i].state == Thread::AtShuffle;
      // The stranded fibers are abandoned; their stacks are reset next time.
      return "threads of " + b.where + " wait at different synchronization points (" +
             std::to_string(atBarrier) + " at a barrier, " + std::to_string(shuffles) +
             " at a shuffle, " + std::to_string(done) +
             " finished): on a GPU this kernel would hang";
    }
  }
  return "";
}

/// The most shared memory a block may ask for: an H100/H200's 227 KiB.
constexpr int64_t kMaxSharedBytes = 227 * 1024;

static fuser_error *launchError(const Kernel &k, const std::string &what) {
  return fuser_error_create(FUSER_ERROR_DRIVER, "emulator: kernel '%s': %s", k.name.c_str(),
                            what.c_str());
}

static fuser_error *launch(EmulatorContext &emu, Kernel &k, const fuser_launch_dims *dims,
                           void **params, const uint32_t *paramSizes, uint32_t numParams) {
  // The launch must pass what the kernel takes: whatever a bundle says, the
  // kernel reads nothing but its own parameters.
  if (numParams != k.paramSizes.size())
    return launchError(k, "the launch passes " + std::to_string(numParams) +
                              " parameters, the kernel takes " +
                              std::to_string(k.paramSizes.size()));
  for (uint32_t i = 0; i < numParams; ++i)
    if (paramSizes[i] != k.paramSizes[i])
      return launchError(k, "parameter " + std::to_string(i) + " is " +
                                std::to_string(paramSizes[i]) + " bytes in the launch, " +
                                std::to_string(k.paramSizes[i]) + " in the kernel");
  int64_t threadsPerBlock = int64_t(dims->block[0]) * dims->block[1] * dims->block[2];
  if (threadsPerBlock <= 0 || threadsPerBlock > 1024)
    return fuser_error_create(FUSER_ERROR_DRIVER,
                              "emulator: a block of %lld threads (at most 1024)",
                              (long long)threadsPerBlock);
  if (int64_t(dims->shared_mem_bytes) < k.dynamicSharedNeeded)
    return launchError(k, "the launch gives " + std::to_string(dims->shared_mem_bytes) +
                              " bytes of dynamic shared memory, the kernel's workgroup "
                              "buffers need " + std::to_string(k.dynamicSharedNeeded));
  int64_t sharedBytes = k.staticShared + dims->shared_mem_bytes;
  if (sharedBytes > kMaxSharedBytes)
    return launchError(k, std::to_string(sharedBytes) + " bytes of shared memory a block "
                          "(a GPU has at most " + std::to_string(kMaxSharedBytes) + ")");
  // Every thread counts as work, then every loop iteration.
  unsigned __int128 threads128 = (unsigned __int128)dims->grid[0] * dims->grid[1] *
                                 dims->grid[2] * (uint64_t)threadsPerBlock;
  if (threads128 > emu.maxWork)
    return launchError(k, "a grid of " + std::to_string((uint64_t)(threads128 >> 64 ? ~0ull
                                                                       : (uint64_t)threads128)) +
                              " threads is more than the emulator's work limit of " +
                              std::to_string(emu.maxWork) +
                              " (FuserEmulatorOptions.maxWork)");
  // Each pointer parameter may reach from where it points to the end of its
  // allocation; one pointing into none reaches nothing.
  std::vector<ParamBounds> bounds(numParams, ParamBounds{0, 0});
  {
    std::lock_guard<std::mutex> lock(emu.allocMutex);
    for (uint32_t i = 0; i < numParams; ++i) {
      if (!k.paramIsPointer[i])
        continue;
      uint64_t p = *static_cast<const uint64_t *>(params[i]);
      auto it = emu.allocations.upper_bound(p);
      if (it == emu.allocations.begin())
        continue;
      --it;
      if (p <= it->first + it->second.size)
        bounds[i] = ParamBounds{p, it->first + it->second.size};
    }
  }
  std::vector<char> shared(sharedBytes + 16);
  std::vector<ShadowByte> shadow(emu.options.raceCheck ? sharedBytes : 0);
  std::vector<Thread> threads(threadsPerBlock);
  if (k.synchronizes)
    for (Thread &t : threads)
      t.fiber = std::make_unique<Fiber>(256 * 1024);
  BlockState b;
  b.entry = k.entry;
  b.params = params;
  b.threads = &threads;
  b.numThreads = threadsPerBlock;
  b.shared = &shared;
  b.shadow = &shadow;
  b.raceCheck = emu.options.raceCheck;
  b.emu = &emu;
  b.kernel = &k;
  b.work = static_cast<int64_t>(threads128);
  CrossBlock cross;
  cross.fenced.assign(threadsPerBlock, 0);
  b.cross = &cross;
  for (uint32_t bz = 0; bz < dims->grid[2]; ++bz)
    for (uint32_t by = 0; by < dims->grid[1]; ++by)
      for (uint32_t bx = 0; bx < dims->grid[0]; ++bx) {
        cross.block = (int64_t(bz) * dims->grid[1] + by) * dims->grid[0] + bx;
        cross.pending.clear();
        cross.arrived = 0;
        std::fill(cross.fenced.begin(), cross.fenced.end(), 0);
        // Fresh shared memory: NaN in every float, -1 in every integer.
        std::memset(shared.data(), 0xff, shared.size());
        if (b.raceCheck)
          std::fill(shadow.begin(), shadow.end(), ShadowByte());
        b.epoch = 1;
        int32_t linear = 0;
        for (uint32_t z = 0; z < dims->block[2]; ++z)
          for (uint32_t y = 0; y < dims->block[1]; ++y)
            for (uint32_t x = 0; x < dims->block[0]; ++x, ++linear) {
              Thread &t = threads[linear];
              t.ctx = ThreadContext{{(int32_t)x, (int32_t)y, (int32_t)z},
                                    {(int32_t)bx, (int32_t)by, (int32_t)bz},
                                    {(int32_t)dims->block[0], (int32_t)dims->block[1],
                                     (int32_t)dims->block[2]},
                                    {(int32_t)dims->grid[0], (int32_t)dims->grid[1],
                                     (int32_t)dims->grid[2]},
                                    shared.data(),
                                    &t,
                                    bounds.data(),
                                    &b.work,
                                    static_cast<int64_t>(emu.maxWork)};
              t.block = &b;
              t.linear = linear;
            }
        if (b.raceCheck || k.synchronizes)
          b.where = "block (" + std::to_string(bx) + ", " + std::to_string(by) + ", " +
                    std::to_string(bz) + ")";
        if (!k.synchronizes) {
          for (int32_t i = 0; i < b.numThreads; ++i) {
            int32_t t = emu.options.reverseThreads ? b.numThreads - 1 - i : i;
            k.entry(params, &threads[t].ctx);
          }
          if (!b.error.empty())
            return fuser_error_create(FUSER_ERROR_DRIVER, "emulator: %s", b.error.c_str());
          continue;
        }
        std::string err = runSynchronizingBlock(b, emu.options.reverseThreads);
        if (!err.empty())
          return fuser_error_create(FUSER_ERROR_DRIVER, "emulator: %s", err.c_str());
      }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Loading modules
//===----------------------------------------------------------------------===//

static fuser_error *loadModuleOnThisStack(EmulatorContext &emu, const char *text,
                                          size_t size, const char *name, Module **out);

/// Parses, checks, lowers and JIT-compiles a bundle's kernel module: its
/// nesting is bounded first, and the work runs on fuser's compile stack
/// (InputLimits.h), whatever the calling thread's stack.
static fuser_error *loadModule(EmulatorContext &emu, const char *text, size_t size,
                               const char *name, Module **out) {
  std::string tooDeep;
  if (!checkNestingDepth(StringRef(text, size), tooDeep))
    return fuser_error_create(FUSER_ERROR_DRIVER, "emulator: module '%s': %s", name,
                              tooDeep.c_str());
  fuser_error *result = nullptr;
  runOnCompileStack([&] { result = loadModuleOnThisStack(emu, text, size, name, out); });
  return result;
}

static fuser_error *loadModuleOnThisStack(EmulatorContext &emu, const char *text,
                                          size_t size, const char *name, Module **out) {
  std::lock_guard<std::mutex> lock(emu.mutex);
  MLIRContext &ctx = *emu.mlir;
  std::string diagnostics;
  // "file:line:col: message", one per line (the file is the module's name).
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (!diagnostics.empty())
      diagnostics += "\n";
    if (auto loc = dyn_cast<FileLineColLoc>(d.getLocation()))
      diagnostics += (loc.getFilename().getValue() + ":" + Twine(loc.getLine()) + ":" +
                      Twine(loc.getColumn()) + ": ")
                         .str();
    diagnostics += "error: " + d.str();
    return success();
  });
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(StringRef(text, size ? size - 1 : 0), config, name);
  if (!module)
    return fuser_error_create(FUSER_ERROR_DRIVER,
                              "emulator: cannot parse module '%s': %s", name,
                              diagnostics.c_str());
  if (failed(validateEmulationModule(*module)))
    return fuser_error_create(FUSER_ERROR_DRIVER,
                              "emulator: module '%s' is not a kernel module fuser would "
                              "emit: %s",
                              name, diagnostics.c_str());
  PassManager lower(&ctx);
  lower.addPass(createLowerKernelsToHostPass(emu.options.countTraffic));
  // The GPU's fp8 conversion instruction becomes the arithmetic that
  // computes its bits (lib/Math/Float8.cpp).
  if (failed(expandFloat8PairConversions(*module)) || failed(lower.run(*module)))
    return fuser_error_create(FUSER_ERROR_DRIVER,
                              "emulator: cannot lower module '%s': %s", name,
                              diagnostics.c_str());
  auto m = std::make_unique<Module>();
  std::vector<std::string> entries;
  for (auto f : module->getOps<func::FuncOp>()) {
    if (!f.getSymName().ends_with(kEntrySuffix))
      continue;
    Kernel k;
    if (auto s = f->getAttrOfType<IntegerAttr>(kStaticSharedAttr))
      k.staticShared = s.getInt();
    if (auto s = f->getAttrOfType<IntegerAttr>(kDynamicSharedNeededAttr))
      k.dynamicSharedNeeded = s.getInt();
    k.synchronizes = f->hasAttr(kSynchronizesAttr);
    if (auto params = f->getAttrOfType<DenseI32ArrayAttr>(kParamsAttr))
      for (int32_t p : params.asArrayRef()) {
        k.paramSizes.push_back(static_cast<uint32_t>(p < 0 ? -p : p));
        k.paramIsPointer.push_back(p < 0);
      }
    std::string kernel = f.getSymName().drop_back(strlen(kEntrySuffix)).str();
    k.name = kernel;
    m->kernels[kernel] = k;
    entries.push_back(kernel);
  }
  PassManager toLLVM(&ctx);
  // f16 and bf16 in f32 and integer arithmetic, so that no host CPU feature
  // changes a bit (ExpandHalfFloats.cpp).
  arith::ArithEmulateUnsupportedFloatsOptions halves;
  halves.sourceTypeStrs = {"f16", "bf16"};
  halves.targetTypeStr = "f32";
  toLLVM.addPass(arith::createArithEmulateUnsupportedFloats(halves));
  toLLVM.addPass(createExpandHalfFloatsPass());
  toLLVM.addPass(arith::createArithExpandOpsPass());
  toLLVM.addPass(createLowerIfsPass()); // linear, where upstream's is quadratic
  toLLVM.addPass(createSCFToControlFlowPass());
  toLLVM.addPass(createConvertToLLVMPass());
  toLLVM.addPass(createReconcileUnrealizedCastsPass());
  if (failed(toLLVM.run(*module)))
    return fuser_error_create(FUSER_ERROR_DRIVER,
                              "emulator: cannot lower module '%s' to LLVM: %s", name,
                              diagnostics.c_str());
  static const std::map<std::string, uint64_t> runtime = {
      {kBarrierFn, reinterpret_cast<uint64_t>(&fuser_emu_barrier)},
      {kShuffleFn, reinterpret_cast<uint64_t>(&fuser_emu_shuffle)},
      {kSharedAccessFn, reinterpret_cast<uint64_t>(&fuser_emu_shared_access)},
      {kGlobalAccessFn, reinterpret_cast<uint64_t>(&fuser_emu_global_access)},
      {kBadAccessFn, reinterpret_cast<uint64_t>(&fuser_emu_bad_access)},
      {kWorkExceededFn, reinterpret_cast<uint64_t>(&fuser_emu_work_exceeded)},
      {kFenceFn, reinterpret_cast<uint64_t>(&fuser_emu_fence)},
      {kArriveFn, reinterpret_cast<uint64_t>(&fuser_emu_arrive)},
      {kCrossBlockFn, reinterpret_cast<uint64_t>(&fuser_emu_cross_block)},
  };
  std::string error;
  m->jit = HostJit::compile(*module, emu.target, emu.options.optLevel, runtime, error);
  if (!m->jit)
    return fuser_error_create(FUSER_ERROR_DRIVER, "emulator: cannot compile module '%s': %s",
                              name, error.c_str());
  for (const std::string &kernel : entries) {
    uint64_t fn = m->jit->lookup(kernel + kEntrySuffix, error);
    if (!fn)
      return fuser_error_create(FUSER_ERROR_DRIVER,
                                "emulator: kernel '%s' did not compile: %s",
                                kernel.c_str(), error.c_str());
    m->kernels[kernel].entry = reinterpret_cast<EntryFn>(fn);
  }
  if (emu.options.trace) {
    std::string linked;
    for (const std::string &s : m->jit->linked())
      linked += (linked.empty() ? "" : " ") + s;
    std::fprintf(stderr, "emulator: module '%s': compiled for %s at -O%u; linked: %s\n", name,
                 emu.target.describe().c_str(), emu.options.optLevel,
                 linked.empty() ? "(nothing)" : linked.c_str());
  }
  *out = m.release();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// The driver table
//===----------------------------------------------------------------------===//

static EmulatorContext &emuOf(void *ctx) { return *static_cast<EmulatorContext *>(ctx); }

static fuser_error *drvModuleLoad(void *ctx, const void *image, size_t size,
                                  const char *name, void **out) {
  Module *m = nullptr;
  if (fuser_error *e = loadModule(emuOf(ctx), static_cast<const char *>(image), size,
                                  name, &m))
    return e;
  *out = m;
  return nullptr;
}
static void drvModuleUnload(void *, void *module) { delete static_cast<Module *>(module); }
static fuser_error *drvFunctionGet(void *, void *module, const char *name, void **out) {
  auto &kernels = static_cast<Module *>(module)->kernels;
  auto it = kernels.find(name);
  if (it == kernels.end())
    return fuser_error_create(FUSER_ERROR_NOT_FOUND, "emulator: no kernel '%s'", name);
  *out = &it->second;
  return nullptr;
}
static fuser_error *drvLaunch(void *ctx, void *function, const fuser_launch_dims *dims,
                              void *, void **params, const uint32_t *paramSizes,
                              uint32_t numParams) {
  return launch(emuOf(ctx), *static_cast<Kernel *>(function), dims, params, paramSizes,
                numParams);
}
static std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
  return buf;
}

static fuser_error *drvAlloc(void *ctx, size_t bytes, uint64_t *out) {
  EmulatorContext &emu = emuOf(ctx);
  std::lock_guard<std::mutex> lock(emu.allocMutex);
  if (bytes > emu.maxMemory || emu.allocatedBytes > emu.maxMemory - bytes)
    return fuser_error_create(
        FUSER_ERROR_OUT_OF_MEMORY,
        "emulator: allocating %zu bytes would take the emulator past its memory limit of "
        "%llu bytes (%llu in use; FuserEmulatorOptions.maxMemoryBytes)",
        bytes, (unsigned long long)emu.maxMemory, (unsigned long long)emu.allocatedBytes);
  // 256-byte aligned as cuMemAlloc's; a zero-byte allocation still gets a
  // distinct address.
  void *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (!p)
    return fuser_error_create(FUSER_ERROR_OUT_OF_MEMORY,
                              "emulator: out of host memory allocating %zu bytes", bytes);
  *out = reinterpret_cast<uint64_t>(p);
  emu.allocations[*out] = Allocation{bytes, 0, 0};
  emu.allocatedBytes += bytes;
  return nullptr;
}
static fuser_error *drvFree(void *ctx, uint64_t ptr) {
  EmulatorContext &emu = emuOf(ctx);
  std::lock_guard<std::mutex> lock(emu.allocMutex);
  auto it = emu.allocations.find(ptr);
  if (it == emu.allocations.end())
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "emulator: freeing %s, which is not the start of a live "
                              "allocation of this emulator (freed twice, never allocated, or "
                              "inside one)",
                              hex(ptr).c_str());
  emu.allocatedBytes -= it->second.size;
  emu.allocations.erase(it);
  std::free(reinterpret_cast<void *>(ptr));
  return nullptr;
}
/// Whether [address, address + bytes) lies in one live allocation; else an
/// error naming `what` (the operation and side).
static fuser_error *checkRange(EmulatorContext &emu, uint64_t address, size_t bytes,
                               const char *what) {
  std::lock_guard<std::mutex> lock(emu.allocMutex);
  auto it = emu.allocations.upper_bound(address);
  if (it != emu.allocations.begin()) {
    --it;
    uint64_t end = it->first + it->second.size;
    if (address >= it->first && address <= end && bytes <= end - address)
      return nullptr;
    if (address >= it->first && address <= end)
      return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                                "emulator: %s %zu bytes at %s, but only %llu bytes from there "
                                "to the end of its allocation (%s, %llu bytes)",
                                what, bytes, hex(address).c_str(),
                                (unsigned long long)(end - address), hex(it->first).c_str(),
                                (unsigned long long)it->second.size);
  }
  return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                            "emulator: %s %zu bytes at %s, which is in no live allocation of "
                            "this emulator",
                            what, bytes, hex(address).c_str());
}
static fuser_error *drvCopyH2D(void *ctx, uint64_t dst, const void *src, size_t bytes) {
  if (!bytes)
    return nullptr;
  if (!src)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "emulator: copy to the device from a NULL host pointer");
  if (fuser_error *e = checkRange(emuOf(ctx), dst, bytes, "copy to the device of"))
    return e;
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return nullptr;
}
static fuser_error *drvCopyD2H(void *ctx, void *dst, uint64_t src, size_t bytes) {
  if (!bytes)
    return nullptr;
  if (!dst)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "emulator: copy from the device to a NULL host pointer");
  if (fuser_error *e = checkRange(emuOf(ctx), src, bytes, "copy from the device of"))
    return e;
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return nullptr;
}
/// A collective's copy (a slice, a group of one device): both ranges must
/// lie in live allocations.
static fuser_error *drvCopyD2D(void *ctx, uint64_t dst, uint64_t src, size_t bytes, void *) {
  if (!bytes)
    return nullptr;
  if (fuser_error *e = checkRange(emuOf(ctx), src, bytes, "device copy from"))
    return e;
  if (fuser_error *e = checkRange(emuOf(ctx), dst, bytes, "device copy to"))
    return e;
  std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<const void *>(src), bytes);
  return nullptr;
}
static fuser_error *drvZero(void *ctx, uint64_t ptr, size_t bytes, void *) {
  if (!bytes)
    return nullptr;
  if (fuser_error *e = checkRange(emuOf(ctx), ptr, bytes, "zeroing of"))
    return e;
  std::memset(reinterpret_cast<void *>(ptr), 0, bytes);
  return nullptr;
}
/// The plan's GEMM: every byte it reaches must lie in a live allocation
/// (as a kernel's global accesses are checked), then the reference GEMM;
/// with traffic counting, each operand's elements count once.
static fuser_error *drvGemm(void *ctx, const fuser_gemm *g, void *) {
  EmulatorContext &emu = emuOf(ctx);
  GemmReach reach = gemmReach(*g);
  struct Operand {
    uint64_t address, bytes;
    const char *what;
  } operands[] = {{g->a, reach.a, "GEMM read of A:"},
                  {g->b, reach.b, "GEMM read of B:"},
                  {g->bias, reach.bias,
                   biasGradient(*g) ? "GEMM write of the bias gradient:" : "GEMM read of the bias:"},
                  {g->d, reach.d, "GEMM write of D:"},
                  {g->aux, reach.aux, "GEMM write of the pre-activation:"}};
  for (const Operand &o : operands)
    if (o.bytes)
      if (fuser_error *e = checkRange(emu, o.address, o.bytes, o.what))
        return e;
  referenceGemm(*g);
  if (emu.options.countTraffic && g->m > 0 && g->n > 0 && g->batch > 0) {
    uint64_t ab = fuser_dtype_size(fuser_dtype(g->ab_dtype)),
             d = fuser_dtype_size(fuser_dtype(g->d_dtype));
    auto matrices = [&](int64_t stride) { return stride ? uint64_t(g->batch) : 1; };
    std::lock_guard<std::mutex> lock(emu.allocMutex);
    auto count = [&](uint64_t address, uint64_t bytes, bool stored) {
      auto it = emu.allocations.upper_bound(address);
      if (it == emu.allocations.begin() || !bytes)
        return;
      --it;
      (stored ? it->second.stored : it->second.loaded) += bytes;
    };
    count(g->a, matrices(g->stride_a) * g->m * g->k * ab, false);
    count(g->b, matrices(g->stride_b) * g->k * g->n * ab, false);
    if (g->bias)
      count(g->bias, reach.bias, biasGradient(*g));
    count(g->d, uint64_t(g->batch) * g->m * g->n * d, true);
    if (g->aux)
      count(g->aux, uint64_t(g->batch) * g->m * g->n * d, true);
  }
  return nullptr;
}
static fuser_error *drvSynchronize(void *, void *, int) { return nullptr; }
/// As destroying a CUDA context releases its memory: what the caller never
/// freed goes with the emulator.
static void drvDestroy(void *ctx) {
  EmulatorContext *emu = static_cast<EmulatorContext *>(ctx);
  for (auto &[address, allocation] : emu->allocations)
    std::free(reinterpret_cast<void *>(address));
  delete emu;
}

const fuser_driver *mlir::fuser::getEmulatorDriver() {
  static const fuser_driver driver = [] {
    fuser_driver d;
    std::memset(&d, 0, sizeof d);
    d.module_kind = FUSER_MODULE_EMULATOR;
    d.name = "emulator";
    d.module_load = drvModuleLoad;
    d.module_unload = drvModuleUnload;
    d.function_get = drvFunctionGet;
    d.launch = drvLaunch;
    d.mem_alloc = drvAlloc;
    d.mem_free = drvFree;
    d.copy_h2d = drvCopyH2D;
    d.copy_d2h = drvCopyD2H;
    d.mem_zero = drvZero;
    d.synchronize = drvSynchronize;
    d.destroy = drvDestroy;
    d.gemm = drvGemm;
    d.copy_d2d = drvCopyD2D;
    return d;
  }();
  return &driver;
}

bool mlir::fuser::emulatorTraffic(void *ctx, uint64_t address, uint64_t &loaded,
                                  uint64_t &stored) {
  EmulatorContext &emu = emuOf(ctx);
  if (!emu.options.countTraffic)
    return false;
  std::lock_guard<std::mutex> lock(emu.allocMutex);
  auto it = emu.allocations.find(address);
  if (it == emu.allocations.end())
    return false;
  loaded = it->second.loaded;
  stored = it->second.stored;
  return true;
}

void *mlir::fuser::createEmulatorContext(const EmulatorOptions &options,
                                        std::string &error) {
  auto ctx = std::make_unique<EmulatorContext>();
  ctx->options = options;
  if (!resolveJitTarget(options.cpu, ctx->target, error))
    return nullptr;
  // Limits: half the machine's memory, and 2^36 loop iterations a launch
  // (minutes of emulation), unless the options say otherwise.
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  uint64_t physical = pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : 0;
  ctx->maxMemory = options.maxMemoryBytes ? options.maxMemoryBytes
                   : physical               ? physical / 2
                                            : uint64_t(8) << 30;
  ctx->maxWork = options.maxWork ? options.maxWork : uint64_t(1) << 36;
  DialectRegistry registry;
  registerAllDialects(registry);
  ctx->mlir = std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  ctx->mlir->loadAllAvailableDialects();
  return ctx.release();
}
