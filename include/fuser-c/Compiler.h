/*===- fuser-c/Compiler.h - parse and compile fusions --------------*- C -*-===*\
|*                                                                            *|
|* Parsing fusions with fuser's naming rules, compiling a module of fusions   *|
|* to a kernel bundle, and reading back what the compiler produced.           *|
|*                                                                            *|
|* Ownership follows MLIR's C API: `Create` returns an object the caller owns *|
|* and frees with the matching `Destroy`; `Get` borrows (valid while the      *|
|* owner lives).                                                              *|
|*                                                                            *|
|* Null handles never crash: a null context fails to parse, setters on null  *|
|* options do nothing, and a null result reads as a failed one whose          *|
|* diagnostics say so; positions out of range read as empty strings.         *|
|*                                                                            *|
|* Threads: an MlirContext and everything in it is used by one thread at a    *|
|* time. Compile options and results are plain data: a result may be read    *|
|* from several threads at once. Different contexts compile concurrently.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FUSER_C_COMPILER_H
#define FUSER_C_COMPILER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-- Parsing -----------------------------------------------------------===*/

/// Parses a module of fusions from `source` (named `bufferName` in
/// diagnostics). Each fusion argument without a `fuser.name` attribute gets
/// the SSA name it has in the source (`%x` -> "x"), which the bundle keeps.
/// On error, each diagnostic is passed to `diagnostics` (may be NULL) as
/// "file:line:col: error: message\n" and the returned module is null
/// (mlirModuleIsNull).
MLIR_CAPI_EXPORTED MlirModule fuserParseSourceString(
    MlirContext context, MlirStringRef source, MlirStringRef bufferName,
    MlirStringCallback diagnostics, void *userData);

/// As fuserParseSourceString, reading the file at `path`.
MLIR_CAPI_EXPORTED MlirModule fuserParseSourceFile(
    MlirContext context, MlirStringRef path, MlirStringCallback diagnostics,
    void *userData);

/*===-- Compile options ---------------------------------------------------===*/

typedef struct FuserCompileOptions {
  void *ptr;
} FuserCompileOptions;

/// Default options: chip sm_90, the lowest PTX version the chip allows,
/// fast-math off, index width chosen per kernel, the fast math tier, LLVM
/// -O3, no stage dumps, emulation data included.
MLIR_CAPI_EXPORTED FuserCompileOptions fuserCompileOptionsCreate(void);
MLIR_CAPI_EXPORTED void fuserCompileOptionsDestroy(FuserCompileOptions options);
/// Target chip: "sm_80", "sm_89", "sm_90" or "sm_100" (checked when compiling).
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetChip(FuserCompileOptions options,
                                                   MlirStringRef chip);
/// PTX ISA version times 10 (78 for 7.8); 0 for the chip's lowest.
MLIR_CAPI_EXPORTED void
fuserCompileOptionsSetPtxVersion(FuserCompileOptions options, unsigned version);
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetFastMath(FuserCompileOptions options,
                                                       bool fastMath);
/// 32, 64, or 0 to choose per kernel (32-bit when every tensor has fewer
/// than 2^31 elements, both variants for dynamic sizes).
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetIndexBits(FuserCompileOptions options,
                                                        unsigned bits);
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetOptLevel(FuserCompileOptions options,
                                                       unsigned level);

/// Accuracy tier of the transcendental functions (exp, log, sin, tanh, erf,
/// pow, sigmoid...; docs/math.md). Both tiers give the same bits on the GPU
/// and on the CPU emulator and keep the special values (inf, NaN, signed
/// zeros, subnormals) of C99 Annex F.
typedef enum FuserMathAccuracy {
  /// The default: f32 (and f16/bf16, computed in f32) within 2 ulp of the
  /// exact result on every input, in about a third of the instructions;
  /// f64 gets the precise tier.
  FuserMathAccuracyFast = 0,
  /// Within 1 ulp for f32 and f64 (double-word arithmetic).
  FuserMathAccuracyPrecise = 1,
} FuserMathAccuracy;

/// Sets the math tier. A value outside the enum makes fuserCompile fail
/// with a diagnostic.
MLIR_CAPI_EXPORTED void
fuserCompileOptionsSetMathAccuracy(FuserCompileOptions options,
                                   FuserMathAccuracy accuracy);
/// Keep the IR after each stage ("input", "decomposed", "segmented",
/// "kernels", "nvvm", "ptx") in the result.
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetKeepStages(FuserCompileOptions options,
                                                         bool keep);
