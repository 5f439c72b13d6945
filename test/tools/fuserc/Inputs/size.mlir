func.func @var_unbiased(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<f32>, tensor<i8>) {
  %s = fuser.sum %x dims = [1] : tensor<?x?xf32> -> tensor<?xf32>
  %n = fuser.size %x dim = 1 : tensor<?x?xf32> -> tensor<f32>
  %m = fuser.div %s, %n : tensor<?xf32>, tensor<f32>
  %k = fuser.size %x dim = 0 : tensor<?x?xf32> -> tensor<i8>
  return %m, %n, %k : tensor<?xf32>, tensor<f32>, tensor<i8>
}
