// Small fusions for emulator-opt.test: the dropout, bf16 and tanh of
// examples/dropout_residual_layer_norm.mlir and bf16_scale_tanh.mlir at
// sizes given at launch.
func.func @dropout_residual_layer_norm(%x: tensor<?x?xbf16>, %residual: tensor<?x?xbf16>,
                                       %w: tensor<?xbf16>, %b: tensor<?xbf16>,
                                       %seed: tensor<i64>, %offset: tensor<i64>)
    -> (tensor<?x?xbf16>, tensor<?x?xi1>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %p = fuser.constant 1.0e-01 : tensor<f32>
  %d, %mask = fuser.dropout %x, %p, %seed, %offset
      : tensor<?x?xbf16>, tensor<f32> -> tensor<?x?xbf16>, tensor<?x?xi1>
  %h = fuser.add %d, %residual : tensor<?x?xbf16>
  %y:3 = fuser.layer_norm %h weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<?x?xbf16>, tensor<?xbf16>, tensor<?xbf16>)
      -> (tensor<?x?xbf16>, tensor<?x1xf32>, tensor<?x1xf32>)
  return %y#0, %mask, %y#1, %y#2
      : tensor<?x?xbf16>, tensor<?x?xi1>, tensor<?x1xf32>, tensor<?x1xf32>
}

func.func @scale_tanh(%x: tensor<?xbf16>) -> tensor<?xbf16> {
  %s = fuser.constant 1.5 : tensor<bf16>
  %y = fuser.mul %x, %s : tensor<?xbf16>, tensor<bf16>
  %t = fuser.tanh %y : tensor<?xbf16>
  return %t : tensor<?xbf16>
}
