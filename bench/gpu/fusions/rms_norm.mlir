// GPU benchmark: rms_norm with weight (Llama), bf16, any number of rows of 4096.
func.func @rms_norm(%x: tensor<?x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %0 = fuser.rms_norm %x weight %w dims = [1] eps = 1.0e-06
      : (tensor<?x4096xbf16>, tensor<4096xbf16>) -> tensor<?x4096xbf16>
  return %0 : tensor<?x4096xbf16>
}
