//===- Compiler.cpp - fusion module to kernel bundle ----------------------===//

#include "fuser/Driver/Compiler.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Pipelines/Pipelines.h"
#include "fuser/Target/Bundle.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::fuser;

llvm::ArrayRef<const char *> mlir::fuser::stageNames() {
  static const char *names[] = {"input", "decomposed", "segmented",
                                "kernels", "nvvm", "ptx"};
  return names;
}

static std::string print(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

LogicalResult mlir::fuser::compileModule(ModuleOp module,
                                         const DriverOptions &options,
                                         CompileOutput &out) {
  MLIRContext *ctx = module.getContext();
  if (failed(verify(module)))
    return failure();
  unsigned ptx = options.ptx ? options.ptx : minimumPtxVersion(options.chip);
  if (!minimumPtxVersion(options.chip))
    return emitError(module.getLoc(), "unknown chip '")
           << options.chip << "'; expected sm_80, sm_89, sm_90 or sm_100";
  if (ptx < minimumPtxVersion(options.chip))
    return emitError(module.getLoc(), "PTX ")
           << ptx / 10 << "." << ptx % 10 << " is too old for " << options.chip
           << " (it needs " << minimumPtxVersion(options.chip) / 10 << "."
           << minimumPtxVersion(options.chip) % 10 << " or newer)";

  // LLVM ignores a PTX feature it does not know, with a warning on stderr,
  // and would write PTX of another version than the one asked for.
  static const unsigned knownPtx[] = {32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64,
                                      65, 70, 71, 72, 73, 74, 75, 76, 77, 78, 80,
                                      81, 82, 83, 84, 85, 86, 87, 88, 90};
  if (!llvm::is_contained(knownPtx, ptx))
    return emitError(module.getLoc(), "PTX ")
           << ptx / 10 << "." << ptx % 10
           << " is not a PTX ISA version this LLVM can write (7.0 to 9.0)";
  if (options.optLevel > 3)
    return emitError(module.getLoc(), "optimization level must be 0 to 3, got ")
           << options.optLevel;

  CompileOptions pipeline;
  pipeline.chip = options.chip;
  pipeline.ptx = ptx;
  pipeline.fastMath = options.fastMath;
  pipeline.indexBits = options.indexBits;
  pipeline.math = options.math;
  pipeline.optLevel = options.optLevel;

  auto keep = [&](const char *stage) {
    if (options.keepStages)
      out.stages.emplace_back(stage, print(module));
  };
  // Each stage is its own pass manager so that the IR between them can be
  // kept; the passes are the ones fuser-compile runs.
  auto run = [&](llvm::function_ref<void(OpPassManager &)> build) {
    PassManager pm(ctx);
    build(pm);
    return pm.run(module);
  };
  keep("input");
  if (failed(run([&](OpPassManager &pm) {
        pm.addNestedPass<func::FuncOp>(createDecomposeCompositesPass());
        pm.addPass(createCanonicalizerPass());
        pm.addPass(createCSEPass());
      })))
    return failure();
  keep("decomposed");
  if (failed(run([&](OpPassManager &pm) { pm.addPass(createSegmentPass()); })))
    return failure();
  keep("segmented");
  if (failed(run([&](OpPassManager &pm) {
        EmitKernelsPassOptions emit;
        emit.chip = options.chip;
        emit.indexBits = options.indexBits;
        emit.plantBug = options.plantBug;
        emit.math = options.math;
        pm.addPass(createEmitKernelsPass(emit));
        pm.addPass(createCanonicalizerPass());
        pm.addPass(createCSEPass());
      })))
    return failure();
  keep("kernels");

  BundleOptions bundle;
  bundle.sm = std::stoi(options.chip.substr(3));
  bundle.ptx = ptx;
  for (auto gm : module.getOps<gpu::GPUModuleOp>()) {
    StringRef fusion = gm.getName();
    fusion.consume_back("_kernels");
    std::string text = print(gm);
    if (options.emulation)
      bundle.emulation[fusion] = text;
    out.kernelIR.emplace_back(fusion.str(), std::move(text));
  }

  if (failed(run([&](OpPassManager &pm) {
        OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
        kernels.addPass(createSCFToControlFlowPass());
        kernels.addPass(fuser::createLowerKernelsToNVVMPass());
        kernels.addPass(createReconcileUnrealizedCastsPass());
      })))
    return failure();
  keep("nvvm");
  if (failed(run([&](OpPassManager &pm) {
        GpuNVVMAttachTargetOptions target;
        target.chip = options.chip;
        target.features = "+ptx" + std::to_string(ptx);
        target.optLevel = options.optLevel;
        target.fastFlag = options.fastMath;
        pm.addPass(createGpuNVVMAttachTarget(target));
        pm.addPass(fuser::createSerializeKernelsPass());
      })))
    return failure();
  keep("ptx");

  for (auto bin : module.getOps<gpu::BinaryOp>()) {
    StringRef fusion = bin.getName();
    fusion.consume_back("_kernels");
    auto object = cast<gpu::ObjectAttr>(bin.getObjects()[0]);
    out.ptx.emplace_back(fusion.str(), object.getObject().str());
  }
  FailureOr<std::string> bytes = writeBundle(module, bundle);
  if (failed(bytes))
    return failure();
  out.bundle = std::move(*bytes);
  return success();
}
