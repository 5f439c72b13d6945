// What the partition cannot do is a diagnostic, never a crash.
// RUN: fuser-opt %s --split-input-file --fuser-partition --verify-diagnostics

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
