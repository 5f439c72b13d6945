/*===- fuser-c/Dialects.h - registering fuser through the C API ----*- C -*-===*\
|*                                                                            *|
|* The fuser dialect, its passes and pipelines, for programs that embed fuser *|
|* through MLIR's C API. Link libFuserCAPI.so, which carries fuser and the    *|
|* upstream MLIR C API it re-exports.                                         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FUSER_C_DIALECTS_H
#define FUSER_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The version of this C API. It increases whenever a declaration changes
/// incompatibly; a program can compare it with FUSER_CAPI_VERSION, the value
/// it was compiled against.
#define FUSER_CAPI_VERSION 2
MLIR_CAPI_EXPORTED unsigned fuserGetCAPIVersion(void);

/// The handle of the fuser dialect: mlirGetDialectHandle__fuser__().
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Fuser, fuser);

/// Adds the fuser dialect and every upstream dialect, interface and
/// translation fuser's pipeline uses (so a context with this registry can
/// parse and compile fusions and print every stage's IR). Call it before
/// anything that registers MLIR's own extensions (mlirRegisterAllDialects'
/// companions, registerAllExtensions): MLIR keeps the first model of an
/// interface registered for an op, and fuser's model of func.return (which
/// checks each part a sharded fusion returns) must come first.
MLIR_CAPI_EXPORTED void fuserRegisterAllDialects(MlirDialectRegistry registry);

/// Creates a context with fuserRegisterAllDialects applied and the fuser
/// dialect loaded. The caller owns it (mlirContextDestroy).
MLIR_CAPI_EXPORTED MlirContext fuserContextCreate(void);

/// Registers fuser's passes and the `fuser-compile` pipeline for textual
/// pipelines (mlirParsePassPipeline). Safe to call more than once.
MLIR_CAPI_EXPORTED void fuserRegisterAllPasses(void);

#ifdef __cplusplus
}
#endif

#endif /* FUSER_C_DIALECTS_H */
