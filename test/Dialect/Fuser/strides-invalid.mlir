// Every message of the `fuser.strides` argument attribute (a view argument).
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{argument 0: 'fuser.strides' must be a strided layout such as strided<[1, ?]>, got [1, 4]}}
func.func @not_a_layout(%x: tensor<4x4xf32> {fuser.strides = [1, 4]}) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{argument 0: 'fuser.strides' has 1 strides for a tensor of rank 2}}
func.func @rank(%x: tensor<4x4xf32> {fuser.strides = strided<[1]>}) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{argument 0: 'fuser.strides' has stride -4 on dim 0; strides are >= 0 (0 repeats an element: an expanded dim)}}
func.func @negative(%x: tensor<4x4xf32> {fuser.strides = strided<[-4, 1]>}) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{argument 0: 'fuser.strides' has offset 3; a view's first element is where the argument points (pass the address of that element), so the offset is 0}}
func.func @offset(%x: tensor<4x4xf32> {fuser.strides = strided<[8, 1], offset: 3>}) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{argument 0: 'fuser.strides' has offset ?; a view's first element is where the argument points}}
func.func @dynamic_offset(%x: tensor<4x4xf32> {fuser.strides = strided<[8, 1], offset: ?>}) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{result 0: 'fuser.strides' is for arguments; a fusion's results are dense, row-major}}
func.func @result(%x: tensor<4x4xf32>) -> (tensor<4x4xf32> {fuser.strides = strided<[1, 4]>}) {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{argument 0: 'fuser.strides' is for a ranked tensor argument}}
func.func @not_tensor(%x: i32 {fuser.strides = strided<[]>}) {
  return
}

// -----

// expected-error @+1 {{argument 0: 'fuser.strides' reaches 2^63 elements or more from the argument's start}}
func.func @span(%x: tensor<4x8xf32> {fuser.strides = strided<[9223372036854775807, 1]>}) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{'fuser.strides' belongs on a fusion's argument}}
    gpu.func @k(%x: memref<4xf32> {fuser.strides = strided<[1]>}) kernel {
      gpu.return
    }
  }
}

// -----

// Accepted: static, dynamic, zero (expanded) strides, rank 0.
func.func @ok(%a: tensor<4x?xf32> {fuser.strides = strided<[1, ?]>},
              %b: tensor<4x8xf32> {fuser.strides = strided<[0, 1]>},
              %c: tensor<f32> {fuser.strides = strided<[]>}) -> tensor<4x8xf32> {
  %0 = fuser.add %b, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
