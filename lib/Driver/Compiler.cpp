//===- Compiler.cpp - fusion module to kernel bundle ----------------------===//

#include "fuser/Driver/Compiler.h"

#include "fuser/Driver/InputLimits.h"
#include "fuser/Driver/Tuning.h"

#include "fuser/Pipelines/Pipelines.h"
#include "fuser/Target/Bundle.h"
#include "fuser/Target/Chips.h"
#include "fuser/Target/Cubin.h"
#include "fuser/Target/PtxCodegen.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Threading.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"

#include <chrono>
#include <cstring>

using namespace mlir;
using namespace mlir::fuser;

llvm::ArrayRef<const char *> mlir::fuser::stageNames() {
  static const char *names[] = {"input", "decomposed", "segmented",
                                "kernels", "nvvm", "ptx"};
  return names;
}

/// Prints IR the driver has verified (each stage ends verified): without
/// assumeVerified the printer would verify it again first, to fall back to
/// the generic form for invalid IR. In local scope: a gpu.module printed
/// in the scope of its module made the printer number the whole module on
/// every call, quadratic in the fusions (400 fusions: 15.6 s of 18.4 s here).
static std::string print(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os, OpPrintingFlags().assumeVerified().useLocalScope());
  return s;
}

static LogicalResult compileOnThisStack(ModuleOp module, const DriverOptions &options,
                                        CompileOutput &out);

LogicalResult mlir::fuser::compileModule(ModuleOp module, const DriverOptions &options,
                                         CompileOutput &out) {
  // On a stack of fuser's own: parts of MLIR and LLVM recurse with the size
  // of a fusion, and the caller may be a worker thread with 512 KiB.
  LogicalResult result = failure();
  runOnCompileStack([&] { result = compileOnThisStack(module, options, out); });
  return result;
}

