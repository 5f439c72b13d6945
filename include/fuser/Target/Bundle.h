//===- Bundle.h - writing kernel bundles ------------------------*- C++ -*-===//
//
// A compiled module (gpu.binary ops holding PTX, and plan functions) becomes
// the self-contained bundle of docs/bundle.md.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TARGET_BUNDLE_H
#define FUSER_TARGET_BUNDLE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::fuser {

struct PtxCodegenResult;

struct BundleOptions {
  /// Compute capability times 10 and PTX ISA version times 10 recorded with
  /// each PTX module.
  unsigned sm = 90, ptx = 78;
  /// Per fusion name, the MLIR text of its kernels for the CPU emulator;
  /// fusions without an entry get no emulation module.
  llvm::StringMap<std::string> emulation;
  /// Per gpu.module name, its PTX, where the driver kept it out of the IR
  /// (PtxByModule, fuser/Target/PtxCodegen.h); else the gpu.object's text.
  const llvm::StringMap<PtxCodegenResult> *ptxByModule = nullptr;
  /// Per gpu.module name, the cubin of its PTX for `sm`, written as a
  /// module of kind cubin beside the PTX; null or no entry: none.
  const llvm::StringMap<std::string> *cubinByModule = nullptr;
};

/// Serializes every plan of `module` (and the PTX of its kernels). Fails with
/// a diagnostic when a plan holds an op the bundle cannot express.
FailureOr<std::string> writeBundle(ModuleOp module, const BundleOptions &options);

} // namespace mlir::fuser

#endif
