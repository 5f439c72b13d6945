// fuser.matmul and fuser.linear: torch.matmul's and F.linear's shapes, in
// their custom form and through the generic form.
// RUN: fuser-opt %s | fuser-opt | FileCheck %s
// RUN: fuser-opt %s --mlir-print-op-generic | fuser-opt | FileCheck %s

// CHECK-LABEL: func.func @shapes
func.func @shapes(%v: tensor<64xf32>, %m: tensor<32x64xf32>, %n: tensor<64x16xf32>,
                  %b3: tensor<5x32x64xf32>, %b4: tensor<2x1x64x16xf32>,
                  %d: tensor<?x?x64xbf16>, %e: tensor<64x?xbf16>) {
  // dot product: rank 0
  // CHECK: fuser.matmul %{{.*}}, %{{.*}} : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
  %0 = fuser.matmul %v, %v : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
  // CHECK: -> tensor<32x16xf32>
  %1 = fuser.matmul %m, %n : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  // matrix-vector and vector-matrix drop the vector's dim
  // CHECK: -> tensor<32xf32>
  %2 = fuser.matmul %m, %v : (tensor<32x64xf32>, tensor<64xf32>) -> tensor<32xf32>
  // CHECK: -> tensor<16xf32>
  %3 = fuser.matmul %v, %n : (tensor<64xf32>, tensor<64x16xf32>) -> tensor<16xf32>
  // batch dims broadcast right-aligned
  // CHECK: -> tensor<2x5x32x16xf32>
  %4 = fuser.matmul %b3, %b4 : (tensor<5x32x64xf32>, tensor<2x1x64x16xf32>) -> tensor<2x5x32x16xf32>
  // CHECK: -> tensor<5x32xf32>
  %5 = fuser.matmul %b3, %v : (tensor<5x32x64xf32>, tensor<64xf32>) -> tensor<5x32xf32>
  // dynamic sizes
  // CHECK: -> tensor<?x?x?xbf16>
  %6 = fuser.matmul %d, %e : (tensor<?x?x64xbf16>, tensor<64x?xbf16>) -> tensor<?x?x?xbf16>
  return
}

// CHECK-LABEL: func.func @linear
func.func @linear(%x: tensor<?x8x1024xbf16>, %w: tensor<4096x1024xbf16>, %b: tensor<4096xbf16>,
                  %v: tensor<1024xbf16>) {
  // CHECK: fuser.linear %{{.*}}, %{{.*}} bias %{{.*}} : (tensor<?x8x1024xbf16>, tensor<4096x1024xbf16>, tensor<4096xbf16>) -> tensor<?x8x4096xbf16>
  %0 = fuser.linear %x, %w bias %b : (tensor<?x8x1024xbf16>, tensor<4096x1024xbf16>, tensor<4096xbf16>) -> tensor<?x8x4096xbf16>
  // CHECK: fuser.linear %{{.*}}, %{{.*}} : (tensor<1024xbf16>, tensor<4096x1024xbf16>) -> tensor<4096xbf16>
  %1 = fuser.linear %v, %w : (tensor<1024xbf16>, tensor<4096x1024xbf16>) -> tensor<4096xbf16>
  return
}
