// The input of an fp8 linear layer (Transformer Engine's LayerNormLinear,
// torchao's rowwise Float8 training): layer_norm, then per-row current
// scaling to e4m3 (amax of each row, scale 448 / amax, a saturating cast),
// all from one kernel. Results: the fp8 activations, their per-row scales
// (dequantize with q / scale) and amaxes, and the layer_norm statistics a
// backward pass needs. On sm_89 and later the casts are the GPU's paired
// conversion (docs/fp8.md).
func.func @fp8_layer_norm_quantize(%x: tensor<8192x4096xbf16>, %w: tensor<4096xbf16>,
                                   %b: tensor<4096xbf16>)
    -> (tensor<8192x4096xf8E4M3FN>, tensor<8192x1xf32>, tensor<8192x1xf32>,
        tensor<8192x1xf32>, tensor<8192x1xf32>) {
  %y:3 = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<8192x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>)
      -> (tensor<8192x4096xbf16>, tensor<8192x1xf32>, tensor<8192x1xf32>)
  %q:3 = fuser.quantize %y#0 row
      : tensor<8192x4096xbf16>
      -> (tensor<8192x4096xf8E4M3FN>, tensor<8192x1xf32>, tensor<8192x1xf32>)
  return %q#0, %q#1, %q#2, %y#1, %y#2
      : tensor<8192x4096xf8E4M3FN>, tensor<8192x1xf32>, tensor<8192x1xf32>,
        tensor<8192x1xf32>, tensor<8192x1xf32>
}
