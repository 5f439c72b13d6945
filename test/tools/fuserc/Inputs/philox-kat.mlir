// Random123's first known answer of Philox4x32-10 (counter 0, key 0):
// fuser.rand's raw words of seed 0, offset 0 are its four output words, then
// those of counter 1 (docs/random.md). Seed and offset come in as arguments.
func.func @kat(%seed: tensor<i64>, %offset: tensor<i64>) -> tensor<8xi32> {
  %0 = fuser.rand %seed, %offset : tensor<8xi32>
  return %0 : tensor<8xi32>
}
