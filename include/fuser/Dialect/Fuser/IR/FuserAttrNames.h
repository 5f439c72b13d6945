//===- FuserAttrNames.h - names of fuser's discardable attributes -*- C++ -*-===//
//
// One definition of each attribute name the passes, the C API and the bundle
// writer put on or read from functions (fuser-segment's own are in
// fuser/Transforms/Segments.h).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSERATTRNAMES_H
#define FUSER_DIALECT_FUSER_IR_FUSERATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::fuser {

/// On a fusion's (or plan's) argument or result: its name in the bundle and
/// in messages, an identifier.
inline constexpr llvm::StringLiteral kNameAttr = "fuser.name";
/// On a launch plan (a func.func fuser-emit-kernels made from a fusion).
inline constexpr llvm::StringLiteral kPlanAttr = "fuser.plan";
/// On a launch plan: how many of its memref arguments are the fusion's
/// arguments (the rest are its results).
inline constexpr llvm::StringLiteral kNumArgsAttr = "fuser.num_args";
} // namespace mlir::fuser

#endif
