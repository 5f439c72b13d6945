// fuser-emit-kernels=explain: one remark a segment naming each kernel, its
// index width and block, and what its scheduler decided at emission with
// the key or the rule behind it; the kernels are those without explain.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-schedule --fuser-emit-kernels=explain 2>&1 >/dev/null | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-schedule --fuser-emit-kernels=explain -o %t.explained.mlir
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-schedule --fuser-emit-kernels -o %t.plain.mlir
// RUN: cmp %t.explained.mlir %t.plain.mlir

// CHECK: remark: kernels of @softmax segment 0 (normalization scheduler):
// CHECK-NEXT: softmax_0: 32-bit index, block 256 x 1 x 1; inner normalization, rows of 4096, 4 lanes; 256 threads a row (the heuristic: the fewest that leave a thread 4 vector units, more until a normalization's row fits the registers); the row in registers between passes; vector units, each access one vector where the plan's checks hold, else lane by lane
// CHECK-NOT: softmax_1
func.func @softmax(%x: tensor<64x4096xf32>) -> tensor<64x4096xf32> {
  %m = fuser.max %x dims = [1] : tensor<64x4096xf32> -> tensor<64xf32>
  %mb = fuser.broadcast %m dims = [0] : tensor<64xf32> -> tensor<64x4096xf32>
  %s = fuser.sub %x, %mb : tensor<64x4096xf32>
  %e = fuser.exp %s : tensor<64x4096xf32>
  %t = fuser.sum %e dims = [1] : tensor<64x4096xf32> -> tensor<64xf32>
  %tb = fuser.broadcast %t dims = [0] : tensor<64xf32> -> tensor<64x4096xf32>
  %y = fuser.div %e, %tb : tensor<64x4096xf32>
  return %y : tensor<64x4096xf32>
}

// -----

// A schedule key is named where it decided.
// CHECK: remark: kernels of @by_key segment 0 (normalization scheduler):
// CHECK-NEXT: by_key_0: 32-bit index, block 64 x 4 x 1; inner normalization, rows of 4096, 4 lanes; 64 threads a row (reduction.threads); the row read again per pass
func.func @by_key(%x: tensor<64x4096xf32>) -> tensor<64x4096xf32>
    attributes {fuser.schedule = #fuser.schedule<reduction.threads = 64>} {
  %m = fuser.max %x dims = [1] : tensor<64x4096xf32> -> tensor<64xf32>
  %mb = fuser.broadcast %m dims = [0] : tensor<64xf32> -> tensor<64x4096xf32>
  %y = fuser.sub %x, %mb : tensor<64x4096xf32>
  return %y : tensor<64x4096xf32>
}

// -----

// A row length known at launch: the kernels the plan chooses among.
// CHECK: remark: kernels of @dynamic_rows segment 0 (normalization scheduler):
// CHECK-NEXT: dynamic_rows_0: 32-bit index, block (at launch) x (at launch) x 1; inner normalization, rows of a length known at launch, 4 lanes; threads a row chosen at launch from the length; the row on chip, up to 32 values a thread; vector accesses only
// CHECK: the row read again per pass
func.func @dynamic_rows(%x: tensor<8x?xf32>) -> tensor<8x?xf32> {
  %m = fuser.max %x dims = [1] : tensor<8x?xf32> -> tensor<8xf32>
  %mb = fuser.broadcast %m dims = [0] : tensor<8xf32> -> tensor<8x?xf32>
  %y = fuser.sub %x, %mb : tensor<8x?xf32>
  return %y : tensor<8x?xf32>
}

// -----

// CHECK: remark: kernels of @colsum segment 0 (reduction scheduler):
// CHECK-NEXT: colsum_0: 32-bit index, block 16 x 16 x 1; outer reduction, 4 lanes, 16 threads along the kept dim (reduction.column_threads), 16 rows of threads (the heuristic: 256 threads, at most 32 rows) adding positions in row order; the reduced extent split across blocks (the count chosen in the plan), the last block of a column tile adding the partials in split order
func.func @colsum(%x: tensor<?x96xf32>) -> tensor<96xf32>
    attributes {fuser.schedule = #fuser.schedule<reduction.column_threads = 16>} {
  %0 = fuser.sum %x dims = [0] : tensor<?x96xf32> -> tensor<96xf32>
  return %0 : tensor<96xf32>
}

// -----

// CHECK: remark: kernels of @colnorm segment 0 (normalization scheduler):
// CHECK-NEXT: colnorm_0: 32-bit index, block 8 x 8 x 1; outer normalization, columns of 100, 1 lane, 8 threads along the kept dim, 8 rows of threads, each thread holding 13 values of its column on chip (at most 16; {{.*}})
func.func @colnorm(%x: tensor<100x1000xf32>) -> tensor<100x1000xf32> {
  %s = fuser.sum %x dims = [0] keepdim = true : tensor<100x1000xf32> -> tensor<1x1000xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<1x1000xf32> -> tensor<100x1000xf32>
  %0 = fuser.sub %x, %sb : tensor<100x1000xf32>
  return %0 : tensor<100x1000xf32>
}

// -----

// CHECK: remark: kernels of @scale segment 0 (pointwise scheduler):
// CHECK-NEXT: scale_0: 32-bit index, block 256 x 1 x 1; pointwise, 4 lanes where the plan's size and alignment checks hold, else 1 (pointwise.vector_bytes / the narrowest element that moves with the innermost dim), 1 unit(s) a thread a step, grid at most 8 waves
func.func @scale(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fuser.mul %x, %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK: remark: kernels of @scan segment 0 (scan scheduler):
// CHECK-NEXT: scan_0: 32-bit index, block 512 x 1 x 1; scan, a warp a line (the scanned dim is the contiguous one), grid at most 1 waves (scan.block, scan.waves)
func.func @scan(%x: tensor<8x100xf32>) -> tensor<8x100xf32>
    attributes {fuser.schedule = #fuser.schedule<scan.block = 512>} {
  %c = fuser.cumsum %x dim = 1 : tensor<8x100xf32>
  return %c : tensor<8x100xf32>
}
