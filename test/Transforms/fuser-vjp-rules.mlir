// Each elementwise rule of fuser-vjp, as the derived graph it writes
// (f32: no casts; the values are checked against PyTorch by oracle/autodiff,
// docs/autodiff.md). floor, ceil, round and sign have a zero gradient.
// RUN: fuser-opt %s --fuser-vjp | FileCheck %s

func.func @neg(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.neg %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @abs(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.abs %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @exp(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @exp2(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.exp2 %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @expm1(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.expm1 %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @log(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.log %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @log2(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.log2 %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @log1p(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.log1p %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @sqrt(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.sqrt %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @rsqrt(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.rsqrt %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @reciprocal(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.reciprocal %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @sin(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.sin %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @cos(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.cos %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.tanh %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @sigmoid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.sigmoid %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @erf(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.erf %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @relu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.relu %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @silu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.silu %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @floor(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.floor %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @ceil(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.ceil %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @round(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.round %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @sign(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.sign %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @gelu_none(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.gelu %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @gelu_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.gelu %x approximate = tanh : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @add(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.add %a, %b : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @sub(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.sub %a, %b : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @mul(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.mul %a, %b : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @div(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.div %a, %b : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @pow(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.pow %a, %b : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @maximum(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.maximum %a, %b : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @minimum(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.minimum %a, %b : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @remainder(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.remainder %a, %b : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @atan2(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.atan2 %a, %b : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

// CHECK-LABEL: func.func @neg_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.neg %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @abs_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant -1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.lt %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<f32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.gt %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @exp_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.exp %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @exp2_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.693147182 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.exp2 %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @expm1_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.expm1 %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.add %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @log_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.div %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @log2_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.693147182 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.div %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @log1p_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.add %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.div %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @sqrt_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 2.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.sqrt %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.div %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @rsqrt_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant -5.000000e-01 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.rsqrt %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @reciprocal_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.reciprocal %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.neg %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @sin_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.cos %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @cos_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.sin %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.neg %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @tanh_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.tanh %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.sub %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @sigmoid_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.sigmoid %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.sub %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @erf_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.12837923 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.neg %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.exp %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @relu_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.relu %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.le %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<f32>, tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @silu_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.sigmoid %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.sub %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.add %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @floor_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.000000e+00 : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @ceil_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.000000e+00 : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @round_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.000000e+00 : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @sign_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.000000e+00 : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @gelu_none_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant -5.000000e-01 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.398942292 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 5.000000e-01 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.707106769 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.erf %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.add %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.exp %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.add %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @gelu_tanh_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.341450e-01 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 5.000000e-01 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.797884583 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 4.471500e-02 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.add %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.tanh %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.add %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.add %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.sub %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.add %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-LABEL: func.func @add_vjp(
// CHECK-NEXT: return %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<8xf32>
// CHECK-LABEL: func.func @sub_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.neg %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<8xf32>
// CHECK-LABEL: func.func @mul_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<8xf32>
// The divisor's: -g * ((a / b) / b), as div_tensor_other_backward (b * b
// overflows where the quotients do not).
// CHECK-LABEL: func.func @div_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.div %arg2, %arg1 : tensor<8xf32>
// CHECK-NEXT: %[[Q:[a-z0-9]+]] = fuser.div %arg0, %arg1 : tensor<8xf32>
// CHECK-NEXT: %[[QB:[a-z0-9]+]] = fuser.div %[[Q]], %arg1 : tensor<8xf32>
// CHECK-NEXT: %[[NG:[a-z0-9]+]] = fuser.neg %arg2 : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %[[NG]], %[[QB]] : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<8xf32>
// CHECK-LABEL: func.func @pow_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.pow %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.sub %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.pow %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.eq %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.log %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.ge %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.eq %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<8xf32>
// CHECK-LABEL: func.func @maximum_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 2.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.div %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.eq %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.lt %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.gt %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<f32>, tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<8xf32>
// CHECK-LABEL: func.func @minimum_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 2.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.div %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.eq %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.gt %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.lt %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.where %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xi1>, tensor<f32>, tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<8xf32>
// CHECK-LABEL: func.func @remainder_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.div %{{[a-z0-9]+}}, %{{[a-z0-9]+}} rounding_mode = floor : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.neg %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<8xf32>
// CHECK-LABEL: func.func @atan2_vjp(
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.add %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.div %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.neg %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9]+}} = fuser.mul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : tensor<8xf32>, tensor<8xf32>
