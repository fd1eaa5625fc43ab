// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --defer-cotangent --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: sigreg-run %s --target=cpu --shape=20x2048 --dtype=f16 | FileCheck %s --check-prefix=CPU
// RUN: not sigreg-run %s --target=cpu --shape=20x2048 --dtype=f32 2>&1 | FileCheck %s --check-prefix=F32

// A training step in two phases: dL/dx rounded to x's type (an arith.truncf
// of the gradient) and, with --defer-cotangent, the loss's cotangent read
// only by the backward GEMM. The manifest says so: "dx_dtype", a bf16 "dx",
// and the GEMM's launch in the backward phase, not programmatic.

// OUT: output=loss,dL/dx
// OUT: fused pipeline: 2 steps

// MANIFEST:      "name": "x",
// MANIFEST:      "bytes": 131072,
// MANIFEST-NEXT: "dtype": "bf16",
// MANIFEST-NEXT: "name": "dx",
// MANIFEST:      "dx_dtype": "bf16",
// MANIFEST:      "kernel": "sigreg_single_launch",
// MANIFEST-NOT:  "phase"
// MANIFEST:      "kernel": "sigreg_project_transpose_wgmma",
// MANIFEST-NOT:  "programmatic"
// MANIFEST:      "phase": "backward",

// PTXAS: Compiling entry function 'sigreg_project_transpose_wgmma'

// On the CPU (the naive path, the truncation as a linalg.generic), validated
// against float64 with the runners' step cotangent (0.75).
// CPU: PASS: relative error
// CPU: PASS: gradient relative L2 error {{.*}} (f16 inputs)

// F32: error: --dtype=f32, but this step rounds dL/dx to x's 16-bit type (arith.truncf)

func.func @sigreg(%x: tensor<?x2048xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<?x2048xbf16>) {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<?x2048xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024 points = 17 : tensor<?x2048xbf16> -> tensor<?x2048xf32>
  %r = arith.truncf %dx : tensor<?x2048xf32> to tensor<?x2048xbf16>
  return %l, %r : tensor<f32>, tensor<?x2048xbf16>
}
