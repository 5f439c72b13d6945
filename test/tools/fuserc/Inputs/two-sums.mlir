// Two reduction segments (row sums of tensors of different shapes): a
// schedule key read by both can be set for each alone (KEY[SEGMENT]).
// Segment 0 sums %y's rows; segment 1 sums exp(%x)'s rows and scales %x by
// segment 0's sums.
func.func @two_sums(%x: tensor<?x512xf32>, %y: tensor<512x?xf32>) -> (tensor<?xf32>, tensor<512xf32>, tensor<?x512xf32>) {
  %e = fuser.exp %x : tensor<?x512xf32>
  %s = fuser.sum %e dims = [1] : tensor<?x512xf32> -> tensor<?xf32>
  %t = fuser.sum %y dims = [1] : tensor<512x?xf32> -> tensor<512xf32>
  %tb = fuser.broadcast %t dims = [1] : tensor<512xf32> -> tensor<?x512xf32>
  %z = fuser.mul %x, %tb : tensor<?x512xf32>
  return %s, %t, %z : tensor<?xf32>, tensor<512xf32>, tensor<?x512xf32>
}
