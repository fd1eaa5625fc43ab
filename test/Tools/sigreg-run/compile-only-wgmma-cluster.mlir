// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=2048x4096 --wgmma-rows=128 --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/sigreg.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"

// The cluster rule end to end: D = 4096 is 64 k-tiles, N = 2048 is 16 batch
// tiles, S = 2304 takes 256-slice tiles (9 x 16 = 144 CTAs): pairs of CTAs
// along the batch tiles share their g tile by TMA multicast.
// OUT: fused pipeline: 2 steps

// PTX:       .visible .entry sigreg_fused_ecf_wgmma(
// PTX:       .maxntid 384, 1, 1
// PTX-NEXT:  .explicitcluster
// PTX-NEXT:  .reqnctapercluster 1, 2, 1
// PTX:       fence.mbarrier_init.release.cluster;
// PTX:       barrier.cluster.arrive.aligned;
// PTX-NEXT:  barrier.cluster.wait.aligned;
// Each CTA loads its x tile alone and two of the tile's four g boxes for
// both CTAs.
// PTX:       cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// PTX:       cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX:       cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX:       wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// The release: an arrive in each CTA of the pair, with the default
// release.cta semantics (release.cluster measured 30% slower).
// PTX:       mapa.shared::cluster.u64 {{.*}}, 0;
// PTX:       mbarrier.arrive.shared::cluster.b64
// PTX-NEXT:  mapa.shared::cluster.u64 {{.*}}, 1;
// PTX-NEXT:  mbarrier.arrive.shared::cluster.b64
// PTX-NOT:   mbarrier.arrive.release.cluster

// g (4096 x 2304 bf16, 18.9 MB, at least kL2PersistProjectionBytes),
// which every batch tile re-reads, is kept in L2's persisting portion by
// the runtime (an access policy window on the launches that take it).
// MANIFEST:      "bytes": 18874368,
// MANIFEST-NEXT: "dtype": "bf16",
// MANIFEST-NEXT: "l2_persist": true,
// MANIFEST-NEXT: "name": "ws0",

// PTXAS: Compiling entry function 'sigreg_fused_ecf_wgmma' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used 168 registers
func.func @sigreg(%x: tensor<?x4096xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 2304 points = 17 : tensor<?x4096xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
