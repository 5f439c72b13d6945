// Random fusion found by seed 692237973 of test/oracle/random_fusions.py, shrunk from 10 to 4 ops.
// failed: LLVM ERROR: Cannot select: 0x55e0b54114f0: v16f32 = X86ISD::CMPP 0x55e0b54129b0, 0x55e0b5411170, TargetConstant:i8<4>
// failed: 0x55e0b54129b0: v16f32 = bitcast 0x55e0b5411480
// failed: 0x55e0b5411480: v16i32 = X86ISD::VSHLI 0x55e0b5412b70, TargetConstant:i8<16>
// failed: 0x55e0b5412b70: v16i32,ch = load<(load (s256) from %ir.32, align 16), zext from v16i16> 0x55e0b53a65f0, 0x55e0b54115d0, undef:i64
// failed: 0x55e0b54115d0: i64 = add 0x55e0b5410840, 0x55e0b5410760
// failed: 0x55e0b5410840: i64,ch = CopyFromReg 0x55e0b53a65f0, Register:i64 %15
// reproduce: /usr/bin/python3 test/oracle/random_fusions.py --repro test/oracle/random/seed-692237973.mlir -v
// graph: {"nodes":[{"dims":[[0],[1]],"dtype":"bf16","dyn":[false,false],"kind":"normal","op":"input","specials":false},{"dims":[],"dtype":"bf16","dyn":[],"op":"const","value":3.0},{"args":[[0,0],[1,0]],"name":"ne","op":"ew"},{"args":[[2,0]],"op":"cast","to":"bf16"},{"args":[[3,0]],"op":"cast","to":"f16"}],"outputs":[[4,0],[2,0]],"seed":692237973,"syms":[1,2]}
func.func @seed_692237973(%in0: tensor<1x2xbf16>) -> (tensor<1x2xf16>, tensor<1x2xi1>) {
  %v1_0 = fuser.constant 3.0 : tensor<bf16>
  %v2_0 = fuser.ne %in0, %v1_0 : tensor<1x2xbf16>, tensor<bf16>
  %v3_0 = fuser.cast %v2_0 : tensor<1x2xi1> to tensor<1x2xbf16>
  %v4_0 = fuser.cast %v3_0 : tensor<1x2xbf16> to tensor<1x2xf16>
  return %v4_0, %v2_0 : tensor<1x2xf16>, tensor<1x2xi1>
}
