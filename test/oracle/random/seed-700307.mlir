// Random fusion found by seed 700307 of test/oracle/random_fusions.py, shrunk from 5 to 2 ops.
// failed (the reference's fault: its samples modelled a relu(-0.0) of +0.0, fuser's before a fix, and fuser's -0.0 is PyTorch's): result 0 (tensor<1xf32>, 0 ulp + 2 x spread of 9 samples): 1 of 1 elements differ
// failed: at [0]: got -0.0 (0x80000000), want 0.0 (0x00000000) (0 ulp)
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-700307.mlir -v
// graph: {"nodes":[{"dims":[[0]],"dtype":"f32","dyn":[false],"kind":"normal","op":"input","specials":false},{"args":[[0,0]],"name":"trunc","op":"ew"},{"args":[[1,0]],"name":"relu","op":"ew"}],"outputs":[[2,0]],"seed":700307,"syms":[1]}
func.func @seed_700307(%in0: tensor<1xf32>) -> (tensor<1xf32>) {
  %v1_0 = fuser.trunc %in0 : tensor<1xf32>
  %v2_0 = fuser.relu %v1_0 : tensor<1xf32>
  return %v2_0 : tensor<1xf32>
}
