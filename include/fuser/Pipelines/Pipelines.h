//===- Pipelines.h - fuser's pass pipelines ---------------------*- C++ -*-===//
#ifndef FUSER_PIPELINES_PIPELINES_H
#define FUSER_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir {
class OpPassManager;
namespace fuser {

/// Options of `fuser-compile` (and of the C API's compile call).
struct CompileOptions : public PassPipelineOptions<CompileOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target GPU: sm_80, sm_89, sm_90, sm_100"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<unsigned> ptx{
      *this, "ptx",
      llvm::cl::desc("PTX ISA version times 10 (78 for 7.8); 0 for the "
                     "lowest the chip allows"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> fastMath{
      *this, "fast-math",
      llvm::cl::desc("Let LLVM reassociate, contract and approximate float "
                     "math (results then differ from PyTorch's)"),
      llvm::cl::init(false)};
  PassOptions::Option<unsigned> indexBits{
      *this, "index-bits",
      llvm::cl::desc("Index math width: 32, 64, or 0 to choose per kernel"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> math{
      *this, "math",
      llvm::cl::desc("Accuracy of exp, log, sin, tanh, erf, pow...: fast (f32 "
                     "within 2 ulp, the default) or precise (within 1 ulp); "
                     "f64 is always precise (docs/math.md)"),
      llvm::cl::init("fast")};
  PassOptions::Option<bool> assumeAligned{
      *this, "assume-aligned",
      llvm::cl::desc("Every tensor argument and result is 16-byte aligned: "
                     "checked at launch, no misaligned-buffer fallback kernels"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> allowTf32{
      *this, "allow-tf32",
      llvm::cl::desc("f32 matrix products may multiply as TF32 (docs/matmul.md)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("Schedule decisions forced instead of the heuristic's: "
                     "comma-separated KEY=VALUE or KEY[SEGMENT]=VALUE (fuser-schedule's schedule "
                     "option, docs/schedulers.md)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> explainSchedule{
      *this, "explain-schedule",
      llvm::cl::desc("Print each segment's schedule decisions and the facts "
                     "behind them (fuser-schedule's explain), then its kernels "
                     "and what their scheduler decided at emission "
                     "(fuser-emit-kernels's explain)"),
      llvm::cl::init(false)};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level for kernels"),
      llvm::cl::init(3)};
};

/// The lowest PTX ISA version (times 10) that `chip` supports, or 0 for an
/// unknown chip.
unsigned minimumPtxVersion(llvm::StringRef chip);

/// The stages of fuser-compile, in order, each named as `fuserc compile
/// --dump-stages` names the IR after it. fuser-compile runs them in one pass
/// manager; fuser::compileModule (fuserc, the C API) runs each in its own so
/// that it can keep the IR between them. One definition of the pipeline:
/// both call these.
///   check      fuser-check-fusions: the input is fusions and only that
///   decompose  composites to primitives, canonicalize, cse
///   segment    fuser-segment, fuser-schedule (each segment's decisions)
///   kernels    fuser-emit-kernels (and `plantBug`, for testing), cleanups
///   nvvm       kernels to the LLVM and NVVM dialects
///   ptx        the NVVM target attached, kernels serialized to PTX
void buildCheckStage(OpPassManager &pm);
void buildDecomposeStage(OpPassManager &pm);
void buildSegmentStage(OpPassManager &pm, const CompileOptions &options);
void buildKernelsStage(OpPassManager &pm, const CompileOptions &options,
                       llvm::StringRef plantBug = "");
void buildNVVMStage(OpPassManager &pm);
struct PtxCodegenResult;
/// With `ptxOut` (fuser/Target/PtxCodegen.h's PtxByModule), the PTX and
/// LLVM times go there instead of into the IR.
void buildPtxStage(OpPassManager &pm, const CompileOptions &options,
                   llvm::StringMap<PtxCodegenResult> *ptxOut = nullptr);

/// Fusion IR to kernels in gpu.modules plus launch plans (check to kernels).
void buildFrontendPipeline(OpPassManager &pm, const CompileOptions &options);

/// gpu.modules to gpu.binary objects holding PTX (nvvm and ptx).
void buildKernelLoweringPipeline(OpPassManager &pm, const CompileOptions &options);

/// Both, as `fuser-compile` runs them.
void buildCompilePipeline(OpPassManager &pm, const CompileOptions &options);

/// Registers `fuser-compile`.
/// fuser-partition: sharding-propagation, fuser-check-sharding and
/// shard-partition on every function: a fusion annotated with shard.shard
/// becomes one device's fusion plus the shard dialect's collectives
/// (docs/sharding.md).
void buildPartitionPipeline(OpPassManager &pm);
/// fuser-shard: fuser-partition with fuser-record-grid before the
/// partition, then fuser-lower-collectives: one device's fusion with its
/// grid, splits and fuser.collective ops, what the compile stages take.
/// The compiler runs it first on a module with shard ops.
void buildShardStage(OpPassManager &pm);

void registerPipelines();

} // namespace fuser
} // namespace mlir

#endif // FUSER_PIPELINES_PIPELINES_H
