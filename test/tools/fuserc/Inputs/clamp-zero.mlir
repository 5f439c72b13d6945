// torch.clamp with scalar bounds (clamp-zero.test), f32 and bf16.
func.func @f(%x: tensor<6xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<6xf32> {
  %r = fuser.clamp %x, %lo, %hi : tensor<6xf32>, tensor<f32>, tensor<f32>
  return %r : tensor<6xf32>
}
func.func @h(%x: tensor<6xbf16>, %lo: tensor<bf16>, %hi: tensor<bf16>) -> tensor<6xbf16> {
  %r = fuser.clamp %x, %lo, %hi : tensor<6xbf16>, tensor<bf16>, tensor<bf16>
  return %r : tensor<6xbf16>
}
