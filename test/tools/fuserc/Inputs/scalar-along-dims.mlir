// Ops along dim 0 of rank-0 tensors (PyTorch reads a scalar's dim 0 or -1 as
// the dim of its one element): test/tools/fuserc/scalar-along-dims.test.
func.func @forward(%x: tensor<f32>, %i: tensor<i32>, %b: tensor<i1>, %l: tensor<i64>) -> (tensor<f32>, tensor<i64>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i1>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i64>, tensor<f32>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) {
  %s = fuser.sum %x dims = [0] : tensor<f32> -> tensor<f32>
  %si = fuser.sum %l dims = [0] keepdim = true : tensor<i64> -> tensor<i64>
  %p = fuser.prod %x dims = [0] : tensor<f32> -> tensor<f32>
  %mx = fuser.max %x dims = [0] keepdim = true : tensor<f32> -> tensor<f32>
  %mn = fuser.min %x dims = [0] : tensor<f32> -> tensor<f32>
  %me = fuser.mean %x dims = [0] : tensor<f32> -> tensor<f32>
  %an = fuser.any %b dims = [0] : tensor<i1> -> tensor<i1>
  %var, %mean = fuser.var_mean %x dims = [0] correction = 1 keepdim = false : tensor<f32> -> tensor<f32>, tensor<f32>
  %cs = fuser.cumsum %x dim = 0 : tensor<f32>
  %sm = fuser.softmax %x dim = 0 : tensor<f32>
  %lsm = fuser.log_softmax %x dim = 0 : tensor<f32>
  %ci = fuser.cumsum %l dim = 0 : tensor<i64>
  %cmv, %cmi = fuser.cummax %x dim = 0 : tensor<f32> -> tensor<i64>
  %cnv, %cni = fuser.cummin %x dim = 0 : tensor<f32> -> tensor<i64>
  %cp = fuser.cumprod %x dim = 0 : tensor<f32>
  return %s, %si, %p, %mx, %mn, %me, %an, %var, %mean, %cs, %sm, %lsm, %ci, %cmv, %cmi, %cni, %cnv, %cp : tensor<f32>, tensor<i64>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i1>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i64>, tensor<f32>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>
}

// The gradient of each through a scalar.
func.func @grad(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %s = fuser.sum %x dims = [0] : tensor<f32> -> tensor<f32>
  %sm = fuser.softmax %x dim = 0 : tensor<f32>
  %cp = fuser.cumprod %x dim = 0 : tensor<f32>
  %m = fuser.mul %s, %cp : tensor<f32>
  %mv, %mi = fuser.cummax %x dim = 0 : tensor<f32> -> tensor<i64>
  %var, %mean = fuser.var_mean %x dims = [0] correction = 0 keepdim = true : tensor<f32> -> tensor<f32>, tensor<f32>
  %t = fuser.add %mv, %var : tensor<f32>
  return %m, %sm, %t, %mean : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// A sum of a computed -0.0 along a scalar's dim is +0.0, as PyTorch's; the
// gradient of a scalar's prod is the cotangent, also at an infinity.
func.func @neg_sum(%a: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %n = fuser.neg %a : tensor<f32>
  %s = fuser.sum %n dims = [0] : tensor<f32> -> tensor<f32>
  %m = fuser.mean %n dims = [0] keepdim = true : tensor<f32> -> tensor<f32>
  return %s, %m : tensor<f32>, tensor<f32>
}
func.func @prod(%x: tensor<f32>) -> tensor<f32> {
  %p = fuser.prod %x dims = [0] : tensor<f32> -> tensor<f32>
  return %p : tensor<f32>
}
