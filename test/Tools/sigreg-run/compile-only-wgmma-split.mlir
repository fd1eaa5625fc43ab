// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=3x1000x200 --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/sigreg.ptx
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=C7520

// An f32 problem on the Hopper kernel through the whole pipeline: x split
// into bf16 hi + lo parts by sigreg_split_operand, g generated as hi and lo
// rows; PTX that ptxas assembles for sm_90a without spills and without
// serialized wgmmas.

// Three steps: the split of x, the projection, the Hopper kernel (its tail
// adds the 8 batch tiles and runs the epilogue).
// OUT: fused pipeline: 3 steps

// The split x ([3000, 2 x 256] bf16) is the workspace the x tensor map
// covers.
// MANIFEST:      "name": "ws0",
// MANIFEST-NEXT: "role": "workspace",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   512,
// MANIFEST-NEXT:   1928
// MANIFEST:      "name": "ws2",
// MANIFEST-NEXT: "role": "workspace",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   3000,
// MANIFEST-NEXT:   512
// MANIFEST:      "kernel": "sigreg_projection_split_rows",
// MANIFEST:      "kernel": "sigreg_split_operand",
// MANIFEST:      "tensor_map": {
// MANIFEST:        "buffer": "ws2",
// MANIFEST-NEXT:   "dims": [
// MANIFEST-NEXT:     512,
// MANIFEST-NEXT:     3000
// MANIFEST:      "kernel": "sigreg_fused_ecf_wgmma",

// The Hopper kernel (bf16 operands), then the split: one 16-byte load, round-to-nearest conversions, two 8-byte
// stores 256 columns (512 bytes) apart.
// PTX:       .visible .entry sigreg_fused_ecf_wgmma(
// PTX:       wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX:       .visible .entry sigreg_split_operand(
// PTX:       ld.global.v4.b32
// PTX:       cvt.rn.bf16
// PTX:       cvt.rn.bf16x2.f32
// PTX:       st.global.v2.b32 [%[[P:rd[0-9]+]]], {{.*}}
// PTX-NEXT:  st.global.v2.b32 [%[[P]]+512], {{.*}}

// Register count recorded: 168 at entry, as for a bf16 input (the split
// changes only the producer's coordinates); the implicit checks cover the
// other kernels (no spills).
// PTXAS: Compiling entry function 'sigreg_fused_ecf_wgmma' for 'sm_90a'
// PTXAS: Used 168 registers
func.func @sigreg(%x: tensor<3x?x200xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1928 points = 5 : tensor<3x?x200xf32> -> tensor<f32>
  return %l : tensor<f32>
}
