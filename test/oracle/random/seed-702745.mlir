// Random fusion found by seed 702745 of test/oracle/random_fusions.py, shrunk from 11 to 3 ops.
// failed (the reference's fault: it took the sign of a NaN an op made as torch 1.13's CPU gives it, -NaN for x86's 0/0 and for its cast of a NaN to bf16, where a GPU gives +NaN; either passes since): result 0 (tensor<1x1xi1>, exact (within the samples where they differ)): 1 of 1 elements differ
// failed: at [0, 0]: got False, want True
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-702745.mlir -v
// graph: {"nodes":[{"dims":[[0],[1],[2]],"dtype":"bf16","dyn":[false,false,false],"kind":"normal","op":"input","specials":false},{"args":[[0,0]],"axes":[1],"correction":1,"keepdim":true,"op":"var_mean"},{"args":[[1,0]],"axes":[2],"keepdim":false,"name":"min","op":"reduce"},{"args":[[2,0]],"name":"signbit","op":"ew"}],"outputs":[[3,0]],"seed":702745,"syms":[1,1,1]}
func.func @seed_702745(%in0: tensor<1x1x1xbf16>) -> (tensor<1x1xi1>) {
  %v1_0, %v1_1 = fuser.var_mean %in0 dims = [1] keepdim = true : tensor<1x1x1xbf16> -> tensor<1x1x1xbf16>, tensor<1x1x1xbf16>
  %v2_0 = fuser.min %v1_0 dims = [2] : tensor<1x1x1xbf16> -> tensor<1x1xbf16>
  %v3_0 = fuser.signbit %v2_0 : tensor<1x1xbf16>
  return %v3_0 : tensor<1x1xi1>
}
