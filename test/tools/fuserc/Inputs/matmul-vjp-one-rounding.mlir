// Gradients of the matmul operand without batch dims, in bf16, one rounding
// (test/tools/fuserc/matmul-vjp-one-rounding.test).
func.func @rows(%a: tensor<16x1x1xbf16>, %b: tensor<1x1xbf16>) -> tensor<16x1x1xbf16> {
  %0 = fuser.matmul %a, %b : (tensor<16x1x1xbf16>, tensor<1x1xbf16>) -> tensor<16x1x1xbf16>
  return %0 : tensor<16x1x1xbf16>
}
func.func @vector(%a: tensor<16x1x1xbf16>, %b: tensor<1xbf16>) -> tensor<16x1xbf16> {
  %0 = fuser.matmul %a, %b : (tensor<16x1x1xbf16>, tensor<1xbf16>) -> tensor<16x1xbf16>
  return %0 : tensor<16x1xbf16>
}
func.func @lhs(%b: tensor<1x1xbf16>, %a: tensor<16x1x1xbf16>) -> tensor<16x1x1xbf16> {
  %0 = fuser.matmul %b, %a : (tensor<1x1xbf16>, tensor<16x1x1xbf16>) -> tensor<16x1x1xbf16>
  return %0 : tensor<16x1x1xbf16>
}
func.func @dynamic_rows(%a: tensor<?x?x1xbf16>, %b: tensor<1x1xbf16>) -> tensor<?x?x1xbf16> {
  %0 = fuser.matmul %a, %b : (tensor<?x?x1xbf16>, tensor<1x1xbf16>) -> tensor<?x?x1xbf16>
  return %0 : tensor<?x?x1xbf16>
}
func.func @all_dynamic(%a: tensor<?x?x?xbf16>, %b: tensor<?x?xbf16>) -> tensor<?x?x?xbf16> {
  %0 = fuser.matmul %a, %b : (tensor<?x?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?x?xbf16>
  return %0 : tensor<?x?x?xbf16>
}
func.func @linear_dynamic(%a: tensor<?x?x1xbf16>, %b: tensor<1x1xbf16>) -> tensor<?x?x1xbf16> {
  %0 = fuser.linear %a, %b : (tensor<?x?x1xbf16>, tensor<1x1xbf16>) -> tensor<?x?x1xbf16>
  return %0 : tensor<?x?x1xbf16>
}
func.func @linear_all_dynamic(%a: tensor<?x?x?xbf16>, %b: tensor<?x?xbf16>) -> tensor<?x?x?xbf16> {
  %0 = fuser.linear %a, %b : (tensor<?x?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?x?xbf16>
  return %0 : tensor<?x?x?xbf16>
}
// Larger shapes, checked against a float64 reference: the folds' permutes
// and reshapes keep every element where it belongs.
func.func @rows4(%a: tensor<2x3x5x7xbf16>, %b: tensor<7x4xbf16>) -> tensor<2x3x5x4xbf16> {
  %0 = fuser.matmul %a, %b : (tensor<2x3x5x7xbf16>, tensor<7x4xbf16>) -> tensor<2x3x5x4xbf16>
  return %0 : tensor<2x3x5x4xbf16>
}
func.func @lhs4(%a: tensor<5x7xbf16>, %b: tensor<2x3x7x4xbf16>) -> tensor<2x3x5x4xbf16> {
  %0 = fuser.matmul %a, %b : (tensor<5x7xbf16>, tensor<2x3x7x4xbf16>) -> tensor<2x3x5x4xbf16>
  return %0 : tensor<2x3x5x4xbf16>
}
func.func @vector4(%a: tensor<2x3x5x7xbf16>, %b: tensor<7xbf16>) -> tensor<2x3x5xbf16> {
  %0 = fuser.matmul %a, %b : (tensor<2x3x5x7xbf16>, tensor<7xbf16>) -> tensor<2x3x5xbf16>
  return %0 : tensor<2x3x5xbf16>
}
