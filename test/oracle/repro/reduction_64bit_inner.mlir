// KNOWN_FAILURES "reduction-64bit-inner" (test/oracle/oracle/known_failures.py).
//
//   build/bin/fuserc run test/oracle/repro/reduction_64bit_inner.mlir --device cpu --random 1
//
// An inner reduction (one row per block, warp shuffles) of f64 or i64 does
// not compile, for the GPU or the emulator (fuserc compile fails the same):
//   error: 'arith.bitcast' op requires the same shape for all operands and results
// PyTorch: x.sum(dim=1). Outer reductions (dims = [0]) of f64 compile.
func.func @reduction_64bit_inner(%x: tensor<4x100xf64>) -> tensor<4xf64> {
  %0 = fuser.sum %x dims = [1] : tensor<4x100xf64> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
