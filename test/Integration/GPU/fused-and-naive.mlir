// REQUIRES: cuda-gpu
// Runs only where a CUDA GPU and this MLIR build are on the same machine. The
// lent GPU machine has no MLIR: there, scripts/gpu-check.sh runs the same
// checks on AOT artifacts compiled here (scripts/build-gpu-artifacts.sh).
// RUN: sigreg-run %s --target=cuda --pipeline=both | FileCheck %s
// RUN: sigreg-run %s --target=cuda --pipeline=fused --dtype=f32 | FileCheck %s
// RUN: sigreg-run %s --target=cuda --pipeline=fused --tensor-cores=false | FileCheck %s

// CHECK: sigreg-run: target=cuda entry=@ragged x=3x37x129x{{bf16|f32}} S=77 P=9
// CHECK: == fused pipeline ==
// CHECK: PASS
func.func @ragged(%x: tensor<3x37x129xbf16>, %seed: i64) -> tensor<3x77xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = clamp_min(1.0) reduction = none
      : tensor<3x37x129xbf16> -> tensor<3x77xf32>
  return %l : tensor<3x77xf32>
}
