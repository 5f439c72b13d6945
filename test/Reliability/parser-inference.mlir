// The custom parser of an elementwise op infers the result type before the
// operand type constraints are checked; a non-tensor operand there crashed
// the parser (found by fuzz_ir: fuzz/corpus/ir/crash-scalar-operand.mlir).
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

func.func @binary(%x: tensor<4xf32>, %y: f32) {
  // expected-error @+1 {{'fuser.add' op operand #1 must be a ranked tensor, got 'f32'}}
  %0 = fuser.add %x, %y : tensor<4xf32>, f32
  return
}

// -----

func.func @compare(%x: tensor<4xf32>, %y: f32) {
  // expected-error @+1 {{'fuser.eq' op operand #1 must be a ranked tensor, got 'f32'}}
  %0 = fuser.eq %x, %y : tensor<4xf32>, f32
  return
}

// -----

func.func @where(%x: tensor<4xf32>, %c: i1) {
  // expected-error @+1 {{'fuser.where' op operand #0 must be a ranked tensor, got 'i1'}}
  %0 = fuser.where %c, %x, %x : i1, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @ternary(%x: tensor<4xf32>, %y: index) {
  // expected-error @+1 {{'fuser.clamp' op operand #1 must be a ranked tensor, got 'index'}}
  %0 = fuser.clamp %x, %y, %x : tensor<4xf32>, index, tensor<4xf32>
  return
}

// -----

func.func @unranked(%x: tensor<4xf32>, %y: tensor<*xf32>) {
  // expected-error @+1 {{'fuser.mul' op operand #1 must be a ranked tensor, got 'tensor<*xf32>'}}
  %0 = fuser.mul %x, %y : tensor<4xf32>, tensor<*xf32>
  return
}
