// bf16 in and out, f32 compute: y = bf16(tanh(f32(x) * 0.5) + f32(y)).
func.func @bf16_scale_tanh(%x: tensor<8192x4096xbf16>, %y: tensor<8192x4096xbf16>) -> tensor<8192x4096xbf16> {
  %xf = fuser.cast %x : tensor<8192x4096xbf16> to tensor<8192x4096xf32>
  %yf = fuser.cast %y : tensor<8192x4096xbf16> to tensor<8192x4096xf32>
  %half = fuser.constant 0.5 : tensor<f32>
  %0 = fuser.mul %xf, %half : tensor<8192x4096xf32>, tensor<f32>
  %1 = fuser.tanh %0 : tensor<8192x4096xf32>
  %2 = fuser.add %1, %yf : tensor<8192x4096xf32>
  %3 = fuser.cast %2 : tensor<8192x4096xf32> to tensor<8192x4096xbf16>
  return %3 : tensor<8192x4096xbf16>
}
