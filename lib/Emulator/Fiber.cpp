//===- Fiber.cpp - cooperative threads for emulated GPU threads -----------===//

#include "Fiber.h"

#include <cstdint>
#include <cstdlib>
#include <sys/mman.h>

using namespace mlir::fuser::emu;

#if defined(__x86_64__) || defined(__aarch64__)

// fuser_fiber_switch(void **save, void *load): saves the callee-saved
// registers on the current stack, stores the stack pointer in *save, loads
// `load` as the stack pointer and restores the registers saved there.
extern "C" void fuser_fiber_switch(void **save, void *load);
// First code a new fiber runs: calls entry(arg) from callee-saved registers.
extern "C" void fuser_fiber_start();

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl fuser_fiber_switch\n"
        ".type fuser_fiber_switch,@function\n"
        "fuser_fiber_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n"
        "  pushq %r14\n  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n"
        "  popq %rbx\n  popq %rbp\n  ret\n"
        ".size fuser_fiber_switch,.-fuser_fiber_switch\n"
        ".globl fuser_fiber_start\n"
        ".type fuser_fiber_start,@function\n"
        "fuser_fiber_start:\n"
        "  movq %r13, %rdi\n  callq *%r12\n  ud2\n"
        ".size fuser_fiber_start,.-fuser_fiber_start\n");
#else // AArch64
__asm__(".text\n"
        ".globl fuser_fiber_switch\n"
        ".type fuser_fiber_switch,%function\n"
        "fuser_fiber_switch:\n"
        "  sub sp, sp, #176\n"
        "  stp x19, x20, [sp, #0]\n  stp x21, x22, [sp, #16]\n"
        "  stp x23, x24, [sp, #32]\n  stp x25, x26, [sp, #48]\n"
        "  stp x27, x28, [sp, #64]\n  stp x29, x30, [sp, #80]\n"
        "  stp d8, d9, [sp, #96]\n  stp d10, d11, [sp, #112]\n"
        "  stp d12, d13, [sp, #128]\n  stp d14, d15, [sp, #144]\n"
        "  mov x9, sp\n  str x9, [x0]\n  mov sp, x1\n"
        "  ldp x19, x20, [sp, #0]\n  ldp x21, x22, [sp, #16]\n"
        "  ldp x23, x24, [sp, #32]\n  ldp x25, x26, [sp, #48]\n"
        "  ldp x27, x28, [sp, #64]\n  ldp x29, x30, [sp, #80]\n"
        "  ldp d8, d9, [sp, #96]\n  ldp d10, d11, [sp, #112]\n"
        "  ldp d12, d13, [sp, #128]\n  ldp d14, d15, [sp, #144]\n"
        "  add sp, sp, #176\n  ret\n"
        ".size fuser_fiber_switch,.-fuser_fiber_switch\n"
        ".globl fuser_fiber_start\n"
        ".type fuser_fiber_start,%function\n"
        "fuser_fiber_start:\n"
        "  mov x0, x20\n  blr x19\n  brk #0\n"
        ".size fuser_fiber_start,.-fuser_fiber_start\n");
#endif

struct Fiber::Impl {
  char *stack = nullptr;
  size_t size = 0;
  void *sp = nullptr;       // the fiber's saved stack pointer
  void *callerSp = nullptr; // the scheduler's, while the fiber runs
};

Fiber::Fiber(size_t stackBytes) : impl(new Impl) {
  impl->size = stackBytes;
  // Untouched pages cost nothing, so stacks can be generous.
  void *p = mmap(nullptr, stackBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    abort();
  impl->stack = static_cast<char *>(p);
}

Fiber::~Fiber() { munmap(impl->stack, impl->size); }

void Fiber::reset(Entry entry, void *arg) {
  uintptr_t top = reinterpret_cast<uintptr_t>(impl->stack + impl->size) & ~uintptr_t(15);
  auto *s = reinterpret_cast<uint64_t *>(top);
#if defined(__x86_64__)
  // Frame fuser_fiber_switch pops: fp control (8), r15, r14, r13, r12, rbx,
  // rbp, then the return address. After `ret` into fuser_fiber_start the
  // stack pointer is 16-aligned, as a call site needs.
  s -= 2;          // keep alignment: [top-16, top) unused
  *--s = reinterpret_cast<uint64_t>(&fuser_fiber_start);
  *--s = 0;                                     // rbp
  *--s = 0;                                     // rbx
  *--s = reinterpret_cast<uint64_t>(entry);     // r12
  *--s = reinterpret_cast<uint64_t>(arg);       // r13
  *--s = 0;                                     // r14
  *--s = 0;                                     // r15
  *--s = 0x0000037F00001F80ull;                 // mxcsr default, x87 control word
#else
  s -= 22; // 176 bytes of saved registers, 16-aligned
  for (int i = 0; i < 22; ++i)
    s[i] = 0;
  s[0] = reinterpret_cast<uint64_t>(entry);               // x19
  s[1] = reinterpret_cast<uint64_t>(arg);                 // x20
  s[11] = reinterpret_cast<uint64_t>(&fuser_fiber_start); // x30
#endif
  impl->sp = s;
}

void Fiber::resume() { fuser_fiber_switch(&impl->callerSp, impl->sp); }
void Fiber::yield() { fuser_fiber_switch(&impl->sp, impl->callerSp); }

#else // ucontext fallback

#include <ucontext.h>

struct Fiber::Impl {
  char *stack = nullptr;
  size_t size = 0;
  ucontext_t ctx, caller;
};

Fiber::Fiber(size_t stackBytes) : impl(new Impl) {
  impl->size = stackBytes;
  impl->stack = static_cast<char *>(malloc(stackBytes));
}
Fiber::~Fiber() { free(impl->stack); }

void Fiber::reset(Entry entry, void *arg) {
  getcontext(&impl->ctx);
  impl->ctx.uc_stack.ss_sp = impl->stack;
  impl->ctx.uc_stack.ss_size = impl->size;
  impl->ctx.uc_link = nullptr;
  makecontext(&impl->ctx, reinterpret_cast<void (*)()>(entry), 1, arg);
}
void Fiber::resume() { swapcontext(&impl->caller, &impl->ctx); }
void Fiber::yield() { swapcontext(&impl->ctx, &impl->caller); }

#endif
