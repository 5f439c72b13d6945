// Every verifier message of fuser.collective and fuser.communicate.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

func.func @bad_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuser.collective' op kind must be all_reduce, all_gather, reduce_scatter, slice or all_to_all, got 'broadcast'}}
  %0 = fuser.collective "broadcast" %x grid_axes = [0] group_size = 2 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @no_reduction(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuser.collective' op 'all_reduce' needs a reduction}}
  %0 = fuser.collective "all_reduce" %x grid_axes = [0] group_size = 2 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_reduction(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'fuser.collective' op 'all_gather' takes no reduction}}
  %0 = fuser.collective "all_gather" %x reduction = "sum" grid_axes = [0] group_size = 2 : tensor<4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @bad_reduction(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuser.collective' op reduction must be sum, prod, max, min or avg, got 'xor'}}
  %0 = fuser.collective "all_reduce" %x reduction = "xor" grid_axes = [0] group_size = 2 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fp8_reduction(%x: tensor<4xf8E5M2>) -> tensor<4xf8E5M2> {
  // expected-error @+1 {{'fuser.collective' op cannot reduce 'f8E5M2': the communication library does not compute on fp8 (cast to f32 first)}}
  %0 = fuser.collective "all_reduce" %x reduction = "max" grid_axes = [0] group_size = 2 : tensor<4xf8E5M2> -> tensor<4xf8E5M2>
  return %0 : tensor<4xf8E5M2>
}

// -----

func.func @int_avg(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fuser.collective' op reduction 'avg' needs a float type, got 'i32'}}
  %0 = fuser.collective "all_reduce" %x reduction = "avg" grid_axes = [0] group_size = 2 : tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @bool_sum(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fuser.collective' op reduces i1 with 'sum': i1 takes max (any) or min (all)}}
  %0 = fuser.collective "all_reduce" %x reduction = "sum" grid_axes = [0] group_size = 2 : tensor<4xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @no_axes(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuser.collective' op needs at least one grid axis}}
  %0 = fuser.collective "all_reduce" %x reduction = "sum" grid_axes = [] group_size = 2 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @axes_order(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuser.collective' op grid axes must be ascending, distinct and below 8, got [1, 0]}}
  %0 = fuser.collective "all_reduce" %x reduction = "sum" grid_axes = [1, 0] group_size = 2 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @element_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fuser.collective' op result element type 'f16' differs from the input's 'f32'}}
  %0 = fuser.collective "all_reduce" %x reduction = "sum" grid_axes = [0] group_size = 2 : tensor<4xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @group_size(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuser.collective' op group_size must be at least 1, got 0}}
  %0 = fuser.collective "all_reduce" %x reduction = "sum" grid_axes = [0] group_size = 0 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_shape(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'fuser.collective' op 'all_reduce' keeps the shape: result [2] differs from the input [4]}}
  %0 = fuser.collective "all_reduce" %x reduction = "sum" grid_axes = [0] group_size = 2 : tensor<4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @all_to_all_parts(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'fuser.collective' op 'all_to_all' over 2 devices takes parts along a leading dim of 2, got [3, 4]}}
  %0 = fuser.collective "all_to_all" %x grid_axes = [0] group_size = 2 : tensor<3x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @gather_shape(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'fuser.collective' op 'all_gather' over 2 devices takes an input [...] to a result [2, ...] with the same other dims; got [4] -> [8]}}
  %0 = fuser.collective "all_gather" %x grid_axes = [0] group_size = 2 : tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @scatter_shape(%x: tensor<3x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuser.collective' op 'reduce_scatter' over 2 devices takes an input [2, ...] to a result [...] with the same other dims; got [3, 4] -> [4]}}
  %0 = fuser.collective "reduce_scatter" %x reduction = "sum" grid_axes = [0] group_size = 2 : tensor<3x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @plan_types(%src: memref<16xf32>, %dst: memref<16xf16>, %n: index) {
  // expected-error @+1 {{'fuser.communicate' op element types 'f32' and 'f16' differ}}
  fuser.communicate "all_reduce" %src -> %dst count(%n) reduction = "sum" grid_axes = [0] : memref<16xf32>, memref<16xf16>
  return
}

// -----

func.func @plan_in_place(%buf: memref<16xf32>, %n: index) {
  // expected-error @+1 {{'fuser.communicate' op reads and writes one buffer; src and dst must be distinct}}
  fuser.communicate "all_reduce" %buf -> %buf count(%n) reduction = "sum" grid_axes = [0] : memref<16xf32>, memref<16xf32>
  return
}

// -----

func.func @plan_kind(%src: memref<16xf32>, %dst: memref<16xf32>, %n: index) {
  // expected-error @+1 {{'fuser.communicate' op 'reduce_scatter' needs a reduction}}
  fuser.communicate "reduce_scatter" %src -> %dst count(%n) grid_axes = [0] : memref<16xf32>, memref<16xf32>
  return
}
