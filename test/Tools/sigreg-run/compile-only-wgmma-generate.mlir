// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --wgmma-generate --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/sigreg.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"

// Mid (N = 1024, D = 1024, S = 1024, bf16) with --wgmma-generate: the
// Hopper kernel's 64-slice tile generates its g tile in clusters of the 8
// batch-tile CTAs of each slice tile, and its tail adds the batch tiles and
// the loss: the whole forward is one launch.
// OUT: fused pipeline: 1 steps

// PTX:       .visible .entry sigreg_fused_ecf_wgmma(
// PTX:       .explicitcluster
// PTX:       .reqnctapercluster 1, 8, 1
// PTX:       mov.u32 {{.*}}, %cluster_ctarank;
// PTX:       lg2.approx.ftz.f32
// PTX:       cvt.rn.bf16.f32
// PTX:       fence.proxy.async.global;
// PTX-NEXT:  barrier.cluster.arrive.aligned;
// PTX-NEXT:  barrier.cluster.wait.aligned;
// PTX-NEXT:  fence.proxy.async.global;
// PTX:       cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// PTX:       wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX-NOT:   .entry

// MANIFEST:     "kernel": "sigreg_fused_ecf_wgmma"
// MANIFEST-NOT: "kernel":

// The generation's loop beside the 64-slice kernel's registers: no spills.
// PTXAS: Compiling entry function 'sigreg_fused_ecf_wgmma' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @sigreg(%x: tensor<1024x1024xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<1024x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
