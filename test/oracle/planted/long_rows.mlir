// An inner split reduction: 4 rows of 40000 (fewer rows than SMs, rows of
// at least 32768 elements) split across blocks along y; each block writes a
// partial per row and the last block of each row to arrive (an atomic
// counter) combines them, in split order, in the same launch.
func.func @long_rows(%x: tensor<4x40000xf32>) -> tensor<4xf32> {
  %s = fuser.sum %x dims = [1] : tensor<4x40000xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
