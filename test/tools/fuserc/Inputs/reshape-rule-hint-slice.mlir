// x.view(-1, 8)[:, 2:6] written as a plain reshape [?,?,?] -> [?,?]: the
// rule keeps dim 0 and merges the others, where torch means [B*S, 8]; the
// slice's check fails on the guessed dim (reshape-rule-hint.test).
func.func @slice_guess(%x: tensor<?x?x?xf32>) -> tensor<?x4xf32> {
  %v = fuser.reshape %x : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %s = fuser.slice %v start = [0, 2] limit = [9223372036854775807, 6] step = [1, 1] : tensor<?x?xf32> -> tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

// The same with a crop written as a pad of negative amounts.
func.func @pad_guess(%x: tensor<?x?x?xf32>) -> tensor<?x?xf32> {
  %v = fuser.reshape %x : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %zero = fuser.constant 0.0 : tensor<f32>
  %p = fuser.pad %v, %zero low = [-4, 0] high = [0, 0] : tensor<?x?xf32>, tensor<f32> -> tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}

// No reshape: the slice's check names no guess.
func.func @slice_plain(%x: tensor<?x?xf32>) -> tensor<?x4xf32> {
  %s = fuser.slice %x start = [0, 2] limit = [9223372036854775807, 6] step = [1, 1] : tensor<?x?xf32> -> tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

// A slice to the end from a start past the guessed dim.
func.func @slice_start_guess(%x: tensor<?x?x?xf32>) -> tensor<?x?xf32> {
  %v = fuser.reshape %x : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %s = fuser.slice %v start = [0, 6] limit = [9223372036854775807, 9223372036854775807] step = [1, 1] : tensor<?x?xf32> -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}
