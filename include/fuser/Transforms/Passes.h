//===- Passes.h - fuser transformation passes -------------------*- C++ -*-===//
#ifndef FUSER_TRANSFORMS_PASSES_H
#define FUSER_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace fuser {

#define GEN_PASS_DECL
#include "fuser/Transforms/Passes.h.inc"

/// Adds the patterns that expand composite ops into primitive ops.
void populateDecomposeCompositesPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "fuser/Transforms/Passes.h.inc"

} // namespace fuser
} // namespace mlir

#endif // FUSER_TRANSFORMS_PASSES_H
