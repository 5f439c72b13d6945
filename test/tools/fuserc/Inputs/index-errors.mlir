// Indexing ops with indices out of range (test/tools/fuserc/index-errors.test).
func.func @embedding(%t: tensor<100x64xf32>, %ids: tensor<8xi64>) -> tensor<8x64xf32> {
  %e = fuser.index_select %t, %ids dim = 0 : tensor<100x64xf32>, tensor<8xi64> -> tensor<8x64xf32>
  %r = fuser.exp %e : tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

func.func @columns(%x: tensor<3x5xbf16>, %ids: tensor<4xi32>) -> tensor<3x4xbf16> {
  %r = fuser.index_select %x, %ids dim = 1 : tensor<3x5xbf16>, tensor<4xi32> -> tensor<3x4xbf16>
  return %r : tensor<3x4xbf16>
}

func.func @wide(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2xf32> {
  %r = fuser.gather %x, %i dim = 1 : tensor<2x3xf32>, tensor<2x2xi64> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

func.func @cross_entropy(%x: tensor<3x1000xf32>, %t: tensor<3x1xi64>) -> tensor<3x1xf32> {
  %m = fuser.max %x dims = [1] keepdim = true : tensor<3x1000xf32> -> tensor<3x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1] : tensor<3x1xf32> -> tensor<3x1000xf32>
  %d = fuser.sub %x, %mb : tensor<3x1000xf32>
  %e = fuser.exp %d : tensor<3x1000xf32>
  %s = fuser.sum %e dims = [1] keepdim = true : tensor<3x1000xf32> -> tensor<3x1xf32>
  %l = fuser.log %s : tensor<3x1xf32>
  %lse = fuser.add %l, %m : tensor<3x1xf32>
  %p = fuser.gather %x, %t dim = 1 : tensor<3x1000xf32>, tensor<3x1xi64> -> tensor<3x1xf32>
  %r = fuser.sub %lse, %p : tensor<3x1xf32>
  return %r : tensor<3x1xf32>
}

// A plan with few registers: its INDEX_CHECK names buffer 5, which the
// loader once took for a register (and rejected the bundle).
func.func @small_plan(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>, %a: tensor<4x3xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %g = fuser.gather %x, %i dim = 1 : tensor<4x10xf32>, tensor<4x3xi64> -> tensor<4x3xf32>
  %s = fuser.add %g, %a : tensor<4x3xf32>
  %t = fuser.add %s, %b : tensor<4x3xf32>
  return %t : tensor<4x3xf32>
}

// Nothing to pick.
func.func @empty_index(%x: tensor<10xf32>, %i: tensor<0xi64>) -> tensor<0xf32> {
  %0 = fuser.gather %x, %i dim = 0 : tensor<10xf32>, tensor<0xi64> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// scatter_add and index_add: an index out of range adds nothing and is
// reported with its position in the index.
func.func @scatter(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>, %s: tensor<4x3xf32>) -> tensor<4x10xf32> {
  %0 = fuser.scatter_add %x, %i, %s dim = 1 : tensor<4x10xf32>, tensor<4x3xi64>, tensor<4x3xf32>
  return %0 : tensor<4x10xf32>
}

func.func @index_add(%x: tensor<5x3xbf16>, %ids: tensor<4xi32>, %s: tensor<4x3xbf16>) -> tensor<5x3xbf16> {
  %0 = fuser.index_add %x, %ids, %s dim = 0 : tensor<5x3xbf16>, tensor<4xi32>, tensor<4x3xbf16>
  return %0 : tensor<5x3xbf16>
}

// A non-empty index into an empty dim: every index is out of range, and no
// result element walks it; the plan checks the sizes.
func.func @scatter_into_empty(%x: tensor<?x?xf32>, %i: tensor<?x?xi64>, %s: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fuser.scatter_add %x, %i, %s dim = 1 : tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// The same with the index's length known only at launch: the tiled
// index_add kernel (IndexAddScheduler.cpp) reports the same element.
func.func @index_add_tiles(%x: tensor<5x3xbf16>, %ids: tensor<?xi32>, %s: tensor<?x3xbf16>) -> tensor<5x3xbf16> {
  %0 = fuser.index_add %x, %ids, %s dim = 0 : tensor<5x3xbf16>, tensor<?xi32>, tensor<?x3xbf16>
  return %0 : tensor<5x3xbf16>
}
