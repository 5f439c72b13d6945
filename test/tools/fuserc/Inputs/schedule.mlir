// Pointwise work of every kind a schedule override touches: a flat dynamic
// space (vector loop, chunk loop, remainder and scalar tail), a broadcast
// input kept in a register, and two outputs.
func.func @act(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = fuser.add %x, %y : tensor<?xf32>
  %1 = fuser.gelu %0 approximate = tanh : tensor<?xf32>
  %2 = fuser.sigmoid %x : tensor<?xf32>
  return %1, %2 : tensor<?xf32>, tensor<?xf32>
}

func.func @rows(%x: tensor<?x100xbf16>, %b: tensor<100xbf16>) -> tensor<?x100xbf16> {
  %bb = fuser.broadcast %b dims = [1] : tensor<100xbf16> -> tensor<?x100xbf16>
  %0 = fuser.mul %x, %bb : tensor<?x100xbf16>
  %1 = fuser.silu %0 : tensor<?x100xbf16>
  return %1 : tensor<?x100xbf16>
}
