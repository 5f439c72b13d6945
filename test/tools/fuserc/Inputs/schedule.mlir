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

// Row and column reductions of one tensor (an inner-outer kernel), on
// small integers (floor of 4x the random inputs) so that every column sum
// is exact: its bits do not depend on how the grid splits the rows.
func.func @dxdw(%x: tensor<?x512xf32>, %dy: tensor<?x512xf32>)
    -> (tensor<?x512xf32>, tensor<512xf32>, tensor<512xf32>) {
  %four = fuser.constant 4.0 : tensor<f32>
  %fourb = fuser.broadcast %four dims = [] : tensor<f32> -> tensor<?x512xf32>
  %x4 = fuser.mul %x, %fourb : tensor<?x512xf32>
  %dy4 = fuser.mul %dy, %fourb : tensor<?x512xf32>
  %xi = fuser.floor %x4 : tensor<?x512xf32>
  %di = fuser.floor %dy4 : tensor<?x512xf32>
  %p = fuser.mul %xi, %di : tensor<?x512xf32>
  %s = fuser.sum %p dims = [1] keepdim = true : tensor<?x512xf32> -> tensor<?x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<?x1xf32> -> tensor<?x512xf32>
  %dx = fuser.sub %di, %sb : tensor<?x512xf32>
  %dw = fuser.sum %p dims = [0] : tensor<?x512xf32> -> tensor<512xf32>
  %db = fuser.sum %di dims = [0] : tensor<?x512xf32> -> tensor<512xf32>
  return %dx, %dw, %db : tensor<?x512xf32>, tensor<512xf32>, tensor<512xf32>
}

// A transpose: x is read across its contiguous dim. Its tile, the threads
// along it and the grid's cap are the transpose.* keys.
func.func @perm(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %t = fuser.permute %x perm = [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %0 = fuser.add %t, %y : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Row reductions: a normalization whose row length is known at launch, and
// a sum with static rows. The reduction.* keys move rows among blocks and
// the grid's cap, never a row's order of accumulation.
func.func @rownorm(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = fuser.sum %x dims = [1] keepdim = true : tensor<?x?xf32> -> tensor<?x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %0 = fuser.div %x, %sb : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @rowsum(%x: tensor<?x100xf32>) -> tensor<?xf32> {
  %0 = fuser.sum %x dims = [1] : tensor<?x100xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
