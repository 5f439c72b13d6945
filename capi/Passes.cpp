//===- Passes.cpp - fuser's passes through the C API (generated) ----------===//

#include "fuser-c/Passes.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Transforms/Passes.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::fuser;

#include "fuser-c/TransformsPasses.capi.cpp.inc"
#include "fuser-c/ConversionPasses.capi.cpp.inc"
