// fuser-lower-ifs: scf.if and scf.for to cf branches, back to front, so that
// each block split moves only the ops up to the previous split (linear
// time, where convert-scf-to-cf alone is quadratic in a block's ifs). The
// result is exactly upstream's:
// RUN: fuser-opt %s --pass-pipeline='builtin.module(gpu.module(fuser-lower-ifs,convert-scf-to-cf))' > %t.ours
// RUN: fuser-opt %s --pass-pipeline='builtin.module(gpu.module(convert-scf-to-cf))' > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: fuser-opt %s --pass-pipeline='builtin.module(gpu.module(fuser-lower-ifs))' | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @m {
    // Ifs one after another, with and without results and else; a loop
    // with carried values and an unsigned compare; ifs inside the loop; a
    // loop annotation, which goes to the back edge.
    // CHECK-LABEL: gpu.func @k
    // CHECK-NOT: scf.
    // CHECK: cf.cond_br
    // CHECK: arith.cmpi ult
    // CHECK: cf.br ^{{.*}} {llvm.loop_annotation = #loop_annotation}
    // CHECK: gpu.return
    gpu.func @k(%p: !llvm.ptr, %n: i32, %c: i1) kernel {
      %v = llvm.load %p : !llvm.ptr -> f32
      %a = scf.if %c -> (f32) {
        %t = arith.addf %v, %v : f32
        scf.yield %t : f32
      } else {
        scf.yield %v : f32
      }
      scf.if %c {
        llvm.store %a, %p : f32, !llvm.ptr
      }
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %s = scf.for unsigned %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (f32) : i32 {
        %b = scf.if %c -> (f32) {
          %m = arith.mulf %acc, %acc : f32
          %d = scf.if %c -> (f32) {
            scf.yield %m : f32
          } else {
            %e = arith.subf %m, %acc : f32
            scf.yield %e : f32
          }
          scf.yield %d : f32
        } else {
          scf.yield %acc : f32
        }
        %w = arith.addf %b, %v : f32
        scf.yield %w : f32
      } {llvm.loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}
      llvm.store %s, %p : f32, !llvm.ptr
      gpu.return
    }

    // Inside a loop whose body must stay one block (scf.while), the if is
    // left to convert-scf-to-cf; the if after the loop is lowered.
    // CHECK-LABEL: gpu.func @w
    // CHECK: scf.while
    // CHECK: scf.if
    // CHECK: scf.condition
    // CHECK: cf.cond_br
    gpu.func @w(%p: !llvm.ptr, %c: i1) kernel {
      %v = llvm.load %p : !llvm.ptr -> f32
      %r = scf.while (%x = %v) : (f32) -> f32 {
        %y = scf.if %c -> (f32) {
          %t = arith.addf %x, %x : f32
          scf.yield %t : f32
        } else {
          scf.yield %x : f32
        }
        %go = arith.cmpf olt, %y, %v : f32
        scf.condition(%go) %y : f32
      } do {
      ^bb0(%z: f32):
        scf.yield %z : f32
      }
      scf.if %c {
        llvm.store %r, %p : f32, !llvm.ptr
      }
      gpu.return
    }
  }
}
