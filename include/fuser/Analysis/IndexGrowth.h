//===- IndexGrowth.h - values whose read index grows past a bound -*- C++ -*-===//
//
// A kernel computes a value at the index its reader needs, composed through
// every view between them (IndexMath.h: operandIndexOf). Most fusions
// compose a few views into a small expression. A chain of permutes and
// reshapes does not: each reshape's index is a floordiv and a mod of the
// index before it, so the expression is a DAG whose tree doubles (or grows
// by the rank) with each pair, and MLIR's affine simplification walks the
// tree, not the DAG (23 x.t().reshape() pairs took 19 s to compile). A
// value read at two indices by each step (its own and through a view, or
// the even and odd halves of cat(y[0::2], y[1::2])) is needed at twice as
// many indices per step: the kernel computes the chain's head 2^n times.
//
// This analysis follows the indices from every value's readers back to the
// fusion's arguments, as one kernel would, and names the values whose index
// set grows past the bounds below: the segmenter writes each of them to
// memory (no kernel computes it in its reader, nor recomputes it), so the
// indices start over there and compile time stays linear in the chain.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_ANALYSIS_INDEXGROWTH_H
#define FUSER_ANALYSIS_INDEXGROWTH_H

#include "fuser/Analysis/ShapeAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"

#include <string>

namespace mlir::fuser {

/// The most nodes (counted as a tree: what a recursive walk of it visits)
/// of an index expression at which a kernel computes a value. No example
/// or test fusion reaches it; 9 x.t().reshape() pairs of a 4x2 tensor do
/// (view-chain.test), and such a kernel compiles in well under a second.
inline constexpr uint64_t kMaxIndexTreeNodes = 4096;

/// The most distinct indices at which one value is computed by the kernels
/// that read it (a 3x3 stencil of slices reads 9; 8 levels of cat(y[0::2],
/// y[1::2]), 256 indices, made a 9 MB bundle in 2 s). A value split into
/// more than this many slices is written once and read back by them.
inline constexpr unsigned kMaxIndicesPerValue = 32;

/// The values of `fusion` that are written to memory because their read
/// index grew past kMaxIndexTreeNodes or kMaxIndicesPerValue, in program
/// order, each with the reason (for --fuser-segment=dump). Empty for
/// almost every fusion.
llvm::MapVector<Value, std::string> valuesWithIndexGrowth(func::FuncOp fusion,
                                                         const ShapeAnalysis &shapes);

} // namespace mlir::fuser

#endif
