// The DDP split's second entry point: x, the seed and the cotangents of the
// local ECF means to dL/dx (used by entry-points.mlir).
func.func @backward(%x: tensor<2x300x136xbf16>, %seed: i64, %dc: tensor<2x72x9xf32>, %ds: tensor<2x72x9xf32>) -> tensor<2x300x136xf32> {
  %a = sigreg.projection seed(%seed) : tensor<136x72xf32>
  %y = sigreg.project %x, %a : tensor<2x300x136xbf16>, tensor<136x72xf32> -> tensor<2x300x72xf32>
  %dy = sigreg.ecf_grad %y, %dc, %ds t_max = 2.5 : tensor<2x300x72xf32>, tensor<2x72x9xf32>
  %dx = sigreg.project_transpose %dy, %a : tensor<2x300x72xf32>, tensor<136x72xf32> -> tensor<2x300x136xf32>
  return %dx : tensor<2x300x136xf32>
}
