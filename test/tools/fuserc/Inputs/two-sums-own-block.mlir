// @two_sums with its own reduction.block for every segment: it wins over a
// tuning entry's reduction.block[1] (segment-schedule.test).
func.func @two_sums(%x: tensor<?x512xf32>, %y: tensor<512x?xf32>) -> (tensor<?xf32>, tensor<512xf32>, tensor<?x512xf32>)
    attributes {fuser.schedule = #fuser.schedule<reduction.block = 512>} {
  %e = fuser.exp %x : tensor<?x512xf32>
  %s = fuser.sum %e dims = [1] : tensor<?x512xf32> -> tensor<?xf32>
  %t = fuser.sum %y dims = [1] : tensor<512x?xf32> -> tensor<512xf32>
  %tb = fuser.broadcast %t dims = [1] : tensor<512xf32> -> tensor<?x512xf32>
  %z = fuser.mul %x, %tb : tensor<?x512xf32>
  return %s, %t, %z : tensor<?xf32>, tensor<512xf32>, tensor<?x512xf32>
}
