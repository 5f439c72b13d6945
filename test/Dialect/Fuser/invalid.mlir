// Every verifier and parser message of the fuser dialect.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

func.func @rank_mismatch(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'fuser.add' op operand shapes [4, 8] and [8] differ in rank; broadcast explicitly with fuser.broadcast}}
  %0 = fuser.add %a, %b : tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @shape_mismatch(%a: tensor<4x8xf32>, %b: tensor<4x9xf32>) {
  // expected-error @+1 {{'fuser.mul' op operand shapes [4, 8] and [4, 9] do not match in dim 1}}
  %0 = fuser.mul %a, %b : tensor<4x8xf32>, tensor<4x9xf32>
  return
}

// -----

func.func @dynamic_shape_mismatch(%a: tensor<?x8xf32>, %b: tensor<4x?xf32>, %c: tensor<5x8xf32>) {
  %0 = fuser.sub %a, %b : tensor<?x8xf32>, tensor<4x?xf32>
  // expected-error @+1 {{'fuser.sub' op operand shapes [4, 8] and [5, 8] do not match in dim 0}}
  %1 = fuser.sub %0, %c : tensor<4x8xf32>, tensor<5x8xf32>
  return
}

// -----

func.func @element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{'fuser.add' op operand element types 'f32' and 'bf16' differ; insert a fuser.cast}}
  %0 = fuser.add %a, %b : tensor<4xf32>, tensor<4xbf16>
  return
}

// -----

func.func @where_element_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'fuser.where' op operand element types 'f32' and 'f16' differ}}
  %0 = fuser.where %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'fuser.add' op operand #0 must be ranked tensor}}
  %0 = "fuser.add"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @wrong_type_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected 1 or 2 operand types, got 3}}
  %0 = fuser.add %a, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @float_only(%a: tensor<4xi32>) {
  // expected-error @+1 {{'fuser.exp' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 (fp8: cast to f32 first)}}
  %0 = fuser.exp %a : tensor<4xi32>
  return
}

// -----

func.func @float_only_atanh(%a: tensor<4xi32>) {
  // expected-error @+1 {{'fuser.atanh' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 (fp8: cast to f32 first)}}
  %0 = fuser.atanh %a : tensor<4xi32>
  return
}

// -----

func.func @no_int_frac(%a: tensor<4xi32>) {
  // expected-error @+1 {{'fuser.frac' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 (fp8: cast to f32 first)}}
  %0 = fuser.frac %a : tensor<4xi32>
  return
}

// -----

func.func @no_bool_fmod(%a: tensor<4xi1>) {
  // expected-error @+1 {{'fuser.fmod' op operand #0 must be ranked tensor of i8, i32, i64, f16, bf16, f32 or f64 (fp8: cast to f32 first)}}
  %0 = fuser.fmod %a, %a : tensor<4xi1>
  return
}

// -----

func.func @no_bool_trunc(%a: tensor<4xi1>) {
  // expected-error @+1 {{'fuser.trunc' op operand #0 must be ranked tensor of i8, i32, i64, f16, bf16, f32 or f64 (fp8: cast to f32 first)}}
  %0 = fuser.trunc %a : tensor<4xi1>
  return
}

// -----

func.func @no_bool_sum(%a: tensor<4xi1>) {
  // expected-error @+1 {{'fuser.sum' op operand #0 must be ranked tensor of i8, i32, i64, f16, bf16, f32 or f64 (i1: cast to i64 first, as PyTorch sums bools in int64; fp8: cast to f32 first)}}
  %0 = fuser.sum %a dims = [0] : tensor<4xi1> -> tensor<i1>
  return
}

// -----

func.func @no_bool_arithmetic(%a: tensor<4xi1>) {
  // expected-error @+1 {{'fuser.add' op operand #0 must be ranked tensor of i8, i32, i64, f16, bf16, f32 or f64 (fp8: cast to f32 first)}}
  %0 = fuser.add %a, %a : tensor<4xi1>
  return
}

// -----

func.func @no_unsigned(%a: tensor<4xui8>) {
  // expected-error @+1 {{'fuser.neg' op operand #0 must be ranked tensor of}}
  %0 = fuser.neg %a : tensor<4xui8>
  return
}

// -----

func.func @compare_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fuser.eq' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = "fuser.eq"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @wrong_result_shape(%a: tensor<4xf32>) {
  // expected-error @+2 {{'fuser.add' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{'fuser.add' op failed to infer returned types}}
  %0 = "fuser.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @int_div_rounding(%a: tensor<4xi32>) {
  // expected-error @+1 {{'fuser.div' op integer division needs rounding_mode = trunc or floor; cast to a float type for true division}}
  %0 = fuser.div %a, %a : tensor<4xi32>
  return
}

