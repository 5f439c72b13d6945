//===- RegisterPasses.cpp - the emulator's passes in fuser-opt ------------===//
//
// The emulator runs its passes itself (Emulator.cpp); fuser-opt registers
// them too, so that lit tests can run each one alone.
//
//===----------------------------------------------------------------------===//

#include "fuser/Emulator/Emulator.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

void mlir::fuser::registerEmulatorPasses() {
  PassRegistration<Pass>([] { return createLowerKernelsToHostPass(); });
  PassRegistration<Pass>([] { return createExpandHalfFloatsPass(); });
  PassRegistration<Pass>([] { return createValidateEmulationModulePass(); });
}
