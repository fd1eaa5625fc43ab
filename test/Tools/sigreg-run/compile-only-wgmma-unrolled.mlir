// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --wgmma-cooperative=0 --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/sigreg.ptx
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=C7520

// Mid bf16 through the whole pipeline: the Hopper kernel on 64-slice tiles,
// one CTA per multiprocessor with an 8-stage ring, its 16 k-tiles unrolled
// (emitUnrolledWgmmaMainloop): 16 x 4 m64n64k16 wgmmas in straight-line
// code, no minimum of CTAs per multiprocessor, no spills. With
// --wgmma-cooperative=0: the projection kernel generates g (by rule the
// kernel's grid does, compile-only-wgmma-cooperative.mlir).

// OUT: fused pipeline: 2 steps

// PTX-LABEL: .entry sigreg_fused_ecf_wgmma(
// PTX:       .maxntid 288, 1, 1
// PTX-NOT:   .minnctapersm
// PTX-COUNT-64: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX-NOT:   wgmma.mma_async

// Register count recorded: 164 per thread (one 288-thread CTA per
// multiprocessor allows 224; the rolled loop under the minctasm 2 budget
// took 88, without the column scale's 64 loads before the mainloop).
// PTXAS: Compiling entry function 'sigreg_fused_ecf_wgmma' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used 164 registers
func.func @sigreg(%x: tensor<1024x1024xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = mean : tensor<1024x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
