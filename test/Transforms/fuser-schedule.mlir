// fuser-schedule: each segment gets a #fuser.schedule with every decision
// of its scheduler that is a schedule key: the heuristic's defaults, the
// schedule option's where it sets one, the fusion's own fuser.schedule
// above both; a fusion already scheduled (by hand) keeps its schedules.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-schedule | FileCheck %s --check-prefix=DEFAULT
// RUN: fuser-opt %s -split-input-file --fuser-segment '--fuser-schedule=schedule="pointwise.waves=2,innerouter.rows=32"' | FileCheck %s --check-prefix=OPTION
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-schedule=explain 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-schedule | fuser-opt --fuser-schedule | FileCheck %s --check-prefix=DEFAULT

// An inner-outer segment (row and column sums of one tensor) and a
// pointwise one (the column sum broadcast back needs every row first).
// DEFAULT-LABEL: func.func @two
// DEFAULT-SAME: fuser.schedulers = ["inner-outer", "pointwise"]
// DEFAULT-SAME: fuser.schedules = [#fuser.schedule<innerouter.rows = 8, innerouter.min_blocks_per_sm = 1, innerouter.max_blocks_per_sm = 2>, #fuser.schedule<pointwise.block = 256, pointwise.units = 1, pointwise.waves = 8, transpose.tile = 32, transpose.rows = 8, transpose.waves = 1>]
// OPTION-LABEL: func.func @two
// OPTION-SAME: fuser.schedules = [#fuser.schedule<innerouter.rows = 32, innerouter.min_blocks_per_sm = 1, innerouter.max_blocks_per_sm = 2>, #fuser.schedule<pointwise.block = 256, pointwise.units = 1, pointwise.waves = 2, transpose.tile = 32, transpose.rows = 8, transpose.waves = 1>]
// EXPLAIN: remark: schedule of @two segment 0: inner-outer scheduler, 5 ops, outputs tensor<?x512xf32> tensor<512xf32>; sm_90, 132 SMs, 2048 threads an SM
// EXPLAIN-NEXT: innerouter.rows = 8: rows each block of an inner-outer kernel walks before the grid grows; the heuristic's default, measured: 13-20% faster than 32 at 2603 rows of 4096
// EXPLAIN-NEXT: innerouter.min_blocks_per_sm = 1: {{.*}}; the heuristic's default, measured: 2-3x faster than no floor below 1000 rows
// EXPLAIN-NEXT: innerouter.max_blocks_per_sm = 2: {{.*}}; the heuristic's default, measured: 4 was 4-40% slower from 256 MB
// EXPLAIN-NEXT: innerouter.min_threads = (heuristic): {{.*}}; the fewest threads that hold the row at 16 values each, chosen at emission (static rows) or at launch (dynamic rows)
// EXPLAIN-NEXT: innerouter.max_registers = (heuristic): {{.*}}; no cap: 65536 / threads in the block, as ptxas allocates
// EXPLAIN-NEXT: kernel.index_bits = (heuristic): the width of the segment's index math in bits {{.*}}; the index-bits compile option where it forces one, else per kernel{{.*}}
// EXPLAIN-NEXT: launch: row kernel grid = min(max(ceil(rows / innerouter.rows), min(ceil(rows / rows a block holds at once), 132 SMs x innerouter.min_blocks_per_sm)), 132 SMs x innerouter.max_blocks_per_sm), at least 1;
// EXPLAIN-NEXT: at emission: where the row lives
// EXPLAIN: remark: schedule of @two segment 1: pointwise scheduler, 2 ops, outputs tensor<?x512xf32>; sm_90, 132 SMs, 2048 threads an SM
// EXPLAIN-NEXT: pointwise.block = 256: threads per block of a pointwise kernel; the heuristic's default, measured: 128-thread blocks were slower everywhere
// EXPLAIN-NEXT: pointwise.units = 1:
// EXPLAIN-NEXT: pointwise.waves = 8:
// EXPLAIN-NEXT: pointwise.vector_bytes = (heuristic): the widest access of a pointwise kernel in bytes: lanes = this / the narrowest contiguous element's bytes; 16, the widest load or store a thread issues; one lane (the narrowest element's bytes) where an element's arithmetic is estimated at 512 instructions or more{{.*}}
// EXPLAIN-NEXT: transpose.tile = 32: the square tile a block of a transpose kernel stages in shared memory, in elements a side (padded by one column against bank conflicts); the heuristic's default, 32: a warp reads one tile row of 4-byte elements in one 128-byte line
// EXPLAIN-NEXT: transpose.rows = 8: {{.*}}; the heuristic's default, 8: 32 x 8 blocks on the default tile, 4 tile rows a thread
// EXPLAIN-NEXT: transpose.waves = 1: {{.*}}; the heuristic's default, 1: one full wave, each block looping over tiles
// EXPLAIN-NEXT: kernel.index_bits = (heuristic): the width of the segment's index math in bits {{.*}}; the index-bits compile option where it forces one, else per kernel{{.*}}
// EXPLAIN-NEXT: launch: grid = min(ceil(units / (block x units per step)), waves x 132 SMs x 2048 / block), at least 1
// EXPLAIN-NEXT: at emission: lanes {{.*}} transpose: then the transpose.* keys apply and the pointwise.* keys do not (a transpose.tile x (transpose.tile + 1) tile in shared memory per input read across, blocks of transpose.tile x transpose.rows, grid = min(tiles, transpose.waves x 132 SMs x 2048 / block))
func.func @two(%x: tensor<?x512xf32>, %dy: tensor<?x512xf32>) -> (tensor<?x512xf32>, tensor<?x512xf32>) {
  %p = fuser.mul %x, %dy : tensor<?x512xf32>
  %s = fuser.sum %p dims = [1] keepdim = true : tensor<?x512xf32> -> tensor<?x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<?x1xf32> -> tensor<?x512xf32>
  %dx = fuser.sub %dy, %sb : tensor<?x512xf32>
  %dw = fuser.sum %p dims = [0] : tensor<?x512xf32> -> tensor<512xf32>
  %dwb = fuser.broadcast %dw dims = [1] : tensor<512xf32> -> tensor<?x512xf32>
  %z = fuser.mul %x, %dwb : tensor<?x512xf32>
  return %dx, %z : tensor<?x512xf32>, tensor<?x512xf32>
}

