// Sizes found late, from the other side of an op (lib/Analysis/
// ShapeAnalysis.cpp, docs/dialect.md), each with the run-time check that
// keeps it honest. Found by a review: without these checks each case read
// past a buffer, allocated a negative size or returned without the error
// PyTorch gives.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s

// A reshape the rule cannot size (two dynamic dims left between the pairs)
// whose dims an add then gives: its whole element count is checked.
// CHECK-LABEL: func.func @reshape_sized_by_use(
// CHECK: fuser.check {{.*}}"reshape needs the same number of elements: {} in, {} out, in 'fuser.reshape'
func.func @reshape_sized_by_use(%x: tensor<?x8x?xf32>, %y: tensor<?x4x?x?x2xf32>) -> tensor<?x4x?x?x2xf32> {
  %r = fuser.reshape %x : tensor<?x8x?xf32> -> tensor<?x4x?x?x2xf32>
  %o = fuser.add %r, %y : tensor<?x4x?x?x2xf32>
  return %o : tensor<?x4x?x?x2xf32>
}

// -----

// A pad's input sized from its result: the result holds what the pad adds.
// CHECK-LABEL: func.func @pad_input_from_result(
// CHECK: fuser.check {{.*}}"pad adds {} elements to dim 0 of 'fuser.broadcast', more than its result's {}, in 'fuser.pad'
func.func @pad_input_from_result(%y: tensor<?xf32>) -> tensor<?xf32> {
  %z = fuser.constant 0.0 : tensor<f32>
  %c = fuser.constant 1.0 : tensor<f32>
  %b = fuser.broadcast %c dims = [] : tensor<f32> -> tensor<?xf32>
  %p = fuser.pad %b, %z low = [2] high = [3] : tensor<?xf32>, tensor<f32> -> tensor<?xf32>
  %o = fuser.add %p, %y : tensor<?xf32>
  return %o : tensor<?xf32>
}

// -----

// torch.gather's gradient: self (zeros) is sized by the result's
// fuser.same_shape_as only after every op; the check that a non-empty
// index does not add into an empty dim still comes (x of 2 x 0).
// CHECK-LABEL: func.func @gather_vjp(
// CHECK: fuser.check {{.*}}"fuser.scatter_add: an index of {} elements adds into dim 1 of 'fuser.constant', which is empty
func.func @gather_vjp(%x: tensor<?x?xf32>, %t: tensor<?x3xi64>, %g: tensor<f32>) -> (tensor<?x?xf32> {fuser.same_shape_as = 0 : i64}) {
  %z = fuser.constant 0.0 : tensor<?x?xf32>
  %b = fuser.broadcast %g dims = [] : tensor<f32> -> tensor<?x3xf32>
  %s = fuser.scatter_add %z, %t, %b dim = 1 : tensor<?x?xf32>, tensor<?x3xi64>, tensor<?x3xf32>
  return %s : tensor<?x?xf32>
}
