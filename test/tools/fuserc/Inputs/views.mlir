// Fusions with arguments that are views (`fuser.strides`), for views.test:
// each adds its argument to itself, so a result shows which storage
// elements the view read (Inputs/view-storage.npy holds 0, 1, ..., 11).

// x.t() of a 3x2 tensor: element (i, j) at i + 2*j.
func.func @t(%x: tensor<2x3xf32> {fuser.strides = strided<[1, 2]>}) -> tensor<2x3xf32> {
  %0 = fuser.add %x, %x : tensor<2x3xf32>, tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Rows of a wider matrix, x[:, a:a+3]: the row stride comes at run time.
func.func @d(%s: tensor<?x3xf32> {fuser.strides = strided<[?, 1]>}) -> tensor<?x3xf32> {
  %0 = fuser.add %s, %s : tensor<?x3xf32>, tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// b.expand(2, 3) of a 3-vector: stride 0.
func.func @e(%b: tensor<2x3xf32> {fuser.strides = strided<[0, 1]>}) -> tensor<2x3xf32> {
  %0 = fuser.add %b, %b : tensor<2x3xf32>, tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Dense (no fuser.strides), with a dim of size 1.
func.func @one(%w: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = fuser.add %w, %w : tensor<1x3xf32>, tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// x[:, :, :2] of a 2x2x3 tensor flattened (strides 6, 3, 1; the last dim's
// size at run time): the delinearized index of the flat result is a floordiv
// and mod by that size times constant strides, which MLIR's semi-affine
// simplification once turned into a wrong offset (IndexMath.cpp, simplify).
func.func @r(%x: tensor<2x2x?xf32> {fuser.strides = strided<[6, 3, 1]>}) -> tensor<?xf32> {
  %0 = fuser.reshape %x : tensor<2x2x?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
