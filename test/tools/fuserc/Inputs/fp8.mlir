// Fusions on fp8 tensors, for fp8.test (docs/fp8.md).

// Quantize f32 to e4m3, overflow to NaN (PyTorch's .to(float8_e4m3fn)).
func.func @q(%x: tensor<8xf32>) -> tensor<8xf8E4M3FN> {
  %0 = fuser.cast %x : tensor<8xf32> to tensor<8xf8E4M3FN>
  return %0 : tensor<8xf8E4M3FN>
}

// The same, saturating.
func.func @qsat(%x: tensor<8xf32>) -> tensor<8xf8E4M3FN> {
  %0 = fuser.cast %x saturate : tensor<8xf32> to tensor<8xf8E4M3FN>
  return %0 : tensor<8xf8E4M3FN>
}

// Dequantize e4m3 codes to f32.
func.func @dq(%x: tensor<8xf8E4M3FN>) -> tensor<8xf32> {
  %0 = fuser.cast %x : tensor<8xf8E4M3FN> to tensor<8xf32>
  return %0 : tensor<8xf32>
}

// Move e5m2 codes without converting them.
func.func @flip(%x: tensor<2x4xf8E5M2>) -> tensor<4x2xf8E5M2> {
  %0 = fuser.permute %x perm = [1, 0] : tensor<2x4xf8E5M2> -> tensor<4x2xf8E5M2>
  return %0 : tensor<4x2xf8E5M2>
}
