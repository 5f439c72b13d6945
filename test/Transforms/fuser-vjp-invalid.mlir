// fuser-vjp's diagnostics: an op without a rule, a case a rule cannot
// express, bad options. Nothing is added to the module.
// RUN: fuser-opt %s -split-input-file --fuser-vjp -verify-diagnostics
// RUN: not fuser-opt %s --fuser-vjp="fusion=nothere" 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: error: fuser-vjp: no fusion named 'nothere'

func.func @bitcast(%x: tensor<8xbf16>) -> tensor<8xf16> {
  // expected-error @below {{'fuser.bitcast' op has no gradient rule in fuser-vjp: a bitcast reinterprets bits}}
  %c = fuser.bitcast %x : tensor<8xbf16> to tensor<8xf16>
  return %c : tensor<8xf16>
}

// -----

func.func @quantized(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %q = fuser.cast %x : tensor<8xbf16> to tensor<8xf8E4M3FN>
  // expected-error @below {{'fuser.cast' op has no gradient rule in fuser-vjp from 'f8E4M3FN': fp8 values carry no gradient}}
  %d = fuser.cast %q : tensor<8xf8E4M3FN> to tensor<8xbf16>
  return %d : tensor<8xbf16>
}

// -----

func.func @slice_dynamic(%x: tensor<?x8xf32>) -> tensor<2x8xf32> {
  // expected-error @below {{'fuser.slice' op has no gradient in fuser-vjp along dim 0, whose size is known only at launch}}
  %s = fuser.slice %x start = [0, 0] limit = [2, 8] step = [1, 1] : tensor<?x8xf32> -> tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}

// -----

func.func @concat_dynamic(%a: tensor<4x?xf32>, %b: tensor<4x3xf32>) -> tensor<4x?xf32> {
  // expected-error @below {{'fuser.concat' op has no gradient in fuser-vjp: operand 0 has a size along dim 1 known only at launch}}
  %c = fuser.concat %a, %b dim = 1 : tensor<4x?xf32>, tensor<4x3xf32> -> tensor<4x?xf32>
  return %c : tensor<4x?xf32>
}

// -----

// expected-error @below {{fuser-vjp: 'taken_vjp' exists already}}
func.func @taken(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
func.func @taken_vjp(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

func.func @scatter_wide_source(%s: tensor<4x10xf32>, %i: tensor<4x2xi64>, %src: tensor<4x3xf32>) -> tensor<4x10xf32> {
  // expected-error @below {{'fuser.scatter_add' op has no gradient rule in fuser-vjp for a source larger than its index}}
  %r = fuser.scatter_add %s, %i, %src dim = 1 : tensor<4x10xf32>, tensor<4x2xi64>, tensor<4x3xf32>
  return %r : tensor<4x10xf32>
}

// -----

// expected-error @below {{fuser-vjp: 'external' is not a fusion with one block}}
func.func private @external(%x: tensor<8xf32>) -> tensor<8xf32>

// -----

// An op of a prod's or cumprod's gradient (fuser.first_order, as fuser-vjp
// marks them) is not differentiated again: its derivative at a zero is not
// PyTorch's (the where's unpicked quotient 0/0 gave NaN everywhere, and the
// cumprod's second derivative came out finite and wrong).
func.func @second_order(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = fuser.constant 0.0 : tensor<4xf32>
  %c = fuser.eq %x, %z : tensor<4xf32>
  // expected-error @below {{'fuser.where' op is part of the gradient of a prod or cumprod, which fuser-vjp differentiates once: its derivative at a zero is not PyTorch's (fuser.first_order)}}
  %w = fuser.where %c, %y, %x {fuser.first_order} : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  return %w : tensor<4xf32>
}
