// Segmentation around gather and index_select: the indexed table is read at
// positions computed from data, so it is never computed (or recomputed) in
// the kernel that reads it; the index and everything after the pick fuse.
// RUN: fuser-opt %s -split-input-file --fuser-segment=dump 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
// RUN: fuser-opt %s -split-input-file --fuser-segment | FileCheck %s

// An embedding lookup scaled and shifted: one pointwise kernel.
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: fuser.schedulers = ["pointwise"]
// DUMP: fusion @embedding: 1 segment
// DUMP-NEXT: segment 0: pointwise, 4 ops (index_select broadcast mul add)
func.func @embedding(%t: tensor<100x64xf32>, %ids: tensor<8xi32>, %pos: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = fuser.index_select %t, %ids dim = 0 : tensor<100x64xf32>, tensor<8xi32> -> tensor<8x64xf32>
  %c = fuser.constant 8.0 : tensor<f32>
  %cb = fuser.broadcast %c dims = [] : tensor<f32> -> tensor<8x64xf32>
  %s = fuser.mul %e, %cb : tensor<8x64xf32>
  %r = fuser.add %s, %pos : tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// Cross-entropy's target pick beside the row's logsumexp: one kernel.
// DUMP: fusion @cross_entropy: 1 segment
// DUMP-NEXT: segment 0: normalization
func.func @cross_entropy(%x: tensor<4x1000xf32>, %t: tensor<4x1xi64>) -> tensor<4x1xf32> {
  %m = fuser.max %x dims = [1] keepdim = true : tensor<4x1000xf32> -> tensor<4x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1] : tensor<4x1xf32> -> tensor<4x1000xf32>
  %d = fuser.sub %x, %mb : tensor<4x1000xf32>
  %e = fuser.exp %d : tensor<4x1000xf32>
  %s = fuser.sum %e dims = [1] keepdim = true : tensor<4x1000xf32> -> tensor<4x1xf32>
  %l = fuser.log %s : tensor<4x1xf32>
  %lse = fuser.add %l, %m : tensor<4x1xf32>
  %p = fuser.gather %x, %t dim = 1 : tensor<4x1000xf32>, tensor<4x1xi64> -> tensor<4x1xf32>
  %r = fuser.sub %lse, %p : tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----

// A table the fusion computes is written by its own kernel first, and the
// dump says why.
// DUMP: fusion @gather_of_exp: 2 segments
// DUMP-NEXT: segment 0: pointwise, 1 ops (exp)
// DUMP-NEXT: segment 1: pointwise, 1 ops (gather)
// DUMP-NEXT: boundary 0 -> 1: 'fuser.gather' reads its input at positions computed from data: the input must be in memory, written by an earlier kernel
func.func @gather_of_exp(%x: tensor<6x20xf32>, %i: tensor<6x4xi64>) -> tensor<6x4xf32> {
  %e = fuser.exp %x : tensor<6x20xf32>
  %g = fuser.gather %e, %i dim = 1 : tensor<6x20xf32>, tensor<6x4xi64> -> tensor<6x4xf32>
  return %g : tensor<6x4xf32>
}

// -----

// The same table also read elementwise by the gather's consumer: the
// consumer recomputes it, the gather reads the stored copy.
// DUMP: fusion @gather_and_own: 2 segments
// DUMP-NEXT: segment 0: pointwise, 1 ops (exp)
// DUMP-NEXT: segment 1: pointwise, 3 ops (gather exp add)
func.func @gather_and_own(%x: tensor<6x4xf32>, %i: tensor<6x4xi64>) -> tensor<6x4xf32> {
  %e = fuser.exp %x : tensor<6x4xf32>
  %g = fuser.gather %e, %i dim = 1 : tensor<6x4xf32>, tensor<6x4xi64> -> tensor<6x4xf32>
  %s = fuser.add %g, %e : tensor<6x4xf32>
  return %s : tensor<6x4xf32>
}

// -----

// RoPE as Llama writes it: cos and sin picked by position ids, rotate_half
// by slices, neg and concat, then permuted: one pointwise kernel.
// DUMP: fusion @rope: 1 segment
// DUMP-NEXT: segment 0: pointwise, 17 ops
func.func @rope(%q: tensor<2x128x8x64xbf16>, %cos: tensor<4096x64xbf16>, %sin: tensor<4096x64xbf16>, %pos: tensor<128xi64>) -> tensor<2x8x128x64xbf16> {
  %c = fuser.index_select %cos, %pos dim = 0 : tensor<4096x64xbf16>, tensor<128xi64> -> tensor<128x64xbf16>
  %s = fuser.index_select %sin, %pos dim = 0 : tensor<4096x64xbf16>, tensor<128xi64> -> tensor<128x64xbf16>
  %cb = fuser.broadcast %c dims = [1, 3] : tensor<128x64xbf16> -> tensor<2x128x8x64xbf16>
  %sb = fuser.broadcast %s dims = [1, 3] : tensor<128x64xbf16> -> tensor<2x128x8x64xbf16>
  %x1 = fuser.slice %q start = [0, 0, 0, 0] limit = [2, 128, 8, 32] step = [1, 1, 1, 1] : tensor<2x128x8x64xbf16> -> tensor<2x128x8x32xbf16>
  %x2 = fuser.slice %q start = [0, 0, 0, 32] limit = [2, 128, 8, 64] step = [1, 1, 1, 1] : tensor<2x128x8x64xbf16> -> tensor<2x128x8x32xbf16>
  %n2 = fuser.neg %x2 : tensor<2x128x8x32xbf16>
  %rot = fuser.concat %n2, %x1 dim = 3 : tensor<2x128x8x32xbf16>, tensor<2x128x8x32xbf16> -> tensor<2x128x8x64xbf16>
  %qf = fuser.cast %q : tensor<2x128x8x64xbf16> to tensor<2x128x8x64xf32>
  %rf = fuser.cast %rot : tensor<2x128x8x64xbf16> to tensor<2x128x8x64xf32>
  %cf = fuser.cast %cb : tensor<2x128x8x64xbf16> to tensor<2x128x8x64xf32>
  %sf = fuser.cast %sb : tensor<2x128x8x64xbf16> to tensor<2x128x8x64xf32>
  %a = fuser.mul %qf, %cf : tensor<2x128x8x64xf32>
  %b = fuser.mul %rf, %sf : tensor<2x128x8x64xf32>
  %o = fuser.add %a, %b : tensor<2x128x8x64xf32>
  %ob = fuser.cast %o : tensor<2x128x8x64xf32> to tensor<2x128x8x64xbf16>
  %p = fuser.permute %ob perm = [0, 2, 1, 3] : tensor<2x128x8x64xbf16> -> tensor<2x8x128x64xbf16>
  return %p : tensor<2x8x128x64xbf16>
}

// -----

// Cross-entropy's backward, (softmax(x) - one_hot(t)) * g with the one-hot
// from iota == target: one normalization kernel.
// DUMP: fusion @cross_entropy_backward: 1 segment
// DUMP-NEXT: segment 0: normalization
func.func @cross_entropy_backward(%x: tensor<4x1000xf32>, %t: tensor<4x1xi64>, %g: tensor<4x1xf32>) -> tensor<4x1000xf32> {
  %m = fuser.max %x dims = [1] keepdim = true : tensor<4x1000xf32> -> tensor<4x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1] : tensor<4x1xf32> -> tensor<4x1000xf32>
  %d = fuser.sub %x, %mb : tensor<4x1000xf32>
  %e = fuser.exp %d : tensor<4x1000xf32>
  %s = fuser.sum %e dims = [1] keepdim = true : tensor<4x1000xf32> -> tensor<4x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<4x1xf32> -> tensor<4x1000xf32>
  %p = fuser.div %e, %sb : tensor<4x1000xf32>
  %col = fuser.iota dim = 1 : tensor<4x1000xi64>
  %tb = fuser.broadcast %t dims = [0, 1] : tensor<4x1xi64> -> tensor<4x1000xi64>
  %hot = fuser.eq %col, %tb : tensor<4x1000xi64>
  %hotf = fuser.cast %hot : tensor<4x1000xi1> to tensor<4x1000xf32>
  %q = fuser.sub %p, %hotf : tensor<4x1000xf32>
  %gb = fuser.broadcast %g dims = [0, 1] : tensor<4x1xf32> -> tensor<4x1000xf32>
  %dx = fuser.mul %q, %gb : tensor<4x1000xf32>
  return %dx : tensor<4x1000xf32>
}

