// group_norm from primitives, as a tracer writes it, with N, H and W known
// only at launch (reshape-back.test): [N, C, H, W] -> [N, G, C/G*H*W],
// normalized, and back to [N, C, H, W].
func.func @f(%x: tensor<?x8x?x?xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x8x?x?xf32> {
  %z = fuser.reshape %x : tensor<?x8x?x?xf32> -> tensor<?x2x?xf32>
  %var, %mean = fuser.var_mean %z dims = [2] correction = 0 keepdim = true : tensor<?x2x?xf32> -> tensor<?x2x1xf32>, tensor<?x2x1xf32>
  %eps = fuser.constant 1.0e-05 : tensor<f32>
  %ve = fuser.add %var, %eps : tensor<?x2x1xf32>, tensor<f32>
  %rstd = fuser.rsqrt %ve : tensor<?x2x1xf32>
  %mb = fuser.broadcast %mean dims = [0, 1, 2] : tensor<?x2x1xf32> -> tensor<?x2x?xf32>
  %rb = fuser.broadcast %rstd dims = [0, 1, 2] : tensor<?x2x1xf32> -> tensor<?x2x?xf32>
  %zc = fuser.sub %z, %mb : tensor<?x2x?xf32>
  %zn = fuser.mul %zc, %rb : tensor<?x2x?xf32>
  %n = fuser.reshape %zn : tensor<?x2x?xf32> -> tensor<?x8x?x?xf32>
  %wb = fuser.broadcast %w dims = [1] : tensor<8xf32> -> tensor<?x8x?x?xf32>
  %bb = fuser.broadcast %b dims = [1] : tensor<8xf32> -> tensor<?x8x?x?xf32>
  %nw = fuser.mul %n, %wb : tensor<?x8x?x?xf32>
  %y = fuser.add %nw, %bb : tensor<?x8x?x?xf32>
  return %y : tensor<?x8x?x?xf32>
}
