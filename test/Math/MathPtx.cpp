//===- MathPtx.cpp - The math expansions through NVPTX ---------------------===//
//
// Builds a gpu.module with one kernel per function, type and tier (Precise:
// f32, f64 and vector<4xf32>; Fast: f32 and vector<4xf32>; bare !llvm.ptr
// arguments, llvm.load / llvm.store), runs scf-to-cf (the Fast tier's sin
// and cos branch) and fuser's own lowering (fuser-lower-kernels-to-nvvm,
// upstream's nvvm-attach-target, fuser-serialize-kernels) in process for
// sm_80 (+ptx70) and sm_90 (+ptx80), and checks the PTX: no call but to the
// library's own helper functions (the sin and cos rare path), no __nv_
// (libdevice) reference, no local or constant memory, exactly the loads of the inputs,
// only IEEE round-to-nearest float arithmetic (.rn, no .ftz, no .approx).
// When ptxas is found (PATH, then /usr/local/cuda/bin) it assembles both and
// requires success and 0 spill bytes; without it that part is skipped with a
// message.
//
//   fuser-math-ptx             the ctest run
//   fuser-math-ptx -v          also PTX instructions per kernel (the common
//                              path: the shortest path from entry to return,
//                              less a copy kernel's) and registers and stack
//                              (ptxas)
//   fuser-math-ptx --dump DIR  also writes DIR/math_sm_80.ptx, math_sm_90.ptx
//   fuser-math-ptx --each      compiles the kernels one by one (debugging)
//
//===----------------------------------------------------------------------===//

#include "MathFunctions.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Target/PtxCodegen.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>

using namespace mlir;
using fuser_test::kMathFunctions;
using fuser_test::MathFn;

