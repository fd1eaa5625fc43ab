// RUN: sigreg-opt %s -split-input-file -verify-diagnostics

func.func @all_reduce_world_negative(%c: tensor<1x8x5xf32>, %n: index) -> tensor<1x8x5xf32> {
  // expected-error @+1 {{'sigreg.all_reduce_mean' op world_size must be >= 1, got -4}}
  %r:3 = sigreg.all_reduce_mean %c, %c, %n world_size = -4 : tensor<1x8x5xf32>
  return %r#0 : tensor<1x8x5xf32>
}