/// Promise that every tensor argument and result of every call starts at a
/// 16-byte aligned address (fresh PyTorch and CUDA allocations do; a view
/// with an offset may not). The kernels then carry no misaligned-buffer
/// fallback, which halves LLVM's work for a normalization, and a call with
/// a misaligned buffer fails, naming it, rather than run. Default false.
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetAssumeAligned(FuserCompileOptions options,
                                                          bool assumeAligned);
/// Let matrix products of f32 operands (fuser.matmul, fuser.linear) multiply
/// them as TF32 (10-bit mantissas, f32 accumulation), as PyTorch's
/// torch.backends.cuda.matmul.allow_tf32 does: faster on tensor cores, less
/// exact. Default false: full f32 (docs/matmul.md).
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetAllowTf32(FuserCompileOptions options,
                                                        bool allowTf32);
/// Put beside each fusion's PTX its cubin (machine code) for the chip,
/// made in process by nvJitLink, the CUDA toolkit's in-process ptxas,
/// opened with dlopen (libnvJitLink.so: the loader's path, then lib64
/// under $CUDA_HOME, $CUDA_PATH and /usr/local/cuda; $FUSER_NVJITLINK names
/// it exactly). The runtime loads the cubin on a device of exactly that
/// compute capability, with no PTX JIT in the driver, and the PTX
/// elsewhere. The compile fails, saying where it looked, when nvJitLink is
/// not found. Default false (docs/compile-speed.md, "Cubins").
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetCubin(FuserCompileOptions options, bool cubin);
/// Forces schedule decisions instead of the heuristic's: comma-separated
/// KEY=VALUE, for example "pointwise.units=2,pointwise.block=128", for
/// every segment that reads the key, or KEY[SEGMENT]=VALUE for one segment
/// alone ("reduction.block[1]=128"; fuserPrintFusionSegments lists them)
/// (docs/schedulers.md, "Schedules as IR"). A bad key or value, or a
/// segment the fusion lacks or whose scheduler does not read the key, fails
/// the compile with a diagnostic naming it. The results are the same bits
/// whatever the schedule; only speed changes. Empty (the default): the
/// heuristic's decisions. For one fusion only, put the decisions on its
/// func.func as a `fuser.schedule` attribute (mlirAttributeParseGet of
/// "#fuser.schedule<pointwise.block = 128>", then
/// mlirOperationSetDiscardableAttributeByName); they win over this option.
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetSchedule(FuserCompileOptions options,
                                                       MlirStringRef schedule);
/// Applies a tuning file (docs/tuning.md; `fuserc tune` writes one): its
/// text, one `HASH CHIP SCHEDULE` entry a line. Each fusion whose hash
/// (fuserPrintFusionTuningHash, fuser-c/Tuning.h) has an entry for the
/// target chip compiles with that entry's schedule: it wins over
/// fuserCompileOptionsSetSchedule, a fusion's own `fuser.schedule` wins over
/// it. A malformed entry fails the compile with a diagnostic naming
/// `source` (for example the file's path; empty: "tuning") and the line.
/// Empty text (the default): no tuning. The compile cache keys on the text.
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetTuning(FuserCompileOptions options,
                                                     MlirStringRef text,
                                                     MlirStringRef source);
/// Report, as remarks in the result's diagnostics, each segment's schedule
/// decisions, where each came from (the heuristic's default and why, the
/// schedule option, the fusion's `fuser.schedule`) and the launch rule they
/// feed, then each kernel built with its block and the decisions its
/// scheduler took at emission (docs/schedulers.md, "Schedules as IR"). Such
/// a compile bypasses the compile cache. Default false.
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetExplainSchedule(FuserCompileOptions options,
                                                              bool explain);
/// Put the kernels' MLIR in the bundle so that it also runs on the CPU
/// emulator (default true).
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetEmulation(FuserCompileOptions options,
                                                        bool emulation);

/// The compile cache (docs/compile-cache.md): fuserCompile keeps each
/// successful output, keyed by a hash of the module, the options, fuser's
/// build and LLVM's version, and a compile with the same key returns the
/// same bytes without compiling. In memory for the whole process (on by
/// default, 256 MB, least recently used first out); `enabled` false
/// compiles every time (benchmarks).
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetCache(FuserCompileOptions options,
                                                    bool enabled);
