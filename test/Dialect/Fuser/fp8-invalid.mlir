// fp8 tensors move and convert, never compute: every message about them.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

func.func @add(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'fuser.add' op operand #0 must be ranked tensor of i8, i32, i64, f16, bf16, f32 or f64 (fp8: cast to f32 first)}}
  %0 = fuser.add %x, %x : tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

func.func @exp(%x: tensor<4xf8E5M2>) -> tensor<4xf8E5M2> {
  // expected-error @+1 {{'fuser.exp' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 (fp8: cast to f32 first)}}
  %0 = fuser.exp %x : tensor<4xf8E5M2>
  return %0 : tensor<4xf8E5M2>
}

// -----

func.func @compare(%x: tensor<4xf8E4M3FN>) -> tensor<4xi1> {
  // expected-error @+1 {{'fuser.lt' op operand #0 must be ranked tensor of i1, i8, i32, i64, f16, bf16, f32 or f64 (fp8: cast to f32 first)}}
  %0 = fuser.lt %x, %x : tensor<4xf8E4M3FN>
  return %0 : tensor<4xi1>
}

// -----

func.func @reduce(%x: tensor<4x8xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'fuser.max' op operand #0 must be ranked tensor of i1, i8, i32, i64, f16, bf16, f32 or f64 (fp8: cast to f32 first)}}
  %0 = fuser.max %x dims = [1] : tensor<4x8xf8E4M3FN> -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

func.func @saturate_f16(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fuser.cast' op saturate applies to a cast to f8E4M3FN, f8E5M2 or f8E8M0FNU, not to 'f16'; other float casts overflow to infinity as PyTorch's do}}
  %0 = fuser.cast %x saturate : tensor<4xf32> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @other_fp8(%x: tensor<4xf8E4M3FNUZ>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuser.cast' op operand #0 must be ranked tensor of}}
  %0 = fuser.cast %x : tensor<4xf8E4M3FNUZ> to tensor<4xf32>
  return %0 : tensor<4xf32>
}
