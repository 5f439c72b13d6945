// rms_norm's backward from primitives (examples/rms_norm_backward.mlir)
// with every dim known at launch: bf16 x, dy and weight, the forward's f32
// rstd; dx bf16, dw f32.
func.func @rms_norm_backward_dynamic(%x: tensor<?x?xbf16>, %dy: tensor<?x?xbf16>, %rstd: tensor<?x1xf32>,
                                     %w: tensor<?xbf16>) -> (tensor<?x?xbf16>, tensor<?xf32>) {
  %xf = fuser.cast %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %dyf = fuser.cast %dy : tensor<?x?xbf16> to tensor<?x?xf32>
  %wf = fuser.cast %w : tensor<?xbf16> to tensor<?xf32>
  %rb = fuser.broadcast %rstd dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<?xf32> -> tensor<?x?xf32>
  %xhat = fuser.mul %xf, %rb : tensor<?x?xf32>
  %wdy = fuser.mul %dyf, %wb : tensor<?x?xf32>
  %p = fuser.mul %wdy, %xhat : tensor<?x?xf32>
  %c1 = fuser.mean %p dims = [1] keepdim = true : tensor<?x?xf32> -> tensor<?x1xf32>
  %c1b = fuser.broadcast %c1 dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %t1 = fuser.mul %xhat, %c1b : tensor<?x?xf32>
  %t2 = fuser.sub %wdy, %t1 : tensor<?x?xf32>
  %dxf = fuser.mul %t2, %rb : tensor<?x?xf32>
  %dx = fuser.cast %dxf : tensor<?x?xf32> to tensor<?x?xbf16>
  %q = fuser.mul %dyf, %xhat : tensor<?x?xf32>
  %dw = fuser.sum %q dims = [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %dx, %dw : tensor<?x?xbf16>, tensor<?xf32>
}
