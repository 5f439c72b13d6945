func.func @f(%x: tensor<8xf32>, %s: !shard.sharding) -> tensor<8xf32> {
  %xs = shard.shard %x to %s : tensor<8xf32>
  return %xs : tensor<8xf32>
}
