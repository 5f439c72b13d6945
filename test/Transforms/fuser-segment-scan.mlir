// Segmentation around a scan: the ops that compute its input join its
// kernel; what reads its result is another kernel (an element is final only
// once the line before it is summed).
// RUN: fuser-opt %s -split-input-file --fuser-segment=dump 2>&1 >/dev/null | FileCheck %s

// Position ids from an attention mask: the cast joins the scan.
// CHECK: fusion @position_ids: 1 segment
// CHECK-NEXT: segment 0: scan, 2 ops (cast cumsum)
func.func @position_ids(%mask: tensor<4x?xi1>) -> tensor<4x?xi64> {
  %m = fuser.cast %mask : tensor<4x?xi1> to tensor<4x?xi64>
  %0 = fuser.cumsum %m dim = 1 : tensor<4x?xi64>
  return %0 : tensor<4x?xi64>
}

// -----

// A consumer of the scan's result is a kernel of its own, and the dump
// says why.
// CHECK: fusion @scan_then_scale: 2 segments
// CHECK-NEXT: segment 0: scan, 2 ops (exp cumsum)
// CHECK-NEXT: segment 1: pointwise, 1 ops (mul)
// CHECK-NEXT: boundary 0 -> 1: a value computed from a scan's result needs another kernel
func.func @scan_then_scale(%x: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %e = fuser.exp %x : tensor<8x100xf32>
  %c = fuser.cumsum %e dim = 1 : tensor<8x100xf32>
  %1 = fuser.mul %c, %x : tensor<8x100xf32>
  return %1 : tensor<8x100xf32>
}

// -----

// A value the scan's input shares with another result: recomputed by the
// other kernel, not written by the scan's.
// CHECK: fusion @shared_input: 2 segments
// CHECK-DAG: scan, 2 ops (exp cumsum)
// CHECK-DAG: pointwise, 1 ops (exp)
func.func @shared_input(%x: tensor<8x100xf32>) -> (tensor<8x100xf32>, tensor<8x100xf32>) {
  %e = fuser.exp %x : tensor<8x100xf32>
  %c = fuser.cumsum %e dim = 0 : tensor<8x100xf32>
  return %c, %e : tensor<8x100xf32>, tensor<8x100xf32>
}

// -----

// cummax writes both its results from one kernel; a consumer of the
// indices is another kernel.
// CHECK: fusion @cummax_then_use: 2 segments
// CHECK-NEXT: segment 0: scan, 2 ops (neg cummax)
// CHECK-NEXT: segment 1: pointwise, 1 ops (cast)
// CHECK-NEXT: boundary 0 -> 1: a value computed from a scan's result needs another kernel
func.func @cummax_then_use(%x: tensor<8x100xbf16>) -> (tensor<8x100xbf16>, tensor<8x100xf32>) {
  %n = fuser.neg %x : tensor<8x100xbf16>
  %v, %i = fuser.cummax %n dim = 1 : tensor<8x100xbf16> -> tensor<8x100xi64>
  %f = fuser.cast %i : tensor<8x100xi64> to tensor<8x100xf32>
  return %v, %f : tensor<8x100xbf16>, tensor<8x100xf32>
}
