// zeros_like-style constants, an arange and a broadcast scalar for two
// tensors of different dynamic sizes: canonicalize and CSE merge each
// pair into one value (the cast of the iota too); fuser-segment splits them
// again, one per use, so each takes its own size.
func.func @two_sizes(%a: tensor<?xf32>, %b: tensor<?xf32>, %s: tensor<f32>)
    -> (tensor<?xf32>, tensor<?xf32>) {
  %z1 = fuser.constant 1.0 : tensor<?xf32>
  %y1 = fuser.add %a, %z1 : tensor<?xf32>
  %i1 = fuser.iota dim = 0 : tensor<?xi64>
  %f1 = fuser.cast %i1 : tensor<?xi64> to tensor<?xf32>
  %p1 = fuser.add %y1, %f1 : tensor<?xf32>
  %sb1 = fuser.broadcast %s dims = [] : tensor<f32> -> tensor<?xf32>
  %r1 = fuser.mul %p1, %sb1 : tensor<?xf32>
  %z2 = fuser.constant 1.0 : tensor<?xf32>
  %y2 = fuser.add %b, %z2 : tensor<?xf32>
  %i2 = fuser.iota dim = 0 : tensor<?xi64>
  %f2 = fuser.cast %i2 : tensor<?xi64> to tensor<?xf32>
  %p2 = fuser.add %y2, %f2 : tensor<?xf32>
  %sb2 = fuser.broadcast %s dims = [] : tensor<f32> -> tensor<?xf32>
  %r2 = fuser.mul %p2, %sb2 : tensor<?xf32>
  return %r1, %r2 : tensor<?xf32>, tensor<?xf32>
}

// An iota of `?` size returned and also combined with a: its size comes
// from that use (it failed: "cannot determine the size", the returned copy
// having no use of its own to size it).
func.func @returned_iota(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %i = fuser.iota dim = 0 : tensor<?xi64>
  %f = fuser.cast %i : tensor<?xi64> to tensor<?xf32>
  %r = fuser.add %a, %f : tensor<?xf32>
  return %r, %i : tensor<?xf32>, tensor<?xi64>
}

// A broadcast of `?` size that a reduction also reads (a mean over it): the
// reduction's result does not carry the dim, so it cannot size a copy of
// its own; it shares the value with a use that sizes it (it failed:
// "cannot determine the size", the mean's copy tied to nothing; fuser-vjp
// writes this for a layer_norm over a `?` dim followed by a sum).
// g - mean(g) is 0 (the mean of 5 copies of g), so the result is -a = 0;
// a wrong count would not give 0.
func.func @reduced_use(%a: tensor<?xf32>, %g: tensor<1xf32>) -> tensor<?xf32> {
  %0 = fuser.broadcast %g dims = [0] : tensor<1xf32> -> tensor<?xf32>
  %1 = fuser.mean %0 dims = [0] keepdim = true : tensor<?xf32> -> tensor<1xf32>
  %2 = fuser.broadcast %1 dims = [0] : tensor<1xf32> -> tensor<?xf32>
  %3 = fuser.sub %0, %a : tensor<?xf32>
  %4 = fuser.sub %3, %2 : tensor<?xf32>
  return %4 : tensor<?xf32>
}
