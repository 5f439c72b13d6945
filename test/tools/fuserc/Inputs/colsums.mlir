// Row and column reductions of one tensor (an inner-outer kernel) on
// inexact values, a layer_norm backward's shape: dx from a row sum, dw and
// db column sums: the column sums add each chunk of rows in
// row order whatever block adds it, so they keep their bits under every
// grid, rows of threads a block and kernel variant.
func.func @colsums(%x: tensor<?x512xf32>, %dy: tensor<?x512xf32>)
    -> (tensor<?x512xf32>, tensor<512xf32>, tensor<512xf32>) {
  %p = fuser.mul %x, %dy : tensor<?x512xf32>
  %s = fuser.sum %p dims = [1] keepdim = true : tensor<?x512xf32> -> tensor<?x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<?x1xf32> -> tensor<?x512xf32>
  %dx = fuser.sub %dy, %sb : tensor<?x512xf32>
  %dw = fuser.sum %p dims = [0] : tensor<?x512xf32> -> tensor<512xf32>
  %db = fuser.sum %dy dims = [0] : tensor<?x512xf32> -> tensor<512xf32>
  return %dx, %dw, %db : tensor<?x512xf32>, tensor<512xf32>, tensor<512xf32>
}

// Rows whose length is known only at launch: rows of threads a block chosen
// by the plan (staged or not at launch), accumulators in shared memory
// past 8192, rows read again past 16384.
func.func @colsums_dynamic(%x: tensor<?x?xf32>, %dy: tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %p = fuser.mul %x, %dy : tensor<?x?xf32>
  %s = fuser.sum %p dims = [1] keepdim = true : tensor<?x?xf32> -> tensor<?x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %dx = fuser.sub %dy, %sb : tensor<?x?xf32>
  %dw = fuser.sum %p dims = [0] : tensor<?x?xf32> -> tensor<?xf32>
  %db = fuser.sum %dy dims = [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %dx, %dw, %db : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>
}
