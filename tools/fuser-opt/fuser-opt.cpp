//===- fuser-opt.cpp - mlir-opt with fuser's dialect and passes -----------===//

#include "fuser/Emulator/Emulator.h"
#include "fuser/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::fuser::registerAllDialects(registry);
  mlir::fuser::registerAllPasses();
  mlir::fuser::registerEmulatorPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fuser optimizer driver\n", registry));
}
