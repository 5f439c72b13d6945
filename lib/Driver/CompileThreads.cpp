//===- CompileThreads.cpp - the threads fuser parses and compiles on ------===//
//
// Parsing, compiling and the emulator's module loading run on a thread with
// kCompileStackBytes of stack (InputLimits.h says why). Those threads are
// kept and reused rather than made for each call: MLIR's StorageUniquer
// gives each thread that creates an attribute or type its own allocator,
// kept as long as the context, so a new thread for each compile left at
// least one 4 KiB slab in the context per compile that interned anything
// new (a time, a constant), for good: a JIT compiling in one context grew
// without bound. A pool of idle threads, grown when every thread is busy
// (concurrent callers), never shrunk; at most as many threads as the most
// callers there ever were at once.
//
// The pool is never destroyed (its threads may still wait on it while the
// process exits), and a child made by fork() starts with an empty one: the
// parent's threads do not exist there.
//
//===----------------------------------------------------------------------===//

#include "fuser/Driver/InputLimits.h"

#include <condition_variable>
#include <mutex>
#include <pthread.h>
#include <vector>

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// One compile thread: it waits for a call, runs it, and says it is done.
struct Worker {
  std::mutex mutex;
  std::condition_variable wake, done;
  llvm::function_ref<void()> fn;
  bool busy = false;
};

struct Pool {
  std::mutex mutex;
  std::vector<Worker *> idle;
};

Pool *pool = nullptr;
std::once_flag poolOnce;

void startAfresh() { pool = new Pool(); } // the old one is left as it is

Pool &getPool() {
  std::call_once(poolOnce, [] {
    startAfresh();
    pthread_atfork(nullptr, nullptr, startAfresh);
  });
  return *pool;
}

void *workerMain(void *arg) {
  auto *w = static_cast<Worker *>(arg);
  std::unique_lock<std::mutex> lock(w->mutex);
  for (;;) {
    w->wake.wait(lock, [&] { return w->busy; });
    w->fn();
    w->busy = false;
    w->done.notify_one();
  }
  return nullptr;
}

/// A new compile thread, or null when none can be made.
Worker *startWorker() {
  auto *w = new Worker();
  pthread_attr_t attr;
  pthread_t thread;
  bool started = false;
  if (pthread_attr_init(&attr) == 0) {
    started = pthread_attr_setstacksize(&attr, kCompileStackBytes) == 0 &&
              pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
              pthread_create(&thread, &attr, workerMain, w) == 0;
    pthread_attr_destroy(&attr);
  }
  if (!started) {
    delete w;
    return nullptr;
  }
  return w;
}

} // namespace

void mlir::fuser::runOnCompileStack(llvm::function_ref<void()> fn) {
  Pool &p = getPool();
  Worker *w = nullptr;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (!p.idle.empty()) {
      w = p.idle.back();
      p.idle.pop_back();
    }
  }
  if (!w)
    w = startWorker();
  if (!w) {
    fn(); // no thread: run here, with the caller's stack
    return;
  }
  {
    std::unique_lock<std::mutex> lock(w->mutex);
    w->fn = fn;
    w->busy = true;
    w->wake.notify_one();
    w->done.wait(lock, [&] { return !w->busy; });
  }
  std::lock_guard<std::mutex> lock(p.mutex);
  p.idle.push_back(w);
}
