// The fusion's fuser.schedule names a segment it lacks, or one whose
// scheduler does not read the key: an error, never a decision dropped.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics --fuser-segment --fuser-schedule

// expected-error @+1 {{its fuser.schedule sets reduction.block[1], but @one has 1 segment (--fuser-segment=dump lists them)}}
func.func @one(%x: tensor<8x512xf32>) -> tensor<8xf32>
    attributes {fuser.schedule = #fuser.schedule<reduction.block[1] = 128>} {
  %s = fuser.sum %x dims = [1] : tensor<8x512xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// expected-error @+1 {{its fuser.schedule sets scan.block[0], but segment 0 of @not_read is a reduction segment and scan.block is a decision of the scan scheduler}}
func.func @not_read(%x: tensor<8x512xf32>) -> tensor<8xf32>
    attributes {fuser.schedule = #fuser.schedule<scan.block[0] = 128>} {
  %s = fuser.sum %x dims = [1] : tensor<8x512xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
