//===- Pipelines.cpp - fuser's pass pipelines -----------------------------===//
//
// fuser-compile = the frontend (decompose, simplify, segment, emit kernels
// and plans) + the kernel lowering: SCF to CF, fuser's lowering to LLVM and
// NVVM (upstream's patterns, LLVM intrinsics kept), then LLVM's NVPTX backend
// through fuser-serialize-kernels (gpu-module-to-binary, one LLVM job per
// kernel, in parallel). Kernels carry no math library calls, so no libdevice
// is linked and the PTX is the same on every machine.
//
//===----------------------------------------------------------------------===//

#include "fuser/Pipelines/Pipelines.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/Sharding/ReshardSteps.h"
#include "fuser/Target/Chips.h"
#include "fuser/Target/PtxCodegen.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::fuser;

unsigned mlir::fuser::minimumPtxVersion(StringRef chip) {
  const ChipInfo *info = lookupChip(chip);
  return info ? info->minimumPtx : 0;
}

void mlir::fuser::buildCheckStage(OpPassManager &pm) {
  pm.addPass(createCheckFusionsPass());
}

void mlir::fuser::buildDecomposeStage(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createDecomposeCompositesPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::fuser::buildSegmentStage(OpPassManager &pm, const CompileOptions &options) {
  pm.addPass(createSegmentPass());
  SchedulePassOptions schedule;
  schedule.schedule = options.schedule;
  schedule.chip = options.chip;
  schedule.explain = options.explainSchedule;
  pm.addPass(createSchedulePass(schedule));
}

void mlir::fuser::buildKernelsStage(OpPassManager &pm, const CompileOptions &options,
                                    StringRef plantBug) {
  EmitKernelsPassOptions emit;
  emit.chip = options.chip;
  emit.indexBits = options.indexBits;
  emit.math = options.math;
  emit.assumeAligned = options.assumeAligned;
  emit.allowTf32 = options.allowTf32;
  emit.explain = options.explainSchedule;
  emit.plantBug = plantBug.str();
  pm.addPass(createEmitKernelsPass(emit));
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::fuser::buildNVVMStage(OpPassManager &pm) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(fuser::createLowerIfsPass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(fuser::createLowerKernelsToNVVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::fuser::buildPtxStage(OpPassManager &pm, const CompileOptions &options,
                                 llvm::StringMap<PtxCodegenResult> *ptxOut) {
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  unsigned ptx = options.ptx ? (unsigned)options.ptx : minimumPtxVersion(options.chip);
  target.features = "+ptx" + std::to_string(ptx);
  target.optLevel = options.optLevel;
  target.fastFlag = options.fastMath;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(ptxOut ? fuser::createSerializeKernelsPass(ptxOut)
                    : fuser::createSerializeKernelsPass());
}

void mlir::fuser::buildFrontendPipeline(OpPassManager &pm,
                                        const CompileOptions &options) {
  buildCheckStage(pm);
  buildDecomposeStage(pm);
  buildSegmentStage(pm, options);
  buildKernelsStage(pm, options);
}

void mlir::fuser::buildKernelLoweringPipeline(OpPassManager &pm,
                                              const CompileOptions &options) {
  buildNVVMStage(pm);
  buildPtxStage(pm, options);
}

void mlir::fuser::buildCompilePipeline(OpPassManager &pm,
                                       const CompileOptions &options) {
  buildFrontendPipeline(pm, options);
  buildKernelLoweringPipeline(pm, options);
}

/// fuser-partition's passes; with `recordGrid`, fuser-record-grid just
/// before the partition drops the annotations.
static void buildPartition(OpPassManager &pm, bool recordGrid) {
  OpPassManager &f = pm.nest<func::FuncOp>();
  // The annotations as written first: upstream's propagation reads them
  // without checks.
  f.addPass(createCheckShardingPass(CheckShardingPassOptions{/*beforePropagation=*/true}));
  // Ops along a dim of a scalar as ops of a [1] tensor: the sharding models
  // read the dims an op names.
  f.addPass(createLiftRankZeroPass());
  // Sizes of static dims fold to constants first, so that no device gathers
  // a split tensor only to read its size.
  f.addPass(createCanonicalizerPass());
  // Forward then backward: a value computed before the op that decides its
  // split (a broadcast read by a later add) gets that split too.
  shard::ShardingPropagationOptions propagation;
  propagation.traversal = shard::TraversalOrder::ForwardBackward;
  f.addPass(shard::createShardingPropagation(propagation));
  // Twice: an op the forward pass met before the backward pass split its
  // operand (a softmax of exp(w), where exp(w) also meets a split value)
  // reads the split only on a second forward pass, which gathers it there.
  f.addPass(shard::createShardingPropagation(propagation));
  f.addPass(createCSEPass());
  f.addPass(createCheckShardingPass());
  // A change of split of more than one grid axis as a chain of one-axis
  // changes: the partition makes those only. After the check, whose
  // reconciliation and whole annotations add changes of their own.
  f.addPass(createReshardInStepsPass());
  if (recordGrid)
    f.addPass(createRecordGridPass());
  f.addPass(shard::createPartition());
  // Partition leaves identity tensor.casts after its gathers.
  f.addPass(createCanonicalizerPass());
  f.addPass(createCSEPass());
}

void mlir::fuser::buildPartitionPipeline(OpPassManager &pm) { buildPartition(pm, false); }

void mlir::fuser::buildShardStage(OpPassManager &pm) {
  buildPartition(pm, /*recordGrid=*/true);
  pm.addPass(createLowerCollectivesPass());
}

void mlir::fuser::registerPipelines() {
  PassPipelineRegistration<CompileOptions>(
      "fuser-compile",
      "Compile fusions to PTX kernels and launch plans (options: chip, ptx, "
      "fast-math, index-bits, math, assume-aligned, allow-tf32, opt-level)",
      buildCompilePipeline);
  PassPipelineRegistration<>(
      "fuser-partition",
      "Spread a fusion's shard.shard annotations over its ops and turn it into "
      "one device's fusion with the collectives it needs (docs/sharding.md)",
      buildPartitionPipeline);
  PassPipelineRegistration<>(
      "fuser-shard",
      "fuser-partition, then the shard collectives as fuser.collective ops: a "
      "sharded fusion ready for fuser-compile (docs/sharding.md)",
      buildShardStage);
}
