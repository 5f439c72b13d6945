// An embedding lookup, scaled and shifted (test/tools/fuserc/indexing-ptx.test).
func.func @embedding(%table: tensor<100x64xbf16>, %ids: tensor<8xi32>, %pos: tensor<8x64xbf16>) -> tensor<8x64xbf16> {
  %e = fuser.index_select %table, %ids dim = 0 : tensor<100x64xbf16>, tensor<8xi32> -> tensor<8x64xbf16>
  %r = fuser.add %e, %pos : tensor<8x64xbf16>
  return %r : tensor<8x64xbf16>
}
