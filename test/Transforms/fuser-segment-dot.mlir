// The DOT picture colours ops by segment.
// RUN: fuser-opt %s --fuser-segment=dot=%t -o /dev/null
// RUN: FileCheck %s < %t.rows.dot
// CHECK: digraph "rows" {
// CHECK-DAG: op0 [label="max\nsegment 0"
// CHECK-DAG: op3 [label="sum\nsegment 1"
// CHECK-DAG: arg0 -> op0;
// CHECK-DAG: op0 -> op1;
func.func @rows(%x: tensor<16x512xf32>) -> tensor<512xf32> {
  %m = fuser.max %x dims = [1] : tensor<16x512xf32> -> tensor<16xf32>
  %b = fuser.broadcast %m dims = [0] : tensor<16xf32> -> tensor<16x512xf32>
  %y = fuser.div %x, %b : tensor<16x512xf32>
  %s = fuser.sum %y dims = [0] : tensor<16x512xf32> -> tensor<512xf32>
  return %s : tensor<512xf32>
}
