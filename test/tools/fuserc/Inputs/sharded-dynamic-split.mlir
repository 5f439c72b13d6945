// A per-device fusion whose split dim is known only at launch (sharded.test).
func.func @f(%x: tensor<?x16xf32> {fuser.split = array<i64: 1, 0>}) -> (tensor<?x16xf32> {fuser.split = array<i64: 1, 0>}) attributes {fuser.grid = array<i64: 2>} {
  %0 = fuser.exp %x : tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
