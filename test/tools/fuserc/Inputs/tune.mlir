// fuserc tune's inputs (tune.test).

// Pointwise, one kernel: the pointwise.* keys move it.
func.func @scale(%x: tensor<1027xf32>, %y: tensor<1027xf32>) -> tensor<1027xf32> {
  %0 = fuser.mul %x, %y : tensor<1027xf32>
  return %0 : tensor<1027xf32>
}

// The same fusion under other names, SSA and argument names: the same
// tuning hash.
func.func @renamed(%a: tensor<1027xf32>, %b: tensor<1027xf32>) -> tensor<1027xf32> {
  %product = fuser.mul %a, %b : tensor<1027xf32>
  return %product : tensor<1027xf32>
}

// Another op: another hash.
func.func @sum_of(%x: tensor<1027xf32>, %y: tensor<1027xf32>) -> tensor<1027xf32> {
  %0 = fuser.add %x, %y : tensor<1027xf32>
  return %0 : tensor<1027xf32>
}

// Dynamic sizes: tuned at the sizes --dims gives.
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fuser.exp %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Its own schedule wins over any tuning: not tuned.
func.func @pinned(%x: tensor<1027xf32>) -> tensor<1027xf32>
    attributes {fuser.schedule = #fuser.schedule<pointwise.block = 64>} {
  %0 = fuser.neg %x : tensor<1027xf32>
  return %0 : tensor<1027xf32>
}

// A row reduction: the reduction.* keys move its blocks, never a row's
// order of accumulation.
func.func @row_sum(%x: tensor<300x100xf32>) -> tensor<300xf32> {
  %0 = fuser.sum %x dims = [1] : tensor<300x100xf32> -> tensor<300xf32>
  return %0 : tensor<300xf32>
}

// A column reduction: no key reaches its kernels yet.
func.func @col_sum(%x: tensor<64x100xf32>) -> tensor<100xf32> {
  %0 = fuser.sum %x dims = [0] : tensor<64x100xf32> -> tensor<100xf32>
  return %0 : tensor<100xf32>
}
