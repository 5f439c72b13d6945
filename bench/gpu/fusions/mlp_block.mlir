// GPU benchmark (matmul table): examples/mlp_block.mlir's transformer MLP
// block, layer_norm -> linear -> gelu (tanh) -> linear -> + residual, bf16,
// hidden 4096 (static, as the other benchmark fusions' rows), any number of
// rows (tokens) and any ffn width. Runs as the layer norm kernel, a GEMM
// with the bias and gelu in its epilogue, a GEMM with the bias, and the
// residual kernel.
func.func @mlp_block(%x: tensor<?x4096xbf16>, %ln_w: tensor<4096xbf16>, %ln_b: tensor<4096xbf16>,
                     %w1: tensor<?x4096xbf16>, %b1: tensor<?xbf16>,
                     %w2: tensor<4096x?xbf16>, %b2: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %ln, %mean, %rstd = fuser.layer_norm %x weight %ln_w bias %ln_b dims = [1] eps = 1.0e-05
      : (tensor<?x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>)
      -> (tensor<?x4096xbf16>, tensor<?x1xf32>, tensor<?x1xf32>)
  %h = fuser.linear %ln, %w1 bias %b1
      : (tensor<?x4096xbf16>, tensor<?x4096xbf16>, tensor<?xbf16>) -> tensor<?x?xbf16>
  %g = fuser.gelu %h approximate = tanh : tensor<?x?xbf16>
  %o = fuser.linear %g, %w2 bias %b2
      : (tensor<?x?xbf16>, tensor<4096x?xbf16>, tensor<4096xbf16>) -> tensor<?x4096xbf16>
  %y = fuser.add %o, %x : tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}
