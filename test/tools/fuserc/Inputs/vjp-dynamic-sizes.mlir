// Gradients whose cotangent is broadcast to a shape only their uses size,
// with dynamic dims (test/tools/fuserc/vjp-dynamic-sizes.test).

// torch.gather(x, 1, t).sum(): scatter_add of the cotangent at the index.
func.func @gather_sum(%x: tensor<?x7xf32>, %t: tensor<?x1xi64>) -> tensor<f32> {
  %g = fuser.gather %x, %t dim = 1 : tensor<?x7xf32>, tensor<?x1xi64> -> tensor<?x1xf32>
  %m = fuser.sum %g dims = [0, 1] : tensor<?x1xf32> -> tensor<f32>
  return %m : tensor<f32>
}

// Cross-entropy: -log_softmax(x).gather(1, t).mean().
func.func @cross_entropy(%x: tensor<?x7xf32>, %t: tensor<?x1xi64>) -> tensor<f32> {
  %l = fuser.log_softmax %x dim = 1 : tensor<?x7xf32>
  %g = fuser.gather %l, %t dim = 1 : tensor<?x7xf32>, tensor<?x1xi64> -> tensor<?x1xf32>
  %n = fuser.neg %g : tensor<?x1xf32>
  %m = fuser.mean %n dims = [0, 1] : tensor<?x1xf32> -> tensor<f32>
  return %m : tensor<f32>
}

// torch.cummax(x, 1).values.sum().
func.func @cummax_sum(%x: tensor<?x?xf32>) -> tensor<f32> {
  %y, %i = fuser.cummax %x dim = 1 : tensor<?x?xf32> -> tensor<?x?xi64>
  %s = fuser.sum %y dims = [0, 1] : tensor<?x?xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// x[:, 1:5:2].sum(0).
func.func @slice_sum(%x: tensor<?x6xf32>) -> tensor<2xf32> {
  %p = fuser.slice %x start = [0, 1] limit = [9223372036854775807, 5] step = [1, 2] : tensor<?x6xf32> -> tensor<?x2xf32>
  %s = fuser.sum %p dims = [0] : tensor<?x2xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// torch.cat([a, b], 1).sum(0).
func.func @concat_sum(%a: tensor<?x2xf32>, %b: tensor<?x3xf32>) -> tensor<5xf32> {
  %c = fuser.concat %a, %b dim = 1 : tensor<?x2xf32>, tensor<?x3xf32> -> tensor<?x5xf32>
  %s = fuser.sum %c dims = [0] : tensor<?x5xf32> -> tensor<5xf32>
  return %s : tensor<5xf32>
}

// F.pad(x, (2, 1), value=v).sum(0).
func.func @pad_sum(%x: tensor<?x?xf32>, %v: tensor<f32>) -> tensor<?xf32> {
  %p = fuser.pad %x, %v low = [0, 2] high = [0, 1] : tensor<?x?xf32>, tensor<f32> -> tensor<?x?xf32>
  %s = fuser.sum %p dims = [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// x.reshape(x.shape[0], -1).sum(0).
func.func @flatten_sum(%x: tensor<?x?x?xf32>) -> tensor<?xf32> {
  %r = fuser.reshape %x : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %s = fuser.sum %r dims = [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// x.reshape(x.shape[0], -1).mean(1): a per-sample mean.
func.func @flatten_mean(%x: tensor<?x?x?xf32>) -> tensor<?xf32> {
  %r = fuser.reshape %x : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %s = fuser.mean %r dims = [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}
