// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=3x1000x200 --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/sigreg.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: FileCheck %s --check-prefix=FAST < %t/fused/sigreg.ptx
// RUN: rm -rf %t.e && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=3x1000x200 --fast-normals=false --emit-artifact=%t.e > /dev/null
// RUN: FileCheck %s --check-prefix=EXACT < %t.e/fused/sigreg.ptx
// RUN: rm -rf %t.q && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=3x1000x200 --precise-sqrt --emit-artifact=%t.q > /dev/null
// RUN: FileCheck %s --check-prefix=EXACT < %t.q/fused/sigreg.ptx
// RUN: rm -rf %t.p && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=3x1024x200 --wgmma-persistent --emit-artifact=%t.p | FileCheck %s --check-prefix=POUT
// RUN: FileCheck %s --check-prefix=PPTX < %t.p/fused/sigreg.ptx
// RUN: FileCheck %s --check-prefix=PMANIFEST < %t.p/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t.p/fused/sigreg.ptx -o %t.p/f.cubin 2>&1 | FileCheck %s --check-prefix=PPTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"

// The Hopper kernel through the whole pipeline (chip sm_90a, the default):
// nvgpu -> NVVM -> PTX that ptxas assembles for sm_90a without spills.

// Two steps: the projection, then the Hopper kernel, whose tail adds the 8
// batch tiles and runs the epilogue (docs/GPU-SCHEDULES.md, "the tail").
// OUT: fused pipeline: 2 steps
// The ping-pong kernel (--wgmma-persistent; N = 1024: its batch tiles do
// not cross views) has no tail: the finalize-loss kernel follows it.
// POUT: fused pipeline: 3 steps

// The projection kernel's Box-Muller step: by default (fast-normals) the
// GPU's approximate log2, cosine and sine, no division; --fast-normals=false
// or --precise-sqrt (the host's g bit for bit) the exact mapping's
// polynomials with the correctly rounded division of its logarithm
// (docs/PROJECTION.md, sections 4 and 7).
// FAST-LABEL:  .visible .entry sigreg_projection_rows(
// FAST-NOT:    div.rn.f32
// FAST:        lg2.approx.ftz.f32
// FAST:        cos.approx.f32
// FAST:        sin.approx.f32
// FAST-NOT:    div.rn.f32
// FAST-LABEL:  .visible .entry sigreg_fused_ecf_wgmma(
// EXACT-LABEL: .visible .entry sigreg_projection_rows(
// EXACT-NOT:   {{lg2|sin|cos}}.approx
// EXACT:       div.rn.f32
// EXACT-NOT:   {{lg2|sin|cos}}.approx
// EXACT-LABEL: .visible .entry sigreg_fused_ecf_wgmma(

// --sigreg-extern-dynamic-shared-memory: the operand ring is declared after
// the static mbarriers, 1024-byte aligned (the 128-byte swizzle needs it).
// PTX:       .target sm_90a
// PTX:       .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// --sigreg-grid-constant-params: the tensor maps are 128-byte parameters.
// PTX:       .visible .entry sigreg_fused_ecf_wgmma(
// PTX-NEXT:    .param .align 64 .b8 sigreg_fused_ecf_wgmma_param_0[128],
// PTX-NEXT:    .param .align 64 .b8 sigreg_fused_ecf_wgmma_param_1[128],
// PTX:       .maxntid 384, 1, 1
// PTX:       mbarrier.init.shared.b64
// PTX:       prefetch.tensormap
// PTX:       setmaxnreg.dec.sync.aligned.u32 40;
// PTX:       cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX:       setmaxnreg.inc.sync.aligned.u32 232;
// PTX:       wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX:       wgmma.wait_group.sync.aligned 0;
// PTX:       bar.sync 1, 256;
// PTX:       sin.approx.f32
// PTX:       cos.approx.f32
// PTX-NOT:   .extern .func

// The wgmma step (keys sorted): x's tensor map innermost dimension first,
// then the kernel and its dynamic shared memory.
// MANIFEST:      "tensor_map": {
// MANIFEST-NEXT:   "box": [
// MANIFEST-NEXT:     64,
// MANIFEST-NEXT:     128
// MANIFEST-NEXT:   ],
// MANIFEST-NEXT:   "buffer": "x",
// MANIFEST-NEXT:   "dims": [
// MANIFEST-NEXT:     200,
// MANIFEST-NEXT:     3000
// MANIFEST-NEXT:   ],
// MANIFEST:      "kernel": "sigreg_fused_ecf_wgmma",
// MANIFEST:      "shared_bytes": 196608

// Register count recorded: 168 per thread at entry (ptxas's cap for 384
// threads), raised to 232 for the consumers by setmaxnreg.
// PTXAS: Compiling entry function 'sigreg_fused_ecf_wgmma' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used 168 registers
// The ping-pong kernel: 384 threads with setmaxnreg, pairs of CTAs
// (`.reqnctapercluster 2, 1, 1` on its one-dimensional grid), wgmma
// m64n128k16 with A (g) transposed, imm-trans-a 1, imm-trans-b 0; the first
// k16 step with scale-d 0 (the predicate set from 0), the others 1.
// PPTX:       .visible .entry sigreg_fused_ecf_wgmma_persistent(
// PPTX:       .maxntid 384, 1, 1
// PPTX-NEXT:  .explicitcluster
// PPTX-NEXT:  .reqnctapercluster 2, 1, 1
// PPTX:       setmaxnreg.dec.sync.aligned.u32 	40;
// PPTX:       cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// PPTX:       cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PPTX:       setmaxnreg.inc.sync.aligned.u32 	232;
// PPTX:       bar.sync 	%r{{[0-9]+}}, 256;
// PPTX:       setp.ne.b32 p, 0, 0;
// PPTX-NEXT:  wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 1,  0;
// PPTX:       setp.ne.b32 p, 1, 0;
// PPTX-NEXT:  wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 1,  0;
// PPTX:       wgmma.wait_group.sync.aligned 1;
// PPTX:       mapa.shared::cluster.u64
// PPTX:       bar.arrive %r{{[0-9]+}}, 256;
// PPTX:       wgmma.wait_group.sync.aligned 0;
// PPTX:       sin.approx.f32
// PPTX:       shfl.sync.bfly.b32
// PMANIFEST:      "tensor_map": {
// PMANIFEST-NEXT:   "box": [
// PMANIFEST-NEXT:     64,
// PMANIFEST-NEXT:     128
// PMANIFEST-NEXT:   ],
// PMANIFEST:      "kernel": "sigreg_fused_ecf_wgmma_persistent",
// PMANIFEST:      "shared_bytes": 197632
// Register count recorded: 168 at entry (384 threads), no spills, and no
// "wgmma serialization" warning (C7520) or waits injected between the
// wgmmas (C7517).
// PPTXAS-NOT: C75{{17|20}}
// PPTXAS: Compiling entry function 'sigreg_fused_ecf_wgmma_persistent' for 'sm_90a'
// PPTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PPTXAS: Used 168 registers
func.func @sigreg(%x: tensor<3x?x200xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1928 points = 5 : tensor<3x?x200xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
