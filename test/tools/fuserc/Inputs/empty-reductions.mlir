// Reductions whose kept extent is 0 at launch: the plan's split heuristics
// divided by it (random-fusion seed 1173).
func.func @outer(%x: tensor<?x?x1xf32>) -> tensor<?xf32> {
  %0 = fuser.sum %x dims = [2, 0] : tensor<?x?x1xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @inner(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = fuser.sum %x dims = [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
