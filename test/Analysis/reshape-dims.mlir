// How a reshape's dynamic result dims get their sizes (lib/Analysis/
// ShapeAnalysis.cpp, docs/dialect.md): one dynamic dim is the element count
// over the static ones; with more, leading dims keep their input's sizes
// (size-1 dims aside) until one is left to infer, then trailing dims.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s

// instance_norm's statistics [N, C, 1, 1] as [N, C]: both dims kept, no
// element-count check.
// CHECK-LABEL: func.func @squeeze(
// CHECK-DAG: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[C:.*]] = memref.dim %arg0, %c1
// CHECK-NOT: fuser.check {{.*}}reshape needs
// CHECK-DAG: fuser.result_dim %arg1[0] = %[[N]]
// CHECK-DAG: fuser.result_dim %arg1[1] = %[[C]]
func.func @squeeze(%x: tensor<?x?x?x?xf32>) -> tensor<?x?xf32> {
  %s = fuser.sum %x dims = [2, 3] keepdim = true : tensor<?x?x?x?xf32> -> tensor<?x?x1x1xf32>
  %r = fuser.reshape %s : tensor<?x?x1x1xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// group_norm's groups: [N, 8, H, W] as [N, 4, 8 H W / 4].
// CHECK-LABEL: func.func @groups(
// CHECK-DAG: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[H:.*]] = memref.dim %arg0, %c2
// CHECK-DAG: %[[W:.*]] = memref.dim %arg0, %c3
// CHECK: fuser.result_dim %arg1[0] = %[[N]]
// CHECK: %[[HW:.*]] = arith.muli %[[H]], %[[W]]
// CHECK: %[[K:.*]] = arith.muli %[[HW]], %c2
// CHECK: fuser.result_dim %arg1[2] = %[[K]]
func.func @groups(%x: tensor<?x8x?x?xf32>) -> tensor<?x4x?xf32> {
  %r = fuser.reshape %x : tensor<?x8x?x?xf32> -> tensor<?x4x?xf32>
  %e = fuser.exp %r : tensor<?x4x?xf32>
  return %e : tensor<?x4x?xf32>
}

// -----

// Attention scores [B*H, S, S] seen as [2, 4, S, S]: the leading dims do not
// pair (8 against [?]); from the back the last S does, and the one dynamic
// dim left is the rest's count over 8 (view(2, 4, -1, S)).
// CHECK-LABEL: func.func @heads(
// CHECK-DAG: %[[A:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[B:.*]] = memref.dim %arg0, %c1
// CHECK-DAG: %[[S:.*]] = memref.dim %arg0, %c2
// CHECK: %[[AB:.*]] = arith.muli %[[A]], %[[B]]
// CHECK: %[[Q:.*]] = arith.divui %[[AB]], %c8
// CHECK: fuser.check {{.*}}reshape needs the same number of elements
// CHECK: fuser.result_dim %arg1[2] = %[[Q]]
// CHECK: fuser.result_dim %arg1[3] = %[[S]]
func.func @heads(%x: tensor<?x?x?xf32>) -> tensor<2x4x?x?xf32> {
  %r = fuser.reshape %x : tensor<?x?x?xf32> -> tensor<2x4x?x?xf32>
  %e = fuser.exp %r : tensor<2x4x?x?xf32>
  return %e : tensor<2x4x?x?xf32>
}

// -----

// One dynamic result dim: the whole element count, checked when it runs
// (a flatten of [?, ?] keeps nothing).
// CHECK-LABEL: func.func @flatten(
// CHECK-DAG: %[[A:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[B:.*]] = memref.dim %arg0, %c1
// CHECK: %[[AB:.*]] = arith.muli %[[A]], %[[B]]
// CHECK: fuser.result_dim %arg1[0] = %[[AB]]
func.func @flatten(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = fuser.reshape %x : tensor<?x?xf32> -> tensor<?xf32>
  %e = fuser.exp %r : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// Known only from its result: the broadcast's dim 1 is tied to nothing but
// the reshape, whose result the add ties to %x. After every op is seen, the
// reshape's one unknown input dim is the result's element count over 16
// (fuser-vjp's gradient of a sum over `reshape [4,4,?] -> [16,?]` is this).
// CHECK-LABEL: func.func @from_result(
// CHECK: %[[D:.*]] = memref.dim %arg0, %c2
// CHECK: fuser.result_dim %arg2[2] = %[[D]]
// CHECK-NOT: fuser.check
func.func @from_result(%x: tensor<4x4x?xf32>, %g: tensor<16xf32>) -> tensor<4x4x?xf32> {
  %b = fuser.broadcast %g dims = [0] : tensor<16xf32> -> tensor<16x?xf32>
  %r = fuser.reshape %b : tensor<16x?xf32> -> tensor<4x4x?xf32>
  %y = fuser.add %r, %x : tensor<4x4x?xf32>
  return %y : tensor<4x4x?xf32>
}

// -----

// A slice of a reshape sized by its uses (fuser.dims_from_uses): its input's
// dims are known only after every op, so the slice's limit check waits for
// them (the compiler crashed on a null size).
// CHECK-LABEL: func.func @slice_of_dims_from_uses(
// CHECK: fuser.check {{.*}}"slice limit {} must not exceed dim 0 of 'fuser.reshape' ({})
func.func @slice_of_dims_from_uses(%x: tensor<?xf64>) -> tensor<1x1xf64> {
  %r = fuser.reshape %x {fuser.dims_from_uses} : tensor<?xf64> -> tensor<?x2xf64>
  %s = fuser.slice %r start = [0, 0] limit = [1, 1] step = [1, 1] : tensor<?x2xf64> -> tensor<1x1xf64>
  return %s : tensor<1x1xf64>
}

// -----

// A reshape recomputed in a second segment (fuser-segment clones it into
// the reduction's) computes the same size as the original, which an add
// ties to %y's dim: both copies are that one size, so the max over the
// clone and the sum over %y share a reduction domain. The clone was sized
// apart from %y and the kernel refused ("reductions over different
// shapes").
// CHECK-LABEL: func.func @recomputed_reshape(
// CHECK: fuser.check {{.*}}must equal dim 0 of y
// CHECK-NOT: fuser.check {{.*}}must equal dim 0 of y
// CHECK: return
func.func @recomputed_reshape(%x: tensor<?x?xf32>, %y: tensor<?x5xf32> {fuser.name = "y"}) -> tensor<5xf32> {
  %r = fuser.reshape %x : tensor<?x?xf32> -> tensor<?x5xf32>
  %m = fuser.max %r dims = [0] : tensor<?x5xf32> -> tensor<5xf32>
  %s = fuser.sum %y dims = [0] : tensor<?x5xf32> -> tensor<5xf32>
  %a = fuser.add %m, %s : tensor<5xf32>
  %b = fuser.broadcast %a dims = [1] : tensor<5xf32> -> tensor<?x5xf32>
  %z = fuser.add %r, %b : tensor<?x5xf32>
  %w = fuser.add %z, %y : tensor<?x5xf32>
  %q = fuser.sum %w dims = [0] : tensor<?x5xf32> -> tensor<5xf32>
  return %q : tensor<5xf32>
}

// -----

// A reshape sized by its uses (fuser.dims_from_uses), read by a reduction
// that joins another segment: the copy there has no use that sizes it.
// fuser-segment writes the sizes its uses gave (fuser.sizes, over the
// arguments' dynamic dims) on the reshape and its copies, so every copy
// has %x's dims (the copy was sized [n, 1] by the reshape rule, and the
// kernel refused: random_vjp seed 1193).
// CHECK-LABEL: func.func @dims_from_uses_copied(
// CHECK-DAG: %[[A:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[B:.*]] = memref.dim %arg0, %c1
// CHECK: %[[AB:.*]] = arith.muli %[[A]], %[[B]]
// CHECK: fuser.check {{.*}}reshape needs the same number of elements
// CHECK: fuser.result_dim %arg2[0] = %[[A]]
// CHECK: fuser.result_dim %arg2[1] = %[[B]]
func.func @dims_from_uses_copied(%x: tensor<?x?xf32>, %g: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = fuser.reshape %g {fuser.dims_from_uses} : tensor<?xf32> -> tensor<?x?xf32>
  %s = fuser.sum %r dims = [0] : tensor<?x?xf32> -> tensor<?xf32>
  %m = fuser.max %x dims = [0] : tensor<?x?xf32> -> tensor<?xf32>
  %sm = fuser.add %s, %m : tensor<?xf32>
  %b = fuser.broadcast %sm dims = [1] : tensor<?xf32> -> tensor<?x?xf32>
  %d = fuser.sub %r, %b : tensor<?x?xf32>
  %y = fuser.mul %d, %x : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// A fusion may state a reshape's sizes (fuser.sizes, over the dynamic
// argument dims): [B, T, C] as [B * T, C], where the rule alone would keep
// dim 0 ([B, T * C]).
// CHECK-LABEL: func.func @stated(
// CHECK-DAG: %[[B:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[T:.*]] = memref.dim %arg0, %c1
// CHECK-DAG: %[[C:.*]] = memref.dim %arg0, %c2
// CHECK: %[[BT:.*]] = arith.muli %[[B]], %[[T]]
// CHECK: fuser.result_dim %arg1[0] = %[[BT]]
// CHECK: fuser.result_dim %arg1[1] = %[[C]]
func.func @stated(%x: tensor<?x?x?xf32>) -> tensor<?x?xf32> {
  %r = fuser.reshape %x {fuser.sizes = affine_map<()[s0, s1, s2] -> (s0 * s1, s2)>} : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %e = fuser.exp %r : tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}

// -----

// group_norm's reshape back: [N, 8, H, W] -> [N, 4, ?] -> [N, 8, H, W]. The
// pairing rule would split the rest another way (H, W taken from the back
// as [?, 2*H*W/...]): the reshape back takes the dims the first reshape
// came from, and no element-count check can fail (it was a run-time error
// that said "4 in, 0 out").
// CHECK-LABEL: func.func @groups_back(
// CHECK-DAG: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[H:.*]] = memref.dim %arg0, %c2
// CHECK-DAG: %[[W:.*]] = memref.dim %arg0, %c3
// CHECK-NOT: fuser.check {{.*}}reshape needs
// CHECK-DAG: fuser.result_dim %arg1[0] = %[[N]]
// CHECK-DAG: fuser.result_dim %arg1[2] = %[[H]]
// CHECK-DAG: fuser.result_dim %arg1[3] = %[[W]]
func.func @groups_back(%x: tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32> {
  %z = fuser.reshape %x : tensor<?x8x?x?xf32> -> tensor<?x4x?xf32>
  %e = fuser.exp %z : tensor<?x4x?xf32>
  %n = fuser.reshape %e : tensor<?x4x?xf32> -> tensor<?x8x?x?xf32>
  return %n : tensor<?x8x?x?xf32>
}

// -----

// Channels-last: [N, H, W, 6] -> [N, H*W, 3, 2] -> back. The pairing rule
// gave [N, H*W*..., 1, 6]-like dims (a silently wrong output shape).
// CHECK-LABEL: func.func @groups_back_channels_last(
// CHECK-DAG: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[H:.*]] = memref.dim %arg0, %c1
// CHECK-DAG: %[[W:.*]] = memref.dim %arg0, %c2
// CHECK-DAG: fuser.result_dim %arg1[0] = %[[N]]
// CHECK-DAG: fuser.result_dim %arg1[1] = %[[H]]
// CHECK-DAG: fuser.result_dim %arg1[2] = %[[W]]
func.func @groups_back_channels_last(%x: tensor<?x?x?x6xf32>) -> tensor<?x?x?x6xf32> {
  %z = fuser.reshape %x : tensor<?x?x?x6xf32> -> tensor<?x?x3x2xf32>
  %e = fuser.exp %z : tensor<?x?x3x2xf32>
  %n = fuser.reshape %e : tensor<?x?x3x2xf32> -> tensor<?x?x?x6xf32>
  return %n : tensor<?x?x?x6xf32>
}