// -----

// The fusion's own fuser.schedule wins over the option, key by key; keys
// of a scheduler the fusion has no segment of are not written.
// DEFAULT-LABEL: func.func @own
// DEFAULT-SAME: fuser.schedules = [#fuser.schedule<pointwise.block = 64, pointwise.units = 1, pointwise.waves = 0, transpose.tile = 32, transpose.rows = 8, transpose.waves = 1>]
// OPTION-LABEL: func.func @own
// OPTION-SAME: fuser.schedules = [#fuser.schedule<pointwise.block = 64, pointwise.units = 1, pointwise.waves = 0, transpose.tile = 32, transpose.rows = 8, transpose.waves = 1>]
// EXPLAIN: remark: schedule of @own segment 0: pointwise scheduler
// EXPLAIN-NEXT: pointwise.block = 64: threads per block of a pointwise kernel; from the fusion's fuser.schedule
// EXPLAIN-NEXT: pointwise.units = 1: {{.*}}; the heuristic's default
// EXPLAIN-NEXT: pointwise.waves = 0: {{.*}}; from the fusion's fuser.schedule
func.func @own(%x: tensor<1000xf32>) -> tensor<1000xf32>
    attributes {fuser.schedule = #fuser.schedule<pointwise.block = 64, pointwise.waves = 0, innerouter.rows = 4>} {
  %0 = fuser.exp %x : tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

// -----

// Scheduled by hand: the entries are kept as written (what they leave out
// is the heuristic's at emission), neither the option nor the defaults
// fill them.
// DEFAULT-LABEL: func.func @by_hand
// DEFAULT-SAME: fuser.schedules = [#fuser.schedule<pointwise.units = 4>]
// OPTION-LABEL: func.func @by_hand
// OPTION-SAME: fuser.schedules = [#fuser.schedule<pointwise.units = 4>]
// EXPLAIN: remark: schedule of @by_hand segment 0: pointwise scheduler
// EXPLAIN-NEXT: pointwise.block = 256: {{.*}}; the heuristic's default, measured: 128-thread blocks were slower everywhere
// EXPLAIN-NEXT: pointwise.units = 4: {{.*}}; from the input's fuser.schedules
func.func @by_hand(%x: tensor<1000xf32>) -> tensor<1000xf32>
    attributes {fuser.schedulers = ["pointwise"], fuser.schedules = [#fuser.schedule<pointwise.units = 4>]} {
  %0 = fuser.exp %x {fuser.segment = 0 : i64} : tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

// -----

// A normalization (softmax from primitives) takes the reduction
// scheduler's keys, and explain says what it still decides at emission.
// DEFAULT-LABEL: func.func @rows
// DEFAULT-SAME: fuser.schedules = [#fuser.schedule<reduction.block = 256, reduction.waves = 1, reduction.vector_bytes = 16>]
// OPTION-LABEL: func.func @rows
// OPTION-SAME: fuser.schedules = [#fuser.schedule<reduction.block = 256, reduction.waves = 1, reduction.vector_bytes = 16>]
// EXPLAIN: remark: schedule of @rows segment 0: normalization scheduler, 7 ops
// EXPLAIN-NEXT: reduction.block = 256: threads per block of an inner reduction or normalization kernel whose rows take fewer threads: rows per block = this / threads per row (a row never splits differently); the heuristic's default, 256: 8 rows of 32 threads, 4 of 64, ...
// EXPLAIN-NEXT: reduction.waves = 1: {{.*}}; the heuristic's default, 1: one full wave, each block looping over rows
// EXPLAIN-NEXT: reduction.threads = (heuristic): threads along each row of an inner reduction or normalization kernel whose row length is known at compile time {{.*}}; the fewest that leave each thread at least 4 vector units, more until a normalization's row fits the registers; {{.*}} (ReductionHeuristics.cpp)
// EXPLAIN-NEXT: reduction.splits = (heuristic): blocks that share each row {{.*}}(ReductionHeuristics.cpp)
// EXPLAIN-NEXT: reduction.column_threads = (heuristic): threads along the kept dim in a block of an outer (column) reduction or normalization kernel{{.*}}; as many as the columns have vector units, at most 32
// EXPLAIN-NEXT: reduction.column_rows = (heuristic): rows of threads along the reduced dims {{.*}}; 256 threads / reduction.column_threads, at most 32
// EXPLAIN-NEXT: reduction.vector_bytes = 16: the widest access of a reduction or normalization kernel in bytes{{.*}}; the heuristic's default, 16, the widest load or store a thread issues{{.*}}
// EXPLAIN-NEXT: kernel.index_bits = (heuristic): the width of the segment's index math in bits {{.*}}; the index-bits compile option where it forces one, else per kernel{{.*}}
// EXPLAIN-NEXT: launch (inner kernels): block = threads per row x max(1, reduction.block / threads per row) rows, grid = min(ceil(rows / rows per block), reduction.waves x 132 SMs x 2048 / block); reduction.block and reduction.waves do not apply to outer (column) reductions, nor to a row split across blocks
// EXPLAIN-NEXT: launch (outer kernels): block = reduction.column_threads x reduction.column_rows, grid = min(column tiles, 132 SMs x 2048 / block) x splits
// EXPLAIN-NEXT: at emission: inner or outer reduction, threads per row where the schedule has no reduction.threads or the row's length is known only at launch, the split across blocks where it has no reduction.splits, the outer kernel's block where it has no reduction.column_threads or reduction.column_rows
func.func @rows(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m = fuser.max %x dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %mb = fuser.broadcast %m dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %s = fuser.sub %x, %mb : tensor<8x128xf32>
  %e = fuser.exp %s : tensor<8x128xf32>
  %t = fuser.sum %e dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %tb = fuser.broadcast %t dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %y = fuser.div %e, %tb : tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// -----

// A scan takes the scan scheduler's keys (the order of its sums is the
// same under each).
// DEFAULT-LABEL: func.func @scan
// DEFAULT-SAME: fuser.schedules = [#fuser.schedule<scan.block = 256, scan.waves = 1>]
// EXPLAIN: remark: schedule of @scan segment 0: scan scheduler
// EXPLAIN-NEXT: scan.block = 256: threads per block of a scan kernel {{.*}}; the heuristic's default, 256: 8 warps; a scan's order of accumulation depends on the position only, never on the block
// EXPLAIN-NEXT: scan.waves = 1: a scan kernel's grid cap in full waves; blocks then loop over the lines; the heuristic's default, 1: one full wave, each block looping over lines
// EXPLAIN-NEXT: kernel.index_bits = (heuristic): the width of the segment's index math in bits {{.*}}; the index-bits compile option where it forces one, else per kernel{{.*}}
// EXPLAIN-NEXT: launch: block = scan.block threads, a warp per line along the contiguous dim else a thread per line; grid = min(ceil(lines / lines per block), scan.waves x 132 SMs x 2048 / block)
// EXPLAIN-NEXT: at emission: warp or thread per line (the scanned dim contiguous or not), the index width where kernel.index_bits leaves it; the order of accumulation follows the position only
func.func @scan(%x: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %c = fuser.cumsum %x dim = 1 : tensor<8x100xf32>
  return %c : tensor<8x100xf32>
}
