// Schedule variants (reduction.*): layer_norm over rows of 256 bf16 (f32
// compute), several rows a block; only y is returned.
func.func @layer_norm_256_bf16(%x: tensor<?x256xbf16>, %w: tensor<256xbf16>, %b: tensor<256xbf16>)
    -> tensor<?x256xbf16> {
  %y:3 = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<?x256xbf16>, tensor<256xbf16>, tensor<256xbf16>)
      -> (tensor<?x256xbf16>, tensor<?x1xf32>, tensor<?x1xf32>)
  return %y#0 : tensor<?x256xbf16>
}
