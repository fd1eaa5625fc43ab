func.func @sigreg(%x: tensor<37x129xf16>, %a: tensor<129x77xf16>) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<129x77xf16>) slices = 77 points = 33 reduction = sum : tensor<37x129xf16> -> tensor<f32>
  return %l : tensor<f32>
}
