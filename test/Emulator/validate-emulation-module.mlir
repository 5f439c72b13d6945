// RUN: fuser-opt %s --split-input-file --fuser-validate-emulation-module --verify-diagnostics

// What fuser emits passes: pointers and integers in, arithmetic, loads and
// stores through the parameters, barriers, shared memory.
gpu.module @ok_kernels {
  gpu.func @ok(%x: !llvm.ptr, %y: !llvm.ptr, %n: i32) workgroup(%s : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
    %t = gpu.thread_id x
    %i = arith.index_castui %t : index to i32
    %p = llvm.getelementptr %x[%i] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    %v = llvm.load %p : !llvm.ptr -> f32
    memref.store %v, %s[%t] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %s[%t] : memref<32xf32, #gpu.address_space<workgroup>>
    %e = llvm.intr.fma(%w, %w, %v) : (f32, f32, f32) -> f32
    %q = llvm.getelementptr %y[%i] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    llvm.store %e, %q : f32, !llvm.ptr
    gpu.return
  }
}

// -----

// expected-error @+1 {{a bundle's kernel module holds gpu.module ops only, not 'llvm.func'}}
llvm.func @system(!llvm.ptr) -> i32

// -----

gpu.module @calls_kernels {
  llvm.func @system(!llvm.ptr) -> i32
  // expected-error @-1 {{a gpu.module of a bundle holds gpu.func kernels and helper functions only, not 'llvm.func'}}
}

// -----

// The math library's rare paths: private helpers beside the kernels that
// compute on values only, called from a kernel.
gpu.module @helper_kernels {
  func.func private @__fuser_sin_rare_f32(%x: f32) -> f32 attributes {llvm.linkage = #llvm.linkage<internal>} {
    %c = arith.constant 2.0 : f32
    %y = arith.mulf %x, %c : f32
    %z = llvm.intr.fma(%y, %y, %x) : (f32, f32, f32) -> f32
    return %z : f32
  }
  gpu.func @k(%x: i32) kernel {
    %f = arith.sitofp %x : i32 to f32
    %r = func.call @__fuser_sin_rare_f32(%f) : (f32) -> f32
    gpu.return
  }
}

// -----

gpu.module @public_helper_kernels {
  // expected-error @+1 {{a gpu.module of a bundle holds gpu.func kernels and fuser's helper functions (private, with a body, named '__fuser_...') only; '__fuser_sin_rare_f32' is neither}}
  func.func @__fuser_sin_rare_f32(%x: f32) -> f32 {
    return %x : f32
  }
}

// -----

gpu.module @named_helper_kernels {
  // expected-error @+1 {{a gpu.module of a bundle holds gpu.func kernels and fuser's helper functions (private, with a body, named '__fuser_...') only; 'system' is neither}}
  func.func private @system(%x: f32) -> f32 {
    return %x : f32
  }
}

// -----

gpu.module @declared_helper_kernels {
  // expected-error @+1 {{'__fuser_h' is neither}}
  func.func private @__fuser_h(%x: f32) -> f32
  gpu.func @k(%x: f32) kernel {
    %r = func.call @__fuser_h(%x) : (f32) -> f32
    gpu.return
  }
}

// -----

gpu.module @pointer_helper_kernels {
  // expected-error @+1 {{helper function '__fuser_h' takes or returns '!llvm.ptr'; helpers compute on f32, f64, integers and vectors of them only}}
  func.func private @__fuser_h(%p: !llvm.ptr) -> f32 {
    %v = llvm.load %p : !llvm.ptr -> f32
    return %v : f32
  }
}

// -----

gpu.module @half_helper_kernels {
  // expected-error @+1 {{helper function '__fuser_h' takes or returns 'bf16'}}
  func.func private @__fuser_h(%x: bf16) -> bf16 {
    return %x : bf16
  }
}

// -----

gpu.module @half_value_helper_kernels {
  func.func private @__fuser_h(%x: f32) -> f32 {
    // expected-error @+1 {{a helper value of type 'bf16' (the CPU emulation takes numbers and vectors of them only)}}
    %h = arith.truncf %x : f32 to bf16
    %y = arith.extf %h : bf16 to f32
    return %y : f32
  }
}

// -----

