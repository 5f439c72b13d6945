// log_softmax's backward over the last dim, as a tracer emits it for
// torch.log_softmax(x, dim=-1) (a language model's loss over an 8192-token
// vocabulary, 2048 rows; f32, as autocast computes log_softmax): the
// forward's output y and the incoming gradient dy,
//   dx = dy - exp(y) * sum(dy, dim=-1, keepdim=True)
// (PyTorch's _log_softmax_backward_data). One persistent normalization
// kernel: each row stays on chip between its sum and dx, y and dy are
// read once.
func.func @log_softmax_backward(%y: tensor<2048x8192xf32>, %dy: tensor<2048x8192xf32>)
    -> tensor<2048x8192xf32> {
  %s = fuser.sum %dy dims = [1] keepdim = true : tensor<2048x8192xf32> -> tensor<2048x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<2048x1xf32> -> tensor<2048x8192xf32>
  %e = fuser.exp %y : tensor<2048x8192xf32>
  %p = fuser.mul %e, %sb : tensor<2048x8192xf32>
  %dx = fuser.sub %dy, %p : tensor<2048x8192xf32>
  return %dx : tensor<2048x8192xf32>
}
