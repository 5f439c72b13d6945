// 2^62 x 4 elements: 2^64, which wrapped to an empty tensor that compiled
// to no kernel and "ran".
func.func @f(%y: tensor<4611686018427387904x4xi8>) -> tensor<4611686018427387904x4xi8> {
  %0 = fuser.neg %y : tensor<4611686018427387904x4xi8>
  return %0 : tensor<4611686018427387904x4xi8>
}
