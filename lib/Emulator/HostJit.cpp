//===- HostJit.cpp - the emulator's JIT: chosen CPU, closed symbol table --===//

#include "HostJit.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <math.h>
#include <mutex>
#include <set>
#include <string.h>

using namespace mlir;
using namespace mlir::fuser::emu;

std::string JitTarget::describe() const { return cpu + " (" + triple + ")"; }

static void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

bool mlir::fuser::emu::resolveJitTarget(const std::string &name, JitTarget &target,
                                        std::string &error) {
  initializeNativeTarget();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  target.triple = triple.str();
  target.features.clear();
  if (name.empty() || name == "host") {
    target.cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures features;
    for (const auto &f : llvm::sys::getHostCPUFeatures())
      features.AddFeature(f.first(), f.second);
    target.features = features.getString();
    return true;
  }
  if (name == "baseline") {
    if (triple.getArch() == llvm::Triple::x86_64)
      target.cpu = "x86-64";
    else
      target.cpu = "generic";
    return true;
  }
  std::string lookupError;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!t) {
    error = "no LLVM target for " + target.triple + ": " + lookupError;
    return false;
  }
  std::unique_ptr<llvm::MCSubtargetInfo> sti(t->createMCSubtargetInfo(triple, "", ""));
  if (!sti || !sti->isCPUStringValid(name)) {
    error = "unknown CPU '" + name + "' for " + target.triple +
            " (try host, baseline, or an LLVM CPU name such as " +
            (triple.getArch() == llvm::Triple::x86_64 ? "x86-64-v3" : "neoverse-v1") + ")";
    return false;
  }
  // Code compiled for a CPU with instructions this host lacks would die of
  // an illegal instruction in the middle of a launch: refuse it here,
  // naming what is missing. Only the x86 instruction sets a kernel's code
  // can use count (a VM hides system features such as invpcid that no
  // kernel needs); features the host does not report are not held against
  // it.
  auto usedByKernels = [](llvm::StringRef f) {
    for (llvm::StringRef p : {"avx", "sse", "amx", "fma", "bmi"})
      if (f.starts_with(p))
        return true;
    return llvm::is_contained({"ssse3", "f16c", "egpr", "ndd", "ppx", "push2pop2", "cf", "zu",
                               "nf", "gfni", "vaes", "vpclmulqdq", "popcnt", "lzcnt", "movbe",
                               "adx", "sha", "sha512", "aes", "pclmul", "cx16", "xop", "tbm",
                               "cmov"},
                              f);
  };
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  std::unique_ptr<llvm::MCSubtargetInfo> cpu(t->createMCSubtargetInfo(triple, name, ""));
  std::string missing;
  unsigned numMissing = 0;
  for (const llvm::SubtargetFeatureKV &kv : cpu->getAllProcessorFeatures()) {
    auto it = host.find(kv.Key);
    if (!usedByKernels(kv.Key) || it == host.end() || it->second ||
        !cpu->checkFeatures(std::string("+") + kv.Key))
      continue;
    if (numMissing++ < 4)
      missing += std::string(missing.empty() ? "" : ", ") + kv.Key;
  }
  if (numMissing) {
    error = "this host cannot run code compiled for '" + name + "': it lacks " + missing +
            (numMissing > 4 ? " and " + std::to_string(numMissing - 4) + " more" : "") +
            " (try host or baseline)";
    return false;
  }
  target.cpu = name;
  return true;
}

const std::map<std::string, uint64_t> &mlir::fuser::emu::jitSymbolTable() {
  // The C library functions LLVM's back ends call for the operations the
  // kernels use, on CPUs that lack an instruction for them (baseline x86-64
  // has no FMA and no SSE4.1 rounding), and for memory intrinsics. Nothing
  // from libgcc or compiler-rt: f16/bf16 conversions are expanded before the
  // JIT (ExpandHalfFloats.cpp).
  static const std::map<std::string, uint64_t> table = [] {
    std::map<std::string, uint64_t> t;
    auto add = [&](const char *n, auto *fn) { t[n] = reinterpret_cast<uint64_t>(fn); };
    using F1 = float (*)(float);
    using D1 = double (*)(double);
    using F2 = float (*)(float, float);
    using D2 = double (*)(double, double);
    add("fmaf", static_cast<float (*)(float, float, float)>(::fmaf));
    add("fma", static_cast<double (*)(double, double, double)>(::fma));
    add("floorf", static_cast<F1>(::floorf));
    add("floor", static_cast<D1>(::floor));
    add("ceilf", static_cast<F1>(::ceilf));
    add("ceil", static_cast<D1>(::ceil));
    add("truncf", static_cast<F1>(::truncf));
    add("trunc", static_cast<D1>(::trunc));
    add("rintf", static_cast<F1>(::rintf));
    add("rint", static_cast<D1>(::rint));
    add("nearbyintf", static_cast<F1>(::nearbyintf));
    add("nearbyint", static_cast<D1>(::nearbyint));
    add("roundf", static_cast<F1>(::roundf));
    add("round", static_cast<D1>(::round));
    add("roundevenf", static_cast<F1>(::roundevenf));
    add("roundeven", static_cast<D1>(::roundeven));
    add("sqrtf", static_cast<F1>(::sqrtf));
    add("sqrt", static_cast<D1>(::sqrt));
    add("fmodf", static_cast<F2>(::fmodf));
    add("fmod", static_cast<D2>(::fmod));
    add("fminf", static_cast<F2>(::fminf));
    add("fmin", static_cast<D2>(::fmin));
    add("fmaxf", static_cast<F2>(::fmaxf));
    add("fmax", static_cast<D2>(::fmax));
    add("ldexpf", static_cast<float (*)(float, int)>(::ldexpf));
    add("ldexp", static_cast<double (*)(double, int)>(::ldexp));
    add("memcpy", static_cast<void *(*)(void *, const void *, size_t)>(::memcpy));
    add("memmove", static_cast<void *(*)(void *, const void *, size_t)>(::memmove));
    add("memset", static_cast<void *(*)(void *, int, size_t)>(::memset));
    return t;
  }();
  return table;
}

