/*===- Autodiff.h - fuser's C API: backward fusions from forward ones -*- C -*-===*/
/*                                                                            */
/* The derivative of a fusion in the IR: fuserDifferentiate adds @f_vjp to a  */
/* module, as the fuser-vjp pass does (docs/autodiff.md).                     */
/*                                                                            */
/*===----------------------------------------------------------------------===*/

#ifndef FUSER_C_AUTODIFF_H
#define FUSER_C_AUTODIFF_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Adds `@<fusion>_vjp(inputs..., cotangents...) -> (gradients...)` to
/// `module`, after the fusion named `fusion`, which stays as it is: one
/// cotangent argument per differentiated result (its type), one gradient
/// result per differentiated input (its type), in order, named
/// `grad_<name>`. `wrt` (`numWrt` positions of inputs) and `results`
/// (`numResults` positions of results) choose them; NULL or 0 takes every
/// f16, bf16, f32 and f64 one. The derived fusion recomputes the forward
/// from the inputs and is simplified (canonicalize, cse); compile it with
/// fuserCompile like any fusion.
///
/// With `residuals`, adds `@<fusion>_fwd(inputs...) -> (results...,
/// residuals...)` and `@<fusion>_bwd(saved inputs..., residuals...,
/// cotangents...) -> (gradients...)` instead: the forward also returns the
/// values the backward reads (reductions' and composites' results; the
/// elementwise work is recomputed), and the backward takes the inputs it
/// reads again under their names, a residual that is a result under the
/// result's name (docs/autodiff.md, "Residuals").
///
/// Returns false when the fusion does not exist, a position is out of range
/// or not floating point, `@<fusion>_vjp` (or `_fwd`, `_bwd`) exists already, or an op has no
/// gradient rule: each diagnostic then goes to `diagnostics` (may be NULL)
/// as "file:line:col: error: message\n", naming the op, and the module is
/// unchanged.
MLIR_CAPI_EXPORTED bool fuserDifferentiate(MlirModule module, MlirStringRef fusion,
                                           const int64_t *wrt, intptr_t numWrt,
                                           const int64_t *results, intptr_t numResults,
                                           bool residuals, MlirStringCallback diagnostics,
                                           void *userData);

#ifdef __cplusplus
}
#endif

#endif /* FUSER_C_AUTODIFF_H */
