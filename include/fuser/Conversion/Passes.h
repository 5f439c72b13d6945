//===- Passes.h - fuser conversion passes -----------------------*- C++ -*-===//
#ifndef FUSER_CONVERSION_PASSES_H
#define FUSER_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

#include "fuser/Dialect/Fuser/IR/FuserDialect.h"

namespace mlir {
class ModuleOp;
namespace fuser {

#define GEN_PASS_DECL
#include "fuser/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fuser/Conversion/Passes.h.inc"

} // namespace fuser
} // namespace mlir

#endif // FUSER_CONVERSION_PASSES_H
