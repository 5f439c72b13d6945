// The sharding rules of fuser's ops (lib/Dialect/Fuser/Sharding), through
// upstream's sharding-propagation and shard-partition: each function is what
// one device of the grid runs.
// RUN: fuser-opt %s --fuser-partition | FileCheck %s

shard.grid @grid(shape = 2)
shard.grid @grid2d(shape = 2x2)

// Elementwise: each device computes its rows; a rank-0 operand is whole.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>, %[[C:.*]]: tensor<f32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[E:.*]] = fuser.exp %[[X]] : tensor<4x16xf32>
// CHECK-NEXT: %[[M:.*]] = fuser.mul %[[E]], %[[C]] : tensor<4x16xf32>, tensor<f32>
// CHECK-NEXT: return %[[M]]
func.func @elementwise(%x: tensor<8x16xf32>, %c: tensor<f32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %e = fuser.exp %xs : tensor<8x16xf32>
  %m = fuser.mul %e, %c : tensor<8x16xf32>, tensor<f32>
  return %m : tensor<8x16xf32>
}

// Over two grid axes at once: 8 rows over 4 devices.
// CHECK-LABEL: func.func @two_axes
// CHECK-SAME: tensor<2x6xbf16>
func.func @two_axes(%x: tensor<8x6xbf16>) -> tensor<8x6xbf16> {
  %s = shard.sharding @grid2d split_axes = [[0, 1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x6xbf16>
  %y = fuser.neg %xs : tensor<8x6xbf16>
  return %y : tensor<8x6xbf16>
}

// A reduction over a split dim: each device reduces its part, an all_reduce
// of the op's kind combines them; keepdim's size-1 dim is never split.
// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32>, %[[B:.*]]: tensor<8x8xi1>)
// CHECK: %[[S:.*]] = fuser.sum %[[X]] dims = [1] keepdim = true : tensor<8x8xf32> -> tensor<8x1xf32>
// CHECK-NEXT: %[[SR:.*]] = shard.all_reduce %[[S]] on @grid grid_axes = [0] : tensor<8x1xf32> -> tensor<8x1xf32>
// CHECK: %[[MX:.*]] = fuser.max %[[X]] dims = [1]
// CHECK-NEXT: shard.all_reduce %[[MX]] on @grid grid_axes = [0] reduction = max
// CHECK: %[[MN:.*]] = fuser.min %[[X]] dims = [1]
// CHECK-NEXT: shard.all_reduce %[[MN]] on @grid grid_axes = [0] reduction = min
// CHECK: %[[P:.*]] = fuser.prod %[[X]] dims = [1]
// CHECK-NEXT: shard.all_reduce %[[P]] on @grid grid_axes = [0] reduction = product
// CHECK: %[[ME:.*]] = fuser.mean %[[X]] dims = [0, 1]
// CHECK-NEXT: shard.all_reduce %[[ME]] on @grid grid_axes = [0] reduction = average
// CHECK: %[[AN:.*]] = fuser.any %[[B]] dims = [1]
// CHECK-NEXT: shard.all_reduce %[[AN]] on @grid grid_axes = [0] reduction = bitwise_or
// CHECK: %[[AL:.*]] = fuser.all %[[B]] dims = [1]
// CHECK-NEXT: shard.all_reduce %[[AL]] on @grid grid_axes = [0] reduction = bitwise_and
func.func @reductions(%x: tensor<8x16xf32>, %b: tensor<8x16xi1>)
    -> (tensor<8x1xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xi1>, tensor<8xi1>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %bs = shard.shard %b to %s : tensor<8x16xi1>
  %0 = fuser.sum %xs dims = [1] keepdim = true : tensor<8x16xf32> -> tensor<8x1xf32>
  %1 = fuser.max %xs dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %2 = fuser.min %xs dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %3 = fuser.prod %xs dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %4 = fuser.mean %xs dims = [0, 1] : tensor<8x16xf32> -> tensor<f32>
  %5 = fuser.any %bs dims = [1] : tensor<8x16xi1> -> tensor<8xi1>
  %6 = fuser.all %bs dims = [1] : tensor<8x16xi1> -> tensor<8xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<8x1xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xi1>, tensor<8xi1>
}

// A reduction along the other dims keeps the split: no collective.
// CHECK-LABEL: func.func @column_sum
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[S:.*]] = fuser.sum %[[X]] dims = [0] : tensor<8x8xf32> -> tensor<8xf32>
// CHECK-NEXT: return %[[S]]
func.func @column_sum(%x: tensor<8x16xf32>) -> tensor<16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %0 = fuser.sum %xs dims = [0] : tensor<8x16xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// broadcast and permute follow their dims; a size-1 dim that expands stays
// whole.
// CHECK-LABEL: func.func @broadcast_permute
// CHECK-SAME: (%[[R:.*]]: tensor<8x1xf32>, %[[B:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[RB:.*]] = fuser.broadcast %[[R]] dims = [0, 1] : tensor<8x1xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[BB:.*]] = fuser.broadcast %[[B]] dims = [0] : tensor<8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[S:.*]] = fuser.sub %[[Y]], %[[RB]]
// CHECK-NEXT: %[[A:.*]] = fuser.add %[[S]], %[[BB]]
// CHECK-NEXT: %[[T:.*]] = fuser.permute %[[A]] perm = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[T]]
func.func @broadcast_permute(%r: tensor<8x1xf32>, %b: tensor<8xf32>, %y: tensor<8x16xf32>) -> tensor<16x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %ys = shard.shard %y to %s : tensor<8x16xf32>
  %rb = fuser.broadcast %r dims = [0, 1] : tensor<8x1xf32> -> tensor<8x16xf32>
  %bb = fuser.broadcast %b dims = [0] : tensor<8xf32> -> tensor<8x16xf32>
  %0 = fuser.sub %ys, %rb : tensor<8x16xf32>, tensor<8x16xf32>
  %1 = fuser.add %0, %bb : tensor<8x16xf32>, tensor<8x16xf32>
  %2 = fuser.permute %1 perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  return %2 : tensor<16x8xf32>
}

