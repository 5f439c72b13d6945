// a = 1 + 2^-12 (x * 0 + c, so that any input gives it), then a @ a: f32
// gives 1 + 2^-11 + 2^-24, TF32 (10-bit mantissas) rounds a to 1 first.
func.func @tf32(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %z = fuser.constant 0.0 : tensor<1x1xf32>
  %c = fuser.constant 1.000244140625 : tensor<1x1xf32>
  %m = fuser.mul %x, %z : tensor<1x1xf32>
  %a = fuser.add %m, %c : tensor<1x1xf32>
  %0 = fuser.matmul %a, %a : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
