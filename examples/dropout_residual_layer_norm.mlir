// The residual block's tail in a transformer's training step (nvFuser's
// classic dropout + add + layer_norm fusion): dropout of a sublayer's output
// with p = 0.1, plus the residual stream, then layer_norm with weight and
// bias. bf16 in and out, f32 compute. Returns the normalized output, the
// new residual stream h, the dropout mask and the mean and rstd that the
// backward pass needs; the backward regenerates the mask from the same seed
// and offset instead of reading it (docs/random.md). One kernel.
func.func @dropout_residual_layer_norm(%x: tensor<8192x1024xbf16>, %residual: tensor<8192x1024xbf16>,
                                       %w: tensor<1024xbf16>, %b: tensor<1024xbf16>,
                                       %seed: tensor<i64>, %offset: tensor<i64>)
    -> (tensor<8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<8192x1024xi1>,
        tensor<8192x1xf32>, tensor<8192x1xf32>) {
  %p = fuser.constant 1.0e-01 : tensor<f32>
  %d, %mask = fuser.dropout %x, %p, %seed, %offset
      : tensor<8192x1024xbf16>, tensor<f32> -> tensor<8192x1024xbf16>, tensor<8192x1024xi1>
  %h = fuser.add %d, %residual : tensor<8192x1024xbf16>
  %y:3 = fuser.layer_norm %h weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<8192x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
      -> (tensor<8192x1024xbf16>, tensor<8192x1xf32>, tensor<8192x1xf32>)
  return %y#0, %h, %mask, %y#1, %y#2
      : tensor<8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<8192x1024xi1>,
        tensor<8192x1xf32>, tensor<8192x1xf32>
}
