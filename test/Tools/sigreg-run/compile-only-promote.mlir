// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --promote-accumulators=4 --emit-artifact=%t > /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/sigreg.ptx
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: rm -rf %t.m && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --chip=sm_90 --promote-accumulators=1 --emit-artifact=%t.m > /dev/null
// RUN: FileCheck %s --check-prefix=MMA < %t.m/fused/manifest.json
// RUN: rm -rf %t.w && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --promote-accumulators=4 --wgmma-slices=128 --emit-artifact=%t.w > /dev/null
// RUN: FileCheck %s --check-prefix=WIDE < %t.w/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t.w/fused/sigreg.ptx -o %t.w/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXASWIDE --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: %ptxas -arch=sm_90 -v %t.m/fused/sigreg.ptx -o %t.m/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXASMMA --implicit-check-not="{{[1-9][0-9]*}} bytes spill"

// Per-slice statistics (N = 1024, D = 1024, S = 1024, bf16; g split into hi
// + lo, so 32 k-tiles of 64 features) with promoted sums, through the whole
// pipeline: on sm_90a the Hopper kernel's 128 x 64 tile, its mainloop rolled
// (unrolled, the 32 promoted sums beside the constant descriptors spilled 2.3
// KB), a wgmma.wait_group 0 at every fourth k-tile, and the casts between the
// accumulator and its struct view gone; on sm_90 the mma.sync kernel, every
// 32-deep k-tile's MMAs added into f32 registers. No spills in either.
// MANIFEST: "kernel": "sigreg_fused_ecf_wgmma",
// PTX-NOT:  unrealized_conversion_cast
// PTX:      .entry sigreg_fused_ecf_wgmma(
// PTX:      wgmma.mma_async
// PTX:      wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// PTXAS:    Compiling entry function 'sigreg_fused_ecf_wgmma' for 'sm_90a'
// PTXAS:    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// MMA:      "kernel": "sigreg_fused_ecf_mma",
// PTXASMMA: Compiling entry function 'sigreg_fused_ecf_mma' for 'sm_90'
// PTXASMMA: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// On request (wgmma-slices=128) the 128 x 128 tile: 64 accumulators and 64
// sums per consumer thread, so one CTA per multiprocessor (no minctasm) and
// a 6-stage ring of 32 KB; 151 registers, no spills (under two CTAs per
// multiprocessor it spilled 388 bytes).
// WIDE:      "kernel": "sigreg_fused_ecf_wgmma",
// WIDE-NEXT: "op": "launch",
// WIDE-NEXT: "programmatic": {{.*}},
// WIDE-NEXT: "region": "trig_reduction",
// WIDE-NEXT: "shared_bytes": 196608
// PTXASWIDE: Compiling entry function 'sigreg_fused_ecf_wgmma' for 'sm_90a'
// PTXASWIDE: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @sigreg(%x: tensor<1024x1024xbf16>, %seed: i64) -> tensor<1024xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = none : tensor<1024x1024xbf16> -> tensor<1024xf32>
  return %l : tensor<1024xf32>
}
