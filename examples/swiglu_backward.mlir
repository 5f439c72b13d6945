// SwiGLU's backward, as a tracer emits it for y = silu(gate) * up (a Llama
// MLP's 11008-wide hidden layer, 4096 tokens): bf16 gate, up and incoming
// gradient dy, f32 compute, two bf16 outputs, the formulas torch.autograd
// computes:
//   d_up   = dy * silu(gate)
//   d_gate = dy * up * s * (1 + gate * (1 - s)),  s = sigmoid(gate)
// One pointwise kernel: gate, up and dy read once, d_gate and d_up written
// once; sigmoid(gate) is computed once for both outputs.
func.func @swiglu_backward(%gate: tensor<4096x11008xbf16>, %up: tensor<4096x11008xbf16>,
                           %dy: tensor<4096x11008xbf16>)
    -> (tensor<4096x11008xbf16>, tensor<4096x11008xbf16>) {
  %gf = fuser.cast %gate : tensor<4096x11008xbf16> to tensor<4096x11008xf32>
  %uf = fuser.cast %up : tensor<4096x11008xbf16> to tensor<4096x11008xf32>
  %dyf = fuser.cast %dy : tensor<4096x11008xbf16> to tensor<4096x11008xf32>
  %one = fuser.constant 1.0 : tensor<f32>
  %s = fuser.sigmoid %gf : tensor<4096x11008xf32>
  %silu = fuser.mul %gf, %s : tensor<4096x11008xf32>
  %duf = fuser.mul %dyf, %silu : tensor<4096x11008xf32>
  %oms = fuser.sub %one, %s : tensor<f32>, tensor<4096x11008xf32>
  %t = fuser.mul %gf, %oms : tensor<4096x11008xf32>
  %t1 = fuser.add %one, %t : tensor<f32>, tensor<4096x11008xf32>
  %dsilu = fuser.mul %s, %t1 : tensor<4096x11008xf32>
  %dyu = fuser.mul %dyf, %uf : tensor<4096x11008xf32>
  %dgf = fuser.mul %dyu, %dsilu : tensor<4096x11008xf32>
  %dgate = fuser.cast %dgf : tensor<4096x11008xf32> to tensor<4096x11008xbf16>
  %dup = fuser.cast %duf : tensor<4096x11008xf32> to tensor<4096x11008xbf16>
  return %dgate, %dup : tensor<4096x11008xbf16>, tensor<4096x11008xbf16>
}
