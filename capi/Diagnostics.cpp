//===- Diagnostics.cpp - diagnostics as one-line text ---------------------===//

#include "Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fuser;

std::string mlir::fuser::formatLocation(Location loc) {
  // A file position where the location has one; else the first name (the
  // builder's default location names the fusion: with several fusions in
  // a module, "<unknown>" did not say which failed).
  std::string s, name;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      s = (f.getFilename().getValue() + ":" + Twine(f.getLine()) + ":" +
           Twine(f.getColumn()))
              .str();
      return WalkResult::interrupt();
    }
    if (auto n = dyn_cast<NameLoc>(l); n && name.empty())
      name = n.getName().str();
    return WalkResult::advance();
  });
  if (!s.empty())
    return s;
  return name.empty() ? "<unknown>" : name;
}

static const char *severityName(DiagnosticSeverity s) {
  switch (s) {
  case DiagnosticSeverity::Error: return "error";
  case DiagnosticSeverity::Warning: return "warning";
  case DiagnosticSeverity::Note: return "note";
  case DiagnosticSeverity::Remark: return "remark";
  }
  return "error";
}

static void append(std::string &out, Location loc, DiagnosticSeverity sev,
                   const std::string &message) {
  llvm::raw_string_ostream os(out);
  os << formatLocation(loc) << ": " << severityName(sev) << ": " << message << "\n";
}

DiagnosticCollector::DiagnosticCollector(MLIRContext *ctx)
    : handler(ctx, [this](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error)
          ++errors;
        append(collected, d.getLocation(), d.getSeverity(), d.str());
        for (Diagnostic &note : d.getNotes()) {
          // MLIR attaches the failing op in generic form to pass errors; the
          // location already says where, and the dump only adds noise.
          if (StringRef(note.str()).starts_with("see current operation:"))
            continue;
          append(collected, note.getLocation(), note.getSeverity(), note.str());
        }
        return success();
      }) {}
