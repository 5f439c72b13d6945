// A reshape back (reshape-back.test) in a fusion whose backward no longer
// holds the forward reshape it inverts: fuser-vjp's gradient of that reshape
// is its twin (the same dims to the same type) and gives the dims.
func.func @f(%x: tensor<?x8x?x?xf32>, %u: tensor<?x4x?xf32>) -> (tensor<?x4x?xf32>, tensor<?x8x?x?xf32>) {
  %z = fuser.reshape %x : tensor<?x8x?x?xf32> -> tensor<?x4x?xf32>
  %v = fuser.add %z, %u : tensor<?x4x?xf32>
  %r = fuser.reshape %u : tensor<?x4x?xf32> -> tensor<?x8x?x?xf32>
  %t = fuser.tanh %r : tensor<?x8x?x?xf32>
  return %v, %t : tensor<?x4x?xf32>, tensor<?x8x?x?xf32>
}
