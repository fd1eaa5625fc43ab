func.func @sigreg(%x: tensor<3x37x129xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = clamp_min(1.0) reduction = mean : tensor<3x37x129xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
