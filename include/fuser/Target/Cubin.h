//===- Cubin.h - PTX to a cubin in process, through nvJitLink ---*- C++ -*-===//
//
// The bundle may carry, beside each fusion's PTX, the machine code (a cubin)
// ptxas makes of it for the target chip, so that the runtime loads it with no
// PTX JIT in the driver (docs/compile-speed.md, "Cubins"). fuser links no
// CUDA library: nvJitLink, the CUDA toolkit's in-process ptxas, is opened
// with dlopen on the first compile that asks for a cubin.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TARGET_CUBIN_H
#define FUSER_TARGET_CUBIN_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::fuser {

/// Compiles `ptx` to a cubin for `chip` (`sm_90`) with nvJitLink at ptxas's
/// default optimization level. Returns false and sets `error` when nvJitLink
/// cannot be opened (the message names where it looked) or rejects the PTX
/// (the message holds its log). Thread-safe.
bool ptxToCubin(llvm::StringRef ptx, llvm::StringRef chip, std::string &cubin,
                std::string &error);

/// nvJitLink's version as "major.minor", or "" when it cannot be opened:
/// part of the compile cache's key when cubins are asked for.
std::string nvJitLinkVersion();

} // namespace mlir::fuser

#endif // FUSER_TARGET_CUBIN_H
