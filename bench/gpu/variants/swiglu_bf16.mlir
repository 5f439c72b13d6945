// Schedule variants: SwiGLU's pointwise part, silu(gate) * up in bf16 (f32 compute), rows of 11008.
func.func @swiglu_bf16(%gate: tensor<?x11008xbf16>, %up: tensor<?x11008xbf16>) -> tensor<?x11008xbf16> {
  %s = fuser.silu %gate : tensor<?x11008xbf16>
  %0 = fuser.mul %s, %up : tensor<?x11008xbf16>
  return %0 : tensor<?x11008xbf16>
}
