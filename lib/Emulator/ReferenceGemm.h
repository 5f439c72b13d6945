//===- ReferenceGemm.h - the emulator's matrix multiply ---------*- C++ -*-===//
//
// The plan's GEMM instruction on the CPU (docs/matmul.md): what cuBLASLt
// computes on a GPU, with one fixed order of accumulation.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_EMULATOR_REFERENCEGEMM_H
#define FUSER_LIB_EMULATOR_REFERENCEGEMM_H

#include "fuser_runtime.h"

#include <cstdint>

namespace mlir::fuser::emu {

/// One operand's extent: the bytes from its address that the GEMM touches
/// (0 when it touches none: an empty product reads no A or B).
struct GemmReach {
  uint64_t a = 0, b = 0, d = 0, bias = 0, aux = 0;
};
GemmReach gemmReach(const fuser_gemm &g);

/// Whether `g` writes its bias buffer (a bias gradient, EPILOGUE_BGRAD_A or
/// _B) rather than reading it.
inline bool biasGradient(const fuser_gemm &g) {
  return g.epilogue & (FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_A | FUSER_BUNDLE_GEMM_EPILOGUE_BGRAD_B);
}

/// Computes `g` on host memory (the emulator's device addresses are host
/// addresses): for each batch and output element, the products in order of
/// the contracted index, each added by a fused multiply-add into one f32
/// accumulator (f64 for f64; operands rounded to TF32 first when the flag
/// allows it), then the bias, then the activation (relu; gelu with tanh's
/// approximation, in f64; its input also to the pre-activation buffer,
/// `aux`, rounded as D, with EPILOGUE_AUX), then one rounding to D's type (to nearest, ties
/// to even; NaN stays NaN). The same bits on every host, but for a gelu
/// within an f64 ulp of a rounding boundary (the C library's tanh). With a
/// bias gradient (BGRAD_A / BGRAD_B) the bias buffer gets each row of
/// opA(A) (each column of opB(B)) summed in order of the contracted index
/// in the accumulation type, rounded once to D's type.
void referenceGemm(const fuser_gemm &g);

} // namespace mlir::fuser::emu

#endif
