// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=8192x4096 --defer-cotangent --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"

// The phased training step at large: the backward GEMM in 4 row parts
// (docs/BACKWARD.md), so that the workspace of the 16-bit phases (then G)
// may live 16 MiB into dL/dx's 64 MiB (the manifest's "shares",
// docs/AOT.md): one 80 MiB allocation for both where they took 128.

// OUT: fused pipeline: 8 steps

// MANIFEST:      "name": "dx",
// MANIFEST-NEXT: "role": "output",
// MANIFEST:      "bytes": 67108864,
// MANIFEST-NEXT: "dtype": "i8",
// MANIFEST-NEXT: "name": "[[WS:ws[0-9]+]]",
// MANIFEST-NEXT: "role": "workspace",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   67108864
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "shares": {
// MANIFEST-NEXT:   "buffer": "dx",
// MANIFEST-NEXT:   "offset": 16777216
// MANIFEST-NEXT: }
// MANIFEST:      "kernel": "sigreg_ecf_grad_slices",
// MANIFEST:      "kernel": "sigreg_project_transpose_wgmma_rows",
// MANIFEST:      "phase": "backward",
// MANIFEST:      "i32": 16
// MANIFEST:      "kernel": "sigreg_project_transpose_wgmma_rows",
// MANIFEST:      "programmatic": true
// MANIFEST:      "i32": 32
// MANIFEST:      "kernel": "sigreg_project_transpose_wgmma_rows",
// MANIFEST:      "i32": 48
// MANIFEST:      "kernel": "sigreg_project_transpose_wgmma_rows",
// MANIFEST-NOT:  "kernel"

// PTXAS: Compiling entry function 'sigreg_project_transpose_wgmma_rows' for 'sm_90a'

func.func @sigreg(%x: tensor<?x4096xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<?x4096xbf16>) {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 : tensor<?x4096xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 4096 points = 17 : tensor<?x4096xbf16> -> tensor<?x4096xf32>
  %h = arith.truncf %dx : tensor<?x4096xf32> to tensor<?x4096xbf16>
  return %l, %h : tensor<f32>, tensor<?x4096xbf16>
}