// -----

// RoPE backward (Llama form): dq = dy*cos + rotate_half^T(dy*sin), dy
// permuted back from [B, H, S, D]: one pointwise kernel.
// DUMP: fusion @rope_backward: 1 segment
// DUMP-NEXT: segment 0: pointwise, 16 ops
func.func @rope_backward(%dy: tensor<2x4x16x64xbf16>, %cos: tensor<100x64xbf16>, %sin: tensor<100x64xbf16>, %pos: tensor<16xi64>) -> tensor<2x16x4x64xbf16> {
  %g = fuser.permute %dy perm = [0, 2, 1, 3] : tensor<2x4x16x64xbf16> -> tensor<2x16x4x64xbf16>
  %gf = fuser.cast %g : tensor<2x16x4x64xbf16> to tensor<2x16x4x64xf32>
  %c = fuser.index_select %cos, %pos dim = 0 : tensor<100x64xbf16>, tensor<16xi64> -> tensor<16x64xbf16>
  %s = fuser.index_select %sin, %pos dim = 0 : tensor<100x64xbf16>, tensor<16xi64> -> tensor<16x64xbf16>
  %cb = fuser.broadcast %c dims = [1, 3] : tensor<16x64xbf16> -> tensor<2x16x4x64xbf16>
  %sb = fuser.broadcast %s dims = [1, 3] : tensor<16x64xbf16> -> tensor<2x16x4x64xbf16>
  %cf = fuser.cast %cb : tensor<2x16x4x64xbf16> to tensor<2x16x4x64xf32>
  %sf = fuser.cast %sb : tensor<2x16x4x64xbf16> to tensor<2x16x4x64xf32>
  %gc = fuser.mul %gf, %cf : tensor<2x16x4x64xf32>
  %gs = fuser.mul %gf, %sf : tensor<2x16x4x64xf32>
  %lo = fuser.slice %gs start = [0, 0, 0, 0] limit = [2, 16, 4, 32] step = [1, 1, 1, 1] : tensor<2x16x4x64xf32> -> tensor<2x16x4x32xf32>
  %hi = fuser.slice %gs start = [0, 0, 0, 32] limit = [2, 16, 4, 64] step = [1, 1, 1, 1] : tensor<2x16x4x64xf32> -> tensor<2x16x4x32xf32>
  %nlo = fuser.neg %lo : tensor<2x16x4x32xf32>
  %rt = fuser.concat %hi, %nlo dim = 3 : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32> -> tensor<2x16x4x64xf32>
  %dq = fuser.add %gc, %rt : tensor<2x16x4x64xf32>
  %0 = fuser.cast %dq : tensor<2x16x4x64xf32> to tensor<2x16x4x64xbf16>
  return %0 : tensor<2x16x4x64xbf16>
}