/// Also keep entries in directory `dir` (created if missing), shared by
/// every process, at most `maxBytes` (0: 1 GiB) of them, least recently used
/// deleted first. Writes are atomic (a temporary file renamed); a corrupt
/// or truncated entry is detected, deleted and written again, never loaded.
/// An empty `dir` uses the FUSER_CACHE_DIR environment variable when set.
MLIR_CAPI_EXPORTED void fuserCompileOptionsSetCacheDir(FuserCompileOptions options,
                                                       MlirStringRef dir, uint64_t maxBytes);
/// Empties the in-process cache.
MLIR_CAPI_EXPORTED void fuserCompileCacheClearMemory(void);

/// Testing only: emit a known schedule bug ("missing-barrier", "wrong-tail",
/// "wrong-index", "inner-outer-drop-partial", "inner-outer-row-map",
/// "last-block-no-fence", "concat-piece-position", or ""
/// for none) so that a test can check that the CPU
/// emulation catches it; "silent-failure" makes kernel emission fail
/// without a diagnostic (the driver must still name the stage). Never use it to produce kernels.
MLIR_CAPI_EXPORTED void
fuserCompileOptionsSetTestingPlantBug(FuserCompileOptions options, MlirStringRef bug);

/*===-- Compiling ---------------------------------------------------------===*/

typedef struct FuserCompileResult {
  void *ptr;
} FuserCompileResult;

/// Compiles every fusion of `module` (a copy of it: `module` is unchanged).
/// Never aborts on bad input: a null module or options, an invalid fusion,
/// or an unsupported construct gives a failed result whose diagnostics say
/// what and where. Always returns a result to destroy.
MLIR_CAPI_EXPORTED FuserCompileResult fuserCompile(MlirModule module,
                                                   FuserCompileOptions options);
MLIR_CAPI_EXPORTED void fuserCompileResultDestroy(FuserCompileResult result);

MLIR_CAPI_EXPORTED bool fuserCompileResultIsSuccess(FuserCompileResult result);
/// Whether the output came from the compile cache (no compile ran).
MLIR_CAPI_EXPORTED bool fuserCompileResultIsCacheHit(FuserCompileResult result);
/// Every diagnostic, one per line: "file:line:col: error: message" (notes
/// and warnings too). Empty on success without warnings.
MLIR_CAPI_EXPORTED MlirStringRef
fuserCompileResultGetDiagnostics(FuserCompileResult result);
/// The kernel bundle (docs/bundle.md); empty on failure.
MLIR_CAPI_EXPORTED MlirStringRef fuserCompileResultGetBundle(FuserCompileResult result);

/// The fusions compiled, in module order, each with its kernels' PTX and
/// their MLIR before NVVM lowering.
MLIR_CAPI_EXPORTED intptr_t fuserCompileResultGetNumFusions(FuserCompileResult result);
MLIR_CAPI_EXPORTED MlirStringRef
fuserCompileResultGetFusionName(FuserCompileResult result, intptr_t pos);
MLIR_CAPI_EXPORTED MlirStringRef
fuserCompileResultGetFusionPtx(FuserCompileResult result, intptr_t pos);
MLIR_CAPI_EXPORTED MlirStringRef
fuserCompileResultGetFusionKernelIR(FuserCompileResult result, intptr_t pos);

/// The IR after each stage, when the options asked to keep it (else 0).
MLIR_CAPI_EXPORTED intptr_t fuserCompileResultGetNumStages(FuserCompileResult result);
MLIR_CAPI_EXPORTED MlirStringRef
fuserCompileResultGetStageName(FuserCompileResult result, intptr_t pos);
MLIR_CAPI_EXPORTED MlirStringRef
fuserCompileResultGetStageIR(FuserCompileResult result, intptr_t pos);

/// Where the compile's time went, in pipeline order (docs/compile-speed.md):
/// the stages "check", "decompose", "segment", "kernels", "kernel-ir-text",
/// "nvvm", "ptx" and "bundle" in wall milliseconds, and inside "ptx" LLVM's
/// "llvm-translate", "llvm-middle-end" and "nvptx-back-end" in thread
/// milliseconds summed over the kernels (compiled in parallel, so they may
/// add up to more than "ptx"). None after a failure or a cache hit.
MLIR_CAPI_EXPORTED intptr_t fuserCompileResultGetNumTimings(FuserCompileResult result);
MLIR_CAPI_EXPORTED MlirStringRef
fuserCompileResultGetTimingName(FuserCompileResult result, intptr_t pos);
/// Milliseconds; -1 for a position out of range.
MLIR_CAPI_EXPORTED double fuserCompileResultGetTimingMs(FuserCompileResult result,
                                                       intptr_t pos);

#ifdef __cplusplus
}
#endif

#endif /* FUSER_C_COMPILER_H */
