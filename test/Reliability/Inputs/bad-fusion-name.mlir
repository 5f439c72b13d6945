// Kernel names come from the fusion name, and PTX names are identifiers:
// LLVM used to abort on this one (found by fuzz_ir, with a dot).
func.func @"add-one"(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
