//===- Emulator.cpp - the CPU emulator through the C API ------------------===//

#include "fuser-c/Emulator.h"

#include "fuser/Emulator/Emulator.h"

#include <cstring>

void fuserEmulatorOptionsInit(FuserEmulatorOptions *options) {
  options->reverseThreads = false;
  options->raceCheck = false;
  options->optLevel = 2;
  options->countTraffic = false;
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
    o.countTraffic = options->countTraffic;
  }
  void *ctx = mlir::fuser::createEmulatorContext(o);
  fuser_error *e =
      fuser_rt_create_with_driver(mlir::fuser::getEmulatorDriver(), ctx, out);
  if (e)
    mlir::fuser::getEmulatorDriver()->destroy(ctx);
  return e;
}

fuser_error *fuserEmulatorGetTraffic(fuser_rt *rt, uint64_t address, uint64_t *loaded,
                                     uint64_t *stored) {
  if (!rt || !loaded || !stored)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuserEmulatorGetTraffic: NULL argument");
  void *ctx = fuser_rt_driver_context(rt);
  if (!ctx || std::strcmp(fuser_rt_driver_name(rt), "emulator") != 0)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuserEmulatorGetTraffic: not an emulator runtime");
  if (!mlir::fuser::emulatorTraffic(ctx, address, *loaded, *stored))
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuserEmulatorGetTraffic: the runtime does not count traffic "
                              "(FuserEmulatorOptions.countTraffic), or no allocation starts "
                              "at 0x%llx",
                              (unsigned long long)address);
  return nullptr;
}
