// Random fusion found by seed 692237533 of test/oracle/random_fusions.py, shrunk from 6 to 2 ops.
// failed: seed_692237533.mlir:1:1: error: result 1 is an argument or another result; fuser does not copy buffers yet
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-692237533.mlir -v
// graph: {"nodes":[{"dims":[[1],[0]],"dtype":"i1","dyn":[false,false],"kind":"bool","op":"input","specials":false},{"args":[[0,0]],"name":"not","op":"ew"},{"args":[[0,0]],"name":"not","op":"ew"}],"outputs":[[2,0],[1,0]],"seed":692237533,"syms":[1,0]}
func.func @seed_692237533(%in0: tensor<0x1xi1>) -> (tensor<0x1xi1>, tensor<0x1xi1>) {
  %v1_0 = fuser.not %in0 : tensor<0x1xi1>
  %v2_0 = fuser.not %in0 : tensor<0x1xi1>
  return %v2_0, %v1_0 : tensor<0x1xi1>, tensor<0x1xi1>
}
