// A transformer's attention block, whole, in one fusion (f32): the q, k and
// v projections as one linear with its bias, rotary position embeddings on
// q and k (Llama's rotate_half: slices, a negation and a concat, times the
// cos and sin tables of the sequence's positions), q and k normalized per
// head (QK-norm: rms_norm, as OLMo 2 and Gemma 3 do), softmax(q k^T / 8) v
// per head, the heads joined again, the output projection with its bias
// and the residual add. 64 positions, 128 channels, 2 heads of 64.
//
// The four matmuls are library calls (cuBLASLt; docs/matmul.md): k^T is
// read through the GEMM's transpose flag, no kernel writes it. Around them,
// four kernels: the per-head layouts of q, k and v with RoPE and the
// QK-norm (one normalization kernel), the softmax with its scale, the
// heads joined, the residual.
// No caller cuts the graph at the matmuls; `fuserc inspect` shows the plan.
func.func @attention_block(%x: tensor<64x128xf32>, %wqkv: tensor<384x128xf32>,
                           %bqkv: tensor<384xf32>, %cos: tensor<64x64xf32>,
                           %sin: tensor<64x64xf32>, %wo: tensor<128x128xf32>,
                           %bo: tensor<128xf32>) -> tensor<64x128xf32> {
  %qkv = fuser.linear %x, %wqkv bias %bqkv
      : (tensor<64x128xf32>, tensor<384x128xf32>, tensor<384xf32>) -> tensor<64x384xf32>
  // q, k, v as [heads, positions, 64]
  %q0 = fuser.slice %qkv start = [0, 0] limit = [64, 128] step = [1, 1] : tensor<64x384xf32> -> tensor<64x128xf32>
  %k0 = fuser.slice %qkv start = [0, 128] limit = [64, 256] step = [1, 1] : tensor<64x384xf32> -> tensor<64x128xf32>
  %v0 = fuser.slice %qkv start = [0, 256] limit = [64, 384] step = [1, 1] : tensor<64x384xf32> -> tensor<64x128xf32>
  %q1 = fuser.reshape %q0 : tensor<64x128xf32> -> tensor<64x2x64xf32>
  %k1 = fuser.reshape %k0 : tensor<64x128xf32> -> tensor<64x2x64xf32>
  %v1 = fuser.reshape %v0 : tensor<64x128xf32> -> tensor<64x2x64xf32>
  %qh = fuser.permute %q1 perm = [1, 0, 2] : tensor<64x2x64xf32> -> tensor<2x64x64xf32>
  %kh = fuser.permute %k1 perm = [1, 0, 2] : tensor<64x2x64xf32> -> tensor<2x64x64xf32>
  %v = fuser.permute %v1 perm = [1, 0, 2] : tensor<64x2x64xf32> -> tensor<2x64x64xf32>
  // RoPE: x * cos + rotate_half(x) * sin, rotate_half(x) = [-x2, x1]
  %cb = fuser.broadcast %cos dims = [1, 2] : tensor<64x64xf32> -> tensor<2x64x64xf32>
  %sb = fuser.broadcast %sin dims = [1, 2] : tensor<64x64xf32> -> tensor<2x64x64xf32>
  %q_lo = fuser.slice %qh start = [0, 0, 0] limit = [2, 64, 32] step = [1, 1, 1] : tensor<2x64x64xf32> -> tensor<2x64x32xf32>
  %q_hi = fuser.slice %qh start = [0, 0, 32] limit = [2, 64, 64] step = [1, 1, 1] : tensor<2x64x64xf32> -> tensor<2x64x32xf32>
  %q_nhi = fuser.neg %q_hi : tensor<2x64x32xf32>
  %q_rot = fuser.concat %q_nhi, %q_lo dim = 2 : tensor<2x64x32xf32>, tensor<2x64x32xf32> -> tensor<2x64x64xf32>
  %q_c = fuser.mul %qh, %cb : tensor<2x64x64xf32>
  %q_s = fuser.mul %q_rot, %sb : tensor<2x64x64xf32>
  %qp = fuser.add %q_c, %q_s : tensor<2x64x64xf32>
  %k_lo = fuser.slice %kh start = [0, 0, 0] limit = [2, 64, 32] step = [1, 1, 1] : tensor<2x64x64xf32> -> tensor<2x64x32xf32>
  %k_hi = fuser.slice %kh start = [0, 0, 32] limit = [2, 64, 64] step = [1, 1, 1] : tensor<2x64x64xf32> -> tensor<2x64x32xf32>
  %k_nhi = fuser.neg %k_hi : tensor<2x64x32xf32>
  %k_rot = fuser.concat %k_nhi, %k_lo dim = 2 : tensor<2x64x32xf32>, tensor<2x64x32xf32> -> tensor<2x64x64xf32>
  %k_c = fuser.mul %kh, %cb : tensor<2x64x64xf32>
  %k_s = fuser.mul %k_rot, %sb : tensor<2x64x64xf32>
  %kp = fuser.add %k_c, %k_s : tensor<2x64x64xf32>
  // QK-norm after the rotation: unit RMS per head and position, so the
  // scores are at most 64 (well conditioned for any tables)
  %qr = fuser.rms_norm %qp dims = [2] eps = 1.0e-06 : (tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %kr = fuser.rms_norm %kp dims = [2] eps = 1.0e-06 : (tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  // softmax(q k^T / sqrt(64)) v, per head
  %kt = fuser.permute %kr perm = [0, 2, 1] : tensor<2x64x64xf32> -> tensor<2x64x64xf32>
  %s = fuser.matmul %qr, %kt : (tensor<2x64x64xf32>, tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %c = fuser.constant 0.125 : tensor<f32>
  %z = fuser.mul %s, %c : tensor<2x64x64xf32>, tensor<f32>
  %p = fuser.softmax %z dim = 2 : tensor<2x64x64xf32>
  %o = fuser.matmul %p, %v : (tensor<2x64x64xf32>, tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  // the heads joined, the output projection, the residual
  %ot = fuser.permute %o perm = [1, 0, 2] : tensor<2x64x64xf32> -> tensor<64x2x64xf32>
  %oj = fuser.reshape %ot : tensor<64x2x64xf32> -> tensor<64x128xf32>
  %y = fuser.linear %oj, %wo bias %bo
      : (tensor<64x128xf32>, tensor<128x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %r = fuser.add %y, %x : tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
