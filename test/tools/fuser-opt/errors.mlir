// Bad input ends in a diagnostic with file:line:col and exit code 1 (`not`
// fails on a crash, so a signal would fail this test).
// RUN: not fuser-opt %s -split-input-file 2>&1 | FileCheck %s

// CHECK: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: expected ':'
func.func @missing_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.exp %x
  return %0 : tensor<4xf32>
}

// -----

// CHECK: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: custom op 'fuser.frobnicate' is unknown
func.func @unknown_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.frobnicate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: use of undeclared SSA value name
func.func @undefined_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.exp %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
