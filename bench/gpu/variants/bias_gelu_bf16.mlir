// Schedule variants: y = gelu_tanh(x + bias) in bf16 (f32 compute), rows of 4096.
func.func @bias_gelu_bf16(%x: tensor<?x4096xbf16>, %bias: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %b = fuser.broadcast %bias dims = [1] : tensor<4096xbf16> -> tensor<?x4096xbf16>
  %0 = fuser.add %x, %b : tensor<?x4096xbf16>
  %1 = fuser.gelu %0 approximate = tanh : tensor<?x4096xbf16>
  return %1 : tensor<?x4096xbf16>
}