static LogicalResult compileOnThisStack(ModuleOp module, const DriverOptions &options,
                                        CompileOutput &out) {
  MLIRContext *ctx = module.getContext();
  if (failed(verify(module)))
    return failure();
  unsigned ptx = options.ptx ? options.ptx : minimumPtxVersion(options.chip);
  if (!minimumPtxVersion(options.chip))
    return emitError(module.getLoc(), "unknown chip '")
           << options.chip << "'; expected " << knownChipNames();
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
  pipeline.assumeAligned = options.assumeAligned;
  pipeline.allowTf32 = options.allowTf32;
  pipeline.schedule = options.schedule;
  pipeline.explainSchedule = options.explainSchedule;

  auto keep = [&](const char *stage) {
    if (options.keepStages)
      out.stages.emplace_back(stage, print(module));
  };
  // Each stage is its own pass manager so that the IR between them can be
  // kept; the stages are the ones fuser-compile runs (lib/Pipelines).
  // Past the input check, invalid IR is fuser's fault, not the user's: when
  // a stage fails and the module no longer verifies, or a stage succeeds
  // and leaves IR that does not verify, the verifier's message is reported
  // as an internal error naming the stage, never as if it were about the
  // input. A stage's deliberate diagnostics pass through.
  //
  // Release builds verify once at each stage's end, not after every pass:
  // a fusion's IR is verified 6 times (a stage) instead of 15 (a pass), and
  // the LLVM-dialect kernels of the nvvm stage once instead of three times
  // (docs/compile-speed.md). Builds with assertions verify after every pass,
  // to find a bad pass where it runs.
#ifdef NDEBUG
  constexpr bool verifyEachPass = false;
#else
  constexpr bool verifyEachPass = true;
#endif
  using Clock = std::chrono::steady_clock;
  auto record = [&](const char *step, Clock::time_point since) {
    out.timings.emplace_back(
        step, std::chrono::duration<double, std::milli>(Clock::now() - since).count());
  };
  auto run = [&](const char *stage,
                 llvm::function_ref<void(OpPassManager &)> build) -> LogicalResult {
    Clock::time_point start = Clock::now();
    llvm::scope_exit recordStage([&] { record(stage, start); });
    PassManager pm(ctx);
    pm.enableVerifier(verifyEachPass);
    build(pm);
    SmallVector<std::pair<Location, std::string>> diagnostics;
    LogicalResult result = failure();
    bool invalidAfterSuccess = false;
    {
      ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
        // Remarks (fuser-schedule's explain) go to the caller as they come.
        if (d.getSeverity() == DiagnosticSeverity::Remark)
          return failure();
        if (d.getSeverity() == DiagnosticSeverity::Error)
          diagnostics.emplace_back(d.getLocation(), d.str());
        return success();
      });
      result = pm.run(module);
      // The verifier's message, when there is one, is captured too.
      invalidAfterSuccess = succeeded(result) && !verifyEachPass && failed(verify(module));
    }
    if (succeeded(result) && !invalidAfterSuccess)
      return success();
    if (invalidAfterSuccess)
      return emitError(module.getLoc(), "internal error: fuser made invalid IR in its '")
             << stage << "' stage (a bug in fuser; please report it with this input): "
             << (diagnostics.empty() ? std::string("the module does not verify")
                                     : diagnostics.front().second);
    bool valid;
    {
      ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
      valid = succeeded(verify(module));
    }
    // A pass that fails may leave its IR half rewritten (MLIR promises
    // nothing of a failed pass's IR), so an invalid module after a failure
    // with the pass's own diagnostics is not fuser's bug: the shard stage's
    // "cannot take operand 1 split as it is" came out as an internal error
    // at the module's first line. Where passes are verified one by one
    // (assertions), a diagnostic may be the verifier's, so there the rule
    // is the module's validity.
    bool passesSpoke = !verifyEachPass && !diagnostics.empty();
    if (valid || passesSpoke || !strcmp(stage, "check")) {
      for (auto &[loc, message] : diagnostics)
        emitError(loc, message);
      // A pass that fails without saying why is fuser's bug; the user
      // still learns where, never a bare "compilation failed".
      if (diagnostics.empty())
        return emitError(module.getLoc(), "internal error: fuser's '")
               << stage
               << "' stage failed without a diagnostic (a bug in fuser; please report it "
                  "with this input)";
      return failure();
    }
    return emitError(module.getLoc(), "internal error: fuser made invalid IR in its '")
           << stage << "' stage (a bug in fuser; please report it with this input): "
           << (diagnostics.empty() ? std::string("the module does not verify")
                                   : diagnostics.front().second);
  };
  if (!options.tuning.empty() &&
      failed(applyTuning(module, options.tuning, options.chip, options.tuningSource)))
    return failure();
  keep("input");
  // A sharded fusion (shard dialect annotations) becomes one device's
  // fusion with its collectives first (docs/sharding.md).
  bool sharded = module
                     ->walk([](Operation *op) {
                       return op->getName().getDialectNamespace() == "shard"
                                  ? WalkResult::interrupt()
                                  : WalkResult::advance();
                     })
                     .wasInterrupted();
  if (sharded && failed(run("shard", [&](OpPassManager &pm) { buildShardStage(pm); })))
    return failure();
  if (failed(run("check", [&](OpPassManager &pm) { buildCheckStage(pm); })) ||
      failed(run("decompose", [&](OpPassManager &pm) { buildDecomposeStage(pm); })))
    return failure();
  keep("decomposed");
  if (failed(run("segment", [&](OpPassManager &pm) { buildSegmentStage(pm, pipeline); })))
    return failure();
  keep("segmented");
  if (failed(run("kernels", [&](OpPassManager &pm) {
        buildKernelsStage(pm, pipeline, options.plantBug);
      })))
    return failure();
  keep("kernels");

  Clock::time_point start = Clock::now();
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
  record("kernel-ir-text", start);

  if (failed(run("nvvm", [&](OpPassManager &pm) { buildNVVMStage(pm); })))
    return failure();
  keep("nvvm");
  // The PTX and LLVM's times stay out of the IR (PtxByModule says why).
  PtxByModule ptxByModule;
  if (failed(run("ptx", [&](OpPassManager &pm) { buildPtxStage(pm, pipeline, &ptxByModule); })))
    return failure();
  keep("ptx");

  const char *llvmSteps[] = {"llvm-translate", "llvm-middle-end", "nvptx-back-end"};
  uint64_t llvmUs[3] = {0, 0, 0};
  for (auto bin : module.getOps<gpu::BinaryOp>()) {
    StringRef fusion = bin.getName();
    fusion.consume_back("_kernels");
    auto kept = ptxByModule.find(bin.getName());
    if (kept == ptxByModule.end())
      return bin.emitError("internal error: no PTX was kept for this module");
    out.ptx.emplace_back(fusion.str(), kept->second.ptx);
    llvmUs[0] += kept->second.translateUs;
    llvmUs[1] += kept->second.middleEndUs;
    llvmUs[2] += kept->second.backEndUs;
  }
  for (int i = 0; i < 3; ++i)
    out.timings.emplace_back(llvmSteps[i], llvmUs[i] / 1000.0);
  bundle.ptxByModule = &ptxByModule;
  // The cubins, one nvJitLink job per fusion on the context's threads.
  llvm::StringMap<std::string> cubinByModule;
  if (options.cubin) {
    start = Clock::now();
    std::vector<std::pair<std::string, std::string>> jobs; // (module, PTX)
    for (auto &entry : ptxByModule)
      jobs.emplace_back(entry.getKey().str(), entry.getValue().ptx);
    std::vector<std::string> cubins(jobs.size()), errors(jobs.size());
    std::vector<char> ok(jobs.size());
    mlir::parallelFor(ctx, 0, jobs.size(), [&](size_t i) {
      ok[i] = ptxToCubin(jobs[i].second, options.chip, cubins[i], errors[i]);
    });
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (!ok[i])
        return emitError(module.getLoc(), "cubin of '") << jobs[i].first << "': " << errors[i];
      cubinByModule[jobs[i].first] = std::move(cubins[i]);
    }
    bundle.cubinByModule = &cubinByModule;
    record("cubin", start);
  }
  start = Clock::now();
  FailureOr<std::string> bytes = writeBundle(module, bundle);
  if (failed(bytes))
    return failure();
  out.bundle = std::move(*bytes);
  record("bundle", start);
  return success();
}