// -----

// torch.nn.functional.cross_entropy with its mean over the rows whose
// target is not ignore_index (-100): the row max and sum of exp in a
// normalization kernel, then one reduction kernel over the rows that picks
// the target (index 0 in place of -100), subtracts and divides by the count.
// DUMP: fusion @cross_entropy_mean: 2 segments
// DUMP-NEXT: segment 0: normalization, 6 ops (cast max broadcast sub exp sum)
// DUMP-NEXT: segment 1: reduction, 14 ops (log add broadcast eq where not cast sum gather cast sub where sum div)
func.func @cross_entropy_mean(%x: tensor<?x?xbf16>, %t: tensor<?x1xi64>) -> (tensor<f32>) {
  %xf = fuser.cast %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %mx = fuser.max %xf dims = [1] keepdim = true : tensor<?x?xf32> -> tensor<?x1xf32>
  %mb = fuser.broadcast %mx dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %d = fuser.sub %xf, %mb : tensor<?x?xf32>
  %e = fuser.exp %d : tensor<?x?xf32>
  %s = fuser.sum %e dims = [1] keepdim = true : tensor<?x?xf32> -> tensor<?x1xf32>
  %l = fuser.log %s : tensor<?x1xf32>
  %lse = fuser.add %l, %mx : tensor<?x1xf32>
  %m100 = fuser.constant -100 : tensor<i64>
  %m100b = fuser.broadcast %m100 dims = [] : tensor<i64> -> tensor<?x1xi64>
  %ign = fuser.eq %t, %m100b : tensor<?x1xi64>
  %zi = fuser.constant 0 : tensor<i64>
  %safe = fuser.where %ign, %zi, %t : tensor<?x1xi1>, tensor<i64>, tensor<?x1xi64>
  %keep = fuser.not %ign : tensor<?x1xi1>
  %keepf = fuser.cast %keep : tensor<?x1xi1> to tensor<?x1xf32>
  %cnt = fuser.sum %keepf dims = [0, 1] : tensor<?x1xf32> -> tensor<f32>
  %p = fuser.gather %x, %safe dim = 1 : tensor<?x?xbf16>, tensor<?x1xi64> -> tensor<?x1xbf16>
  %pf = fuser.cast %p : tensor<?x1xbf16> to tensor<?x1xf32>
  %row = fuser.sub %lse, %pf : tensor<?x1xf32>
  %zf = fuser.constant 0.0 : tensor<f32>
  %rl = fuser.where %ign, %zf, %row : tensor<?x1xi1>, tensor<f32>, tensor<?x1xf32>
  %tot = fuser.sum %rl dims = [0, 1] : tensor<?x1xf32> -> tensor<f32>
  %0 = fuser.div %tot, %cnt : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Gather's backward as autograd writes it (cross-entropy's gradient): the
