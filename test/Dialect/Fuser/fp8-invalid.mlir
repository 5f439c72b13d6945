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

// -----

// The scaling composites: every verifier message.
func.func @quantize_result_shape(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'fuser.quantize' op result shape [8, 32] must equal the input's [8, 64]}}
  %q:3 = fuser.quantize %x row : tensor<8x64xf32> -> (tensor<8x32xf8E4M3FN>, tensor<8x1xf32>, tensor<8x1xf32>)
  return
}

// -----

func.func @quantize_block_size_on_row(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'fuser.quantize' op a block size is for block granularity only}}
  %q:3 = fuser.quantize %x row 32 : tensor<8x64xf32> -> (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<8x1xf32>)
  return
}

// -----

func.func @quantize_rank0_row(%x: tensor<f32>) {
  // expected-error @+1 {{'fuser.quantize' op row and block granularity need an input of rank 1 or more}}
  %q:3 = fuser.quantize %x row : tensor<f32> -> (tensor<f8E4M3FN>, tensor<f32>, tensor<f32>)
  return
}

// -----

func.func @quantize_no_block_size(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'fuser.quantize' op block granularity needs a block size (block 32)}}
  %q:3 = fuser.quantize %x block : tensor<8x64xf32> -> (tensor<8x64xf8E4M3FN>, tensor<8x2xf32>, tensor<8x2xf32>)
  return
}

// -----

func.func @quantize_block_size_zero(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'fuser.quantize' op block size 0 must be positive}}
  %q:3 = fuser.quantize %x block 0 : tensor<8x64xf32> -> (tensor<8x64xf8E4M3FN>, tensor<8x2xf32>, tensor<8x2xf32>)
  return
}

// -----

func.func @quantize_block_not_dividing(%x: tensor<8x48xf32>) {
  // expected-error @+1 {{'fuser.quantize' op the last dim (48) must be static and a multiple of the block size 32}}
  %q:3 = fuser.quantize %x block 32 : tensor<8x48xf32> -> (tensor<8x48xf8E4M3FN>, tensor<8x1xf32>, tensor<8x1xf32>)
  return
}

// -----

func.func @quantize_block_dynamic(%x: tensor<8x?xf32>) {
  // expected-error @+1 {{'fuser.quantize' op the last dim (?) must be static and a multiple of the block size 32}}
  %q:3 = fuser.quantize %x block 32 : tensor<8x?xf32> -> (tensor<8x?xf8E4M3FN>, tensor<8x?xf32>, tensor<8x?xf32>)
  return
}

// -----

func.func @quantize_scale_shape(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'fuser.quantize' op scale shape [8] must be [8, 1] for row granularity}}
  %q:3 = fuser.quantize %x row : tensor<8x64xf32> -> (tensor<8x64xf8E4M3FN>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @quantize_tensor_scale_shape(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'fuser.quantize' op scale shape [1, 1] must be [] for tensor granularity}}
  %q:3 = fuser.quantize %x tensor : tensor<8x64xf32> -> (tensor<8x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>)
  return
}

// -----

func.func @quantize_amax_shape(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'fuser.quantize' op amax shape [8] must equal the scale's [8, 2]}}
  %q:3 = fuser.quantize %x block 32 : tensor<8x64xf32> -> (tensor<8x64xf8E4M3FN>, tensor<8x2xf8E8M0FNU>, tensor<8xf32>)
  return
}

// -----

func.func @quantize_to_f16(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'fuser.quantize' op result #0 must be ranked tensor of f8E4M3FN or f8E5M2}}
  %q:3 = fuser.quantize %x row : tensor<8x64xf32> -> (tensor<8x64xf16>, tensor<8x1xf32>, tensor<8x1xf32>)
  return
}

// -----

func.func @quantize_bf16_scale(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'fuser.quantize' op result #1 must be ranked tensor of f32 or f8E8M0FNU}}
  %q:3 = fuser.quantize %x row : tensor<8x64xf32> -> (tensor<8x64xf8E4M3FN>, tensor<8x1xbf16>, tensor<8x1xf32>)
  return
}

// -----

func.func @quantize_fp8_input(%x: tensor<8x64xf8E5M2>) {
  // expected-error @+1 {{'fuser.quantize' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 (fp8: cast to f32 first)}}
  %q:3 = fuser.quantize %x row : tensor<8x64xf8E5M2> -> (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<8x1xf32>)
  return
}

// -----

func.func @scaled_cast_result_shape(%x: tensor<8x64xbf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'fuser.scaled_cast' op result shape [64, 8] must equal the input's [8, 64]}}
  %q:2 = fuser.scaled_cast %x, %s : (tensor<8x64xbf16>, tensor<f32>) -> (tensor<64x8xf8E4M3FN>, tensor<f32>)
  return
}

// -----

func.func @scaled_cast_scale_rank(%x: tensor<8x64xbf16>, %s: tensor<8xf32>) {
  // expected-error @+1 {{'fuser.scaled_cast' op scale has rank 1; it must be rank 0 (one scale) or the input's rank 2}}
  %q:2 = fuser.scaled_cast %x, %s : (tensor<8x64xbf16>, tensor<8xf32>) -> (tensor<8x64xf8E4M3FN>, tensor<8xf32>)
  return
}

// -----

func.func @scaled_cast_scale_shape(%x: tensor<8x64xbf16>, %s: tensor<4x1xf32>) {
  // expected-error @+1 {{'fuser.scaled_cast' op scale shape [4, 1] does not broadcast to the input's [8, 64] in dim 0 (each dim is 1 or the input's size; a '?' matches any, checked when it runs)}}
  %q:2 = fuser.scaled_cast %x, %s : (tensor<8x64xbf16>, tensor<4x1xf32>) -> (tensor<8x64xf8E4M3FN>, tensor<4x1xf32>)
  return
}

// -----

func.func @scaled_cast_amax(%x: tensor<8x64xbf16>, %s: tensor<8x1xf32>) {
  // expected-error @+1 {{'fuser.scaled_cast' op amax type 'tensor<f32>' must equal the scale type 'tensor<8x1xf32>'}}
  %q:2 = fuser.scaled_cast %x, %s : (tensor<8x64xbf16>, tensor<8x1xf32>) -> (tensor<8x64xf8E4M3FN>, tensor<f32>)
  return
}

// -----

func.func @scaled_cast_f64_scale(%x: tensor<8x64xbf16>, %s: tensor<f64>) {
  // expected-error @+1 {{'fuser.scaled_cast' op operand #1 must be ranked tensor of f32}}
  %q:2 = fuser.scaled_cast %x, %s : (tensor<8x64xbf16>, tensor<f64>) -> (tensor<8x64xf8E4M3FN>, tensor<f64>)
  return
}
