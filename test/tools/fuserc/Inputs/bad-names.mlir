// Names the bundle refuses; run-names.test splits the cases with
// split-file, since a compile stops at the first.
//--- path.mlir
func.func @path(%x: tensor<4xf32>) -> (tensor<4xf32> {fuser.name = "../escaped"}) {
  %0 = fuser.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- space.mlir
func.func @space(%x: tensor<4xf32> {fuser.name = "a b"}) -> tensor<4xf32> {
  %0 = fuser.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- same.mlir
func.func @same(%x: tensor<4xf32>) -> (tensor<4xf32> {fuser.name = "x"}) {
  %0 = fuser.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- two.mlir
func.func @two(%x: tensor<4xf32>) -> (tensor<4xf32> {fuser.name = "y"}, tensor<4xf32> {fuser.name = "y"}) {
  %0 = fuser.neg %x : tensor<4xf32>
  %1 = fuser.exp %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
//--- ssa.mlir
func.func @ssa(%x.1: tensor<4xf32>, %y$: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.add %x.1, %y$ : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}
