// Random fusion found by seed 135 of test/oracle/random_fusions.py, shrunk from 11 to 3 ops.
// failed: fuserc: error: seed_135: fusion 'seed_135': launch 0 'seed_135_0': emulator: kernel 'seed_135_0' loaded 4 bytes at element -8 (byte -32) of parameter 0, outside the 28 bytes from it to the end of its allocation, thread (0, 0, 0) of block (0, 0, 0)
// Cause: the transpose scheduler staged the padded input's tiles whole, reading
// before the buffer where the pad, not the input, supplies the element (found
// by the emulator's bounds checks); guarded accesses are no longer staged.
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-135.mlir -v
// graph: {"nodes":[{"dims":[[0],[1]],"dtype":"f32","dyn":[false,false],"kind":"normal","op":"input","specials":false},{"dims":[],"dtype":"f32","dyn":[],"op":"const","value":2.0},{"args":[[0,0],[1,0]],"dims":[[2],[3]],"dyn":[false,false],"high":[0,0],"low":[1,1],"op":"pad"},{"args":[[2,0]],"op":"permute","perm":[1,0]}],"outputs":[[3,0]],"seed":135,"syms":[1,7,2,8]}
func.func @seed_135(%in0: tensor<1x7xf32>) -> (tensor<8x2xf32>) {
  %v1_0 = fuser.constant 2.0 : tensor<f32>
  %v2_0 = fuser.pad %in0, %v1_0 low = [1, 1] high = [0, 0] : tensor<1x7xf32>, tensor<f32> -> tensor<2x8xf32>
  %v3_0 = fuser.permute %v2_0 perm = [1, 0] : tensor<2x8xf32> -> tensor<8x2xf32>
  return %v3_0 : tensor<8x2xf32>
}
