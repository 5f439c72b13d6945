// Gradients along dims known only at launch (test/tools/fuserc/vjp-dynamic-exact.test).
func.func @scan(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fuser.cumsum %x dim = 0 : tensor<?xf32>
  return %0 : tensor<?xf32>
}

func.func @padded(%x: tensor<?xf32>, %v: tensor<f32>) -> tensor<?xf32> {
  %0 = fuser.pad %x, %v low = [2] high = [1] : tensor<?xf32>, tensor<f32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// The cotangent of a sum is a broadcast sized only by its uses; the
// flips tie their gathers to the forward value's sizes.
func.func @scan_sum(%x: tensor<?xf32>) -> tensor<f32> {
  %0 = fuser.cumsum %x dim = 0 : tensor<?xf32>
  %1 = fuser.sum %0 dims = [0] : tensor<?xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// A reshape chain's gradient: two reshapes sized by their uses, folded.
func.func @reshapes(%x: tensor<?x?x?xf32>) -> tensor<?xf32> {
  %0 = fuser.reshape %x : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %1 = fuser.reshape %0 : tensor<?x?xf32> -> tensor<?xf32>
  %2 = fuser.exp %1 : tensor<?xf32>
  return %2 : tensor<?xf32>
}
