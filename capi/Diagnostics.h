//===- Diagnostics.h - diagnostics as one-line text -------------*- C++ -*-===//
#ifndef FUSER_CAPI_DIAGNOSTICS_H
#define FUSER_CAPI_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>

namespace mlir::fuser {

/// Collects every diagnostic reported in `ctx` while it lives, formatted as
/// "file:line:col: error: message\n" (notes follow their error).
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx);
  const std::string &text() const { return collected; }
  bool hadError() const { return errors > 0; }

private:
  std::string collected;
  unsigned errors = 0;
  ScopedDiagnosticHandler handler;
};

/// "file:line:col" of the first file location in `loc`, else the first
/// name of a NameLoc (the builder's default location names the fusion),
/// else "<unknown>". One rule for the builder's errors and the compiler's.
std::string formatLocation(Location loc);

} // namespace mlir::fuser

#endif
