// Row reductions of a length known at compile time, on small integers
// (floor of 4x the random inputs) so that every row sum is exact: its bits
// do not depend on how many threads add the row (reduction.threads), only
// where the row lives (registers, shared memory, read again) and the
// launch shape do.

// f32 rows of 3000 (750 vector units): 256 threads hold 12 values each by
// default; 32 or 64 threads leave 96 or 48, more than the registers hold
// (32): the row is read again per pass.
func.func @norm3000(%x: tensor<?x3000xf32>) -> (tensor<?x3000xf32>, tensor<?x1xf32>) {
  %four = fuser.constant 4.0 : tensor<f32>
  %fourb = fuser.broadcast %four dims = [] : tensor<f32> -> tensor<?x3000xf32>
  %x4 = fuser.mul %x, %fourb : tensor<?x3000xf32>
  %xi = fuser.floor %x4 : tensor<?x3000xf32>
  %s = fuser.sum %xi dims = [1] keepdim = true : tensor<?x3000xf32> -> tensor<?x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<?x1xf32> -> tensor<?x3000xf32>
  %0 = fuser.sub %xi, %sb : tensor<?x3000xf32>
  return %0, %s : tensor<?x3000xf32>, tensor<?x1xf32>
}

// bf16 rows of 40000 (5000 units of 8): 512 threads of 80 values (two a
// register) by default; 256 threads would need 160: read again.
func.func @half40000(%x: tensor<?x40000xbf16>) -> tensor<?x40000xf32> {
  %xf = fuser.cast %x : tensor<?x40000xbf16> to tensor<?x40000xf32>
  %four = fuser.constant 4.0 : tensor<f32>
  %fourb = fuser.broadcast %four dims = [] : tensor<f32> -> tensor<?x40000xf32>
  %x4 = fuser.mul %xf, %fourb : tensor<?x40000xf32>
  %xi = fuser.floor %x4 : tensor<?x40000xf32>
  %s = fuser.sum %xi dims = [1] keepdim = true : tensor<?x40000xf32> -> tensor<?x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<?x1xf32> -> tensor<?x40000xf32>
  %0 = fuser.sub %xi, %sb : tensor<?x40000xf32>
  return %0 : tensor<?x40000xf32>
}

// bf16 rows of 60000: 512 threads, the values past 64 a thread in shared
// memory (RowInShared.cpp) by default.
func.func @half60000(%x: tensor<?x60000xbf16>) -> tensor<?x60000xf32> {
  %xf = fuser.cast %x : tensor<?x60000xbf16> to tensor<?x60000xf32>
  %four = fuser.constant 4.0 : tensor<f32>
  %fourb = fuser.broadcast %four dims = [] : tensor<f32> -> tensor<?x60000xf32>
  %x4 = fuser.mul %xf, %fourb : tensor<?x60000xf32>
  %xi = fuser.floor %x4 : tensor<?x60000xf32>
  %s = fuser.sum %xi dims = [1] keepdim = true : tensor<?x60000xf32> -> tensor<?x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<?x1xf32> -> tensor<?x60000xf32>
  %0 = fuser.sub %xi, %sb : tensor<?x60000xf32>
  return %0 : tensor<?x60000xf32>
}

// A plain row sum (no pass after it) of rows of 100.
func.func @sum100(%x: tensor<?x100xf32>) -> tensor<?xf32> {
  %four = fuser.constant 4.0 : tensor<f32>
  %fourb = fuser.broadcast %four dims = [] : tensor<f32> -> tensor<?x100xf32>
  %x4 = fuser.mul %x, %fourb : tensor<?x100xf32>
  %xi = fuser.floor %x4 : tensor<?x100xf32>
  %0 = fuser.sum %xi dims = [1] : tensor<?x100xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// A column sum (an outer reduction) of exact values: reduction.splits cuts
// its rows among blocks whose partials the last one adds.
func.func @colsum(%x: tensor<?x96xf32>) -> tensor<96xf32> {
  %four = fuser.constant 4.0 : tensor<f32>
  %fourb = fuser.broadcast %four dims = [] : tensor<f32> -> tensor<?x96xf32>
  %x4 = fuser.mul %x, %fourb : tensor<?x96xf32>
  %xi = fuser.floor %x4 : tensor<?x96xf32>
  %0 = fuser.sum %xi dims = [0] : tensor<?x96xf32> -> tensor<96xf32>
  return %0 : tensor<96xf32>
}

// A whole-tensor sum of a length known at launch: one row, split by the
// plan when it is long.
func.func @total(%x: tensor<?xf32>) -> tensor<f32> {
  %four = fuser.constant 4.0 : tensor<f32>
  %fourb = fuser.broadcast %four dims = [] : tensor<f32> -> tensor<?xf32>
  %x4 = fuser.mul %x, %fourb : tensor<?xf32>
  %xi = fuser.floor %x4 : tensor<?xf32>
  %0 = fuser.sum %xi dims = [0] : tensor<?xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