namespace {

struct KernelSpec {
  std::string name;
  const MathFn *fn; // null: the copy kernel (out = in), the baseline
  Type type;
  fuser::MathAccuracy tier = fuser::MathAccuracy::Precise;
};

int arityOf(const KernelSpec &k) { return k.fn ? k.fn->arity : 1; }

/// One kernel: out[i] = f(in0[i] [, in1[i]]), i = block * dim + thread.
void buildKernel(OpBuilder &b, gpu::GPUModuleOp mod, const KernelSpec &k) {
  Location loc = b.getUnknownLoc();
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> args(arityOf(k) + 1, ptr);
  b.setInsertionPointToEnd(mod.getBody());
  auto func =
      gpu::GPUFuncOp::create(b, loc, k.name, b.getFunctionType(args, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value dim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value idx = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, dim), tid);
  Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
  Type elem = getElementTypeOrSelf(k.type);
  auto addr = [&](Value base) {
    return LLVM::GEPOp::create(b, loc, ptr, k.type, base, ValueRange{i});
  };
  unsigned align = k.type == elem ? 0 : 16;
  auto load = [&](Value base) -> Value {
    return LLVM::LoadOp::create(b, loc, k.type, addr(base), align);
  };
  Value x = load(entry.getArgument(0));
  Value y = arityOf(k) == 2 ? load(entry.getArgument(1)) : Value();
  fuser::MathBuilder mb(b, loc, k.tier);
  Value r = k.fn ? k.fn->emit(mb, x, y) : x;
  LLVM::StoreOp::create(b, loc, r, addr(entry.getArgument(arityOf(k))),
                        align);
  gpu::ReturnOp::create(b, loc);
  (void)elem;
}

/// The PTX of all kernels for one target, or "" on failure.
std::string compile(MLIRContext &ctx, const std::vector<KernelSpec> &kernels,
                    const std::string &chip, const std::string &features) {
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                     b.getUnitAttr());
  b.setInsertionPointToEnd(module->getBody());
  auto gmod = gpu::GPUModuleOp::create(b, loc, "math");
  for (const KernelSpec &k : kernels)
    buildKernel(b, gmod, k);
  if (failed(verify(*module))) {
    llvm::errs() << "module does not verify\n";
    return "";
  }
  PassManager pm(&ctx);
  pm.addNestedPass<gpu::GPUModuleOp>(createSCFToControlFlowPass());
  pm.addNestedPass<gpu::GPUModuleOp>(fuser::createLowerKernelsToNVVMPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = chip;
  target.features = features;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(fuser::createSerializeKernelsPass());
  if (failed(pm.run(*module))) {
    llvm::errs() << "GPU pipeline failed for " << chip << "\n";
    return "";
  }
  std::string ptx;
  module->walk([&](gpu::BinaryOp binary) {
    for (Attribute a : binary.getObjects())
      if (auto obj = dyn_cast<gpu::ObjectAttr>(a))
        ptx += obj.getObject().getValue().str();
  });
  return ptx;
}

/// Static checks of the PTX text; returns the number of problems.
int checkPtx(const std::string &ptx, const std::vector<KernelSpec> &kernels,
             const std::string &chip) {
  int problems = 0;
  auto report = [&](const std::string &what) {
    std::printf("  %s: %s\n", chip.c_str(), what.c_str());
    ++problems;
  };
  if (ptx.empty()) {
    report("no PTX");
    return problems;
  }
  if (ptx.find("__nv_") != std::string::npos)
    report("reference to libdevice (__nv_)");
  // Split into entries, check each.
  std::map<std::string, std::string> bodies;
  std::regex entry(R"(\.entry\s+([A-Za-z0-9_]+)\s*\()");
  auto begin = std::sregex_iterator(ptx.begin(), ptx.end(), entry);
  std::vector<std::pair<std::string, size_t>> starts;
  for (auto it = begin; it != std::sregex_iterator(); ++it)
    starts.push_back({(*it)[1].str(), static_cast<size_t>(it->position())});
  for (size_t j = 0; j < starts.size(); ++j) {
    size_t end = j + 1 < starts.size() ? starts[j + 1].second : ptx.size();
    bodies[starts[j].first] =
        ptx.substr(starts[j].second, end - starts[j].second);
  }
  // Float arithmetic must be IEEE round-to-nearest without flush to zero,
  // as on the host: an unrounded mul/add could be contracted into an fma by
  // ptxas, .ftz/.approx differ from the CPU.
  std::regex inexact(R"(\b(add|sub|mul|fma|div|rcp|sqrt)(\.sat)?\.f(32|64)\b)");
  std::regex ftz(R"(\.(ftz|approx|full)\b)");
  if (std::regex_search(ptx, inexact))
    report("float arithmetic without .rn (contractible)");
  if (std::regex_search(ptx, ftz))
    report(".ftz, .approx or .full arithmetic");
  // Calls reach only the math library's own helpers (its rare paths,
  // MathExpansion.h), `__fuser_...`, or `<kernel>____fuser_...` where
  // fuser-serialize-kernels gave a kernel its own copy.
  std::regex call(R"((^|\s)call(\.uni)?\s+(\([^)]*\),\s*)?(?![\w$]*__fuser_)\w)");
  std::regex mem(R"(\b(ld|st)\.(local|const|shared)\b|\.local\s)");
  std::regex gload(R"(\bld\.global\.)");
  // The helpers before the first kernel (the others lie in the kernels'
  // texts, checked with them).
  std::string helpers = starts.empty() ? ptx : ptx.substr(0, starts.front().second);
  if (std::regex_search(helpers, mem))
    report("a helper function uses local, constant or shared memory");
  if (std::regex_search(helpers, call))
    report("a helper function calls something other than a helper");
  for (const KernelSpec &k : kernels) {
    auto it = bodies.find(k.name);
    if (it == bodies.end()) {
      report(k.name + " missing");
      continue;
    }
    const std::string &body = it->second;
    if (std::regex_search(body, call))
      report(k.name + " contains a call");
    if (std::regex_search(body, mem))
      report(k.name + " uses local, constant or shared memory");
    auto n = std::distance(
        std::sregex_iterator(body.begin(), body.end(), gload),
        std::sregex_iterator());
    if (n != arityOf(k))
      report(k.name + " has " + std::to_string(n) + " global loads, want " +
             std::to_string(arityOf(k)));
  }
  return problems;
}

/// The body of entry `name` in `ptx` ("" if absent).
std::string entryBody(const std::string &ptx, const std::string &name) {
  size_t at = ptx.find(".entry " + name + "(");
  if (at == std::string::npos)
    return "";
  size_t open = ptx.find('{', at);
  size_t next = ptx.find(".entry ", at + 1);
  return ptx.substr(open, (next == std::string::npos ? ptx.size() : next) - open);
}

/// PTX instructions on the shortest path from the entry to a `ret` that
/// calls nothing (the kernels have no loops): the common path of a kernel
/// with a rarely taken branch, all of them for straight-line code.
int shortestPathInstructions(const std::string &body) {
  struct Block {
    int count = 0;
    std::vector<std::string> succ;
    bool ret = false, open = true; // open: falls through to the next block
  };
  std::vector<std::string> order = {""};
  std::map<std::string, Block> blocks;
  std::istringstream lines(body);
  std::string line;
  std::regex label(R"(^\s*(\$[A-Za-z0-9_]+):)");
  std::regex bra(R"(^\s*(@!?%p\d+\s+)?bra(\.uni)?\s+(\$[A-Za-z0-9_]+);)");
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, label)) {
      Block &prev = blocks[order.back()];
      if (prev.open)
        prev.succ.push_back(m[1]);
      order.push_back(m[1]);
      continue;
    }
    size_t p = line.find_first_not_of(" \t");
    if (p == std::string::npos || line[p] == '.' || line[p] == '/' ||
        line[p] == '{' || line[p] == '}' || line.back() != ';')
      continue;
    Block &b = blocks[order.back()];
    if (!b.open)
      continue; // unreachable after ret or an unconditional branch
    ++b.count;
    // A call is the rare path of sin and cos (the helper, MathExpansion.h):
    // never the common path, however short.
    if (std::regex_search(line, std::regex(R"(^\s*call(\.uni)?\s)")))
      b.count += 1 << 20;
    if (line.find("ret;") != std::string::npos) {
      b.ret = true;
      b.open = false;
    } else if (std::regex_search(line, m, bra)) {
      b.succ.push_back(m[3]);
      if (!m[1].matched) {
        b.open = false;
      } else { // a conditional branch ends the block: fall through to a new one
        std::string next = "#" + std::to_string(order.size());
        b.succ.push_back(next);
        order.push_back(next);
      }
    }
  }
  std::map<std::string, int> memo;
  std::function<int(const std::string &)> best = [&](const std::string &l) {
    auto it = memo.find(l);
    if (it != memo.end())
      return it->second;
    memo[l] = 1 << 20; // the kernels have no loops; this guards against them
    const Block &b = blocks[l];
    int r = b.ret ? 0 : 1 << 20;
    for (const std::string &s : b.succ)
      r = std::min(r, best(s));
    return memo[l] = b.count + r;
  };
  return best("");
}

