// scaled_cast with a scale whose rows are known at launch against a static input, and the other way round (scaled-cast-dynamic-scale.test).
// x's rows known at compile time, the per-row scale's only at launch
func.func @a(%x: tensor<12x40xf32>, %s: tensor<?x1xf32>) -> (tensor<12x40xf8E4M3FN>, tensor<?x1xf32>) {
  %0, %1 = fuser.scaled_cast %x, %s : (tensor<12x40xf32>, tensor<?x1xf32>) -> (tensor<12x40xf8E4M3FN>, tensor<?x1xf32>)
  return %0, %1 : tensor<12x40xf8E4M3FN>, tensor<?x1xf32>
}
// the other way round: x's rows dynamic, the scale's static
func.func @b(%x: tensor<?x40xf32>, %s: tensor<12x1xf32>) -> (tensor<?x40xf8E4M3FN>, tensor<12x1xf32>) {
  %0, %1 = fuser.scaled_cast %x, %s : (tensor<?x40xf32>, tensor<12x1xf32>) -> (tensor<?x40xf8E4M3FN>, tensor<12x1xf32>)
  return %0, %1 : tensor<?x40xf8E4M3FN>, tensor<12x1xf32>
}
