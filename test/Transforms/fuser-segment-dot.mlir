// The DOT picture colours ops by segment.
// RUN: fuser-opt %s --fuser-segment=dot=%t -o /dev/null
// RUN: FileCheck %s < %t.columns.dot
// CHECK: digraph "columns" {
// CHECK-DAG: op0 [label="sum\nsegment 0"
// CHECK-DAG: op2 [label="div\nsegment 1"
// CHECK-DAG: arg0 -> op0;
// CHECK-DAG: op0 -> op1;
func.func @columns(%x: tensor<512x16xf32>) -> tensor<512x16xf32> {
  %s = fuser.sum %x dims = [0] : tensor<512x16xf32> -> tensor<16xf32>
  %b = fuser.broadcast %s dims = [1] : tensor<16xf32> -> tensor<512x16xf32>
  %y = fuser.div %x, %b : tensor<512x16xf32>
  return %y : tensor<512x16xf32>
}