std::string findPtxas() {
  if (auto p = llvm::sys::findProgramByName("ptxas"))
    return *p;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  return "";
}

/// Assembles with ptxas -v; returns the number of problems.
int runPtxas(const std::string &ptxas, const std::string &ptx,
             const std::string &chip, bool verbose) {
  llvm::SmallString<128> in, out, log;
  llvm::sys::fs::createTemporaryFile("fuser-math", "ptx", in);
  llvm::sys::fs::createTemporaryFile("fuser-math", "cubin", out);
  llvm::sys::fs::createTemporaryFile("fuser-math", "log", log);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    os << ptx;
  }
  llvm::SmallVector<llvm::StringRef> argv = {ptxas, "--gpu-name", chip, "-v",
                                             in, "-o", out};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.str(),
                                                log.str()};
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(ptxas, argv, std::nullopt, redirects, 0,
                                     0, &err);
  auto text = llvm::MemoryBuffer::getFile(log);
  std::string output = text ? (*text)->getBuffer().str() : "";
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  llvm::sys::fs::remove(log);
  int problems = 0;
  if (rc != 0) {
    std::printf("  %s: ptxas failed (%d) %s\n%s", chip.c_str(), rc,
                err.c_str(), output.c_str());
    return 1;
  }
  // "Compiling entry function 'k' for 'sm_90'", then per function
  // "N bytes stack frame, N bytes spill stores, N bytes spill loads" and
  // "Used N registers".
  std::istringstream lines(output);
  std::string line, current;
  std::regex fnRe(R"(Compiling entry function '([^']+)')");
  std::regex spillRe(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  std::regex regRe(R"(Used (\d+) registers)");
  std::map<std::string, std::string> summary;
  int entries = 0;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, fnRe)) {
      current = m[1];
      ++entries;
    } else if (std::regex_search(line, m, spillRe)) {
      if (m[2] != "0" || m[3] != "0") {
        std::printf("  %s: %s spills: %s\n", chip.c_str(), current.c_str(),
                    line.c_str());
        ++problems;
      }
      summary[current] += m[1].str() + " B stack";
    } else if (std::regex_search(line, m, regRe)) {
      summary[current] = m[1].str() + " regs, " + summary[current];
    }
  }
  if (entries == 0) {
    std::printf("  %s: no entry in ptxas output\n%s", chip.c_str(),
                output.c_str());
    ++problems;
  }
  if (verbose)
    for (auto &[name, s] : summary)
      std::printf("  %s %-16s %s\n", chip.c_str(), name.c_str(), s.c_str());
  return problems;
}

} // namespace

