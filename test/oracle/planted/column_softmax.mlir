// Planted-bug target: softmax along dim 0 of 100 rows, an outer
// normalization (each block holds whole columns; its rows of threads meet
// in shared memory after each pass).
func.func @column_softmax(%x: tensor<100x96xf32>) -> tensor<100x96xf32> {
  %0 = fuser.softmax %x dim = 0 : tensor<100x96xf32>
  return %0 : tensor<100x96xf32>
}
