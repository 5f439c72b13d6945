// The backward of examples/dropout_residual_layer_norm.mlir, with the
// dropout mask saved by the forward as an input: dh, the gradient of the
// residual stream h = dropout(x) + residual, is layer_norm's dx (two row
// reductions over each row of dy and h); dw and db are column sums of the
// same rows; the residual's gradient is dh itself and x's is dh where the
// mask kept the element, times 1 / (1 - p) = 1.1111112 (f32), as eager
// PyTorch's native_dropout_backward computes it on the bf16 dh. bf16 in and
// out, f32 compute. One inner-outer kernel holds each row on chip and keeps
// per-block partials of dw and db; a combine adds them: two launches.
func.func @dropout_residual_layer_norm_backward(%dy: tensor<8192x1024xbf16>, %h: tensor<8192x1024xbf16>, %mask: tensor<8192x1024xi1>,
                                                %mean: tensor<8192x1xf32>, %rstd: tensor<8192x1xf32>, %w: tensor<1024xbf16>)
    -> (tensor<8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<1024xf32>, tensor<1024xf32>) {
  %hf = fuser.cast %h : tensor<8192x1024xbf16> to tensor<8192x1024xf32>
  %dyf = fuser.cast %dy : tensor<8192x1024xbf16> to tensor<8192x1024xf32>
  %wf = fuser.cast %w : tensor<1024xbf16> to tensor<1024xf32>
  %mb = fuser.broadcast %mean dims = [0, 1] : tensor<8192x1xf32> -> tensor<8192x1024xf32>
  %rb = fuser.broadcast %rstd dims = [0, 1] : tensor<8192x1xf32> -> tensor<8192x1024xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<1024xf32> -> tensor<8192x1024xf32>
  %xc = fuser.sub %hf, %mb : tensor<8192x1024xf32>
  %xhat = fuser.mul %xc, %rb : tensor<8192x1024xf32>
  %wdy = fuser.mul %dyf, %wb : tensor<8192x1024xf32>
  %p = fuser.mul %wdy, %xhat : tensor<8192x1024xf32>
  %c1 = fuser.mean %p dims = [1] keepdim = true : tensor<8192x1024xf32> -> tensor<8192x1xf32>
  %c2 = fuser.mean %wdy dims = [1] keepdim = true : tensor<8192x1024xf32> -> tensor<8192x1xf32>
  %c1b = fuser.broadcast %c1 dims = [0, 1] : tensor<8192x1xf32> -> tensor<8192x1024xf32>
  %c2b = fuser.broadcast %c2 dims = [0, 1] : tensor<8192x1xf32> -> tensor<8192x1024xf32>
  %t1 = fuser.mul %xhat, %c1b : tensor<8192x1024xf32>
  %t2 = fuser.sub %wdy, %t1 : tensor<8192x1024xf32>
  %t3 = fuser.sub %t2, %c2b : tensor<8192x1024xf32>
  %dhf = fuser.mul %t3, %rb : tensor<8192x1024xf32>
  %dh = fuser.cast %dhf : tensor<8192x1024xf32> to tensor<8192x1024xbf16>
  %dhr = fuser.cast %dh : tensor<8192x1024xbf16> to tensor<8192x1024xf32>
  %keep = fuser.cast %mask : tensor<8192x1024xi1> to tensor<8192x1024xf32>
  %scale = fuser.constant 1.11111116 : tensor<f32>
  %kept = fuser.mul %dhr, %keep : tensor<8192x1024xf32>
  %scaled = fuser.mul %kept, %scale : tensor<8192x1024xf32>, tensor<f32>
  %dx = fuser.cast %scaled : tensor<8192x1024xf32> to tensor<8192x1024xbf16>
  %q = fuser.mul %dyf, %xhat : tensor<8192x1024xf32>
  %dw = fuser.sum %q dims = [0] : tensor<8192x1024xf32> -> tensor<1024xf32>
  %db = fuser.sum %dyf dims = [0] : tensor<8192x1024xf32> -> tensor<1024xf32>
  return %dx, %dh, %dw, %db : tensor<8192x1024xbf16>, tensor<8192x1024xbf16>, tensor<1024xf32>, tensor<1024xf32>
}
