//===- ComputeEstimate.h - an element's arithmetic, roughly -----*- C++ -*-===//
//
// How many instructions an element of a group costs, to tell a kernel that
// is memory-bound (almost every fusion) from one that is compute-bound many
// times over (a chain of expanded math functions). Such a kernel gains
// nothing from holding several values a thread: each one is one more copy
// of the whole arithmetic for LLVM to compile and more registers. The
// pointwise scheduler then takes one lane, a normalization one vector a
// thread (docs/schedulers.md, "Compute-bound elements").
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_FUSERTOGPU_COMPUTEESTIMATE_H
#define FUSER_CONVERSION_FUSERTOGPU_COMPUTEESTIMATE_H

#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::fuser {

/// From this estimate on, a pointwise kernel takes one lane. At 512
/// instructions an f32 element's arithmetic takes about 9 times its 8
/// bytes' time on an H200 (33 T lane instructions/s against 4.8 TB/s).
inline constexpr int64_t kComputeBoundInstructions = 512;
/// From this estimate on, a normalization holds one vector of its row a
/// thread (more threads a row). Lower than the pointwise bound: a thread
/// holds up to 32 values of a row, each a copy of the arithmetic (a
/// pointwise kernel's lanes are 4 or 8).
inline constexpr int64_t kComputeBoundRowInstructions = 256;
/// The most threads a row such a normalization takes (128 registers each).
inline constexpr int64_t kComputeBoundRowThreads = 512;

/// Instructions an element of `ops` takes, roughly: an expanded math
/// function (MathBuilder: a polynomial, its range reduction and special
/// cases) about 32, a float fmod (fmod, remainder, floor division:
/// ElementwiseEmitter's exactFmod, one exact step inline and the others
/// out of line, as sin's rare path) about 32 too, a division or square root
/// about 8, anything else 1. An estimate to tell a memory-bound kernel from
/// one compute-bound many times over, not a cost model.
int64_t estimatedInstructionsPerElement(ArrayRef<Operation *> ops);

} // namespace mlir::fuser

#endif // FUSER_CONVERSION_FUSERTOGPU_COMPUTEESTIMATE_H
