// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"

// A training step (the loss and its gradient) at N 300, D 72, S 48 in bf16:
// the forward's 16-bit g needs hi + lo parts (its rounding error is above the
// budget at so few slices for so many rows per feature), so the projection
// kernel writes them as [2 Dp, S] = [256, 48] (Dp = 72 rounded up to 128),
// and the backward's Hopper kernels read its first D = 72 rows, g rounded
// (a memref.reinterpret_cast of the buffer's prefix, which the manifest
// expresses as the same buffer under a [72, 48] tensor map). It did not
// compile before 2026-12-05 ("its seeded projection is also read by a forward
// kernel that needs g in another layout").

// OUT: fused pipeline: 4 steps
// MANIFEST:      "kernel": "sigreg_projection_split_rows",
// MANIFEST:      "buffer": "x",
// MANIFEST:      "tensor_map": {
// MANIFEST:        "buffer": "[[G:ws[0-9]+]]",
// MANIFEST-NEXT:   "dims": [
// MANIFEST-NEXT:     48,
// MANIFEST-NEXT:     256
// MANIFEST-NEXT:   ],
// MANIFEST:      "kernel": "sigreg_fused_ecf_wgmma",
// MANIFEST:      "kernel": "sigreg_ecf_grad_slices",
// MANIFEST:      "tensor_map": {
// MANIFEST:      "tensor_map": {
// MANIFEST:        "buffer": "[[G]]",
// MANIFEST-NEXT:   "dims": [
// MANIFEST-NEXT:     48,
// MANIFEST-NEXT:     72
// MANIFEST-NEXT:   ],
// MANIFEST:      "kernel": "sigreg_project_transpose_wgmma",
// PTXAS: Compiling entry function 'sigreg_project_transpose_wgmma'
func.func @sigreg(%x: tensor<300x72xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<300x72xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 48 points = 17 reduction = mean : tensor<300x72xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 48 points = 17 reduction = mean : tensor<300x72xbf16> -> tensor<300x72xf32>
  return %l, %dx : tensor<f32>, tensor<300x72xf32>
}
