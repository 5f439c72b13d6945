// The backward of the tanh-approximate GELU (torch.nn.functional.gelu(x,
// approximate='tanh')), as a tracer emits it: bf16 x and incoming gradient
// dy, f32 compute, bf16 dx = dy * gelu'(x), with PyTorch's formula for
// d/dx 0.5 x (1 + tanh(k (x + c x^3))), k = sqrt(2/pi), c = 0.044715:
//   0.5 (1 + tanh(u)) + 0.5 x (1 - tanh(u)^2) k (1 + 3 c x^2)
// One pointwise kernel: x and dy read once, dx written once.
func.func @gelu_backward(%x: tensor<4096x4096xbf16>, %dy: tensor<4096x4096xbf16>)
    -> tensor<4096x4096xbf16> {
  %xf = fuser.cast %x : tensor<4096x4096xbf16> to tensor<4096x4096xf32>
  %dyf = fuser.cast %dy : tensor<4096x4096xbf16> to tensor<4096x4096xf32>
  %half = fuser.constant 0.5 : tensor<f32>
  %one = fuser.constant 1.0 : tensor<f32>
  %k = fuser.constant 0.797884583 : tensor<f32>
  %c = fuser.constant 0.044715 : tensor<f32>
  %c3 = fuser.constant 0.134145 : tensor<f32>
  %x2 = fuser.mul %xf, %xf : tensor<4096x4096xf32>
  %x3 = fuser.mul %x2, %xf : tensor<4096x4096xf32>
  %cx3 = fuser.mul %c, %x3 : tensor<f32>, tensor<4096x4096xf32>
  %in0 = fuser.add %xf, %cx3 : tensor<4096x4096xf32>
  %in = fuser.mul %k, %in0 : tensor<f32>, tensor<4096x4096xf32>
  %th = fuser.tanh %in : tensor<4096x4096xf32>
  %a = fuser.add %one, %th : tensor<f32>, tensor<4096x4096xf32>
  %left = fuser.mul %half, %a : tensor<f32>, tensor<4096x4096xf32>
  %th2 = fuser.mul %th, %th : tensor<4096x4096xf32>
  %sech2 = fuser.sub %one, %th2 : tensor<f32>, tensor<4096x4096xf32>
  %c3x2 = fuser.mul %c3, %x2 : tensor<f32>, tensor<4096x4096xf32>
  %d0 = fuser.add %one, %c3x2 : tensor<f32>, tensor<4096x4096xf32>
  %d1 = fuser.mul %k, %d0 : tensor<f32>, tensor<4096x4096xf32>
  %d2 = fuser.mul %sech2, %d1 : tensor<4096x4096xf32>
  %d3 = fuser.mul %xf, %d2 : tensor<4096x4096xf32>
  %right = fuser.mul %half, %d3 : tensor<f32>, tensor<4096x4096xf32>
  %grad = fuser.add %left, %right : tensor<4096x4096xf32>
  %dxf = fuser.mul %dyf, %grad : tensor<4096x4096xf32>
  %dx = fuser.cast %dxf : tensor<4096x4096xf32> to tensor<4096x4096xbf16>
  return %dx : tensor<4096x4096xbf16>
}
