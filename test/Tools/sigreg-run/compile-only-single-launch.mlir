// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/sigreg.ptx
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"

// The blog shape as one launch, through the whole pipeline: one step, a
// zero_init counter workspace (no memset step), PTX that ptxas assembles
// without spills.

// OUT: fused pipeline: 1 steps

// MANIFEST:      "dtype": "i32",
// MANIFEST-NEXT: "name": "ws0",
// MANIFEST-NEXT: "role": "workspace",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   257
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "zero_init": true
// MANIFEST-NOT:  "memset
// MANIFEST:      "kernel": "sigreg_single_launch",
// MANIFEST:      "region": "single_launch",
// MANIFEST-NOT:  "op":

// PTX: .shared .align 16 .b8 __wg_sigreg_single_launch_0[32768];
// PTX: ld.global.v4
// PTX: ld.shared.v4.b32
// PTX: shfl.sync.bfly.b32
// PTX: membar.gl;
// PTX: atom.global.add.u32
// PTX-NOT: .extern .func

// PTXAS: Compiling entry function 'sigreg_single_launch' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @sigreg(%x: tensor<?x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<?x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
