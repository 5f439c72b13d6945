// The Fast tier's sin and cos branch, for |x| > 105615, inf and NaN, to a
// rare path that lives once per gpu.module as a private function
// (MathExpansion.h): a fusion of many sins carries it once, not at every op
// and every vector lane. A vector calls it lane by lane.
// RUN: fuser-opt %s --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s

// CHECK-LABEL: gpu.module @f_kernels
// One helper per function, however many ops and lanes use it.
// CHECK-COUNT-1: func.func private @__fuser_cos_rare_f32(%{{.*}}: f32) -> f32 attributes {llvm.linkage = #llvm.linkage<linkonce_odr>}
// CHECK-NOT: func.func private @__fuser_cos_rare
// CHECK-COUNT-1: func.func private @__fuser_sin_rare_f32(%{{.*}}: f32) -> f32 attributes {llvm.linkage = #llvm.linkage<linkonce_odr>}
// CHECK-NOT: func.func
// CHECK: gpu.func @f_0
// The vector path: the branch is taken when any lane needs it.
// CHECK: %[[ANY:.*]] = vector.reduction <or>, %{{.*}} : vector<4xi1> into i1
// CHECK-NEXT: scf.if %[[ANY]] -> (vector<4xf32>) {
// CHECK: %[[L0:.*]] = func.call @__fuser_sin_rare_f32(%{{.*}}) : (f32) -> f32
// CHECK: %[[L1:.*]] = func.call @__fuser_sin_rare_f32(%{{.*}}) : (f32) -> f32
// CHECK: %[[L2:.*]] = func.call @__fuser_sin_rare_f32(%{{.*}}) : (f32) -> f32
// CHECK: %[[L3:.*]] = func.call @__fuser_sin_rare_f32(%{{.*}}) : (f32) -> f32
// CHECK-NEXT: vector.from_elements %[[L0]], %[[L1]], %[[L2]], %[[L3]] : vector<4xf32>
// CHECK: } else {
// CHECK: func.call @__fuser_sin_rare_f32
// CHECK: func.call @__fuser_cos_rare_f32
// The scalar path calls it with the scalar.
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: func.call @__fuser_sin_rare_f32(%{{.*}}) : (f32) -> f32
func.func @f(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %a = fuser.sin %x : tensor<64x1024xf32>
  %b = fuser.sin %a : tensor<64x1024xf32>
  %c = fuser.cos %b : tensor<64x1024xf32>
  return %c : tensor<64x1024xf32>
}
