// The fusion test/oracle/inputs.py feeds good and bad .npy files to.
func.func @f(%x: tensor<4x3xf32>, %b: tensor<3xbf16>, %d: tensor<?x?xf32>, %e: tensor<?x?xf32>)
    -> (tensor<4x3xf32>, tensor<3xbf16>, tensor<?x?xf32>) {
  %0 = fuser.neg %x : tensor<4x3xf32>
  %1 = fuser.neg %b : tensor<3xbf16>
  %2 = fuser.add %d, %e : tensor<?x?xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<3xbf16>, tensor<?x?xf32>
}
