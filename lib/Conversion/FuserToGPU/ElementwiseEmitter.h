//===- ElementwiseEmitter.h - fuser ops on register values ------*- C++ -*-===//
#ifndef FUSER_CONVERSION_FUSERTOGPU_ELEMENTWISEEMITTER_H
#define FUSER_CONVERSION_FUSERTOGPU_ELEMENTWISEEMITTER_H

#include "fuser/Math/MathExpansion.h"
#include "mlir/IR/Builders.h"

namespace mlir::fuser {

/// Computes one elementwise fuser op (unary, binary, ternary, cast, compare)
/// on values held in registers: scalars, or vectors that all have the same
/// number of lanes, in the operands' element types. Half types compute in
/// f32 and round the result back, as eager PyTorch does op by op.
/// Transcendental functions use the MathBuilder tier `math` (docs/math.md).
/// `fp8Instruction`: use the chip's paired fp8 conversion (emitCast).
Value emitElementwise(OpBuilder &b, Location loc, Operation *op,
                      ValueRange operands,
                      MathAccuracy math = MathAccuracy::Fast,
                      bool fp8Instruction = false);

/// Converts register values between element types with fuser.cast's
/// semantics (saturating float-to-int, NaN to 0, `!= 0` to i1, fp8 through
/// f32; `saturate` clamps an fp8 result's overflow to the largest finite).
/// With `fp8Instruction`, a saturating cast to e4m3 or e5m2 uses the GPU's
/// paired conversion (same bits, far fewer instructions; sm_90 and later).
Value emitCast(OpBuilder &b, Location loc, Value v, Type toElement,
               bool saturate = false, bool fp8Instruction = false);

/// A constant of `type` (scalar or vector) filled with `value`.
Value emitSplat(OpBuilder &b, Location loc, Type type, double value);

/// Whether `op` is an elementwise op emitElementwise computes.
bool isElementwise(Operation *op);

} // namespace mlir::fuser

#endif
