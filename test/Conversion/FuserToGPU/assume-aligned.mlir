// fuser-emit-kernels' assume-aligned: the caller promises 16-byte aligned
// buffers. The plan checks each one first, naming it, and no kernel holds a
// misaligned-buffer fallback or a scalar body. A row normalization of a
// static length is one kernel either way; without the option its accesses
// go lane by lane where the plan's checks fail (the flag the launch passes).
// RUN: fuser-opt %s --fuser-decompose --fuser-segment --fuser-emit-kernels="assume-aligned" --canonicalize --cse | FileCheck %s
// RUN: fuser-opt %s --fuser-decompose --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s --check-prefix=DEFAULT

// CHECK:     gpu.func @softmax_0(
// CHECK-NOT: gpu.func
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: {fuser.name = "arg0"}
// CHECK:      %[[RA:.*]] = fuser.is_aligned %{{.*}}, 16
// CHECK-NEXT: fuser.check %[[RA]], "'result0' does not start at a 16-byte aligned address, and this fusion was compiled for aligned buffers only (assume-aligned): pass an aligned buffer, or compile without assume-aligned"
// CHECK-NEXT: %[[XA:.*]] = fuser.is_aligned %{{.*}}, 16
// CHECK-NEXT: fuser.check %[[XA]], "'arg0' does not start
// CHECK-NOT:  fuser.is_aligned
// CHECK:      fuser.launch @softmax_kernels::@softmax_0
// CHECK-NOT:  fuser.launch

// DEFAULT:     gpu.func @softmax_0(
// DEFAULT-NOT: gpu.func
// DEFAULT-NOT: fuser.check
// DEFAULT:     fuser.is_aligned
// DEFAULT:     fuser.launch @softmax_kernels::@softmax_0
// DEFAULT-NOT: fuser.launch
func.func @softmax(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %y = fuser.softmax %x dim = 1 : tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}
