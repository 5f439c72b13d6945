// Random fusion found by seed 149 of test/oracle/random_fusions.py, shrunk from 4 to 1 ops.
// failed: result 0 (tensor<1xf32>, 1 ulp + 2 x spread of 8 samples): 1 of 1 elements differ
// failed: at [0]: got nan (0xffc00000), want 0.0 (0x00000000) (2143289344 ulp)
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-149.mlir -v
// graph: {"nodes":[{"dims":[[0]],"dtype":"f32","dyn":[false],"kind":"normal","op":"input","specials":false},{"args":[[0,0]],"b":false,"eps":1e-06,"nd":1,"op":"layer_norm","w":false}],"outputs":[[1,1]],"seed":149,"syms":[0]}
func.func @seed_149(%in0: tensor<0xf32>) -> (tensor<1xf32>) {
  %v1_0, %v1_1, %v1_2 = fuser.layer_norm %in0 dims = [0] eps = 1.000000e-06 : (tensor<0xf32>) -> (tensor<0xf32>, tensor<1xf32>, tensor<1xf32>)
  return %v1_1 : tensor<1xf32>
}
