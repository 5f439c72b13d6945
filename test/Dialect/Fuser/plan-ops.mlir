// The launch plan ops round-trip, and launches with constant conditions fold.
// RUN: fuser-opt %s | fuser-opt | FileCheck %s
// RUN: fuser-opt %s --canonicalize | FileCheck %s --check-prefix=CANON

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%a: !llvm.ptr, %n: i32) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @plan
  // CANON-LABEL: func.func @plan
  func.func @plan(%x: memref<?xf32>, %y: memref<?xf32>) attributes {fuser.plan, fuser.num_args = 1 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %false = arith.constant false
    %n = memref.dim %x, %c0 : memref<?xf32>
    // CHECK: fuser.result_dim %{{.*}}[0] = %{{.*}} : memref<?xf32>
    fuser.result_dim %y[0] = %n : memref<?xf32>
    // CHECK: fuser.buffer_view %{{.*}} : memref<?xf32> to memref<?x1xf32>
    %view = fuser.buffer_view %y : memref<?xf32> to memref<?x1xf32>
    // CHECK: %[[OK:.*]] = fuser.is_aligned %{{.*}}, 16 : memref<?xf32>
    %ok = fuser.is_aligned %x, 16 : memref<?xf32>
    // CHECK: fuser.check %[[OK]], "x is not aligned"
    fuser.check %ok, "x is not aligned"
    %pos = arith.cmpi sgt, %n, %c0 : index
    // CHECK: fuser.check %{{.*}}, "{} must exceed {}"(%{{.*}}, %{{.*}} : index, index)
    fuser.check %pos, "{} must exceed {}" (%n, %c0 : index, index)
    // CHECK: fuser.launch @k::@f grid(%{{.*}}, %{{.*}}, %{{.*}}) block(%{{.*}}, %{{.*}}, %{{.*}}) smem(%{{.*}}) if(%{{.*}}) args(%{{.*}}, %{{.*}} : memref<?xf32>, index) index_bits [32]
    // CANON: fuser.launch @k::@f {{.*}} smem(%c0) if(%{{.*}}) args(
    fuser.launch @k::@f grid(%n, %c1, %c1) block(%c1, %c1, %c1) smem(%c0) if(%pos) args(%x, %n : memref<?xf32>, index) index_bits [32]
    // CANON: fuser.launch @k::@f {{.*}} smem(%c0) args(
    fuser.launch @k::@f grid(%n, %c1, %c1) block(%c1, %c1, %c1) smem(%c0) if(%true) args(%x, %n : memref<?xf32>, index) index_bits [32]
    // A launch that never happens is dropped.
    // CANON-NOT: fuser.launch
    fuser.launch @k::@f grid(%n, %c1, %c1) block(%c1, %c1, %c1) smem(%c0) if(%false) args(%x, %n : memref<?xf32>, index) index_bits [32]
    // The index error word, zeroed, checked after the launches (and kept
    // by the canonicalizer: the check has effects).
    %w = memref.alloc() : memref<8xi64>
    fuser.zeroed %w : memref<8xi64>
    // CHECK: fuser.index_check %{{.*}}, "fuser.gather dim 1 at loc(unknown)" : memref<8xi64>
    // CANON: fuser.index_check
    fuser.index_check %w, "fuser.gather dim 1 at loc(unknown)" : memref<8xi64>
    return
  }
  // A GEMM with a bias and a gelu that keeps its input (aux).
  // CHECK-LABEL: func.func @gemm_aux
  // CHECK: fuser.gemm %{{.*}}, %{{.*}} -> %{{.*}} bias %{{.*}} aux %{{.*}} sizes({{.*}}) ld({{.*}}) batch_strides({{.*}}) {activation = "gelu_tanh", trans_b} : memref<8x16xf32>, memref<24x16xf32>, memref<8x24xf32>, memref<24xf32> aux memref<8x24xf32>
  func.func @gemm_aux(%x: memref<8x16xf32>, %w: memref<24x16xf32>, %b: memref<24xf32>, %y: memref<8x24xf32>, %h: memref<8x24xf32>, %c: index) {
    fuser.gemm %x, %w -> %y bias %b aux %h sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) {activation = "gelu_tanh", trans_b} : memref<8x16xf32>, memref<24x16xf32>, memref<8x24xf32>, memref<24xf32> aux memref<8x24xf32>
    return
  }
  // A GEMM that writes the bias gradient of its lhs (a linear backward's db).
  // CHECK-LABEL: func.func @gemm_bias_grad
  // CHECK: fuser.gemm %{{.*}}, %{{.*}} -> %{{.*}} bias %{{.*}} sizes({{.*}}) ld({{.*}}) batch_strides({{.*}}) {bias_grad = "a", trans_a} : memref<64x16xbf16>, memref<64x32xbf16>, memref<16x32xbf16>, memref<16xbf16>
  func.func @gemm_bias_grad(%dy: memref<64x16xbf16>, %x: memref<64x32xbf16>, %dw: memref<16x32xbf16>, %db: memref<16xbf16>, %c: index) {
    fuser.gemm %dy, %x -> %dw bias %db sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) {bias_grad = "a", trans_a} : memref<64x16xbf16>, memref<64x32xbf16>, memref<16x32xbf16>, memref<16xbf16>
    return
  }
}
