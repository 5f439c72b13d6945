// bf16 compare, cast back to bf16 and on to f16 (random-fusion seed 692237973).
func.func @seed_692237973(%in0: tensor<1x2xbf16>) -> (tensor<1x2xf16>, tensor<1x2xi1>) {
  %v1_0 = fuser.constant 3.0 : tensor<bf16>
  %v2_0 = fuser.ne %in0, %v1_0 : tensor<1x2xbf16>, tensor<bf16>
  %v3_0 = fuser.cast %v2_0 : tensor<1x2xi1> to tensor<1x2xbf16>
  %v4_0 = fuser.cast %v3_0 : tensor<1x2xbf16> to tensor<1x2xf16>
  return %v4_0, %v2_0 : tensor<1x2xf16>, tensor<1x2xi1>
}
