// KNOWN_FAILURES "bf16-subnormal-flush" (test/oracle/oracle/known_failures.py).
//
//   build/bin/fuserc run test/oracle/repro/bf16_subnormal_flush.mlir --device cpu --random 1
//
// Every element is 2^-130 = 7.34683969e-40 (f32 0x00100000, bf16 0x0010, a
// subnormal in both), so PyTorch gives
//   bf16_subnormal_flush.result0: bf16[8] sum 5.87747175e-39: 7.34683969e-40 ...
// fuser on the CPU emulator prints 0 for every element: on a host with
// AVX512-BF16 the JIT turns f32 -> bf16 truncation into vcvtneps2bf16, which
// treats subnormal inputs as zero and flushes subnormal results.
func.func @bf16_subnormal_flush(%x: tensor<8xf32>) -> tensor<8xbf16> {
  %zero = fuser.constant 0.0 : tensor<f32>
  %tiny = fuser.constant 7.34683969e-40 : tensor<f32>
  %0 = fuser.mul %x, %zero : tensor<8xf32>, tensor<f32>
  %1 = fuser.add %0, %tiny : tensor<8xf32>, tensor<f32>
  %2 = fuser.cast %1 : tensor<8xf32> to tensor<8xbf16>
  return %2 : tensor<8xbf16>
}
