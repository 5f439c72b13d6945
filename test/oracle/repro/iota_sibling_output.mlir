// KNOWN_FAILURES "iota-sibling-output" (test/oracle/oracle/known_failures.py).
//
//   build/bin/fuserc run test/oracle/repro/iota_sibling_output.mlir --device cpu --random 1
//
// A fusion returning an iota directly next to an unrelated result of another
// shape does not compile:
//   error: 'fuser.neg' op is an output of a pointwise segment whose outputs differ in shape
// (the iota, which reads nothing, joins the neg's segment). PyTorch:
// torch.arange(5).expand(3, 5) and -x. Returning iota + y instead compiles.
func.func @iota_sibling_output(%x: tensor<4xf32>) -> (tensor<3x5xi64>, tensor<4xf32>) {
  %0 = fuser.iota dim = 1 : tensor<3x5xi64>
  %1 = fuser.neg %x : tensor<4xf32>
  return %0, %1 : tensor<3x5xi64>, tensor<4xf32>
}
