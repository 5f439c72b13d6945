// The shape analysis checks fuser.same_shape_as itself (fuser-segment may
// run without fuser-check-fusions, as in fuser-opt pipelines).
// RUN: fuser-opt %s -split-input-file --fuser-segment -verify-diagnostics

// expected-error @+1 {{result 0 has fuser.same_shape_as = 1, which is not an argument of its rank}}
func.func @range(%x: tensor<?xf32>) -> (tensor<?xf32> {fuser.same_shape_as = 1 : i64}) {
  %0 = fuser.exp %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// expected-error @+1 {{result 0 has fuser.same_shape_as = 0, which is not an argument of its rank}}
func.func @rank(%x: tensor<?x4xf32>, %y: tensor<?xf32>) -> (tensor<?xf32> {fuser.same_shape_as = 0 : i64}) {
  %0 = fuser.exp %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}
