// Random fusion found by seed 1402 of test/oracle/random_fusions.py, shrunk from 9 to 2 ops.
// failed: seed_1402.mlir:1:1: error: 'scf.if' op along control flow edge from Operation scf.yield to parent: successor operand type #0 'vector<8xbf16>' should match successor input type #0 'bf16'
// failed: seed_1402.mlir:1:1: note: region branch point
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-1402.mlir -v
// graph: {"nodes":[{"dims":[[0],[1],[2],[3]],"dtype":"bf16","dyn":[false,false,false,false],"kind":"normal","op":"input","specials":false},{"args":[[0,0]],"axes":[1],"correction":0,"keepdim":true,"op":"var_mean"},{"args":[[1,1],[1,1]],"dim":3,"dims":[[0],[],[2],[4]],"dyn":[false,false,false,false],"op":"concat"}],"outputs":[[2,0]],"seed":1402,"syms":[1,2,1,0,0]}
func.func @seed_1402(%in0: tensor<1x2x1x0xbf16>) -> (tensor<1x1x1x0xbf16>) {
  %v1_0, %v1_1 = fuser.var_mean %in0 dims = [1] correction = 0 keepdim = true : tensor<1x2x1x0xbf16> -> tensor<1x1x1x0xbf16>, tensor<1x1x1x0xbf16>
  %v2_0 = fuser.concat %v1_1, %v1_1 dim = 3 : tensor<1x1x1x0xbf16>, tensor<1x1x1x0xbf16> -> tensor<1x1x1x0xbf16>
  return %v2_0 : tensor<1x1x1x0xbf16>
}
