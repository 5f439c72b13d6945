// rms_norm's backward from primitives, as a training step computes it
// (the norm of Llama-style models): bf16 activations x and incoming gradient
// dy, the forward's f32 rstd, a bf16 weight; f32 compute. dx (bf16) needs one
// row reduction, dw = sum over rows of dy * xhat (f32) a column reduction of
// the same tensors: one inner-outer kernel holds each row on chip, writes dx
// and keeps per-block column partials of dw, and a combine kernel adds them
// in block order (docs/schedulers.md). Two launches, x and dy read once.
func.func @rms_norm_backward(%x: tensor<2048x4096xbf16>, %dy: tensor<2048x4096xbf16>, %rstd: tensor<2048x1xf32>, %w: tensor<4096xbf16>) -> (tensor<2048x4096xbf16>, tensor<4096xf32>) {
  %xf = fuser.cast %x : tensor<2048x4096xbf16> to tensor<2048x4096xf32>
  %dyf = fuser.cast %dy : tensor<2048x4096xbf16> to tensor<2048x4096xf32>
  %wf = fuser.cast %w : tensor<4096xbf16> to tensor<4096xf32>
  %rb = fuser.broadcast %rstd dims = [0, 1] : tensor<2048x1xf32> -> tensor<2048x4096xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<4096xf32> -> tensor<2048x4096xf32>
  %xhat = fuser.mul %xf, %rb : tensor<2048x4096xf32>
  %wdy = fuser.mul %dyf, %wb : tensor<2048x4096xf32>
  %p = fuser.mul %wdy, %xhat : tensor<2048x4096xf32>
  %c1 = fuser.mean %p dims = [1] keepdim = true : tensor<2048x4096xf32> -> tensor<2048x1xf32>
  %c1b = fuser.broadcast %c1 dims = [0, 1] : tensor<2048x1xf32> -> tensor<2048x4096xf32>
  %t1 = fuser.mul %xhat, %c1b : tensor<2048x4096xf32>
  %t2 = fuser.sub %wdy, %t1 : tensor<2048x4096xf32>
  %dxf = fuser.mul %t2, %rb : tensor<2048x4096xf32>
  %dx = fuser.cast %dxf : tensor<2048x4096xf32> to tensor<2048x4096xbf16>
  %q = fuser.mul %dyf, %xhat : tensor<2048x4096xf32>
  %dw = fuser.sum %q dims = [0] : tensor<2048x4096xf32> -> tensor<4096xf32>
  return %dx, %dw : tensor<2048x4096xbf16>, tensor<4096xf32>
}
