// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=3x1000x200 --save-slices=false --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/sigreg.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=C7520
// RUN: rm -rf %t.s && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=3x1000x200 --emit-artifact=%t.s | FileCheck %s --check-prefix=SOUT
// RUN: FileCheck %s --check-prefix=SPTX < %t.s/fused/sigreg.ptx
// RUN: FileCheck %s --check-prefix=SMANIFEST < %t.s/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t.s/fused/sigreg.ptx -o %t.s/f.cubin 2>&1 | FileCheck %s --check-prefix=SPTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=C7520

// The gradient (sigreg.loss_grad) through the fused pipeline: the forward
// (projection, Hopper ECF kernel adding its 8 batch tiles itself), the ECF
// cotangent kernel, then the fused backward, PTX that ptxas assembles for sm_90a without spills and
// without serialized wgmmas (C7520: a divergent branch after the wgmmas made
// ptxas serialize them). With --save-slices=false the backward recomputes y
// in two Hopper kernels; by default (--sigreg-save-slices) the forward kernel
// stores y and the backward forms dL/dy from it (sigreg_ecf_grad_slices),
// then the one backward GEMM.

// OUT: fused pipeline: 5 steps
// With saved slices the cotangent is folded into the gradient kernel: one
// step fewer.
// SOUT: fused pipeline: 4 steps

// PTX:       .visible .entry sigreg_ecf_grad_wgmma(
// PTX-NEXT:    .param .align 64 .b8 sigreg_ecf_grad_wgmma_param_0[128],
// PTX-NEXT:    .param .align 64 .b8 sigreg_ecf_grad_wgmma_param_1[128],
// PTX:       wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX:       sin.approx.f32
// PTX:       cvt.rn.bf16.f32
// PTX:       .visible .entry sigreg_project_transpose_wgmma(
// PTX-NEXT:    .param .align 64 .b8 sigreg_project_transpose_wgmma_param_0[128],
// PTX-NEXT:    .param .align 64 .b8 sigreg_project_transpose_wgmma_param_1[128],
// The K-major B operand: no transpose of B (the last immediate); 64-feature
// tiles (the forward's rule on 3000 rows by 200 features: 4 x 24 tiles).
// PTX:       wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;

// The steps in order, with the backward's tensor maps: G [3000, 1928] in
// boxes of 64 x 128, and g [200, 1928] in boxes of 64 slices x 64 features.
// MANIFEST:      "kernel": "sigreg_projection_rows",
// MANIFEST:      "kernel": "sigreg_fused_ecf_wgmma",
// MANIFEST:      "kernel": "sigreg_ecf_cotangent",
// MANIFEST:      "kernel": "sigreg_ecf_grad_wgmma",
// MANIFEST:      "region": "backward_trig",
// MANIFEST:      "tensor_map": {
// MANIFEST-NEXT:   "box": [
// MANIFEST-NEXT:     64,
// MANIFEST-NEXT:     128
// MANIFEST-NEXT:   ],
// MANIFEST-NEXT:   "buffer": "[[DY:ws[0-9]+]]",
// MANIFEST-NEXT:   "dims": [
// MANIFEST-NEXT:     1928,
// MANIFEST-NEXT:     3000
// MANIFEST-NEXT:   ],
// MANIFEST:      "tensor_map": {
// MANIFEST-NEXT:   "box": [
// MANIFEST-NEXT:     64,
// MANIFEST-NEXT:     64
// MANIFEST-NEXT:   ],
// MANIFEST-NEXT:   "buffer": "{{ws[0-9]+}}",
// MANIFEST-NEXT:   "dims": [
// MANIFEST-NEXT:     1928,
// MANIFEST-NEXT:     200
// MANIFEST-NEXT:   ],
// MANIFEST:      "buffer": "out"
// MANIFEST:      "kernel": "sigreg_project_transpose_wgmma",
// MANIFEST:      "region": "backward_gemm",
// MANIFEST:      "shared_bytes": 196608

// Register counts recorded: 168 per thread at entry for the 384-thread
// kernels (setmaxnreg raises the consumers'), 160 for the 288-thread backward
// GEMM (64-feature tiles in one wave: an 8-stage ring of 192 KB, one CTA per
// multiprocessor, so no minctasm 2 budget; its mainloop is unrolled).
// PTXAS: Compiling entry function 'sigreg_project_transpose_wgmma' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used 160 registers
// PTXAS: Compiling entry function 'sigreg_ecf_grad_wgmma' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used 168 registers
// PTXAS: Compiling entry function 'sigreg_ecf_cotangent' for 'sm_90a'
// Saved slices: the forward kernel takes y [3000, 1928] f32 after its
// partial sums (the workspace the gradient kernel reads; then the means and
// the counters of its tail), the gradient kernel has no GEMM (no wgmma, no
// tensor maps).
// SPTX:       .visible .entry sigreg_fused_ecf_wgmma(
// SPTX:         .param .u64 .ptr .align 1 sigreg_fused_ecf_wgmma_param_5,
// SPTX:         .param .u64 .ptr .align 1 sigreg_fused_ecf_wgmma_param_8{{$}}
// SPTX-NEXT:  )
// SPTX:       wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// SPTX:       st.global.b32
// SPTX:       .visible .entry sigreg_ecf_grad_slices(
// SPTX-NOT:   wgmma
// SPTX:       ld.global.b32
// SPTX-NOT:   wgmma
// SPTX:       sin.approx.f32
// SPTX-NOT:   wgmma
// SPTX:       st.global.b16
// SPTX:       .visible .entry sigreg_project_transpose_wgmma(
// SMANIFEST:      "kernel": "sigreg_fused_ecf_wgmma",
// SMANIFEST-NOT:  sigreg_ecf_cotangent
// SMANIFEST:      "kernel": "sigreg_ecf_grad_slices",
// SMANIFEST:      "region": "backward_trig",
// SMANIFEST:      "kernel": "sigreg_project_transpose_wgmma",
// SMANIFEST-NOT:  sigreg_ecf_grad_wgmma
// SPTXAS: Compiling entry function 'sigreg_ecf_grad_slices' for 'sm_90a'
// SPTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @sigreg(%x: tensor<3x?x200xbf16>, %seed: i64, %g: tensor<f32>) -> tensor<3x?x200xf32> {
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1928 points = 5 : tensor<3x?x200xbf16> -> tensor<3x?x200xf32>
  return %dx : tensor<3x?x200xf32>
}
