// fuser-schedule: a decision for one segment alone (KEY[SEGMENT]), in the
// fusion's fuser.schedule or the schedule option, wins for that segment
// over the same key for every segment; the fusion's decisions win over the
// option's. A segment the fusion lacks, or one whose scheduler does not
// read the key, is an error naming both.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-schedule | FileCheck %s --check-prefix=DEFAULT
// RUN: fuser-opt %s -split-input-file --fuser-segment '--fuser-schedule=schedule="reduction.waves[0]=4,reduction.block=64,reduction.block[1]=256"' | FileCheck %s --check-prefix=OPTION
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-schedule=explain 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN
// RUN: not fuser-opt %s -split-input-file --fuser-segment '--fuser-schedule=schedule="reduction.block[2]=64"' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not fuser-opt %s -split-input-file --fuser-segment '--fuser-schedule=schedule="pointwise.block[0]=64"' 2>&1 | FileCheck %s --check-prefix=NOT-READ
// RUN: not fuser-opt %s -split-input-file --fuser-segment '--fuser-schedule=schedule="reduction.block[x]=64"' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// MISSING: error: the schedule option sets reduction.block[2], but @two_sums has 2 segments (--fuser-segment=dump lists them)
// NOT-READ: error: the schedule option sets pointwise.block[0], but segment 0 of @two_sums is a reduction segment and pointwise.block is a decision of the pointwise scheduler
// SYNTAX: error: schedule option: 'reduction.block[x]' must be KEY or KEY[SEGMENT], SEGMENT from 0 to 65535

// Two reduction segments (rows of different shapes): segment 0 sums %y's
// rows, segment 1 sums exp(%x)'s rows and scales %x by segment 0's sums.
// DEFAULT-LABEL: func.func @two_sums
// DEFAULT-SAME: fuser.schedulers = ["reduction", "reduction"]
// DEFAULT-SAME: fuser.schedules = [#fuser.schedule<reduction.block = 128, reduction.waves = 1, reduction.vector_bytes = 16>, #fuser.schedule<reduction.block = 512, reduction.waves = 2, reduction.vector_bytes = 16>]
// The option's reduction.block (every segment) and reduction.block[1] lose
// to the fusion's; its reduction.waves[0] is segment 0's alone.
// OPTION-LABEL: func.func @two_sums
// OPTION-SAME: fuser.schedules = [#fuser.schedule<reduction.block = 128, reduction.waves = 4, reduction.vector_bytes = 16>, #fuser.schedule<reduction.block = 512, reduction.waves = 2, reduction.vector_bytes = 16>]
// EXPLAIN: remark: schedule of @two_sums segment 0: reduction scheduler, 1 ops
// EXPLAIN-NEXT: reduction.block = 128: {{.*}}; from the fusion's fuser.schedule (the input's, or a tuning file's entry)
// EXPLAIN-NEXT: reduction.waves = 1: {{.*}}; the heuristic's default
// EXPLAIN: remark: schedule of @two_sums segment 1: reduction scheduler, 4 ops
// EXPLAIN-NEXT: reduction.block = 512: {{.*}}; from the fusion's fuser.schedule's entry for this segment (the input's, or a tuning file's)
// EXPLAIN-NEXT: reduction.waves = 2: {{.*}}; from the fusion's fuser.schedule's entry for this segment
func.func @two_sums(%x: tensor<?x512xf32>, %y: tensor<512x?xf32>) -> (tensor<?xf32>, tensor<512xf32>, tensor<?x512xf32>)
    attributes {fuser.schedule = #fuser.schedule<reduction.block = 128, reduction.block[1] = 512, reduction.waves[1] = 2>} {
  %e = fuser.exp %x : tensor<?x512xf32>
  %s = fuser.sum %e dims = [1] : tensor<?x512xf32> -> tensor<?xf32>
  %t = fuser.sum %y dims = [1] : tensor<512x?xf32> -> tensor<512xf32>
  %tb = fuser.broadcast %t dims = [1] : tensor<512xf32> -> tensor<?x512xf32>
  %z = fuser.mul %x, %tb : tensor<?x512xf32>
  return %s, %t, %z : tensor<?xf32>, tensor<512xf32>, tensor<?x512xf32>
}

// -----

// Only the option: its segment entry over its every-segment one.
// OPTION-LABEL: func.func @by_option
// OPTION-SAME: fuser.schedules = [#fuser.schedule<reduction.block = 64, reduction.waves = 4, reduction.vector_bytes = 16>, #fuser.schedule<reduction.block = 256, reduction.waves = 1, reduction.vector_bytes = 16>]
func.func @by_option(%x: tensor<?x512xf32>, %y: tensor<512x?xf32>) -> (tensor<?xf32>, tensor<512xf32>, tensor<?x512xf32>) {
  %e = fuser.exp %x : tensor<?x512xf32>
  %s = fuser.sum %e dims = [1] : tensor<?x512xf32> -> tensor<?xf32>
  %t = fuser.sum %y dims = [1] : tensor<512x?xf32> -> tensor<512xf32>
  %tb = fuser.broadcast %t dims = [1] : tensor<512xf32> -> tensor<?x512xf32>
  %z = fuser.mul %x, %tb : tensor<?x512xf32>
  return %s, %t, %z : tensor<?xf32>, tensor<512xf32>, tensor<?x512xf32>
}
