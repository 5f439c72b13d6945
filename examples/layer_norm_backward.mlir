// layer_norm's backward from primitives, as a training step computes it:
// bf16 activations x and incoming gradient dy, the forward's f32 mean and
// rstd, a bf16 weight; f32 compute. dx (bf16) needs two row reductions,
// dw = sum over rows of dy * xhat and db = sum over rows of dy (f32) a
// column reduction of the same tensors. Two launches: one inner-outer
// kernel holds each row on chip, writes dx and keeps per-block column
// partials of dw and db; a combine kernel adds them in block order
// (docs/schedulers.md). x and dy are read once.
func.func @layer_norm_backward(%x: tensor<2048x1024xbf16>, %dy: tensor<2048x1024xbf16>, %mean: tensor<2048x1xf32>,
                               %rstd: tensor<2048x1xf32>, %w: tensor<1024xbf16>)
    -> (tensor<2048x1024xbf16>, tensor<1024xf32>, tensor<1024xf32>) {
  %xf = fuser.cast %x : tensor<2048x1024xbf16> to tensor<2048x1024xf32>
  %dyf = fuser.cast %dy : tensor<2048x1024xbf16> to tensor<2048x1024xf32>
  %wf = fuser.cast %w : tensor<1024xbf16> to tensor<1024xf32>
  %mb = fuser.broadcast %mean dims = [0, 1] : tensor<2048x1xf32> -> tensor<2048x1024xf32>
  %rb = fuser.broadcast %rstd dims = [0, 1] : tensor<2048x1xf32> -> tensor<2048x1024xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<1024xf32> -> tensor<2048x1024xf32>
  %xc = fuser.sub %xf, %mb : tensor<2048x1024xf32>
  %xhat = fuser.mul %xc, %rb : tensor<2048x1024xf32>
  %wdy = fuser.mul %dyf, %wb : tensor<2048x1024xf32>
  %p = fuser.mul %wdy, %xhat : tensor<2048x1024xf32>
  %c1 = fuser.mean %p dims = [1] keepdim = true : tensor<2048x1024xf32> -> tensor<2048x1xf32>
  %c2 = fuser.mean %wdy dims = [1] keepdim = true : tensor<2048x1024xf32> -> tensor<2048x1xf32>
  %c1b = fuser.broadcast %c1 dims = [0, 1] : tensor<2048x1xf32> -> tensor<2048x1024xf32>
  %c2b = fuser.broadcast %c2 dims = [0, 1] : tensor<2048x1xf32> -> tensor<2048x1024xf32>
  %t1 = fuser.mul %xhat, %c1b : tensor<2048x1024xf32>
  %t2 = fuser.sub %wdy, %t1 : tensor<2048x1024xf32>
  %t3 = fuser.sub %t2, %c2b : tensor<2048x1024xf32>
  %dxf = fuser.mul %t3, %rb : tensor<2048x1024xf32>
  %dx = fuser.cast %dxf : tensor<2048x1024xf32> to tensor<2048x1024xbf16>
  %q = fuser.mul %dyf, %xhat : tensor<2048x1024xf32>
  %dw = fuser.sum %q dims = [0] : tensor<2048x1024xf32> -> tensor<1024xf32>
  %db = fuser.sum %dyf dims = [0] : tensor<2048x1024xf32> -> tensor<1024xf32>
  return %dx, %dw, %db : tensor<2048x1024xbf16>, tensor<1024xf32>, tensor<1024xf32>
}
