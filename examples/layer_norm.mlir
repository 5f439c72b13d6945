// layer_norm with weight and bias: bf16 in and out, f32 compute, and the
// mean and rstd that a backward pass needs, all from one kernel.
func.func @layer_norm(%x: tensor<8192x4096xbf16>, %w: tensor<4096xbf16>, %b: tensor<4096xbf16>)
    -> (tensor<8192x4096xbf16>, tensor<8192x1xf32>, tensor<8192x1xf32>) {
  %y:3 = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<8192x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>)
      -> (tensor<8192x4096xbf16>, tensor<8192x1xf32>, tensor<8192x1xf32>)
  return %y#0, %y#1, %y#2 : tensor<8192x4096xbf16>, tensor<8192x1xf32>, tensor<8192x1xf32>
}
