// Reshapes with two or more dynamic result dims whose sizes other ops give
// (reshape-sized-by-uses.test).

// A mixture-of-experts combine: [s*k, h] rows seen as [s, k, h], weighted
// by [s, k] and summed over k (out.reshape(*w.shape, -1) * w[..., None]).
// The weights give s and k; h is the rest of the element count.
func.func @combine(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = fuser.reshape %x : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %wb = fuser.broadcast %w dims = [0, 1] : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %m = fuser.mul %r, %wb : tensor<?x?x?xf32>
  %s = fuser.sum %m dims = [1] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// Embedding rows [b*s, d] seen as ids' [b, s, d]: a where over ids'
// broadcast ties every result dim.
func.func @rows(%e: tensor<?x16xf32>, %ids: tensor<?x?xf32>) -> tensor<?x?x16xf32> {
  %r = fuser.reshape %e : tensor<?x16xf32> -> tensor<?x?x16xf32>
  %ib = fuser.broadcast %ids dims = [0, 1] : tensor<?x?xf32> -> tensor<?x?x16xf32>
  %t = fuser.eq %ib, %ib : tensor<?x?x16xf32>
  %y = fuser.where %t, %r, %r : tensor<?x?x16xi1>, tensor<?x?x16xf32>, tensor<?x?x16xf32>
  return %y : tensor<?x?x16xf32>
}

// Nothing else sizes it: the rule ([b*s, 1, d]).
func.func @rule(%e: tensor<?x16xf32>) -> tensor<?x?x16xf32> {
  %r = fuser.reshape %e : tensor<?x16xf32> -> tensor<?x?x16xf32>
  return %r : tensor<?x?x16xf32>
}

// A concat along a dim such a reshape gives: sized once the uses have
// sized the reshape (it was "cannot determine").
func.func @concat(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  %r = fuser.reshape %x : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %c = fuser.concat %r, %r dim = 2 : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %wb = fuser.broadcast %w dims = [0, 1] : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %m = fuser.mul %r, %wb : tensor<?x?x?xf32>
  %s = fuser.sum %m dims = [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %y = fuser.add %c, %sb : tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// The combine summed to a scalar loss: its gradient's reshape back has only
// a broadcast scalar cotangent to size it, and must wait for the forward
// reshape's copy, which the weights size (the rule from the result gave
// [s*k, h, 1] against the weights' [s, k]).
func.func @combine_loss(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<f32> {
  %r = fuser.reshape %x : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %wb = fuser.broadcast %w dims = [0, 1] : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %m = fuser.add %r, %wb : tensor<?x?x?xf32>
  %e = fuser.exp %m : tensor<?x?x?xf32>
  %s = fuser.sum %e dims = [0, 1, 2] : tensor<?x?x?xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// A reshape the rule sizes ([b*s, 1, d]), returned: its gradient's
// cotangent must have that shape, not another of as many elements.
func.func @rule_tanh(%e: tensor<?x16xf32>) -> tensor<?x?x16xf32> {
  %r = fuser.reshape %e : tensor<?x16xf32> -> tensor<?x?x16xf32>
  %t = fuser.tanh %r : tensor<?x?x16xf32>
  return %t : tensor<?x?x16xf32>
}

// x.view(B * T, C) stated with fuser.sizes: fuser-vjp renumbers the map's
// symbols for the gradient's own arguments (it copied it as it was, a map of
// 3 symbols in a fusion of 5 dynamic dims).
func.func @stated_tanh(%x: tensor<?x?x?xf32>) -> tensor<?x?xf32> {
  %r = fuser.reshape %x {fuser.sizes = affine_map<()[s0, s1, s2] -> (s0 * s1, s2)>} : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %t = fuser.tanh %r : tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}
