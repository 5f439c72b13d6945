//===- HostJit.h - the emulator's JIT: chosen CPU, closed symbol table -*- C++ -*-===//
//
// Compiles a module in the LLVM dialect to host code with LLVM's ORC JIT,
// for a CPU the caller names (not necessarily the host's), and links it
// against a fixed table of symbols only: the emulator's own entry points and
// a few C library functions the back end calls (fmaf on a CPU without FMA,
// memset, ...). There is no search of the process or of any library, so a
// module can call nothing else (docs/cpu-emulation.md, docs/bundle.md's trust
// model). MLIR's ExecutionEngine cannot do either: it always compiles for
// the host and always resolves symbols through the whole process.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_EMULATOR_HOSTJIT_H
#define FUSER_LIB_EMULATOR_HOSTJIT_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace llvm::orc {
class LLJIT;
}

namespace mlir::fuser::emu {

/// The CPU the JIT compiles for, resolved from a name: "host", "baseline"
/// (x86-64 on x86-64, generic on AArch64) or an LLVM CPU name of the host's
/// architecture ("x86-64-v3", "skylake-avx512", "neoverse-v1", ...).
struct JitTarget {
  std::string triple, cpu, features;
  std::string describe() const; // "x86-64 (x86_64-pc-linux-gnu)"
};

/// Resolves `name` (empty: "host"); false with `error` set when the name is
/// not a CPU of the host's architecture.
bool resolveJitTarget(const std::string &name, JitTarget &target, std::string &error);

/// The C library functions JIT-compiled code may link: name -> address.
const std::map<std::string, uint64_t> &jitSymbolTable();

/// One JIT-compiled module.
class HostJit {
public:
  ~HostJit();
  /// Compiles `module` (LLVM dialect only), linking the C library part of
  /// jitSymbolTable() and `runtime` (the emulator's entry points). On failure
  /// returns null and sets `error`; a module that declares a function or
  /// global outside those fails with their names.
  static std::unique_ptr<HostJit> compile(ModuleOp module, const JitTarget &target,
                                          unsigned optLevel,
                                          const std::map<std::string, uint64_t> &runtime,
                                          std::string &error);
  /// The address of a defined function, or 0 with `error` set.
  uint64_t lookup(const std::string &name, std::string &error);
  /// The table symbols the module linked, sorted.
  const std::vector<std::string> &linked() const { return linkedSymbols; }

private:
  HostJit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::vector<std::string> linkedSymbols;
  std::vector<std::string> missingSymbols;
  friend class TableGenerator;
};

} // namespace mlir::fuser::emu

#endif
