// The first entry point without sigreg.reduced on its results: the caller
// may keep per-slice statistics, so the forward keeps f32 accuracy (used by
// entry-points.mlir).
func.func @forward(%x: tensor<2x300x136xbf16>, %seed: i64) -> (tensor<2x72x9xf32>, tensor<2x72x9xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<136x72xf32>
  %y = sigreg.project %x, %a : tensor<2x300x136xbf16>, tensor<136x72xf32> -> tensor<2x300x72xf32>
  %c, %s = sigreg.ecf %y t_max = 2.5 : tensor<2x300x72xf32> -> tensor<2x72x9xf32>
  return %c, %s : tensor<2x72x9xf32>, tensor<2x72x9xf32>
}
