// The fusion's fuser.schedule names a segment it lacks, or one whose
// scheduler does not read the key: an error, never a decision dropped.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics --fuser-segment --fuser-schedule

// expected-error @+1 {{its fuser.schedule (the input's, or a tuning file's entry) sets reduction.block[1], but @one has 1 segment (--fuser-segment=dump lists them)}}
func.func @one(%x: tensor<8x512xf32>) -> tensor<8xf32>
    attributes {fuser.schedule = #fuser.schedule<reduction.block[1] = 128>} {
  %s = fuser.sum %x dims = [1] : tensor<8x512xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// expected-error @+1 {{its fuser.schedule (the input's, or a tuning file's entry) sets scan.block[0], but segment 0 of @not_read is a reduction segment and scan.block is a decision of the scan scheduler}}
func.func @not_read(%x: tensor<8x512xf32>) -> tensor<8xf32>
    attributes {fuser.schedule = #fuser.schedule<scan.block[0] = 128>} {
  %s = fuser.sum %x dims = [1] : tensor<8x512xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// kernel.* keys are read by every segment fuser emits kernels for, not by a
// library call: segment 1 is the matmul.
// expected-error @+1 {{its fuser.schedule (the input's, or a tuning file's entry) sets kernel.index_bits[1], but segment 1 of @library is a matmul segment and kernel.index_bits is a decision of every scheduler that emits kernels (a matmul or collective segment is a library call)}}
func.func @library(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32>
    attributes {fuser.schedule = #fuser.schedule<kernel.index_bits[0] = 64, kernel.index_bits[1] = 64>} {
  %0 = fuser.exp %a : tensor<8x16xf32>
  %1 = fuser.matmul %0, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %2 = fuser.tanh %1 : tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}
