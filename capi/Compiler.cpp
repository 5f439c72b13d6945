//===- Compiler.cpp - parse and compile fusions through the C API ---------===//

#include "fuser-c/Compiler.h"
#include "fuser/Dialect/Fuser/IR/FuserAttrNames.h"
#include "fuser/Driver/InputLimits.h"

#include "Diagnostics.h"

#include "fuser/Driver/CompileCache.h"
#include "fuser/Driver/Compiler.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cctype>

using namespace mlir;
using namespace mlir::fuser;

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

/// Names each fusion argument after its SSA name in the source, unless the
/// argument already has a fuser.name or its SSA name is no identifier (a
/// number, or `%x.1`: bundles take [A-Za-z_][A-Za-z0-9_]* only, and such an
/// argument keeps its default name, argN).
static void nameArguments(ModuleOp module, const AsmParserState &state) {
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal())
      continue;
    const AsmParserState::BlockDefinition *def =
        state.getBlockDef(&f.getBody().front());
    if (!def)
      continue;
    for (auto [i, arg] : llvm::enumerate(def->arguments)) {
      if (f.getArgAttr(i, kNameAttr))
        continue;
      StringRef text(arg.loc.Start.getPointer(),
                     arg.loc.End.getPointer() - arg.loc.Start.getPointer());
      text.consume_front("%");
      auto letter = [](char c) { return std::isalpha((unsigned char)c) || c == '_'; };
      if (text.empty() || !letter(text[0]) ||
          !llvm::all_of(text, [&](char c) { return letter(c) || std::isdigit((unsigned char)c); }))
        continue;
      f.setArgAttr(i, kNameAttr, StringAttr::get(f.getContext(), text));
    }
  }
}