// Recursion (a helper that calls itself) would overflow the host's stack.
gpu.module @recursive_helper_kernels {
  func.func private @__fuser_h(%x: f32) -> f32 {
    // expected-error @+1 {{'func.call' is not an op fuser emits in a helper function: the CPU emulation refuses to compile it}}
    %r = func.call @__fuser_h(%x) : (f32) -> f32
    return %r : f32
  }
}

// -----

// A loop in a helper runs a constant number of times, at most 64 (exact
// fmod's steps): one whose trips are known only at run time, or more,
// would escape the emulator's work limit.
gpu.module @loop_helper_kernels {
  func.func private @__fuser_h(%x: f32, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // expected-error @+1 {{a loop in a helper function runs a constant number of times, at most 64, and holds no loop}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> f32 : i32 {
      scf.yield %a : f32
    }
    return %r : f32
  }
}

// -----

gpu.module @long_loop_helper_kernels {
  func.func private @__fuser_h(%x: f32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c65 = arith.constant 65 : i32
    // expected-error @+1 {{a loop in a helper function runs a constant number of times, at most 64}}
    %r = scf.for %i = %c0 to %c65 step %c1 iter_args(%a = %x) -> f32 : i32 {
      scf.yield %a : f32
    }
    return %r : f32
  }
}

// -----

gpu.module @nested_loop_helper_kernels {
  func.func private @__fuser_h(%x: f32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    // expected-error @+1 {{a loop in a helper function runs a constant number of times, at most 64, and holds no loop}}
    %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %x) -> f32 : i32 {
      %s = scf.for %j = %c0 to %c8 step %c1 iter_args(%b = %a) -> f32 : i32 {
        scf.yield %b : f32
      }
      scf.yield %s : f32
    }
    return %r : f32
  }
}

// -----

gpu.module @memory_helper_kernels {
  func.func private @__fuser_h(%x: i64) -> f32 {
    // expected-error @+1 {{'llvm.inttoptr' is not an op fuser emits in a helper function}}
    %p = llvm.inttoptr %x : i64 to !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> f32
    return %v : f32
  }
}

// -----

gpu.module @multiblock_helper_kernels {
  // expected-error @+1 {{helper function '__fuser_h' has more than one block}}
  func.func private @__fuser_h(%x: f32) -> f32 {
    cf.br ^b1
  ^b1:
    return %x : f32
  }
}

// -----

// A call through a function pointer passed as a parameter.
gpu.module @call_kernels {
  gpu.func @k(%f: !llvm.ptr, %x: i32) kernel {
    // expected-error @+1 {{'llvm.call' is not an op fuser emits in kernels: the CPU emulation refuses to compile it}}
    %r = llvm.call %f(%x) : !llvm.ptr, (i32) -> i32
    gpu.return
  }
}

// -----

gpu.module @asm_kernels {
  gpu.func @k(%x: i32) kernel {
    // expected-error @+1 {{'llvm.inline_asm' is not an op fuser emits in kernels}}
    %r = llvm.inline_asm "nop", "=r,r" %x : (i32) -> i32
    gpu.return
  }
}

// -----

gpu.module @cast_kernels {
  gpu.func @k(%x: i64) kernel {
    // expected-error @+1 {{'llvm.inttoptr' is not an op fuser emits in kernels}}
    %p = llvm.inttoptr %x : i64 to !llvm.ptr
    gpu.return
  }
}

// -----

gpu.module @param_kernels {
  // expected-error @+1 {{kernel 'k' takes a parameter of type 'f32'; kernels take !llvm.ptr, i32 and i64 only}}
  gpu.func @k(%x: f32) kernel {
    gpu.return
  }
}

// -----

gpu.module @notkernel_kernels {
  // expected-error @+1 {{the CPU emulation runs gpu.func kernels only; 'f' is not marked kernel}}
  gpu.func @f(%x: i32) {
    gpu.return
  }
}

// -----

// fuser's only atomic is an i32 add (a last-block counter).
gpu.module @atomics {
  gpu.func @k(%p: !llvm.ptr) kernel {
    %one = arith.constant 1.0 : f32
    // expected-error @+1 {{fuser's kernels add to i32 counters and exchange the index error word's flag only: the CPU emulation refuses this atomic}}
    %old = llvm.atomicrmw fadd %p, %one monotonic : !llvm.ptr, f32
    gpu.return
  }
}
