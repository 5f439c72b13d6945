// Random fusion found by seed 692237125 of test/oracle/random_fusions.py, shrunk from 18 to 3 ops.
// failed: result 0 (tensor<1x1xf32>, 0 ulp + 2 x spread of 9 samples): 1 of 1 elements differ
// failed: at [0, 0]: got 405068.21875 (0x48c5c987), want 405068.0 (0x48c5c980) (7 ulp)
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-692237125.mlir -v
// graph: {"nodes":[{"dims":[[0],[1],[2]],"dtype":"f32","dyn":[false,false,false],"kind":"positive","op":"input","specials":false},{"args":[[0,0]],"axes":[1],"keepdim":false,"name":"sum","op":"reduce"},{"dims":[[0],[2]],"dtype":"f32","dyn":[false,false],"op":"const","value":1.0},{"args":[[1,0],[2,0]],"name":"div_trunc","op":"ew"}],"outputs":[[3,0]],"seed":692237125,"syms":[1,1,1]}
func.func @seed_692237125(%in0: tensor<1x1x1xf32>) -> (tensor<1x1xf32>) {
  %v1_0 = fuser.sum %in0 dims = [1] : tensor<1x1x1xf32> -> tensor<1x1xf32>
  %v2_0 = fuser.constant 1.0 : tensor<1x1xf32>
  %v3_0 = fuser.div %v1_0, %v2_0 rounding_mode = trunc : tensor<1x1xf32>
  return %v3_0 : tensor<1x1xf32>
}
