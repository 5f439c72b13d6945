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

namespace mlir::fuser {
/// The fp8 element types fuser accepts (docs/fp8.md): they are stored and
/// converted, never computed on.
inline bool isFloat8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float8E8M0FNUType>(t);
}

/// The rule fuser.collective and fuser.communicate share: `kind` is
/// all_reduce, all_gather, reduce_scatter or slice; `reduction` is given
/// exactly for all_reduce and reduce_scatter and is one the communication
/// library runs on `element` (docs/sharding.md); grid axes are distinct,
/// ascending and at most 8 (the bundle's group is a byte of axes).
LogicalResult verifyCollective(Operation *op, StringRef kind,
                               std::optional<StringRef> reduction, Type element,
                               ArrayRef<int64_t> gridAxes);

/// A number as a value of the float type `to`, as fuser's casts and
/// PyTorch convert it: to f16 or bf16 from f64 or an integer through f32
/// (c10::Half and c10::BFloat16 are built from a float, so that can round
/// twice), otherwise rounded once to nearest even. Constant folds, the
/// constant parser and fuser.size's fold all use these, so a constant
/// has the value the same conversion gives in a kernel.
llvm::APFloat convertFloatAsTorch(llvm::APFloat v, FloatType to);
llvm::APFloat convertIntegerAsTorch(const llvm::APInt &v, bool isSigned, FloatType to);

/// Whether a view of static `shape` and `strides` (fuser.strides) reaches
/// 2^63 elements or more from its start: 1 + sum((size - 1) * stride)
/// overflows 63 bits. A view of no elements reaches none. The verifier of
/// fuser.strides and the C API's fuserBuilderAddStridedInput refuse it.
bool viewSpanOverflows(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides);

/// Whether `op` works along a dim of a rank-0 input (a reduction, var_mean,
/// a scan, softmax or log_softmax over PyTorch's dim 0 of a scalar): the
/// verifiers take it, fuser-lift-rank-zero rewrites it as the op of a [1]
/// tensor, and the passes after fuser-decompose refuse it.
bool isAlongDimOfScalar(Operation *op);
} // namespace mlir::fuser

#define GET_OP_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserOps.h.inc"

#endif // FUSER_DIALECT_FUSER_IR_FUSEROPS_H
