// Every verifier message of the launch plan ops.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

func.func @no_module(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'fuser.launch' op kernel module @nowhere does not exist}}
  fuser.launch @nowhere::@f grid(%c1, %c1, %c1) block(%c1, %c1, %c1) smem(%c1) args(%x : memref<4xf32>) index_bits []
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%a: !llvm.ptr) kernel {
      gpu.return
    }
  }
  func.func @no_kernel(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'fuser.launch' op kernel @k::@g does not exist}}
    fuser.launch @k::@g grid(%c1, %c1, %c1) block(%c1, %c1, %c1) smem(%c1) args(%x : memref<4xf32>) index_bits []
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%a: !llvm.ptr) kernel {
      gpu.return
    }
  }
  func.func @arity(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'fuser.launch' op passes 2 arguments to kernel @k::@f, which takes 1}}
    fuser.launch @k::@f grid(%c1, %c1, %c1) block(%c1, %c1, %c1) smem(%c1) args(%x, %x : memref<4xf32>, memref<4xf32>) index_bits []
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%a: !llvm.ptr, %n: i64) kernel {
      gpu.return
    }
  }
  func.func @param_type(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'fuser.launch' op argument 1 of type 'index' does not fit kernel parameter 1 of type 'i64' (memrefs pass pointers, indices pass integers of the width index_bits gives)}}
    fuser.launch @k::@f grid(%c1, %c1, %c1) block(%c1, %c1, %c1) smem(%c1) args(%x, %c1 : memref<4xf32>, index) index_bits [32]
    return
  }
}

// -----

func.func @index_bits_count(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'fuser.launch' op index_bits has 0 entries for 1 index arguments}}
  fuser.launch @k::@f grid(%c1, %c1, %c1) block(%c1, %c1, %c1) smem(%c1) args(%c1 : index) index_bits []
  return
}

// -----

func.func @index_bits_width(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'fuser.launch' op index_bits entries must be 32 or 64, got 16}}
  fuser.launch @k::@f grid(%c1, %c1, %c1) block(%c1, %c1, %c1) smem(%c1) args(%c1 : index) index_bits [16]
  return
}

// -----

func.func @check_placeholders(%c: i1) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'fuser.check' op message has 1 '{}' placeholders for 2 values}}
  fuser.check %c, "bad {}" (%c1, %c1 : index, index)
  return
}

// -----

func.func @check_too_many(%c: i1) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'fuser.check' op takes at most 2 values, got 3}}
  fuser.check %c, "{} {} {}" (%c1, %c1, %c1 : index, index, index)
  return
}

// -----

func.func @result_dim_static(%x: memref<4xf32>, %y: memref<4xf32>) attributes {fuser.plan, fuser.num_args = 1 : i64} {
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'fuser.result_dim' op dim 0 of 'memref<4xf32>' is static}}
  fuser.result_dim %y[0] = %c4 : memref<4xf32>
  return
}

// -----

func.func @result_dim_range(%x: memref<?xf32>, %y: memref<?xf32>) attributes {fuser.plan, fuser.num_args = 1 : i64} {
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'fuser.result_dim' op dim 1 is out of range for rank 1}}
  fuser.result_dim %y[1] = %c4 : memref<?xf32>
  return
}

// -----

func.func @result_dim_argument(%x: memref<?xf32>, %y: memref<?xf32>) attributes {fuser.plan, fuser.num_args = 1 : i64} {
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'fuser.result_dim' op must name a result buffer of the enclosing plan}}
  fuser.result_dim %x[0] = %c4 : memref<?xf32>
  return
}

// -----

func.func @view_element_type(%x: memref<4xf32>) {
  // expected-error @+1 {{'fuser.buffer_view' op views 'f32' elements as 'i32'; element types must match}}
  %v = fuser.buffer_view %x : memref<4xf32> to memref<4xi32>
  return
}

// -----

func.func @view_count(%x: memref<4xf32>) {
  // expected-error @+1 {{'fuser.buffer_view' op views 4 elements as 8}}
  %v = fuser.buffer_view %x : memref<4xf32> to memref<2x4xf32>
  return
}

// -----

func.func @index_check_word(%w: memref<4xi64>) {
  // expected-error @+1 {{'fuser.index_check' op word must be a memref<8xi64>, got 'memref<4xi64>'}}
  fuser.index_check %w, "fuser.gather dim 0" : memref<4xi64>
  return
}

// -----

func.func @index_check_sites(%w: memref<8xi64>) {
  // expected-error @+1 {{'fuser.index_check' op sites must name at least one indexing op}}
  fuser.index_check %w, "" : memref<8xi64>
  return
}
