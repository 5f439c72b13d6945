// softmax's backward along dim 0, the leading (non-contiguous) dim, as a
// tracer emits it for torch.softmax(x, dim=0): the forward's bf16 output y
// and the incoming bf16 gradient dy, f32 compute, bf16 dx = y * (dy -
// sum over dim 0 of y * dy). The 128 positions of each column stay on chip:
// one kernel whose blocks each hold whole columns, y and dy read once
// (docs/schedulers.md, outer normalizations). Columns longer than 256
// positions take a split column sum and a pointwise kernel instead.
func.func @softmax_backward_dim0(%y: tensor<128x8192xbf16>, %dy: tensor<128x8192xbf16>) -> tensor<128x8192xbf16> {
  %yf = fuser.cast %y : tensor<128x8192xbf16> to tensor<128x8192xf32>
  %dyf = fuser.cast %dy : tensor<128x8192xbf16> to tensor<128x8192xf32>
  %p = fuser.mul %yf, %dyf : tensor<128x8192xf32>
  %s = fuser.sum %p dims = [0] : tensor<128x8192xf32> -> tensor<8192xf32>
  %sb = fuser.broadcast %s dims = [1] : tensor<8192xf32> -> tensor<128x8192xf32>
  %d = fuser.sub %dyf, %sb : tensor<128x8192xf32>
  %dxf = fuser.mul %yf, %d : tensor<128x8192xf32>
  %dx = fuser.cast %dxf : tensor<128x8192xf32> to tensor<128x8192xbf16>
  return %dx : tensor<128x8192xbf16>
}
