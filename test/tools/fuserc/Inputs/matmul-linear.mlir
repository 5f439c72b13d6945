// A linear layer of a size known at launch, and a batched matmul.
func.func @lin(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = fuser.linear %x, %w bias %b : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @bmm(%a: tensor<4x3x8xbf16>, %b: tensor<4x8x5xbf16>) -> tensor<4x3x5xbf16> {
  %0 = fuser.matmul %a, %b : (tensor<4x3x8xbf16>, tensor<4x8x5xbf16>) -> tensor<4x3x5xbf16>
  return %0 : tensor<4x3x5xbf16>
}
