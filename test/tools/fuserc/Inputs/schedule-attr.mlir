// @act of schedule.mlir with its schedule written in the input: the
// fusion's fuser.schedule wins over --schedule, key by key.
func.func @act(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>)
    attributes {fuser.schedule = #fuser.schedule<pointwise.block = 64>} {
  %0 = fuser.add %x, %y : tensor<?xf32>
  %1 = fuser.gelu %0 approximate = tanh : tensor<?xf32>
  %2 = fuser.sigmoid %x : tensor<?xf32>
  return %1, %2 : tensor<?xf32>, tensor<?xf32>
}
