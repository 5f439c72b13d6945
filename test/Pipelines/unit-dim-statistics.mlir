// A statistic over size-1 dims beside others is a statistic over the
// others (the canonicalizer drops them from a keepdim reduction's dims):
// batch_norm's mean over [0, 2, 3] of a batch of one is a row reduction
// over H x W, so its normalization is one kernel that reads x once, not a
// column statistic and a second kernel that reads x again.
// RUN: fuser-opt %s --fuser-decompose --canonicalize --fuser-segment=dump 2>&1 >/dev/null | FileCheck %s

// CHECK-LABEL: fusion @batch_norm_batch_of_one: 1 segment
// CHECK-NEXT: segment 0: normalization
func.func @batch_norm_batch_of_one(%x: tensor<1x32x64x64xf32>) -> (tensor<1x32x64x64xf32>, tensor<1x32x1x1xf32>) {
  %m = fuser.mean %x dims = [0, 2, 3] keepdim = true : tensor<1x32x64x64xf32> -> tensor<1x32x1x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1, 2, 3] : tensor<1x32x1x1xf32> -> tensor<1x32x64x64xf32>
  %d = fuser.sub %x, %mb : tensor<1x32x64x64xf32>
  %d2 = fuser.mul %d, %d : tensor<1x32x64x64xf32>
  %v = fuser.mean %d2 dims = [0, 2, 3] keepdim = true : tensor<1x32x64x64xf32> -> tensor<1x32x1x1xf32>
  %e = fuser.constant 1.0e-5 : tensor<f32>
  %eb = fuser.broadcast %e dims = [] : tensor<f32> -> tensor<1x32x1x1xf32>
  %ve = fuser.add %v, %eb : tensor<1x32x1x1xf32>
  %r = fuser.rsqrt %ve : tensor<1x32x1x1xf32>
  %rb = fuser.broadcast %r dims = [0, 1, 2, 3] : tensor<1x32x1x1xf32> -> tensor<1x32x64x64xf32>
  %y = fuser.mul %d, %rb : tensor<1x32x64x64xf32>
  return %y, %m : tensor<1x32x64x64xf32>, tensor<1x32x1x1xf32>
}

// A middle dim of size 1 beside the trailing one: a row reduction too.
// CHECK-LABEL: fusion @middle_unit_dim: 1 segment
// CHECK-NEXT: segment 0: normalization
func.func @middle_unit_dim(%x: tensor<64x1x1024xbf16>) -> tensor<64x1x1024xbf16> {
  %xf = fuser.cast %x : tensor<64x1x1024xbf16> to tensor<64x1x1024xf32>
  %m = fuser.max %xf dims = [1, 2] keepdim = true : tensor<64x1x1024xf32> -> tensor<64x1x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1, 2] : tensor<64x1x1xf32> -> tensor<64x1x1024xf32>
  %d = fuser.sub %xf, %mb : tensor<64x1x1024xf32>
  %y = fuser.cast %d : tensor<64x1x1024xf32> to tensor<64x1x1024xbf16>
  return %y : tensor<64x1x1024xbf16>
}

// The same through var_mean, as test/oracle's norm family writes it.
// CHECK-LABEL: fusion @var_mean_batch_of_one: 1 segment
// CHECK-NEXT: segment 0: normalization
func.func @var_mean_batch_of_one(%x: tensor<1x32x32x32xbf16>) -> (tensor<1x32x32x32xbf16>, tensor<32xf32>) {
  %xf = fuser.cast %x : tensor<1x32x32x32xbf16> to tensor<1x32x32x32xf32>
  %var, %mean = fuser.var_mean %xf dims = [0, 2, 3] correction = 0 keepdim = true : tensor<1x32x32x32xf32> -> tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>
  %eps = fuser.constant 1.0e-5 : tensor<f32>
  %ve = fuser.add %var, %eps : tensor<1x32x1x1xf32>, tensor<f32>
  %rstd = fuser.rsqrt %ve : tensor<1x32x1x1xf32>
  %mb = fuser.broadcast %mean dims = [0, 1, 2, 3] : tensor<1x32x1x1xf32> -> tensor<1x32x32x32xf32>
  %rb = fuser.broadcast %rstd dims = [0, 1, 2, 3] : tensor<1x32x1x1xf32> -> tensor<1x32x32x32xf32>
  %zc = fuser.sub %xf, %mb : tensor<1x32x32x32xf32>
  %zh = fuser.mul %zc, %rb : tensor<1x32x32x32xf32>
  %y = fuser.cast %zh : tensor<1x32x32x32xf32> to tensor<1x32x32x32xbf16>
  %m = fuser.reshape %mean : tensor<1x32x1x1xf32> -> tensor<32xf32>
  return %y, %m : tensor<1x32x32x32xbf16>, tensor<32xf32>
}

// keepdim=false, as nvFuser's batch_norm writes it: the statistic is [C],
// rsqrt(var + eps) is computed on [C] and broadcast back. The reduction
// keeps its size-1 dim, the reshape that drops it sinks below add and
// rsqrt, and the broadcasts fold it away: one kernel, and the saved mean
// is a reshape of its value.
// CHECK-LABEL: fusion @batch_norm_keepdim_false: 1 segment
// CHECK-NEXT: segment 0: normalization
// CHECK-NEXT: result 1: a reshape of segment 0's value
func.func @batch_norm_keepdim_false(%x: tensor<1x32x64x64xf32>) -> (tensor<1x32x64x64xf32>, tensor<32xf32>) {
  %var, %mean = fuser.var_mean %x dims = [0, 2, 3] correction = 0 keepdim = false : tensor<1x32x64x64xf32> -> tensor<32xf32>, tensor<32xf32>
  %eps = fuser.constant 1.0e-5 : tensor<f32>
  %ve = fuser.add %var, %eps : tensor<32xf32>, tensor<f32>
  %rstd = fuser.rsqrt %ve : tensor<32xf32>
  %mb = fuser.broadcast %mean dims = [1] : tensor<32xf32> -> tensor<1x32x64x64xf32>
  %rb = fuser.broadcast %rstd dims = [1] : tensor<32xf32> -> tensor<1x32x64x64xf32>
  %zc = fuser.sub %x, %mb : tensor<1x32x64x64xf32>
  %y = fuser.mul %zc, %rb : tensor<1x32x64x64xf32>
  return %y, %mean : tensor<1x32x64x64xf32>, tensor<32xf32>
}

// The statistic reshaped to [1, C, 1, 1] and broadcast, as a PyTorch
// decomposition writes it.
// CHECK-LABEL: fusion @batch_norm_reshaped_statistic: 1 segment
// CHECK-NEXT: segment 0: normalization
func.func @batch_norm_reshaped_statistic(%x: tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32> {
  %var, %mean = fuser.var_mean %x dims = [0, 2, 3] correction = 0 keepdim = false : tensor<1x32x64x64xf32> -> tensor<32xf32>, tensor<32xf32>
  %m4 = fuser.reshape %mean : tensor<32xf32> -> tensor<1x32x1x1xf32>
  %mb = fuser.broadcast %m4 dims = [0, 1, 2, 3] : tensor<1x32x1x1xf32> -> tensor<1x32x64x64xf32>
  %zc = fuser.sub %x, %mb : tensor<1x32x64x64xf32>
  return %zc : tensor<1x32x64x64xf32>
}
