// KNOWN_FAILURES "layer-norm-mean" (test/oracle/oracle/known_failures.py).
//
//   build/bin/fuserc run test/oracle/repro/layer_norm_mean_overflow.mlir --device cpu --random 1
//
// Rows of |x| * 1e37 (at most 4e37, mean about 2e37, all finite in f32):
// PyTorch's native_layer_norm (f32 and f64) gives a finite mean of about
// 2e37 (result1) and a finite rstd (f64: about 9e-38; f32 overflows the
// variance to NaN). fuser's mean is inf (the row sum overflows before the
// division) and its rstd 0. result3/result4 are the mean and rstd of rows
// of ordinary values whose first element is inf: PyTorch's mean and rstd
// are NaN there (Welford: inf - inf), fuser's mean is inf.
func.func @layer_norm_mean_overflow(%x: tensor<4x257xf32>)
    -> (tensor<4x257xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>) {
  %big = fuser.constant 1.0e37 : tensor<f32>
  %a = fuser.abs %x : tensor<4x257xf32>
  %h = fuser.mul %a, %big : tensor<4x257xf32>, tensor<f32>
  %y:3 = fuser.layer_norm %h dims = [1] eps = 1.0e-05
      : (tensor<4x257xf32>) -> (tensor<4x257xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  %i = fuser.iota dim = 1 : tensor<4x257xi32>
  %zero = fuser.constant 0 : tensor<i32>
  %first = fuser.eq %i, %zero : tensor<4x257xi32>, tensor<i32>
  %inf = fuser.constant inf : tensor<f32>
  %g = fuser.where %first, %inf, %x : tensor<4x257xi1>, tensor<f32>, tensor<4x257xf32>
  %z:3 = fuser.layer_norm %g dims = [1] eps = 1.0e-05
      : (tensor<4x257xf32>) -> (tensor<4x257xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %y#0, %y#1, %y#2, %z#1, %z#2
      : tensor<4x257xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>
}
