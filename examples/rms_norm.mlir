// rms_norm with weight, as in Llama.
func.func @rms_norm(%x: tensor<8192x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<8192x4096xbf16> {
  %0 = fuser.rms_norm %x weight %w dims = [1] eps = 1.0e-06
      : (tensor<8192x4096xbf16>, tensor<4096xbf16>) -> tensor<8192x4096xbf16>
  return %0 : tensor<8192x4096xbf16>
}
