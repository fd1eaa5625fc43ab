// The "blog" anchor configuration (docs/CONTRACT.md section 4): a batch of
// 32 bf16 embeddings of width 2048, 1024 slices, 17 integration points on
// [0, 3], mean reduction, projection generated from the seed operand.
//
//   sigreg-run examples/sigreg-blog.mlir            (GPU when present, else CPU)
//   sigreg-opt examples/sigreg-blog.mlir --sigreg-decompose   (inspect a stage)
func.func @sigreg(%x: tensor<32x2048xbf16>, %seed: i64) -> tensor<f32> {
  %loss = sigreg.loss %x seed(%seed) slices = 1024 points = 17 t_max = 3.0
      : tensor<32x2048xbf16> -> tensor<f32>
  return %loss : tensor<f32>
}
