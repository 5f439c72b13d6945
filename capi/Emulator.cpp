//===- Emulator.cpp - the CPU emulator through the C API ------------------===//

#include "fuser-c/Emulator.h"

#include "fuser/Emulator/Emulator.h"

#include <cstdlib>
#include <cstring>
#include <string>

void fuserEmulatorOptionsInit(FuserEmulatorOptions *options) {
  if (!options)
    return;
  options->reverseThreads = false;
  options->raceCheck = false;
  options->optLevel = 0;
  options->countTraffic = false;
  options->cpu = nullptr;
  options->trace = false;
  options->maxMemoryBytes = 0;
  options->maxWork = 0;
}

fuser_error *fuserEmulatorRuntimeCreate(const FuserEmulatorOptions *options,
                                        fuser_rt **out) {
  // The runtime's convention for NULL (fuser_runtime.h): "<function>: NULL
  // <parameter>", INVALID_ARGUMENT.
  if (!out)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                              "fuserEmulatorRuntimeCreate: NULL out");
  mlir::fuser::EmulatorOptions o;
  const char *cpu = nullptr;
  if (options) {
    o.reverseThreads = options->reverseThreads;
    o.raceCheck = options->raceCheck;
    if (options->optLevel > 3)
      return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT,
                                "fuserEmulatorRuntimeCreate: optLevel must be an LLVM "
                                "optimization level, 0 to 3, got %u",
                                options->optLevel);
    o.optLevel = options->optLevel;
    o.countTraffic = options->countTraffic;
    o.trace = options->trace;
    o.maxMemoryBytes = options->maxMemoryBytes;
    o.maxWork = options->maxWork;
    cpu = options->cpu;
  }
  if (!cpu)
    cpu = std::getenv("FUSER_EMULATOR_CPU");
  o.cpu = cpu ? cpu : "";
  if (const char *trace = std::getenv("FUSER_EMULATOR_TRACE"))
    o.trace = o.trace || (*trace && std::strcmp(trace, "0") != 0);
  std::string error;
  void *ctx = mlir::fuser::createEmulatorContext(o, error);
  if (!ctx)
    return fuser_error_create(FUSER_ERROR_INVALID_ARGUMENT, "fuserEmulatorRuntimeCreate: %s",
                              error.c_str());
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
                              "fuserEmulatorGetTraffic: NULL %s",
                              !rt ? "runtime" : !loaded ? "loaded" : "stored");
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
