//===- Float8.h - f32 <-> fp8 conversions as integer arithmetic -*- C++ -*-===//
//
// fuser converts to and from the fp8 formats (f8E4M3FN, f8E5M2) itself, in
// integer arithmetic on the bits, so that the GPU kernels and their CPU
// emulation compute the same bits on every machine: LLVM has no fp8 type,
// and the host CPU has no fp8 instructions. The one exception: saturating
// casts on sm_90 and later use the GPU's paired conversion, whose bits are
// the same (and the emulator computes them with this arithmetic). See
// docs/fp8.md for the formats and the rounding.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_MATH_FLOAT8_H
#define FUSER_MATH_FLOAT8_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class OpBuilder;
class Location;
class Value;
class Type;
class Operation;

namespace fuser {

/// Rounds an f32 scalar or vector to the fp8 element type `to` (f8E4M3FN or
/// f8E5M2), to nearest even, as PyTorch's `.to(torch.float8_*)` does:
/// subnormals kept; a magnitude that rounds past the largest finite value
/// (infinities included) becomes NaN in f8E4M3FN and infinity in f8E5M2, or,
/// with `saturate`, the largest finite value; NaN becomes the format's NaN
/// (0x7f), its sign kept. `to` f8E8M0FNU (MX scales): PyTorch's rounding of
/// the exponent (docs/fp8.md), the sign dropped, NaN and infinities 0xff.
/// Straight-line code (selects, no branches).
Value emitTruncToFloat8(OpBuilder &b, Location loc, Value f32Value, Type to,
                        bool saturate);

/// The same conversion as emitTruncToFloat8(..., saturate = true) to
/// f8E4M3FN or f8E5M2, through the hardware's paired conversion of sm_89 and
/// later (`nvvm.convert.f32x2.to.f8x2`, PTX `cvt.rn.satfinite.e4m3x2.f32`
/// and its e5m2 twin): one instruction converts two elements of a vector
/// (a scalar pairs with 0). The instruction turns every NaN into 0x7f; the
/// sign is put back, so that the bits are emitTruncToFloat8's on every
/// input. fuser-emit-kernels emits it for sm_90 and later (sm_89 has the
/// instruction, but LLVM 22 selects it there only from PTX 8.1, and fuser
/// targets 7.8 on sm_89); the CPU emulator replaces it with
/// expandFloat8PairConversions.
Value emitSaturatingTruncToFloat8Pairs(OpBuilder &b, Location loc, Value f32Value,
                                       Type to);

/// Replaces every `nvvm.convert.f32x2.to.f8x2` under `root` with integer
/// arithmetic computing the instruction's bits (rounding to nearest even,
/// saturating to the largest finite value, NaN 0x7f), as
/// emitTruncToFloat8 does. Fails, with a diagnostic, on a form fuser does
/// not emit (another rounding, no saturation, relu).
LogicalResult expandFloat8PairConversions(Operation *root);

/// Widens an fp8 scalar or vector to f32, exactly (NaN: the canonical quiet
/// NaN with the sign kept; e8m0: 2^(code - 127), 0xff PyTorch's 0x7f800001).
Value emitExtFromFloat8(OpBuilder &b, Location loc, Value f8Value);

} // namespace fuser
} // namespace mlir

#endif // FUSER_MATH_FLOAT8_H
