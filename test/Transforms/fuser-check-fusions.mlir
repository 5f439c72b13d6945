// RUN: fuser-opt %s --split-input-file --fuser-check-fusions --verify-diagnostics

// A fusion passes.
func.func @ok(%x: tensor<4x?xf32> {fuser.name = "x"}, %y: tensor<bf16>) -> (tensor<4x?xf32> {fuser.name = "out"}) {
  %0 = fuser.exp %x : tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// expected-error @+1 {{'gpu.module' is not a fusion: the input holds func.func fusions only}}
gpu.module @k_kernels {
  gpu.func @k(%x: !llvm.ptr) kernel {
    gpu.return
  }
}

// -----

// A hand-written launch plan.
// expected-error @+1 {{'plan' carries 'fuser.plan', which fuser's own passes set: the input must be fusions, not their output}}
func.func @plan(%x: memref<4xf32>) attributes {fuser.plan} {
  return
}

// -----

// Per-segment schedules are fuser-schedule's (a fusion's own
// fuser.schedule is the user's: accepted, below).
// expected-error @+1 {{'scheduled' carries 'fuser.schedules', which fuser's own passes set: the input must be fusions, not their output}}
func.func @scheduled(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {fuser.schedules = [#fuser.schedule<>]} {
  return %x : tensor<4xf32>
}

// -----

func.func @own_schedule(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {fuser.schedule = #fuser.schedule<pointwise.block = 64>} {
  %0 = fuser.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'decl' has no body: a fusion is a func.func with one}}
func.func private @decl(%x: tensor<4xf32>) -> tensor<4xf32>

// -----

// A body that never returns.
// expected-error @+1 {{'spin' has more than one block: a fusion is straight-line}}
func.func @spin(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  cf.br ^bb1
}

// -----

func.func @arith(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.addf' is not a fuser tensor op: a fusion holds fuser ops and a return}}
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{fusion argument 0 must be a ranked tensor, got 'memref<4xf32>'}}
func.func @memref(%x: memref<4xf32>) {
  return
}

// -----

// Integers are signless: a ui8 passed the check (isInteger ignores
// signedness) and failed inside fuser as an internal error.
// expected-error @+1 {{fusion argument 0 has element type 'ui8'; fusions use i1, i8, i32, i64, f16, bf16, f32, f64, f8E4M3FN, f8E5M2 and f8E8M0FNU (integers are signless: i8, not ui8 or si8)}}
func.func @unsigned(%x: tensor<4xui8>) -> tensor<4xui8> {
  return %x : tensor<4xui8>
}

// -----

// expected-error @+1 {{fusion result 0 has element type 'si32'}}
func.func @signed(%x: tensor<4xi32>) -> tensor<4xsi32> {
  %0 = builtin.unrealized_conversion_cast %x : tensor<4xi32> to tensor<4xsi32>
  return %0 : tensor<4xsi32>
}

// -----

// expected-error @+1 {{fusion argument 0 has rank 33; at most 32 dims}}
func.func @rank(%x: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>) {
  return
}

// -----

// expected-error @+1 {{result 0 is named '../escaped', which is not an identifier ([A-Za-z_][A-Za-z0-9_]*)}}
func.func @path(%x: tensor<4xf32>) -> (tensor<4xf32> {fuser.name = "../escaped"}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument 0 and argument 1 are both named 'x'}}
func.func @twice(%a: tensor<4xf32> {fuser.name = "x"}, %b: tensor<4xf32> {fuser.name = "x"}) -> tensor<4xf32> {
  %0 = fuser.add %a, %b : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// fuser.same_shape_as (fuser-vjp's gradients) names an argument of the
// result's shape.
func.func @like_ok(%x: tensor<?x4xf32>) -> (tensor<?x4xf32> {fuser.same_shape_as = 0 : i64}) {
  %0 = fuser.exp %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// expected-error @+1 {{result 0 has fuser.same_shape_as = 3 : i64, which is not an argument's position}}
func.func @like_range(%x: tensor<4xf32>) -> (tensor<4xf32> {fuser.same_shape_as = 3 : i64}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0 of type 'tensor<5xf32>' cannot have the shape of argument 0 ('tensor<4xf32>')}}
func.func @like_shape(%x: tensor<4xf32>) -> (tensor<5xf32> {fuser.same_shape_as = 0 : i64}) {
  %0 = fuser.constant 1.0 : tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// expected-error @+1 {{'shard.grid' belongs to a sharded fusion: run fuser-opt --fuser-shard first (fuserc and the C API do), which makes it one device's program (docs/sharding.md)}}
shard.grid @grid(shape = 2)
func.func @sharded(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

func.func @collective(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'shard.all_reduce' is a sharding op: run fuser-opt --fuser-shard first (fuserc and the C API do), which makes the fusion one device's (docs/sharding.md)}}
  %0 = shard.all_reduce %x on @grid grid_axes = [0] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
shard.grid @grid(shape = 2)

// -----

// One device's fusion of a sharded program passes: its grid and splits.
func.func @per_device(%x: tensor<4x8xf32> {fuser.split = array<i64: 1, 0>}) -> (tensor<8xf32> {fuser.split = array<i64: 0>})
    attributes {fuser.grid = array<i64: 2, 2>} {
  %0 = fuser.sum %x dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %1 = fuser.collective "all_reduce" %0 reduction = "sum" grid_axes = [0] group_size = 2 : tensor<8xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// expected-error @+1 {{'bad_grid' has fuser.grid = array<i64: 2, 0>; a grid is array<i64: ...> of 1 to 4 sizes, each at least 1}}
func.func @bad_grid(%x: tensor<4xf32>) -> tensor<4xf32> attributes {fuser.grid = array<i64: 2, 0>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument 0 has fuser.split but 'no_grid' has no fuser.grid}}
func.func @no_grid(%x: tensor<4xf32> {fuser.split = array<i64: 1>}) -> tensor<4xf32> {
  %0 = fuser.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0 has fuser.split = array<i64: 1>; it needs 2 masks of grid axes, one per dim}}
func.func @split_rank(%x: tensor<4x4xf32>) -> (tensor<4x4xf32> {fuser.split = array<i64: 1>}) attributes {fuser.grid = array<i64: 2>} {
  %0 = fuser.exp %x : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{argument 0 has fuser.split = array<i64: 1, 1>: a mask names an axis the grid lacks, or an axis splits two dims}}
func.func @axis_twice(%x: tensor<4x4xf32> {fuser.split = array<i64: 1, 1>}) -> tensor<4x4xf32> attributes {fuser.grid = array<i64: 2>} {
  %0 = fuser.exp %x : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{argument 0 has fuser.split = array<i64: 2>: a mask names an axis the grid lacks, or an axis splits two dims}}
func.func @missing_axis(%x: tensor<4xf32> {fuser.split = array<i64: 2>}) -> tensor<4xf32> attributes {fuser.grid = array<i64: 2>} {
  %0 = fuser.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @group_size(%x: tensor<3xf32>) -> tensor<4x3xf32> attributes {fuser.grid = array<i64: 2>} {
  // expected-error @+1 {{'fuser.collective' op has group_size 4, but grid axes [0] of array<i64: 2> group 2 devices}}
  %0 = fuser.collective "all_gather" %x grid_axes = [0] group_size = 4 : tensor<3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @group_axis(%x: tensor<3xf32>) -> tensor<2x3xf32> attributes {fuser.grid = array<i64: 2>} {
  // expected-error @+1 {{'fuser.collective' op groups by grid axis 1, but the grid array<i64: 2> has 1 axes}}
  %0 = fuser.collective "all_gather" %x grid_axes = [1] group_size = 2 : tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @no_grid_collective(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuser.collective' op communicates among devices, but 'no_grid_collective' has no fuser.grid (the grid it runs on)}}
  %0 = fuser.collective "all_gather" %x grid_axes = [0] group_size = 2 : tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A fusion's kernels are the gpu.module @<name>_kernels: a fusion of that
// name clashed with it (an internal error, "redefinition of symbol").
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
// expected-error @+1 {{fusion 'f_kernels' has the name fuser gives the kernels of fusion 'f': rename one of them}}
func.func @f_kernels(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// A split of an argument that is not a tensor: its rank was read from the
// i32 (a different garbage count of masks on every run).
// expected-error @+1 {{fusion argument 0 must be a ranked tensor, got 'i32'}}
func.func @split_scalar(%x: i32 {fuser.split = array<i64: 1>}) attributes {fuser.grid = array<i64: 2>} {
  return
}

// -----

// An argument position wider than 64 bits was truncated to 0 and accepted.
// expected-error @+1 {{result 0 has fuser.same_shape_as = 1237940039285380274899124224 : i128, which is not an argument's position}}
func.func @same_shape_i128(%x: tensor<4xf32>) -> (tensor<4xf32> {fuser.same_shape_as = 1237940039285380274899124224 : i128}) {
  return %x : tensor<4xf32>
}

// -----

// A name that is not a string was ignored: the bundle named the input arg0.
// expected-error @+1 {{argument 0 has fuser.name = 3 : i32; a name is a string}}
func.func @name_int(%x: tensor<4xf32> {fuser.name = 3 : i32}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0 has fuser.name = ["y"]; a name is a string}}
func.func @name_array(%x: tensor<4xf32>) -> (tensor<4xf32> {fuser.name = ["y"]}) {
  return %x : tensor<4xf32>
}

// -----

// A p that ops fold to a constant out of [0, 1] is refused as a written one
// is (torch raises); canonicalization folded it and the verifier failed
// mid-pipeline, an "internal error".
func.func @bernoulli_folded_p(%seed: tensor<i64>, %offset: tensor<i64>) -> tensor<16xf32> {
  %a = fuser.constant 0.6 : tensor<f32>
  %p0 = fuser.add %a, %a : tensor<f32>
  %p = fuser.broadcast %p0 dims = [] : tensor<f32> -> tensor<16xf32>
  // expected-error @+1 {{'fuser.bernoulli' op p must be in [0, 1], got 1.20000005 (the value its operands fold to)}}
  %y = fuser.bernoulli %p, %seed, %offset : tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

func.func @bernoulli_nan_p(%seed: tensor<i64>, %offset: tensor<i64>) -> tensor<16xf32> {
  %a = fuser.constant 0.0 : tensor<f32>
  %p0 = fuser.div %a, %a : tensor<f32>
  %p = fuser.broadcast %p0 dims = [] : tensor<f32> -> tensor<16xf32>
  // expected-error @+1 {{'fuser.bernoulli' op p must be in [0, 1], got nan (the value its operands fold to)}}
  %y = fuser.bernoulli %p, %seed, %offset : tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

func.func @dropout_folded_p(%x: tensor<16xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<16xf32>, tensor<16xi1>) {
  %a = fuser.constant 0.6 : tensor<f32>
  %p = fuser.add %a, %a : tensor<f32>
  // expected-error @+1 {{'fuser.dropout' op p must be in [0, 1], got 1.20000005 (the value its operands fold to)}}
  %y, %m = fuser.dropout %x, %p, %seed, %offset : tensor<16xf32>, tensor<f32> -> tensor<16xf32>, tensor<16xi1>
  return %y, %m : tensor<16xf32>, tensor<16xi1>
}

// -----

// In range once folded: accepted.
func.func @dropout_folded_p_ok(%x: tensor<16xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<16xf32>, tensor<16xi1>) {
  %a = fuser.constant 0.25 : tensor<f32>
  %p = fuser.add %a, %a : tensor<f32>
  %y, %m = fuser.dropout %x, %p, %seed, %offset : tensor<16xf32>, tensor<f32> -> tensor<16xf32>, tensor<16xi1>
  return %y, %m : tensor<16xf32>, tensor<16xi1>
}

// -----

// A p read twice at every step of a chain (x + x, 30 deep) is folded once
// per op, not 2^30 times: 1e-9 doubled 30 times is 1.07, refused.
func.func @dropout_doubling_chain(%x: tensor<16xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<16xf32>, tensor<16xi1>) {
  %c0 = fuser.constant 1.0e-09 : tensor<f32>
  %c1 = fuser.add %c0, %c0 : tensor<f32>
  %c2 = fuser.add %c1, %c1 : tensor<f32>
  %c3 = fuser.add %c2, %c2 : tensor<f32>
  %c4 = fuser.add %c3, %c3 : tensor<f32>
  %c5 = fuser.add %c4, %c4 : tensor<f32>
  %c6 = fuser.add %c5, %c5 : tensor<f32>
  %c7 = fuser.add %c6, %c6 : tensor<f32>
  %c8 = fuser.add %c7, %c7 : tensor<f32>
  %c9 = fuser.add %c8, %c8 : tensor<f32>
  %c10 = fuser.add %c9, %c9 : tensor<f32>
  %c11 = fuser.add %c10, %c10 : tensor<f32>
  %c12 = fuser.add %c11, %c11 : tensor<f32>
  %c13 = fuser.add %c12, %c12 : tensor<f32>
  %c14 = fuser.add %c13, %c13 : tensor<f32>
  %c15 = fuser.add %c14, %c14 : tensor<f32>
  %c16 = fuser.add %c15, %c15 : tensor<f32>
  %c17 = fuser.add %c16, %c16 : tensor<f32>
  %c18 = fuser.add %c17, %c17 : tensor<f32>
  %c19 = fuser.add %c18, %c18 : tensor<f32>
  %c20 = fuser.add %c19, %c19 : tensor<f32>
  %c21 = fuser.add %c20, %c20 : tensor<f32>
  %c22 = fuser.add %c21, %c21 : tensor<f32>
  %c23 = fuser.add %c22, %c22 : tensor<f32>
  %c24 = fuser.add %c23, %c23 : tensor<f32>
  %c25 = fuser.add %c24, %c24 : tensor<f32>
  %c26 = fuser.add %c25, %c25 : tensor<f32>
  %c27 = fuser.add %c26, %c26 : tensor<f32>
  %c28 = fuser.add %c27, %c27 : tensor<f32>
  %c29 = fuser.add %c28, %c28 : tensor<f32>
  %c30 = fuser.add %c29, %c29 : tensor<f32>
  // expected-error @+1 {{'fuser.dropout' op p must be in [0, 1], got 1.07374179 (the value its operands fold to)}}
  %y, %m = fuser.dropout %x, %c30, %seed, %offset : tensor<16xf32>, tensor<f32> -> tensor<16xf32>, tensor<16xi1>
  return %y, %m : tensor<16xf32>, tensor<16xi1>
}
