// The gradients come in input order, and the cotangents in result order,
// whatever order `wrt` and `results` list them in (`wrt=1,0` gave them in
// the listed order: a caller reading them by position swapped them).
// RUN: fuser-opt %s --fuser-vjp="fusion=f wrt=1,0 results=1,0" | FileCheck %s
// CHECK: func.func @f_vjp(%{{.*}}: tensor<8xf32> {fuser.name = "a"}, %{{.*}}: tensor<8xf32> {fuser.name = "b"}, %{{.*}}: tensor<8xf32> {fuser.cotangent, fuser.name = "grad_p"}, %{{.*}}: tensor<8xf32> {fuser.cotangent, fuser.name = "grad_q"})
// CHECK-SAME: -> (tensor<8xf32> {fuser.name = "grad_a", fuser.same_shape_as = 0 : i64}, tensor<8xf32> {fuser.name = "grad_b", fuser.same_shape_as = 1 : i64})
func.func @f(%a: tensor<8xf32> {fuser.name = "a"}, %b: tensor<8xf32> {fuser.name = "b"})
    -> (tensor<8xf32> {fuser.name = "p"}, tensor<8xf32> {fuser.name = "q"}) {
  %p = fuser.mul %a, %b : tensor<8xf32>
  %q = fuser.add %a, %b : tensor<8xf32>
  return %p, %q : tensor<8xf32>, tensor<8xf32>
}
