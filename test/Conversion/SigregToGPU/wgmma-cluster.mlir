// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-slices=256 wgmma-rows=128 wgmma-cluster=2" --convert-sigreg-to-gpu=hopper=1 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-slices=256 wgmma-rows=128" --convert-sigreg-to-gpu=hopper=1 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=NONE

// The one-tile Hopper kernel in clusters of two CTAs along the batch tiles
// (WgmmaTiling::cluster, docs/GPU-SCHEDULES.md "clusters"): N = 512 rows
// (4 batch tiles, 2 clusters), D = 512 (8 k-tiles, 4 stages), S = 256 (one
// tile of 4 g boxes). The pair shares the g tile: each CTA loads 2 of the
// 4 boxes and multicasts them to both.

// The kernel requires clusters of (1, 2, 1): `.reqnctapercluster` in the PTX;
// the launch is unchanged (grid y = 4 batch tiles).
// CHECK-LABEL: func.func @pairs(
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c1, %c4, %c1) threads in (%c384, %c1, %c1)
// CHECK-LABEL: gpu.func @sigreg_fused_ecf_wgmma(
// CHECK-SAME:    nvvm.cluster_dim = array<i32: 1, 2, 1>

// Stage 1: the CTA's rank in the cluster; every `empty` barrier counts the
// 2 consumer warpgroups of both CTAs (4 arrivals); thread 0 makes the
// initialization visible to the cluster, then all threads pass a cluster
// barrier before any peer may load into this CTA or arrive on its barriers.
// CHECK:         %[[RANK32:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK:         %[[RANK:.*]] = arith.index_castui %[[RANK32]] : i32 to index
// CHECK:         nvgpu.mbarrier.init %[[FULL:.*]][%c0], %c1 :
// CHECK:         nvgpu.mbarrier.init %[[EMPTY:.*]][%c0], %c4 :
// CHECK:         nvgpu.mbarrier.init %[[EMPTY]][%c3], %c4 :
// CHECK:         nvvm.fence.mbarrier.init
// CHECK:         nvvm.cluster.arrive {aligned}
// CHECK-NEXT:    nvvm.cluster.wait {aligned}

// Stage 2: the producer expects the whole stage (16 KB of x + 32 KB of g) on
// its own full barrier, loads its x tile alone, then g boxes rank and
// rank + 2 (64 slices each) with multicast mask 0b11 to both CTAs.
// CHECK:         nvgpu.mbarrier.try_wait.parity %[[EMPTY]]
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%[[S:.*]]], %c49152
// CHECK:         nvgpu.tma.async.load %{{.*}}, %[[FULL]][%[[S]]] to %{{.*}} : <tensor = memref<128x64xbf16, 3>
// CHECK:         %[[B0:.*]] = arith.muli %[[RANK]], %c64 : index
// CHECK:         %[[S0:.*]] = arith.addi %{{.*}}, %[[B0]] : index
// CHECK:         nvgpu.tma.async.load %{{.*}}[%[[S0]], %{{.*}}], %[[FULL]][%[[S]]] to %{{.*}} multicast_mask = %c3_i16 : <tensor = memref<64x64xbf16, 3>
// CHECK:         %[[J1:.*]] = arith.addi %[[RANK]], %c2 : index
// CHECK:         %[[B1:.*]] = arith.muli %[[J1]], %c64 : index
// CHECK:         %[[S1:.*]] = arith.addi %{{.*}}, %[[B1]] : index
// CHECK:         nvgpu.tma.async.load %{{.*}}[%[[S1]], %{{.*}}], %[[FULL]][%[[S]]] to %{{.*}} multicast_mask = %c3_i16 : <tensor = memref<64x64xbf16, 3>
// CHECK-NOT:     nvgpu.tma.async.load

// Stage 3 (unrolled: 8 k-tiles, two rounds of the ring): each consumer
// warpgroup hands a finished stage back to both CTAs' producers, through
// the barrier's address in each CTA (nvvm.mapa), for steps 0-3 only: no
// producer waits for steps 4-7, so no CTA arrives on a peer that may have
// exited.
// CHECK:         nvvm.setmaxregister  increase 232
// CHECK:         %[[ADDR:.*]] = nvgpu.mbarrier.get %[[EMPTY]][%c0] {{.*}} -> i32
// CHECK-NEXT:    %[[PTR:.*]] = llvm.inttoptr %[[ADDR]] : i32 to !llvm.ptr<3>
// CHECK-NEXT:    %[[R0:.*]] = nvvm.mapa %[[PTR]], %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:    nvvm.mbarrier.arrive %[[R0]] : !llvm.ptr<7>
// CHECK-NEXT:    %[[R1:.*]] = nvvm.mapa %[[PTR]], %c1_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:    nvvm.mbarrier.arrive %[[R1]] : !llvm.ptr<7>
// CHECK-COUNT-3: nvgpu.mbarrier.get %[[EMPTY]][%c{{[1-3]}}] {{.*}} -> i32
// CHECK-NOT:     nvgpu.mbarrier.get %[[EMPTY]]
// CHECK-NOT:     nvgpu.mbarrier.arrive
// CHECK:         nvgpu.warpgroup.mma.store

// Without the option (D = 512 has 8 k-tiles, below the rule's 64): no
// cluster, every g box loaded by its own CTA, a local release.
// NONE-LABEL: gpu.func @sigreg_fused_ecf_wgmma(
// NONE-SAME:    kernel attributes {known_block_size = array<i32: 384, 1, 1>, sigreg.grid_constants
// NONE-NOT:     multicast_mask
// NONE-NOT:     nvvm.mapa
// NONE:         nvgpu.mbarrier.arrive %{{.*}}[%c0]
// NONE-NOT:     multicast_mask
// NONE-NOT:     nvvm.mapa
// NONE:         gpu.return
func.func @pairs(%x: tensor<512x512xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 5 : tensor<512x512xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
