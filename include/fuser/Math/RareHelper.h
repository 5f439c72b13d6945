//===- RareHelper.h - Rarely taken code as a helper beside the kernels -*- C++ -*-===//
//
// A few expansions have a common path of a handful of instructions and a
// rare one of hundreds: sin's Payne-Hanek reduction (TrigErf.cpp), an exact
// fmod's long quotients (ElementwiseEmitter.cpp). Inlined at every use and
// every vector lane, the rare path was most of LLVM's work. Instead it is a
// scalar function beside the kernels, made once per module, that a uniform
// branch calls lane by lane. This is that scaffolding, in one place, so the
// function's linkage and the lane-by-lane call are the same for every user.
// docs/math.md ("The rare path of sin and cos, out of line") says why.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_MATH_RAREHELPER_H
#define FUSER_MATH_RAREHELPER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir {
namespace fuser {

/// The helper `name` of scalar type `type` in the nearest symbol table around
/// the builder's insertion point (a kernel's gpu.module), made on first use:
/// private, linkonce_odr, its body built by `buildBody` (the builder at the
/// start of the entry block, whose arguments are the parameters; it returns
/// the results). Null where the insertion point is not inside a function of
/// a symbol table (then the caller inlines the path instead).
///
/// linkonce_odr rather than internal: LLVM drops the function where every
/// call was inlined, as it would an internal one, but it is not local. For
/// a local function NVPTX scans every use of it at every call it lowers (to
/// raise the parameters' alignment), which is quadratic in the calls: 11%
/// of a 1000-sin fusion's compile.
func::FuncOp getOrCreateRareHelper(
    OpBuilder &b, Location loc, llvm::StringRef name, FunctionType type,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Block &entry)> buildBody);

/// `helper` (scalar parameters, one scalar result) applied to `args`: once
/// where they are scalars, lane by lane where they are vectors of one shape
/// (the helper's registers, not a whole vector's, count against the
/// kernel's). The result has the type of the first argument.
Value callLaneByLane(OpBuilder &b, Location loc, func::FuncOp helper, ValueRange args);

} // namespace fuser
} // namespace mlir

#endif // FUSER_MATH_RAREHELPER_H
