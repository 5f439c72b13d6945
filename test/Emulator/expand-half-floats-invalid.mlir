// RUN: fuser-opt %s --split-input-file --fuser-expand-half-floats --verify-diagnostics

// Arithmetic on halves must have been moved to f32 before (upstream's
// arith-emulate-unsupported-floats, in the emulator's pipeline).
func.func @add_f16(%x: f16, %y: f16) -> f16 {
  // expected-error @+1 {{the CPU emulation computes f16 and bf16 in f32; 'arith.addf' on a half type would compute differently on different host CPUs}}
  %0 = arith.addf %x, %y : f16
  return %0 : f16
}

// -----

// fma rounds once: in f32 it could round twice, so it is not widened.
func.func @fma_bf16(%x: bf16, %y: bf16, %z: bf16) -> bf16 {
  // expected-error @+1 {{'llvm.intr.fma' on a half type}}
  %0 = llvm.intr.fma(%x, %y, %z) : (bf16, bf16, bf16) -> bf16
  return %0 : bf16
}
