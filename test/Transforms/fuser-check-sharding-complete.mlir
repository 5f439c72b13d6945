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
// CHECK-DAG: %[[W:.*]] = shard.sharding @grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK-DAG: %[[YW:.*]] = shard.shard %[[Y]] to %[[W]] : tensor<8x4xf32>
// CHECK-DAG: %[[XS:.*]] = shard.shard %[[X]] to %{{.*}} : tensor<8x4xf32>
// CHECK: return %[[XS]], %[[YW]]
func.func @returns(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x4xf32>
  return %x, %y : tensor<8x4xf32>, tensor<8x4xf32>
}

// An operand annotated for its op with another split than the op's result
// is resharded to the result's split (partition made parts of different
// shapes: invalid IR): a new annotation for the op, from the same source.
// CHECK-LABEL: func.func @operand_against_result
// CHECK: %[[XW:.*]] = shard.shard %{{.*}} to %{{.*}} : tensor<8x8xf32>
// CHECK: shard.sharding @grid split_axes = {{\[\[}}], [0]]
// CHECK-NEXT: %[[R:.*]] = shard.sharding @grid split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK-NEXT: %[[XR:.*]] = shard.shard %[[XW]] to %[[R]] annotate_for_users : tensor<8x8xf32>
// CHECK-NEXT: fuser.exp %[[XR]]
func.func @operand_against_result(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s0 = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %s1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xa = shard.shard %x to %s1 annotate_for_users : tensor<8x8xf32>
  %z = fuser.exp %xa : tensor<8x8xf32>
  %zs = shard.shard %z to %s0 : tensor<8x8xf32>
  return %zs : tensor<8x8xf32>
}

// Two operands that disagree, no result annotation: the first decides.
// CHECK-LABEL: func.func @operands_disagree
// CHECK: %[[XA:.*]] = shard.shard %{{.*}} to %{{.*}} annotate_for_users : tensor<8x8xf32>
// CHECK: %[[R:.*]] = shard.sharding @grid split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK-NEXT: %[[YR:.*]] = shard.shard %{{.*}} to %[[R]] annotate_for_users : tensor<8x8xf32>
// CHECK-NEXT: fuser.add %[[XA]], %[[YR]]
func.func @operands_disagree(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s0 = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %s1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xa = shard.shard %x to %s0 annotate_for_users : tensor<8x8xf32>
  %ya = shard.shard %y to %s1 annotate_for_users : tensor<8x8xf32>
  %z = fuser.add %xa, %ya : tensor<8x8xf32>
  return %z : tensor<8x8xf32>
}

// Operands that agree with each other and the op's loops are left alone: a
// sum over the split dim stays a partial sum (the reduced loop only the
// operand indexes), a matmul split along its contraction on both sides too.
// CHECK-LABEL: func.func @consistent
// CHECK: %[[XA:.*]] = shard.shard %{{.*}} to %{{.*}} annotate_for_users
// CHECK-NEXT: fuser.sum %[[XA]]
// CHECK: %[[WA:.*]] = shard.shard %{{.*}} to %{{.*}} annotate_for_users
// CHECK-NEXT: fuser.matmul %[[XA]], %[[WA]]
func.func @consistent(%x: tensor<8x8xf32>, %w: tensor<8x4xf32>) -> (tensor<8xf32>, tensor<8x4xf32>) {
  %s0 = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %s1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xa = shard.shard %x to %s1 annotate_for_users : tensor<8x8xf32>
  %r = fuser.sum %xa dims = [1] : tensor<8x8xf32> -> tensor<8xf32>
  %wa = shard.shard %w to %s0 annotate_for_users : tensor<8x4xf32>
  %m = fuser.matmul %xa, %wa : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r, %m : tensor<8xf32>, tensor<8x4xf32>
}

// A value no annotated value reaches (a scalar argument reshaped to [1]) is
// annotated whole on the fusion's grid, and so are the values it reaches;
// the rank-0 argument is left as it is (partition crashed on such a value).
// CHECK-LABEL: func.func @unreached
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<f32>)
// CHECK: %[[R:.*]] = fuser.reshape %[[Y]] : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT: %[[W:.*]] = shard.sharding @grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK-NEXT: %[[RW:.*]] = shard.shard %[[R]] to %[[W]] : tensor<1xf32>
// CHECK-NEXT: %[[C:.*]] = fuser.cumsum %[[RW]] dim = 0 : tensor<1xf32>
// CHECK-NEXT: %[[W2:.*]] = shard.sharding @grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK-NEXT: %[[CW:.*]] = shard.shard %[[C]] to %[[W2]] : tensor<1xf32>
// CHECK: return %{{.*}}, %[[CW]]
func.func @unreached(%x: tensor<8xf32>, %y: tensor<f32>) -> (tensor<8xf32>, tensor<1xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8xf32>
  %r = fuser.reshape %y : tensor<f32> -> tensor<1xf32>
  %c = fuser.cumsum %r dim = 0 : tensor<1xf32>
  return %xs, %c : tensor<8xf32>, tensor<1xf32>
}
