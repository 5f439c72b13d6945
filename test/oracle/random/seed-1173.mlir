// Random fusion found by seed 1173 of test/oracle/random_fusions.py, shrunk from 9 to 1 ops.
// failed: fuserc: error: seed_1173: fusion 'seed_1173': instruction 29 (CEILDIV): division by zero (ceildiv(264, 0))
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-1173.mlir -v
// graph: {"nodes":[{"dims":[[0],[1],[2]],"dtype":"f32","dyn":[true,true,false],"kind":"normal","op":"input","specials":false},{"args":[[0,0]],"axes":[2,0],"keepdim":false,"name":"sum","op":"reduce"}],"outputs":[[1,0]],"seed":1173,"syms":[1,0,1]}
func.func @seed_1173(%in0: tensor<?x?x1xf32>) -> (tensor<?xf32>) {
  %v1_0 = fuser.sum %in0 dims = [2, 0] : tensor<?x?x1xf32> -> tensor<?xf32>
  return %v1_0 : tensor<?xf32>
}
