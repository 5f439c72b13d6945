//===- VjpRules.h - the backward of each fuser op (private) ----*- C++ -*-===//
#ifndef FUSER_LIB_TRANSFORMS_VJPRULES_H
#define FUSER_LIB_TRANSFORMS_VJPRULES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

namespace mlir::fuser {

/// Appends to `b`'s insertion point the ops that compute the gradients of
/// `op`'s operands from the gradients of its results (`resultGrads`, one per
/// result; null: zero). `operandGrads` gets one entry per operand: null where
/// the gradient is zero or the operand is not differentiable, else a value of
/// the operand's element type and shape. An op without a rule, or a case a
/// rule cannot express, is an error at the op naming it.
LogicalResult buildOperandGradients(OpBuilder &b, Operation *op, ArrayRef<Value> resultGrads,
                                    SmallVectorImpl<Value> &operandGrads);

} // namespace mlir::fuser

#endif // FUSER_LIB_TRANSFORMS_VJPRULES_H
