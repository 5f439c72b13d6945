
// A broadcast row is read with a vector lo= lf32>
// CHECK-DAG: vector.broadcast %[[C]] : f32 to vector<4xf32>
func.func @bcas.t(%x: tensor<16x64xf32>, %row: tensor<64xf32>, %col: tensor<16x1xf32>) -> tensor<16x64xf32> {
  %r = fuser.broadcast %row dims = [1] : tensor<64xf32> -> tensor<16x64xf32>
  %c = fuser.broadcast %col dims = [0, 1] : tensor<16x1xf32> -> tensor<16x64xf32>
  %0 = fuser.add %x, %r : tensor<16x64xf32>
  %1 = fuser.mul %0, %c : tensor<16x64xf32>
  return %1 : tensor<16x64xf32>
}

