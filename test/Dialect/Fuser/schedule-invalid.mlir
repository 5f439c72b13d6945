// Every message of #fuser.schedule's parser and verifier, and of the
// fuser.schedule / fuser.schedules attributes: each names the key (or the
// attribute) and says what it accepts.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#fuser.schedule: unknown key 'pointwise.unroll'; known: pointwise.block, pointwise.units, pointwise.waves, pointwise.vector_bytes, transpose.tile, transpose.rows, transpose.waves, reduction.block, reduction.waves, reduction.threads, reduction.splits, reduction.column_threads, reduction.column_rows, reduction.vector_bytes, innerouter.rows, innerouter.min_blocks_per_sm, innerouter.max_blocks_per_sm, innerouter.min_threads, innerouter.max_registers, scan.block, scan.waves or kernel.index_bits}}
func.func @unknown() attributes {fuser.schedule = #fuser.schedule<pointwise.unroll = 2>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: key 'pointwise.block' (threads per block of a pointwise kernel) must be a power of two from 32 to 1024, got 48}}
func.func @not_power_of_two() attributes {fuser.schedule = #fuser.schedule<pointwise.block = 48>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: key 'pointwise.block' (threads per block of a pointwise kernel) must be a power of two from 32 to 1024, got 2048}}
func.func @block_too_big() attributes {fuser.schedule = #fuser.schedule<pointwise.block = 2048>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: key 'innerouter.max_registers' (registers a thread of an inner-outer row kernel may use, at most) must be an integer from 32 to 255, got 300}}
func.func @registers() attributes {fuser.schedule = #fuser.schedule<innerouter.max_registers = 300>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: innerouter.min_blocks_per_sm (4) is above innerouter.max_blocks_per_sm (2): the grid's floor would exceed its cap}}
func.func @floor_above_cap() attributes {fuser.schedule = #fuser.schedule<innerouter.min_blocks_per_sm = 4, innerouter.max_blocks_per_sm = 2>} {
  return
}

// -----

// The cap left out is the default's, and a floor above it is as wrong
// (in a per-segment entry as in a fusion's schedule).
// expected-error @+1 {{#fuser.schedule: innerouter.min_blocks_per_sm (4) is above innerouter.max_blocks_per_sm (2, the default): the grid's floor would exceed its cap}}
func.func @floor_above_default_cap() attributes {fuser.schedules = [#fuser.schedule<innerouter.min_blocks_per_sm = 4>]} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: key 'pointwise.waves' needs an integer, got 'false'}}
func.func @a_bool() attributes {fuser.schedule = #fuser.schedule<pointwise.waves = false>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: key 'pointwise.units' is given twice}}
func.func @twice() attributes {fuser.schedule = #fuser.schedule<pointwise.units = 2, pointwise.units = 4>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: key 'pointwise.units' needs an integer, got 'two'}}
func.func @not_an_integer() attributes {fuser.schedule = #fuser.schedule<pointwise.units = two>} {
  return
}

// -----

// expected-error @+1 {{'fuser.schedule' must be a #fuser.schedule on a fusion, got "pointwise.block=128"}}
func.func @a_string() attributes {fuser.schedule = "pointwise.block=128"} {
  return
}

// -----

// expected-error @+1 {{'fuser.schedules' must be an array of #fuser.schedule on a fusion, one per segment, got [#fuser.schedule<>, 3]}}
func.func @not_all_schedules() attributes {fuser.schedules = [#fuser.schedule<>, 3]} {
  return
}

// -----

func.func @on_an_op(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'fuser.schedule' must be a #fuser.schedule on a fusion, got #fuser.schedule<pointwise.block = 64>}}
  %0 = fuser.exp %a {fuser.schedule = #fuser.schedule<pointwise.block = 64>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{#fuser.schedule: transpose.tile (64) x transpose.rows (32) is a block of more than 1024 threads}}
func.func @transpose_block_too_large() attributes {fuser.schedule = #fuser.schedule<transpose.tile = 64, transpose.rows = 32>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: transpose.rows (32) is above transpose.tile (16): a thread would have no tile row to move}}
func.func @transpose_rows_above_tile() attributes {fuser.schedule = #fuser.schedule<transpose.tile = 16, transpose.rows = 32>} {
  return
}

// -----

// expected-error @+1 {{key 'transpose.tile' (the square tile a block of a transpose kernel stages in shared memory, in elements a side (padded by one column against bank conflicts)) must be a power of two from 16 to 64, got 48}}
func.func @transpose_tile_not_power_of_two() attributes {fuser.schedule = #fuser.schedule<transpose.tile = 48>} {
  return
}

// -----

// expected-error @+1 {{key 'reduction.block' (threads per block of an inner reduction or normalization kernel whose rows take fewer threads: rows per block = this / threads per row (a row never splits differently)) must be a power of two from 64 to 512, got 1024}}
func.func @reduction_block_too_large() attributes {fuser.schedule = #fuser.schedule<reduction.block = 1024>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: reduction.column_threads (128) x reduction.column_rows (16) is a block of more than 1024 threads}}
func.func @column_block_too_large() attributes {fuser.schedule = #fuser.schedule<reduction.column_threads = 128, reduction.column_rows = 16>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: reduction.column_rows (64) above 32 needs reduction.column_threads beside it (the heuristic takes up to 32 threads along the kept dim, and a block holds at most 1024)}}
func.func @column_rows_alone() attributes {fuser.schedule = #fuser.schedule<reduction.column_rows = 64>} {
  return
}

// -----

// expected-error @+1 {{key 'scan.block' (threads per block of a scan kernel (a warp per line along the contiguous dim, else a thread per line)) must be a power of two from 32 to 1024, got 96}}
func.func @scan_block_not_power_of_two() attributes {fuser.schedule = #fuser.schedule<scan.block = 96>} {
  return
}

// -----

// A segment's decision is checked with every segment's under it: the
// tile for all, the rows for segment 1.
// expected-error @+1 {{#fuser.schedule: segment 1: transpose.rows (32) is above transpose.tile (16): a thread would have no tile row to move}}
func.func @segment_disagrees() attributes {fuser.schedule = #fuser.schedule<transpose.tile = 16, transpose.rows[1] = 32>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: key 'pointwise.block[3]' (threads per block of a pointwise kernel) must be a power of two from 32 to 1024, got 100}}
func.func @segment_bad_value() attributes {fuser.schedule = #fuser.schedule<pointwise.block[3] = 100>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: key 'pointwise.block[1]' is given twice}}
func.func @segment_twice() attributes {fuser.schedule = #fuser.schedule<pointwise.block[1] = 64, pointwise.block[1] = 128>} {
  return
}

// -----

// The same key for every segment and for one is not twice.
func.func @segment_and_all() attributes {fuser.schedule = #fuser.schedule<pointwise.block = 64, pointwise.block[1] = 128>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: 'pointwise.block[-1]' must be KEY or KEY[SEGMENT], SEGMENT from 0 to 65535}}
func.func @segment_negative() attributes {fuser.schedule = #fuser.schedule<pointwise.block[-1] = 64>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: 'pointwise.block[65536]' must be KEY or KEY[SEGMENT], SEGMENT from 0 to 65535}}
func.func @segment_too_large() attributes {fuser.schedule = #fuser.schedule<pointwise.block[65536] = 64>} {
  return
}

// -----

// expected-error @+1 {{#fuser.schedule: unknown key 'pointwise.blocks'; known:}}
func.func @segment_unknown_key() attributes {fuser.schedule = #fuser.schedule<pointwise.blocks[0] = 64>} {
  return
}

// -----

// A fuser.schedules entry is its segment's already.
// expected-error @+1 {{'fuser.schedules' entry 1 is segment 1's schedule; a decision for one segment (KEY[SEGMENT]) belongs in 'fuser.schedule', got #fuser.schedule<pointwise.block[0] = 64>}}
func.func @segment_in_schedules() attributes {fuser.schedules = [#fuser.schedule<>, #fuser.schedule<pointwise.block[0] = 64>]} {
  return
}

// -----

// expected-error @+1 {{expected integer value}}
func.func @segment_not_integer() attributes {fuser.schedule = #fuser.schedule<pointwise.block[one] = 64>} {
  return
}

// -----

// Two spellings of one segment's decision, written as strings.
// expected-error @+1 {{#fuser.schedule: key 'pointwise.block[1]' is given twice}}
func.func @segment_spelled_twice() attributes {fuser.schedule = #fuser.schedule<"pointwise.block[01]" = 64, "pointwise.block[1]" = 128>} {
  return
}
