// KNOWN_FAILURES "relu-negative-zero" (test/oracle/oracle/known_failures.py).
//
//   build/bin/fuserc run test/oracle/repro/relu_negative_zero.mlir --device cpu --random 1
//
// Every element is relu(-0.0). PyTorch 1.13's CPU relu (clamp_min(x, 0),
// scalar and vectorized) returns -0.0, so PyTorch prints
//   relu_negative_zero.result0: f32[8] sum -0: -0 -0 -0 -0 -0 -0 -0 -0
// fuser prints 0 (+0.0) for every element.
func.func @relu_negative_zero(%x: tensor<8xf32>) -> tensor<8xf32> {
  %nz = fuser.constant -0.0 : tensor<f32>
  %a = fuser.abs %x : tensor<8xf32>
  %0 = fuser.mul %a, %nz : tensor<8xf32>, tensor<f32>
  %1 = fuser.relu %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}
