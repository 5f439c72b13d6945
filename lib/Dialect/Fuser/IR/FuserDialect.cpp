//===- FuserDialect.cpp - fuser dialect registration ----------------------===//

#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

#include "fuser/Dialect/Fuser/IR/FuserOpsDialect.cpp.inc"
#include "fuser/Dialect/Fuser/IR/FuserOpsEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserOpsAttributes.cpp.inc"

void FuserDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fuser/Dialect/Fuser/IR/FuserOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fuser/Dialect/Fuser/IR/FuserOpsAttributes.cpp.inc"
      >();
}

Operation *FuserDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                             Type type, Location loc) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return nullptr;
  // Folders return the scalar that fills the splat.
  auto scalar = dyn_cast<TypedAttr>(value);
  if (auto dense = dyn_cast<SplatElementsAttr>(value))
    scalar = dense.getSplatValue<TypedAttr>();
  if (!scalar || scalar.getType() != tensorType.getElementType())
    return nullptr;
  return ConstantOp::create(builder, loc, tensorType, scalar);
}
