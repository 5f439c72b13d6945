// RUN: fuser-opt %s -split-input-file --fuser-decompose --fuser-segment --fuser-emit-kernels -verify-diagnostics

// A view whose rows and columns are both more than one element apart: no
// library layout reads it.
func.func @view_no_unit_stride(%x: tensor<64x48xf32> {fuser.strides = strided<[2, 128]>}, %w: tensor<48x8xf32>) -> tensor<64x8xf32> {
  // expected-error @+1 {{'fuser.matmul' op reads a view argument with strides [2, 128]: the GEMM reads a matrix whose rows or whose columns are one element apart (a static stride 1 in one of its last two dims); pass it dense}}
  %0 = fuser.matmul %x, %w : (tensor<64x48xf32>, tensor<48x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// -----

// Rows that overlap (an expanded or overlapping matrix).
func.func @view_overlapping_rows(%x: tensor<64x48xf32> {fuser.strides = strided<[4, 1]>}, %w: tensor<48x8xf32>) -> tensor<64x8xf32> {
  // expected-error @+1 {{'fuser.matmul' op reads a view argument with strides [4, 1]: its rows are 4 elements apart, fewer than the 48 elements of each (an expanded or overlapping matrix); pass it dense}}
  %0 = fuser.matmul %x, %w : (tensor<64x48xf32>, tensor<48x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// -----

// Batch dims that one stride cannot step through.
func.func @view_batch(%x: tensor<2x3x4x5xf32> {fuser.strides = strided<[100, 20, 5, 1]>}, %w: tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  // expected-error @+1 {{'fuser.matmul' op reads a view whose batch dims the GEMM cannot step through with one stride: the stride of dim 0 (100) is not the stride times the size of dim 1 (60); pass it dense}}
  %0 = fuser.matmul %x, %w : (tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}

// -----

// The bias is read by the epilogue as one dense row.
func.func @view_bias(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %b: tensor<4xf32> {fuser.strides = strided<[2]>}) -> tensor<8x4xf32> {
  // expected-error @+1 {{'fuser.linear' op takes a bias that is a view argument (fuser.strides); the bias must be dense: pass it dense}}
  %0 = fuser.linear %x, %w bias %b : (tensor<8x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
