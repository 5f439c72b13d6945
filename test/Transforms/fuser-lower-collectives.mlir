// fuser-lower-collectives: the shard dialect's collectives become
// fuser.collective over a leading dim of parts, with the permutes and
// reshapes that bring the split dim there and back.
// RUN: fuser-opt %s --split-input-file --fuser-lower-collectives --verify-diagnostics | FileCheck %s

// The grid nothing names any more is erased.
// CHECK-NOT: shard.grid
shard.grid @grid(shape = 2x4)

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<8xf32>, %b: tensor<8xi1>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi1>, tensor<8xi1>) {
  // CHECK: fuser.collective "all_reduce" %{{.*}} reduction = "sum" grid_axes = [1] group_size = 4
  %0 = shard.all_reduce %x on @grid grid_axes = [1] : tensor<8xf32> -> tensor<8xf32>
  // A float max or min also reduces an any-NaN flag: NCCL's fmaxf and
  // fminf drop a NaN that torch's max and min keep.
  // CHECK: %[[MAX:.*]] = fuser.collective "all_reduce" %[[X:.*]] reduction = "max" grid_axes = [0] group_size = 2 : tensor<8xf32>
  // CHECK-NEXT: %[[NAN:.*]] = fuser.isnan %[[X]] : tensor<8xf32>
  // CHECK-NEXT: %[[ANY:.*]] = fuser.collective "all_reduce" %[[NAN]] reduction = "max" grid_axes = [0] group_size = 2 : tensor<8xi1> -> tensor<8xi1>
  // CHECK-NEXT: %[[C:.*]] = fuser.constant nan : tensor<f32>
  // CHECK-NEXT: fuser.where %[[ANY]], %[[C]], %[[MAX]]
  %1 = shard.all_reduce %x on @grid grid_axes = [0] reduction = max : tensor<8xf32> -> tensor<8xf32>
  // CHECK: fuser.collective "all_reduce" %{{.*}} reduction = "min" grid_axes = [0, 1] group_size = 8
  %2 = shard.all_reduce %x on @grid grid_axes = [0, 1] reduction = min : tensor<8xf32> -> tensor<8xf32>
  // CHECK: fuser.isnan
  // CHECK: fuser.where
  // CHECK: fuser.collective "all_reduce" %{{.*}} reduction = "prod"
  // CHECK-NOT: fuser.isnan
  %3 = shard.all_reduce %x on @grid grid_axes = [1] reduction = product : tensor<8xf32> -> tensor<8xf32>
  // CHECK: fuser.collective "all_reduce" %{{.*}} reduction = "avg"
  %4 = shard.all_reduce %x on @grid grid_axes = [1] reduction = average : tensor<8xf32> -> tensor<8xf32>
  // any and all of i1: max and min.
  // CHECK: fuser.collective "all_reduce" %{{.*}} reduction = "max" {{.*}} : tensor<8xi1>
  %5 = shard.all_reduce %b on @grid grid_axes = [1] reduction = bitwise_or : tensor<8xi1> -> tensor<8xi1>
  // CHECK: fuser.collective "all_reduce" %{{.*}} reduction = "min" {{.*}} : tensor<8xi1>
  %6 = shard.all_reduce %b on @grid grid_axes = [1] reduction = bitwise_and : tensor<8xi1> -> tensor<8xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi1>, tensor<8xi1>
}

// Gathering dim 0 needs only a reshape; dim 1 a permute first.
// CHECK-LABEL: func.func @gathers
// CHECK: %[[G0:.*]] = fuser.collective "all_gather" %{{.*}} grid_axes = [1] group_size = 4 : tensor<2x3xf32> -> tensor<4x2x3xf32>
// CHECK: fuser.reshape %[[G0]] : tensor<4x2x3xf32> -> tensor<8x3xf32>
// CHECK: %[[G1:.*]] = fuser.collective "all_gather" %{{.*}} grid_axes = [1] group_size = 4 : tensor<2x3xf32> -> tensor<4x2x3xf32>
// CHECK: %[[P:.*]] = fuser.permute %[[G1]] perm = [1, 0, 2] : tensor<4x2x3xf32> -> tensor<2x4x3xf32>
// CHECK: fuser.reshape %[[P]] : tensor<2x4x3xf32> -> tensor<2x12xf32>
func.func @gathers(%x: tensor<2x3xf32>) -> (tensor<8x3xf32>, tensor<2x12xf32>) {
  %0 = shard.all_gather %x on @grid grid_axes = [1] gather_axis = 0 : tensor<2x3xf32> -> tensor<8x3xf32>
  %1 = shard.all_gather %x on @grid grid_axes = [1] gather_axis = 1 : tensor<2x3xf32> -> tensor<2x12xf32>
  return %0, %1 : tensor<8x3xf32>, tensor<2x12xf32>
}

// Scattering and slicing dim 1: split it into [parts, part] and bring the
// parts to the front.
// CHECK-LABEL: func.func @scatters
// CHECK: %[[R:.*]] = fuser.reshape %{{.*}} : tensor<3x8xf32> -> tensor<3x2x4xf32>
// CHECK: %[[P:.*]] = fuser.permute %[[R]] perm = [1, 0, 2] : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
// CHECK: fuser.collective "reduce_scatter" %[[P]] reduction = "sum" grid_axes = [0] group_size = 2 : tensor<2x3x4xf32> -> tensor<3x4xf32>
// CHECK: %[[R0:.*]] = fuser.reshape %{{.*}} : tensor<8x8xf32> -> tensor<2x4x8xf32>
// CHECK-NOT: fuser.permute
// CHECK: fuser.collective "slice" %[[R0]] grid_axes = [0] group_size = 2 : tensor<2x4x8xf32> -> tensor<4x8xf32>
func.func @scatters(%x: tensor<3x8xf32>, %y: tensor<8x8xf32>) -> (tensor<3x4xf32>, tensor<4x8xf32>) {
  %0 = shard.reduce_scatter %x on @grid grid_axes = [0] scatter_axis = 1 : tensor<3x8xf32> -> tensor<3x4xf32>
  %1 = shard.all_slice %y on @grid grid_axes = [0] slice_axis = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<4x8xf32>
}

