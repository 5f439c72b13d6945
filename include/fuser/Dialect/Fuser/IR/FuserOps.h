//===- FuserOps.h - fuser dialect ops ---------------------------*- C++ -*-===//
#ifndef FUSER_DIALECT_FUSER_IR_FUSEROPS_H
#define FUSER_DIALECT_FUSER_IR_FUSEROPS_H

#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fuser/Dialect/Fuser/IR/FuserOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserOpsAttributes.h.inc"

#define GET_OP_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserOps.h.inc"

#endif // FUSER_DIALECT_FUSER_IR_FUSEROPS_H