// scatter_add joins the softmax's kernel; its source (-g) is read along
// the line from memory, so a kernel writes it first.
// DUMP: fusion @gather_backward: 2 segments
// DUMP-NEXT: segment 0: pointwise, 1 ops (neg)
// DUMP-NEXT: segment 1: normalization, 10 ops (max broadcast sub exp sum broadcast div broadcast mul scatter_add)
// DUMP-NEXT: boundary 0 -> 1: 'fuser.scatter_add' reads its index and source along whole lines: they must be in memory, written by an earlier kernel
func.func @gather_backward(%x: tensor<4x100xf32>, %t: tensor<4x1xi64>, %g: tensor<4x1xf32>) -> tensor<4x100xf32> {
  %mx = fuser.max %x dims = [1] keepdim = true : tensor<4x100xf32> -> tensor<4x1xf32>
  %mb = fuser.broadcast %mx dims = [0, 1] : tensor<4x1xf32> -> tensor<4x100xf32>
  %d = fuser.sub %x, %mb : tensor<4x100xf32>
  %e = fuser.exp %d : tensor<4x100xf32>
  %s = fuser.sum %e dims = [1] keepdim = true : tensor<4x100xf32> -> tensor<4x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<4x1xf32> -> tensor<4x100xf32>
  %p = fuser.div %e, %sb : tensor<4x100xf32>
  %gb = fuser.broadcast %g dims = [0, 1] : tensor<4x1xf32> -> tensor<4x100xf32>
  %pg = fuser.mul %p, %gb : tensor<4x100xf32>
  %ng = fuser.neg %g : tensor<4x1xf32>
  %0 = fuser.scatter_add %pg, %t, %ng dim = 1 : tensor<4x100xf32>, tensor<4x1xi64>, tensor<4x1xf32>
  return %0 : tensor<4x100xf32>
}

// -----

// An embedding's gradient: index_add into a zero table is one kernel (the
// zeros are computed where they are added to).
// DUMP: fusion @embedding_backward: 1 segment
// DUMP-NEXT: segment 0: pointwise, 2 ops (broadcast index_add)
func.func @embedding_backward(%ids: tensor<40xi64>, %dy: tensor<40x64xbf16>) -> tensor<50x64xbf16> {
  %z = fuser.constant 0.0 : tensor<bf16>
  %zb = fuser.broadcast %z dims = [] : tensor<bf16> -> tensor<50x64xbf16>
  %0 = fuser.index_add %zb, %ids, %dy dim = 0 : tensor<50x64xbf16>, tensor<40xi64>, tensor<40x64xbf16>
  return %0 : tensor<50x64xbf16>
}
