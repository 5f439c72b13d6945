// KNOWN_FAILURES "cast-f64-to-bf16" (test/oracle/oracle/known_failures.py).
//
//   build/bin/fuserc run test/oracle/repro/cast_f64_to_bf16.mlir --device cpu --random 1
//
// PyTorch: x.to(torch.bfloat16) of the eight random f64 values. fuser on the
// CPU emulator fails to load the kernel:
//   JIT session error: Symbols not found: [ __truncdfbf2 ]
// (LLVM lowers fptrunc double -> bfloat on the host to a libcall that nothing
// in the process provides).
func.func @cast_f64_to_bf16(%x: tensor<8xf64>) -> tensor<8xbf16> {
  %0 = fuser.cast %x : tensor<8xf64> to tensor<8xbf16>
  return %0 : tensor<8xbf16>
}
