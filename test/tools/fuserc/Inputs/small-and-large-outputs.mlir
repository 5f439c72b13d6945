// Two independent outputs: one of a dynamic size (2^31 + 11 elements below),
// one of 3. The small output's kernel takes no dynamic dim: it was passed x's as an
// i32, and a call with 2^31 + 11 elements failed before any launch.
func.func @two(%x: tensor<?xi8>, %y: tensor<3xf32>) -> (tensor<?xi8>, tensor<3xf32>) {
  %one = fuser.constant 1 : tensor<i8>
  %0 = fuser.add %x, %one : tensor<?xi8>, tensor<i8>
  %two = fuser.constant 2.0 : tensor<f32>
  %1 = fuser.mul %y, %two : tensor<3xf32>, tensor<f32>
  return %0, %1 : tensor<?xi8>, tensor<3xf32>
}
