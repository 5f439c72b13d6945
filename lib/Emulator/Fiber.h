//===- Fiber.h - cooperative threads for emulated GPU threads ---*- C++ -*-===//
//
// Each emulated GPU thread of a block that synchronizes runs on its own
// stack; it switches back to the scheduler at every barrier and shuffle.
// x86-64 and AArch64 switch with a few instructions (callee-saved registers
// and the stack pointer); other hosts fall back to ucontext.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_EMULATOR_FIBER_H
#define FUSER_EMULATOR_FIBER_H

#include <cstddef>
#include <memory>

namespace mlir::fuser::emu {

class Fiber {
public:
  using Entry = void (*)(void *arg);
  /// A fiber that will run `entry(arg)` on a stack of `stackBytes`. `entry`
  /// must not return: it ends by switching back for the last time.
  Fiber(size_t stackBytes);
  ~Fiber();
  Fiber(const Fiber &) = delete;
  Fiber &operator=(const Fiber &) = delete;

  /// (Re)arms the fiber to start `entry(arg)` at the next resume.
  void reset(Entry entry, void *arg);
  /// Runs the fiber until it yields; called by the scheduler.
  void resume();
  /// Returns to the scheduler; called on the fiber.
  void yield();

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::fuser::emu

#endif
