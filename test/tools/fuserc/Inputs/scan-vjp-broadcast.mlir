// Scans of a broadcast whose dims are known only at launch
// (scan-vjp-broadcast.test): torch.cumsum(x.expand(-1, n), 1) * y.
func.func @sum(%x: tensor<?x1xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %b = fuser.broadcast %x dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %c = fuser.cumsum %b dim = 1 : tensor<?x?xf32>
  %d = fuser.mul %c, %y : tensor<?x?xf32>
  return %d : tensor<?x?xf32>
}

func.func @prod(%x: tensor<?x1xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %b = fuser.broadcast %x dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %c = fuser.cumprod %b dim = 1 : tensor<?x?xf32>
  %d = fuser.mul %c, %y : tensor<?x?xf32>
  return %d : tensor<?x?xf32>
}

func.func @max(%x: tensor<?x1xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %b = fuser.broadcast %x dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %c, %i = fuser.cummax %b dim = 1 : tensor<?x?xf32> -> tensor<?x?xi64>
  %d = fuser.mul %c, %y : tensor<?x?xf32>
  return %d : tensor<?x?xf32>
}

func.func @min(%x: tensor<?x1xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %b = fuser.broadcast %x dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %c, %i = fuser.cummin %b dim = 1 : tensor<?x?xf32> -> tensor<?x?xi64>
  %d = fuser.mul %c, %y : tensor<?x?xf32>
  return %d : tensor<?x?xf32>
}
