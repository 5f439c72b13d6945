// Conversions to bf16 and f16 on the values where CPUs and libraries
// disagree, as constants so that the test needs no input files:
//  - result0: f32 2^-130 to bf16 stays a subnormal (AVX512-BF16's
//    vcvtneps2bf16 flushed it to 0 when the JIT used it);
//  - result1: f64 1 + 2^-8 + 2^-40 to bf16 is 1: PyTorch rounds to f32 first
//    (1 + 2^-8, a tie, to even), where one rounding would give 1 + 2^-7; on a
//    CPU without bf16 instructions the JIT once needed __truncdfbf2;
//  - result2: i32 2^24 + 2^16 + 1 to bf16 is 2^24 (through f32, as PyTorch),
//    not 2^24 + 2^17;
//  - result3: f64 1 + 2^-11 + 2^-40 to f16 is 1 (through f32, as PyTorch).
func.func @half_conversions(%x: tensor<4xf32>)
    -> (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xf16>) {
  %zero = fuser.constant 0.0 : tensor<f32>
  %z = fuser.mul %x, %zero : tensor<4xf32>, tensor<f32>
  %tiny = fuser.constant 7.34683969e-40 : tensor<f32>
  %a = fuser.add %z, %tiny : tensor<4xf32>, tensor<f32>
  %0 = fuser.cast %a : tensor<4xf32> to tensor<4xbf16>
  %zd = fuser.cast %z : tensor<4xf32> to tensor<4xf64>
  %b = fuser.constant 1.0039062500009095 : tensor<f64>
  %bb = fuser.add %zd, %b : tensor<4xf64>, tensor<f64>
  %1 = fuser.cast %bb : tensor<4xf64> to tensor<4xbf16>
  %zi = fuser.cast %z : tensor<4xf32> to tensor<4xi32>
  %c = fuser.constant 16842753 : tensor<i32>
  %cc = fuser.add %zi, %c : tensor<4xi32>, tensor<i32>
  %2 = fuser.cast %cc : tensor<4xi32> to tensor<4xbf16>
  %d = fuser.constant 1.0004882812509095 : tensor<f64>
  %dd = fuser.add %zd, %d : tensor<4xf64>, tensor<f64>
  %3 = fuser.cast %dd : tensor<4xf64> to tensor<4xf16>
  return %0, %1, %2, %3 : tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xf16>
}
