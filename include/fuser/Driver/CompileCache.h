//===- CompileCache.h - compile results kept by what determines them -*- C++ -*-===//
//
// A compile's output (the bundle, and the PTX and kernel IR the C API hands
// out) depends only on the fusion module and the options. The cache keeps
// outputs by a key hashed from those, fuser's build and LLVM's version, in
// memory for the whole process and, opt-in, in a directory shared by every
// process (docs/compile-cache.md).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DRIVER_COMPILECACHE_H
#define FUSER_DRIVER_COMPILECACHE_H

#include "fuser/Driver/Compiler.h"

#include <cstdint>
#include <string>

namespace mlir::fuser {

/// Where compileModuleCached looks. `dir` empty: memory only (the
/// FUSER_CACHE_DIR environment variable, when set, gives the directory).
struct CompileCacheOptions {
  bool enabled = true;
  std::string dir;
  /// The directory's size limit; the least recently used entries go first.
  uint64_t maxDiskBytes = uint64_t(1) << 30;
};

/// SHA-256 (hex) of everything a compile's output depends on: the module
/// in generic form without locations (SSA names are numbered by the
/// printer, so they do not matter; `fuser.name` attributes do), every
/// option, the cache format, fuser's build and LLVM's version.
std::string compileCacheKey(ModuleOp module, const DriverOptions &options);

/// compileModule of a copy of `module` (which stays as it is) through the
/// cache: a hit fills `out` from the memory or the directory without
/// copying or compiling; a miss compiles and stores a successful output. Stages (keepStages) and
/// planted bugs are never cached. `hit` says which happened.
LogicalResult compileModuleCached(ModuleOp module, const DriverOptions &options,
                                  const CompileCacheOptions &cache, CompileOutput &out,
                                  bool &hit);

/// Empties the in-process cache (tests; a process that wants its memory).
void clearCompileMemoryCache();

} // namespace mlir::fuser

#endif
