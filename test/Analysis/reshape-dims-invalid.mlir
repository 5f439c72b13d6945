// A reshape whose dynamic result dims its input cannot give (docs/dialect.md).
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels -verify-diagnostics

// The leading dims pair ([?] with [?]), then 8 and 4 differ; from the back
// 2 and [?] differ: two dynamic result dims are left between, and how the
// rest splits is not known.
func.func @two_left(%x: tensor<?x8x?xf32>) -> tensor<?x4x?x?x2xf32> {
  // expected-error @+1 {{cannot determine the size of dim 2 of 'fuser.reshape' from the fusion's arguments; tie it to an argument's dim (a reshape infers one dynamic result dim beyond the leading and trailing dims it keeps: docs/dialect.md)}}
  %r = fuser.reshape %x : tensor<?x8x?xf32> -> tensor<?x4x?x?x2xf32>
  %e = fuser.exp %r : tensor<?x4x?x?x2xf32>
  return %e : tensor<?x4x?x?x2xf32>
}

// -----

// fuser.sizes (what fuser-segment records for a reshape its uses sized) must
// map the arguments' dynamic dims, here two, to the result's dims.
func.func @sizes_symbols(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'fuser.sizes' must map the fusion's 2 dynamic argument dims (symbols) to 1 sizes, got affine_map<()[s0] -> (s0)>}}
  %r = fuser.reshape %x {fuser.sizes = affine_map<()[s0] -> (s0)>} : tensor<?x?xf32> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

func.func @sizes_static(%x: tensor<?xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{'fuser.sizes' gives dim 0 the size 2, its type 4}}
  %r = fuser.reshape %x {fuser.sizes = affine_map<()[s0] -> (2, s0 floordiv 2)>} : tensor<?xf32> -> tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}

// -----

// A dynamic dim beside a static 0: any size gives no elements (torch's
// reshape(-1, 0) is ambiguous too). It was a division by zero when the
// fusion ran ("instruction 7 (DIV)"), naming no op.
func.func @beside_zero(%x: tensor<?x?xf32>) -> tensor<?x0xf32> {
  // expected-error @+1 {{cannot determine the size of dim 0 of 'fuser.reshape' from the fusion's arguments}}
  %r = fuser.reshape %x : tensor<?x?xf32> -> tensor<?x0xf32>
  return %r : tensor<?x0xf32>
}
