// RUN: sigreg-opt %s -split-input-file -verify-diagnostics --sigreg-linalg-to-gpu

// Tensor semantics: the pass runs after bufferization.
func.func @tensors(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.generic' op must be bufferized before --sigreg-linalg-to-gpu}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @dynamic(%a: memref<?xf32>, %b: memref<?xf32>) {
  // expected-error @+1 {{'linalg.generic' op needs static loop bounds on the GPU}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<?xf32>) outs(%b : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
