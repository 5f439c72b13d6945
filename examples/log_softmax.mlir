// Row log_softmax over a dynamic number of rows.
func.func @log_softmax(%x: tensor<?x32000xf32>) -> tensor<?x32000xf32> {
  %0 = fuser.log_softmax %x dim = 1 : tensor<?x32000xf32>
  return %0 : tensor<?x32000xf32>
}