// all_to_all from a split of dim 0 to a split of dim 1: the parts each
// member gets along dim 1 to the front, exchanged, joined along dim 0.
// CHECK-LABEL: func.func @all_to_all
// CHECK: %[[R:.*]] = fuser.reshape %{{.*}} : tensor<4x8xf32> -> tensor<4x2x4xf32>
// CHECK: %[[P:.*]] = fuser.permute %[[R]] perm = [1, 0, 2] : tensor<4x2x4xf32> -> tensor<2x4x4xf32>
// CHECK: %[[E:.*]] = fuser.collective "all_to_all" %[[P]] grid_axes = [0] group_size = 2 : tensor<2x4x4xf32> -> tensor<2x4x4xf32>
// CHECK: fuser.reshape %[[E]] : tensor<2x4x4xf32> -> tensor<8x4xf32>
func.func @all_to_all(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// An all_reduce that only a slice among the same devices reads is one
// reduce_scatter (Megatron's sequence parallelism); one that another op
// reads too stays whole.
// CHECK-LABEL: func.func @reduce_then_slice
// CHECK: %[[R:.*]] = fuser.reshape %{{.*}} : tensor<8x4xf32> -> tensor<4x2x4xf32>
// CHECK-NEXT: %[[S:.*]] = fuser.collective "reduce_scatter" %[[R]] reduction = "max" grid_axes = [1] group_size = 4 : tensor<4x2x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[NAN:.*]] = fuser.isnan %[[R]] : tensor<4x2x4xf32>
// CHECK-NEXT: %[[ANY:.*]] = fuser.collective "reduce_scatter" %[[NAN]] reduction = "max" grid_axes = [1] group_size = 4 : tensor<4x2x4xi1> -> tensor<2x4xi1>
// CHECK-NOT: all_reduce
// CHECK: %[[W:.*]] = fuser.where %[[ANY]], %{{.*}}, %[[S]]
// CHECK: return %[[W]]
func.func @reduce_then_slice(%x: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %0 = shard.all_reduce %x on @grid grid_axes = [1] reduction = max : tensor<8x4xf32> -> tensor<8x4xf32>
  %1 = shard.all_slice %0 on @grid grid_axes = [1] slice_axis = 0 : tensor<8x4xf32> -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
// CHECK-LABEL: func.func @reduce_read_twice
// CHECK: fuser.collective "all_reduce"
// CHECK: fuser.collective "slice"
func.func @reduce_read_twice(%x: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<2x4xf32>) {
  %0 = shard.all_reduce %x on @grid grid_axes = [1] : tensor<8x4xf32> -> tensor<8x4xf32>
  %1 = shard.all_slice %0 on @grid grid_axes = [1] slice_axis = 0 : tensor<8x4xf32> -> tensor<2x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<2x4xf32>
}

// A reduction over axes listed in any order is one group (partition lists
// them as the dims it reduces were split).
// CHECK-LABEL: func.func @axes_any_order
// CHECK: fuser.collective "all_reduce" %{{.*}} reduction = "sum" grid_axes = [0, 1] group_size = 8
func.func @axes_any_order(%x: tensor<f32>) -> tensor<f32> {
  %0 = shard.all_reduce %x on @grid grid_axes = [1, 0] : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

shard.grid @grid(shape = 2x2)

func.func @gather_descending(%x: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'shard.all_gather' op orders its group by grid axes [1, 0]; fuser orders a group's members by ascending axes (the first the outermost): list the axes in ascending order}}
  %0 = shard.all_gather %x on @grid grid_axes = [1, 0] gather_axis = 0 : tensor<2xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @int_average(%x: tensor<8xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{'shard.all_reduce' op reduces 'i32' with 'average', which the communication library (NCCL) does not run}}
  %0 = shard.all_reduce %x on @grid grid_axes = [0] reduction = average : tensor<8xi32> -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

shard.grid @grid(shape = 2)

func.func @int_or(%x: tensor<8xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{'shard.all_reduce' op reduces 'i32' with 'bitwise_or', which the communication library (NCCL) does not run}}
  %0 = shard.all_reduce %x on @grid grid_axes = [0] reduction = bitwise_or : tensor<8xi32> -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

shard.grid @grid(shape = 2)

func.func @xor(%x: tensor<8xi1>) -> tensor<8xi1> {
  // expected-error @+1 {{'shard.all_reduce' op reduces 'i1' with 'bitwise_xor', which the communication library (NCCL) does not run}}
  %0 = shard.all_reduce %x on @grid grid_axes = [0] reduction = bitwise_xor : tensor<8xi1> -> tensor<8xi1>
  return %0 : tensor<8xi1>
}

// -----

shard.grid @grid(shape = 2)

func.func @broadcast(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'shard.broadcast' op is not supported: fuser runs all_reduce, all_gather, reduce_scatter, all_slice and all_to_all (docs/sharding.md)}}
  %0 = shard.broadcast %x on @grid grid_axes = [0] root = [0] : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
