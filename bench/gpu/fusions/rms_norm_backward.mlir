// GPU benchmark: rms_norm's backward from primitives (examples/rms_norm_backward.mlir,
// any number of rows of 4096): bf16 x, dy and weight, the forward's f32 rstd; dx
// bf16, dw f32. Two launches, x and dy read once.
func.func @rms_norm_backward(%x: tensor<?x4096xbf16>, %dy: tensor<?x4096xbf16>, %rstd: tensor<?x1xf32>, %w: tensor<4096xbf16>) -> (tensor<?x4096xbf16>, tensor<4096xf32>) {
  %xf = fuser.cast %x : tensor<?x4096xbf16> to tensor<?x4096xf32>
  %dyf = fuser.cast %dy : tensor<?x4096xbf16> to tensor<?x4096xf32>
  %wf = fuser.cast %w : tensor<4096xbf16> to tensor<4096xf32>
  %rb = fuser.broadcast %rstd dims = [0, 1] : tensor<?x1xf32> -> tensor<?x4096xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<4096xf32> -> tensor<?x4096xf32>
  %xhat = fuser.mul %xf, %rb : tensor<?x4096xf32>
  %wdy = fuser.mul %dyf, %wb : tensor<?x4096xf32>
  %p = fuser.mul %wdy, %xhat : tensor<?x4096xf32>
  %c1 = fuser.mean %p dims = [1] keepdim = true : tensor<?x4096xf32> -> tensor<?x1xf32>
  %c1b = fuser.broadcast %c1 dims = [0, 1] : tensor<?x1xf32> -> tensor<?x4096xf32>
  %t1 = fuser.mul %xhat, %c1b : tensor<?x4096xf32>
  %t2 = fuser.sub %wdy, %t1 : tensor<?x4096xf32>
  %dxf = fuser.mul %t2, %rb : tensor<?x4096xf32>
  %dx = fuser.cast %dxf : tensor<?x4096xf32> to tensor<?x4096xbf16>
  %q = fuser.mul %dyf, %xhat : tensor<?x4096xf32>
  %dw = fuser.sum %q dims = [0] : tensor<?x4096xf32> -> tensor<4096xf32>
  return %dx, %dw : tensor<?x4096xbf16>, tensor<4096xf32>
}
