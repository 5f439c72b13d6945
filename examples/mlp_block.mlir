// A transformer's MLP block, whole, in one fusion: pre-norm layer_norm,
// the up projection with its bias, gelu (tanh), the down projection with
// its bias, and the residual add; bf16 activations and weights, f32
// compute inside each op. The two linears are library calls (cuBLASLt;
// docs/matmul.md): the first with its bias and the gelu in its epilogue,
// the second with its bias; the work around them is two kernels, the layer
// norm and the residual add. No caller cuts the graph at the matmuls.
func.func @mlp_block(%x: tensor<128x512xbf16>, %ln_w: tensor<512xbf16>, %ln_b: tensor<512xbf16>,
                     %w1: tensor<2048x512xbf16>, %b1: tensor<2048xbf16>,
                     %w2: tensor<512x2048xbf16>, %b2: tensor<512xbf16>) -> tensor<128x512xbf16> {
  %ln, %mean, %rstd = fuser.layer_norm %x weight %ln_w bias %ln_b dims = [1] eps = 1.0e-05
      : (tensor<128x512xbf16>, tensor<512xbf16>, tensor<512xbf16>)
      -> (tensor<128x512xbf16>, tensor<128x1xf32>, tensor<128x1xf32>)
  %h = fuser.linear %ln, %w1 bias %b1
      : (tensor<128x512xbf16>, tensor<2048x512xbf16>, tensor<2048xbf16>) -> tensor<128x2048xbf16>
  %g = fuser.gelu %h approximate = tanh : tensor<128x2048xbf16>
  %o = fuser.linear %g, %w2 bias %b2
      : (tensor<128x2048xbf16>, tensor<512x2048xbf16>, tensor<512xbf16>) -> tensor<128x512xbf16>
  %y = fuser.add %o, %x : tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}
