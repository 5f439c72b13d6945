// Used by compile.test: an error at line 3, column 8.
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  %0 = fuser.add %x, %y : tensor<4xf32>, tensor<4xf16>
  return %0 : tensor<4xf32>
}
