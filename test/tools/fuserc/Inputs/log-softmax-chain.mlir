// log_softmax four times over rows of 1000 f32: an element's arithmetic is
// estimated at 4 x (2 expanded functions x 32 + 4) = 272 instructions,
// compute-bound (test/tools/fuserc/compute-bound-rows.test).
func.func @chain(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %0 = fuser.log_softmax %x dim = 1 : tensor<64x1000xf32>
  %1 = fuser.log_softmax %0 dim = 1 : tensor<64x1000xf32>
  %2 = fuser.log_softmax %1 dim = 1 : tensor<64x1000xf32>
  %3 = fuser.log_softmax %2 dim = 1 : tensor<64x1000xf32>
  return %3 : tensor<64x1000xf32>
}

// The same with one log_softmax: 68 instructions, memory-bound.
func.func @one(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %0 = fuser.log_softmax %x dim = 1 : tensor<64x1000xf32>
  return %0 : tensor<64x1000xf32>
}
