// y = tanh(x * w) and its row sums: fuserc run --vjp f --fusion f_vjp
func.func @f(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %ids: tensor<?xi64>)
    -> (tensor<?x?xf32> {fuser.name = "y"}, tensor<?xf32> {fuser.name = "s"}) {
  %wb = fuser.broadcast %w dims = [1] : tensor<?xf32> -> tensor<?x?xf32>
  %m = fuser.mul %x, %wb : tensor<?x?xf32>, tensor<?x?xf32>
  %t = fuser.tanh %m : tensor<?x?xf32>
  %s = fuser.sum %t dims = [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %t, %s : tensor<?x?xf32>, tensor<?xf32>
}
