// A value that only its users annotate gets an annotation of its own: whole.
// RUN: fuser-opt %s --pass-pipeline='builtin.module(func.func(fuser-check-sharding))' | FileCheck %s

shard.grid @grid(shape = 2)
// CHECK-LABEL: func.func @complete
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[W:.*]] = shard.sharding @grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK-NEXT: %[[XW:.*]] = shard.shard %[[X]] to %[[W]] : tensor<8x16xf32>
// CHECK: shard.shard %[[XW]] to %{{.*}} annotate_for_users
func.func @complete(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>
  %y = fuser.exp %xs : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// A returned value nothing annotated (an argument returned as it is) is
// returned annotated: as its own annotation says, else whole (partition
// crashed on such a return).
// CHECK-LABEL: func.func @returns
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[Y:.*]]: tensor<8x4xf32>)
// CHECK: %[[XS:.*]] = shard.shard %[[X]] to %{{.*}} : tensor<8x4xf32>
// CHECK: %[[W:.*]] = shard.sharding @grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK-NEXT: %[[YW:.*]] = shard.shard %[[Y]] to %[[W]] : tensor<8x4xf32>
// CHECK-NEXT: return %[[XS]], %[[YW]]
func.func @returns(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x4xf32>
  return %x, %y : tensor<8x4xf32>, tensor<8x4xf32>
}
