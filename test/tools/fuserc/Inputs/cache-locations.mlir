func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fuser.add %x, %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}