// Ops that need whole lines never split them: the operand is gathered along
// the line first. Rows split, as sequence parallelism does, need nothing.
// CHECK-LABEL: func.func @whole_lines
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32>, %[[W:.*]]: tensor<16xf32>, %[[R:.*]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[G:.*]] = shard.all_gather %[[X]] on @grid grid_axes = [0] gather_axis = 1 : tensor<8x8xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[SM:.*]] = fuser.softmax %[[G]] dim = 1 : tensor<8x16xf32>
// CHECK-NEXT: %[[LN:.*]], %{{.*}}, %{{.*}} = fuser.layer_norm %[[R]] weight %[[W]] dims = [1]
// CHECK-SAME: -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
// CHECK-NEXT: %[[CS:.*]] = fuser.cumsum %[[G]] dim = 1 : tensor<8x16xf32>
// CHECK-NEXT: return %[[SM]], %[[LN]], %[[CS]]
func.func @whole_lines(%x: tensor<8x16xf32>, %w: tensor<16xf32>, %r: tensor<8x16xf32>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %rs = shard.shard %r to %rows : tensor<8x16xf32>
  %0 = fuser.softmax %xs dim = 1 : tensor<8x16xf32>
  %1, %m, %v = fuser.layer_norm %rs weight %w dims = [1] eps = 1.0e-05
      : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  %2 = fuser.cumsum %xs dim = 1 : tensor<8x16xf32>
  return %0, %1, %2 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// var_mean cannot combine parts: its line is gathered.
// CHECK-LABEL: func.func @var_mean
// CHECK: shard.all_gather
// CHECK-NEXT: fuser.var_mean %{{.*}} dims = [1] : tensor<8x16xf32> -> tensor<8xf32>, tensor<8xf32>
func.func @var_mean(%x: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %v, %m = fuser.var_mean %xs dims = [1] : tensor<8x16xf32> -> tensor<8xf32>, tensor<8xf32>
  return %v, %m : tensor<8xf32>, tensor<8xf32>
}

// Batched matmul split over the batch; a broadcast weight is whole. The
// contraction split gives an all_reduce; a whole operand is sliced locally
// (all_slice moves no data).
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x8x16xf32>, %[[B:.*]]: tensor<16x32xf32>, %[[P:.*]]: tensor<8x8xf32>, %[[Q:.*]]: tensor<16x4xf32>)
// CHECK-NEXT: %[[C:.*]] = fuser.matmul %[[A]], %[[B]] : (tensor<2x8x16xf32>, tensor<16x32xf32>) -> tensor<2x8x32xf32>
// CHECK-NEXT: %[[QS:.*]] = shard.all_slice %[[Q]] on @grid grid_axes = [0] slice_axis = 0 : tensor<16x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[D:.*]] = fuser.matmul %[[P]], %[[QS]] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[DR:.*]] = shard.all_reduce %[[D]] on @grid grid_axes = [0] : tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: return %[[C]], %[[DR]]
func.func @matmul(%a: tensor<4x8x16xf32>, %b: tensor<16x32xf32>, %p: tensor<8x16xf32>, %q: tensor<16x4xf32>)
    -> (tensor<4x8x32xf32>, tensor<8x4xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %as = shard.shard %a to %s : tensor<4x8x16xf32>
  %c = fuser.matmul %as, %b : (tensor<4x8x16xf32>, tensor<16x32xf32>) -> tensor<4x8x32xf32>
  %k = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %ps = shard.shard %p to %k : tensor<8x16xf32>
  %d = fuser.matmul %ps, %q : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c, %d : tensor<4x8x32xf32>, tensor<8x4xf32>
}

