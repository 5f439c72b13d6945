// fuser-record-grid keeps a sharded fusion's grid and the split of each
// argument and result for the bundle's GRID record.
// RUN: fuser-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sharding-propagation{traversal=forward-backward},fuser-check-sharding,fuser-record-grid))' --verify-diagnostics | FileCheck %s

shard.grid @grid(shape = 2x4)

// Masks of grid axes per dim: bit i is axis i; a dim split by axes 0 and 1
// has mask 3; a whole tensor all zeros; a rank-0 one an empty array.
// CHECK-LABEL: func.func @masks
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {fuser.split = array<i64: 1, 2>}
// CHECK-SAME: %{{.*}}: tensor<16x8xf32> {fuser.split = array<i64: 3, 0>}
// CHECK-SAME: %{{.*}}: tensor<f32> {fuser.split = array<i64>}
// CHECK-SAME: -> (tensor<8x16xf32> {fuser.split = array<i64: 1, 2>}, tensor<16x8xf32> {fuser.split = array<i64: 0, 0>})
// CHECK-SAME: attributes {fuser.grid = array<i64: 2, 4>}
func.func @masks(%x: tensor<8x16xf32>, %y: tensor<16x8xf32>, %s: tensor<f32>)
    -> (tensor<8x16xf32>, tensor<16x8xf32>) {
  %sx = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %xs = shard.shard %x to %sx : tensor<8x16xf32>
  %sy = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %ys = shard.shard %y to %sy : tensor<16x8xf32>
  %a = fuser.mul %xs, %s : tensor<8x16xf32>, tensor<f32>
  %whole = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %b = fuser.exp %ys : tensor<16x8xf32>
  %bw = shard.shard %b to %whole : tensor<16x8xf32>
  return %a, %bw : tensor<8x16xf32>, tensor<16x8xf32>
}

// A result returned through a shard for its users (the return) is split as
// it says: partition reshards the value to it.
// CHECK-LABEL: func.func @for_users
// CHECK-SAME: -> (tensor<8x4xf32> {fuser.split = array<i64: 1, 0>})
func.func @for_users(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = fuser.exp %x : tensor<8x4xf32>
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %r = shard.shard %0 to %s annotate_for_users : tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// A fusion with no annotation is left alone.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32> {
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @a(shape = 2)
shard.grid @b(shape = 2)

func.func @two_grids(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %sa = shard.sharding @a split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %sa : tensor<4xf32>
  %sb = shard.sharding @b split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{sharding over grid @b in a fusion already sharded over @a: a fusion runs on one grid}}
  %ys = shard.shard %y to %sb : tensor<4xf32>
  %0 = fuser.add %xs, %ys : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{grid @g has 5 axes; fuser runs grids of at most 4}}
shard.grid @g(shape = 1x1x1x1x2)

func.func @many_axes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.sharding @g split_axes = [[4]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4xf32>
  %0 = fuser.exp %xs : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @g(shape = 2x2)

func.func @descending(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @g split_axes = [[1, 0]] : !shard.sharding
  // expected-error @+1 {{argument 0 splits dim 0 by grid axes in descending order; fuser splits a dim by ascending axes (the first the outermost)}}
  %xs = shard.shard %x to %s : tensor<8xf32>
  %0 = fuser.exp %xs : tensor<8xf32>
  return %0 : tensor<8xf32>
}
