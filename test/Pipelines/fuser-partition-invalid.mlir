// What the partition cannot do is a diagnostic, never a crash.
// RUN: fuser-opt %s --split-input-file --fuser-partition --verify-diagnostics

shard.grid @grid(shape = 2x2)

// A softmax needs its line whole; upstream's resharding cannot gather a dim
// split over two axes at once (it left the operand null, and cloning the
// op crashed).
func.func @two_axes_line(%x: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x3xf32>
  // expected-error @+1 {{'fuser.softmax' op cannot take operand 0 split [[0, 1]] as it needs it split, [[]]: the partition changes a split one grid axis at a time (gathers the last axis of a dim, or splits a dim over one more axis), not more at once nor from one axis to another; reshard it in steps, annotating it [[0]] first (a shard.shard each)}}
  %0 = fuser.softmax %xs dim = 0 : tensor<8x3xf32>
  %r = shard.shard %0 to %s : tensor<8x3xf32>
  return %r : tensor<8x3xf32>
}

// -----

// A sharding that is not a shard.sharding op, read by an op: upstream's
// propagation dereferenced null before fuser's check after it ran (found by
// review); the annotations as written are checked first.
func.func @sharding_argument(%x: tensor<8xf32>, %s: !shard.sharding) -> tensor<8xf32> {
  // expected-error @+1 {{the sharding of a shard.shard must be a shard.sharding op of the same function (fuser reads annotations as written)}}
  %xs = shard.shard %x to %s : tensor<8xf32>
  %e = fuser.exp %xs : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

// split_axes for more dims than the tensor has: upstream's propagation
// built a sharding without its grid, and fuserc called the invalid IR it
// left fuser's bug (found by a crash hunt).
shard.grid @grid1(shape = 2)
func.func @rank0_entries(%x: tensor<f32>) -> tensor<f32> {
  %s = shard.sharding @grid1 split_axes = [[]] : !shard.sharding
  // expected-error @+1 {{sharding lists split axes for 1 dims of 'tensor<f32>', which has 0 (a rank-0 tensor is whole on every device: leave it unannotated)}}
  %xs = shard.shard %x to %s : tensor<f32>
  %e = fuser.exp %xs : tensor<f32>
  return %e : tensor<f32>
}

// -----

// A value annotated split, and read directly too: the direct read was
// partitioned as a whole tensor of the part's type (invalid IR, found by a
// crash hunt).
shard.grid @grid1(shape = 2)
func.func @split_and_read_whole(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid1 split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %y = fuser.softmax %xs dim = 0 : tensor<8x16xf32>
  // expected-error @+1 {{reads 'tensor<8x16xf32>' directly, though a shard.shard annotates it split: read the annotation's result, or give this use its own annotation (annotate_for_users)}}
  %z = fuser.softmax %x dim = 0 : tensor<8x16xf32>
  %r = fuser.add %y, %z : tensor<8x16xf32>, tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// A result annotated with a split the partition cannot reach from its
// value's: upstream's model of func.return cloned it on whatever part the
// resharding made. Whole to split over both axes returned a part split
// over axis 0 only (a wrong result that ran); a move from axis 0 to axis 1
// left it null (a crash).
shard.grid @grid(shape = 2x2)
func.func @whole_to_two_axes(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %t = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %r = shard.shard %xs to %t : tensor<4x6x8xf32>
  // expected-error @+1 {{'func.return' op cannot take operand 0 split [[]] as it needs it split, [[0], [1]] (a part of type 'tensor<2x3x8xf32>'; the partition made 'tensor<2x6x8xf32>'): the partition changes a split one grid axis at a time (gathers the last axis of a dim, or splits a dim over one more axis), not more at once nor from one axis to another; reshard it in steps, annotating it [[0]] first (a shard.shard each)}}
  return %r : tensor<4x6x8xf32>
}

// -----

shard.grid @grid(shape = 2x2)
func.func @axis_move(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %t = shard.sharding @grid split_axes = [[1]] : !shard.sharding
  %r = shard.shard %xs to %t : tensor<4x6x8xf32>
  // expected-error @+1 {{'func.return' op cannot take operand 0 split [[0]] as it needs it split, [[1]]: the partition changes a split one grid axis at a time}}
  return %r : tensor<4x6x8xf32>
}

// -----

// Swapped axes at the return: an internal error after the stage before.
shard.grid @grid(shape = 2x2)
func.func @swapped(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x6x8xf32>
  %e = fuser.exp %xs : tensor<4x6x8xf32>
  %es = shard.shard %e to %s : tensor<4x6x8xf32>
  %t = shard.sharding @grid split_axes = [[1], [0]] : !shard.sharding
  %r = shard.shard %es to %t : tensor<4x6x8xf32>
  // expected-error @+1 {{reshard it in steps, annotating it [[], [1]], then [[]], then [[1]] first (a shard.shard each)}}
  return %r : tensor<4x6x8xf32>
}
