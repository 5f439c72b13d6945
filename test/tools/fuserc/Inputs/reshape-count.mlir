// A reshape of a dynamic argument into a static shape: the element count
// is checked at launch.
func.func @flatten_back(%x: tensor<?xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = fuser.reshape %x : tensor<?xf32> -> tensor<3x4xf32>
  %0 = fuser.add %r, %y : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
// A dynamic dim sized by the rule (the count over the static dims' product):
// 7 elements into [?, 3] leave one over.
func.func @split_rows(%x: tensor<?xf32>) -> tensor<?x3xf32> {
  %r = fuser.reshape %x : tensor<?xf32> -> tensor<?x3xf32>
  %0 = fuser.exp %r : tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
// Two dims that must be equal: the check names the op that ties them.
func.func @concat_columns(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fuser.concat %a, %b dim = 0 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