namespace mlir::fuser::emu {

/// Serves the symbols of a fixed table on demand, and records which ones
/// a module linked and which it asked for in vain.
class TableGenerator : public llvm::orc::DefinitionGenerator {
public:
  TableGenerator(std::map<std::string, uint64_t> table, HostJit &jit)
      : table(std::move(table)), jit(jit) {}
  llvm::Error tryToGenerate(llvm::orc::LookupState &, llvm::orc::LookupKind,
                            llvm::orc::JITDylib &dylib, llvm::orc::JITDylibLookupFlags,
                            const llvm::orc::SymbolLookupSet &symbols) override {
    llvm::orc::SymbolMap found;
    for (const auto &entry : symbols) {
      std::string name = (*entry.first).str();
      auto it = table.find(name);
      if (it == table.end()) {
        jit.missingSymbols.push_back(name);
        continue;
      }
      jit.linkedSymbols.push_back(name);
      found[entry.first] = {llvm::orc::ExecutorAddr(it->second),
                            llvm::JITSymbolFlags::Exported};
    }
    if (found.empty())
      return llvm::Error::success();
    return dylib.define(llvm::orc::absoluteSymbols(std::move(found)));
  }

private:
  std::map<std::string, uint64_t> table;
  HostJit &jit;
};

} // namespace mlir::fuser::emu

HostJit::~HostJit() = default;

static std::string joined(const std::vector<std::string> &names) {
  std::string s;
  for (const std::string &n : names)
    s += (s.empty() ? "'" : ", '") + n + "'";
  return s;
}

std::unique_ptr<HostJit> HostJit::compile(ModuleOp module, const JitTarget &target,
                                          unsigned optLevel,
                                          const std::map<std::string, uint64_t> &runtime,
                                          std::string &error) {
  initializeNativeTarget();
  std::map<std::string, uint64_t> table = jitSymbolTable();
  table.insert(runtime.begin(), runtime.end());

  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, *context);
  if (!llvmModule) {
    error = "cannot translate the module to LLVM IR";
    return nullptr;
  }
  // Everything a module may reference from outside is in the table.
  std::vector<std::string> unknown;
  for (llvm::Function &f : *llvmModule)
    if (f.isDeclaration() && !f.isIntrinsic() && !table.count(f.getName().str()))
      unknown.push_back(f.getName().str());
  for (llvm::GlobalVariable &g : llvmModule->globals())
    if (g.isDeclaration())
      unknown.push_back(g.getName().str());
  if (!unknown.empty()) {
    error = "the module references " + joined(unknown) +
            ", which the emulator does not provide (it links only its own runtime "
            "and C library math and memory functions)";
    return nullptr;
  }

  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(target.triple)};
  builder.setCPU(target.cpu);
  if (!target.features.empty())
    builder.addFeatures({target.features});
  builder.setCodeGenOptLevel(static_cast<llvm::CodeGenOptLevel>(optLevel));
  auto tm = builder.createTargetMachine();
  if (!tm) {
    error = "no target machine for " + target.describe() + ": " +
            llvm::toString(tm.takeError());
    return nullptr;
  }
  llvmModule->setDataLayout((*tm)->createDataLayout());
  llvmModule->setTargetTriple(llvm::Triple(target.triple));
  if (llvm::Error e = makeOptimizingTransformer(optLevel, 0, tm->get())(llvmModule.get())) {
    error = "LLVM optimization failed: " + llvm::toString(std::move(e));
    return nullptr;
  }

  std::unique_ptr<HostJit> result(new HostJit());
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(builder)
                 .setLinkProcessSymbolsByDefault(false)
                 .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                 .create();
  if (!jit) {
    error = "cannot create the JIT: " + llvm::toString(jit.takeError());
    return nullptr;
  }
  result->jit = std::move(*jit);
  result->jit->getMainJITDylib().addGenerator(
      std::make_unique<TableGenerator>(std::move(table), *result));
  if (llvm::Error e = result->jit->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(llvmModule), std::move(context)))) {
    error = "cannot add the module to the JIT: " + llvm::toString(std::move(e));
    return nullptr;
  }
  return result;
}

uint64_t HostJit::lookup(const std::string &name, std::string &error) {
  auto address = jit->lookup(name);
  if (!address) {
    std::string message = llvm::toString(address.takeError());
    if (!missingSymbols.empty()) {
      std::set<std::string> unique(missingSymbols.begin(), missingSymbols.end());
      error = "the compiled code needs " +
              joined(std::vector<std::string>(unique.begin(), unique.end())) +
              ", which the emulator does not provide (LLVM's back end called it for "
              "an operation this CPU has no instruction for)";
    } else {
      error = message;
    }
    return 0;
  }
  std::sort(linkedSymbols.begin(), linkedSymbols.end());
  linkedSymbols.erase(std::unique(linkedSymbols.begin(), linkedSymbols.end()),
                      linkedSymbols.end());
  return address->getValue();
}
