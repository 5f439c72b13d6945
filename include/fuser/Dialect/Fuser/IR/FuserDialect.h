//===- FuserDialect.h - fuser dialect ---------------------------*- C++ -*-===//
#ifndef FUSER_DIALECT_FUSER_IR_FUSERDIALECT_H
#define FUSER_DIALECT_FUSER_IR_FUSERDIALECT_H

#include "mlir/IR/Dialect.h"

#include "fuser/Dialect/Fuser/IR/FuserOpsDialect.h.inc"

#endif // FUSER_DIALECT_FUSER_IR_FUSERDIALECT_H
