// Random fusion found by seed 154 of test/oracle/random_fusions.py, shrunk from 5 to 1 ops.
// failed: result 0 (tensor<1x1xf32>, 1 ulp + 2 x spread of 8 samples): 1 of 1 elements differ
// failed: at [0, 0]: got nan (0xffc00000), want inf (0x7f800000) (4282384384 ulp)
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-154.mlir -v
// graph: {"nodes":[{"dims":[[0],[1]],"dtype":"f32","dyn":[false,false],"kind":"wide","op":"input","specials":false},{"args":[[0,0]],"axes":[0],"correction":1,"keepdim":true,"op":"var_mean"}],"outputs":[[1,0]],"seed":154,"syms":[2,1]}
func.func @seed_154(%in0: tensor<2x1xf32>) -> (tensor<1x1xf32>) {
  %v1_0, %v1_1 = fuser.var_mean %in0 dims = [0] keepdim = true : tensor<2x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  return %v1_0 : tensor<1x1xf32>
}
