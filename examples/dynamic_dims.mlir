// One kernel for every size: the row count and the row length are dynamic.
func.func @dynamic_dims(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>, %s: tensor<f32>) -> tensor<?x?xf32> {
  %0 = fuser.sub %x, %y : tensor<?x?xf32>
  %1 = fuser.mul %0, %s : tensor<?x?xf32>, tensor<f32>
  %2 = fuser.exp %1 : tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}
