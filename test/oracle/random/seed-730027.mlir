// Random fusion found by seed 730027 of test/oracle/random_fusions.py, shrunk from 6 to 2 ops.
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-730027.mlir -v
// graph: {"nodes":[{"dims":[[],[]],"dtype":"f32","dyn":[false,false],"kind":"normal","op":"input","specials":false},{"args":[[0,0]],"axes":[0],"correction":1,"keepdim":true,"op":"var_mean"},{"args":[[1,1]],"axes":[1],"correction":0,"keepdim":true,"op":"var_mean"}],"outputs":[[2,1]],"seed":730027,"syms":[]}
func.func @seed_730027(%in0: tensor<1x1xf32>) -> (tensor<1x1xf32>) {
  %v1_0, %v1_1 = fuser.var_mean %in0 dims = [0] keepdim = true : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %v2_0, %v2_1 = fuser.var_mean %v1_1 dims = [1] correction = 0 keepdim = true : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  return %v2_1 : tensor<1x1xf32>
}
