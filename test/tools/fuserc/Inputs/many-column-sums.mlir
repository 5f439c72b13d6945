// Twelve column sums in one kernel (many-column-sums.test): the outer
// kernel's default block of 32 x 8 threads with 4 lanes needed 49156 bytes of
// shared memory, over the 48 KiB a block may declare, and the compile failed
// with advice about a schedule nobody set.
func.func @f(%x: tensor<256x128xf32>) -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) {
  %c0 = fuser.constant 0.0 : tensor<f32>
  %e0 = fuser.add %x, %c0 : tensor<256x128xf32>, tensor<f32>
  %c1 = fuser.constant 1.0 : tensor<f32>
  %e1 = fuser.add %x, %c1 : tensor<256x128xf32>, tensor<f32>
  %c2 = fuser.constant 2.0 : tensor<f32>
  %e2 = fuser.add %x, %c2 : tensor<256x128xf32>, tensor<f32>
  %c3 = fuser.constant 3.0 : tensor<f32>
  %e3 = fuser.add %x, %c3 : tensor<256x128xf32>, tensor<f32>
  %c4 = fuser.constant 4.0 : tensor<f32>
  %e4 = fuser.add %x, %c4 : tensor<256x128xf32>, tensor<f32>
  %c5 = fuser.constant 5.0 : tensor<f32>
  %e5 = fuser.add %x, %c5 : tensor<256x128xf32>, tensor<f32>
  %c6 = fuser.constant 6.0 : tensor<f32>
  %e6 = fuser.add %x, %c6 : tensor<256x128xf32>, tensor<f32>
  %c7 = fuser.constant 7.0 : tensor<f32>
  %e7 = fuser.add %x, %c7 : tensor<256x128xf32>, tensor<f32>
  %c8 = fuser.constant 8.0 : tensor<f32>
  %e8 = fuser.add %x, %c8 : tensor<256x128xf32>, tensor<f32>
  %c9 = fuser.constant 9.0 : tensor<f32>
  %e9 = fuser.add %x, %c9 : tensor<256x128xf32>, tensor<f32>
  %c10 = fuser.constant 10.0 : tensor<f32>
  %e10 = fuser.add %x, %c10 : tensor<256x128xf32>, tensor<f32>
  %c11 = fuser.constant 11.0 : tensor<f32>
  %e11 = fuser.add %x, %c11 : tensor<256x128xf32>, tensor<f32>
  %s0 = fuser.sum %e0 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  %s1 = fuser.sum %e1 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  %s2 = fuser.sum %e2 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  %s3 = fuser.sum %e3 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  %s4 = fuser.sum %e4 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  %s5 = fuser.sum %e5 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  %s6 = fuser.sum %e6 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  %s7 = fuser.sum %e7 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  %s8 = fuser.sum %e8 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  %s9 = fuser.sum %e9 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  %s10 = fuser.sum %e10 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  %s11 = fuser.sum %e11 dims = [0] : tensor<256x128xf32> -> tensor<128xf32>
  return %s0, %s1, %s2, %s3, %s4, %s5, %s6, %s7, %s8, %s9, %s10, %s11 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>
}
