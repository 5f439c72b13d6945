//===- InitAll.cpp - register fuser and the upstream parts it uses --------===//

#include "fuser/InitAll.h"

#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::fuser::registerAllDialects(DialectRegistry &registry) {
  registry.insert<FuserDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect>();
}

void mlir::fuser::registerAllPasses() {
  registerFuserTransformsPasses();
  // Upstream cleanups that fuser's pipelines and tests run.
  registerCanonicalizerPass();
  registerCSEPass();
  registerSymbolDCEPass();
}
