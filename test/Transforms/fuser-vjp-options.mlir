// fuser-vjp's options name inputs and results by position; a bad one is an
// error at the fusion, and nothing is added.
// RUN: fuser-opt %s --fuser-vjp="fusion=f wrt=0" -verify-diagnostics
// RUN: not fuser-opt %s --fuser-vjp="fusion=f wrt=5" 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: fuser-vjp: 'f' has no input 5 (it has 2)
// RUN: not fuser-opt %s --fuser-vjp="fusion=f wrt=1,1" 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: fuser-vjp: input 1 is selected twice
// RUN: not fuser-opt %s --fuser-vjp="fusion=f results=1" 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: error: fuser-vjp: 'f' has no result 1 (it has 1)
// RUN: fuser-opt %s --fuser-vjp="fusion=f wrt=1" | FileCheck %s --check-prefix=ONE
// ONE: func.func @f_vjp(%{{.*}}: tensor<8xi64>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32> {fuser.cotangent, fuser.name = "grad_result0"}) -> (tensor<8xf32> {fuser.name = "grad_arg1", fuser.same_shape_as = 1 : i64})

// expected-error @below {{fuser-vjp: input 0 ('arg0') is 'i64'; only f16, bf16, f32 and f64 values have gradients}}
func.func @f(%i: tensor<8xi64>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %c = fuser.cast %i : tensor<8xi64> to tensor<8xf32>
  %y = fuser.mul %c, %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
