//===- InputLimits.h - bounds on what a compile reads and how deep it goes -*- C++ -*-===//
//
// The parser and parts of MLIR and LLVM recurse once per nesting level of the
// text (and some passes once per op), so a hostile input could overflow any
// stack: 4000 nested `module {`, 7000 nested arrays or 50,000 nested `tuple<`
// crashed the parser on an 8 MiB main-thread stack, and a compile through
// the C API on a worker thread with 512 KiB crashed on 700 chained ops. So:
// text nests at most kMaxNestingDepth levels (checked before parsing), an
// input file is at most kMaxInputBytes (a pipe or /dev/zero is read up to
// that, never forever), and parsing, compiling and the emulator's module
// loading run on a thread of fuser's own with kCompileStackBytes of stack,
// whatever stack the caller has (docs/embedding.md).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DRIVER_INPUTLIMITS_H
#define FUSER_DRIVER_INPUTLIMITS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <memory>
#include <string>

namespace llvm {
class MemoryBuffer;
}

namespace mlir::fuser {

/// The deepest nesting of brackets ((, [, {, <) in a text fuser parses.
inline constexpr unsigned kMaxNestingDepth = 256;
/// The largest input file fuserc and the C API read.
inline constexpr size_t kMaxInputBytes = size_t(256) << 20;
/// The stack of the thread that parses, compiles and JIT-compiles.
inline constexpr size_t kCompileStackBytes = size_t(64) << 20;

/// Checks that `text` (MLIR assembly) nests at most kMaxNestingDepth levels,
/// outside string literals and comments; else returns false and sets
/// `error` ("nests deeper than 256 levels (line 3)").
bool checkNestingDepth(llvm::StringRef text, std::string &error);

/// Reads the file at `path`, at most kMaxInputBytes of it, whatever kind of
/// file it is; null with `error` set on failure.
std::unique_ptr<llvm::MemoryBuffer> readInputFile(llvm::StringRef path, std::string &error);

/// Runs `fn` to completion on one of fuser's compile threads, each with
/// kCompileStackBytes of stack, and waits for it (on the calling thread when
/// no such thread can be made). The threads live for the process and are
/// reused (CompileThreads.cpp says why: a new thread a compile grew the
/// MLIRContext by at least 4 KiB a compile, for good).
void runOnCompileStack(llvm::function_ref<void()> fn);

} // namespace mlir::fuser

#endif
