// Cross-entropy written as torch does, logits.view(-1, V) as a plain
// reshape [?,?,?] -> [?,?]: the rule keeps dim 0 (B) and merges S and V,
// where torch means [B*S, V] (reshape-rule-hint.test).
func.func @cev(%logits: tensor<?x?x?xbf16>, %t: tensor<?x?xi64>) -> tensor<bf16> {
  %l2 = fuser.reshape %logits : tensor<?x?x?xbf16> -> tensor<?x?xbf16>
  %t1 = fuser.reshape %t : tensor<?x?xi64> -> tensor<?xi64>
  %ls = fuser.log_softmax %l2 dim = 1 : tensor<?x?xbf16>
  %ig = fuser.constant -100 : tensor<i64>
  %z = fuser.constant 0 : tensor<i64>
  %mask = fuser.ne %t1, %ig : tensor<?xi64>, tensor<i64>
  %ts = fuser.where %mask, %t1, %z : tensor<?xi1>, tensor<?xi64>, tensor<i64>
  %t2 = fuser.reshape %ts : tensor<?xi64> -> tensor<?x1xi64>
  %g = fuser.gather %ls, %t2 dim = 1 : tensor<?x?xbf16>, tensor<?x1xi64> -> tensor<?x1xbf16>
  %g1 = fuser.reshape %g : tensor<?x1xbf16> -> tensor<?xbf16>
  %nll = fuser.neg %g1 : tensor<?xbf16>
  %zf = fuser.constant 0.0 : tensor<bf16>
  %nm = fuser.where %mask, %nll, %zf : tensor<?xi1>, tensor<?xbf16>, tensor<bf16>
  %cm = fuser.cast %mask : tensor<?xi1> to tensor<?xbf16>
  %cnt = fuser.sum %cm dims = [0] : tensor<?xbf16> -> tensor<bf16>
  %tot = fuser.sum %nm dims = [0] : tensor<?xbf16> -> tensor<bf16>
  %r = fuser.div %tot, %cnt : tensor<bf16>
  return %r : tensor<bf16>
}
