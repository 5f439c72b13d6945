// Operands annotated for their op (annotate_for_users) with splits that
// disagree with the op's result or with each other (sharded.test): each is
// resharded to the op's split before the op runs.
shard.grid @grid(shape = 2)
func.func @operands_disagree(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s0 = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %s1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xa = shard.shard %x to %s0 annotate_for_users : tensor<8x8xf32>
  %ya = shard.shard %y to %s1 annotate_for_users : tensor<8x8xf32>
  %z = fuser.add %xa, %ya : tensor<8x8xf32>
  return %z : tensor<8x8xf32>
}
func.func @operand_against_result(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s0 = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %s1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xa = shard.shard %x to %s1 annotate_for_users : tensor<8x8xf32>
  %z = fuser.neg %xa : tensor<8x8xf32>
  %zs = shard.shard %z to %s0 : tensor<8x8xf32>
  return %zs : tensor<8x8xf32>
}
