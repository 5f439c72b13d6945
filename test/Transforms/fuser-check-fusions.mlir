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

// expected-error @+1 {{'shard.grid' belongs to a sharded fusion: fuser-opt --fuser-partition turns it into one device's program, but running its collectives is not supported yet (docs/sharding.md)}}
shard.grid @grid(shape = 2)
func.func @sharded(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

func.func @collective(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'shard.all_reduce' is a sharding op: running a sharded fusion's collectives is not supported yet (docs/sharding.md)}}
  %0 = shard.all_reduce %x on @grid grid_axes = [0] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
shard.grid @grid(shape = 2)
