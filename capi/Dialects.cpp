//===- Dialects.cpp - registering fuser through the C API -----------------===//

#include "fuser-c/Dialects.h"

#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "fuser/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <mutex>

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Fuser, fuser, mlir::fuser::FuserDialect)

unsigned fuserGetCAPIVersion(void) { return FUSER_CAPI_VERSION; }

void fuserRegisterAllDialects(MlirDialectRegistry registry) {
  if (mlirDialectRegistryIsNull(registry))
    return;
  mlir::fuser::registerAllDialects(*unwrap(registry));
}

MlirContext fuserContextCreate(void) {
  mlir::DialectRegistry registry;
  mlir::fuser::registerAllDialects(registry);
  auto *ctx = new mlir::MLIRContext(registry);
  ctx->loadDialect<mlir::fuser::FuserDialect>();
  return wrap(ctx);
}

void fuserRegisterAllPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] { mlir::fuser::registerAllPasses(); });
}