static MlirModule parse(MlirContext context, std::unique_ptr<llvm::MemoryBuffer> buffer,
                        MlirStringCallback diagnostics, void *userData) {
  if (mlirContextIsNull(context)) {
    if (diagnostics)
      diagnostics(wrap(StringRef("<api>: error: the context is null\n")), userData);
    return MlirModule{nullptr};
  }
  MLIRContext *ctx = unwrap(context);
  std::string tooDeep;
  if (!checkNestingDepth(buffer->getBuffer(), tooDeep)) {
    if (diagnostics) {
      std::string msg = (buffer->getBufferIdentifier() + ": error: " + tooDeep + "\n").str();
      diagnostics(wrap(StringRef(msg)), userData);
    }
    return MlirModule{nullptr};
  }
  DiagnosticCollector collector(ctx);
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  Block block;
  AsmParserState state;
  // Verified below, after the checks of what upstream's verifiers assume.
  ParserConfig config(ctx, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module;
  // The parser recurses per nesting level: on fuser's own stack.
  LogicalResult parsed = failure();
  runOnCompileStack([&] { parsed = parseAsmSourceFile(sm, &block, config, &state); });
  if (succeeded(parsed)) {
    // A file holding one module is that module; loose ops get wrapped.
    if (llvm::hasSingleElement(block) && isa<ModuleOp>(block.front())) {
      module = cast<ModuleOp>(block.front());
      module->getOperation()->remove();
    } else {
      auto loc = FileLineColLoc::get(
          ctx, sm.getMemoryBuffer(sm.getMainFileID())->getBufferIdentifier(), 1, 1);
      module = ModuleOp::create(loc);
      module->getBody()->getOperations().splice(module->getBody()->begin(),
                                                block.getOperations());
    }
    // Upstream's verifier divides by a grid's sizes: those are checked
    // first.
    if (failed(checkShardInput(*module)) || failed(verify(*module)))
      module = nullptr;
    else
      nameArguments(*module, state);
  }
  if (!module || collector.hadError()) {
    if (diagnostics)
      diagnostics(wrap(StringRef(collector.text())), userData);
    return MlirModule{nullptr};
  }
  return wrap(module.release());
}

MlirModule fuserParseSourceString(MlirContext context, MlirStringRef source,
                                  MlirStringRef bufferName,
                                  MlirStringCallback diagnostics, void *userData) {
  StringRef text = source.data ? unwrap(source) : StringRef();
  StringRef name = bufferName.data ? unwrap(bufferName) : StringRef();
  return parse(context, llvm::MemoryBuffer::getMemBufferCopy(text, name),
               diagnostics, userData);
}

MlirModule fuserParseSourceFile(MlirContext context, MlirStringRef path,
                                MlirStringCallback diagnostics, void *userData) {
  if (!path.data)
    path = wrap(StringRef());
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInputFile(unwrap(path), error);
  if (!buffer) {
    if (diagnostics) {
      std::string msg = (unwrap(path) + ": error: " + error + "\n").str();
      diagnostics(wrap(StringRef(msg)), userData);
    }
    return MlirModule{nullptr};
  }
  return parse(context, std::move(buffer), diagnostics, userData);
}

//===----------------------------------------------------------------------===//
// Options and results
//===----------------------------------------------------------------------===//

namespace {
struct Result {
  bool ok = false;
  bool cacheHit = false;
  std::string diagnostics;
  CompileOutput out;
};
} // namespace

namespace {
/// What fuserCompile does (DriverOptions) and where it looks first.
struct Options : DriverOptions {
  CompileCacheOptions cache;
};
} // namespace

static Options *unwrap(FuserCompileOptions o) { return static_cast<Options *>(o.ptr); }
static Result *unwrap(FuserCompileResult r) { return static_cast<Result *>(r.ptr); }

FuserCompileOptions fuserCompileOptionsCreate(void) { return {new Options()}; }
void fuserCompileOptionsDestroy(FuserCompileOptions options) {
  delete unwrap(options);
}
void fuserCompileOptionsSetChip(FuserCompileOptions o, MlirStringRef chip) {
  if (!o.ptr)
    return;
  unwrap(o)->chip = unwrap(chip).str();
}
void fuserCompileOptionsSetPtxVersion(FuserCompileOptions o, unsigned v) {
  if (!o.ptr)
    return;
  unwrap(o)->ptx = v;
}
void fuserCompileOptionsSetFastMath(FuserCompileOptions o, bool v) {
  if (!o.ptr)
    return;
  unwrap(o)->fastMath = v;
}
void fuserCompileOptionsSetIndexBits(FuserCompileOptions o, unsigned v) {
  if (!o.ptr)
    return;
  unwrap(o)->indexBits = v;
}
void fuserCompileOptionsSetMathAccuracy(FuserCompileOptions o, FuserMathAccuracy v) {
  if (!o.ptr)
    return;
  unwrap(o)->math = v == FuserMathAccuracyFast      ? "fast"
                    : v == FuserMathAccuracyPrecise ? "precise"
                                                    : "(" + std::to_string((int)v) + ")";
}
void fuserCompileOptionsSetOptLevel(FuserCompileOptions o, unsigned v) {
  if (!o.ptr)
    return;
  unwrap(o)->optLevel = v;
}
void fuserCompileOptionsSetKeepStages(FuserCompileOptions o, bool v) {
  if (!o.ptr)
    return;
  unwrap(o)->keepStages = v;
}
void fuserCompileOptionsSetAssumeAligned(FuserCompileOptions o, bool v) {
  if (!o.ptr)
    return;
  unwrap(o)->assumeAligned = v;
}
void fuserCompileOptionsSetAllowTf32(FuserCompileOptions o, bool v) {
  if (!o.ptr)
    return;
  unwrap(o)->allowTf32 = v;
}
void fuserCompileOptionsSetCubin(FuserCompileOptions o, bool v) {
  if (!o.ptr)
    return;
  unwrap(o)->cubin = v;
}
void fuserCompileOptionsSetSchedule(FuserCompileOptions o, MlirStringRef schedule) {
  if (!o.ptr)
    return;
  unwrap(o)->schedule = schedule.data ? unwrap(schedule).str() : std::string();
}
void fuserCompileOptionsSetTuning(FuserCompileOptions o, MlirStringRef text,
                                  MlirStringRef source) {
  if (!o.ptr)
    return;
  unwrap(o)->tuning = text.data ? unwrap(text).str() : std::string();
  unwrap(o)->tuningSource =
      source.data && source.length ? unwrap(source).str() : std::string("tuning");
}
void fuserCompileOptionsSetExplainSchedule(FuserCompileOptions o, bool v) {
  if (!o.ptr)
    return;
  unwrap(o)->explainSchedule = v;
}
void fuserCompileOptionsSetEmulation(FuserCompileOptions o, bool v) {
  if (!o.ptr)
    return;
  unwrap(o)->emulation = v;
}
void fuserCompileOptionsSetCache(FuserCompileOptions o, bool enabled) {
  if (!o.ptr)
    return;
  unwrap(o)->cache.enabled = enabled;
}
void fuserCompileOptionsSetCacheDir(FuserCompileOptions o, MlirStringRef dir,
                                    uint64_t maxBytes) {
  if (!o.ptr)
    return;
  unwrap(o)->cache.dir = dir.data ? unwrap(dir).str() : std::string();
  unwrap(o)->cache.maxDiskBytes = maxBytes ? maxBytes : uint64_t(1) << 30;
}
void fuserCompileCacheClearMemory(void) { clearCompileMemoryCache(); }
void fuserCompileOptionsSetTestingPlantBug(FuserCompileOptions o, MlirStringRef bug) {
  if (!o.ptr)
    return;
  unwrap(o)->plantBug = unwrap(bug).str();
}

FuserCompileResult fuserCompile(MlirModule module, FuserCompileOptions options) {
  auto *result = new Result();
  if (mlirModuleIsNull(module)) {
    result->diagnostics = "<api>: error: fuserCompile: the module is null\n";
    return {result};
  }
  if (!options.ptr) {
    result->diagnostics = "<api>: error: fuserCompile: the options are null\n";
    return {result};
  }
  ModuleOp m = unwrap(module);
  // A context that fuserContextCreate did not make (mlirContextCreate's,
  // which a builder accepts) cannot load the GPU and LLVM dialects the
  // pipeline lowers to: say that, not the pipeline's first failure.
  if (!llvm::is_contained(m.getContext()->getAvailableDialects(), "nvvm")) {
    result->diagnostics = "<api>: error: fuserCompile: the module's context lacks fuser's "
                          "dialects: create it with fuserContextCreate, or register "
                          "fuserRegisterAllDialects in its registry\n";
    return {result};
  }
  DiagnosticCollector collector(m.getContext());
  Options &o = *unwrap(options);
  result->ok = succeeded(compileModuleCached(m, o, o.cache, result->out, result->cacheHit)) &&
               !collector.hadError();
  result->diagnostics = collector.text();
  if (!result->ok)
    result->out.timings.clear();
  if (!result->ok && result->diagnostics.empty())
    result->diagnostics = "<api>: error: compilation failed\n";
  return {result};
}

// A null result reads as a failure with a diagnostic; positions out of
// range read as empty strings.
static const Result &resultOrNull(FuserCompileResult r) {
  static const Result *null = [] {
    auto *n = new Result();
    n->diagnostics = "<api>: error: the compile result is null\n";
    return n;
  }();
  return r.ptr ? *unwrap(r) : *null;
}
static bool inRange(intptr_t i, size_t n) { return i >= 0 && (size_t)i < n; }

void fuserCompileResultDestroy(FuserCompileResult r) { delete unwrap(r); }
bool fuserCompileResultIsSuccess(FuserCompileResult r) { return resultOrNull(r).ok; }
bool fuserCompileResultIsCacheHit(FuserCompileResult r) { return resultOrNull(r).cacheHit; }
MlirStringRef fuserCompileResultGetDiagnostics(FuserCompileResult r) {
  return wrap(StringRef(resultOrNull(r).diagnostics));
}
MlirStringRef fuserCompileResultGetBundle(FuserCompileResult r) {
  return wrap(StringRef(resultOrNull(r).out.bundle));
}
intptr_t fuserCompileResultGetNumFusions(FuserCompileResult r) {
  return resultOrNull(r).out.ptx.size();
}
MlirStringRef fuserCompileResultGetFusionName(FuserCompileResult r, intptr_t i) {
  const CompileOutput &o = resultOrNull(r).out;
  return wrap(inRange(i, o.ptx.size()) ? StringRef(o.ptx[i].first) : StringRef());
}
MlirStringRef fuserCompileResultGetFusionPtx(FuserCompileResult r, intptr_t i) {
  const CompileOutput &o = resultOrNull(r).out;
  return wrap(inRange(i, o.ptx.size()) ? StringRef(o.ptx[i].second) : StringRef());
}
MlirStringRef fuserCompileResultGetFusionKernelIR(FuserCompileResult r, intptr_t i) {
  const CompileOutput &o = resultOrNull(r).out;
  if (!inRange(i, o.ptx.size()))
    return wrap(StringRef());
  for (auto &[name, ir] : o.kernelIR)
    if (name == o.ptx[i].first)
      return wrap(StringRef(ir));
  return wrap(StringRef());
}
intptr_t fuserCompileResultGetNumStages(FuserCompileResult r) {
  return resultOrNull(r).out.stages.size();
}
MlirStringRef fuserCompileResultGetStageName(FuserCompileResult r, intptr_t i) {
  const CompileOutput &o = resultOrNull(r).out;
  return wrap(inRange(i, o.stages.size()) ? StringRef(o.stages[i].first) : StringRef());
}
MlirStringRef fuserCompileResultGetStageIR(FuserCompileResult r, intptr_t i) {
  const CompileOutput &o = resultOrNull(r).out;
  return wrap(inRange(i, o.stages.size()) ? StringRef(o.stages[i].second) : StringRef());
}
intptr_t fuserCompileResultGetNumTimings(FuserCompileResult r) {
  return resultOrNull(r).out.timings.size();
}
MlirStringRef fuserCompileResultGetTimingName(FuserCompileResult r, intptr_t i) {
  const CompileOutput &o = resultOrNull(r).out;
  return wrap(inRange(i, o.timings.size()) ? StringRef(o.timings[i].first) : StringRef());
}
double fuserCompileResultGetTimingMs(FuserCompileResult r, intptr_t i) {
  const CompileOutput &o = resultOrNull(r).out;
  return inRange(i, o.timings.size()) ? o.timings[i].second : -1.0;
}
