// GPU benchmark: layer_norm with weight and bias, bf16 in and out, f32
// compute, any number of rows of 4096; only y is returned (as F.layer_norm).
func.func @layer_norm(%x: tensor<?x4096xbf16>, %w: tensor<4096xbf16>, %b: tensor<4096xbf16>)
    -> tensor<?x4096xbf16> {
  %y:3 = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<?x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>)
      -> (tensor<?x4096xbf16>, tensor<?x1xf32>, tensor<?x1xf32>)
  return %y#0 : tensor<?x4096xbf16>
}
