// layer_norm's backward from primitives (examples/layer_norm_backward.mlir)
// with every dim known at launch: the traffic test reads how many times
// the inner-outer kernel's variants load x and dy.
func.func @layer_norm_backward_dynamic(%x: tensor<?x?xbf16>, %dy: tensor<?x?xbf16>, %mean: tensor<?x1xf32>,
                               %rstd: tensor<?x1xf32>, %w: tensor<?xbf16>)
    -> (tensor<?x?xbf16>, tensor<?xf32>, tensor<?xf32>) {
  %xf = fuser.cast %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %dyf = fuser.cast %dy : tensor<?x?xbf16> to tensor<?x?xf32>
  %wf = fuser.cast %w : tensor<?xbf16> to tensor<?xf32>
  %mb = fuser.broadcast %mean dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %rb = fuser.broadcast %rstd dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<?xf32> -> tensor<?x?xf32>
  %xc = fuser.sub %xf, %mb : tensor<?x?xf32>
  %xhat = fuser.mul %xc, %rb : tensor<?x?xf32>
  %wdy = fuser.mul %dyf, %wb : tensor<?x?xf32>
  %p = fuser.mul %wdy, %xhat : tensor<?x?xf32>
  %c1 = fuser.mean %p dims = [1] keepdim = true : tensor<?x?xf32> -> tensor<?x1xf32>
  %c2 = fuser.mean %wdy dims = [1] keepdim = true : tensor<?x?xf32> -> tensor<?x1xf32>
  %c1b = fuser.broadcast %c1 dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %c2b = fuser.broadcast %c2 dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %t1 = fuser.mul %xhat, %c1b : tensor<?x?xf32>
  %t2 = fuser.sub %wdy, %t1 : tensor<?x?xf32>
  %t3 = fuser.sub %t2, %c2b : tensor<?x?xf32>
  %dxf = fuser.mul %t3, %rb : tensor<?x?xf32>
  %dx = fuser.cast %dxf : tensor<?x?xf32> to tensor<?x?xbf16>
  %q = fuser.mul %dyf, %xhat : tensor<?x?xf32>
  %dw = fuser.sum %q dims = [0] : tensor<?x?xf32> -> tensor<?xf32>
  %db = fuser.sum %dyf dims = [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %dx, %dw, %db : tensor<?x?xbf16>, tensor<?xf32>, tensor<?xf32>
}

func.func @layer_norm_backward_16384(%x: tensor<64x16384xbf16>, %dy: tensor<64x16384xbf16>, %mean: tensor<64x1xf32>,
                               %rstd: tensor<64x1xf32>, %w: tensor<16384xbf16>)
    -> (tensor<64x16384xbf16>, tensor<16384xf32>, tensor<16384xf32>) {
  %xf = fuser.cast %x : tensor<64x16384xbf16> to tensor<64x16384xf32>
  %dyf = fuser.cast %dy : tensor<64x16384xbf16> to tensor<64x16384xf32>
  %wf = fuser.cast %w : tensor<16384xbf16> to tensor<16384xf32>
  %mb = fuser.broadcast %mean dims = [0, 1] : tensor<64x1xf32> -> tensor<64x16384xf32>
  %rb = fuser.broadcast %rstd dims = [0, 1] : tensor<64x1xf32> -> tensor<64x16384xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<16384xf32> -> tensor<64x16384xf32>
  %xc = fuser.sub %xf, %mb : tensor<64x16384xf32>
  %xhat = fuser.mul %xc, %rb : tensor<64x16384xf32>
  %wdy = fuser.mul %dyf, %wb : tensor<64x16384xf32>
  %p = fuser.mul %wdy, %xhat : tensor<64x16384xf32>
  %c1 = fuser.mean %p dims = [1] keepdim = true : tensor<64x16384xf32> -> tensor<64x1xf32>
  %c2 = fuser.mean %wdy dims = [1] keepdim = true : tensor<64x16384xf32> -> tensor<64x1xf32>
  %c1b = fuser.broadcast %c1 dims = [0, 1] : tensor<64x1xf32> -> tensor<64x16384xf32>
  %c2b = fuser.broadcast %c2 dims = [0, 1] : tensor<64x1xf32> -> tensor<64x16384xf32>
  %t1 = fuser.mul %xhat, %c1b : tensor<64x16384xf32>
  %t2 = fuser.sub %wdy, %t1 : tensor<64x16384xf32>
  %t3 = fuser.sub %t2, %c2b : tensor<64x16384xf32>
  %dxf = fuser.mul %t3, %rb : tensor<64x16384xf32>
  %dx = fuser.cast %dxf : tensor<64x16384xf32> to tensor<64x16384xbf16>
  %q = fuser.mul %dyf, %xhat : tensor<64x16384xf32>
  %dw = fuser.sum %q dims = [0] : tensor<64x16384xf32> -> tensor<16384xf32>
  %db = fuser.sum %dyf dims = [0] : tensor<64x16384xf32> -> tensor<16384xf32>
  return %dx, %dw, %db : tensor<64x16384xbf16>, tensor<16384xf32>, tensor<16384xf32>
}
