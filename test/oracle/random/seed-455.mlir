// Random fusion found by seed 455 of test/oracle/random_fusions.py, shrunk from 7 to 3 ops.
// failed: <api>: error: compilation failed
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-455.mlir -v
// graph: {"nodes":[{"dims":[[0],[1],[2]],"dtype":"i1","dyn":[true,false,true],"kind":"bool","op":"input","specials":false},{"args":[[0,0]],"name":"isnan","op":"ew"},{"args":[[1,0]],"op":"cast","to":"f32"},{"args":[[2,0]],"b":false,"eps":0.1,"nd":2,"op":"layer_norm","w":false}],"outputs":[[3,2]],"seed":455,"syms":[1,1,1]}
func.func @seed_455(%in0: tensor<?x1x?xi1>) -> (tensor<?x1x1xf32>) {
  %v1_0 = fuser.isnan %in0 : tensor<?x1x?xi1>
  %v2_0 = fuser.cast %v1_0 : tensor<?x1x?xi1> to tensor<?x1x?xf32>
  %v3_0, %v3_1, %v3_2 = fuser.layer_norm %v2_0 dims = [1, 2] eps = 1.000000e-01 : (tensor<?x1x?xf32>) -> (tensor<?x1x?xf32>, tensor<?x1x1xf32>, tensor<?x1x1xf32>)
  return %v3_2 : tensor<?x1x1xf32>
}