// -----

func.func @cast_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fuser.cast' op changes the shape from [4] to [5]; a cast only converts elements}}
  %0 = fuser.cast %a : tensor<4xf32> to tensor<5xf16>
  return
}

// -----

func.func @constant_not_scalar() {
  // expected-error @+1 {{'fuser.constant' op value must be an integer or float scalar}}
  %0 = "fuser.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'fuser.constant' op value of type 'f64' does not match element type 'f32'}}
  %0 = "fuser.constant"() {value = 1.0 : f64} : () -> tensor<4xf32>
  return
}

// -----

func.func @constant_literal() {
  // expected-error @+1 {{expected a number, true, false, nan or inf}}
  %0 = fuser.constant foo : tensor<f32>
  return
}

// -----

func.func @constant_hex_too_wide() {
  // expected-error @+1 {{hexadecimal constant does not fit 'f16'}}
  %0 = fuser.constant 0x7FC00000 : tensor<f16>
  return
}

// -----

func.func @constant_float_for_int() {
  // expected-error @+1 {{expected an integer for type 'i32'}}
  %0 = fuser.constant 1.5 : tensor<i32>
  return
}

// -----

func.func @constant_nan_for_int() {
  // expected-error @+1 {{expected an integer for type 'i8'}}
  %0 = fuser.constant nan : tensor<i8>
  return
}

// -----

func.func @constant_overflow() {
  // expected-error @+1 {{value does not fit in 'i8'}}
  %0 = fuser.constant 200 : tensor<i8>
  return
}

// -----

func.func @constant_bool_range() {
  // expected-error @+1 {{value does not fit in 'i1'}}
  %0 = fuser.constant 2 : tensor<i1>
  return
}

// -----

func.func @constant_element_type() {
  // expected-error @+1 {{unsupported element type 'complex<f32>'}}
  %0 = fuser.constant 1 : tensor<complex<f32>>
  return
}

// -----

func.func @iota_dim() {
  // expected-error @+1 {{'fuser.iota' op dim 2 is out of range for rank 2}}
  %0 = fuser.iota dim = 2 : tensor<4x8xi32>
  return
}

// -----

func.func @size_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.size' op dim 2 is out of range for rank 2}}
  %0 = fuser.size %x dim = 2 : tensor<4x8xf32> -> tensor<i64>
  return
}

// -----

func.func @size_fits(%x: tensor<4x300xf32>) {
  // expected-error @+1 {{'fuser.size' op extent 300 does not fit in 'i8'}}
  %0 = fuser.size %x dim = 1 : tensor<4x300xf32> -> tensor<i8>
  return
}

// -----

func.func @size_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.size' op result #0 must be 0D tensor}}
  %0 = fuser.size %x dim = 1 : tensor<4x8xf32> -> tensor<1xi64>
  return
}

// -----

func.func @broadcast_element_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fuser.broadcast' op changes the element type from 'f32' to 'f16'}}
  %0 = fuser.broadcast %a dims = [0] : tensor<4xf32> -> tensor<4x2xf16>
  return
}

// -----

