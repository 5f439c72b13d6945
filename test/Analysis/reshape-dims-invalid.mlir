// A reshape whose dynamic result dims its input cannot give (docs/dialect.md).
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels -verify-diagnostics

// The leading dims pair ([?] with [?]), then 8 and 4 differ while two
// dynamic result dims are left: how the rest splits is not known.
func.func @two_left(%x: tensor<?x8x?xf32>) -> tensor<?x4x?x?xf32> {
  // expected-error @+1 {{cannot determine the size of dim 2 of 'fuser.reshape' from the fusion's arguments; tie it to an argument's dim (a reshape infers one dynamic result dim beyond the leading dims it keeps: docs/dialect.md)}}
  %r = fuser.reshape %x : tensor<?x8x?xf32> -> tensor<?x4x?x?xf32>
  %e = fuser.exp %r : tensor<?x4x?x?xf32>
  return %e : tensor<?x4x?x?xf32>
}
