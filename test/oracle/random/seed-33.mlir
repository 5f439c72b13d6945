// Random fusion found by seed 33 of test/oracle/random_fusions.py, shrunk from 4 to 1 ops.
// failed: fuserc: error: seed_33: fusion 'seed_33': loading module 'seed_33_kernels.mlir': emulator: module 'seed_33_kernels.mlir' is not a kernel module fuser would emit: seed_33_kernels.mlir:133:15: error: 'vector.reduction' is not an op fuser emits in kernels: the CPU emulation refuses to compile it
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-33.mlir -v
// graph: {"nodes":[{"dims":[[1],[0]],"dtype":"f32","dyn":[false,false],"kind":"normal","op":"input","specials":false},{"args":[[0,0]],"name":"sin","op":"ew"}],"outputs":[[1,0]],"seed":33,"syms":[1,2]}
func.func @seed_33(%in0: tensor<2x1xf32>) -> (tensor<2x1xf32>) {
  %v1_0 = fuser.sin %in0 : tensor<2x1xf32>
  return %v1_0 : tensor<2x1xf32>
}
