// Random fusion found by seed 695318108 of test/oracle/random_fusions.py, shrunk from 19 to 1 ops.
// failed: result 0 (tensor<2x2x32xf16>, 1 ulp + 2 x spread of 9 samples): 1 of 128 elements differ
// failed: at [0, 0, 5]: got nan (0xfe00), want -inf (0xfc00) (512 ulp)
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-695318108.mlir -v
// graph: {"nodes":[{"dims":[[0],[1],[2]],"dtype":"f16","dyn":[false,false,false],"kind":"normal","op":"input","specials":true},{"dims":[[2]],"dtype":"f16","dyn":[false],"kind":"positive","op":"input","specials":false},{"args":[[0,0],[1,0]],"eps":1e-05,"nd":1,"op":"rms_norm","w":true}],"outputs":[[2,0]],"seed":695318108,"syms":[2,2,32]}
func.func @seed_695318108(%in0: tensor<2x2x32xf16>, %in1: tensor<32xf16>) -> (tensor<2x2x32xf16>) {
  %v2_0 = fuser.rms_norm %in0 weight %in1 dims = [2] eps = 1.000000e-05 : (tensor<2x2x32xf16>, tensor<32xf16>) -> tensor<2x2x32xf16>
  return %v2_0 : tensor<2x2x32xf16>
}