// reshape: a split of a group's first dim passes through (attention heads
// out of the hidden dim, a batch flattened with the sequence); a split of
// any other dim of a group, or where sizes are known only at launch, is
// gathered first.
// CHECK-LABEL: func.func @reshape_heads
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x32xf32>) -> tensor<2x8x2x16xf32>
// CHECK-NEXT: fuser.reshape %[[X]] : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
func.func @reshape_heads(%x: tensor<2x8x64xf32>) -> tensor<2x8x4x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x8x64xf32>
  %y = fuser.reshape %xs : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  return %y : tensor<2x8x4x16xf32>
}

// CHECK-LABEL: func.func @reshape_flatten
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x16xf32>) -> tensor<16x16xf32>
// CHECK-NEXT: fuser.reshape %[[X]] : tensor<2x8x16xf32> -> tensor<16x16xf32>
func.func @reshape_flatten(%x: tensor<4x8x16xf32>) -> tensor<32x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x8x16xf32>
  %y = fuser.reshape %xs : tensor<4x8x16xf32> -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}

// CHECK-LABEL: func.func @reshape_inner
// CHECK-SAME: (%[[X:.*]]: tensor<4x4x16xf32>) -> tensor<32x16xf32>
// CHECK-NEXT: %[[G:.*]] = shard.all_gather %[[X]] on @grid grid_axes = [0] gather_axis = 1 : tensor<4x4x16xf32> -> tensor<4x8x16xf32>
// CHECK-NEXT: fuser.reshape %[[G]] : tensor<4x8x16xf32> -> tensor<32x16xf32>
func.func @reshape_inner(%x: tensor<4x8x16xf32>) -> tensor<32x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x8x16xf32>
  %y = fuser.reshape %xs : tensor<4x8x16xf32> -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}

// CHECK-LABEL: func.func @reshape_ones
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x16xf32>) -> tensor<4x1x16xf32>
// CHECK-NEXT: fuser.reshape %[[X]] : tensor<1x4x16xf32> -> tensor<4x1x16xf32>
func.func @reshape_ones(%x: tensor<1x8x16xf32>) -> tensor<8x1x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x8x16xf32>
  %y = fuser.reshape %xs : tensor<1x8x16xf32> -> tensor<8x1x16xf32>
  return %y : tensor<8x1x16xf32>
}

// CHECK-LABEL: func.func @reshape_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>) -> tensor<?xf32>
// CHECK-NEXT: %[[G:.*]] = shard.all_gather %[[X]] on @grid grid_axes = [0] gather_axis = 0 : tensor<2x?xf32> -> tensor<4x?xf32>
// CHECK-NEXT: fuser.reshape %[[G]] : tensor<4x?xf32> -> tensor<?xf32>
func.func @reshape_dynamic(%x: tensor<4x?xf32>) -> tensor<?xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x?xf32>
  %y = fuser.reshape %xs : tensor<4x?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// slice, pad, concat: a split passes through the dims they keep whole.
// Rotary embeddings on attention heads split over the devices: the halves
// of the head dim are sliced and concatenated on each device; the whole
// cos table is sliced locally (all_slice moves no data).
// CHECK-LABEL: func.func @rope_heads
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x2x16xf32>, %[[C:.*]]: tensor<2x4x4x16xf32>)
// CHECK-NEXT: %[[LO:.*]] = fuser.slice %[[X]] start = [0, 0, 0, 0] limit = [2, 4, 2, 8] step = [1, 1, 1, 1]
// CHECK-NEXT: %[[HI:.*]] = fuser.slice %[[X]] start = [0, 0, 0, 8] limit = [2, 4, 2, 16] step = [1, 1, 1, 1]
// CHECK-NEXT: %[[N:.*]] = fuser.neg %[[HI]]
// CHECK-NEXT: %[[R:.*]] = fuser.concat %[[N]], %[[LO]] dim = 3
// CHECK-NEXT: %[[CS:.*]] = shard.all_slice %[[C]] on @grid grid_axes = [0] slice_axis = 2 : tensor<2x4x4x16xf32> -> tensor<2x4x2x16xf32>
// CHECK-NEXT: fuser.mul %[[R]], %[[CS]]
func.func @rope_heads(%x: tensor<2x4x4x16xf32>, %c: tensor<2x4x4x16xf32>) -> tensor<2x4x4x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x4x4x16xf32>
  %lo = fuser.slice %xs start = [0, 0, 0, 0] limit = [2, 4, 4, 8] step = [1, 1, 1, 1] : tensor<2x4x4x16xf32> -> tensor<2x4x4x8xf32>
  %hi = fuser.slice %xs start = [0, 0, 0, 8] limit = [2, 4, 4, 16] step = [1, 1, 1, 1] : tensor<2x4x4x16xf32> -> tensor<2x4x4x8xf32>
  %nhi = fuser.neg %hi : tensor<2x4x4x8xf32>
  %rot = fuser.concat %nhi, %lo dim = 3 : tensor<2x4x4x8xf32>, tensor<2x4x4x8xf32> -> tensor<2x4x4x16xf32>
  %y = fuser.mul %rot, %c : tensor<2x4x4x16xf32>, tensor<2x4x4x16xf32>
  return %y : tensor<2x4x4x16xf32>
}

