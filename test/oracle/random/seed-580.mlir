// Random fusion found by seed 580 of test/oracle/random_fusions.py, shrunk from 8 to 1 ops.
// failed: fuserc died of SIGFPE: the outer normalization plan divided by its block height, 0 for a reduced dim of 0 positions
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-580.mlir -v
// graph: {"nodes":[{"dims":[[1],[2],[3],[0]],"dtype":"f32","dyn":[false,false,false,false],"kind":"normal","op":"input","specials":false},{"args":[[0,0]],"dim":0,"op":"softmax"}],"outputs":[[1,0]],"seed":580,"syms":[1,0,1,0]}
func.func @seed_580(%in0: tensor<0x1x0x1xf32>) -> (tensor<0x1x0x1xf32>) {
  %v1_0 = fuser.softmax %in0 dim = 0 : tensor<0x1x0x1xf32>
  return %v1_0 : tensor<0x1x0x1xf32>
}
