//===- Compiler.h - fusion module to kernel bundle --------------*- C++ -*-===//
//
// The one entry point every front end (the C API, fuserc, the benchmarks)
// uses to compile: runs the pipeline stage by stage, keeps the IR of each
// stage when asked, the kernels' MLIR for the CPU emulator, and the PTX, and
// writes the bundle.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DRIVER_COMPILER_H
#define FUSER_DRIVER_COMPILER_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::fuser {

struct DriverOptions {
  std::string chip = "sm_90";
  unsigned ptx = 0; ///< 0: the lowest the chip allows.
  bool fastMath = false;
  unsigned indexBits = 0;
  /// Accuracy tier of the transcendental functions: "fast" or "precise"
  /// (docs/math.md).
  std::string math = "fast";
  unsigned optLevel = 3;
  /// Every tensor argument and result starts 16-byte aligned: the plan
  /// checks it, and no kernel carries a misaligned-buffer fallback.
  bool assumeAligned = false;
  /// f32 matrix products may multiply as TF32 (docs/matmul.md).
  bool allowTf32 = false;
  /// Schedule decisions forced instead of the heuristic's: comma-separated
  /// KEY=VALUE or KEY[SEGMENT]=VALUE (fuser-schedule's schedule option, docs/schedulers.md).
  std::string schedule;
  /// Report each segment's schedule decisions and the facts behind them as
  /// remarks (fuser-schedule's explain); such a compile bypasses the cache,
  /// so that the remarks come every time.
  bool explainSchedule = false;
  /// A tuning file's text (docs/tuning.md): fusions it has an entry for,
  /// for this chip, take that schedule (a fusion's own `fuser.schedule`
  /// wins; the entry wins over `schedule`). `tuningSource` names it in
  /// messages.
  std::string tuning, tuningSource = "tuning";
  /// Keep the module's IR after each stage.
  bool keepStages = false;
  /// Put the kernels' MLIR into the bundle so that it also runs on the CPU.
  bool emulation = true;
  /// Put beside each fusion's PTX its cubin for `chip`, made in process by
  /// nvJitLink (fuser/Target/Cubin.h): the runtime loads it on a device of
  /// that compute capability with no PTX JIT. Fails the compile when
  /// nvJitLink is not found.
  bool cubin = false;
  /// Testing only: a schedule bug the emulation must catch (see
  /// fuser-emit-kernels' plant-bug option).
  std::string plantBug;
};

struct CompileOutput {
  std::string bundle;
  /// (stage name, IR text) in pipeline order, when asked for.
  std::vector<std::pair<std::string, std::string>> stages;
  /// (fusion name, PTX of its kernels).
  std::vector<std::pair<std::string, std::string>> ptx;
  /// (fusion name, MLIR of its kernels before NVVM lowering).
  std::vector<std::pair<std::string, std::string>> kernelIR;
  /// (step, milliseconds) of this compile, in pipeline order; empty for an
  /// output that came from the compile cache. The stages are wall time; the
  /// three LLVM steps inside "ptx" ("llvm-translate", "llvm-middle-end",
  /// "nvptx-back-end") are thread time summed over kernels compiled in
  /// parallel, so they can add up to more than "ptx" (docs/compile-speed.md).
  std::vector<std::pair<std::string, double>> timings;
};

/// Compiles every fusion of `module` (which it rewrites). Diagnostics go to
/// the context's handlers; returns failure after reporting them.
LogicalResult compileModule(ModuleOp module, const DriverOptions &options,
                            CompileOutput &out);

/// Stage names, in order: "input", "decomposed", "segmented", "kernels",
/// "nvvm", "ptx".
llvm::ArrayRef<const char *> stageNames();

} // namespace mlir::fuser

#endif
