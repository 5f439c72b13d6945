//===- PtxCodegen.cpp - one gpu.module to PTX -----------------------------===//
//
// What upstream's NVVM serializer (gpu-module-to-binary) does for a module
// without library calls, with the same PTX at every level, minus the
// libdevice lookup fuser does not need (its kernels call no math library),
// plus the thread time of each step. Owning the step also puts the
// middle-end pipeline and the code generator's level in fuser's hands
// (docs/compile-speed.md).
//
//===----------------------------------------------------------------------===//

#include "fuser/Target/PtxCodegen.h"

#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <ctime>

// The NVPTX target's registration functions (llvm/Config/Targets.def names
// them; declared here rather than pulling in every target's).
extern "C" {
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace mlir;

namespace {

void initializeNvptxOnce() {
  static llvm::once_flag once;
  llvm::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// This thread's CPU time in microseconds: jobs run in parallel, so wall
/// time would count the other jobs' work too.
uint64_t threadMicros() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

void runMiddleEnd(llvm::Module &module, llvm::TargetMachine &tm, llvm::OptimizationLevel level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // As upstream's makeOptimizingTransformer: loop and SLP vectorization on
  // (they keep the 128-bit accesses fuser's emitter writes as vectors).
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(level).run(module, mam);
}

} // namespace

/// The name of the first function `ptx` declares `.extern` (called, never
/// defined: a libdevice `__nv_` or libm function), or "". fuser's kernels
/// carry every function they call (the math library's rare paths are
/// linkonce_odr copies), so any is a lowering that let a library call
/// through: caught here, at every compile, rather than at a GPU's load.
static std::string firstExternalFunction(StringRef ptx) {
  constexpr StringLiteral kExtern = ".extern .func";
  size_t at = ptx.find(kExtern);
  if (at == StringRef::npos)
    return "";
  StringRef rest = ptx.drop_front(at + kExtern.size()).ltrim();
  // An optional return parameter list, then the name.
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    rest = close == StringRef::npos ? StringRef() : rest.drop_front(close + 1).ltrim();
  }
  StringRef name = rest.take_while([](char c) { return llvm::isAlnum(c) || c == '_' || c == '$'; });
  return name.empty() ? "(unnamed)" : name.str();
}

FailureOr<fuser::PtxCodegenResult> mlir::fuser::compileToPtx(gpu::GPUModuleOp module,
                                                             NVVM::NVVMTargetAttr target) {
  initializeNvptxOnce();
  int level = target.getO();
  if (level < 0 || level > 3)
    return module.emitError("optimization level must be 0 to 3, got ") << level;
  std::string error;
  llvm::Triple triple(target.getTriple());
  const llvm::Target *nvptx = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!nvptx)
    return module.emitError("LLVM has no NVPTX back end: ") << error;
  std::unique_ptr<llvm::TargetMachine> tm(
      nvptx->createTargetMachine(triple, target.getChip(), target.getFeatures(), {}, {}, {},
                                 static_cast<llvm::CodeGenOptLevel>(level)));
  if (!tm)
    return module.emitError("LLVM cannot target ") << target.getChip();

  PtxCodegenResult result;
  uint64_t start = threadMicros();
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return module.emitError("cannot translate the kernels to LLVM IR");
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(tm->getTargetTriple());
  uint64_t translated = threadMicros();
  result.translateUs = translated - start;

  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2,
      llvm::OptimizationLevel::O3};
  if (level > 0)
    runMiddleEnd(*llvmModule, *tm, levels[level]);
  uint64_t optimized = threadMicros();
  result.middleEndUs = optimized - translated;

  {
    llvm::raw_string_ostream stream(result.ptx);
    llvm::buffer_ostream out(stream);
    llvm::legacy::PassManager codegen;
    if (tm->addPassesToEmitFile(codegen, out, nullptr, llvm::CodeGenFileType::AssemblyFile))
      return module.emitError("LLVM's NVPTX back end cannot write assembly");
    codegen.run(*llvmModule);
  }
  result.backEndUs = threadMicros() - optimized;
  if (std::string callee = firstExternalFunction(result.ptx); !callee.empty())
    return module.emitError("internal error: the kernels call `")
           << callee
           << "`, which their PTX declares but does not define: fuser links no library "
              "(libdevice, libm), so ptxas and the driver would refuse the module (a "
              "lowering let a library call through)";
  return result;
}
