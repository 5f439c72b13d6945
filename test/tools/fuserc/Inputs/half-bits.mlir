// Ops that read or keep a half's bits (avx512-bits.test): signbit reads the
// sign bit, frac and fmod are exact in the operand's own precision.
func.func @signbit(%x: tensor<16xbf16>, %h: tensor<16xf16>) -> (tensor<16xi1>, tensor<16xi1>) {
  %a = fuser.signbit %x : tensor<16xbf16>
  %b = fuser.signbit %h : tensor<16xf16>
  return %a, %b : tensor<16xi1>, tensor<16xi1>
}
func.func @frac(%x: tensor<16xbf16>, %h: tensor<16xf16>) -> (tensor<16xbf16>, tensor<16xf16>) {
  %a = fuser.frac %x : tensor<16xbf16>
  %b = fuser.frac %h : tensor<16xf16>
  return %a, %b : tensor<16xbf16>, tensor<16xf16>
}
func.func @fmod(%x: tensor<16xbf16>, %y: tensor<16xbf16>) -> tensor<16xbf16> {
  %a = fuser.fmod %x, %y : tensor<16xbf16>
  return %a : tensor<16xbf16>
}
