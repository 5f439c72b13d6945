// Channels-last group_norm's groups with every dim known at launch:
// x [N, H, W, C] as [N, H*W, G, C/G] (torch's view(N, -1, G, C // G)). The
// rule alone could pair H with the second dim, [N, H, G, W*C/G]: the same
// element count, other groups.
func.func @guess(%x: tensor<?x?x?x?xf32>) -> tensor<?x1x2x1xf32> {
  %z = fuser.reshape %x : tensor<?x?x?x?xf32> -> tensor<?x?x2x?xf32>
  %m = fuser.mean %z dims = [1, 3] keepdim = true : tensor<?x?x2x?xf32> -> tensor<?x1x2x1xf32>
  return %m : tensor<?x1x2x1xf32>
}
func.func @sized(%x: tensor<?x?x?x?xf32>) -> tensor<?x1x2x1xf32> {
  %z = fuser.reshape %x {fuser.sizes = affine_map<()[s0, s1, s2, s3] -> (s0, s1 * s2, 2, s3 floordiv 2)>} : tensor<?x?x?x?xf32> -> tensor<?x?x2x?xf32>
  %m = fuser.mean %z dims = [1, 3] keepdim = true : tensor<?x?x2x?xf32> -> tensor<?x1x2x1xf32>
  return %m : tensor<?x1x2x1xf32>
}
// A head split has one input dim left to split: one reading, still guessed
// ([B, S, D] as [B, S, 2, D/2]).
func.func @heads(%x: tensor<?x?x?xf32>) -> tensor<?x?x2x?xf32> {
  %z = fuser.reshape %x : tensor<?x?x?xf32> -> tensor<?x?x2x?xf32>
  %e = fuser.exp %z : tensor<?x?x2x?xf32>
  return %e : tensor<?x?x2x?xf32>
}
// Space-to-depth, view(N, C, H/2, 2, W/2, 2): pairing H with H/2 left two
// static splits for W alone ([1,1,4,1,1,1] for a 4x4 image, torch's
// [1,1,2,2,2,2]).
func.func @s2d(%x: tensor<?x?x?x?xf32>) -> tensor<?x?x?x2x?x2xf32> {
  %z = fuser.reshape %x : tensor<?x?x?x?xf32> -> tensor<?x?x?x2x?x2xf32>
  %e = fuser.exp %z : tensor<?x?x?x2x?x2xf32>
  return %e : tensor<?x?x?x2x?x2xf32>
}
// Swin's window partition, view(B, H/7, 7, W/7, 7, C): pairing H with H/7
// and C from the back left W/49 for W/7, the same element count (every
// window's mean wrong, no check failing).
func.func @swin(%x: tensor<?x?x?x?xf32>) -> tensor<?x7x7x?xf32> {
  %r = fuser.reshape %x : tensor<?x?x?x?xf32> -> tensor<?x?x7x?x7x?xf32>
  %s = fuser.mean %r dims = [1, 3] : tensor<?x?x7x?x7x?xf32> -> tensor<?x7x7x?xf32>
  return %s : tensor<?x7x7x?xf32>
}
