// An fp8 value moved from fp8 or integer arguments (an fp8 embedding
// table's index_select, an MX scale's codes bitcast) carries no gradient,
// as in PyTorch: fuser-vjp differentiates through the rest (it refused the
// cast, and the bitcast). One quantized from a float in the fusion is still
// refused (fuser-vjp-invalid.mlir).
// RUN: fuser-opt %s -split-input-file --fuser-vjp | FileCheck %s

// CHECK-LABEL: func.func @table_vjp(
// CHECK-SAME: %[[T:.*]]: tensor<16x8xf8E4M3FN>, %[[I:.*]]: tensor<4xi64>, %[[W:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<4x8xf32> {fuser.cotangent
// CHECK-SAME: -> (tensor<4x8xf32> {fuser.name = "grad_arg2"
// CHECK: %[[R:.*]] = fuser.index_select %[[T]], %[[I]]
// CHECK: %[[F:.*]] = fuser.cast %[[R]]
// CHECK: %[[GW:.*]] = fuser.mul %[[G]], %[[F]]
// CHECK: return %[[GW]]
func.func @table(%t: tensor<16x8xf8E4M3FN>, %i: tensor<4xi64>, %w: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = fuser.index_select %t, %i dim = 0 : tensor<16x8xf8E4M3FN>, tensor<4xi64> -> tensor<4x8xf8E4M3FN>
  %f = fuser.cast %r : tensor<4x8xf8E4M3FN> to tensor<4x8xf32>
  %y = fuser.mul %f, %w : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @codes_vjp(
// CHECK-SAME: -> (tensor<4xf32> {fuser.name = "grad_arg1"
func.func @codes(%c: tensor<4xi8>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %e = fuser.bitcast %c : tensor<4xi8> to tensor<4xf8E8M0FNU>
  %s = fuser.cast %e : tensor<4xf8E8M0FNU> to tensor<4xf32>
  %y = fuser.mul %x, %s : tensor<4xf32>
  return %y : tensor<4xf32>
}
