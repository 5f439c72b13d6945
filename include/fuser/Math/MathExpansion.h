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

namespace llvm {
class StringRef;
} // namespace llvm

namespace mlir {
class OpBuilder;
class Location;
class Value;
class Type;

namespace fuser {

/// Accuracy tier of the expansions (docs/math.md, "Two tiers").
enum class MathAccuracy {
  /// f32 (and the halves, which compute in f32): at most 2 ulp over every
  /// input, single-precision polynomials, about a third of the
  /// instructions of Precise.  f64 has no fast tier: it gets Precise.
  Fast,
  /// Under 1 ulp for f32 and f64, double-word arithmetic.
  Precise,
};

/// Parses "fast" / "precise"; false for anything else.
bool parseMathAccuracy(llvm::StringRef name, MathAccuracy &out);
/// "fast" or "precise".
const char *stringifyMathAccuracy(MathAccuracy accuracy);

/// Builds IR that computes elementary functions from arith ops and the LLVM
/// intrinsics both NVPTX and x86/aarch64 lower natively (only `llvm.intr.fma`
/// and `llvm.intr.trunc`: the other rounding and sign intrinsics are rejected
/// by upstream convert-gpu-to-nvvm, see docs/math.md).  Operands are f32 or
/// f64 scalars or vectors of them (vector<4xf32> etc.); results have the
/// operand's type.  The emitted code is straight-line (selects only), uses no
/// memory, and has no fast-math flags.
///
/// Accuracy over the whole range of the type, subnormals included: at most 2
/// ulp for the Fast tier (f32 operands), under 1 ulp for the Precise tier
/// (and for every f64 operand); special values follow C99 Annex F (the
/// semantics of PyTorch's CPU kernels) in both tiers.  A NaN operand is
/// returned as it is (bit for bit); a NaN the function creates (log(-1),
/// sin(inf)...) is the canonical quiet NaN, so that CPU and GPU give the
/// same bits.
///
/// The Fast tier's sin and cos contain one `scf.if` (with a
/// `vector.reduction <or>` of its condition for vector operands), taken only
/// when an operand is beyond 105615 in magnitude, infinite or NaN; every
/// other expansion is straight-line code. The branch calls a private
/// `func.func` (`__fuser_sin_rare_f32(f32) -> f32`, LLVM linkage
/// linkonce_odr; a vector calls it lane by lane),
/// made once in the symbol table around the insertion point (a kernel's
/// gpu.module), so that a fusion of many sins carries the rare path once;
/// outside a function of a symbol table the path is inlined instead.
class MathBuilder {
public:
  MathBuilder(OpBuilder &b, Location loc,
              MathAccuracy accuracy = MathAccuracy::Fast);

  MathAccuracy getAccuracy() const { return accuracy; }
  void setAccuracy(MathAccuracy a) { accuracy = a; }

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
  /// log10 in both tiers by the Precise tier's log (under 1 ulp).
  Value log10(Value x);

  /// Functions composed from the ones above (Derived.cpp; sqrt by Newton
  /// steps, not the intrinsic): their accuracy is that of the composition,
  /// measured in docs/math.md (at most about 3 ulp), not the tier's bound. Special values follow C99 Annex F; a NaN
  /// operand is returned as it is, a NaN they create is the canonical one.
  Value tan(Value x);
  Value asin(Value x);
  Value acos(Value x);
  Value atan(Value x);
  Value sinh(Value x);
  Value cosh(Value x);
  Value asinh(Value x);
  Value acosh(Value x);
  Value atanh(Value x);

private:
  OpBuilder &builder;
  const void *location; // Location::getAsOpaquePointer()
  MathAccuracy accuracy;

  /// Whether `x` gets the Fast tier (f32 element type and accuracy Fast).
  bool fast(Value x) const;
};

} // namespace fuser
} // namespace mlir

#endif // FUSER_MATH_MATHEXPANSION_H
