// RUN: fuser-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fuser-check-sharding))' --verify-diagnostics

shard.grid @grid(shape = 2)
func.func @uneven(%x: tensor<7x16xf32>) -> tensor<7x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{dim 0 of 'tensor<7x16xf32>' (size 7) is split over grid @grid axes [0] (2 devices), which does not divide it: every device must get an equal part}}
  %xs = shard.shard %x to %s : tensor<7x16xf32>
  return %xs : tensor<7x16xf32>
}

// -----

shard.grid @grid(shape = 2x3)
func.func @uneven_two_axes(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  // expected-error @+1 {{dim 0 of 'tensor<8x16xf32>' (size 8) is split over grid @grid axes [0, 1] (6 devices), which does not divide it}}
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  return %xs : tensor<8x16xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @dynamic_dim(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{dim 0 of 'tensor<?x16xf32>' is split over grid @grid axes [0] but its size is known only at launch: a split dim must be static, so that every device gets an equal part}}
  %xs = shard.shard %x to %s : tensor<?x16xf32>
  return %xs : tensor<?x16xf32>
}

// -----

shard.grid @grid(shape = ?)
func.func @dynamic_grid(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{dim 0 of 'tensor<8x16xf32>' is split over grid @grid axes [0], whose size is known only at launch: fuser needs grid sizes in the IR}}
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  return %xs : tensor<8x16xf32>
}

// -----

// A grid axis of no devices: the split's size check divided by it (found by
// make fuzz).
// expected-error @+1 {{grid @grid has an axis of size 0 (shape 0): every axis of a grid holds at least one device}}
shard.grid @grid(shape = 0)
func.func @empty_grid_axis(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  return %xs : tensor<8x16xf32>
}

// -----

// Even an axis that splits nothing here.
// expected-error @+1 {{grid @grid has an axis of size 0 (shape 2x0): every axis of a grid holds at least one device}}
shard.grid @grid(shape = 2x0)
func.func @empty_unused_grid_axis(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  return %xs : tensor<8x16xf32>
}

// -----

// More devices than an int counts: their product overflowed to 0 (a
// division by zero, found by review).
// expected-error @+1 {{grid @grid (shape 4294967296x4294967296) holds more than 2147483647 devices, the most NCCL ranks}}
shard.grid @grid(shape = 4294967296x4294967296)
func.func @overflowing_grid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8xf32>
  return %xs : tensor<8xf32>
}

// -----

// A sharding that is not a shard.sharding op (an argument here; also
// shard.get_sharding or a select): upstream's passes read through it
// without a check (a null dereference, found by review).
func.func @sharding_argument(%x: tensor<8xf32>, %s: !shard.sharding) -> tensor<8xf32> {
  // expected-error @+1 {{the sharding of a shard.shard must be a shard.sharding op of the same function (fuser reads annotations as written)}}
  %xs = shard.shard %x to %s : tensor<8xf32>
  return %xs : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @offsets(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] sharded_dims_offsets = [0, 3, 8] : !shard.sharding
  // expected-error @+1 {{uneven parts (sharded_dims_offsets) are not supported: fuser splits a dim into equal parts}}
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  return %xs : tensor<8x16xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @halos(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  // expected-error @+1 {{halos (halo_sizes) are not supported}}
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  return %xs : tensor<8x16xf32>
}

// -----

// Even parts pass, and a value only its users annotate gets its own
// annotation (whole), which shard-partition needs.
shard.grid @grid(shape = 2)
func.func @even(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>
  return %xs : tensor<8x16xf32>
}
