//===- Emulator.cpp - the CPU emulator through the C API ------------------===//

#include "fuser-c/Emulator.h"

#include "fuser/Emulator/Emulator.h"

void fuserEmulatorOptionsInit(FuserEmulatorOptions *options) {
  options->reverseThreads = false;
  options->raceCheck = false;
  options->optLevel = 2;
}

fuser_error *fuserEmulatorRuntimeCreate(const FuserEmulatorOptions *options,
                                        fuser_rt **out) {
  if (!out)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuserEmulatorRuntimeCreate: out is NULL");
  mlir::fuser::EmulatorOptions o;
  if (options) {
    o.reverseThreads = options->reverseThreads;
    o.raceCheck = options->raceCheck;
    o.optLevel = options->optLevel > 3 ? 3 : options->optLevel;
  }
  void *ctx = mlir::fuser::createEmulatorContext(o);
  fuser_error *e =
      fuser_rt_create_with_driver(mlir::fuser::getEmulatorDriver(), ctx, out);
  if (e)
    mlir::fuser::getEmulatorDriver()->destroy(ctx);
  return e;
}