func.func @broadcast_dims_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fuser.broadcast' op dims has 2 entries for an operand of rank 1}}
  %0 = fuser.broadcast %a dims = [0, 1] : tensor<4xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @broadcast_dims_range(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fuser.broadcast' op dims entry 2 is out of range for result rank 2}}
  %0 = fuser.broadcast %a dims = [2] : tensor<4xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @broadcast_dims_order(%a: tensor<4x2xf32>) {
  // expected-error @+1 {{'fuser.broadcast' op dims must be strictly increasing; use fuser.permute to reorder dims}}
  %0 = fuser.broadcast %a dims = [1, 0] : tensor<4x2xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @broadcast_size(%a: tensor<3xf32>) {
  // expected-error @+1 {{'fuser.broadcast' op operand dim 0 of size 3 cannot broadcast to result dim 1 of size 4 (sizes must match or be 1)}}
  %0 = fuser.broadcast %a dims = [1] : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_empty_dims(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.sum' op dims must not be empty; list every dim to reduce all of them}}
  %0 = fuser.sum %a dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_dim_range(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.max' op dims entry 2 is out of range for rank 2 (dims are in [0, rank); negative dims are not accepted)}}
  %0 = fuser.max %a dims = [2] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_negative_dim(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.min' op dims entry -1 is out of range for rank 2}}
  %0 = fuser.min %a dims = [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_scalar_dims(%a: tensor<f32>) {
  // expected-error @+1 {{'fuser.sum' op dims of a rank-0 input must be [0] (PyTorch's dim 0 or -1 of a scalar), got []}}
  %0 = fuser.sum %a dims = [] : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @var_mean_scalar_dims(%a: tensor<f32>) {
  // expected-error @+1 {{'fuser.var_mean' op dims of a rank-0 input must be [0] (PyTorch's dim 0 or -1 of a scalar), got [1]}}
  %0, %1 = fuser.var_mean %a dims = [1] : tensor<f32> -> tensor<f32>, tensor<f32>
  return
}

// -----

func.func @reduce_scalar_result(%a: tensor<f32>) {
  // expected-error @+1 {{'fuser.max' op result type 'tensor<1xf32>' does not match the expected 'tensor<f32>'}}
  %0 = fuser.max %a dims = [0] keepdim = true : tensor<f32> -> tensor<1xf32>
  return
}

// -----

func.func @softmax_scalar_dim(%a: tensor<f32>) {
  // expected-error @+1 {{'fuser.softmax' op dim 1 is out of range for rank 0 (a scalar takes dim 0, PyTorch's 0 or -1)}}
  %0 = fuser.softmax %a dim = 1 : tensor<f32>
  return
}

// -----

func.func @cummax_scalar_dim(%a: tensor<f32>) {
  // expected-error @+1 {{'fuser.cummax' op dim -1 is out of range for rank 0 (a scalar takes dim 0, PyTorch's 0 or -1)}}
  %0, %1 = fuser.cummax %a dim = -1 : tensor<f32> -> tensor<i64>
  return
}

// -----

func.func @reduce_dim_twice(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.sum' op dims lists dim 1 twice}}
  %0 = fuser.sum %a dims = [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_result_type(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.sum' op result type 'tensor<4xf32>' does not match the expected 'tensor<4x1xf32>'}}
  %0 = fuser.sum %a dims = [1] keepdim = true : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

// torch.sum of an int32 tensor is int64: the message says to cast first.
func.func @reduce_int_sum_as_int64(%a: tensor<4x8xi32>) {
  // expected-error @+1 {{'fuser.sum' op result type 'tensor<4xi64>' does not match the expected 'tensor<4xi32>' (a sum or prod keeps its input's element type; PyTorch's of an integer tensor is int64: cast the input to i64 first)}}
  %0 = fuser.sum %a dims = [1] : tensor<4x8xi32> -> tensor<4xi64>
  return
}

// -----

func.func @mean_of_ints(%a: tensor<4x8xi32>) {
  // expected-error @+1 {{'fuser.mean' op operand #0 must be ranked tensor of f16, bf16}}
  %0 = fuser.mean %a dims = [1] : tensor<4x8xi32> -> tensor<4xi32>
  return
}

// -----

func.func @var_mean_correction(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.var_mean' op correction must be non-negative, got -1}}
  %0:2 = fuser.var_mean %a dims = [1] correction = -1 : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @var_mean_keepdim_twice(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{`keepdim` clause can appear at most once in the expansion of the oilist directive}}
  %0:2 = fuser.var_mean %a dims = [1] keepdim = true keepdim = true : tensor<4x8xf32> -> tensor<4x1xf32>, tensor<4x1xf32>
  return
}

// -----

func.func @reshape_element_type(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.reshape' op changes the element type from 'f32' to 'f16'}}
  %0 = fuser.reshape %a : tensor<4x8xf32> -> tensor<32xf16>
  return
}

// -----

func.func @reshape_count(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.reshape' op cannot reshape [4, 8] (32 elements) into [30] (30 elements)}}
  %0 = fuser.reshape %a : tensor<4x8xf32> -> tensor<30xf32>
  return
}

// -----

func.func @permute_count(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.permute' op perm has 3 entries for an operand of rank 2}}
  %0 = fuser.permute %a perm = [0, 1, 2] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @permute_twice(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.permute' op perm lists dim 0 twice}}
  %0 = fuser.permute %a perm = [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @permute_range(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.permute' op perm entry 5 is out of range for rank 2}}
  %0 = fuser.permute %a perm = [5, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_count(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.slice' op start, limit and step need 2 entries each (the operand rank)}}
  %0 = fuser.slice %a start = [0] limit = [4] step = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_bounds(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.slice' op dim 1 needs 0 <= start <= limit, got start 5 limit 3}}
  %0 = fuser.slice %a start = [0, 5] limit = [4, 3] step = [1, 1] : tensor<4x8xf32> -> tensor<4x0xf32>
  return
}

// -----

func.func @slice_step(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.slice' op dim 0 needs step >= 1, got 0}}
  %0 = fuser.slice %a start = [0, 0] limit = [4, 8] step = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_limit(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.slice' op dim 1 limit 9 exceeds the dim size 8}}
  %0 = fuser.slice %a start = [0, 0] limit = [4, 9] step = [1, 1] : tensor<4x8xf32> -> tensor<4x9xf32>
  return
}

// -----

func.func @slice_to_end_start(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.slice' op dim 1 start 9 exceeds the dim size 8}}
  %0 = fuser.slice %a start = [0, 9] limit = [4, 9223372036854775807] step = [1, 1] : tensor<4x8xf32> -> tensor<4x0xf32>
  return
}

// -----

func.func @slice_to_end_dynamic(%a: tensor<?x8xf32>) {
  // expected-error @+1 {{'fuser.slice' op result type 'tensor<3x8xf32>' does not match the expected 'tensor<?x8xf32>'}}
  %0 = fuser.slice %a start = [0, 0] limit = [9223372036854775807, 8] step = [1, 1] : tensor<?x8xf32> -> tensor<3x8xf32>
  return
}

// -----

func.func @pad_value_rank(%a: tensor<4xf32>, %v: tensor<1xf32>) {
  // expected-error @+1 {{'fuser.pad' op padding value must have rank 0, got 'tensor<1xf32>'}}
  %0 = fuser.pad %a, %v low = [1] high = [1] : tensor<4xf32>, tensor<1xf32> -> tensor<6xf32>
  return
}

// -----

func.func @pad_value_type(%a: tensor<4xf32>, %v: tensor<f16>) {
  // expected-error @+1 {{'fuser.pad' op padding value element type 'f16' differs from the input's 'f32'; insert a fuser.cast}}
  %0 = fuser.pad %a, %v low = [1] high = [1] : tensor<4xf32>, tensor<f16> -> tensor<6xf32>
  return
}

// -----

func.func @pad_count(%a: tensor<4xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'fuser.pad' op low and high need 1 entries each (the operand rank)}}
  %0 = fuser.pad %a, %v low = [1, 1] high = [1] : tensor<4xf32>, tensor<f32> -> tensor<6xf32>
  return
}

// -----

func.func @pad_crop_too_much(%a: tensor<4xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'fuser.pad' op dim 0 of size 4 cannot be cropped by 5 (low -3, high -2)}}
  %0 = fuser.pad %a, %v low = [-3] high = [-2] : tensor<4xf32>, tensor<f32> -> tensor<0xf32>
  return
}

// -----

// PyTorch crops each end before padding: 5 from the front of 4 is an error
// even though 3 more are padded at the back.
func.func @pad_crop_one_end(%a: tensor<4xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'fuser.pad' op dim 0 of size 4 cannot be cropped by 5 (low -5, high 3)}}
  %0 = fuser.pad %a, %v low = [-5] high = [3] : tensor<4xf32>, tensor<f32> -> tensor<2xf32>
  return
}

// -----

// 2^32 x 2^32 elements wrapped to 0 and "reshaped" into an empty tensor.
func.func @reshape_overflow(%a: tensor<4294967296x4294967296xi8>) {
  // expected-error @+1 {{'fuser.reshape' op cannot reshape [4294967296, 4294967296] into [0]: one of them has 2^63 elements or more}}
  %0 = fuser.reshape %a : tensor<4294967296x4294967296xi8> -> tensor<0xi8>
  return
}

// -----

// The result size is computed with checks: INT64_MAX twice wrapped to 2.
func.func @pad_overflow(%a: tensor<4xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'fuser.pad' op dim 0: 4 + 9223372036854775807 + 9223372036854775807 overflows 64 bits}}
  %0 = fuser.pad %a, %v low = [9223372036854775807] high = [9223372036854775807] : tensor<4xf32>, tensor<f32> -> tensor<2xf32>
  return
}

// -----

func.func @concat_overflow(%a: tensor<4611686018427387904xi8>) {
  // expected-error @+1 {{'fuser.concat' op the sizes of dim 0 add up past 64 bits}}
  %0 = fuser.concat %a, %a, %a dim = 0 : tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8> -> tensor<4xi8>
  return
}

// -----

// A huge step: ceil((limit - start) / step) without overflow.
func.func @slice_huge_step(%a: tensor<8xf32>) {
  // expected-error @+1 {{'fuser.slice' op result type 'tensor<0xf32>' does not match the expected 'tensor<1xf32>'}}
  %0 = fuser.slice %a start = [1] limit = [8] step = [9223372036854775807] : tensor<8xf32> -> tensor<0xf32>
  return
}

// -----

func.func @concat_none() {
  // expected-error @+1 {{'fuser.concat' op needs at least one operand}}
  %0 = "fuser.concat"() {dim = 0 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @concat_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'fuser.concat' op operand element types 'f32' and 'f16' differ}}
  %0 = fuser.concat %a, %b dim = 0 : tensor<4xf32>, tensor<4xf16> -> tensor<8xf32>
  return
}

// -----

func.func @concat_dim(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fuser.concat' op dim 1 is out of range for rank 1}}
  %0 = fuser.concat %a, %a dim = 1 : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<4xf32>, %b: tensor<4x1xf32>) {
  // expected-error @+1 {{'fuser.concat' op operands differ in rank: [4] and [4, 1]}}
  %0 = fuser.concat %a, %b dim = 0 : tensor<4xf32>, tensor<4x1xf32> -> tensor<8xf32>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{'fuser.concat' op operand shapes [4, 2] and [4, 3] differ in dim 1, which is not the concat dim}}
  %0 = fuser.concat %a, %b dim = 0 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<8x2xf32>
  return
}

// -----

func.func @softmax_dim(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.softmax' op dim 2 is out of range for rank 2}}
  %0 = fuser.softmax %a dim = 2 : tensor<4x8xf32>
  return
}

// -----

func.func @log_softmax_dim(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.log_softmax' op dim 3 is out of range for rank 2}}
  %0 = fuser.log_softmax %a dim = 3 : tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_no_dims(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.layer_norm' op dims must list the normalized trailing dims}}
  %0:3 = fuser.layer_norm %a dims = [] eps = 1.0e-05 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

func.func @layer_norm_not_trailing(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.layer_norm' op dims must be the trailing dims in order, e.g. [1] for rank 2, got [0]}}
  %0:3 = fuser.layer_norm %a dims = [0] eps = 1.0e-05 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
  return
}

// -----

func.func @layer_norm_weight_type(%a: tensor<4x8xbf16>, %w: tensor<8xf32>) {
  // expected-error @+1 {{'fuser.layer_norm' op the weight's element type 'f32' differs from the input's 'bf16'; insert a fuser.cast (as PyTorch computes a mixed-type normalization, cast the input to the wider type and the result back: one rounding)}}
  %0:3 = fuser.layer_norm %a weight %w dims = [1] eps = 1.0e-05 : (tensor<4x8xbf16>, tensor<8xf32>) -> (tensor<4x8xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}

// -----

func.func @layer_norm_weight_shape(%a: tensor<4x8xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{'fuser.layer_norm' op the bias must have the normalized shape [8], got [4]}}
  %0:3 = fuser.layer_norm %a bias %w dims = [1] eps = 1.0e-05 : (tensor<4x8xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}

// -----

func.func @layer_norm_result(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.layer_norm' op result type 'tensor<4x8xf16>' must equal the input type 'tensor<4x8xf32>'}}
  %0:3 = fuser.layer_norm %a dims = [1] eps = 1.0e-05 : (tensor<4x8xf32>) -> (tensor<4x8xf16>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}

// -----

func.func @layer_norm_stats(%a: tensor<4x8xbf16>) {
  // expected-error @+1 {{'fuser.layer_norm' op mean and rstd must have type 'tensor<4x1xf32>' (the input shape with normalized dims of size 1)}}
  %0:3 = fuser.layer_norm %a dims = [1] eps = 1.0e-05 : (tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x1xbf16>, tensor<4x1xbf16>)
  return
}

// -----

// rms_norm has no bias: its message names the weight alone (it said
// "weight and bias").
func.func @rms_norm_weight_type(%a: tensor<4x8xf16>, %w: tensor<8xf32>) {
  // expected-error @+1 {{'fuser.rms_norm' op the weight's element type 'f32' differs from the input's 'f16'; insert a fuser.cast}}
  %0 = fuser.rms_norm %a weight %w dims = [1] eps = 1.0e-05 : (tensor<4x8xf16>, tensor<8xf32>) -> tensor<4x8xf16>
  return
}

// -----

func.func @rms_norm_result(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.rms_norm' op result type 'tensor<4x8xf64>' must equal the input type 'tensor<4x8xf32>'}}
  %0 = fuser.rms_norm %a dims = [1] eps = 1.0e-05 : (tensor<4x8xf32>) -> tensor<4x8xf64>
  return
}

// -----

func.func @rms_norm_dims(%a: tensor<4x8x2xf32>) {
  // expected-error @+1 {{'fuser.rms_norm' op dims must be the trailing dims in order, e.g. [2] for rank 3, got [1]}}
  %0 = fuser.rms_norm %a dims = [1] eps = 1.0e-05 : (tensor<4x8x2xf32>) -> tensor<4x8x2xf32>
  return
}

// -----

func.func @rand_like_rank(%s: tensor<i64>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'fuser.rand' op like has rank 1, the result 2}}
  %0 = fuser.rand %s, %s like %x : tensor<4xf32> : tensor<4x8xf32>
  return
}

// -----

func.func @randn_like_shape(%s: tensor<i64>, %x: tensor<4x9xf32>) {
  // expected-error @+1 {{'fuser.randn' op like's shape [4, 9] differs from the result's [4, 8] in dim 1}}
  %0 = fuser.randn %s, %s like %x : tensor<4x9xf32> : tensor<4x8xf32>
  return
}

// -----

func.func @rand_seed_type(%s: tensor<1xi64>) {
  // expected-error @+1 {{'fuser.rand' op operand #0 must be 0D tensor of 64-bit signless integer values, but got 'tensor<1xi64>'}}
  %0 = "fuser.rand"(%s, %s) : (tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @bernoulli_p_constant(%s: tensor<i64>) {
  %p = fuser.constant 1.5 : tensor<4xf32>
  // expected-error @+1 {{'fuser.bernoulli' op p must be in [0, 1], got 1.5}}
  %0 = fuser.bernoulli %p, %s, %s : tensor<4xf32>
  return
}

// -----

func.func @bernoulli_p_broadcast_nan(%s: tensor<i64>) {
  %c = fuser.constant 0x7FC00000 : tensor<f32>
  %p = fuser.broadcast %c dims = [] : tensor<f32> -> tensor<4xf32>
  // expected-error @+1 {{'fuser.bernoulli' op p must be in [0, 1], got nan}}
  %0 = fuser.bernoulli %p, %s, %s : tensor<4xf32>
  return
}

// -----

func.func @dropout_p_constant(%x: tensor<4xf32>, %s: tensor<i64>) {
  %p = fuser.constant -0.5 : tensor<f32>
  // expected-error @+1 {{'fuser.dropout' op p must be in [0, 1], got -0.5}}
  %0:2 = fuser.dropout %x, %p, %s, %s : tensor<4xf32>, tensor<f32> -> tensor<4xf32>, tensor<4xi1>
  return
}

// -----

func.func @dropout_p_rank(%x: tensor<4xf32>, %p: tensor<4xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'fuser.dropout' op p must have rank 0, got 'tensor<4xf32>'}}
  %0:2 = fuser.dropout %x, %p, %s, %s : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>, tensor<4xi1>
  return
}

// -----

func.func @dropout_mask(%x: tensor<4xf32>, %p: tensor<f32>, %s: tensor<i64>) {
  // expected-error @+1 {{'fuser.dropout' op mask type 'tensor<8xi1>' must be the input's shape of i1}}
  %0:2 = fuser.dropout %x, %p, %s, %s : tensor<4xf32>, tensor<f32> -> tensor<4xf32>, tensor<8xi1>
  return
}

// -----

func.func @zeroed_not_alloc(%a: memref<4xi32>) {
  // expected-error @+1 {{'fuser.zeroed' op marks a buffer of memref.alloc only (an intermediate of the plan)}}
  fuser.zeroed %a : memref<4xi32>
  return
}

// -----

func.func @gather_dim(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>) {
  // expected-error @+1 {{'fuser.gather' op dim 2 is out of range for rank 2}}
  %0 = fuser.gather %x, %i dim = 2 : tensor<4x10xf32>, tensor<4x3xi64> -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_rank(%x: tensor<4x10xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'fuser.gather' op index [3] and input [4, 10] differ in rank (torch.gather needs the same rank)}}
  %0 = fuser.gather %x, %i dim = 1 : tensor<4x10xf32>, tensor<3xi64> -> tensor<3xf32>
  return
}

// -----

func.func @gather_other_dim_too_large(%x: tensor<4x10xf32>, %i: tensor<5x3xi64>) {
  // expected-error @+1 {{'fuser.gather' op index size 5 of dim 0 exceeds the input's 4 (only dim 1, the gathered one, may be larger)}}
  %0 = fuser.gather %x, %i dim = 1 : tensor<4x10xf32>, tensor<5x3xi64> -> tensor<5x3xf32>
  return
}

// -----

func.func @gather_result_type(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>) {
  // expected-error @+1 {{'fuser.gather' op result type 'tensor<4x3xf16>' does not match the expected 'tensor<4x3xf32>'}}
  %0 = fuser.gather %x, %i dim = 1 : tensor<4x10xf32>, tensor<4x3xi64> -> tensor<4x3xf16>
  return
}

// -----

func.func @gather_float_index(%x: tensor<4x10xf32>, %i: tensor<4x3xf32>) {
  // expected-error @+1 {{'fuser.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = fuser.gather %x, %i dim = 1 : tensor<4x10xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @index_select_dim(%x: tensor<4x10xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'fuser.index_select' op dim -1 is out of range for rank 2}}
  %0 = fuser.index_select %x, %i dim = -1 : tensor<4x10xf32>, tensor<3xi32> -> tensor<4x3xf32>
  return
}

// -----

func.func @index_select_rank(%x: tensor<4x10xf32>, %i: tensor<3x1xi32>) {
  // expected-error @+1 {{'fuser.index_select' op operand #1 must be 1D tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = fuser.index_select %x, %i dim = 0 : tensor<4x10xf32>, tensor<3x1xi32> -> tensor<3x10xf32>
  return
}

// -----

func.func @index_select_result_type(%x: tensor<4x10xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'fuser.index_select' op result type 'tensor<4x3xf32>' does not match the expected 'tensor<3x10xf32>'}}
  %0 = fuser.index_select %x, %i dim = 0 : tensor<4x10xf32>, tensor<3xi32> -> tensor<4x3xf32>
  return
}

// -----

func.func @cumsum_dim(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'fuser.cumsum' op dim 2 is out of range for rank 2}}
  %0 = fuser.cumsum %x dim = 2 : tensor<4x10xf32>
  return
}

// -----

func.func @cumsum_narrow_int(%x: tensor<4x10xi32>) {
  // expected-error @+1 {{'fuser.cumsum' op accumulates 'i32' as PyTorch does, in int64: cast the input to i64 first}}
  %0 = fuser.cumsum %x dim = 1 : tensor<4x10xi32>
  return
}

// -----

func.func @cumsum_bool(%x: tensor<4x10xi1>) {
  // expected-error @+1 {{'fuser.cumsum' op accumulates 'i1' as PyTorch does, in int64: cast the input to i64 first}}
  %0 = fuser.cumsum %x dim = 1 : tensor<4x10xi1>
  return
}

// -----

func.func @cumprod_narrow_int(%x: tensor<4x10xi8>) {
  // expected-error @+1 {{'fuser.cumprod' op accumulates 'i8' as PyTorch does, in int64: cast the input to i64 first}}
  %0 = fuser.cumprod %x dim = 0 : tensor<4x10xi8>
  return
}

// -----

func.func @cummax_dim(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'fuser.cummax' op dim -1 is out of range for rank 2}}
  %v, %i = fuser.cummax %x dim = -1 : tensor<4x10xf32> -> tensor<4x10xi64>
  return
}

// -----

func.func @cummin_indices_shape(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'fuser.cummin' op indices must have the input's shape 'tensor<4x10xi64>', not 'tensor<4x9xi64>'}}
  %v, %i = fuser.cummin %x dim = 1 : tensor<4x10xf32> -> tensor<4x9xi64>
  return
}

// -----

func.func @cummax_indices_type(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'fuser.cummax' op result #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<4x10xi32>'}}
  %v, %i = fuser.cummax %x dim = 1 : tensor<4x10xf32> -> tensor<4x10xi32>
  return
}

// -----

func.func @scatter_add_rank(%x: tensor<4x10xf32>, %i: tensor<4xi64>, %s: tensor<4x3xf32>) {
  // expected-error @+1 {{'fuser.scatter_add' op self [4, 10], index [4] and source [4, 3] differ in rank (torch.scatter_add needs the same rank)}}
  %0 = fuser.scatter_add %x, %i, %s dim = 1 : tensor<4x10xf32>, tensor<4xi64>, tensor<4x3xf32>
  return
}

// -----

func.func @scatter_add_source(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{'fuser.scatter_add' op index size 3 of dim 1 exceeds the source's 2}}
  %0 = fuser.scatter_add %x, %i, %s dim = 1 : tensor<4x10xf32>, tensor<4x3xi64>, tensor<4x2xf32>
  return
}

// -----

func.func @scatter_add_self(%x: tensor<4x10xf32>, %i: tensor<5x3xi64>, %s: tensor<5x3xf32>) {
  // expected-error @+1 {{'fuser.scatter_add' op index size 5 of dim 0 exceeds self's 4 (only dim 1, the scattered one, may be larger)}}
  %0 = fuser.scatter_add %x, %i, %s dim = 1 : tensor<4x10xf32>, tensor<5x3xi64>, tensor<5x3xf32>
  return
}

// -----

func.func @scatter_add_dim(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>, %s: tensor<4x3xf32>) {
  // expected-error @+1 {{'fuser.scatter_add' op dim 2 is out of range for rank 2}}
  %0 = fuser.scatter_add %x, %i, %s dim = 2 : tensor<4x10xf32>, tensor<4x3xi64>, tensor<4x3xf32>
  return
}

// -----

func.func @scatter_add_types(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>, %s: tensor<4x3xbf16>) {
  // expected-error @+1 {{'fuser.scatter_add' op source element type 'bf16' differs from self's 'f32'; insert a fuser.cast}}
  %0 = fuser.scatter_add %x, %i, %s dim = 1 : tensor<4x10xf32>, tensor<4x3xi64>, tensor<4x3xbf16>
  return
}

// -----

func.func @index_add_rank(%x: tensor<4x10xf32>, %i: tensor<4x1xi64>, %s: tensor<4x10xf32>) {
  // expected-error @+1 {{'fuser.index_add' op index must have rank 1, got [4, 1]}}
  %0 = fuser.index_add %x, %i, %s dim = 0 : tensor<4x10xf32>, tensor<4x1xi64>, tensor<4x10xf32>
  return
}

// -----

func.func @index_add_source(%x: tensor<4x10xf32>, %i: tensor<3xi64>, %s: tensor<4x10xf32>) {
  // expected-error @+1 {{'fuser.index_add' op source must have shape [3, 10] (self's, with the index's length at dim 0), got [4, 10]}}
  %0 = fuser.index_add %x, %i, %s dim = 0 : tensor<4x10xf32>, tensor<3xi64>, tensor<4x10xf32>
  return
}

// -----

func.func @index_add_dim(%x: tensor<4x10xf32>, %i: tensor<3xi64>, %s: tensor<3x10xf32>) {
  // expected-error @+1 {{'fuser.index_add' op dim -1 is out of range for rank 2}}
  %0 = fuser.index_add %x, %i, %s dim = -1 : tensor<4x10xf32>, tensor<3xi64>, tensor<3x10xf32>
  return
}

// -----

func.func @index_add_bool(%x: tensor<4xi1>, %i: tensor<3xi64>, %s: tensor<3xi1>) {
  // expected-error @+1 {{'fuser.index_add' op operand #0 must be ranked tensor of}}
  %0 = fuser.index_add %x, %i, %s dim = 0 : tensor<4xi1>, tensor<3xi64>, tensor<3xi1>
  return
}

// -----

func.func @scatter_add_into_empty(%x: tensor<4x0xf32>, %i: tensor<4x3xi64>, %s: tensor<4x3xf32>) {
  // expected-error @+1 {{'fuser.scatter_add' op adds an index of 12 elements into dim 1 of self, which is empty: every index is out of range}}
  %0 = fuser.scatter_add %x, %i, %s dim = 1 : tensor<4x0xf32>, tensor<4x3xi64>, tensor<4x3xf32>
  return
}

// -----

func.func @index_add_into_empty(%x: tensor<0x3xf32>, %i: tensor<2xi64>, %s: tensor<2x3xf32>) {
  // expected-error @+1 {{'fuser.index_add' op adds an index of 2 elements into dim 0 of self, which is empty: every index is out of range}}
  %0 = fuser.index_add %x, %i, %s dim = 0 : tensor<0x3xf32>, tensor<2xi64>, tensor<2x3xf32>
  return
}

// -----

func.func @bitcast_width(%x: tensor<4xf32>) -> tensor<4xi64> {
  // expected-error @+1 {{'fuser.bitcast' op reinterprets 'f32' (32 bits) as 'i64' (64 bits); the widths must match}}
  %0 = fuser.bitcast %x : tensor<4xf32> to tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @bitcast_bool(%x: tensor<4xi1>) -> tensor<4xi8> {
  // expected-error @+1 {{'fuser.bitcast' op cannot reinterpret i1: a bool has no bit pattern (cast it)}}
  %0 = fuser.bitcast %x : tensor<4xi1> to tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @bitcast_shape(%x: tensor<4xf32>) -> tensor<2x2xi32> {
  // expected-error @+1 {{'fuser.bitcast' op changes the shape from [4] to [2, 2]; a bitcast only reinterprets elements}}
  %0 = fuser.bitcast %x : tensor<4xf32> to tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

func.func @shift_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuser.shl' op operand #0 must be ranked tensor of i8, i32 or i64, but got 'tensor<4xf32>'}}
  %0 = fuser.shl %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @shift_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fuser.shr' op operand #0 must be ranked tensor of i8, i32 or i64, but got 'tensor<4xi1>'}}
  %0 = fuser.shr %x, %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Printed to f32's precision: 1.0000001 is not "1.000000e+00".
func.func @bernoulli_p_just_above_one(%s: tensor<i64>) {
  %p = fuser.constant 1.0000001 : tensor<4xf32>
  // expected-error @+1 {{'fuser.bernoulli' op p must be in [0, 1], got 1.00000012}}
  %0 = fuser.bernoulli %p, %s, %s : tensor<4xf32>
  return
}
