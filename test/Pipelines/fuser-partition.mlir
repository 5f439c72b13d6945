// Training-step patterns through fuser-partition: what one of two devices runs.
// RUN: fuser-opt %s --fuser-partition | FileCheck %s

shard.grid @grid(shape = 2)

// Megatron tensor-parallel MLP: the first linear split by its output
// features (column parallel), the second by its input features (row
// parallel). One all_reduce; the second bias is added once, after it.
// CHECK-LABEL: func.func @tensor_parallel_mlp
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W1:.*]]: tensor<16x16xf32>, %[[B1:.*]]: tensor<16xf32>, %[[W2:.*]]: tensor<16x16xf32>, %[[B2:.*]]: tensor<16xf32>)
// CHECK-NEXT: %[[H:.*]] = fuser.linear %[[X]], %[[W1]] bias %[[B1]] : (tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[G:.*]] = fuser.gelu %[[H]]
// CHECK-NEXT: %[[P:.*]] = fuser.linear %[[G]], %[[W2]] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[S:.*]] = shard.all_reduce %[[P]] on @grid grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[BB:.*]] = fuser.broadcast %[[B2]] dims = [1] : tensor<16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[Y:.*]] = fuser.add %[[S]], %[[BB]]
// CHECK-NEXT: %[[R:.*]] = fuser.add %[[Y]], %[[X]]
// CHECK-NEXT: return %[[R]]
func.func @tensor_parallel_mlp(%x: tensor<8x16xf32>, %w1: tensor<32x16xf32>, %b1: tensor<32xf32>,
                               %w2: tensor<16x32xf32>, %b2: tensor<16xf32>) -> tensor<8x16xf32> {
  %col = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %w1s = shard.shard %w1 to %col : tensor<32x16xf32>
  %b1s = shard.shard %b1 to %col : tensor<32xf32>
  %row = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %w2s = shard.shard %w2 to %row : tensor<16x32xf32>
  %h = fuser.linear %x, %w1s bias %b1s : (tensor<8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %g = fuser.gelu %h approximate = "tanh" : tensor<8x32xf32>
  %y = fuser.linear %g, %w2s bias %b2 : (tensor<8x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %r = fuser.add %y, %x : tensor<8x16xf32>, tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// Data parallel: the batch is split, the weight gradient (a sum over the
// batch) is all-reduced and the SGD update runs on the whole weight.
// CHECK-LABEL: func.func @data_parallel_sgd
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>, %[[DY:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16xf32>, %[[LR:.*]]: tensor<f32>)
// CHECK-NEXT: %[[M:.*]] = fuser.mul %[[DY]], %[[X]]
// CHECK-NEXT: %[[GP:.*]] = fuser.sum %[[M]] dims = [0] : tensor<4x16xf32> -> tensor<16xf32>
// CHECK-NEXT: %[[G:.*]] = shard.all_reduce %[[GP]] on @grid grid_axes = [0] : tensor<16xf32> -> tensor<16xf32>
// CHECK-NEXT: %[[STEP:.*]] = fuser.mul %[[G]], %[[LR]]
// CHECK-NEXT: %[[NEW:.*]] = fuser.sub %[[W]], %[[STEP]]
// CHECK-NEXT: return %[[NEW]] : tensor<16xf32>
func.func @data_parallel_sgd(%x: tensor<8x16xf32>, %dy: tensor<8x16xf32>, %w: tensor<16xf32>,
                             %lr: tensor<f32>) -> tensor<16xf32> {
  %batch = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %batch : tensor<8x16xf32>
  %dys = shard.shard %dy to %batch : tensor<8x16xf32>
  %m = fuser.mul %dys, %xs : tensor<8x16xf32>, tensor<8x16xf32>
  %g = fuser.sum %m dims = [0] : tensor<8x16xf32> -> tensor<16xf32>
  %step = fuser.mul %g, %lr : tensor<16xf32>, tensor<f32>
  %new = fuser.sub %w, %step : tensor<16xf32>, tensor<16xf32>
  return %new : tensor<16xf32>
}

// Sequence parallel: layer_norm over rows split by position needs nothing;
// the linear after it reads whole rows (its contraction is the hidden dim).
// CHECK-LABEL: func.func @sequence_parallel_layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xbf16>, %[[W:.*]]: tensor<16xbf16>, %[[B:.*]]: tensor<16xbf16>)
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = fuser.layer_norm %[[X]] weight %[[W]] bias %[[B]] dims = [1]
// CHECK-SAME: -> (tensor<4x16xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
// CHECK-NEXT: return %[[Y]]
func.func @sequence_parallel_layer_norm(%x: tensor<8x16xbf16>, %w: tensor<16xbf16>, %b: tensor<16xbf16>) -> tensor<8x16xbf16> {
  %seq = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %seq : tensor<8x16xbf16>
  %y, %mean, %rstd = fuser.layer_norm %xs weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<8x16xbf16>, tensor<16xbf16>, tensor<16xbf16>) -> (tensor<8x16xbf16>, tensor<8x1xf32>, tensor<8x1xf32>)
  return %y : tensor<8x16xbf16>
}

// An argument that nothing reads (the canonicalizer drops the dead exp,
// and with it r's annotation) crashed upstream's partition (found by make
// fuzz): it is annotated whole, so the caller passes it whole, unread.
// CHECK-LABEL: func.func @dead_op
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32>, %{{.*}}: tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NOT: fuser.exp
// CHECK: fuser.softmax
// CHECK-NOT: fuser.exp
// CHECK: return
func.func @dead_op(%x: tensor<8x16xf32>, %r: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %rs = shard.shard %r to %rows : tensor<8x16xf32>
  %0 = fuser.softmax %xs dim = 1 : tensor<8x16xf32>
  %1 = fuser.exp %rs : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// An argument the fusion never reads, beside a split one.
// CHECK-LABEL: func.func @unused_argument
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>, %{{.*}}: tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: fuser.exp %[[X]]
func.func @unused_argument(%x: tensor<8x16xf32>, %r: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %0 = fuser.exp %xs : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
