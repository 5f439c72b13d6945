// Syntax error: the file ends inside the function (line 3, col 36).
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.exp %x : tensor<4xf32>
