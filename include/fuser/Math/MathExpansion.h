//===- MathExpansion.h - Elementary functions as plain arithmetic -*- C++ -*-===//
//
// fuser expands every transcendental function itself, into IR that both of
// its backends (NVPTX for the GPU, the host JIT for the CPU emulation of the
// grid) lower natively and identically: no libdevice, no libm, no tables in
// memory, no control flow.  See docs/math.md for the algorithms, the measured
// accuracy and why the library exists.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_MATH_MATHEXPANSION_H
#define FUSER_MATH_MATHEXPANSION_H

namespace mlir {
class OpBuilder;
class Location;
class Value;
class Type;

namespace fuser {

/// Builds IR that computes elementary functions from arith ops and the LLVM
/// intrinsics both NVPTX and x86/aarch64 lower natively (only `llvm.intr.fma`
/// and `llvm.intr.trunc`: the other rounding and sign intrinsics are rejected
/// by upstream convert-gpu-to-nvvm, see docs/math.md).  Operands are f32 or
/// f64 scalars or vectors of them (vector<4xf32> etc.); results have the
/// operand's type.  The emitted code is straight-line (selects only), uses no
/// memory and no calls, and has no fast-math flags.
///
/// Accuracy: at most 2 ulp (most functions under 1 ulp) over the whole range
/// of the type, subnormals included; special values follow C99 Annex F (the
/// semantics of PyTorch's CPU kernels).  A NaN operand is returned as it is
/// (bit for bit); a NaN the function creates (log(-1), sin(inf)...) is the
/// canonical quiet NaN, so that CPU and GPU give the same bits.
class MathBuilder {
public:
  MathBuilder(OpBuilder &b, Location loc);

  /// Whether `type` is an operand type the builder accepts.
  static bool isSupportedType(Type type);

  Value exp(Value x);
  Value exp2(Value x);
  Value expm1(Value x);
  Value log(Value x);
  Value log2(Value x);
  Value log1p(Value x);
  Value sin(Value x);
  Value cos(Value x);
  Value tanh(Value x);
  Value erf(Value x);
  /// atan2(y, x) with every signed-zero and infinity case of C99 F.9.1.4.
  Value atan2(Value y, Value x);
  /// pow(x, y) with every special case of C99 F.9.4.4.
  Value pow(Value x, Value y);
  /// 1 / (1 + exp(-x)), accurate and without overflow for large |x|.
  Value sigmoid(Value x);

private:
  OpBuilder &builder;
  const void *location; // Location::getAsOpaquePointer()
};

} // namespace fuser
} // namespace mlir

#endif // FUSER_MATH_MATHEXPANSION_H
