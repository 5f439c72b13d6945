// Stated sizes (fuser.sizes) on an op that does not take them, or that are
// not an affine map, are refused where they would be ignored in silence.
// RUN: fuser-opt %s -split-input-file --fuser-check-fusions -verify-diagnostics

func.func @on_exp(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'fuser.exp' op has 'fuser.sizes', which only a reshape or a broadcast takes}}
  %e = fuser.exp %x {fuser.sizes = affine_map<()[s0] -> (s0)>} : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

func.func @on_iota(%x: tensor<?xf32>) -> tensor<?xi64> {
  // expected-error @+1 {{'fuser.iota' op has 'fuser.sizes', which only a reshape or a broadcast takes}}
  %i = fuser.iota dim = 0 {fuser.sizes = affine_map<()[s0] -> (s0)>} : tensor<?xi64>
  return %i : tensor<?xi64>
}

// -----

func.func @not_a_map(%x: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  // expected-error @+1 {{'fuser.reshape' op 'fuser.sizes' must be an affine map over the fusion's dynamic argument dims, got [2, 3]}}
  %r = fuser.reshape %x {fuser.sizes = [2, 3]} : tensor<?x?xf32> -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}
