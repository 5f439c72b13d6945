// Schedule variants: y = gelu(x) (erf form), f32, rows of 4096.
func.func @gelu_erf(%x: tensor<?x4096xf32>) -> tensor<?x4096xf32> {
  %0 = fuser.gelu %x approximate = none : tensor<?x4096xf32>
  return %0 : tensor<?x4096xf32>
}
