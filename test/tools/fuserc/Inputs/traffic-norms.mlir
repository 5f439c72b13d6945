// Normalizations whose rows stay on chip: the traffic test reads how many
// times the kernels load each input.
func.func @softmax_static(%x: tensor<4x32768xf32>) -> tensor<4x32768xf32> {
  %0 = fuser.softmax %x dim = 1 : tensor<4x32768xf32>
  return %0 : tensor<4x32768xf32>
}
func.func @layer_norm_static(%x: tensor<4x32768xbf16>, %w: tensor<32768xbf16>, %b: tensor<32768xbf16>)
    -> (tensor<4x32768xbf16>, tensor<4x1xf32>, tensor<4x1xf32>) {
  %y:3 = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<4x32768xbf16>, tensor<32768xbf16>, tensor<32768xbf16>)
      -> (tensor<4x32768xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %y#0, %y#1, %y#2 : tensor<4x32768xbf16>, tensor<4x1xf32>, tensor<4x1xf32>
}
func.func @rms_norm_static(%x: tensor<4x8192xbf16>, %w: tensor<8192xbf16>) -> tensor<4x8192xbf16> {
  %0 = fuser.rms_norm %x weight %w dims = [1] eps = 1.0e-06
      : (tensor<4x8192xbf16>, tensor<8192xbf16>) -> tensor<4x8192xbf16>
  return %0 : tensor<4x8192xbf16>
}
func.func @log_softmax_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fuser.log_softmax %x dim = 1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
// Two-byte rows past the registers: the rest of the row in shared memory.
func.func @softmax_bf16_long(%x: tensor<3x65536xbf16>) -> tensor<3x65536xbf16> {
  %0 = fuser.softmax %x dim = 1 : tensor<3x65536xbf16>
  return %0 : tensor<3x65536xbf16>
}
func.func @softmax_bf16_too_long(%x: tensor<3x65537xbf16>) -> tensor<3x65537xbf16> {
  %0 = fuser.softmax %x dim = 1 : tensor<3x65537xbf16>
  return %0 : tensor<3x65537xbf16>
}
func.func @layer_norm_bf16_long(%x: tensor<3x65536xbf16>, %w: tensor<65536xbf16>, %b: tensor<65536xbf16>)
    -> (tensor<3x65536xbf16>, tensor<3x1xf32>, tensor<3x1xf32>) {
  %y:3 = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<3x65536xbf16>, tensor<65536xbf16>, tensor<65536xbf16>)
      -> (tensor<3x65536xbf16>, tensor<3x1xf32>, tensor<3x1xf32>)
  return %y#0, %y#1, %y#2 : tensor<3x65536xbf16>, tensor<3x1xf32>, tensor<3x1xf32>
}
func.func @layer_norm_bf16_dynamic(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %b: tensor<?xbf16>)
    -> (tensor<?x?xbf16>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %y:3 = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<?x?xbf16>, tensor<?xbf16>, tensor<?xbf16>)
      -> (tensor<?x?xbf16>, tensor<?x1xf32>, tensor<?x1xf32>)
  return %y#0, %y#1, %y#2 : tensor<?x?xbf16>, tensor<?x1xf32>, tensor<?x1xf32>
}
func.func @softmax_bf16_dynamic(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = fuser.softmax %x dim = 1 : tensor<?x?xbf16>
  return %0 : tensor<?x?xbf16>
}
