//===- Autodiff.cpp - fuserDifferentiate ----------------------------------===//

#include "fuser-c/Autodiff.h"

#include "Diagnostics.h"

#include "fuser/Transforms/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::fuser;

bool fuserDifferentiate(MlirModule module, MlirStringRef fusion, const int64_t *wrt,
                        intptr_t numWrt, const int64_t *results, intptr_t numResults,
                        bool residuals, MlirStringCallback diagnostics, void *userData) {
  auto report = [&](const std::string &text) {
    if (diagnostics && !text.empty())
      diagnostics(wrap(StringRef(text)), userData);
  };
  if (mlirModuleIsNull(module)) {
    report("<unknown>: error: fuserDifferentiate: the module is null\n");
    return false;
  }
  ModuleOp m = unwrap(module);
  StringRef name = fusion.data ? unwrap(fusion) : StringRef();
  if (name.empty()) {
    report("<unknown>: error: fuserDifferentiate: name the fusion to differentiate\n");
    return false;
  }
  if ((numWrt < 0 || (numWrt > 0 && !wrt)) || (numResults < 0 || (numResults > 0 && !results))) {
    report("<unknown>: error: fuserDifferentiate: a position list is NULL or has a negative "
           "length\n");
    return false;
  }
  VjpPassOptions options;
  options.fusion = name.str();
  options.wrt.assign(wrt, wrt + numWrt);
  options.results.assign(results, results + numResults);
  options.residuals = residuals;
  SmallVector<std::string> derived;
  for (const char *suffix : {"_vjp", "_fwd", "_bwd"})
    if (!SymbolTable::lookupSymbolIn(m, (name + suffix).str()))
      derived.push_back((name + suffix).str());
  DiagnosticCollector collector(m.getContext());
  PassManager pm(m.getContext());
  pm.addPass(createVjpPass(options));
  if (succeeded(pm.run(m)))
    return true;
  // Leave the module as it was: the pass adds nothing on a diagnostic, but
  // a derived fusion the verifier rejected would stay.
  for (const std::string &d : derived)
    if (Operation *added = SymbolTable::lookupSymbolIn(m, d))
      added->erase();
  report(collector.text());
  return false;
}