// A slice of the split dim needs it whole.
// CHECK-LABEL: func.func @slice_split_dim
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[G:.*]] = shard.all_gather %[[X]] on @grid grid_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: fuser.slice %[[G]] start = [2, 0]
func.func @slice_split_dim(%x: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %z = fuser.slice %xs start = [2, 0] limit = [6, 16] step = [1, 1] : tensor<8x16xf32> -> tensor<4x16xf32>
  return %z : tensor<4x16xf32>
}

// index_select (an embedding lookup): tokens split over the devices look
// up their own rows; a table split by columns gives each device its
// columns; a table split over the vocabulary is gathered first.
// CHECK-LABEL: func.func @embedding_tokens
// CHECK-SAME: (%[[T:.*]]: tensor<8x16xf32>, %[[I:.*]]: tensor<3xi64>) -> tensor<3x16xf32>
// CHECK-NEXT: fuser.index_select %[[T]], %[[I]] dim = 0 : tensor<8x16xf32>, tensor<3xi64> -> tensor<3x16xf32>
func.func @embedding_tokens(%t: tensor<8x16xf32>, %i: tensor<6xi64>) -> tensor<6x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %is = shard.shard %i to %s : tensor<6xi64>
  %z = fuser.index_select %t, %is dim = 0 : tensor<8x16xf32>, tensor<6xi64> -> tensor<6x16xf32>
  return %z : tensor<6x16xf32>
}

// CHECK-LABEL: func.func @embedding_columns
// CHECK-SAME: (%[[T:.*]]: tensor<8x8xf32>, %[[I:.*]]: tensor<6xi64>) -> tensor<6x8xf32>
// CHECK-NEXT: fuser.index_select %[[T]], %[[I]] dim = 0 : tensor<8x8xf32>, tensor<6xi64> -> tensor<6x8xf32>
func.func @embedding_columns(%t: tensor<8x16xf32>, %i: tensor<6xi64>) -> tensor<6x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %ts = shard.shard %t to %s : tensor<8x16xf32>
  %z = fuser.index_select %ts, %i dim = 0 : tensor<8x16xf32>, tensor<6xi64> -> tensor<6x16xf32>
  return %z : tensor<6x16xf32>
}

// CHECK-LABEL: func.func @embedding_vocabulary
// CHECK-SAME: (%[[T:.*]]: tensor<4x16xf32>, %[[I:.*]]: tensor<3xi64>)
// CHECK-NEXT: %[[G:.*]] = shard.all_gather %[[T]] on @grid grid_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: fuser.index_select %[[G]], %[[I]]
func.func @embedding_vocabulary(%t: tensor<8x16xf32>, %i: tensor<3xi64>) -> tensor<3x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %ts = shard.shard %t to %s : tensor<8x16xf32>
  %z = fuser.index_select %ts, %i dim = 0 : tensor<8x16xf32>, tensor<3xi64> -> tensor<3x16xf32>
  return %z : tensor<3x16xf32>
}

// Nothing annotated: every device runs the fusion as it is.
// CHECK-LABEL: func.func @unsharded
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>) -> tensor<128xf32>
// CHECK-NEXT: %[[S:.*]] = fuser.softmax %[[X]] dim = 1 : tensor<8x16xf32>
// CHECK-NEXT: %[[R:.*]] = fuser.reshape %[[S]] : tensor<8x16xf32> -> tensor<128xf32>
func.func @unsharded(%x: tensor<8x16xf32>) -> tensor<128xf32> {
  %0 = fuser.softmax %x dim = 1 : tensor<8x16xf32>
  %1 = fuser.reshape %0 : tensor<8x16xf32> -> tensor<128xf32>
  return %1 : tensor<128xf32>
}
