// rotate_half beside x: the concat's dim splits into two pieces of 32
// (docs/schedulers.md, "Concats: the dim in pieces"), each unit computing
// both.
func.func @concat_pieces(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %x1 = fuser.slice %x start = [0, 0] limit = [16, 32] step = [1, 1] : tensor<16x64xf32> -> tensor<16x32xf32>
  %x2 = fuser.slice %x start = [0, 32] limit = [16, 64] step = [1, 1] : tensor<16x64xf32> -> tensor<16x32xf32>
  %n2 = fuser.neg %x2 : tensor<16x32xf32>
  %r = fuser.concat %n2, %x1 dim = 1 : tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x64xf32>
  %0 = fuser.add %x, %r : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
