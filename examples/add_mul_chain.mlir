// A chain of adds and muls with a row broadcast, a column broadcast and a
// scalar input: (x + row) * col * alpha + x.
func.func @add_mul_chain(%x: tensor<2048x1000xf32>, %row: tensor<1000xf32>,
                         %col: tensor<2048x1xf32>, %alpha: tensor<f32>) -> tensor<2048x1000xf32> {
  %r = fuser.broadcast %row dims = [1] : tensor<1000xf32> -> tensor<2048x1000xf32>
  %c = fuser.broadcast %col dims = [0, 1] : tensor<2048x1xf32> -> tensor<2048x1000xf32>
  %0 = fuser.add %x, %r : tensor<2048x1000xf32>
  %1 = fuser.mul %0, %c : tensor<2048x1000xf32>
  %2 = fuser.mul %1, %alpha : tensor<2048x1000xf32>, tensor<f32>
  %3 = fuser.add %2, %x : tensor<2048x1000xf32>
  return %3 : tensor<2048x1000xf32>
}
