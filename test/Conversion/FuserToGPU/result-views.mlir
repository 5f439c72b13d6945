// A result that reshapes a value a kernel computes is a view of the
// result's buffer: the plan passes the result, through fuser.buffer_view
// with the value's shape, to the kernel that computes the value, and
// launches no copy kernel (2 variants of the one kernel: the index widths).
// RUN: fuser-opt %s --fuser-decompose --fuser-segment --fuser-emit-kernels | FileCheck %s

// CHECK-LABEL: func.func @softmax_view(
// CHECK-SAME: %[[X:.*]]: memref<?x128xf32> {fuser.name = "arg0"}, %[[R:.*]]: memref<?x1x128xf32> {fuser.name = "result0"})
// CHECK: %[[V:.*]] = fuser.buffer_view %[[R]] : memref<?x1x128xf32> to memref<?x128xf32>
// CHECK-COUNT-2: fuser.launch @softmax_view_kernels::@{{.*}} args(%[[X]], %[[V]],
// CHECK-NOT: fuser.launch {{.*}}%[[R]]
func.func @softmax_view(%x: tensor<?x128xf32>) -> tensor<?x1x128xf32> {
  %y = fuser.softmax %x dim = 1 : tensor<?x128xf32>
  %v = fuser.reshape %y : tensor<?x128xf32> -> tensor<?x1x128xf32>
  return %v : tensor<?x1x128xf32>
}
