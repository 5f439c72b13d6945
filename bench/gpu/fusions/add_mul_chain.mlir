// GPU benchmark: (x + row) * col * alpha + x, f32, any number of rows of 1024.
func.func @add_mul_chain(%x: tensor<?x1024xf32>, %row: tensor<1024xf32>,
                         %col: tensor<?x1xf32>, %alpha: tensor<f32>) -> tensor<?x1024xf32> {
  %r = fuser.broadcast %row dims = [1] : tensor<1024xf32> -> tensor<?x1024xf32>
  %c = fuser.broadcast %col dims = [0, 1] : tensor<?x1xf32> -> tensor<?x1024xf32>
  %0 = fuser.add %x, %r : tensor<?x1024xf32>
  %1 = fuser.mul %0, %c : tensor<?x1024xf32>
  %2 = fuser.mul %1, %alpha : tensor<?x1024xf32>, tensor<f32>
  %3 = fuser.add %2, %x : tensor<?x1024xf32>
  return %3 : tensor<?x1024xf32>
}
