//===- RandomEmitter.h - Philox4x32-10 random numbers in kernels -*- C++ -*-===//
//
// fuser.rand, fuser.randn and fuser.bernoulli on register values: element
// `i` of a result is a function of (seed, offset, i) alone (docs/random.md),
// so a value never depends on the kernel, its launch shape, its vector width
// or index width, or the device.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_FUSERTOGPU_RANDOMEMITTER_H
#define FUSER_CONVERSION_FUSERTOGPU_RANDOMEMITTER_H

#include "fuser/Math/MathExpansion.h"
#include "mlir/IR/Builders.h"

namespace mlir::fuser {

/// Philox4x32-10 of the counter words `c` and the key words `k` (i32 values,
/// scalars or vectors of one width): the four output words.
void emitPhilox(OpBuilder &b, Location loc, Value c[4], Value k[2], Value out[4]);

/// The value of random op `op` (fuser.rand, fuser.randn, fuser.bernoulli)
/// at the elements whose row-major indices in its result are `index` (an
/// integer scalar, or a vector of one index per lane), given `seed` and
/// `offset` (i64 scalars) and, for bernoulli, `p` at those elements.
/// `alignedLanes`: `index` is a vector of consecutive indices whose first is
/// a multiple of the lane count, so that whole Philox counters fall in it
/// and each is computed once (the values are the same either way).
Value emitRandom(OpBuilder &b, Location loc, Operation *op, Value index, Value seed,
                 Value offset, Value p, MathAccuracy math, bool alignedLanes = false);

} // namespace mlir::fuser

#endif
