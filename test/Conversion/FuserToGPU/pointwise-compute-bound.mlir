// A pointwise segment whose element's arithmetic is estimated at 512
// instructions or more (16 expanded math functions at 32 each) takes one
// lane: the kernel is compute-bound many times over, so a vector access
// saves nothing, and every lane is one more copy of the arithmetic for
// LLVM (the vector body beside the scalar loop). 15 sins keep 4 lanes;
// pointwise.vector_bytes, when given, decides either way.
// RUN: fuser-opt %s --fuser-segment --fuser-schedule --fuser-emit-kernels --canonicalize --cse | FileCheck %s
// RUN: fuser-opt %s --fuser-segment '--fuser-schedule=schedule="pointwise.vector_bytes=16"' --fuser-emit-kernels --canonicalize --cse | FileCheck %s --check-prefix=GIVEN
// RUN: fuser-opt %s --fuser-segment --fuser-schedule --fuser-emit-kernels=explain 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN

// The heuristic: one scalar loop, no vector flag in the plan.
// CHECK-LABEL: gpu.func @heavy_0
// CHECK-NOT: vector<
// CHECK: llvm.load {{.*}} -> f32
// CHECK-NOT: vector<
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr
// CHECK-NOT: vector<
// CHECK-LABEL: func.func @heavy
// CHECK: fuser.launch @heavy_kernels::@heavy_0 grid(%c4, %c1, %c1) block(%c256, %c1, %c1)
// CHECK-LABEL: gpu.func @light_0
// CHECK: llvm.load {{.*}} -> vector<4xf32>
// CHECK: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr
// CHECK: llvm.load {{.*}} -> f32

// Given 16 bytes, the heavy chain takes 4 lanes too.
// GIVEN-LABEL: gpu.func @heavy_0
// GIVEN: llvm.load {{.*}} -> vector<4xf32>
// GIVEN-LABEL: gpu.func @light_0
// GIVEN: llvm.load {{.*}} -> vector<4xf32>

// EXPLAIN: heavy_0: 32-bit index, block 256 x 1 x 1; pointwise, 1 lane (the element's arithmetic, estimated at 512 instructions or more, is compute-bound: one lane, one copy of the code; pointwise.vector_bytes overrides), 1 unit(s) a thread a step
// EXPLAIN: light_0: 32-bit index, block 256 x 1 x 1; pointwise, 4 lanes where the plan's size and alignment checks hold, else 1 (pointwise.vector_bytes / the narrowest element that moves with the innermost dim)

func.func @heavy(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %v0 = fuser.sin %x : tensor<1000xf32>
  %v1 = fuser.sin %v0 : tensor<1000xf32>
  %v2 = fuser.sin %v1 : tensor<1000xf32>
  %v3 = fuser.sin %v2 : tensor<1000xf32>
  %v4 = fuser.sin %v3 : tensor<1000xf32>
  %v5 = fuser.sin %v4 : tensor<1000xf32>
  %v6 = fuser.sin %v5 : tensor<1000xf32>
  %v7 = fuser.sin %v6 : tensor<1000xf32>
  %v8 = fuser.sin %v7 : tensor<1000xf32>
  %v9 = fuser.sin %v8 : tensor<1000xf32>
  %v10 = fuser.sin %v9 : tensor<1000xf32>
  %v11 = fuser.sin %v10 : tensor<1000xf32>
  %v12 = fuser.sin %v11 : tensor<1000xf32>
  %v13 = fuser.sin %v12 : tensor<1000xf32>
  %v14 = fuser.sin %v13 : tensor<1000xf32>
  %v15 = fuser.sin %v14 : tensor<1000xf32>
  return %v15 : tensor<1000xf32>
}

func.func @light(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %v0 = fuser.sin %x : tensor<1000xf32>
  %v1 = fuser.sin %v0 : tensor<1000xf32>
  %v2 = fuser.sin %v1 : tensor<1000xf32>
  %v3 = fuser.sin %v2 : tensor<1000xf32>
  %v4 = fuser.sin %v3 : tensor<1000xf32>
  %v5 = fuser.sin %v4 : tensor<1000xf32>
  %v6 = fuser.sin %v5 : tensor<1000xf32>
  %v7 = fuser.sin %v6 : tensor<1000xf32>
  %v8 = fuser.sin %v7 : tensor<1000xf32>
  %v9 = fuser.sin %v8 : tensor<1000xf32>
  %v10 = fuser.sin %v9 : tensor<1000xf32>
  %v11 = fuser.sin %v10 : tensor<1000xf32>
  %v12 = fuser.sin %v11 : tensor<1000xf32>
  %v13 = fuser.sin %v12 : tensor<1000xf32>
  %v14 = fuser.sin %v13 : tensor<1000xf32>
  return %v14 : tensor<1000xf32>
}

// One float fmod is an exact fmod's one inline step, its other steps out
// of line (ElementwiseEmitter.cpp): estimated at 32, it keeps its lanes,
// as an integer fmod does; sixteen of them take one lane.
// CHECK-LABEL: gpu.func @float_fmod_0
// CHECK: llvm.load {{.*}} -> vector<4xf32>
// CHECK-LABEL: gpu.func @float_fmods_0
// CHECK-NOT: vector<
// CHECK-LABEL: gpu.func @int_fmod_0
// CHECK: llvm.load {{.*}} -> vector<4xi32>
func.func @float_fmod(%x: tensor<1000xf32>, %y: tensor<1000xf32>) -> tensor<1000xf32> {
  %0 = fuser.fmod %x, %y : tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

func.func @float_fmods(%f0: tensor<1000xf32>, %y: tensor<1000xf32>) -> tensor<1000xf32> {
  %f1 = fuser.fmod %f0, %y : tensor<1000xf32>
  %f2 = fuser.fmod %f1, %y : tensor<1000xf32>
  %f3 = fuser.fmod %f2, %y : tensor<1000xf32>
  %f4 = fuser.fmod %f3, %y : tensor<1000xf32>
  %f5 = fuser.fmod %f4, %y : tensor<1000xf32>
  %f6 = fuser.fmod %f5, %y : tensor<1000xf32>
  %f7 = fuser.fmod %f6, %y : tensor<1000xf32>
  %f8 = fuser.fmod %f7, %y : tensor<1000xf32>
  %f9 = fuser.fmod %f8, %y : tensor<1000xf32>
  %f10 = fuser.fmod %f9, %y : tensor<1000xf32>
  %f11 = fuser.fmod %f10, %y : tensor<1000xf32>
  %f12 = fuser.fmod %f11, %y : tensor<1000xf32>
  %f13 = fuser.fmod %f12, %y : tensor<1000xf32>
  %f14 = fuser.fmod %f13, %y : tensor<1000xf32>
  %f15 = fuser.fmod %f14, %y : tensor<1000xf32>
  %f16 = fuser.fmod %f15, %y : tensor<1000xf32>
  return %f16 : tensor<1000xf32>
}

func.func @int_fmod(%x: tensor<1000xi32>, %y: tensor<1000xi32>) -> tensor<1000xi32> {
  %0 = fuser.fmod %x, %y : tensor<1000xi32>
  return %0 : tensor<1000xi32>
}
