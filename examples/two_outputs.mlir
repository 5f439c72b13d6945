// Two outputs from one kernel: the pre-activation and the activation.
func.func @two_outputs(%x: tensor<4096x4096xf16>, %bias: tensor<4096xf16>)
    -> (tensor<4096x4096xf16>, tensor<4096x4096xf16>) {
  %b = fuser.broadcast %bias dims = [1] : tensor<4096xf16> -> tensor<4096x4096xf16>
  %pre = fuser.add %x, %b : tensor<4096x4096xf16>
  %act = fuser.relu %pre : tensor<4096x4096xf16>
  return %pre, %act : tensor<4096x4096xf16>, tensor<4096x4096xf16>
}
