// Saturating casts to e4m3 and e5m2 use the GPU's paired conversion from
// sm_90 on (cvt.rn.satfinite.e4m3x2.f32: two elements an instruction), with
// the NaN's sign put back; sm_80 has no such instruction, and sm_89's LLVM
// selects only from PTX 8.1 (fuser targets 7.8 there): both get the same
// bits from integer arithmetic; casts that do not saturate are arithmetic
// everywhere (the instruction only saturates). docs/fp8.md.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels=chip=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels=chip=sm_100 | FileCheck %s --check-prefix=SM90
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels=chip=sm_89 | FileCheck %s --check-prefix=SM80
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels=chip=sm_80 | FileCheck %s --check-prefix=SM80

// The vectorized body converts neighbours in pairs; the scalar tail pairs
// each element with 0.
// SM90-LABEL: gpu.func @sat_e4m3_0
// SM90: nvvm.convert.f32x2.to.f8x2 %{{[0-9]+}}, %{{[0-9]+}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// SM90: nvvm.convert.f32x2.to.f8x2 %cst{{.*}}, %{{[0-9]+}} {{.*}}(f8E4M3FN)
// SM90: gpu.return
// SM80-LABEL: gpu.func @sat_e4m3_0
// SM80-NOT: nvvm.
// SM80: gpu.return
func.func @sat_e4m3(%x: tensor<1024xf32>) -> tensor<1024xf8E4M3FN> {
  %0 = fuser.cast %x saturate : tensor<1024xf32> to tensor<1024xf8E4M3FN>
  return %0 : tensor<1024xf8E4M3FN>
}

// -----

// bf16 widens to f32 first (exactly), then converts.
// SM90-LABEL: gpu.func @sat_e5m2_0
// SM90: nvvm.convert.f32x2.to.f8x2 {{.*}}(f8E5M2)
// SM80-LABEL: gpu.func @sat_e5m2_0
// SM80-NOT: nvvm.
// SM80: gpu.return
func.func @sat_e5m2(%x: tensor<8x256xbf16>) -> tensor<8x256xf8E5M2> {
  %0 = fuser.cast %x saturate : tensor<8x256xbf16> to tensor<8x256xf8E5M2>
  return %0 : tensor<8x256xf8E5M2>
}

// -----

// SM90-LABEL: gpu.func @plain_0
// SM90-NOT: nvvm.convert
// SM90: gpu.return
func.func @plain(%x: tensor<1024xf32>) -> tensor<1024xf8E4M3FN> {
  %0 = fuser.cast %x : tensor<1024xf32> to tensor<1024xf8E4M3FN>
  return %0 : tensor<1024xf8E4M3FN>
}

// -----

// e8m0 (MX scales) has no such instruction on sm_90.
// SM90-LABEL: gpu.func @e8m0_0
// SM90-NOT: nvvm.convert
// SM90: gpu.return
func.func @e8m0(%x: tensor<1024xf32>) -> tensor<1024xf8E8M0FNU> {
  %0 = fuser.cast %x saturate : tensor<1024xf32> to tensor<1024xf8E8M0FNU>
  return %0 : tensor<1024xf8E8M0FNU>
}
