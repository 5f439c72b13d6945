// GPU benchmark (matmul table): F.linear(x, w, b), bf16, f32 accumulation.
// Every dim is known at launch (x [M, K], w [N, K], b [N]), so one bundle
// serves every transformer shape: the GEMM is a cuBLASLt call whatever the
// sizes, with the bias in its epilogue (docs/matmul.md), and no kernel.
func.func @linear_bf16(%x: tensor<?x?xbf16>, %w: tensor<?x?xbf16>, %b: tensor<?xbf16>)
    -> tensor<?x?xbf16> {
  %y = fuser.linear %x, %w bias %b
      : (tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?xbf16>) -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
