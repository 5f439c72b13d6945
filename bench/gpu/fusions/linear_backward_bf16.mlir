// GPU benchmark (matmul table): a linear layer's backward, bf16, as
// fuser-vjp writes it (test/tools/fuserc/Inputs/matmul-bias-gradient.mlir)
// on 2-D [M, K] tensors: dx = dy @ w, dW = dy^T @ x, db = dy summed over the
// rows in f32 and rounded once. M rows and N output features are known at
// launch; the K input features are static (4096): the bias gradient joins
// dW's GEMM as cuBLASLt's bias-gradient epilogue (BGRADB) only with a
// static number of columns (docs/matmul.md). Two GEMMs, no kernel.
func.func @linear_backward_bf16(%x: tensor<?x4096xbf16>, %w: tensor<?x4096xbf16>,
                                %dy: tensor<?x?xbf16>)
    -> (tensor<?x4096xbf16>, tensor<?x4096xbf16>, tensor<?xbf16>) {
  %dx = fuser.matmul %dy, %w : (tensor<?x?xbf16>, tensor<?x4096xbf16>) -> tensor<?x4096xbf16>
  %dyt = fuser.permute %dy perm = [1, 0] : tensor<?x?xbf16> -> tensor<?x?xbf16>
  %dw = fuser.matmul %dyt, %x : (tensor<?x?xbf16>, tensor<?x4096xbf16>) -> tensor<?x4096xbf16>
  %wide = fuser.cast %dy : tensor<?x?xbf16> to tensor<?x?xf32>
  %s = fuser.sum %wide dims = [0] : tensor<?x?xf32> -> tensor<?xf32>
  %db = fuser.cast %s : tensor<?xf32> to tensor<?xbf16>
  return %dx, %dw, %db : tensor<?x4096xbf16>, tensor<?x4096xbf16>, tensor<?xbf16>
}
