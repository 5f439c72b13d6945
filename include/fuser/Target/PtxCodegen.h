//===- PtxCodegen.h - one gpu.module to PTX with LLVM's NVPTX back end -*- C++ -*-===//
//
// fuser's own LLVM step, in place of upstream's NVVM serializer (the same
// PTX), so that fuser can say where the time goes and owns the choice of
// middle-end pipeline and code generator level (docs/compile-speed.md).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TARGET_PTXCODEGEN_H
#define FUSER_TARGET_PTXCODEGEN_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::fuser {

/// Properties of the gpu.object that fuser-serialize-kernels writes: LLVM's
/// thread time for the module's kernels, summed, in microseconds.
constexpr llvm::StringLiteral kLlvmTranslateUs = "fuser.llvm_translate_us";
constexpr llvm::StringLiteral kLlvmMiddleEndUs = "fuser.llvm_middle_end_us";
constexpr llvm::StringLiteral kNvptxBackEndUs = "fuser.nvptx_back_end_us";

struct PtxCodegenResult {
  std::string ptx;
  /// Thread time of each step, in microseconds: MLIR's LLVM dialect to LLVM
  /// IR, LLVM's middle end, the NVPTX back end (instruction selection
  /// to PTX text).
  uint64_t translateUs = 0, middleEndUs = 0, backEndUs = 0;
};

/// Translates `module` (LLVM and NVVM dialects only) to LLVM IR and compiles
/// it to PTX for `target`'s chip and features. `target`'s O level N runs
/// LLVM's default<ON> middle end (none for 0) and the code generator at the
/// same level. Thread-safe: each call owns its LLVM context and target
/// machine. Failures are emitted on `module`.
FailureOr<PtxCodegenResult> compileToPtx(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target);

/// Each gpu.module's PTX and LLVM times, by module name, where
/// fuser-serialize-kernels hands them to a caller that asks for them (the
/// driver) instead of keeping them in the IR: an attribute is uniqued in
/// the MLIRContext for the context's whole life, so a JIT compiling many
/// fusions in one context would keep every PTX text and every distinct time
/// forever (71 KB a compile of layer_norm_backward under new names). The
/// gpu.object then holds an empty text and no times.
using PtxByModule = llvm::StringMap<PtxCodegenResult>;

/// fuser-serialize-kernels, putting the PTX and times into `out` (see
/// PtxByModule); null keeps them in the IR, as the registered pass does.
std::unique_ptr<Pass> createSerializeKernelsPass(PtxByModule *out);

} // namespace mlir::fuser

#endif // FUSER_TARGET_PTXCODEGEN_H
