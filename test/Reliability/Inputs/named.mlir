// Named arguments and results, for tests that rename them in the compiled
// bundle to names the compiler refuses (of the same lengths: "sum_result"
// to "../escaped", "other_in" to "first_in").
func.func @f(%x: tensor<2x3xf32> {fuser.name = "first_in"}, %y: tensor<3xf32> {fuser.name = "other_in"})
    -> (tensor<2x3xf32> {fuser.name = "sum_result"}, tensor<3xf32> {fuser.name = "neg_result"}) {
  %b = fuser.broadcast %y dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  %0 = fuser.add %x, %b : tensor<2x3xf32>, tensor<2x3xf32>
  %1 = fuser.neg %y : tensor<3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<3xf32>
}
