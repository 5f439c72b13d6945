// Random fusion found by seed 1480 of test/oracle/random_fusions.py, shrunk from 11 to 3 ops.
// failed: result 0 (tensor<5x5xi32>, exact (within the samples where they differ)): 3 of 25 elements differ
// failed: at [0, 4]: got 950, want 0
// failed: at [2, 3]: got 1084, want 2
// failed: at [3, 0]: got 0, want 2
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-1480.mlir -v
// graph: {"nodes":[{"dims":[[0],[1]],"dtype":"f32","dyn":[false,false],"kind":"positive","op":"input","specials":false},{"args":[[0,0]],"eps":0.1,"nd":1,"op":"rms_norm","w":false},{"args":[[1,0]],"op":"permute","perm":[1,0]},{"args":[[2,0]],"op":"cast","to":"i32"}],"outputs":[[3,0]],"seed":1480,"syms":[5,5]}
func.func @seed_1480(%in0: tensor<5x5xf32>) -> (tensor<5x5xi32>) {
  %v1_0 = fuser.rms_norm %in0 dims = [1] eps = 1.000000e-01 : (tensor<5x5xf32>) -> tensor<5x5xf32>
  %v2_0 = fuser.permute %v1_0 perm = [1, 0] : tensor<5x5xf32> -> tensor<5x5xf32>
  %v3_0 = fuser.cast %v2_0 : tensor<5x5xf32> to tensor<5x5xi32>
  return %v3_0 : tensor<5x5xi32>
}
