// layer_norm written by hand from primitive ops; fuser makes the same single
// kernel as for fuser.layer_norm.
func.func @layer_norm_manual(%x: tensor<4096x2048xf32>, %w: tensor<2048xf32>, %b: tensor<2048xf32>) -> tensor<4096x2048xf32> {
  %mean = fuser.mean %x dims = [1] : tensor<4096x2048xf32> -> tensor<4096xf32>
  %mb = fuser.broadcast %mean dims = [0] : tensor<4096xf32> -> tensor<4096x2048xf32>
  %xc = fuser.sub %x, %mb : tensor<4096x2048xf32>
  %sq = fuser.mul %xc, %xc : tensor<4096x2048xf32>
  %var = fuser.mean %sq dims = [1] : tensor<4096x2048xf32> -> tensor<4096xf32>
  %eps = fuser.constant 1.0e-05 : tensor<f32>
  %ve = fuser.add %var, %eps : tensor<4096xf32>, tensor<f32>
  %rstd = fuser.rsqrt %ve : tensor<4096xf32>
  %rb = fuser.broadcast %rstd dims = [0] : tensor<4096xf32> -> tensor<4096x2048xf32>
  %n = fuser.mul %xc, %rb : tensor<4096x2048xf32>
  %wb = fuser.broadcast %w dims = [1] : tensor<2048xf32> -> tensor<4096x2048xf32>
  %bb = fuser.broadcast %b dims = [1] : tensor<2048xf32> -> tensor<4096x2048xf32>
  %nw = fuser.mul %n, %wb : tensor<4096x2048xf32>
  %y = fuser.add %nw, %bb : tensor<4096x2048xf32>
  return %y : tensor<4096x2048xf32>
}