int main(int argc, char **argv) {
  std::string dumpDir;
  bool verbose = false, each = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dump" && i + 1 < argc)
      dumpDir = argv[++i];
    else if (a == "-v")
      verbose = true;
    else if (a == "--each")
      each = true;
    else {
      std::fprintf(stderr, "usage: %s [-v] [--each] [--dump DIR]\n", argv[0]);
      return 2;
    }
  }
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect, scf::SCFDialect,
                  vector::VectorDialect, cf::ControlFlowDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  // convert-gpu-to-nvvm takes the arith patterns from this interface.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  std::vector<KernelSpec> kernels;
  Type f32 = Float32Type::get(&ctx), f64 = Float64Type::get(&ctx);
  Type v4f32 = VectorType::get({4}, f32);
  using fuser::MathAccuracy;
  for (const MathFn &fn : kMathFunctions) {
    std::string n = fn.name;
    kernels.push_back({n + "_f32", &fn, f32});
    kernels.push_back({n + "_f64", &fn, f64});
    kernels.push_back({n + "_v4f32", &fn, v4f32});
    kernels.push_back({n + "_f32_fast", &fn, f32, MathAccuracy::Fast});
    kernels.push_back({n + "_v4f32_fast", &fn, v4f32, MathAccuracy::Fast});
  }
  kernels.push_back({"copy_f32", nullptr, f32});
  kernels.push_back({"copy_f64", nullptr, f64});
  kernels.push_back({"copy_v4f32", nullptr, v4f32});
  if (each) { // debugging: which kernel breaks the pipeline
    for (const KernelSpec &k : kernels) {
      std::string p = compile(ctx, {k}, "sm_90", "+ptx80");
      std::printf("%s: %s\n", k.name.c_str(), p.empty() ? "FAILED" : "ok");
    }
    return 0;
  }
  // The scanner must see what it looks for: a doctored entry with a call, a
  // libdevice name, local memory, an unrounded mul and .ftz.
  {
    std::vector<KernelSpec> one = {kernels.front()};
    std::string bad = ".visible .entry " + one[0].name +
                      "(\n){\n\tld.global.b32 %r1, [%rd1];\n"
                      "\tmul.f32 %r2, %r1, %r1;\n\tadd.ftz.f32 %r3, %r2, %r1;\n"
                      "\tld.local.b32 %r4, [%rd2];\n"
                      "\tcall.uni (retval0), __nv_expf, (param0);\n}\n";
    std::printf("scanner self-check (5 problems expected):\n");
    int found = checkPtx(bad, one, "self-check");
    if (found != 5) {
      std::printf("scanner self-check found %d problems, want 5\n", found);
      return 1;
    }
  }
  std::string ptxas = findPtxas();
  int failed = 0, passed = 0;
  const std::pair<const char *, const char *> targets[] = {
      {"sm_80", "+ptx70"}, {"sm_90", "+ptx80"}};
  for (auto [chip, features] : targets) {
    std::string ptx = compile(ctx, kernels, chip, features);
    int problems = checkPtx(ptx, kernels, chip);
    if (!dumpDir.empty() && !ptx.empty()) {
      llvm::SmallString<128> path(dumpDir);
      llvm::sys::path::append(path, std::string("math_") + chip + ".ptx");
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      os << ptx;
    }
    std::printf("%s: %zu kernels, %zu bytes of PTX, static checks %s\n", chip,
                kernels.size(), ptx.size(), problems ? "FAILED" : "ok");
    if (verbose && !ptx.empty()) {
      // Instructions per evaluation: the kernel's common path less the
      // copy kernel's (indexing, loads, store, ret).
      std::map<std::string, int> n;
      for (const KernelSpec &k : kernels)
        n[k.name] = shortestPathInstructions(entryBody(ptx, k.name));
      std::printf("  %s PTX instructions per evaluation (precise f32 / f64 / "
                  "v4f32, fast f32 / v4f32):\n",
                  chip);
      for (const MathFn &fn : kMathFunctions) {
        std::string b = fn.name;
        auto net = [&](const std::string &suffix, const char *copy) {
          return n[b + suffix] - n[copy];
        };
        std::printf("  %s %-8s %4d %4d %4d   %4d %4d\n", chip, fn.name,
                    net("_f32", "copy_f32"), net("_f64", "copy_f64"),
                    net("_v4f32", "copy_v4f32"), net("_f32_fast", "copy_f32"),
                    net("_v4f32_fast", "copy_v4f32"));
      }
    }
    if (!ptx.empty()) {
      if (ptxas.empty()) {
        std::printf("%s: ptxas not found (PATH, /usr/local/cuda/bin): "
                    "assembly check skipped\n",
                    chip);
      } else {
        int p = runPtxas(ptxas, ptx, chip, verbose);
        std::printf("%s: ptxas %s\n", chip, p ? "FAILED" : "ok, 0 spill bytes");
        problems += p;
      }
    }
    (problems ? failed : passed)++;
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
