// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: sigreg-run %s --target=cpu --shape=20x2048 | FileCheck %s --check-prefix=CPU

// The seed from a step counter in device memory (sigreg.advance_step): the
// manifest takes it as an i64 input buffer 'step' (no seed scalar), and at
// the blog shape the forward is still one launch, the single launch
// advancing the counter in its last block. On the CPU the JIT reads the
// counter, and the run fails unless the call left it advanced by one.

// OUT: projection=step
// OUT: fused pipeline: 1 steps

// MANIFEST:      "name": "x",
// MANIFEST:      "bytes": 8,
// MANIFEST-NEXT: "dtype": "i64",
// MANIFEST-NEXT: "name": "step",
// MANIFEST-NEXT: "role": "input",
// MANIFEST:      "projection": "step",
// MANIFEST:      "scalars": [],
// MANIFEST:      "kernel": "sigreg_single_launch",
// MANIFEST-NOT:  "kernel":

// PTXAS: Compiling entry function 'sigreg_single_launch'

// CPU: PASS
func.func @sigreg(%x: tensor<?x2048xbf16>, %step: memref<i64>) -> tensor<f32> {
  %seed = sigreg.advance_step %step : memref<i64>
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<?x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
