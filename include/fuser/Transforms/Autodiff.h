//===- Autodiff.h - reverse-mode differentiation of fusions ----*- C++ -*-===//
//
// fuser-vjp and fuserDifferentiate: from a fusion @f, its vector-Jacobian
// product @f_vjp (or the pair @f_fwd / @f_bwd that saves residuals).
// docs/autodiff.md states the convention and the rules.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TRANSFORMS_AUTODIFF_H
#define FUSER_TRANSFORMS_AUTODIFF_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::fuser {

struct VjpOptions {
  /// The inputs to differentiate with respect to (argument positions); empty:
  /// every floating-point input.
  SmallVector<int64_t> wrt;
  /// The results whose cotangents the backward takes; empty: every
  /// floating-point result.
  SmallVector<int64_t> results;
  /// Build @f_fwd (the results, then the residuals the backward reads) and
  /// @f_bwd (the residuals, then the cotangents) instead of @f_vjp, which
  /// recomputes the forward from the inputs.
  bool residuals = false;
};

/// Adds the backward of `f` after it in its module: @<f>_vjp(inputs...,
/// cotangents...) -> (gradients...), or @<f>_fwd and @<f>_bwd. On failure
/// (an op without a rule, a bad option) emits a diagnostic naming it and
/// adds nothing.
LogicalResult differentiate(func::FuncOp f, const VjpOptions &options);

/// Replaces @<f>_vjp (built by `differentiate` and simplified) by
/// @<f>_fwd(inputs) -> (results..., residuals...) and @<f>_bwd(residuals...,
/// cotangents...) -> (gradients...): the residuals are the values of the
/// forward that the backward reads.
LogicalResult splitResiduals(func::FuncOp f, func::FuncOp vjp);

/// Whether fuser-vjp takes a value of element type `t` as differentiable:
/// f16, bf16, f32, f64 (fp8 is stored, not computed on: no gradient).
bool isDifferentiableType(Type t);

} // namespace mlir::fuser

#endif // FUSER_TRANSFORMS_AUTODIFF_H
